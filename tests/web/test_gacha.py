"""The Gacha page and ``POST /api/gacha`` (issue #30): the plan against an enumeration of
every pull sequence of a small banner written here, clean errors, and the page on both
back ends (chancekit serve and the static site) with its chart of P(k copies by pull n)."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest

from conftest import call

SMALL = "gacha:0.25,2,0.25,4,0.5"


def _enumerate(n: int, k: int) -> Fraction:
    """P(k featured copies within n pulls) of SMALL from a fresh banner: every sequence of
    n pulls (0 common, 1 off-banner, 2 featured) with its chance from the rules."""
    total = Fraction(0)
    for seq in itertools.product(range(3), repeat=n):
        pity, lost, p = 1, False, Fraction(1)
        for x in seq:
            q = Fraction(1) if pity >= 4 else Fraction(1, 4) + max(0, pity - 1) * Fraction(1, 4)
            q = min(q, Fraction(1))
            f = Fraction(1) if lost else Fraction(1, 2)
            p *= (1 - q) if x == 0 else q * ((1 - f) if x == 1 else f)
            if not p:
                break
            if x:
                pity, lost = 1, x == 1
            else:
                pity += 1
        if p and sum(1 for x in seq if x == 2) >= k:
            total += p
    return total


def test_the_plan_equals_enumeration(server_url: str) -> None:
    status, doc = call(server_url, "/api/gacha", {"system": SMALL, "copies": 2, "pulls": 6})
    assert status == 200, doc
    for row in doc["rows"]:
        assert row["within_pulls"] == pytest.approx(float(_enumerate(6, row["copies"])),
                                                    rel=1e-12)
    curve = doc["curve"]
    assert len(curve["chance"]) == 2 and curve["pulls"][0] == 0
    at = curve["pulls"].index(5)
    assert curve["chance"][1][at] == pytest.approx(float(_enumerate(5, 2)), rel=1e-12)


def test_state_budget_and_price(server_url: str) -> None:
    status, doc = call(server_url, "/api/gacha", {
        "system": "gacha:0.006,74,0.06,90", "copies": 2, "pity": 37, "guaranteed": True,
        "price": 160, "budget": 28800})
    assert status == 200, doc
    assert doc["state"] == [38, True] and doc["affordable"] == 180
    first = doc["rows"][0]
    assert first["most"] == 53 and first["within_budget"] == 1.0   # 90 - 37 pulls at most
    assert first["mean_cost"] == pytest.approx(first["mean"] * 160)


@pytest.mark.parametrize("body, field", [
    ({"copies": 2}, "system"),
    ({"system": SMALL, "copies": 11}, "copies"),
    ({"system": SMALL, "pity": -1}, "pity"),
    ({"system": SMALL, "price": "a lot"}, "price"),
])
def test_bad_requests_name_the_field(server_url: str, body: dict[str, Any],
                                     field: str) -> None:
    status, doc = call(server_url, "/api/gacha", body)
    assert status == 400 and doc["error"]["field"] == field


@pytest.mark.parametrize("body, words", [
    ({"system": "gacha:0.006,74,0.06,90", "pity": 95}, "hard pity"),
    ({"system": "nonsense"}, "unknown system"),
    ({"system": SMALL, "value": "legendary"}, "values"),
    ({"system": "dynamic-dice:0.5"}, "no end"),
])
def test_refusals_are_clean_422s(server_url: str, body: dict[str, Any], words: str) -> None:
    status, doc = call(server_url, "/api/gacha", body)
    assert status == 422 and words in doc["error"]["message"], doc


@pytest.mark.browser
def test_the_page_plans_on_both_back_ends(page: Any, app_url: str) -> None:
    page.goto(app_url.rstrip("/") + "/gacha")
    page.wait_for_function("document.body.dataset.state === 'done'", timeout=120_000)
    assert page.locator("#plan tbody tr").count() == 3
    # three curves, one a copy count, each rising to 1
    assert page.locator("#chart svg").count() == 1
    page.fill("#system", SMALL)
    page.fill("#copies", "2")
    page.fill("#pity", "0")
    page.fill("#pulls", "6")
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'", timeout=120_000)
    cells = page.locator("#plan tbody td.within").all_inner_texts()
    want = [f"{100 * float(_enumerate(6, k)):.4f}" for k in (1, 2)]
    assert [c.rstrip("%").strip()[:len(w)] for c, w in zip(cells, want, strict=True)] == want


def test_a_refund_per_rare_is_exact(server_url: str) -> None:
    """``refund_per``: the mean cost and the chance the budget reaches each copy count of
    chancekit.markov.spend (itself checked against a forward DP in tests/markov)."""
    from chancekit.fair import system_from_spec
    from chancekit.markov import spend

    per = {"featured": 40, "off-banner": 40}
    status, doc = call(server_url, "/api/gacha", {
        "system": SMALL, "copies": 2, "price": 160, "budget": 800, "refund_per": per})
    assert status == 200, doc
    assert doc["affordable"] is None and doc["refund_per"] == per
    system = system_from_spec(SMALL, 2)
    for row in doc["rows"]:
        s = spend(system, "featured", row["copies"], price=160, refund_per=per)
        assert row["mean_cost"] == float(s.mean)
        assert row["within_budget"] == float(s.within(800))
    assert doc["rows"][1]["mean_cost"] < doc["rows"][1]["mean"] * 160


@pytest.mark.parametrize("refund_per, status, words", [
    ("featured=40", 400, "object"),
    ({"featured": -1}, 400, "between"),
    ({"featured": "40"}, 400, "numbers"),
    ({"legendary": 40}, 422, "values"),
])
def test_bad_refunds_per_draw_are_refused(server_url: str, refund_per: Any, status: int,
                                          words: str) -> None:
    got, doc = call(server_url, "/api/gacha", {"system": SMALL, "price": 160,
                                               "refund_per": refund_per})
    assert got == status and words in doc["error"]["message"], doc


@pytest.mark.browser
def test_the_page_takes_a_refund_per_draw(page: Any, app_url: str) -> None:
    page.goto(app_url.rstrip("/") + "/gacha")
    page.wait_for_function("document.body.dataset.state === 'done'", timeout=120_000)
    page.fill("#system", SMALL)
    page.fill("#copies", "2")
    page.fill("#price", "160")
    page.fill("#budget", "800")
    page.fill("#refund_per", "featured=40, off-banner=40")
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'", timeout=120_000)
    from chancekit.fair import system_from_spec
    from chancekit.markov import spend

    s = spend(system_from_spec(SMALL, 2), "featured", 2, price=160,
              refund_per={"featured": 40, "off-banner": 40})
    cell = page.locator("#plan tbody tr[data-copies='2'] td.budget").inner_text()
    assert cell.rstrip("%").strip()[:5] == f"{100 * float(s.within(800)):.4f}"[:5]
