"""System spec strings: one line naming a system and its parameters (used by the CLI).

Syntax: ``NAME[:ARG,ARG,...][+no-repeat]``; arguments are positional numbers, then
``key=value`` options; base weights are written ``weights=14/5/1``. ``n`` (the number of
values) comes from the ``values`` argument, not from the spec.

==========================  ================================================  =========
spec                        system                                            n
==========================  ================================================  =========
``dice``                    :class:`Dice` (``d`` also)                        values
``deck``                    :class:`Deck` (``weights=`` allowed)              values
``generalized-deck:S,R``    :class:`GeneralizedDeck` (``gdeck:S,R``)          values
``dynamic-dice:F``          :class:`DynamicDice` (``ddice:F``, ``weights=``)  values
``history-reroll[:H[,T]]``  :class:`HistoryReroll` (``tgm``; default 4, 4)    values
``prd:P``                   :class:`PRD`                                      2
``pity:B[,SOFT,RAMP[,H]]``  :class:`PityTimer`                                2
``error-accumulator:P``     :class:`ErrorAccumulator` (``erracc:P``)          2
``gacha:B[,SOFT,RAMP,H,F]``  :class:`~chancekit.fair.studio.GachaPity`         3
``duplicate-protection``    ``dupe[:K[,R]],sizes=3/2/1,weights=70/25/5``      sum(sizes)
``aim-assist:B,STEP[,CAP]`` :class:`~chancekit.fair.studio.AimAssist` (xcom)  2
``two-roll:D``              :class:`~chancekit.fair.studio.TwoRollHit` (fe)   2
``lucky-streak:P,CAP``      :class:`~chancekit.fair.studio.LuckyStreak`       2
``tgm1``/``tgm2``/``tgm3``  TGM1, TGM2 (TAP), TGM3 randomisers                7
``SPEC+no-repeat``          :class:`NoRepeatSystem` around SPEC               as SPEC
==========================  ================================================  =========

>>> system_from_spec("dynamic-dice:0.355", 6)
DynamicDice(6, 0.355)
>>> system_from_spec("gdeck:1,6+no-repeat", 6)
NoRepeatSystem(GeneralizedDeck(6, 1, 6))
>>> system_from_spec("deck:weights=14/5/1", 3)
Deck(3, weights=(14, 5, 1))
"""

from __future__ import annotations

from typing import Any

from chancekit.errors import InvalidTypeError, NotationError
from chancekit.fair.studio import STUDIO_ARITY, STUDIO_NAMES, STUDIO_OPTIONS, studio_from_spec
from chancekit.fair.systems import (
    PRD,
    Deck,
    Dice,
    DynamicDice,
    ErrorAccumulator,
    GeneralizedDeck,
    HistoryReroll,
    NoRepeatSystem,
    PityTimer,
    System,
)

__all__ = ["SPEC_NAMES", "system_from_spec"]

#: canonical spec names and their aliases
SPEC_NAMES: dict[str, str] = {
    "dice": "dice", "d": "dice", "die": "dice",
    "deck": "deck", "bag": "deck",
    "generalized-deck": "generalized-deck", "gdeck": "generalized-deck",
    "dynamic-dice": "dynamic-dice", "ddice": "dynamic-dice",
    "history-reroll": "history-reroll", "tgm": "history-reroll",
    "prd": "prd",
    "pity": "pity", "pity-timer": "pity",
    "error-accumulator": "error-accumulator", "erracc": "error-accumulator",
    **STUDIO_NAMES,  # gacha, duplicate-protection, aim-assist, two-roll, lucky-streak, tgm1..3
}

_ARITY = {  # (min positional, max positional)
    "dice": (0, 0), "deck": (0, 0), "generalized-deck": (2, 2), "dynamic-dice": (1, 1),
    "history-reroll": (0, 2), "prd": (1, 1), "pity": (1, 4), "error-accumulator": (1, 1),
    **STUDIO_ARITY,
}


def _number(text: str, spec: str, col: int, integer: bool) -> int | float:
    try:
        return int(text) if integer else float(text)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise NotationError(f"expected {kind}, got {text!r}", spec, col) from None


def system_from_spec(spec: str, values: int) -> System:
    """Build the system a spec string names, over ``values`` values (ignored by the binary
    systems, which always have 2). Errors name the column. O(len(spec)).
    """
    if not isinstance(spec, str):
        raise InvalidTypeError("spec", spec, "a string")
    body = spec.strip()
    no_repeat = False
    for suffix in ("+no-repeat", "+norepeat"):
        if body.lower().endswith(suffix):
            body = body[: -len(suffix)]
            no_repeat = True
    offset = spec.find(body) if body else 0
    name, _, argtext = body.partition(":")
    key = SPEC_NAMES.get(name.strip().lower())
    if key is None:
        raise NotationError(f"unknown system {name.strip()!r} (known: "
                            f"{', '.join(sorted(set(SPEC_NAMES.values())))})", spec, offset + 1)
    pos: list[str] = []
    opts: dict[str, str] = {}
    col = offset + len(name) + 2
    if argtext.strip():
        for part in argtext.split(","):
            if "=" in part:
                k, _, v = part.partition("=")
                opts[k.strip().lower()] = v.strip()
            elif opts:
                raise NotationError("positional argument after key=value", spec, col)
            else:
                pos.append(part.strip())
            col += len(part) + 1
    lo, hi = _ARITY[key]
    if not lo <= len(pos) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise NotationError(f"{key} takes {want} argument(s), got {len(pos)}", spec,
                            offset + len(name) + 1)
    allowed = {"weights"} if key in ("deck", "generalized-deck", "dynamic-dice") else set()
    allowed |= STUDIO_OPTIONS.get(key, set())
    bad = set(opts) - allowed
    if bad:
        raise NotationError(f"unknown option {sorted(bad)[0]!r} for {key}", spec,
                            spec.find(sorted(bad)[0]) + 1)
    kw: dict[str, Any] = {}
    if "weights" in opts and key not in STUDIO_NAMES:
        ints = key != "dynamic-dice"
        kw["weights"] = tuple(_number(x, spec, spec.find(opts["weights"]) + 1, ints)
                              for x in opts["weights"].split("/"))
    a0 = offset + len(name) + 2
    system: System
    if key == "dice":
        system = Dice(values)
    elif key == "deck":
        system = Deck(values, **kw)
    elif key == "generalized-deck":
        s, r = (_number(x, spec, a0, True) for x in pos)
        system = GeneralizedDeck(values, s, r, **kw)
    elif key == "dynamic-dice":
        system = DynamicDice(values, _number(pos[0], spec, a0, False), **kw)
    elif key == "history-reroll":
        args = [_number(x, spec, a0, True) for x in pos]
        system = HistoryReroll(values, *args)
    elif key == "prd":
        system = PRD(_number(pos[0], spec, a0, False))
    elif key == "error-accumulator":
        system = ErrorAccumulator(_number(pos[0], spec, a0, False))
    elif key in STUDIO_ARITY:
        system = studio_from_spec(key, pos, opts, spec, a0, values)
    else:
        base = _number(pos[0], spec, a0, False)
        soft = _number(pos[1], spec, a0, True) if len(pos) > 1 else None
        ramp = _number(pos[2], spec, a0, False) if len(pos) > 2 else 0.0
        hard = _number(pos[3], spec, a0, True) if len(pos) > 3 else None
        system = PityTimer(base, soft_start=soft, ramp=ramp, hard=hard)  # type: ignore[arg-type]
    return NoRepeatSystem(system) if no_repeat else system
