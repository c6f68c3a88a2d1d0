"""PCG32Random: the standard library's algorithms running on PCG32 bits."""

from __future__ import annotations

import pickle
import random

import pytest

from chancekit import PCG32, InvalidValueError, PCG32Random, StateError


def test_bits_are_pcg32_bits():
    r, g = PCG32Random(42, stream=54), PCG32(42, 54)
    assert [r.getrandbits(32) for _ in range(10)] == [g.next_u32() for _ in range(10)]
    assert r.random() == g.random()
    assert r.generator.getstate() == g.getstate()


def test_stdlib_methods_run_and_are_reproducible():
    def session(r: random.Random):
        return (r.choices(range(10), k=5), r.sample(range(100), 5), r.gauss(0, 1),
                r.randrange(1000), r.shuffle(x := list(range(10))) or x, r.randbytes(5),
                r.uniform(1, 2), r.expovariate(1.0))
    assert session(PCG32Random(7)) == session(PCG32Random(7))
    assert session(PCG32Random(7)) != session(PCG32Random(8))
    assert session(PCG32Random(7)) != session(PCG32Random(7, stream=1))


def test_seed_getstate_setstate_pickle():
    r = PCG32Random(3)
    r.gauss(0, 1)  # leaves a cached gauss_next
    state = r.getstate()
    assert state[0] == "chancekit.PCG32Random/1" and isinstance(state[3], float)
    after = [r.random(), r.gauss(0, 1)]
    r.setstate(state)
    assert [r.random(), r.gauss(0, 1)] == after
    r.setstate(state)
    clone = pickle.loads(pickle.dumps(r))
    assert [clone.random(), clone.gauss(0, 1)] == after
    r.seed(3)
    assert r.getstate()[1:3] == tuple(PCG32(3).getstate())
    r.seed()  # from the OS: just works
    assert 0 <= r.random() < 1


V = "chancekit.PCG32Random/1"


@pytest.mark.parametrize("bad", [(1, 2), ("other/1", 1, 3, None), (V, 1, 2, None), (V, 1, 3, "x")])
def test_bad_states_are_refused(bad):
    with pytest.raises(StateError):
        PCG32Random(1).setstate(bad)


def test_bad_seeds():
    with pytest.raises(InvalidValueError):
        PCG32Random(-1)
    with pytest.raises(InvalidValueError):
        PCG32Random(1, stream=2**64)


# -- issue #15: the stream survives every way of carrying the state -------------------------
def _carriers():
    import copy

    return {
        "pickle": lambda r: pickle.loads(pickle.dumps(r)),
        "copy": copy.copy,
        "deepcopy": copy.deepcopy,
        "setstate": lambda r: (c := PCG32Random(0)).setstate(r.getstate()) or c,
        "json": lambda r: PCG32Random.from_json(r.to_json()),
    }


@pytest.mark.parametrize("how", sorted(_carriers()))
def test_stream_survives_pickle_copy_setstate_and_json(how):
    r = PCG32Random(5, stream=9)
    r.gauss(0, 1)
    c = _carriers()[how](r)
    assert c.getstate() == r.getstate() and c.stream == 9
    assert [c.random(), c.gauss(0, 1)] == [r.random(), r.gauss(0, 1)]
    r.seed(5)
    c.seed(5)
    assert r.random() == c.random()
    c.seed(5)
    assert c.generator.getstate() == PCG32(5, 9).getstate()


def test_seed_and_setstate_keep_the_generator_object():
    r = PCG32Random(1, stream=3)
    g = r.generator
    r.seed(2)
    assert r.generator is g and g.getstate() == PCG32(2, 3).getstate()
    r.setstate(PCG32Random(7, stream=8).getstate())
    assert r.generator is g and g.getstate() == PCG32(7, 8).getstate() and r.stream == 8


def test_json_form_is_documented_and_strict():
    import json

    r = PCG32Random(42, stream=54)
    doc = json.loads(r.to_json())
    assert doc == {"format": "chancekit.PCG32Random", "version": 1,
                   "state": f"{PCG32(42, 54).getstate().state:#018x}",
                   "inc": f"{PCG32(42, 54).getstate().inc:#018x}", "gauss_next": None}
    for change in ({"version": 1.0}, {"version": True}, {"state": doc["state"] + " "},
                   {"state": doc["state"].upper()}, {"inc": "0x" + "0" * 16},
                   {"gauss_next": 1}, {"gauss_next": "0.5"}, {"format": "x"}, {"extra": 1}):
        with pytest.raises(StateError):
            PCG32Random.from_json(json.dumps({**doc, **change}))
    for text in ('{"gauss_next": NaN}', "[", "null",
                 r.to_json().replace('"gauss_next": null', '"gauss_next": Infinity')):
        with pytest.raises(StateError):
            PCG32Random.from_json(text)
