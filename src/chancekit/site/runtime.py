"""The browser runtime of the static site: Pyodide and python-flint's Pyodide wheel, pinned.

Pyodide comes from the npm package ``pyodide`` at the version and integrity hash of
``runtime/package-lock.json``; python-flint's ``pyemscripten`` wheel from the Python package
index at the version and sha256 of ``runtime/wheels.json``. :func:`ensure_runtime` puts
both in a cache folder (``npm ci`` and ``pip download``, each checked against its lock) the
first time, and finds them there afterwards; nothing is fetched from a CDN, ever
(docs/site.md, docs/dependencies.md).

>>> lock = runtime_lock()
>>> lock["pyodide"], lock["python-flint"]["version"]
('314.0.7', '0.9.0')
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from chancekit.errors import ChancekitError

#: the files of the npm package that the site serves (the rest is types and consoles)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")


def _lock_file(name: str) -> bytes:
    return resources.files("chancekit.site").joinpath("runtime", name).read_bytes()


def runtime_lock() -> dict[str, Any]:
    """The pinned versions: ``{"pyodide": "314.0.7", "python-flint": {...}}``."""
    lock = json.loads(_lock_file("package-lock.json"))
    wheels = json.loads(_lock_file("wheels.json"))
    return {"pyodide": lock["packages"]["node_modules/pyodide"]["version"],
            "python-flint": wheels["python-flint"]}


def _key() -> str:
    """A short hash of the lock files: a new pin gets a new cache folder."""
    h = hashlib.sha256()
    for name in ("package.json", "package-lock.json", "wheels.json"):
        h.update(_lock_file(name))
    return h.hexdigest()[:16]


def default_cache() -> Path:
    """``$CHANCEKIT_SITE_RUNTIME`` or ``~/.cache/chancekit/site-runtime-<lock hash>``."""
    env = os.environ.get("CHANCEKIT_SITE_RUNTIME")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "chancekit" / f"site-runtime-{_key()}"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _complete(folder: Path) -> bool:
    flint = runtime_lock()["python-flint"]
    wheel = folder / "wheels" / flint["file"]
    return (all((folder / "pyodide" / f).is_file() for f in PYODIDE_FILES)
            and wheel.is_file() and sha256(wheel) == flint["sha256"])


def ensure_runtime(folder: str | Path | None = None, *, fetch: bool = True,
                   log: Any = None) -> Path:
    """The folder holding ``pyodide/`` and ``wheels/``, fetched into it when missing (npm
    and pip from this machine; each download checked against its lock). ``fetch=False``
    refuses instead of fetching. Cost: one download of about 17 MB the first time."""
    target = Path(folder) if folder is not None else default_cache()
    if _complete(target):
        return target
    if not fetch:
        raise ChancekitError(f"the site's runtime (Pyodide, python-flint's Pyodide wheel) is "
                             f"not in {target}; run without --offline to fetch it (npm and "
                             "pip), or give --runtime DIR")
    say = log or (lambda text: None)
    target.mkdir(parents=True, exist_ok=True)
    _fetch_pyodide(target, say)
    _fetch_flint(target, say)
    if not _complete(target):
        raise ChancekitError(f"the runtime in {target} is incomplete after fetching it")
    return target


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    except FileNotFoundError:
        raise ChancekitError(f"{what} needs {cmd[0]!r}, which is not installed (Node.js's "
                             "npm for Pyodide, pip for python-flint)") from None
    except subprocess.TimeoutExpired:
        raise ChancekitError(f"{what} took longer than 15 minutes and was stopped") from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise ChancekitError(f"{what} failed: " + " | ".join(tail))


def _fetch_pyodide(target: Path, say: Any) -> None:
    """``npm ci`` of the pinned ``pyodide`` (npm checks the lock's integrity hashes)."""
    work = target / "npm"
    work.mkdir(exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        (work / name).write_bytes(_lock_file(name))
    npm = shutil.which("npm") or "npm"
    say(f"fetching Pyodide {runtime_lock()['pyodide']} (npm ci)")
    _run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev"], work,
         "fetching Pyodide")
    dest = target / "pyodide"
    dest.mkdir(exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(work / "node_modules" / "pyodide" / name, dest / name)
    shutil.rmtree(work, ignore_errors=True)


def _fetch_flint(target: Path, say: Any) -> None:
    """``pip download`` of python-flint's pinned Pyodide wheel, checked by sha256."""
    flint = runtime_lock()["python-flint"]
    dest = target / "wheels"
    dest.mkdir(exist_ok=True)
    wheel = dest / flint["file"]
    if wheel.is_file() and sha256(wheel) == flint["sha256"]:
        return
    say(f"fetching python-flint {flint['version']} for Pyodide (pip download)")
    _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
          "--platform", flint["platform"], "--python-version", flint["python_version"],
          "--implementation", "cp", "--abi", flint["abi"], "-d", str(dest),
          f"python-flint=={flint['version']}"], target, "fetching python-flint")
    got = sha256(wheel) if wheel.is_file() else "nothing"
    if got != flint["sha256"]:
        wheel.unlink(missing_ok=True)
        raise ChancekitError(f"python-flint's wheel does not match its pinned sha256 "
                             f"({got[:16]}… against {flint['sha256'][:16]}…): refused")
