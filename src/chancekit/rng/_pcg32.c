/* chancekit.rng._pcg32: PCG32's core in C (optional).
 *
 * One type, Core: a 64-bit LCG state and its odd increment, with the frozen draws of
 * docs/reproducibility.md computed in C: next_u32 (pcg32_random_r), random (CPython's
 * 53-bit float from two words), randbelow (pcg32_boundedrand_r; w words little-endian
 * above 2**32), getrandbits (CPython's construction), and the bulk fills behind
 * PCG32.u32_array, random_array and randbelow_array (exactly n scalar calls).
 * chancekit.rng.pcg32.PCG32 subclasses it; without a compiler it subclasses the
 * pure-Python core of the same module instead (the same streams, bit for bit: the tests
 * compare the two, tests/rng/test_pcg32_compiled.py).
 *
 * Thread safety: every method runs with the GIL held and runs no Python code between
 * reading and writing the state, so each call is atomic. The two fills that release the
 * GIL (words and floats, large n) first reserve their words: the state jumps past them
 * (O(log n)) before the GIL is let go, and the words are computed from the old state.
 * randbelow_array cannot know its word count in advance (rejections), so it keeps the GIL.
 *
 * Remainders by the bound use Lemire's "fastmod" (a 64-bit reciprocal and two
 * multiplications, exact for every 32-bit value and bound): the same values as r % bound.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MULT 6364136223846793005ULL
#define TWO32 4294967296ULL
/* the most bits of one getrandbits: 32 * chancekit.limits.MAX_BULK (2**30 words) */
#define MAX_BITS (32LL << 30)
/* at least this many words before the GIL is released for a fill */
#define RELEASE_AT 65536

typedef struct {
    PyObject_HEAD
    uint64_t state;
    uint64_t inc;
} CoreObject;

static inline uint32_t
output(uint64_t old)
{
    uint32_t x = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (x >> rot) | (x << ((-rot) & 31));
}

static inline uint32_t
step(CoreObject *g)
{
    uint64_t old = g->state;
    g->state = old * MULT + g->inc;
    return output(old);
}

/* pcg_advance_lcg_64: the state delta steps on (delta mod 2**64) in O(log delta) */
static uint64_t
advance_lcg(uint64_t state, uint64_t delta, uint64_t mult, uint64_t plus)
{
    uint64_t acc_mult = 1, acc_plus = 0;
    while (delta) {
        if (delta & 1) {
            acc_mult *= mult;
            acc_plus = acc_plus * mult + plus;
        }
        plus = (mult + 1) * plus;
        mult *= mult;
        delta >>= 1;
    }
    return acc_mult * state + acc_plus;
}

/* Lemire's fastmod: a % d for 32-bit a and d >= 1, with m = 2**64 / d rounded up */
static inline uint32_t
fastmod(uint32_t a, uint64_t m, uint32_t d)
{
    uint64_t low = m * a;
    return (uint32_t)(((unsigned __int128)low * d) >> 64);
}

static inline uint64_t
fastmod_m(uint32_t d)
{
    return UINT64_C(0xFFFFFFFFFFFFFFFF) / d + 1;
}

/* n words from state s with increment inc, into out; four interleaved chains (each
   stepping by MULT**4), so the multiplications do not wait on each other */
static void
fill_words(uint64_t s, uint64_t inc, uint32_t *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    if (n >= 16) {
        uint64_t m2 = MULT * MULT, m4 = m2 * m2;
        uint64_t c4 = inc * (1 + MULT + m2 + m2 * MULT);  /* inc * (1 + M + M^2 + M^3) */
        uint64_t s0 = s, s1 = s0 * MULT + inc, s2 = s1 * MULT + inc, s3 = s2 * MULT + inc;
        for (; i + 4 <= n; i += 4) {
            out[i] = output(s0);
            out[i + 1] = output(s1);
            out[i + 2] = output(s2);
            out[i + 3] = output(s3);
            s0 = s0 * m4 + c4;
            s1 = s1 * m4 + c4;
            s2 = s2 * m4 + c4;
            s3 = s3 * m4 + c4;
        }
        s = s0;
    }
    for (; i < n; i++) {
        out[i] = output(s);
        s = s * MULT + inc;
    }
}

/* n floats (2n words) from state s, the scalar random()'s construction */
static void
fill_floats(uint64_t s, uint64_t inc, double *out, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    if (n >= 8) {
        uint64_t m2 = MULT * MULT, m4 = m2 * m2;
        uint64_t c4 = inc * (1 + MULT + m2 + m2 * MULT);
        uint64_t s0 = s, s1 = s0 * MULT + inc, s2 = s1 * MULT + inc, s3 = s2 * MULT + inc;
        for (; i + 2 <= n; i += 2) {
            uint32_t a0 = output(s0) >> 5, b0 = output(s1) >> 6;
            uint32_t a1 = output(s2) >> 5, b1 = output(s3) >> 6;
            out[i] = ((double)a0 * 67108864.0 + (double)b0) * (1.0 / 9007199254740992.0);
            out[i + 1] = ((double)a1 * 67108864.0 + (double)b1) * (1.0 / 9007199254740992.0);
            s0 = s0 * m4 + c4;
            s1 = s1 * m4 + c4;
            s2 = s2 * m4 + c4;
            s3 = s3 * m4 + c4;
        }
        s = s0;
    }
    for (; i < n; i++) {
        uint32_t a = output(s) >> 5;
        s = s * MULT + inc;
        uint32_t b = output(s) >> 6;
        s = s * MULT + inc;
        out[i] = ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
    }
}

static PyObject *
Core_new(PyTypeObject *type, PyObject *Py_UNUSED(args), PyObject *Py_UNUSED(kwds))
{
    CoreObject *self = (CoreObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->state = 0;
        self->inc = 1;
    }
    return (PyObject *)self;
}

static PyObject *
Core_next_u32(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromUnsignedLong(step(self));
}

static PyObject *
Core_random(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    uint32_t a = step(self) >> 5;
    uint32_t b = step(self) >> 6;
    return PyFloat_FromDouble(((double)a * 67108864.0 + (double)b) *
                              (1.0 / 9007199254740992.0));
}

/* the reference bounded draw, 1 <= bound <= 2**32 */
static inline uint32_t
bounded(CoreObject *self, uint64_t bound)
{
    if (bound == TWO32)
        return step(self);
    uint32_t b = (uint32_t)bound;
    uint32_t threshold = (uint32_t)(-b) % b;
    for (;;) {
        uint32_t r = step(self);
        if (r >= threshold)
            return r % b;
    }
}

/* w words, little-endian (the first least significant), as a Python int; the last word
   keeps its top `top` bits (32 for whole words) */
static PyObject *
words_int(CoreObject *self, Py_ssize_t w, int top)
{
    unsigned char small[64] = {0};
    unsigned char *buf = small;
    if (w > 16) {
        buf = PyMem_Malloc((size_t)w * 4);
        if (buf == NULL)
            return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < w; i++) {
        uint32_t x = step(self);
        if (i == w - 1 && top < 32)
            x >>= 32 - top;
        buf[4 * i] = (unsigned char)x;
        buf[4 * i + 1] = (unsigned char)(x >> 8);
        buf[4 * i + 2] = (unsigned char)(x >> 16);
        buf[4 * i + 3] = (unsigned char)(x >> 24);
    }
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *r = PyLong_FromUnsignedNativeBytes(
        buf, (size_t)w * 4, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
#else
    PyObject *r = _PyLong_FromByteArray(buf, (size_t)w * 4, 1, 0);
#endif
    if (buf != small)
        PyMem_Free(buf);
    return r;
}

/* randbelow for an int bound > 2**32: the same rule on w words */
static PyObject *
randbelow_big(CoreObject *self, PyObject *bound)
{
    PyObject *one = NULL, *bm1 = NULL, *bits = NULL, *shift = NULL, *span = NULL;
    PyObject *diff = NULL, *threshold = NULL, *r = NULL, *result = NULL;
    if ((one = PyLong_FromLong(1)) == NULL || (bm1 = PyNumber_Subtract(bound, one)) == NULL ||
        (bits = PyObject_CallMethod(bm1, "bit_length", NULL)) == NULL)
        goto done;
    Py_ssize_t nbits = PyLong_AsSsize_t(bits);
    if (nbits == -1 && PyErr_Occurred())
        goto done;
    Py_ssize_t w = (nbits + 31) / 32;
    if ((shift = PyLong_FromSsize_t(32 * w)) == NULL ||
        (span = PyNumber_Lshift(one, shift)) == NULL ||
        (diff = PyNumber_Subtract(span, bound)) == NULL ||
        (threshold = PyNumber_Remainder(diff, bound)) == NULL)
        goto done;
    for (;;) {
        r = words_int(self, w, 32);
        if (r == NULL)
            goto done;
        int ge = PyObject_RichCompareBool(r, threshold, Py_GE);
        if (ge < 0)
            goto done;
        if (ge) {
            result = PyNumber_Remainder(r, bound);
            goto done;
        }
        Py_CLEAR(r);
    }
done:
    Py_XDECREF(one);
    Py_XDECREF(bm1);
    Py_XDECREF(bits);
    Py_XDECREF(shift);
    Py_XDECREF(span);
    Py_XDECREF(diff);
    Py_XDECREF(threshold);
    Py_XDECREF(r);
    return result;
}

static PyObject *
Core_randbelow(CoreObject *self, PyObject *bound)
{
    if (PyLong_CheckExact(bound)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(bound, &overflow);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (overflow == 0 && v >= 1 && (unsigned long long)v <= TWO32)
            return PyLong_FromUnsignedLong(bounded(self, (uint64_t)v));
        if (overflow > 0 || (overflow == 0 && v > 0))
            return randbelow_big(self, bound);
    }
    /* anything else (an int subclass, a bad type or value): checked in Python */
    return PyObject_CallMethod((PyObject *)self, "_randbelow_checked", "O", bound);
}

static PyObject *
Core_getrandbits(CoreObject *self, PyObject *arg)
{
    if (PyLong_CheckExact(arg)) {
        int overflow;
        long long k = PyLong_AsLongLongAndOverflow(arg, &overflow);
        if (k == -1 && PyErr_Occurred())
            return NULL;
        if (overflow == 0 && k >= 0) {
            if (k <= 32)
                return PyLong_FromUnsignedLong(k ? step(self) >> (32 - k) : 0);
            if (k <= MAX_BITS) {
                int top = (int)(k % 32);
                return words_int(self, (Py_ssize_t)((k + 31) / 32), top ? top : 32);
            }
        }
    }
    /* anything else (a bad type or value, or past MAX_BITS: a LimitError): in Python */
    return PyObject_CallMethod((PyObject *)self, "_getrandbits_checked", "O", arg);
}

static int
writable(PyObject *obj, Py_buffer *view, Py_ssize_t itemsize)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != itemsize || view->len % itemsize) {
        PyErr_Format(PyExc_ValueError, "expected a contiguous buffer of %zd-byte items",
                     itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* _fill_u32(out): out (uint32 buffer) gets the next len(out) words */
static PyObject *
Core_fill_u32(CoreObject *self, PyObject *obj)
{
    Py_buffer view;
    if (writable(obj, &view, 4) < 0)
        return NULL;
    Py_ssize_t n = view.len / 4;
    uint64_t s = self->state, inc = self->inc;
    self->state = advance_lcg(s, (uint64_t)n, MULT, inc);  /* reserved */
    if (n >= RELEASE_AT) {
        Py_BEGIN_ALLOW_THREADS
        fill_words(s, inc, view.buf, n);
        Py_END_ALLOW_THREADS
    }
    else {
        fill_words(s, inc, view.buf, n);
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* _fill_random(out): out (float64 buffer) gets the next len(out) floats */
static PyObject *
Core_fill_random(CoreObject *self, PyObject *obj)
{
    Py_buffer view;
    if (writable(obj, &view, 8) < 0)
        return NULL;
    Py_ssize_t n = view.len / 8;
    uint64_t s = self->state, inc = self->inc;
    self->state = advance_lcg(s, 2 * (uint64_t)n, MULT, inc);
    if (n >= RELEASE_AT / 2) {
        Py_BEGIN_ALLOW_THREADS
        fill_floats(s, inc, view.buf, n);
        Py_END_ALLOW_THREADS
    }
    else {
        fill_floats(s, inc, view.buf, n);
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* _fill_randbelow(bound, out): out (uint32 buffer) gets len(out) draws of randbelow(bound),
   1 <= bound <= 2**32, rejections included; the GIL is held throughout */
static PyObject *
Core_fill_randbelow(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_fill_randbelow(bound, out)");
        return NULL;
    }
    unsigned long long bound = PyLong_AsUnsignedLongLong(args[0]);
    if (bound == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    if (bound < 1 || bound > TWO32) {
        PyErr_SetString(PyExc_ValueError, "bound must be from 1 to 2**32");
        return NULL;
    }
    Py_buffer view;
    if (writable(args[1], &view, 4) < 0)
        return NULL;
    Py_ssize_t n = view.len / 4;
    uint32_t *out = view.buf;
    if (bound == TWO32) {
        fill_words(self->state, self->inc, out, n);
        self->state = advance_lcg(self->state, (uint64_t)n, MULT, self->inc);
    }
    else {
        uint32_t b = (uint32_t)bound;
        uint32_t threshold = (uint32_t)(-b) % b;
        uint64_t m = fastmod_m(b);
        uint64_t s = self->state, inc = self->inc;
        for (Py_ssize_t i = 0; i < n; i++) {
            uint32_t r;
            do {
                r = output(s);
                s = s * MULT + inc;
            } while (r < threshold);
            out[i] = fastmod(r, m, b);
        }
        self->state = s;
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* _shuffle_draws(n): [randbelow(i) for i from n down to 2], drawn at once */
static PyObject *
Core_shuffle_draws(CoreObject *self, PyObject *arg)
{
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    if (n < 2)
        return PyList_New(0);
    if ((unsigned long long)n > TWO32) {
        PyErr_SetString(PyExc_OverflowError, "cannot shuffle more than 2**32 items");
        return NULL;
    }
    uint32_t *js = PyMem_Malloc((size_t)(n - 1) * sizeof(uint32_t));
    if (js == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = n; i >= 2; i--)
        js[n - i] = bounded(self, (uint64_t)i);  /* the state is final before any object */
    PyObject *list = PyList_New(n - 1);
    if (list != NULL) {
        for (Py_ssize_t k = 0; k < n - 1; k++) {
            PyObject *v = PyLong_FromUnsignedLong(js[k]);
            if (v == NULL) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, k, v);
        }
    }
    PyMem_Free(js);
    return list;
}

/* _jump(delta): delta (mod 2**64, an int in [0, 2**64)) steps on */
static PyObject *
Core_jump(CoreObject *self, PyObject *arg)
{
    unsigned long long d = PyLong_AsUnsignedLongLong(arg);
    if (d == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    self->state = advance_lcg(self->state, d, MULT, self->inc);
    Py_RETURN_NONE;
}

/* _get(): (state, inc) */
static PyObject *
Core_get(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(KK)", (unsigned long long)self->state,
                         (unsigned long long)self->inc);
}

/* _set(state, inc): both in [0, 2**64), already validated */
static PyObject *
Core_set(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "_set(state, inc)");
        return NULL;
    }
    unsigned long long s = PyLong_AsUnsignedLongLong(args[0]);
    if (s == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    unsigned long long inc = PyLong_AsUnsignedLongLong(args[1]);
    if (inc == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    self->state = s;
    self->inc = inc;
    Py_RETURN_NONE;
}

static PyMethodDef Core_methods[] = {
    {"next_u32", (PyCFunction)Core_next_u32, METH_NOARGS,
     "next_u32()\n--\n\nThe next 32-bit word (pcg32_random_r). O(1)."},
    {"random", (PyCFunction)Core_random, METH_NOARGS,
     "random()\n--\n\nA float in [0, 1) from two words a, b: "
     "((a >> 5) * 2**26 + (b >> 6)) / 2**53. O(1)."},
    {"randbelow", (PyCFunction)Core_randbelow, METH_O,
     "randbelow(bound)\n--\n\nA uniform integer in [0, bound) (pcg32_boundedrand_r; "
     "w words little-endian above 2**32)."},
    {"getrandbits", (PyCFunction)Core_getrandbits, METH_O,
     "getrandbits(k)\n--\n\nA non-negative integer with k random bits (CPython's "
     "construction)."},
    {"_fill_u32", (PyCFunction)Core_fill_u32, METH_O, NULL},
    {"_fill_random", (PyCFunction)Core_fill_random, METH_O, NULL},
    {"_fill_randbelow", (PyCFunction)(void (*)(void))Core_fill_randbelow, METH_FASTCALL,
     NULL},
    {"_shuffle_draws", (PyCFunction)Core_shuffle_draws, METH_O, NULL},
    {"_jump", (PyCFunction)Core_jump, METH_O, NULL},
    {"_get", (PyCFunction)Core_get, METH_NOARGS, NULL},
    {"_set", (PyCFunction)(void (*)(void))Core_set, METH_FASTCALL, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "chancekit.rng._pcg32.Core",
    .tp_doc = "PCG32's state and draws in C (subclassed by chancekit.PCG32).",
    .tp_basicsize = sizeof(CoreObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = Core_new,
    .tp_methods = Core_methods,
};

static struct PyModuleDef pcg32module = {
    PyModuleDef_HEAD_INIT, "_pcg32",
    "PCG32's core in C (optional; chancekit.rng.pcg32 has the same in Python).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__pcg32(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&pcg32module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
