"""No silent caps (issue 21 item 3): the probability that an explosion reached its depth
cap, the exact uncapped mean, how both propagate, the note on the command line, and the
API's explosion depth limit agreeing with docs/limits.md.

The capped mass is checked against an independent brute force: every sequence of die
results of a small pool with a small depth, rolled by a roller written here that flags
a chain whose last allowed extra die would have exploded again. The uncapped mean is
checked against closed forms (``1d6!`` 21/5; the usage die d12 -> d4 of the issue, 20)
and against the capped means converging to it as the depth grows.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import pytest
from test_notation_brute import enumerate_tapes

from chancekit.cli.main import main
from chancekit.dice import Pool, d
from chancekit.dice.caps import CappedDistribution, fields, note
from chancekit.dice.distribution import Distribution
from chancekit.dice.modifiers import explode_work, max_explode_depth
from chancekit.dice.notation import dist
from chancekit.dice.selectors import at_least, at_most, equal
from chancekit.errors import LimitError
from chancekit.limits import MAX_EXPLODE_DEPTH, MAX_WORK


def _brute_capped(sides: int, n: int, depth: int, explodes: Any, pre: str = "",
                  pre_match: Any = None) -> Fraction:
    """P(some chain reaches the cap) by enumerating every roll: each of ``n`` dice is
    rolled (``pre``: "ro" rerolls a ``pre_match`` value once, "mi2" raises to 2), then
    explodes while ``explodes(value)``, at most ``depth`` fresh dice; the cap is reached
    when the last fresh die allowed would explode again."""
    def fn(choose: Any) -> int:
        hit = 0
        for _ in range(n):
            v = choose(sides) + 1
            if pre == "ro" and pre_match(v):
                v = choose(sides) + 1
            elif pre == "mi2":
                v = max(v, 2)
            extra = 0
            while explodes(v):
                if extra == depth:
                    hit = 1
                    break
                v = choose(sides) + 1  # a fresh die, raw
                extra += 1
        return hit
    pmf, cut = enumerate_tapes(fn, max_draws=60)
    assert cut == 0
    return pmf.get(1, Fraction(0))


@pytest.mark.parametrize(("sides", "n", "depth", "build", "explodes", "pre", "pre_match"), [
    (4, 1, 2, lambda p: p.explode(equal(4)), lambda v: v == 4, "", None),
    (4, 2, 2, lambda p: p.explode(equal(4)), lambda v: v == 4, "", None),
    (3, 2, 3, lambda p: p.explode(at_least(2)), lambda v: v >= 2, "", None),
    (4, 2, 2, lambda p: p.compound(equal(4)), lambda v: v == 4, "", None),
    (4, 2, 2, lambda p: p.penetrate(equal(4)), lambda v: v == 4, "", None),
    (4, 2, 2, lambda p: p.reroll(equal(4), once=True).explode(equal(4)), lambda v: v == 4,
     "ro", lambda v: v == 4),
    (4, 2, 2, lambda p: p.reroll(at_most(1), once=True).explode(at_least(3)),
     lambda v: v >= 3, "ro", lambda v: v <= 1),
    (4, 2, 2, lambda p: p.clamp(lo=2).explode(at_most(2)), lambda v: v <= 2, "mi2", None),
    (3, 3, 1, lambda p: p.explode(equal(3)), lambda v: v == 3, "", None),
])
def test_capped_mass_equals_brute_force(sides: int, n: int, depth: int, build: Any,
                                        explodes: Any, pre: str, pre_match: Any) -> None:
    got = build(Pool(d(sides), n, depth=depth)).sum()
    assert got.capped_mass == _brute_capped(sides, n, depth, explodes, pre, pre_match)
    assert got.capped_mass > 0


def test_the_api_explosion_says_how_much_reached_the_cap() -> None:
    x = d(6).explode()
    assert isinstance(x, CappedDistribution)
    assert x.capped_mass == Fraction(1, 6) ** 21
    assert x.uncapped_mean == Fraction(21, 5)  # 3.5 * 6 / 5, the 4.2
    assert x.mean() < x.uncapped_mean
    assert d(6).explode(depth=3).capped_mass == Fraction(1, 6) ** 4
    assert d(10).explode([9, 10], depth=5).uncapped_mean == Fraction(55, 10) / Fraction(8, 10)
    assert d(6).capped_mass == 0 and d(6).uncapped_mean == Fraction(7, 2)
    assert d(6).explode(depth=0).capped_mass == 0


def test_notation_cap_and_exact_uncapped_means() -> None:
    assert dist("1d6!").uncapped_mean == Fraction(21, 5)
    assert dist("3d6!").uncapped_mean == Fraction(63, 5)
    assert dist("3d6!").capped_mass == 1 - (1 - Fraction(1, 6) ** 21) ** 3
    # the usage die: rolls until a 1 or 2 on d12, d10, d8, d6, d4 (each roll of
    # the chain counts one): the exact answer is the sum of half of each die's size, 20
    usage = "+".join(f"1d{s}!>=3>=1" for s in (12, 10, 8, 6, 4))
    u = dist(usage, dialect="roll20")
    assert u.uncapped_mean == 20
    assert u.mean() < 20 and u.capped_mass > Fraction(3, 100)
    # counts with explosions (World of Darkness): Wald's identity, 12 x (0.3 - 0.1) / 0.9
    assert dist("12d10!10>=8f1", dialect="roll20").uncapped_mean == Fraction(8, 3)
    assert dist("12d10e10cs>=8df1").uncapped_mean == Fraction(8, 3)
    # compounding (the chain summed into the die), penetrating (each fresh die one less)
    assert dist("3d6!!", dialect="roll20").uncapped_mean == Fraction(63, 5)
    # 3.5 + (1/6) x 2.5 / (5/6): each of the 1/5-expected fresh dice counts 2.5
    assert dist("1d6!p", dialect="roll20").uncapped_mean == 4
    # no closed form past a keep: the mass is still said
    kh = dist("4d6!kh3")
    assert kh.uncapped_mean is None and kh.capped_mass > 0
    assert dist("4d6kh3").capped_mass == 0 and type(dist("4d6kh3")) is Distribution


@pytest.mark.parametrize(("build", "umean"), [
    (lambda D: Pool(d(6), 1, depth=D).explode(equal(6)), Fraction(21, 5)),
    (lambda D: Pool(d(6), 2, depth=D).reroll(equal(1), once=True).explode(at_least(5)),
     None),
    (lambda D: Pool(d(4), 3, depth=D).penetrate(equal(4)), None),
    (lambda D: Pool(d(10), 4, depth=D).explode(equal(10)).count(at_least(8), fail=equal(1)),
     Fraction(4 * 2, 9)),
    (lambda D: Pool(d(8), 2, depth=D).compound(at_least(7)), None),
    (lambda D: Pool(d(6), 2, depth=D).clamp(lo=3).explode(equal(6)), None),
])
def test_uncapped_means_are_the_limit_of_deeper_caps(build: Any, umean: Any) -> None:
    got = build(30).sum()
    if umean is not None:
        assert got.uncapped_mean == umean
    um = got.uncapped_mean
    assert um is not None
    gaps = [abs(um - build(depth).sum().mean()) for depth in (4, 8, 16, 30)]
    assert gaps == sorted(gaps, reverse=True) and gaps[0] > 0
    assert gaps[-1] < Fraction(1, 10**6)
    # the capped mass bounds how far the capped answer can move with more depth
    shallow, deep = build(4).sum(), build(30).sum()
    tv = sum(abs(shallow.probability(x) - deep.probability(x))
             for x in set(shallow.outcomes()) | set(deep.outcomes())) / 2
    assert 0 < tv <= shallow.capped_mass


def test_propagation() -> None:
    x, y = dist("1d6!"), dist("1d8!")
    a, b = x.capped_mass, y.capped_mass
    s = dist("1d6! + 1d8!")
    assert s.capped_mass == 1 - (1 - a) * (1 - b)
    assert s.uncapped_mean == Fraction(21, 5) + Fraction(9, 2) / Fraction(7, 8)
    assert (x + y).capped_mass == s.capped_mass and (x + y) == s
    assert (d(4) + x).capped_mass == a  # the reflected operator of the capped side
    assert (x - 1).uncapped_mean == Fraction(16, 5)
    assert (2 * x).uncapped_mean == Fraction(42, 5) and (x / 2).uncapped_mean == Fraction(21, 10)
    assert (-x).uncapped_mean == Fraction(-21, 5)
    assert (3 @ x).capped_mass == 1 - (1 - a) ** 3 and (3 @ x).uncapped_mean == Fraction(63, 5)
    for cmp in ("1d6! >= 10", "10 <= 1d6!", "max(1d6!, 1d6!)", "floor(1d6!/2)"):
        got = dist(cmp, dialect="roll20")
        assert got.capped_mass > 0 and got.uncapped_mean is None, cmp
    assert dist("max(1d6!, 1d6!)", dialect="roll20").capped_mass == 1 - (1 - a) ** 2
    assert dist("(1d6!, 1d6!)kh1").capped_mass == 1 - (1 - a) ** 2
    # a rolled number of dice: the weighted mixture, exactly
    mix = dist("(1d2)d6!")
    assert mix.capped_mass == (a + (1 - (1 - a) ** 2)) / 2
    assert mix.uncapped_mean == Fraction(3, 2) * Fraction(21, 5)
    # a classmethod reached through a capped value builds a value without a cap
    m = x.mixture([d(4), d(6)])
    assert m.capped_mass == 0 and m.uncapped_mean == 3
    # equality, hashing and saving ignore the cap
    plain = Distribution(dict(x.weights))
    assert plain == x and hash(plain) == hash(x) and {x: 1}[plain] == 1
    assert Distribution.from_dict(x.to_dict()) == x


def test_note_and_fields() -> None:
    (line,) = note(dist("1d6!"), "1d6!")
    assert "stop after 20 extra dice per die" in line and "exactly 21/5 = 4.2" in line
    assert note(dist("4d6!kh3"), "4d6!kh3")[0].endswith("no closed form here")
    assert note(dist("4d6kh3"), "4d6kh3") == []
    f = fields(dist("1d6!"))
    assert Fraction(f["capped_mass"]) == Fraction(1, 6) ** 21
    assert f["uncapped_mean"] == "21/5" and f["uncapped_mean_float"] == 4.2
    assert fields(dist("2d6")) == {"capped_mass": "0", "capped_mass_float": 0.0,
                                   "uncapped_mean": "7", "uncapped_mean_float": 7.0}


def test_command_line_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "1d6!"]) == 0
    err = capsys.readouterr().err
    assert "stop after 20 extra dice" in err and "exactly 21/5" in err
    assert main(["dist", "3d6"]) == 0
    assert "extra dice" not in capsys.readouterr().err
    assert main(["dist", "1d6!", "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("reached that cap" in n for n in notes)


# ------------------------------------------------------------------ the depth limit
def test_depths_past_the_old_refusal_work() -> None:
    # the estimate counted the weights' bits twice: depth 100 of a d6 was refused
    assert len(d(6).explode(depth=300)) == 300 * 5 + 6
    assert max_explode_depth(6, 6) >= 500
    assert max_explode_depth(2, 2) > max_explode_depth(6, 6) > max_explode_depth(20, 20) > (
        max_explode_depth(100, 100)) >= 50


def test_past_the_work_budget_the_refusal_names_the_deepest_depth() -> None:
    most = max_explode_depth(20, 20)
    assert explode_work(20, 20, most) <= MAX_WORK < explode_work(20, 20, most + 1)
    with pytest.raises(LimitError) as e:
        d(20).explode(depth=most + 1)
    assert e.value.limit == "MAX_WORK"
    assert f"depth={most}" in str(e.value) and f"use depth <= {most}" in str(e.value)
    assert re.search(r"probability below 1e-\d+", str(e.value))
    with pytest.raises(LimitError) as e:
        d(6).explode(depth=MAX_EXPLODE_DEPTH + 1)
    assert e.value.limit == "MAX_EXPLODE_DEPTH"


def test_docs_state_the_true_explosion_limit() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `MAX_EXPLODE_DEPTH`"))
    for sides in (2, 6, 20, 100):
        assert f"d{sides} {max_explode_depth(sides, sides):,}" in row, sides
    dice = (Path(__file__).resolve().parents[2] / "docs" / "dice.md").read_text()
    assert f"a d6 explodes to depth {max_explode_depth(6, 6)}" in dice
    assert f"depth {max_explode_depth(6, 6)} for a d6" in dice
    notation = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text()
    assert "capped_mass" in notation and "uncapped_mean" in notation


def test_uncapped_means_against_icepool_deep_explosions() -> None:
    """icepool (an independent engine) exploding far deeper than 20: its means approach
    our exact uncapped means within the tail our capped mass bounds."""
    import icepool

    for n, sides, faces, ours in ((1, 6, [6], dist("1d6!")), (1, 10, [9, 10], dist("1d10e>8")),
                                  (3, 4, [4], dist("3d4!"))):
        deep = icepool.Die(range(1, sides + 1)).explode(faces, depth=80)
        theirs = Fraction(deep.mean()) * n
        assert ours.uncapped_mean is not None
        assert abs(ours.uncapped_mean - theirs) < Fraction(1, 10**30), (sides, faces)
        assert ours.uncapped_mean - Fraction(ours.mean()) > 0


def test_the_web_calculator_result_says_so() -> None:
    from chancekit.web.compute import dist_job

    got = dist_job({"expressions": [{"text": "1d6!"}, {"text": "3d6"}]}, lambda *a: None)
    capped, plain = got["series"]
    assert capped["caps"]["uncapped_mean"] == "21/5"
    assert Fraction(capped["caps"]["capped_mass"]) == Fraction(1, 6) ** 21
    assert any("reached that cap" in n for n in capped["notes"])
    assert plain["caps"]["capped_mass"] == "0" and plain["notes"] == []


CAPPED = [("3d6e6", "avrae"), ("2d6!", "avrae"), ("2d6e>4", "avrae"), ("3d4!kh2", "avrae"),
          ("2d6e6kl1", "avrae"), ("2d4e4e3", "avrae"), ("2d4e4p4", "avrae"),
          ("2d3e3mi2", "avrae"), ("2d4k>2e4", "avrae"), ("2d4ro<3e4", "avrae"),
          ("(1d6e6, 1d4e4)kh1", "avrae"), ("4d6e6cs>=5df1", "avrae"), ("1d4! >= 5", "avrae"),
          ("3d6!!", "roll20"), ("2d6!p", "roll20"), ("{4d6!}kh2", "roll20"),
          ("6d6!>=5>=5f1", "roll20"), ("2d4!!kh1", "roll20"), ("3d4x>=3cs>=4", "foundry"),
          ("max(1d4x, 1d6x)", "foundry"), ("(1d2)d4!", "avrae")]


@pytest.mark.parametrize(("text", "dialect"), CAPPED, ids=[t for t, _ in CAPPED])
def test_the_capped_mass_bounds_what_more_depth_changes(text: str, dialect: str,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Through every engine (closed forms, face walks, the general engine, sets,
    functions): two depths' answers differ by at most the sum of their capped masses
    (each is within its own mass of the uncapped law), and the uncapped mean, when
    given, is the same at both depths and the deeper mean is closer to it."""
    import chancekit.dice._compile as compile_mod

    got = {}
    for depth in (2, 12):
        monkeypatch.setattr(compile_mod, "EXPLODE_DEPTH", depth)
        got[depth] = dist(text, dialect=dialect)
    a, b = got[2], got[12]
    assert a.capped_mass > b.capped_mass > 0, text
    tv = sum(abs(a.probability(x) - b.probability(x))
             for x in set(a.outcomes()) | set(b.outcomes())) / 2
    assert tv <= a.capped_mass + b.capped_mass, text
    assert a.uncapped_mean == b.uncapped_mean
    if a.uncapped_mean is not None:
        um = a.uncapped_mean
        assert abs(um - Fraction(b.mean())) <= abs(um - Fraction(a.mean())), text
