"""The Markov page and ``POST /api/markov``: usage dice, HP races and a fairness system's
first success, checked against references of the test's own (closed forms, a geometric
law, a brute-force enumeration of small races), never against chancekit.markov itself;
bad input is a clean 4xx in the page's words; the page fills, shows the mean, marks stale
results, keeps its inputs in a share link and fits a phone."""

from __future__ import annotations

import itertools
import re
import urllib.request
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import IMAGES, call, shared_link

#: what a page must never say: a command-line flag, a Python call or keyword argument
CLI_OR_PYTHON = re.compile(r"(?<![\w-])--[a-z]|chancekit\.\w|\w\(\)|\w\(\.\.\.\)|\b[a-z_]+=(?:"
                           r"True|False|\.\.\.|'|\d)")
#: ... nor the library's argument names (a 400 names the request's JSON field, which the
#: page turns into its label)
ARGUMENTS = re.compile(r"\b(?:upto|tail|ladder\[|damage\[|hp\[|first_success|long_run)")


def markov(url: str, body: dict[str, Any]) -> dict[str, Any]:
    status, doc = call(url, "/api/markov", body)
    assert status == 200, doc
    return doc


def rows(doc: dict[str, Any]) -> dict[int, Fraction]:
    """The rows' exact probabilities (every row must have one)."""
    return {r["count"]: Fraction(r["p_exact"]) for r in doc["rows"]}


def agree(doc: dict[str, Any], want: dict[int, Fraction], tail: Fraction) -> None:
    """Each row is ``want`` exactly when the answer has the fraction (it is sent when
    short), else as a float; the same for the tail."""
    assert [r["count"] for r in doc["rows"]] == [t for t, p in sorted(want.items()) if p]
    for r in doc["rows"]:
        if r["p_exact"] is not None:
            assert Fraction(r["p_exact"]) == want[r["count"]]
        assert r["p"] == pytest.approx(float(want[r["count"]]), rel=1e-12)
    if doc["tail"] is not None:
        assert Fraction(doc["tail"]) == tail
    assert doc["tail_float"] == pytest.approx(float(tail), rel=1e-12)


def check_rows_add_up(doc: dict[str, Any]) -> None:
    """The rows and the stated tail sum to 1 exactly; at least / at most agree."""
    got = rows(doc)
    assert sum(got.values()) + Fraction(doc["tail"]) == 1
    for r in doc["rows"]:
        below = sum((p for t, p in got.items() if t < r["count"]), Fraction(0))
        assert Fraction(r["ge_exact"]) == 1 - below
        assert Fraction(r["le_exact"]) == below + Fraction(r["p_exact"])


# -- usage dice: a die of s sides stepping down on k of its faces lasts s/k uses (geometric)
def geometric_sum(ps: list[Fraction], upto: int) -> list[Fraction]:
    """P(G1 + ... + Gm = t), t = 0..upto, Gi geometric on {1, 2, ...} with success pi:
    a convolution written out here (the test's own reference)."""
    dist = [Fraction(1)] + [Fraction(0)] * upto
    for p in ps:
        geo = [Fraction(0)] + [(1 - p) ** (t - 1) * p for t in range(1, upto + 1)]
        dist = [sum((dist[a] * geo[t - a] for a in range(t + 1)), Fraction(0))
                for t in range(upto + 1)]
    return dist


@pytest.mark.parametrize("ladder, down, sides", [
    ("12,10,8,6,4", "1,2", [12, 10, 8, 6, 4]),
    ("d20 d12", "1", [20, 12]),
    ("6, 1d4", "1,2", [6, 4]),
    ("8", "1,2,3,4", [8]),
])
def test_usage_die_closed_form(server_url: str, ladder: str, down: str,
                               sides: list[int]) -> None:
    k = len(down.split(","))
    doc = markov(server_url, {"kind": "usage-die", "ladder": ladder, "down": down})
    ps = [Fraction(k, s) for s in sides]
    assert Fraction(doc["mean"]) == sum(Fraction(s, k) for s in sides)   # sum of s/k
    assert Fraction(doc["variance"]) == sum((1 - p) / p**2 for p in ps)
    assert doc["unit"] == "uses" and not doc["complete"]
    assert doc["tail_float"] <= 1e-6                                  # walked to 1e-6
    want = geometric_sum(ps, doc["shown_upto"])
    agree(doc, dict(enumerate(want)), 1 - sum(want))


def test_usage_die_mean_is_twenty(server_url: str) -> None:
    doc = markov(server_url, {"kind": "usage-die", "ladder": "12,10,8,6,4"})
    assert doc["mean"] == "20" and doc["mean_float"] == 20.0 and doc["variance"] == "70"


def test_a_walk_past_the_limits_lists_fewer_counts(server_url: str) -> None:
    """d100000 stepping down on a 1 lasts 100 000 uses on average; listing counts until
    one in a million is left would take over a million steps: the first 200 are listed,
    the rest stated, and a note says so."""
    doc = markov(server_url, {"kind": "usage-die", "ladder": "100000", "down": "1"})
    assert doc["mean"] == "100000" and doc["shown_upto"] == 200
    p = Fraction(1, 100000)
    want = {t: (1 - p) ** (t - 1) * p for t in range(1, 201)}
    agree(doc, {0: Fraction(0), **want}, (1 - p) ** 200)
    assert len(doc["notes"]) == 1 and "200 uses" in doc["notes"][0]
    assert not CLI_OR_PYTHON.search(doc["notes"][0])


def test_upto_lists_that_many_and_states_the_rest(server_url: str) -> None:
    doc = markov(server_url, {"kind": "usage-die", "ladder": "6,4", "upto": 3})
    assert doc["shown_upto"] == 3
    assert rows(doc) == {2: Fraction(1, 6), 3: Fraction(7, 36)}
    assert Fraction(doc["tail"]) == Fraction(23, 36)


# -- first success: a plain rate is geometric; PRD's chance is min(1, n C) on the n-th try
def test_plain_rate_is_geometric(server_url: str) -> None:
    doc = markov(server_url, {"kind": "first-success", "system": "pity:0.25", "upto": 40})
    p = Fraction(1, 4)
    assert rows(doc) == {t: (1 - p) ** (t - 1) * p for t in range(1, 41)}
    assert Fraction(doc["tail"]) == (1 - p) ** 40
    assert Fraction(doc["mean"]) == 4 and Fraction(doc["variance"]) == 12
    assert doc["unit"] == "pulls" and doc["winner"] is None
    check_rows_add_up(doc)


def test_prd_first_success(server_url: str) -> None:
    from chancekit.fair import PRD

    c = PRD(0.25).C
    doc = markov(server_url, {"kind": "first-success", "system": "prd:0.25"})
    assert doc["complete"] and doc["tail"] == "0"   # certain by try ceil(1/C)
    left, want = 1.0, {}
    for n in itertools.count(1):
        q = min(1.0, n * c)
        want[n] = left * q
        left *= 1 - q
        if q >= 1:
            break
    got = {r["count"]: r["p"] for r in doc["rows"]}
    assert got == pytest.approx(want, abs=1e-9)
    assert doc["mean_float"] == pytest.approx(4.0, abs=1e-6)   # PRD keeps the nominal rate


def test_gacha_waits_for_the_featured_item(server_url: str) -> None:
    doc = markov(server_url, {"kind": "first-success", "system": "gacha:0.006,74,0.06,90"})
    assert doc["complete"] and doc["shown_upto"] == 180   # two hard pities at most
    assert "featured" in doc["title"] and 60 < doc["mean_float"] < 120


# -- rolling until a sequence: a run of k of one face (chance p) takes sum p**-i rolls ----------
@pytest.mark.parametrize("die, sequence, mean", [
    ("1d6", "6", 6), ("1d6", "6,6", 6 + 36), ("1d6", "6,6,6", 6 + 36 + 216),
    ("1d2", "1,2,1", 10),   # HTH: 2 + 8 (Penney's game; the overlap costs 2 tosses)
    ("1d4", "4,4", 4 + 16),
])
def test_roll_until_a_sequence(server_url: str, die: str, sequence: str, mean: int) -> None:
    doc = markov(server_url, {"kind": "until", "die": die, "sequence": sequence})
    assert Fraction(doc["mean"]) == mean and doc["unit"] == "rolls"
    if doc["notes"]:   # walking to 1e-6 was past the work limit: 200 rolls listed instead
        assert doc["shown_upto"] == 200 and "exact" in doc["notes"][0]
        assert not CLI_OR_PYTHON.search(doc["notes"][0])


def test_roll_until_one_face_is_geometric(server_url: str) -> None:
    doc = markov(server_url, {"kind": "until", "die": "1d6", "sequence": "6", "upto": 20})
    p = Fraction(1, 6)
    assert rows(doc) == {t: (1 - p) ** (t - 1) * p for t in range(1, 21)}
    assert Fraction(doc["tail"]) == (1 - p) ** 20 and Fraction(doc["variance"]) == 30


# -- HP races, against a brute-force enumeration of every roll sequence -------------------------
def faces(text: str) -> list[int]:
    m = re.fullmatch(r"1d(\d+)([+-]\d+)?", text)
    assert m
    return [x + int(m.group(2) or 0) for x in range(1, int(m.group(1)) + 1)]


def brute_race(hp1: int, deal1: str, hp2: int | None, deal2: str | None, order: str,
               ) -> tuple[dict[int, Fraction], dict[str, Fraction]]:
    """(P(rounds = t), P(winner)) by recursion over every roll, each equally likely."""
    f1 = faces(deal1)
    f2 = faces(deal2) if deal2 else []

    @cache
    def go(a: int, b: int) -> tuple[tuple[tuple[int, str], Fraction], ...]:
        out: dict[tuple[int, str], Fraction] = {}

        def add(t: int, who: str, p: Fraction) -> None:
            out[(t, who)] = out.get((t, who), Fraction(0)) + p

        if hp2 is None:   # one side: a is its HP, f1 the damage it takes
            for x in f1:
                if a - x <= 0:
                    add(1, "", Fraction(1, len(f1)))
                else:
                    for (t, w), p in go(a - x, 0):
                        add(t + 1, w, p / len(f1))
            return tuple(out.items())
        for x, y in itertools.product(f1, f2):   # x: first deals to second; y: back
            p0 = Fraction(1, len(f1) * len(f2))
            b2 = b - x
            if order == "alternating" and b2 <= 0:
                add(1, "first", p0)
                continue
            a2 = a - y
            if a2 <= 0 or b2 <= 0:
                add(1, "both" if a2 <= 0 and b2 <= 0 else ("first" if b2 <= 0 else "second"),
                    p0)
            else:
                for (t, w), p in go(a2, b2):
                    add(t + 1, w, p * p0)
        return tuple(out.items())

    rounds: dict[int, Fraction] = {}
    winner: dict[str, Fraction] = {}
    for (t, w), p in go(hp1, hp2 or 0):
        rounds[t] = rounds.get(t, Fraction(0)) + p
        winner[w] = winner.get(w, Fraction(0)) + p
    return rounds, winner


@pytest.mark.parametrize("body", [
    {"hp": 7, "damage": "1d4"},
    {"hp": 6, "damage": "1d3", "hp2": 5, "damage2": "1d2+1", "order": "simultaneous"},
    {"hp": 6, "damage": "1d3", "hp2": 5, "damage2": "1d2+1", "order": "alternating"},
    {"hp": 4, "damage": "1d4", "hp2": 4, "damage2": "1d4"},
])
def test_hp_race_against_brute_force(server_url: str, body: dict[str, Any]) -> None:
    doc = markov(server_url, {"kind": "race", **body})
    want_rounds, want_winner = brute_race(body["hp"], body["damage"], body.get("hp2"),
                                          body.get("damage2"),
                                          body.get("order", "simultaneous"))
    assert doc["complete"] and doc["tail"] == "0"
    assert rows(doc) == want_rounds
    assert Fraction(doc["mean"]) == sum(t * p for t, p in want_rounds.items())
    mean = sum(t * p for t, p in want_rounds.items())
    assert Fraction(doc["variance"]) == sum((t - mean) ** 2 * p
                                            for t, p in want_rounds.items())
    if "hp2" in body:
        got = {w["outcome"]: Fraction(w["p_exact"]) for w in doc["winner"]}
        assert {k: v for k, v in got.items() if v} == want_winner
    else:
        assert doc["winner"] is None
    check_rows_add_up(doc)


def test_flat_damage_is_notation_not_a_die(server_url: str) -> None:
    """A bare number is that much damage (as the command line reads it), 10 HP at 3 a
    round: down in round 4 for certain; in a ladder a bare number is a die's sides."""
    doc = markov(server_url, {"kind": "race", "hp": 10, "damage": "3"})
    assert rows(doc) == {4: 1} and doc["mean"] == "4" and doc["variance"] == "0"
    assert markov(server_url, {"kind": "usage-die", "ladder": "3"})["mean"] == "3/2"


def test_a_slow_race_is_stopped_not_left_running(strict_server_url: str) -> None:
    """A joint race with misses (3,600 states of rational solves): refused, up front or
    by the server's time limit, as a 422 LimitError -- never a hang."""
    status, doc = call(strict_server_url, "/api/markov", {
        "kind": "race", "hp": 60, "damage": "1d6-1", "hp2": 60, "damage2": "1d8-2"})
    assert status == 422 and doc["error"]["type"] == "LimitError", doc
    assert doc["error"]["limit"]


def test_a_race_with_misses_walks_and_states_the_tail(server_url: str) -> None:
    doc = markov(server_url, {"kind": "race", "hp": 3, "damage": "1d2-1", "upto": 12})
    # each round a hit (1) with chance 1/2: rounds until 3 hits, a negative binomial
    want = {t: Fraction(math_comb(t - 1, 2), 2**t) for t in range(3, 13)}
    assert rows(doc) == want
    assert Fraction(doc["tail"]) == 1 - sum(want.values())
    assert Fraction(doc["mean"]) == 6


def math_comb(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


# -- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, status, field", [
    ({}, 400, None),
    ({"kind": "monopoly"}, 400, "kind"),
    ({"kind": "usage-die"}, 400, "ladder"),
    ({"kind": "usage-die", "ladder": "12", "upto": -1}, 400, "upto"),
    ({"kind": "usage-die", "ladder": "12", "upto": 10**9}, 400, "upto"),
    ({"kind": "race", "hp": 0, "damage": "2d6"}, 400, "hp"),
    ({"kind": "race", "hp": 10**7, "damage": "2d6"}, 400, "hp"),
    ({"kind": "race", "hp": "30", "damage": "2d6"}, 400, "hp"),
    ({"kind": "race", "hp": 30, "damage": "2d6", "hp2": 20}, 400, "damage2"),
    ({"kind": "race", "hp": 30, "damage": "2d6", "order": "sideways"}, 400, "order"),
    ({"kind": "first-success", "system": ""}, 400, "system"),
    ({"kind": "usage-die", "ladder": "12,x"}, 422, "ladder"),
    ({"kind": "usage-die", "ladder": "12,10", "down": "13"}, 422, "down"),
    ({"kind": "usage-die", "ladder": "12,10", "down": "one"}, 422, "down"),
    ({"kind": "usage-die", "ladder": "12,99999999999"}, 422, "ladder"),
    ({"kind": "race", "hp": 30, "damage": "2d6+"}, 422, "damage"),
    ({"kind": "race", "hp": 1000, "damage": "1d2-1", "hp2": 1000, "damage2": "1d2-1"},
     422, "damage"),
    ({"kind": "race", "hp": 10, "damage": "0"}, 422, "damage"),          # never ends
    ({"kind": "race", "hp": 5, "damage": "0", "hp2": 5, "damage2": "1d2-2"}, 422, "damage"),
    ({"kind": "usage-die", "ladder": "\u00b2,4"}, 422, "ladder"),           # "²".isdigit()
    ({"kind": "usage-die", "ladder": "\uff11\uff12,4"}, 422, "ladder"),     # full-width 12
    ({"kind": "first-success", "system": "deck"}, 422, "system"),
    ({"kind": "first-success", "system": "pity:abc"}, 422, "system"),
    ({"kind": "first-success", "system": "prd:0.25", "value": "maybe"}, 422, "value"),
    ({"kind": "first-success", "system": "tgm1"}, 422, "value"),   # 7 pieces: which one?
    ({"kind": "until", "die": "1d6"}, 400, "sequence"),
    ({"kind": "until", "die": "1d6", "sequence": "7"}, 422, "sequence"),
    ({"kind": "until", "die": "1d6", "sequence": "6,x"}, 422, "sequence"),
    ({"kind": "until", "die": "1d6", "sequence": ",".join(["6"] * 13)}, 422, "sequence"),
    ({"kind": "until", "die": "1d6+", "sequence": "6"}, 422, "die"),
    ({"kind": "first-success", "system": "dynamic-dice:0.355"}, 422, "system"),
])
def test_bad_input_is_a_clean_error_in_page_words(server_url: str, body: dict[str, Any],
                                                  status: int, field: str | None) -> None:
    got, doc = call(server_url, "/api/markov", body)
    assert got == status, doc
    err = doc["error"]
    assert err["message"] and not CLI_OR_PYTHON.search(err["message"]), err["message"]
    if field is not None:
        assert err.get("field") == field
    if status == 422:
        assert not ARGUMENTS.search(err["message"]), err["message"]
        assert err["where"] and not CLI_OR_PYTHON.search(err["where"])


def test_a_refused_ladder_die_says_which(server_url: str) -> None:
    _, doc = call(server_url, "/api/markov", {"kind": "usage-die", "ladder": "12, 1d8+, 6"})
    err = doc["error"]
    assert err["where"] == "die 2 of the ladder (1d8+)"
    assert err["type"] == "NotationError" and err["text"] == "1d8+" and err["column"]


def test_work_past_a_limit_names_the_limit(server_url: str) -> None:
    _, doc = call(server_url, "/api/markov", {"kind": "race", "hp": 1000, "damage": "1d2-1",
                                             "hp2": 1000, "damage2": "1d2-1"})
    assert doc["error"]["type"] == "LimitError" and doc["error"]["limit"]
    # a race too big to solve is not told to list fewer counts (that would not help)
    _, doc = call(server_url, "/api/markov", {"kind": "race", "hp": 60, "damage": "1d6-1",
                                             "hp2": 60, "damage2": "1d8-2"})
    assert doc["error"]["type"] == "LimitError"
    assert "Show up to" not in doc["error"]["message"], doc["error"]["message"]


def test_eight_clients_at_once(server_url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    bodies = [{"kind": "usage-die", "ladder": f"{s},4", "upto": 5} for s in (6, 8, 10, 12)] + [
        {"kind": "race", "hp": 9, "damage": "1d4"}, {"kind": "race", "hp": 9, "damage": "2d6+"},
        {"kind": "first-success", "system": "pity:0.5", "upto": 3}, {"kind": "nope"}]
    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(lambda b: call(server_url, "/api/markov", b), bodies))
    assert [s for s, _ in got] == [200] * 5 + [422, 200, 400]
    for s, (_, doc) in zip((6, 8, 10, 12), got, strict=False):   # each its own answer
        assert Fraction(doc["mean"]) == Fraction(s, 2) + 2
    assert rows(got[6][1]) == {1: Fraction(1, 2), 2: Fraction(1, 4), 3: Fraction(1, 8)}


def test_openapi_lists_the_endpoint_and_every_page_links_the_page(server_url: str) -> None:
    _, doc = call(server_url, "/api/openapi.json")
    example = doc["paths"]["/api/markov"]["post"]["requestBody"]["content"][
        "application/json"]["example"]
    assert markov(server_url, example)["winner"]   # the example works
    for path in ("", "anydice", "pools", "markov", "tables", "fairness", "roll", "docs"):
        with urllib.request.urlopen(server_url.rstrip("/") + "/" + path) as resp:
            html = resp.read().decode()
        nav = re.search(r"<nav>(.*?)</nav>", html).group(1)
        assert '<a href="/markov">Markov</a>' in nav or (
            path == "markov" and '<a class="here" href="/markov">Markov</a>' in nav), path


# -- the page ------------------------------------------------------------------------------------
def _wait(page: Any, value: str = "done") -> None:
    page.wait_for_function(f"document.body.dataset.state === {value!r}")


def _run(page: Any, value: str = "done") -> None:
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    _wait(page, value)


def _then_wait(page: Any, act: Any) -> None:
    """Do ``act()`` (a change that runs the page) and wait for its answer."""
    page.evaluate("document.body.dataset.state = ''")
    act()
    _wait(page)


def _shot(page: Any, name: str, tmp_path: Path) -> None:
    import os

    where = IMAGES if os.environ.get("CHANCEKIT_SCREENSHOTS") == "1" else tmp_path
    where.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(where / f"web-{name}.png"), full_page=False)


@pytest.mark.browser
def test_page_fills_the_form_and_shows_the_exact_mean(page: Any, server_url: str,
                                                      tmp_path: Path) -> None:
    page.goto(server_url.rstrip("/") + "/markov")
    _wait(page)
    # the default: d12 -> d10 -> d8 -> d6 -> d4, mean exactly 20 uses
    assert page.get_attribute("#mean", "data-exact") == "20"
    assert "20 uses" in page.inner_text("#figures")
    tail = float(page.get_attribute("#tail", "data-p"))   # its exact text is long: not sent
    assert 0 < tail <= 1e-6 and "Not shown" in page.inner_text("#tail-note")
    _shot(page, "markov", tmp_path)
    # a two-sided race, alternating: the mean and the winner against the brute force
    _then_wait(page, lambda: page.select_option("#kind", "race"))
    _then_wait(page, lambda: page.check("input[name=sides][value='2']"))
    page.fill("#hp", "6")
    page.fill("#damage", "1d3")
    page.fill("#hp2", "5")
    page.fill("#damage2", "1d2+1")
    page.select_option("#order", "alternating")
    _run(page)
    rounds, winner = brute_race(6, "1d3", 5, "1d2+1", "alternating")
    mean = sum(t * p for t, p in rounds.items())
    assert Fraction(page.get_attribute("#mean", "data-exact")) == mean
    assert page.get_attribute("#tail", "data-exact") == "0"
    assert page.is_visible("#winner-card")
    cell = page.inner_text('#winner tr[data-outcome="first"] td.exact-cell')
    assert Fraction(cell) == winner["first"]
    points = page.evaluate("""() => [...document.querySelectorAll('#chart svg circle.pt')]
        .map(c => [c.dataset.x, c.dataset.exact])""")
    assert {int(x): Fraction(e) for x, e in points} == rounds
    # At least: the chart shows P(rounds >= t)
    page.check("input[name=mode][value=atleast]")
    page.wait_for_function("document.querySelector('#mode-name').textContent.includes('least')")
    points = page.evaluate("""() => [...document.querySelectorAll('#chart svg circle.pt')]
        .map(c => [c.dataset.x, c.dataset.exact])""")
    assert {int(x): Fraction(e) for x, e in points} == {
        t: sum(p for u, p in rounds.items() if u >= t) for t in rounds}
    # a fairness system: a plain 25 % rate waits 4 pulls on average
    _then_wait(page, lambda: page.select_option("#kind", "first-success"))
    page.fill("#system", "pity:0.25")
    _run(page)
    assert page.get_attribute("#mean", "data-exact") == "4"
    # two 6s in a row: 42 rolls on average
    _then_wait(page, lambda: page.select_option("#kind", "until"))
    assert page.get_attribute("#mean", "data-exact") == "42"


@pytest.mark.browser
def test_page_error_marks_the_results_stale(page: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/markov")
    _wait(page)
    page.fill("#ladder", "12, 1d8+, 6")
    _run(page, "error")
    text = page.inner_text("#error")
    assert "die 2 of the ladder" in text and "^" in text
    assert not CLI_OR_PYTHON.search(text) and not ARGUMENTS.search(text)
    assert page.evaluate("document.body.dataset.stale") == "1"
    assert page.is_disabled("#csv") and page.locator(".results > .stale-note").count() == 1
    page.fill("#ladder", "12,10")
    _run(page)
    assert page.evaluate("document.body.dataset.stale") == "" and page.is_enabled("#csv")
    # a request the server refuses before any work names the page's own label
    page.fill("#upto", "-1")
    _run(page, "error")
    assert page.inner_text("#error").startswith("Show up to") and "upto" not in page.inner_text(
        "#error")


@pytest.mark.browser
def test_share_link_holds_the_inputs(page: Any, browser: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/markov")
    _wait(page)
    _then_wait(page, lambda: page.select_option("#kind", "race"))
    page.fill("#hp", "12")
    page.fill("#damage", "1d6")
    page.check("#bars")
    _run(page)
    mean = page.get_attribute("#mean", "data-exact")
    with shared_link(page, browser) as other:
        _wait(other)
        assert other.input_value("#kind") == "race" and other.input_value("#hp") == "12"
        assert other.is_checked("#bars")
        assert other.get_attribute("#mean", "data-exact") == mean


@pytest.mark.browser
def test_csv_export_and_a_damaged_link(page: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/markov#ck=0.1.0&z=not-a-view")
    _wait(page)
    assert "damaged" in page.inner_text("#error")            # said, and the example shown
    assert page.get_attribute("#mean", "data-exact") == "20"
    page.fill("#ladder", "6,4")
    page.fill("#upto", "3")
    _run(page)
    with page.expect_download() as dl:
        page.click("#csv")
    lines = Path(dl.value.path()).read_text().splitlines()
    assert lines[0].startswith("count,probability,probability_exact")
    got = {int(r.split(",")[0]): Fraction(r.split(",")[2]) for r in lines[1:-1]}
    assert got == {2: Fraction(1, 6), 3: Fraction(7, 36)}
    assert lines[-1].split(",")[2] == "23/36"                  # the rest, stated


@pytest.mark.browser
def test_phone_layout(browser: Any, server_url: str) -> None:
    """At 390 px the page (each process, a race with its winner table) is no wider than
    the screen and the chart is drawn at its real size."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        pg.goto(server_url.rstrip("/") + "/markov")
        _wait(pg)
        for kind in ("usage-die", "race", "first-success", "until"):
            if kind != "usage-die":
                _then_wait(pg, lambda k=kind: pg.select_option("#kind", k))
            if kind == "race":
                _then_wait(pg, lambda: pg.check("input[name=sides][value='2']"))
            assert pg.evaluate("document.documentElement.scrollWidth") <= 390, kind
            scale = pg.evaluate("""() => [...document.querySelectorAll('.chart svg')].map(s =>
                s.getBoundingClientRect().width / s.viewBox.baseVal.width)""")
            assert scale and all(x >= 0.95 for x in scale), (kind, scale)
    finally:
        context.close()


@pytest.mark.browser
def test_the_sentence_shows_decimals_and_the_exact_fraction_on_demand(
        page: Any, server_url: str) -> None:
    """A long exact mean (16756751/3125000 pulls) is not printed in the sentence: the
    decimals are, and an "exact" button shows the fraction; a short one is said inline."""
    page.goto(server_url.rstrip("/") + "/markov")
    _wait(page)
    assert "(exactly 20)" in page.inner_text("#mean")          # short: inline
    _then_wait(page, lambda: page.select_option("#kind", "first-success"))
    page.fill("#system", "pity:0.1,5,0.1,10")
    _run(page)
    doc = markov(server_url, {"kind": "first-success", "system": "pity:0.1,5,0.1,10"})
    exact = page.get_attribute("#mean", "data-exact")
    assert exact == doc["mean"] and len(exact) > 12
    sentence = page.inner_text("#figures")
    assert exact not in sentence and doc["variance"] not in sentence
    assert f"Mean {float(Fraction(exact)):.6g} pulls" in sentence.replace("  ", " ")
    button = page.locator("#mean button.exact-toggle")
    assert button.get_attribute("aria-expanded") == "false"
    button.click()                                            # on demand
    assert page.inner_text("#mean code.exact-text") == exact
    assert button.get_attribute("aria-expanded") == "true"
    button.click()
    assert not page.is_visible("#mean code.exact-text")


@pytest.mark.browser
def test_a_tiny_possible_chance_is_never_shown_as_zero(page: Any, server_url: str) -> None:
    """The usage die's long tail: a count with probability 4e-7 reads "< 0.0001%", and
    an at most one short of certain "> 99.9999%"; no cell says 0.0000% or 100.0000% for
    a value that is not 0 or 1."""
    page.goto(server_url.rstrip("/") + "/markov")
    _wait(page)
    doc = markov(server_url, {"kind": "usage-die", "ladder": "12,10,8,6,4", "down": "1,2"})
    tiny = [r for r in doc["rows"] if 0 < r["p"] < 5e-7]
    assert tiny                                             # the case exists
    cells = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#outcomes tbody tr')].map(tr => [tr.dataset.count,
        [...tr.querySelectorAll('td')].map(td => td.textContent)]))""")
    for r in doc["rows"]:
        _count, p, _exact, ge, le = cells[str(r["count"])]
        for value, text in ((r["p"], p), (r["ge"], ge), (r["le"], le)):
            if 0 < value < 5e-7:
                assert text == "< 0.0001%", (r["count"], value, text)
            elif 1 - 5e-7 < value < 1:
                assert text == "> 99.9999%", (r["count"], value, text)
            assert text not in ("0.0000%", "100.0000%") or value in (0, 1)


@pytest.mark.browser
def test_phone_exact_fraction_and_exports_fit(browser: Any, server_url: str) -> None:
    """At 390 px a long exact fraction, once shown, wraps inside the page, and the five
    export buttons take one row."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
    context.set_default_timeout(60_000)
    pg = context.new_page()
    try:
        pg.goto(server_url.rstrip("/") + "/markov")
        _wait(pg)
        _then_wait(pg, lambda: pg.select_option("#kind", "first-success"))
        pg.fill("#system", "pity:0.1,5,0.1,10")
        _run(pg)
        for button in pg.locator("#figures button.exact-toggle").all():
            button.click()
        assert pg.locator("#figures code.exact-text:visible").count() == 2
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390
        tops = pg.evaluate("""() => ['csv', 'json', 'png', 'svg', 'share'].map(id =>
            Math.round(document.getElementById(id).getBoundingClientRect().top))""")
        assert len(set(tops)) == 1, tops
    finally:
        context.close()
