"""``--approx`` on the command line (issue #31, item 7): a refusal for huge weights offers
it; with it, ``dist`` and ``anydice`` print certified tables that say "certified, not
exact" with their bounds; answers that are cheap stay exact; the options a certified
answer has no form for are refused with one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from chancekit.cli.main import main

HIGHEST = """function: highest of N:n x D:d {
  if N = 0 { result: 0 }
  if N = 1 { result: D }
  RES: 1@2d[highest of N/2 x D]
  if N - (N/2)*2 = 1 { RES: [highest of D and RES] }
  result: RES
}
set "maximum function depth" to 99
output [highest of 10000000 x d6] named "highest of 10 million d6"
output 2d6
"""


def test_dist_offers_then_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "20000d6>=70000"]) == 1
    err = capsys.readouterr().err
    assert "--approx" in err and len(err.strip().splitlines()) == 1
    assert main(["dist", "20000d6>=70000", "--approx"]) == 0
    out = capsys.readouterr().out
    assert "certified, not exact" in out and "± bound" in out
    assert "49.9174117565%" in out and "50.0825882435%" in out
    assert main(["dist", "3d6", "--approx"]) == 0  # exact: as without --approx
    assert "exactly 21/2" in capsys.readouterr().out


def test_anydice_offers_then_answers(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "highest.dice"
    program.write_text(HIGHEST)
    assert main(["anydice", str(program)]) == 1
    assert "--approx" in capsys.readouterr().err
    assert main(["anydice", str(program), "--approx"]) == 0
    out = capsys.readouterr().out
    assert "certified, not exact" in out          # the first output
    assert "exactly 7" in out                     # 2d6 stays exact


@pytest.mark.parametrize("extra", [["--json"], ["--plot", "x.png"]])
def test_forms_a_certified_answer_lacks_are_refused(extra: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "20000d6>=70000", "--approx", *extra]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "certified" in captured.err
