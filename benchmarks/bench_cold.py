"""Cold start (issue 22 goals): whole fresh processes, timed from outside (start to exit),
chancekit and its peer interleaved in the same run, the median of ``repeat`` runs each:

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


def _times(commands: dict[str, list[str]], repeat: int, env: dict[str, str]) -> dict:
    """Median wall time of each command, the commands interleaved run by run."""
    for argv in commands.values():  # warm: bytecode caches written, files in the page cache
        subprocess.run(argv, capture_output=True, env=env, check=True, timeout=120)
    got: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, env=env, check=True, timeout=120)
            got[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in got.items()}


def cases(quick: bool = False) -> list[Result]:
    import icepool

    repeat = 7 if quick else 21
    ck = _command()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        t = _times({
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
               "<= icepool's time", t["dist"] <= t["icepool"]),
    ]
    for key, label in (("version", "chancekit --version"), ("help", "chancekit --help")):
        above = t[key] - bare
        out.append(Result("cold", f"{label} ({above * 1e3:.1f} ms above bare Python)", t[key],
                          "python -c pass", bare, "<= 30 ms above bare", above <= 0.030))
    for key, label in (("dist-help", "chancekit dist --help"),
                       ("roll", "chancekit roll 3d6 --seed 1"),
                       ("stream", "chancekit stream --seed 1 -n 10"),
                       ("sample", "chancekit sample --weights a=1,b=2 -n 5 (numpy: alias)"),
                       ("cli-dist", "chancekit dist 3d6"),
                       ("import", "python -c 'import chancekit'")):
        out.append(Result("cold", f"{label} ({(t[key] - bare) * 1e3:.1f} ms above bare)",
                          t[key], "python -c pass", bare, "(report)", None))
    out.append(Result("cold", "first dist('10d10!!kh5', dialect='roll20') after import "
                      f"({(t['explode'] - t['import']) * 1e3:.1f} ms beyond the import)",
                      t["explode"], "python -c 'import chancekit'", t["import"], "(report)",
                      None))
    return out


if __name__ == "__main__":
    import run

    sys.exit(run.main(["cold", *sys.argv[1:]]))
