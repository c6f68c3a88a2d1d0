"""How ``dist --approx`` and ``anydice --approx`` print a certified answer
(:class:`~chancekit.dice.certified.CertifiedDistribution`): the table of ``dist`` with
each probability's proven error bound beside it, and a line that says the answer is
certified, not exact, with its largest error bound and the mean's interval.
"""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing is loaded by type checkers only: a quick --help
if TYPE_CHECKING:
    from typing import Any

#: rows shown by default (the most likely ones; --all shows every outcome)
SHOWN = 100


def is_certified(d: Any) -> bool:
    from chancekit.dice.certified import CertifiedDistribution

    return isinstance(d, CertifiedDistribution)


def _bounded_rows(d: Any) -> list[tuple[Any, float, float, float, float]]:
    """(outcome, probability, lower, upper, error) of a certified or an exact answer:
    floats whose ``lower``/``upper`` are rounded outward from the proven (or exact) value;
    an exact answer's error is 0."""
    from chancekit.dice.certified import float_down, float_up

    if is_certified(d):
        return d.bounds()
    t = d.total
    return [(x, w / t, float_down(w, t), float_up(w, t), 0.0) for x, w in d.items()]


def _mean_fields(d: Any) -> dict[str, Any]:
    from fractions import Fraction

    from chancekit.dice.certified import fraction_down, fraction_up
    from chancekit.dice.distribution import _fraction_text
    from chancekit.errors import ChancekitError

    out: dict[str, Any] = {"mean": None, "mean_low": None, "mean_high": None}
    try:
        if is_certified(d):
            lo, hi = d.mean_bounds()
        else:
            lo = hi = Fraction(d.mean())
            out["mean"] = _fraction_text(lo)
    except (ChancekitError, TypeError, ValueError, ArithmeticError):
        return out  # outcomes that are not numbers: no mean
    out["mean_low"], out["mean_high"] = fraction_down(lo), fraction_up(hi)
    return out


def output_fields(label: str, d: Any, show_all: bool, *, outcome: Any = None,
                  many: int = 100, below: float = 1e-6) -> dict[str, Any]:
    """One answer of a ``chancekit.certified/1`` document (schema: ``SCHEMAS["certified"]``):
    certified or exact, its rows with proven float bounds and error, the rows hidden (as
    in ``dist --json``: past 100 outcomes those below 1e-6 and all but the
    ``MAX_SHOWN_ROWS`` most likely, unless ``--all``), and the mean's bounds.
    ``outcome`` writes an outcome for JSON (``cli._dice``'s, passed in by the caller:
    this module does not import it back); ``many``/``below``: its thresholds."""
    from chancekit.limits import MAX_SHOWN_ROWS

    _num = outcome or (lambda x: x)

    certified = is_certified(d)
    rows = _bounded_rows(d) if len(d) else []
    n = len(rows)
    shown = rows
    if not show_all and n > many:
        floor_p = min(below, max(r[1] for r in rows))
        shown = [r for r in rows if r[1] >= floor_p]
        if len(shown) > MAX_SHOWN_ROWS:
            floor = sorted((r[1] for r in shown), reverse=True)[MAX_SHOWN_ROWS - 1]
            shown = [r for r in shown if r[1] >= floor]
    # at least / at most from the probabilities shown over every outcome (floats)
    after = 0.0
    at_least = {}
    for x, p, *_ in reversed(rows):
        after += p
        at_least[x] = min(after, 1.0)
    before = 0.0
    out_rows = []
    keep = {r[0] for r in shown} if shown is not rows else None
    for x, p, lo, hi, err in rows:
        before += p
        if keep is None or x in keep:
            out_rows.append({"outcome": _num(x), "probability": p, "low": lo, "high": hi,
                             "error": err, "at_least": at_least[x],
                             "at_most": min(before, 1.0)})
    return {"label": label, "exact": not certified, "certified": certified,
            "bits": d.bits if certified else None,
            "max_error": d.max_error if certified else 0.0,
            "outcomes": out_rows, "hidden": n - len(out_rows), "count": n,
            **(_mean_fields(d) if n else {"mean": None, "mean_low": None,
                                          "mean_high": None})}


def print_certified_json(command: str, source: str, dialect: str | None,
                         answers: list[tuple[str, Any]], show_all: bool,
                         warnings: list[str], **rows: Any) -> None:
    """``dist --approx --json`` and ``anydice --approx --json`` when an answer is
    certified: one ``chancekit.certified/1`` document (not ``dist/2`` or ``anydice/1``,
    whose rows carry exact weights), ``"certified": true, "exact": false`` at the top,
    and each answer (``outputs``) certified or exact, every probability with its proven
    float bounds (``low``, ``high``) and its error bound."""
    from chancekit.cli._output import print_json

    outputs = [output_fields(label, d, show_all, **rows) for label, d in answers]
    print_json("certified", {
        "command": command, "source": source, "dialect": dialect,
        "exact": False, "certified": True,
        "max_error": max(o["max_error"] for o in outputs),
        "outputs": outputs, "warnings": warnings})


def show_certified(d: Any, title: str, args: argparse.Namespace) -> None:
    """Print ``d``'s table: outcome, probability (the interval's midpoint), its error
    bound, at least, at most (midpoints of their intervals), a bar; then the summary
    line. Past :data:`SHOWN` outcomes the most likely are shown unless ``--all``."""
    from chancekit.cli._output import bar, print_table
    from chancekit.dice.distribution import _label

    rows = d.rows()
    at_least, at_most, acc = [], [], 0.0
    for _, p, _, _ in rows:
        at_most.append(min(acc + p, 1.0))
        acc += p
    total = acc
    acc = 0.0
    for _, p, _, _ in reversed(rows):
        acc += p
        at_least.append(min(acc, 1.0))
    at_least.reverse()
    table = [(x, p, al, am) for (x, p, _, _), al, am in zip(rows, at_least, at_most,
                                                            strict=True)]
    hidden = 0
    if not getattr(args, "all", False) and len(table) > SHOWN:
        floor = sorted((r[1] for r in table), reverse=True)[SHOWN - 1]
        kept = [r for r in table if r[1] >= floor][:SHOWN]
        hidden = len(table) - len(kept)
        table = kept

    errors = d.errors()
    table = [(x, p, errors[x], al, am) for x, p, al, am in table]
    top = max((r[1] for r in table), default=0.0) or 1.0
    print_table(["outcome", "probability", "± bound", "at least", "at most", ""],
                [(_label(x), f"{100 * p:.10f}%", f"{100 * e:.1e}%", f"{100 * al:.4f}%",
                  f"{100 * am:.4f}%", bar(p / top, 30)) for x, p, e, al, am in table],
                title=title, align=["right", "right", "right", "right", "right", "left"])
    if hidden:
        print(f"({hidden} less likely outcomes hidden; --all shows them)")
    lo, hi = d.mean_bounds()
    print(f"certified, not exact: every probability within ±{d.max_error:.2g} of the value "
          f"shown ({d.bits}-bit interval arithmetic); mean in [{float(lo):.12g}, "
          f"{float(hi):.12g}]; {len(d)} outcomes, probabilities sum to {total:.12g}")
