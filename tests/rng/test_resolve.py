"""Issue #15: one calling convention for ``rng=`` -- an integer is refused, because a
per-draw method given an int restarted the same sequence on every call."""

from __future__ import annotations

import numpy as np
import pytest

from chancekit import PCG32, InvalidTypeError, PCG32Random, Streams, roll
from chancekit.rng import default_rng, resolve_rng
from chancekit.sampling import AliasTable


@pytest.mark.parametrize("value", [5, 0, -1, 2**64, -(10**5000), np.int64(5)],
                         ids=["5", "0", "-1", "2**64", "huge", "numpy"])
def test_an_integer_is_refused_with_the_fix_in_the_message(value):
    with pytest.raises(InvalidTypeError) as exc:
        resolve_rng(value)
    msg = str(exc.value)
    assert msg.startswith("rng must be a bit source such as ")
    assert "would restart the same sequence on every call" in msg and len(msg) < 400


def test_the_message_shows_the_generator_to_build():
    with pytest.raises(InvalidTypeError, match=r"^rng must be a bit source such as "
                       r"chancekit\.PCG32\(5\) or a named stream, not int \(5\): an integer "
                       r"here would restart the same sequence on every call$"):
        AliasTable({"a": 1, "b": 1}).draw(5)


def test_the_trap_is_gone_per_draw_methods_need_one_generator():
    table = AliasTable({i: 1 for i in range(100)})
    with pytest.raises(InvalidTypeError):
        [table.draw(5) for _ in range(6)]
    rng = PCG32(5)
    assert len({table.draw(rng) for _ in range(6)}) > 1
    with pytest.raises(InvalidTypeError):
        roll("1d6", rng=7)


def test_accepted_sources():
    g = PCG32(3)
    assert resolve_rng(g) is g
    s = Streams(1)["loot"]
    assert resolve_rng(s) is s
    assert resolve_rng(None) is default_rng()
    r = PCG32Random(4, stream=2)
    assert resolve_rng(r) is r.generator
    before = r.generator.getstate()
    AliasTable({"a": 1, "b": 2}).draw(r)  # draws advance the PCG32Random
    assert r.generator.getstate() != before

    class Scripted:
        def next_u32(self):
            return 0

        def randbelow(self, n):
            return 0

    src = Scripted()
    assert resolve_rng(src) is src
    for bad in ("seed", 1.5, True, [1]):
        with pytest.raises(InvalidTypeError, match="bit source"):
            resolve_rng(bad)
