"""PCG32 speed (issue 22 goals), chancekit and its peer in the same run:

* scalar ``random()`` and ``next_u32()`` within 2x of ``random.Random``'s ``random()`` and
  ``getrandbits(32)`` (ratio = peer / chancekit >= 0.5); ``randbelow(100)`` within 1.5x of
  ``random.Random.randrange(100)`` (ratio >= 0.67);
* bulk words ``u32_array`` >= 1.2x numpy's PCG64 ``random_raw``, floats ``random_array``
  >= 1x ``Generator.random``, bounded ints ``randbelow_array`` >= 1x ``Generator.integers``;
* reported: ``PCG32Random.random()`` against ``random.Random``, bulk words against
  randomgen's C PCG32, and the pure-Python core (no C compiler) for each scalar call.

Scalar calls are timed as bound methods in a list comprehension, the way a game loop
calls them (the same loop for both sides)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, median_time


def cases(quick: bool = False) -> list[Result]:
    import numpy as np
    import randomgen

    from chancekit import PCG32, PCG32Random
    from chancekit.rng.pcg32 import COMPILED, PurePCG32

    core = "C core" if COMPILED else "pure-Python core"
    out: list[Result] = []
    n = 2_000_000 if quick else 10_000_000
    rng = PCG32(1)
    gen = np.random.Generator(np.random.PCG64(1))
    pcg64 = np.random.PCG64(1)
    rg = randomgen.PCG32(1)
    rng.u32_array(1000)  # the pure path's jump tables (not part of the steady state)

    ours = median_time(lambda: rng.u32_array(n), repeat=5) / n
    peer = median_time(lambda: pcg64.random_raw(n), repeat=5) / n
    out.append(Result("rng", f"u32_array({n:.0e}) bulk words, {core}", ours,
                      f"numpy {np.__version__} PCG64.random_raw", peer, ">= 1.2x",
                      peer / ours >= 1.2))
    peer = median_time(lambda: rg.random_raw(n), repeat=5) / n
    out.append(Result("rng", f"u32_array({n:.0e}) bulk words, {core}", ours,
                      f"randomgen {randomgen.__version__} PCG32.random_raw", peer,
                      "(report)", None))
    ours = median_time(lambda: rng.random_array(n), repeat=5) / n
    peer = median_time(lambda: gen.random(n), repeat=5) / n
    out.append(Result("rng", f"random_array({n:.0e}) bulk floats, {core}", ours,
                      "numpy Generator(PCG64).random", peer, ">= 1x", peer / ours >= 1))
    ours = median_time(lambda: rng.randbelow_array(100, n), repeat=5) / n
    peer = median_time(lambda: gen.integers(0, 100, n), repeat=5) / n
    out.append(Result("rng", f"randbelow_array(100, {n:.0e}) bounded ints, {core}", ours,
                      "numpy Generator(PCG64).integers(0, 100)", peer, ">= 1x",
                      peer / ours >= 1))

    calls = 200_000 if quick else 1_000_000
    std = random.Random(2)
    g, pure, pr = PCG32(2), PurePCG32(2), PCG32Random(2)

    def per_call(fn, *args):
        if args:
            (a,) = args
            return median_time(lambda: [fn(a) for _ in range(calls)], repeat=5) / calls
        return median_time(lambda: [fn() for _ in range(calls)], repeat=5) / calls

    for name, ours_fn, args, peer_name, peer_fn, peer_args, goal in (
        ("random()", g.random, (), "random.Random.random()", std.random, (), 2.0),
        ("next_u32()", g.next_u32, (), "random.Random.getrandbits(32)", std.getrandbits,
         (32,), 2.0),
        ("randbelow(100)", g.randbelow, (100,), "random.Random.randrange(100)",
         std.randrange, (100,), 1.5),
    ):
        t = per_call(ours_fn, *args)
        tp = per_call(peer_fn, *peer_args)
        out.append(Result("rng", f"PCG32.{name} scalar, {core}", t, peer_name, tp,
                          f"<= {goal}x peer's time", t <= goal * tp))
        tpure = per_call(getattr(pure, ours_fn.__name__), *args)
        out.append(Result("rng", f"PurePCG32.{name} scalar (no compiler)", tpure, peer_name,
                          tp, "(report)", None))
    t = per_call(pr.random)
    tp = per_call(std.random)
    out.append(Result("rng", f"PCG32Random.random() scalar, {core}", t,
                      "random.Random.random()", tp, "<= 2.0x peer's time", t <= 2 * tp))
    return out


if __name__ == "__main__":
    import run

    sys.exit(run.main(["rng", *sys.argv[1:]]))
