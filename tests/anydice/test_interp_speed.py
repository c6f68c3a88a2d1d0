"""The interpreter's shortcuts (issue #28: the AnyDice page in the browser) change no
answer: constant expressions with dice computed once per structure and setting, result:
returned rather than raised, the fast sequence literals; checked against programs written
so that no shortcut applies, and by counting the work the shortcuts save."""
from __future__ import annotations

from fractions import Fraction

import pytest

from chancekit import anydice, limits
from chancekit.anydice import _interp
from chancekit.dice import d


def _outputs(text: str) -> list[tuple[str, object]]:
    return list(anydice.run(text))


def test_a_repeated_constant_sum_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three outputs share the start of a sum: its value is built once (counted: the
    constant cache's misses), and every answer equals the sum built by the library."""
    misses = []
    orig = _interp.Interpreter.constant

    def spy(self: _interp.Interpreter, key: object, fn: object) -> object:
        cached = orig(self, key, fn)

        def counted(env: dict[str, object]) -> object:
            if key not in self._consts:
                misses.append(key)
            return cached(env)

        return counted

    monkeypatch.setattr(_interp.Interpreter, "constant", spy)
    program = ("output 10+1d10+24+3d8\n"
               "output 10+1d10+24+3d8 + 2d6\n"
               "output (10+1d10+24+3d8)*2 + 2d6\n")
    got = _outputs(program)
    base = 10 + d(10) + 24 + 3 @ d(8)
    assert [dist for _, dist in got] == [base, base + 2 @ d(6), base * 2 + 2 @ d(6)]
    # (10+1d10), +24, +3d8 and 2d6 each built once; the repeats are hits
    keys = [k for k in misses if k[0] == "dice"]
    assert len(keys) == len(set(keys))


def test_a_setting_between_equal_expressions_is_honoured() -> None:
    """``1@3d6`` before and after "lowest first": the same text, two different values."""
    got = _outputs('output 1@3d6\nset "position order" to "lowest first"\noutput 1@3d6\n'
                   'set "position order" to "highest first"\noutput 1@3d6')
    high, low, again = (dist for _, dist in got)
    assert high != low and high == again
    assert high.probability(6) == 1 - Fraction(5, 6) ** 3
    assert low.probability(1) == 1 - Fraction(5, 6) ** 3


def test_results_inside_loops_and_branches() -> None:
    """result: from inside a loop inside an if, and a function that ends without one
    (the empty die), as AnyDice answers them."""
    program = """
function: first over T:n in S:s {
  loop X over S {
    if X > T { result: X }
  }
}
function: nothing {
  if 0 { result: 1 }
}
output [first over 3 in {1, 5, 7}]
output [first over 3 in 1d6]
output [nothing] + 2
"""
    got = dict(_outputs(program))
    assert got["output 1"] == d(1) + 4  # 5
    # 1d6 as a sequence is one roll: its value when above 3, else no result (dropped)
    assert got["output 2"] == anydice.run("output d{4,5,6}")[0][1]
    assert got["output 3"] == d(1) + 1  # [nothing] is d{}: read as 0 by +


def test_sequence_literals_fast_and_general_agree() -> None:
    """{A, B} and {A..B} through their fast paths equal the general path's answer."""
    program = """
S: {1, {2, 3}, 4}
R: {2..5}
E: {5..2}
W: {1..70}
output #S + #R + #E + #W
output {S, R}@d4
output [count {1..3, 6} in 3d6]
"""
    got = [dist for _, dist in _outputs(program)]
    assert got[0] == d(1) + 4 + 4 + 0 + 70 - 1
    assert got[1] == d(4).map(lambda i: (1, 2, 3, 4)[i - 1])
    want = (3 @ d(6).map(lambda x: int(x in (1, 2, 3, 6))))
    assert got[2] == want


def test_a_huge_range_in_a_loop_is_still_refused_up_front() -> None:
    with pytest.raises(limits.LimitError):
        anydice.run("loop X over {1..100000000} { output X }")
