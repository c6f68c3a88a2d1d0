"""The AnyDice page and ``POST /api/anydice``: every output is a series (exact, checked
against brute-force enumeration), errors carry their line and column and are placed at
the line on the page, bad requests are clean 4xx JSON, runaway programs are refused
(LimitError), and the share link holds the program."""

from __future__ import annotations

import contextlib
import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from conftest import IMAGES, call, shared_link

pytest.importorskip("chancekit.anydice")

PROGRAM = """function: attack ROLL:n vs AC:n {
  if ROLL = 20 { result: 2 }
  if ROLL + 5 >= AC { result: 1 }
  result: 0
}
output [attack d20 vs 15] named "hits vs AC 15"
output [highest 1 of 2d6] named "best of two"
output d{} named "nothing"
"""


def brute(dice: list[list[int]], f: Any) -> dict[int, Fraction]:
    """P(f(roll)) over every roll of ``dice``: the test's own reference."""
    c = Counter(f(r) for r in itertools.product(*dice))
    n = sum(c.values())
    return {k: Fraction(v, n) for k, v in c.items()}


D20, D6 = list(range(1, 21)), list(range(1, 7))
WANT = {"hits vs AC 15": brute([D20], lambda r: 2 if r[0] == 20 else int(r[0] + 5 >= 15)),
        "best of two": brute([D6, D6], max)}


# -- the API --------------------------------------------------------------------------------
def test_every_output_is_an_exact_series(server_url: str) -> None:
    status, doc = call(server_url, "/api/anydice", {"program": PROGRAM})
    assert status == 200, doc
    assert [s["label"] for s in doc["series"]] == ["hits vs AC 15", "best of two", "nothing"]
    assert doc["warnings"] == [] and doc["outputs"] == 3
    for s in doc["series"][:2]:
        want = WANT[s["label"]]
        assert {r["outcome"]: Fraction(r["p_exact"]) for r in s["rows"]} == want
        for r in s["rows"]:
            assert Fraction(r["ge_exact"]) == sum(p for k, p in want.items()
                                                  if k >= r["outcome"])
        assert Fraction(s["mean"]) == sum(k * p for k, p in want.items())
    empty = doc["series"][2]   # d{}: no outcomes, no figures
    assert empty["rows"] == [] and empty["outcomes"] == 0 and empty["mean"] is None


def test_a_program_error_names_its_line_column_and_token(server_url: str) -> None:
    status, doc = call(server_url, "/api/anydice",
                       {"program": "X: 3\noutput X\noutput 2 + }\n"})
    assert status == 422
    err = doc["error"]
    assert err["type"] == "AnyDiceError"
    assert err["line"] == 3 and err["source"] == "output 2 + }"
    assert err["source"][err["column"] - 1] == "}" and err["token"] == "}"


@pytest.mark.parametrize("program", [
    "output 1000d1000000",
    "loop I over {1..100000000} { output I }",
    "output [highest 50 of 10000d1000]",
])
def test_runaway_programs_are_refused(server_url: str, program: str) -> None:
    """Refused by the language's limits (which one is the language's business: the
    message names it), not by the server's time limit."""
    status, doc = call(server_url, "/api/anydice", {"program": program})
    assert status == 422 and doc["error"]["type"] == "LimitError"
    assert "MAX_" in doc["error"]["detail"] and doc["error"]["limit"] != "time_limit"


@pytest.mark.parametrize("body,status,words", [
    ({}, 400, "'program' is required"),
    ({"program": ""}, 400, "empty"),
    ({"program": "   \n"}, 400, "empty"),
    ({"program": 3}, 400, "must be a string"),
    ({"program": ["output 1"]}, 400, "must be a string"),
    ({"program": "output 1d6\u0000"}, 400, "NUL"),
    ({"program": "output 1d6" + " " * 61_000}, 400, "too long"),
    ({"program": "x" * 70_000}, 413, "larger than"),
])
def test_bad_requests_are_clean_json_errors(server_url: str, body: dict[str, Any],
                                            status: int, words: str) -> None:
    got, doc = call(server_url, "/api/anydice", body)
    assert got == status and words in doc["error"]["message"], doc


def test_odd_unicode_survives_the_round_trip(server_url: str) -> None:
    label = "🎲 ünïcødé ‮rtl‬ 骰子 \ud800"[:-1]
    status, doc = call(server_url, "/api/anydice",
                       {"program": f'output 1d2 named "{label}"\r\n'})
    assert status == 200 and doc["series"][0]["label"] == label


def test_openapi_lists_the_endpoint_and_the_page_is_served(server_url: str) -> None:
    import urllib.request

    status, doc = call(server_url, "/api/openapi.json")
    assert "/api/anydice" in doc["paths"]
    example = doc["paths"]["/api/anydice"]["post"]["requestBody"]["content"][
        "application/json"]["example"]
    status, answer = call(server_url, "/api/anydice", example)   # the example works
    assert status == 200 and answer["series"]
    with urllib.request.urlopen(server_url.rstrip("/") + "/anydice") as resp:
        html = resp.read().decode()
        assert resp.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert 'src="/static/anydice.js"' in html and 'src="/static/chart.js"' in html


# -- the page ---------------------------------------------------------------------------------
def _shot(page: Any, name: str, tmp_path: Path) -> None:
    """docs/images/web-NAME.png when CHANCEKIT_SCREENSHOTS=1, else a temporary file."""
    import os

    where = IMAGES if os.environ.get("CHANCEKIT_SCREENSHOTS") == "1" else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(where / f"web-{name}.png"), full_page=False)


def _wait(page: Any, value: str = "done") -> None:
    page.wait_for_function(f"document.body.dataset.state === {value!r}")


def _calculate(page: Any, program: str, value: str = "done") -> None:
    page.fill("#program", program)
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    _wait(page, value)


def _points(page: Any) -> dict[str, dict[int, Fraction]]:
    raw = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#chart svg g.series')].map(g => [g.dataset.series, [...g.querySelectorAll(
        'circle.pt, rect.bar')].map(c => [c.dataset.x, c.dataset.exact])]))""")
    return {k: {int(x): Fraction(e) for x, e in v} for k, v in raw.items()}


@pytest.mark.browser
def test_page_outputs_on_one_chart_modes_and_exports(page: Any, server_url: str,
                                                     tmp_path: Path) -> None:
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)                        # the example program runs on load
    _calculate(page, PROGRAM)
    points = _points(page)
    assert set(points) == {"hits vs AC 15", "best of two"}   # d{} draws nothing
    for name, want in WANT.items():
        assert points[name] == want
    cell = page.locator('#outcomes tr[data-outcome="6"] td[data-series="best of two"]')
    assert Fraction(cell.get_attribute("data-exact")) == WANT["best of two"][6]
    assert page.inner_text('#summary tr[data-series="best of two"] td.mean-exact') == "161/36"
    _shot(page, "anydice", tmp_path)
    page.check("input[name=mode][value=atleast]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(at least)'")
    assert _points(page)["best of two"] == {
        x: sum(p for k, p in WANT["best of two"].items() if k >= x) for x in range(1, 7)}
    # CSV: one row per output and outcome, exact fractions
    with page.expect_download() as got:
        page.click("#csv")
    rows = Path(got.value.path()).read_text().splitlines()
    assert rows[0].startswith("output,outcome,probability,probability_exact")
    assert "best of two,6,0.3055555555555556,11/36" in rows[1:][-1] or any(
        r.startswith("best of two,6,") and ",11/36," in r for r in rows)
    with page.expect_download() as got:
        page.click("#json")
    doc = json.loads(Path(got.value.path()).read_text())
    assert doc["program"] == PROGRAM and len(doc["series"]) == 3


@pytest.mark.browser
def test_page_places_an_error_at_its_line(page: Any, app_url: str, tmp_path: Path) -> None:
    page.goto(app_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, "X: 3\noutput X\noutput 2 + }\noutput 1d4\n", value="error")
    box = page.locator("#error .error")
    assert box.get_attribute("data-line") == "3"
    assert page.inner_text("#error .msg").startswith("line 3: ")
    src, caret = page.inner_text("#error .src"), page.inner_text("#error .caret")
    assert src == "output 2 + }" and src[len(caret) - 1] == "}"
    assert page.inner_text("#gutter .bad") == "3"          # the line is marked
    _shot(page, "anydice-error", tmp_path)
    box.click()                                           # and the cursor goes there
    at = page.evaluate("document.querySelector('#program').selectionStart")
    assert page.input_value("#program")[at] == "}"
    _calculate(page, "output 1d4\n")                      # a good run clears the mark
    assert page.locator("#gutter .bad").count() == 0 and page.inner_text("#error") == ""


@pytest.mark.browser
def test_share_link_holds_the_program(page: Any, browser: Any, server_url: str) -> None:
    program = 'function: f X:n { result: X * 2 }\noutput [f d6] named "doubled 🎲"\n'
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, program)
    page.check("input[name=mode][value=atmost]")
    with shared_link(page, browser) as other:
        _wait(other)
        assert other.input_value("#program") == program
        assert other.is_checked("input[name=mode][value=atmost]")
        got = _points(other)["doubled 🎲"]
        assert got == {2 * k: Fraction(k, 6) for k in range(1, 7)}   # at most


def test_eight_clients_at_once(server_url: str) -> None:
    """Eight different programs at the same time (two workers): each gets its own exact
    answer."""
    from concurrent.futures import ThreadPoolExecutor

    def ask(n: int) -> tuple[int, dict[str, Any]]:
        return call(server_url, "/api/anydice",
                    {"program": f'output [highest 1 of {n}d6] named "best of {n}"'})

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, range(1, 9)))
    for n, (status, doc) in enumerate(answers, 1):
        assert status == 200 and doc["series"][0]["label"] == f"best of {n}"
        got = {r["outcome"]: Fraction(r["p_exact"]) for r in doc["series"][0]["rows"]}
        assert got == {k: Fraction(k**n - (k - 1) ** n, 6**n) for k in range(1, 7)}


@pytest.mark.browser
def test_phone_layout(browser: Any, server_url: str) -> None:
    """At 390 px the page is no wider than the screen (long lines wrap in the editor)
    and the chart is drawn at its real size."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        pg.goto(server_url.rstrip("/") + "/anydice")
        _wait(pg)
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        scale = pg.evaluate("""() => [...document.querySelectorAll('.chart svg')].map(s =>
            s.getBoundingClientRect().width / s.viewBox.baseVal.width)""")
        assert scale and all(x >= 0.95 for x in scale)
    finally:
        context.close()


def test_a_known_anydice_defect_comes_with_a_warning(server_url: str) -> None:
    status, doc = call(server_url, "/api/anydice", {"program": "output d8 <= {1,2}"})
    assert status == 200 and len(doc["warnings"]) == 1 and "defect" in doc["warnings"][0]
    rows = doc["series"][0]["rows"]
    assert {r["outcome"]: Fraction(r["p_exact"]) for r in rows} == {0: Fraction(5, 8),
                                                                   1: Fraction(3, 8)}


@pytest.mark.browser
def test_page_shows_the_warning_of_a_known_defect(page: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, "output d8 <= {1,2}\n")
    assert page.locator("#warnings .note").count() == 1
    assert "defect" in page.inner_text("#warnings .note")
    _calculate(page, "output d8\n")       # the next answer has none
    assert page.locator("#warnings .note").count() == 0


def _explode_d6(depth: int) -> dict[int, Fraction]:
    """A d6 that rolls again on a 6, at most ``depth`` more times (AnyDice's explode)."""
    out: dict[int, Fraction] = {}

    def go(total: int, p: Fraction, left: int) -> None:
        for face in range(1, 7):
            if face == 6 and left:
                go(total + 6, p / 6, left - 1)
            else:
                out[total + face] = out.get(total + face, Fraction(0)) + p / 6
    go(0, Fraction(1), depth)
    return out


def _hit(ac: int) -> Any:
    return lambda r: 2 if r[0] == 20 else int(r[0] + 5 >= ac)


#: what each help example says it computes, without chancekit (labels as the program names)
EXAMPLES: dict[str, dict[str, dict[int, Fraction]]] = {
    "ability": {"4d6, drop the lowest": brute([D6] * 4, lambda r: sum(sorted(r)[1:]))},
    "advantage": {"advantage": brute([D20] * 2, max), "one d20": brute([D20], sum),
                  "disadvantage": brute([D20] * 2, min)},
    "attack": {f"hits vs AC {ac}": brute([D20], _hit(ac)) for ac in (12, 15, 18)},
    "explode": {"exploding d6": _explode_d6(3)},
    "count": {"successes on 6d6 (5+)": brute([D6] * 6, lambda r: sum(x >= 5 for x in r))},
    "positions": {"the two highest of 3d6": brute([D6] * 3, lambda r: sum(sorted(r)[1:]))},
    "loop": {f"best of {n}d6": brute([D6] * n, max) for n in range(1, 6)},
}


@pytest.mark.browser
def test_every_help_example_means_what_it_says(page: Any, app_url: str) -> None:
    page.goto(app_url.rstrip("/") + "/anydice")
    _wait(page)
    buttons = page.locator("#examples button.ex")
    assert buttons.count() == len(EXAMPLES)
    for i in range(buttons.count()):
        name = buttons.nth(i).get_attribute("data-example")
        page.evaluate("document.body.dataset.state = ''")
        buttons.nth(i).click()
        _wait(page)
        assert _points(page) == EXAMPLES[name], name
    # several outputs: each later one's distance from the first, exact
    assert page.locator("#compare tbody tr").count() == 4     # the loop: 5 outputs
    first, third = EXAMPLES["loop"]["best of 1d6"], EXAMPLES["loop"]["best of 3d6"]
    tv = sum(abs(first.get(x, 0) - third.get(x, 0)) for x in range(1, 7)) / 2
    assert Fraction(page.inner_text('#compare tr[data-series="best of 3d6"] td.tv-exact')) == tv


@pytest.mark.browser
def test_csv_never_hands_a_spreadsheet_a_formula(page: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, 'output 1d2 named "=HYPERLINK(1)"\noutput 1d2 named "-5"\n')
    with page.expect_download() as got:
        page.click("#csv")
    rows = Path(got.value.path()).read_text().splitlines()[1:]
    assert {r.split(",")[0] for r in rows} == {"'=HYPERLINK(1)", "-5"}


# -- the review of issue #28: editor, keyboard, cumulative cells, errors, exports, phone -----
@contextlib.contextmanager
def _page_at(browser: Any, server_url: str, width: int) -> Any:
    """The AnyDice page in a fresh context ``width`` px wide (390: a phone), after its
    example ran; fails on an error in the page."""
    context = browser.new_context(viewport={"width": width, "height": 844}, bypass_csp=True,
                                  accept_downloads=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(server_url.rstrip("/") + "/anydice")
        _wait(pg)
        yield pg
        assert not errors, errors
    finally:
        context.close()


def _focused(page: Any) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


@pytest.mark.browser
@pytest.mark.parametrize("width", [1200, 390])
def test_keyboard_alone_reaches_everything_past_the_editor(browser: Any, server_url: str,
                                                          width: int) -> None:
    """Tab indents in the editor; Escape then Tab leaves it (Shift+Tab too), and the
    keyboard alone reaches Calculate, the views, the exports and Copy share link."""
    with _page_at(browser, server_url, width) as page:
        assert "Esc" in page.inner_text("#editor-keys") and "Tab" in page.inner_text("#editor-keys")
        page.fill("#program", "output d6")
        page.focus("#program")
        page.keyboard.press("End")
        page.keyboard.press("Tab")                       # indents, stays
        assert page.input_value("#program") == "output d6  " and _focused(page) == "program"
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")                       # leaves
        assert _focused(page) == "run"
        assert page.input_value("#program") == "output d6  "
        page.evaluate("document.body.dataset.state = ''")
        page.keyboard.press("Enter")                     # Calculate, from the keyboard
        _wait(page)
        assert set(_points(page)) == {"output d6"} or len(_points(page)) == 1
        page.focus("#program")
        page.keyboard.press("Shift+Tab")                 # backwards leaves at once
        assert _focused(page) != "program"
        # forwards from the editor: every control after it, in order, by Tab alone
        page.focus("#program")
        page.keyboard.press("Escape")
        seen = []
        for _ in range(40):
            page.keyboard.press("Tab")
            seen.append(_focused(page) or page.evaluate(
                "document.activeElement.name || document.activeElement.tagName"))
            if seen[-1] == "share":
                break
        for want in ("run", "mode", "transpose", "log", "bars", "csv", "json", "png", "svg",
                     "share"):
            assert want in seen, (want, seen)
        page.keyboard.press("Enter")                     # Copy share link, by keyboard
        page.wait_for_function("document.querySelector('#share-url').value.includes('#ck=')")
        # a key other than Tab after Escape: the next Tab indents again
        page.focus("#program")
        page.keyboard.press("Escape")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Tab")
        assert _focused(page) == "program" and page.input_value("#program").count("  ") == 2
        # Tab on a selection of several lines indents each of them (the text is kept)
        page.fill("#program", "output d6\noutput d8\noutput d10")
        page.evaluate("document.querySelector('#program').setSelectionRange(3, 13)")
        page.keyboard.press("Tab")
        assert page.input_value("#program") == "  output d6\n  output d8\noutput d10"
        assert _focused(page) == "program"


def _overlay_text(page: Any) -> str:
    return page.evaluate("""() => [...document.querySelectorAll('.ck-hl .ck-line')]
        .map(l => l.textContent.replace(/\\u200b/g, '')).join('\\n')""")


@pytest.mark.browser
def test_highlighting_and_bracket_matching(page: Any, server_url: str) -> None:
    """The highlighted copy holds exactly the textarea's text; keywords, variables,
    numbers, strings and comments get their classes; the bracket by the caret and its
    partner are marked, an unclosed one in red; the textarea keeps the value."""
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    program = 'X: 3 \\ note \\\noutput [highest 2 of Xd6] named "a"\noutput {1,2,3\n'
    page.fill("#program", program)
    assert _overlay_text(page) == program
    kinds = page.evaluate("""() => Object.fromEntries(['kw', 'var', 'num', 'str', 'com', 'dice']
        .map(k => [k, [...document.querySelectorAll('.ck-hl .tok-' + k)]
                   .map(s => s.textContent)]))""")
    assert kinds["kw"] == ["output", "named", "output"] and kinds["var"] == ["X", "X"]
    assert kinds["str"] == ['"a"'] and kinds["com"] == ["\\ note \\"] and kinds["dice"] == ["d"]
    assert "3" in kinds["num"] and "6" in kinds["num"]
    # the caret just after '[': it and its ']' are marked
    at = program.index("[") + 1
    page.evaluate(f"""(() => {{ const t = document.querySelector('#program'); t.focus();
                                t.setSelectionRange({at}, {at}); }})()""")
    page.wait_for_function("document.querySelectorAll('.ck-hl .bm').length === 2")
    assert page.evaluate(
        "[...document.querySelectorAll('.ck-hl .bm')].map(s => s.textContent)") == ["[", "]"]
    marked = page.evaluate("[...document.querySelectorAll('.ck-hl .bm')].map(s => +s.dataset.at)")
    assert marked == [program.index("["), program.index("]")]
    # the caret after the '{' that is never closed: red
    at = program.index("{") + 1
    page.evaluate(f"document.querySelector('#program').setSelectionRange({at}, {at})")
    page.wait_for_function("document.querySelectorAll('.ck-hl .bm-bad').length === 1")
    assert page.locator(".ck-hl .bm").count() == 0
    assert page.input_value("#program") == program
    # an example loaded by the page's code is drawn too
    page.evaluate("document.body.dataset.state = ''")
    page.click('#examples button.ex[data-example="ability"]')
    _wait(page)
    assert _overlay_text(page).startswith("output [highest 3 of 4d6]")


@pytest.mark.browser
def test_cumulative_views_fill_outcomes_outside_an_outputs_range(page: Any,
                                                                 server_url: str) -> None:
    """At most past an output's top is 100%, at least below its bottom is 100% (and the
    other sides 0%); an outcome inside its range that it cannot give takes its
    neighbour's value; Normal keeps the dash."""
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, 'output d4 named "d4"\noutput d6 + 2 named "d6+2"\n'
                     'output 2 * d3 named "even"\n')
    d4 = {k: Fraction(1, 4) for k in range(1, 5)}
    d62 = {k + 2: Fraction(1, 6) for k in range(1, 7)}
    even = {2 * k: Fraction(1, 3) for k in range(1, 4)}
    outputs = {"d4": d4, "d6+2": d62, "even": even}

    def cells() -> dict[tuple[int, str], tuple[str, str]]:
        raw = page.evaluate("""() => [...document.querySelectorAll(
            '#outcomes tbody td[data-series]')].map(td => [td.parentNode.dataset.outcome,
                td.dataset.series, td.dataset.exact,
                td.firstChild ? td.firstChild.textContent : ''])""")
        return {(int(o), s): (e, t) for o, s, e, t in raw}

    for mode, cmp in (("atmost", lambda k, x: k <= x), ("atleast", lambda k, x: k >= x)):
        page.check(f"input[name=mode][value={mode}]")
        page.wait_for_function(
            "document.querySelector('#mode-name').textContent !== '(probability)'")
        got = cells()
        for x in range(1, 9):
            for name, pmf in outputs.items():
                want = sum((p for k, p in pmf.items() if cmp(k, x)), Fraction(0))
                exact, text = got[(x, name)]
                assert Fraction(exact) == want, (mode, x, name)
                assert text != "–", (mode, x, name)
                if want in (0, 1):
                    assert text == ("100.0000%" if want else "0.0000%")
    page.check("input[name=mode][value=normal]")
    page.wait_for_function("document.querySelector('#mode-name').textContent === '(probability)'")
    assert cells()[(1, "d6+2")] == ("0", "–")


@pytest.mark.browser
@pytest.mark.parametrize(("program", "line", "says"), [
    ("X: d4\nY: d6\n\noutput X + Y +\noutput Y\n", 4, "unfinished expression"),
    ("output d6\noutput {1,2,3\noutput d4\n", 2, "'{' at line 2, column 8 is never closed"),
    ("output [higest 3 of 4d6]\n", 1, "did you mean [highest N of DICE]?"),
])
def test_an_error_is_placed_where_the_program_goes_wrong(page: Any, server_url: str,
                                                         program: str, line: int,
                                                         says: str) -> None:
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, program, value="error")
    assert page.get_attribute("#error .error", "data-line") == str(line)
    assert page.inner_text("#gutter .bad") == str(line)
    assert says in page.inner_text("#error .msg")
    src = page.inner_text("#error .src")
    assert src == program.splitlines()[line - 1]
    if "unfinished" in says or "never closed" in says:
        # the caret sits just after the line's last token, where the missing part belongs
        assert len(page.inner_text("#error .caret")) == len(src.rstrip()) + 1


@pytest.mark.browser
def test_exported_chart_has_the_outputs_as_its_title(page: Any, server_url: str) -> None:
    import xml.etree.ElementTree as ET

    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    _calculate(page, 'output d6 named "one die"\noutput 2d6 named "two dice"\n')
    with page.expect_download() as dl:
        page.click("#svg")
    root = ET.parse(dl.value.path()).getroot()
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
              if t.get("class") == "chart-title"]
    assert titles and "one die, two dice" in " ".join(titles)
    # the drawing is moved down under the title, not drawn over it
    body = next(g for g in root.iter("{http://www.w3.org/2000/svg}g")
                if g.get("class") == "chart-body")
    assert body.get("transform").startswith("translate(0 ")
    with page.expect_download() as dl:
        page.click("#png")
    png = Path(dl.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.browser
@pytest.mark.parametrize("width", [1200, 390])
def test_editor_and_exports_fit_the_screen(browser: Any, server_url: str, width: int) -> None:
    """On a phone a long line wraps inside the editor (no sideways scrolling, the line
    numbers follow the wrapped lines) and the five export buttons take one row; on a
    desktop long lines scroll inside the editor as before."""
    with _page_at(browser, server_url, width) as page:
        long_line = "output " + " + ".join(["1d6"] * 40)
        page.fill("#program", f"{long_line}\noutput d4\n")
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        sideways = page.evaluate("(() => { const t = document.querySelector('#program');"
                                 " return t.scrollWidth > t.clientWidth + 1; })()")
        tops = page.evaluate("""() => ['csv', 'json', 'png', 'svg', 'share'].map(id =>
            Math.round(document.getElementById(id).getBoundingClientRect().top))""")
        assert len(set(tops)) == 1, tops                   # one row
        if width == 390:
            assert not sideways
            # the gutter's "2" sits beside the second line, after the wrapped first one
            rows = page.evaluate("""() => {
                const top = (sel) => [...document.querySelectorAll(sel)]
                  .map(s => s.getBoundingClientRect().top);
                const g = top('#gutter .ln'), l = top('.ck-hl .ck-line');
                return [g, l]; }""")
            assert all(abs(g - t) < 1.5 for g, t in zip(*rows, strict=True)), rows
            assert rows[1][1] - rows[1][0] > 40              # the first line wrapped
        else:
            assert sideways


def _set_program(page: Any, text: str) -> None:
    """Put a long ``text`` in the editor as a paste does (one input event; Playwright's
    fill types long texts slowly)."""
    page.evaluate("""text => { const t = document.querySelector('#program');
        t.value = text; t.dispatchEvent(new Event('input', { bubbles: true })); }""", text)


@pytest.mark.browser
def test_an_edit_redraws_only_its_line(page: Any, server_url: str) -> None:
    """Typing in a long program draws again only the line typed in (counted: the other
    lines keep their elements), and a text past 50,000 characters is shown plain."""
    page.goto(server_url.rstrip("/") + "/anydice")
    _wait(page)
    program = "".join(f"output d{k} + ({k})\n" for k in range(1, 301))
    _set_program(page, program)
    page.evaluate("document.querySelectorAll('.ck-hl .ck-line').forEach(l => { l._old = 1; })")
    at = program.index("output d150")
    page.evaluate(f"""(() => {{ const t = document.querySelector('#program'); t.focus();
                                t.setSelectionRange({at}, {at}); }})()""")
    page.keyboard.type("X")
    new = page.evaluate("[...document.querySelectorAll('.ck-hl .ck-line')].filter(l => !l._old)"
                        ".map(l => l.textContent)")
    assert new == ["Xoutput d150 + (150)"]
    assert _overlay_text(page) == page.input_value("#program")
    page.keyboard.press("Enter")                            # a new line: two lines drawn
    new = page.evaluate("[...document.querySelectorAll('.ck-hl .ck-line')].filter(l => !l._old)"
                        ".map(l => l.textContent)")
    assert new == ["X", "output d150 + (150)"]
    assert page.inner_text("#gutter").split() == [str(k) for k in range(1, 303)]
    _set_program(page, "output d6\n" * 5001)
    page.wait_for_function("document.querySelector('.ck-code').classList.contains('plain')")
    assert page.evaluate("getComputedStyle(document.querySelector('#program')).color") != \
        "rgba(0, 0, 0, 0)"


def test_programs_open_from_a_file_and_save_to_one(page: Any, app_url: str,
                                                   tmp_path: Any) -> None:
    """Open… reads a .dice file into the editor (and a file dropped on it does too); Save
    downloads the program as program.dice (issue #28, item 8)."""
    page.goto(app_url + "anydice")
    source = tmp_path / "attack.dice"
    source.write_text("output 2d6 named \"two dice\"\r\noutput 1d20\r\n")
    page.set_input_files("#open-file", str(source))
    page.wait_for_function("document.querySelector('#status').textContent.includes('attack.dice')")
    assert page.input_value("#program") == "output 2d6 named \"two dice\"\noutput 1d20\n"
    with page.expect_download() as got:
        page.click("#save")
    assert got.value.suggested_filename == "program.dice"
    saved = Path(got.value.path()).read_text()
    assert saved == "output 2d6 named \"two dice\"\noutput 1d20\n"
    # drag and drop a file onto the editor
    page.evaluate("""() => { const dt = new DataTransfer();
        dt.items.add(new File(['output 3d6\\n'], 'drop.dice', {type: 'text/plain'}));
        document.querySelector('#program').dispatchEvent(new DragEvent('drop',
            {dataTransfer: dt, bubbles: true, cancelable: true})); }""")
    page.wait_for_function("document.querySelector('#program').value === 'output 3d6\\n'")
    # a file too large for a program is refused by name, the editor kept
    big = tmp_path / "big.dice"
    big.write_text("output 1d6\n" * 7000)
    page.set_input_files("#open-file", str(big))
    page.wait_for_function("document.querySelector('#status').textContent.includes('big.dice')")
    assert page.input_value("#program") == "output 3d6\n"
