"""Programs that would run long are answered cheaply or refused up front: function calls
remembered (AnyDice functions are pure), MAX_OUTPUTS, huge operands, EMPTY as one value.
Every check counts work units or calls, never seconds."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from chancekit.anydice import EMPTY, run, run_program
from chancekit.anydice import _interp as I
from chancekit.anydice._parse import parse
from chancekit.dice import Distribution
from chancekit.errors import LimitError
from chancekit.limits import MAX_ANYDICE_WORK, MAX_OUTPUTS, evaluation


def _work(text: str) -> tuple[I.Interpreter, int]:
    """Run ``text``; the interpreter and the work units it charged."""
    interp = I.Interpreter(text, parse(text))
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        interp.run()
    return interp, budget.estimated


def _probs(d: Any) -> dict[int, Fraction]:
    total = sum(d.weights.values())
    return {k: Fraction(v, total) for k, v in d.weights.items()}


# H2's 326c3: an explosion on 2+ to depth 10 expanded 6**10 outcomes before (refused after
# 3.8 s CPU); each level is now computed once
EXPLODE = """function: explode ROLLEDVALUE:n {
 if ROLLEDVALUE > 1 { result: 1 + [explode d6] }
 result: ROLLEDVALUE
}
set "maximum function depth" to 10
output [explode d6]-1 named "explode on 2+"
"""


def test_exploding_recursion_is_answered_level_by_level() -> None:
    interp, work = _work(EXPLODE)
    assert work < MAX_ANYDICE_WORK // 100
    assert interp.memo_hits >= 9 * 4  # the other outcomes of each level

    # independent reference: depth k is a d6 whose 2..6 add 1 + the next level
    @cache
    def level(depth: int) -> dict[int, Fraction]:
        if depth >= 10:
            return {}  # the empty die: that outcome drops out
        out: dict[int, Fraction] = {1: Fraction(1, 6)}
        inner = level(depth + 1)
        if inner:
            for _face in range(2, 7):
                for v, p in inner.items():
                    out[1 + v] = out.get(1 + v, 0) + Fraction(1, 6) * p
        total = sum(out.values())
        return {k: p / total for k, p in out.items()}

    expected = {k - 1: p for k, p in level(0).items()}
    assert _probs(interp.outputs[0][1]) == expected


DOUBLE = """function: f N:n {
 if N > 40 { result: 1 }
 result: [f N+1] + [f N+2]
}
set "maximum function depth" to 30
output [f 1]
output [f d3]
"""


def test_doubly_recursive_function_is_polynomial(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    original = I.Interpreter.run_function

    def counting(self: Any, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(self, *args)

    monkeypatch.setattr(I.Interpreter, "run_function", counting)
    interp, work = _work(DOUBLE)
    assert calls < 2_000  # (2**30 bodies without remembering calls)
    assert work < MAX_ANYDICE_WORK // 100

    # reference: a call at depth 30 gives the empty die, which is 0 in a sum with a number
    @cache
    def f(n: int, depth: int) -> int | None:
        if depth >= 30:
            return None
        if n > 40:
            return 1
        a, b = f(n + 1, depth + 1), f(n + 2, depth + 1)
        if a is None or b is None:
            return b if a is None else a
        return a + b

    assert dict(interp.outputs[0][1].weights) == {f(1, 0): 1}
    assert _probs(interp.outputs[1][1]) == {f(n, 0): Fraction(1, 3) for n in (1, 2, 3)}


@pytest.mark.parametrize("text", [
    DOUBLE.replace("to 30", "to 12").replace("N > 40", "N > 10"),
    EXPLODE.replace("to 10", "to 4"),
    # the caller's variables are part of what a call depends on
    "X: 1\nfunction: f N:n { result: N + X }\noutput [f d4]\nX: 2\noutput [f d4]"
    "\nX: d2\noutput [f d4]",
    # a later definition and a setting change the answer of the same call
    "function: f N:n { result: N + [g] }\nfunction: g { result: 1 }\noutput [f d4]"
    "\nfunction: g { result: 5 }\noutput [f d4]",
    "function: f N:n { result: 1 + [f N] }\noutput [f 1]\nset \"maximum function depth\""
    " to 3\noutput [f 1]",
    # body variables persisting between outcomes of one expansion
    "T: 0\nfunction: f N:n { T: T + N result: T + [g N] }\nfunction: g M:n { result: M * T }"
    "\noutput [f d6]\noutput [f d6] + [f d6]",
    "function: f S:s { result: [g 1@S] + [g 2@S] }\nfunction: g N:n { result: N * 2 }"
    "\noutput [f 3d6]",
])
def test_remembered_calls_give_the_answers_of_fresh_calls(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    remembered = run_program(text)
    monkeypatch.setattr(I, "MEMO_ENTRIES", 0)
    fresh = run_program(text)
    assert remembered == fresh
    outs = [d for _, d in remembered.outputs]
    assert len(outs) >= 1


def test_outputs_past_the_limit_are_refused_before_any_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    evaluated = 0
    original = I.Interpreter.output_dist

    def counting(self: Any, value: Any) -> Any:
        nonlocal evaluated
        evaluated += 1
        return original(self, value)

    monkeypatch.setattr(I.Interpreter, "output_dist", counting)
    for text in ("output 1\nloop I over {1..1000000} { output I }",
                 "loop I over {1..10} { loop J over {1..1000} { output J } }",
                 # the rounds are known only when the loop starts: refused then
                 "X: 100000\nloop I over {1..X} { output I }"):
        with pytest.raises(LimitError, match="MAX_OUTPUTS") as e:
            run(text)
        assert e.value.limit == "MAX_OUTPUTS"
    assert evaluated == 0
    # outputs under an if are not counted ahead (the branch may not run): the output past
    # the limit is refused when it is reached
    with pytest.raises(LimitError, match="MAX_OUTPUTS"):
        run("loop I over {1..100000} { if I > 0 { output I } }")
    assert evaluated == MAX_OUTPUTS
    assert len(run(f"loop I over {{1..{MAX_OUTPUTS}}} {{ output I }}")) == MAX_OUTPUTS


def test_huge_operands_are_refused_without_hashing_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = 0
    original = Distribution.__hash__

    def counting(self: Distribution) -> int:
        nonlocal hashed
        hashed += 1
        return original(self)

    monkeypatch.setattr(Distribution, "__hash__", counting)
    with pytest.raises(LimitError) as e:
        run("output d1000000 * d1000000")
    assert e.value.limit == "MAX_PAIRS"
    assert hashed == 0


def test_empty_is_one_value_through_copy_and_pickle() -> None:
    for f in (copy.copy, copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))):
        assert f(EMPTY) is EMPTY
    result = run_program("output d{}\noutput 2d6 named \"two\"")
    assert copy.deepcopy(result) == result
    assert pickle.loads(pickle.dumps(result)) == result
    assert result != run_program("output d{}")


def test_remembered_calls_are_bounded_in_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # each call gives a different 100-outcome die: 200 of them would be remembered
    text = "function: f N:n { result: dN + d100 }\nloop I over {1..200} { output [f I] }"
    interp, _ = _work(text)
    assert len(interp._memo) == 200 and interp._memo_size > 200 * 100
    monkeypatch.setattr(I, "MEMO_SIZE", 50 * 100 * 12)
    interp, _ = _work(text)
    assert interp._memo_size <= I.MEMO_SIZE and 0 < len(interp._memo) < 60
    assert [d for _, d in interp.outputs] == [d for _, d in run(text)]


def _brute_dice(counts: dict[int, int], faces: dict[int, int]) -> dict[int, Fraction]:
    """``counts`` d ``faces`` by hand: every k-fold sum convolved, mixed by weight."""
    ft, ct = sum(faces.values()), sum(counts.values())
    out: dict[int, Fraction] = {}
    for k, wk in counts.items():
        sums = {0: Fraction(1)}
        sign = -1 if k < 0 else 1  # (AnyDice: (-N)dX is Nd(-X))
        for _ in range(abs(k)):
            nxt: dict[int, Fraction] = {}
            for s, p in sums.items():
                for f, w in faces.items():
                    nxt[s + sign * f] = nxt.get(s + sign * f, 0) + p * Fraction(w, ft)
            sums = nxt
        for s, p in sums.items():
            out[s] = out.get(s, 0) + p * Fraction(wk, ct)
    return out


@pytest.mark.parametrize(("count", "faces"), [
    ("d4", "d4"), ("d{0,0,3}", "d{0,2,2,5}"), ("2d3", "d{1,1,6}"), ("d{0..4}", "d2"),
    ("d{-2,1}", "d3"), ("d3", "d{-1,4}"),  # (negative: the mixture path)
])
def test_die_valued_count_matches_brute_force(count: str, faces: str) -> None:
    def probs(text: str) -> dict[int, Fraction]:
        return _probs(run(f"output {text}")[0][1])

    got = probs(f"({count})d({faces})")
    counts, face = (run(f"output {x}")[0][1].weights for x in (count, faces))
    assert got == _brute_dice(dict(counts), dict(face))


def test_nested_die_counts_are_composed_not_mixed(monkeypatch: pytest.MonkeyPatch) -> None:
    mixed = 0
    original = Distribution.mixture.__func__  # type: ignore[attr-defined]

    def counting(cls: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal mixed
        mixed += 1
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(Distribution, "mixture", classmethod(counting))
    d = run("output d4d4d4d4d4d4")[0][1]  # (3.5 s of big-weight mixtures before)
    assert mixed == 0 and min(d.weights) == 1 and max(d.weights) == 4**6
    with pytest.raises(LimitError, match="MAX_ANYDICE_WORK"):
        run("output d4d4d4d4d4d4d4")
    assert mixed == 0


@pytest.fixture
def sums(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls of Distribution.repeat_sum (the list's length)."""
    calls: list[int] = []
    original = Distribution.repeat_sum

    def counting(self: Distribution, n: int) -> Distribution:
        calls.append(n)
        return original(self, n)

    monkeypatch.setattr(Distribution, "repeat_sum", counting)
    return calls


def test_expansion_over_a_huge_sum_is_refused_before_summing(sums: list[int]) -> None:
    # (H8-style hostile input: 10d100000 has 999,991 sums, each a call of the function)
    with pytest.raises(LimitError, match="at least 999,991 outcomes") as e:
        run("function: f N:n { result: N / 2 }\noutput [f 10d100000]")
    assert e.value.limit == "MAX_ANYDICE_WORK" and not sums
    assert len(run("function: f N:n { result: N / 2 }\noutput [f 10d6]")[0][1]) == 26


def test_exploding_a_huge_pool_is_refused_before_summing(sums: list[int]) -> None:
    with pytest.raises(LimitError, match="at least 1,999,981 outcomes") as e:
        run("output [explode 10d100000]")
    assert e.value.limit == "MAX_OUTCOMES" and not sums
    # under the bound: the engine's explosion of the sum, as before
    got = run("output [explode 3d6]")[0][1]
    assert got == Distribution.repeat_sum(run("output d6")[0][1], 3).explode(depth=2)


def test_a_pool_as_dice_count_is_checked_before_summing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    summed = 0
    original = Distribution.repeat_sum

    def counting(self: Distribution, n: int) -> Distribution:
        nonlocal summed
        summed += 1
        return original(self, n)

    monkeypatch.setattr(Distribution, "repeat_sum", counting)
    with pytest.raises(LimitError, match="up to 1000000 dice") as e:
        run("output 10 d 100000d2")  # ((10d100000)d2: up to a million d2s)
    assert e.value.limit == "MAX_DICE" and summed == 0
    assert _probs(run("output (2d3)d6")[0][1]) == _brute_dice(
        {2: 1, 3: 2, 4: 3, 5: 2, 6: 1}, dict.fromkeys(range(1, 7), 1))


# f818 (dev corpus), which AnyDice gave up on: a snake draft of 24 rolled stats. The
# scattered positions were refused (the rank rule's state bound counted every partial sum
# of every count of dice placed: 645 M units); the bound beside one count of dice left
# and the engine's own count puts the whole program at about 136 M.
F818_TOTALS = """function: stat{
result: [highest 3 of 4d6]
}
output {1,8,9,16,17,24}@24d([stat])
output {2,7,10,15,18,23}@24d([stat])
output {3,6,11,14,19,22}@24d([stat])
output {4,5,12,13,20,21}@24d([stat])
"""


def test_scattered_positions_of_24_dice_are_answered() -> None:
    _, units = _work(F818_TOTALS)
    assert units < MAX_ANYDICE_WORK  # charged up front, not refused
    dists = [d for _, d in run(F818_TOTALS)]
    # the four players split all 24 dice: their means add up to 24 stats' mean
    stat = run("output [highest 3 of 4d6]")[0][1]
    assert sum(d.mean() for d in dists) == 24 * stat.mean()
    for d in dists:  # six stats each, between 3 and 18
        assert min(d.outcomes()) == 18 and max(d.outcomes()) == 108
    # a player's six stats sum at least the lowest six and at most the highest six
    assert dists[0].mean() < dists[3].mean() < run(
        "output {1..6}@24d[highest 3 of 4d6]")[0][1].mean()


@pytest.mark.parametrize(("n", "sides", "ranks"), [
    (24, 16, (1, 8, 9, 16, 17, 24)), (30, 20, (2, 7, 10, 15, 18, 23, 29)),
    (20, 12, tuple(range(2, 21, 3))), (12, 6, (1, 1, 3, 12)), (16, 30, (5, 6)),
])
def test_scattered_positions_are_charged_what_the_walk_counts(
        n: int, sides: int, ranks: tuple[int, ...]) -> None:
    """The engine's backstop refuses past CALIBRATION_FACTOR x the limit of counted work;
    the rank rule's estimate keeps the count within that factor, so a walk charged under
    the limit is never stopped half way."""
    from collections import Counter

    from chancekit.anydice._values import select
    from chancekit.dice import clear_caches, d
    from chancekit.limits import CALIBRATION_FACTOR

    clear_caches()
    with evaluation(limit=10**12, name="TEST") as budget:
        select(d(sides), n, Counter(ranks))
    assert 0 < budget.counted <= CALIBRATION_FACTOR * budget.estimated
