"""Named streams: one master seed, one independent :class:`PCG32` per id, lazily.

A roguelike keeps one master seed and asks for a generator per level or purpose by a
string id (``"dwarvish-mines-1"``), so that what happens in one level never changes how
another is generated. Unlike the published store (built-in string hash, collisions resolved
in first-use order), the derivation here is a documented cryptographic hash of the seed and
the id's full path: stable across processes, platforms, Python versions and
``PYTHONHASHSEED``, and independent of the order ids are first used.

Derivation, version 1 (re-implementable from this description; see
``docs/reproducibility.md`` for a worked example):

1. fields, each UTF-8 bytes: the seed as ``"int:" + decimal`` (an ``int`` seed; past
   4300 digits ``"int:" + sign + "0x" + hex``) or ``"str:" + text`` (a ``str`` seed);
   then one ``"child:" + name`` per enclosing
   :meth:`Streams.child`; then ``"stream:" + id``;
2. ``message = b"chancekit.streams/1"`` followed by every field as a 4-byte big-endian
   length and the field's bytes;
3. ``digest = blake2b(message, digest_size=16)``;
4. ``initstate`` = the first 8 digest bytes, ``initseq`` = the last 8, each read
   little-endian; the stream is ``pcg32_srandom_r(initstate, initseq)``.

Both the state and the increment come from the hash: streams that differ only in their
increment are measurably correlated, so the id never picks the increment alone.

>>> streams = Streams(12345)
>>> mines = streams["dwarvish-mines-1"]
>>> mines is streams["dwarvish-mines-1"]
True
>>> mines.next_u32()
1193357276
>>> streams.child("dungeon")["level-3"].next_u32()
3628518586
"""

from __future__ import annotations

import hashlib
import json
import numbers
import re
import threading
from collections.abc import Iterator
from typing import Any

from chancekit import _state
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError, StateError, quote
from chancekit.limits import MAX_CHILD_DEPTH
from chancekit.limits import MAX_ID_LENGTH as _MAX_ID_LENGTH
from chancekit.rng.pcg32 import PCG32, PCG32State

__all__ = ["Streams", "derive_stream"]

#: Version of the derivation and of the JSON save format.
FORMAT = "chancekit.streams"
VERSION = 1
_DOMAIN = b"chancekit.streams/1"
#: integer seeds below ``10**DECIMAL_SEED_DIGITS`` in size are written in decimal (in the
#: derivation and the JSON save); larger ones as ``0x`` hex (Python's own limit on decimal
#: conversion is 4300 digits, and conversion is quadratic past it)
DECIMAL_SEED_DIGITS = 4300
_DECIMAL_SEED_BOUND = 10**DECIMAL_SEED_DIGITS
_CHUNK_DIGITS = 500  # decimal conversion in chunks, under any sys.set_int_max_str_digits
_CHUNK = 10**_CHUNK_DIGITS

_U64_TEXT = re.compile(r"0x[0-9a-f]{16}")
_DECIMAL_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_HEX_TEXT = re.compile(r"-?0x[1-9a-f][0-9a-f]*")


def seed_text(seed: int) -> str:
    """An integer seed as the derivation and the JSON save write it: decimal below
    ``10**4300`` in size, else sign, ``0x`` and lowercase hex digits. O(digits) for the hex
    form; the decimal form is at most 4300 digits.

    >>> seed_text(-7), seed_text(10**4300)[:6]
    ('-7', '0x1392')
    """
    sign, n = ("-", -seed) if seed < 0 else ("", seed)
    if n >= _DECIMAL_SEED_BOUND:
        return f"{sign}0x{n:x}"
    parts = []
    while n >= _CHUNK:
        n, low = divmod(n, _CHUNK)
        parts.append(str(low).zfill(_CHUNK_DIGITS))
    parts.append(str(n))
    return sign + "".join(reversed(parts))


def parse_seed_text(text: str) -> int:
    """The inverse of :func:`seed_text`, accepting exactly its output (ASCII digits, no
    spaces, underscores, ``+`` or leading zeros); anything else is an
    :class:`~chancekit.errors.InvalidValueError`.

    >>> parse_seed_text("-7"), parse_seed_text(seed_text(10**5000)) == 10**5000
    (-7, True)
    """
    if isinstance(text, str) and len(text) <= DECIMAL_SEED_DIGITS + 1 and \
            _DECIMAL_TEXT.fullmatch(text):
        sign, digits = (-1, text[1:]) if text[0] == "-" else (1, text)
        n = 0
        for start in range(0, len(digits), _CHUNK_DIGITS):
            chunk = digits[start : start + _CHUNK_DIGITS]
            n = n * 10 ** len(chunk) + int(chunk)
        if n < _DECIMAL_SEED_BOUND and not (sign < 0 and n == 0):
            return sign * n
    if isinstance(text, str) and _HEX_TEXT.fullmatch(text):
        n = int(text.lstrip("-")[2:], 16)
        if n >= _DECIMAL_SEED_BOUND:
            return -n if text[0] == "-" else n
    raise InvalidValueError(
        "seed", text, f"an integer in decimal ASCII digits (optionally '-', no spaces, no "
        f"leading zeros), or '0x' and lowercase hex for seeds of more than "
        f"{DECIMAL_SEED_DIGITS} digits"
    )


def _field(tag: bytes, text: str | bytes) -> bytes:
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    return (len(tag) + len(data)).to_bytes(4, "big") + tag + data


def _seed_hasher(seed: int | str) -> Any:
    h = hashlib.blake2b(_DOMAIN, digest_size=16)
    if isinstance(seed, str):
        h.update(_field(b"str:", seed))
    else:
        h.update(_field(b"int:", seed_text(seed).encode("ascii")))
    return h


def _child_hasher(parent: Any, name: str) -> Any:
    h = parent.copy()
    h.update(_field(b"child:", name))
    return h


def _derive(hasher: Any, stream_id: str) -> PCG32:
    h = hasher.copy()
    h.update(_field(b"stream:", stream_id))
    digest = h.digest()
    return PCG32(int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little"))


def derive_stream(seed: int | str, stream_id: str, path: tuple[str, ...] = ()) -> PCG32:
    """The fresh generator for ``stream_id`` (under the child ``path``) of ``seed``.

    This is the whole derivation; :class:`Streams` only caches its results. O(1).

    >>> derive_stream(12345, "dwarvish-mines-1").next_u32()
    1193357276
    """
    seed = _check_seed(seed)
    stream_id = _check_id("id", stream_id)
    if not isinstance(path, tuple | list):
        raise InvalidTypeError("path", path, "a tuple of child names")
    _check_depth(len(path))
    h = _seed_hasher(seed)
    for p in path:
        h = _child_hasher(h, _check_id("child name", p))
    return _derive(h, stream_id)


def _check_seed(seed: Any) -> int | str:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral | str):
        raise InvalidTypeError("seed", seed, "an int or a str")
    if isinstance(seed, str):
        _check_text("seed", seed)
        return seed
    return int(seed)


def _check_text(what: str, value: str) -> None:
    """Text must be encodable as UTF-8: lone surrogates (U+D800-U+DFFF, e.g. undecodable
    bytes of a file name or a command-line argument) are refused, not guessed at."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidValueError(
                what, value, f"text without lone surrogates (it has {value[exc.start]!a} at "
                f"index {exc.start}; stream ids and seeds are hashed as UTF-8)"
            ) from None


def _check_id(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"stream {what}", value, "a str")
    if not value or len(value) > _MAX_ID_LENGTH:
        raise InvalidValueError(
            f"stream {what}", value, f"a non-empty string of at most {_MAX_ID_LENGTH} characters"
        )
    _check_text(f"stream {what}", value)
    return value


def _check_depth(depth: int) -> None:
    if depth > MAX_CHILD_DEPTH:
        raise LimitError(
            f"child stores nest at most {MAX_CHILD_DEPTH} deep "
            "(chancekit.rng.streams.MAX_CHILD_DEPTH); join names instead, e.g. "
            "child('region/dungeon/level-3')", limit="MAX_CHILD_DEPTH", value=depth)


class Streams:
    """A store of named :class:`PCG32` streams derived from one master seed.

    ``Streams(seed)`` takes any ``int`` (negative and huge ones too) or ``str``.
    ``streams[id]`` creates that id's generator on first use and returns the same object
    every time; ``streams.child(name)`` is a sub-store (e.g. one per area) whose ids never
    collide with the parent's. Saving: :meth:`to_json` / :meth:`from_json`.

    Costs: first access to an id O(1) (one blake2b); later accesses a dict lookup.

    Thread safety: first use of an id (or a child name) is atomic: threads racing for it
    all get the same generator. Each generator is itself thread-safe (see :class:`PCG32`),
    and :meth:`to_json` may run while other threads create streams. Children nest at most
    :data:`MAX_CHILD_DEPTH` (100) deep.

    >>> s = Streams("my-campaign")
    >>> s["loot"].randbelow(100)
    53
    >>> sorted(s)
    ['loot']
    """

    __slots__ = ("_children", "_hasher", "_lock", "_path", "_seed", "_streams")

    def __init__(self, seed: int | str) -> None:
        self._seed = _check_seed(seed)
        self._setup((), _seed_hasher(self._seed))

    def _setup(self, path: tuple[str, ...], hasher: Any) -> None:
        self._path = path
        self._hasher = hasher  # blake2b fed with everything but the stream field
        self._lock = threading.Lock()
        self._streams: dict[str, PCG32] = {}
        self._children: dict[str, Streams] = {}

    def __getstate__(self) -> tuple[Any, ...]:
        with self._lock:
            return (self._seed, self._path, dict(self._streams), dict(self._children))

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        seed, path, streams, children = state
        self._seed = _check_seed(seed)
        h = _seed_hasher(self._seed)
        for name in path:
            h = _child_hasher(h, name)
        self._setup(tuple(path), h)
        self._streams.update(streams)
        self._children.update(children)

    @property
    def seed(self) -> int | str:
        """The master seed."""
        return self._seed

    @property
    def path(self) -> tuple[str, ...]:
        """Names of the enclosing children, outermost first (``()`` for the root)."""
        return self._path

    def __getitem__(self, stream_id: str) -> PCG32:
        try:
            rng = self._streams.get(stream_id)
        except TypeError:  # unhashable
            rng = None
        if rng is None:
            _check_id("id", stream_id)
            with self._lock:  # first use is atomic: one generator per id, ever
                rng = self._streams.get(stream_id)
                if rng is None:
                    rng = _derive(self._hasher, stream_id)
                    self._streams[stream_id] = rng
        return rng

    def child(self, name: str) -> Streams:
        """The sub-store ``name`` (created on first use, the same object every time).

        >>> s = Streams(1)
        >>> s.child("dungeon") is s.child("dungeon")
        True
        >>> s.child("dungeon")["a"].getstate() == s["a"].getstate()
        False
        """
        try:
            store = self._children.get(name)
        except TypeError:  # unhashable
            store = None
        if store is None:
            _check_id("child name", name)
            _check_depth(len(self._path) + 1)
            with self._lock:
                store = self._children.get(name)
                if store is None:
                    store = Streams.__new__(Streams)
                    store._seed = self._seed
                    store._setup((*self._path, name), _child_hasher(self._hasher, name))
                    self._children[name] = store
        return store

    def __contains__(self, stream_id: object) -> bool:
        try:
            return stream_id in self._streams
        except TypeError:
            return False

    def __iter__(self) -> Iterator[str]:
        """The ids created so far (in this store, not its children), in creation order."""
        with self._lock:
            return iter(list(self._streams))

    def __len__(self) -> int:
        return len(self._streams)

    def __repr__(self) -> str:
        where = "".join(f".child({quote(p)})" for p in self._path)
        return f"Streams({quote(self._seed)}){where}  # {len(self)} streams"

    # -- saving --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: master seed, every created stream's exact state, every child.

        States are written as 16-digit hex strings (``"0x…"``), so readers in languages
        without big integers lose nothing.
        """
        seed = self._seed
        return {
            "format": FORMAT,
            "version": VERSION,
            "seed": seed if isinstance(seed, str) else seed_text(seed),
            "seed_type": "str" if isinstance(seed, str) else "int",
            **self._body(),
        }

    def _body(self) -> dict[str, Any]:
        """``streams`` and ``children`` of this store, built without recursion; each store's
        contents are snapshotted under its lock, so other threads may keep creating
        streams (those created after the snapshot are not in it)."""
        root: dict[str, Any] = {}
        todo: list[tuple[Streams, dict[str, Any]]] = [(self, root)]
        while todo:
            store, out = todo.pop()
            with store._lock:
                streams = list(store._streams.items())
                children = list(store._children.items())
            saved = {}
            for k, g in streams:
                st = g.getstate()
                saved[k] = {"state": f"{st.state:#018x}", "inc": f"{st.inc:#018x}"}
            out["streams"] = saved
            out["children"] = {}
            for k, c in children:
                out["children"][k] = sub = {}
                todo.append((c, sub))
        return root

    def to_json(self, *, indent: int | None = None) -> str:
        """:meth:`to_dict` as a JSON string. After :meth:`from_json`, every stream
        continues exactly where it was.

        >>> s = Streams(7); s["a"].advance(10); t = Streams.from_json(s.to_json())
        >>> t["a"].next_u32() == s["a"].next_u32()
        True
        """
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> Streams:
        """Load a store saved by :meth:`to_json`.

        Malformed JSON, a wrong format name or unknown version, missing or unknown keys,
        a state that is not a 64-bit integer, or an increment that does not match the
        derivation for that seed and id (a tampered file, or one from another seed) raise
        :class:`~chancekit.errors.StateError` naming the problem; nothing is reset.
        """
        return cls.from_dict(_state.load(text, "streams"))

    @classmethod
    def from_dict(cls, data: Any) -> Streams:
        """Load a store from :meth:`to_dict`'s output (validated like :meth:`from_json`)."""
        if not isinstance(data, dict):
            raise StateError(f"saved streams must be a JSON object, not {type(data).__name__}")
        _expect_keys(data, {"format", "version", "seed", "seed_type", "streams", "children"}, "")
        if data["format"] != FORMAT:
            raise StateError(f"format must be {FORMAT!r}, not {quote(data['format'])}")
        version = data["version"]
        if type(version) is not int or version != VERSION:  # not True, not 1.0
            raise StateError(
                f"unknown saved-streams version {quote(version)}; this chancekit reads "
                f"version {VERSION} (the integer)"
            )
        seed_type, raw = data["seed_type"], data["seed"]
        if not isinstance(raw, str):
            raise StateError(f"seed must be a string, not {quote(raw)}")
        try:
            if seed_type == "int":
                try:
                    seed: int | str = parse_seed_text(raw)
                except InvalidValueError:
                    raise StateError(
                        f"seed {quote(raw, limit=40)} is not a decimal integer (ASCII digits, "
                        "optionally '-', no spaces or leading zeros; '0x' and lowercase hex "
                        f"past {DECIMAL_SEED_DIGITS} digits)") from None
            elif seed_type == "str":
                seed = raw
            else:
                raise StateError(f"seed_type must be 'int' or 'str', not {quote(seed_type)}")
            store = cls(seed)
        except (InvalidValueError, InvalidTypeError) as exc:
            if isinstance(exc, StateError):
                raise
            raise StateError(f"seed: {exc}") from None
        store._load(data)
        return store

    def _load(self, data: dict[str, Any]) -> None:
        """Fill this store (and its children) from a saved body, without recursion."""
        todo: list[tuple[Streams, dict[str, Any], str]] = [(self, data, "")]
        while todo:
            store, body, where = todo.pop()
            streams, children = body["streams"], body["children"]
            if not isinstance(streams, dict) or not isinstance(children, dict):
                raise StateError(
                    f"{where or 'top level'}: 'streams' and 'children' must be objects")
            for sid, entry in streams.items():
                here = f"{where}streams[{quote(sid, limit=40)}]"
                if not isinstance(entry, dict):
                    raise StateError(f"{here} must be an object with 'state' and 'inc'")
                _expect_keys(entry, {"state", "inc"}, here)
                state = _parse_u64(entry["state"], f"{here}.state")
                inc = _parse_u64(entry["inc"], f"{here}.inc")
                try:
                    fresh = _derive(store._hasher, _check_id("id", sid))
                except (InvalidValueError, InvalidTypeError) as exc:
                    raise StateError(f"{here}: {exc}") from None
                if fresh.getstate().inc != inc:
                    raise StateError(
                        f"{here}.inc {entry['inc']} does not match the derivation for this "
                        "seed and id: the file was edited, or it belongs to another seed"
                    )
                store._streams[sid] = PCG32.from_state(PCG32State(state, inc))
            for name, sub in children.items():
                here = f"{where}children[{quote(name, limit=40)}]"
                if not isinstance(sub, dict):
                    raise StateError(f"{here} must be an object")
                _expect_keys(sub, {"streams", "children"}, here)
                try:
                    child = store.child(name)
                except (InvalidValueError, InvalidTypeError) as exc:
                    raise StateError(f"{here}: {exc}") from None
                todo.append((child, sub, here + "."))


def _expect_keys(obj: dict[str, Any], keys: set[str], where: str) -> None:
    missing = keys - obj.keys()
    extra = obj.keys() - keys
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {sorted(missing)}")
        if extra:
            parts.append(f"unknown {quote(sorted(map(str, extra))[:10])}")
        raise StateError(f"{where or 'saved streams'}: {', '.join(parts)} keys")


def _parse_u64(value: Any, where: str) -> int:
    """Exactly ``0x`` and 16 lowercase hex digits, as :meth:`Streams.to_json` writes them
    (no spaces, underscores, signs or capitals: ``int(value, 16)`` would take those)."""
    if not isinstance(value, str) or not _U64_TEXT.fullmatch(value):
        raise StateError(f"{where} must be a 64-bit hex string: '0x' and 16 lowercase hex "
                         f"digits like '0x0123456789abcdef', not {quote(value, limit=40)}")
    return int(value[2:], 16)
