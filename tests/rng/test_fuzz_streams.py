"""Fuzzing the entry points that take user text or data: stream ids, child names, seeds,
and saved-state JSON. Nothing but chancekit's documented errors may escape.

Counts: 3 000 examples in the default profile; see docs/fuzzing.md for the long run."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from _fuzz import fuzz_settings
from chancekit import ChancekitError, StateError, Streams

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


def valid_save() -> dict:
    s = Streams(12345)
    s["a"].advance(3)
    s.child("dungeon")["level-1"]
    return json.loads(s.to_json())


@fuzz_settings(quick=1_000, long=100_000)
@given(st.one_of(st.integers(), st.text(), st.floats(), st.binary(), st.none()),
       st.one_of(st.text(max_size=1100), st.integers(), st.binary(max_size=5), st.none()))
def test_ids_and_seeds(seed, stream_id):
    try:
        Streams(seed)[stream_id].next_u32()
        Streams(seed).child(stream_id)["x"]
    except ChancekitError:
        pass


@fuzz_settings(quick=500, long=25_000)
@given(JSON)
def test_arbitrary_json_documents(doc):
    try:
        Streams.from_json(json.dumps(doc))
    except StateError:
        pass


@fuzz_settings(quick=500, long=25_000)
@given(st.data())
def test_mutated_saves(data):
    doc = valid_save()
    # replace one value somewhere in the document with arbitrary JSON
    obj, path = doc, []
    while isinstance(obj, dict) and obj and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(obj)))
        path.append(key)
        if not isinstance(obj[key], dict):
            break
        obj = obj[key]
    if path:
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        parent[path[-1]] = data.draw(JSON)
    try:
        loaded = Streams.from_json(json.dumps(doc))
    except StateError:
        return
    loaded["a"].next_u32()  # whatever loaded must work


@fuzz_settings(quick=1_000, long=100_000)
@given(st.data())
def test_byte_level_corruption(data):
    s = Streams(7)
    s["x"]
    text = s.to_json()
    i = data.draw(st.integers(0, len(text) - 1))
    junk = data.draw(st.text(max_size=3))
    cut = data.draw(st.booleans())
    mutated = text[:i] + ("" if cut else junk + text[i + 1:])
    try:
        Streams.from_json(mutated)
    except StateError:
        pass
