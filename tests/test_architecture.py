"""docs/architecture.md is the map: every module has a row, and imports only what its row
allows (function-level imports included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "chancekit"
DOC = ROOT / "docs" / "architecture.md"
BASE = ("chancekit.errors", "chancekit.limits", "chancekit._validate", "chancekit._exact",
        "chancekit._numpy")
_ROW = re.compile(r"^\| `(chancekit[\w.]*)` \| (.+?) \| (.+?) \|$")


def _rows() -> dict[str, tuple[str, ...]]:
    rows: dict[str, tuple[str, ...]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if not m:
            continue
        allowed: list[str] = []
        for part in m.group(3).split(","):
            part = part.strip().strip("`")
            if part == "base":
                allowed += BASE
            elif part and part != "—":
                allowed.append(part if part.startswith("chancekit") else f"chancekit.{part}")
        rows[m.group(1)] = tuple(allowed)
    return rows


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted([*SRC.rglob("*.py"), *SRC.rglob("*.c")]):  # C: compiled modules
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(("chancekit", *parts)).removesuffix(".__init__")
        out[name] = path
    return out


def _imports(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    if path.suffix == ".c":
        return found  # a compiled module imports nothing of chancekit
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            if not mod.startswith("chancekit"):
                continue
            for alias in node.names:  # "from chancekit import limits" imports a module
                sub = f"{mod}.{alias.name}"
                found.add(sub if (SRC / Path(*sub.split(".")[1:])).with_suffix(".py").exists()
                          or (SRC / Path(*sub.split(".")[1:])).is_dir() else mod)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("chancekit")}
    found.discard(name)
    return found


def _allowed(mod: str, allowed: tuple[str, ...]) -> bool:
    return any(mod == a or mod.startswith(a + ".") for a in allowed)


def test_every_module_has_a_row() -> None:
    rows, modules = _rows(), _modules()
    assert set(modules) <= set(rows), f"no row in docs/architecture.md: {set(modules) - set(rows)}"
    assert set(rows) <= set(modules), f"rows for missing modules: {set(rows) - set(modules)}"


def test_imports_follow_the_map() -> None:
    rows = _rows()
    bad = []
    for name, path in _modules().items():
        for mod in sorted(_imports(path, name)):
            if not _allowed(mod, rows.get(name, ())):
                bad.append(f"{name} imports {mod}")
    assert not bad, "\n".join(bad)


def test_flint_is_imported_in_one_module() -> None:
    """One exact arithmetic core (issue #11): python-flint is imported by ``_exact`` only."""
    importers = []
    for name, path in _modules().items():
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(m == "flint" or m.startswith("flint.") for m in mods):
                importers.append(name)
    assert sorted(set(importers)) == ["chancekit._exact"], importers


def test_the_map_can_fail() -> None:
    # the checker itself: a disallowed import is caught
    assert not _allowed("chancekit.cli.main", ("chancekit.dice",))
    assert _allowed("chancekit.dice.pool", ("chancekit.dice",))


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)
    return out


#: Import cycles that remain, each listed with why (docs/architecture.md, "Import cycles").
#: The test fails on any other cycle, and when one of these is gone (so the list stays true).
KNOWN_CYCLES: list[set[str]] = []  # none left (docs/architecture.md, "Import cycles")


def test_the_import_graph_has_no_cycles_but_the_known_ones() -> None:
    """Function-level imports count: an arrow goes one way or it is a cycle."""
    modules = _modules()
    graph = {name: {m for m in _imports(path, name) if m in modules}
             for name, path in modules.items()}
    found = _cycles(graph)
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not new, f"import cycles: {new} (give each concept one home: docs/architecture.md)"
    assert not gone, f"no longer cycles, remove them from KNOWN_CYCLES: {gone}"


def test_the_cycle_finder_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_test_modules_have_unique_names() -> None:
    """Test folders are not packages, so two test modules of one basename stop pytest's
    collection of the whole suite ("import file mismatch"): each basename once."""
    root = Path(__file__).resolve().parent
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted(root.rglob("test_*.py")):
        if "node_modules" in path.parts:
            continue
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(root)} and {path.relative_to(root)}")
        seen.setdefault(path.name, path)
    assert not clashes, "rename one of: " + "; ".join(clashes)
