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
from dataclasses import dataclass
from typing import Any

from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.fair import work as _work
from chancekit.fair.exact import (
    MAX_LAYER_CELLS,
    MAX_STATES,
    _box_counts,
    _check_lattice,
    evaluate_exact_batch,
)
from chancekit.fair.systems import (
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    System,
    _require_n,
)

__all__ = ["FAMILIES", "Candidate", "TuneResult", "published_grid", "tune"]

#: the system families :func:`tune` knows, and how a parameter tuple builds one
FAMILIES: dict[str, Callable[..., System]] = {
    "dice": lambda n: Dice(n),
    "deck": lambda n: Deck(n),
    "generalized-deck": lambda n, s, r: GeneralizedDeck(n, s, r),
    "dynamic-dice": lambda n, f: DynamicDice(n, f),
}

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


@dataclass(frozen=True)
class Candidate:
    """One evaluated parameter set. ``unpredictability`` and ``outcome_variance`` are the
    tuning figures (averaged over the match-length distribution when robust);
    ``min_unpredictability`` is the lowest over the lengths; ``feasible`` says whether the
    entropy floor holds; ``rank`` is 1 for the best (ties share a rank);
    ``variance_ratio`` and ``mid_match_variance_ratio`` are the outcome variance at the length
    and averaged over the match, both over independent draws' at the length (see the module
    docstring, "End effects")."""

    family: str
    params: tuple[Any, ...]
    unpredictability: float
    outcome_variance: float
    min_unpredictability: float
    feasible: bool
    rank: int = 0
    variance_ratio: float = math.nan
    mid_match_variance_ratio: float = math.nan

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
                "end_effect": self.end_effect}


@dataclass(frozen=True, repr=False)
class TuneResult:
    """What :func:`tune` found. ``winners[family]`` lists the best feasible candidates (more
    than one only on a tie, within a relative 1e-9); ``tables[family]`` ranks every candidate:
    feasible ones by outcome variance, then the infeasible ones by unpredictability."""

    values: int
    lengths: tuple[tuple[int, float], ...]
    min_entropy: float
    floor: str
    winners: dict[str, tuple[Candidate, ...]]
    tables: dict[str, tuple[Candidate, ...]]

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
        """The overall winner (lowest outcome variance among all families' winners)."""
        cands = [c for w in self.winners.values() for c in w]
        return min(cands, key=lambda c: c.outcome_variance) if cands else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "values": self.values, "lengths": [list(x) for x in self.lengths],
            "min_entropy": self.min_entropy, "floor": self.floor,
            "winners": {k: [c.to_dict() for c in v] for k, v in self.winners.items()},
            "tables": {k: [c.to_dict() for c in v] for k, v in self.tables.items()},
            "warnings": list(self.warnings),
        }


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


#: how many parameters each family's grid entries carry
_ARITY = {"dice": 0, "deck": 0, "generalized-deck": 2, "dynamic-dice": 1}


def _check_params(family: str, params: tuple[Any, ...]) -> None:
    """A grid entry must have the family's number of parameters and be hashable (the
    ranking looks candidates up by their parameters)."""
    want = _ARITY[family]
    if len(params) != want:
        raise InvalidValueError(f"grid[{family!r}]", params,
                                f"a tuple of {want} parameter(s) for {family}")
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


_Row = tuple[tuple[Any, ...], list[float], list[float], list[float], list[float]]


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
                    [math.fsum(var[:k]) / k / d for (k, _), d in zip(lengths, die, strict=True)]))
    return out


def tune(values: int | Sequence[Any], samples: int | Iterable[int] | Mapping[int, float],
         min_entropy: float, *, systems: Sequence[str] = ("generalized-deck", "dynamic-dice"),
         grid: Mapping[str, Sequence[Sequence[Any]]] | None = None, floor: str = "average",
         executor: Executor | None = None, chunk_size: int | None = None,
         progress: Callable[[int, int], None] | None = None,
         max_states: int = MAX_STATES, max_work: int | None = None) -> TuneResult:
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

    >>> r = tune(6, 25, 0.9)
    >>> [(c.spec, round(c.outcome_variance, 4)) for c in r.winners["generalized-deck"]]
    [('generalized-deck:1,6', 0.5089)]
    >>> [(c.spec, round(c.outcome_variance, 4)) for c in r.winners["dynamic-dice"]]
    [('dynamic-dice:0.355', 0.459)]
    """
    if isinstance(values, numbers.Integral) and not isinstance(values, bool):
        n = require_int("values", values, lo=2)
    elif isinstance(values, Sequence) and not isinstance(values, str):
        n = require_int("len(values)", len(values), lo=2)
    else:
        raise InvalidTypeError("values", values, "an int >= 2 or a sequence of labels")
    n = _require_n(n)
    max_work = _work.MAX_FAIR_WORK if max_work is None else require_int(
        "max_work", max_work, lo=1)
    lengths = _lengths(samples)
    if isinstance(min_entropy, bool) or not isinstance(min_entropy, numbers.Real) or not (
        0.0 <= min_entropy <= 1.0
    ):
        raise InvalidValueError("min_entropy", min_entropy, "a number in [0, 1]")
    if floor not in ("average", "every"):
        raise InvalidValueError("floor", floor, "'average' or 'every'")
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
    if executor is not None and not isinstance(executor, Executor):
        raise InvalidTypeError("executor", executor, "a concurrent.futures.Executor")
    full = published_grid()
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
            FAMILIES[fam](2, *p)
        size = chunk_size or (len(cands) if executor is None else max(1, -(-len(cands) // 8)))
        size = require_int("chunk_size", size, lo=1)
        if chunk_size is None:  # keep each sweep's arrays well under MAX_LAYER_CELLS
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
        units += _check_lattice([FAMILIES[fam](n, *p) for p in cands], longest, max_states,
                                0.0, max_work)
        _work.check_work(what, units, instead, max_work)
    done = 0
    results: dict[str, list[_Row]] = {f: [] for f in systems}
    if progress:
        progress(0, total)
    if executor is None:
        for fam, cands in jobs:
            results[fam] += _evaluate_chunk(fam, cands, n, lengths, max_states, max_work)
            done += len(cands)
            if progress:
                progress(done, total)
    else:
        from concurrent.futures import as_completed

        futures = {executor.submit(_evaluate_chunk, fam, cands, n, lengths, max_states,
                                   max_work):
                   (fam, len(cands)) for fam, cands in jobs}
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
    for fam in systems:
        rows = []
        for p, ents, vars_, ends, mids in results[fam]:
            e = math.fsum(w * x for w, x in zip(weights, ents, strict=True))
            v = math.fsum(w * x for w, x in zip(weights, vars_, strict=True))
            end = math.fsum(w * x for w, x in zip(weights, ends, strict=True))
            mid = math.fsum(w * x for w, x in zip(weights, mids, strict=True))
            lo = min(ents)
            ok = (e if floor == "average" else lo) >= min_entropy - 1e-12
            rows.append((p, e, v, lo, ok, end, mid))
        rows.sort(key=lambda r: order[fam][tuple(r[0])])  # grid order, then stable sorts
        feas = sorted((r for r in rows if r[4]), key=lambda r: r[2])
        infeas = sorted((r for r in rows if not r[4]), key=lambda r: -r[1])
        ranked: list[Candidate] = []
        rank, prev = 0, None
        for i, r in enumerate(feas):
            if prev is None or not math.isclose(r[2], prev, rel_tol=_TIE_RTOL, abs_tol=1e-12):
                rank, prev = i + 1, r[2]
            ranked.append(Candidate(fam, tuple(r[0]), r[1], r[2], r[3], True, rank, r[5], r[6]))
        ranked += [Candidate(fam, tuple(r[0]), r[1], r[2], r[3], False, 0, r[5], r[6])
                   for r in infeas]
        tables[fam] = tuple(ranked)
        winners[fam] = tuple(c for c in ranked if c.feasible and c.rank == 1)
    return TuneResult(n, lengths, float(min_entropy), floor, winners, tables)
