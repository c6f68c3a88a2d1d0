"""The static site (issue #28): ``chancekit site OUT`` served by a plain static server, the
pages computing in the browser (Pyodide in a Web Worker) with no network but the site's
own files, answers equal to ``chancekit serve``'s JSON through ``window.CK.api``, share
links across copies and from the local server, offline after the first visit, Stop and the
time limit. The site is built once per session (the pinned runtime is fetched into the
cache the first time: npm and pip; CI does it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import call, static_server

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[1] / "data"
#: answers differ in these only: the time taken, and whether the server's cache answered
TIMING = ("elapsed_ms", "server_ms", "run_ms", "cached")
READY = "document.documentElement.dataset.runtime === 'ready'"
BOOT_MS = 300_000  # a hang guard for Pyodide's start on a busy 2-core machine, not a goal


def open_site(browser: Any, url: str, path: str = "index.html", *,
              service_workers: str = "block", width: int = 1200) -> Any:
    """A page of the site in a fresh context whose every request to another host is
    refused and recorded (``page.foreign``), once Python has started in its worker."""
    context = browser.new_context(viewport={"width": width, "height": 900},
                                  bypass_csp=True, service_workers=service_workers)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.foreign, page.errors = [], []

    def guard(route: Any) -> None:
        if route.request.url.startswith(url):
            route.continue_()
        else:
            page.foreign.append(route.request.url)
            route.abort()

    if service_workers == "block":
        context.route("**/*", guard)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url + path)
    page.wait_for_function(READY, timeout=BOOT_MS)
    return page


def ck_api(page: Any, path: str, body: Any = None) -> Any:
    return page.evaluate("async ([p, b]) => await CK.api(p, b === null ? undefined : b)",
                         [path, body])


def same(site: Any, server: Any) -> None:
    """The site's JSON is the server's, timings aside."""
    def strip(d: Any) -> Any:
        if isinstance(d, dict):
            return {k: strip(v) for k, v in d.items() if k not in TIMING}
        if isinstance(d, list):
            return [strip(v) for v in d]
        return d
    assert strip(site) == strip(server)


#: every page's examples and error cases (the pages' own help chips and example buttons)
EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("/api/dist", {"expressions": [{"label": "attack", "text": "1d20+5"},
                                   {"label": "stats", "text": "4d6kh3"}]}),
    ("/api/dist", {"expressions": ["2d20kl1", "1d20+5 >= 15", "10d10cs>=8", "10d10cs>=8df1",
                                   "1d8!", "4dF"]}),
    ("/api/dist", {"expressions": ["10d10>=8", "4d6k3"], "dialect": "roll20"}),
    ("/api/dist", {"expressions": ["4d6kq3"]}),                       # notation error
    ("/api/dist", {"expressions": ["2000d6kh1000"]}),                 # refused up front
    ("/api/dist", {"expressions": []}),                               # 400
    ("/api/anydice", {"program": 'output [highest 3 of 4d6] named "stats"'}),
    ("/api/anydice", {"program": "function: attack ROLL:n vs AC:n {\n  if ROLL = 20 "
                      "{ result: 2 }\n  if ROLL + 5 >= AC { result: 1 }\n  result: 0\n}\n"
                      "loop AC over {12, 15, 18} {\n  output [attack d20 vs AC] named "
                      '"hits vs AC [AC]"\n}\n'}),
    ("/api/anydice", {"program": "output 3d6 +\n"}),                  # program error
    ("/api/anydice", {"program": "output d{}"}),
    ("/api/pool", {"kind": "largest-set", "dice": "5d6"}),
    ("/api/pool", {"kind": "straight", "dice": "5d6"}),
    ("/api/pool", {"kind": "nco", "action": 5, "danger": 3}),
    ("/api/pool", {"kind": "risk", "action": 3, "danger": 2}),
    ("/api/pool", {"kind": "genesys", "pool": "2A1P vs 2D"}),
    ("/api/markov", {"kind": "usage-die", "ladder": "12,10,8,6,4"}),
    ("/api/markov", {"kind": "race", "hp": 30, "damage": "2d6", "hp2": 25,
                     "damage2": "1d8+2", "order": "alternating"}),
    ("/api/markov", {"kind": "first-success", "system": "prd:0.25"}),
    ("/api/markov", {"kind": "until", "die": "1d6", "sequence": "6,6"}),
    ("/api/markov", {"kind": "usage-die", "ladder": "12,10,1d8+"}),   # field error
    ("/api/table", {"source": "notation", "notation": "3d6"}),
    ("/api/table", {"source": "loot", "row_die": 20,
                    "loot": "gold=40\npotion=25\nscroll of fire=20\nsword=10\nring=4\n"
                            "dragon egg=1"}),
    ("/api/fairness", {"systems": ["deck", "dynamic-dice:0.355", "prd:0.25"], "values": 6,
                       "samples": 25}),
    ("/api/fairness", {"systems": ["dice", "deck"], "method": "montecarlo",
                       "trials": 2000, "seed": 7}),
    ("/api/roll", {"text": "4d6kh3", "seed": 7, "n": 6, "streams": ["a", "b"]}),
    ("/api/roll", {"text": "1d20", "seed": 12345, "stream": "dwarvish-mines-1", "n": 3}),
]


def test_the_site_is_complete_and_small(site_dir: Path) -> None:
    from chancekit.site.runtime import runtime_lock, sha256

    manifest = json.loads((site_dir / "site.json").read_text())
    files = manifest["files"]
    for page in ("index.html", "anydice.html", "pools.html", "markov.html", "tables.html",
                 "fairness.html", "roll.html", "docs.html"):
        html = (site_dir / page).read_text()
        assert 'data-backend="site"' in html and "Content-Security-Policy" in html
        # nothing loaded from another host: every script, style and image is the site's
        # (links a reader may follow, such as AnyDice's documentation, are not loads)
        assert not re.findall(r'src="(?:https?:)?//|<link[^>]*href="(?:https?:)?//', html), page
        assert page in files
    flint = runtime_lock()["python-flint"]
    assert sha256(site_dir / "wheels" / flint["file"]) == flint["sha256"]
    sw = (site_dir / "sw.js").read_text()
    assert all(json.dumps(name) in sw for name in files
               if name not in ("sw.js", "site.json", ".nojekyll"))
    runtime = sum(n for name, n in files.items() if name.startswith(("pyodide/", "wheels/")))
    assert runtime <= 25_000_000, runtime  # the goal: at most 25 MB raw


def test_ck_api_answers_as_the_server_does(browser: Any, site_url: str,
                                           server_url: str) -> None:
    page = open_site(browser, site_url)
    for path, body in EXAMPLES:
        status, server = call(server_url, path, body)
        site_status, site = page.evaluate(
            "async ([p, b]) => { const r = await CK.request(p, b); return [r.status, r.data]; }",
            [path, body])
        assert site_status == status, (path, body, site)
        if "error" in server:
            assert site == server, (path, body)
        else:
            same(site, server)
    version = ck_api(page, "/api/version")
    server_version = call(server_url, "/api/version")[1]
    assert (version["version"], version["dialects"]) == (server_version["version"],
                                                         server_version["dialects"])
    assert ck_api(page, "/api/openapi.json")["openapi"].startswith("3.1")
    assert not page.foreign, page.foreign
    assert not page.errors, page.errors
    page.context.close()


def test_a_hundred_anydice_programs_as_the_server(browser: Any, site_url: str,
                                                  server_url: str) -> None:
    programs = [json.loads(line) for line in (DATA / "anydice_site_100.jsonl").open()]
    assert len(programs) == 100
    page = open_site(browser, site_url, "anydice.html")
    answers = page.evaluate("""async (programs) => {
        const out = [];
        for (const p of programs) out.push(await CK.api('/api/anydice', {program: p}));
        return out; }""", [p["program"] for p in programs])
    for p, site in zip(programs, answers, strict=True):
        status, server = call(server_url, "/api/anydice", {"program": p["program"]})
        assert status == 200, p["id"]
        same(site, server)
    assert not page.foreign
    page.context.close()


def test_the_pages_compute_in_the_browser(browser: Any, site_url: str) -> None:
    page = open_site(browser, site_url)
    page.fill("#exprs", "3d6")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert "21/2" in page.inner_text("#summary")
    page.click("nav >> text=AnyDice")
    page.wait_for_function(READY, timeout=BOOT_MS)
    page.fill("#program", "output [highest 1 of 2d20] named \"advantage\"")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert "advantage" in page.inner_text("#summary")
    page.click("nav >> text=Markov")
    page.wait_for_function(READY, timeout=BOOT_MS)
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert page.get_attribute("#mean", "data-exact")
    page.click("nav >> text=Fairness")
    page.wait_for_function(READY, timeout=BOOT_MS)
    page.click("#evaluate")
    page.wait_for_function("document.body.dataset.state === 'done'")
    # tuning keeps the server's job protocol (POST /api/tune, then polling the job)
    page.fill("#values", "3")
    page.fill("#samples", "4")
    page.click("#tune")
    page.wait_for_function("['done', 'error'].includes(document.body.dataset.tune)",
                           timeout=BOOT_MS)
    assert page.evaluate("document.body.dataset.tune") == "done"
    assert not page.foreign and not page.errors, (page.foreign, page.errors)
    page.context.close()


def test_share_links_open_on_any_copy_and_from_the_server(browser: Any, site_dir: Path,
                                                          site_url: str,
                                                          server_url: str) -> None:
    page = open_site(browser, site_url, "anydice.html")
    program = 'output 2d8 named "two eights"'
    page.fill("#program", program)
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'")
    page.click("#share")
    page.wait_for_function("document.querySelector('#share-url').value.includes('#ck=')")
    link = page.input_value("#share-url")
    assert link.startswith(site_url + "anydice.html#ck=")
    page.context.close()
    with static_server(site_dir) as other:  # another copy, another port
        moved = open_site(browser, other, link[len(site_url):])
        moved.wait_for_function("document.body.dataset.state === 'done'", timeout=BOOT_MS)
        assert moved.input_value("#program") == program
        moved.context.close()
    # a link made under chancekit serve: its origin replaced by the site's
    served = browser.new_context(bypass_csp=True).new_page()
    served.goto(server_url + "anydice")
    served.fill("#program", program)
    served.click("#share")
    served.wait_for_function("document.querySelector('#share-url').value.includes('#ck=')")
    local = served.input_value("#share-url")
    served.context.close()
    assert local.startswith(server_url + "anydice#ck=")
    opened = open_site(browser, site_url, local[len(server_url):])
    assert opened.url.startswith(site_url + "anydice.html#ck=")
    assert opened.input_value("#program") == program
    opened.context.close()


def test_base_url_gives_the_public_address(tmp_path: Path, site_dir: Path) -> None:
    from chancekit.site.build import build_site

    report = build_site(tmp_path / "pub", runtime=None, base_url="https://example.org/dice/")
    assert 'data-base-url="https://example.org/dice/"' in (report.out / "index.html").read_text()
    from chancekit.errors import ChancekitError

    with pytest.raises(ChancekitError, match="base-url"):
        build_site(tmp_path / "pub2", base_url="javascript:alert(1)")
    with pytest.raises(ChancekitError, match="other files"):
        (tmp_path / "full").mkdir()
        (tmp_path / "full" / "mine.txt").write_text("keep me")
        build_site(tmp_path / "full")


def test_offline_after_the_first_visit(browser: Any, site_dir: Path) -> None:
    with static_server(site_dir) as url:
        page = open_site(browser, url, service_workers="allow")
        page.wait_for_function("navigator.serviceWorker.controller !== null || "
                               "navigator.serviceWorker.ready.then(() => true)")
        page.evaluate("navigator.serviceWorker.ready")
        # every file of the build is in the cache before the server goes away
        page.wait_for_function("""async () => { const names = await caches.keys();
            if (!names.length) return false;
            const c = await caches.open(names[0]); return (await c.keys()).length > 30; }""")
    page.reload()  # the server is gone: the service worker answers
    page.wait_for_function(READY, timeout=BOOT_MS)
    out = ck_api(page, "/api/dist", {"expressions": ["3d6"]})
    assert out["series"][0]["mean"] == "21/2"
    page.context.close()


def test_stop_and_the_time_limit(browser: Any, site_url: str) -> None:
    page = open_site(browser, site_url)
    page.evaluate("CKSite.limits.time_limit_s = 0.05")
    slow = {"expressions": ["600d6kh300", "3d6"]}
    out = ck_api(page, "/api/dist", slow)
    assert out["error"]["limit"] == "time_limit", out
    page.evaluate("CKSite.limits.time_limit_s = 10")
    page.wait_for_function(READY, timeout=BOOT_MS)  # restarted after the limit
    assert ck_api(page, "/api/dist", {"expressions": ["3d6"]})["series"][0]["mean"] == "21/2"
    page.fill("#exprs", "600d6kh300\n700d6kh350")
    page.click("#run")
    page.click("#stop")
    page.wait_for_function("document.body.dataset.state === 'stopped'")
    page.wait_for_function(READY, timeout=BOOT_MS)
    page.fill("#exprs", "3d6")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'done'")
    assert "21/2" in page.inner_text("#summary")
    page.context.close()


def _saved_heap(page: Any) -> str:
    page.wait_for_function("() => !['none', 'waiting', 'saving'].includes(CKSite.snapshotState())",
                           timeout=BOOT_MS)
    return str(page.evaluate("CKSite.snapshotState()"))


def test_a_repeat_visit_restores_the_saved_heap_and_answers_the_same(
        browser: Any, site_dir: Path, server_url: str) -> None:
    """The first visit (a service worker: the site installed) saves Pyodide's memory
    snapshot; the next visit restores it, and its answers -- python-flint loaded after the
    restore, an AnyDice program, the seeded rolls -- are the server's. Every installed file
    matches its wheel's RECORD (the worker unpacks the wheels itself)."""
    with static_server(site_dir) as url:
        first = open_site(browser, url, service_workers="allow")
        assert first.evaluate("CKSite.bootTimes().snapshot") == "none"
        assert _saved_heap(first) == "stored"
        check = first.evaluate("CKSite.selfCheck()")
        assert check["bad"] == [], check
        again = first.context.new_page()
        again.goto(url + "anydice.html")
        again.wait_for_function(READY, timeout=BOOT_MS)
        assert again.evaluate("CKSite.bootTimes().snapshot") == "restored"
        assert again.evaluate("CKSite.bootTimes().unzip") == "browser"
        assert again.evaluate("CKSite.selfCheck()")["bad"] == []
        for path, body in [EXAMPLES[0], EXAMPLES[1], EXAMPLES[6], EXAMPLES[10], EXAMPLES[16],
                           EXAMPLES[22], EXAMPLES[25], ("/api/dist", {"expressions": ["3d6"]})]:
            site = ck_api(again, path, body)
            same(site, call(server_url, path, body)[1])
        assert again.evaluate("CKSite.selfCheck()")["flint"] is True
        first.context.close()


def test_a_damaged_saved_heap_is_dropped_and_python_boots(browser: Any, site_dir: Path) -> None:
    with static_server(site_dir) as url:
        page = open_site(browser, url, service_workers="allow")
        assert _saved_heap(page) == "stored"
        name = json.loads((site_dir / "static" / "site-config.json").read_text())["snapshot"]
        page.evaluate("""async (name) => { const c = await caches.open(name);
            const [key] = await c.keys();
            await c.put(key, new Response(new Uint8Array(1000).fill(7))); }""", name)
        again = page.context.new_page()
        again.goto(url)
        again.wait_for_function(READY, timeout=BOOT_MS)
        assert again.evaluate("CKSite.bootTimes().snapshot") == "failed"
        assert ck_api(again, "/api/dist", {"expressions": ["4d6kh3"]})["series"][0]["mean"] \
            == "15869/1296"
        assert _saved_heap(again) == "stored"   # a good one replaces it
        page.context.close()


def test_without_the_browsers_inflate_pyodide_unzips_the_wheels(browser: Any, site_dir: Path,
                                                               server_url: str) -> None:
    """A browser without DecompressionStream (``native_inflate: false`` in the site's
    config stands in for one): Pyodide unzips the wheels, python-flint loads on import, the
    answers are the server's."""
    with static_server(site_dir) as url:
        context = browser.new_context(bypass_csp=True, service_workers="block")
        config = json.loads((site_dir / "static" / "site-config.json").read_text())
        config["native_inflate"] = False
        context.route("**/static/site-config.json",
                      lambda route: route.fulfill(status=200, content_type="application/json",
                                                  body=json.dumps(config)))
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(READY, timeout=BOOT_MS)
        assert page.evaluate("CKSite.bootTimes().unzip") == "pyodide"
        for path, body in (EXAMPLES[0], EXAMPLES[6]):
            same(ck_api(page, path, body), call(server_url, path, body)[1])
        assert page.evaluate("CKSite.selfCheck()")["bad"] == []
        context.close()
