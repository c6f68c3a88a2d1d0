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
    10d10cs>=8df1 count the dice at 8+, minus 1s  6d6cf<=2          count failures
    8d6/2         exact division (Fractions)      8d6//2            round down
    1d8+2 [fire]  annotations are ignored         1d20+5 # attack   comments
    (1d4)d6  1d(1d20)  rolled counts and sides    {4d6+2, 3d8}kh1   groups

Dialects (``dialect=``, keyword-only): ``"avrae"`` (the default, Avrae's d20: ``k3`` keeps
the dice showing 3, ``>`` compares totals), ``"roll20"`` (Roll20: ``k3`` keeps the 3
highest, ``5d10>7`` counts the dice showing 7 or more, ``10d10>=8f1`` subtracts the 1s,
``!!`` compounds, ``!p`` penetrates, ``r`` rerolls every time), ``"foundry"`` (Foundry
VTT: ``r`` rerolls once, ``rr`` every time, ``x``/``xo`` explode, ``cs``/``cf``/``df``
count). Both read ``floor() ceil() round() abs() max() min()`` (``round`` halves toward
+infinity, as Roll20 and JavaScript). :func:`ambiguities` says when a formula means
something else in another dialect.

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

from chancekit.dice._ast import Dice, Node, VarDice, walk
from chancekit.dice._compile import check_dice_ops, compile_tree
from chancekit.dice._parse import DIALECTS, parse
from chancekit.dice._roll import roll_tree
from chancekit.errors import LimitError

__all__ = ["DIALECTS", "RollResult", "ambiguities", "dist", "readings", "roll", "weights"]


def _compile(notation: str, dialect: str = "avrae",
             variables: dict[str, Any] | None = None) -> Node:
    tree = parse(notation, dialect, variables)
    for n in walk(tree):
        if isinstance(n, Dice):
            check_dice_ops(n, notation)
        elif isinstance(n, VarDice) and n.faces is not None and n.ops:
            # a rolled count of fixed faces: its operators are checked before the tree is
            # priced, as for fixed dice (((2d6)d6!>=1)d4 + ... said MAX_WORK, not why)
            check_dice_ops(Dice(1, n.faces, n.ops, n.col, n.spelled), notation)
    return tree


def readings(notation: str) -> dict[str, str]:
    """What ``notation`` means in each dialect (:data:`DIALECTS`), in words; dialects in
    which it is not valid say so. O(len(notation)) per dialect (nothing is evaluated).

    >>> readings("4d6k3")["roll20"]
    'keeps the 3 highest dice'
    >>> readings("4d6k3")["avrae"]
    'keeps the dice showing 3'
    """
    from chancekit.dice._explain import describe
    from chancekit.errors import NotationError

    out: dict[str, str] = {}
    trees: dict[str, Node | None] = {}
    for d in DIALECTS:
        try:
            trees[d] = parse(notation, d)
        except NotationError as e:
            trees[d] = None
            out[d] = f"not valid ({e.problem})"
    for d in DIALECTS:
        t = trees[d]
        if t is not None:
            others = [o for o in trees.values() if o is not None and o != t]
            out[d] = describe(t, others[0] if others else None)
    return out


def ambiguities(notation: str, dialect: str = "avrae", *,
                variables: dict[str, Any] | None = None) -> list[str]:
    """One line per other dialect in which ``notation`` means something else than in
    ``dialect`` (empty when every dialect reads it alike) -- what the command line prints
    under a result -- and one per remark on how ``dialect`` read it (a Roll20 query read
    as its default). Invalid text gives no lines.

    >>> ambiguities("4d6kh3")
    []
    >>> print(ambiguities("4d6k3")[0])  # doctest: +NORMALIZE_WHITESPACE
    note: in roll20, `4d6k3` keeps the 3 highest dice (mean 12.24); here (avrae) it keeps
    the dice showing 3 (mean 2) -- use --dialect roll20
    """
    from chancekit.dice._explain import describe
    from chancekit.errors import ChancekitError

    if dialect not in DIALECTS:
        from chancekit.errors import InvalidValueError

        raise InvalidValueError("dialect", dialect, f"one of {', '.join(DIALECTS)}")
    from chancekit.dice._parse import parse_with_remarks

    lines: list[str] = []
    try:
        mine, remarks = parse_with_remarks(notation, dialect, variables)
        lines.extend(f"note: {r}" for r in remarks)
    except ChancekitError:
        mine = None
    for other in DIALECTS:
        if other == dialect:
            continue
        try:
            theirs = parse(notation, other, variables)
        except ChancekitError:
            continue
        if theirs == mine:
            continue
        if mine is None:
            lines.append(f"note: `{notation.strip()}` is not {dialect} notation; in {other} it "
                         f"{describe(theirs)}{_mean(notation, other, variables)} -- use "
                         f"--dialect {other}"
                         f"{_count_hint(theirs, dialect)}")
            continue
        a, b = describe(theirs, mine), describe(mine, theirs)
        lines.append(f"note: in {other}, `{notation.strip()}` {a}"
                     f"{_mean(notation, other, variables)}; here ({dialect}) it {b}"
                     f"{_mean(notation, dialect, variables)} -- use "
                     f"--dialect {other}{_count_hint(theirs, dialect)}")
    return lines


def _count_hint(theirs: Node, dialect: str) -> str:
    """When another dialect reads a formula as counting dice (``10d10>=8`` in roll20),
    the same count spelled in ``dialect`` (``10d10cs>=8`` in avrae and foundry), checked
    to parse to the same tree; empty when there is no such spelling."""
    from chancekit.errors import ChancekitError

    if not (isinstance(theirs, Dice) and len(theirs.ops) == 1
            and theirs.ops[0].kind == "cnt") or dialect == "roll20":
        return ""
    op = theirs.ops[0]
    text = (theirs.spelled[:op.col - theirs.col] + "".join("cs" + s.text() for s in op.sels)
            + "".join("df" + s.text() for s in op.fails))
    try:
        mine = parse(text, dialect)
    except ChancekitError:  # pragma: no cover - every count has a cs/df spelling
        return ""
    if not (isinstance(mine, Dice) and (mine.count, mine.faces, mine.ops) == (
            theirs.count, theirs.faces, theirs.ops)):
        return ""  # pragma: no cover
    return f", or write `{text}` to count the dice in {dialect}"


def _mean(notation: str, dialect: str, variables: dict[str, Any] | None = None) -> str:
    from chancekit.errors import ChancekitError

    try:
        m = dist(notation, dialect=dialect, variables=variables).mean()
    except (ChancekitError, TypeError):
        return ""
    if m is None:
        return ""
    return f" (mean {float(m):.4g})"


def weights(notation: str, *, dialect: str = "avrae",
            variables: dict[str, Any] | None = None) -> dict[Any, int]:
    """The exact distribution of ``notation`` as coprime integer weights
    (outcome -> weight), without building a :class:`Distribution`.

    >>> weights("2d2")
    {2: 1, 3: 2, 4: 1}
    """
    return dict(dist(notation, dialect=dialect, variables=variables).weights)


#: the limits whose refusals the certified path may answer (``approx=True``)
APPROX_LIMITS = frozenset({"MAX_WORK", "MAX_WEIGHT_BITS"})


def dist(notation: str, *, dialect: str = "avrae",
         variables: dict[str, Any] | None = None, approx: bool = False,
         max_error: float = 1e-12) -> Any:  # (1e-12: chancekit.limits.CERTIFIED_ERROR)
    """The exact distribution of a dice expression.

    ``approx=True``: if the exact evaluation is refused for its work (huge weights:
    ``MAX_WORK``, ``MAX_WEIGHT_BITS``) and the expression has a certified path (sums of
    dice, exploding or rerolled or counted die by die, the highest or lowest die of a
    group, arithmetic and comparisons on them:
    :mod:`chancekit.dice._approx`), the answer is a
    :class:`~chancekit.dice.certified.CertifiedDistribution`: every probability a proven
    interval, at most ``max_error`` from its midpoint; priced against the same budget.
    Never used unless asked; the exact refusal offers it.

    Cost: sums of N dice go through polynomial powering, O(N * range) big-integer
    coefficients (``1000d6`` in milliseconds); keep/drop highest/lowest uses the
    face-by-face pool engine; unusual operator combinations fall back to enumerating
    multisets and are refused past documented limits (:class:`~chancekit.errors.LimitError`).
    Malformed text raises :class:`~chancekit.errors.NotationError` with the column.

    >>> dist("1d20+5 >= 15").probability(1)
    Fraction(11, 20)
    >>> dist("2d20kh1").mean()
    Fraction(553, 40)
    >>> dist("5d10>7", dialect="roll20").mean()
    Fraction(2, 1)

    ``variables`` fill Foundry's ``@name`` and Roll20's ``@{name}`` and ``?{name|...}``
    (a number, or a formula read in the same dialect as if in parentheses):

    >>> dist("1d20 + @prof", dialect="foundry", variables={"prof": 3}).mean()
    Fraction(27, 2)
    """
    tree = _compile(notation, dialect, variables)
    try:
        return compile_tree(tree, notation)
    except LimitError as e:
        if e.limit not in APPROX_LIMITS:
            raise
        from chancekit.dice import _approx

        bad = _approx.supported(tree)
        if not approx:
            if bad is not None:
                raise
            out = LimitError(f"{e}; approx=True (--approx) may answer it with proven "
                             "error bounds", limit=e.limit, value=e.value)
            out.approx = True  # type: ignore[attr-defined]
            raise out from None
        if bad is not None:
            raise LimitError(f"{e}; and no certified path: the part at column {bad.col} "
                             "(only sums of dice, with operators that act on each die "
                             "alone (explosions, rerolls, min/max, counts), the highest or "
                             "lowest die of a group, arithmetic, comparisons, "
                             "abs/floor/ceil/round and max/min have one; keeping several "
                             "of many dice has none)", limit=e.limit, value=e.value) from None
        return _certified(tree, notation, max_error, e)


def _certified(tree: Node, notation: str, max_error: float, refusal: LimitError) -> Any:
    from chancekit import limits
    from chancekit.dice import _approx, certified
    from chancekit.errors import InvalidValueError

    if not (isinstance(max_error, float | int) and 0 < max_error < 1):
        raise InvalidValueError("max_error", max_error, "a number between 0 and 1")
    widest = 0.0
    # a budget of its own (the same size as the exact try's, --max-work included)
    with limits.fresh_evaluation(limit=limits.MAX_WORK, name="MAX_WORK"):
        for bits in certified.PRECISIONS:
            with certified.precision(bits):
                try:
                    out = _approx.evaluate(tree, notation)
                except certified.PrecisionLost:
                    continue
                except LimitError as e:
                    raise LimitError(f"{refusal}; and the certified way: {e}",
                                     limit=e.limit, value=e.value) from None
            widest = out.max_error
            if widest <= max_error:
                return out
    raise LimitError(f"{refusal}; the certified answer's error bound ({widest:.2g}) stays "
                     f"past max_error = {max_error:g} at the limit MAX_CERTIFIED_BITS = "
                     f"{certified.PRECISIONS[-1]} bits", limit="MAX_CERTIFIED_BITS",
                     value=widest)


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


def roll(notation: str, rng: Any = None, *, dialect: str = "avrae",
         variables: dict[str, Any] | None = None) -> RollResult:
    """Roll a dice expression once.

    ``rng``: ``None`` (the process-wide generator, seeded from the operating system: not
    reproducible) or a bit source such as ``PCG32(seed)`` or a named stream
    ``Streams(seed)["id"]`` (an ``int`` is refused: it would restart the same sequence on
    every call). Each die is one ``rng.randbelow(faces)`` call, in reading order (rerolls
    and explosions right after the dice they come from; a rolled count or number of sides
    before its dice). Cost: O(dice rolled); refused past ``MAX_ROLLED`` (10 000) dice.
    The totals follow exactly the distribution :func:`dist` computes. ``dialect``: as for
    :func:`dist`; the breakdown marks crits ``**20**`` and fumbles ``_1_`` (roll20 ``cs``
    / ``cf``) and shows compounded dice as ``10+3!! -> 13``.

    >>> from chancekit.rng import PCG32
    >>> r = roll("4d6kh3", rng=PCG32(7))
    >>> str(r)
    '4d6kh3 (~~4~~, 5, 6, 6) = 17'
    """
    from chancekit.rng._resolve import resolve_rng

    tree = _compile(notation, dialect, variables)
    total, breakdown, drawn = roll_tree(tree, resolve_rng(rng), notation)
    return RollResult(notation, total, breakdown, len(drawn), tuple(drawn))

