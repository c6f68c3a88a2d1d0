"""Certified answers on the web (issue #31, item 7): ``/api/dist`` and ``/api/anydice`` take
``approx: true``; a refusal the certified path may answer carries ``approx: true`` and the
Dice and AnyDice pages then show a "Certified approximation" button, whose answer is
labelled certified, never exact. (That the intervals contain the exact answers is
tests/dice/test_certified.py's and tests/anydice/test_approx.py's.)"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import call

pytest.importorskip("chancekit.anydice")

# corpus-dev 22432 (the highest of ten million d6 by halving), its first output only
HIGHEST = """function: highest of N:n x D:d {
  if N = 0 { result: 0 }
  if N = 1 { result: D }
  RES: 1@2d[highest of N/2 x D]
  if N - (N/2)*2 = 1 { RES: [highest of D and RES] }
  result: RES
}
set "maximum function depth" to 99
output [highest of 10000000 x d6] named "highest of 10 million d6"
output 2d6 named "two d6"
"""


def _schema() -> Any:
    """The CertifiedSeries schema of the app's OpenAPI document (JSON Schema 2020-12)."""
    import jsonschema

    from chancekit.web.openapi import openapi_document

    schema = openapi_document()["components"]["schemas"]["CertifiedSeries"]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _certified_series(s: dict[str, Any]) -> None:
    _schema().validate(s)
    assert s["certified"] is True and s["exact"] is False
    assert 0 < s["max_error"] <= 1e-12
    for r in s["rows"]:
        assert r["p_low"] <= r["p"] <= r["p_high"] and r["error"] <= s["max_error"]
        assert r["p_exact"] is None  # nothing is called exact
    assert abs(sum(r["p"] for r in s["rows"]) - 1) < 1e-9


def test_the_schema_rejects_an_exact_series(server_url: str) -> None:
    import jsonschema

    status, doc = call(server_url, "/api/dist", {"expressions": ["3d6"], "approx": True})
    assert status == 200
    with pytest.raises(jsonschema.ValidationError):
        _schema().validate(doc["series"][0])
    status, doc = call(server_url, "/api/openapi.json")
    assert doc["components"]["schemas"]["CertifiedSeries"]["properties"]["exact"] == {
        "const": False}


def test_dist_refusal_offers_and_approx_answers(server_url: str) -> None:
    status, doc = call(server_url, "/api/dist", {"expressions": ["20000d6>=70000"]})
    assert status == 422 and doc["error"]["approx"] is True
    assert "Certified approximation" in doc["error"]["message"]
    status, doc = call(server_url, "/api/dist", {"expressions": ["20000d6>=70000"],
                                                 "approx": True})
    assert status == 200
    s = doc["series"][0]
    _certified_series(s)
    assert [r["outcome"] for r in s["rows"]] == [0, 1]
    assert any("certified, not exact" in n for n in s["notes"])
    # an exact answer stays exact with approx, and a refusal approx cannot help offers none
    status, doc = call(server_url, "/api/dist", {"expressions": ["3d6"], "approx": True})
    assert status == 200 and doc["series"][0]["exact"] is True
    status, doc = call(server_url, "/api/dist", {"expressions": ["2000d6kh1000"]})
    assert status == 422 and "approx" not in doc["error"]
    status, doc = call(server_url, "/api/dist", {"expressions": ["3d6"], "approx": "yes"})
    assert status == 400 and doc["error"]["field"] == "approx"


def test_anydice_refusal_offers_and_approx_answers(server_url: str) -> None:
    status, doc = call(server_url, "/api/anydice", {"program": HIGHEST})
    assert status == 422 and doc["error"]["approx"] is True
    status, doc = call(server_url, "/api/anydice", {"program": HIGHEST, "approx": True})
    assert status == 200
    first, second = doc["series"]
    _certified_series(first)
    assert second["exact"] is True and second["mean"] == "7"
    assert any("certified, not exact" in w for w in doc["warnings"])


@pytest.mark.browser
def test_dice_page_button(page: Any, server_url: str) -> None:
    page.goto(server_url)
    page.wait_for_function("document.body.dataset.state === 'done'")
    page.fill("#exprs", "20000d6>=70000")
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'error'")
    assert page.locator("#approx").inner_text() == "Certified approximation"
    page.evaluate("document.body.dataset.state = ''")
    page.click("#approx")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert "certified, not exact" in page.inner_text("#notes")
    assert page.locator("#chart svg g.series").count() == 1


@pytest.mark.browser
def test_anydice_page_button(page: Any, server_url: str) -> None:
    page.goto(server_url.rstrip("/") + "/anydice")
    page.wait_for_function("document.body.dataset.state === 'done'")
    page.fill("#program", HIGHEST)
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'error'")
    page.evaluate("document.body.dataset.state = ''")
    page.click("#approx")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert "certified, not exact" in page.inner_text("#warnings")
    assert page.locator("#chart svg g.series").count() == 2
