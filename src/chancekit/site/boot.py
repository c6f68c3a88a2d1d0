"""What the static site's Web Worker runs in Pyodide around :mod:`chancekit.web.api`.

The worker (``site/files/worker.js``) starts Python one of two ways. The first visit boots
CPython (about 3.5 s of the start is CPython's own initialisation in WebAssembly); a
background worker then imports the modules the pages use (:data:`PAGE_MODULES`) and saves
Pyodide's memory snapshot of that heap into the browser's cache. Every later visit
restores the snapshot instead (well under a second) and calls :func:`after_restore`.

The worker unpacks the wheels itself (the browser's own inflate) and loads python-flint's
three libraries (GMP, MPFR, FLINT) while chancekit starts; :func:`lazy_package` makes
``import flint`` load only the types chancekit uses (python-flint's own ``__init__`` loads
all 40 of its WebAssembly modules: 1-2 s), and :func:`warm` loads those when the worker is
idle. The snapshot never holds flint: a heap that refers to dynamically loaded libraries
cannot be restored. Nothing here needs numpy.

>>> "chancekit.web.api" in PAGE_MODULES
True
"""

from __future__ import annotations

import importlib
import sys
import sysconfig
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["PAGE_MODULES", "after_restore", "check_record", "check_record_all",
           "flint_loaded", "import_page_modules", "lazy_package", "warm"]

#: the modules the pages' requests import (checked by tests/web/test_site_boot.py against
#: what every page's examples and 100 AnyDice programs import), in the snapshot's heap
PAGE_MODULES: tuple[str, ...] = (
    "chancekit.web.api", "chancekit.web.compute", "chancekit._exact", "chancekit._html",
    "chancekit._state", "chancekit._validate",
    "chancekit.anydice", "chancekit.anydice._ast", "chancekit.anydice._interp",
    "chancekit.anydice._lexer", "chancekit.anydice._parse", "chancekit.anydice._pools",
    "chancekit.anydice._values", "chancekit.anydice.empty", "chancekit.anydice.errors",
    "chancekit.anydice.library",
    "chancekit.dice._approx", "chancekit.dice._ast", "chancekit.dice._compile",
    "chancekit.dice._estimate", "chancekit.dice._explain", "chancekit.dice._parse",
    "chancekit.dice._roll", "chancekit.dice.caps", "chancekit.dice.cards",
    "chancekit.dice.certified", "chancekit.dice.distribution", "chancekit.dice.evaluate",
    "chancekit.dice.facewalk", "chancekit.dice.multiset", "chancekit.dice.notation",
    "chancekit.dice.pool", "chancekit.dice.selectors", "chancekit.dice.stats",
    "chancekit.dice.symbols",
    "chancekit.fair", "chancekit.fair.audit", "chancekit.fair.engine", "chancekit.fair.exact",
    "chancekit.fair.metrics", "chancekit.fair.montecarlo", "chancekit.fair.plot",
    "chancekit.fair.spec", "chancekit.fair.streaks", "chancekit.fair.studio",
    "chancekit.fair.systems", "chancekit.fair.tune", "chancekit.fair.work",
    "chancekit.markov", "chancekit.markov.chain", "chancekit.markov.planning",
    "chancekit.markov.processes",
    "chancekit.rng", "chancekit.rng._resolve", "chancekit.rng.pcg32",
    "chancekit.rng.source", "chancekit.rng.streams",
    "chancekit.sampling", "chancekit.sampling._weights",
    "chancekit.sampling.alias", "chancekit.sampling.tabletop",
    # (not the optional C extensions rng._pcg32 and sampling._vose: absent in the browser)
    # the standard library's modules they import inside functions
    "concurrent.futures", "csv", "dataclasses", "difflib", "heapq", "html", "inspect",
    "logging", "string", "textwrap", "threading", "tokenize", "traceback", "weakref", "zlib",
)

def import_page_modules(names: Sequence[str] = PAGE_MODULES) -> int:
    """Import every module the pages use (what the memory snapshot should hold); the
    number imported. Cost: about a second of imports in the browser, once per build.

    >>> import_page_modules(["json"]) >= 0
    True
    """
    before = len(sys.modules)
    for name in names:
        importlib.import_module(name)
    return len(sys.modules) - before


def after_restore() -> None:
    """What must not be shared between visits that restore the same snapshot: chancekit's
    process-wide generator (seeded from ``os.urandom`` on first use, so it must not be in
    the snapshot: reset in case it is) and :mod:`random`'s state; the import system's
    caches of the (new, empty) file system."""
    import random

    from chancekit.rng import source

    with source._default_lock:
        source._default = None
    random.seed()
    importlib.invalidate_caches()


#: the installed files the site rewrites on purpose (:func:`lazy_package`)
REWRITTEN = frozenset({"flint/__init__.py"})


def lazy_package(init: str) -> None:
    """Rewrite a package's ``__init__.py`` (path ``init``) whose body is ``from .module
    import name`` lines so that each name is imported on first use (module ``__getattr__``,
    PEP 562), the rest of the file kept. The site does this to python-flint: its
    ``__init__`` loads all of its 40 WebAssembly modules (about 1.5 s in the browser),
    chancekit uses six types. The same names, the same objects, on first use.

    >>> import pathlib, tempfile
    >>> pkg = pathlib.Path(tempfile.mkdtemp()) / "pkg"; pkg.mkdir()
    >>> _ = (pkg / "__init__.py").write_text("from .a import x\\nVERSION = 2\\n")
    >>> _ = (pkg / "a.py").write_text("x = 41 + 1\\n")
    >>> lazy_package(str(pkg / "__init__.py")); sys.path.insert(0, str(pkg.parent))
    >>> import pkg as p; ("x" in vars(p), p.VERSION, p.x, "x" in vars(p))
    (False, 2, 42, True)
    """
    import ast
    from pathlib import Path

    source = Path(init).read_text(encoding="utf-8")
    where: dict[str, tuple[str, str]] = {}
    rest = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                where[alias.asname or alias.name] = (node.module, alias.name)
        else:
            rest.append(node)
    body = ast.unparse(ast.Module(rest, []))
    Path(init).write_text(
        "# written by chancekit's static site (chancekit.site.boot.lazy_package): each name\n"
        "# of this package is imported on first use\n"
        "import importlib as _importlib\n"
        f"_WHERE = {where!r}\n\n"
        "def __getattr__(name):\n"
        "    try:\n"
        "        module, attr = _WHERE[name]\n"
        "    except KeyError:\n"
        "        raise AttributeError(f'module {__name__!r} has no attribute {name!r}') from None\n"
        "    value = getattr(_importlib.import_module('.' + module, __name__), attr)\n"
        "    globals()[name] = value\n"
        "    return value\n\n"
        "def __dir__():\n"
        "    return sorted(set(globals()) | set(_WHERE))\n\n"
        f"{body}\n", encoding="utf-8")
    importlib.invalidate_caches()


def check_record(dist_info: str) -> list[str]:
    """The files of an installed wheel whose sha256 differs from its ``RECORD`` (or that
    are missing): empty when the worker's unpacking is right. O(bytes installed).

    >>> check_record(sysconfig.get_path("purelib") + "/no-such.dist-info")
    ['no-such.dist-info/RECORD']
    """
    import base64
    import csv
    import hashlib
    from pathlib import Path

    root = Path(sysconfig.get_path("purelib"))
    record = Path(dist_info) / "RECORD"
    if not record.is_file():
        return [f"{Path(dist_info).name}/RECORD"]
    bad = []
    for row in csv.reader(record.read_text(encoding="utf-8").splitlines()):
        if len(row) < 2 or not row[1].startswith("sha256="):
            continue
        path = root / row[0]
        digest = (base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest())
                  .rstrip(b"=").decode() if path.is_file() else None)
        if digest != row[1][len("sha256="):]:
            bad.append(row[0])
    return bad


def check_record_all() -> list[str]:
    """:func:`check_record` of every installed wheel (chancekit's and python-flint's)."""
    from pathlib import Path

    bad: list[str] = []
    for info in sorted(Path(sysconfig.get_path("purelib")).glob("*.dist-info")):
        if info.name.startswith(("chancekit-", "python_flint-")):
            bad += [f for f in check_record(str(info)) if f not in REWRITTEN]
    return bad


def flint_loaded() -> bool:
    """Whether python-flint's modules are loaded in this process."""
    return "flint" in sys.modules


def warm() -> Callable[..., Any] | None:
    """Load python-flint now (the worker calls this when idle), so that the first
    calculation that needs it does not wait for it: about 1-2 s in the browser."""
    from chancekit import _exact

    return _exact.fmpz_poly
