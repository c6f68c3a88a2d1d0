"""Issue 31: every path of the AnyDice interpreter charged (die-valued arguments in loops
whose weights square each round), estimates that agree with the work, and the output of
``d{}`` as a distribution with no outcomes. Every check counts work units or bits, never
seconds."""

from __future__ import annotations

import pickle
from fractions import Fraction
from typing import Any

import pytest

from chancekit.anydice import EMPTY, Empty, run, run_program
from chancekit.anydice import _interp as I
from chancekit.anydice import _values as V
from chancekit.anydice._parse import parse
from chancekit.dice import Distribution
from chancekit.errors import InvalidValueError, LimitError
from chancekit.limits import MAX_ANYDICE_WORK, evaluation

# the shape of the hidden corpus's hang (issue 31): each round replaces D by the larger of
# two copies of itself, so the exact weights square every round (AnyDice's floats do not)
HANG = """function: helper A:n B:n {
  if A > B { result: A }
  result: B
}
function: P:d minus Q:d loop N:n {
  D: P - Q
  loop I over {1..N} {
    D: [helper 1dD 1dD]
  }
  result: D
}
"""


def _work(text: str) -> int:
    interp = I.Interpreter(text, parse(text))
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        interp.run()
    return budget.estimated


def _max_of_copies(n: int) -> dict[int, Fraction]:
    """Oracle: D_0 = d6 - d6 by enumeration, D_{k+1} = max of two independent copies of
    D_k, so P(D_n <= x) = P(D_0 <= x) ** (2 ** n)."""
    base: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            base[a - b] = base.get(a - b, 0) + Fraction(1, 36)
    cdf, run_ = {}, Fraction(0)
    for x in sorted(base):
        run_ += base[x]
        cdf[x] = run_ ** (2**n)
    out, prev = {}, Fraction(0)
    for x in sorted(cdf):
        out[x] = cdf[x] - prev
        prev = cdf[x]
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_hang_shape_small_loops_match_the_oracle(n: int) -> None:
    (_, dist), = run(HANG + f"output [d6 minus d6 loop {n}]")
    assert dist.pmf() == _max_of_copies(n)


def test_hang_shape_is_refused_before_its_weights_grow_past_two_million_bits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    widest = [0]
    real_mix = V.mix

    def mix(results: list[tuple[Any, int]]) -> V.Die:
        widest[0] = max([widest[0], *(w.bit_length() for _, w in results)])
        return real_mix(results)

    monkeypatch.setattr(V, "mix", mix)
    text = HANG + "\n".join(f"output [d6 minus d6 loop {n}]" for n in (45, 50, 55))
    with pytest.raises(LimitError) as e:
        run_program(text)
    assert e.value.limit == "MAX_ANYDICE_WORK"
    # (unpriced, the products of round k were 121 products of 5 x 2**k-bit weights: round
    # 17, 680,000 bits, took 7 s; round 20 ran for minutes)
    assert 0 < widest[0] < 2_000_000


def test_wide_weight_products_are_charged_with_their_width() -> None:
    # each round squares the weights: the work charged for a round grows with their width
    # (Karatsuba: about 3x a round), not with its 121 combinations alone (the same each round)
    w12, w13, w14 = (_work(HANG + f"output [d6 minus d6 loop {n}]") for n in (12, 13, 14))
    assert w14 - w13 > 2.5 * (w13 - w12)


def test_weight_product_work_prices_the_product_and_the_sum() -> None:
    narrow = [[(1, 1), (2, 3)], [(1, 1)]]
    assert V.weight_product_work(narrow) < 5
    wide = [[(1, 2**64_000)], [(2, 2**64_000)]]  # 1001-word weights
    assert V.weight_product_work(wide) >= V.int_mul_work(1001, 1001)


def test_wide_number_results_are_reduced_with_their_gcd_priced() -> None:
    big = 2**70_000
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        same = V.reduce_priced({1: 3 * big, 2: 3 * big, 3: 6 * big})  # multiples: linear
    assert dict(same.weights) == {1: 1, 2: 1, 3: 2}
    assert budget.estimated < 10**5
    a, b = 3**44_000 + 1, 5**30_000 + 2  # unrelated wide weights: a quadratic gcd
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        mixed = V.reduce_priced({1: a, 2: b})
    assert mixed.total == a + b or mixed.total < a + b
    assert budget.estimated >= V.gcd_work(V.words(b), V.words(a % b)) * V.BIG_MARGIN


# -- d{}: a distribution with no outcomes ------------------------------------------------------

def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")} | {
        n for n in ("__len__", "__iter__", "__contains__", "__eq__", "__add__") if hasattr(cls, n)}


def test_empty_has_every_public_name_of_distribution() -> None:
    assert _public(Distribution) <= _public(Empty)


def test_empty_output_reads_as_no_outcomes() -> None:
    (label, e), (_, two) = run('output d{} named "nothing"\noutput 2d6')
    assert label == "nothing" and isinstance(e, Empty) and e == EMPTY and two != EMPTY
    assert len(e) == 0 and list(e) == [] and e.total == 0 and dict(e.weights) == {}
    assert e.outcomes() == () and e.items() == () and e.pmf() == {} and 3 not in e
    assert e.probability(3) == e.at_least(1) == e.at_most(1) == 0
    assert e.cumulative() == () and e.cumulative_float() == ()
    assert e.capped_mass == 0
    for same in (e.map(abs), e.clamp(1, 2), e.explode(), e.reroll([1]), e.repeat_sum(3),
                 e.eq(1), e.lt(two), e.max(two), e + two, e + 1, 1 + e):
        assert same == EMPTY
    assert e.to_dict()["outcomes"] == [] and '"total": "0"' in e.to_json()
    assert Empty.mixture([two, Distribution({1: 1})]).total > 0


@pytest.mark.parametrize("stat", ["mean", "variance", "sd", "median", "mode", "entropy"])
def test_statistics_of_nothing_name_the_output(stat: str) -> None:
    (_, e), = run('output d{} named "the void"')
    with pytest.raises(InvalidValueError, match=r'the output "the void" is the empty die d\{\}'):
        getattr(e, stat)()
    with pytest.raises(InvalidValueError, match="no quantile"):
        e.quantile(Fraction(1, 2))
    with pytest.raises(InvalidValueError, match="no mean"):
        _ = e.uncapped_mean
    with pytest.raises(InvalidValueError, match=r"^an output is the empty die"):
        EMPTY.mean()


def test_unnamed_empty_outputs_are_named_by_their_number() -> None:
    outs = run("output 1\noutput {}")
    with pytest.raises(InvalidValueError, match='"output 2"'):
        outs[1][1].mean()


def test_named_empty_survives_pickle() -> None:
    (_, e), = run('output d{} named "x"')
    back = pickle.loads(pickle.dumps(e))
    assert back == EMPTY and back.label == "x"
    assert pickle.loads(pickle.dumps(EMPTY)) is EMPTY
    assert hash(e) == hash(EMPTY)
    with pytest.raises(TypeError):
        bool(e)
