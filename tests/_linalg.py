"""Exact linear algebra for test oracles: Gauss-Jordan on Fractions, independent of flint
(the engine solves with python-flint's fmpq_mat)."""

from __future__ import annotations

from fractions import Fraction


def solve(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    """x with a x = b (a square, invertible), by Gauss-Jordan elimination."""
    n, m = len(a), len(b[0])
    rows = [list(a[i]) + list(b[i]) for i in range(n)]
    for col in range(n):
        piv = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[piv] = rows[piv], rows[col]
        p = rows[col][col]
        rows[col] = [x / p for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [row[n:n + m] for row in rows]
