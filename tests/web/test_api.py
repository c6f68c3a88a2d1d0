"""The JSON API: results match the library, every error is a clean 4xx JSON body, the
time limit and a client's disconnect stop the work (the worker is killed and replaced)."""

from __future__ import annotations

import importlib
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any
from urllib.parse import urlsplit

import pytest

import chancekit
from conftest import call


def test_dist_matches_the_library(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": [
        {"label": "attack", "text": "1d20+5"}, "4d6kh3", {"text": "1d20+5 >= 15"}]})
    assert status == 200
    assert doc["version"] == chancekit.__version__
    assert [s["label"] for s in doc["series"]] == ["attack", "4d6kh3", "1d20+5 >= 15"]
    for s in doc["series"]:
        d = chancekit.dist(s["text"])
        pmf = d.pmf()
        assert {r["outcome"]: Fraction(r["p_exact"]) for r in s["rows"]} == pmf
        for r in s["rows"]:
            assert Fraction(r["ge_exact"]) == d.at_least(r["outcome"])
            assert Fraction(r["le_exact"]) == d.at_most(r["outcome"])
            assert r["p"] == pytest.approx(float(pmf[r["outcome"]]), rel=1e-12)
        assert Fraction(s["mean"]) == d.mean()
        assert s["sd"] == pytest.approx(d.sd())
        assert s["quantiles"]["0.5"] == str(d.median())
        # skewness and excess kurtosis, against the moments summed by brute force
        p = {x: Fraction(w, d.total) for x, w in d.weights.items()}
        mu = sum(x * q for x, q in p.items())
        m2, m3, m4 = (sum((x - mu) ** k * q for x, q in p.items()) for k in (2, 3, 4))
        assert s["skewness"] == pytest.approx(float(m3) / float(m2) ** 1.5, rel=1e-12,
                                              abs=1e-15)
        assert Fraction(s["kurtosis_exact"]) == m4 / m2 ** 2 - 3
        assert s["kurtosis"] == float(m4 / m2 ** 2 - 3)
    # every later series against the first: KS and TV, brute force over the union
    a = chancekit.dist("1d20+5")
    assert [(c["a"], c["b"]) for c in doc["comparisons"]] == [(0, 1), (0, 2)]
    for c, text in zip(doc["comparisons"], ["4d6kh3", "1d20+5 >= 15"], strict=True):
        b = chancekit.dist(text)
        xs = sorted(set(a.outcomes()) | set(b.outcomes()))
        ks = max(abs(sum(a.probability(y) - b.probability(y) for y in xs if y <= x))
                 for x in xs)
        tv = sum(abs(a.probability(x) - b.probability(x)) for x in xs) / 2
        assert Fraction(c["ks_exact"]) == ks and c["ks"] == float(ks)
        assert Fraction(c["tv_exact"]) == tv and c["tv"] == float(tv)


def test_large_results_are_bounded(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": ["10000d6"]})
    assert status == 200
    s = doc["series"][0]
    assert s["outcomes"] == 50001 and s["hidden"] > 0 and len(s["rows"]) < 5000
    assert s["exact"] is False and s["mean"] == "35000"
    # n d6: skewness 0, excess kurtosis that of one d6 (-222/175) over n
    assert s["skewness"] == 0.0 and s["kurtosis_exact"] == "-111/875000"
    assert doc["comparisons"] == []


def test_table_fairness_roll(server_url: str) -> None:
    status, t = call(server_url, "/api/table", {"source": "notation", "notation": "3d6"})
    assert status == 200
    table = chancekit.TabletopTable.build("3d6")
    assert t["report"]["line"] == table.report().line()
    assert t["formats"]["md"] == table.render("md")
    assert t["formats"]["csv"] == table.render("csv")
    status, t = call(server_url, "/api/table", {"source": "loot", "row_die": 6,
                                               "loot": "sword=5\nshield=3\npotion=12"})
    assert status == 200 and {o["label"] for o in t["outcomes"]} == {"sword", "shield",
                                                                      "potion"}
    status, f = call(server_url, "/api/fairness", {"systems": ["dynamic-dice:0.355"],
                                                  "values": 6, "samples": 25})
    assert status == 200
    m = f["systems"][0]
    assert m["summary"]["outcome_variance"] == pytest.approx(0.459, abs=1e-3)
    assert len(m["series"]["entropy"]) == 25 and len(m["series"]["outcome_variance"]) == 25
    status, r = call(server_url, "/api/roll", {"text": "4d6kh3", "seed": 2026, "n": 3,
                                              "streams": ["chargen"]})
    assert status == 200
    rng = chancekit.PCG32(2026)
    assert [x["total"] for x in r["rolls"]] == [chancekit.roll("4d6kh3", rng=rng).total
                                               for _ in range(3)]
    s = chancekit.Streams(2026)["chargen"]
    assert r["streams"][0]["rolls"] == [chancekit.roll("4d6kh3", rng=s).total
                                        for _ in range(5)]


def test_tune_job_reports_progress_and_the_winners(server_url: str) -> None:
    status, job = call(server_url, "/api/tune", {"values": 6, "samples": 25,
                                                "min_entropy": 0.9})
    assert status == 202
    deadline = time.monotonic() + 120  # hang guard
    while job["state"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.05)
        status, job = call(server_url, f"/api/jobs/{job['job']}")
    assert job["state"] == "done", job
    assert job["done"] == job["total"] > 0
    specs = {c["spec"] for w in job["result"]["winners"].values() for c in w}
    assert specs == {"generalized-deck:1,6", "dynamic-dice:0.355"}


@pytest.mark.parametrize(("body", "status", "kind"), [
    (b"", 400, "BadRequest"),
    (b"{not json", 400, "BadRequest"),
    (b"[1, 2]", 400, "BadRequest"),
    (b'{"expressions": "4d6"}', 400, "BadRequest"),
    (b'{"expressions": [5]}', 400, "BadRequest"),
    (b'{"expressions": [{"text": 5}]}', 400, "BadRequest"),
    (b'{"expressions": []}', 400, "BadRequest"),
    (b'{"expressions": [{"text": "1d6", "label": ["x"]}]}', 400, "BadRequest"),
    (json.dumps({"expressions": ["1d6"] * 13}).encode(), 400, "BadRequest"),
    (json.dumps({"expressions": ["1" * 1001]}).encode(), 400, "BadRequest"),
    (b'{"expressions": [NaN]}', 400, "BadRequest"),
    (b'{"expressions": [' + b"9" * 5000 + b"]}", 400, "BadRequest"),
    (b"[" * 100_00 + b"]" * 100_00, 400, "BadRequest"),
    (b"\xff\xfe{}", 400, "BadRequest"),
    (b'{"expressions": ["\\ud800"]}', 422, "NotationError"),
    (b'{"expressions": [{"label": "\\udfff", "text": "1d6\\ud800"}]}', 422, "NotationError"),
    (b'{"expressions": ["4d6kq3"]}', 422, "NotationError"),
    (b'{"expressions": ["2000d6kh1000"]}', 422, "LimitError"),
    (b'{"expressions": ["3d6"], "dialect": "klingon"}', 422, "InvalidValueError"),
    (b'{"expressions": ["3d6"], "dialect": 3}', 400, "BadRequest"),
])
def test_bad_input_gets_a_clean_4xx(server_url: str, body: bytes, status: int,
                                    kind: str) -> None:
    got, doc = call(server_url, "/api/dist", raw=body)
    assert got == status, doc
    assert doc["error"]["type"] == kind
    assert doc["error"]["message"] and "Traceback" not in doc["error"]["message"]


def test_notation_error_has_the_caret_fields(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": ["1d6", "4d6kq3"]})
    assert status == 422
    err = doc["error"]
    assert (err["index"], err["text"], err["column"]) == (1, "4d6kq3", 5)
    assert err["problem"].startswith("unexpected 'q'")


def test_limit_error_carries_the_limit(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": ["100001d6"]})
    assert status == 422 and doc["error"]["type"] == "LimitError"
    try:
        chancekit.dist("100001d6")
    except chancekit.LimitError as exc:
        assert doc["error"]["detail"] == str(exc)  # the CLI's message
        assert doc["error"]["limit"] == exc.limit
        # the page's words: no command-line flags, no Python calls
        message = doc["error"]["message"]
        assert "--" not in message and "chancekit." not in message, message
        assert message.startswith("100001 dice in one group is past the limit")


@pytest.mark.parametrize(("text", "dialect"), [
    ("4d6k3", "roll20"), ("4d6k3", "avrae"), ("10d10>=8", "roll20"), ("10d10>=8", "avrae"),
    ("10d10cs>=8", "foundry"), ("2d6r1", "foundry"), ("4d6kh3", "avrae")])
def test_dialect_and_its_notes(server_url: str, text: str, dialect: str) -> None:
    """The API reads the notation in the dialect asked for, and each series carries the
    CLI's notes (chancekit.dice.notation.ambiguities), worded for a page."""
    from chancekit.dice.notation import ambiguities

    status, doc = call(server_url, "/api/dist", {"expressions": [text], "dialect": dialect})
    assert status == 200, doc
    assert doc["dialect"] == dialect
    series = doc["series"][0]
    d = chancekit.dist(text, dialect=dialect)
    assert {r["label"]: Fraction(r["p_exact"]) for r in series["rows"]} == {
        str(x): p for x, p in d.pmf().items()}
    cli = ambiguities(text, dialect)
    assert len(series["notes"]) == len(cli)
    for web, line in zip(series["notes"], cli, strict=True):
        other = line.rsplit("--dialect ", 1)[1].split(",")[0]
        assert web == line.replace(f"use --dialect {other}", f"choose {other} under Dialect")
        assert "--dialect" not in web
    # the same for rolls and tables
    status, doc = call(server_url, "/api/roll", {"text": text, "dialect": dialect,
                                                 "seed": 5})
    assert status == 200 and len(doc["notes"]) == len(cli)
    assert doc["rolls"][0]["total"] == chancekit.roll(text, rng=chancekit.PCG32(5),
                                                      dialect=dialect).total


def test_estimate_is_reproducible_and_bounded(server_url: str) -> None:
    """/api/estimate rolls each line with chancekit.roll from PCG32(seed, line): the same
    counts as rolling here; every frequency lies in its 95 % interval; it also answers for
    an expression the exact engine refuses."""
    status, doc = call(server_url, "/api/estimate", {"expressions": ["3d6", "100d100kh50"],
                                                     "samples": 300, "seed": 11})
    assert status == 200, doc
    first, second = doc["series"]
    assert first["estimate"] and first["complete"] and first["samples"] == 300
    rng = chancekit.PCG32(11, 0)
    counts: dict[int, int] = {}
    for _ in range(300):
        x = chancekit.roll("3d6", rng=rng).total
        counts[x] = counts.get(x, 0) + 1
    assert {r["outcome"]: r["count"] for r in first["rows"]} == counts
    for s in (first, second):
        assert all(r["lo"] <= r["p"] <= r["hi"] for r in s["rows"])
        assert s["mean_lo"] <= s["mean"] <= s["mean_hi"]
        assert sum(r["count"] for r in s["rows"]) == s["samples"] >= 64
    assert 50 * 50.5 < second["mean"] < 50 * 100   # the 50 highest of 100d100
    with pytest.raises(chancekit.LimitError):
        chancekit.dist("100d100kh50")
    # a line that cannot even be rolled says so, with its index
    status, doc = call(server_url, "/api/estimate", {"expressions": ["1d6", "20000d6"]})
    assert status == 422 and doc["error"]["index"] == 1


@pytest.mark.parametrize(("body", "expected"), [
    ({"kind": "largest-set", "dice": "5d6"}, lambda: chancekit.dice.largest_set(
        5 * [chancekit.dice.d(6)])),
    ({"kind": "straight", "dice": "4d6 d8"}, lambda: chancekit.dice.longest_straight(
        4 * [chancekit.dice.d(6)] + [chancekit.dice.d(8)])),
    ({"kind": "nco", "action": 5, "danger": 3},
     lambda: chancekit.dice.neon_city_overdrive(5, 3)),
    ({"kind": "risk", "action": 3, "danger": 2}, lambda: chancekit.dice.risk_battle(3, 2)),
    ({"kind": "genesys", "pool": "2A1P vs 2D"},
     lambda: importlib.import_module("chancekit.dice.symbols").genesys("2A1P vs 2D")),
])
def test_pool_rules_are_the_library_s(server_url: str, body: dict, expected: Any) -> None:
    status, doc = call(server_url, "/api/pool", body)
    assert status == 200, doc
    d = expected()
    rows = doc["series"][0]["rows"]
    assert {r["label"]: Fraction(r["p_exact"]) for r in rows} == {
        str(x): p for x, p in d.pmf().items()}
    if body["kind"] == "genesys":
        from chancekit.dice.symbols import project

        assert Fraction(doc["success_exact"]) == project(d, "success").at_least(1)


def test_pool_tuple_outcomes_are_lists(server_url: str) -> None:
    """A tuple outcome (a Vector of several evaluations) is a list of numbers in the
    rows' ``outcome``, its text in ``label``."""
    from chancekit.dice import Pool, d, multiset_function

    status, doc = call(server_url, "/api/pool", {
        "kind": "expr", "expression": "a.count(), (a - b).count()",
        "pools": {"a": "2d6", "b": "1d6"}})
    assert status == 200, doc

    @multiset_function
    def both(a, b):
        return a.count(), (a - b).count()
    expected = both(Pool(d(6), 2), Pool(d(6), 1))
    rows = doc["series"][0]["rows"]
    assert all(isinstance(r["outcome"], list) for r in rows)
    assert {tuple(r["outcome"]): Fraction(r["p_exact"]) for r in rows} == expected.pmf()
    assert {r["label"] for r in rows} == {str(x) for x in expected.outcomes()}


@pytest.mark.parametrize("body", [{"kind": "largest-set", "dice": "5x6"},
                                  {"kind": "nco", "action": -1, "danger": 2},
                                  {"kind": "genesys", "pool": "2Q"},
                                  {"kind": "poker"}])
def test_pool_refusals_are_clean(server_url: str, body: dict) -> None:
    status, doc = call(server_url, "/api/pool", body)
    assert status in (400, 422) and doc["error"]["message"]


def test_two_stage_table(server_url: str) -> None:
    status, doc = call(server_url, "/api/table", {"notation": "2d20"})
    assert status == 422 and "tick Two-stage" in doc["error"]["message"]
    assert "--" not in doc["error"]["message"] and "=True" not in doc["error"]["message"]
    status, doc = call(server_url, "/api/table", {"notation": "2d20", "two_stage": True})
    assert status == 200, doc
    table = chancekit.TabletopTable.build("2d20", two_stage=True, title="2d20")
    assert doc["two_stage"] and len(doc["stages"]) == 1 + len(table.second)
    assert doc["formats"]["md"] == table.render("md")
    assert doc["report"]["line"] == table.report().line()
    assert [s["group"] for s in doc["stages"][1:]] == [[str(x) for x in g]
                                                       for g in table.groups]


def test_a_table_in_another_dialect(server_url: str) -> None:
    status, doc = call(server_url, "/api/table", {"notation": "4d6k3", "dialect": "roll20"})
    assert status == 200, doc
    table = chancekit.TabletopTable.build(chancekit.dist("4d6k3", dialect="roll20"),
                                          title="4d6k3")
    assert doc["formats"]["csv"] == table.render("csv")
    assert doc["notes"] and "avrae" in doc["notes"][0]


@pytest.mark.parametrize(("path", "body"), [
    ("/api/table", {"notation": "2d20"}),                  # 39 outcomes on a d20: LimitError
    ("/api/table", {"source": "loot", "loot": "sword"}),   # not name=weight
    ("/api/table", {"row_die": "20", "notation": "3d6"}),
    ("/api/fairness", {"systems": ["generalized-deck:1,x"]}),
    ("/api/fairness", {"systems": ["dice"], "samples": 0}),
    ("/api/tune", {"values": 6, "samples": 200}),         # over MAX_FAIR_WORK
    ("/api/tune", {"systems": ["nope"]}),
    ("/api/roll", {"text": "1d6", "seed": "text seed"}),   # a text seed needs a stream
    ("/api/roll", {"text": "1d6", "seed": True}),
    ("/api/roll", {"text": ""}),
])
def test_other_endpoints_refuse_cleanly(server_url: str, path: str, body: dict) -> None:
    status, doc = call(server_url, path, body)
    assert 400 <= status < 500, doc
    assert doc["error"]["message"]


def test_huge_body_is_413(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", raw=b'{"expressions": ["' + b"1" * 100_000
                       + b'"]}')
    assert status == 413 and doc["error"]["type"] == "TooLarge"


def test_unknown_routes_are_json(server_url: str) -> None:
    assert call(server_url, "/api/nope")[0] == 404
    status, doc = call(server_url, "/api/dist", method="GET")
    assert status == 405 and doc["error"]["type"] == "MethodNotAllowed"
    assert call(server_url, "/api/jobs/nope")[0] == 404


def test_eight_concurrent_requests(server_url: str) -> None:
    bodies = [{"expressions": [f"{k}d6kh3", "2d20kh1+5"]} for k in range(3, 7)] + [
        {"expressions": ["4d6kq3"]}, {"expressions": ["2000d6kh1000"]},
        {"expressions": ["\ud800"]}, {"expressions": ["10d10>=8"]}]
    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(lambda b: call(server_url, "/api/dist", b), bodies))
    assert [s for s, _ in got] == [200] * 4 + [422, 422, 422, 200]
    assert all("error" in d or "series" in d for _, d in got)


def test_openapi_and_pages(server_url: str) -> None:
    status, doc = call(server_url, "/api/openapi.json")
    assert status == 200 and doc["openapi"].startswith("3.")
    assert {"/api/dist", "/api/table", "/api/fairness", "/api/tune", "/api/roll"} <= set(
        doc["paths"])


def _status(url: str) -> dict:
    return call(url, "/api/status")[1]


def test_time_limit_stops_the_work(strict_server_url: str) -> None:
    killed = _status(strict_server_url)["killed"]
    status, doc = call(strict_server_url, "/api/_test/sleep", {})
    assert status == 422 and doc["error"]["limit"] == "time_limit"
    assert _status(strict_server_url)["killed"] == killed + 1
    # the replacement worker serves the next requests
    assert call(strict_server_url, "/api/dist", {"expressions": ["4d6kh3"]})[0] == 200


def test_lines_before_a_refused_line_are_kept(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": ["3d6", "2000d6kh1000",
                                                                 "2d6"]})
    assert status == 422 and doc["error"]["index"] == 1
    assert [p["series"]["label"] for p in doc["error"]["partial"]] == ["3d6"]
    # a refusal of the first line has nothing to keep
    status, doc = call(server_url, "/api/dist", {"expressions": ["2000d6kh1000", "3d6"]})
    assert status == 422 and "partial" not in doc["error"]


def test_tuning_gets_six_times_the_time_limit(strict_server_url: str) -> None:
    """serve --time-limit 0.3 (the strict server): tuning jobs get 1.8 s."""
    status, doc = call(strict_server_url, "/api/version")
    assert status == 200
    assert doc["limits"]["time_limit_s"] == 0.3
    assert doc["limits"]["tune_time_limit_s"] == pytest.approx(1.8)


def test_lines_that_finished_survive_the_time_limit(strict_server_url: str) -> None:
    """The third line outlasts the time limit (a test hook that sleeps): the error keeps
    the first two lines' results as 'partial', equal to the library's."""
    status, doc = call(strict_server_url, "/api/dist",
                       {"expressions": ["3d6", {"label": "stats", "text": "4d6kh3"}, "_sleep_"]})
    assert status == 422 and doc["error"]["limit"] == "time_limit"
    partial = doc["error"]["partial"]
    assert [p["index"] for p in partial] == [0, 1]
    assert partial[1]["series"]["label"] == "stats"
    rows = {r["outcome"]: Fraction(r["p_exact"]) for r in partial[1]["series"]["rows"]}
    assert rows == chancekit.dist("4d6kh3").pmf()


def test_a_disconnect_stops_the_work(strict_server_url: str) -> None:
    """Close the connection while work that outlasts the 0.3 s limit runs: the worker is
    killed when the client goes away or, at the latest, at the time limit -- either way
    the request never completes and the pool recovers."""
    killed = _status(strict_server_url)["killed"]
    u = urlsplit(strict_server_url)
    body = json.dumps({}).encode()
    with socket.create_connection((u.hostname, u.port), timeout=30) as sock:
        sock.sendall(b"POST /api/_test/sleep HTTP/1.1\r\nHost: " + u.netloc.encode()
                     + b"\r\nContent-Type: application/json"
                     b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        time.sleep(0.05)
    deadline = time.monotonic() + 60  # hang guard
    while _status(strict_server_url)["killed"] <= killed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _status(strict_server_url)["killed"] == killed + 1
    assert call(strict_server_url, "/api/dist", {"expressions": ["3d6"]})[0] == 200


def test_stopping_a_job(strict_server_url: str) -> None:
    status, job = call(strict_server_url, "/api/tune", {"values": 6, "samples": 31})
    assert status == 202
    status, job = call(strict_server_url, f"/api/jobs/{job['job']}", method="DELETE")
    assert status == 200 and job["state"] in ("cancelled", "done")


def test_max_work_lifts_the_work_limit_for_one_request(server_url: str) -> None:
    """``max_work`` is the request's work budget, as ``--max-work`` is a command's: past
    the default limit refused, with a higher one answered exactly; bad values are a 400."""
    body = {"expressions": ["30d{1,5,1000000000}kh15"]}   # priced past the limit
    status, refused = call(server_url, "/api/dist", body)
    assert status == 422 and refused["error"]["limit"] == "MAX_WORK"
    status, answered = call(server_url, "/api/dist", {**body, "max_work": 10**9})
    assert status == 200
    # the 15 kept dice show a ones, b fives and c billions, a + b + c = 15: C(17, 2) sums
    assert answered["series"][0]["outcomes"] == 136
    status, low = call(server_url, "/api/dist", {"expressions": ["3d6"], "max_work": 10})
    assert status == 422 and "MAX_WORK = 10" in low["error"]["message"]
    for bad in (0, -1, 10**16, "lots", 1.5, True):
        status, doc = call(server_url, "/api/dist", {"expressions": ["3d6"], "max_work": bad})
        assert status == 400 and doc["error"]["field"] == "max_work", bad
