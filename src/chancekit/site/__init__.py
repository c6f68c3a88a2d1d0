"""chancekit from a link: the calculator as a static site that runs in the browser.

``build_site(out)`` (the command ``chancekit site OUT``) writes every page of the local
calculator with chancekit running in Pyodide in a Web Worker; any static host serves the
folder, and nothing leaves the browser. docs/site.md says how to host it, what it
downloads, and how share links travel.
"""

from __future__ import annotations

from chancekit._lazy import front_door

__all__ = ["SiteReport", "build_site", "ensure_runtime", "runtime_lock"]

__getattr__, __dir__ = front_door(__name__, {
    "SiteReport": "chancekit.site.build",
    "build_site": "chancekit.site.build",
    "ensure_runtime": "chancekit.site.runtime",
    "runtime_lock": "chancekit.site.runtime",
}, globals())
