"""Issue 31, items 1-2 (second pass): the classes of programs that the mutation, hang-shape
and grammar fuzz runs (tools/fuzz_anydice.py, docs/fuzzing.md) found running past 5 s of CPU
before an answer or a refusal, each priced by what it does. Every check counts work units
(estimates charged before the work), never seconds."""

from __future__ import annotations

from fractions import Fraction

import pytest

from chancekit.dice import d
from chancekit.dice.facewalk import _keep_costs, keep_work
from chancekit.limits import MAX_WORK


def test_a_keep_of_wide_dice_is_priced_by_its_kronecker_products() -> None:
    # [lowest 7 of 14d1000] was charged 45 M units and ran 4.8 s (about 100 ns a unit,
    # five times the unit); 10d1000kh5 17 M units for 2 s. The products of the
    # threshold-face way are now priced at their measured cost: both past the 1 s budget
    # of one step (MAX_WORK) or near it, as their time says
    assert _keep_costs(d(1000), 14, 7, False)[0] >= 3 * 45_000_000
    assert keep_work(d(1000), 14, 7, highest=False) > 2 * MAX_WORK
    assert keep_work(d(1000), 10, 5) > 40_000_000
    # dice of few faces (schoolbook products) keep their price: 300d6kh150 in 20-75 ms
    # (2.4 M units since the copies' refit, issue 31's fifth pass: about 50 ms)
    assert keep_work(d(6), 300, 150) < 4_000_000


def test_a_mixture_is_charged_its_entries_at_their_measured_price() -> None:
    # 212d5 mutated: 663 mixtures of an expansion over d120 charged 4 M units (5 an entry)
    # ran 2.5 s; an entry is scaled and added into a dict, 250-450 ns
    from chancekit.anydice import _values as V

    parts = [d(6).repeat_sum(k) + i for k in (20, 40) for i in range(30)]
    entries = sum(len(p) for p in parts)
    units, _ = V.mix_work(parts, list(range(1, 61)), 6**40)
    assert units >= V.MIX_ENTRY_WORK * entries >= 12 * entries


def test_the_same_dice_sum_in_an_expanded_body_is_computed_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 26b36 mutated: a body writing 40d6 + 20d8 summed them again for each of the 1,991
    # outcomes of 10d200 (8,800 sums, 8 s of CPU, each charged at its power's price)
    from chancekit.anydice import run_program
    from chancekit.dice.distribution import Distribution

    calls: list[int] = []
    real = Distribution.repeat_sum

    def counted(self: Distribution, n: int) -> Distribution:
        calls.append(n)
        return real(self, n)

    monkeypatch.setattr(Distribution, "repeat_sum", counted)
    out = run_program("function: X:n bites {\n if X >= 1500 {result: 37d6 + 19d8 + 1}\n"
                      " result: 0\n}\noutput [10d200 bites]\n").outputs[0][1]
    assert calls.count(37) <= 1 and calls.count(19) <= 1
    # the answer, against 10d200 summed directly: 0 when the sum is under 1500
    sums = real(d(200), 10)
    low = sum(w for x, w in sums.weights.items() if x < 1500)
    assert out.probability(0) == Fraction(low, sums.total)


def test_engine_work_past_the_budget_is_refused_before_it_runs() -> None:
    # three outputs of big sums: 154 M units of the engine's steps (measured 35 ns a unit
    # under load: 5.5 s of CPU) were inside the old 250 M budget; MAX_ANYDICE_WORK is 140 M
    from chancekit.anydice import _values as V
    from chancekit.anydice import run_program
    from chancekit.errors import LimitError
    from chancekit.limits import MAX_ANYDICE_WORK

    V._SUMS.clear()  # (a sum remembered from another test would cost nothing)
    text = "output 3000d6\noutput 1500d20\noutput 800d100 + 400d10\n"
    with pytest.raises(LimitError) as e:
        run_program(text)
    # refused at the last step, before it runs: the whole program's units in the message
    assert e.value.limit == "MAX_ANYDICE_WORK"
    # (301 M units since issue 31's power_work: 800d100 alone is 79 M, 1.6 s measured)
    assert MAX_ANYDICE_WORK < e.value.value < 2 * MAX_ANYDICE_WORK + 100_000_000


def test_a_sum_of_dice_of_tens_of_faces_is_charged_its_power_recurrence() -> None:
    # the hang shapes summed ~20-250 dice of 10-150 faces thousands of times at 40-185 ns
    # a unit of the old price; limits.power_work now follows flint's own choice: 50d100
    # is J.C.P. Miller's recurrence, one term per (face, coefficient of the result), each
    # a product of a word or more (charged at least one unit a term, ~30 ns measured)
    from chancekit.anydice import _values as V
    from chancekit.limits import evaluation, power_work

    V._SUMS.clear()
    base = d(100)
    with evaluation(limit=10**12, name="MAX_ANYDICE_WORK") as budget:
        _ = V.Die(base, 50).dist
    span = 50 * 99 + 1
    assert budget.estimated >= 100 * span + span  # the terms, and a coefficient each read
    assert budget.estimated == power_work(100, span, 50 * 7)  # the engine's price alone
    # remembered: the same sum again is not charged (nor computed)
    with evaluation(limit=10**12, name="MAX_ANYDICE_WORK") as again:
        _ = V.Die(base, 50).dist
    assert again.estimated == 0
    # few faces: the same price (the recurrence over 6 faces)
    V._SUMS.clear()
    with evaluation(limit=10**12, name="MAX_ANYDICE_WORK") as six:
        _ = V.Die(d(6), 1000).dist
    assert six.estimated == power_work(6, 5001, 3000) >= 6 * 5001
