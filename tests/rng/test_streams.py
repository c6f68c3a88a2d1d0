"""Named streams: stable derivation, hierarchy, save/load, and hostile saved files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chancekit import PCG32, InvalidTypeError, InvalidValueError, StateError, Streams
from chancekit.rng.streams import derive_stream

IDS = ["dwarvish-mines-1", "gnomish-mines", "town", "boss:🐉", "level-3"]


def reimplemented(seed, stream_id, path=()):
    """The derivation as docs/reproducibility.md states it, written independently."""
    fields = [(b"str:" + seed.encode()) if isinstance(seed, str) else b"int:" + str(seed).encode()]
    fields += [b"child:" + p.encode() for p in path] + [b"stream:" + stream_id.encode()]
    msg = b"chancekit.streams/1" + b"".join(len(f).to_bytes(4, "big") + f for f in fields)
    digest = hashlib.blake2b(msg, digest_size=16).digest()
    return PCG32(int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little"))


@pytest.mark.parametrize("seed", [0, 12345, -7, 2**200, "my campaign"])
@pytest.mark.parametrize("stream_id", IDS)
def test_derivation_matches_the_documented_recipe(seed, stream_id):
    assert Streams(seed)[stream_id].getstate() == reimplemented(seed, stream_id).getstate()
    assert (Streams(seed).child("a").child("b")[stream_id].getstate()
            == reimplemented(seed, stream_id, ("a", "b")).getstate())


def test_worked_example_in_the_docs():
    # Pinned: docs/reproducibility.md quotes these numbers.
    digest = hashlib.blake2b(
        bytes.fromhex("6368616e63656b69742e73747265616d732f3100000009696e743a3132333435"
                      "0000001773747265616d3a64776172766973682d6d696e65732d31"), digest_size=16)
    assert digest.hexdigest() == "c3f7bfb233bb4c394d7cfa036f6ca03d"
    assert reimplemented(12345, "dwarvish-mines-1").getstate() == PCG32(
        0x394CBB33B2BFF7C3, 0x3DA06C6F03FA7C4D).getstate()
    fresh = derive_stream(12345, "dwarvish-mines-1")
    assert fresh.getstate() == (0x8AFDE6CD6BB7DB21, 0x7B40D8DE07F4F89B)
    assert [fresh.next_u32() for _ in range(3)] == [1193357276, 682171986, 2376200240]


SCRIPT = """
import json, sys
from chancekit import Streams
ids = sys.argv[1].split(",")
s = Streams(12345)
out = {}
for i in ids:
    g = s[i] if not i.startswith("child/") else s.child("dungeon")[i[6:]]
    out[i] = [g.next_u32() for _ in range(5)]
print(json.dumps(out, sort_keys=True))
"""


def test_stable_across_processes_hash_seeds_and_access_order():
    ids = [*IDS, "child/level-3"]
    outs = []
    orders = (("1", ids), ("4242", list(reversed(ids))), ("random", ids[1::2] + ids[::2]))
    for hashseed, order in orders:
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        res = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(order)], env=env,
                             capture_output=True, text=True, check=True)
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1] == outs[2]
    assert len({tuple(v) for v in outs[0].values()}) == len(ids)  # all different


def test_same_object_every_time_and_children_are_separate_namespaces():
    s = Streams(1)
    assert s["x"] is s["x"]
    assert s.child("x") is s.child("x")
    assert s["x"].getstate() != s.child("x")["x"].getstate()
    assert s.child("a")["b"].getstate() != s.child("b")["a"].getstate()
    assert Streams(1)["x"].getstate() != Streams("1")["x"].getstate()  # int vs str seeds
    assert list(s) == ["x"] and "x" in s and len(s) == 1


def test_usage_in_one_stream_does_not_move_another():
    a, b = Streams(9), Streams(9)
    for _ in range(1000):
        a["fights"].randbelow(20)
    assert a["loot"].next_u32() == b["loot"].next_u32()


def test_streams_are_not_correlated_by_sharing_state():
    # Different ids differ in both state and increment.
    s = Streams(3)
    states = {s[f"level-{i}"].getstate() for i in range(200)}
    assert len({st_.state for st_ in states}) == 200 and len({st_.inc for st_ in states}) == 200


@given(st.one_of(st.integers(), st.text(max_size=20)),
       st.lists(st.text(min_size=1, max_size=8), max_size=3),
       st.lists(st.integers(0, 50), min_size=1, max_size=4))
def test_json_round_trip_continues_every_stream_exactly(seed, path, draws):
    s = Streams(seed)
    store = s
    for p in path:
        store = store.child(p)
    for i, k in enumerate(draws):
        store[f"id{i}"].advance(k)
        s[f"top{i}"].advance(k * 3)
    t = Streams.from_json(s.to_json())
    assert t.to_dict() == s.to_dict()
    other = t
    for p in path:
        other = other.child(p)
    for i in range(len(draws)):
        assert other[f"id{i}"].next_u32() == store[f"id{i}"].next_u32()
        assert t[f"top{i}"].next_u32() == s[f"top{i}"].next_u32()


def saved():
    s = Streams(12345)
    s["a"].advance(3)
    s.child("dungeon")["level-1"].advance(5)
    return json.loads(s.to_json())


def mutate(path, value):
    def f(d):
        obj = d
        for key in path[:-1]:
            obj = obj[key]
        if value is KeyError:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
        return d
    return f


BAD = [
    ("version", mutate(["version"], 2), "unknown saved-streams version 2"),
    ("format", mutate(["format"], "other"), "format must be"),
    ("missing seed", mutate(["seed"], KeyError), "missing"),
    ("extra key", mutate(["extra"], 1), "unknown"),
    ("state not hex", mutate(["streams", "a", "state"], "0xZZZZZZZZZZZZZZZZ"), "lowercase hex"),
    ("state too long", mutate(["streams", "a", "state"], "0x" + "1" * 17), "64-bit hex"),
    ("state as number", mutate(["streams", "a", "state"], 5), "64-bit hex"),
    ("inc tampered", mutate(["streams", "a", "inc"], "0x0000000000000003"), "does not match"),
    ("child tampered", mutate(["children", "dungeon", "streams", "level-1", "inc"],
                              "0x0000000000000005"), "does not match"),
    ("seed changed", mutate(["seed"], "12346"), "does not match"),
    ("seed not int", mutate(["seed"], "twelve"), "not a decimal integer"),
    ("seed type", mutate(["seed_type"], "float"), "seed_type"),
    ("streams not object", mutate(["streams"], []), "must be objects"),
    ("empty id", mutate(["streams", ""], {"state": "0x" + "0" * 16, "inc": "0x" + "0" * 15 + "1"}),
     "non-empty"),
]


@pytest.mark.parametrize("name,change,message", BAD, ids=[b[0] for b in BAD])
def test_tampered_files_are_refused_with_a_clear_error(name, change, message):
    text = json.dumps(change(saved()))
    with pytest.raises(StateError, match=message):
        Streams.from_json(text)


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"format": 1}', "1" * 10, "\x00"])
def test_malformed_or_truncated_json(text):
    with pytest.raises(StateError):
        Streams.from_json(text)
    full = Streams(1)
    full["a"]
    with pytest.raises(StateError):
        Streams.from_json(full.to_json()[:-5])


def test_bad_ids_and_seeds():
    s = Streams(1)
    with pytest.raises(InvalidTypeError, match="stream id must be a str"):
        s[3]
    with pytest.raises(InvalidValueError, match="non-empty"):
        s[""]
    with pytest.raises(InvalidValueError, match="at most 1024"):
        s["x" * 1025]
    with pytest.raises(InvalidTypeError, match="seed must be an int or a str"):
        Streams(1.5)
    with pytest.raises(InvalidTypeError):
        s.child(None)
    with pytest.raises(InvalidTypeError):
        Streams.from_json(123)
