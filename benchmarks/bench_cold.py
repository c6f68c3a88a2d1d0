"""Cold start (issue 22 goals): whole fresh processes, timed from outside (start to exit),
chancekit and its peer interleaved in the same run, the median of ``repeat`` runs each,
wall time and CPU time (user + sys, as the kernel counts it for the finished process; on a
shared machine the wall time depends on the load, the CPU time much less, so the goals
"above bare Python" are judged on CPU time, the wall figures beside them):

* ``python -c "import chancekit; chancekit.dist('3d6')"`` at most icepool's
  ``python -c "import icepool; 3 @ icepool.d6"`` (ratio >= 1);
* ``chancekit --version`` and ``chancekit --help`` at most 30 ms above bare
  ``python -c pass``;
* reported: ``roll``, ``stream``, ``sample`` and ``dist`` commands, and the first
  ``dist('10d10!!kh5', dialect='roll20')`` after ``import chancekit``.

Every process gets bytecode caches as an installed package has them (a private
``PYTHONPYCACHEPREFIX``, warmed by one untimed run of each command), whatever
``PYTHONDONTWRITEBYTECODE`` says in the calling shell."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Result

PY = sys.executable


def _command() -> list[str]:
    script = Path(PY).with_name("chancekit")
    return [str(script)] if script.exists() else [PY, "-m", "chancekit"]


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One fresh process: (wall seconds, CPU seconds: user + sys, the kernel's count)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def _times(commands: dict[str, list[str]], repeat: int,
           env: dict[str, str]) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU time of each command, the commands interleaved run by run."""
    for argv in commands.values():  # warm: bytecode caches written, files in the page cache
        _run(argv, env)
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            got[name].append(_run(argv, env))
    wall = {k: statistics.median(w for w, _ in v) for k, v in got.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in got.items()}
    return wall, cpu


def cases(quick: bool = False) -> list[Result]:
    import icepool

    repeat = 7 if quick else 21
    ck = _command()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        t, cpu = _times({
            "bare": [PY, "-c", "pass"],
            "dist": [PY, "-c", "import chancekit; chancekit.dist('3d6')"],
            "icepool": [PY, "-c", "import icepool; 3 @ icepool.d6"],
            "version": [*ck, "--version"],
            "help": [*ck, "--help"],
            "dist-help": [*ck, "dist", "--help"],
            "roll": [*ck, "roll", "3d6", "--seed", "1"],
            "stream": [*ck, "stream", "--seed", "1", "-n", "10"],
            "sample": [*ck, "sample", "--weights", "a=1,b=2", "-n", "5", "--seed", "1"],
            "cli-dist": [*ck, "dist", "3d6"],
            "explode": [PY, "-c",
                        "import chancekit; chancekit.dist('10d10!!kh5', dialect='roll20')"],
            "import": [PY, "-c", "import chancekit"],
        }, repeat, env)
    bare = t["bare"]
    out = [
        Result("cold", "python -c \"import chancekit; chancekit.dist('3d6')\"", t["dist"],
               f"icepool {icepool.__version__}: 3 @ icepool.d6", t["icepool"],
               "<= icepool's time", t["dist"] <= t["icepool"],
               f"CPU {cpu['dist'] * 1e3:.1f} ms vs {cpu['icepool'] * 1e3:.1f} ms"),
    ]
    for key, label in (("version", "chancekit --version"), ("help", "chancekit --help")):
        above, above_cpu = t[key] - bare, cpu[key] - cpu["bare"]
        out.append(Result("cold", f"{label} ({above * 1e3:.1f} ms wall, {above_cpu * 1e3:.1f} "
                          "ms CPU above bare Python)", t[key], "python -c pass", bare,
                          "<= 30 ms above bare (CPU)", above_cpu <= 0.030))
    for key, label in (("dist-help", "chancekit dist --help"),
                       ("roll", "chancekit roll 3d6 --seed 1"),
                       ("stream", "chancekit stream --seed 1 -n 10"),
                       ("sample", "chancekit sample --weights a=1,b=2 -n 5 (numpy: alias)"),
                       ("cli-dist", "chancekit dist 3d6"),
                       ("import", "python -c 'import chancekit'")):
        out.append(Result("cold", f"{label} ({(t[key] - bare) * 1e3:.1f} ms wall, "
                          f"{(cpu[key] - cpu['bare']) * 1e3:.1f} ms CPU above bare)",
                          t[key], "python -c pass", bare, "(report)", None))
    out.append(Result("cold", "first dist('10d10!!kh5', dialect='roll20') after import "
                      f"({(t['explode'] - t['import']) * 1e3:.1f} ms beyond the import)",
                      t["explode"], "python -c 'import chancekit'", t["import"], "(report)",
                      None))
    return out


if __name__ == "__main__":
    import run

    sys.exit(run.main(["cold", *sys.argv[1:]]))
