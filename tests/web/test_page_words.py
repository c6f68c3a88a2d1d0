"""The web's errors speak web: chancekit.web.compute.page_words turns the library's
advice for Python and the command line into the pages' words. The messages are the
library's own, provoked here (not copied), so a reworded message is checked too."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

import chancekit
from chancekit.errors import ChancekitError
from chancekit.web.compute import page_words, parse_loot

#: what a page must never say: a command-line flag, a Python call or keyword argument
CLI_OR_PYTHON = re.compile(r"(?<![\w-])--[a-z]|chancekit\.\w|\w\(\.\.\.\)|\b[a-z_]+=(?:True|"
                           r"False|\.\.\.|'|\d)")


def _fair(spec: str, n: int, samples: int) -> Any:
    from chancekit import fair

    return fair.evaluate(fair.system_from_spec(spec, n), samples)


REFUSALS: list[Callable[[], Any]] = [
    lambda: chancekit.dist("100001d6"),                          # MAX_DICE
    lambda: chancekit.dist("2000d6kh1000"),                      # MAX_WORK, keep
    lambda: chancekit.dist("831d100"),                           # MAX_WORK, sum
    lambda: chancekit.dist("4d6k3", dialect="klingon"),
    lambda: chancekit.TabletopTable.build("2d20"),               # rows: two-stage
    lambda: chancekit.TabletopTable.build("50d20", two_stage=True),
    lambda: chancekit.roll("20000d6", rng=chancekit.PCG32(1)),   # MAX_ROLLED
    lambda: _fair("history-reroll:9,9", 50, 100),                # MAX_FAIR_WORK
    lambda: parse_loot("sword=x"),
]


@pytest.mark.parametrize("provoke", REFUSALS, ids=range(len(REFUSALS)))
def test_refusals_in_page_words(provoke: Callable[[], Any]) -> None:
    with pytest.raises(ChancekitError) as refused:
        provoke()
    words = page_words(str(refused.value))
    assert not CLI_OR_PYTHON.search(words), words
    assert words.strip() and "()" not in words


def test_the_notes_of_dialects_in_page_words() -> None:
    from chancekit.web.compute import notes

    for text in ("4d6k3", "10d10>=8", "2d6r1"):
        for dialect in ("avrae", "roll20", "foundry"):
            for line in notes(text, dialect):
                assert not CLI_OR_PYTHON.search(line), line
                assert "under Dialect" in line


def test_the_pages_own_formats_are_kept() -> None:
    """A loot line's format is the page's own (name=weight), not Python."""
    assert page_words("loot line 1 ('sword') must look like name=weight, e.g. sword=5") == \
        "loot line 1 ('sword') must look like name=weight, e.g. sword=5"


def test_the_check_can_fail() -> None:
    """Most of those refusals do carry Python or command-line advice before page_words."""
    raw = []
    for provoke in REFUSALS:
        try:
            provoke()
        except ChancekitError as exc:
            raw.append(str(exc))
    assert sum(bool(CLI_OR_PYTHON.search(m)) for m in raw) >= 5
