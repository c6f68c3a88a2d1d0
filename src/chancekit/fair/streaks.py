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
the smallest for dynamic dice, the history for TGM and other history rerolls,
``getstate()`` for other systems — and, without base weights, the values are
interchangeable, so a state is the vector with the distinguished value (the last one, or
the watched one) first and the others sorted; a history has its values renamed in order of
appearance (TGM: at most 52 histories instead of 2 401). The reduced chain is enumerated
first, one sparse operator per draw (numpy over a whole layer for dynamic dice); then two
numpy walks: (state x current run length) for repeats and runs, and (state x packed cells
of current gap c <= longest gap L) for droughts. Dynamic dice's relative counts are
unbounded, so they drop by default the states, gap rows and L columns less likely than
:data:`DEFAULT_PRUNE` (1e-15; ``dropped`` reports the mass, about 1e-12 at n = 6, N = 100,
and the figures stay within 1e-9 of the unpruned ones); other systems are exact unless
``prune`` is given.

Cost: O(sum over t of moves_t x cells_t), where moves_t are the reduced chain's moves after
draw t (states x distinct values drawn) and cells_t <= (t + 1)(t + 2) / 2 the (c, L) cells
the drought walk keeps. The work is estimated in units of about 25 ns and refused with
``LimitError`` past :data:`~chancekit.fair.work.MAX_FAIR_WORK` (about a second):
up front, from a bound on the reduced states, for dice, decks, TGM and history rerolls and
unpruned dynamic dice; for pruned dynamic dice (and systems of your own) the reduced chain
is enumerated and counted first (refused as soon as that passes the limit), then the
walks are estimated from the states met, before they start. At n = 6, N = 100 (measured in
docs/performance.md): dice 0.02 s, TGM1/TGM2 0.2 s (exact), dynamic dice f = 0.25 0.3 s and
f = 0.355 0.6 s; f = 0.5 is estimated at about 9e7 units (2.5 s) and so is refused unless
``max_work`` is raised.

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

from chancekit._numpy import lazy
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError
from chancekit.fair import work as _work
from chancekit.fair.exact import lattice_estimate
from chancekit.fair.metrics import Metrics
from chancekit.fair.montecarlo import simulate_matches
from chancekit.fair.studio import TGMRandomizer
from chancekit.fair.systems import Dice, DynamicDice, GeneralizedDeck, HistoryReroll, System

#: numpy, imported when a streak metric first runs (they are numpy only: the pages do not
#: use them, so they have no pure twin; see chancekit._numpy)
np = lazy("the streak metrics (streak_metrics, streak_montecarlo)")

__all__ = ["DEFAULT_PRUNE", "streak_metrics", "streak_montecarlo"]

#: work units of one (state, value) move of the reduced chain enumerated in Python
STREAK_TRANSITION_UNITS = 40
#: ... and enumerated by numpy over a whole layer (dynamic dice)
STREAK_VECTOR_UNITS = 4
#: one cell x move of the streak arrays (numpy gather, multiply and reduceat)
STREAK_CELL_UNITS = 0.2
#: fixed cost of one draw of one walk (a dozen numpy calls)
STREAK_LAYER_UNITS = 400
#: default ``prune`` of dynamic dice, whose relative counts are unbounded: the states (and
#: streak rows) less likely than this are dropped, and their mass reported in ``dropped``
DEFAULT_PRUNE = 1e-15


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
        self.relabel = self.tgm = False
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
            kind = type(system)
            #: history rerolls: the values are interchangeable once the first draw is made
            self.relabel = kind is HistoryReroll or kind is TGMRandomizer
            self.tgm = kind is TGMRandomizer
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
        if self.relabel:  # a history: values renamed in order of appearance
            if not self.tgm:
                return _relabel(x, d)
            if x[0]:  # TGM before its first piece: S, Z and O are not allowed yet
                return x, d
            hist, d2 = _relabel(x[1], d)
            return (False, hist), d2
        if not self.symmetric:
            return x, d
        rest = sorted((x[i] for i in range(self.n) if i != d), reverse=True)
        return (x[d], *rest), 0


def _relabel(hist: tuple[int, ...], d: int) -> tuple[tuple[int, ...], int]:
    """A history with its values renamed: ``d`` -> 0, the others by first appearance."""
    names = {d: 0}
    return tuple(names.setdefault(v, len(names)) for v in hist), 0


def _history_states(n: int, length: int) -> int:
    """Histories of ``length`` values out of ``n`` up to renaming, with one value marked
    (one of those in the history, or any other): sum over b of S(length, b) x (b + [b < n])."""
    stirling = [1] + [0] * length  # S(k, b) for the current k, by b
    for _ in range(length):
        stirling = [0] + [stirling[b - 1] + b * stirling[b] for b in range(1, length + 1)]
    return sum(s * (b + (b < n)) for b, s in enumerate(stirling) if b <= n)


def _state_bound(system: System, samples: int, prune: float) -> np.ndarray | None:
    """Upper bounds on the reduced states (marked value included) after each draw
    t = 0..samples, or None when there is none that is useful (checked as it runs)."""
    n = system.n
    if isinstance(system, Dice):
        return np.full(samples + 1, float(n))
    if isinstance(system, GeneralizedDeck) or (isinstance(system, DynamicDice) and not prune):
        return np.concatenate(([1.0], lattice_estimate([system], samples)[0])) * n
    kind = type(system)
    if kind is HistoryReroll or kind is TGMRandomizer:
        h = system.history if kind is HistoryReroll else len(system.start)
        per = [float(_history_states(n, min(t, h) if kind is HistoryReroll else h))
               for t in range(samples + 1)]
        return np.array(per) + (n if kind is TGMRandomizer else 0)
    return None


class _Scatter:
    """Moves ``src -> dst`` (layer indices) with chances ``q``, applied to the rows of a
    (states x cells) array: out[dst] += q x in[src]. Grouped by rank among the moves into
    the same target, so each group is one gather and one scatter without collisions."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, q: np.ndarray, size: int) -> None:
        order = np.argsort(dst, kind="stable")
        self.src, self.dst, self.q, self.size = src[order], dst[order], q[order], size
        targets, starts, counts = np.unique(self.dst, return_index=True, return_counts=True)
        rank = np.arange(len(self.dst)) - np.repeat(starts, counts)
        self.groups = [(self.src[rank == r], self.dst[rank == r], self.q[rank == r, None])
                       for r in range(int(counts.max()) if len(counts) else 0)]
        self.full = len(targets) == size  # every target reached: the first group covers all

    def __len__(self) -> int:
        return len(self.src)

    def apply(self, x: np.ndarray) -> np.ndarray:
        if not self.groups:
            return np.zeros((self.size, x.shape[1]))
        s0, d0, q0 = self.groups[0]
        if self.full:
            out = x[s0]
            out *= q0
        else:
            out = np.zeros((self.size, x.shape[1]))
            out[d0] = x[s0] * q0
        for s, d, q in self.groups[1:]:
            g = x[s]
            g *= q
            out[d] += g
        return out

    def apply1(self, v: np.ndarray) -> np.ndarray:
        return np.bincount(self.dst, weights=self.q * v[self.src], minlength=self.size)

    def weight(self, states: int) -> np.ndarray:
        """Total chance of these moves out of each source state."""
        return np.bincount(self.src, weights=self.q, minlength=states)


class _Op:
    """One draw of the reduced chain: moves that hit the marked value, the others, and the
    moves into pruned states (their mass is dropped)."""

    def __init__(self, states: int, src: np.ndarray, dst: np.ndarray, q: np.ndarray,
                 hit: np.ndarray, keep: np.ndarray | None) -> None:
        self.states = states
        if keep is None:
            self.size = int(dst.max()) + 1 if len(dst) else 0
            ok = np.ones(len(dst), dtype=bool)
        else:
            new = np.cumsum(keep) - 1
            self.size = int(keep.sum())
            ok = keep[dst]
            dst = new[dst]
        self.lost_src, self.lost_q = src[~ok], q[~ok]
        h, m = ok & hit, ok & ~hit
        self.hit = _Scatter(src[h], dst[h], q[h], self.size)
        self.miss = _Scatter(src[m], dst[m], q[m], self.size)

    def lost(self, col: np.ndarray) -> float:
        return float(self.lost_q @ col[self.lost_src]) if len(self.lost_q) else 0.0


def _small(mass: np.ndarray, prune: float) -> np.ndarray:
    return mass < prune if prune > 0 else mass == 0


def _layers(core: _Core, keys: list[Any], mass: list[float], steps: int, follow: bool,
            prune: float, budget: _Budget) -> list[_Op]:
    """The reduced chain from ``keys`` (with ``mass``) over ``steps`` draws, one
    :class:`_Op` a draw; states below ``prune`` are dropped. Dynamic dice run vectorised."""
    if core.kind == "dd":
        return _dd_layers(core, keys, mass, steps, follow, prune, budget)
    ops: list[_Op] = []
    m = np.array(mass)
    same = False
    for _ in range(steps):
        if same:  # a fixed point (same states, same order): every later draw alike
            ops.append(ops[-1])
            budget.charge(STREAK_LAYER_UNITS)
            continue
        nxt: dict[Any, int] = {}
        src: list[int] = []
        dst: list[int] = []
        qs: list[float] = []
        hits: list[bool] = []
        for i, (x, d) in enumerate(keys):
            for y, d2, hit, q in core.moves(x, d, follow):
                src.append(i)
                dst.append(nxt.setdefault((y, d2), len(nxt)))
                qs.append(q)
                hits.append(hit)
        budget.charge(len(src) * STREAK_TRANSITION_UNITS)
        s, t, q = np.array(src, dtype=np.intp), np.array(dst, dtype=np.intp), np.array(qs)
        new = np.bincount(t, weights=q * m[s], minlength=len(nxt))
        keep = ~_small(new, prune) if prune > 0 else None
        ops.append(_Op(len(keys), s, t, q, np.array(hits, dtype=bool), keep))
        new_keys = list(nxt)
        if keep is not None:
            new_keys = [k for k, ok in zip(new_keys, keep.tolist(), strict=True) if ok]
            new = new[keep]
        same = prune == 0 and new_keys == keys
        keys, m = new_keys, new
    return ops


def _dd_layers(core: _Core, keys: list[Any], mass: list[float], steps: int, follow: bool,
               prune: float, budget: _Budget) -> list[_Op]:
    """:func:`_layers` for dynamic dice, numpy over a layer's states: a state is a row of
    relative counts (minimum 0) — marked value first and the others sorted when symmetric,
    else ``(marked index, counts...)``."""
    system = core.system
    assert isinstance(system, DynamicDice)
    n, sym = core.n, core.symmetric
    rows = np.array([x if sym else (d, *x) for x, d in keys], dtype=np.int64)
    logw = np.log(np.array(system.weights))
    logf = math.log(system.decrease)
    eye = np.eye(n, dtype=np.int64)
    m = np.array(mass)
    ops: list[_Op] = []
    for _ in range(steps):
        S = len(rows)
        budget.charge(S * n * STREAK_VECTOR_UNITS)
        x = rows if sym else rows[:, 1:]
        w = np.exp(logf * x + (0.0 if sym else logw))
        p = w / w.sum(axis=1, keepdims=True)
        new = x[:, None, :] + eye  # (S, drawn j, n)
        new -= new.min(axis=2, keepdims=True)
        j = np.arange(n)
        if sym:
            if follow:  # the drawn value becomes the marked one
                first = new[:, j, j]
                rest = new.copy()
                rest[:, j, j] = -1
            else:
                first = new[:, :, 0]
                rest = new.copy()
                rest[:, :, 0] = -1
            rest = -np.sort(-rest, axis=2)[:, :, : n - 1]
            out = np.concatenate((first[:, :, None], rest), axis=2)
            hit = np.broadcast_to(j == 0, (S, n))
        else:
            d = rows[:, 0]
            d2 = np.broadcast_to(j, (S, n)) if follow else np.broadcast_to(d[:, None], (S, n))
            out = np.concatenate((d2[:, :, None], new), axis=2)
            hit = j[None, :] == d[:, None]
        flat = out.reshape(S * n, -1)
        base = int(flat.max()) + 1
        if base ** flat.shape[1] < 2**62:
            code = flat @ (base ** np.arange(flat.shape[1], dtype=np.int64))
            _, first_at, dst = np.unique(code, return_index=True, return_inverse=True)
        else:
            _, first_at, dst = np.unique(flat, axis=0, return_index=True, return_inverse=True)
        dst = dst.reshape(-1)
        src = np.repeat(np.arange(S), n)
        q = p.reshape(-1)
        hit = hit.reshape(-1)
        # merge the moves with the same source, target and kind (tied counts)
        key = (src * len(first_at) + dst) * 2 + hit
        key, at, inv = np.unique(key, return_index=True, return_inverse=True)
        q = np.bincount(inv.reshape(-1), weights=q, minlength=len(key))
        src, dst, hit = src[at], dst[at], hit[at]
        new_m = np.bincount(dst, weights=q * m[src], minlength=len(first_at))
        keep = ~_small(new_m, prune) if prune > 0 else None
        ops.append(_Op(S, src, dst, q, hit, keep))
        rows = flat[first_at]
        if keep is not None:
            rows, new_m = rows[keep], new_m[keep]
        m = new_m
    return ops


def _estimate(system: System, samples: int, prune: float, *,
              chain_only: bool = False) -> float | None:
    """Upper bound on the work units of the whole computation from the bound on the
    reduced states (:func:`_state_bound`), or None (then counted as it runs, and the walks
    estimated from the states met before they start). ``chain_only``: the bound on what
    comes before the walks (the reduced chain and its current-gap rows)."""
    bound = _state_bound(system, samples, prune)
    if bound is None:
        return None
    n = system.n
    s, s2 = bound[:-1], bound[1:]
    e = s * n
    rows = np.arange(1, samples + 1, dtype=np.float64)  # current gap, longest gap, run
    per_move = STREAK_VECTOR_UNITS if isinstance(system, DynamicDice) else \
        STREAK_TRANSITION_UNITS
    chain = 2 * e * per_move
    cells = rows * (rows + 1) / 2  # current gap <= longest gap < t
    if chain_only:
        return float((chain + rows * (e + s) * STREAK_CELL_UNITS).sum()
                     + 3 * samples * STREAK_LAYER_UNITS)
    walks = (cells * (e + s) + rows * (e + s) + (cells + rows + 1) * s2  # drought
             + rows * (e + s)  # its current-gap rows, counted first
             + rows * (e + 2 * s + s2) + e)  # runs
    return float((chain + walks * STREAK_CELL_UNITS).sum()
                 + 3 * samples * STREAK_LAYER_UNITS)


def _check_system(system: Any, samples: int, value: int) -> tuple[int, int]:
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    samples = require_int("samples", samples, lo=1, hi=100_000)
    value = require_int("value", value, lo=0, hi=system.n - 1)
    return samples, value


class _Budget:
    """Work counted as it runs (:data:`~chancekit.fair.work.COUNTER` ``["streaks"]``);
    refused past ``max_work`` when no estimate covered it up front."""

    def __init__(self, what: str, instead: str, max_work: int, checked: bool) -> None:
        self.what, self.instead, self.max_work, self.checked = what, instead, max_work, checked
        self.counted = 0.0

    def charge(self, units: float) -> None:
        self.counted += units
        _work.COUNTER["streaks"] += units
        if self.checked and self.counted > self.max_work:
            _work.check_work(self.what, self.counted, self.instead, self.max_work)


def _walk_units(ops_a: list[_Op], ops_b: list[_Op], sigmas: list[int]) -> float:
    """Upper bound on the units of both streak walks, from the reduced chain's layers and
    the rows of the current gap (``sigmas[t]`` after draw t; the longest gap so far never
    exceeds the largest of them)."""
    units = 0.0
    for t, op in enumerate(ops_a, start=1):  # rows: run lengths <= t
        units += t * (len(op.hit) + 2 * op.states + op.size) + len(op.miss)
    lam = 1
    for t, op in enumerate(ops_b):
        sig = sigmas[t]
        lam = max(lam, sig)
        cells = sig * lam - sig * (sig - 1) // 2  # c <= L < lam, c < sig
        lam2 = max(lam, sig + 1)
        cells2 = (sig + 1) * lam2 - (sig + 1) * sig // 2
        units += cells * (len(op.miss) + op.states) + lam * (len(op.hit) + op.states)
        units += cells2 * op.size
    return units * STREAK_CELL_UNITS + (len(ops_a) + len(ops_b)) * STREAK_LAYER_UNITS


def _sigma_rows(ops: list[_Op], start: np.ndarray, prune: float,
                budget: _Budget) -> list[int]:
    """Rows of the current gap the drought walk carries after each draw: the walk over
    (reduced state, current gap) alone, trimmed like the drought walk (which holds no more
    mass in any row, so never more rows)."""
    x = start[:, None]
    rows = [1]
    for op in ops:
        budget.charge(x.shape[1] * (len(op.miss) + op.states) * STREAK_CELL_UNITS
                      + STREAK_LAYER_UNITS)
        y = np.empty((op.size, x.shape[1] + 1))
        y[:, 0] = op.hit.apply1(x.sum(axis=1))
        y[:, 1:] = op.miss.apply(x)
        keep = y.shape[1] - _trailing(y.sum(axis=0), prune)
        x = y[:, :keep]
        rows.append(keep)
    return rows


def _cells(sig: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The packed cells of the drought walk: current gap c < ``sig`` and longest gap L in
    [max(c, lo), hi], by c then L; returns (c, L, offsets of each c's block)."""
    widths = [hi - max(c, lo) + 1 for c in range(sig)]
    off = [0]
    for w in widths:
        off.append(off[-1] + w)
    cs = np.repeat(np.arange(sig), widths)
    cl = np.concatenate([np.arange(max(c, lo), hi + 1) for c in range(sig)])
    return cs, cl, off


def _trailing(mass: np.ndarray, prune: float) -> int:
    """How many of the last entries are negligible (all but the first may go)."""
    small = _small(mass[1:], prune)
    k = 0
    while k < len(small) and small[len(small) - 1 - k]:
        k += 1
    return k


def streak_metrics(system: System, samples: int, *, value: int = 0,
                   prune: float | None = None, max_work: int | None = None) -> Metrics:
    """Exact streak and drought metrics of ``system`` (from its current state) over a match
    of ``samples`` draws; see the module docstring for the definitions. Returns
    :class:`~chancekit.fair.Metrics` (``method="exact"``) with summary ``p_repeat``,
    ``p_triple``, ``longest_gap``, ``mean_run`` and series ``p_repeat`` (draws 2..N),
    ``run_lengths`` and ``p_gap``; ``dropped`` is the mass pruned.

    ``prune`` (default: :data:`DEFAULT_PRUNE` for dynamic dice, whose relative counts are
    unbounded, else 0 — nothing dropped) drops the reduced states and the rows of the
    streak arrays whose probability is below it. Refused with ``LimitError`` past
    ``max_work`` (default :data:`~chancekit.fair.work.MAX_FAIR_WORK`) estimated units:
    before anything runs when the reduced states are bounded (dice, decks, TGM and other
    history rerolls, unpruned dynamic dice), else once the reduced chain is enumerated
    (counted as it runs) and before the streak walks.

    >>> from chancekit.fair import TGMRandomizer
    >>> m = streak_metrics(TGMRandomizer.tgm1(), 12)
    >>> round(m["p_repeat"], 5), round(m["longest_gap"], 2)
    (0.02152, 6.39)
    """
    samples, value = _check_system(system, samples, value)
    if prune is None:
        prune = DEFAULT_PRUNE if isinstance(system, DynamicDice) else 0.0
    if isinstance(prune, bool) or not isinstance(prune, (int, float)) or not 0 <= prune < 1:
        raise InvalidValueError("prune", prune, "a number in [0, 1)")
    prune = float(prune)
    max_work = _work.MAX_FAIR_WORK if max_work is None else require_int("max_work", max_work,
                                                                        lo=1)
    n, N = system.n, samples
    what = f"exact streak metrics of {system!r} over {N:,} draws"
    instead = "Monte Carlo (streak_montecarlo, --trials K), a shorter match, or prune=1e-12"
    _work.check_work(what, N * n * (STREAK_TRANSITION_UNITS + N), instead, max_work)
    est = _estimate(system, N, prune)
    bounded = est is not None  # the chain is bounded up front: no checks as it runs
    if est is not None and est > max_work:
        # the bound on the walks' cells (every current gap up to t) is loose for systems
        # whose gaps stay short (a deck's): bound the chain up front, then estimate the
        # walks from the current-gap rows met, before they start
        _work.check_work(what, _estimate(system, N, prune, chain_only=True), instead,
                         max_work)
        est = None
    budget = _Budget(what, instead, max_work, checked=not bounded)
    core = _Core(system)
    # --- the reduced chain, one operator a draw: (state, last value) and (state, watched)
    first: dict[Any, float] = {}
    for j, q in enumerate(core.probs(core.start)):
        if q > 0:
            key = core.canon(core.step(core.start, j), j)
            first[key] = first.get(key, 0.0) + q
    ops_a = _layers(core, list(first), list(first.values()), N - 1, True, prune, budget)
    ops_b = _layers(core, [core.canon(core.start, value)], [1.0], N, False, prune, budget)
    start_b = np.ones(1)
    sigmas = _sigma_rows(ops_b, start_b, prune, budget)
    if est is None:  # the walks' own work, from the states counted
        _work.check_work(what, budget.counted + _walk_units(ops_a, ops_b, sigmas), instead,
                         max_work)
    states = [len(first)] + [op.size for op in ops_a]
    states = [max(a, op.size) for a, op in zip(states, ops_b, strict=True)]
    dropped = 0.0
    size = N + 2
    # --- walk A: (run length - 1, state with the last value marked)
    rep, tri, runs = np.zeros(N), np.zeros(N), np.zeros(size)
    x = np.array(list(first.values()))[:, None]  # (state, run length - 1)
    for t, op in enumerate(ops_a, start=1):
        col = x.sum(axis=1)
        same = op.hit
        rep[t] = same.q @ col[same.src]
        tri[t] = same.q @ (col - x[:, 0])[same.src]
        runs[1:x.shape[1] + 1] += op.miss.weight(op.states) @ x
        dropped += op.lost(col)
        budget.charge(x.shape[1] * (len(same) + 2 * op.states + op.size) * STREAK_CELL_UNITS
                      + STREAK_LAYER_UNITS)
        y = np.empty((op.size, x.shape[1] + 1))
        y[:, 0] = op.miss.apply1(col)
        y[:, 1:] = same.apply(x)
        rows = y.sum(axis=0)
        k = _trailing(rows, prune)
        dropped += float(rows[len(rows) - k:].sum())
        x = y[:, :y.shape[1] - k]
    runs[1:x.shape[1] + 1] += x.sum(axis=0)
    # --- walk B: (current gap, longest gap so far - lo, state with the watched value marked)
    # packed cells (current gap c, longest gap so far L), c <= L, lo <= L <= hi, c < sig
    g = np.ones((1, 1))
    sig, lo, hi = 1, 0, 0
    _, cl, off = _cells(sig, lo, hi)
    for op in ops_b:
        S, C = g.shape
        h = np.zeros((S, hi - lo + 1))  # by the longest gap, current gaps summed
        for c in range(sig):
            a = max(c, lo)
            h[:, a - lo:] += g[:, off[c]:off[c + 1]]
        dropped += op.lost(h.sum(axis=1))
        hi2 = max(hi, sig)
        cs2, cl2, off2 = _cells(sig + 1, lo, hi2)
        budget.charge((C * (len(op.miss) + S) + (hi - lo + 1) * (len(op.hit) + S)
                       + len(cs2) * op.size) * STREAK_CELL_UNITS + STREAK_LAYER_UNITS)
        z = np.zeros((op.size, len(cs2)))
        z[:, off2[0]:off2[0] + hi - lo + 1] = op.hit.apply(h)
        y = op.miss.apply(g)
        for c in range(sig):  # a miss: gap c + 1, and the longest grows to it if needed
            a, b = off[c], off[c + 1]
            if c >= lo:  # the cell L = c moves to L = c + 1
                z[:, off2[c + 1]:off2[c + 1] + b - a - 1] = y[:, a + 1:b]
                z[:, off2[c + 1]] += y[:, a]
            else:
                z[:, off2[c + 1]:off2[c + 1] + b - a] = y[:, a:b]
        mass = z.sum(axis=0)
        by_c = np.bincount(cs2, weights=mass, minlength=sig + 1)
        sig2 = sig + 1 - _trailing(by_c, prune)
        by_l = np.bincount(cl2 - lo, weights=mass * (cs2 < sig2), minlength=hi2 - lo + 1)
        hi3 = hi2 - _trailing(by_l, prune)
        lo2 = lo + min(_trailing(by_l[::-1], prune), hi3 - lo)
        sig2 = min(sig2, hi3 + 1)  # a current gap never exceeds the longest
        keep = (cs2 < sig2) & (cl2 >= lo2) & (cl2 <= hi3)
        if not keep.all():
            dropped += float(mass[~keep].sum())
            z = z[:, keep]
            cs2, cl2, off2 = _cells(sig2, lo2, hi3)
        g, sig, lo, hi, cl, off = z, sig2, lo2, hi3, cl2, off2
    longest = np.zeros(size)
    longest[:hi + 1] = np.bincount(cl, weights=g.sum(axis=0), minlength=hi + 1)
    tail = np.cumsum(longest[::-1])[::-1]  # tail[k] = P(longest gap >= k)
    n_runs = math.fsum(runs.tolist())
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

