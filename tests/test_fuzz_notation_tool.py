"""``tools/fuzz.py --notation``: a worker process that dies on a case (python-flint
aborts the process where it cannot allocate) is reported as a crash of that case and the
run goes on; before, ``Pool.imap`` waited for the lost result forever (issue 31, sixth
pass: a run of seed 3266 stood still for 10 minutes at case 1 520)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def _fuzz_module() -> Any:
    spec = importlib.util.spec_from_file_location("fuzz_tool_under_test", TOOLS / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (the pool's workers find the case function by name)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the runner forks its workers")
def test_a_worker_that_dies_is_a_crash_of_its_case_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fuzz = _fuzz_module()
    gen = fuzz.GENERATORS["hostile"](5)
    cases = [gen.case() for _ in range(12)]
    doomed = cases[4][0]
    real = fuzz._notation_case

    def dying(args: tuple[str, str]) -> Any:
        if args[0] == doomed:
            os._exit(134)  # what an abort() in C leaves: no result, no exception
        return real(args)

    # (pickled by name, as the pool sends its function: the module's attribute is this)
    dying.__module__, dying.__qualname__ = fuzz.__name__, "_notation_case"
    fuzz._notation_case = dying
    # (each of these 12 cases runs in at most 0.05 s; the wait for the lost one is generous
    # for a busy machine, where the workers start slowly)
    fuzz._DEAD_WORKER = 15
    log = tmp_path / "run.jsonl"

    def stuck(*_: Any) -> None:  # (the old runner waited here forever)
        raise TimeoutError("the run stood still on the lost case")

    signal.signal(signal.SIGALRM, stuck)
    signal.alarm(120)
    try:
        fuzz.main(["--notation", "12", "--generator", "hostile", "--seed", "5", "--jobs", "1",
                   "--cli-sample", "0", "--log", str(log)])
    finally:
        signal.alarm(0)
        del sys.modules["fuzz_tool_under_test"]
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r[0] for r in rows] == [c[0] for c in cases]  # every case, in order
    crashed = [r for r in rows if r[2] == "crash"]
    assert len(crashed) == 1 and crashed[0][0] == doomed
    assert "worker died" in crashed[0][4]
    assert "crashes: 1" in capsys.readouterr().out
