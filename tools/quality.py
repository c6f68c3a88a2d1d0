"""Statistical quality of PCG32 as chancekit produces it: ``dieharder -a`` on three sources.

    .venv/bin/python tools/quality.py                 # all three sources, full -a battery
    .venv/bin/python tools/quality.py raw --tests 0 1 # some sources / some dieharder tests
    .venv/bin/python tools/quality.py --report docs/quality-run.txt

Installs Debian's ``dieharder`` with apt-get if it is missing (root, as on this project's
machines). The sources, each streamed as raw little-endian 32-bit words on dieharder's
stdin (``-g 200``):

* ``raw``   — ``PCG32(42, 54)``: the reference-seeded raw stream;
* ``named`` — ``Streams(12345)["dwarvish-mines-1"]``: a derived named stream;
* ``interleaved`` — the bulk path over 16 named streams ``level-0`` … ``level-15``,
  interleaved word by word: any correlation *between* streams shows up here.

Words are produced with ``u32_array`` (the bulk path), which the test suite proves equal to
``next_u32`` word for word; the scalar path would take days to feed the battery.

WEAK results are re-run, as dieharder's documentation recommends, with another seed; a
test that FAILS makes the command exit 1. Results go to stdout and, with ``--report``, to a
file (the recorded one is summarised in docs/quality.md).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import threading
from typing import IO

SOURCES = ("raw", "named", "interleaved")


def words(source: str, seed_shift: int):
    import numpy as np

    from chancekit import PCG32, Streams

    if source == "raw":
        rng = PCG32(42 + seed_shift, 54)
        while True:
            yield rng.u32_array(1 << 20)
    elif source == "named":
        rng = Streams(12345 + seed_shift)["dwarvish-mines-1"]
        while True:
            yield rng.u32_array(1 << 20)
    else:
        store = Streams(12345 + seed_shift)
        gens = [store[f"level-{i}"] for i in range(16)]
        while True:
            block = np.stack([g.u32_array(1 << 16) for g in gens], axis=1)
            yield block.reshape(-1)


def feed(source: str, seed_shift: int, pipe: IO[bytes]) -> None:
    try:
        for chunk in words(source, seed_shift):
            pipe.write(chunk.astype("<u4").tobytes())
    except (BrokenPipeError, ValueError, OSError):
        pass


def run_dieharder(source: str, args: list[str], seed_shift: int = 0) -> str:
    proc = subprocess.Popen(["dieharder", "-g", "200", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=False)
    t = threading.Thread(target=feed, args=(source, seed_shift, proc.stdin), daemon=True)
    t.start()
    out = proc.stdout.read()  # not communicate(): that would close our feeding stdin
    proc.wait()
    return out.decode(errors="replace")


def parse(output: str) -> list[tuple[str, str, str, str]]:
    rows = []
    for line in output.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 6 and parts[5] in ("PASSED", "WEAK", "FAILED"):
            rows.append((parts[0], parts[1], parts[4], parts[5]))
    return rows


def ensure_dieharder() -> None:
    if shutil.which("dieharder"):
        return
    print("dieharder not found: installing Debian's package (apt-get)...", file=sys.stderr)
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "dieharder"], check=True)




def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sources", nargs="*", choices=[[], *SOURCES], default=[])
    ap.add_argument("--tests", nargs="*", type=int, help="dieharder test numbers (-d); "
                    "default: the whole battery (-a)")
    ap.add_argument("--report", help="also write the results to this file")
    args = ap.parse_args(argv)
    ensure_dieharder()
    sources = args.sources or list(SOURCES)
    lines: list[str] = []
    failed = False

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    for source in sources:
        say(f"## source: {source}")
        runs = [["-a"]] if not args.tests else [["-d", str(t)] for t in args.tests]
        results = []
        for extra in runs:
            results += parse(run_dieharder(source, extra))
        for name, ntup, p, verdict in results:
            say(f"{source:12s} {name:28s} ntup={ntup:3s} p={p:10s} {verdict}")
        weak = [r for r in results if r[3] == "WEAK"]
        for name, ntup, _, _ in weak:
            rerun = parse(run_dieharder(source, ["-d", name, "-n", ntup], seed_shift=1))
            for rname, rntup, p, verdict in rerun:
                if rntup == ntup or not rerun[1:]:
                    say(f"{source:12s} {rname:28s} ntup={rntup:3s} p={p:10s} {verdict}"
                        "  (re-run, another seed)")
                    failed |= verdict == "FAILED"
        failed |= any(r[3] == "FAILED" for r in results)
        counts = {v: sum(r[3] == v for r in results) for v in ("PASSED", "WEAK", "FAILED")}
        say(f"{source}: {counts}")
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
