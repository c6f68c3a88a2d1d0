"""The Monte Carlo engine: many independent matches at once, vectorised over trials.

Count-based systems (dice, decks, dynamic dice) run as numpy arrays of shape
``(trials, n)``, one step per draw, fed by bulk PCG32 words: dice and decks use exact
bounded integers (``randbelow_array``: a deck's card count is the same in every trial, since
refills depend only on the draw number); dynamic dice use a uniform float with 32-bit
resolution, ``(word + 0.5) / 2**32``, per draw. Other systems run trial by trial through
their own ``draw``, except the "k-th try since the last success" systems (:class:`PRD`,
:class:`PityTimer`), which run vectorised from a table of their chance per k and a 53-bit
uniform per draw. So a result is reproducible from the ``rng`` given.

Work is estimated before starting — trials x samples x (values, or for a system drawn
through its own ``draw``, its cost per draw, such as :class:`HistoryReroll`'s rolls) — and
refused past :data:`~chancekit.fair.work.MAX_FAIR_WORK` units (about a second) with
:class:`~chancekit.errors.LimitError`.

Every figure comes with its standard error (the standard deviation over trials divided by
sqrt(trials)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from chancekit._validate import require_int
from chancekit.errors import InvalidTypeError, LimitError
from chancekit.fair import work as _work
from chancekit.fair.metrics import Metrics, independent_variance
from chancekit.fair.systems import (
    Dice,
    DynamicDice,
    GeneralizedDeck,
    System,
    _SinceSuccess,
)
from chancekit.limits import MAX_MC_CELLS
from chancekit.rng.source import as_source, randbelow_array, u32_array

__all__ = ["MAX_MC_CELLS", "evaluate_montecarlo", "montecarlo_estimate", "simulate_matches"]


_INV32 = 1.0 / 4294967296.0


def _uniform(rng: Any, size: int) -> np.ndarray:
    return (u32_array(rng, size).astype(np.float64) + 0.5) * _INV32


def _uniform53(rng: Any, size: int) -> np.ndarray:
    a = u32_array(rng, size).astype(np.uint64)
    b = u32_array(rng, size).astype(np.uint64)
    return ((a >> np.uint64(5)).astype(np.float64) * 67108864.0
            + (b >> np.uint64(6)).astype(np.float64)) / 9007199254740992.0


_VECTORISED = (Dice, GeneralizedDeck, DynamicDice, _SinceSuccess)


def montecarlo_estimate(system: System, samples: int, trials: int) -> float:
    """Estimated work units of ``trials`` matches of ``samples`` draws (simulation and
    metrics): vectorised systems cost trials x values per draw plus a fixed cost per draw;
    others go through their own ``draw``, trial by trial, at their cost per draw.

    >>> from chancekit.fair import Dice, HistoryReroll
    >>> montecarlo_estimate(Dice(6), 40, 10_000) < montecarlo_estimate(
    ...     HistoryReroll(2, 2, 10_000), 40, 10_000)
    True
    """
    n = system.n
    units = samples * (_work.MC_STEP_UNITS + trials * n * _work.MC_CELL_UNITS)  # metrics
    if isinstance(system, _VECTORISED):
        return 2.0 * units
    return units + float(trials) * samples * system._mc_draw_units()


def _fresh(system: System) -> bool:
    clone = system.copy()
    clone.reset()
    return clone.getstate() == system.getstate()


def simulate_matches(system: System, samples: int, trials: int, rng: Any = None, *,
                     entropy: bool = True, max_work: int | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """``trials`` independent matches of ``samples`` draws of ``system`` (each from the
    system's current state): returns ``(draws, entropy, guess)`` where ``draws`` is an
    integer matrix ``(trials, samples)`` of value indices and ``entropy``/``guess`` the
    normalised entropy and top probability before each draw (``None`` if
    ``entropy=False``). Vectorised cost O(samples * trials * n) for count-based systems;
    refused up front past :data:`MAX_MC_CELLS` cells of ``trials * (samples + n)`` and past
    ``max_work`` (default :data:`~chancekit.fair.work.MAX_FAIR_WORK`) units of
    :func:`montecarlo_estimate`. ``progress(done, total)`` reports draws (vectorised) or
    trials (one by one).

    >>> from chancekit.fair import Deck
    >>> from chancekit.rng import PCG32
    >>> draws, _, _ = simulate_matches(Deck(3), 3, 2, PCG32(1))
    >>> sorted(draws[0].tolist()), sorted(draws[1].tolist())
    ([0, 1, 2], [0, 1, 2])
    """
    if not isinstance(system, System):
        raise InvalidTypeError("system", system, "a chancekit.fair System")
    samples = require_int("samples", samples, lo=1, hi=100_000)
    trials = require_int("trials", trials, lo=1, hi=100_000_000)
    n = system.n
    cells = trials * (samples + n)
    if cells > MAX_MC_CELLS:
        raise LimitError(
            f"Monte Carlo with {trials:,} trials of {samples:,} draws over {n:,} values holds "
            f"{cells:,} trials x (samples + values) cells, more than MAX_MC_CELLS = "
            f"{MAX_MC_CELLS:,} (about 50 bytes each); use fewer trials (the standard error "
            "shrinks as 1/sqrt(trials)) or a shorter match", limit="MAX_MC_CELLS", value=cells)
    _work.check_work(
        f"Monte Carlo of {system!r} with {trials:,} trials of {samples:,} draws",
        montecarlo_estimate(system, samples, trials),
        "fewer trials (the standard error shrinks as 1/sqrt(trials)) or a shorter match",
        _work.MAX_FAIR_WORK if max_work is None else max_work)
    rng = as_source(rng)
    step_units = _work.MC_STEP_UNITS + trials * n * _work.MC_CELL_UNITS
    T = trials
    draws = np.empty((T, samples), dtype=np.int16 if n < 32_000 else np.int32)
    ent = np.empty((T, samples)) if entropy else None
    guess = np.empty((T, samples)) if entropy else None
    log_n = math.log(n)
    fresh = _fresh(system)
    ar = np.arange(T)
    if isinstance(system, Dice):
        flat = randbelow_array(rng, n, T * samples)
        draws[:] = flat.reshape(samples, T).T
        if entropy:
            ent.fill(1.0)  # type: ignore[union-attr]
            guess.fill(1.0 / n)  # type: ignore[union-attr]
        _work.COUNTER["montecarlo"] += samples * step_units
        return draws, ent, guess
    if isinstance(system, _SinceSuccess):
        k = np.full(T, system.getstate()[0], dtype=np.int64)
        chances = system.chance_table(int(k[0]) + samples)
        table = np.array(chances)
        htab = np.array([-math.fsum(x * math.log(x) for x in (q, 1.0 - q) if x > 0) / log_n
                         for q in chances])
        gtab = np.maximum(table, 1.0 - table)
        for t in range(samples):
            q = table[k]
            if entropy:
                ent[:, t] = htab[k]  # type: ignore[index]
                guess[:, t] = gtab[k]  # type: ignore[index]
            hit = _uniform53(rng, T) >= 1.0 - q  # System._sample's rule: failure if u < 1-q
            draws[:, t] = hit
            k = np.where(hit, 1, k + 1)
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    if isinstance(system, GeneralizedDeck):
        rem = np.tile(np.array(system.remaining(), dtype=np.int64), (T, 1))
        left = int(rem[0].sum())
        per = np.array(system.weights, dtype=np.int64) * system.size
        for t in range(samples):
            if entropy:
                P = rem / left
                with np.errstate(divide="ignore", invalid="ignore"):
                    ent[:, t] = -np.where(P > 0, P * np.log(np.where(P > 0, P, 1)),  # type: ignore[index]
                                          0.0).sum(axis=1) / log_n
                guess[:, t] = P.max(axis=1)  # type: ignore[index]
            k = randbelow_array(rng, left, T).astype(np.int64)
            cum = np.cumsum(rem, axis=1)
            ch = (cum <= k[:, None]).sum(axis=1)
            draws[:, t] = ch
            rem[ar, ch] -= 1
            left -= 1
            if left < system.refill:
                rem += per
                left += int(per.sum())
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    if isinstance(system, DynamicDice):
        f = system.decrease
        lo = min(system.counts())
        W = np.tile(np.array([w * f ** (c - lo) for w, c in zip(system.weights,
                                                               system.counts(), strict=True)]),
                    (T, 1))
        for t in range(samples):
            tot = W.sum(axis=1)
            if entropy:
                P = W / tot[:, None]
                ent[:, t] = -(P * np.log(P)).sum(axis=1) / log_n  # type: ignore[index]
                guess[:, t] = P.max(axis=1)  # type: ignore[index]
            u = _uniform(rng, T) * tot
            ch = (np.cumsum(W, axis=1) < u[:, None]).sum(axis=1)
            np.minimum(ch, n - 1, out=ch)
            draws[:, t] = ch
            W[ar, ch] *= f
            if t % 32 == 31:
                W /= W.max(axis=1, keepdims=True)
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    # generic: trial by trial through the system's own protocol
    del fresh
    start = system.getstate()
    work = system.copy()
    trial_units = samples * system._mc_draw_units()
    for i in range(T):
        work.setstate(start)
        for t in range(samples):
            if entropy:
                probs = work.probabilities()
                ent[i, t] = -math.fsum(q * math.log(q) for q in probs if q > 0) / log_n  # type: ignore[index]
                guess[i, t] = max(probs)  # type: ignore[index]
            draws[i, t] = work.draw_index(rng)
        _work.COUNTER["montecarlo"] += trial_units
        if progress is not None:
            progress(i + 1, T)
    return draws, ent, guess


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    m = math.fsum(x.tolist()) / len(x)  # order-stable across Python and numpy versions
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")
    return m, se


def evaluate_montecarlo(system: System, samples: int, *, trials: int = 10_000,
                        rng: Any = None, max_work: int | None = None,
                        progress: Callable[[int, int], None] | None = None) -> Metrics:
    """Every metric of ``system`` over ``samples`` draws, estimated from ``trials``
    simulated matches, each figure with its standard error. Cost O(trials * samples * n),
    refused up front past ``max_work`` units (see :func:`simulate_matches`).

    >>> from chancekit.fair import DynamicDice
    >>> from chancekit.rng import PCG32
    >>> m = evaluate_montecarlo(DynamicDice(6, 0.355), 25, trials=4000, rng=PCG32(1))
    >>> abs(m.outcome_variance - 0.4590) < 4 * m.se["outcome_variance"]
    True
    """
    draws, ent, guess = simulate_matches(system, samples, trials, rng, max_work=max_work,
                                         progress=progress)
    assert ent is not None and guess is not None
    n, N, T = system.n, samples, trials
    target = np.array(system.target())
    counts = np.zeros((T, n))
    ar = np.arange(T)
    var_t = np.empty((T, N))
    disc_t = np.empty((T, N))
    since = np.zeros((T, n), dtype=np.int64)
    drought = np.zeros(T, dtype=np.int64)
    for t in range(N):
        x = draws[:, t].astype(np.int64)
        counts[ar, x] += 1
        dev = counts - (t + 1) * target
        var_t[:, t] = (dev ** 2).mean(axis=1)
        disc_t[:, t] = np.abs(dev).max(axis=1)
        since += 1
        since[ar, x] = 0
        np.maximum(drought, since.max(axis=1), out=drought)
    _work.COUNTER["montecarlo"] += N * (_work.MC_STEP_UNITS + T * n * _work.MC_CELL_UNITS)
    rep = (draws[:, 1:] == draws[:, :-1]) if N > 1 else np.zeros((T, 0), dtype=bool)
    tri = (rep[:, 1:] & rep[:, :-1]) if N > 2 else np.zeros((T, 0), dtype=bool)
    s2 = float((target ** 2).sum())
    summary: dict[str, float] = {}
    se: dict[str, float] = {}

    def put(name: str, per_trial: np.ndarray) -> None:
        summary[name], se[name] = _mean_se(per_trial)

    put("unpredictability", ent.mean(axis=1))
    put("guessability", guess.mean(axis=1))
    put("outcome_variance", var_t[:, -1])
    dv = independent_variance(system.target(), N)
    summary["variance_ratio"] = summary["outcome_variance"] / dv
    se["variance_ratio"] = se["outcome_variance"] / dv
    put("discrepancy", disc_t[:, -1])
    if N > 1:
        pr = rep.mean(axis=1)
        put("p_repeat", pr)
        put("autocorrelation", (pr - s2) / (1 - s2))
    if N > 2:
        put("p_triple", tri.mean(axis=1))
    put("longest_drought", drought.astype(np.float64))
    sqrt_t = math.sqrt(T)
    gap = np.array([(drought >= k).mean() for k in range(1, N + 1)])
    series = {
        "entropy": tuple(ent.mean(axis=0).tolist()),
        "guessability": tuple(guess.mean(axis=0).tolist()),
        "outcome_variance": tuple(var_t.mean(axis=0).tolist()),
        "discrepancy": tuple(disc_t.mean(axis=0).tolist()),
        "p_gap": tuple(gap.tolist()),
    }
    series_se = {
        "entropy": tuple((ent.std(axis=0, ddof=1) / sqrt_t).tolist()) if T > 1 else (),
        "outcome_variance": tuple((var_t.std(axis=0, ddof=1) / sqrt_t).tolist())
        if T > 1 else (),
        "p_gap": tuple(np.sqrt(gap * (1 - gap) / T).tolist()),
    }
    return Metrics(system=repr(system), n=n, samples=N, method="montecarlo", summary=summary,
                   se=se, series=series, series_se=series_se, trials=T)
