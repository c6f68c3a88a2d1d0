"""The estimate of mixing a function's results (``_values.mix_work``): a die mixed into
itself in a loop squares its denominators each round, so its exact weights reach millions
of bits. Reducing them costs one gcd quadratic in the SMALLEST weight and linear passes
over the others (the gcd starts from the smallest weight), so a die with one small weight
beside million-bit ones (corpus 149c7: the out-of-range ``-1`` left ever rarer) is cheap
and answered exactly, while one whose every weight is huge (149bd: most of the mass stays
on ``-1``; ~19 s) is refused before the costly round starts. Also: a sum of dense dice
is priced by the engine's polynomial product, not pair by pair, and a die-valued count's
mixture is charged before it runs. Checks count work units and LimitErrors, never
seconds; the expected answers are closed forms."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from chancekit.anydice import _values as V
from chancekit.anydice import run_program
from chancekit.dice import Distribution
from chancekit.errors import LimitError
from chancekit.limits import MAX_ANYDICE_WORK, evaluation

#: 149c7's and 149bd's function: an out-of-range roll is replaced by a roll of the die
#: itself, twenty rounds (each round squares the chance of staying out of range)
RESTRICT = """function: restrict ROLL:n to RANGE:s else REROLL:d {
  if ROLL = RANGE { result: ROLL }
  else { result: REROLL }
}
function: restrict ROLL:d to RANGE:s {
  loop I over {1..20} { ROLL: [restrict ROLL to RANGE else ROLL] }
  result: ROLL
}
"""


def _run(text: str) -> tuple[Distribution, int]:
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        result = run_program(text)
    return result.outputs[-1][1], budget.estimated


def test_a_rare_out_of_range_outcome_is_answered_exactly() -> None:
    # P(-1) = 1/8 squared twenty times: 8**-(2**20); the seven others share the rest
    # equally, so the weights are 1 and (8**N - 1) / 7 over 8**N (8**N - 1 is 0 mod 7)
    d, units = _run(RESTRICT + "output [restrict d{-1, 1..7} to {1..7}]\n")
    n = 8 ** 2**20  # a 3,145,729-bit total
    assert d.total == n
    assert dict(d.weights) == {-1: 1, **{k: (n - 1) // 7 for k in range(1, 8)}}
    # the old estimate (2 x the widest weight's words squared) refused this at 786,432
    # bits: 400 M units; now linear passes, well inside the budget
    assert units < MAX_ANYDICE_WORK // 2  # (// 4 while the budget was 250 M)


def test_its_summary_moments_are_priced_and_rounded() -> None:
    # the exact central moments of a 3-million-bit total multiply and reduce numbers a
    # few times as wide (minutes); shape_work counts them, so the summary is rounded
    from chancekit.dice.stats import shape, shape_work
    from chancekit.limits import SHAPE_WORK

    d, _ = _run(RESTRICT + "output [restrict d{-1, 1..7} to {1..7}]\n")
    assert shape_work(d) > 100 * SHAPE_WORK
    s = shape(d)
    assert s["exact"] is False
    n = 8 ** 2**20
    assert s["mean"] == d.mean() == Fraction(28 * (n - 1) // 7 - 1, n)  # 4 (1 - 8**-N) - 8**-N
    assert abs(s["variance"] - 4.0) < 1e-12  # the variance of d7, 4, less a vanishing term


def test_a_die_with_every_weight_huge_is_refused_by_the_mixing_estimate() -> None:
    # -1 keeps 7/15 of the mass each round: every weight grows, and the gcd of the
    # reduction is quadratic in the smallest of them
    with pytest.raises(LimitError, match="mixing the results of a function") as err:
        _run(RESTRICT + "output [restrict d{-1:7, 1..8} to {1..8}]\n")
    assert err.value.limit == "MAX_ANYDICE_WORK"
    # refused at the round whose weights first pass a million bits (the 20th would have
    # about eight million before reduction), before that round's gcd starts
    bits = int(re.search(r"with ([\d,]+)-bit weights", str(err.value))[1].replace(",", ""))
    assert 500_000 < bits < 2_000_000


A = 3**600_000  # a 950,979-bit number
SMALL = Distribution({-1: 1, 1: 3 * A + 1})  # one small weight beside a huge one (149c7)
HUGE = Distribution({-1: A, 1: 3 * A + 1})  # every weight huge (149bd); cheap to reduce


def test_mixing_beside_a_small_weight_is_cheap_and_exact() -> None:
    # P(-1) = 1/(3A + 2) in the die, and the die is chosen with that same chance: the
    # mixture's P(-1) is its square
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        die = V.mix([(V.Die.single(SMALL), 1), (1, 3 * A + 1)])
    t = (3 * A + 2) ** 2
    assert die.dist.total == t
    assert dict(die.dist.weights) == {-1: 1, 1: t - 1}
    # one Karatsuba product (the weight of 1 is (3A + 1)(3A + 2)) and linear passes; no
    # gcd of two huge numbers
    assert budget.estimated < MAX_ANYDICE_WORK // 10
    huge = V.mix_work([HUGE, Distribution({1: 1})], [A, 3 * A + 1], 4 * A + 1)[0]
    assert 10 * budget.estimated < huge


def test_mixing_huge_weights_only_is_charged_quadratically_and_refused() -> None:
    units = V.mix_work([HUGE, Distribution({1: 1})], [A, 3 * A + 1], 4 * A + 1)[0]
    words = 2 * A.bit_length() // 64  # the pre-reduction weights, ~1.9 million bits
    assert units > words * words // 4  # one Lehmer gcd over the smallest of them
    assert units > MAX_ANYDICE_WORK
    with (pytest.raises(LimitError, match="mixing the results of a function"),
          evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget):
        V.mix([(V.Die.single(HUGE), A), (1, 3 * A + 1)])
    assert budget.estimated < MAX_ANYDICE_WORK  # the refused step was not charged


def test_a_sum_of_dense_dice_is_priced_by_the_engine_not_pair_by_pair() -> None:
    # posita 36969: 14 million pairs of 5,000- and 600-bit weights were charged 34 G units
    # as products; it is one polynomial product (0.3 s), priced by the engine
    d, units = _run("output 2000d6+200d8+3000\n")
    assert units < MAX_ANYDICE_WORK // 2  # (// 4 while the budget was 250 M)
    assert d.total == 6**2000 * 8**200
    assert d.weights[5200] == 1 and d.weights[16600] == 1  # all ones, all highest: one way
    assert d.mean() == 2000 * Fraction(7, 2) + 200 * Fraction(9, 2) + 3000


def test_a_die_valued_count_with_huge_weights_charges_its_mixture() -> None:
    # negative counts: no polynomial composition, a mixture of the k-fold sums whose
    # weights carry the count die's 30,000-bit weights
    big = 3**20_000
    count = V.Die.single(Distribution({-2: big, 2: big + 1}))
    with (pytest.raises(LimitError, match="mixing the sums of a die-valued count"),
          evaluation(limit=200_000, name="MAX_ANYDICE_WORK")):
        V.dice(count, 6)
    with evaluation(limit=MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        die = V.dice(count, 6)
    assert budget.estimated > 200_000
    # P(sum = -12) = P(count = -2) / 36, exactly
    assert die.dist.probability(-12) == Fraction(big, 36 * (2 * big + 1))
