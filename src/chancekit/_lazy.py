"""Lazy front doors (PEP 562): a package's public names, each imported from the module that
defines it on first use, so that importing the package costs almost nothing.

>>> import chancekit.dice
>>> chancekit.dice.__getattr__("d") is chancekit.dice.d
True
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def front_door(package: str, names: Mapping[str, str],
               namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose public ``names`` map to the
    modules defining them; ``namespace`` is the package's ``globals()`` (each value is kept
    there once imported, so the lookup runs once a name). Cost: one import on first use."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace["__all__"]))

    return __getattr__, __dir__
