"""``chancekit audit``: test a pull log (CSV or JSON) against published rates, exactly."""

from __future__ import annotations

import argparse

from chancekit.limits import MAX_LOG_BYTES

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: the column names a CSV log's value column may have (a header line)
_HEADERS = {"value", "rarity", "result", "item", "pull", "name", "outcome", "drop"}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``audit`` to ``sub``."""
    p = sub.add_parser(
        "audit",
        help="test a pull log against published drop rates (exact p-values, intervals)",
        description="Test observed pulls against published rates (chancekit.fair.audit_counts"
        " / audit_log, docs/planning.md): with --rates, the exact binomial (two values) or "
        "multinomial test of the counts; with --system, the exact chain of a pity system "
        "(the rare count in that many pulls, the gaps between rares, impossible pulls). "
        "Prints a verdict in words, the exact p-value and each value's exact 95 % "
        "(Clopper-Pearson) interval.\n\n"
        "FILE: CSV with one pull a line (the first column, or a column named value), or "
        "value,count lines; JSON: a list of values, {\"pulls\": [...]} or {\"counts\": "
        "{value: count}}; - reads standard input.",
        epilog="examples:\n"
        "  chancekit audit pulls.csv --rates 5-star=0.006,4-star=0.051,3-star=0.943\n"
        "  chancekit audit --counts 5-star=2,4-star=19,3-star=279 --rates "
        "5-star=0.006,4-star=0.051,3-star=0.943\n"
        "  chancekit audit pulls.json --system gacha:0.006,74,0.06,90\n"
        "  chancekit audit pulls.csv --system gacha:0.006,74,0.06,90 --pity 12 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", nargs="?", default=None,
                   help="the pull log (CSV or JSON; - for standard input)")
    p.add_argument("--counts", default=None,
                   help="counts instead of a file: value=count,... (with --rates)")
    p.add_argument("--rates", default=None,
                   help="published chances: value=chance,... (adding up to 1)")
    p.add_argument("--system", default=None,
                   help="the published system as a fairness spec (gacha:0.006,74,0.06,90)")
    p.add_argument("--pity", default=None,
                   help="--system: pulls since the last rare when the log starts")
    p.add_argument("--guaranteed", action="store_true",
                   help="--system: the log starts after a lost 50/50")
    p.add_argument("--misses", default=None, help="--system: fate points at the start")
    p.add_argument("--rare", default=None,
                   help="--system: the values counted as rares, comma separated (default: "
                   "all but common, or True)")
    p.add_argument("--level", default="0.01", help="the verdict's level (default 0.01)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run_audit)


def read_log(text: str, where: str) -> tuple[list[str] | None, dict[str, int] | None]:
    """(values, counts) from a log's text: exactly one of them is given."""
    import csv
    import io
    import json

    from chancekit.errors import InvalidValueError

    stripped = text.strip()
    if not stripped:
        raise InvalidValueError(where, "(empty)", "a pull log: CSV lines or JSON")
    if stripped[0] in "[{":
        try:
            data = json.loads(stripped)
        except ValueError as e:
            raise InvalidValueError(where, stripped[:40], f"JSON ({e})") from None
        if isinstance(data, dict):
            if isinstance(data.get("counts"), dict):
                return None, _counts(data["counts"].items(), where)
            data = data.get("pulls")
        if not isinstance(data, list):
            raise InvalidValueError(where, stripped[:40], "a JSON list of values, "
                                    "{\"pulls\": [...]} or {\"counts\": {...}}")
        return [_label(x) for x in data], None
    rows = [r for r in csv.reader(io.StringIO(stripped)) if r and any(c.strip() for c in r)]
    head = [c.strip().lower() for c in rows[0]]
    col = 0
    named = [i for i, c in enumerate(head) if c in _HEADERS]
    if named or "count" in head:
        col = named[0] if named else 0
        if "count" in head:
            k = head.index("count")
            return None, _counts(((r[col].strip(), r[k].strip()) for r in rows[1:]), where)
        rows = rows[1:]
    if all(len(r) == 2 and r[1].strip().isdigit() for r in rows):
        return None, _counts(((r[0].strip(), r[1].strip()) for r in rows), where)
    return [r[col].strip() if col < len(r) else "" for r in rows], None


def _label(x: Any) -> str:
    return x if isinstance(x, str) else str(x)


def _counts(pairs: Any, where: str) -> dict[str, int]:
    from chancekit.cli._common import parse_int_text
    from chancekit.errors import InvalidValueError

    out: dict[str, int] = {}
    for value, count in pairs:
        n = count if isinstance(count, int) and not isinstance(count, bool) else \
            parse_int_text(f"{where}: the count of {value!r}", str(count))
        if n is None or n < 0:
            raise InvalidValueError(f"{where}: the count of {value!r}", count,
                                    "an integer >= 0")
        out[_label(value)] = out.get(_label(value), 0) + n
    return out


def run_audit(args: argparse.Namespace) -> int:
    import os
    import sys
    from collections import Counter

    from chancekit.cli._gacha import _amount, _int
    from chancekit.cli._output import print_json, print_table
    from chancekit.errors import InvalidValueError, LimitError
    from chancekit.fair import audit_counts, audit_log
    from chancekit.fair.spec import system_from_spec
    from chancekit.markov.planning import state_of
    from chancekit.sampling import parse_weights

    if (args.file is None) == (args.counts is None):
        raise InvalidValueError("FILE/--counts", args.file, "a pull log FILE or --counts "
                                "value=count,... (one of them)")
    if args.counts is not None:
        text = "\n".join(part.replace("=", ",", 1) for part in args.counts.split(","))
        if any("=" not in part for part in args.counts.split(",")):
            raise InvalidValueError("--counts", args.counts, "value=count pairs, e.g. "
                                    "5-star=2,4-star=19")
    elif args.file == "-":
        text = sys.stdin.read(MAX_LOG_BYTES + 1)
    else:
        try:
            size = os.stat(args.file).st_size
        except OSError:
            size = 0  # the open below says why
        if size > MAX_LOG_BYTES:  # refused before it is read
            raise LimitError(f"the log {args.file} has {size:,} bytes, more than "
                             f"MAX_LOG_BYTES = {MAX_LOG_BYTES:,}; audit its counts "
                             "(--counts) or a part of it", limit="MAX_LOG_BYTES",
                             value=size)
        try:
            with open(args.file, encoding="utf-8") as f:
                text = f.read(MAX_LOG_BYTES + 1)
        except OSError as e:
            raise InvalidValueError("FILE", args.file, f"a readable file ({e.strerror})"
                                    ) from None
        except UnicodeDecodeError:
            raise InvalidValueError("FILE", args.file, "a UTF-8 text file (CSV or JSON)"
                                    ) from None
    if len(text) > MAX_LOG_BYTES:
        raise LimitError(f"the log {args.file} is longer than MAX_LOG_BYTES = "
                         f"{MAX_LOG_BYTES:,}; audit its counts (--counts) or a part of it",
                         limit="MAX_LOG_BYTES", value=len(text))
    where = args.file or "--counts"
    values, counts = read_log(text, where)
    level = _amount(args.level, "--level")
    if (args.rates is None) == (args.system is None):
        raise InvalidValueError("--rates/--system", None, "one of --rates (published "
                                "chances) or --system (a published pity system)")
    if args.system is not None:
        if values is None:
            raise InvalidValueError("FILE", args.file, "a pull log in order (one pull a "
                                    "line) for --system; counts need --rates")
        system = system_from_spec(args.system, 2)
        state = state_of(system, _int(args.pity, "--pity"), args.guaranteed,
                         _int(args.misses, "--misses"))
        rare = None if args.rare is None else [
            {"true": True, "false": False}.get(x.strip().lower(), x.strip())
            if x.strip() not in system.values else x.strip() for x in args.rare.split(",")]
        result = audit_log(system, values, state=state, rare=rare, level=level)
    else:
        rates = parse_weights(args.rates)
        if counts is None:
            counts = dict(Counter(values or []))
        result = audit_counts(counts, rates, level=level)
    if args.json:
        print_json("audit", {"file": where, "system": args.system, **result.to_dict()})
        return 0
    print(result.verdict)
    print(f"test: {result.test}; {result.pulls:,} pulls; p = {float(result.p_value):.6g}")
    for name, p in result.tests.items():
        if len(result.tests) > 1:
            print(f"  {name}: p = {float(p):.6g}")
    rows = []
    for v, (lo, hi) in result.intervals.items():
        seen = result.observed.get(v)
        exp = result.expected.get(v)
        rows.append([str(v), "" if seen is None else f"{seen:,}",
                     "" if exp is None else f"{float(exp):.2f}",
                     f"{100 * float(lo):.4f}% .. {100 * float(hi):.4f}%"])
    print_table(["value", "observed", "expected", "95% interval (exact)"], rows,
                align=["left", "right", "right", "left"])
    return 0
