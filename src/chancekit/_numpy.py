"""Whether numpy is here: the one switch between the vectorised paths and their pure twins.

numpy makes the bulk paths fast (arrays of draws, the exact fairness lattice over many
candidates, Monte Carlo over many trials, alias tables of many weights), but it is not
everywhere: the static site runs chancekit in Pyodide, whose package index has no numpy.
So every function that uses numpy imports it through :func:`numpy` (never at module
level) and, when it answers ``None``, runs its pure-Python twin instead: the same
operations in the same order, so the same numbers (``docs/dependencies.md``, "numpy is
optional"; ``tests/test_pure_twins.py`` compares each pair).

Setting the environment variable ``CHANCEKIT_PURE=1`` before the first call makes
:func:`numpy` answer ``None`` even where numpy is installed (the pure twins everywhere:
for tests and the benchmarks of ``docs/performance.md``). The answer is taken once per
process.

>>> numpy() is None or hasattr(numpy(), "ndarray")
True
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["available", "numpy"]

#: the environment variable that turns numpy off for chancekit (value "1")
PURE_ENV = "CHANCEKIT_PURE"

_UNSET = object()
_module: object = _UNSET


def numpy() -> ModuleType | None:
    """The numpy module, imported on the first call, or ``None`` when it cannot be
    imported (or ``CHANCEKIT_PURE=1``): then use the pure-Python twin. O(1) after the
    first call."""
    global _module
    if _module is _UNSET:
        if os.environ.get(PURE_ENV, "") == "1":
            _module = None
        else:
            try:
                import numpy as np
            except ImportError:
                _module = None
            else:
                _module = np
    return _module  # type: ignore[return-value]


def available() -> bool:
    """Whether the vectorised (numpy) paths run: ``numpy() is not None``."""
    return numpy() is not None
