"""Dice notation: :func:`dist` (the exact distribution) and :func:`roll` (one roll).

The notation is a superset of the Roll20 / Avrae (d20) notation players already type;
the full reference, with the decisions taken and the differences from Avrae's d20, is
``docs/notation.md``. In short::

    4d6kh3        keep the 3 highest of 4d6       4d6dl1 / 4d6pl1   drop the lowest
    2d20kl1       disadvantage                    4d6k6             keep the dice showing 6
    3d6e6  3d6!   explode on 6 (extra dice)       1d10e>8           explode on 9 and 10
    4d6rr1        reroll 1s until none            2d6ro<3           reroll below 3, once
    1d20ra20      on a 20, roll one more d20      2d8mi2 / 2d8ma7   per-die minimum / maximum
    d%  4dF  2d{1,1,2,3}                          percentile, Fudge, custom faces
    1d20+5 >= 15  comparisons give 0 or 1         (1d4+1, 3, 2d6kl1)kh1  sets
    8d6/2         exact division (Fractions)      8d6//2            round down
    1d8+2 [fire]  annotations are ignored

>>> from chancekit.dice.notation import dist, roll
>>> d = dist("4d6kh3")
>>> d.probability(18)
Fraction(7, 432)
>>> from chancekit.rng import PCG32
>>> r = roll("4d6kh3", rng=PCG32(42))
>>> r.total == sum(sorted(r.dice)[1:])
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from chancekit.dice._ast import Dice, Node, walk
from chancekit.dice._compile import check_dice_ops, compile_tree
from chancekit.dice._parse import parse
from chancekit.dice._roll import roll_tree

__all__ = ["RollResult", "dist", "roll", "weights"]


def _compile(notation: str) -> Node:
    tree = parse(notation)
    for n in walk(tree):
        if isinstance(n, Dice):
            check_dice_ops(n, notation)
    return tree


def weights(notation: str) -> dict[Any, int]:
    """The exact distribution of ``notation`` as coprime integer weights
    (outcome -> weight), without building a :class:`Distribution`.

    >>> weights("2d2")
    {2: 1, 3: 2, 4: 1}
    """
    return dict(dist(notation).weights)


def dist(notation: str) -> Any:
    """The exact distribution of a dice expression.

    Cost: sums of N dice go through polynomial powering, O(N * range) big-integer
    coefficients (``1000d6`` in milliseconds); keep/drop highest/lowest uses the
    face-by-face pool engine; unusual operator combinations fall back to enumerating
    multisets and are refused past documented limits (:class:`~chancekit.errors.LimitError`).
    Malformed text raises :class:`~chancekit.errors.NotationError` with the column.

    >>> dist("1d20+5 >= 15").probability(1)
    Fraction(11, 20)
    >>> dist("2d20kh1").mean()
    Fraction(553, 40)
    """
    return compile_tree(_compile(notation), notation)


@dataclass(frozen=True)
class RollResult:
    """One roll of a dice expression: its ``total`` (an ``int``, or a ``Fraction`` when
    ``/`` does not divide evenly), the Avrae-style ``breakdown`` (dropped dice
    ``~~struck~~``, exploded dice marked ``!``, ``mi``/``ma`` changes as ``1 -> 2``), the
    values of every die rolled in order (``dice``) and how many were rolled.

    ``str(result)`` is the breakdown followed by ``= total``.
    """

    notation: str
    total: int | Fraction
    breakdown: str
    dice_rolled: int
    dice: tuple[int, ...] = field(default=())

    def __str__(self) -> str:
        return f"{self.breakdown} = {self.total}"

    def __int__(self) -> int:
        return int(self.total)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (a fractional total is written as text, e.g. ``"7/2"``)."""
        total = self.total if isinstance(self.total, int) else str(self.total)
        return {"notation": self.notation, "total": total, "breakdown": self.breakdown,
                "text": str(self), "dice_rolled": self.dice_rolled, "dice": list(self.dice)}


def roll(notation: str, rng: Any = None) -> RollResult:
    """Roll a dice expression once.

    ``rng``: ``None`` (the process-wide generator, seeded from the operating system: not
    reproducible), an ``int`` seed (``PCG32(seed)``), or any bit source such as a
    ``PCG32`` or a named stream ``Streams(seed)["id"]``. Each die is one
    ``rng.randbelow(faces)`` call, in reading order (rerolls and explosions right after the
    dice they come from). Cost: O(dice rolled); refused past ``MAX_ROLLED`` (10 000) dice.
    The totals follow exactly the distribution :func:`dist` computes.

    >>> from chancekit.rng import PCG32
    >>> r = roll("4d6kh3", rng=PCG32(7))
    >>> str(r)
    '4d6kh3 (~~4~~, 5, 6, 6) = 17'
    """
    from chancekit.rng._resolve import resolve_rng

    tree = _compile(notation)
    total, breakdown, drawn = roll_tree(tree, resolve_rng(rng), notation)
    return RollResult(notation, total, breakdown, len(drawn), tuple(drawn))

