"""The loot list of the Tables page reads each weight like ``--weights`` does
(``chancekit.sampling.read_weight``): a weight past MAX_WEIGHT_DIGITS is refused before
``Fraction`` builds it (``1e999999999`` used to run into the worker's time limit)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from _upfront import MAX_CALLS, measure
from chancekit.errors import InvalidValueError, LimitError
from chancekit.sampling import parse_weights
from chancekit.web.compute import parse_loot


def test_loot_weights_read_exactly() -> None:
    assert parse_loot("sword=5\n# rare\nshield = 1/2\npotion=0.25") == {
        "sword": Fraction(5), "shield": Fraction(1, 2), "potion": Fraction(1, 4)}
    assert parse_loot("a=1") == parse_weights("a=1")


def test_a_huge_exponent_is_refused_up_front() -> None:
    error, _, calls = measure(lambda: parse_loot("sword=5\nscroll=1e999999999"))
    assert isinstance(error, LimitError) and error.limit == "MAX_WEIGHT_DIGITS"
    assert "loot line 2" in str(error)
    assert calls < MAX_CALLS


@pytest.mark.parametrize(("text", "says"), [("a=-1", "must be >= 0"),
                                             ("a=x", "is not a number")])
def test_bad_weights_name_the_line(text: str, says: str) -> None:
    with pytest.raises(InvalidValueError, match="loot line 1: the weight") as info:
        parse_loot(text)
    assert says in str(info.value)


# -- the Tables page: the sheet of a loot list, read at the table -----------------------------
LOOT = "sword=40\nshield=25\npotion=20\nscroll of fire=10\nring=4\ncrown=1"


def _build(pg: Any) -> None:
    pg.evaluate("document.body.dataset.state = ''")
    pg.click("#build")
    pg.wait_for_function("document.body.dataset.state === 'done'")


def _sheet(pg: Any) -> list[list[str]]:
    return pg.evaluate("""() => [...document.querySelectorAll('#sheet-table tbody tr')]
        .map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent))""")


@pytest.mark.browser
@pytest.mark.parametrize("width", [1200, 390])
def test_loot_sheet_reads_at_the_table(browser: Any, server_url: str, width: int) -> None:
    """Rows kept on any check roll say "always" (not "keep if d20 <= 20"), rows with no
    outcome of their own "never", and a sentence says how to read both; a label is
    neither cut nor broken over two lines (sheet, chart, table); the page fits the
    screen; the sheet a table from dice notation makes has its outcome column."""
    import chancekit

    context = browser.new_context(viewport={"width": width, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        pg.goto(server_url.rstrip("/") + "/tables")
        pg.wait_for_function("document.body.dataset.state === 'done'")
        pg.check("input[name=source][value=loot]")
        pg.fill("#loot", LOOT)
        _build(pg)
        table = chancekit.TabletopTable.build(
            {"sword": 40, "shield": 25, "potion": 20, "scroll of fire": 10, "ring": 4,
             "crown": 1}, row_die=20, check_die=20)
        sheet = _sheet(pg)
        assert len(sheet) == 20
        for row, got in zip(table.rows, sheet, strict=True):
            face, outcome, keep, other = got
            assert face == str(row.face)
            assert outcome == ("–" if row.outcome is None else row.outcome)
            if row.threshold == 20:
                assert (keep, other) == ("always", "–")
            elif row.threshold == 0:
                assert (keep, other) == ("never", row.alias)
            else:
                assert (keep, other) == (str(row.threshold), row.alias)
        assert {"always", "never"} <= {r[2] for r in sheet}
        reading = pg.inner_text("#reading")
        assert "“always”" in reading and "“never”" in reading and "“else”" in reading
        # labels whole, on one line: the sheet, the chart's axis, the comparison table
        cell = pg.locator("#sheet-table td", has_text="scroll of fire").first
        ring = pg.locator("#sheet-table td", has_text="ring").first
        assert cell.bounding_box()["height"] == ring.bounding_box()["height"]
        axis = pg.evaluate("""() => [...document.querySelectorAll('#chart svg .x-axis text')]
            .map(t => t.firstChild.textContent)""")
        assert axis == ["sword", "shield", "potion", "scroll of fire", "ring", "crown"]
        # side by side when they fit (no two overlap), else all slanted
        boxes = pg.evaluate("""() => [...document.querySelectorAll('#chart svg .x-axis text')]
            .map(t => { const b = t.getBoundingClientRect();
                        return [b.left, b.right, t.hasAttribute('transform')]; })""")
        slanted = {b[2] for b in boxes}
        assert len(slanted) == 1
        if slanted == {False}:
            assert all(a[1] <= b[0] for a, b in itertools.pairwise(boxes))
        assert slanted == ({True} if width == 390 else {False})
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        # a table from dice notation: the outcome column is there (the row number)
        pg.check("input[name=source][value=notation]")
        pg.fill("#notation", "3d6")
        _build(pg)
        heads = pg.evaluate("[...document.querySelectorAll('#sheet-table th')]"
                            ".map(th => th.textContent)")
        assert heads == ["d20", "outcome", "keep if d20 ≤", "else"]
        notation = chancekit.TabletopTable.build("3d6", row_die=20, check_die=20)
        for row, got in zip(notation.rows, _sheet(pg), strict=True):
            assert got[1] == ("–" if row.outcome is None else str(row.outcome))
            assert row.outcome is None or row.outcome == row.face
        assert "its number" in pg.inner_text("#reading")
    finally:
        context.close()
