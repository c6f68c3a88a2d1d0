"""The AnyDice page and ``POST /api/anydice``: every output is a series (exact, checked
against brute-force enumeration), errors carry their line and column and are placed at
the line on the page, bad requests are clean 4xx JSON, runaway programs are refused
(LimitError), and the share link holds the program."""

from __future__ import annotations

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
    """At 390 px the page is no wider than the screen (the editor scrolls inside its box)
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
