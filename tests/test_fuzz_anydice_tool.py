"""tools/fuzz_anydice.py, the robustness run over real AnyDice programs: it reads every
source form (folder, tar, JSON lines), sorts each program into ok / error / refused, and
reports failures by exit status (the long run itself is recorded in docs/fuzzing.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
import tarfile
from pathlib import Path

import pytest

pytest.importorskip("chancekit.anydice")

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fuzz_anydice", ROOT / "tools" / "fuzz_anydice.py")
assert spec is not None and spec.loader is not None
fuzz = importlib.util.module_from_spec(spec)
sys.modules["fuzz_anydice"] = fuzz
spec.loader.exec_module(fuzz)

PROGRAMS = {
    "plain": "output 3d6\n",
    "named": 'function: f X:n { result: X * 2 }\noutput [f d6] named "doubled"\n',
    "syntax": "output 3 + }\n",
    "huge": "output 1000d1000000\n",
    "empty": "",
}


def test_every_source_form_reads_the_same_programs(tmp_path: Path) -> None:
    folder = tmp_path / "program" / "00"
    folder.mkdir(parents=True)
    for name, text in PROGRAMS.items():
        (folder / f"{name}.txt").write_text(text)
    (folder / "ignored.html").write_text("<p>not a program</p>")
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text("".join(json.dumps({"id": k, "program": v}) + "\n"
                             for k, v in PROGRAMS.items()))
    tar = tmp_path / "p.tar.gz"
    with tarfile.open(tar, "w:gz") as t:
        for name in PROGRAMS:
            t.add(folder / f"{name}.txt", arcname=f"anydice.com/program/{name}.txt")
    for source in (tmp_path / "program", jsonl, tar):
        got = {p.text for p in fuzz.read_programs(str(source))}
        assert got == set(PROGRAMS.values()), source


def test_outcomes_counts_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text("".join(json.dumps({"id": k, "program": v}) + "\n"
                             for k, v in PROGRAMS.items()))
    report = tmp_path / "run.json"
    code = fuzz.main([str(jsonl), "--jobs", "1", "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    doc = json.loads(report.read_text())
    outcome = {r["id"]: r["outcome"] for r in doc["results"]}
    assert outcome == {"plain": "ok", "named": "ok", "syntax": "error", "huge": "refused",
                       "empty": "ok"}
    assert doc["counts"] == {"ok": 3, "error": 1, "refused": 1}
    assert "5 programs: 3 ok, 1 clean errors, 1 refused, 0 failures" in out
    syntax = next(r for r in doc["results"] if r["id"] == "syntax")
    assert "line 1" in syntax["error"] and "\n" not in syntax["error"]
