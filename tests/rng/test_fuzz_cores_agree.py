"""The compiled PCG32 core and the pure-Python one (PurePCG32) give the same draws and the
same states for random sequences of every operation (bounds near 2**32 and 2**64, huge
getrandbits, negative and huge advances, bulk arrays, shuffles), and a saved state moves
between them (getstate/setstate, JSON, pickle) mid-sequence. The generator of operations is
this file's own (seeded random.Random)."""

from __future__ import annotations

import pickle
import random

import pytest

from chancekit.errors import ChancekitError
from chancekit.rng import PCG32
from chancekit.rng.pcg32 import PurePCG32

pytestmark = pytest.mark.skipif(PurePCG32 is PCG32, reason="no compiled core was built")

BOUNDS = [1, 2, 3, 6, 7, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1,
          2**33 + 7, 2**63, 2**64 - 1, 2**64, 2**64 + 1, 10**30, 10**100, 0, -1]


def _op(rng: random.Random):
    """(name, function of a generator) of one random operation."""
    c = rng.randrange(12)
    if c == 0:
        return "next_u32", lambda g: g.next_u32()
    if c == 1:
        b = rng.choice(BOUNDS) if rng.random() < 0.7 else rng.randrange(1, 2**rng.randint(1, 80))
        return f"randbelow({b})", lambda g: g.randbelow(b)
    if c == 2:
        k = rng.choice([0, 1, 31, 32, 33, 63, 64, 65, 1000, -1])
        return f"getrandbits({k})", lambda g: g.getrandbits(k)
    if c == 3:
        return "random", lambda g: g.random()
    if c == 4:
        delta = rng.choice([0, 1, -1, 2**64, -(2**64) - 3, 10**40, rng.randrange(-10**6, 10**6)])
        return f"advance({delta})", lambda g: g.advance(delta)
    if c == 5:
        n = rng.choice([0, 1, 5, 100, 4097, -1])
        return f"u32_array({n})", lambda g: g.u32_array(n).tolist()
    if c == 6:
        n = rng.choice([0, 1, 5, 100, 4097])
        return f"random_array({n})", lambda g: g.random_array(n).tolist()
    if c == 7:
        b = rng.choice(BOUNDS[:12])
        n = rng.choice([0, 1, 7, 300])
        return f"randbelow_array({b}, {n})", lambda g: g.randbelow_array(b, n).tolist()
    if c == 8:
        n = rng.choice([0, 1, 2, 10, 300])

        def shuffle(g):
            x = list(range(n))
            g.shuffle(x)
            return x
        return f"shuffle({n})", shuffle
    if c == 9:
        a = rng.choice([0, -5, -(2**70), 1])
        b = a + rng.choice([0, 1, 5, 2**32, 2**65, -1])
        return f"randint({a}, {b})", lambda g: g.randint(a, b)
    if c == 10:
        seq = list(range(rng.choice([0, 1, 3, 1000])))
        return f"choice({len(seq)})", lambda g: g.choice(seq)
    return "getstate", lambda g: tuple(g.getstate())


def _run(f, g):
    try:
        return ("ok", f(g))
    except ChancekitError as e:
        return ("refused", type(e).__name__)


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(4))
def test_random_operation_sequences_agree(seed):
    rng = random.Random(seed)
    s, stream = rng.randrange(2**64), rng.choice([0, 1, 2**63, 2**64 - 1, rng.randrange(2**64)])
    c, p = PCG32(s, stream), PurePCG32(s, stream)
    for step in range(300):
        name, f = _op(rng)
        got_c, got_p = _run(f, c), _run(f, p)
        assert got_c == got_p, (seed, step, name)
        assert c.getstate() == p.getstate(), (seed, step, name)
        move = rng.randrange(8)
        if move == 0:    # the state moves between the cores, both ways
            p.setstate(c.getstate())
        elif move == 1:
            c = PCG32.from_json(p.to_json())
        elif move == 2:
            p = PurePCG32.from_dict(c.to_dict())
        elif move == 3:
            c = pickle.loads(pickle.dumps(p))  # a PurePCG32 pickles as a PCG32
            assert type(c) is PCG32
