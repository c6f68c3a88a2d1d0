"""AnyDice conformance with ``approx=True`` (issue #31, item 7): every program of a corpus
run by ``chancekit.anydice.run(program, approx=True)`` in a worker process, each output
judged against AnyDice's own percentages.

    .venv/bin/python tools/anydice_approx.py ../shared/anydice/corpus-dev.jsonl
    .venv/bin/python tools/anydice_approx.py CORPUS --timeout 5 --report out.tsv --only 149bd,22432

The judge is the conformance one (../shared/anydice/conformance.py): same number of
outputs, every probability within 1e-8 percentage points of AnyDice's printed
percentage, done here inside the worker on exact Fractions (weights of a million digits
never pass through ``str()``). Exact outputs must have AnyDice's support. A certified
output (:class:`~chancekit.dice.certified.CertifiedDistribution`) matches when its error
bound is at most ``--max-error`` (1e-12 by default) per outcome and AnyDice's figure of
every outcome lies within 1e-8 pp of its proven interval (an outcome AnyDice leaves out
or prints as 0 counts as 0: its interval must reach within 1e-8 pp of 0; an outcome
AnyDice lists and chancekit proves impossible is a mismatch). An exact output whose
support differs from AnyDice's only at outcomes below 1e-8 pp, which AnyDice's floats
print as 0 or leave out, is a figures-match (the strict judge of conformance.py counts it
a mismatch). An output that fails only because AnyDice's own table does not sum to 100%
(its floats lost mass) and whose figures, divided by their sum, pass, is a
renormalised-match, reported apart from the strict matches (22432: AnyDice's highest of
ten million d6 sums to 1 - 2.3e-10). Buckets: exact-match, certified-match,
figures-match, renormalised-match, mismatch (with the first difference), our-error,
both-error, missed-error, timeout (past ``--timeout`` s
of wall time, 5 by default: AnyDice's own limit, then past 3 x ``--timeout`` in a
fresh worker; on a loaded machine give more and read the CPU seconds, the report's last
column), anydice-timeout (no reference);
AnyDice's known defects counted apart. Then ``approx: M/N match (P%) ... slowest S s
CPU`` and the CPU seconds per program AnyDice answers (median, 99th percentile, max, how
many past 5 s).
"""

from __future__ import annotations

import argparse
import json
import select
import subprocess
import sys
import time

WORKER = r'''
import json, sys, time
from fractions import Fraction
sys.setrecursionlimit(20000)
import chancekit
from chancekit.anydice import run, Empty
from chancekit.dice.certified import CertifiedDistribution
TOL = Fraction(1, 10**8)

def theirs(output):
    d = json.loads(output)["distributions"]
    out = []
    for arm in d["data"]:
        m = {}
        for o, p in arm:
            if o is None or p is None or p == 0:
                continue
            m[int(o)] = Fraction(repr(p))
        out.append(m)
    return out

def judge(outputs, output, max_error):
    """The strict judge; on a mismatch, the same judge on AnyDice's figures divided by
    their sum where a table's sum misses 100 by more than the tolerance (AnyDice's floats
    lost mass: 22432's highest of ten million d6 sums to 1 - 2.3e-10): a match then is
    'renormalised-match', never counted as a strict one."""
    tds = theirs(output)
    kind, why = judge_strict(outputs, tds, max_error)
    if kind != "mismatch":
        return kind, why
    sums = [sum(td.values()) for td in tds]
    if all(abs(x - 100) <= TOL for x in sums) or not all(sums):
        return kind, why
    scaled = [{k: v * 100 / x for k, v in td.items()} for td, x in zip(tds, sums)]
    again, _ = judge_strict(outputs, scaled, max_error)
    if again == "mismatch":
        return kind, why
    short = ", ".join(f"{float(100 - x):.3g}" for x in sums)
    return "renormalised-match", (f"{why}; AnyDice's tables miss 100% by {short} pp (its "
                                  "floats lost mass); divided by their sums they match")

def judge_strict(outputs, tds, max_error):
    if len(outputs) != len(tds):
        return "mismatch", f"{len(outputs)} outputs, AnyDice {len(tds)}"
    kind = "exact-match"
    for i, ((label, dist), td) in enumerate(zip(outputs, tds)):
        if isinstance(dist, Empty):
            if td:
                return "mismatch", f"output {i} empty, AnyDice has {len(td)} outcomes"
            continue
        if isinstance(dist, CertifiedDistribution):
            kind = "certified-match"
            if dist.max_error > max_error:
                return "mismatch", f"output {i} error bound {dist.max_error:.3g}"
            for k in set(td) - set(dist.outcomes()):
                return "mismatch", f"output {i}: AnyDice lists {k}, proven impossible"
            for k in dist.outcomes():
                lo, hi = dist.interval(k)
                t = td.get(k, Fraction(0))
                if not (lo * 100 - TOL <= t <= hi * 100 + TOL):
                    return "mismatch", (f"output {i} at {k}: AnyDice {float(t):.12g} pp, "
                                        f"proven [{float(lo * 100):.12g}, {float(hi * 100):.12g}]")
            continue
        tot = dist.total
        od = {k: Fraction(w * 100, tot) for k, w in dist.items()}
        if set(od) != set(td):
            extra = sorted(set(od) ^ set(td))
            if set(td) - set(od) or any(od[k] > TOL for k in extra):
                return "mismatch", f"output {i} support differs at {extra[:5]}"
            kind = "figures-match" if kind == "exact-match" else kind
        worst = max((abs(od[k] - td.get(k, 0)) for k in od), default=0)
        if worst > TOL:
            return "mismatch", f"output {i} off by {float(worst):.3g} pp"
    return kind, ""

for line in sys.stdin:
    req = json.loads(line)
    t = time.perf_counter()
    cpu = time.process_time()
    try:
        outputs = run(req["program"], approx=True, max_error=req["max_error"])
        ok, err = True, ""
    except Exception as e:
        ok, err = False, type(e).__name__ + ": " + str(e)[:200]
        clean = isinstance(e, chancekit.ChancekitError)
    s = time.perf_counter() - t
    cpu = time.process_time() - cpu
    out = req["output"]
    if out.startswith("{") and "distributions" in json.loads(out):
        if ok:
            try:
                b, why = judge(outputs, out, req["max_error"])
            except Exception as e:
                b, why = "mismatch", "unreadable: " + repr(e)[:100]
        else:
            b, why = "our-error", err
    elif out.startswith("{"):
        b, why = ("both-error", "") if not ok else ("missed-error", "AnyDice reports an error")
    else:
        b, why = "anydice-timeout", ""
    sys.stdout.write(json.dumps({"bucket": b, "why": why, "s": s, "cpu": cpu}) + "\n")
    sys.stdout.flush()
'''


class Worker:
    def __init__(self) -> None:
        self.p: subprocess.Popen[str] | None = None

    def ask(self, req: dict[str, object], timeout: float) -> dict[str, object] | None:
        if self.p is None or self.p.poll() is not None:
            self.p = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True)
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            self.p.kill()
            self.p.wait()
            self.p = None
            return None
        line = self.p.stdout.readline()
        if not line:
            self.p = None
            return {"bucket": "died", "why": "the worker died", "s": None}
        return json.loads(line)

    def close(self) -> None:
        if self.p is not None:
            self.p.kill()
            self.p.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--max-error", type=float, default=1e-12)
    ap.add_argument("--report")
    ap.add_argument("--only", help="comma-separated program ids")
    args = ap.parse_args(argv)
    rows = [json.loads(x) for x in open(args.corpus)]
    if args.only:
        keep = set(args.only.split(","))
        rows = [r for r in rows if r["id"] in keep]
    w = Worker()
    counts: dict[str, int] = {}
    lines, slowest = [], (0.0, "")
    cpu_of: dict[str, float | None] = {}
    t0 = time.time()
    try:
        for row in rows:
            req = {"program": row["program"], "output": row["output"] or "",
                   "max_error": args.max_error}
            start = time.perf_counter()
            res = w.ask(req, args.timeout)
            retried = ""
            if res is None:  # a loaded machine: once more in a fresh worker, more time
                res = w.ask(req, 3 * args.timeout)
                retried = f" (retried: past {args.timeout} s of wall time at first)"
            wall = time.perf_counter() - start
            cpu = None
            if res is None:
                b, why = "timeout", f"> {args.timeout} s, then > {3 * args.timeout} s"
            else:
                b, why = str(res["bucket"]), str(res["why"]) + retried
                cpu = res.get("cpu")
                if b not in ("anydice-timeout", "both-error", "missed-error") and \
                        cpu is not None:
                    slowest = max(slowest, (float(cpu), row["id"]))
                    cpu_of[row["id"]] = float(cpu)
            if row.get("bug"):
                b = "anydice-bug:" + b
            counts[b] = counts.get(b, 0) + 1
            lines.append(f"{row['id']}\t{b}\t{why}\t{wall:.3f}\t{cpu}")
            if (b in ("certified-match", "figures-match", "mismatch", "timeout", "our-error",
                      "renormalised-match")
                    or (cpu or 0) > 1):
                print(f"{row['id']}\t{b}\t{why}\twall {wall:.2f} s\tcpu {cpu or 0:.2f} s",
                      flush=True)
    finally:
        w.close()
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(lines) + "\n")
    judged = sum(v for k, v in counts.items()
                 if not k.startswith("anydice-bug") and k != "anydice-timeout")
    ok = counts.get("exact-match", 0) + counts.get("certified-match", 0) + counts.get(
        "figures-match", 0) + counts.get("both-error", 0)
    renorm = counts.get("renormalised-match", 0)
    answered = sum(v for k, v in counts.items() if k not in (
        "anydice-timeout", "both-error", "missed-error") and not k.startswith("anydice-bug"))
    cpus = sorted(c for c in cpu_of.values() if c is not None)
    print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    print(f"approx: {ok}/{judged} match ({100 * ok / max(judged, 1):.1f}%), certified "
          f"{counts.get('certified-match', 0)}, figures {counts.get('figures-match', 0)}, "
          f"renormalised {renorm} (AnyDice's own float mass loss; {ok + renorm}/{judged} "
          f"with them), slowest {slowest[0]:.2f} s CPU ({slowest[1]}), "
          f"{time.time() - t0:.0f} s in all")
    if cpus:
        over = sum(1 for c in cpus if c > 5)
        print(f"CPU per program AnyDice answers ({answered}): median "
              f"{cpus[len(cpus) // 2]:.3f} s, 99th percentile "
              f"{cpus[min(len(cpus) - 1, len(cpus) * 99 // 100)]:.2f} s, max {cpus[-1]:.2f} s; "
              f"{over} past 5 s; timeouts {counts.get('timeout', 0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
