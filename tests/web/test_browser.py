"""The web app in a real browser: Debian's Chromium driven by Playwright. Each test waits
for explicit states (``body[data-state]`` set by the page when a request ends, elements
appearing); the timeouts are hang guards only. Screenshots go to docs/images/ when
CHANCEKIT_SCREENSHOTS=1, else to a temporary directory."""

from __future__ import annotations

import io
import math
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import chancekit
from conftest import IMAGES, call, shared_link

pytestmark = pytest.mark.browser


def shot(page: Any, name: str, tmp_path: Path) -> None:
    where = IMAGES if os.environ.get("CHANCEKIT_SCREENSHOTS") == "1" else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(where / f"web-{name}.png"), full_page=False)


def wait(page: Any, key: str = "state", value: str = "done") -> None:
    page.wait_for_function(f"document.body.dataset.{key} === {value!r}")


def rerun(page: Any, button: str, key: str = "state", value: str = "done") -> None:
    page.evaluate(f"document.body.dataset.{key} = ''")
    page.click(button)
    wait(page, key, value)


def calculate(page: Any, text: str, value: str = "done") -> None:
    page.fill("#exprs", text)
    rerun(page, "#run", value=value)


def chart_points(page: Any) -> dict[str, list[tuple[str, str]]]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#chart svg g.series')].map(g => [g.dataset.series, [...g.querySelectorAll('circle.pt')]
        .map(c => [c.dataset.x, c.dataset.exact])]))""")


def test_dice_chart_table_and_modes(page: Any, server_url: str, tmp_path: Path) -> None:
    page.goto(server_url)
    wait(page)
    calculate(page, "attack: 1d20+5\n4d6kh3\nsave: 1d20+5 >= 15")
    points = chart_points(page)
    assert list(points) == ["attack", "4d6kh3", "save"]
    for name, text in [("attack", "1d20+5"), ("4d6kh3", "4d6kh3"), ("save", "1d20+5 >= 15")]:
        pmf = chancekit.dist(text).pmf()
        assert {int(x): Fraction(e) for x, e in points[name]} == pmf
    # the table: exact fractions in each cell, mean and median from the library
    d = chancekit.dist("4d6kh3")
    cell = page.locator('#outcomes tr[data-outcome="15"] td[data-series="4d6kh3"]')
    assert Fraction(cell.get_attribute("data-exact")) == d.probability(15)
    assert page.inner_text('#summary tr[data-series="4d6kh3"] td.mean-exact') == "15869/1296"
    assert page.inner_text('#summary tr[data-series="4d6kh3"] td.q0\\.5') == str(d.median())
    # skewness and excess kurtosis from the library; distances from the first series
    from chancekit.dice import ks_distance, kurtosis, skewness, tv_distance

    row = '#summary tr[data-series="4d6kh3"]'
    assert float(page.inner_text(f"{row} td.skew")) == pytest.approx(skewness(d), abs=1e-4)
    assert Fraction(page.get_attribute(f"{row} td.kurt", "data-exact")) == kurtosis(
        d, exact=True)
    assert page.is_visible("#compare-card")
    first = chancekit.dist("1d20+5")
    comp = '#compare tr[data-series="4d6kh3"]'
    assert Fraction(page.inner_text(f"{comp} td.ks-exact")) == ks_distance(first, d)
    assert Fraction(page.inner_text(f"{comp} td.tv-exact")) == tv_distance(first, d)
    assert page.locator("#compare tbody tr").count() == 2
    shot(page, "dice", tmp_path)
    # At least / At most change the chart and the table
    page.check("input[name=mode][value=atleast]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(at least)'")
    assert Fraction(cell.get_attribute("data-exact")) == d.at_least(15)
    assert {int(x): Fraction(e) for x, e in chart_points(page)["4d6kh3"]} == {
        x: d.at_least(x) for x in d.outcomes()}
    page.check("input[name=mode][value=atmost]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(at most)'")
    assert Fraction(cell.get_attribute("data-exact")) == d.at_most(15)
    # log scale and transpose (one line per outcome, x = the expressions)
    page.check("#log")
    page.wait_for_selector('#chart svg[data-log="1"]', state="attached")
    page.check("#transpose")
    outcomes = {*range(6, 26), *range(3, 19), 0, 1}
    page.wait_for_function("document.querySelectorAll('#chart svg g.series').length === "
                           f"{len(outcomes)}")
    assert page.locator('#chart svg g.series[data-series="15"] circle.pt').count() == 2
    # hover shows the exact probability
    page.uncheck("#transpose")
    page.check("input[name=mode][value=normal]")
    page.hover('#chart svg g.series[data-series="4d6kh3"] circle.pt[data-x="18"]', force=True)
    page.wait_for_selector(".tip", state="visible")
    assert f"exactly {d.probability(18)}" in page.inner_text(".tip")
    assert "computed in" in page.inner_text("#status")


def _brute(dice: list[list[int]], f: Any) -> dict[int, Fraction]:
    """The exact distribution of ``f(roll)`` over every roll of ``dice``, by enumeration:
    the test's own reference, independent of chancekit."""
    from itertools import product

    out: dict[int, Fraction] = {}
    n = 0
    for faces in product(*dice):
        n += 1
        out[f(faces)] = out.get(f(faces), 0) + 1
    return {x: Fraction(c, n) for x, c in out.items()}


def _convolve(dice: list[dict[int, Fraction]]) -> dict[int, Fraction]:
    """The sum of independent dice given as {value: probability}, by direct convolution."""
    out = {0: Fraction(1)}
    for die in dice:
        nxt: dict[int, Fraction] = {}
        for a, p in out.items():
            for b, q in die.items():
                nxt[a + b] = nxt.get(a + b, 0) + p * q
        out = nxt
    return out


D6, D20, D10, DF = list(range(1, 7)), list(range(1, 21)), list(range(1, 11)), [-1, 0, 1]
#: what each help example of the Dice page says it means, computed without chancekit
HELP_MEANS: dict[tuple[str, str], dict[int, Fraction]] = {
    ("4d6kh3", "avrae"): _brute([D6] * 4, lambda r: sum(sorted(r)[1:])),
    ("2d20kl1", "avrae"): _brute([D20] * 2, min),
    ("1d20+5 >= 15", "avrae"): _brute([D20], lambda r: int(r[0] + 5 >= 15)),
    ("10d10>=8", "roll20"): {k: Fraction(math.comb(10, k) * 3**k * 7 ** (10 - k), 10**10)
                             for k in range(11)},
    ("10d10cs>=8", "avrae"): {k: Fraction(math.comb(10, k) * 3**k * 7 ** (10 - k), 10**10)
                               for k in range(11)},
    ("10d10cs>=8df1", "avrae"): _convolve([{1: Fraction(3, 10), -1: Fraction(1, 10),
                                            0: Fraction(6, 10)}] * 10),
    ("4d6k3", "roll20"): _brute([D6] * 4, lambda r: sum(sorted(r)[1:])),
    ("4dF", "avrae"): _brute([DF] * 4, sum),
}


def _exploding_d8(x: int) -> Fraction | None:
    """P(1d8! = x) for x below 40 (an 8 rolls again and adds): None on multiples of 8."""
    return None if x % 8 == 0 else Fraction(1, 8 ** (x // 8 + 1))


def test_every_help_example_means_what_it_says(page: Any, server_url: str) -> None:
    """Each example in the Dice page's help, clicked, shows the distribution its words
    describe (checked against enumeration, not against chancekit), in its dialect."""
    page.goto(server_url)
    wait(page)
    examples = page.locator("#examples button.ex").evaluate_all(
        "bs => bs.map(b => [b.dataset.text, b.dataset.dialect])")
    assert len(examples) >= 9
    for text, dialect in examples:
        page.evaluate("document.body.dataset.state = ''")
        page.click(f'#examples button.ex[data-text="{text}"]')
        wait(page)
        assert page.input_value("#exprs") == text
        assert page.input_value("#dialect") == dialect
        got = {int(x): Fraction(e) for x, e in chart_points(page)[text]}
        if text == "1d8!":
            assert all(got[x] == _exploding_d8(x) for x in range(1, 40) if x % 8), text
            assert not any(x % 8 == 0 for x in got)
            continue
        assert got == HELP_MEANS[(text, dialect)], (text, dialect)
        # an example that another dialect reads differently says so
        notes = page.locator("#notes .note").all_inner_texts()
        from chancekit.dice.notation import ambiguities

        assert len(notes) == len(ambiguities(text, dialect))
        assert all("--" not in n.replace(" -- ", " ") for n in notes)
    assert {t for t, _ in examples} == {t for t, _ in HELP_MEANS} | {"1d8!"}


def test_dialect_choice_notes_and_share_link(page: Any, browser: Any,
                                             server_url: str) -> None:
    page.goto(server_url)
    wait(page)
    assert page.locator("#dialect option").evaluate_all("os => os.map(o => o.value)") == [
        "avrae", "roll20", "foundry"]
    calculate(page, "4d6k3")
    assert page.inner_text('#summary tr[data-series="4d6k3"] td.mean-exact') == "2"
    note = page.inner_text("#notes .note")
    assert "roll20" in note and "keeps the 3 highest" in note and "Dialect" in note
    page.evaluate("document.body.dataset.state = ''")
    page.select_option("#dialect", "roll20")
    wait(page)
    assert page.inner_text('#summary tr[data-series="4d6k3"] td.mean-exact') == "15869/1296"
    with shared_link(page, browser) as other:
        wait(other)
        assert other.input_value("#dialect") == "roll20"
        assert other.inner_text('#summary tr[data-series="4d6k3"] td.mean-exact') == \
            "15869/1296"
    # the Roll and Tables pages read the same dialects
    for path in ("roll", "tables"):
        page.goto(server_url + path)
        wait(page)
        assert page.locator("#dialect option").count() == 3


def test_stale_results_are_marked(page: Any, app_url: str) -> None:
    """After a failed request the previous chart and tables are dimmed under a note and
    the exports are off; the next good answer clears the mark."""
    page.goto(app_url)
    wait(page)
    assert page.evaluate("document.body.dataset.stale || ''") == ""
    calculate(page, "4d6kq3", value="error")
    assert page.evaluate("document.body.dataset.stale") == "1"
    assert page.locator(".results > .stale-note").count() == 2
    assert "previous request" in page.inner_text(".results > .stale-note >> nth=0")
    for button in ("#csv", "#json", "#png", "#svg"):
        assert page.is_disabled(button)
    calculate(page, "3d6")
    assert page.evaluate("document.body.dataset.stale") == ""
    assert page.locator(".stale-note").count() == 0 and page.is_enabled("#csv")
    # the other pages do the same
    page.goto(app_url + "tables")
    wait(page)
    page.fill("#notation", "2d20")              # 39 outcomes do not fit a d20 row die
    rerun(page, "#build", value="error")
    assert page.evaluate("document.body.dataset.stale") == "1"
    assert page.is_disabled("#dl-csv")
    page.goto(app_url + "roll")
    wait(page)
    page.fill("#text", "1d")
    rerun(page, "#roll", value="error")
    assert page.locator(".results > .stale-note").count() == 2


def bar_points(page: Any) -> dict[str, list[tuple[str, str]]]:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#chart svg g.series')].map(g => [g.dataset.series, [...g.querySelectorAll('rect.bar')]
        .map(c => [c.dataset.x, c.dataset.exact])]))""")


def test_bars_lines_export_and_colours(page: Any, server_url: str, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    page.goto(server_url)
    wait(page)
    calculate(page, "4d6k3\n4d6kh3")   # avrae: 4d6k3 is 0, 3, 6, 9 or 12
    lines = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#chart svg g.series')].map(g => [g.dataset.series,
                                          g.querySelectorAll('polyline').length]))""")
    assert lines == {"4d6k3": 0, "4d6kh3": 1}   # no line across 1, 2, 4, 5, ...
    page.check("#bars")
    page.wait_for_selector('#chart svg[data-kind="bars"]', state="attached")
    bars = bar_points(page)
    assert {int(x): Fraction(e) for x, e in bars["4d6k3"]} == chancekit.dist("4d6k3").pmf()
    assert len(bars["4d6kh3"]) == 16
    # exports: an SVG file with the same data, and a PNG image
    with page.expect_download() as dl:
        page.click("#svg")
    root = ET.parse(dl.value.path()).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    got = {g.get("data-series"): {int(r.get("data-x")): Fraction(r.get("data-exact"))
                                  for r in g.findall("s:rect", ns)}
           for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-series")}
    assert got["4d6k3"] == chancekit.dist("4d6k3").pmf()
    assert "4d6kh3" in ET.tostring(root, encoding="unicode")   # the legend is in the file
    with page.expect_download() as dl:
        page.click("#png")
    png = Path(dl.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width >= 600 and height >= 400
    # Transpose: one series per outcome, every one its own colour
    page.uncheck("#bars")
    calculate(page, "1d20+5\n4d6kh3\n2d6")
    page.check("#transpose")
    page.wait_for_function("document.querySelectorAll('#chart svg g.series').length === 24")
    fills = page.locator("#chart svg g.series").evaluate_all(
        "gs => gs.map(g => g.getAttribute('fill'))")
    assert len(set(fills)) == len(fills) == 24   # outcomes 2 to 25


def test_phone_layout(browser: Any, server_url: str, tmp_path: Path) -> None:
    """At 390 px no page is wider than the screen (Fairness with the tuner's table too)
    and chart labels are drawn at their real size (11 px, not a scaled-down drawing)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        for path in ("", "pools", "markov", "gacha", "tables", "fairness", "roll"):
            pg.goto(server_url + path)
            wait(pg)
            if path == "fairness":
                pg.click("#tune")
                wait(pg, "tune", "done")
            assert pg.evaluate("document.documentElement.scrollWidth") <= 390, path
            scale = pg.evaluate("""() => [...document.querySelectorAll('.chart svg')].map(s =>
                s.getBoundingClientRect().width / s.viewBox.baseVal.width)""")
            assert all(x >= 0.95 for x in scale), (path, scale)
            if not path:
                shot(pg, "dice-390", tmp_path)
    finally:
        context.close()


def test_share_link_reproduces_the_view(page: Any, browser: Any, app_url: str) -> None:
    page.goto(app_url)
    wait(page)
    calculate(page, "adv: 2d20kh1+5\nstats: 4d6kh3")
    page.check("input[name=mode][value=atleast]")
    page.check("#log")
    page.click("#share")
    page.wait_for_function("document.querySelector('#share-url').value.includes('#ck=')")
    link = page.input_value("#share-url")
    assert link.startswith(app_url) and f"ck={chancekit.__version__}" in link and "z=" in link
    before = chart_points(page)
    other = browser.new_context(bypass_csp=True).new_page()
    try:
        other.goto(link)
        wait(other)
        assert other.input_value("#exprs") == "adv: 2d20kh1+5\nstats: 4d6kh3"
        assert other.is_checked("input[name=mode][value=atleast]") and other.is_checked("#log")
        assert chart_points(other) == before
    finally:
        other.context.close()


def test_notation_error_inline_with_caret(page: Any, app_url: str) -> None:
    page.goto(app_url)
    wait(page)
    calculate(page, "ok: 1d6\n\nbad: 4d6kq3", value="error")
    box = page.locator("#error .error")
    assert "line 3" in box.inner_text()
    assert page.inner_text("#error pre .src") == "4d6kq3"
    assert page.inner_text("#error pre .caret") == "    ^"   # under the 'q' (column 5)
    calculate(page, "2000d6kh1000", value="error")
    with pytest.raises(chancekit.LimitError) as refused:
        chancekit.dist("2000d6kh1000")
    assert f"limit: {refused.value.limit}" in page.inner_text("#error .error")


def test_estimate_where_exact_work_is_refused(page: Any, server_url: str) -> None:
    """A refused expression offers Estimate: a Monte Carlo estimate with error bars,
    named as one, from a reported seed."""
    page.goto(server_url)
    wait(page)
    calculate(page, "3d6\n100d100kh50", value="error")
    assert set(chart_points(page)) == {"3d6"}     # the line before it is kept
    assert "line 2" in page.inner_text("#error .error")
    message = page.inner_text("#error .error")
    assert "chancekit." not in message and "--" not in message.replace(" -- ", " ")
    page.click("#estimate")
    page.wait_for_function("document.body.dataset.estimate === 'done'")
    assert "not exact" in page.inner_text("#estimate-card h2")
    assert "Monte Carlo" in page.inner_text("#estimate-method")
    bars = page.locator("#est-chart svg rect.bar").count()
    assert bars > 5 and page.locator("#est-chart svg line.err").count() == bars
    samples = page.inner_text('#est-summary tr[data-series="100d100kh50"] td.samples')
    assert int(samples.split()[0]) >= 64
    # the seed shown is the one used (a drawn seed fits a JavaScript number exactly)
    seed = int(page.inner_text('#est-summary td.seed').split()[0])
    assert f"PCG32({seed}, line)" in page.inner_text("#estimate-method")


def test_finished_lines_survive_the_time_limit(browser: Any, strict_server_url: str) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)
    context.set_default_timeout(30_000)
    pg = context.new_page()
    try:
        pg.goto(strict_server_url)
        wait(pg)
        calculate(pg, "3d6\nstats: 4d6kh3\n_sleep_", value="error")
        assert "line 3" in pg.inner_text("#error .error")
        assert "shown below" in pg.inner_text("#error .error")
        assert set(chart_points(pg)) == {"3d6", "stats"}
        assert pg.evaluate("document.body.dataset.stale") == ""
        assert pg.inner_text('#summary tr[data-series="stats"] td.mean-exact') == "15869/1296"
    finally:
        context.close()


@pytest.mark.parametrize("fragment", ["#ck=0.1.0", "#ck=0.1.0&z=AAAA",
                                      "#ck=0.1.0&j=bm90IGpzb24", "#ck=0.1.0&j=e30"])
def test_a_share_link_that_cannot_be_read_says_so(page: Any, server_url: str,
                                                  fragment: str) -> None:
    page.goto(server_url + fragment)
    wait(page)
    box = page.inner_text("#link-error")
    assert "share link could not be read" in box and "not the shared view" in box


def test_pools_page(page: Any, app_url: str, tmp_path: Path) -> None:
    from chancekit.dice import d, largest_set, neon_city_overdrive
    from chancekit.dice.symbols import genesys, project

    page.goto(app_url + "pools")
    wait(page)
    got = {int(x): Fraction(e) for x, e in bar_points(page)["largest set of 5d6"]}
    assert got == largest_set(5 * [d(6)]).pmf()
    page.select_option("#kind", "nco")
    wait(page)
    page.fill("#action", "4")
    page.fill("#danger", "2")
    rerun(page, "#run")
    assert {int(x): Fraction(e) for x, e in bar_points(page)[
        "Neon City Overdrive: 4 action vs 2 danger"]} == neon_city_overdrive(4, 2).pmf()
    page.select_option("#kind", "genesys")
    wait(page)
    g = genesys("2A1P vs 2D")
    assert Fraction(page.get_attribute("#success", "data-exact")) == project(
        g, "success").at_least(1)
    rows = page.locator("#outcomes tbody tr").count()
    assert rows == len(g)
    shot(page, "pools", tmp_path)


def test_pools_page_algebra(page: Any, app_url: str) -> None:
    """The pool algebra's presets and expression form on the Pools page (issue 29), on
    both back ends, against the library."""
    from chancekit.dice import Pool, d
    from chancekit.dice.mechanics import evaluate_text, preset

    page.goto(app_url + "pools")
    wait(page)
    page.select_option("#kind", "cancel")
    wait(page)
    page.fill("#dice", "4d6")
    page.fill("#against", "2d6")
    page.select_option("#match", "beat")
    rerun(page, "#run")
    expect = preset("cancel", [Pool(d(6), 4), Pool(d(6), 2)], match="beat")
    (series,) = bar_points(page).values()
    assert {int(x): Fraction(e) for x, e in series} == expect.pmf()
    page.select_option("#kind", "expr")
    wait(page)
    page.fill("#expression", "(a - b).count(), a.largest_count()")
    page.fill("#pools", "a=3d6 b=2d6")
    rerun(page, "#run")
    got = evaluate_text("(a - b).count(), a.largest_count()",
                        {"a": Pool(d(6), 3), "b": Pool(d(6), 2)})
    assert page.locator("#outcomes tbody tr").count() == len(got)
    cell = page.inner_text("#outcomes tbody tr[data-outcome='(3, 1)'] td.exact-cell")
    assert Fraction(cell) == got.probability((3, 1))
    page.fill("#expression", "a.foo()")
    rerun(page, "#run", value="error")
    assert "not a method of the algebra" in page.inner_text("#error")


def test_two_stage_sheet(page: Any, app_url: str) -> None:
    page.goto(app_url + "tables")
    wait(page)
    page.fill("#notation", "2d20")
    rerun(page, "#build", value="error")
    assert "tick Two-stage" in page.inner_text("#error")
    page.check("#two-stage")
    rerun(page, "#build")
    table = chancekit.TabletopTable.build("2d20", two_stage=True)
    assert page.locator("#sheet table.stage").count() == 1 + len(table.second)
    assert table.report().line() in page.inner_text("#accuracy")
    assert page.evaluate("document.body.dataset.stale") == ""


def test_stop_button(page: Any, app_url: str) -> None:
    page.goto(app_url)
    wait(page)
    page.fill("#exprs", "9000d6")
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    page.click("#stop")
    page.wait_for_function("['stopped', 'done'].includes(document.body.dataset.state)")
    assert page.is_disabled("#stop")


def test_tables_sheet_downloads_and_one_page_pdf(page: Any, server_url: str,
                                                  tmp_path: Path) -> None:
    from pypdf import PdfReader

    page.goto(server_url + "tables")
    wait(page)
    table = chancekit.TabletopTable.build("3d6")
    assert page.locator("#sheet-table tbody tr").count() == 20
    assert table.report().line() in page.inner_text("#accuracy")
    assert page.locator("#chart svg g.series").count() == 2
    shot(page, "tables", tmp_path)
    with page.expect_download() as dl:
        page.click("#dl-csv")
    assert Path(dl.value.path()).read_text() == table.render("csv")
    with page.expect_download() as dl:
        page.click("#dl-md")
    assert Path(dl.value.path()).read_text() == table.render("md")
    # print: only the sheet, on one page
    page.evaluate("document.body.classList.add('printing-sheet')")
    page.emulate_media(media="print")
    pdf = page.pdf(format="A4", print_background=True)
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 1
    page.emulate_media(media="screen")
    # a loot list on a d6
    page.check("input[name=source][value=loot]")
    page.fill("#row-die", "6")
    rerun(page, "#build")
    assert page.locator("#sheet-table tbody tr").count() == 6
    assert "sword" in page.inner_text("#sheet-table")


def test_fairness_charts_and_tune(page: Any, server_url: str, tmp_path: Path) -> None:
    page.goto(server_url + "fairness")
    wait(page)
    for chart in ("#chart-entropy", "#chart-variance"):
        assert page.locator(f"{chart} svg g.series").count() == 4
        assert page.locator(f"{chart} svg g.series circle.pt").count() == 4 * 25
    variance = page.inner_text('#metrics tr[data-spec="dynamic-dice:0.355"] '
                               'td[data-metric="outcome_variance"]')
    assert float(variance) == pytest.approx(0.459, abs=1e-3)
    page.click("#tune")
    wait(page, "tune", "done")
    winners = page.locator(".winner-spec").all_inner_texts()
    assert {w.strip() for w in winners} == {"generalized-deck:1,6", "dynamic-dice:0.355"}
    rerun(page, "#compare")
    assert set(page.locator("#metrics tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.spec)")) == {"generalized-deck:1,6",
                                                      "dynamic-dice:0.355", "dice", "deck"}
    shot(page, "fairness", tmp_path)


def test_roll_and_named_streams(page: Any, app_url: str, tmp_path: Path) -> None:
    page.goto(app_url + "roll")
    wait(page)
    rng = chancekit.PCG32(2026)
    expected = [chancekit.roll("4d6kh3", rng=rng) for _ in range(6)]
    items = page.locator("#rolls li")
    assert items.count() == 6
    assert [int(x) for x in items.evaluate_all("li => li.map(x => x.dataset.total)")] == [
        r.total for r in expected]
    assert items.first.inner_text() == expected[0].to_dict()["text"].replace("~~", "")
    streams = chancekit.Streams(2026)
    loot = streams["loot"]
    row = page.locator('#streams tr[data-stream="loot"] td').all_inner_texts()
    assert [int(v) for v in row[1:]] == [chancekit.roll("4d6kh3", rng=loot).total
                                         for _ in range(6)]
    shot(page, "roll", tmp_path)
    page.fill("#seed", "my campaign")
    page.fill("#stream", "combat")
    rerun(page, "#roll")
    s = chancekit.Streams("my campaign")["combat"]
    assert int(items.first.get_attribute("data-total")) == chancekit.roll("4d6kh3", rng=s).total


def test_a_drawn_seed_repeats_the_rolls(page: Any, server_url: str) -> None:
    """An empty seed is drawn by the server and shown; rolling again with it (the box now
    holds it) gives the same rolls -- the seed survives the trip through JavaScript."""
    page.goto(server_url + "roll")
    wait(page)
    page.fill("#seed", "")
    rerun(page, "#roll")
    seed = page.input_value("#seed")
    first = page.locator("#rolls li").all_inner_texts()
    rerun(page, "#roll")
    assert page.input_value("#seed") == seed
    assert page.locator("#rolls li").all_inner_texts() == first
    rng = chancekit.PCG32(int(seed))
    assert [int(x) for x in page.locator("#rolls li").evaluate_all(
        "li => li.map(x => x.dataset.total)")] == [chancekit.roll("4d6kh3", rng=rng).total
                                                   for _ in range(len(first))]


def test_roll_marks_are_styles_not_markdown(page: Any, server_url: str) -> None:
    """The breakdown's markdown (~~dropped~~, **crit**, _fumble_) shows as elements."""
    page.goto(server_url + "roll")
    wait(page)
    page.select_option("#dialect", "roll20")
    page.fill("#text", "6d20cs>=2cf<=1")
    page.fill("#seed", "3")
    page.fill("#n", "1")
    rerun(page, "#roll")
    first = page.locator("#rolls li").first
    assert first.inner_text() == "6d20cs>=2cf<=1 (10, 1, 5, 19, 4, 14) = 53"
    assert first.locator("b").all_inner_texts() == ["10", "5", "19", "4", "14"]
    assert first.locator("u").all_inner_texts() == ["1"]


def test_api_page_without_cdn(page: Any, server_url: str) -> None:
    page.goto(server_url + "docs")
    page.wait_for_selector('.endpoint[data-path="/api/dist"]')
    assert call(server_url, "/api/version")[1]["version"] == chancekit.__version__


def test_dice_csv_never_hands_a_spreadsheet_a_formula(page: Any, server_url: str) -> None:
    """A series label or expression that a spreadsheet would run as a formula is written
    with a leading apostrophe; numbers (outcomes, a label '-5') stay as they are."""
    page.goto(server_url)
    wait(page)
    calculate(page, "=HYPERLINK(1): 1d2\n-5: 1d2\n-1d2")
    with page.expect_download() as got:
        page.click("#csv")
    rows = [r.split(",") for r in Path(got.value.path()).read_text().splitlines()[1:]]
    assert {(r[0], r[1]) for r in rows} == {("'=HYPERLINK(1)", "1d2"), ("-5", "1d2"),
                                           ("'-1d2", "'-1d2")}


# -- the review of issue #28 on the Dice page ------------------------------------------------
@pytest.mark.parametrize("width", [1200, 390])
def test_dice_editor_keyboard_highlighting_and_exports_row(browser: Any, server_url: str,
                                                           width: int) -> None:
    """The Dice input is highlighted (its text unchanged) with the bracket by the caret
    matched; Tab leaves it (no trap) and reaches the exports by keyboard; the five export
    buttons take one row, on a phone too."""
    context = browser.new_context(viewport={"width": width, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        pg.goto(server_url)
        wait(pg)
        text = "# a comment\nattack: 1d20+5 >= 15\n(2d6+3)*2"
        calculate(pg, text)
        overlay = pg.evaluate("""() => [...document.querySelectorAll('.ck-hl .ck-line')]
            .map(l => l.textContent).join('\\n') || document.querySelector('.ck-hl').textContent""")
        overlay = overlay.replace("\u200b", "")
        assert overlay == text and pg.input_value("#exprs") == text
        kinds = pg.evaluate("""() => ['com', 'label', 'dice', 'num'].map(k =>
            [...document.querySelectorAll('.ck-hl .tok-' + k)].map(s => s.textContent))""")
        assert kinds[0] == ["# a comment"] and kinds[1] == ["attack:"]
        assert kinds[2] == ["d", "d"] and "20" in kinds[3]
        at = text.index("(") + 1
        pg.evaluate(f"""(() => {{ const t = document.querySelector('#exprs'); t.focus();
                                 t.setSelectionRange({at}, {at}); }})()""")
        pg.wait_for_function("document.querySelectorAll('.ck-hl .bm').length === 2")
        pg.keyboard.press("Tab")                  # Tab is not taken by the editor here
        assert pg.evaluate("document.activeElement.id") == "dialect"
        seen = []
        for _ in range(30):
            pg.keyboard.press("Tab")
            seen.append(pg.evaluate("document.activeElement.id"))
            if seen[-1] == "share":
                break
        assert {"run", "csv", "json", "png", "svg", "share"} <= set(seen), seen
        tops = pg.evaluate("""() => ['csv', 'json', 'png', 'svg', 'share'].map(id =>
            Math.round(document.getElementById(id).getBoundingClientRect().top))""")
        assert len(set(tops)) == 1, tops
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


def test_dice_cumulative_cells_tiny_chances_and_chart_title(page: Any, server_url: str) -> None:
    """At most past a series' top is 100% and at least below its bottom 100% (not "–");
    a possible chance that rounds to 0 reads "< 0.0001%"; the exported chart's title
    names the expressions."""
    import xml.etree.ElementTree as ET

    page.goto(server_url)
    wait(page)
    calculate(page, "small: 1d4\n1d6+2")
    page.check("input[name=mode][value=atmost]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(at most)'")
    cell = page.locator('#outcomes tr[data-outcome="8"] td[data-series="small"]')
    assert cell.inner_text() == "100.0000%" and cell.get_attribute("data-exact") == "1"
    cell = page.locator('#outcomes tr[data-outcome="1"] td[data-series="1d6+2"]')
    assert cell.inner_text() == "0.0000%" and cell.get_attribute("data-exact") == "0"
    page.check("input[name=mode][value=atleast]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(at least)'")
    cell = page.locator('#outcomes tr[data-outcome="2"] td[data-series="1d6+2"]')
    assert cell.inner_text() == "100.0000%" and cell.get_attribute("data-exact") == "1"
    with page.expect_download() as dl:
        page.click("#svg")
    root = ET.parse(dl.value.path()).getroot()
    title = " ".join(t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
                     if t.get("class") == "chart-title")
    assert "small: 1d4, 1d6+2" in title and "at least" in title
    # 10d10: a total of 10 has probability 1e-10
    page.check("input[name=mode][value=normal]")
    calculate(page, "10d10")
    assert chancekit.dist("10d10").pmf()[10] == Fraction(1, 10**10)
    cell = page.locator('#outcomes tr[data-outcome="10"] td[data-series="10d10"]')
    assert cell.inner_text().startswith("< 0.0001%")
    texts = page.evaluate("[...document.querySelectorAll('#outcomes td')].map(t => t.textContent)")
    assert not any(t.startswith("0.0000%") for t in texts)


def test_a_work_refusal_offers_more_work(page: Any, app_url: str) -> None:
    """Work past the limit is refused up front; "Allow more work" runs it again with ten
    times the limit (the request's max_work), on both back ends."""
    page.goto(app_url)
    wait(page)
    calculate(page, "30d{1,5,1000000000}kh15", value="error")   # priced past the limit,
    assert "limit: MAX_WORK" in page.inner_text("#error .error")   # quick to compute
    page.click("#more-work")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert page.locator("#summary tbody tr").count() == 1
