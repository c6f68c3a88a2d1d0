"""Exact streak and drought metrics: a state engine over (system state, streak state).

The fairness engines measure streaks by Monte Carlo only; here they are exact (float64),
for any system whose state after a draw is a function of the value drawn:

* **p_repeat** — the chance that draw t equals draw t - 1, averaged over t = 2..N (series:
  every t); **p_triple** — draws t - 2, t - 1, t equal, averaged over t = 3..N;
* **run lengths** — ``series["run_lengths"][k - 1]``: the expected number of maximal runs
  of equal consecutive draws of length exactly k in the match (their sum is the expected
  number of runs; ``summary["mean_run"]`` is N over it);
* **longest gap of a value** (``value=``, default the first) — the expected longest stretch
  of consecutive draws without that value, the stretches at the start and at the end of
  the match included (``summary["longest_gap"]``; ``series["p_gap"][k - 1]`` = P(longest
  gap >= k)). For a symmetric system every value gives the same figure.

The walk keeps only what the next draw depends on — not the counts the fairness engine
carries: nothing for dice, the cards left for (generalized) decks, the counts relative to
the smallest for dynamic dice, ``getstate()`` for other systems — and, without base
weights, the values are interchangeable, so a state is the vector with the distinguished
value (the last one, or the watched one) first and the others sorted. The streak part is
a numpy vector per state: over the current run length (repeats) or over the longest gap so
far (droughts, the current gap in the state). Cost: O(sum over t of states_t x values x t)
for the gap walk, estimated before starting for count-based systems (reduced states bounded
by :func:`~chancekit.fair.exact.lattice_estimate`) and refused past
:data:`~chancekit.fair.work.MAX_FAIR_WORK` units with ``LimitError``; other systems are
checked as they run. ``prune=eps`` drops states below eps (``dropped`` reports the mass).

>>> from chancekit.fair import Deck, Dice
>>> m = streak_metrics(Dice(6), 100)
>>> round(m["p_repeat"], 6), round(m["longest_gap"], 3)
(0.166667, 18.152)
>>> round(streak_metrics(Deck(6), 100)["p_repeat"], 5)   # only across a refill
0.02694
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import numpy as np

from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.fair import work as _work
from chancekit.fair.exact import lattice_estimate
from chancekit.fair.metrics import Metrics
from chancekit.fair.montecarlo import simulate_matches
from chancekit.fair.systems import Dice, DynamicDice, GeneralizedDeck, System, _CountSystem

__all__ = ["streak_metrics", "streak_montecarlo"]

#: work units of one (state, value) transition of the streak walk, besides its vector cells
STREAK_TRANSITION_UNITS = 40


class _Core:
    """The reduced state a system's next draw depends on: ``start``, ``probs(x)``,
    ``step(x, j)``; ``symmetric`` when values are interchangeable."""

    def __init__(self, system: System) -> None:
        self.n = system.n
        self.system = system
        self.symmetric = False
        self._probs: dict[Hashable, tuple[float, ...]] = {}
        self._steps: dict[tuple[Hashable, int], Hashable] = {}
        self._moves: dict[tuple[Hashable, int, bool], list[Any]] = {}
        if isinstance(system, Dice):
            self.kind, self.symmetric = "dice", True
            self.start: Hashable = (0,) * self.n
        elif isinstance(system, GeneralizedDeck):
            self.kind, self.symmetric = "deck", system.symmetric
            self.start = system.remaining()
        elif isinstance(system, DynamicDice):
            self.kind, self.symmetric = "dd", system.symmetric
            c = system.counts()
            self.start = tuple(x - min(c) for x in c)
        else:
            if getattr(system, "markov_observe", True) is False:
                raise InvalidValueError("system", system, "a system whose state after a draw "
                                        "follows from the value drawn (use Monte Carlo: "
                                        "streak_montecarlo)")
            self.kind = "generic"
            self.work = system.copy()
            self.start = system.getstate()

    def probs(self, x: Any) -> tuple[float, ...]:
        p = self._probs.get(x)
        if p is not None:
            return p
        s = self.system
        if self.kind == "dice":
            p = (1.0 / self.n,) * self.n
        elif self.kind == "deck":
            tot = sum(x)
            p = tuple(r / tot for r in x)
        elif self.kind == "dd":
            w = [wi * s.decrease ** c for wi, c in zip(s.weights, x, strict=True)]
            tot = math.fsum(w)
            p = tuple(v / tot for v in w)
        else:
            self.work.setstate(x)
            p = tuple(self.work.probabilities())
        self._probs[x] = p
        return p

    def step(self, x: Any, j: int) -> Any:
        key = (x, j)
        y = self._steps.get(key)
        if y is not None:
            return y
        s = self.system
        if self.kind == "dice":
            y = x
        elif self.kind == "deck":
            r = list(x)
            r[j] -= 1
            if sum(r) < s.refill:
                r = [a + s.size * w for a, w in zip(r, s.weights, strict=True)]
            y = tuple(r)
        elif self.kind == "dd":
            r = list(x)
            r[j] += 1
            lo = min(r)
            y = tuple(a - lo for a in r)
        else:
            self.work.setstate(x)
            self.work.observe(j)
            y = self.work.getstate()
        self._steps[key] = y
        return y

    def moves(self, x: Any, d: int, follow: bool) -> list[tuple[Any, int, bool, float]]:
        """The transitions out of ``(x, d)`` merged by target: ``(y, d2, hit, q)`` where
        ``hit`` says the drawn value is ``d``; the next distinguished value is the drawn one
        (``follow``: the last value) or stays ``d`` (the watched value)."""
        key = (x, d, follow)
        out = self._moves.get(key)
        if out is not None:
            return out
        merged: dict[tuple[Any, int, bool], float] = {}
        for j, q in enumerate(self.probs(x)):
            if q > 0.0:
                y, d2 = self.canon(self.step(x, j), j if follow else d)
                k = (y, d2, j == d)
                merged[k] = merged.get(k, 0.0) + q
        out = [(y, d2, hit, q) for (y, d2, hit), q in merged.items()]
        self._moves[key] = out
        return out

    def canon(self, x: Any, d: int) -> tuple[Any, int]:
        """(reduced state, distinguished index) up to relabelling the values."""
        if not self.symmetric:
            return x, d
        rest = sorted((x[i] for i in range(self.n) if i != d), reverse=True)
        return (x[d], *rest), 0


def _estimate(system: System, samples: int) -> float | None:
    """Upper bound on the work units of both walks, or None (checked as it runs)."""
    n = system.n
    if isinstance(system, Dice):
        xs = np.ones(samples)
    elif isinstance(system, _CountSystem):
        xs = lattice_estimate([system], samples)[0] * n
    else:
        return None
    t = np.arange(1, samples + 1, dtype=np.float64)
    per = STREAK_TRANSITION_UNITS + t + 2
    return float((xs * n * per * (t + 2)).sum())


def _check_system(system: Any, samples: int, value: int) -> tuple[int, int]:
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    samples = require_int("samples", samples, lo=1, hi=100_000)
    value = require_int("value", value, lo=0, hi=system.n - 1)
    return samples, value


def streak_metrics(system: System, samples: int, *, value: int = 0, prune: float = 0.0,
                   max_work: int | None = None) -> Metrics:
    """Exact streak and drought metrics of ``system`` (from its current state) over a match
    of ``samples`` draws; see the module docstring for the definitions. Returns
    :class:`~chancekit.fair.Metrics` (``method="exact"``) with summary ``p_repeat``,
    ``p_triple``, ``longest_gap``, ``mean_run`` and series ``p_repeat`` (draws 2..N),
    ``run_lengths`` and ``p_gap``.

    Refused with ``LimitError`` past ``max_work`` (default
    :data:`~chancekit.fair.work.MAX_FAIR_WORK`) estimated units; ``prune > 0`` and systems
    other than dice, decks and dynamic dice are checked as they run.

    >>> from chancekit.fair import TGMRandomizer
    >>> m = streak_metrics(TGMRandomizer.tgm1(), 12)
    >>> round(m["p_repeat"], 5), round(m["longest_gap"], 2)
    (0.02152, 6.39)
    """
    samples, value = _check_system(system, samples, value)
    if isinstance(prune, bool) or not isinstance(prune, (int, float)) or not 0 <= prune < 1:
        raise InvalidValueError("prune", prune, "a number in [0, 1)")
    max_work = _work.MAX_FAIR_WORK if max_work is None else require_int("max_work", max_work,
                                                                        lo=1)
    n, N = system.n, samples
    what = f"exact streak metrics of {system!r} over {N:,} draws"
    instead = "Monte Carlo (streak_montecarlo, --trials K), a shorter match, or prune=1e-12"
    _work.check_work(what, N * n * (STREAK_TRANSITION_UNITS + N), instead, max_work)
    est = _estimate(system, N) if prune == 0 else None
    if est is not None:
        _work.check_work(what, est, instead, max_work)
    core = _Core(system)
    counted = 0.0
    dropped = 0.0
    size = N + 2

    def charge(units: float, t: int) -> None:
        nonlocal counted
        counted += units
        _work.COUNTER["streaks"] += units
        if est is None and counted > max_work:
            _work.check_work(what, counted * N / max(t, 1), instead, max_work)

    # --- walk A: (state, last value) -> vector over the current run length
    rep = np.zeros(N)
    tri = np.zeros(N)
    runs = np.zeros(size)
    layer: dict[tuple[Any, int], np.ndarray] = {}
    for j, q in enumerate(core.probs(core.start)):
        if q > 0:
            key = core.canon(core.step(core.start, j), j)
            vec = layer.setdefault(key, np.zeros(size))
            vec[1] += q
    states = [len(layer)]
    for t in range(1, N):
        nxt: dict[tuple[Any, int], np.ndarray] = {}
        for (x, d), vec in layer.items():
            total = vec.sum()
            moves = core.moves(x, d, True)
            for y, d2, same, q in moves:
                key = (y, d2)
                out = nxt.get(key)
                if out is None:
                    out = nxt[key] = np.zeros(size)
                if same:
                    out[1:] += q * vec[:-1]
                    rep[t] += q * total
                    tri[t] += q * vec[2:].sum()
                else:
                    runs += q * vec
                    out[1] += q * total
            charge(len(moves) * (STREAK_TRANSITION_UNITS + t + 2), t)
        if prune > 0:
            for k in [k for k, v in nxt.items() if v.sum() < prune]:
                dropped += float(nxt.pop(k).sum())
        layer = nxt
        states.append(len(layer))
    for vec in layer.values():
        runs += vec
    # --- walk B: (state, watched value, current gap) -> vector over the longest gap so far
    x0, v0 = core.canon(core.start, value)
    gaps: dict[tuple[Any, int, int], np.ndarray] = {(x0, v0, 0): np.zeros(size)}
    gaps[(x0, v0, 0)][0] = 1.0
    for t in range(N):
        nxt2: dict[tuple[Any, int, int], np.ndarray] = {}
        for (x, d, since), vec in gaps.items():
            moves = core.moves(x, d, False)
            for y, d2, hit, q in moves:
                s2 = 0 if hit else since + 1
                key = (y, d2, s2)
                out = nxt2.get(key)
                if out is None:
                    out = nxt2[key] = np.zeros(size)
                out += q * vec
                if s2 > since and out[since] != 0.0:  # the longest gap grows to since + 1
                    out[s2] += out[since]
                    out[since] = 0.0
            charge(len(moves) * (STREAK_TRANSITION_UNITS + t + 2), t + 1)
        if prune > 0:
            for k in [k for k, v in nxt2.items() if v.sum() < prune]:
                dropped += float(nxt2.pop(k).sum())
        gaps = nxt2
        states[t] = max(states[t], len(gaps))
    longest = np.zeros(size)
    for vec in gaps.values():
        longest += vec
    tail = np.cumsum(longest[::-1])[::-1]  # tail[k] = P(longest gap >= k)
    n_runs = float(runs.sum())
    summary = {
        "p_repeat": math.fsum(rep[1:].tolist()) / (N - 1) if N > 1 else 0.0,
        "p_triple": math.fsum(tri[2:].tolist()) / (N - 2) if N > 2 else 0.0,
        "longest_gap": math.fsum((k * p for k, p in enumerate(longest.tolist()))),
        "mean_run": N / n_runs if n_runs > 0 else float("nan"),
    }
    return Metrics(
        system=repr(system), n=n, samples=N, method="exact", summary=summary,
        se={k: 0.0 for k in summary},
        series={"p_repeat": tuple(rep[1:].tolist()),
                "run_lengths": tuple(runs[1:N + 1].tolist()),
                "p_gap": tuple(tail[1:N + 1].tolist())},
        states=tuple(states), dropped=dropped,
    )


def streak_montecarlo(system: System, samples: int, *, value: int = 0, trials: int = 10_000,
                      rng: Any = None, max_work: int | None = None) -> Metrics:
    """The same figures as :func:`streak_metrics` from ``trials`` simulated matches (any
    system, TGM3 included), each with its standard error. Cost and limits as
    :func:`~chancekit.fair.simulate_matches`.

    >>> from chancekit.fair import Dice
    >>> from chancekit.rng import PCG32
    >>> m = streak_montecarlo(Dice(6), 100, trials=2000, rng=PCG32(1))
    >>> abs(m["longest_gap"] - 18.152) < 4 * m.se["longest_gap"]
    True
    """
    samples, value = _check_system(system, samples, value)
    draws, _, _ = simulate_matches(system, samples, trials, rng, entropy=False,
                                   max_work=max_work)
    T, N = draws.shape
    d = draws.astype(np.int64)
    same = d[:, 1:] == d[:, :-1]
    tri = same[:, 1:] & same[:, :-1]
    since = np.zeros(T, dtype=np.int64)
    longest = np.zeros(T, dtype=np.int64)
    for t in range(N):
        since = np.where(d[:, t] == value, 0, since + 1)
        np.maximum(longest, since, out=longest)
    # run lengths: a run ends where the next draw differs, or at the end
    ends = np.ones((T, N), dtype=bool)
    ends[:, :-1] = ~same
    run_len = np.zeros((T, N), dtype=np.int64)
    cur = np.zeros(T, dtype=np.int64)
    for t in range(N):
        cur = cur + 1 if t == 0 else np.where(same[:, t - 1], cur + 1, 1)
        run_len[:, t] = cur
    lengths = run_len[ends]
    counts = np.bincount(lengths, minlength=N + 1)[1:N + 1] / T

    def mean_se(v: np.ndarray) -> tuple[float, float]:
        v = v.astype(np.float64)
        m = math.fsum(v.tolist()) / len(v)
        return m, float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan

    summary: dict[str, float] = {}
    se: dict[str, float] = {}
    for name, v in (("p_repeat", same.mean(axis=1) if N > 1 else np.zeros(T)),
                    ("p_triple", tri.mean(axis=1) if N > 2 else np.zeros(T)),
                    ("longest_gap", longest)):
        summary[name], se[name] = mean_se(v)
    n_runs = ends.sum(axis=1)
    summary["mean_run"] = N / (math.fsum(n_runs.tolist()) / T)
    se["mean_run"] = float(N * n_runs.std(ddof=1) / math.sqrt(T) / (n_runs.mean() ** 2)) \
        if T > 1 else math.nan
    tail = np.array([(longest >= k).mean() for k in range(1, N + 1)])
    return Metrics(
        system=repr(system), n=system.n, samples=N, method="montecarlo", summary=summary,
        se=se, series={"p_repeat": tuple(same.mean(axis=0).tolist()),
                       "run_lengths": tuple(counts.tolist()), "p_gap": tuple(tail.tolist())},
        series_se={"p_gap": tuple(np.sqrt(tail * (1 - tail) / T).tolist())}, trials=T)

