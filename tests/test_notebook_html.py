"""Jupyter display: distributions, tabletop tables and tuning results render as
self-contained HTML (a table plus an inline SVG chart, no network resources). Checked by
parsing with a real HTML parser, not by string matching."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

import chancekit
from chancekit import fair


class Tree(HTMLParser):
    """Collects tags, attributes, text per tag and checks that every tag is closed."""

    VOID = frozenset({"br", "img", "meta", "link", "input", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.cells: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] in ("td", "th"):
            self.cells.append(data)


def parse(html: str) -> Tree:
    t = Tree()
    t.feed(html)
    t.close()
    assert not t.errors and not t.stack, (t.errors, t.stack)
    return t


def no_network(t: Tree) -> None:
    names = {tag for tag, _ in t.tags}
    assert not names & {"script", "link", "img", "iframe", "style"}
    for _, attrs in t.tags:
        for k, v in attrs.items():
            if k in ("href", "src") or (v and "http" in v and k != "xmlns"):
                pytest.fail(f"external resource in {k}={v!r}")


def count(t: Tree, tag: str) -> int:
    return sum(1 for name, _ in t.tags if name == tag)


def test_distribution_html():
    d = chancekit.dist("3d6")
    t = parse(d._repr_html_())
    no_network(t)
    assert count(t, "table") == 1 and count(t, "svg") == 1
    assert count(t, "tr") == 1 + 16  # header + one row per outcome 3..18
    assert count(t, "rect") == 16   # one bar per outcome
    assert "12.5000%" in t.cells     # P(3d6 = 10) = 27/216
    assert t.cells[:4] == ["outcome", "probability", "at least", "at most"]


def test_large_distribution_html_lists_the_likely_rows_only():
    t = parse(chancekit.dist("100d6")._repr_html_())
    assert count(t, "tr") == 1 + 60
    no_network(t)


def test_tabletop_html():
    table = chancekit.TabletopTable.build("3d6")
    t = parse(table._repr_html_())
    no_network(t)
    assert count(t, "table") == 1 and count(t, "svg") == 1
    assert count(t, "tr") == 1 + 20       # one row per face of the d20
    assert count(t, "rect") == 2 * 16     # target and realised bar per outcome
    assert t.cells[:4] == ["d20", "outcome", "d20 ≤", "else"]


def test_tune_html():
    result = fair.tune(6, 25, 0.9)
    t = parse(result._repr_html_())
    no_network(t)
    assert count(t, "table") == 1 and count(t, "svg") == 1
    assert count(t, "polyline") == len(result.tables) == 2
    assert "0.5089" in t.cells and "0.4590" in t.cells and "1,6" in t.cells
