/* chancekit.sampling._vose: the compiled sweep of the exact alias build (optional).
 *
 * One function, sweep(w_lo, w_hi, k, cap_lo, cap_hi, t_lo, t_hi, ali): Vose's
 * construction over masses k * w[i] (exact integers below 2**128, held as two 64-bit
 * words) in columns of capacity cap, with the very pops and pushes of
 * chancekit.sampling.alias.vose_integer, so the tables are the same, bit for bit.
 * Unsigned 128-bit arithmetic (GCC and Clang's unsigned __int128): nothing rounds.
 * O(n) time, two index stacks of n entries; the GIL is released while it runs.
 *
 * The module is an accelerator: chancekit builds the same tables with numpy when it is
 * missing (alias._sweep); the tests compare the two (tests/sampling/test_alias_compiled.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

typedef unsigned __int128 u128;

static int
get_buffer(PyObject *obj, Py_buffer *view, int writable, const char *name, Py_ssize_t n)
{
    if (PyObject_GetBuffer(obj, view, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (view->itemsize != 8 || view->len != n * 8) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd contiguous 8-byte items", name, n);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *
sweep(PyObject *self, PyObject *args)
{
    PyObject *o_wlo, *o_whi, *o_tlo, *o_thi, *o_ali;
    unsigned long long k, cap_lo, cap_hi;
    if (!PyArg_ParseTuple(args, "OOKKKOOO:sweep", &o_wlo, &o_whi, &k, &cap_lo, &cap_hi,
                          &o_tlo, &o_thi, &o_ali))
        return NULL;
    Py_buffer b_wlo, b_whi, b_tlo, b_thi, b_ali;
    int has_whi = o_whi != Py_None, has_thi = o_thi != Py_None;
    if (PyObject_GetBuffer(o_wlo, &b_wlo, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    Py_ssize_t n = b_wlo.len / 8;
    if (b_wlo.itemsize != 8 || b_wlo.len % 8) {
        PyBuffer_Release(&b_wlo);
        PyErr_SetString(PyExc_ValueError, "w_lo: expected contiguous 8-byte items");
        return NULL;
    }
    int got = 0;  /* how many of the other buffers are held */
    if (has_whi && get_buffer(o_whi, &b_whi, 0, "w_hi", n) < 0)
        goto fail;
    got = 1;
    if (get_buffer(o_tlo, &b_tlo, 1, "t_lo", n) < 0)
        goto fail;
    got = 2;
    if (has_thi && get_buffer(o_thi, &b_thi, 1, "t_hi", n) < 0)
        goto fail;
    got = 3;
    if (get_buffer(o_ali, &b_ali, 1, "ali", n) < 0)
        goto fail;
    got = 4;

    const uint64_t *wlo = b_wlo.buf, *whi = has_whi ? b_whi.buf : NULL;
    uint64_t *tlo = b_tlo.buf, *thi = has_thi ? b_thi.buf : NULL;
    int64_t *ali = b_ali.buf;
    const u128 cap = ((u128)cap_hi << 64) | cap_lo;
    /* the two stacks share one buffer: an item is in one of them at most, so the smalls
       (from the front) never meet the larges (from the back, the top at stack[n - nl]);
       the running masses live in the output words (t_hi is None only when they fit in
       64 bits) */
    int64_t *stack = NULL;
    int bad = 0;
    if (n > 0 && !(stack = malloc((size_t)n * sizeof(int64_t)))) {
        PyErr_NoMemory();
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t ns = 0, nl = 0;
    const u128 top = ~(u128)0;
    const u128 wmax = k ? top / k : top;  /* w * k fits iff w <= wmax */
    u128 sum = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        u128 w = ((u128)(whi ? whi[i] : 0) << 64) | wlo[i];
        if (w > wmax || (!thi && w * k > (u128)UINT64_MAX)) {
            bad = 1;  /* past 128 bits (or past 64 without the high words) */
            break;
        }
        u128 m = w * (u128)k;
        sum += m;
        if (sum < m) {
            bad = 1;
            break;
        }
        tlo[i] = (uint64_t)m;
        if (thi)
            thi[i] = (uint64_t)(m >> 64);
        ali[i] = i;
        if (m < cap)
            stack[ns++] = i;
        else if (m > cap)  /* the larges from the back: the highest index on top */
            stack[n - 1 - nl++] = i;
    }
    /* the masses must fill the n columns exactly */
    if (!bad && (cap > top / (u128)(n ? n : 1) || sum != (u128)n * cap))
        bad = 1;
    while (!bad && ns && nl) {
        int64_t s = stack[--ns];
        int64_t g = stack[n - nl];
        u128 rs = ((u128)(thi ? thi[s] : 0) << 64) | tlo[s];
        u128 rg = ((u128)(thi ? thi[g] : 0) << 64) | tlo[g];
        u128 gap = cap - rs;
        ali[s] = g;
        if (rg < gap) {  /* cannot happen once the sum is checked */
            bad = 1;
            break;
        }
        rg -= gap;
        tlo[g] = (uint64_t)rg;
        if (thi)
            thi[g] = (uint64_t)(rg >> 64);
        if (rg < cap) {
            nl--;
            stack[ns++] = g;
        } else if (rg == cap) {
            nl--;
        }
    }
    for (Py_ssize_t j = 0; j < n && !bad; j++) {
        if (ali[j] == j) {
            tlo[j] = cap_lo;
            if (thi)
                thi[j] = cap_hi;
        }
    }
    Py_END_ALLOW_THREADS
    free(stack);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "sweep: the masses k * w must be below 2**128 "
                        "(2**64 without t_hi) and sum to n * cap");
        goto fail;
    }
    PyBuffer_Release(&b_wlo);
    if (has_whi) PyBuffer_Release(&b_whi);
    PyBuffer_Release(&b_tlo);
    if (has_thi) PyBuffer_Release(&b_thi);
    PyBuffer_Release(&b_ali);
    Py_RETURN_NONE;

fail:
    PyBuffer_Release(&b_wlo);
    if (got >= 1 && has_whi) PyBuffer_Release(&b_whi);
    if (got >= 2) PyBuffer_Release(&b_tlo);
    if (got >= 3 && has_thi) PyBuffer_Release(&b_thi);
    if (got >= 4) PyBuffer_Release(&b_ali);
    return NULL;
}

static PyMethodDef methods[] = {
    {"sweep", sweep, METH_VARARGS,
     "sweep(w_lo, w_hi, k, cap_lo, cap_hi, t_lo, t_hi, ali): Vose's construction "
     "(vose_integer's tables) over masses k * w in columns of cap, 128-bit exact; "
     "w_hi / t_hi may be None (high words zero / not wanted). O(n)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_vose",
    "The compiled sweep of the exact alias build (optional accelerator).", -1, methods,
};

PyMODINIT_FUNC
PyInit__vose(void)
{
    return PyModule_Create(&module);
}
