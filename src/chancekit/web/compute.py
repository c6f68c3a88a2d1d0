"""The work behind each API endpoint, as plain functions of validated request dicts.

These run inside the worker processes of :mod:`chancekit.web.pool` (never on the event
loop). Each takes the request (already checked by :mod:`chancekit.web.app`) and a
``progress(done, total)`` callback, and returns a JSON-ready dict. Library mistakes raise
:class:`~chancekit.errors.ChancekitError`; :func:`error_body` turns one into the API's
error object. Only the public API is used (``chancekit.dist``, ``Distribution`` methods,
``TabletopTable``, ``chancekit.fair``, ``roll``, ``PCG32``, ``Streams``).

>>> out = dist_job({"expressions": [{"label": "", "text": "1d4"}]}, lambda d, t: None)
>>> [(r["label"], r["p_exact"]) for r in out["series"][0]["rows"]][:2]
[('1', '1/4'), ('2', '1/4')]
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import chancekit
from chancekit.errors import ChancekitError, InvalidValueError, LimitError, NotationError
from chancekit.limits import MAX_FRACTION_CHARS, MAX_ROWS
from chancekit.sampling import read_weight

#: ``progress(done, total)``, or ``progress(done, total, piece)`` to hand back a finished
#: piece of the result (kept if the job is stopped by the time limit later)
Progress = Callable[..., None]

#: outcomes of more than this many rows hide those below ``HIDE_BELOW`` (as the CLI does)
MANY_ROWS = 100
HIDE_BELOW = 1e-6
#: exact fractions are sent when the common denominator has at most this many bits
EXACT_BITS = 256
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


class JobError(Exception):
    """A failure to report as an HTTP error: ``status`` and the JSON ``body``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body


def error_body(exc: BaseException, **extra: Any) -> dict[str, Any]:
    """The API's error object for a library error: ``type``, ``message`` and, when they
    apply, ``problem``/``text``/``column`` (notation) and ``limit`` (work limits)."""
    body: dict[str, Any] = {"type": type(exc).__name__, "message": page_words(str(exc)),
                            "detail": str(exc)}
    if isinstance(exc, NotationError):
        body["problem"] = getattr(exc, "problem", None)
        body["text"] = getattr(exc, "text", None)
        body["column"] = getattr(exc, "column", None)
    if isinstance(exc, LimitError):
        body["limit"] = getattr(exc, "limit", None)
        if getattr(exc, "approx", False):  # a certified answer may be possible (approx)
            body["approx"] = True
    body.update(extra)
    return body


#: the library's advice for Python and the command line, in the pages' words (the API
#: answers people at a page: no ``--flag`` and no ``chancekit.f(...)`` in its messages)
_PAGE_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(a), b) for a, b in (
        (r"--? use --dialect (\w+)", r"-- choose \1 under Dialect"),
        (r"\(two_stage=True, --two-stage\)", "(tick Two-stage)"),
        (r": two_stage=True, --two-stage\)", ": tick Two-stage)"),
        (r"two_stage=True|--two-stage", "Two-stage"),
        (r"row_die=(\d+) \(--row-die \d+\)", r"a row die of d\1"),
        (r"--row-die (\d+)", r"a row die of d\1"),
        (r" \(chancekit fairness SPEC --trials K\)", " (Monte Carlo on this page)"),
        (r"build the distribution with chancekit\.d\(sides\) and the @ operator "
         r"\(n @ die\)", "estimate it with random rolls (Estimate)"),
        (r"estimate it by rolling many times(?! \()", "estimate it by rolling many times "
         "(Estimate)"),
        (r"estimate it with chancekit\.roll\(\.\.\.\) many times",
         "estimate it (Estimate: random rolls, with error bars)"),
        (r"(grid=\.\.\.)", "a coarser grid"),
        (r"use chancekit\.dist\(\.\.\.\) for the exact distribution instead",
         "the Dice page gives the exact distribution instead"),
        (r",? prune small states \(prune=[^)]*\),? or raise max_states", ""),
        (r"chancekit\.roll\(\.\.\.\)", "random rolls (Estimate)"),
        (r"approx=True \(--approx\) may answer it", "the Certified approximation button "
         "may answer it"),
    ))
_LEFT_OVER = re.compile(r" ?\([^()]*(?:--[a-z]|chancekit\.|\w=)[^()]*\)|--(?=[a-z])")


def page_words(message: str) -> str:
    """``message`` (a library error or note, written for Python and the command line) as
    a page says it: CLI flags and Python calls become the pages' controls.

    >>> page_words("use a larger row die, e.g. row_die=100 (--row-die 100)")
    'use a larger row die, e.g. a row die of d100'
    >>> page_words("keeps the 3 highest dice (mean 12.24) -- use --dialect roll20")
    'keeps the 3 highest dice (mean 12.24) -- choose roll20 under Dialect'
    """
    for pattern, repl in _PAGE_WORDS:
        message = pattern.sub(repl, message)
    return _LEFT_OVER.sub("", message)


def notes(text: str, dialect: str, variables: dict[str, Any] | None = None) -> list[str]:
    """The notes the CLI prints under a result when other dialects read ``text``
    differently (:func:`chancekit.dice.notation.ambiguities`), in the pages' words."""
    from chancekit.dice.notation import ambiguities

    return [page_words(line) for line in ambiguities(text, dialect, variables=variables)]


# -- JSON helpers ---------------------------------------------------------------------------
def finite(x: Any) -> float | None:
    """A float for JSON, or None when it is not finite or not a number."""
    try:
        f = float(x)
    except (TypeError, ValueError, OverflowError):
        return None
    return f if math.isfinite(f) else None


def fraction_text(q: Fraction) -> str | None:
    """``"3/16"``, ``"-7/2"``, ``"10"``; None when longer than :data:`MAX_FRACTION_CHARS`
    (never builds the text of a huge number: sizes are checked from the bit lengths)."""
    if q.numerator.bit_length() + q.denominator.bit_length() > 4 * MAX_FRACTION_CHARS:
        return None
    text = str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
    return text if len(text) <= MAX_FRACTION_CHARS else None


def outcome_value(x: Any) -> tuple[Any, str, float | None]:
    """(JSON value, label, numeric position or None) of an outcome; a tuple outcome (a
    :class:`~chancekit.dice.multiset.Vector`, RISK's losses, straights) is a list of the
    values of its elements (None as null), its label the tuple as text."""
    if isinstance(x, bool):
        return x, str(x).lower(), float(x)
    if isinstance(x, int):
        if x.bit_length() <= 53:
            return x, str(x), float(x)
        label = str(x) if x.bit_length() < 3000 else f"an integer of {x.bit_length()} bits"
        return label, label, finite(x)
    if isinstance(x, Fraction):
        label = fraction_text(x) or f"~{float(x):.6g}"
        return label, label, finite(x)
    if isinstance(x, tuple):  # a tuple outcome (a Vector of the pool algebra): a list
        label = str(x)[:200]
        return [None if y is None else outcome_value(y)[0] for y in x], label, None
    label = str(x)[:200]
    return label, label, None


# -- dice -----------------------------------------------------------------------------------
def dist_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Each expression's exact distribution, one series per expression."""
    from chancekit.dice.caps import fields as cap_fields
    from chancekit.dice.caps import note as cap_note

    dialect = req.get("dialect") or "avrae"
    variables = req.get("variables") or None  # Foundry's @name, Roll20's @{name} ?{name}
    series = []
    dists: list[Any] = []
    exprs = req["expressions"]
    for i, e in enumerate(exprs):
        t0 = time.perf_counter()
        try:
            if e["text"] == "_sleep_" and os.environ.get(TEST_HOOKS) == "1":
                sleep_job({"seconds": 60}, progress)  # test hook: outlasts any time limit
            d = chancekit.dist(e["text"], dialect=dialect, variables=variables,
                               approx=req.get("approx", False))
            s = describe_certified(d) if _certified(d) else describe(d)
        except ChancekitError as exc:
            body = error_body(exc, index=i, label=e.get("label", ""), expression=e["text"],
                              notes=notes(e["text"], dialect, variables))
            if series:  # the lines before it finished: the page still shows them
                body["partial"] = [{"index": j, "series": s} for j, s in enumerate(series)]
            raise JobError(422, body) from None
        certified = _certified(d)
        s.update(label=e.get("label") or e["text"], text=e["text"],
                 notes=notes(e["text"], dialect, variables) + (
                     s.pop("certified_note") if certified else cap_note(d, e["text"])),
                 caps=None if certified else cap_fields(d),  # explosions at their depth cap
                 elapsed_ms=round(1000 * (time.perf_counter() - t0), 3))
        series.append(s)
        dists.append(d)
        # each finished series goes back at once (but the last): if a later line hits
        # the time limit, the page still shows the lines that finished
        if i + 1 < len(exprs):
            progress(i + 1, len(exprs), {"index": i, "series": s})
        else:
            progress(i + 1, len(exprs))
    return {"series": series, "dialect": dialect,
            "comparisons": [compare(dists[0], d, 0, i) for i, d in enumerate(dists)
                            if i and not _certified(d) and not _certified(dists[0])]}


def estimate_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """A Monte Carlo **estimate** of each expression's distribution, for work the exact
    engine refuses: :func:`chancekit.dice.montecarlo.estimate` of line ``i`` from the
    seeded stream ``PCG32(seed, i)``, stopped early when ``budget_s`` seconds (the app
    gives half its time limit, shared by the lines) run out. Each outcome's frequency has
    a 95 % Wilson interval, the mean a 95 % normal interval (1.96 standard errors). The
    same seed and number of rolls give the same answer. O(samples x dice rolled)."""
    from chancekit.dice.montecarlo import estimate

    seed, want, dialect = req["seed"], req["samples"], req.get("dialect") or "avrae"
    variables = req.get("variables") or None
    exprs = req["expressions"]
    per_line = float(req.get("budget_s", 5.0)) / len(exprs)
    series = []
    for i, e in enumerate(exprs):
        t0 = time.perf_counter()
        try:
            est = estimate(e["text"], want, rng=chancekit.PCG32(seed, i), dialect=dialect,
                           seconds=per_line, variables=variables)
        except ChancekitError as exc:
            raise JobError(422, error_body(exc, index=i, label=e.get("label", ""),
                                           expression=e["text"])) from None
        rows = []
        for x in est.outcomes():
            value, label, pos = outcome_value(x)
            lo, hi = est.interval(x)
            rows.append({"outcome": value, "label": label, "x": pos, "count": est.counts[x],
                         "p": est.frequency(x), "lo": lo, "hi": hi})
        mean_lo, mean_hi = est.mean_interval()
        series.append({
            "label": e.get("label") or e["text"], "text": e["text"], "estimate": True,
            "seed": seed, "stream": i, "samples": est.samples, "requested": want,
            "complete": est.complete, "rows": rows, "outcomes": len(rows),
            "mean": finite(est.mean), "mean_se": finite(est.sd / math.sqrt(est.samples)),
            "mean_lo": finite(mean_lo), "mean_hi": finite(mean_hi), "sd": finite(est.sd),
            "min": rows[0]["label"], "max": rows[-1]["label"],
            "quantiles": {f"{q:g}": outcome_value(est.quantile(q))[1] for q in QUANTILES},
            "notes": notes(e["text"], dialect, variables),
            "elapsed_ms": round(1000 * (time.perf_counter() - t0), 3)})
        progress(i + 1, len(exprs))
    return {"series": series, "dialect": dialect, "seed": seed, "estimate": True,
            "method": f"Monte Carlo: up to {want:,} rolls of each line with chancekit.roll "
                      f"and PCG32({seed}, line); 95 % intervals"}


_DICE_TEXT = re.compile(r"\s*(\d{0,7})d(\d{1,9})\s*")


def _pool_dice(text: str) -> list[Any]:
    """``"5d6 2d8"`` -> seven dice (``chancekit.dice.d``); anything else is refused."""
    from chancekit.dice import d
    from chancekit.limits import MAX_POOL_DICE

    dice: list[Any] = []
    for part in text.split() or [""]:
        m = _DICE_TEXT.fullmatch(part)
        if not m:
            raise InvalidValueError("dice", part, "groups like 5d6 or d8, e.g. 5d6 2d8")
        n = int(m.group(1) or 1)
        if not 1 <= n <= MAX_POOL_DICE or len(dice) + n > MAX_POOL_DICE:
            raise InvalidValueError("dice", text, f"1 to {MAX_POOL_DICE} dice in all")
        dice += n * [d(int(m.group(2)))]
    return dice


def _pool_of(text: str) -> Any:
    """``"5d6"`` -> ``Pool(d(6), 5)``; mixed dice ("3d6 2d8") -> a pool of those items."""
    from chancekit.dice import Pool

    dice = _pool_dice(text)
    return Pool(dice[0], len(dice)) if len(set(dice)) == 1 else Pool.of(dice)


def _algebra_job(req: dict[str, Any]) -> tuple[Any, str]:
    """The pool algebra's presets and expression form (chancekit.dice.mechanics)."""
    from chancekit.dice import Pool, d
    from chancekit.dice.mechanics import evaluate_text, preset

    kind = req["kind"]
    if kind == "expr":
        pools = {name: _pool_of(text) for name, text in req["pools"].items()}
        named = " ".join(f"{k}={' '.join(v.split())}" for k, v in req["pools"].items())
        return evaluate_text(req["expression"], pools), f"{req['expression']} with {named}"
    if kind == "risk":
        a, b = req["action"], req["danger"]
        return (preset("risk", [Pool(d(6), a), Pool(d(6), b)], ties=req["ties"]),
                f"RISK: {a} attacking vs {b} defending (attacker losses, defender losses), "
                f"ties to the {req['ties']}")
    mine = _pool_of(req["dice"])
    text = " ".join(req["dice"].split())
    if kind in ("cancel", "face-to-face"):
        theirs = _pool_of(req["against"])
        other = " ".join(req["against"].split())
        if kind == "cancel":
            return (preset("cancel", [mine, theirs], success=req["success"],
                           match=req["match"]),
                    f"successes ({req['success']}+) of {text} left after {other} cancels "
                    f"(match {req['match']})")
        return (preset("face-to-face", [mine, theirs]),
                f"face to face: {text} vs {other} (successes of each)")
    if kind == "sets":
        wild = [int(w) for w in re.split(r"[\s,]+", req["wild"].strip()) if w]
        return (preset("sets", [mine], wild=wild),
                f"largest matching set of {text}" + (f", {req['wild']} wild" if wild else ""))
    if kind == "straights":
        return preset("straights", [mine]), f"all straights of {text}"
    return preset("poker", [mine]), f"poker hand of {text}"


def pool_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """The pool rules of :mod:`chancekit.dice.pool` and :mod:`chancekit.dice.symbols`,
    exactly, as one series (``describe``): ``largest-set`` / ``straight`` of ``dice``,
    ``nco`` (Neon City Overdrive, ``action`` vs ``danger`` d6), ``risk`` (``action``
    attackers vs ``danger`` defenders) and ``genesys`` (the net symbols of ``pool``, with
    the chance of success and of at least one of each symbol)."""
    from chancekit.dice import largest_set, longest_straight, neon_city_overdrive, risk_battle

    kind = req["kind"]
    extra: dict[str, Any] = {}
    if kind in ("largest-set", "straight"):
        dice = _pool_dice(req["dice"])
        d = (largest_set if kind == "largest-set" else longest_straight)(dice)
        title = f"{'largest set' if kind == 'largest-set' else 'longest straight'} of " \
                f"{' '.join(req['dice'].split())}"
    elif kind == "nco":
        d = neon_city_overdrive(req["action"], req["danger"])
        title = f"Neon City Overdrive: {req['action']} action vs {req['danger']} danger"
    elif kind == "risk" and req.get("ties", "defender") == "defender":
        d = risk_battle(req["action"], req["danger"])
        title = (f"RISK: {req['action']} attacking vs {req['danger']} defending "
                 "(attacker losses, defender losses)")
    elif kind in ("risk", "cancel", "face-to-face", "sets", "straights", "poker", "expr"):
        d, title = _algebra_job(req)
    else:
        from chancekit.dice.symbols import genesys, genesys_pool, project

        counts = genesys_pool(req["pool"])
        d = genesys(counts)
        names = sorted({k for s in d.outcomes() for k in s})
        success = project(d, "success").at_least(1)
        extra = {"success": finite(success), "success_exact": fraction_text(success),
                 "at_least_one": {k: finite(project(d, k).at_least(1)) for k in names},
                 "dice": counts}
        title = "net symbols of " + " ".join(f"{n} {k}" for k, n in counts.items())
    return {"kind": kind, "series": [{**describe(d), "label": title, "text": title}],
            **extra}


def compare(a: Any, b: Any, i: int, j: int) -> dict[str, Any]:
    """How far series ``j`` is from series ``i``: the Kolmogorov-Smirnov distance (null
    unless both have numeric outcomes) and the total variation distance, as floats and,
    when short, exact fractions."""
    from chancekit.dice.stats import ks_distance, tv_distance

    def numeric(d: Any) -> bool:
        return all(isinstance(x, int | float | Fraction) and not isinstance(x, bool)
                   for x in d.weights)

    ks = ks_distance(a, b) if numeric(a) and numeric(b) else None
    tv = tv_distance(a, b)
    return {"a": i, "b": j, "ks": None if ks is None else finite(ks),
            "ks_exact": None if ks is None else fraction_text(ks),
            "tv": finite(tv), "tv_exact": fraction_text(tv)}


def describe(d: Any) -> dict[str, Any]:
    """A distribution as the API sends it: rows (outcome, probability, at least, at most,
    each as a float and, when short, an exact fraction) and the summary statistics."""
    total = d.total
    n = len(d)
    hide = n > MANY_ROWS
    below = min(HIDE_BELOW, max(d.weights.values()) / total) if hide else 0.0
    shown = d.cumulative_float(below)
    exact = total.bit_length() <= EXACT_BITS
    cum: dict[Any, tuple[int, int]] = {}
    if exact:
        running = 0
        for x, w in d.items():
            running += w
            cum[x] = (w, running)
    shown = shown[:MAX_ROWS] if len(shown) > MAX_ROWS else shown
    rows = []
    for x, p, al, am in shown:
        value, label, pos = outcome_value(x)
        row: dict[str, Any] = {"outcome": value, "label": label, "x": pos, "p": p,
                               "ge": al, "le": am, "p_exact": None, "ge_exact": None,
                               "le_exact": None}
        if exact:
            w, c = cum[x]
            row["p_exact"] = fraction_text(Fraction(w, total))
            row["ge_exact"] = fraction_text(Fraction(total - c + w, total))
            row["le_exact"] = fraction_text(Fraction(c, total))
        rows.append(row)
    return {"rows": rows, "outcomes": n, "hidden": n - len(rows),
            "total_weight_bits": total.bit_length(), "exact": exact, **summary(d)}


def _certified(d: Any) -> bool:
    from chancekit.dice.certified import CertifiedDistribution

    return isinstance(d, CertifiedDistribution)


def describe_certified(d: Any) -> dict[str, Any]:
    """A certified answer (``approx``) as the API sends it: the rows of :func:`describe`
    with the interval's midpoint as ``p`` (``ge``/``le`` summed from the midpoints), no
    exact fractions, and ``p_low``/``p_high`` (the proven bounds, as floats) and
    ``error`` per row; the series says ``certified: true``, ``exact: false``,
    ``max_error``, and a note that it is certified, not exact. The mean is the
    midpoint of its proven interval (``mean_low``/``mean_high``); the other statistics
    are left out (None)."""
    # (p_low rounded down and p_high, error rounded up: float bounds that hold)
    rows_in = d.bounds()
    n = len(rows_in)
    total = sum(r[1] for r in rows_in)
    hide = n > MANY_ROWS
    below = min(HIDE_BELOW, max(r[1] for r in rows_in)) if hide else 0.0
    rows, acc = [], 0.0
    for x, p, lo, hi, err in rows_in:
        acc += p
        if p < below:
            continue
        value, label, pos = outcome_value(x)
        rows.append({"outcome": value, "label": label, "x": pos, "p": p,
                     "ge": min(total - acc + p, 1.0), "le": min(acc, 1.0), "p_exact": None,
                     "ge_exact": None, "le_exact": None, "p_low": lo, "p_high": hi,
                     "error": err})
    rows = rows[:MAX_ROWS]
    lo_m, hi_m = d.mean_bounds()
    from chancekit.dice.certified import fraction_down, fraction_up

    out: dict[str, Any] = {"mean": None, "mean_float": finite((lo_m + hi_m) / 2),
                           "mean_low": finite(fraction_down(lo_m)),  # rounded outward
                           "mean_high": finite(fraction_up(hi_m)), "sd": None,
                           "skewness": None, "kurtosis": None, "kurtosis_exact": None,
                           "min": None, "max": None, "quantiles": {}}
    outs = d.outcomes()
    if outs:
        out["min"] = outcome_value(outs[0])[1]
        out["max"] = outcome_value(outs[-1])[1]
    note = (f"certified, not exact: every probability within ±{d.max_error:.2g} of the "
            f"value shown ({d.bits}-bit interval arithmetic); the mean lies in "
            f"[{float(lo_m):.12g}, {float(hi_m):.12g}]")
    return {"rows": rows, "outcomes": n, "hidden": n - len(rows), "total_weight_bits": None,
            "exact": False, "certified": True, "max_error": d.max_error,
            "certified_note": [note], **out}


def summary(d: Any) -> dict[str, Any]:
    """Mean (exact and float), sd, skewness, excess kurtosis (float and, when short,
    exact), min, max and quantiles; None where they do not apply (outcomes that are
    labels; skewness and kurtosis of a constant). The moments come from one pass in
    integers (:func:`chancekit.dice.stats.shape`)."""
    from chancekit.dice.stats import shape

    out: dict[str, Any] = {"mean": None, "mean_float": None, "sd": None, "skewness": None,
                           "kurtosis": None, "kurtosis_exact": None, "min": None,
                           "max": None, "quantiles": {}}
    try:
        s = shape(d)
        out["mean"] = fraction_text(s["mean"])
        out["mean_float"] = finite(s["mean"])
        out["skewness"] = finite(s["skewness"])
        out["kurtosis"] = finite(s["kurtosis_float"])
        if s["kurtosis"] is not None:
            out["kurtosis_exact"] = fraction_text(s["kurtosis"])
        # False past SHAPE_WORK: sd, skewness, kurtosis are certified rounded floats
        out["moments_exact"] = s.get("exact", True)
        out["sd"] = finite(math.sqrt(s["variance"]))  # last: past 1e308 it raises
    except (ChancekitError, TypeError, ValueError, OverflowError, ArithmeticError):
        pass
    try:
        outs = d.outcomes()
        out["min"] = outcome_value(outs[0])[1]
        out["max"] = outcome_value(outs[-1])[1]
        out["quantiles"] = {f"{q:g}": outcome_value(d.quantile(Fraction(str(q))))[1]
                            for q in QUANTILES}
    except (ChancekitError, TypeError, ValueError, IndexError):
        out["quantiles"] = {}
    return out


# -- tabletop tables ------------------------------------------------------------------------
def parse_loot(text: str) -> dict[str, Fraction]:
    """``name=weight`` lines (``#`` comments and blank lines skipped; weights are integers,
    ``a/b`` or decimals, read exactly).

    >>> parse_loot("sword=5\\n# rare\\nshield = 1/2")
    {'sword': Fraction(5, 1), 'shield': Fraction(1, 2)}
    """
    out: dict[str, Fraction] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.rpartition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise InvalidValueError(f"loot line {no} ({line[:60]!r}) must look like "
                                    "name=weight, e.g. sword=5")
        if name in out:
            raise InvalidValueError(f"loot line {no}: {name[:60]!r} appears twice")
        if len(value) > 40:
            raise InvalidValueError(f"loot line {no}: the weight is too long (40 characters "
                                    "at most)")
        out[name] = read_weight(value, f"loot line {no}")
    if not out:
        raise InvalidValueError("the loot list is empty: write one name=weight per line, "
                                "e.g. sword=5")
    return out


def table_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """A tabletop table: rows, target vs realised, the accuracy report and the sheet in
    every format ``chancekit table --format`` writes."""
    dialect = req.get("dialect") or "avrae"
    source: Any = parse_loot(req["loot"]) if req["source"] == "loot" else (
        req["notation"] if dialect == "avrae" else chancekit.dist(req["notation"],
                                                                  dialect=dialect))
    title = req.get("title") or (req["notation"] if req["source"] == "notation" else "loot")
    two = bool(req.get("two_stage"))
    table = chancekit.TabletopTable.build(source, row_die=req["row_die"],
                                          check_die=req["check_die"], title=title,
                                          two_stage=two)
    real = table.realized().pmf()
    rep = table.report()
    outcomes = []
    for lab, target in table.target.items():
        value, label, pos = outcome_value(lab)
        got = real.get(lab, Fraction(0))
        outcomes.append({"outcome": value, "label": label, "x": pos,
                         "target": float(target), "target_exact": fraction_text(target),
                         "realized": float(got), "realized_exact": fraction_text(got),
                         "units": 0 if two else table.units.get(lab, 0)})

    def sheet_rows(t: Any) -> list[dict[str, Any]]:
        return [{"face": r.face, "outcome": None if r.outcome is None else outcome_value(
                    r.outcome)[1], "threshold": r.threshold,
                 "alias": None if r.alias is None else outcome_value(r.alias)[1]}
                for r in t.rows]

    # two stages: the first table picks a group (second table), each second table within
    stages = [] if not two else [
        {"title": t.title, "numbered": t.numbered, "rows": sheet_rows(t),
         "group": None if i == 0 else [outcome_value(x)[1] for x in table.groups[i - 1]]}
        for i, t in enumerate([table.first, *table.second])]
    return {
        "title": table.title, "row_die": table.row_die, "check_die": table.check_die,
        "two_stage": two, "stages": stages,
        "numbered": False if two else table.numbered, "rule": table.rule(),
        "rows": [] if two else sheet_rows(table), "outcomes": outcomes,
        "report": {"line": rep.line(), "mean": finite(rep.mean) if rep.mean is not None
                   else None,
                   "realized_mean": finite(rep.realized_mean)
                   if rep.realized_mean is not None else None,
                   "sd": finite(rep.sd), "realized_sd": finite(rep.realized_sd),
                   "max_error_points": finite(rep.max_error_points),
                   "total_variation": finite(rep.total_variation)},
        "formats": {"md": table.render("md"), "csv": table.render("csv"),
                    "text": table.render("text"), "html": table.render("html")},
        "dialect": dialect,
        "notes": notes(req["notation"], dialect) if req["source"] == "notation" else [],
    }


# -- fairness -------------------------------------------------------------------------------
def _floats(xs: Any) -> list[float | None]:
    return [finite(x) for x in xs]


def fairness_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Every metric of each system over the match, with the per-draw series."""
    from chancekit import fair

    out = []
    specs = req["systems"]
    for i, spec in enumerate(specs):
        try:
            system = fair.system_from_spec(spec, req["values"])
            if req["method"] == "montecarlo":
                m = fair.evaluate(system, req["samples"], method="montecarlo",
                                  trials=req["trials"], rng=chancekit.PCG32(req["seed"]))
            else:
                m = fair.evaluate(system, req["samples"])
        except ChancekitError as exc:
            raise JobError(422, error_body(exc, index=i, spec=spec)) from None
        series = {k: _floats(v) for k, v in m.series.items() if k != "p_gap"}
        out.append({"spec": spec, "summary": {k: finite(v) for k, v in m.summary.items()},
                    "se": {k: finite(v) for k, v in (m.se or {}).items()},
                    "series": series})
        progress(i + 1, len(specs))
    return {"values": req["values"], "samples": req["samples"], "method": req["method"],
            "trials": req["trials"] if req["method"] == "montecarlo" else None,
            "seed": req["seed"] if req["method"] == "montecarlo" else None, "systems": out}


_CANDIDATE_FIELDS = ("family", "spec", "unpredictability", "outcome_variance",
                     "min_unpredictability", "feasible", "rank", "variance_ratio",
                     "mid_match_variance_ratio", "end_effect")


def _candidate(c: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in _CANDIDATE_FIELDS:
        v = getattr(c, f, None)
        out[f] = finite(v) if isinstance(v, float) else v
    out["params"] = [finite(p) if isinstance(p, float) else p for p in c.params]
    return out


def tune_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``chancekit.fair.tune``: winners per family and the top of each ranking."""
    from chancekit import fair

    r = fair.tune(req["values"], req["samples"], req["min_entropy"],
                  systems=tuple(req["systems"]), floor=req["floor"], progress=progress)
    top = req.get("top", 10)
    return {"winners": {k: [_candidate(c) for c in v] for k, v in r.winners.items()},
            "tables": {k: [_candidate(c) for c in list(v)[:top]]
                       for k, v in r.tables.items()},
            "warnings": list(getattr(r, "warnings", []) or [])}


# -- rolls ----------------------------------------------------------------------------------
def roll_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Seeded rolls with the breakdown, and the named-stream demo."""
    seed, stream, text, n = req["seed"], req.get("stream"), req["text"], req["n"]
    if stream:
        rng = chancekit.Streams(seed)[stream]
    else:
        if not isinstance(seed, int):
            raise InvalidValueError("a text seed needs a named stream (give a stream name, "
                                    "or use a whole number as the seed)")
        rng = chancekit.PCG32(seed)
    dialect = req.get("dialect") or "avrae"
    rolls = [chancekit.roll(text, rng=rng, dialect=dialect).to_dict() for _ in range(n)]
    demo = []
    if req.get("streams"):
        streams = chancekit.Streams(seed)
        for name in req["streams"]:
            s = streams[name]
            demo.append({"stream": name,
                         "rolls": [chancekit.roll(text, rng=s, dialect=dialect).to_dict()
                                   ["total"]
                                   for _ in range(req["demo_n"])]})
    return {"text": text, "seed": seed, "stream": stream or None, "rolls": rolls,
            "streams": demo, "dialect": dialect, "notes": notes(text, dialect)}


def sleep_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Test hook (only routed with ``CHANCEKIT_WEB_TEST_HOOKS=1``): work that outlasts any
    time limit, so the time-limit and disconnect tests never depend on machine speed."""
    time.sleep(float(req.get("seconds", 60)))
    return {"slept": True}


# -- AnyDice programs ------------------------------------------------------------------------
#: the series of an output of the empty die ``d{}``: no rows, no figures
_EMPTY_SERIES = {"rows": [], "outcomes": 0, "hidden": 0, "total_weight_bits": 0, "exact": True,
                 "mean": None, "mean_float": None, "sd": None, "skewness": None,
                 "kurtosis": None, "kurtosis_exact": None, "min": None, "max": None,
                 "quantiles": {}}


def anydice_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``POST /api/anydice``: run ``req["program"]`` (:func:`chancekit.anydice.run_program`)
    and answer as :func:`dist_job` does: one series per ``output`` (label = the output's
    name), each later output's distance from the first (``comparisons``; outputs of the
    empty die ``d{}`` have no rows and none), and the program's ``warnings``. A program
    error is a 422 whose body adds ``line``, ``column``, ``token`` and ``source`` (the text
    of that line), so a page can place it.

    >>> out = anydice_job({"program": 'output [highest 1 of 2d4] named "best"'},
    ...                   lambda d, t: None)
    >>> [(r["label"], r["p_exact"]) for r in out["series"][0]["rows"]]
    [('1', '1/16'), ('2', '3/16'), ('3', '5/16'), ('4', '7/16')]
    """
    from chancekit.anydice import run_program

    program = req["program"]
    t0 = time.perf_counter()
    try:
        result = run_program(program, approx=req.get("approx", False))
        outputs = list(result.outputs)
        series = []
        certified_notes = []
        for i, (label, d) in enumerate(outputs):
            s = (describe_certified(d) if _certified(d) else describe(d) if len(d)
                 else dict(_EMPTY_SERIES))
            certified_notes += [f"{label}: {t}" for t in s.pop("certified_note", [])]
            s.update(label=str(label), text=str(label), index=i)
            series.append(s)
            progress(i + 1, len(outputs))
        first = outputs[0][1] if outputs and len(outputs[0][1]) else None
        comparisons = [compare(first, d, 0, i) for i, (_, d) in enumerate(outputs)
                       if i and first is not None and len(d) and not _certified(d)
                       and not _certified(first)]
    except ChancekitError as exc:
        raise JobError(422, error_body(exc, **_program_place(exc, program))) from None
    return {"series": series, "comparisons": comparisons,
            "warnings": certified_notes + [str(w) for w in result.warnings],
            "outputs": len(series),
            "run_ms": round(1000 * (time.perf_counter() - t0), 3)}


def _program_place(exc: BaseException, program: str) -> dict[str, Any]:
    """Where in the program an error is: ``line`` and ``column`` (1-based; null when the
    error has no place, e.g. a work limit), ``token``, and ``source``: the text of that
    line (at most 500 characters)."""
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    line = line if isinstance(line, int) and not isinstance(line, bool) else None
    column = column if isinstance(column, int) and not isinstance(column, bool) else None
    token = getattr(exc, "token", None)
    source = None
    if line is not None:
        lines = program.split("\n")
        if 1 <= line <= len(lines):
            source = lines[line - 1][:500]
    return {"line": line, "column": column,
            "token": None if token is None else str(token)[:200], "source": source}


# -- Markov processes ------------------------------------------------------------------------
def markov_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``POST /api/markov``: :func:`chancekit.web.markov.markov_job` (usage dice, HP
    races, a fairness system's first success); a refused input is a 422 whose error adds
    ``field`` and ``where`` (the page's words for the input)."""
    from chancekit.web.markov import InputError
    from chancekit.web.markov import markov_job as run

    try:
        return run(req, progress)
    except InputError as exc:
        body = error_body(exc.error, field=exc.field, where=exc.where)
        body["message"] = page_words(exc.message)
        raise JobError(422, body) from None


# -- gacha planning --------------------------------------------------------------------------
def gacha_job(req: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """``POST /api/gacha``: :func:`chancekit.markov.planning.plan` with the curves P(k
    copies by pull n), k = 1..copies (exact; no numpy). A float amount is read as the
    decimal it was written as."""
    from fractions import Fraction

    from chancekit.markov.planning import plan

    def amount(x: Any) -> Any:
        return None if x is None else Fraction(repr(float(x)))

    return plan(req["system"], value=req.get("value"), copies=req["copies"],
                pity=req.get("pity"), guaranteed=req.get("guaranteed", False),
                misses=req.get("misses"), pulls=req.get("pulls"),
                price=amount(req.get("price")), refund=amount(req.get("refund")) or 0,
                budget=amount(req.get("budget")), curve=True,
                refund_per={v: amount(a) for v, a in (req.get("refund_per") or {}).items()}
                or None)


def run_job(kind: str, request: dict[str, Any], progress: Progress
            ) -> tuple[int, dict[str, Any], float]:
    """``(status, result or error body, milliseconds)`` of one job: what the server's
    worker processes and the static site's worker both run, so their answers and errors
    are the same. A request's ``max_work`` is the work budget of the whole job, as the
    CLI's ``--max-work`` is of a command. A library error is a 422 (:func:`error_body`),
    anything unexpected a 500 without a traceback (printed to stderr: the server's log,
    the browser's console)."""
    import contextlib
    import sys
    import traceback

    from chancekit import limits

    t0 = time.perf_counter()
    max_work = request.pop("max_work", None)
    budget = (contextlib.nullcontext() if max_work is None
              else limits.evaluation(limit=max_work, name="MAX_WORK"))
    try:
        with budget:
            return 200, JOBS[kind](request, progress), 1000 * (time.perf_counter() - t0)
    except JobError as exc:
        status, body = exc.status, exc.body
    except ChancekitError as exc:
        status, body = 422, error_body(exc)
    except MemoryError:
        status, body = 422, {"type": "LimitError", "limit": "memory",
                             "message": "the computation ran out of memory"}
    except RecursionError:
        status, body = 422, {"type": "LimitError", "limit": "recursion",
                             "message": "the input is nested too deeply"}
    except Exception:
        traceback.print_exc(file=sys.stderr)
        status, body = 500, {"type": "InternalError",
                             "message": "internal error (logged by the server)"}
    return status, body, 1000 * (time.perf_counter() - t0)


#: the test hooks are routed only when this environment variable is "1"
TEST_HOOKS = "CHANCEKIT_WEB_TEST_HOOKS"

JOBS: dict[str, Callable[[dict[str, Any], Progress], dict[str, Any]]] = {
    "dist": dist_job,
    "estimate": estimate_job,
    "pool": pool_job,
    "anydice": anydice_job,
    "markov": markov_job,
    "gacha": gacha_job,
    "table": table_job,
    "fairness": fairness_job,
    "tune": tune_job,
    "roll": roll_job,
    "sleep": sleep_job,
}
