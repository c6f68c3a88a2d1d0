"""``chancekit site OUT``: the whole calculator as a static site that runs in the browser.

The pages are the very pages of ``chancekit serve`` (``chancekit/web/static``), written
with relative paths and ``<html data-backend="site">``: their one page code then asks a
Web Worker instead of a server (``CK.request`` in common.js, ``static/site.js``), and the
worker runs chancekit in Pyodide and answers through :func:`chancekit.web.api.handle`,
the same Python the server calls. Beside the pages: Pyodide (``pyodide/``),
python-flint's Pyodide wheel and chancekit's own pure-Python wheel, built here from the
installed package (``wheels/``), a service worker that keeps all of it for offline use
(``sw.js``), ``api/openapi.json``, and ``site.json`` (what was written, with sizes). Any
static host serves the folder; nothing leaves the browser (docs/site.md).

>>> from chancekit.site.build import page_file
>>> page_file("/"), page_file("/anydice")
('index.html', 'anydice.html')
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from chancekit import __version__
from chancekit.errors import ChancekitError
from chancekit.site.runtime import PYODIDE_FILES, ensure_runtime, runtime_lock
from chancekit.web.api import PAGES

#: the pages' Content-Security-Policy (a static host sends no headers: a meta tag says it):
#: nothing but this site, ever; Pyodide runs in the worker, whose own policy is the host's
CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
       "script-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; "
       "base-uri 'none'")
WHEEL_NAME = f"chancekit-{__version__}-py3-none-any.whl"


def page_file(path: str) -> str:
    """The site's file for a page of ``chancekit serve`` (``/`` is ``index.html``)."""
    return "index.html" if path == "/" else path.strip("/") + ".html"


@dataclass
class SiteReport:
    """What :func:`build_site` wrote: the folder, each file's size, the totals."""

    out: Path
    files: dict[str, int] = field(default_factory=dict)
    runtime: Path | None = None

    @property
    def total_bytes(self) -> int:
        return sum(self.files.values())

    def download_bytes(self) -> tuple[int, int]:
        """(raw, gzip-compressed) bytes a first visit downloads: the runtime, the wheels
        and one page with its scripts (every page shares them)."""
        first = [n for n in self.files if n.startswith(("pyodide/", "wheels/", "static/"))]
        first.append("index.html")
        raw = sum(self.files[n] for n in first)
        packed = sum(len(gzip.compress((self.out / n).read_bytes(), 6)) for n in first)
        return raw, packed


def _static(name: str) -> bytes:
    return resources.files("chancekit.web").joinpath("static", name).read_bytes()


def _site_file(name: str) -> bytes:
    return resources.files("chancekit.site").joinpath("files", name).read_bytes()


_NAV = re.compile(r'href="(/[a-z]*)"')


def site_page(html: str, *, base_url: str | None = None) -> str:
    """A page of ``chancekit serve`` as the site writes it: relative paths, the site back
    end, its policy and its worker client.

    >>> page = site_page('<html lang="en" data-version="{{version}}"><head>'
    ...     '<meta charset="utf-8"></head><nav><a href="/anydice">AnyDice</a></nav>'
    ...     '<script src="/static/common.js"></script>')
    >>> 'data-backend="site"' in page, 'href="anydice.html"' in page
    (True, True)
    >>> page.index('src="static/site.js"') < page.index('</head>') < page.index('common.js')
    True
    """
    html = html.replace("{{version}}", __version__)
    extra = ' data-backend="site"'
    if base_url:
        extra += f' data-base-url="{_attr(base_url)}"'
    html = html.replace('<html lang="en" ', f'<html lang="en"{extra} ', 1)
    html = html.replace('<meta charset="utf-8">', '<meta charset="utf-8">'
                        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">', 1)
    html = html.replace('="/static/', '="static/')
    html = html.replace('href="/api/openapi.json"', 'href="api/openapi.json"')
    html = _NAV.sub(lambda m: f'href="{page_file(m.group(1))}"'
                    if m.group(1) in PAGES else m.group(0), html)
    # the worker client first, in the head: Python starts while the page is read
    html = html.replace("</head>", '<script src="static/site.js"></script></head>', 1)
    return html.replace("exact, on this machine", "exact, in your browser")


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def build_wheel(dest: Path) -> Path:
    """chancekit's pure-Python wheel from the installed package: every ``.py`` and the
    package data the worker reads, no C extension (they are optional), no page files
    (the site serves those). Cost: one zip of about 300 files."""
    import chancekit

    root = Path(chancekit.__file__).resolve().parent
    wheel = dest / WHEEL_NAME
    records: list[str] = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        def add(name: str, data: bytes) -> None:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{name},sha256={digest.decode()},{len(data)}")

        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if not path.is_file() or "__pycache__" in rel or rel.startswith("web/static/"):
                continue
            if path.suffix in (".py", ".typed") or rel.startswith("site/runtime/"):
                add(f"chancekit/{rel}", path.read_bytes())
        info = f"chancekit-{__version__}.dist-info"
        add(f"{info}/METADATA", (f"Metadata-Version: 2.1\nName: chancekit\nVersion: "
                                 f"{__version__}\nSummary: chancekit for the static site "
                                 "(pure Python; numpy-free paths)\n").encode())
        add(f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: chancekit site\n"
                             b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        add(f"{info}/top_level.txt", b"chancekit\n")
        records.append(f"{info}/RECORD,,")
        zf.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)),
                    "\n".join(records) + "\n")
    return wheel


def build_site(out: str | Path, *, runtime: str | Path | None = None,
               base_url: str | None = None, fetch: bool = True,
               log: Any = None) -> SiteReport:
    """Write the static site into ``out`` (created; files of an earlier build replaced).
    ``runtime``: a folder holding ``pyodide/`` and ``wheels/`` (default: the cache,
    fetched the first time, :func:`chancekit.site.runtime.ensure_runtime`); ``base_url``:
    the public address, so that "Copy share link" gives it. Cost: copying about 17 MB.
    """
    from chancekit.web.openapi import openapi_document

    if base_url is not None and not re.fullmatch(r"https?://[^\s\"'<>#?]+", base_url):
        raise ChancekitError(f"--base-url must be an http(s) address such as "
                             f"https://example.org/dice/, not {base_url[:80]!r}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ChancekitError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / "site.json").is_file():
        raise ChancekitError(f"{out} is a folder with other files in it; give a new or "
                             "empty folder (or one an earlier chancekit site wrote)")
    rt = ensure_runtime(runtime, fetch=fetch, log=log)
    out.mkdir(parents=True, exist_ok=True)
    for sub in ("pyodide", "wheels", "static", "api"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir()
    report = SiteReport(out=out, runtime=rt)

    def write(name: str, data: bytes) -> None:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
        report.files[name] = len(data)

    for name in PYODIDE_FILES:
        write(f"pyodide/{name}", (rt / "pyodide" / name).read_bytes())
    flint = runtime_lock()["python-flint"]["file"]
    write(f"wheels/{flint}", (rt / "wheels" / flint).read_bytes())
    wheel = build_wheel(out / "wheels")
    report.files[f"wheels/{wheel.name}"] = wheel.stat().st_size
    static = resources.files("chancekit.web").joinpath("static")
    for item in sorted(static.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".js", ".css", ".svg")):
            write(f"static/{item.name}", item.read_bytes())
    for name in ("site.js", "worker.js", "redirect.js"):
        write(f"static/{name}", _site_file(name))
    for path, source in PAGES.items():
        page = site_page(_static(source).decode("utf-8"), base_url=base_url)
        write(page_file(path), page.encode("utf-8"))
        if path != "/":  # /anydice (a link made under chancekit serve) -> anydice.html
            write(f"{path.strip('/')}/index.html", _redirect_page(page_file(path)))
    write("api/openapi.json", json.dumps(openapi_document(), indent=1).encode())
    runtime_files = sorted(n for n in report.files if n.startswith(("pyodide/", "wheels/")))
    # the saved Python heap (worker.js) is valid for exactly this runtime and wheel
    config = {"version": __version__, "pyodide": runtime_lock()["pyodide"],
              "wheels": [f"wheels/{flint}", f"wheels/{wheel.name}"],
              "runtime": {name: report.files[name] for name in runtime_files},
              "snapshot": f"chancekit-snapshot-{_digest(out, runtime_files)}"}
    write("static/site-config.json", json.dumps(config, indent=1).encode())
    # the service worker: every file, under a cache named by the hash of their contents
    names = sorted(report.files)
    cache = f"chancekit-{__version__}-{_digest(out, names)}"
    sw = _site_file("sw.js").decode().replace("__CACHE__", cache).replace(
        "__FILES__", json.dumps(["./", *names])).replace("__SNAPSHOT__", config["snapshot"])
    write("sw.js", sw.encode())
    write(".nojekyll", b"")
    write("site.json", json.dumps({"version": __version__, "cache": cache,
                                   "files": report.files}, indent=1).encode())
    return report


def _digest(out: Path, names: list[str]) -> str:
    """16 hex digits of the sha256 of these files of ``out``, names and contents."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (out / name).read_bytes())
    return digest.hexdigest()[:16]


def _redirect_page(target: str) -> bytes:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<title>chancekit</title></head><body data-target="{target}">'
            f'<p><a href="../{target}">Open the page</a></p>'
            f'<script src="../static/redirect.js"></script></body></html>').encode()
