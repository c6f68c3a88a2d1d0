"""AnyDice conformance: every program of the dev corpus (../shared/anydice/) run through
the judge's own script (``conformance.py``, each program in a worker process), which
compares each output with AnyDice's stored answer. Fails below :data:`GOAL` of the judged
programs (match or both-error). docs/anydice.md lists every remaining mismatch and its
cause. No seconds are asserted (the script's per-program timeout only stops a hang)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "anydice"
#: judged programs that must match (664 of 671 on corpus-dev.jsonl when this was set;
#: the 7 others are listed with their causes in docs/anydice.md: AnyDice's float
#: underflow and time-out, and exact weights too long for the judge's str(), so 664 is
#: as far as exact answers go: "Decision (the 99% goal)")
GOAL = Fraction(664, 671)


def _corpus() -> Path:
    corpus = SHARED / "corpus-dev.jsonl"
    if not (SHARED / "conformance.py").is_file() or not corpus.is_file():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"the AnyDice corpus is missing under {SHARED} (required in CI)")
        pytest.skip(f"the AnyDice corpus is not under {SHARED}")
    return corpus


def test_conformance_on_the_dev_corpus(tmp_path: Path) -> None:
    corpus = _corpus()
    report = tmp_path / "report.tsv"
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(src), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run(
        [sys.executable, str(SHARED / "conformance.py"), "chancekit", str(corpus),
         "--timeout", "60", "--report", str(report)],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    m = re.search(r"anydice: chancekit (\d+)/(\d+) match", done.stdout)
    assert m, done.stdout[-2000:]
    ok, judged = int(m.group(1)), int(m.group(2))
    rows = [line.split("\t") for line in report.read_text(encoding="utf-8").splitlines()]
    failing = [f"{r[0]} {r[1]}: {r[2][:120]}" for r in rows
               if r[1] not in ("match", "both-error", "anydice-timeout")
               and not r[1].startswith("anydice-bug")]
    assert Fraction(ok, judged) >= GOAL, (
        f"{ok}/{judged} judged programs match, below {GOAL}:\n" + "\n".join(failing))
    # no program may crash the worker or hang (a clean error is fine)
    assert not [r for r in rows if r[1] in ("died", "timeout")], failing
