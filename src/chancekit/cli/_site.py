"""``chancekit site OUT``: the calculator as a static site that runs in the browser
(docs/site.md)."""

from __future__ import annotations

import argparse
import shlex
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``site`` to ``sub``."""
    p = sub.add_parser(
        "site",
        help="write the web calculator as a static site that runs in the browser",
        description="Write every page of the web calculator (Dice, AnyDice, Pools, Markov, Gacha, "
        "Tables, Fairness, Roll) into OUT as a static site: chancekit runs in the "
        "visitor's browser (Pyodide in a Web Worker), nothing is sent anywhere, and any "
        "static host serves it (GitHub Pages, a subfolder, python -m http.server). The "
        "first build fetches the pinned runtime (Pyodide from npm, python-flint's Pyodide "
        "wheel from the package index: about 17 MB) into a cache.",
        epilog="examples:\n"
        "  chancekit site public/\n"
        "  chancekit site public/ --base-url https://example.org/dice/\n"
        "  python -m http.server -d public 8000     # then open http://127.0.0.1:8000/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("out", metavar="OUT", help="the folder to write (new, empty, or an "
                   "earlier site's)")
    p.add_argument("--base-url", metavar="URL", default=None,
                   help="the public address the site will have: 'Copy share link' gives "
                   "links under it (default: wherever the page is opened)")
    p.add_argument("--runtime", metavar="DIR", default=None,
                   help="a folder holding the runtime (pyodide/ and wheels/), fetched into "
                   "it when missing (default: $CHANCEKIT_SITE_RUNTIME or ~/.cache/chancekit)")
    p.add_argument("--offline", action="store_true",
                   help="never fetch the runtime: fail if it is not there yet")
    p.set_defaults(func=run_site)


def run_site(args: argparse.Namespace) -> int:
    from chancekit.site.build import build_site

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    report = build_site(args.out, runtime=args.runtime, base_url=args.base_url,
                        fetch=not args.offline, log=log)
    raw, packed = report.download_bytes()
    print(f"wrote {len(report.files)} files ({report.total_bytes / 1e6:.1f} MB) to "
          f"{report.out}")
    print(f"a first visit downloads {raw / 1e6:.1f} MB ({packed / 1e6:.1f} MB compressed); "
          "later visits read it from the browser's cache")
    print(f"try it: python -m http.server -d {shlex.quote(str(report.out))} 8000  (then open "
          "http://127.0.0.1:8000/)")
    return 0
