"""The exact engine: enumerate a system's Markov chain draw by draw (float64 arithmetic).

Count-based systems (:class:`Dice`, :class:`Deck`, :class:`GeneralizedDeck`,
:class:`DynamicDice`) are walked on the lattice of count vectors: after t draws the state
is how often each value was drawn — for a deck the cards left follow from the counts and t,
because the refills happen at fixed draws. Without base weights the values are
interchangeable, so a state is the count vector *sorted* (a partition of t into at most n
parts): 1 state per draw for a plain deck, at most p(t) otherwise. The layer is held as a
numpy matrix, so many candidates of a tuning grid are evaluated together (``batch``).

Any other system is walked generically on ``(system.getstate(), counts)`` through its own
``probabilities``/``observe`` (no symmetry removed).

Arithmetic is float64: probabilities are summed in a few hundred terms, so figures carry a
relative error around 1e-13 (entropies are irrational anyway). ``prune`` drops states whose
probability is below it and reports the dropped mass in ``Metrics.dropped``. A layer larger
than ``max_states`` (default :data:`MAX_STATES`) is refused with
:class:`~chancekit.errors.LimitError` — quickly, before any work when the state count is
known up front — and the message suggests Monte Carlo. A layer whose arrays would hold more
than :data:`MAX_LAYER_CELLS` states x values x candidates is refused the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.fair.metrics import Metrics, die_variance
from chancekit.fair.systems import Dice, DynamicDice, GeneralizedDeck, System, _CountSystem

__all__ = ["MAX_LAYER_CELLS", "MAX_STATES", "evaluate_exact", "evaluate_exact_batch",
           "partition_count"]

#: the largest number of states one draw's layer may hold in an exact evaluation
MAX_STATES = 300_000
#: the most states x values x candidates one layer's float64 arrays may hold (160 MB each)
MAX_LAYER_CELLS = 20_000_000


def partition_count(total: int, parts: int) -> int:
    """How many ways ``total`` splits into at most ``parts`` non-negative parts, order
    ignored: the number of symmetric states after ``total`` draws. O(total * parts).

    >>> partition_count(25, 6)
    612
    """
    table = [1] + [0] * total  # partitions with parts of size <= k (conjugate view)
    for k in range(1, parts + 1):
        for s in range(k, total + 1):
            table[s] += table[s - k]
    return table[total]


def _check_common(samples: int, max_states: int, prune: float) -> tuple[int, int, float]:
    samples = require_int("samples", samples, lo=1, hi=100_000)
    max_states = require_int("max_states", max_states, lo=1)
    if isinstance(prune, bool) or not isinstance(prune, (int, float)) or not (
        0.0 <= prune < 1.0
    ):
        raise InvalidValueError("prune", prune, "a number in [0, 1)")
    return samples, max_states, float(prune)


def _limit_error(name: str, states: int, max_states: int, t: int) -> LimitError:
    return LimitError(
        f"exact evaluation of {name} needs {states:,} states after draw {t}, above the limit "
        f"max_states={max_states:,}; use Monte Carlo instead (method='montecarlo', "
        f"--trials K), prune small states (prune=1e-12), or raise max_states",
        limit="max_states", value=states,
    )


def _cells_error(name: str, states: int, n: int, batch: int, t: int) -> LimitError:
    cells = states * n * batch
    return LimitError(
        f"exact evaluation of {name} holds {states:,} states x {n:,} values x {batch:,} "
        f"candidates = {cells:,} cells after draw {t}, more than MAX_LAYER_CELLS = "
        f"{MAX_LAYER_CELLS:,}; evaluate fewer candidates at once (a smaller "
        "tune(..., chunk_size=K)), a shorter match, or use Monte Carlo (method='montecarlo')",
        limit="MAX_LAYER_CELLS", value=cells,
    )


def evaluate_exact(system: System, samples: int, *, prune: float = 0.0,
                   max_states: int = MAX_STATES) -> Metrics:
    """Exact metrics of ``system`` (from its start state) over a match of ``samples`` draws.

    Cost: O(sum over t of states_t * n) numpy work for count-based systems (states_t at most
    the number of partitions of t into n parts), O(states * n) Python steps otherwise.

    >>> from chancekit.fair import DynamicDice
    >>> m = evaluate_exact(DynamicDice(6, 0.355), 25)
    >>> round(m.unpredictability, 4), round(m.outcome_variance, 4)
    (0.902, 0.459)
    """
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    samples, max_states, prune = _check_common(samples, max_states, prune)
    if isinstance(system, _CountSystem) and system.counts() == (0,) * system.n and (
        not isinstance(system, GeneralizedDeck) or system.getstate()[-1] == 1
    ):
        return evaluate_exact_batch([system], samples, prune=prune, max_states=max_states)[0]
    return _evaluate_generic(system, samples, prune, max_states)


# --------------------------------------------------------------------------- lattice engine
def _deck_schedule(deck: GeneralizedDeck, samples: int) -> np.ndarray:
    """blocks[t] = how many refills of s*w cards (incl. the initial one) happened before
    draw t+1 (t = 0..samples); deterministic, since refills depend only on cards left."""
    per = deck.size * sum(deck.weights)
    blocks, left = 1, per
    out = np.empty(samples + 1, dtype=np.int64)
    out[0] = 1
    for t in range(1, samples + 1):
        left -= 1
        if left < deck.refill:
            blocks += 1
            left += per
        out[t] = blocks
    return out


class _Batch:
    """Vectorised next-draw probabilities of a batch of count-based systems (same n)."""

    def __init__(self, systems: Sequence[_CountSystem], samples: int, symmetric: bool) -> None:
        self.n = systems[0].n
        self.B = len(systems)
        self.symmetric = symmetric
        self.kinds: list[tuple[str, np.ndarray, Any]] = []
        # group consecutive systems of the same family for vectorised evaluation
        dice_idx = [i for i, s in enumerate(systems) if isinstance(s, Dice)]
        dd_idx = [i for i, s in enumerate(systems) if isinstance(s, DynamicDice)]
        deck_idx = [i for i, s in enumerate(systems) if isinstance(s, GeneralizedDeck)]
        if len(dice_idx) + len(dd_idx) + len(deck_idx) != self.B:
            raise InvalidTypeError("systems", systems, "Dice, Deck, GeneralizedDeck or "
                                   "DynamicDice instances")
        if dice_idx:
            self.kinds.append(("dice", np.array(dice_idx), None))
        if dd_idx:
            f = np.array([systems[i].decrease for i in dd_idx])
            w = np.array([systems[i].weights for i in dd_idx]).T  # (n, b)
            self.kinds.append(("dd", np.array(dd_idx), (np.log(f), np.log(w))))
        if deck_idx:
            sched = np.array([_deck_schedule(systems[i], samples) for i in deck_idx]).T
            per = np.array([systems[i].size for i in deck_idx])
            w = np.array([systems[i].weights for i in deck_idx]).T  # (n, b)
            self.kinds.append(("deck", np.array(deck_idx), (sched, per, w)))

    def probs(self, S: np.ndarray, t: int) -> np.ndarray:
        """P[m, j, b]: chance that draw t+1 hits position j of state m, for candidate b."""
        m, n = S.shape
        P = np.empty((m, n, self.B))
        Sf = S.astype(np.float64)
        for kind, idx, data in self.kinds:
            if kind == "dice":
                P[:, :, idx] = 1.0 / n
            elif kind == "dd":
                logf, logw = data
                e = (Sf - Sf.min(axis=1, keepdims=True))[:, :, None] * logf[None, None, :]
                e = e + logw[None, :, :]
                e -= e.max(axis=1, keepdims=True)
                W = np.exp(e)
                P[:, :, idx] = W / W.sum(axis=1, keepdims=True)
            else:
                sched, per, w = data
                cap = (sched[t] * per)[None, None, :] * w[None, :, :]
                rem = np.clip(cap - S[:, :, None], 0, None).astype(np.float64)
                tot = rem.sum(axis=1, keepdims=True)
                with np.errstate(invalid="ignore", divide="ignore"):
                    P[:, :, idx] = np.where(tot > 0, rem / np.where(tot > 0, tot, 1), 0.0)
        return P


def _dedupe(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = np.ascontiguousarray(rows)
    view = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inv = np.unique(view, return_index=True, return_inverse=True)
    return rows[first], inv.ravel()


def evaluate_exact_batch(systems: Sequence[System], samples: int, *, prune: float = 0.0,
                         max_states: int = MAX_STATES) -> list[Metrics]:
    """Exact metrics of several count-based systems over the same n, in one sweep of the
    count lattice (how :func:`~chancekit.fair.tune` evaluates a grid quickly). Each system is
    taken from its start state. Cost as :func:`evaluate_exact`, with one extra factor of the
    batch size in the (vectorised) probability arithmetic only.

    >>> from chancekit.fair import Deck, Dice
    >>> [round(m.outcome_variance, 4) for m in evaluate_exact_batch([Dice(6), Deck(6)], 6)]
    [0.8333, 0.0]
    """
    samples, max_states, prune = _check_common(samples, max_states, prune)
    systems = list(systems)
    if not systems:
        raise InvalidValueError("systems", systems, "a non-empty list of systems")
    for s in systems:
        if not isinstance(s, _CountSystem):
            raise InvalidTypeError("systems", s, "Dice, Deck, GeneralizedDeck or DynamicDice")
    n = systems[0].n
    if any(s.n != n for s in systems):
        raise InvalidValueError("systems", [s.n for s in systems], "systems over the same n")
    symmetric = all(s.symmetric for s in systems)
    full = any(isinstance(s, (Dice, DynamicDice)) for s in systems)
    if full and prune == 0.0:
        bound = (partition_count(samples, n) if symmetric
                 else math.comb(samples + n - 1, n - 1))
        if bound > max_states:
            raise _limit_error(repr(systems[0]), bound, max_states, samples)
        if bound * n * len(systems) > MAX_LAYER_CELLS:
            raise _cells_error(repr(systems[0]), bound, n, len(systems), samples)
    batch = _Batch(systems, samples, symmetric)
    B = batch.B
    target = np.array([s.target() for s in systems]).T  # (n, B)
    dtype = np.int16 if samples < 32_000 else np.int32
    S = np.zeros((1, n), dtype=dtype)
    p = np.ones((1, B))
    ent = np.zeros((samples, B))
    guess = np.zeros((samples, B))
    var = np.zeros((samples, B))
    disc = np.zeros((samples, B))
    states: list[int] = []
    dropped = np.zeros(B)
    log_n = math.log(n)
    cols = np.arange(n)
    for t in range(samples):
        P = batch.probs(S, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            plogp = np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0)
        H = -plogp.sum(axis=1) / log_n  # (m, B)
        ent[t] = (p * H).sum(axis=0)
        guess[t] = (p * P.max(axis=1)).sum(axis=0)
        flows = p[:, None, :] * P  # (m, n, B)
        m = S.shape[0]
        if symmetric:
            # S rows are sorted descending: merge equal counts into the leftmost position
            # (incrementing it keeps the row sorted).
            same_prev = np.zeros((m, n), dtype=bool)
            same_prev[:, 1:] = S[:, 1:] == S[:, :-1]
            rep = ~same_prev
            group = np.cumsum(rep, axis=1) - 1  # group id within the row
            gflow = np.zeros((m, n, B))
            rows_idx = np.repeat(np.arange(m), n)
            np.add.at(gflow, (rows_idx, group.ravel()), flows.reshape(m * n, B))
            # representative j of group g is the g-th True of rep
            mi, ji = np.nonzero(rep)
            gi = group[mi, ji]
            fl = gflow[mi, gi]
        else:
            mi = np.repeat(np.arange(m), n)
            ji = np.tile(cols, m)
            fl = flows.reshape(m * n, B)
        keep = fl.max(axis=1) > prune if prune > 0 else fl.max(axis=1) > 0
        if not keep.all():
            dropped += fl[~keep].sum(axis=0) if prune > 0 else 0.0
            mi, ji, fl = mi[keep], ji[keep], fl[keep]
        nxt = S[mi].copy()
        nxt[np.arange(len(mi)), ji] += 1
        S, inv = _dedupe(nxt)
        if len(S) > max_states:
            raise _limit_error(repr(systems[0]), len(S), max_states, t + 1)
        if len(S) * n * B > MAX_LAYER_CELLS:
            raise _cells_error(repr(systems[0]), len(S), n, B, t + 1)
        p = np.zeros((len(S), B))
        np.add.at(p, inv, fl)
        states.append(len(S))
        dev_target = (t + 1) * target  # (n, B)
        dev = S.astype(np.float64)[:, :, None] - dev_target[None, :, :]
        var[t] = (p * (dev ** 2).mean(axis=1)).sum(axis=0)
        disc[t] = (p * np.abs(dev).max(axis=1)).sum(axis=0)
    out = []
    for b, sysm in enumerate(systems):
        kept = 1.0 - dropped[b]
        ov = float(var[-1, b])
        out.append(Metrics(
            system=repr(sysm), n=n, samples=samples, method="exact",
            summary={
                "unpredictability": float(ent[:, b].mean()),
                "guessability": float(guess[:, b].mean()),
                "outcome_variance": ov,
                "variance_ratio": ov / die_variance(n, samples),
                "discrepancy": float(disc[-1, b]),
            },
            se={k: 0.0 for k in ("unpredictability", "guessability", "outcome_variance",
                                 "variance_ratio", "discrepancy")},
            series={"entropy": tuple(ent[:, b].tolist()),
                    "guessability": tuple(guess[:, b].tolist()),
                    "outcome_variance": tuple(var[:, b].tolist()),
                    "discrepancy": tuple(disc[:, b].tolist())},
            states=tuple(states), dropped=float(1.0 - kept),
        ))
    return out


# --------------------------------------------------------------------------- generic engine
def _evaluate_generic(system: System, samples: int, prune: float,
                      max_states: int) -> Metrics:
    n = system.n
    work = system.copy()
    start = work.getstate()
    target = np.array(system.target())
    layer: dict[tuple[Any, tuple[int, ...]], float] = {(start, (0,) * n): 1.0}
    ent, guess, var, disc, states = [], [], [], [], []
    dropped = 0.0
    log_n = math.log(n)
    for t in range(samples):
        e = g = 0.0
        nxt: dict[tuple[Any, tuple[int, ...]], float] = {}
        for (st, counts), prob in layer.items():
            work.setstate(st)
            probs = work.probabilities()
            e -= prob * sum(q * math.log(q) for q in probs if q > 0) / log_n
            g += prob * max(probs)
            for i, q in enumerate(probs):
                if q <= 0.0:
                    continue
                work.setstate(st)
                work.observe(i)
                c = list(counts)
                c[i] += 1
                key = (work.getstate(), tuple(c))
                nxt[key] = nxt.get(key, 0.0) + prob * q
        if prune > 0:
            small = [k for k, v in nxt.items() if v < prune]
            for k in small:
                dropped += nxt.pop(k)
        if len(nxt) > max_states:
            raise _limit_error(repr(system), len(nxt), max_states, t + 1)
        if len(nxt) * n > MAX_LAYER_CELLS:
            raise _cells_error(repr(system), len(nxt), n, 1, t + 1)
        layer = nxt
        states.append(len(layer))
        ent.append(e)
        guess.append(g)
        v = d = 0.0
        for (_, counts), prob in layer.items():
            dev = np.asarray(counts, dtype=float) - (t + 1) * target
            v += prob * float((dev ** 2).mean())
            d += prob * float(np.abs(dev).max())
        var.append(v)
        disc.append(d)
    ov = var[-1]
    return Metrics(
        system=repr(system), n=n, samples=samples, method="exact",
        summary={"unpredictability": float(np.mean(ent)), "guessability": float(np.mean(guess)),
                 "outcome_variance": ov, "variance_ratio": ov / die_variance(n, samples),
                 "discrepancy": disc[-1]},
        se={k: 0.0 for k in ("unpredictability", "guessability", "outcome_variance",
                             "variance_ratio", "discrepancy")},
        series={"entropy": tuple(ent), "guessability": tuple(guess),
                "outcome_variance": tuple(var), "discrepancy": tuple(disc)},
        states=tuple(states), dropped=dropped,
    )
