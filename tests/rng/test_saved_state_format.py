"""Issue #11: one saved-state format. Every stateful object saves
``{"format": "chancekit.<kind>", "version": 1, ...}`` with ``to_dict``/``to_json`` and
restores it with ``load_dict``/``load_json`` (in place) or ``from_dict``/``from_json``;
the JSON round trip restores the exact next draws, and a damaged file is a StateError
naming the field that changes nothing."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from chancekit import PCG32, PCG32Random, StateError, Streams, _state
from chancekit.errors import InvalidValueError
from chancekit.fair import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
)
from chancekit.sampling import AliasTable, ChanceTree, MaxStreak, NoRepeat


def _words(g, k=8):
    return [g.next_u32() for _ in range(k)]


def _sampler_case(make):
    """(make a used object, make a fresh one to restore into, its next draws)."""

    def used():
        obj = make()
        obj.draw_many(7, PCG32(3))
        return obj

    return used, make, lambda obj: obj.draw_many(12, PCG32(99))


def _streams_used():
    s = Streams("campaign")
    s["loot"].advance(5)
    s.child("dungeon")["level-1"].next_u32()
    return s


CASES = {
    "PCG32": (lambda: (g := PCG32(42, 54), g.advance(9))[0], lambda: PCG32(1), _words),
    "PCG32Random": (lambda: (r := PCG32Random(5, stream=3), r.gauss(0, 1))[0],
                    lambda: PCG32Random(0), lambda r: [r.random() for _ in range(5)]
                    + [r.gauss(0, 1)]),
    "ChanceTree": _sampler_case(lambda: ChanceTree({"a": 1, (1, "b"): Fraction(2, 3),
                                                    None: 0.25, 7: 0})),
    "SwapFilter": _sampler_case(lambda: ChanceTree({(f, c): 1 for f in range(1, 7)
                                                    for c in (0, 1)}).swap_filter(2)),
    "MaxStreak": _sampler_case(lambda: MaxStreak(AliasTable({"hit": 9, "miss": 1}),
                                                 max_run=2)),
    "NoRepeat": _sampler_case(lambda: NoRepeat(AliasTable([1, 1, 1]))),
    "Dice": _sampler_case(lambda: Dice(6)),
    "Deck": _sampler_case(lambda: Deck(5)),
    "GeneralizedDeck": _sampler_case(lambda: GeneralizedDeck(3, 1, 5, weights=(3, 1, 1))),
    "DynamicDice": _sampler_case(lambda: DynamicDice(6, 0.355)),
    "PRD": _sampler_case(lambda: PRD(0.25)),
    "PityTimer": _sampler_case(lambda: PityTimer(0.05, soft_start=5, ramp=0.2, hard=8)),
    "HistoryReroll": _sampler_case(lambda: HistoryReroll(7, 4, 4)),
    "ErrorAccumulator": _sampler_case(lambda: ErrorAccumulator(0.3)),
    "NoRepeatSystem": _sampler_case(lambda: NoRepeatSystem(Deck(4))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_round_trip_restores_the_exact_next_draws(name):
    used, fresh, draws = CASES[name]
    a = used()
    text = a.to_json()
    data = json.loads(text)
    assert data["format"].startswith("chancekit.") and data["version"] == 1
    assert a.to_dict() == data
    b = fresh()
    b.load_json(text)
    assert b.to_json() == text  # saves back to itself
    c = fresh()
    c.load_dict(copy.deepcopy(data))
    if hasattr(type(a), "from_json"):
        d = type(a).from_json(text)
        assert draws(d) == draws(copy.deepcopy(a))
    want = draws(a)
    assert draws(b) == want and draws(c) == want


def test_streams_round_trip():
    s = _streams_used()
    t = Streams.from_json(s.to_json())
    assert t["loot"].next_u32() == s["loot"].next_u32()
    assert json.loads(s.to_json())["format"] == "chancekit.streams"


def _mutations(data):
    """(description, damaged copy, a word the message must contain)."""
    fields = [k for k in data if k not in ("format", "version")]
    yield "format", {**data, "format": "chancekit.other"}, "format"
    for bad in (2, True, 1.0, "1", None):
        yield f"version {bad!r}", {**data, "version": bad}, "version"
    for f in fields:
        yield f"missing {f}", {k: v for k, v in data.items() if k != f}, f
        for bad in (True, [[]], {"x": 1}, -1.5):
            yield f"{f} = {bad!r}", {**data, f: bad}, f
    yield "extra", {**data, "extra": 1}, "extra"
    yield "not an object", [data], ""


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_damaged_state_is_a_state_error_naming_the_field(name):
    used, fresh, _ = CASES[name]
    data = used().to_dict()
    target = fresh()
    before = target.to_json()
    for what, bad, word in _mutations(data):
        if what.startswith("last = ") and name in ("MaxStreak", "NoRepeat"):
            continue  # "last" is any saved result: a bool or a float is a valid one
        if what == "gauss_next = -1.5":
            continue  # a valid gauss_next
        with pytest.raises(StateError) as exc:
            target.load_dict(bad)
        msg = str(exc.value)
        assert word in msg, (what, msg)
        assert len(msg) < 400, what
        assert target.to_json() == before, what  # nothing changed
        with pytest.raises(StateError):
            target.load_json(json.dumps(bad))


def test_bad_json_text():
    g = PCG32(1)
    for text in ('{"format": "chancekit.pcg32", "format": "x"}', "{", "NaN",
                 '{"format": "chancekit.pcg32", "version": 1, "state": NaN}'):
        with pytest.raises(StateError):
            g.load_json(text)
    with pytest.raises(TypeError):
        g.load_json(5)


def test_strict_words_and_integers():
    d = PCG32(3).to_dict()
    for bad in ("0x" + "A" * 16, " 0x0000000000000001", "0x1", "0x" + "0" * 17, 5):
        with pytest.raises(StateError, match="state"):
            PCG32.from_dict({**d, "state": bad})
    with pytest.raises(StateError, match="inc must be odd"):
        PCG32.from_dict({**d, "inc": "0x0000000000000002"})
    t = ChanceTree({"a": 3}).to_dict()
    for bad in ("0x03", "0X3", "3", "-0x3", "0x", 3):
        with pytest.raises(StateError, match=r"items\[0\]\[1\]"):
            ChanceTree.from_dict({**t, "items": [["a", bad]]})
    with pytest.raises(StateError, match="scale"):
        ChanceTree.from_dict({**t, "scale": "0x0"})
    with pytest.raises(StateError, match="item"):
        ChanceTree.from_dict({**t, "items": [[["a"], "0x1"]]})
    with pytest.raises(StateError, match="duplicate"):
        ChanceTree.from_dict({**t, "items": [["a", "0x1"], ["a", "0x1"]]})


def test_system_state_must_save_back_as_written():
    d = Deck(3).to_dict()
    assert d["state"] == {"tuple": [0, 0, 0, 1]}
    for bad in ([True, 0, 0, 1], [0, 0, 0, 1.0], [0, 0, 0], [0, 0, 0, 0]):
        target = Deck(3)
        with pytest.raises(StateError, match="state"):
            target.load_dict({**d, "state": {"tuple": bad}})
        assert target.getstate() == (0, 0, 0, 1)
    with pytest.raises(StateError, match="system"):
        Dice(3).load_dict(d)


def test_a_filter_restores_only_with_its_own_max_run():
    f = MaxStreak(AliasTable([1, 1]), max_run=2)
    with pytest.raises(StateError, match="max_run"):
        NoRepeat(AliasTable([1, 1])).load_dict(f.to_dict())


def test_swap_filter_checks_held_items():
    f = ChanceTree({"a": 1, "b": 1, "c": 1}).swap_filter(1)
    f.draw(PCG32(1))
    d = f.to_dict()
    held = d["held"][0][0]
    tree_items = d["tree"]["items"] + [[held, "0x1"]]
    g = ChanceTree({"a": 1, "b": 1, "c": 1}).swap_filter(1)
    with pytest.raises(StateError, match="held"):
        g.load_dict({**d, "tree": {**d["tree"], "items": tree_items}})
    with pytest.raises(StateError, match="length"):
        g.load_dict({**d, "length": 5})


def test_values_that_json_cannot_hold_are_refused_when_saving():
    with pytest.raises(InvalidValueError, match="getstate"):
        ChanceTree({frozenset({1}): 1}).to_json()
    with pytest.raises(InvalidValueError):
        ChanceTree({2**60: 1}).to_json()
    assert _state.decode_value({"tuple": [1, {"tuple": ["x"]}]}, "v") == (1, ("x",))
