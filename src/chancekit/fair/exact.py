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

Time is bounded too: before the first draw, the work is estimated from an upper bound on
every layer's state count (:func:`lattice_estimate`: partitions of t for dice and dynamic
dice; for decks, the sorted count vectors inside the box the refill rule allows;
:meth:`System.state_bound` for the generic engine) and refused past
:data:`~chancekit.fair.work.MAX_FAIR_WORK` units (about a second). Only a system without a
``state_bound`` (a user's own), or ``prune > 0`` (which makes layers smaller than any bound),
is checked as it runs instead: refused as soon as the counted work passes the limit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import reduce
from operator import add
from typing import Any

from chancekit._numpy import numpy as _numpy
from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, InvalidValueError, LimitError
from chancekit.fair import work as _work
from chancekit.fair.metrics import Metrics, independent_variance
from chancekit.fair.systems import Dice, DynamicDice, GeneralizedDeck, System, _CountSystem
from chancekit.limits import MAX_LAYER_CELLS, MAX_STATES

__all__ = ["MAX_LAYER_CELLS", "MAX_STATES", "evaluate_exact", "evaluate_exact_batch",
           "lattice_estimate", "partition_count"]



def partition_count(total: int, parts: int) -> int:
    """How many ways ``total`` splits into at most ``parts`` non-negative parts, order
    ignored: the number of symmetric states after ``total`` draws. O(total * parts).

    >>> partition_count(25, 6)
    612
    >>> partition_count(25, 10**6)  # more parts than the total: capped at the total
    1958
    """
    parts = min(parts, total)
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


def _box_counts(n: int, k: int, deg: int) -> Any:
    """``out[m]`` (m = 0..deg): how many partitions of m have at most ``n`` parts, each at
    most ``k`` — the coefficients of the Gaussian binomial ``[n + k, n]_q`` — as floats
    (``inf`` past float range). O(min(n, deg)) numpy passes over ``deg + 1`` numbers (a
    numpy array); without numpy the same sums in Python (a list, the same floats).

    >>> [int(x) for x in _box_counts(2, 2, 5)]
    [1, 1, 2, 1, 1, 0]
    """
    np = _numpy()
    if np is None:
        return _box_counts_py(n, k, deg)
    a = np.zeros(deg + 1)
    a[0] = 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(1, min(n, deg) + 1):
            if k + i <= deg:  # times (1 - q**(k+i))
                a[k + i:] -= a[: deg + 1 - (k + i)].copy()
            pad = (-len(a)) % i  # divided by (1 - q**i): a[j] += a[j - i], in stride-i runs
            a = np.cumsum(np.concatenate([a, np.zeros(pad)]).reshape(-1, i), axis=0)
            a = a.ravel()[: deg + 1]
    return np.where(np.isnan(a), np.inf, np.maximum(a, 0.0))


def _box_counts_py(n: int, k: int, deg: int) -> list[float]:
    """:func:`_box_counts` without numpy: the same float operations in the same order."""
    a = [0.0] * (deg + 1)
    a[0] = 1.0
    for i in range(1, min(n, deg) + 1):
        s = k + i
        if s <= deg:
            old = a[: deg + 1 - s]
            for j in range(s, deg + 1):
                a[j] -= old[j - s]
        for j in range(i, deg + 1):
            a[j] += a[j - i]
    return [math.inf if x != x else max(x, 0.0) for x in a]


def _blocks(per: int, refill: int, samples: int) -> Any:
    """``out[t]`` = deck blocks added (the initial one included) after t draws, t =
    0..samples, for a deck of ``per`` cards per block: the smallest B >= 1 with
    ``per*B - t >= refill`` when ``per >= refill`` (then one refill per draw is enough).
    A numpy int64 array, or a list of ints without numpy."""
    np = _numpy()
    if np is not None and per >= refill:
        t = np.arange(samples + 1, dtype=np.int64)
        return np.maximum(1, -(-(t + refill) // per))
    if per >= refill:
        return [max(1, -(-(t + refill) // per)) for t in range(samples + 1)]
    out = [1] * (samples + 1)
    blocks, left = 1, per
    for t in range(1, samples + 1):
        left -= 1
        if left < refill:
            blocks += 1
            left += per
        out[t] = blocks
    return out if np is None else np.array(out, dtype=np.int64)


def lattice_estimate(systems: Sequence[System], samples: int) -> tuple[Any, bool]:
    """Upper bounds on the number of states after each draw t = 1..samples of one lattice
    sweep of ``systems`` (count-based, same n), and whether the bound is *reached* (dice and
    dynamic dice visit every sorted count vector). Dice and dynamic dice: partitions of t
    into at most n parts (compositions when weighted); decks: the sorted count vectors
    inside the box the refill rule allows — value i has between ``s*w*B - (s*w + r - 1)``
    and ``s*w*B`` draws after B blocks — over the union of the candidates' boxes.
    Within a factor of about 2 to 3 of the states actually met (a test checks it is never
    below). O(samples * candidates) numpy work plus O(samples) steps. The bounds are a
    numpy array (a list of the same floats without numpy).

    >>> from chancekit.fair import DynamicDice, GeneralizedDeck
    >>> bound, full = lattice_estimate([DynamicDice(6, 0.5)], 25)
    >>> int(bound[-1]), full
    (612, True)
    >>> bound, full = lattice_estimate([GeneralizedDeck(6, 1, 1)], 25)
    >>> int(max(bound)), full
    (1, False)
    """
    np = _numpy()
    n = systems[0].n
    symmetric = all(getattr(s, "symmetric", False) for s in systems)
    full = any(isinstance(s, (Dice, DynamicDice)) for s in systems)
    if not symmetric:  # compositions of t into n parts: C(t + n - 1, n - 1), in floats
        lg = [math.lgamma(x) for x in range(1, samples + n + 1)]  # lg[k] = ln k!
        logs = [lg[t + n - 1] - lg[t] - lg[n - 1] for t in range(1, samples + 1)]
        if np is None:
            return [_exp_or_inf(x) for x in logs], full
        with np.errstate(over="ignore"):
            return np.exp(np.array(logs)), full
    part = _box_counts(n, samples, samples)
    bound = list(part[1:]) if np is None else part[1:].copy()
    if full:
        return bound, full
    los: list[int] | None = None
    his: list[int] | None = None
    for d in systems:
        assert isinstance(d, GeneralizedDeck)
        sw = d.size * d.weights[0]
        blocks = list(_blocks(d.size * sum(d.weights), d.refill, samples))[1:]
        lo = [max(0, sw * int(b) - (sw + d.refill - 1)) for b in blocks]
        hi = [min(sw * int(b), t) for b, t in zip(blocks, range(1, samples + 1), strict=True)]
        los = lo if los is None else [min(x, y) for x, y in zip(los, lo, strict=True)]
        his = hi if his is None else [max(x, y) for x, y in zip(his, hi, strict=True)]
    assert los is not None and his is not None
    cache: dict[int, Any] = {}
    for i in range(samples):
        m = i + 1 - n * los[i]
        k = his[i] - los[i]
        if m < 0:
            bound[i] = 0.0
        elif k >= m:  # only the lower end binds: partitions of m
            bound[i] = min(float(bound[i]), float(part[m]))
        else:
            if k not in cache:
                if len(cache) > 200:  # a wild grid: keep the plain partition bound
                    continue
                cache[k] = _box_counts(n, k, samples)
            bound[i] = min(float(bound[i]), float(cache[k][m]))
    return bound, full


def _exp_or_inf(x: float) -> float:
    """``math.exp(x)``, ``inf`` past float range (as ``numpy.exp`` gives)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _check_lattice(systems: Sequence[System], samples: int, max_states: int, prune: float,
                   max_work: int) -> float:
    """Refuse a lattice sweep up front (max_states, MAX_LAYER_CELLS, MAX_FAIR_WORK); return
    its estimated work units."""
    n, b = systems[0].n, len(systems)
    name = repr(systems[0]) + (f" and {b - 1} more" if b > 1 else "")
    instead = ("Monte Carlo (method='montecarlo', --trials K), a shorter match, fewer values, "
               "or fewer candidates")
    what = f"exact evaluation of {name} over {samples:,} draws"
    # the floor (at least one state per layer) first: cheap, and enough for huge inputs
    _work.check_work(what, samples * (_work.LAYER_UNITS + n * b), instead, max_work)
    bound, full = lattice_estimate(systems, samples)
    if full and prune == 0.0:
        top = float(bound[-1])
        if top > max_states:
            raise _limit_error(repr(systems[0]), int(top) if top < 1e18 else top,
                               max_states, samples)
        if top * n * b > MAX_LAYER_CELLS:
            raise _cells_error(repr(systems[0]), int(top), n, b, samples)
    units = samples * _work.LAYER_UNITS + math.fsum(float(x) for x in bound) * n * b
    if prune == 0.0:
        _work.check_work(what, units, instead, max_work)
    return units


def evaluate_exact(system: System, samples: int, *, prune: float = 0.0,
                   max_states: int = MAX_STATES, max_work: int | None = None,
                   progress: Callable[[int, int], None] | None = None) -> Metrics:
    """Exact metrics of ``system`` (from its start state) over a match of ``samples`` draws.

    Cost: O(sum over t of states_t * n) numpy work for count-based systems (states_t at most
    the number of partitions of t into n parts), O(states * n) Python steps otherwise;
    refused up front past ``max_work`` (default
    :data:`~chancekit.fair.work.MAX_FAIR_WORK`) estimated units. ``progress(t, samples)``
    is called after each draw's layer.

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
        return evaluate_exact_batch([system], samples, prune=prune, max_states=max_states,
                                    max_work=max_work, progress=progress)[0]
    return _evaluate_generic(system, samples, prune, max_states,
                             _work.MAX_FAIR_WORK if max_work is None else max_work, progress)


# --------------------------------------------------------------------------- lattice engine
def _deck_schedule(deck: GeneralizedDeck, samples: int) -> Any:
    """blocks[t] = how many refills of s*w cards (incl. the initial one) happened before
    draw t+1 (t = 0..samples); deterministic, since refills depend only on cards left."""
    return _blocks(deck.size * sum(deck.weights), deck.refill, samples)


# Both sweeps below (numpy, and pure Python without it) do the same float operations in
# the same order, so they give the same numbers bit for bit: every sum runs left to right
# (numpy's cumsum, never its pairwise sum), the states of a layer are in lexicographic
# order of their count vectors, and flows are added in the order they are made.


class _Batch:
    """Vectorised next-draw probabilities of a batch of count-based systems (same n)."""

    def __init__(self, np: Any, systems: Sequence[_CountSystem], samples: int,
                 symmetric: bool) -> None:
        self.np = np
        self.n = systems[0].n
        self.B = len(systems)
        self.symmetric = symmetric
        self.kinds: list[tuple[str, Any, Any]] = []
        # group consecutive systems of the same family for vectorised evaluation
        dice_idx, dd_idx, deck_idx = _families(systems)
        if dice_idx:
            self.kinds.append(("dice", np.array(dice_idx), None))
        if dd_idx:
            logf, logw = _dd_logs([systems[i] for i in dd_idx])
            self.kinds.append(("dd", np.array(dd_idx), (np.array(logf),
                                                        np.array(logw).T)))  # (n, b)
        if deck_idx:
            sched = np.array([_deck_schedule(systems[i], samples) for i in deck_idx]).T
            per = np.array([systems[i].size for i in deck_idx])
            w = np.array([systems[i].weights for i in deck_idx]).T  # (n, b)
            self.kinds.append(("deck", np.array(deck_idx), (sched, per, w)))

    def probs(self, S: Any, t: int) -> Any:
        """P[m, j, b]: chance that draw t+1 hits position j of state m, for candidate b."""
        np = self.np
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
                P[:, :, idx] = W / np.cumsum(W, axis=1)[:, -1:, :]
            else:
                sched, per, w = data
                cap = (sched[t] * per)[None, None, :] * w[None, :, :]
                rem = np.clip(cap - S[:, :, None], 0, None).astype(np.float64)
                tot = np.cumsum(rem, axis=1)[:, -1:, :]
                with np.errstate(invalid="ignore", divide="ignore"):
                    P[:, :, idx] = np.where(tot > 0, rem / np.where(tot > 0, tot, 1), 0.0)
        return P


def _families(systems: Sequence[System]) -> tuple[list[int], list[int], list[int]]:
    dice_idx = [i for i, s in enumerate(systems) if isinstance(s, Dice)]
    dd_idx = [i for i, s in enumerate(systems) if isinstance(s, DynamicDice)]
    deck_idx = [i for i, s in enumerate(systems) if isinstance(s, GeneralizedDeck)]
    if len(dice_idx) + len(dd_idx) + len(deck_idx) != len(systems):
        raise InvalidTypeError("systems", systems, "Dice, Deck, GeneralizedDeck or "
                               "DynamicDice instances")
    return dice_idx, dd_idx, deck_idx


def _dd_logs(systems: Sequence[Any]) -> tuple[list[float], list[list[float]]]:
    """Dynamic dice: ln(decrease) per system and ln(weight) per system and value (from
    ``math.log``, the same in both sweeps)."""
    return ([math.log(s.decrease) for s in systems],
            [[math.log(w) for w in s.weights] for s in systems])


def _dedupe(np: Any, rows: Any, base: int) -> tuple[Any, Any]:
    """The distinct rows in lexicographic order, and each row's index among them (counts
    below ``base``: one int64 key a row when ``base**n`` fits, else row comparison)."""
    n = rows.shape[1]
    if base ** n < 2**62:
        key = rows.astype(np.int64) @ (base ** np.arange(n - 1, -1, -1, dtype=np.int64))
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inv = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return rows[first], inv.ravel()


def evaluate_exact_batch(systems: Sequence[System], samples: int, *, prune: float = 0.0,
                         max_states: int = MAX_STATES, max_work: int | None = None,
                         progress: Callable[[int, int], None] | None = None,
                         ) -> list[Metrics]:
    """Exact metrics of several count-based systems over the same n, in one sweep of the
    count lattice (how :func:`~chancekit.fair.tune` evaluates a grid quickly). Each system is
    taken from its start state. Cost as :func:`evaluate_exact`, with one extra factor of the
    batch size in the (vectorised) probability arithmetic only; refused up front past
    ``max_work`` estimated units (:func:`lattice_estimate` times values times candidates,
    plus a fixed cost per draw; with ``prune > 0``, checked as it runs instead). Without
    numpy the sweep runs in pure Python (:func:`_sweep_py`: the same numbers, slower).

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
    max_work = _work.MAX_FAIR_WORK if max_work is None else require_int(
        "max_work", max_work, lo=1)
    _check_lattice(systems, samples, max_states, prune, max_work)
    np = _numpy()
    sweep = _sweep_py if np is None else _sweep_np
    ent, guess, var, disc, states, dropped = sweep(systems, samples, prune, max_states,
                                                   max_work, progress)
    out = []
    for b, sysm in enumerate(systems):
        ov = var[b][-1]
        out.append(Metrics(
            system=repr(sysm), n=n, samples=samples, method="exact",
            summary={
                "unpredictability": math.fsum(ent[b]) / samples,
                "guessability": math.fsum(guess[b]) / samples,
                "outcome_variance": ov,
                "variance_ratio": ov / independent_variance(sysm.target(), samples),
                "discrepancy": disc[b][-1],
            },
            se={k: 0.0 for k in ("unpredictability", "guessability", "outcome_variance",
                                 "variance_ratio", "discrepancy")},
            series={"entropy": tuple(ent[b]), "guessability": tuple(guess[b]),
                    "outcome_variance": tuple(var[b]), "discrepancy": tuple(disc[b])},
            states=tuple(states), dropped=float(1.0 - (1.0 - dropped[b])),
        ))
    return out


#: per candidate: entropy, guessability, outcome variance and discrepancy per draw; the
#: states per layer; the pruned mass
_Sweep = tuple[list[list[float]], list[list[float]], list[list[float]], list[list[float]],
               list[int], list[float]]


def _sweep_np(systems: list[_CountSystem], samples: int, prune: float, max_states: int,
              max_work: int, progress: Callable[[int, int], None] | None) -> _Sweep:
    """The lattice sweep on numpy arrays: each layer a matrix of count vectors (states x
    values) and their probabilities (states x candidates)."""
    np = _numpy()
    assert np is not None
    n = systems[0].n
    symmetric = all(s.symmetric for s in systems)
    counted = 0
    batch = _Batch(np, systems, samples, symmetric)
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
        H = -np.cumsum(plogp, axis=1)[:, -1, :] / log_n  # (m, B)
        ent[t] = np.cumsum(p * H, axis=0)[-1]
        guess[t] = np.cumsum(p * P.max(axis=1), axis=0)[-1]
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
            if prune > 0:
                dropped += np.cumsum(fl[~keep], axis=0)[-1]
            mi, ji, fl = mi[keep], ji[keep], fl[keep]
        nxt = S[mi].copy()
        nxt[np.arange(len(mi)), ji] += 1
        S, inv = _dedupe(np, nxt, t + 2)
        if len(S) > max_states:
            raise _limit_error(repr(systems[0]), len(S), max_states, t + 1)
        if len(S) * n * B > MAX_LAYER_CELLS:
            raise _cells_error(repr(systems[0]), len(S), n, B, t + 1)
        p = np.zeros((len(S), B))
        np.add.at(p, inv, fl)
        states.append(len(S))
        counted = _count_layer(len(S) * n * B, counted, systems[0], samples, t, prune,
                               max_work)
        if progress is not None:
            progress(t + 1, samples)
        dev_target = (t + 1) * target  # (n, B)
        dev = S.astype(np.float64)[:, :, None] - dev_target[None, :, :]
        var[t] = np.cumsum(p * (np.cumsum(dev * dev, axis=1)[:, -1, :] / n), axis=0)[-1]
        disc[t] = np.cumsum(p * np.abs(dev).max(axis=1), axis=0)[-1]
    return (ent.T.tolist(), guess.T.tolist(), var.T.tolist(), disc.T.tolist(), states,
            dropped.tolist())


def _count_layer(cells: int, counted: int, first: System, samples: int, t: int,
                 prune: float, max_work: int) -> int:
    step = _work.LAYER_UNITS + cells
    _work.COUNTER["lattice"] += step
    counted += step
    if prune > 0 and counted > max_work:  # pruned layers have no bound: checked here
        _work.check_work(f"exact evaluation of {first!r} (prune={prune})",
                         counted * samples / (t + 1), "a larger prune or Monte Carlo",
                         max_work)
    return counted


def _seqsum(xs: Sequence[float]) -> float:
    """``xs[0] + xs[1] + ...`` left to right, as numpy's cumsum adds (not ``sum()``, which
    compensates on Python 3.12+, nor ``math.fsum``)."""
    return reduce(add, xs)  # type: ignore[no-any-return]


#: a candidate's next-draw probabilities from one state: the chance of each position, the
#: normalised entropy and the largest chance
_Col = tuple[list[float], float, float]


def _probs_py(systems: Sequence[_CountSystem], samples: int,
              ) -> Callable[[tuple[int, ...], int], list[_Col]]:
    """The pure twin of :meth:`_Batch.probs` with the entropy and top chance of each
    candidate: ``probs(state, t)[b]``."""
    n, B = systems[0].n, len(systems)
    _, dd_idx, deck_idx = _families(systems)
    logf, logw = _dd_logs([systems[i] for i in dd_idx])
    sched = [list(_deck_schedule(systems[i], samples)) for i in deck_idx]  # type: ignore[arg-type]
    per = [systems[i].size for i in deck_idx]  # type: ignore[attr-defined]
    dw = [systems[i].weights for i in deck_idx]
    log_n = math.log(n)
    exp, log = math.exp, math.log

    def col(P: list[float]) -> _Col:
        return P, -reduce(add, [q * log(q) if q > 0 else 0.0 for q in P]) / log_n, max(P)

    dice = col([1.0 / n] * n)

    def probs(s: tuple[int, ...], t: int) -> list[_Col]:
        out: list[Any] = [dice] * B
        if dd_idx:
            lo = float(min(s))
            sf = [float(x) - lo for x in s]
            for c, b in enumerate(dd_idx):
                lf = logf[c]
                e = [x * lf + w for x, w in zip(sf, logw[c], strict=True)]
                top = max(e)
                W = [exp(x - top) for x in e]
                tot = reduce(add, W)
                out[b] = col([w / tot for w in W])
        for c, b in enumerate(deck_idx):
            cap = sched[c][t] * per[c]
            rem = [float(max(cap * w - x, 0)) for w, x in zip(dw[c], s, strict=True)]
            tot = reduce(add, rem)
            out[b] = col([r / tot if tot > 0 else 0.0 for r in rem])
        return out

    return probs


def _sweep_py(systems: list[_CountSystem], samples: int, prune: float, max_states: int,
              max_work: int, progress: Callable[[int, int], None] | None) -> _Sweep:
    """:func:`_sweep_np` in pure Python (no numpy): a layer is a list of count tuples in
    lexicographic order with their probabilities per candidate; the same floats."""
    n = systems[0].n
    B = len(systems)
    symmetric = all(s.symmetric for s in systems)
    probs = _probs_py(systems, samples)
    by_target: dict[tuple[float, ...], list[int]] = {}  # candidates sharing a target
    for b, sysm in enumerate(systems):
        by_target.setdefault(tuple(sysm.target()), []).append(b)
    layer: list[tuple[int, ...]] = [(0,) * n]
    p: list[list[float]] = [[1.0] * B]
    ent = [[0.0] * samples for _ in range(B)]
    guess = [[0.0] * samples for _ in range(B)]
    var = [[0.0] * samples for _ in range(B)]
    disc = [[0.0] * samples for _ in range(B)]
    states: list[int] = []
    dropped = [0.0] * B
    counted = 0
    cands = range(B)
    for t in range(samples):
        eterms: list[list[float]] = [[] for _ in cands]
        gterms: list[list[float]] = [[] for _ in cands]
        nxt: dict[tuple[int, ...], list[float]] = {}
        gone: list[list[float]] = []
        for s, ps in zip(layer, p, strict=True):
            cols = probs(s, t)
            for b in cands:
                _, h, g = cols[b]
                eterms[b].append(ps[b] * h)
                gterms[b].append(ps[b] * g)
            j = 0
            while j < n:  # equal counts merge into the leftmost position, flows in order
                f = [ps[b] * cols[b][0][j] for b in cands]
                k = j + 1
                if symmetric:
                    while k < n and s[k] == s[j]:
                        for b in cands:
                            f[b] += ps[b] * cols[b][0][k]
                        k += 1
                    f = [0.0 + x for x in f]
                if not max(f) > prune:  # prune is 0 unless asked for
                    if prune > 0:
                        gone.append(f)
                else:
                    key = (*s[:j], s[j] + 1, *s[j + 1:])
                    got = nxt.get(key)
                    if got is None:
                        nxt[key] = [0.0 + x for x in f]
                    else:
                        for b in cands:
                            got[b] += f[b]
                j = k
        for b in cands:
            if gone:
                dropped[b] += _seqsum([f[b] for f in gone])
            ent[b][t] = _seqsum(eterms[b])
            guess[b][t] = _seqsum(gterms[b])
        layer = sorted(nxt)
        if len(layer) > max_states:
            raise _limit_error(repr(systems[0]), len(layer), max_states, t + 1)
        if len(layer) * n * B > MAX_LAYER_CELLS:
            raise _cells_error(repr(systems[0]), len(layer), n, B, t + 1)
        p = [nxt[s] for s in layer]
        states.append(len(layer))
        counted = _count_layer(len(layer) * n * B, counted, systems[0], samples, t, prune,
                               max_work)
        if progress is not None:
            progress(t + 1, samples)
        for target, group in by_target.items():
            tb = [(t + 1) * x for x in target]
            vs, ds = [], []  # each state's mean squared and largest deviation
            for s in layer:
                dev = [x - y for x, y in zip(s, tb, strict=True)]
                vs.append(_seqsum([d * d for d in dev]) / n)
                ds.append(max(map(abs, dev)))
            for b in group:
                var[b][t] = _seqsum([ps[b] * v for ps, v in zip(p, vs, strict=True)])
                disc[b][t] = _seqsum([ps[b] * d for ps, d in zip(p, ds, strict=True)])
    return ent, guess, var, disc, states, dropped


# --------------------------------------------------------------------------- generic engine
def generic_estimate(system: System, samples: int) -> tuple[list[float], float] | None:
    """Upper bounds on the states of each layer t = 1..samples of the generic engine (from
    :meth:`System.state_bound`) and the estimated work units, or ``None`` when the system
    gives no bound (then the engine counts its work as it runs).

    >>> from chancekit.fair import HistoryReroll
    >>> bounds, units = generic_estimate(HistoryReroll(7, 4, 4), 6)
    >>> [int(b) for b in bounds]
    [7, 49, 343, 2401, 16807, 67228]
    """
    bounds: list[float] = []
    for t in range(1, samples + 1):
        b = system.state_bound(t)
        if b is None:
            return None
        bounds.append(float(b))
        if b > 1e15:  # enough to refuse; the rest need not be computed
            bounds += [float(b)] * (samples - t)
            break
    per_state = _work.GENERIC_STATE_UNITS + system.n * _work.GENERIC_TRANSITION_UNITS
    return bounds, math.fsum(bounds) * per_state


def _evaluate_generic(system: System, samples: int, prune: float, max_states: int,
                      max_work: int, progress: Callable[[int, int], None] | None,
                      ) -> Metrics:
    n = system.n
    instead = "Monte Carlo (method='montecarlo', --trials K) or a shorter match"
    what = f"exact evaluation of {system!r} over {samples:,} draws"
    per_state = _work.GENERIC_STATE_UNITS + n * _work.GENERIC_TRANSITION_UNITS
    _work.check_work(what, samples * per_state, instead, max_work)  # one state per layer
    est = generic_estimate(system, samples) if prune == 0.0 else None
    if est is not None:
        _work.check_work(what, est[1], instead, max_work)
    work = system.copy()
    start = work.getstate()
    target = system.target()
    layer: dict[tuple[Any, tuple[int, ...]], float] = {(start, (0,) * n): 1.0}
    ent, guess, var, disc, states = [], [], [], [], []
    dropped = 0.0
    log_n = math.log(n)
    counted = 0
    for t in range(samples):
        es, gs = [], []
        nxt: dict[tuple[Any, tuple[int, ...]], float] = {}
        for (st, counts), prob in layer.items():
            work.setstate(st)
            probs = work.probabilities()
            es.append(prob * math.fsum(q * math.log(q) for q in probs if q > 0))
            gs.append(prob * max(probs))
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
        step = len(layer) * per_state
        _work.COUNTER["generic"] += step
        counted += step
        if est is None and counted > max_work:  # no bound known: checked as it runs
            _work.check_work(what, counted * samples / (t + 1), instead, max_work)
        states.append(len(layer))
        ent.append(-math.fsum(es) / log_n)
        guess.append(math.fsum(gs))
        tb = [(t + 1) * x for x in target]
        vterms, dterms = [], []
        for (_, c), prob in layer.items():
            dev = [c[j] - tb[j] for j in range(n)]
            vterms.append(prob * (_seqsum([d * d for d in dev]) / n))
            dterms.append(prob * max(abs(d) for d in dev))
        var.append(math.fsum(vterms))
        disc.append(math.fsum(dterms))
        if progress is not None:
            progress(t + 1, samples)
    ov = var[-1]
    return Metrics(
        system=repr(system), n=n, samples=samples, method="exact",
        summary={"unpredictability": math.fsum(ent) / samples,
                 "guessability": math.fsum(guess) / samples,
                 "outcome_variance": ov,
                 "variance_ratio": ov / independent_variance(system.target(), samples),
                 "discrepancy": disc[-1]},
        se={k: 0.0 for k in ("unpredictability", "guessability", "outcome_variance",
                             "variance_ratio", "discrepancy")},
        series={"entropy": tuple(ent), "guessability": tuple(guess),
                "outcome_variance": tuple(var), "discrepancy": tuple(disc)},
        states=tuple(states), dropped=dropped,
    )
