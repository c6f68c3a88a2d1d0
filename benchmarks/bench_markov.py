"""Markov chains (issue 21): an HP race of 100 vs 100 hit points at 2d6 a round, exact,
against icepool's ``map(..., repeat='inf')`` on the same chain (goal >= 10x), and the same
race as a user's own step function through ``absorb`` (issue 31, goal <= 10 s); the Monopoly
board's exact stationary distribution (goal <= 1 s); the pulls until Genshin's featured
5-star, exact distribution and mean (goal <= 0.5 s).

icepool's absorbing chain is a sparse Gaussian elimination whose time grows about as hp**6
(10 HP 0.3 s, 20 HP 12 s, 30 HP 93 s on the reference machine), so at 100 HP it is run in a
separate process with a time limit: when it does not finish, the ratio printed is a lower
bound (limit / chancekit's time). The same race at 15 HP is timed to the end on both.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, cold_time, median_time

_ICEPOOL_RACE = """
import icepool
def race(hp):
    dmg = 2 @ icepool.d6
    def step(state):
        a, b = state
        if a <= 0 or b <= 0:
            return state
        return icepool.map(lambda x, y: (max(a - x, 0), max(b - y, 0)), dmg, dmg)
    return icepool.map(step, (hp, hp), repeat='inf')
"""


def _joint_absorb(hp: int) -> object:
    """The same question icepool answers: the absorbing state of the joint chain, each
    side's HP floored at 0 (a dict of next states per state)."""
    from chancekit import d
    from chancekit.markov import absorb

    dmg = list((d(6) + d(6)).items())

    def step(state: tuple[int, int]) -> object:
        a, b = state
        if a <= 0 or b <= 0:
            return state
        out: dict[tuple[int, int], int] = {}
        for x, wx in dmg:
            for y, wy in dmg:
                key = (max(a - x, 0), max(b - y, 0))
                out[key] = out.get(key, 0) + wx * wy
        return out

    return absorb(step, (hp, hp))


def _met(ratio: float, finished: bool) -> bool | None:
    """Met at 10x; a lower bound below 10x (icepool stopped early) decides nothing."""
    if ratio >= 10:
        return True
    return False if finished else None


def cases(quick: bool = False) -> list[Result]:
    from chancekit.fair import PityTimer
    from chancekit.fair.studio import GachaPity
    from chancekit.markov import first_success, hp_race
    from chancekit.markov.processes import monopoly

    out: list[Result] = []
    limit = 20.0 if quick else 60.0
    reps = 3 if quick else 5

    # --- HP race 100 vs 100, 2d6 a round
    ice_100 = cold_time("race(100)", setup=_ICEPOOL_RACE, repeat=1, timeout=limit)
    finished = ice_100 != float("inf")
    peer_s = ice_100 if finished else limit
    bound = "" if finished else f"icepool did not finish in {limit:.0f} s: ratio is a lower bound; "
    auto = median_time(lambda: hp_race((100, 100), ("2d6", "2d6")), repeat=reps)
    out.append(Result("markov", "HP race 100 vs 100, 2d6 a round: winner + rounds (exact)",
                      auto, "icepool 2.1.3 map(repeat='inf')", peer_s, ">= 10x icepool",
                      _met(peer_s / auto, finished),
                      bound + "chancekit reads the race from each side's exact time to go down"))
    # the joint chain of 100 vs 100, as a user writes it (issue 31: 8 330 states, 873 346
    # transitions, refused by a fixed MAX_MARKOV_TRANSITIONS = 250 000 before; now priced
    # as work and answered within the default MAX_MARKOV_WORK), goal <= 10 s
    user = median_time(lambda: _joint_absorb(100), repeat=1 if quick else 3)
    out.append(Result("markov", "HP race 100 vs 100: the user's own joint chain through "
                      "absorb (8 330 states, 873 346 transitions, default limits)", user,
                      "icepool 2.1.3 map(repeat='inf')", peer_s, "<= 10 s",
                      user <= 10.0, bound + "exploring (the user's step) and one integer "
                      "pass; hp_race answers the same race in the row above"))
    ice_50 = cold_time("race(50)", setup=_ICEPOOL_RACE, repeat=1, timeout=limit)
    finished_50 = ice_50 != float("inf")
    peer_50 = ice_50 if finished_50 else limit
    bound_50 = "" if finished_50 else (f"icepool did not finish in {limit:.0f} s: ratio is a "
                                       "lower bound; ")
    joint = median_time(lambda: _joint_absorb(50), repeat=1 if quick else 3)
    out.append(Result("markov", "HP race 50 vs 50: the joint chain's absorbing states "
                      "(2 500 states, generic engine)", joint,
                      "icepool 2.1.3 map(repeat='inf')", peer_50, ">= 10x icepool",
                      _met(peer_50 / joint, finished_50),
                      bound_50 + "same chain, same question as icepool"))
    ice_15 = cold_time("race(15)", setup=_ICEPOOL_RACE, repeat=1 if quick else 3,
                       timeout=limit)
    small = median_time(lambda: _joint_absorb(15), repeat=reps)
    out.append(Result("markov", "HP race 15 vs 15: the joint chain's absorbing states",
                      small, "icepool 2.1.3 map(repeat='inf')", ice_15, "", None,
                      "both run to the end"))

    # --- Monopoly stationary distribution
    mono = median_time(lambda: monopoly(6), repeat=reps)
    out.append(Result("markov", "Monopoly (40 squares, doubles, jail, cards): stationary, "
                      "exact", mono, goal="<= 1 s", met=mono <= 1.0,
                      note="120 states, one dense fmpq_mat solve"))

    # --- pulls until the featured 5-star
    def gacha() -> object:
        s = first_success(GachaPity(0.006, soft_start=74, ramp=0.06, hard=90), "featured")
        assert s.tail == 0 and abs(float(s.mean) - 93.446) < 0.001
        return s

    pulls = median_time(gacha, repeat=reps)
    out.append(Result("markov", "pulls until the featured 5-star (0.6 %, soft pity 74, hard "
                      "90, 50/50 + guarantee): distribution + mean, exact", pulls,
                      goal="<= 0.5 s", met=pulls <= 0.5, note="181 states, acyclic: integer pass"))
    five = median_time(lambda: first_success(PityTimer(0.006, soft_start=74, ramp=0.06,
                                                       hard=90)), repeat=reps)
    out.append(Result("markov", "pulls until any 5-star: distribution + mean, exact", five))
    return out
