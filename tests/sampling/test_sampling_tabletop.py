"""TabletopTable: optimal rounding (brute force), exact tables by enumerating every pair of
rolls, the published distributions within 1/400, outputs, bad input."""

from __future__ import annotations

import csv
import io
import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.sampling import TabletopTable, round_to_grid, tabletop_sheet

# -- independent oracles: brute-force enumeration of the dice ------------------------------
THREE_D6 = Counter(sum(r) for r in itertools.product(range(1, 7), repeat=3))
FOUR_D6_DROP_LOWEST = Counter(sum(sorted(r)[1:]) for r in itertools.product(range(1, 7),
                                                                             repeat=4))
FOUR_DF = Counter(sum(r) for r in itertools.product((-1, 0, 1), repeat=4))
D6 = Counter(range(1, 7))
PUBLISHED = {"3d6": THREE_D6, "4d6 drop lowest": FOUR_D6_DROP_LOWEST, "4dF": FOUR_DF,
             "d6": D6}


def play(t: TabletopTable) -> dict[object, Fraction]:
    """Apply the rule to every (row, check) pair: an oracle independent of realized()."""
    counts: Counter = Counter()
    for face, check in itertools.product(range(1, t.row_die + 1), range(1, t.check_die + 1)):
        row = t.rows[face - 1]
        assert row.face == face
        counts[row.outcome if check <= row.threshold else row.alias] += 1
    n = t.row_die * t.check_die
    return {k: Fraction(v, n) for k, v in counts.items()}


def brute_round(target: list[Fraction], units: int, keep: bool) -> list[int]:
    """Every composition of ``units`` into len(target) parts; lexicographic (max error,
    total error) minimum, then the first in a fixed order broken by our tie rule."""
    k = len(target)
    best = None
    positive = sum(1 for p in target if p > 0)
    for cut in itertools.combinations(range(units + k - 1), k - 1):
        parts = [b - a - 1 for a, b in zip((-1, *cut), (*cut, units + k - 1), strict=True)]
        if keep and positive <= units and any(p > 0 and m == 0
                                              for p, m in zip(target, parts, strict=True)):
            continue
        errs = [abs(Fraction(m, units) - p) for m, p in zip(parts, target, strict=True)]
        key = (max(errs), sum(errs))
        if best is None or key < best[0]:
            best = (key, parts)
    assert best is not None
    return best


@given(st.lists(st.integers(0, 20), min_size=1, max_size=4).filter(any),
       st.integers(1, 9), st.booleans(), st.booleans())
def test_round_to_grid_is_optimal(ws: list[int], units: int, keep: bool,
                                  by_mean: bool) -> None:
    total = sum(ws)
    target = [Fraction(w, total) for w in ws]
    values = list(range(1, len(ws) + 1)) if by_mean else None
    got = round_to_grid(target, units, keep_possible=keep, values=values)
    assert sum(got) == units and all(m >= 0 for m in got)
    (best_max, best_sum), _ = brute_round(target, units, keep)
    errs = [abs(Fraction(m, units) - p) for m, p in zip(got, target, strict=True)]
    assert max(errs) == best_max
    assert sum(errs) == best_sum
    if keep and sum(1 for w in ws if w) <= units:
        assert all(m >= 1 for m, w in zip(got, ws, strict=True) if w)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_distributions_within_one_400th(name: str) -> None:
    target = PUBLISHED[name]
    t = TabletopTable.build(target, title=name)
    total = sum(target.values())
    real = play(t)
    assert real == t.realized().pmf()
    assert set(real) == set(target)  # every possible outcome stays possible
    for k, w in target.items():
        assert abs(real[k] - Fraction(w, total)) <= Fraction(1, 400)
    rep = t.report()
    assert rep.max_error <= Fraction(1, 400)
    assert rep.max_error_points <= 0.25
    assert len(t.rows) == 20 and all(0 <= r.threshold <= 20 for r in t.rows)


def test_3d6_numbered_rows_and_better_than_published() -> None:
    t = TabletopTable.build(THREE_D6)
    assert t.numbered
    for r in t.rows:
        if r.outcome is not None:
            assert r.outcome == r.face
    rep = t.report()
    assert rep.mean == Fraction(21, 2)
    # the published table realises mean 10.4525 and is off by up to 2.7 points
    assert abs(rep.realized_mean - Fraction(21, 2)) < abs(Fraction("10.4525") - Fraction(21, 2))
    assert rep.max_error_points < 2.7
    assert abs(rep.realized_sd - 2.958) < 0.05


@given(st.dictionaries(st.integers(1, 12), st.integers(0, 50), min_size=1,
                       max_size=12).filter(lambda d: any(d.values())),
       st.sampled_from([(12, 6), (12, 20), (20, 20), (12, 8), (16, 10)]))
def test_any_numbered_target_keeps_faces(ws: dict[int, int], dice: tuple[int, int]) -> None:
    row, check = dice
    t = TabletopTable.build(ws, row_die=row, check_die=check)
    real = play(t)
    assert real == t.realized().pmf()
    assert sum(real.values()) == 1
    assert t.numbered
    for r in t.rows:
        assert r.outcome is None or r.outcome == r.face
    # realised probabilities are exactly the optimal rounding
    total = sum(ws.values())
    keys = [k for k, w in ws.items() if w]
    units = round_to_grid([Fraction(ws[k], total) for k in keys], row * check, values=keys)
    assert {k: Fraction(u, row * check) for k, u in zip(keys, units, strict=True)
            if u} == {k: v for k, v in real.items() if v}


def test_mean_kept_when_ties_allow() -> None:
    # 400/6 is not whole: four faces get 67 units and two get 66; {1, 2, 5, 6} keeps 3.5
    t = TabletopTable.build(D6)
    assert t.report().realized_mean == Fraction(7, 2)
    assert sorted(t.units.values()) == [66, 66, 67, 67, 67, 67]
    assert TabletopTable.build(THREE_D6).report().realized_mean == Fraction(21, 2)


def test_loot_table_labels() -> None:
    t = TabletopTable.build({"sword": 5, "shield": 3, "potion": 12}, row_die=6)
    assert not t.numbered
    assert play(t) == {"sword": Fraction(1, 4), "shield": Fraction(3, 20),
                       "potion": Fraction(3, 5)}
    assert t.report().mean is None
    assert "largest error 0 points" in t.report().line()


@pytest.mark.parametrize("row, check", [(6, 6), (8, 10), (10, 12), (100, 20), (20, 100)])
def test_other_dice(row: int, check: int) -> None:
    target = {"common": 50, "uncommon": 25, "rare": 15, "epic": 7, "legendary": 3}
    t = TabletopTable.build(target, row_die=row, check_die=check)
    total = sum(target.values())
    real = play(t)
    bound = Fraction(1, row * check)  # at most one grid unit off
    assert all(abs(real.get(k, 0) - Fraction(w, total)) <= bound for k, w in target.items())


def test_too_many_outcomes_says_what_works() -> None:
    with pytest.raises(LimitError, match="row_die=100") as exc:
        TabletopTable.build(THREE_D6, row_die=12)
    assert "two-stage" in str(exc.value)
    assert exc.value.limit == "row_die"
    assert TabletopTable.build(THREE_D6, row_die=100).report().max_error <= Fraction(1, 2000)


@pytest.mark.parametrize("kw", [{"row_die": 1}, {"check_die": 0}, {"row_die": -6}])
def test_dice_need_two_faces(kw: dict) -> None:
    with pytest.raises(InvalidValueError, match="at least 2 faces"):
        TabletopTable.build(D6, **kw)


def test_bad_sources() -> None:
    with pytest.raises(InvalidTypeError):
        TabletopTable.build(D6, row_die=20.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError, match="'b'"):
        TabletopTable.build({"a": 1, "b": -2})
    with pytest.raises(InvalidValueError, match="every weight is zero"):
        TabletopTable.build({"a": 0})
    with pytest.raises(InvalidValueError, match="empty"):
        TabletopTable.build({})


def test_outputs() -> None:
    t = TabletopTable.build(THREE_D6, title="3d6")
    md = t.to_markdown()
    assert md.startswith("|") and "Roll a d20 for the row" in md and "largest error" in md
    rows = list(csv.reader(io.StringIO(t.to_csv())))
    assert rows[0] == ["face", "outcome", "threshold", "alias"] and len(rows) == 21
    text = t.to_text()
    assert "mean 10.5 -> 10.5" in text
    page = t.to_html()
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert "http" not in page and "<link" not in page and "<script" not in page
    assert t.render("csv") == t.to_csv()


def test_sheet_side_by_side() -> None:
    tabs = [TabletopTable.build(v, title=k) for k, v in PUBLISHED.items()]
    sheet = tabletop_sheet(tabs, fmt="md")
    for name in PUBLISHED:
        assert f"{name}: " in sheet  # each its own accuracy line
    lines = sheet.splitlines()
    assert len([ln for ln in lines if ln.startswith("| ")]) == 22  # group + header + 20
    for fmt in ("text", "csv", "html"):
        assert "3d6" in tabletop_sheet(tabs, fmt=fmt)
    with pytest.raises(InvalidValueError, match="share the dice"):
        tabletop_sheet([tabs[0], TabletopTable.build(D6, row_die=12)])
    with pytest.raises(InvalidValueError):
        tabletop_sheet([])
    with pytest.raises(InvalidValueError):
        tabletop_sheet(tabs, fmt="pdf")


def test_value_semantics() -> None:
    import pickle

    a = TabletopTable.build(D6)
    b = TabletopTable.build({k: 2 for k in D6})
    assert a == b and hash(a) == hash(b)
    c = pickle.loads(pickle.dumps(a))
    assert c == a and c.realized() == a.realized() and c.report() == a.report()
    with pytest.raises(AttributeError):
        a.row_die = 12  # type: ignore[misc]
    with pytest.raises(TypeError):
        a.target[1] = Fraction(1)  # type: ignore[index]


def test_realized_is_a_distribution() -> None:
    from chancekit.dice import Distribution

    t = TabletopTable.build({"sword": 5, "shield": 3, "potion": 12}, row_die=6)
    real = t.realized()
    assert isinstance(real, Distribution)
    assert real.probability("sword") == Fraction(1, 4)
    assert real.pmf() == play(t)
    three = TabletopTable.build(THREE_D6)
    assert three.realized().mean() == three.report().realized_mean
    assert TabletopTable.build(D6).realized().mean() == Fraction(7, 2)


@pytest.mark.parametrize("source, dice", [("2d20", (20, 20)), ("3d6", (6, 6)),
                                          ("4d6", (6, 20)), ("d100", (12, 8))])
def test_two_stage_is_exact_and_within_two_cells(source: str, dice: tuple[int, int]) -> None:
    from chancekit import dist
    from chancekit.sampling import TwoStageTable

    row, check = dice
    t = TabletopTable.build(source, row_die=row, check_die=check, two_stage=True)
    assert isinstance(t, TwoStageTable)
    assert all(len(g) <= row for g in t.groups) and len(t.groups) <= row
    assert [x for g in t.groups for x in g] == sorted(dist(source).outcomes())
    # the exact product of the stages, recomputed by playing every pair of both stages
    first = play(t.first)
    real: dict[object, Fraction] = {}
    for g, second in enumerate(t.second, start=1):
        assert second.realized().pmf() == play(second)
        for x, p in play(second).items():
            real[x] = real.get(x, Fraction(0)) + first.get(g, Fraction(0)) * p
    assert t.realized().pmf() == {x: p for x, p in real.items() if p}
    assert sum(t.realized().pmf().values()) == 1
    target = dist(source).pmf()
    bound = Fraction(2, row * check)
    assert all(abs(t.realized().probability(x) - p) <= bound for x, p in target.items())
    assert t.report().max_error <= bound


def test_two_stage_sheet_and_limits() -> None:
    from chancekit.sampling import TwoStageTable

    t = TwoStageTable.build("2d20")
    text = t.to_text()
    assert "First stage" in text and "table 2: 22 to 40" in text
    assert text.rstrip().endswith(t.report().line())
    md = t.to_markdown()
    assert "## Second stage" in md and "| d20 |" in md
    assert t.render("html") == t.to_html() and t.render("csv") == t.to_csv()
    with pytest.raises(InvalidValueError):
        t.render("pdf")
    loot = TwoStageTable.build({f"item{i}": i + 1 for i in range(7)}, row_die=3, check_die=4)
    assert [len(g) for g in loot.groups] == [3, 2, 2]
    assert loot.groups[0] == ("item0", "item1", "item2")
    with pytest.raises(LimitError, match="two-stage") as exc:
        TwoStageTable.build({i: 1 for i in range(10)}, row_die=3)
    assert exc.value.limit == "row_die"
    with pytest.raises(AttributeError):
        t.title = "x"  # type: ignore[misc]
