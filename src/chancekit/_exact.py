"""The exact arithmetic core: python-flint is imported here, and only here.

Every module that needs exact polynomial or big-integer arithmetic imports this module
(``from chancekit import _exact as flint``) instead of python-flint itself, so the
dependency has one place: its version checks, and any future replacement, live here.
``tests/test_architecture.py`` fails if another module imports ``flint``.

>>> from chancekit import _exact
>>> (_exact.fmpz_poly([1, 1]) ** 2).coeffs()
[1, 2, 1]
"""

from __future__ import annotations

import flint

__all__ = ["fmpq", "fmpq_mat", "fmpq_poly", "fmpz", "fmpz_poly"]

#: integer polynomials: sums of dice are one power of the die's polynomial
fmpz_poly = flint.fmpz_poly
#: rational polynomials (the exponential generating functions of ``largest_set``)
fmpq_poly = flint.fmpq_poly
#: arbitrary-size integers and rationals
fmpz = flint.fmpz
fmpq = flint.fmpq
#: dense rational matrices (the exact solves of chancekit.markov)
fmpq_mat = flint.fmpq_mat

# The first product with multi-word coefficients sets up GMP/FLINT's big-integer memory
# (about 0.25 ms, once per process); done here, at import, rather than inside the first
# calculation a user times (docs/performance.md, "Dialect mechanics").
fmpz_poly([3, 1 << 70, 5]) ** 3
