"""chancekit — exact, fast and reproducible randomness for games.

Six capabilities, one subpackage each:

============================  =====================================================
``chancekit.dice``            exact dice distributions, notation, pools face by face
``chancekit.sampling``        Vose alias tables, two-dice tabletop tables, chance tree
``chancekit.fair``            decks, dynamic dice & co., exact fairness metrics, tuning
``chancekit.markov``          exact Markov chains: absorption, time to absorb, long run
``chancekit.rng``             PCG32 (bit-exact with the reference), named streams
``chancekit.errors``          the one error hierarchy (root: ``ChancekitError``)
============================  =====================================================

The names below are the front door; each is imported on first use, so ``import
chancekit`` stays cheap for the command line.

>>> import chancekit
>>> rng = chancekit.PCG32(42, 54)
>>> hex(rng.next_u32())
'0xa15c02b7'
>>> streams = chancekit.Streams(12345)
>>> streams["dwarvish-mines-1"].randbelow(100)
76
"""

from __future__ import annotations

import importlib

from chancekit.errors import (
    ChancekitError,
    InvalidTypeError,
    InvalidValueError,
    LimitError,
    NotationError,
    StateError,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: `import chancekit` does not load typing
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

# name -> module that defines it (imported lazily by __getattr__)
_LAZY: dict[str, str] = {
    # rng — reproducible streams
    "PCG32": "chancekit.rng",
    "PCG32Random": "chancekit.rng",
    "Streams": "chancekit.rng",
    # dice — exact distributions
    "Distribution": "chancekit.dice",
    "d": "chancekit.dice",
    "dist": "chancekit.dice",
    "roll": "chancekit.dice",
    "RollResult": "chancekit.dice",
    "fudge": "chancekit.dice",
    "faces": "chancekit.dice",
    "constant": "chancekit.dice",
    "keep_sum": "chancekit.dice",
    "Pool": "chancekit.dice",
    "keep_highest": "chancekit.dice",
    "keep_lowest": "chancekit.dice",
    "neon_city_overdrive": "chancekit.dice",
    # sampling
    "AliasTable": "chancekit.sampling",
    "TabletopTable": "chancekit.sampling",
    "ChanceTree": "chancekit.sampling",
    "NoRepeat": "chancekit.sampling",
    "MaxStreak": "chancekit.sampling",
    "tabletop_sheet": "chancekit.sampling",
}
_SUBMODULES = ("rng", "dice", "sampling", "fair", "markov", "errors")

__all__ = [
    "ChancekitError",
    "InvalidTypeError",
    "InvalidValueError",
    "LimitError",
    "NotationError",
    "StateError",
    *_LAZY,
    *_SUBMODULES,
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"chancekit.{name}")
    else:
        raise AttributeError(f"module 'chancekit' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
