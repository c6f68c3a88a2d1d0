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
from chancekit.fair.exact import (
    MAX_LAYER_CELLS,
    MAX_STATES,
    evaluate_exact_batch,
    partition_count,
)
from chancekit.fair.systems import Deck, Dice, DynamicDice, GeneralizedDeck, System

__all__ = ["FAMILIES", "Candidate", "TuneResult", "published_grid", "tune"]

#: the system families :func:`tune` knows, and how a parameter tuple builds one
FAMILIES: dict[str, Callable[..., System]] = {
    "dice": lambda n: Dice(n),
    "deck": lambda n: Deck(n),
    "generalized-deck": lambda n, s, r: GeneralizedDeck(n, s, r),
    "dynamic-dice": lambda n, f: DynamicDice(n, f),
}

_TIE_RTOL = 1e-9


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
    entropy floor holds; ``rank`` is 1 for the best (ties share a rank)."""

    family: str
    params: tuple[Any, ...]
    unpredictability: float
    outcome_variance: float
    min_unpredictability: float
    feasible: bool
    rank: int = 0

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
                "feasible": self.feasible, "rank": self.rank}


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
    tot = sum(out.values())
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
    cells = partition_count(longest, n) * n
    return max(1, MAX_LAYER_CELLS // 4 // cells)


def _evaluate_chunk(family: str, params: list[tuple[Any, ...]], n: int,
                    lengths: tuple[tuple[int, float], ...], max_states: int,
                    ) -> list[tuple[tuple[Any, ...], list[float], list[float]]]:
    """Worker: per candidate, (params, entropy per length, variance per length)."""
    build = FAMILIES[family]
    systems = [build(n, *p) for p in params]
    longest = lengths[-1][0]
    ms = evaluate_exact_batch(systems, longest, max_states=max_states)
    out = []
    for p, m in zip(params, ms, strict=True):
        ent = m.series["entropy"]
        var = m.series["outcome_variance"]
        cum = [0.0]
        for e in ent:
            cum.append(cum[-1] + e)
        out.append((p, [cum[k] / k for k, _ in lengths], [var[k - 1] for k, _ in lengths]))
    return out


def tune(values: int | Sequence[Any], samples: int | Iterable[int] | Mapping[int, float],
         min_entropy: float, *, systems: Sequence[str] = ("generalized-deck", "dynamic-dice"),
         grid: Mapping[str, Sequence[Sequence[Any]]] | None = None, floor: str = "average",
         executor: Executor | None = None, chunk_size: int | None = None,
         progress: Callable[[int, int], None] | None = None,
         max_states: int = MAX_STATES) -> TuneResult:
    """For each system family, the parameters with the lowest outcome variance whose
    unpredictability is at least ``min_entropy``, with the full ranked table.

    ``values``: n, or the labels; ``samples``: the match length N, or a range / list /
    ``{N: weight}`` distribution of lengths (robust tuning, see the module docstring);
    ``systems``: families among ``dice``, ``deck``, ``generalized-deck``, ``dynamic-dice``;
    ``grid``: ``{family: [params, ...]}`` overriding :func:`published_grid` for those
    families; ``executor``: evaluate chunks of ``chunk_size`` candidates on it;
    ``progress(done, total)`` is called as candidates finish. Cost: one exact sweep per
    family (or chunk) to the longest length — about 0.1 s for the published search.

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
    for fam in systems:
        cands = full[fam]
        if not cands:
            raise InvalidValueError("grid", fam, "a non-empty list of parameters for "
                                    f"{fam!r} (the grid for it is empty)")
        for p in cands:  # validate up front, in the caller's process
            _check_params(fam, p)
            FAMILIES[fam](n, *p)
        size = chunk_size or (len(cands) if executor is None else max(1, -(-len(cands) // 8)))
        size = require_int("chunk_size", size, lo=1)
        if chunk_size is None:  # keep each sweep's arrays well under MAX_LAYER_CELLS
            size = min(size, _auto_chunk(fam, n, lengths[-1][0]))
        jobs += [(fam, cands[i:i + size]) for i in range(0, len(cands), size)]
    total = sum(len(c) for _, c in jobs)
    done = 0
    results: dict[str, list[tuple[tuple[Any, ...], list[float], list[float]]]] = {
        f: [] for f in systems}
    if progress:
        progress(0, total)
    if executor is None:
        for fam, cands in jobs:
            results[fam] += _evaluate_chunk(fam, cands, n, lengths, max_states)
            done += len(cands)
            if progress:
                progress(done, total)
    else:
        from concurrent.futures import as_completed

        futures = {executor.submit(_evaluate_chunk, fam, cands, n, lengths, max_states):
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
        for p, ents, vars_ in results[fam]:
            e = sum(w * x for w, x in zip(weights, ents, strict=True))
            v = sum(w * x for w, x in zip(weights, vars_, strict=True))
            lo = min(ents)
            ok = (e if floor == "average" else lo) >= min_entropy - 1e-12
            rows.append((p, e, v, lo, ok))
        rows.sort(key=lambda r: order[fam][tuple(r[0])])  # grid order, then stable sorts
        feas = sorted((r for r in rows if r[4]), key=lambda r: r[2])
        infeas = sorted((r for r in rows if not r[4]), key=lambda r: -r[1])
        ranked: list[Candidate] = []
        rank, prev = 0, None
        for i, r in enumerate(feas):
            if prev is None or not math.isclose(r[2], prev, rel_tol=_TIE_RTOL, abs_tol=1e-12):
                rank, prev = i + 1, r[2]
            ranked.append(Candidate(fam, tuple(r[0]), r[1], r[2], r[3], True, rank))
        ranked += [Candidate(fam, tuple(r[0]), r[1], r[2], r[3], False, 0) for r in infeas]
        tables[fam] = tuple(ranked)
        winners[fam] = tuple(c for c in ranked if c.feasible and c.rank == 1)
    return TuneResult(n, lengths, float(min_entropy), floor, winners, tables)
