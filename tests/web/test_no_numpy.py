"""The pages without numpy (issue #28, item 4): the static site runs chancekit in Pyodide,
which has no numpy, so every web job must answer without it -- and answer the same.

Every endpoint of ``chancekit.web.api`` (each job of ``chancekit.web.compute.JOBS``) answers
the request bodies of the pages' examples (``benchmarks/bench_pure.PAGE_EXAMPLES``) through
``chancekit.web.api.handle`` -- what the site's worker calls -- in two fresh processes: one
as installed (numpy loaded: the vectorised paths) and one where a ``sys.meta_path`` finder
refuses numpy and matplotlib before chancekit is imported (the pure-Python twins of
``chancekit._numpy``). The answers must be the same JSON (timings removed), Monte Carlo
included (same seed, same words, same numbers).
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_pure import PAGE_EXAMPLES, run_child
from chancekit.web.api import ENDPOINTS
from chancekit.web.compute import JOBS


def _libm_agrees() -> bool:
    """Whether numpy's exp and log give math's floats (they do where numpy calls the C
    library, as on x86-64 without AVX-512; numpy's own AVX-512 kernels may differ in the
    last bit, and the two paths then agree to rounding only)."""
    np = pytest.importorskip("numpy")
    rng = random.Random(5)
    xs = [rng.random() ** rng.randint(1, 40) for _ in range(20_000)]
    es = [rng.uniform(-700.0, 0.0) for _ in range(20_000)]
    return (np.log(np.array(xs)).tolist() == [math.log(x) for x in xs]
            and np.exp(np.array(es)).tolist() == [math.exp(x) for x in es])


def _same(a: Any, b: Any, rel: float, where: str = "") -> list[str]:
    """Where ``a`` and ``b`` differ (floats within ``rel`` count as the same; 0: exactly)."""
    if isinstance(a, float) and isinstance(b, float):
        if a == b or (a != a and b != b):
            return []
        if rel and math.isclose(a, b, rel_tol=rel, abs_tol=1e-300):
            return []
        return [f"{where}: {a!r} != {b!r}"]
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in _same(a[k], b[k], rel, f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _same(x, y, rel, f"{where}[{i}]")]
    return [] if type(a) is type(b) and a == b else [f"{where}: {a!r} != {b!r}"]


@pytest.fixture(scope="module")
def runs() -> tuple[dict[str, Any], dict[str, Any]]:
    return run_child(PAGE_EXAMPLES, block=False), run_child(PAGE_EXAMPLES, block=True)


def test_the_examples_cover_every_endpoint_and_job() -> None:
    paths = {path for _, path, _ in PAGE_EXAMPLES}
    assert paths == set(ENDPOINTS)
    assert {ENDPOINTS[p][0] for p in paths} == set(JOBS) - {"sleep"}  # sleep: a test hook
    methods = {body["method"] for _, path, body in PAGE_EXAMPLES if path == "/api/fairness"}
    assert methods == {"exact", "montecarlo"}


def test_no_numpy_is_loaded_and_numpy_was_asked_for(runs: tuple[dict, dict]) -> None:
    fast, pure = runs
    assert pure["loaded"] == [], pure["loaded"]  # neither numpy nor matplotlib
    assert "numpy" in pure["tried"]  # the switch asked, and was refused: the finder worked
    assert "numpy" in fast["loaded"]  # the other run took the vectorised paths


def test_every_page_example_answers_the_same_without_numpy(runs: tuple[dict, dict]) -> None:
    fast, pure = runs
    rel = 0.0 if _libm_agrees() else 1e-12
    bad = []
    for a, b in zip(fast["results"], pure["results"], strict=True):
        assert a["name"] == b["name"]
        # the examples succeed, but those named "(refused)" (past a work limit)
        assert (a["status"] == 200) != ("(refused)" in a["name"]), (a["name"], a["answer"])
        assert a["status"] == b["status"], a["name"]
        diffs = _same(a["answer"], b["answer"], rel, a["name"])
        bad += diffs[:5]
    assert not bad, "\n".join(bad)


def test_the_comparison_can_fail() -> None:
    a = {"ok": {"x": [0.1, 2], "y": "s"}}
    assert _same(a, json.loads(json.dumps(a)), 0.0) == []
    assert _same(a, {"ok": {"x": [0.1 + 1e-17 * 10, 2], "y": "s"}}, 0.0)
    assert _same(a, {"ok": {"x": [0.1, 2.0], "y": "s"}}, 0.0)  # 2 is not 2.0
    assert _same(a, {"ok": {"x": [0.1, 2]}}, 0.0)
