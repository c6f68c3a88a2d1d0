"""Fuzzing every entry point that takes weights: ``parse_weights`` (the ``--weights``
text), ``AliasTable`` / ``ChanceTree`` / ``TabletopTable.build`` from arbitrary mappings and
sequences, and ``chancekit sample|table --weights TEXT`` end to end. Nothing but
chancekit's documented errors (``ChancekitError`` subclasses) may escape; whatever is
accepted must work. Counts: docs/fuzzing.md.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings, mutations, run_cli, time_budget
from chancekit.errors import ChancekitError
from chancekit.rng import PCG32
from chancekit.sampling import AliasTable, ChanceTree, TabletopTable
from chancekit.sampling._weights import parse_weights

ALPHABET = "abcxyz0123456789=,/.-+eE_ \t" + "é٩²\u00a0∞\n"
VALID = [
    "sword=5,shield=3,potion=12", "a=1/3, b=0.25, c=2", "x=1e3,y=2.5E-2", "gold=0,silver=1",
    "one=1", "a=1_000,b=+7", "big=123456789012345678901234567890,small=1/987654321",
]
HUGE = ["1e999999999", "1E-999999999", "9" * 1200, "1e" + "9" * 30, "1/" + "7" * 1200,
        "1e1000", "1e-1000", "1e1001", "0.0000001", "-1", "-0", "1/0", "nan", "inf", "1e+_"]


def number_text() -> st.SearchStrategy[str]:
    digits = st.text("0123456789", min_size=1, max_size=6)
    return st.one_of(
        digits,
        st.builds(lambda a, b: f"{a}/{b}", digits, digits),
        st.builds(lambda a, b: f"{a}.{b}", digits, digits),
        st.builds(lambda a, s, e: f"{a}e{s}{e}", digits, st.sampled_from(["", "+", "-"]),
                  st.integers(0, 10**12).map(str)),
        st.sampled_from(HUGE),
        st.text(ALPHABET, max_size=6),
    )


def label_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text("abcxyz_", min_size=1, max_size=5), st.text(max_size=5))


@st.composite
def weights_text(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(label_text(), number_text()), max_size=5))
    seps = st.sampled_from([",", ", ", ",,", " , "])
    out = ""
    for i, (lab, num) in enumerate(pairs):
        out += (draw(seps) if i else "") + lab + draw(st.sampled_from(["=", " = ", "==", ""]))
        out += num
    return out


ANY_TEXT = st.one_of(st.text(ALPHABET, max_size=30), weights_text(), mutations(VALID, ALPHABET),
                     st.text(max_size=20))


def _parse(text: str) -> dict[str, Fraction] | None:
    try:
        got = parse_weights(text)
    except ChancekitError:
        return None
    assert isinstance(got, dict)
    for label, w in got.items():
        assert isinstance(label, str) and label == label.strip() and label
        assert isinstance(w, Fraction) and w >= 0
    return got


def _use(weights: object, *, row_die: int = 20, check_die: int = 20) -> None:
    """Build every structure from ``weights``; whatever builds must draw correctly."""
    try:
        table = AliasTable(weights)
    except ChancekitError:
        pass
    else:
        labels = list(table)
        assert table.draw(PCG32(1)) in labels
        assert all(x in labels for x in table.draw_array(PCG32(2), 5).tolist())
        assert sum(table.probability(x) for x in labels) == 1
    try:
        tree = ChanceTree(weights)
    except ChancekitError:
        pass
    else:
        if tree.total > 0:
            assert tree.draw(PCG32(3)) in list(tree)
    try:
        tt = TabletopTable.build(weights, row_die=row_die, check_die=check_die)
    except ChancekitError:
        pass
    else:
        assert sum(tt.realized().pmf().values()) == 1


@fuzz_settings(quick=2_000, long=300_000)
@given(ANY_TEXT)
def test_parse_weights_text(text: str) -> None:
    with time_budget(text):
        _parse(text)


@fuzz_settings(quick=600, long=60_000)
@given(st.one_of(weights_text(), mutations(VALID, ALPHABET)))
def test_parsed_weights_build(text: str) -> None:
    with time_budget(text):
        got = _parse(text)
        if got is not None:
            _use(got)


WEIGHT = st.one_of(
    st.integers(-3, 10**6), st.integers(), st.floats(), st.fractions(),
    st.decimals(allow_nan=True), st.booleans(), st.none(), st.text(max_size=3),
    st.sampled_from([10**400, Fraction(1, 10**300), 1e308, 5e-324, -0.0, math.inf,
                     Decimal("1e-400"), complex(1, 0), [1], (2,)]),
)
LABEL = st.one_of(st.text(max_size=4), st.integers(-5, 30), st.fractions(), st.none(),
                  st.booleans(), st.tuples(st.integers(0, 3)), st.floats())


@fuzz_settings(quick=600, long=60_000)
@given(st.one_of(st.dictionaries(LABEL, WEIGHT, max_size=6), st.lists(WEIGHT, max_size=6),
                 st.lists(st.tuples(LABEL, WEIGHT), max_size=6), WEIGHT,
                 st.text(max_size=5)),
       st.integers(-2, 30), st.integers(-2, 30))
def test_builders_from_objects(weights: object, row_die: int, check_die: int) -> None:
    with time_budget(repr(weights)):
        _use(weights, row_die=row_die, check_die=check_die)


@fuzz_settings(quick=300, long=20_000)
@given(ANY_TEXT)
def test_cli_sample_weights(capsys, text: str) -> None:
    with time_budget(text):
        run_cli(["sample", f"--weights={text}", "-n", "3", "--seed", "1"], capsys)


@fuzz_settings(quick=300, long=20_000)
@given(ANY_TEXT, st.sampled_from(["text", "md", "csv", "html"]))
def test_cli_table_weights(capsys, text: str, fmt: str) -> None:
    with time_budget(text):
        run_cli(["table", f"--weights={text}", "--format", fmt], capsys)
