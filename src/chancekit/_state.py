"""One saved-state format for every object that has state (see docs/reproducibility.md,
"One saved-state format").

A saved state is a JSON object ``{"format": "chancekit.<kind>", "version": 1, ...fields}``.
Every stateful object writes it with ``to_dict()`` (``to_json()`` is :func:`dump` of it)
and restores it in place with ``load_dict(data)`` / ``load_json(text)``; objects that hold
everything they need also build a fresh one with ``from_dict`` / ``from_json``. This module
is the shared part: strict JSON reading (:func:`load`), the header check
(:func:`check_header`), strict field readers, and the encoding of labels and items
(:func:`encode_value` / :func:`decode_value`). Every problem is a
:class:`~chancekit.errors.StateError` naming the field and quoting at most a short prefix
of the bad value; nothing is changed before the whole state is validated.

>>> data = load(dump({"format": "chancekit.demo", "version": 1, "n": 3}), "demo")
>>> check_header(data, "chancekit.demo", {"n"})["n"]
3
>>> check_header({"format": "chancekit.demo", "version": True, "n": 3}, "chancekit.demo",
...              {"n"})
Traceback (most recent call last):
...
chancekit.errors.StateError: chancekit.demo: version must be the integer 1, not True
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from chancekit.errors import InvalidTypeError, InvalidValueError, StateError, quote

__all__ = [
    "VERSION",
    "check_header",
    "decode_value",
    "dump",
    "encode_value",
    "has_bool",
    "hex_int",
    "load",
    "read_bigint",
    "read_int",
    "read_u64",
]

#: the one version of every saved-state layout written by this chancekit
VERSION = 1
_SHORT = 40
_U64_TEXT = re.compile(r"0x[0-9a-f]{16}")
_BIG_TEXT = re.compile(r"0x(?:0|[1-9a-f][0-9a-f]*)")
#: integers saved as JSON numbers (labels, items) stay within what every JSON reader keeps
_JSON_INT = 1 << 53


def dump(data: dict[str, Any]) -> str:
    """A saved state as JSON text (``NaN`` and infinities refused)."""
    return json.dumps(data, allow_nan=False)


class _DuplicateKey(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load(text: Any, what: str) -> Any:
    """Parse saved JSON text strictly: a repeated key, ``NaN``/``Infinity`` or malformed
    text is a :class:`~chancekit.errors.StateError` (``what`` names the object)."""
    if not isinstance(text, str | bytes | bytearray):
        raise InvalidTypeError("text", text, "a str or bytes holding JSON")
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except _DuplicateKey as exc:
        raise StateError(f"saved {what} repeats the key {quote(exc.args[0], limit=_SHORT)}"
                         ) from None
    except (ValueError, RecursionError) as exc:
        raise StateError(f"saved {what} is not valid JSON: {quote(str(exc), limit=80)}"
                         ) from None


def check_header(data: Any, fmt: str, fields: set[str], where: str | None = None
                 ) -> dict[str, Any]:
    """``data`` must be a JSON object with exactly ``format``, ``version`` and ``fields``,
    ``format == fmt`` and ``version`` the integer 1 (not ``true``, ``1.0`` or ``"1"``).
    Messages start with ``where`` (default ``fmt``)."""
    name = where or fmt
    if not isinstance(data, dict):
        raise StateError(f"{name} must be a JSON object, not {quote(data, limit=_SHORT)}")
    keys = {"format", "version", *fields}
    missing = sorted(keys - data.keys())
    if missing:
        raise StateError(f"{name}: missing field {quote(missing[0])}")
    extra = sorted(map(str, data.keys() - keys))
    if extra:
        raise StateError(f"{name}: unknown field {quote(extra[0], limit=_SHORT)}")
    if data["format"] != fmt:
        raise StateError(f"{name}: format must be {fmt!r}, not "
                         f"{quote(data['format'], limit=_SHORT)}")
    version = data["version"]
    if type(version) is not int or version != VERSION:
        raise StateError(f"{name}: version must be the integer {VERSION}, not "
                         f"{quote(version, limit=_SHORT)}")
    return data


def read_int(value: Any, where: str, *, lo: int = 0, hi: int | None = None) -> int:
    """A JSON integer (not a bool, not ``1.0``) in ``[lo, hi]``."""
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        span = f"from {lo} to {hi}" if hi is not None else f">= {lo}"
        raise StateError(f"{where} must be an integer {span}, not {quote(value, limit=_SHORT)}")
    return value


def read_u64(value: Any, where: str) -> int:
    """Exactly ``0x`` and 16 lowercase hex digits (a 64-bit word, as saved)."""
    if not isinstance(value, str) or not _U64_TEXT.fullmatch(value):
        raise StateError(f"{where} must be '0x' and 16 lowercase hex digits, not "
                         f"{quote(value, limit=_SHORT)}")
    return int(value[2:], 16)


def hex_int(value: int) -> str:
    """A non-negative integer of any size as saved: ``0x`` and lowercase hex, no leading
    zeros (``0x0`` for zero). O(bits)."""
    return f"{value:#x}"


def read_bigint(value: Any, where: str, *, lo: int = 0, max_bits: int | None = None) -> int:
    """The inverse of :func:`hex_int`, accepting exactly its output, at least ``lo`` and of
    at most ``max_bits`` bits."""
    if not isinstance(value, str) or not _BIG_TEXT.fullmatch(value) or (
            max_bits is not None and len(value) - 2 > (max_bits + 3) // 4):
        raise StateError(f"{where} must be '0x' and lowercase hex digits without leading "
                         f"zeros, not {quote(value, limit=_SHORT)}")
    n = int(value[2:], 16)
    if n < lo or (max_bits is not None and n.bit_length() > max_bits):
        raise StateError(f"{where} must be at least {lo}"
                         + (f" and of at most {max_bits} bits" if max_bits else "")
                         + f", not {quote(value, limit=_SHORT)}")
    return n


def encode_value(value: Any, where: str) -> Any:
    """A label, item or state value as JSON: ``None``, ``bool``, ``str``, an ``int`` below
    ``2**53`` in size, a finite ``float`` as themselves; a tuple as ``{"tuple": [...]}``.
    Anything else cannot be saved as JSON (:class:`~chancekit.errors.InvalidValueError`;
    ``getstate()`` and pickle still work)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if -_JSON_INT < value < _JSON_INT:
            return int(value)
    elif isinstance(value, float):
        if math.isfinite(value):
            return float(value)
    elif isinstance(value, tuple):
        return {"tuple": [encode_value(v, where) for v in value]}
    raise InvalidValueError(
        where, value, "None, a bool, a str, an int below 2**53 in size, a finite float or a "
        "tuple of those, to be saved as JSON (use getstate() or pickle for other values)")


def has_bool(value: Any) -> bool:
    """Whether a decoded JSON value holds ``true`` or ``false`` anywhere. O(size).

    >>> has_bool({"tuple": [1, [False]]}), has_bool({"tuple": ["true", 1]})
    (True, False)
    """
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, bool):
            return True
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
    return False


def decode_value(value: Any, where: str) -> Any:
    """The inverse of :func:`encode_value`; anything it does not write is a StateError."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        if -_JSON_INT < value < _JSON_INT:
            return value
    elif isinstance(value, float):
        if math.isfinite(value):
            return value
    elif isinstance(value, dict) and value.keys() == {"tuple"} and \
            isinstance(value["tuple"], list):
        return tuple(decode_value(v, f"{where}[{i}]") for i, v in enumerate(value["tuple"]))
    raise StateError(f"{where} must be null, a bool, a string, a number or "
                     f"{{\"tuple\": [...]}}, not {quote(value, limit=_SHORT)}")
