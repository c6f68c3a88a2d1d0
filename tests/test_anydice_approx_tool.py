"""tools/anydice_approx.py, the corpus run with approx=True: it sorts programs into exact,
certified and figures matches, mismatches and errors, judging a certified output by its
proven intervals (the run over corpus-dev itself is recorded in docs/anydice.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("chancekit.anydice")

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("anydice_approx",
                                              ROOT / "tools" / "anydice_approx.py")
assert spec is not None and spec.loader is not None
tool = importlib.util.module_from_spec(spec)
sys.modules["anydice_approx"] = tool
spec.loader.exec_module(tool)


def _out(rows: list[list[list[float]]]) -> str:
    return json.dumps({"distributions": {"data": rows, "labels": ["x"] * len(rows)}})


def test_buckets(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    d4 = [[k, 25.0] for k in range(1, 5)]
    rows = [
        {"id": "a", "program": "output d4", "output": _out([d4]), "bug": None},
        {"id": "b", "program": "output d4 + 1", "output": _out([d4]), "bug": None},
        {"id": "d", "program": "output 1 +", "output": json.dumps({"error": {"message": "x"}}),
         "bug": None},
        # a table that lost mass (every figure 3e-8 pp low): renormalised, it matches
        {"id": "e", "program": "output d4", "output": _out([[[k, 25 - 3e-8] for k in
                                                               range(1, 5)]]), "bug": None},
        # one figure off with the sum off too: still a mismatch after renormalising
        {"id": "f", "program": "output d4", "output": _out([[[1, 25 - 4e-8], [2, 25.0],
                                                               [3, 25.0], [4, 25.0]]]),
         "bug": None},
    ]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = tmp_path / "out.tsv"
    assert tool.main([str(corpus), "--timeout", "60", "--report", str(report)]) == 0
    got = {line.split("\t")[0]: line.split("\t")[1] for line in report.read_text().splitlines()}
    assert got["a"] == "exact-match"
    assert got["b"] == "mismatch"
    assert got["d"] == "both-error"
    assert got["e"] == "renormalised-match"
    assert got["f"] == "mismatch"
    out = capsys.readouterr().out
    assert "approx: " in out and "renormalised 1" in out and "past 5 s" in out
