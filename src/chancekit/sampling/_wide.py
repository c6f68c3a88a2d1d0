"""Vectors of exact integers below ``2**128`` as two ``uint64`` words (private).

A vector is a ``uint64`` array of shape ``(2, n)``: row 0 the low word, row 1 the high
word. Unlike ``_limbs`` (32-bit limbs, normalised by carry passes), every operation here
works on whole 64-bit words and finds its carries by comparison (an addition wrapped iff
the result is below an addend), so a running sum is three numpy passes and a subtraction
four. The caller guarantees that nothing passes ``2**128`` and no difference is negative.
This is the fast path of the exact alias build for float weights (about 100 bits each);
nothing rounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def shifted(m: Any, shift: Any) -> Any:
    """``m << shift`` element-wise (``m`` below ``2**64``, the result below ``2**128``)."""
    out = np.empty((2, m.shape[0]), dtype=np.uint64)
    np.left_shift(m, shift, out=out[0])  # numpy gives 0 for shifts of 64 or more
    right = np.subtract(np.uint64(64), shift, out=out[1])  # wraps where shift > 64
    np.right_shift(m, right, out=out[1])  # 0 where right >= 64: shift 0 or past 64
    if int(shift.max()) > 64:
        big = np.flatnonzero(shift > np.uint64(64))
        out[1, big] = m[big] << (shift[big] - np.uint64(64))
    return out


def from_int64(a: Any) -> Any:
    """A non-negative ``int64`` vector as two words."""
    out = np.zeros((2, a.shape[0]), dtype=np.uint64)
    np.copyto(out[0], a.view(np.uint64))
    return out


def scalar(x: int) -> tuple[Any, Any]:
    """A Python int below ``2**128`` as its ``(lo, hi)`` words."""
    return np.uint64(x & 0xFFFFFFFFFFFFFFFF), np.uint64(x >> 64)


def to_int(a: Any, i: int) -> int:
    """Element ``i`` as a Python int."""
    return int(a[0, i]) | int(a[1, i]) << 64


def total(a: Any) -> int:
    """The sum of the vector as a Python int (``n`` below ``2**31``)."""
    return sum(int((w & _M32).sum(dtype=np.uint64)) + (int((w >> _S32).sum(dtype=np.uint64))
                                                       << 32) << (64 * k)
               for k, w in enumerate(a))


def mul_small(a: Any, k: int, out: Any = None) -> Any:
    """``a * k`` for ``0 <= k < 2**31`` (the product below ``2**128``), into ``out``."""
    if out is None:
        out = np.empty_like(a)
    if k == 1:
        np.copyto(out, a)
        return out
    kk = np.uint64(k)
    lo = a[0]
    low = (lo & _M32) * kk  # < 2**63
    high = (lo >> _S32) * kk  # < 2**63
    np.add(low, high << _S32, out=out[0])  # wraps
    carry = (high >> _S32) + (out[0] < low)
    np.multiply(a[1], kk, out=out[1])
    out[1] += carry
    return out


def compare(a: Any, c: int) -> Any:
    """The sign of ``a - c`` element-wise (int8) for a Python int ``c``."""
    clo, chi = scalar(c)
    hi = a[1]
    gt = (hi > chi) | ((hi == chi) & (a[0] > clo))
    lt = (hi < chi) | ((hi == chi) & (a[0] < clo))
    return gt.astype(np.int8) - lt.astype(np.int8)


#: columns per block in the blocked passes: the temporaries stay in the CPU cache
BLOCK = 1 << 15


def running_gaps(a: Any, idx: Any, c: int, below: bool) -> Any:
    """Running sums of ``c - a[:, idx]`` (``below``) or ``a[:, idx] - c``; every gap must
    be ``>= 0`` and the sums below ``2**128``. Block by block (cache-sized)."""
    clo, chi = scalar(c)
    out = np.empty((2, len(idx)), dtype=np.uint64)
    slo, shi = np.uint64(0), np.uint64(0)  # the running sum before the block
    for s in range(0, len(idx), BLOCK):
        cols = idx[s:s + BLOCK]
        lo = a[0].take(cols)
        hi = a[1].take(cols)
        if below:
            borrow = lo > clo
            np.subtract(clo, lo, out=lo)  # wraps
            np.subtract(chi, hi, out=hi)
        else:
            borrow = lo < clo
            lo -= clo
            hi -= chi
        hi -= borrow
        olo, ohi = out[0, s:s + len(cols)], out[1, s:s + len(cols)]
        np.cumsum(lo, out=olo)  # wraps: a wrap at i is a carry into the high word
        wrap = np.empty(len(cols), dtype=np.uint64)
        wrap[0] = 0
        np.less(olo[1:], olo[:-1], out=wrap[1:], casting="unsafe")
        hi += wrap
        np.cumsum(hi, out=ohi)
        olo += slo
        ohi += shi
        ohi += olo < slo  # the running sum's carry
        slo, shi = olo[-1], ohi[-1]
    return out


def sub_gathered(d: Any, jj: Any, e: Any) -> Any:
    """``d[:, jj] - e`` (every difference ``>= 0``)."""
    lo = d[0].take(jj)
    hi = d[1].take(jj)
    borrow = lo < e[0]
    lo -= e[0]
    hi -= e[1]
    hi -= borrow
    return np.stack((lo, hi))


def sub_from(c: int, a: Any) -> Any:
    """``c - a`` element-wise for a Python int ``c >= a``."""
    clo, chi = scalar(c)
    borrow = a[0] > clo
    lo = clo - a[0]
    hi = chi - a[1]
    hi -= borrow
    return np.stack((lo, hi))


def bit_length(a: Any) -> int:
    """Bits of the largest element."""
    if not a.shape[1]:
        return 0
    top = int(a[1].max())
    if top:
        return 64 + top.bit_length()
    return int(a[0].max()).bit_length()


def top_bits(a: Any, s: int, out: Any = None) -> Any:
    """``floor(a / 2**s)``, into ``out``; the caller guarantees it is below ``2**64``."""
    if out is None:
        out = np.empty(a.shape[1], dtype=np.uint64)
    if s == 0:
        np.copyto(out, a[0])
    elif s >= 64:
        np.right_shift(a[1], np.uint64(s - 64), out=out)
    else:
        np.left_shift(a[1], np.uint64(64 - s), out=out)
        out |= a[0] >> np.uint64(s)
    return out


def to_limbs(a: Any, limbs: int) -> Any:
    """The vector as ``limbs`` 32-bit limbs (see ``_limbs``); the values fit."""
    out = np.zeros((limbs, a.shape[1]), dtype=np.uint64)
    for k in range(min(limbs, 4)):
        if k % 2:
            np.right_shift(a[k // 2], _S32, out=out[k])
        else:
            np.bitwise_and(a[k // 2], _M32, out=out[k])
    return out
