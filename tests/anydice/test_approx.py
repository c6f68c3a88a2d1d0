"""AnyDice's certified answers (issue #31, item 7): ``run(program, approx=True)``.

Small programs are run the certified way from a low threshold (every weight past 2 bits
rounded to intervals, at 24 and 64 bits of precision) and checked against their exact
answers: every interval must contain the exact probability, with the same support. The
corpus programs refused for huge weights (149bd, 183d4, 22432, copied from
../shared/anydice/corpus-dev.jsonl) get answers within 1e-12 per outcome whose intervals
contain AnyDice's published figures (or an independent computation, where AnyDice's own
floats are off)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from chancekit.anydice import _run_exact, run, run_program
from chancekit.dice import Distribution, d
from chancekit.dice import certified as C
from chancekit.errors import InvalidValueError, LimitError

P149BD = r"""CHARACTERISTIC: 11
DIE: [highest of 0 and d20 - CHARACTERISTIC + 1]

function: lowest N:n of ROLL:s if lowest in RANGE:s {
  REV: [reverse ROLL]
  if 1@REV = RANGE { result: {1..N}@REV }
  else { result: -1 } \ out of range \
}

FOO: [lowest 2 of 3dDIE if lowest in {0}]
BAR: [lowest 2 of 3dDIE if lowest in {1..20}]

function: restrict ROLL:n to RANGE:s else REROLL:d {
  if ROLL = RANGE { result: ROLL }
  else { result: REROLL }
}
function: restrict ROLL:d to RANGE:s {
  TEMP: ROLL
  loop I over {1..20} {
    TEMP: [restrict TEMP to RANGE else TEMP]
  }
  result: TEMP
}

output [restrict FOO to {0..99}] named "skill needed if lowest < [CHARACTERISTIC]"
output [restrict BAR to {0..99}] named "skill needed if lowest >= [CHARACTERISTIC]"
"""

P183D4 = r"""function: exclude RANGE:s from ROLL:n {
  if ROLL = RANGE { result: d{} }
  result: ROLL
}
function: sign of NUM:n {
  result: (NUM > 0) - (NUM < 0)
}
function: P:d minus Q:d {
  DIFF: P - Q
  loop I over {1..ROUNDS} {
    TEMP: [exclude 0 from DIFF]
    DIFF: (DIFF != 0) * [sign of TEMP + TEMP]
  }
  result: [exclude -1 from DIFF]
}

output [d2 = 1 minus d3 = 1] named "1/2 - 1/3 = 1/6"
output [d3 = 1 minus d2 = 1] named "1/3 - 1/2 = -1/6 (clipped to 0)"
output [d10000 <= 5000 minus d10000 <= 4999] named "5000/10000 - 4999/10000 = 1/10000"
"""

P22432 = r"""function: highest of N:n x D:d {
  if N = 0 { result: 0 }
  if N = 1 { result: D }
  RES: 1@2d[highest of N/2 x D]
  if N - (N/2)*2 = 1 { RES: [highest of D and RES] }
  result: RES
}

set "maximum function depth" to 99

A: [highest of COUNT x d6]
B: [highest of 2 x d8]
C: [highest of 1 x d12]
TARGET_DIST: [highest of A and [highest of B and C]]
output TARGET_DIST named "highest of 10 million d6, 2d8 and 1d12"

function: roll X x D and Y x E and Z x F versus TARGET:n {
  P: D > TARGET
  Q: E > TARGET
  R: F > TARGET
  result: XdP + YdQ + ZdR
}

output [roll 2 x d6 and 100 x d8 and 1 x d12 versus TARGET_DIST]
"""

P149C7_SMALL = r"""function: restrict ROLL:n to RANGE:s else REROLL:d {
  if ROLL = RANGE { result: ROLL }
  else { result: REROLL }
}
function: restrict ROLL:d to RANGE:s {
  loop I over {1..4} {
    ROLL: [restrict ROLL to RANGE else ROLL]
  }
  result: ROLL
}
function: middle of ROLL:s if lowest in RANGE:s {
  if 3@ROLL = RANGE { result: 2@ROLL }
  else { result: -1 }
}
DIST: [middle of 3d8 if lowest in {1..4}]
output DIST
output [restrict DIST to {1..8}]
output [highest 1 of 3d[restrict DIST to {1..8}]]
output [lowest 1 of 3d[restrict DIST to {1..8}]]
output 3d[restrict DIST to {1..8}] - d4
output [restrict DIST to {1..8}]d2
output [absolute [restrict DIST to {1..8}] - 5]
output [count {1, 2} in 2d[restrict DIST to {1..8}]]
output [4d6 contains [restrict DIST to {1..8}]]
"""


def certified_run(text: str, from_bits: int = 2, bits: int = 32):
    with C.mode(from_bits), C.precision(bits):
        return _run_exact(text).outputs


def assert_contains(got, exact: Distribution) -> None:
    if isinstance(got, Distribution):
        assert got == exact
        return
    assert isinstance(got, C.CertifiedDistribution)
    assert got.contains(exact), (got, exact)


@pytest.mark.parametrize("text", [
    P149C7_SMALL,
    P183D4.replace("ROUNDS", "3"),
    P22432.replace("COUNT", "37"),
    "X: d6 + d6\nloop I over {1..3} { X: [highest of X and d8] - (X > 6) }\noutput X",
    "function: f N:n { if N > 3 { result: d{} } result: N * d4 }\noutput [f 2d6 - 1]",
    "X: d4 + d3\nfunction: f R:s { result: 1@R + 3@R }\nfunction: g R:s { if R = 2 "
    "{ result: 1 } result: 0 }\noutput [f 3dX]\noutput [g 2dX]\noutput [middle 1 of 3dX]\n"
    "output 2@4dX",
    "X: d4 + d3\noutput (1d3)dX\noutput (d3 - 2)dX\noutput Xd4",
    # several positions, keeps of several, explosions (certified.select / explode)
    "X: d4 + d3 - 3\noutput {1,2}@4dX\noutput [highest 2 of 4dX]\noutput [lowest 2 of 5dX]"
    "\noutput [middle 2 of 5dX]\noutput {1,1,3}@3dX\noutput {2,4}@5dX"
    "\noutput [highest 3 of 2dX and 2dX]",
    "X: d4 + d3\noutput [explode X]\noutput [explode 2dX]\nset \"explode depth\" to 4"
    "\noutput [explode X] + X",
])
@pytest.mark.parametrize("bits", [24, 64])
def test_certified_runs_contain_the_exact_answer(text, bits):
    exact = _run_exact(text).outputs
    got = certified_run(text, bits=bits)
    assert [label for label, _ in got] == [label for label, _ in exact]
    certified = 0
    for (_, g), (_, e) in zip(got, exact, strict=True):
        assert_contains(g, e)
        certified += isinstance(g, C.CertifiedDistribution)
    assert certified  # the threshold of 2 bits did send them the certified way


def test_refusal_offers_the_certified_answer():
    with pytest.raises(LimitError) as e:
        run(P149BD)
    assert "approx=True" in str(e.value) and "--approx" in str(e.value)
    assert e.value.approx is True
    assert e.value.limit == "MAX_ANYDICE_WORK"
    # a refusal for work that huge weights did not cause offers nothing
    with pytest.raises(LimitError) as e:
        run("T: 0\nfunction: f S:s { T: T + 1 result: T }\noutput [f 20d20]")
    assert "approx" not in str(e.value) and not getattr(e.value, "approx", False)
    with pytest.raises(LimitError) as e:
        run(P22432.replace("COUNT", "10000000"))
    assert e.value.approx is True


def test_149bd_certified_within_1e_12():
    outs = run(P149BD, approx=True)
    first, second = (dist for _, dist in outs)
    for dist in (first, second):
        assert isinstance(dist, C.CertifiedDistribution)
        assert dist.max_error <= 1e-12
        lo, hi = dist.interval(-1)
        assert hi < Fraction(1, 10**12)  # AnyDice prints -1 as 0
    # AnyDice's figures (percent), corpus-dev.jsonl
    for x, pct in ((0, "57.1428571429"), (1, "8.14285714286"), (10, "0.428571428571")):
        lo, hi = first.interval(x)
        assert lo * 100 - Fraction(1, 10**8) <= Fraction(pct) <= hi * 100 + Fraction(1, 10**8)
    for x, pct in ((2, "2.8"), (3, "5.1"), (8, "10")):
        lo, hi = second.interval(x)
        assert lo * 100 - Fraction(1, 10**8) <= Fraction(pct) <= hi * 100 + Fraction(1, 10**8)


def test_183d4_certified_within_1e_12():
    outs = run(P183D4.replace("ROUNDS", "50"), approx=True)
    wanted = [{0: Fraction(5, 6), 1: Fraction(1, 6)}, {0: Fraction(1)},
              {0: Fraction(9999, 10000), 1: Fraction(1, 10000)}]
    for (_, dist), want in zip(outs, wanted, strict=True):
        if isinstance(dist, Distribution):
            continue
        assert dist.max_error <= 1e-12
        for x, p in want.items():
            lo, hi = dist.interval(x)
            assert lo - Fraction(1, 10**12) <= p <= hi + Fraction(1, 10**12)


def test_22432_certified_against_an_independent_computation():
    outs = run(P22432.replace("COUNT", "10000000"), approx=True)
    (_, target), (_, roll) = outs
    assert isinstance(target, C.CertifiedDistribution)
    assert target.max_error <= 1e-12 and roll.max_error <= 1e-12
    # the highest of ten million d6 is 6 but with probability (5/6)**10**7: the target
    # is max(6, 2d8 highest, d12) up to that, and rolling 0 successes is computed apart
    t = d(8).max(d(8)).max(d(12)).max(6)
    for x in range(6, 13):
        lo, hi = target.interval(x)
        assert lo - Fraction(1, 10**12) <= t.probability(x) <= hi + Fraction(1, 10**12)
    p0 = sum(t.probability(v) * Fraction(min(v, 6), 6) ** 2 * Fraction(min(v, 8), 8) ** 100
             * Fraction(min(v, 12), 12) for v in t.outcomes())
    lo, hi = roll.interval(0)
    assert lo - Fraction(1, 10**12) <= p0 <= hi + Fraction(1, 10**12)


def test_exact_answers_stay_exact_with_approx():
    outs = run("output 3d6\noutput [highest 3 of 4d6]", approx=True)
    assert all(isinstance(dist, Distribution) for _, dist in outs)
    assert outs[0][1] == 3 @ d(6)


def test_other_refusals_are_not_retried():
    with pytest.raises(LimitError) as e:
        run("output {1..2000000}", approx=True)
    assert e.value.limit == "MAX_SEQUENCE"
    with pytest.raises(InvalidValueError) as e:
        run_program("output 1", approx=True, max_error=0)
    assert "max_error" in str(e.value)


def test_a_path_without_a_certified_way_says_so():
    # the highest two of two different dice: no certified path past the threshold
    text = ("X: 3d6\nloop I over {1..40} { X: [highest of X and 2d6] }\n"
            "output [highest 2 of 2dX and 2d6]")
    with C.mode(8), C.precision(64), pytest.raises(LimitError) as e:
        _run_exact(text)
    assert e.value.limit == "certified path"
