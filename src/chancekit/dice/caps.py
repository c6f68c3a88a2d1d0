"""Depth caps made visible: the probability that an explosion reached its depth cap, and
the exact mean of the process without the cap (docs/dice.md, "Explosion caps").

An explosion (``!``, ``e``, ``!!``, ``!p``, :meth:`Distribution.explode`) is an unbounded
process; chancekit stops each chain after ``depth`` extra dice (notation: 20,
:data:`~chancekit.dice.distribution.EXPLODE_DEPTH`). A result whose chains can reach
that cap is a :class:`CappedDistribution`: the same exact distribution (equal to, and
usable everywhere as, a :class:`Distribution`), plus

- ``capped_mass``: the probability that at least one chain reached the cap -- every
  outcome the cap can have changed lies in that mass (for one die exploding with
  probability p, ``p ** (depth + 1)``);
- ``uncapped_mean``: the exact mean without the cap where it has a closed form (one die
  exploding on faces of probability p: ``mean / (1 - p)``, Wald's identity for counts and
  penetrating dice; sums and scalings of those), else ``None``.

How it propagates (immutable values; every rule exact under independence):

- two independent values combined (``+ - * / // % max min``, comparisons, notation's
  functions): ``1 - (1 - a)(1 - b)`` (the probability that either reached its cap);
  the uncapped mean of ``+``/``-`` is the sum/difference, of ``*``/``/`` by a plain
  number the scaled mean, otherwise ``None``;
- ``n @ x``: ``1 - (1 - a) ** n`` and ``n`` times the mean; a mixture: the weighted
  average of both; ``map``/``clamp``/``abs``: the mass kept, the mean ``None``;
- a pool with other operators before its explosion (``4d6kh3!``): the mass is an upper
  bound (each die is counted as if it reached the explosion).

A plain distribution has ``capped_mass == 0`` and ``uncapped_mean == mean()``. The cap is
not part of equality or hashing (``dist("3d6!") == 3 @ d(6).explode()``) and is not
saved by ``to_dict``/pickle. A method called on a plain distribution with a capped
argument (``d(6).max(x)``) returns a plain result; operators (``d(6) + x``) and notation
carry the cap either way.

>>> from chancekit.dice import d
>>> x = d(6).explode()
>>> x.capped_mass == Fraction(1, 6) ** 21, x.uncapped_mean
(True, Fraction(21, 5))
>>> (x + x).uncapped_mean, float((x + x).capped_mass) < 1e-15
(Fraction(42, 5), True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from chancekit.dice.distribution import (  # the capped value lives beside Distribution
    Cap,
    CappedDistribution,
    Distribution,
    _cap,
    _coprime_fraction,
    _umean,
    _unpickle,  # noqa: F401 (pickles made before 2026-11 name it here)
    attach,
    combine,
    explode_cap,
    mixture,
    repeat,
    unary,
    union,
)
from chancekit.dice.selectors import Op

__all__ = ["CappedDistribution", "attach", "combine", "explode_cap", "fields", "mixture", "note",
           "pool_cap", "repeat", "unary", "union"]

_EXPLOSIONS = ("e", "pe", "ce")
_PER_DIE = ("mi", "ma", "rr", "ro")


def pool_cap(die: Distribution | None, n: int, items: Sequence[Distribution],
             ops: Sequence[Op], depth: int) -> Cap | None:
    """The cap of a pool's sum (``None``: nothing capped): ``n`` dice ``die`` with
    ``ops``, each explosion stopping after ``depth`` extra dice, or a pool of ``items``.

    Per die, an explosion ``op`` (``e``/``!``, ``pe``/``!p``, ``ce``/``!!``) reached by a
    value distributed as ``x`` reaches its cap with probability ``P(x matches) *
    p ** depth`` (p: a fresh die matches); ``x`` is known exactly when only ``mi ma rr
    ro`` come before, else bounded by 1. The dice are independent: ``1 - (1 - q) ** n``.
    The uncapped mean is known for ``[mi/ma/rr/ro...] explosion [count]`` (Wald's
    identity): ``n (E g(x) + P(x matches) E g(fresh) / (1 - p))``, ``g`` the count's
    score (or the value; one less for a penetrating fresh die). O(operators x faces)."""
    if die is None:
        caps = [_cap(it) for it in items]
        if all(c is None for c in caps):
            return None
        mass = union(*(c[0] for c in caps if c is not None))
        ums = [_umean(it) for it in items]
        um = None if ops or any(u is None for u in ums) else sum(
            ums, Fraction(0))  # type: ignore[arg-type]
        return mass, um
    explosions = [i for i, op in enumerate(ops) if op.kind in _EXPLOSIONS]
    if not explosions or depth <= 0 or n == 0:
        return None
    base = _cap(die)
    total = die._total
    x: Distribution | None = die
    qs: list[Fraction] = []
    for op in ops:
        if op.kind in _EXPLOSIONS:
            h = sum(w for v, w in die._w.items() if op.matches(v))
            h0, t0 = ((sum(w for v, w in x._w.items() if op.matches(v)), x._total)
                      if x is not None else (1, 1))
            # p0 * p ** depth in integers, one Fraction (Fraction's ** is slow)
            qs.append(Fraction(h0 * h**depth, t0 * total**depth))
            x = None
        elif x is not None and op.kind in _PER_DIE:
            x = _per_die(x, die, op)
        else:
            x = None
    q = qs[0] if len(qs) == 1 else min(Fraction(1), sum(qs, Fraction(0)))
    if base is not None:
        q = min(Fraction(1), q + base[0] * (depth + 1))
    if not q:
        return None
    num, den = q.numerator, q.denominator
    # 1 - (1 - q) ** n, in lowest terms as built: gcd(den - num, den) = gcd(num, den) = 1,
    # so (den - num) ** n / den ** n is reduced, and so is one minus it (73651d2e2cs<=-5:
    # Fraction's own gcd of two 1.5 M-bit numbers took 4-6 s, uncharged)
    whole = den**n
    mass = _coprime_fraction(whole - (den - num) ** n, whole)
    um = _pool_umean(die, ops, explosions) if base is None else None
    return mass, None if um is None else n * um


def _per_die(x: Distribution, die: Distribution, op: Op) -> Distribution:
    if op.kind in ("mi", "ma"):
        num = op.sels[-1].num
        return x.clamp(lo=num) if op.kind == "mi" else x.clamp(hi=num)
    hits = [v for v in x._w if op.matches(v)]
    if not hits:
        return x
    if op.kind == "rr":  # until no match: the die conditioned on the other faces
        keep = {v: w for v, w in die._w.items() if not op.matches(v)}
        miss = {v: w for v, w in x._w.items() if not op.matches(v)}
        h = sum(x._w[v] for v in hits)
        out: dict[Any, Fraction] = {}
        for v, w in miss.items():
            out[v] = out.get(v, 0) + Fraction(w, x._total)
        kt = sum(keep.values())
        for v, w in keep.items():
            out[v] = out.get(v, 0) + Fraction(h, x._total) * Fraction(w, kt)
        return Distribution(out)
    # "ro": a matching value is replaced by one fresh die
    out2: dict[Any, Fraction] = {}
    h = sum(x._w[v] for v in hits)
    for v, w in x._w.items():
        if not op.matches(v):
            out2[v] = out2.get(v, 0) + Fraction(w, x._total)
    for v, w in die._w.items():
        out2[v] = out2.get(v, 0) + Fraction(h, x._total) * Fraction(w, die._total)
    return Distribution(out2)


def _mean_of(x: Distribution, g: Callable[[Any], Any]) -> Fraction:
    return Fraction(sum(w * g(v) for v, w in x._w.items())) / x._total


def _pool_umean(die: Distribution, ops: Sequence[Op], explosions: list[int]
                ) -> Fraction | None:
    """The exact uncapped mean of one die's contribution, for ``[per-die...] explosion
    [count]``; ``None`` otherwise."""
    if len(explosions) != 1:
        return None
    i = explosions[0]
    op = ops[i]
    if any(o.kind not in _PER_DIE for o in ops[:i]):
        return None
    post = ops[i + 1:]
    if post and not (len(post) == 1 and post[0].kind == "cnt" and op.kind != "ce"):
        return None
    g: Callable[[Any], Any] = post[0].score if post else (lambda v: v)
    x = die
    for o in ops[:i]:
        x = _per_die(x, die, o)
    try:
        p = Fraction(sum(w for v, w in die._w.items() if op.matches(v)), die._total)
        p0 = Fraction(sum(w for v, w in x._w.items() if op.matches(v)), x._total)
        if p == 1:
            return None
        shift = -1 if op.kind == "pe" else 0
        fresh = _mean_of(die, lambda v: g(v + shift))
        return _mean_of(x, g) + p0 * fresh / (1 - p)
    except TypeError:
        return None


def note(x: Distribution, notation: str, depth: int | None = None) -> list[str]:
    """The note the command line and the web calculator show under a result whose
    explosions reached their depth cap (``[]`` when none did): how much probability
    reached it and, where known, the exact mean without the cap. O(1).

    >>> from chancekit.dice.notation import dist
    >>> print(note(dist("1d6!"), "1d6!")[0])  # doctest: +NORMALIZE_WHITESPACE
    note: in `1d6!` explosions stop after 20 extra dice per die; probability 4.559e-17
    reached that cap (outcomes there are cut short); without the cap the mean is exactly
    21/5 = 4.2
    >>> note(dist("3d6"), "3d6")
    []
    """
    c = _cap(x)
    if c is None:
        return []
    from chancekit.dice.distribution import EXPLODE_DEPTH

    cap = EXPLODE_DEPTH if depth is None else depth
    text = (f"note: in `{notation.strip()}` explosions stop after {cap} extra dice per die; "
            f"probability {float(c[0]):.4g} reached that cap (outcomes there are cut short)")
    if c[1] is not None:
        text += f"; without the cap the mean is exactly {c[1]} = {float(c[1]):.6g}"
    else:
        text += "; the uncapped mean has no closed form here"
    return [text]


def fields(x: Distribution) -> dict[str, Any]:
    """JSON-ready cap fields of a result (for ``--json`` and the web calculator):
    ``capped_mass`` (exact, as text ``"1/6"``; ``"0"`` when no cap was reached),
    ``capped_mass_float``, ``uncapped_mean`` (exact text, or ``None`` when it has no
    closed form) and ``uncapped_mean_float``.

    >>> from chancekit.dice import d
    >>> fields(d(6).explode(depth=1))["uncapped_mean"]
    '21/5'
    >>> fields(d(6))["capped_mass"]
    '0'
    """
    c = _cap(x)
    mass, um = (c[0], c[1]) if c is not None else (Fraction(0), _umean(x))
    return {"capped_mass": str(mass), "capped_mass_float": float(mass),
            "uncapped_mean": None if um is None else str(um),
            "uncapped_mean_float": None if um is None else float(um)}
