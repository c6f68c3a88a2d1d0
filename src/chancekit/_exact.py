"""The exact arithmetic core: python-flint is imported here, and only here.

Every module that needs exact polynomial or big-integer arithmetic imports this module
(``from chancekit import _exact as flint``) instead of python-flint itself, so the
dependency has one place: its version checks, and any future replacement, live here.
``tests/test_architecture.py`` fails if another module imports ``flint``.

python-flint is imported on the first use of a name (module ``__getattr__``, about
30 ms): a small ``dist("3d6")`` is pure Python integers and never loads it, nor does the
command line's ``--help``.

>>> from chancekit import _exact
>>> (_exact.fmpz_poly([1, 1]) ** 2).coeffs()
[1, 2, 1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flint import arb, fmpq, fmpq_mat, fmpq_poly, fmpz, fmpz_poly

__all__ = ["arb", "fmpq", "fmpq_mat", "fmpq_poly", "fmpz", "fmpz_poly"]

# What each name is (bound on first use, by __getattr__ below):
#   fmpz_poly   integer polynomials: sums of dice are one power of the die's polynomial
#   fmpq_poly   rational polynomials (the exponential generating functions of largest_set)
#   fmpz, fmpq  arbitrary-size integers and rationals
#   fmpq_mat    dense rational matrices (the exact solves of chancekit.markov)
#   arb         real balls (midpoint +- radius) that contain the exact value: the
#               certified probabilities of chancekit.dice.certified (see ball() below)


def ball(lo: int, hi: int, shift: int) -> Any:
    """The ``arb`` ball that contains every real of ``[lo, hi] / 2**shift`` (integers,
    ``lo <= hi``): both ends exact at a working precision of their own bits (python-flint's
    precision is process-wide; it is raised only for this and restored, and a ball stays
    a true enclosure at any precision, only wider).

    >>> ball(1, 3, 2).contains(__getattr__("arb")(0.5))
    True
    """
    import flint

    bits = max(abs(lo).bit_length(), abs(hi).bit_length(), 2) + 8
    with flint.ctx.workprec(max(bits, flint.ctx.prec)):
        scale = flint.arb(2) ** (-shift)
        a = flint.arb(flint.fmpz(lo)) * scale
        return a if lo == hi else a.union(flint.arb(flint.fmpz(hi)) * scale)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'chancekit._exact' has no attribute {name!r}")
    import flint

    names = globals()
    for each in __all__:
        names[each] = getattr(flint, each)
    # The first product with multi-word coefficients sets up GMP/FLINT's big-integer
    # memory (about 0.25 ms, once per process); done here, with the import, rather than
    # inside the first calculation a user times (docs/performance.md, "Dialect mechanics").
    flint.fmpz_poly([3, 1 << 70, 5]) ** 3
    return names[name]
