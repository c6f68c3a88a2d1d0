"""The Dice page's Variables field (issue #32): ``name=value`` pairs fill Foundry's
``@name`` and Roll20's ``@{name}`` / ``?{Query}``, are sent as ``variables`` in
``/api/dist``, and travel in the share link -- on the server and on the static site."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import chancekit
from conftest import shared_link

pytestmark = pytest.mark.browser


def wait(page: Any, value: str = "done") -> None:
    page.wait_for_function(f"document.body.dataset.state === {value!r}")


def calculate(page: Any, text: str, value: str = "done") -> None:
    page.fill("#exprs", text)
    page.evaluate("document.body.dataset.state = ''")
    page.click("#run")
    wait(page, value)


def mean(page: Any, series: str) -> Fraction:
    return Fraction(page.inner_text(f'#summary tr[data-series="{series}"] td.mean-exact'))


def test_variables_fill_placeholders_and_travel_in_the_share_link(
        page: Any, browser: Any, app_url: str) -> None:
    page.goto(app_url)
    wait(page)
    page.select_option("#dialect", "foundry")
    wait(page)
    page.fill("#vars", "prof=3, dmg=max(1d6, 2), abilities.str.mod = 2")
    calculate(page, "hit: 1d20 + @prof + @abilities.str.mod\ndmg: 2*@dmg")
    want = chancekit.dist("1d20 + 3 + 2", dialect="foundry")
    assert mean(page, "hit") == want.mean()
    assert mean(page, "dmg") == chancekit.dist("2*max(1d6, 2)", dialect="foundry").mean()
    with shared_link(page, browser) as other:
        wait(other)
        assert other.input_value("#vars") == "prof=3, dmg=max(1d6, 2), abilities.str.mod = 2"
        assert other.input_value("#dialect") == "foundry"
        assert mean(other, "hit") == want.mean()
    # Roll20: an attribute and the answer to a query (its default is not used)
    page.select_option("#dialect", "roll20")
    page.fill("#vars", "str_mod=4; Bonus=5")
    calculate(page, "1d20 + @{str_mod} + ?{Bonus|2}")
    assert mean(page, "1d20 + @{str_mod} + ?{Bonus|2}") == Fraction(21, 2) + 9


def test_bad_or_missing_variables_are_named(page: Any, app_url: str) -> None:
    page.goto(app_url)
    wait(page)
    page.select_option("#dialect", "foundry")
    wait(page)
    page.fill("#vars", "prof")  # no '='
    calculate(page, "1d20 + @prof", value="error")
    assert "'prof' is not name=value" in page.inner_text("#error")
    page.fill("#vars", "")  # no value for @prof: the API names it and the flag
    calculate(page, "1d20 + @prof", value="error")
    assert "'@prof' has no value" in page.inner_text("#error")
    page.fill("#vars", "prof=2")
    calculate(page, "1d20 + @prof")
    assert mean(page, "1d20 + @prof") == Fraction(25, 2)
