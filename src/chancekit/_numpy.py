"""Whether numpy is here: the one switch between the vectorised paths and their pure twins.

numpy makes the bulk paths fast (arrays of draws, the exact fairness lattice over many
candidates, Monte Carlo over many trials, alias tables of many weights), but it is not
everywhere: the static site runs chancekit in Pyodide, whose package index has no numpy.
So every function that uses numpy imports it through :func:`numpy` (never at module
level) and, when it answers ``None``, runs its pure-Python twin instead: the same
operations in the same order, so the same numbers (``docs/dependencies.md``, "numpy is
optional"; ``tests/test_pure_twins.py`` compares each pair).

A path that has no twin (numpy arrays are its answer, such as ``PCG32.u32_array``, or
it is not used by the pages, such as the streak metrics) calls :func:`require`, which
raises :class:`NumpyMissingError` naming what needs numpy; a module whose every path is
vectorised holds ``np = lazy(what)``, which imports numpy on first use.

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
from typing import Any

from chancekit.errors import ChancekitError

__all__ = ["NumpyMissingError", "available", "lazy", "numpy", "require"]

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


class NumpyMissingError(ChancekitError, ImportError):
    """A vectorised path was asked for where numpy cannot be imported (e.g. in the
    browser, or with ``CHANCEKIT_PURE=1``)."""


def require(what: str) -> ModuleType:
    """numpy, or :class:`NumpyMissingError` saying that ``what`` needs it. O(1).

    >>> require("this example") is numpy() or numpy() is None
    True
    """
    np = numpy()
    if np is None:
        raise NumpyMissingError(
            f"{what} needs numpy, which cannot be imported here (install it: pip install "
            f"numpy{'; or unset ' + PURE_ENV if os.environ.get(PURE_ENV) == '1' else ''})")
    return np


class _Lazy:
    """numpy, imported on the first attribute read (:func:`require` on ``what``)."""

    __slots__ = ("_what",)

    def __init__(self, what: str) -> None:
        self._what = what

    def __getattr__(self, name: str) -> Any:
        return getattr(require(self._what), name)

    def __repr__(self) -> str:
        return f"<numpy, imported when {self._what} first runs>"


def lazy(what: str) -> Any:
    """A stand-in for the numpy module, for a module whose every path is vectorised:
    ``np = lazy("the streak metrics")`` at module level imports nothing; ``np.zeros``
    imports numpy then (or raises :class:`NumpyMissingError`).

    >>> np = lazy("this example")
    >>> numpy() is None or np.zeros(2).tolist() == [0.0, 0.0]
    True
    """
    return _Lazy(what)
