"""Issue 31, items 1-2 (fourth pass): the units recalibrated where the hang shapes still
ran past 5 s of CPU (docs/fuzzing.md, "Fourth pass"): sums of equal dice priced by flint's
own algorithm, every polynomial sum charged, shifts of wide dice, the estimate of big
mixtures kept cheaper than the mixture, built-in calls remembered, ``dN`` kept built. Every
check counts units, calls or values, never seconds."""

from __future__ import annotations

import random

import pytest

from chancekit import anydice, limits
from chancekit.anydice import _values as V
from chancekit.dice import d
from chancekit.dice.distribution import Distribution
from chancekit.limits import evaluation, mul_work, power_work


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Count the calls of ``owner.name`` from now on (the list's one item)."""
    calls = [0]
    real = getattr(owner, name)

    def counted(*args: object) -> object:
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(owner, name, counted)
    return calls


def _work(fn) -> int:
    with evaluation(limit=10**15, name="MAX_WORK") as budget:
        fn()
    return budget.estimated


# -- limits.power_work follows flint's choice ------------------------------------------

@pytest.mark.parametrize(("faces", "dice"), [(17, 250), (40, 100), (100, 50), (60, 300)])
def test_a_recurrence_power_is_charged_a_unit_a_term_at_least(faces: int, dice: int) -> None:
    # flint's _fmpz_poly_pow takes J.C.P. Miller's recurrence while the input's words are
    # fewer than (3n/2 + 150) / length: length x span terms (the old price charged
    # span x bits x length / 1000, 40-145 ns a unit for these measured)
    span = dice * (faces - 1) + 1
    bits = dice * faces.bit_length()
    assert 1 < (3 * dice // 2 + 150) // faces  # the recurrence, by flint's rule
    assert power_work(faces, span, bits) >= faces * span * (1 + bits // 64 // 8)
    assert _work(lambda: d(faces).repeat_sum(dice)) == power_work(faces, span, bits)


def test_a_squaring_power_is_charged_by_the_words_of_its_result() -> None:
    # 100 dice of 1000 faces: flint squares (1000 > (150 + 150) / 1); an FFT product a
    # square, priced by the words of the result times their log
    span, bits = 100 * 999 + 1, 100 * 10
    words = bits // 64 + 1
    assert power_work(1000, span, bits) >= span * words * (span * words).bit_length() // 2
    # two faces: binomial coefficients, far cheaper than either
    assert power_work(2, 10001, 10000) < power_work(3, 20001, 10000 * 2) // 4


def test_every_polynomial_sum_is_charged_its_call_and_coefficients() -> None:
    # small sums were free (under 400 pairs): hang-212 added 35 000 of them, 3.6 s uncharged
    assert _work(lambda: d(6) + d(6)) == mul_work(6, 6, 6) >= 600 + 12 * 20
    assert _work(lambda: d(2) + d(3)) > 0


# -- shifts ------------------------------------------------------------------------------

def test_a_shift_equals_the_map_it_replaces() -> None:
    rng = random.Random(31)
    for _ in range(200):
        w = {rng.randint(-50, 50): rng.getrandbits(rng.choice((3, 70, 700))) + 1
             for _ in range(rng.randint(1, 30))}
        x = Distribution(w)
        c = rng.randint(-10**20, 10**20)
        mapped = x.map(lambda v, c=c: v + c)
        assert x + c == mapped == c + x
        assert x - c == x.map(lambda v, c=c: v - c)
        assert x + Distribution({c: 3}) == mapped == Distribution({c: 1}) + x
        assert list((x + c).weights) == sorted((x + c).weights)  # outcomes stay in order
        assert hash(x + c) == hash(mapped)
    # c - X reverses the order: the map keeps that path
    assert (5 - d(6)).weights == {-1: 1, 0: 1, 1: 1, 2: 1, 3: 1, 4: 1}


def test_a_shift_is_charged_its_outcomes_and_wide_weights_in_anydice() -> None:
    narrow = Distribution({i: 1 + i for i in range(1000)})
    wide = Distribution({i: (1 << 2048) + i for i in range(1000)})
    assert _work(lambda: narrow + 3) == _work(lambda: wide + 3) >= 1000 * limits.ENTRY_WORK
    # AnyDice's operator charges the weights' width beside it, linearly (hang-200: 3 300
    # shifts of 1 200 outcomes of 2 048 bits; the results hashed into its caches), not as
    # products (1300f mutated, 200d120 + 200d80 + ... + 8000: a shift of 39 000 outcomes
    # of 2 688 bits was charged 29 M units of Karatsuba products and refused)
    V._RESULTS.clear()
    shifted = _work(lambda: V._pairwise_new("+", wide, 3))
    assert 1000 * 32 // 2 <= shifted - _work(lambda: wide + 3) < 1000 * 2 * 32**1.5
    assert _work(lambda: V._pairwise_new("*", wide, 3)) >= 1000 * 2 * 32**1.5


def test_a_map_is_charged_more_for_wide_weights() -> None:
    narrow = Distribution({i: 1 + i for i in range(1000)})
    wide = Distribution({i: (1 << 8192) + i for i in range(1000)})
    assert _work(lambda: wide.map(abs)) - _work(lambda: narrow.map(abs)) >= 1000 * 80


# -- big mixtures: an estimate cheaper than the work -------------------------------------

def _parts(n_parts: int, size: int, bits: int, seed: int = 7) -> tuple[list, list]:
    rng = random.Random(seed)
    parts = [Distribution({k: rng.getrandbits(bits) | 1 for k in range(j, j + size)})
             for j in range(n_parts)]
    return parts, [rng.randint(1, 9) for _ in parts]


def _lcm(parts: list) -> int:
    import math
    out = 1
    for p in parts:
        out = out * p.total // math.gcd(out, p.total)
    return out


def test_a_big_mixture_is_estimated_part_by_part(monkeypatch: pytest.MonkeyPatch) -> None:
    # hang-200: 4.3 s of estimates (a Python step and a product price per entry) for 0.9 s
    # of mixtures; past MIX_EXACT_ENTRIES the estimate takes O(parts) Python steps
    parts, weights = _parts(40, 1000, 1100)
    assert sum(len(p) for p in parts) > V.MIX_EXACT_ENTRIES
    calls = _counting(monkeypatch, V, "int_mul_work")
    units, _ = V.mix_work(parts, weights, _lcm(parts))
    assert calls[0] <= 2 * len(parts)
    monkeypatch.setattr(V, "MIX_EXACT_ENTRIES", 10**9)  # the exact way, entry by entry
    calls[0] = 0
    exact, _ = V.mix_work(parts, weights, _lcm(parts))
    assert calls[0] >= 40 * 1000
    # weights of one width (the hang shapes'): the bound is above the exact estimate and
    # within a small factor of it
    assert exact <= units <= 8 * exact


def test_the_smallest_weight_bound_against_brute_force() -> None:
    # the gcd of a mixture's weights starts from its smallest (linear beside a light one,
    # 149c7; quadratic when all are wide, 149bd): the bound is never below the truth, and
    # finds a light outcome that is lightest in its part
    rng = random.Random(149)
    for _trial in range(60):
        parts = []
        for _ in range(rng.randint(1, 12)):
            keys = rng.sample(range(40), rng.randint(1, 15))
            parts.append(Distribution({k: rng.getrandbits(rng.choice((5, 300, 3000))) + 1
                                       for k in keys}))
        scales = [rng.randint(0, 500) for _ in parts]
        pairs = list(zip(parts, scales, strict=True))
        mins = [min(p.weights.values()).bit_length() + s for p, s in pairs]
        truth = min(max(p.weights[x].bit_length() + s for p, s in pairs
                        if x in p.weights)
                    for x in {k for p in parts for k in p.weights})
        bound = V._smallest_bits(parts, scales, mins)
        assert bound >= truth
    # one outcome light in every part, the rest wide: found
    parts = [Distribution({-1: 1, **{k: (1 << 4000) + k for k in range(j, j + 50)}})
             for j in range(30)]
    scales = [10] * len(parts)
    mins = [min(p.weights.values()).bit_length() + 10 for p in parts]
    assert V._smallest_bits(parts, scales, mins) == 11


# -- the interpreter ---------------------------------------------------------------------

def test_a_builtin_call_is_computed_once_per_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    from chancekit.anydice import library

    calls = _counting(monkeypatch, library, "_ranks")
    program = ("function: f A:n { T: 0\n loop J over {1..A} { T: T + [highest 2 of 3d6] }\n"
               " result: T }\noutput [f 50]")
    (_, dist), = anydice.run(program)
    assert calls[0] == 1
    # each call is still its own roll: the sum of 50 independent "highest 2 of 3d6", the
    # keep brute-forced over the 216 rolls and added 50 times
    import itertools
    from collections import Counter
    keep = Distribution(Counter(sum(sorted(r)[1:]) for r in itertools.product(range(1, 7),
                                                                              repeat=3)))
    total = keep
    for _ in range(49):
        total = total + keep
    assert dist == total


def test_a_setting_clears_remembered_builtin_calls() -> None:
    program = ('output [explode d6] named "a"\nset "explode depth" to 1\n'
               'output [explode d6] named "b"')
    (_, a), (_, b) = anydice.run(program)
    assert a != b
    assert a == d(6).explode(depth=2) and b == d(6).explode(depth=1)


def test_a_standard_die_is_built_once_while_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # hang-212 built dA for A up to ~300 again each time once 64 dice were kept
    V._STANDARD.clear()
    built = _counting(monkeypatch, V, "_standard_die")
    for _ in range(3):
        for n in range(1, 301):
            assert V.standard_die(n) == d(n)
    assert built[0] == 300
    # bounded by faces: a million-face die pushes the others out
    V.standard_die(999_999)
    V.standard_die(100_000)
    assert V._STANDARD.used == 100_000 and len(V._STANDARD) == 1


def test_a_feature_rule_step_is_charged_its_features() -> None:
    # 34cf8 mutated: 185 walks of 9d900 with a sum feature, 62 ns a charged unit, 9 s;
    # a feature rule's step loops over its features in Python: 2-3 times a plain step
    import operator

    from chancekit.anydice._pools import _FeatureRule
    from chancekit.dice import FaceRule, evaluate_pool
    from chancekit.dice.facewalk import STEP_WORK

    plain = FaceRule(lambda st, f, c: st + c[0] * f, initial=0)
    one = _FeatureRule((("sum",),))
    two = _FeatureRule((("sum",), ("cmp", operator.gt, 5)))
    assert plain.step_work == STEP_WORK
    assert one.step_work == 3 * STEP_WORK and two.step_work == 4 * STEP_WORK
    units = [_work(lambda r=r: evaluate_pool(r, 4 * [d(10)])) for r in (plain, one, two)]
    assert units[0] * 3 == units[1] and units[0] * 4 <= units[2]  # (more states too)
    # the same answer as the plain rule's (and a brute force of 10^4 rolls)
    import itertools
    from collections import Counter
    brute = Distribution(Counter(sum(r) for r in itertools.product(range(1, 11), repeat=4)))
    assert evaluate_pool(plain, 4 * [d(10)]) == brute
    assert evaluate_pool(one, 4 * [d(10)]).map(lambda t: t[0]) == brute


def test_an_expansion_over_sorted_rolls_is_refused_before_they_are_enumerated(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 1649a mutated: [count DIE in 5d42] enumerated 2.7 M sorted rolls (5 s), then the
    # expansion over them was refused
    import itertools
    from collections import Counter

    from chancekit.errors import LimitError

    enumerated = _counting(monkeypatch, V, "multisets")
    with pytest.raises(LimitError) as e:
        anydice.run("output [count d2 in 6d100]")
    assert "expanded over" in str(e.value) and enumerated[0] == 0
    # a small pool is enumerated and answered: the count of the d2's face among 3d4,
    # brute-forced over the 2 x 64 rolls
    (_, got), = anydice.run("output [count d2 in 3d4]")
    assert enumerated[0] == 1
    brute = Counter(sum(1 for x in r if x == v)
                    for v in (1, 2) for r in itertools.product(range(1, 5), repeat=3))
    assert got == Distribution(brute)


RISUS = '''function: risus FIRST:d vs SECOND:d {
  result: [compare 1@FIRST and 1@SECOND then FIRST and SECOND then #FIRST and #SECOND]
}
function: compare HIA:n and HIB:n then SUMA:n and SUMB:n then NA:n and NB:n {
  if HIA > HIB { result: 1 }
  if HIA < HIB { result: -1 }
  if SUMA > SUMB { result: 1 }
  if SUMA < SUMB { result: -1 }
  if NA < NB { result: 1 }
  if NA > NB { result: -1 }
  result: 0
}
loop I over {1..6}{
  loop J over {I..6}{
    output [risus Id6 vs Jd6] named "[I]d6 vs [J]d6"
  }
}
'''


def test_a_ladder_of_results_is_charged_its_longest_path() -> None:
    # posita's 903d (MIT, posita/anydice-data): 21 expansions of a six-rung ladder over
    # 6 x 6 x 31 x 31 outcomes were charged every rung's result (76 nodes an outcome)
    # and refused after 1.2 s; the longest path is the six conditions and one result
    from chancekit.anydice import _ast as A
    from chancekit.anydice._interp import RESULT_NODES, path_cost
    from chancekit.anydice._parse import parse

    program = parse(RISUS)
    compare = next(s for s in program if isinstance(s, A.FunctionDef)
                   and s.key[0] == "compare")
    body = compare.body
    rungs = [s for s in body if isinstance(s, A.If)]
    paths = []  # each way a run can go: exit at rung i, or past every rung
    spent = 0
    for s in rungs:
        spent += 1 + s.branches[0][0].size
        paths.append(spent + s.branches[0][1][0].size + RESULT_NODES)
    paths.append(spent + body[-1].size + RESULT_NODES)
    assert path_cost(body) == max(paths) < sum(paths)
    # an if whose branch does not end the run adds its branch to every later path
    loose = parse("function: f X:n { if X > 1 { Y: X + 1 } result: X }")[0].body
    assert path_cost(loose) == (1 + loose[0].branches[0][0].size
                                + loose[0].branches[0][1][0].size
                                + loose[1].size + RESULT_NODES)
    # and the program is answered under the default budget; two of its answers checked by
    # brute force under AnyDice's rule: each :n parameter given a die is expanded on its
    # own (1@FIRST and FIRST are independent there)
    import itertools
    from collections import Counter

    def rolls(i: int) -> list[tuple[int, ...]]:
        return list(itertools.product(range(1, 7), repeat=i))

    def ladder(hia: int, hib: int, suma: int, sumb: int, na: int, nb: int) -> int:
        for x, y in ((hia, hib), (suma, sumb), (nb, na)):
            if x != y:
                return 1 if x > y else -1
        return 0

    with evaluation(limit=limits.MAX_ANYDICE_WORK, name="MAX_ANYDICE_WORK") as budget:
        outputs = dict(anydice.run(RISUS))
    assert budget.estimated <= limits.MAX_ANYDICE_WORK
    for i, j in ((1, 1), (1, 2)):
        brute: Counter[int] = Counter()
        for ha, hb, sa, sb in itertools.product(rolls(i), rolls(j), rolls(i), rolls(j)):
            brute[ladder(max(ha), max(hb), sum(sa), sum(sb), i, j)] += 1
        assert outputs[f"{i}d6 vs {j}d6"] == Distribution(brute)


def test_a_die_valued_count_is_priced_as_its_composition() -> None:
    # 3183d (posita): 1d6+1d681d8 was charged a power per count (163 M units, refused)
    # for one polynomial composition of 0.2 s; the composition is priced by its size
    with evaluation(limit=10**15, name="MAX_ANYDICE_WORK") as budget:
        (_, got), = anydice.run("output 1d681d8")
    top, width = 681, 7
    assert V.compose_work(top, width, 4) <= budget.estimated < 40_000_000
    assert budget.estimated >= (top * width + 1) * 30  # every coefficient converted
    # the answer against the mixture of the 681 sums, built one by one
    one = d(8)
    sums, acc = [], one
    for _ in range(top):
        sums.append(acc)
        acc = acc + one
    assert got == Distribution.mixture(sums, [1] * top)
    # counts with wide weights cost more: their bits are in the price
    assert V.compose_work(4096, 3, 2, 2731) > V.compose_work(4096, 3, 2)
