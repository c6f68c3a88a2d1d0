"""PCG32 speed: bulk words vs numpy's PCG64 and randomgen's C PCG32; scalar calls vs the
standard library. Goals from issue 2: bulk >= 100 M values/s; next_u32 <= 700 ns;
randbelow(100) <= 1.2 µs."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result, median_time


def cases(quick: bool = False) -> list[Result]:
    import numpy as np
    import randomgen

    from chancekit import PCG32

    n = 2_000_000 if quick else 10_000_000
    rng = PCG32(1)
    rng.u32_array(1000)  # build the jump tables once (not part of the steady state)
    ours = median_time(lambda: rng.u32_array(n), repeat=5) / n
    pcg64 = np.random.PCG64(1)
    peer64 = median_time(lambda: pcg64.random_raw(n), repeat=5) / n
    rg = randomgen.PCG32(1)
    peer32 = median_time(lambda: rg.random_raw(n), repeat=5) / n
    mps = 1e-6 / ours
    out = [
        Result("rng", f"u32_array bulk ({mps:.0f} M values/s)", ours,
               f"numpy PCG64.random_raw {np.__version__}", peer64,
               ">= 100 M values/s", mps >= 100),
        Result("rng", f"u32_array bulk ({mps:.0f} M values/s)", ours,
               f"randomgen PCG32.random_raw {randomgen.__version__}", peer32,
               "(report ratio)", None),
    ]
    calls = 200_000 if quick else 1_000_000
    g = PCG32(2)
    nxt = g.next_u32
    t = median_time(lambda: [nxt() for _ in range(calls)], repeat=5) / calls
    std = random.Random(2)
    grb = std.getrandbits
    tp = median_time(lambda: [grb(32) for _ in range(calls)], repeat=5) / calls
    out.append(Result("rng", "next_u32() scalar", t, "random.getrandbits(32)", tp,
                      "<= 700 ns", t <= 700e-9))
    rb = g.randbelow
    t = median_time(lambda: [rb(100) for _ in range(calls)], repeat=5) / calls
    rr = std.randrange
    tp = median_time(lambda: [rr(100) for _ in range(calls)], repeat=5) / calls
    out.append(Result("rng", "randbelow(100) scalar", t, "random.randrange(100)", tp,
                      "<= 1.2 µs", t <= 1.2e-6))
    return out


if __name__ == "__main__":
    import run

    sys.exit(run.main(["rng", *sys.argv[1:]]))
