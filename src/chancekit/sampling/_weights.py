"""Turning a weights argument into labels and exact integer weights (private).

Accepted sources: a mapping ``label -> weight``, a sequence of weights (labels
``0..n-1``), or a distribution (anything with a ``.weights`` mapping, or a ``.pmf()``
returning a mapping). Weights may be ``int``, ``Fraction`` (any ``numbers.Rational``) or
finite ``float``; floats are converted *exactly* with ``Fraction(float)`` -- the value
the float really holds, not the decimal it was typed as. Every bad entry is reported by
name; nothing is built until every entry has been checked.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.limits import MAX_LABELS, MAX_TABLE_BITS, MAX_WEIGHT_DIGITS

_EXPONENT = re.compile(r"[eE]([-+]?[\d_]+)\s*\Z")



def _check_labels(count: int, what: str) -> None:
    if count > MAX_LABELS:
        raise LimitError(f"{what} has {count:,} labels, past MAX_LABELS = {MAX_LABELS:,}; "
                         "group the labels (a first table picks a group, a second one picks "
                         "within it)", limit="MAX_LABELS", value=count)


def exact_weight(name: str, value: Any) -> Fraction:
    """``value`` as a non-negative ``Fraction``; floats exactly. ``name`` names the entry."""
    if isinstance(value, bool):
        raise InvalidTypeError(name, value, "an int, Fraction or float weight")
    if isinstance(value, numbers.Rational):
        w = Fraction(int(value.numerator), int(value.denominator))
    elif isinstance(value, (float, numbers.Real)):
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            raise InvalidValueError(name, value, "a finite weight >= 0")
        w = Fraction(f)
    else:
        raise InvalidTypeError(name, value, "an int, Fraction or float weight")
    if w < 0:
        raise InvalidValueError(name, value, "a weight >= 0")
    return w


def _entries(source: Any, what: str) -> list[tuple[Any, Any]]:
    if isinstance(source, Mapping):
        _check_labels(len(source), what)
        return list(source.items())
    weights = getattr(source, "weights", None)
    if isinstance(weights, Mapping):
        _check_labels(len(weights), what)
        return list(weights.items())
    pmf = getattr(source, "pmf", None)
    if callable(pmf):
        got = pmf()
        if isinstance(got, Mapping):
            _check_labels(len(got), what)
            return list(got.items())
    if isinstance(source, (str, bytes)):
        raise InvalidTypeError(what, source, "a mapping label -> weight or a sequence of "
                               "weights (a dice notation string is accepted by "
                               "TabletopTable.build)")
    if isinstance(source, (Sequence, Iterable)) and not isinstance(source, (str, bytes)):
        if isinstance(source, Sequence):
            _check_labels(len(source), what)
        try:
            out = list(enumerate(source))
        except TypeError:  # pragma: no cover - defensive
            pass
        else:
            _check_labels(len(out), what)
            return out
    raise InvalidTypeError(what, source, "a mapping label -> weight, a sequence of weights, "
                           "or a Distribution")


def integer_weights(source: Any, *, what: str = "weights",
                    allow_zero_total: bool = False) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """``(labels, ints)``: the labels in order and integer weights proportional to the
    exact weights, divided by their greatest common divisor (so ``[2, 4]`` -> ``[1, 2]``).

    >>> integer_weights({"a": 0.5, "b": Fraction(1, 4)})
    (('a', 'b'), (2, 1))
    """
    if hasattr(source, "dtype") and hasattr(source, "tolist"):  # a numpy array
        source = source.tolist()
    entries = _entries(source, what)
    if not entries and not allow_zero_total:
        raise InvalidValueError(f"{what} is empty: give at least one label with a weight > 0")
    values = [v for _, v in entries]
    if all(v.__class__ is int for v in values):  # fast path: plain integers
        if min(values, default=0) < 0:
            lab, bad = next((lab, v) for lab, v in entries if v < 0)
            raise InvalidValueError(f"{what}[{lab!r}]", bad, "a weight >= 0")
        g = math.gcd(*values)
        if g == 0:
            if allow_zero_total:
                return tuple(lab for lab, _ in entries), tuple(values)
            raise InvalidValueError(f"{what}: every weight is zero ({len(values)} entries); "
                                    "at least one must be > 0")
        return tuple(lab for lab, _ in entries), tuple(v // g for v in values)
    labels = []
    fracs = []
    for label, value in entries:
        labels.append(label)
        fracs.append(exact_weight(f"{what}[{label!r}]", value))
    denom = 1
    for f in fracs:
        denom = denom * f.denominator // math.gcd(denom, f.denominator)
        if denom.bit_length() * len(fracs) > MAX_TABLE_BITS:
            raise LimitError(
                f"{what}: the exact weights over a common denominator would take about "
                f"{len(fracs):,} x {denom.bit_length():,}+ bits, past MAX_TABLE_BITS = "
                f"{MAX_TABLE_BITS:,}; round the weights (e.g. to floats or to a common "
                "denominator) first", limit="MAX_TABLE_BITS",
                value=denom.bit_length() * len(fracs))
    ints = [f.numerator * (denom // f.denominator) for f in fracs]
    g = 0
    for x in ints:
        g = math.gcd(g, x)
    if g == 0:
        if allow_zero_total:
            return tuple(labels), tuple(ints)
        raise InvalidValueError(f"{what}: every weight is zero ({len(ints)} entries); "
                                "at least one must be > 0")
    return tuple(labels), tuple(x // g for x in ints)


#: from this many labels on, plain int or float weights take the vectorised numpy path
#: (:func:`array_weights`); below it the pure-Python path is as fast
NUMPY_FROM = 256


def _first_bad(name: str, label: Any, value: Any) -> None:
    """Raise exactly the error the pure-Python path raises for this entry."""
    exact_weight(f"{name}[{label!r}]", value)
    raise AssertionError("unreachable")  # pragma: no cover


def array_weights(source: Any, *, what: str = "weights") -> tuple[Any, str, Any] | None:
    """The vectorised twin of :func:`integer_weights` for many plain weights: a 1-D numpy
    array of ints or floats, or a list, tuple or mapping whose values are all ``int`` or
    all ``float``. Returns ``(labels, kind, w)``: ``labels`` a tuple (or a ``range`` for
    positional weights), and the integer weights divided by their gcd, either
    ``("i64", int64 array)``, ``("w64", uint64 words)`` for values below ``2**128`` (see
    ``_wide``) or ``("limbs", uint64 limbs)`` (see ``_limbs``). The same
    integers, the same errors (first bad entry, same message) as :func:`integer_weights`;
    ``None`` when the input is not of that kind (or is short), or numpy cannot be imported
    (:mod:`chancekit._numpy`): use the Python path (the same integers, the same tables).

    A float is exactly ``M * 2**x`` (``M`` odd, at most 53 bits): the weights are
    ``M_i << (x_i - min x)``, computed with ``numpy.frexp`` and integer shifts.
    """
    from chancekit._numpy import numpy

    np = numpy()
    if np is None:
        return None
    if hasattr(source, "dtype") and hasattr(source, "tolist"):
        if getattr(source, "ndim", None) != 1 or source.dtype.kind not in "iuf":
            return None
        _check_labels(source.shape[0], what)
        if source.shape[0] < NUMPY_FROM:
            return None
        labels: Any = range(source.shape[0])
        arr = np.asarray(source)
        if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and int(arr.max()) >= 2**63:
            return None
    else:
        if isinstance(source, Mapping):
            values = list(source.values())
            labels = None
        elif isinstance(source, (list, tuple)):
            values = list(source)
            labels = range(len(values))
        else:
            return None
        _check_labels(len(values), what)
        if len(values) < NUMPY_FROM:
            return None
        kinds = set(map(type, values))
        if kinds == {int}:
            try:
                arr = np.array(values, dtype=np.int64)
            except OverflowError:
                return None
        elif kinds == {float}:
            arr = np.array(values, dtype=np.float64)
        else:
            return None
        if labels is None:
            labels = tuple(source.keys())
    n = arr.shape[0]
    if arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
        neg = np.flatnonzero(arr < 0)
        if len(neg):
            i = int(neg[0])
            raise InvalidValueError(f"{what}[{labels[i]!r}]", int(arr[i]), "a weight >= 0")
        g = int(np.gcd.reduce(arr))
        if g == 0:
            raise InvalidValueError(f"{what}: every weight is zero ({n} entries); "
                                    "at least one must be > 0")
        if g > 1:
            arr = arr // g
        return labels, "i64", arr
    from chancekit.sampling import _limbs

    arr = np.ascontiguousarray(arr, dtype=np.float64)
    u64 = np.uint64
    every = bool(arr.min() > 0)  # False for NaN too
    if every:
        bits = arr.view(u64)
        biased = bits >> u64(52)  # the sign bit too: 2047 or more is -x, inf or NaN
        every = int(biased.max()) < 2047
    if not every:
        bad = ~(arr >= 0)  # NaN and negatives
        bad |= arr == np.inf
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _first_bad(what, labels[i], float(arr[i]))
        zero = arr == 0
        every = not zero.any()
        nz: Any = None if every else np.flatnonzero(~zero)
        if nz is not None and not len(nz):
            raise InvalidValueError(f"{what}: every weight is zero ({n} entries); "
                                    "at least one must be > 0")
        bits = (arr if every else arr[nz]).view(u64)
        biased = bits >> u64(52)
    else:
        nz = None
    m = bits & u64((1 << 52) - 1)
    if int(biased.min()) >= 1:  # normal floats only
        m |= u64(1 << 52)  # the implicit bit
        e = biased
    else:
        m |= np.minimum(biased, u64(1)) << u64(52)  # the implicit bit of normal floats
        e = np.maximum(biased, u64(1))
    # the float is exactly m * 2**(e - 1075)
    emin = int(e.min())
    # the least exponent after stripping m's trailing zeros, min(e + tz(m)): the trailing
    # zeros of the OR of every m << (e - emin) (wrapping; the float with e = emin has at
    # most 52 trailing zeros, so the least is among the low 64 bits)
    low_or = int(np.bitwise_or.reduce(m << (e - u64(emin))))
    base = emin + ((low_or & -low_or).bit_length() - 1)  # 2**(base - 1075): the unit
    denom_bits = max(0, 1075 - base) + 1
    if denom_bits * n > MAX_TABLE_BITS:
        raise LimitError(
            f"{what}: the exact weights over a common denominator would take about "
            f"{n:,} x {denom_bits:,}+ bits, past MAX_TABLE_BITS = {MAX_TABLE_BITS:,}; "
            "round the weights (e.g. to floats or to a common denominator) first",
            limit="MAX_TABLE_BITS", value=denom_bits * n)
    if base > emin:  # floats below the unit: their low zero bits go (exact)
        low = np.flatnonzero(e < u64(base))
        m[low] >>= u64(base) - e[low]
        e[low] = u64(base)
    shift = e - u64(base)
    g = int(np.gcd.reduce(m[:64]))
    if g > 1:
        g = int(np.gcd.reduce(m))
        if g > 1:
            m //= u64(g)
    top = int(shift.max()) + int(m.max()).bit_length()
    if top <= 62:
        out = np.zeros(n, dtype=np.int64)
        out[slice(None) if every else nz] = (m << shift).view(np.int64)
        return labels, "i64", out
    if top <= 128:  # two 64-bit words (see _wide): the fast path of float weights
        from chancekit.sampling import _wide

        if every:
            return labels, "w64", _wide.shifted(m, shift)
        out_w = np.zeros((2, n), dtype=u64)
        out_w[:, nz] = _wide.shifted(m, shift)
        return labels, "w64", out_w
    q = shift >> u64(5)
    r64 = shift & u64(31)
    qmin, qmax = int(q.min()), int(q.max())
    limbs = max(_limbs.limbs_for(top), qmax + 3)
    out_l = np.zeros((limbs, n), dtype=u64)
    m32 = u64(0xFFFFFFFF)
    s32 = u64(32)
    mlo = (m & m32) << r64   # < 2**63
    mhi = (m >> s32) << r64  # < 2**53
    parts = (mlo & m32, (mlo >> s32) + (mhi & m32), mhi >> s32)  # limbs q, q+1, q+2
    where = slice(None) if every else nz
    if qmin == qmax:
        for off, part in enumerate(parts):
            out_l[qmin + off, where] = part
    elif qmax - qmin <= 2:  # few distinct limb offsets: masked adds
        for qv in range(qmin, qmax + 1):
            here = q == u64(qv)
            for off, part in enumerate(parts):
                out_l[qv + off, where] += np.where(here, part, u64(0))
    else:
        qi = q.astype(np.intp)
        cols = np.arange(n) if every else nz
        for off, part in enumerate(parts):
            out_l[qi + off, cols] += part
    return labels, "limbs", _limbs.normalize(out_l)


def parse_weights(text: str) -> dict[str, Fraction]:
    """Parse ``"sword=5,shield=3,potion=12"`` (weights: integers, ``a/b`` or decimals, read
    exactly). Each malformed entry is named in the error.

    >>> parse_weights("sword=5, shield=1/2, potion=0.25")
    {'sword': Fraction(5, 1), 'shield': Fraction(1, 2), 'potion': Fraction(1, 4)}
    """
    out: dict[str, Fraction] = {}
    if not text.strip():
        raise InvalidValueError("--weights", text, "label=weight pairs separated by commas, "
                                "e.g. 'sword=5,shield=3'")
    for raw in text.split(","):
        entry = raw.strip()
        label, sep, value = entry.partition("=")
        label, value = label.strip(), value.strip()
        if not sep or not label or not value:
            raise InvalidValueError(f"--weights entry {entry!r} must look like label=weight "
                                    "(e.g. 'sword=5')")
        if label in out:
            raise InvalidValueError(f"--weights: label {label!r} appears twice")
        shown = entry if len(entry) <= 60 else entry[:57] + "..."
        out[label] = read_weight(value, f"--weights entry {shown!r}")
    return out


def read_weight(value: str, where: str) -> Fraction:
    """One weight written as text (an integer, ``a/b`` or a decimal), read exactly; ``where``
    names it in errors (``"loot line 3"``). Refused before ``Fraction`` builds it when its
    exponent or digit count is past :data:`MAX_WEIGHT_DIGITS` (``Fraction("1e999999999")``
    would compute ``10**999999999``); negative or non-numbers are refused too.

    >>> read_weight("0.25", "loot line 1")
    Fraction(1, 4)
    """
    _check_size(where, value)
    try:
        w = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise InvalidValueError(f"{where}: the weight {value!r} is not a number (use e.g. "
                                "5, 1/3 or 0.25)") from None
    if w < 0:
        raise InvalidValueError(f"{where}: the weight must be >= 0")
    return w


def _check_size(where: str, value: str) -> None:
    """Refuse a weight past :data:`MAX_WEIGHT_DIGITS` before anything builds it."""
    digits = sum(ch.isdecimal() for ch in value)  # what int() and Fraction() read as digits
    m = _EXPONENT.search(value)
    exponent = 0
    if m is not None:
        text = m.group(1).lstrip("+-").replace("_", "")
        digits -= len(text)
        exponent = MAX_WEIGHT_DIGITS + 1 if len(text) > 6 else int(text or 0)
    if digits > MAX_WEIGHT_DIGITS or abs(exponent) > MAX_WEIGHT_DIGITS:
        raise LimitError(f"{where}: the weight has more than "
                         f"{MAX_WEIGHT_DIGITS} digits or an exponent beyond "
                         f"±{MAX_WEIGHT_DIGITS} (MAX_WEIGHT_DIGITS); write it with fewer "
                         "digits, e.g. 1e6 or 1/3", limit="MAX_WEIGHT_DIGITS", value=value)
