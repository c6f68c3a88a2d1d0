"""Pool algebra speed vs icepool (issue 29): opposed pools, cancelling, matching sets and
straights. Warm: each run is a fresh Python process whose imports and a small warm-up
evaluation (a different one, so neither library's memo cache answers the timed case) are
untimed; the median of several runs. Both libraries answer the same question exactly."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, cold_time

CK = ("from chancekit.dice import Pool, d\n"
      "Pool(d(6), 3).sort_pair('>', Pool(d(6), 2)).count()\n"  # warm-up, not timed
      "Pool(d(4), 3).largest_count()\n"
      "ge5 = lambda x: x >= 5\n")
ICE = ("import sys, icepool\nsys.setrecursionlimit(100000)\n"
       "icepool.d6.pool(3).sort_pair('>', icepool.d6.pool(2)).size()\n"
       "icepool.d4.pool(3).largest_count()\n"
       "ge5 = lambda x: x >= 5\n")
#: icepool has no wild faces: the natural spelling is a multiset function of two counts
WILD_ICE = """
@icepool.multiset_function
def wild(p):
    return p.drop_outcomes([9, 10]).largest_count(), p.keep_outcomes([9, 10]).size()
"""

#: (case, chancekit code, icepool code, extra icepool setup)
CASES = [
    ("cancel: 10d6 hits (5+) vs 10d6 blocks (5+), a block cancels a hit <= it",
     "x = Pool(d(6), 10).keep_outcomes(ge5).max_pair_drop('<=', "
     "Pool(d(6), 10).keep_outcomes(ge5)).count()",
     "x = icepool.d6.pool(10).keep_outcomes(ge5).max_pair_drop('<=', "
     "icepool.d6.pool(10).keep_outcomes(ge5)).size()", ""),
    ("RISK 10 v 10 sorted pairs (attacker wins)",
     "x = Pool(d(6), 10).sort_pair('>', Pool(d(6), 10)).count()",
     "x = icepool.d6.pool(10).sort_pair('>', icepool.d6.pool(10)).size()", ""),
    ("face to face 5d20 v 3d20 (beat the best opposing die)",
     "x = Pool(d(20), 5).versus_all('>', Pool(d(20), 3)).count()",
     "x = icepool.d20.pool(5).versus_all('>', icepool.d20.pool(3)).size()", ""),
    ("largest_count of 12d10, 9 and 10 wild",
     "x = Pool(d(10), 12).largest_count(wild=[9, 10])",
     "x = wild(icepool.d10.pool(12)).map(lambda a, b: a + b)", WILD_ICE),
    ("all_straights of 8d6",
     "x = Pool(d(6), 8).all_straights()",
     "x = icepool.d6.pool(8).all_straights()", ""),
]


def cases(quick: bool = False) -> list[Result]:
    import icepool

    rep = 3 if quick else 5
    out: list[Result] = []
    for case, ck, ice, ice_setup in CASES:
        ours = cold_time(ck, setup=CK, repeat=rep)
        peer = cold_time(ice, setup=ICE + ice_setup, repeat=rep, timeout=120)
        ratio = peer / ours if ours > 0 else float("inf")
        out.append(Result("pools", case, ours, f"icepool {icepool.__version__}", peer,
                          ">= 10x icepool", ratio >= 10))
    return out


if __name__ == "__main__":
    from run import print_row

    for r in cases(quick="--quick" in sys.argv):
        print_row(r, flush=True)
