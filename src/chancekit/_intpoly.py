"""Integer polynomials with non-negative coefficients as one Python integer (Kronecker
substitution): the product the browser uses, where python-flint's wasm32 build is slow.

A polynomial ``sum c_i z**i`` with every coefficient below ``2**(8 k)`` is the integer
``sum c_i 2**(8 k i)``; the product of two such integers is the product polynomial as long
as no coefficient of the product reaches ``2**(8 k)``: a caller gives a bound on their bit
length (the product of the polynomials' values at 1, their totals of weights). The fields
are whole bytes, so packing and unpacking are ``int.to_bytes`` / ``int.from_bytes`` over
one buffer: linear in the size, no shifts of big integers.

Why it exists: in Pyodide (CPython 3.14 compiled to wasm32) python-flint's ``fmpz_poly``
product is 3-5x *slower* than this (the sums of program 39 of the benchmark corpus: 2 700 x
190 coefficients of 180 x 77 bits, 147 ms against 65 ms), while natively flint is 3-10x
faster. :data:`PYTHON_PRODUCTS` says which one :mod:`chancekit.dice.distribution` uses; the
results are equal either way (exact integers), only the speed differs. Measured figures:
docs/performance.md ("Static site: sums in the browser").

Cost: one big-integer product of ``(len_a + len_b) x slot`` bits (Karatsuba), plus
O(len) for packing and unpacking.

>>> mul({0: 1, 1: 1}, 0, {0: 1, 1: 1}, 0, 4)
[1, 2, 1]
>>> mul({2: 3}, 2, {5: 1, 6: 2}, 5, 6)
[3, 6]
"""

from __future__ import annotations

import sys

__all__ = ["PYTHON_PRODUCTS", "mul", "power", "python_mul", "python_power"]

#: whether sums of dice multiply their polynomials as Python integers (here) rather than with
#: python-flint: in the browser (Pyodide, ``sys.platform == "emscripten"``), where it is faster
#: up to the sizes below
PYTHON_PRODUCTS = sys.platform == "emscripten"

#: in the browser, the largest smaller factor (bits, packed) multiplied here: past it flint's
#: FFT wins (measured in Pyodide 314: 3 000 x 3 000 coefficients of 300 bits, 0.9 Mbit a
#: factor, 0.80 s here against 0.96 s; 6 000 x 6 000 of 2 000 bits, 48 s against 6.6 s)
PYTHON_MUL_BITS = 1 << 19
#: the largest power (bits of the result, packed) computed here: natively below it one
#: Python power beats flint's power and its conversions (3d6: 2.5 us against 10); in the
#: browser the crossover is higher (d6 x 100, 130 kbit: 22 ms against 25; x 300, 1.2 Mbit:
#: 164 ms against 55)
PYTHON_POWER_BITS = 1 << 17 if PYTHON_PRODUCTS else 8192


def python_mul(bits_a: int, bits_b: int) -> bool:
    """Whether :func:`mul` is the faster product for factors of these packed sizes."""
    return PYTHON_PRODUCTS and min(bits_a, bits_b) <= PYTHON_MUL_BITS


def python_power(bits: int) -> bool:
    """Whether :func:`power` is the faster power for a result of ``bits`` packed bits."""
    return bits <= PYTHON_POWER_BITS


def _pack(w: dict[int, int], lo: int, span: int, k: int) -> int:
    buf = bytearray(span * k)
    for x, c in w.items():
        i = (x - lo) * k
        buf[i:i + k] = c.to_bytes(k, "little")
    return int.from_bytes(buf, "little")


def _unpack(y: int, n: int, k: int) -> list[int]:
    view = memoryview(y.to_bytes(n * k, "little"))
    frombytes = int.from_bytes
    return [frombytes(view[i:i + k], "little") for i in range(0, n * k, k)]


def mul(a: dict[int, int], lo_a: int, b: dict[int, int], lo_b: int, bound: int) -> list[int]:
    """The coefficients of the product of ``sum a[x] z**(x - lo_a)`` and ``sum b[y]
    z**(y - lo_b)`` (outcomes ``x``, ``y`` from ``lo_a``, ``lo_b``; keys in increasing
    order, weights >= 0), dense from degree 0, given ``bound`` >= the bit length of every
    coefficient of the product (``(total_a * total_b).bit_length()`` for weights)."""
    k = (bound + 7) // 8
    span_a = next(reversed(a)) - lo_a + 1
    span_b = next(reversed(b)) - lo_b + 1
    x = _pack(a, lo_a, span_a, k)
    y = x * x if a is b else x * _pack(b, lo_b, span_b, k)
    return _unpack(y, span_a + span_b - 1, k)


def power(a: dict[int, int], lo: int, n: int, bound: int) -> list[int]:
    """The coefficients of ``(sum a[x] z**(x - lo))**n``, dense from degree 0, given
    ``bound`` >= the bit length of every coefficient (``(total**n).bit_length()``).

    >>> power({1: 1, 2: 1}, 1, 3, 4)
    [1, 3, 3, 1]
    """
    k = (bound + 7) // 8
    span = next(reversed(a)) - lo + 1
    return _unpack(_pack(a, lo, span, k) ** n, n * (span - 1) + 1, k)
