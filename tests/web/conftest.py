"""Fixtures of the web app tests: ``chancekit serve`` subprocesses on 127.0.0.1 with a free
port, and the system Chromium driven by Playwright (never ``playwright install``).

Browser tests skip, with the reason, only when Chromium (or Playwright) is missing and we
are not in CI; in CI (``CI=true``) they must run, so a missing browser is a failure
(``.ci/run`` installs Debian's chromium first).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_site import static_server
from bench_web import server as _server

CHROMIUM = os.environ.get("CHANCEKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
IN_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


def _missing(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} -- in CI the browser tests must run (.ci/run installs "
                    "chromium and chromium-driver)")
    pytest.skip(f"{reason}; install it with: apt-get install chromium chromium-driver "
                "(the tests run in CI)")


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """The app with default settings (cache on, 2 workers), but a time limit of 20 s, not
    10: the answers the tests check (10000d6 ...) must not depend on how busy the machine
    is. Not longer: an estimate runs for half the time limit, and the browser tests wait
    30 s for one (the time limit itself is tested on ``strict_server_url``)."""
    with _server("--workers", "2", "--time-limit", "20") as url:
        yield url


@pytest.fixture(scope="session")
def strict_server_url() -> Iterator[str]:
    """The app with a 0.3 s time limit, no cache and the test hooks (``/api/_test/sleep``,
    work that outlasts any limit): for time-limit and cancel tests."""
    with _server("--workers", "2", "--time-limit", "0.3", "--no-cache",
                 env={"CHANCEKIT_WEB_TEST_HOOKS": "1"}) as url:
        yield url


def call(url: str, path: str, body: Any = None, *, raw: bytes | None = None,
         method: str | None = None, headers: dict[str, str] | None = None,
         timeout: float = 60) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) of one request; the body must be JSON whatever the status."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url.rstrip("/") + path, data=data, method=method,
                                 headers={"Content-Type": "application/json",
                                          **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        text = exc.read()
        return exc.code, json.loads(text)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        _missing(f"Chromium is not installed ({CHROMIUM} not found)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any, request: Any) -> Iterator[Any]:
    """A fresh page that records console errors and every URL it requests (all must be
    this server's, or the static site's for a test run on both back ends through
    ``app_url``: no CDN, no network)."""
    server_url = str(request.getfixturevalue("app_url" if "app_url" in request.fixturenames
                                             else "server_url"))
    context = browser.new_context(viewport={"width": 1200, "height": 900},
                                  accept_downloads=True, bypass_csp=True)  # lets
    # wait_for_function evaluate its text (the app itself keeps its CSP: no eval needed)
    on_site = getattr(request.node, "callspec", None) is not None and \
        request.node.callspec.params.get("app_url") == "site"
    # hang guards only (the site starts Python in the page first: on a busy 2-core machine
    # that can take a minute)
    context.set_default_timeout(120_000 if on_site else 30_000)
    pg = context.new_page()
    pg.errors = []
    pg.urls = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    # the browser logs each 4xx answer as "Failed to load resource": expected, not an error
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error"
          and not m.text.startswith("Failed to load resource") else None)
    pg.on("request", lambda r: pg.urls.append(r.url))
    try:
        yield pg
        foreign = [u for u in pg.urls if not u.startswith((server_url, "data:", "blob:"))]
        assert not foreign, f"requests outside the app: {foreign}"
        assert not pg.errors, f"errors in the page: {pg.errors}"
    finally:
        context.close()


@contextlib.contextmanager
def shared_link(page: Any, browser: Any) -> Iterator[Any]:
    """Click Share on ``page`` and open the link it shows in a fresh browser context (no
    storage shared with ``page``): the page the link gives, closed afterwards."""
    page.click("#share")
    page.wait_for_function("document.querySelector('#share-url').value.includes('#ck=')")
    link = page.input_value("#share-url")
    other = browser.new_context(bypass_csp=True).new_page()
    try:
        other.goto(link)
        yield other
    finally:
        other.context.close()


# -- the static site (issue #28): the same pages, computing in the browser ------------------
@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: Any) -> Path:
    from chancekit.errors import ChancekitError
    from chancekit.site.build import build_site

    out = tmp_path_factory.mktemp("site") / "public"
    try:
        build_site(out, base_url=None)
    except ChancekitError as exc:
        _missing(f"the site's runtime could not be fetched ({exc})")
    return out


@pytest.fixture(scope="session")
def site_url(site_dir: Path) -> Iterator[str]:
    with static_server(site_dir) as url:
        yield url


@pytest.fixture(params=["serve", "site"])
def app_url(request: Any) -> str:
    """The URL of the calculator on each back end: ``chancekit serve`` and the static site
    (the page paths of the server, such as ``anydice``, open on the site too: it forwards
    them to ``anydice.html``). Tests taking it run against both."""
    if request.param == "serve":
        return str(request.getfixturevalue("server_url"))
    return str(request.getfixturevalue("site_url"))
