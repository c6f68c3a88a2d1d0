"""Symbol dice (chancekit.dice.symbols): the value type, pools against brute force over
every face combination (itertools.product), cancelling, projections, the Genesys dice and
their pool notation, and the work refused up front."""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from chancekit.dice import (
    GENESYS,
    Distribution,
    Symbols,
    cancel,
    d,
    genesys,
    genesys_pool,
    project,
    symbol_die,
    symbol_pool,
)
from chancekit.dice.symbols import GENESYS_CANCEL, GENESYS_COUNTS_AS, _convolve
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, NotationError
from chancekit.limits import evaluation

# -- brute force ----------------------------------------------------------------------------


def _faces(die: Distribution) -> list[Symbols]:
    """The die's faces with repetitions (weights are small integers here)."""
    return [s for s, w in die.items() for _ in range(w)]


def _net(s: Symbols) -> Symbols:
    """Genesys netting, written out by hand (independent of _Net)."""
    succ = s["success"] + s["triumph"] - s["failure"] - s["despair"]
    adv = s["advantage"] - s["threat"]
    out = {"triumph": s["triumph"], "despair": s["despair"]}
    out["success" if succ > 0 else "failure"] = abs(succ)
    out["advantage" if adv > 0 else "threat"] = abs(adv)
    return Symbols(out)


def brute(dice: list[Distribution], net: bool = False) -> Distribution:
    counts: Counter[Symbols] = Counter()
    for roll in itertools.product(*(_faces(x) for x in dice)):
        s = sum(roll, Symbols())
        counts[_net(s) if net else s] += 1
    return Distribution(dict(counts))


G = GENESYS
POOLS = {
    "1A": [G["ability"]],
    "2A1P vs 2D": [G["ability"]] * 2 + [G["proficiency"], G["difficulty"], G["difficulty"]],
    "1P1B vs 1C1S": [G["proficiency"], G["boost"], G["challenge"], G["setback"]],
    "3A vs 1D1C": [G["ability"]] * 3 + [G["difficulty"], G["challenge"]],
    "2P vs 2C": [G["proficiency"]] * 2 + [G["challenge"]] * 2,
    "1A1B1P vs 1D1C1S": [G[k] for k in GENESYS],
}


@pytest.mark.parametrize("spec", sorted(POOLS))
def test_genesys_pools_match_brute_force(spec: str) -> None:
    dice = POOLS[spec]
    assert genesys(spec) == brute(dice, net=True)
    assert genesys(spec, net=False) == brute(dice)
    # cancelling the joint afterwards gives the same as cancelling per die
    assert cancel(genesys(spec, net=False), GENESYS_CANCEL,
                  counts_as=GENESYS_COUNTS_AS) == genesys(spec)


def test_success_chance_against_brute_force() -> None:
    dice = POOLS["2A1P vs 2D"]
    rolls = list(itertools.product(*(_faces(x) for x in dice)))
    wins = sum(_net(sum(r, Symbols()))["success"] >= 1 for r in rolls)
    assert project(genesys("2A1P vs 2D"), "success").at_least(1) == Fraction(wins, len(rolls))


def test_the_published_faces() -> None:
    # face counts per die, as printed: sides, and how many faces show each symbol in all
    def totals(die: Distribution) -> tuple[int, dict[str, int]]:
        sides = {8: 8, 12: 12, 6: 6, 3: 6}[die.total]  # setback's 2:2:2 reduces to 1:1:1
        faces = [s for s, w in die.items() for _ in range(w * sides // die.total)]
        return len(faces), dict(sum(faces, Symbols()))
    assert totals(G["ability"]) == (8, {"advantage": 5, "success": 5})
    assert totals(G["proficiency"]) == (12, {"advantage": 8, "success": 9, "triumph": 1})
    assert totals(G["boost"]) == (6, {"advantage": 4, "success": 2})
    assert totals(G["difficulty"]) == (8, {"failure": 4, "threat": 6})
    assert totals(G["challenge"]) == (12, {"despair": 1, "failure": 8, "threat": 8})
    assert totals(G["setback"]) == (6, {"failure": 2, "threat": 2})
    # one ability die: success on S, S, SS, SA
    assert project(genesys("A"), "success").at_least(1) == Fraction(1, 2)


def test_colour_dice_and_generic_pools_match_brute_force() -> None:
    red = symbol_die([{"red": 1}, {"red": 1}, {"blue": 1}, {"green": 1}, {}, {"red": 2}])
    odd = symbol_die([{"hit": 1, "crit": 1}, {"miss": 1}, {"hit": -1}])
    for dice in ([red] * 4, [red, odd, odd], [odd] * 5, [red, red, odd]):
        assert symbol_pool(dice) == brute(dice)
    assert symbol_pool([red] * 4, pairs=[("red", "blue")]) == cancel(
        brute([red] * 4), [("red", "blue")])


def test_both_methods_agree() -> None:
    # the dense (flint, Kronecker) and sparse (die by die) sums, each called directly
    import chancekit.dice.symbols as sym

    dice = [G["proficiency"]] * 3 + [G["challenge"]] * 2 + [G["boost"]]
    names = ("success", "failure", "triumph", "advantage")
    groups = []
    for x in dice:
        w: Counter[tuple[int, ...]] = Counter()
        for s, weight in x.items():
            w[tuple(s[k] for k in names)] += weight
        groups.append((dict(w), 1))
    hi = [sum(max(v[j] for v in w) for w, _ in groups) for j in range(4)]
    dense = sym._dense(groups, 4, [0, 0, 0, 0], [h + 1 for h in hi])
    assert dense == sym._sparse(groups)
    assert sum(dense.values()) == 12**5 * 6


def test_symbols_value() -> None:
    s = Symbols(success=2, advantage=0, threat=1)
    assert s == Symbols({"threat": 1, "success": 2}) == {"success": 2, "threat": 1}
    assert len(s) == 2 and "advantage" not in s and s["advantage"] == 0
    assert hash(s) == hash(Symbols([("threat", 1), ("success", 2)]))
    assert s + Symbols(success=-2) == Symbols(threat=1)
    assert sum([s, s], Symbols()) == 0 + s + s == Symbols(success=4, threat=2)
    assert pickle.loads(pickle.dumps(s)) == s
    assert repr(Symbols({"two words": 1})) == "Symbols({'two words': 1})"
    with pytest.raises(InvalidTypeError):
        Symbols(success=1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError):
        Symbols({"": 1})
    with pytest.raises(InvalidTypeError):
        Symbols("success")  # type: ignore[arg-type]


def test_distribution_arithmetic_on_symbols_matches_pools() -> None:
    a = G["ability"]
    assert a + a + G["difficulty"] == symbol_pool([a, a, G["difficulty"]])
    assert 3 @ a == symbol_pool(3 * [a])


def test_projection() -> None:
    g = genesys("2P vs 1C")
    succ = project(g, "success")
    assert succ.outcomes()[0] == 0 and sum(succ.weights.values()) == succ.total
    both = project(g, "triumph", "despair")
    assert both.probability((1, 1)) == 2 * Fraction(1, 12) * Fraction(11, 12) / 12
    with pytest.raises(InvalidTypeError):
        project(d(6), "success")
    with pytest.raises(InvalidValueError):
        project(g)


@pytest.mark.parametrize("spec,counts", [
    ("2A1P vs 2D1C", {"ability": 2, "proficiency": 1, "difficulty": 2, "challenge": 1}),
    ("aap+ddc", {"ability": 2, "proficiency": 1, "difficulty": 2, "challenge": 1}),
    ("A B S", {"ability": 1, "boost": 1, "setback": 1}),
    ("3D", {"difficulty": 3}),
    ("vs 2D", {"difficulty": 2}),
    ("2A vs", {"ability": 2}),
])
def test_pool_spec(spec: str, counts: dict[str, int]) -> None:
    assert genesys_pool(spec) == counts


@pytest.mark.parametrize("spec,fragment,column", [
    ("2X", "unknown die letter 'X'", 2),
    ("2A vs 1P", "proficiency dice go before 'vs'", 8),
    ("2D vs 1A", "difficulty dice go after 'vs'", 2),
    ("2A vs 1D vs 1C", "a second 'vs'", 10),
    ("", "no dice", 1),
    ("2A 3", "unexpected '3'", 4),
    ("2A, 1D", "unexpected ','", 3),
])
def test_pool_spec_errors(spec: str, fragment: str, column: int) -> None:
    with pytest.raises(NotationError) as e:
        genesys_pool(spec)
    assert fragment in e.value.problem and e.value.column == column


def test_bad_arguments() -> None:
    with pytest.raises(InvalidTypeError):
        symbol_die([1, 2])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        symbol_pool([d(6)])
    with pytest.raises(InvalidValueError):
        symbol_pool([G["ability"]], pairs=[("success", "success")])
    with pytest.raises(InvalidValueError):
        symbol_pool([G["ability"]], counts_as={"triumph": "success"})
    with pytest.raises(InvalidValueError):
        genesys({"ability": -1})
    with pytest.raises(InvalidValueError):
        genesys({"nope": 1})


def test_big_pools_are_refused_up_front() -> None:
    with pytest.raises(LimitError) as e:
        genesys("9999P vs 9999C")
    assert e.value.limit == "MAX_WORK"
    with pytest.raises(LimitError) as e:
        genesys("200000A")
    assert e.value.limit == "MAX_DICE"
    colours = symbol_die([{c: 1} for c in "abcdefghijkl"])
    with pytest.raises(LimitError):
        symbol_pool(60 * [colours])  # a joint of C(71, 11) colour counts


def test_the_estimate_is_charged_to_an_open_budget() -> None:
    with evaluation(limit=10**12, name="MAX_WORK") as budget:
        genesys("5A3P vs 4D2C")
    assert 0 < budget.counted <= budget.estimated


def test_convolve_of_nothing() -> None:
    assert _convolve([], 2, "nothing") == {(0, 0): 1}


def test_big_genesys_pool_is_exact_and_sums_to_one() -> None:
    g = genesys("6A4P2B vs 6D4C2S")
    assert sum(g.weights.values()) == g.total
    assert sum(project(g, "success").pmf().values()) == 1


# -- JSON of symbol dice (issue #14) ------------------------------------------------------------

#: to_json() of numeric and label distributions as written before symbol outcomes got their
#: structured form (name, tab, JSON per line): unchanged, byte for byte
PINNED_JSON = dict(line.split("\t", 1) for line in (
    Path(__file__).resolve().parents[1] / "data" / "distribution_json_pinned.tsv"
).read_text(encoding="utf-8").splitlines())


def _pinned_cases() -> dict:
    from chancekit.dice import dist, fudge

    return {"d4": d(4), "fudge": fudge(), "frac": Distribution({Fraction(1, 2): 1, 3: 2}),
            "labels": Distribution({"jackpot": 1, "nothing": 5}),
            "tuples": Distribution({(1, 2): 1, (0, 3): 1}),
            "bigint": Distribution({2**60: 1, -1: 3}),
            "floats": Distribution({0.5: 1, 2.25: 1}), "3d6": dist("3d6")}


def test_numeric_json_is_byte_identical() -> None:
    cases = _pinned_cases()
    assert set(cases) == set(PINNED_JSON)
    for name, dd in cases.items():
        assert dd.to_json() == PINNED_JSON[name], name
        assert Distribution.from_json(PINNED_JSON[name]) == dd


@pytest.mark.parametrize("pool", [lambda: genesys("2A1P vs 2D1C"),
                                  lambda: genesys("1A1B", net=False),
                                  lambda: symbol_die([{"hit": 2}, {}, {"hit": -1, "x y": 3}])])
def test_symbol_outcomes_round_trip_as_structured_json(pool) -> None:
    import json

    dd = pool()
    text = dd.to_json()
    data = json.loads(text)
    # every outcome is {"symbols": {name: count}}: the counts, not the printed text
    assert all(set(o) == {"symbols"} for o in data["outcomes"])
    assert [Symbols(o["symbols"]) for o in data["outcomes"]] == list(dd.outcomes())
    back = Distribution.from_json(text)
    assert back == dd and back.outcomes() == dd.outcomes()   # same values, same order
    assert all(isinstance(x, Symbols) for x in back.outcomes())
    assert back.to_json() == text


def test_symbol_json_blank_big_counts_and_mistakes() -> None:
    dd = Distribution({Symbols(): 1, Symbols(hit=2**60): 2})
    data = dd.to_dict()
    assert data["outcomes"] == [{"symbols": {}}, {"symbols": {"hit": {"int": str(2**60)}}}]
    assert Distribution.from_dict(data) == dd
    for bad in [{"hit": True}, {"hit": "2"}, {"hit": 1.5}, {"": 1}, ["hit"]]:
        with pytest.raises(InvalidValueError):
            Distribution.from_dict({"outcomes": [{"symbols": bad}], "weights": [1]})
    # a mapping that only looks like symbols is not confused with them
    assert Distribution.from_dict({"outcomes": ["success 1"], "weights": [1]}).outcomes() == (
        "success 1",)
