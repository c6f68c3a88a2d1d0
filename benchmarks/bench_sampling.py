"""Samplers (issue 4): exact alias-table bulk draws vs numpy ``Generator.choice(p=...)`` and
scipy ``DiscreteAliasUrn``; alias-table build at 10^6 categories; chance-tree
``set_weight`` + ``draw`` pairs vs a naive cumulative rebuild (numpy ``cumsum`` +
``searchsorted``); swap-filter throughput; tabletop table build.

Goals (issues 4, 10): draw_array >= 1.2x numpy at 20 categories and >= 5x at 10^6, for
int and float weights alike; the build at 10^6 categories within 5x scipy's setup, for int
and float weights; set_weight + draw <= 15 µs per pair at n = 10^5. Draw and build times
are the best of several runs (the machine is shared), chancekit and peer in the same run."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, median_time


def min_time(fn: object, *, repeat: int = 5) -> float:
    """The best of ``repeat`` timed calls (the machine is shared: the least disturbed
    run is the truest)."""
    import time

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def _probs(data: object, n: int) -> object:
    w = data.random(n)  # type: ignore[attr-defined]
    return w / w.sum()


def _alias_cases(quick: bool) -> list[Result]:
    import numpy as np
    import scipy
    from scipy.stats.sampling import DiscreteAliasUrn

    from chancekit.rng import PCG32
    from chancekit.sampling import AliasTable, alias

    out: list[Result] = []
    k = 200_000 if quick else 1_000_000
    data = np.random.default_rng(12345)
    for n in (20, 1000, 1_000_000):
        for kind in ("int", "float"):
            if kind == "float" and n == 1000:
                continue
            # int weights 1..1000; float weights: probabilities (random, normalised: every
            # float a 53-bit mantissa, spread over ~20 binary orders at 10^6)
            w = data.integers(1, 1001, n) if kind == "int" else _probs(data, n)
            p = w / w.sum()
            table = AliasTable(w)
            span_bits = (len(table) * table.capacity).bit_length()
            rng = PCG32(1)
            table.draw_array(rng, 1000)  # warm the numpy arrays / jump tables
            gen = np.random.default_rng(2)
            # chancekit and numpy alternate within one run; the best of 7 each
            ours = min_time(lambda t=table, r=rng: t.draw_array(r, k), repeat=7) / k
            peer = min_time(lambda g=gen, n=n, p=p: g.choice(n, size=k, p=p), repeat=7) / k
            goal, met = "(report)", None
            if n == 20:
                goal, met = ">= 1.2x numpy", peer / ours >= 1.2
            elif n == 1_000_000:
                goal, met = ">= 5x numpy", peer / ours >= 5
            out.append(Result("sampling", f"AliasTable.draw_array, {n} categories ({kind} "
                              "weights)", ours, f"numpy {np.__version__} Generator.choice(p=)",
                              peer, goal, met,
                              note=f"per draw, {k} draws a call, span 2**{span_bits}"))
            if kind == "int":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    urn = DiscreteAliasUrn(p, random_state=np.random.default_rng(3))
                peer2 = min_time(lambda u=urn: u.rvs(k), repeat=5) / k
                out.append(Result("sampling", f"AliasTable.draw_array, {n} categories (int "
                                  "weights)", ours, f"scipy {scipy.__version__} "
                                  "DiscreteAliasUrn.rvs", peer2, "(report)", None,
                                  note="scipy's is float, not exact"))
    # build at 10^6, from a numpy array, as scipy gets it
    for kind in ("int", "float"):
        w = data.integers(1, 1001, 1_000_000) if kind == "int" else _probs(data, 1_000_000)
        p = w / w.sum()

        def scipy_build(p: np.ndarray = p) -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                DiscreteAliasUrn(p, random_state=np.random.default_rng(3))

        build = min_time(lambda w=w: AliasTable(w), repeat=5)
        peer = min_time(scipy_build, repeat=5)
        how = "compiled 128-bit Vose" if alias._vose is not None else "numpy sweep"
        out.append(Result("sampling", f"AliasTable build, 10^6 categories ({kind} weights)",
                          build, "scipy DiscreteAliasUrn setup", peer, "<= 5x scipy",
                          peer / build >= 0.2,
                          note=f"exact ({how}); ratio = scipy / ours"))
        if alias._vose is not None:  # what an install without a C compiler gets
            compiled, alias._vose = alias._vose, None
            try:
                slow = min_time(lambda w=w: AliasTable(w), repeat=5)
            finally:
                alias._vose = compiled
            out.append(Result("sampling", f"AliasTable build, 10^6 categories ({kind} "
                              "weights), numpy sweep (no C compiler)", slow,
                              "scipy DiscreteAliasUrn setup", peer, "(report)", None,
                              note="exact; ratio = scipy / ours"))
    return out


def _tree_cases(quick: bool) -> list[Result]:
    import numpy as np

    from chancekit.rng import PCG32
    from chancekit.sampling import ChanceTree

    out: list[Result] = []
    for n in (1000, 100_000):
        data = np.random.default_rng(n)
        w = data.integers(1, 1001, n).tolist()
        tree = ChanceTree(dict(enumerate(w)))
        rng = PCG32(7)
        pairs = 20_000 if quick else 100_000
        idx = data.integers(0, n, pairs).tolist()
        neww = data.integers(1, 1001, pairs).tolist()
        ops = list(zip(idx, neww, strict=True))
        setw, draw = tree.set_weight, tree.draw

        def ours_run(ops: list[tuple[int, int]] = ops, setw: object = setw,
                     draw: object = draw, rng: PCG32 = rng) -> None:
            for i, x in ops:
                setw(i, x)  # type: ignore[operator]
                draw(rng)  # type: ignore[operator]

        ours = median_time(ours_run, repeat=3) / pairs
        arr = np.array(w, dtype=np.int64)
        gen = PCG32(8)
        m = 200 if n == 100_000 else 5000

        def naive_run(arr: np.ndarray = arr, ops: list[tuple[int, int]] = ops[:m],
                      gen: PCG32 = gen) -> None:
            for i, x in ops:
                arr[i] = x
                cum = np.cumsum(arr)
                r = gen.randbelow(int(cum[-1]))
                int(np.searchsorted(cum, r, side="right"))

        peer = median_time(naive_run, repeat=3) / m
        goal, met = "(report)", None
        if n == 100_000:
            goal, met = "<= 15 µs per pair", ours <= 15e-6
        out.append(Result("sampling", f"ChanceTree set_weight + draw, n = {n}", ours,
                          "naive rebuild (numpy cumsum + searchsorted)", peer, goal, met,
                          note="per pair"))
    tree = ChanceTree({f: 1 for f in range(1, 7)})
    filt = tree.swap_filter(1)
    k = 200_000 if quick else 1_000_000
    t = median_time(lambda: filt.draw_many(k, PCG32(1)), repeat=3) / k
    out.append(Result("sampling", "SwapFilter.draws, d6 with L = 1", t, None, None,
                      "(report)", None, note="per draw"))
    return out


def _tabletop_cases(quick: bool) -> list[Result]:
    import itertools
    from collections import Counter

    from chancekit.sampling import TabletopTable

    three = Counter(sum(r) for r in itertools.product(range(1, 7), repeat=3))
    t = median_time(lambda: TabletopTable.build(three), repeat=5, number=5)
    t100 = median_time(lambda: TabletopTable.build(three, row_die=100, check_die=100),
                       repeat=3)
    return [
        Result("sampling", "TabletopTable.build 3d6 on d20 x d20", t, None, None,
               "(report)", None),
        Result("sampling", "TabletopTable.build 3d6 on d100 x d100", t100, None, None,
               "(report)", None),
    ]


def cases(quick: bool = False) -> list[Result]:
    return _alias_cases(quick) + _tree_cases(quick) + _tabletop_cases(quick)


if __name__ == "__main__":
    import run

    sys.exit(run.main(["sampling", *sys.argv[1:]]))
