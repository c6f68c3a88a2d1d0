"""chancekit.site.boot natively (CPython): the list of modules the site's memory snapshot
holds is complete, python-flint's lazy ``__init__`` gives the same names and objects as
its own, and a restored heap does not share chancekit's generator between visits."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from chancekit.site import boot

ROOT = Path(__file__).resolve().parents[2]


def test_page_modules_hold_what_the_pages_import() -> None:
    """Every chancekit module (and standard-library module) imported by the pages' examples
    and 100 AnyDice programs, with numpy and matplotlib refused as in the browser, is in the
    closure of PAGE_MODULES -- else the snapshot would miss it and a repeat visit would
    import it on the first answer."""
    code = textwrap.dedent(f"""
        import ast, builtins, json, sys, pathlib
        real = builtins.__import__
        def guard(name, *a, **k):
            if name.split(".")[0] in ("numpy", "matplotlib"):
                raise ImportError("refused: " + name)
            return real(name, *a, **k)
        builtins.__import__ = guard
        from chancekit.site.boot import import_page_modules
        import_page_modules()
        before = set(sys.modules)
        from chancekit.web.api import handle_json
        src = pathlib.Path({str(ROOT / "tests/web/test_site.py")!r}).read_text()
        for node in ast.parse(src).body:
            if isinstance(node, ast.AnnAssign) and node.target.id == "EXAMPLES":
                examples = ast.literal_eval(node.value)
        for path, body in examples:
            handle_json(path, json.dumps(body))
        for line in open({str(ROOT / "tests/data/anydice_site_100.jsonl")!r}):
            handle_json("/api/anydice", json.dumps({{"program": json.loads(line)["program"]}}))
        new = sorted(set(sys.modules) - before)
        print(json.dumps([m for m in new if (getattr(sys.modules[m], "__file__", "") or "")
                          .endswith(".py") and not m.startswith("flint")]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"CHANCEKIT_PURE": "1", "PYTHONPATH": str(ROOT / "src"),
                              "PATH": "/usr/bin:/bin"}, check=True, timeout=600)
    missing = json.loads(out.stdout.strip().splitlines()[-1])
    assert missing == [], f"add to chancekit.site.boot.PAGE_MODULES: {missing}"


def test_page_modules_import_without_numpy_or_the_c_extensions() -> None:
    code = textwrap.dedent("""
        import builtins
        real = builtins.__import__
        def guard(name, *a, **k):
            if name.split(".")[0] in ("numpy", "matplotlib", "flint") or name.endswith(
                    ("_pcg32", "_vose")):
                raise ImportError("refused: " + name)
            return real(name, *a, **k)
        builtins.__import__ = guard
        from chancekit.site.boot import import_page_modules
        print(import_page_modules())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"CHANCEKIT_PURE": "1", "PYTHONPATH": str(ROOT / "src"),
                              "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip()) > 50


def test_lazy_flint_has_the_same_names_and_objects(tmp_path: Path) -> None:
    """python-flint's own ``__init__`` (the installed one: the site pins the same version)
    rewritten lazily: ``dir``, ``__all__``, ``__version__`` and every name's object equal
    the eager package's, and nothing of flint is imported before a name is used."""
    flint = pytest.importorskip("flint")
    import shutil

    copy = tmp_path / "flint"
    shutil.copytree(Path(flint.__file__).parent, copy)
    libs = Path(flint.__file__).parent.parent / "python_flint.libs"   # manylinux wheels
    if libs.is_dir():
        shutil.copytree(libs, tmp_path / libs.name)
    boot.lazy_package(str(copy / "__init__.py"))
    code = textwrap.dedent("""
        import json, re, sys
        import flint
        loaded_before = sorted(m for m in sys.modules if m.startswith("flint."))
        names = sorted(dir(flint))
        values = {n: re.sub(" at 0x[0-9a-f]+", "", repr(getattr(flint, n))) for n in flint.__all__}
        print(json.dumps([loaded_before, names, flint.__all__, flint.__version__, values,
                          str(flint.fmpz_poly([1, 1]) ** 3)]))
    """)

    def run(path: Path) -> list:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"},
                             check=True, timeout=120)
        return json.loads(out.stdout)

    lazy = run(tmp_path)
    eager = run(Path(flint.__file__).parent.parent)
    assert lazy[0] == []                      # nothing loaded before a name is used
    assert eager[0] != []
    assert set(lazy[1]) >= set(eager[2])       # every public name is there
    assert lazy[2:] == eager[2:]               # the same __all__, version, objects, results


def test_after_restore_forgets_the_process_generator() -> None:
    from chancekit.rng import source

    first = source.default_rng()
    boot.after_restore()
    assert source._default is None
    assert source.default_rng() is not first


def test_check_record_finds_a_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import hashlib
    import sysconfig

    site = tmp_path / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg-1.dist-info").mkdir()
    data = b"x = 1\n"
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    (site / "pkg" / "a.py").write_bytes(data)
    (site / "pkg" / "b.py").write_bytes(data)
    (site / "pkg-1.dist-info" / "RECORD").write_text(
        f"pkg/a.py,sha256={digest},6\npkg/b.py,sha256={digest},6\npkg/c.py,sha256={digest},6\n"
        "pkg-1.dist-info/RECORD,,\n")
    monkeypatch.setattr(sysconfig, "get_path", lambda name: str(site))
    assert boot.check_record(str(site / "pkg-1.dist-info")) == ["pkg/c.py"]
    (site / "pkg" / "b.py").write_bytes(b"x = 2\n")
    assert boot.check_record(str(site / "pkg-1.dist-info")) == ["pkg/b.py", "pkg/c.py"]
