"""Tabletop alias tables: any distribution from two dice, built exactly.

The rule at the table: roll the *row die* and find that row; roll the *check die*; if it
is at most the row's threshold the result is the row's own outcome, otherwise the row's
alias. With a d20 for each roll every probability that is a multiple of 1/400 is
reachable, so :meth:`TabletopTable.build` rounds the target once, optimally, to that grid
(:func:`round_to_grid`) and then builds the table in whole numbers (Vose's construction,
:func:`~chancekit.sampling.alias.vose_integer`): the table realises the rounded target
exactly.
"""

from __future__ import annotations

import csv
import heapq
import html
import io
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, overload

from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.limits import MAX_TABLE_CELLS
from chancekit.sampling._weights import integer_weights
from chancekit.sampling.alias import vose_integer

if TYPE_CHECKING:
    from chancekit.dice.distribution import Distribution

__all__ = ["MAX_TABLE_CELLS", "TableReport", "TableRow", "TabletopTable", "TwoStageTable",
           "round_to_grid", "tabletop_sheet", "two_stage_html"]



def _check_cells(units: int, what: str) -> None:
    if units > MAX_TABLE_CELLS:
        raise LimitError(
            f"{what} = {units:,} grid cells is past MAX_TABLE_CELLS = {MAX_TABLE_CELLS:,}; use "
            "smaller dice (d100 x d100 is 10,000 cells) or a two-stage table",
            limit="MAX_TABLE_CELLS", value=units)


# -- optimal rounding ----------------------------------------------------------------------
def round_to_grid(target: Sequence[Fraction], units: int, *,
                  keep_possible: bool = True,
                  values: Sequence[int | Fraction] | None = None) -> list[int]:
    """Whole numbers ``m`` with ``sum(m) == units`` such that ``m[i] / units`` is closest to
    ``target[i]`` (which must sum to 1): the largest error ``max |m[i]/units - target[i]|``
    is as small as possible; among those, the total error ``sum |...|`` (twice the total
    variation distance) is as small as possible; ties go to the earlier entry. With
    ``keep_possible`` every entry with ``target > 0`` gets ``m >= 1`` if there are at most
    ``units`` such entries. With numeric ``values`` (the outcomes), a third rule keeps the
    mean: among the roundings with the same two errors that differ only in which of the
    tied entries get their last unit, the one whose mean is closest to the target's
    (a d6 on d20 x d20 keeps mean 3.5). O(k log k + units log k) for ``k`` entries.

    >>> round_to_grid([Fraction(1, 3)] * 3, 10)
    [4, 3, 3]
    >>> round_to_grid([Fraction(1, 1000), Fraction(999, 1000)], 20)
    [1, 19]
    """
    units = require_int("units", units, lo=1)
    _check_cells(units, "units")
    xs = [Fraction(t) * units for t in target]
    k = len(xs)
    positive = sum(1 for x in xs if x > 0)
    lo = [1 if (keep_possible and x > 0 and positive <= units) else 0 for x in xs]
    if sum(lo) > units:  # pragma: no cover - excluded by the positive <= units test
        lo = [0] * k

    def fill(lower: list[int], upper: list[int]) -> list[int]:
        # minimise sum |m - x| over the box, sum m == units: greedy on convex marginals
        m = list(lower)
        left = units - sum(m)
        heap = [(abs(m[i] + 1 - xs[i]) - abs(m[i] - xs[i]), i)
                for i in range(k) if m[i] < upper[i]]
        heapq.heapify(heap)
        while left > 0:
            _, i = heapq.heappop(heap)
            m[i] += 1
            left -= 1
            if m[i] < upper[i]:
                heapq.heappush(heap, (abs(m[i] + 1 - xs[i]) - abs(m[i] - xs[i]), i))
        return m

    def box(e: Fraction) -> tuple[list[int], list[int]] | None:
        lower = [max(lo[i], math.ceil(xs[i] - e)) for i in range(k)]
        upper = [math.floor(xs[i] + e) for i in range(k)]
        if any(a > b for a, b in zip(lower, upper, strict=True)):
            return None
        if sum(lower) > units or sum(upper) < units:
            return None
        return lower, upper

    first = fill(lo, [units] * k)  # feasible; its largest error bounds the optimum
    bound = max(abs(first[i] - xs[i]) for i in range(k))
    cands = set()
    for x in xs:
        for m in range(max(0, math.floor(x - bound)), math.ceil(x + bound) + 1):
            d = abs(m - x)
            if d <= bound:
                cands.add(d)
    ordered = sorted(cands)
    a, b = 0, len(ordered) - 1  # box(ordered[b]) is feasible
    while a < b:
        mid = (a + b) // 2
        if box(ordered[mid]) is not None:
            b = mid
        else:
            a = mid + 1
    got = box(ordered[a])
    assert got is not None
    m = fill(*got)
    if values is not None:
        m = _keep_mean(m, xs, got[0], got[1], [Fraction(v) for v in values])
    return m


def _keep_mean(m: list[int], xs: list[Fraction], lower: list[int], upper: list[int],
               values: list[Fraction]) -> list[int]:
    """Re-choose which tied entries get their last unit so the mean is closest."""
    k = len(m)
    rem = [i for i in range(k) if m[i] > lower[i]]
    if not rem:
        return m

    def last(i: int) -> Fraction:
        return abs(m[i] - xs[i]) - abs(m[i] - 1 - xs[i])

    def nxt(i: int) -> Fraction:
        return abs(m[i] + 1 - xs[i]) - abs(m[i] - xs[i])

    lam = max(last(i) for i in rem)
    given = [i for i in rem if last(i) == lam]
    extra = [i for i in range(k) if m[i] < upper[i] and nxt(i) == lam and i not in given]
    pool = sorted(given + extra)
    r = len(given)
    if not extra or math.comb(len(pool), r) > 20_000:
        return m
    base = list(m)
    for i in given:
        base[i] -= 1
    want = sum((v * x for v, x in zip(values, xs, strict=True)), Fraction(0))
    have = sum((v * b for v, b in zip(values, base, strict=True)), Fraction(0))
    best = min(itertools.combinations(pool, r),
               key=lambda c: (abs(have + sum(values[i] for i in c) - want),
                              c != tuple(sorted(given)), c))
    for i in best:
        base[i] += 1
    return base


# -- the table ----------------------------------------------------------------------------
@dataclass(frozen=True)
class TableRow:
    """One row: roll ``face`` on the row die; the check die at most ``threshold`` gives
    ``outcome``, above it gives ``alias``. ``outcome`` is ``None`` for a row that always
    gives its alias (threshold 0, no own outcome); ``alias`` is ``None`` for a row that
    never needs one (threshold = the check die's faces)."""

    face: int
    outcome: Any
    threshold: int
    alias: Any


@dataclass(frozen=True)
class TableReport:
    """Original vs realised: exact ``mean``/``variance`` (``None`` for non-numeric
    outcomes), largest error per outcome and total variation distance (exact Fractions;
    ``max_error_points`` is in percentage points, as a float)."""

    mean: Fraction | None
    realized_mean: Fraction | None
    variance: Fraction | None
    realized_variance: Fraction | None
    max_error: Fraction
    total_variation: Fraction

    @property
    def sd(self) -> float | None:
        return None if self.variance is None else math.sqrt(self.variance)

    @property
    def realized_sd(self) -> float | None:
        return None if self.realized_variance is None else math.sqrt(self.realized_variance)

    @property
    def max_error_points(self) -> float:
        return float(self.max_error * 100)

    def line(self) -> str:
        """One line: ``mean 10.5 -> 10.5, sd 2.958 -> 2.958, largest error 0.12 points,
        total variation 0.0029``."""
        parts = []
        if self.mean is not None and self.realized_mean is not None:
            parts.append(f"mean {float(self.mean):.4g} -> {float(self.realized_mean):.4g}")
            parts.append(f"sd {self.sd:.4g} -> {self.realized_sd:.4g}")
        parts.append(f"largest error {self.max_error_points:.3g} points")
        parts.append(f"total variation {float(self.total_variation):.3g}")
        return ", ".join(parts)

    def __str__(self) -> str:
        return self.line()


def _die(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(name, value, "an int (number of faces)")
    if value < 2:
        raise InvalidValueError(name, value, "a die with at least 2 faces")
    return value


def _target(source: Any) -> tuple[tuple[Any, ...], tuple[int, ...], str]:
    if isinstance(source, str):
        from chancekit.dice import dist

        return (*integer_weights(dist(source), what="distribution"), source)
    labels, ints = integer_weights(source, what="source")
    return labels, ints, ""


def _prepared(source: Any, row_die: Any, check_die: Any
              ) -> tuple[int, int, list[tuple[Any, int]], int, str]:
    """The checked dice, the outcomes with positive weight, their total and the notation
    (``""`` for a mapping) of a table's ``source``."""
    row_die = _die("row_die", row_die)
    check_die = _die("check_die", check_die)
    _check_cells(row_die * check_die, f"row_die x check_die = {row_die} x {check_die}")
    labels, ints, notation = _target(source)
    pairs = [(lab, w) for lab, w in zip(labels, ints, strict=True) if w > 0]
    return row_die, check_die, pairs, sum(ints), notation


class TabletopTable:
    """A table for two dice that rolls like a target distribution.

    Build with :meth:`build`. ``rows`` has one :class:`TableRow` per face of the row die.
    When every outcome is a whole number from 1 to the row die's faces (3d6 on a d20),
    ``numbered`` is true and each row's own outcome is its face, as in the published
    tables. The table is an immutable value; :meth:`realized` is exact.

    >>> t = TabletopTable.build({1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1})   # a d6 from two d20
    >>> t.rows[0]
    TableRow(face=1, outcome=1, threshold=20, alias=None)
    >>> t.rows[6]
    TableRow(face=7, outcome=None, threshold=0, alias=1)
    >>> real = t.realized()
    >>> max(abs(real.probability(k) - Fraction(1, 6)) for k in range(1, 7)) <= Fraction(1, 400)
    True
    """

    rows: tuple[TableRow, ...]
    row_die: int
    check_die: int
    target: Mapping[Any, Fraction]
    units: Mapping[Any, int]
    numbered: bool
    title: str

    def __init__(self, *, rows: tuple[TableRow, ...], row_die: int, check_die: int,
                 target: dict[Any, Fraction], units: dict[Any, int], numbered: bool,
                 title: str = "") -> None:
        put = object.__setattr__
        put(self, "rows", rows)
        put(self, "row_die", row_die)
        put(self, "check_die", check_die)
        put(self, "target", MappingProxyType(dict(target)))
        put(self, "units", MappingProxyType(dict(units)))
        put(self, "numbered", numbered)
        put(self, "title", title)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("TabletopTable is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_table, (self.rows, self.row_die, self.check_die, dict(self.target),
                                 dict(self.units), self.numbered, self.title))

    @overload
    @classmethod
    def build(cls, source: Any, *, row_die: int = ..., check_die: int = ...,
              title: str | None = ..., two_stage: Literal[False] = ...) -> TabletopTable: ...

    @overload
    @classmethod
    def build(cls, source: Any, *, row_die: int = ..., check_die: int = ...,
              title: str | None = ..., two_stage: Literal[True]) -> TwoStageTable: ...

    @classmethod
    def build(cls, source: Any, *, row_die: int = 20, check_die: int = 20,
              title: str | None = None,
              two_stage: bool = False) -> TabletopTable | TwoStageTable:
        """Round ``source`` optimally to multiples of ``1/(row_die*check_die)`` (see
        :func:`round_to_grid`) and build the table in whole numbers. ``source``: a
        ``Distribution`` (``.weights`` or ``.pmf()``), a dice notation string (needs
        :func:`chancekit.dist`), or a mapping ``outcome -> weight`` (labels allowed: a loot
        table). O(k log k + row_die*check_die log k).

        More outcomes than faces on the row die, or more than :data:`MAX_TABLE_CELLS`
        cells ``row_die * check_die``, raise :class:`~chancekit.errors.LimitError` naming
        what works instead. ``two_stage=True`` returns a :class:`TwoStageTable` instead
        (:meth:`TwoStageTable.build`: up to ``row_die**2`` outcomes on the same dice).

        >>> t = TabletopTable.build({"sword": 5, "shield": 3, "potion": 12}, row_die=6)
        >>> t.realized().pmf()
        {'potion': Fraction(3, 5), 'shield': Fraction(3, 20), 'sword': Fraction(1, 4)}
        """
        if two_stage:
            return TwoStageTable.build(source, row_die=row_die, check_die=check_die,
                                       title=title)
        row_die, check_die, pairs, total, notation = _prepared(source, row_die, check_die)
        if len(pairs) > row_die:
            raise LimitError(
                f"{len(pairs)} possible outcomes do not fit on a d{row_die} row die (one row "
                "each at most); use a larger row die, e.g. row_die=100 (--row-die 100) rolled "
                "as d10 x d10 (tens and units), or a two-stage table (a first table picks a "
                "group of outcomes, a second table per group picks within it: "
                "two_stage=True, --two-stage)",
                limit="row_die", value=row_die)
        target = {lab: Fraction(w, total) for lab, w in pairs}
        grid = row_die * check_die
        numeric = all(isinstance(lab, (int, Fraction)) and not isinstance(lab, bool)
                      for lab in target)
        masses = round_to_grid(list(target.values()), grid,
                               values=list(target) if numeric else None)
        units = dict(zip(target, masses, strict=True))
        numbered = all(type(lab) is int and 1 <= lab <= row_die for lab in target)
        if numbered:
            items: list[Any] = list(range(1, row_die + 1))
            item_mass = [units.get(f, 0) for f in items]
            real = [f in units for f in items]
        else:
            items = [lab for lab in target] + [None] * (row_die - len(target))
            item_mass = [units[lab] for lab in target] + [0] * (row_die - len(target))
            real = [True] * len(target) + [False] * (row_die - len(target))
        thresholds, aliases = vose_integer(item_mass, check_die)
        rows = []
        for j in range(row_die):
            t = thresholds[j]
            outcome = items[j] if (real[j] and t > 0) else None
            alias = items[aliases[j]] if t < check_die else None
            rows.append(TableRow(face=j + 1, outcome=outcome, threshold=t, alias=alias))
        name = title if title is not None else (notation or "")
        return cls(rows=tuple(rows), row_die=row_die, check_die=check_die, target=target,
                   units=units, numbered=numbered, title=name)

    # -- exact results ---------------------------------------------------------------------
    def realized(self) -> Distribution:
        """The exact distribution the table produces, by enumerating every (row, check)
        pair of rolls, as a :class:`~chancekit.dice.Distribution` (``.probability(x)``,
        ``.pmf()``, ``.mean()``, ...; an outcome the table never gives is absent).
        O(row_die).

        >>> TabletopTable.build({1: 1, 2: 3}, row_die=2, check_die=4).realized().pmf()
        {1: Fraction(1, 4), 2: Fraction(3, 4)}
        """
        from chancekit.dice.distribution import Distribution

        counts: dict[Any, int] = {lab: 0 for lab in self.target}
        for r in self.rows:
            if r.threshold:
                counts[r.outcome] = counts.get(r.outcome, 0) + r.threshold
            if r.threshold < self.check_die:
                counts[r.alias] = counts.get(r.alias, 0) + self.check_die - r.threshold
        return Distribution({lab: c for lab, c in counts.items() if c})

    def report(self) -> TableReport:
        """Original vs realised mean and variance, largest error, total variation.

        >>> TabletopTable.build({1: 1, 2: 1}, row_die=2, check_die=2).report().max_error
        Fraction(0, 1)
        """
        return _report(self.target, self.realized().pmf())

    def rule(self) -> str:
        """The rule at the table, in one sentence."""
        own = "the row number" if self.numbered else "the row's outcome"
        return (f"Roll a d{self.row_die} for the row, then a d{self.check_die}: if it is at "
                f"most the row's threshold the result is {own}, otherwise the row's alias.")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TabletopTable):
            return NotImplemented
        return (self.rows, self.row_die, self.check_die) == (other.rows, other.row_die,
                                                             other.check_die)

    def __hash__(self) -> int:
        return hash((self.rows, self.row_die, self.check_die))

    def _repr_html_(self) -> str:
        """Jupyter display: rows, rule, accuracy, target vs realised bars (inline SVG)."""
        from chancekit._html import tabletop_html

        return tabletop_html(self)

    def __repr__(self) -> str:
        return (f"<TabletopTable {self.title or ''} d{self.row_die} x d{self.check_die}, "
                f"{len(self.target)} outcomes>")

    # -- output ----------------------------------------------------------------------------
    def _columns(self) -> tuple[list[str], list[list[str]]]:
        if self.numbered:
            headers = [f"d{self.row_die}", f"keep if d{self.check_die} <=", "else"]
            rows = [[str(r.face), _thr(r), _lab(r.alias)] for r in self.rows]
        else:
            headers = [f"d{self.row_die}", "outcome", f"keep if d{self.check_die} <=", "else"]
            rows = [[str(r.face), _lab(r.outcome), _thr(r), _lab(r.alias)]
                    for r in self.rows]
        return headers, rows

    def to_markdown(self) -> str:
        """The table as Markdown, with the rule and the accuracy line below it."""
        headers, rows = self._columns()
        return _markdown([(self.title, self)], headers, rows)

    def to_csv(self) -> str:
        """One CSV line per row: face, outcome, threshold, alias (empty for none)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["face", "outcome", "threshold", "alias"])
        for r in self.rows:
            w.writerow([r.face, "" if r.outcome is None else r.outcome, r.threshold,
                        "" if r.alias is None else r.alias])
        return buf.getvalue()

    def to_text(self) -> str:
        """Aligned plain text, with the rule and the accuracy line."""
        headers, rows = self._columns()
        return _text([(self.title, self)], headers, rows)

    def to_html(self) -> str:
        """A self-contained printable HTML page (no external files)."""
        return tabletop_sheet([self], fmt="html")

    def render(self, fmt: str = "md") -> str:
        """``fmt``: ``"md"``, ``"csv"``, ``"text"`` or ``"html"``."""
        if fmt == "csv":
            return self.to_csv()
        return tabletop_sheet([self], fmt=fmt)


def _rebuild_table(rows: tuple[TableRow, ...], row_die: int, check_die: int,
                   target: dict[Any, Fraction], units: dict[Any, int], numbered: bool,
                   title: str) -> TabletopTable:
    return TabletopTable(rows=rows, row_die=row_die, check_die=check_die, target=target,
                         units=units, numbered=numbered, title=title)


def _report(target: Mapping[Any, Fraction], real: Mapping[Any, Fraction]) -> TableReport:
    keys = list(target)
    diffs = [abs(real.get(k, Fraction(0)) - target[k]) for k in keys]
    numeric = all(isinstance(k, (int, Fraction)) and not isinstance(k, bool) for k in keys)
    mean = rmean = var = rvar = None
    if numeric:
        mean = sum((k * p for k, p in target.items()), Fraction(0))
        rmean = sum((k * p for k, p in real.items()), Fraction(0))
        var = sum((p * (k - mean) ** 2 for k, p in target.items()), Fraction(0))
        rvar = sum((p * (k - rmean) ** 2 for k, p in real.items()), Fraction(0))
    return TableReport(mean, rmean, var, rvar, max(diffs), sum(diffs, Fraction(0)) / 2)


def _thr(r: TableRow) -> str:
    return "-" if r.threshold == 0 else str(r.threshold)


def _lab(x: Any) -> str:
    return "-" if x is None else str(x)


def _notes(named: list[tuple[str, TabletopTable]]) -> list[str]:
    kinds = {t.numbered for _, t in named}
    rule = named[0][1].rule()
    if kinds == {True, False}:
        rule = rule.replace("the row number", "the row's outcome (the row number where a "
                            "column shows no outcome)")
    out = [rule]
    for title, t in named:
        out.append(f"{title or 'table'}: {t.report().line()}")
    return out


def _markdown(named: list[tuple[str, TabletopTable]], headers: list[str],
              rows: list[list[str]], group: list[str] | None = None) -> str:
    lines = []
    if group:
        lines.append("| " + " | ".join(group) + " |")
    else:
        lines.append("| " + " | ".join(headers) + " |")
    lines.append("|" + "|".join("---" for _ in headers) + "|")
    if group:
        lines.append("| " + " | ".join(headers) + " |")
    for r in rows:
        lines.append("| " + " | ".join(r) + " |")
    lines.append("")
    lines.extend(_notes(named))
    return "\n".join(lines) + "\n"


def _text(named: list[tuple[str, TabletopTable]], headers: list[str],
          rows: list[list[str]], group: list[str] | None = None) -> str:
    allrows = ([group] if group else []) + [headers] + rows
    widths = [max(len(r[i]) for r in allrows) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in allrows]
    lines.append("")
    lines.extend(_notes(named))
    return "\n".join(lines) + "\n"


_CSS = ("body{font-family:Georgia,serif;margin:1.5em}table{border-collapse:collapse;"
        "margin:1em 0}th,td{border:1px solid #444;padding:2px 8px;text-align:center}"
        "th{background:#eee}tr:nth-child(even) td{background:#f7f7f7}"
        "p{max-width:40em}@media print{body{margin:0}}")


def tabletop_sheet(tables: Iterable[TabletopTable], *, titles: Sequence[str] | None = None,
                   fmt: str = "md") -> str:
    """Several tables side by side (like the published sheet with 3d6, 4d6 drop lowest,
    4dF and d6 columns), one row per face of the shared row die, each table with its own
    accuracy line. ``fmt``: ``"md"``, ``"text"``, ``"csv"`` or ``"html"`` (a
    self-contained printable page).

    >>> a = TabletopTable.build({1: 1, 2: 1}, row_die=4, check_die=4, title="d2")
    >>> b = TabletopTable.build({"x": 1, "y": 3}, row_die=4, check_die=4, title="loot")
    >>> print(tabletop_sheet([a, b], fmt="text"))
        d2    d2     loot  loot  loot
    d4  <=  else  outcome    <=  else
     1   4     -        x     4     -
     2   4     -        y     4     -
     3   -     1        -     -     y
     4   -     2        -     -     y
    <BLANKLINE>
    Roll a d4 for the row, then a d4: if it is at most the row's threshold the result is ...
    d2: mean 1.5 -> 1.5, sd 0.5 -> 0.5, largest error 0 points, total variation 0
    loot: largest error 0 points, total variation 0
    <BLANKLINE>
    """
    tabs = list(tables)
    if not tabs:
        raise InvalidValueError("tabletop_sheet needs at least one table")
    if fmt not in ("md", "text", "csv", "html"):
        raise InvalidValueError("fmt", fmt, "one of 'md', 'text', 'csv', 'html'")
    rd, cd = tabs[0].row_die, tabs[0].check_die
    for t in tabs:
        if not isinstance(t, TabletopTable):
            raise InvalidTypeError("tables", t, "TabletopTable objects")
        if (t.row_die, t.check_die) != (rd, cd):
            raise InvalidValueError(f"tables on one sheet must share the dice: d{rd} x d{cd} "
                                    f"vs d{t.row_die} x d{t.check_die} ({t.title!r})")
    names = list(titles) if titles is not None else [t.title or f"table {i + 1}"
                                                      for i, t in enumerate(tabs)]
    if len(names) != len(tabs):
        raise InvalidValueError(f"{len(names)} titles for {len(tabs)} tables")
    named, headers, rows, group = _sheet(tabs, names)
    if fmt == "md":
        return _markdown(named, headers, rows, group)
    if fmt == "text":
        return _text(named, headers, rows, group)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(group)
        w.writerow(headers)
        w.writerows([["" if c == "-" else c for c in r] for r in rows])
        return buf.getvalue()
    esc = html.escape
    out = [_page_head(" / ".join(names)),
           f"<h1>{esc(' / '.join(names))}</h1>", f"<p>{esc(tabs[0].rule())}</p>",
           *_html_table(named, headers, rows, group), "</body></html>"]
    return "\n".join(out) + "\n"


def _sheet(tabs: list[TabletopTable], names: list[str]
           ) -> tuple[list[tuple[str, TabletopTable]], list[str], list[list[str]], list[str]]:
    """(named tables, headers, rows, group headers) of tables side by side."""
    rd = tabs[0].row_die
    headers = [f"d{rd}"]
    group = [""]
    for name, t in zip(names, tabs, strict=True):
        cols = (["<=", "else"] if t.numbered else ["outcome", "<=", "else"])
        headers += cols
        group += [name] * len(cols)
    rows = []
    for i in range(rd):
        row = [str(i + 1)]
        for t in tabs:
            r = t.rows[i]
            if not t.numbered:
                row.append(_lab(r.outcome))
            row += [_thr(r), _lab(r.alias)]
        rows.append(row)
    return list(zip(names, tabs, strict=True)), headers, rows, group


def _page_head(title: str) -> str:
    """The start of a self-contained printable page, up to ``<body>``."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>")


def _html_table(named: list[tuple[str, TabletopTable]], headers: list[str],
                rows: list[list[str]], group: list[str]) -> list[str]:
    """The lines of one sheet's ``<table>`` and its accuracy lines, for a page."""
    esc = html.escape
    out = ["<table>",
           "<tr>" + "".join(f'<th colspan="{n}">{esc(g)}</th>' for g, n in _runs(group))
           + "</tr>",
           "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    for name, t in named:
        out.append(f"<p><b>{esc(name)}</b>: {esc(t.report().line())}</p>")
    return out


def _runs(group: list[str]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for i, g in enumerate(group):
        if i > 1 and g == out[-1][0]:
            out[-1] = (g, out[-1][1] + 1)
        else:
            out.append((g, 1))
    return out


def as_mapping(table: TabletopTable | TwoStageTable) -> Mapping[str, Any]:
    """A JSON-ready dict of the table (private helper for the CLI). A two-stage table
    (the ``two_stage`` entries of ``chancekit table --json``): title, dice, rule,
    ``groups`` (the outcomes of each second table, in order), ``first`` and ``second``
    (each as a single table's entry), and the overall target, realised distribution and
    report."""
    if isinstance(table, TwoStageTable):
        return table._mapping()
    return {
        "title": table.title, "row_die": table.row_die, "check_die": table.check_die,
        "rule": table.rule(),
        "rows": [{"face": r.face, "outcome": r.outcome, "threshold": r.threshold,
                  "alias": r.alias} for r in table.rows],
        **_exact_fields(table.target, table.realized().pmf(), table.report()),
    }


def _exact_fields(target: Mapping[Any, Fraction], real: Mapping[Any, Fraction],
                  rep: TableReport) -> dict[str, Any]:
    """``target``, ``realized`` and ``report`` of a table's JSON entry."""
    return {
        "target": {str(k): str(v) for k, v in target.items()},
        "realized": {str(k): str(v) for k, v in real.items()},
        "report": {"mean": None if rep.mean is None else float(rep.mean),
                   "realized_mean": None if rep.realized_mean is None
                   else float(rep.realized_mean),
                   "sd": rep.sd, "realized_sd": rep.realized_sd,
                   "max_error_points": rep.max_error_points,
                   "total_variation": float(rep.total_variation)},
    }


def two_stage_html(tables: Iterable[TwoStageTable]) -> str:
    """Several two-stage tables on one self-contained printable page (each from a new
    printed page), as :meth:`TwoStageTable.to_html` lays one out."""
    tabs = list(tables)
    if not tabs:
        raise InvalidValueError("two_stage_html needs at least one table")
    for t in tabs:
        if not isinstance(t, TwoStageTable):
            raise InvalidTypeError("tables", t, "TwoStageTable objects")
    out = [_page_head(" / ".join(t.title or "table" for t in tabs))]
    for i, t in enumerate(tabs):
        out.append('<section style="break-before:page">' if i else "<section>")
        out += t._html()
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# -- two-stage tables ----------------------------------------------------------------------
class TwoStageTable:
    """More outcomes than rows: a first table picks a *group* of outcomes (which second
    table to roll on), a second table per group picks within it; both stages use the same
    row die and check die. Build with :meth:`build` (or ``TabletopTable.build(...,
    two_stage=True)``).

    The groups are runs of consecutive outcomes (in order for numbers, in the given order
    for labels), as even as possible, at most ``row_die`` each, so each group's table has
    one row per outcome at most; ``first`` is a numbered table whose outcome ``g`` means
    "roll on ``second[g - 1]``". The first stage is rounded to the grid of
    ``1/(row_die*check_die)`` like any table, and each second stage to the same grid for
    the probabilities *within* its group, so the realised distribution (exact:
    ``P(group) * P(outcome | group)``) is within ``2/(row_die*check_die)`` of the target
    for every outcome (1/200 = 0.5 points on d20 x d20).

    >>> t = TwoStageTable.build("2d20")       # 39 outcomes, on d20 x d20
    >>> [len(g) for g in t.groups]
    [20, 19]
    >>> sum(t.realized().pmf().values())
    Fraction(1, 1)
    >>> t.report().max_error <= Fraction(2, 400)
    True
    """

    first: TabletopTable
    second: tuple[TabletopTable, ...]
    groups: tuple[tuple[Any, ...], ...]
    target: Mapping[Any, Fraction]
    title: str

    def __init__(self, *, first: TabletopTable, second: tuple[TabletopTable, ...],
                 groups: tuple[tuple[Any, ...], ...], target: dict[Any, Fraction],
                 title: str = "") -> None:
        put = object.__setattr__
        put(self, "first", first)
        put(self, "second", tuple(second))
        put(self, "groups", tuple(tuple(g) for g in groups))
        put(self, "target", MappingProxyType(dict(target)))
        put(self, "title", title)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("TwoStageTable is immutable")

    @property
    def row_die(self) -> int:
        return self.first.row_die

    @property
    def check_die(self) -> int:
        return self.first.check_die

    @classmethod
    def build(cls, source: Any, *, row_die: int = 20, check_die: int = 20,
              title: str | None = None) -> TwoStageTable:
        """Group the outcomes of ``source`` (as :meth:`TabletopTable.build` takes it) into
        ``ceil(k / row_die)`` runs of consecutive outcomes and build both stages. More than
        ``row_die**2`` outcomes raise :class:`~chancekit.errors.LimitError`.
        O(k log k + G * row_die*check_die log k) for ``G`` groups."""
        row_die, check_die, pairs, total, notation = _prepared(source, row_die, check_die)
        if not pairs:  # pragma: no cover - integer_weights refuses an all-zero source
            raise InvalidValueError("source", source, "at least one positive weight")
        numeric = all(isinstance(lab, (int, Fraction)) and not isinstance(lab, bool)
                      for lab, _ in pairs)
        if numeric:
            pairs.sort(key=lambda p: p[0])
        k = len(pairs)
        if k > row_die * row_die:
            raise LimitError(
                f"{k:,} possible outcomes do not fit a two-stage table on a d{row_die} row "
                f"die (at most {row_die * row_die:,}: {row_die} groups of {row_die}); use a "
                "larger row die, e.g. row_die=100 (--row-die 100)",
                limit="row_die", value=row_die)
        count = -(-k // row_die)
        base, extra = divmod(k, count)
        chunks: list[list[tuple[Any, int]]] = []
        at = 0
        for g in range(count):
            size = base + (1 if g < extra else 0)
            chunks.append(pairs[at:at + size])
            at += size
        first = TabletopTable.build({g + 1: sum(w for _, w in c) for g, c in enumerate(chunks)},
                                    row_die=row_die, check_die=check_die,
                                    title="which second table")
        names = [_group_name(g, c) for g, c in enumerate(chunks)]
        second = tuple(TabletopTable.build(dict(c), row_die=row_die, check_die=check_die,
                                           title=name) for c, name in zip(chunks, names,
                                                                          strict=True))
        target = {lab: Fraction(w, total) for lab, w in pairs}
        name = title if title is not None else (notation or "")
        return cls(first=first, second=second, groups=tuple(tuple(lab for lab, _ in c)
                                                              for c in chunks),
                   target=target, title=name)

    def realized(self) -> Distribution:
        """The exact distribution of both stages: ``sum over groups g of P(first gives g)
        * P(second[g] gives x)``, as a :class:`~chancekit.dice.Distribution`."""
        from chancekit.dice.distribution import Distribution

        pick = self.first.realized()
        out: dict[Any, Fraction] = {}
        for g, table in enumerate(self.second, start=1):
            pg = pick.probability(g)
            for x, p in table.realized().pmf().items():
                out[x] = out.get(x, Fraction(0)) + pg * p
        return Distribution({x: p for x, p in out.items() if p})

    def report(self) -> TableReport:
        """Target vs the exact two-stage result (see :class:`TableReport`)."""
        return _report(self.target, self.realized().pmf())

    def rule(self) -> str:
        """The rule at the table, in two sentences."""
        return (f"Roll on the first table (a d{self.row_die} for the row, then a "
                f"d{self.check_die}: at most the row's threshold gives the row number, "
                "otherwise the row's alias) to find which second table to use; roll on "
                "that table the same way (the row's outcome, otherwise its alias).")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TwoStageTable):
            return NotImplemented
        return (self.first, self.second) == (other.first, other.second)

    def __hash__(self) -> int:
        return hash((self.first, self.second))

    def __repr__(self) -> str:
        return (f"<TwoStageTable {self.title or ''} d{self.row_die} x d{self.check_die}, "
                f"{len(self.target)} outcomes in {len(self.groups)} groups>")

    def render(self, fmt: str = "md") -> str:
        """The sheet: the first stage, then the second tables side by side (four at most
        per block), then the overall accuracy line. ``fmt``: ``"md"``, ``"text"``,
        ``"csv"`` (:meth:`to_csv`) or ``"html"`` (:meth:`to_html`)."""
        if fmt == "csv":
            return self.to_csv()
        if fmt == "html":
            return self.to_html()
        if fmt not in ("md", "text"):
            raise InvalidValueError("fmt", fmt, "one of 'md', 'text', 'csv', 'html'")
        head = "## " if fmt == "md" else ""
        name = self.title or "table"
        parts = [f"{head}{name}: two stages on d{self.row_die} x d{self.check_die}", "",
                 self.rule(), "", f"{head}First stage: which second table", "",
                 tabletop_sheet([self.first], fmt=fmt), f"{head}Second stage", ""]
        for block, titles in self._blocks():
            parts.append(tabletop_sheet(block, titles=titles, fmt=fmt))
        parts.append(f"{name} overall: {self.report().line()}")
        return "\n".join(parts) + "\n"

    def _blocks(self) -> list[tuple[list[TabletopTable], list[str]]]:
        """The second tables, four at most side by side, with their titles."""
        out = []
        for at in range(0, len(self.second), 4):
            block = list(self.second[at:at + 4])
            out.append((block, [f"table {at + i + 1}: {t.title}"
                                for i, t in enumerate(block)]))
        return out

    def to_markdown(self) -> str:
        """:meth:`render` as Markdown."""
        return self.render("md")

    def to_text(self) -> str:
        """:meth:`render` as aligned plain text."""
        return self.render("text")

    def to_csv(self) -> str:
        """One CSV line per row of every table: ``table`` is ``first`` for the first stage
        (its outcome is the number of the second table to roll on) or that number for a
        second-stage table, then face, outcome, threshold, alias as in
        :meth:`TabletopTable.to_csv` (empty for none).

        >>> print(TwoStageTable.build({"a": 1, "b": 1, "c": 2}, row_die=2, check_die=2
        ...                           ).to_csv(), end="")
        table,face,outcome,threshold,alias
        first,1,1,2,
        first,2,2,2,
        1,1,a,2,
        1,2,b,2,
        2,1,c,2,
        2,2,,0,c
        """
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["table", "face", "outcome", "threshold", "alias"])
        for name, table in [("first", self.first),
                            *((str(g), t) for g, t in enumerate(self.second, start=1))]:
            for r in table.rows:
                w.writerow([name, r.face, "" if r.outcome is None else r.outcome,
                            r.threshold, "" if r.alias is None else r.alias])
        return buf.getvalue()

    def to_html(self) -> str:
        """A self-contained printable HTML page (no external files): the rule, the first
        stage, the second tables side by side (four at most per block) and the overall
        accuracy line, as :meth:`render` lays them out."""
        return two_stage_html([self])

    def _html(self) -> list[str]:
        esc = html.escape
        name = self.title or "table"
        out = [f"<h1>{esc(name)}: two stages on d{self.row_die} x d{self.check_die}</h1>",
               f"<p>{esc(self.rule())}</p>", "<h2>First stage: which second table</h2>",
               *_html_table(*_sheet([self.first], [self.first.title or "table"])),
               "<h2>Second stage</h2>"]
        for block, titles in self._blocks():
            out += _html_table(*_sheet(block, titles))
        out.append(f"<p><b>{esc(name)} overall</b>: {esc(self.report().line())}</p>")
        return out

    def _mapping(self) -> dict[str, Any]:
        return {"title": self.title, "row_die": self.row_die, "check_die": self.check_die,
                "rule": self.rule(), "groups": [list(g) for g in self.groups],
                "first": as_mapping(self.first),
                "second": [as_mapping(t) for t in self.second],
                **_exact_fields(self.target, self.realized().pmf(), self.report())}


def _group_name(g: int, chunk: list[tuple[Any, int]]) -> str:
    first, last = chunk[0][0], chunk[-1][0]
    return str(first) if len(chunk) == 1 else f"{first} to {last}"
