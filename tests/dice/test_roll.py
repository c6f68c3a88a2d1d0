"""roll(): breakdown, reproducibility, limits, and goodness of fit against dist()."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

from _stats import pooled_chisquare
from chancekit.dice._ast import MAX_ROLLED
from chancekit.dice.notation import RollResult, roll, weights
from chancekit.errors import InvalidTypeError, LimitError, NotationError
from chancekit.rng import PCG32, Streams


class Scripted:
    """A bit source returning fixed ``randbelow`` results (die index = face - 1)."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def randbelow(self, n: int) -> int:
        v = self.values.pop(0)
        assert 0 <= v < n
        return v

    def next_u32(self) -> int:  # pragma: no cover
        raise AssertionError


@pytest.mark.parametrize(("notation", "draws", "text"), [
    ("4d6kh3", (4, 2, 0, 5), "4d6kh3 (5, 3, ~~1~~, 6) = 14"),
    ("4d6dl1", (4, 2, 0, 5), "4d6dl1 (5, 3, ~~1~~, 6) = 14"),
    ("4d6k3", (2, 2, 0, 5), "4d6k3 (3, 3, ~~1~~, ~~6~~) = 6"),
    ("2d6e6", (5, 5, 1, 2), "2d6e6 (6!, 6!, 2, 3) = 17"),
    ("2d6!", (5, 0, 1), "2d6! (6!, 1, 2) = 9"),
    ("2d6rr1", (0, 0, 3, 4), "2d6rr1 (~~1~~, 4, ~~1~~, 5) = 9"),
    ("2d6ro<3", (0, 4, 0), "2d6ro<3 (~~1~~, 1, 5) = 6"),
    ("2d6mi3", (0, 4), "2d6mi3 (1 -> 3, 5) = 8"),
    ("1d20ra20", (19, 9), "1d20ra20 (20!, 10) = 30"),
    ("1d20+5 >= 15", (9,), "1d20 (10) + 5 >= 15 = 1"),
    ("(1d4+1, 3, 2d6kl1)kh1", (1, 4, 5),
     "(~~1d4 (2) + 1~~, ~~3~~, 2d6kl1 (5, ~~6~~))kh1 = 5"),
    ("1d8 [fire] + 2", (7,), "1d8 (8) [fire] + 2 = 10"),
    ("1d6/4", (4,), "1d6 (5) / 4 = 5/4"),
    ("(1d6)", (2,), "(1d6 (3)) = 3"),
    ("(1d6,)", (2,), "(1d6 (3),) = 3"),
    ("2dF", (0, 2), "2dF (-1, 1) = 0"),
    ("3d{1,1,2}", (0, 1, 2), "3d{1,1,2} (1, 1, 2) = 4"),
    ("-1d4", (3,), "-1d4 (4) = -4"),
])
def test_breakdown(notation: str, draws: tuple[int, ...], text: str) -> None:
    r = roll(notation, rng=Scripted(*draws))
    assert str(r) == text
    assert r.dice_rolled == len(draws)


def test_result_fields_and_json() -> None:
    r = roll("1d6/4", rng=Scripted(4))
    assert r.total == Fraction(5, 4)
    assert r.to_dict()["total"] == "5/4"
    assert r.dice == (5,)
    assert int(r) == 1
    r2 = roll("4d6kh3", rng=Scripted(4, 2, 0, 5))
    assert r2.to_dict() == {"notation": "4d6kh3", "total": 14,
                            "breakdown": "4d6kh3 (5, 3, ~~1~~, 6)",
                            "text": "4d6kh3 (5, 3, ~~1~~, 6) = 14", "dice_rolled": 4,
                            "dice": [5, 3, 1, 6]}
    assert pickle.loads(pickle.dumps(r2)) == r2
    assert isinstance(r2, RollResult)


def test_reproducible_with_seed_and_streams() -> None:
    a = [roll("4d6kh3", rng=PCG32(5)).total for _ in range(3)]
    b = [roll("4d6kh3", rng=PCG32(5)).total for _ in range(3)]
    assert a == b
    g1, g2 = PCG32(9), PCG32(9)
    assert [str(roll("3d6e6", rng=g1)) for _ in range(20)] == [
        str(roll("3d6e6", rng=g2)) for _ in range(20)]
    s1, s2 = Streams(1)["combat"], Streams(1)["combat"]
    assert roll("10d10", rng=s1) == roll("10d10", rng=s2)
    with pytest.raises(InvalidTypeError, match=r"chancekit\.PCG32\(7\)"):
        roll("1d6", rng=7)  # an int would restart the sequence on every call
    # each die is one randbelow(faces) call on the generator
    g = PCG32(11)
    expected = [PCG32(11).randbelow(6) + 1 for _ in range(1)]
    assert roll("1d6", rng=g).dice == tuple(expected)


def test_default_rng_rolls() -> None:
    r = roll("2d6")
    assert 2 <= r.total <= 12


def test_bad_rng() -> None:
    with pytest.raises(InvalidTypeError):
        roll("1d6", rng="seed")


def test_limits() -> None:
    with pytest.raises(LimitError, match="MAX_ROLLED"):
        roll(f"{MAX_ROLLED + 1}d6", rng=PCG32(1))
    with pytest.raises(NotationError, match="every face"):
        roll("1d1e1", rng=PCG32(1))
    with pytest.raises(NotationError, match="every face"):
        roll("1d6rr<7", rng=PCG32(1))
    with pytest.raises(NotationError, match="division by zero"):
        roll("1d6/(1d1-1)", rng=PCG32(1))


def test_runaway_rolls_are_refused_mid_roll() -> None:
    # 9999 d2 exploding on 2: almost surely needs more than MAX_ROLLED dice
    with pytest.raises(LimitError, match="MAX_ROLLED"):
        roll("9999d2e2", rng=PCG32(3))


def test_explosion_cap_matches_dist() -> None:
    """A chain stops after EXPLODE_DEPTH extra dice, in roll() as in dist()."""
    from chancekit.dice._ast import EXPLODE_DEPTH

    r = roll("1d2e2", rng=Scripted(*([1] * EXPLODE_DEPTH), 1))
    assert r.total == 2 * (EXPLODE_DEPTH + 1)
    assert r.dice_rolled == EXPLODE_DEPTH + 1
    w = weights("1d2e2")
    assert max(w) == 2 * (EXPLODE_DEPTH + 1)


GOF = ["4d6kh3", "3d6e6", "4d6rr1", "2d20kh1+5", "(1d8e8, 1d6e6)kh1", "4dF", "d%",
       "3d{1,1,2,3}", "2d6ro<3mi2", "1d20ra20", "3d6e6kh2", "1d6/2+1d4", "3d6kh1kl1"]


@pytest.mark.parametrize("notation", GOF)
def test_roll_fits_dist(notation: str) -> None:
    """5 000 rolls from PCG32(2026) against the exact distribution; chi-square p >= 1e-4."""
    g = PCG32(2026)
    n = 5000
    counts: dict[object, int] = {}
    for _ in range(n):
        t = roll(notation, rng=g).total
        counts[t] = counts.get(t, 0) + 1
    w = weights(notation)
    tot = sum(w.values())
    assert set(counts) <= set(w)
    probs = {k: Fraction(v, tot) for k, v in w.items()}
    assert pooled_chisquare(counts, probs, ordered=True)[0] >= 1e-4
