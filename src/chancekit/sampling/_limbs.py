"""Vectors of exact non-negative integers of any size, as numpy limbs (private).

A vector of ``n`` integers is a ``uint64`` array of shape ``(L, n)``: limb ``k`` holds bits
``32k .. 32k+31`` (least significant limb first), each below ``2**32`` once normalised.
32-bit limbs in 64-bit cells leave room for carries: a limb-wise sum of up to ``2**31``
vectors, or a limb times a 32-bit number, cannot overflow before :func:`normalize`.
Every operation is a few numpy passes per limb (O(n * L)); nothing rounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def limbs_for(bits: int) -> int:
    """Limbs needed for ``bits`` bits."""
    return max(1, (bits + 31) // 32)


def from_uint64(a: Any, limbs: int) -> Any:
    """Non-negative integers below ``2**64`` (any integer dtype) as ``limbs`` limbs."""
    a = np.asarray(a).astype(np.uint64)
    out = np.zeros((limbs, a.shape[0]), dtype=np.uint64)
    out[0] = a & _M32
    if limbs > 1:
        out[1] = a >> _S32
    return out


def from_int(x: int, limbs: int) -> Any:
    """One Python int as a ``(limbs, 1)`` column (broadcasts against vectors)."""
    out = np.zeros((limbs, 1), dtype=np.uint64)
    for k in range(limbs):
        out[k, 0] = (x >> (32 * k)) & 0xFFFFFFFF
    if x >> (32 * limbs):
        raise OverflowError("integer does not fit the limbs")
    return out


def normalize(a: Any) -> Any:
    """Carry every limb into the next, in place; returns ``a``."""
    for k in range(a.shape[0] - 1):
        carry = a[k] >> _S32
        a[k] &= _M32
        a[k + 1] += carry
    return a


def mul_big(a: Any, f: int, limbs: int) -> Any:
    """``a * f`` for a Python int ``f >= 0``, into ``limbs`` limbs (normalised)."""
    out = np.zeros((limbs, a.shape[1]), dtype=np.uint64)
    fk = [(f >> (32 * k)) & 0xFFFFFFFF for k in range((f.bit_length() + 31) // 32)]
    for i in range(a.shape[0]):
        for k, fl in enumerate(fk):
            if not fl:
                continue
            p = a[i] * np.uint64(fl)  # < 2**64: both factors below 2**32
            if i + k < limbs:
                out[i + k] += p & _M32
            if i + k + 1 < limbs:
                out[i + k + 1] += p >> _S32
        if i % 1024 == 1023:  # pragma: no cover - only for thousands of limbs
            normalize(out)
    return normalize(out)


_BLOCK = 1 << 14  # columns per block in the blocked passes (cache-sized)


def running_gaps(m: Any, idx: Any, c: Any, below: bool) -> Any:
    """Running sums of ``c - m[:, idx]`` (``below``) or ``m[:, idx] - c``, normalised:
    gather, subtract and sum one cache-sized block of columns at a time (several times
    faster than whole-array passes). Every gap must be ``>= 0``."""
    limbs = m.shape[0]
    out = np.empty((limbs, len(idx)), dtype=np.uint64)
    g = np.empty((limbs, min(_BLOCK, len(idx))), dtype=np.uint64)
    carry = np.zeros(limbs, dtype=np.uint64)  # raw (unnormalised) sums so far
    for a in range(0, len(idx), _BLOCK):
        b = min(a + _BLOCK, len(idx))
        cols = idx[a:b]
        gb = g[:, : b - a]
        for k in range(limbs):
            np.take(m[k], cols, out=gb[k])
        diff = sub(c, gb) if below else sub(gb, c)
        blk = out[:, a:b]
        for k in range(limbs):
            np.cumsum(diff[k], out=blk[k])
            blk[k] += carry[k]
            carry[k] = blk[k, -1]
        normalize(blk)
    return out


def gather_sub(d: Any, jj: Any, e: Any) -> Any:
    """``d[:, jj] - e`` (normalised, every difference ``>= 0``), block by block."""
    limbs = d.shape[0]
    out = np.empty((limbs, len(jj)), dtype=np.uint64)
    g = np.empty((limbs, min(_BLOCK, len(jj))), dtype=np.uint64)
    for a in range(0, len(jj), _BLOCK):
        b = min(a + _BLOCK, len(jj))
        gb = g[:, : b - a]
        for k in range(limbs):
            np.take(d[k], jj[a:b], out=gb[k])
        out[:, a:b] = sub(gb, e[:, a:b])
    return out


def total(a: Any) -> int:
    """The sum of the vector as a Python int."""
    sums = a.sum(axis=1, dtype=np.uint64)  # each below n * 2**32
    return sum(int(s) << (32 * k) for k, s in enumerate(sums))


def sub(a: Any, b: Any) -> Any:
    """``a - b`` for ``a >= b`` element-wise (``b`` may be a broadcast column); normalised
    inputs, normalised result."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.uint64)
    s63 = np.uint64(63)
    borrow: Any = None
    for k in range(out.shape[0]):
        x = out[k]
        np.subtract(a[k], b[k], out=x)  # wraps below zero: the top bit is the borrow
        if borrow is not None:
            x -= borrow
        borrow = x >> s63
        x &= _M32
    return out


def less(a: Any, b: Any) -> Any:
    """``a < b`` element-wise (normalised, same number of limbs; ``b`` may broadcast)."""
    shape = np.broadcast_shapes(a.shape, b.shape)[1]
    result = np.zeros(shape, dtype=bool)
    decided = np.zeros(shape, dtype=bool)
    for k in range(a.shape[0] - 1, -1, -1):
        lt = a[k] < b[k]
        gt = a[k] > b[k]
        result |= lt & ~decided
        decided |= lt | gt
    return result


def compare_int(a: Any, c: int) -> Any:
    """The sign of ``a - c`` element-wise (int8) for a Python int ``c``: decided on the
    top 64 bits, exactly (limb by limb) where those tie."""
    bits = max(bit_length(a), c.bit_length())
    s = max(0, bits - 64)
    ka = shift_down(a, s)
    kc = np.uint64(c >> s)
    out = (ka > kc).astype(np.int8) - (ka < kc).astype(np.int8)
    if s:
        tie = np.flatnonzero(ka == kc)
        if len(tie):
            sub_a = a[:, tie]
            col = from_int(c, a.shape[0])
            out[tie] = less(col, sub_a).astype(np.int8) - less(sub_a, col).astype(np.int8)
    return out


def shift_down(a: Any, s: int) -> Any:
    """``floor(a / 2**s)`` as ``uint64``; the caller guarantees it is below ``2**64``."""
    q, r = divmod(s, 32)
    limbs = a.shape[0]
    out = np.zeros(a.shape[1], dtype=np.uint64)
    for k in range(q, min(q + 3, limbs)):
        off = 32 * (k - q) - r  # where limb k lands in the result
        if off >= 64:
            continue
        if off >= 0:
            out |= a[k] << np.uint64(off)
        else:
            out |= a[k] >> np.uint64(-off)
    return out


def bit_length(a: Any) -> int:
    """Bits of the largest element."""
    for k in range(a.shape[0] - 1, -1, -1):
        top = int(a[k].max()) if a.shape[1] else 0
        if top:
            return 32 * k + top.bit_length()
    return 0


def to_int(a: Any, i: int) -> int:
    """Element ``i`` as a Python int."""
    return sum(int(a[k, i]) << (32 * k) for k in range(a.shape[0]))


def to_ints(a: Any) -> list[int]:
    """Every element as a Python int. O(n * L), about a microsecond an element."""
    n = a.shape[1]
    if not n:
        return []
    words = np.ascontiguousarray(a.astype(np.uint32).T)  # (n, L) little-endian rows
    raw = words.tobytes()
    size = 4 * a.shape[0]
    return [int.from_bytes(raw[i * size:(i + 1) * size], "little") for i in range(n)]


def merge_ranks(e: Any, d: Any) -> tuple[Any, Any]:
    """For two strictly increasing vectors ``e`` and ``d`` (limbs, or plain integer
    arrays): ``(le, lt)`` with ``le[j] = #{i : e[i] <= d[j]}`` and ``lt[i] = #{j : d[j] <
    e[i]}``. One stable merge sort of their top 64 bits (the two runs merge in O(n));
    neighbours whose top bits tie are put in exact order with Python integers (rare)."""
    if e.ndim == 1:
        return merge_keys(np.concatenate((e, d)), len(e), None)
    bits = max(bit_length(e), bit_length(d))
    s = max(0, bits - 64)
    exact = None
    if s > 0:
        def exact(i: int, ne: int = len(e[0])) -> int:
            return to_int(e, i) if i < ne else to_int(d, i - ne)
    return merge_keys(np.concatenate((shift_down(e, s), shift_down(d, s))), len(e[0]), exact)


def merge_keys(keys: Any, ne: int, exact: Any) -> tuple[Any, Any]:
    """:func:`merge_ranks` from the top 64 bits of ``e`` followed by those of ``d``
    (``keys``; ``ne`` of ``e``): on equal keys ``e`` sorts first. ``exact(i)`` gives
    element ``i`` of ``e`` followed by ``d`` as a Python int (None: the keys are the
    values)."""
    ke, kd = keys[:ne], keys[ne:]
    order = np.argsort(keys, kind="stable")
    is_e = order < ne
    pos_d = np.flatnonzero(~is_e)  # d[j] sits at pos_d[j], after j values of d
    le = pos_d - np.arange(len(pos_d))
    if exact is not None:
        # only a key of d equal to the key of e just before it can be out of order
        # (e sorts first on equal keys, and each vector alone is in order)
        before = le > 0
        tied = np.flatnonzero(before)
        tied = tied[ke[le[tied] - 1] == kd[tied]]
        if len(tied):
            sk = keys[order]
            tie = np.flatnonzero(sk[1:] == sk[:-1])
            _fix_ties(order, tie, exact, ne)
            is_e = order < ne
            pos_d = np.flatnonzero(~is_e)
            le = pos_d - np.arange(len(pos_d))
    pos_e = np.flatnonzero(is_e)
    return le, pos_e - np.arange(ne)


def _fix_ties(order: Any, tie: Any, exact: Any, ne: int) -> None:
    """Sort each run of equal top bits in ``order`` exactly (e before d on equality)."""
    breaks = np.flatnonzero(np.diff(tie) != 1)
    starts = np.concatenate(([tie[0]], tie[breaks + 1]))
    ends = np.concatenate((tie[breaks], [tie[-1]])) + 2  # run = order[start:end]
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        run = order[a:b]
        if bool((run < ne).all()) or bool((run >= ne).all()):
            continue  # one vector only: already in order
        items = sorted((exact(i), i >= ne, i) for i in run.tolist())
        order[a:b] = [i for _, _, i in items]
