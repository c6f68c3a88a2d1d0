"""Tuning: the parameters of each system with the least unfairness at a given
unpredictability.

:func:`tune` evaluates every candidate of a grid (default: the published one) exactly on the
count lattice — a whole family in one vectorised sweep — and ranks them. Candidates can be
farmed out to any :class:`concurrent.futures.Executor` (a process pool, or a Dask
``distributed.Client.get_executor()`` pointing at a cluster).

Robust tuning: ``samples`` may be a range or a distribution of match lengths
(``range(20, 41)``, a list, or ``{length: weight}``); the objective is then the expected
outcome variance over the lengths, and the entropy floor holds either on average over the
lengths (``floor="average"``) or at every length (``floor="every"``). One exact sweep to the
longest length gives every shorter length for free (the series are prefixes).

Work: every chunk's sweep is estimated (:func:`~chancekit.fair.exact.lattice_estimate`)
and checked against ``max_states``, ``MAX_LAYER_CELLS`` and
:data:`~chancekit.fair.work.MAX_FAIR_WORK` (the total over all chunks) *before* the first
sweep starts, so a search that cannot finish in about a second is refused at once.

End effects: a candidate can be fair at exactly the match length and much less so before
(a deck nearly used up at draw N). Each candidate carries ``variance_ratio`` (outcome
variance at the length N over that of N independent draws, ``N(n-1)/n**2``) and
``mid_match_variance_ratio`` (its outcome variance *averaged over t = 1..N*, over the same
``N(n-1)/n**2``). A die scores 1 and about 0.5; a self-correcting system's variance levels
off, so its average is below its end value. A winner whose end value is more than
:data:`END_EFFECT_FACTOR` (2) times better than its average over the match — fair only if
the match ends exactly then — is listed in ``TuneResult.warnings`` (``end_effect``). With a
range of lengths both figures are weighted over the lengths.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

from chancekit._numpy import require as _require_numpy
from chancekit._validate import require_int
from chancekit.errors import ChancekitError, InvalidTypeError, InvalidValueError
from chancekit.fair import work as _work
from chancekit.fair.exact import (
    MAX_LAYER_CELLS,
    MAX_STATES,
    _box_counts,
    _check_lattice,
    evaluate_exact,
    evaluate_exact_batch,
    generic_estimate,
)
from chancekit.fair.metrics import independent_variance
from chancekit.fair.studio import (
    AimAssist,
    GachaPity,
    LuckyStreak,
    TwoRollHit,
)
from chancekit.fair.systems import (
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    System,
    _require_n,
)

__all__ = ["FAMILIES", "STUDIO_FAMILIES", "Candidate", "TuneResult", "published_grid",
           "studio_grid", "tune"]

#: the system families :func:`tune` knows, and how a parameter tuple builds one
FAMILIES: dict[str, Callable[..., System]] = {
    "dice": lambda n: Dice(n),
    "deck": lambda n: Deck(n),
    "generalized-deck": lambda n, s, r: GeneralizedDeck(n, s, r),
    "dynamic-dice": lambda n, f: DynamicDice(n, f),
}



def _sure_try(chance: Callable[[int], float], guess: float, cap: int | None) -> float:
    """The first try k (since the last success) whose chance is 1: searched upwards from
    a little below ``guess`` (the closed form, which float rounding may miss by one), at
    most ``cap``; ``inf`` when the chance never reaches 1."""
    if cap is None and not math.isfinite(guess):
        return math.inf
    k = max(1, int(min(guess, cap or guess)) - 2)
    while chance(k) < 1.0:
        k += 1
        if cap is not None and k >= cap:
            return float(cap)
        if k > guess + 3:
            return math.inf
    return float(k)


def _gacha_worst(g: GachaPity) -> float:
    p = g._pity
    guess = (p.soft_start - 1 + (1.0 - p.base) / p.ramp
             if p.soft_start is not None and p.ramp > 0 else math.inf)
    return _sure_try(p.chance, guess if p.hard is None else min(guess, p.hard), p.hard)


def _aim_worst(a: AimAssist) -> float:
    if a.cap < 1.0 or a.step == 0.0:
        return math.inf
    return _sure_try(a.chance, 1 + (1.0 - a.base) / a.step, None)


@dataclass(frozen=True)
class _Studio:
    """A studio family :func:`tune` knows: ``build(*params)``, its fixed number of values,
    how many parameters a grid entry has (lowest, highest), what they are, and — for the
    hit/miss families (value 0 is the miss, every other value a success) — the long-run
    success rate, the worst case (the try that surely succeeds, ``inf`` if none) and an
    upper bound on the (``getstate()``, current drought) pairs after t draws, for the
    drought walk's up-front estimate."""

    build: Callable[..., System]
    n: int
    arity: tuple[int, int]
    params: str
    rate: Callable[[Any], float] | None = None
    worst: Callable[[Any], float] | None = None
    drought_bound: Callable[[Any, int], float] | None = None


#: the studio families :func:`tune` knows (:mod:`chancekit.fair.studio`); a grid entry is
#: the spec's positional parameters, so ``Candidate.spec`` is a spec string that
#: ``system_from_spec`` reads back (``gacha:0.006,74,0.06,90``)
STUDIO_FAMILIES: dict[str, _Studio] = {
    "gacha": _Studio(
        lambda base, soft, ramp, hard, featured=0.5: GachaPity(
            base, soft_start=soft, ramp=ramp, hard=hard, featured=featured),
        3, (4, 5), "(base, soft_start, ramp, hard[, featured])",
        rate=lambda g: g.rare_rate(), worst=_gacha_worst,
        drought_bound=lambda g, t: 2.0 * min(t + 1, _gacha_worst(g))),
    "aim-assist": _Studio(
        lambda base, step, cap=1.0: AimAssist(base, step, cap), 2, (2, 3),
        "(base, step[, cap])", rate=lambda a: a.target()[1], worst=_aim_worst,
        drought_bound=lambda a, t: min(t + 1, _aim_worst(a))),
    "lucky-streak": _Studio(
        lambda p, cap: LuckyStreak(p, cap), 2, (2, 2), "(p, cap)",
        rate=lambda s: s.target()[1], worst=lambda s: math.inf,
        drought_bound=lambda s, t: (s.cap + 1.0) * (t + 1)),
    "two-roll": _Studio(
        lambda displayed: TwoRollHit(displayed), 2, (1, 1), "(displayed,)",
        rate=lambda s: float(s.real), worst=lambda s: math.inf,
        drought_bound=lambda s, t: t + 1.0),
}
for _name, _fam in STUDIO_FAMILIES.items():
    FAMILIES[_name] = (lambda b: lambda n, *p: b(*p))(_fam.build)

#: the objectives :func:`tune` ranks by: outcome variance (over independent draws' for the
#: studio families), or the expected longest drought (hit/miss families)
OBJECTIVES = ("variance", "drought")

_TIE_RTOL = 1e-9

#: a winner is flagged when its outcome variance at the match length is below its average
#: over the match divided by this (it is fair only if the match ends exactly then)
END_EFFECT_FACTOR = 2.0


def published_grid() -> dict[str, list[tuple[Any, ...]]]:
    """The published search grid: s, r in 1..10 for the generalized deck and f = 0.005,
    0.015, ..., 0.995 for dynamic dice (200 candidates); dice and deck as single points.

    >>> g = published_grid()
    >>> len(g["generalized-deck"]), len(g["dynamic-dice"]), g["dynamic-dice"][35]
    (100, 100, (0.355,))
    """
    return {
        "dice": [()],
        "deck": [()],
        "generalized-deck": [(s, r) for s in range(1, 11) for r in range(1, 11)],
        "dynamic-dice": [(round(0.005 + 0.01 * k, 3),) for k in range(100)],
    }


def studio_grid() -> dict[str, list[tuple[Any, ...]]]:
    """The default grids of the studio families (docs/fair.md, "Tuning the studio
    systems"): gacha — a short banner, base 0.02, soft pity from pull 8, 10 or 12, ramp
    0.05, 0.1 or 0.2, hard pity 15 or 20 (18 candidates); aim assist — XCOM's displayed 65 %,
    step 0 to 0.2 by 0.05, cap 0.9, 0.95 or 1 (15); lucky streak — p 0.1 to 0.5 by 0.1,
    cap 1 to 4 (20); two-roll — displayed 5 to 95 by 5 (19).

    >>> g = studio_grid()
    >>> len(g["gacha"]), len(g["aim-assist"]), len(g["lucky-streak"]), g["two-roll"][13]
    (18, 15, 20, (70,))
    """
    return {
        "gacha": [(0.02, soft, ramp, hard) for soft in (8, 10, 12) for ramp in (0.05, 0.1, 0.2)
                  for hard in (15, 20)],
        "aim-assist": [(0.65, step, cap) for step in (0.0, 0.05, 0.1, 0.15, 0.2)
                       for cap in (0.9, 0.95, 1.0)],
        "lucky-streak": [(round(0.1 * k, 1), cap) for k in range(1, 6) for cap in range(1, 5)],
        "two-roll": [(d,) for d in range(5, 100, 5)],
    }


@dataclass(frozen=True)
class Candidate:
    """One evaluated parameter set. ``unpredictability`` and ``outcome_variance`` are the
    tuning figures (averaged over the match-length distribution when robust);
    ``min_unpredictability`` is the lowest over the lengths; ``feasible`` says whether the
    entropy floor holds; ``rank`` is 1 for the best (ties share a rank);
    ``variance_ratio`` and ``mid_match_variance_ratio`` are the outcome variance at the length
    and averaged over the match, both over independent draws' at the length (see the module
    docstring, "End effects"). Hit/miss studio families (``gacha``, ``aim-assist``,
    ``lucky-streak``, ``two-roll``) also carry ``long_run_rate`` (of successes: rares for
    gacha), ``worst_case`` (the try since the last success that surely succeeds: the hard
    pity; ``inf`` when none does) and ``longest_drought`` (the expected longest run of
    misses in the match, start and end runs included); ``nan`` for the other families."""

    family: str
    params: tuple[Any, ...]
    unpredictability: float
    outcome_variance: float
    min_unpredictability: float
    feasible: bool
    rank: int = 0
    variance_ratio: float = math.nan
    mid_match_variance_ratio: float = math.nan
    long_run_rate: float = math.nan
    worst_case: float = math.nan
    longest_drought: float = math.nan

    @property
    def end_effect(self) -> bool:
        """True when the outcome variance at the length is below its average over the
        match divided by :data:`END_EFFECT_FACTOR`: fair at the end only.

        >>> r = tune(4, 30, 0.9, systems=("generalized-deck",), grid={
        ...     "generalized-deck": [(8, 1)]})
        >>> c = r.winners["generalized-deck"][0]
        >>> round(c.variance_ratio, 3), round(c.mid_match_variance_ratio, 3), c.end_effect
        (0.065, 0.194, True)
        """
        return self.variance_ratio * END_EFFECT_FACTOR < self.mid_match_variance_ratio

    @property
    def spec(self) -> str:
        """The system spec string (``"dynamic-dice:0.355"``)."""
        return self.family + (":" + ",".join(str(p) for p in self.params) if self.params
                              else "")

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "params": list(self.params), "spec": self.spec,
                "unpredictability": self.unpredictability,
                "outcome_variance": self.outcome_variance,
                "min_unpredictability": self.min_unpredictability,
                "feasible": self.feasible, "rank": self.rank,
                "variance_ratio": self.variance_ratio,
                "mid_match_variance_ratio": self.mid_match_variance_ratio,
                "end_effect": self.end_effect, "long_run_rate": self.long_run_rate,
                "worst_case": self.worst_case, "longest_drought": self.longest_drought}


@dataclass(frozen=True, repr=False)
class TuneResult:
    """What :func:`tune` found. ``winners[family]`` lists the best feasible candidates (more
    than one only on a tie, within a relative 1e-9); ``tables[family]`` ranks every candidate:
    feasible ones by the objective (outcome variance; for the studio families
    ``variance_ratio``, or ``longest_drought`` with ``objective="drought"``), then the
    infeasible ones by unpredictability. ``rate``, ``rate_tol`` and ``worst`` are the
    constraints asked for (``None`` when not)."""

    values: int
    lengths: tuple[tuple[int, float], ...]
    min_entropy: float
    floor: str
    winners: dict[str, tuple[Candidate, ...]]
    tables: dict[str, tuple[Candidate, ...]]
    objective: str = "variance"
    rate: float | None = None
    rate_tol: float | None = None
    worst: int | None = None

    def __repr__(self) -> str:
        """One line: the winners and the size of each table (``tables`` holds the rest).

        >>> tune(6, 25, 0.9)
        TuneResult(n=6, lengths=25, min_entropy=0.9, winners=['generalized-deck:1,6', ...], ...)
        """
        span = (str(self.lengths[0][0]) if len(self.lengths) == 1
                else f"{self.lengths[0][0]}..{self.lengths[-1][0]}")
        winners = [c.spec for w in self.winners.values() for c in w]
        size = sum(len(t) for t in self.tables.values())
        floor = "" if len(self.lengths) == 1 else f", floor={self.floor!r}"
        if self.objective != "variance":
            floor += f", objective={self.objective!r}"
        return (f"TuneResult(n={self.values}, lengths={span}, "
                f"min_entropy={self.min_entropy}{floor}, winners={winners}, "
                f"candidates={size})")

    def _repr_html_(self) -> str:
        """Jupyter display: winners table and an inline SVG line chart."""
        from chancekit._html import tune_html

        return tune_html(self)

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per winner that is fair only at the match length (``end_effect``)."""
        out = []
        for w in self.winners.values():
            for c in w:
                if c.end_effect:
                    out.append(
                        f"{c.spec}: outcome variance at the match length is "
                        f"{c.variance_ratio:.3f} x that of independent draws, but "
                        f"{c.mid_match_variance_ratio:.3f} x on average over the match "
                        f"(more than {END_EFFECT_FACTOR:g} times worse): it is this fair "
                        "only if the match ends exactly then")
        return tuple(out)

    def best(self) -> Candidate | None:
        """The overall winner: the lowest objective among all families' winners (outcome
        variance; ``variance_ratio`` when a studio family is in the search, since their
        long-run shares differ; ``longest_drought`` with ``objective="drought"``)."""
        cands = [c for w in self.winners.values() for c in w]
        studio = any(f in STUDIO_FAMILIES for f in self.tables)
        return min(cands, key=lambda c: _score(c, self.objective, studio)) if cands else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "values": self.values, "lengths": [list(x) for x in self.lengths],
            "min_entropy": self.min_entropy, "floor": self.floor,
            "winners": {k: [c.to_dict() for c in v] for k, v in self.winners.items()},
            "tables": {k: [c.to_dict() for c in v] for k, v in self.tables.items()},
            "warnings": list(self.warnings), "objective": self.objective,
            "rate": self.rate, "rate_tol": self.rate_tol, "worst": self.worst,
        }


def _score(c: Candidate, objective: str, studio: bool) -> float:
    """What a candidate is ranked by (lower is better)."""
    if objective == "drought":
        return c.longest_drought
    return c.variance_ratio if studio else c.outcome_variance


def _lengths(samples: Any) -> tuple[tuple[int, float], ...]:
    if isinstance(samples, numbers.Integral) and not isinstance(samples, bool):
        return ((require_int("samples", samples, lo=1, hi=100_000), 1.0),)
    if isinstance(samples, Mapping):
        items = list(samples.items())
    elif isinstance(samples, (range, Sequence)) and not isinstance(samples, str):
        items = [(x, 1.0) for x in samples]
    else:
        raise InvalidTypeError("samples", samples, "an int, a range/list of ints or a "
                               "{length: weight} mapping")
    if not items:
        raise InvalidValueError("samples", samples, "a non-empty range or distribution")
    out: dict[int, float] = {}
    for k, w in items:
        k = require_int("samples (length)", k, lo=1, hi=100_000)
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not (
            w >= 0 and math.isfinite(w)
        ):
            raise InvalidValueError("samples (weight)", w, "a finite number >= 0")
        out[k] = out.get(k, 0.0) + float(w)
    tot = math.fsum(out.values())
    if tot <= 0:
        raise InvalidValueError("samples", samples, "weights with a positive sum")
    return tuple(sorted((k, w / tot) for k, w in out.items()))


#: how many parameters each family's grid entries carry (lowest, highest)
_ARITY = {"dice": (0, 0), "deck": (0, 0), "generalized-deck": (2, 2),
          "dynamic-dice": (1, 1), **{k: f.arity for k, f in STUDIO_FAMILIES.items()}}


def _check_params(family: str, params: tuple[Any, ...]) -> None:
    """A grid entry must have the family's number of parameters and be hashable (the
    ranking looks candidates up by their parameters)."""
    lo, hi = _ARITY[family]
    if not lo <= len(params) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        what = f" {STUDIO_FAMILIES[family].params}" if family in STUDIO_FAMILIES else ""
        raise InvalidValueError(f"grid[{family!r}]", params,
                                f"a tuple of {want} parameter(s){what} for {family}")
    try:
        hash(params)
    except TypeError:
        raise InvalidTypeError(f"grid[{family!r}]", params, "a tuple of numbers") from None


def _auto_chunk(family: str, n: int, longest: int) -> int:
    """How many candidates of ``family`` one exact sweep may hold so that its layer arrays
    stay under a quarter of ``MAX_LAYER_CELLS``: dice and dynamic dice reach every sorted
    count vector, so their state count is known up front; decks keep few states."""
    if family not in ("dice", "dynamic-dice"):
        return 1 << 30
    cells = float(_box_counts(n, longest, longest)[longest]) * n  # partition_count, in numpy
    return max(1, int(MAX_LAYER_CELLS // 4 // cells)) if math.isfinite(cells) else 1


#: per candidate: params, then per length: entropy, outcome variance, variance ratio,
#: mid-match variance ratio, longest drought; then the long-run rate and the worst case
_Row = tuple[tuple[Any, ...], list[float], list[float], list[float], list[float],
             list[float], float, float]


def _evaluate_chunk(family: str, params: list[tuple[Any, ...]], n: int,
                    lengths: tuple[tuple[int, float], ...], max_states: int,
                    max_work: int | None = None) -> list[_Row]:
    """Worker: per candidate, (params, entropy per length, variance per length, variance
    ratio per length, mid-match variance ratio per length)."""
    build = FAMILIES[family]
    systems = [build(n, *p) for p in params]
    longest = lengths[-1][0]
    ms = evaluate_exact_batch(systems, longest, max_states=max_states, max_work=max_work)
    out = []
    for p, m in zip(params, ms, strict=True):
        ent = m.series["entropy"]
        var = m.series["outcome_variance"]
        die = [k * (n - 1) / (n * n) for k, _ in lengths]  # independent draws, at k
        out.append((p, [math.fsum(ent[:k]) / k for k, _ in lengths],
                    [var[k - 1] for k, _ in lengths],
                    [var[k - 1] / d for (k, _), d in zip(lengths, die, strict=True)],
                    [math.fsum(var[:k]) / k / d for (k, _), d in zip(lengths, die, strict=True)],
                    [math.nan] * len(lengths), math.nan, math.nan))
    return out


#: work units of one transition of the drought walk (a few numpy operations on a vector),
#: besides the vector's cells (docs/fair.md, "Work limits")
DROUGHT_TRANSITION_UNITS = 120


def _drought_keys(family: str, system: System, longest: int) -> float:
    """An upper bound on the (``getstate()``, current drought) pairs of the drought walk,
    summed over t = 1..longest: ``c * min(t + 1, w)`` a layer — for gacha and aim assist
    the drought is a function of the state (k - 1) and k is at most the worst case w (times
    2 for gacha's guarantee flag), lucky streaks hold cap + 1 states times t + 1 droughts,
    a stateless roll t + 1 droughts."""
    c, w = {"gacha": (2.0, None), "aim-assist": (1.0, None),
            "lucky-streak": (getattr(system, "cap", 0) + 1.0, math.inf),
            "two-roll": (1.0, math.inf)}[family]
    if w is None:
        worst = STUDIO_FAMILIES[family].worst
        assert worst is not None
        w = worst(system)
    big = longest * (longest + 3) / 2  # sum of t + 1 over t = 1..longest
    if w >= longest + 1:
        return c * big
    return c * (w * (w + 1) / 2 - 1 + (longest + 1 - w) * w)


def _drought_units(n: int, longest: int) -> float:
    """Work units of one key of the drought walk over ``longest`` draws."""
    return _work.GENERIC_STATE_UNITS + n * (DROUGHT_TRANSITION_UNITS + longest + 1)


def _drought_walk(system: System, lengths: tuple[tuple[int, float], ...]) -> list[float]:
    """The expected longest run of misses (value 0) over the first k draws, for each length
    k: a walk over (``getstate()``, current run of misses) carrying a numpy vector over the
    longest run so far (which is at least the current one), exact in float64. O(keys x
    values x longest) — estimated up front by :func:`_drought_keys`, counted in
    ``work.COUNTER["drought"]``."""
    np = _require_numpy("tune's longest drought of the studio families")
    longest = lengths[-1][0]
    want = {k for k, _ in lengths}
    work = system.copy()
    start = np.zeros(longest + 1)
    start[0] = 1.0
    layer: dict[tuple[Any, int], np.ndarray] = {(work.getstate(), 0): start}
    idx = np.arange(longest + 1, dtype=np.float64)
    per = _drought_units(system.n, longest)
    out: dict[int, float] = {}
    for t in range(longest):
        nxt: dict[tuple[Any, int], np.ndarray] = {}
        for (st, g), v in layer.items():
            work.setstate(st)
            probs = work.probabilities()
            for i, q in enumerate(probs):
                if q <= 0.0:
                    continue
                work.setstate(st)
                work.observe(i)
                w = v * q
                if i == 0:  # one more miss: a run as long as the longest makes it longer
                    w[g + 1] += w[g]
                    w[g] = 0.0
                    key = (work.getstate(), g + 1)
                else:
                    key = (work.getstate(), 0)
                if key in nxt:
                    nxt[key] += w
                else:
                    nxt[key] = w
        layer = nxt
        _work.COUNTER["drought"] += len(layer) * per
        if t + 1 in want:
            out[t + 1] = math.fsum(float(v @ idx) for v in layer.values())
    return [out[k] for k, _ in lengths]


def _evaluate_studio_chunk(family: str, params: list[tuple[Any, ...]],
                           lengths: tuple[tuple[int, float], ...], max_states: int,
                           max_work: int | None = None) -> list[_Row]:
    """Worker for the studio families: each candidate through the generic exact engine
    (:func:`~chancekit.fair.evaluate_exact`, which walks ``(getstate(), counts)``) and, for
    the hit/miss families, the drought walk; the same rows as :func:`_evaluate_chunk`, the
    ratios over independent draws with the candidate's own long-run shares."""
    fam = STUDIO_FAMILIES[family]
    longest = lengths[-1][0]
    out: list[_Row] = []
    for p in params:
        system = fam.build(*p)
        m = evaluate_exact(system, longest, max_states=max_states, max_work=max_work)
        ent = m.series["entropy"]
        var = m.series["outcome_variance"]
        target = system.target()
        ind = [independent_variance(target, k) for k, _ in lengths]
        ratio = [var[k - 1] / d if d > 0 else math.nan
                 for (k, _), d in zip(lengths, ind, strict=True)]
        mid = [math.fsum(var[:k]) / k / d if d > 0 else math.nan
               for (k, _), d in zip(lengths, ind, strict=True)]
        if fam.rate is not None and fam.worst is not None:
            droughts = _drought_walk(system, lengths)
            rate, worst = fam.rate(system), fam.worst(system)
        else:
            droughts, rate, worst = [math.nan] * len(lengths), math.nan, math.nan
        out.append((p, [math.fsum(ent[:k]) / k for k, _ in lengths],
                    [var[k - 1] for k, _ in lengths], ratio, mid, droughts, rate, worst))
    return out


def _studio_units(family: str, system: System, longest: int, instead: str,
                  max_work: int) -> float:
    """The estimated work of one studio candidate (the generic engine's, from
    ``state_bound``, plus the drought walk's), refused past ``max_work`` as soon as a
    part of it is."""
    what = f"exact evaluation of {system!r} over {longest:,} draws"
    est = generic_estimate(system, longest)
    if est is None:  # not a built-in: the engine would count as it runs; tune refuses
        raise InvalidValueError("grid", system, "a system with a state_bound")
    units = est[1]
    _work.check_work(what, units, instead, max_work)
    if STUDIO_FAMILIES[family].rate is not None:
        units += _drought_keys(family, system, longest) * _drought_units(system.n, longest)
        _work.check_work(what + " with its longest drought", units, instead, max_work)
    return units


def tune(values: int | Sequence[Any] | None,
         samples: int | Iterable[int] | Mapping[int, float],
         min_entropy: float = 0.0, *,
         systems: Sequence[str] = ("generalized-deck", "dynamic-dice"),
         grid: Mapping[str, Sequence[Sequence[Any]]] | None = None, floor: str = "average",
         executor: Executor | None = None, chunk_size: int | None = None,
         progress: Callable[[int, int], None] | None = None,
         max_states: int = MAX_STATES, max_work: int | None = None,
         objective: str = "variance", rate: float | None = None,
         rate_tol: float | None = None, worst: int | None = None) -> TuneResult:
    """For each system family, the parameters with the lowest outcome variance whose
    unpredictability is at least ``min_entropy``, with the full ranked table.

    ``values``: n, or the labels; ``samples``: the match length N, or a range / list /
    ``{N: weight}`` distribution of lengths (robust tuning, see the module docstring);
    ``systems``: families among ``dice``, ``deck``, ``generalized-deck``, ``dynamic-dice``;
    ``grid``: ``{family: [params, ...]}`` overriding :func:`published_grid` for those
    families; ``executor``: evaluate chunks of ``chunk_size`` candidates on it;
    ``progress(done, total)`` is called as candidates finish. Cost: one exact sweep per
    family (or chunk) to the longest length — about 0.1 s for the published search at 25
    draws; the sweeps are estimated first and refused past ``max_work`` units in all
    (default :data:`~chancekit.fair.work.MAX_FAIR_WORK`, about a second) before any starts.

    Studio families (:data:`STUDIO_FAMILIES`: ``gacha``, ``aim-assist``, ``lucky-streak``,
    ``two-roll``; default grids :func:`studio_grid`) fix their own
    number of values: pass ``values=None`` (or that number). Each candidate is evaluated
    by the generic exact engine, estimated up front from its ``state_bound``; they rank by
    ``variance_ratio`` (outcome variance over that of independent draws with the
    candidate's own long-run shares — for a hit/miss system, the spread of the successes
    over a match against plain rolls at the same rate), or with ``objective="drought"``
    (hit/miss families only) by the expected longest run of misses. Constraints, for the
    hit/miss families: ``rate`` — the long-run success rate (rares for gacha) within
    ``rate_tol`` (default 5 % of ``rate``); ``worst`` — a success certain by that try
    (the hard pity). A candidate breaking a constraint is infeasible.

    >>> r = tune(6, 25, 0.9)
    >>> [(c.spec, round(c.outcome_variance, 4)) for c in r.winners["generalized-deck"]]
    [('generalized-deck:1,6', 0.5089)]
    >>> [(c.spec, round(c.outcome_variance, 4)) for c in r.winners["dynamic-dice"]]
    [('dynamic-dice:0.355', 0.459)]
    """
    if isinstance(systems, str):
        systems = (systems,)
    if not isinstance(systems, Iterable):
        raise InvalidTypeError("systems", systems, "a sequence of family names")
    systems = tuple(systems)
    if not systems:
        raise InvalidValueError("systems", systems, "at least one system family")
    for fam in systems:
        if not isinstance(fam, str) or fam not in FAMILIES:
            raise InvalidValueError("systems", fam, f"one of {sorted(FAMILIES)}")
    fixed = {f: STUDIO_FAMILIES[f].n for f in systems if f in STUDIO_FAMILIES}
    if values is None:
        if len(fixed) < len(systems):
            raise InvalidValueError("values", values, "n (an int >= 2) or the labels for "
                                    + ", ".join(f for f in systems if f not in fixed))
        if len(set(fixed.values())) > 1:
            raise InvalidValueError("systems", systems, "families with the same number of "
                                    "values (" + ", ".join(f"{f}: {k}" for f, k in
                                                           fixed.items())
                                    + "); tune them separately")
        n = next(iter(fixed.values()))
    elif isinstance(values, numbers.Integral) and not isinstance(values, bool):
        n = require_int("values", values, lo=2)
    elif isinstance(values, Sequence) and not isinstance(values, str):
        n = require_int("len(values)", len(values), lo=2)
    else:
        raise InvalidTypeError("values", values, "an int >= 2 or a sequence of labels")
    n = _require_n(n)
    for f, k in fixed.items():
        if k != n:
            raise InvalidValueError("values", values, f"{k} for {f} (its number of values), "
                                    "or None")
    if objective not in OBJECTIVES:
        raise InvalidValueError("objective", objective, "'variance' or 'drought'")
    hitmiss = [f for f in systems if f in STUDIO_FAMILIES and STUDIO_FAMILIES[f].rate]
    if (objective == "drought" or rate is not None or worst is not None) and (
        len(hitmiss) < len(systems)
    ):
        asked = ("objective='drought'" if objective == "drought"
                 else "rate=" if rate is not None else "worst=")
        raise InvalidValueError("systems", systems, f"hit/miss families only with {asked} "
                                "(gacha, aim-assist, lucky-streak, two-roll): "
                                + ", ".join(f for f in systems if f not in hitmiss)
                                + " has no success")
    if rate is not None:
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not (
            0.0 < rate < 1.0
        ):
            raise InvalidValueError("rate", rate, "a long-run success rate in (0, 1)")
        rate = float(rate)
        rate_tol = rate / 20 if rate_tol is None else rate_tol
        if isinstance(rate_tol, bool) or not isinstance(rate_tol, numbers.Real) or not (
            0.0 <= rate_tol < 1.0
        ):
            raise InvalidValueError("rate_tol", rate_tol, "a number in [0, 1)")
        rate_tol = float(rate_tol)
    elif rate_tol is not None:
        raise InvalidValueError("rate_tol", rate_tol, "given with rate= (the target rate)")
    if worst is not None:
        worst = require_int("worst", worst, lo=1)
    max_work = _work.MAX_FAIR_WORK if max_work is None else require_int(
        "max_work", max_work, lo=1)
    lengths = _lengths(samples)
    if isinstance(min_entropy, bool) or not isinstance(min_entropy, numbers.Real) or not (
        0.0 <= min_entropy <= 1.0
    ):
        raise InvalidValueError("min_entropy", min_entropy, "a number in [0, 1]")
    if floor not in ("average", "every"):
        raise InvalidValueError("floor", floor, "'average' or 'every'")
    if executor is not None and not isinstance(executor, Executor):
        raise InvalidTypeError("executor", executor, "a concurrent.futures.Executor")
    full = {**published_grid(), **studio_grid()}
    if grid is not None:
        if not isinstance(grid, Mapping):
            raise InvalidTypeError("grid", grid, "a {family: [params, ...]} mapping")
        for fam, cands in grid.items():
            if fam not in FAMILIES:
                raise InvalidValueError("grid", fam, f"a family among {sorted(FAMILIES)}")
            if isinstance(cands, str) or not isinstance(cands, Iterable):
                raise InvalidTypeError(f"grid[{fam!r}]", cands, "a list of parameter tuples")
            full[fam] = [tuple(c) if isinstance(c, (tuple, list)) else (c,) for c in cands]
    jobs: list[tuple[str, list[tuple[Any, ...]]]] = []
    longest = lengths[-1][0]
    # the floor of the work (one state per draw, every candidate) before anything is sized
    _work.check_work(f"tuning over n = {n:,} values and {longest:,} draws",
                     longest * (_work.LAYER_UNITS + n * sum(len(full[f]) for f in systems)),
                     "a shorter match, fewer values or fewer candidates", max_work)
    for fam in systems:
        cands = full[fam]
        if not cands:
            raise InvalidValueError("grid", fam, "a non-empty list of parameters for "
                                    f"{fam!r} (the grid for it is empty)")
        for p in cands:  # validate up front, in the caller's process (n checked above)
            _check_params(fam, p)
            if fam in STUDIO_FAMILIES:
                try:
                    STUDIO_FAMILIES[fam].build(*p)
                except ChancekitError as e:
                    raise InvalidValueError(f"grid[{fam!r}] entry {p!r} "
                                            f"{STUDIO_FAMILIES[fam].params}: {e}") from None
            else:
                FAMILIES[fam](2, *p)
        size = chunk_size or (len(cands) if executor is None else max(1, -(-len(cands) // 8)))
        size = require_int("chunk_size", size, lo=1)
        if chunk_size is None and fam not in STUDIO_FAMILIES:  # arrays under MAX_LAYER_CELLS
            size = min(size, _auto_chunk(fam, n, lengths[-1][0]))
        jobs += [(fam, cands[i:i + size]) for i in range(0, len(cands), size)]
    total = sum(len(c) for _, c in jobs)
    what = (f"tuning {total:,} candidates over n = {n:,} values and {longest:,} draws "
            f"({len(jobs)} sweeps)")
    instead = ("a shorter match, fewer values, fewer candidates (grid=...) or families, "
               "or Monte Carlo on a chosen system (chancekit fairness SPEC --trials K)")
    # the floor first (at least one state per draw), before building any system
    _work.check_work(what, sum(longest * (_work.LAYER_UNITS + n * len(c)) for _, c in jobs),
                     instead, max_work)
    units = 0.0
    for fam, cands in jobs:  # every sweep's limits, before the first sweep starts
        if fam in STUDIO_FAMILIES:
            for p in cands:
                units += _studio_units(fam, STUDIO_FAMILIES[fam].build(*p), longest,
                                       instead, max_work)
                _work.check_work(what, units, instead, max_work)
            continue
        units += _check_lattice([FAMILIES[fam](n, *p) for p in cands], longest, max_states,
                                0.0, max_work)
        _work.check_work(what, units, instead, max_work)

    def run(fam: str, cands: list[tuple[Any, ...]]) -> Any:
        if fam in STUDIO_FAMILIES:
            return (_evaluate_studio_chunk, fam, cands, lengths, max_states, max_work)
        return (_evaluate_chunk, fam, cands, n, lengths, max_states, max_work)

    done = 0
    results: dict[str, list[_Row]] = {f: [] for f in systems}
    if progress:
        progress(0, total)
    if executor is None:
        for fam, cands in jobs:
            fn, *args = run(fam, cands)
            results[fam] += fn(*args)
            done += len(cands)
            if progress:
                progress(done, total)
    else:
        from concurrent.futures import as_completed

        futures = {executor.submit(*run(fam, cands)): (fam, len(cands))
                   for fam, cands in jobs}
        for fut in as_completed(futures):
            fam, k = futures[fut]
            results[fam] += fut.result()
            done += k
            if progress:
                progress(done, total)
    weights = [w for _, w in lengths]
    winners: dict[str, tuple[Candidate, ...]] = {}
    tables: dict[str, tuple[Candidate, ...]] = {}
    order = {fam: {tuple(p): i for i, p in enumerate(full[fam])} for fam in systems}
    def mean(xs: list[float]) -> float:
        return math.fsum(w * x for w, x in zip(weights, xs, strict=True))

    for fam in systems:
        cands_ = []
        for p, ents, vars_, ends, mids, droughts, r_rate, r_worst in results[fam]:
            e = mean(ents)
            lo = min(ents)
            ok = (e if floor == "average" else lo) >= min_entropy - 1e-12
            if rate is not None and not abs(r_rate - rate) <= rate_tol + 1e-12:
                ok = False
            if worst is not None and not r_worst <= worst:
                ok = False
            cands_.append(Candidate(fam, tuple(p), e, mean(vars_), lo, ok, 0, mean(ends),
                                    mean(mids), r_rate, r_worst, mean(droughts)))
        cands_.sort(key=lambda c: order[fam][c.params])  # grid order, then stable sorts
        own = fam in STUDIO_FAMILIES  # its candidates' long-run shares differ: the ratio
        feas = sorted((c for c in cands_ if c.feasible),
                      key=lambda c: _score(c, objective, own))
        infeas = sorted((c for c in cands_ if not c.feasible), key=lambda c: -c.unpredictability)
        ranked: list[Candidate] = []
        rank, prev = 0, None
        for i, c in enumerate(feas):
            score = _score(c, objective, own)
            if prev is None or not math.isclose(score, prev, rel_tol=_TIE_RTOL, abs_tol=1e-12):
                rank, prev = i + 1, score
            ranked.append(replace(c, rank=rank))
        ranked += infeas
        tables[fam] = tuple(ranked)
        winners[fam] = tuple(c for c in ranked if c.feasible and c.rank == 1)
    return TuneResult(n, lengths, float(min_entropy), floor, winners, tables, objective,
                      rate, rate_tol, worst)
