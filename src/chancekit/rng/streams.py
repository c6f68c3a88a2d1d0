"""Named streams: one master seed, one independent :class:`PCG32` per id, lazily.

A roguelike keeps one master seed and asks for a generator per level or purpose by a
string id (``"dwarvish-mines-1"``), so that what happens in one level never changes how
another is generated. Unlike the published store (built-in string hash, collisions resolved
in first-use order), the derivation here is a documented cryptographic hash of the seed and
the id's full path: stable across processes, platforms, Python versions and
``PYTHONHASHSEED``, and independent of the order ids are first used.

Derivation, version 1 (re-implementable from this description; see
``docs/reproducibility.md`` for a worked example):

1. fields, each UTF-8 bytes: the seed as ``"int:" + decimal`` (an ``int`` seed) or
   ``"str:" + text`` (a ``str`` seed); then one ``"child:" + name`` per enclosing
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
from collections.abc import Iterator
from typing import Any

from chancekit.errors import InvalidTypeError, InvalidValueError, StateError
from chancekit.rng.pcg32 import PCG32, PCG32State

__all__ = ["Streams", "derive_stream"]

#: Version of the derivation and of the JSON save format.
FORMAT = "chancekit.streams"
VERSION = 1
_DOMAIN = b"chancekit.streams/1"
_MAX_ID_LENGTH = 1024


def _seed_field(seed: int | str) -> bytes:
    if isinstance(seed, str):
        return b"str:" + seed.encode("utf-8")
    return b"int:" + str(seed).encode("ascii")


def _message(seed: int | str, path: tuple[str, ...], stream_id: str) -> bytes:
    fields = [_seed_field(seed)]
    fields += [b"child:" + p.encode("utf-8") for p in path]
    fields.append(b"stream:" + stream_id.encode("utf-8"))
    return _DOMAIN + b"".join(len(f).to_bytes(4, "big") + f for f in fields)


def derive_stream(seed: int | str, stream_id: str, path: tuple[str, ...] = ()) -> PCG32:
    """The fresh generator for ``stream_id`` (under the child ``path``) of ``seed``.

    This is the whole derivation; :class:`Streams` only caches its results. O(1).

    >>> derive_stream(12345, "dwarvish-mines-1").next_u32()
    1193357276
    """
    seed = _check_seed(seed)
    stream_id = _check_id("id", stream_id)
    path = tuple(_check_id("child name", p) for p in path)
    digest = hashlib.blake2b(_message(seed, path, stream_id), digest_size=16).digest()
    return PCG32(int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little"))


def _check_seed(seed: Any) -> int | str:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral | str):
        raise InvalidTypeError("seed", seed, "an int or a str")
    return seed if isinstance(seed, str) else int(seed)


def _check_id(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"stream {what}", value, "a str")
    if not value or len(value) > _MAX_ID_LENGTH:
        raise InvalidValueError(
            f"stream {what}", value, f"a non-empty string of at most {_MAX_ID_LENGTH} characters"
        )
    return value


class Streams:
    """A store of named :class:`PCG32` streams derived from one master seed.

    ``Streams(seed)`` takes any ``int`` (negative and huge ones too) or ``str``.
    ``streams[id]`` creates that id's generator on first use and returns the same object
    every time; ``streams.child(name)`` is a sub-store (e.g. one per area) whose ids never
    collide with the parent's. Saving: :meth:`to_json` / :meth:`from_json`.

    Costs: first access to an id O(1) (one blake2b); later accesses a dict lookup.

    >>> s = Streams("my-campaign")
    >>> s["loot"].randbelow(100)
    53
    >>> sorted(s)
    ['loot']
    """

    __slots__ = ("_children", "_path", "_seed", "_streams")

    def __init__(self, seed: int | str, *, _path: tuple[str, ...] = ()) -> None:
        self._seed = _check_seed(seed)
        self._path = _path
        self._streams: dict[str, PCG32] = {}
        self._children: dict[str, Streams] = {}

    @property
    def seed(self) -> int | str:
        """The master seed."""
        return self._seed

    @property
    def path(self) -> tuple[str, ...]:
        """Names of the enclosing children, outermost first (``()`` for the root)."""
        return self._path

    def __getitem__(self, stream_id: str) -> PCG32:
        rng = self._streams.get(stream_id)  # type: ignore[call-overload]
        if rng is None:
            rng = derive_stream(self._seed, stream_id, self._path)
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
        store = self._children.get(name)  # type: ignore[call-overload]
        if store is None:
            _check_id("child name", name)
            store = Streams(self._seed, _path=(*self._path, name))
            self._children[name] = store
        return store

    def __contains__(self, stream_id: object) -> bool:
        return stream_id in self._streams

    def __iter__(self) -> Iterator[str]:
        """The ids created so far (in this store, not its children), in creation order."""
        return iter(list(self._streams))

    def __len__(self) -> int:
        return len(self._streams)

    def __repr__(self) -> str:
        where = "".join(f".child({p!r})" for p in self._path)
        return f"Streams({self._seed!r}){where}  # {len(self)} streams"

    # -- saving --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: master seed, every created stream's exact state, every child.

        States are written as 16-digit hex strings (``"0x…"``), so readers in languages
        without big integers lose nothing.
        """
        return {
            "format": FORMAT,
            "version": VERSION,
            "seed": str(self._seed),
            "seed_type": "str" if isinstance(self._seed, str) else "int",
            **self._body(),
        }

    def _body(self) -> dict[str, Any]:
        return {
            "streams": {
                k: {"state": f"{g.getstate().state:#018x}", "inc": f"{g.getstate().inc:#018x}"}
                for k, g in self._streams.items()
            },
            "children": {k: c._body() for k, c in self._children.items()},
        }

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
        if not isinstance(text, str | bytes | bytearray):
            raise InvalidTypeError("text", text, "a str or bytes holding JSON")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise StateError(f"saved streams are not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> Streams:
        """Load a store from :meth:`to_dict`'s output (validated like :meth:`from_json`)."""
        if not isinstance(data, dict):
            raise StateError(f"saved streams must be a JSON object, not {type(data).__name__}")
        _expect_keys(data, {"format", "version", "seed", "seed_type", "streams", "children"}, "")
        if data["format"] != FORMAT:
            raise StateError(f"format must be {FORMAT!r}, not {data['format']!r}")
        if data["version"] != VERSION or isinstance(data["version"], bool):
            raise StateError(
                f"unknown saved-streams version {data['version']!r}; this chancekit reads "
                f"version {VERSION}"
            )
        seed_type, raw = data["seed_type"], data["seed"]
        if not isinstance(raw, str):
            raise StateError(f"seed must be a string, not {raw!r}")
        if seed_type == "int":
            try:
                seed: int | str = int(raw, 10)
            except ValueError:
                raise StateError(f"seed {raw!r} is not a decimal integer") from None
        elif seed_type == "str":
            seed = raw
        else:
            raise StateError(f"seed_type must be 'int' or 'str', not {seed_type!r}")
        store = cls(seed)
        store._load(data, "")
        return store

    def _load(self, data: dict[str, Any], where: str) -> None:
        streams, children = data["streams"], data["children"]
        if not isinstance(streams, dict) or not isinstance(children, dict):
            raise StateError(f"{where or 'top level'}: 'streams' and 'children' must be objects")
        for sid, entry in streams.items():
            here = f"{where}streams[{sid!r}]"
            if not isinstance(entry, dict):
                raise StateError(f"{here} must be an object with 'state' and 'inc'")
            _expect_keys(entry, {"state", "inc"}, here)
            state = _parse_u64(entry["state"], f"{here}.state")
            inc = _parse_u64(entry["inc"], f"{here}.inc")
            try:
                fresh = derive_stream(self._seed, sid, self._path)
            except (InvalidValueError, InvalidTypeError) as exc:
                raise StateError(f"{here}: {exc}") from None
            if fresh.getstate().inc != inc:
                raise StateError(
                    f"{here}.inc {entry['inc']} does not match the derivation for this seed "
                    "and id: the file was edited, or it belongs to another seed"
                )
            self._streams[sid] = PCG32.from_state(PCG32State(state, inc))
        for name, sub in children.items():
            here = f"{where}children[{name!r}]"
            if not isinstance(sub, dict):
                raise StateError(f"{here} must be an object")
            _expect_keys(sub, {"streams", "children"}, here)
            try:
                child = self.child(name)
            except (InvalidValueError, InvalidTypeError) as exc:
                raise StateError(f"{here}: {exc}") from None
            child._load(sub, here + ".")


def _expect_keys(obj: dict[str, Any], keys: set[str], where: str) -> None:
    missing = keys - obj.keys()
    extra = obj.keys() - keys
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {sorted(missing)}")
        if extra:
            parts.append(f"unknown {sorted(extra)}")
        raise StateError(f"{where or 'saved streams'}: {', '.join(parts)} keys")


def _parse_u64(value: Any, where: str) -> int:
    if not isinstance(value, str) or not value.startswith("0x") or len(value) != 18:
        raise StateError(f"{where} must be a 64-bit hex string like '0x0123456789abcdef', "
                         f"not {value!r}")
    try:
        return int(value, 16)
    except ValueError:
        raise StateError(f"{where} {value!r} is not hexadecimal") from None
