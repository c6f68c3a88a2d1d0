"""The closed form for compounding dice then one keep/drop (``10d10!!kh5``,
``dice/evaluate.py::_compound_keep``) against icepool and against brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import icepool
import pytest

from chancekit.dice import Distribution, Pool, d, evaluate
from chancekit.dice.notation import dist
from chancekit.dice.selectors import equal, highest, lowest


def _pmf(x: Distribution) -> dict[Any, Fraction]:
    return dict(x.pmf())


def _ice(die: Any) -> dict[Any, Fraction]:
    total = die.denominator()
    return {k: Fraction(v, total) for k, v in die.items() if v}


def _took_closed_form(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    seen: list[Any] = []
    real = evaluate._compound_keep

    def spy(*args: Any) -> Any:
        got = real(*args)
        seen.append(got)
        return got

    monkeypatch.setattr(evaluate, "_compound_keep", spy)
    monkeypatch.setattr(evaluate, "_WALK_FACTOR", 10**9)  # never the walk instead
    return seen


@pytest.mark.parametrize(("sides", "n", "spec", "depth"), [
    (10, 10, "kh5", 20), (10, 10, "kl5", 20), (10, 10, "dh3", 20), (10, 10, "dl3", 20),
    (6, 4, "kh3", 5), (6, 7, "kl2", 4), (4, 5, "kh1", 3), (8, 8, "kh3", 6),
    (2, 6, "kh2", 7), (2, 5, "kl4", 3), (20, 3, "kh1", 2), (100, 4, "kh2", 2),
])
def test_against_icepool(monkeypatch: pytest.MonkeyPatch, sides: int, n: int, spec: str,
                         depth: int) -> None:
    seen = _took_closed_form(monkeypatch)
    num = int(spec[2:])
    keep = {"kh": ("highest", num), "kl": ("lowest", num), "dh": ("lowest", n - num),
            "dl": ("highest", n - num)}[spec[:2]]
    sel = highest(keep[1]) if keep[0] == "highest" else lowest(keep[1])
    ours = Pool(d(sides), n, depth=depth).compound(equal(sides)).keep(sel).sum()
    pool = icepool.Die(range(1, sides + 1)).explode([sides], depth=depth).pool(n)
    theirs = (pool.highest(keep[1]) if keep[0] == "highest" else pool.lowest(keep[1])).sum()
    assert _pmf(ours) == _ice(theirs)
    assert seen and seen[0] is not None  # the closed form, not the face walk
    if depth == 20:
        assert dist(f"{n}d{sides}!!{spec}", dialect="roll20") == ours


def _brute(faces: dict[int, int], top: int, n: int, k: int, high: bool,
           depth: int) -> dict[int, Fraction]:
    """Every roll of every die: a die rolls again while it shows ``top`` (depth times)."""
    total = sum(faces.values())
    one: dict[int, Fraction] = {}

    def walk(value: int, p: Fraction, left: int) -> None:
        for f, w in faces.items():
            q = p * Fraction(w, total)
            if f == top and left:
                walk(value + f, q, left - 1)
            else:
                one[value + f] = one.get(value + f, 0) + q

    walk(0, Fraction(1), depth)
    out: dict[int, Fraction] = {}
    for combo in itertools.product(one.items(), repeat=n):
        vals = sorted(v for v, _ in combo)
        kept = vals[-k:] if high else vals[:k]
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out[sum(kept)] = out.get(sum(kept), 0) + p
    return out


@pytest.mark.parametrize(("faces", "n", "k", "high", "depth"), [
    ({1: 1, 2: 2, 3: 1, 5: 3}, 3, 2, True, 2),    # uneven weights, a gap below the top
    ({1: 1, 2: 2, 3: 1, 5: 3}, 3, 1, False, 3),
    ({0: 1, 1: 1, 3: 2}, 4, 2, True, 2),          # a zero face
    ({-1: 1, 2: 1, 4: 1}, 3, 2, False, 2),        # a negative face (4 - 1 > 2: ordered)
    ({1: 1, 2: 1, 3: 1}, 3, 1, True, 0),          # depth 0: no compounding at all
])
def test_against_brute_force(monkeypatch: pytest.MonkeyPatch, faces: dict[int, int], n: int,
                             k: int, high: bool, depth: int) -> None:
    seen = _took_closed_form(monkeypatch)
    top = max(faces)
    die = Distribution(faces)
    sel = highest(k) if high else lowest(k)
    got = Pool(die, n, depth=depth).compound(equal(top)).keep(sel).sum()
    assert _pmf(got) == _brute(faces, top, n, k, high, depth)
    assert seen and seen[0] is not None


def test_falls_back_when_tiers_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    # faces -2, 1, 2: 2 + (-2) is not above 1, so a compounded die can sit below another
    seen = _took_closed_form(monkeypatch)
    faces = {-2: 1, 1: 1, 2: 1}
    got = Pool(Distribution(faces), 3, depth=2).compound(equal(2)).keep(highest(2)).sum()
    assert _pmf(got) == _brute(faces, 2, 3, 2, True, 2)
    assert seen == [None]


def test_refused_up_front_by_its_estimate() -> None:
    # 20d10!!kh10 is answered since issue #22 (compounded, then the face walk of the keep:
    # tests/dice/test_hardening3.py); twice the dice are refused by both ways' estimates
    from chancekit import limits
    from chancekit.errors import LimitError

    with limits.evaluation(limit=limits.MAX_WORK, name="MAX_WORK") as budget, \
            pytest.raises(LimitError, match=r"compounding and keeping|keeping 20 of 40"):
        dist("40d10!!kh20", dialect="roll20")
    assert budget.counted < 200_000  # at most the compounding of one die
