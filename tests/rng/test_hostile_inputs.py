"""Issues #10 and #15: huge integers, lone surrogates, deep nesting and loosely written saved
states must give chancekit's own errors (with bounded messages) or work, never a bare
ValueError, UnicodeEncodeError, RecursionError, or a state that loads wrong."""

from __future__ import annotations

import hashlib
import json
import pickle

import pytest

from chancekit import (
    PCG32,
    InvalidValueError,
    LimitError,
    PCG32Random,
    StateError,
    Streams,
    roll,
)
from chancekit.errors import ChancekitError
from chancekit.rng.pcg32 import _unpickle
from chancekit.rng.streams import (
    DECIMAL_SEED_DIGITS,
    MAX_CHILD_DEPTH,
    derive_stream,
    parse_seed_text,
    seed_text,
)

HUGE = 10**5000  # past Python's 4300-digit limit on int <-> str


# -- 1. huge integers --------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: PCG32(1 << 80000),
    lambda: PCG32(1, -HUGE),
    lambda: PCG32(1).randbelow(-HUGE),
    lambda: PCG32(1).randint(HUGE, 1),
    lambda: PCG32(1).setstate((HUGE, 1)),
    lambda: PCG32(1).setstate((1, HUGE)),
    lambda: PCG32.from_state((0, HUGE * 2)),
    lambda: _unpickle(1, HUGE, 1),
    lambda: _unpickle(HUGE, 1, 1),
    lambda: PCG32Random(HUGE),
    lambda: PCG32Random(1).setstate(("chancekit.PCG32Random/1", HUGE, 1, None)),
    lambda: roll("1d6", rng=-HUGE),
], ids=range(12))
def test_huge_integers_give_chancekit_errors_with_short_messages(call):
    with pytest.raises(ChancekitError) as exc:
        call()
    assert len(str(exc.value)) < 600
    assert "digits" in str(exc.value)


@pytest.mark.parametrize("seed", [HUGE, -HUGE, 1 << 80000, 10**DECIMAL_SEED_DIGITS,
                                  10**DECIMAL_SEED_DIGITS - 1, -(10**DECIMAL_SEED_DIGITS)],
                         ids=range(6))
def test_any_integer_seed_works_for_streams_and_saves(seed):
    s = Streams(seed)
    s["a"].advance(3)
    s.child("x")["b"]
    back = Streams.from_json(s.to_json())
    assert back.seed == seed
    assert back["a"].getstate() == s["a"].getstate()
    assert back.child("x")["b"].getstate() == s.child("x")["b"].getstate()
    assert derive_stream(seed, "a").getstate() != derive_stream(seed + 1, "a").getstate()
    assert "digits" in repr(s) or len(repr(s)) < 4400


def test_seed_field_is_decimal_below_4300_digits_and_hex_above():
    def field_hash(text):
        field = b"int:" + text.encode()
        msg = b"chancekit.streams/1" + len(field).to_bytes(4, "big") + field
        f2 = b"stream:a"
        msg += len(f2).to_bytes(4, "big") + f2
        d = hashlib.blake2b(msg, digest_size=16).digest()
        return PCG32(int.from_bytes(d[:8], "little"), int.from_bytes(d[8:], "little"))

    small = 10**DECIMAL_SEED_DIGITS - 1  # 4300 nines: decimal, as before
    assert seed_text(small) == "9" * DECIMAL_SEED_DIGITS
    assert derive_stream(small, "a").getstate() == field_hash("9" * 4300).getstate()
    assert seed_text(-HUGE) == "-0x" + format(HUGE, "x")
    assert derive_stream(-HUGE, "a").getstate() == field_hash(seed_text(-HUGE)).getstate()


@pytest.mark.parametrize("text", ["", "-", "-0", "007", "+7", " 7", "7 ", "7\n", "1_000",
                                  "١٢٣", "0x10", "0X" + "f" * 4000, "0x0" + "f" * 4000,
                                  "1" * (DECIMAL_SEED_DIGITS + 1), "1e5", "0b1"], ids=range(16))
def test_seed_text_is_exactly_canonical(text):
    with pytest.raises(InvalidValueError):
        parse_seed_text(text)


@pytest.mark.parametrize("n", [0, 1, -1, 10**600 + 12345, -(10**4299), HUGE, -(1 << 80000)],
                         ids=range(7))
def test_seed_text_round_trips(n):
    assert parse_seed_text(seed_text(n)) == n


# -- 2. lone surrogates ----------------------------------------------------------------------
@pytest.mark.parametrize("call,name", [
    (lambda: Streams(1)["\ud800"], "stream id"),
    (lambda: Streams(1)["ok\udcff"], "stream id"),
    (lambda: Streams("\udfff"), "seed"),
    (lambda: Streams(1).child("\ud800"), "stream child name"),
    (lambda: derive_stream(1, "a", ("\ud800",)), "stream child name"),
])
def test_lone_surrogates_are_refused_naming_the_argument(call, name):
    with pytest.raises(InvalidValueError, match=rf"^{name} must be text without lone surrogates"
                       r".*\\ud[89a-f]"):
        call()


def test_saved_file_with_a_surrogate_id_or_seed_is_a_state_error():
    good = json.loads(_saved())
    good["streams"]["\ud800"] = good["streams"].pop("a")
    with pytest.raises(StateError, match="surrogates"):
        Streams.from_json(json.dumps(good))  # json.dumps writes "\ud800" escaped
    good = json.loads(_saved())
    good["seed_type"], good["seed"] = "str", "\udfff"
    with pytest.raises(StateError, match="surrogates"):
        Streams.from_json(json.dumps(good))
    good = json.loads(_saved())
    good["children"] = {"\ud800": {"streams": {}, "children": {}}}
    with pytest.raises(StateError, match="surrogates"):
        Streams.from_json(json.dumps(good))


def test_non_bmp_text_still_works():
    assert Streams("🐉")["boss:🐉"].getstate() == derive_stream("🐉", "boss:🐉").getstate()


# -- 3. deep nesting --------------------------------------------------------------------------
def _nested(depth: int) -> dict:
    body: dict = {"streams": {}, "children": {}}
    root = body
    for _ in range(depth):
        sub = {"streams": {}, "children": {}}
        body["children"]["c"] = sub
        body = sub
    return {"format": "chancekit.streams", "version": 1, "seed": "1", "seed_type": "int",
            **root}


def test_from_dict_5000_deep_is_a_state_error_not_recursion():
    with pytest.raises(StateError, match="MAX_CHILD_DEPTH"):
        Streams.from_dict(_nested(5000))


def test_child_depth_limit_and_deepest_allowed_round_trip():
    s = Streams(1)
    for _ in range(MAX_CHILD_DEPTH):
        s = s.child("c")
    s["deep"].advance(5)
    with pytest.raises(LimitError, match="MAX_CHILD_DEPTH"):
        s.child("c")
    root = Streams.from_dict(_nested(MAX_CHILD_DEPTH))
    leaf = root
    for _ in range(MAX_CHILD_DEPTH):
        leaf = leaf.child("c")
    assert leaf.path == ("c",) * MAX_CHILD_DEPTH
    with pytest.raises(LimitError):
        derive_stream(1, "a", ("c",) * (MAX_CHILD_DEPTH + 1))
    # saving and loading the deepest store does not recurse either
    top = Streams(1)
    leaf = top
    for _ in range(MAX_CHILD_DEPTH):
        leaf = leaf.child("c")
    leaf["x"].advance(2)
    back = Streams.from_json(top.to_json())
    for _ in range(MAX_CHILD_DEPTH):
        back = back.child("c")
    assert back["x"].getstate() == leaf["x"].getstate()


def test_streams_pickle_and_copy_still_work():
    import copy

    s = Streams(7)
    s["a"].advance(1)
    s.child("b")["c"]
    for clone in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s)):
        assert clone["a"].getstate() == s["a"].getstate()
        assert clone["a"] is not s["a"]
        assert clone.child("b")["c"].getstate() == s.child("b")["c"].getstate()
        assert clone.child("b").path == ("b",)
        assert clone.child("b")["new"].getstate() == s.child("b")["new"].getstate()


# -- 6. saved state that loads wrong -----------------------------------------------------
def _saved() -> str:
    s = Streams(12345)
    s["a"].advance(3)
    return s.to_json()


@pytest.mark.parametrize("bad", [
    "0x58210fc67221b16 ", " 0x58210fc67221b16", "0x58210fc6_7221b16", "0x58210fc67221b16\n",
    "0x058210FC67221B16", "0X058210fc67221b16", "-0x58210fc67221b16", "0x+58210fc67221b16",
    "0x٠58210fc67221b16", "0x" + "0" * 16 + "\x00"[:0] + " ",
])
def test_state_hex_must_be_exactly_0x_and_16_lowercase_digits(bad):
    doc = json.loads(_saved())
    doc["streams"]["a"]["state"] = bad
    with pytest.raises(StateError, match=r"streams\['a'\]\.state must be a 64-bit hex string"):
        Streams.from_json(json.dumps(doc))


@pytest.mark.parametrize("version", ["1.0", "true", "1e0", '"1"'])
def test_json_version_must_be_the_integer_1(version):
    text = _saved().replace('"version": 1,', f'"version": {version},')
    with pytest.raises(StateError, match="version"):
        Streams.from_json(text)


def test_duplicate_keys_are_refused():
    text = _saved().replace('"seed": "12345"', '"seed": "12345", "seed": "12345"')
    with pytest.raises(StateError, match="repeats the key 'seed'"):
        Streams.from_json(text)


@pytest.mark.parametrize("seed", [" 12345", "12345\n", "+12345", "012345", "1_2345",
                                  "١٢٣٤٥", "12345.0", "-0"])
def test_saved_int_seed_must_be_plain_decimal(seed):
    text = _saved().replace('"seed": "12345"', f'"seed": {json.dumps(seed)}')
    with pytest.raises(StateError, match=r"seed .* is not a decimal integer"):
        Streams.from_json(text)


@pytest.mark.parametrize("version", [True, 1.0])
def test_pickle_version_must_be_the_integer_1(version):
    with pytest.raises(StateError, match="pickle version"):
        _unpickle(version, 1, 1)


@pytest.mark.parametrize("gauss", [float("nan"), float("inf"), -float("inf")])
def test_pcg32random_gauss_next_must_be_finite(gauss):
    with pytest.raises(StateError, match="gauss_next"):
        PCG32Random(1).setstate(("chancekit.PCG32Random/1", 1, 3, gauss))


def test_state_error_messages_are_bounded():
    big = "0x" + "z" * 50_000_000
    doc = {"format": "chancekit.streams", "version": 1, "seed": "1", "seed_type": "int",
           "streams": {"a": {"state": big, "inc": big}}, "children": {}}
    for call in (lambda: Streams.from_dict(doc),
                 lambda: Streams.from_dict({**doc, "seed": "9" * 50_000_000}),
                 lambda: Streams.from_dict({**doc, "format": big}),
                 lambda: Streams.from_dict({**doc, "streams": {big: {}}}),
                 lambda: Streams.from_dict({**doc, big: 1}),
                 lambda: PCG32Random(1).setstate((big, 1, 3, None)),
                 lambda: PCG32Random.from_dict({"format": big})):
        with pytest.raises(StateError) as exc:
            call()
        assert len(str(exc.value)) < 1000
