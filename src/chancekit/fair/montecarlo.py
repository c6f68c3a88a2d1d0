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
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import reduce
from itertools import accumulate
from operator import add, and_, eq
from typing import TYPE_CHECKING, Any

from chancekit._numpy import numpy as _numpy
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
from chancekit.rng.source import as_source, randbelow_array, randbelow_list, u32_array, u32_list

if TYPE_CHECKING:  # numpy is optional: each function imports it through chancekit._numpy
    import numpy as np

__all__ = ["MAX_MC_CELLS", "evaluate_montecarlo", "montecarlo_estimate", "simulate_matches"]


_INV32 = 1.0 / 4294967296.0


def _uniform(rng: Any, size: int) -> np.ndarray:
    np = _numpy()
    assert np is not None
    return (u32_array(rng, size).astype(np.float64) + 0.5) * _INV32


def _uniform53(rng: Any, size: int) -> np.ndarray:
    np = _numpy()
    assert np is not None
    a = u32_array(rng, size).astype(np.uint64)
    b = u32_array(rng, size).astype(np.uint64)
    return ((a >> np.uint64(5)).astype(np.float64) * 67108864.0
            + (b >> np.uint64(6)).astype(np.float64)) / 9007199254740992.0


def _uniform_py(rng: Any, size: int) -> list[float]:
    """:func:`_uniform` without numpy (the same floats from the same words)."""
    return [(float(w) + 0.5) * _INV32 for w in u32_list(rng, size)]


def _uniform53_py(rng: Any, size: int) -> list[float]:
    """:func:`_uniform53` without numpy: ``size`` words ``a``, then ``size`` words ``b``."""
    a = u32_list(rng, size)
    b = u32_list(rng, size)
    return [(float(x >> 5) * 67108864.0 + float(y >> 6)) / 9007199254740992.0
            for x, y in zip(a, b, strict=True)]


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
    trials (one by one). Without numpy (:mod:`chancekit._numpy`) the matrices are lists of
    rows (one a trial), with the same numbers from the same words.

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
    np = _numpy()
    if np is None:
        return _simulate_py(system, samples, trials, rng, entropy, progress)  # type: ignore[return-value]
    step_units = _work.MC_STEP_UNITS + trials * n * _work.MC_CELL_UNITS
    T = trials
    draws = np.empty((T, samples), dtype=np.int16 if n < 32_000 else np.int32)
    ent = np.empty((T, samples)) if entropy else None
    guess = np.empty((T, samples)) if entropy else None
    log_n = math.log(n)
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
        chances, htab_l, gtab_l = _since_tables(system, int(k[0]) + samples, log_n)
        table, htab, gtab = np.array(chances), np.array(htab_l), np.array(gtab_l)
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
                    plogp = np.where(P > 0, P * np.log(np.where(P > 0, P, 1)), 0.0)
                ent[:, t] = -np.cumsum(plogp, axis=1)[:, -1] / log_n  # type: ignore[index]
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
        W = np.tile(np.array(_dd_start(system)), (T, 1))
        for t in range(samples):
            cum = np.cumsum(W, axis=1)
            tot = cum[:, -1]
            if entropy:
                P = W / tot[:, None]
                with np.errstate(divide="ignore", invalid="ignore"):
                    plogp = np.where(P > 0, P * np.log(np.where(P > 0, P, 1)), 0.0)
                ent[:, t] = -np.cumsum(plogp, axis=1)[:, -1] / log_n  # type: ignore[index]
                guess[:, t] = P.max(axis=1)  # type: ignore[index]
            u = _uniform(rng, T) * tot
            ch = (cum < u[:, None]).sum(axis=1)
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


def _since_tables(system: _SinceSuccess, size: int, log_n: float,
                  ) -> tuple[list[float], list[float], list[float]]:
    """The chance of a hit on the k-th try, its normalised entropy and the top probability,
    for k = 0..size (one table for both simulators)."""
    chances = list(system.chance_table(size))
    htab = [-math.fsum(x * math.log(x) for x in (q, 1.0 - q) if x > 0) / log_n
            for q in chances]
    return chances, htab, [max(q, 1.0 - q) for q in chances]


def _dd_start(system: DynamicDice) -> list[float]:
    """A dynamic die's weights now, relative to its least drawn value."""
    f = system.decrease
    lo = min(system.counts())
    return [w * f ** (c - lo) for w, c in zip(system.weights, system.counts(), strict=True)]


def _plogp_sum(P: list[float]) -> float:
    """sum of q * ln q over ``P`` (0 for q = 0), left to right, as the numpy path adds."""
    log = math.log
    return reduce(add, [q * log(q) if q > 0 else 0.0 for q in P])  # type: ignore[no-any-return]


def _simulate_py(system: System, samples: int, trials: int, rng: Any, entropy: bool,
                 progress: Callable[[int, int], None] | None,
                 ) -> tuple[list[list[int]], list[list[float]] | None,
                            list[list[float]] | None]:
    """:func:`simulate_matches` without numpy: the same draws from the same words (step by
    step, all trials at each step, as the vectorised path reads them), the same floats; the
    matrices as lists of rows (one row a trial)."""
    n, T = system.n, trials
    step_units = _work.MC_STEP_UNITS + trials * n * _work.MC_CELL_UNITS
    draws = [[0] * samples for _ in range(T)]
    ent = [[0.0] * samples for _ in range(T)] if entropy else None
    guess = [[0.0] * samples for _ in range(T)] if entropy else None
    log_n = math.log(n)
    if isinstance(system, Dice):
        flat = randbelow_list(rng, n, T * samples)
        for i in range(T):
            draws[i] = flat[i::T]
        if ent is not None and guess is not None:
            ent = [[1.0] * samples for _ in range(T)]
            guess = [[1.0 / n] * samples for _ in range(T)]
        _work.COUNTER["montecarlo"] += samples * step_units
        return draws, ent, guess
    if isinstance(system, _SinceSuccess):
        k0 = system.getstate()[0]
        table, htab, gtab = _since_tables(system, k0 + samples, log_n)
        ks = [k0] * T
        for t in range(samples):
            u = _uniform53_py(rng, T)
            for i in range(T):
                k = ks[i]
                if ent is not None and guess is not None:
                    ent[i][t] = htab[k]
                    guess[i][t] = gtab[k]
                hit = u[i] >= 1.0 - table[k]
                draws[i][t] = 1 if hit else 0
                ks[i] = 1 if hit else k + 1
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    if isinstance(system, GeneralizedDeck):
        start = list(system.remaining())
        rems = [list(start) for _ in range(T)]
        left = sum(start)
        per = [w * system.size for w in system.weights]
        add = sum(per)
        seen: dict[tuple[int, ...], tuple[float, float]] = {}
        for t in range(samples):
            if ent is not None and guess is not None:
                for i in range(T):
                    key = tuple(rems[i])
                    got = seen.get(key)
                    if got is None:
                        P = [r / left for r in key]
                        got = seen[key] = (-_plogp_sum(P) / log_n, max(P))
                    ent[i][t], guess[i][t] = got
                seen.clear()
            ks = randbelow_list(rng, left, T)
            for i in range(T):
                rem = rems[i]
                ch = bisect_right(list(accumulate(rem)), ks[i])  # how many sums <= k
                draws[i][t] = ch
                rem[ch] -= 1
            left -= 1
            if left < system.refill:
                for rem in rems:
                    for j in range(n):
                        rem[j] += per[j]
                left += add
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    if isinstance(system, DynamicDice):
        f = system.decrease
        w0 = _dd_start(system)
        Ws = [list(w0) for _ in range(T)]
        memo: dict[tuple[float, ...], tuple[list[float], float, float]] = {}
        for t in range(samples):
            u = _uniform_py(rng, T)
            for i in range(T):
                W = Ws[i]
                key = tuple(W)
                got = memo.get(key)
                if got is None:  # the same weights give the same sums (many trials meet)
                    cum = list(accumulate(W))  # left to right, as numpy's cumsum
                    tot = cum[-1]
                    P = [w / tot for w in W]
                    got = memo[key] = (cum, -_plogp_sum(P) / log_n, max(P))
                cum, h, g = got
                if ent is not None and guess is not None:
                    ent[i][t] = h
                    guess[i][t] = g
                ch = min(bisect_left(cum, u[i] * cum[-1]), n - 1)  # how many sums < u
                draws[i][t] = ch
                W[ch] *= f
                if t % 32 == 31:
                    top = max(W)
                    Ws[i] = [w / top for w in W]
            _work.COUNTER["montecarlo"] += step_units
            if progress is not None:
                progress(t + 1, samples)
        return draws, ent, guess
    start_state = system.getstate()
    work = system.copy()
    trial_units = samples * system._mc_draw_units()
    for i in range(T):
        work.setstate(start_state)
        for t in range(samples):
            if ent is not None and guess is not None:
                probs = work.probabilities()
                ent[i][t] = -math.fsum(q * math.log(q) for q in probs if q > 0) / log_n
                guess[i][t] = max(probs)
            draws[i][t] = work.draw_index(rng)
        _work.COUNTER["montecarlo"] += trial_units
        if progress is not None:
            progress(i + 1, T)
    return draws, ent, guess


def _seqsum(xs: Any) -> float:
    """Left-to-right sum (numpy's cumsum order; not ``sum()``, which compensates on
    Python 3.12+)."""
    return reduce(add, xs)  # type: ignore[no-any-return]


def _mean_se(x: list[float]) -> tuple[float, float]:
    """The mean (``math.fsum``: order-stable) and its standard error, the deviations
    squared and added left to right (the same in both paths)."""
    T = len(x)
    m = math.fsum(x) / T
    if T < 2:
        return m, float("nan")
    return m, math.sqrt(_seqsum([(v - m) * (v - m) for v in x]) / (T - 1)) / math.sqrt(T)


def _col_mean_sd(cols: Any, T: int) -> tuple[list[float], list[float]]:
    """Per column: the mean over trials and the standard deviation (ddof 1) times
    1/sqrt(T) — sums left to right."""
    means, ses = [], []
    sqrt_t = math.sqrt(T)
    for col in cols:
        m = _seqsum(col) / T
        means.append(m)
        if T > 1:
            ses.append(math.sqrt(_seqsum([(v - m) * (v - m) for v in col]) / (T - 1))
                       / sqrt_t)
    return means, ses


def evaluate_montecarlo(system: System, samples: int, *, trials: int = 10_000,
                        rng: Any = None, max_work: int | None = None,
                        progress: Callable[[int, int], None] | None = None) -> Metrics:
    """Every metric of ``system`` over ``samples`` draws, estimated from ``trials``
    simulated matches, each figure with its standard error. Cost O(trials * samples * n),
    refused up front past ``max_work`` units (see :func:`simulate_matches`). Without numpy
    the same simulation and figures in pure Python (the same numbers, slower).

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
    target = list(system.target())
    np = _numpy()
    fig = (_figures_py if np is None else _figures_np)(draws, ent, guess, target, N)
    _work.COUNTER["montecarlo"] += N * (_work.MC_STEP_UNITS + T * n * _work.MC_CELL_UNITS)
    s2 = _seqsum([x * x for x in target])
    summary: dict[str, float] = {}
    se: dict[str, float] = {}

    def put(name: str, per_trial: list[float]) -> None:
        summary[name], se[name] = _mean_se(per_trial)

    put("unpredictability", fig["ent_row"])
    put("guessability", fig["guess_row"])
    put("outcome_variance", fig["var_last"])
    dv = independent_variance(system.target(), N)
    summary["variance_ratio"] = summary["outcome_variance"] / dv
    se["variance_ratio"] = se["outcome_variance"] / dv
    put("discrepancy", fig["disc_last"])
    if N > 1:
        pr = [c / (N - 1) for c in fig["repeats"]]
        put("p_repeat", pr)
        put("autocorrelation", [(x - s2) / (1 - s2) for x in pr])
    if N > 2:
        put("p_triple", [c / (N - 2) for c in fig["triples"]])
    drought = fig["drought"]
    put("longest_drought", [float(d) for d in drought])
    at_least = [0] * (N + 2)  # at_least[k]: trials whose longest drought is >= k
    for d in drought:
        at_least[min(d, N + 1)] += 1
    for k in range(N, -1, -1):
        at_least[k] += at_least[k + 1]
    gap = [at_least[k] / T for k in range(1, N + 1)]
    series = {
        "entropy": tuple(fig["ent_mean"]),
        "guessability": tuple(fig["guess_mean"]),
        "outcome_variance": tuple(fig["var_mean"]),
        "discrepancy": tuple(fig["disc_mean"]),
        "p_gap": tuple(gap),
    }
    series_se = {
        "entropy": tuple(fig["ent_se"]) if T > 1 else (),
        "outcome_variance": tuple(fig["var_se"]) if T > 1 else (),
        "p_gap": tuple(math.sqrt(g * (1 - g) / T) for g in gap),
    }
    return Metrics(system=repr(system), n=n, samples=N, method="montecarlo", summary=summary,
                   se=se, series=series, series_se=series_se, trials=T)


def _figures_np(draws: Any, ent: Any, guess: Any, target: list[float],
                N: int) -> dict[str, Any]:
    """Per trial and per draw figures of the simulated matches, on numpy arrays."""
    np = _numpy()
    assert np is not None
    T, n = draws.shape[0], len(target)
    tgt = np.array(target)
    counts = np.zeros((T, n))
    ar = np.arange(T)
    var_t = np.empty((T, N))
    disc_t = np.empty((T, N))
    since = np.zeros((T, n), dtype=np.int64)
    drought = np.zeros(T, dtype=np.int64)
    for t in range(N):
        x = draws[:, t].astype(np.int64)
        counts[ar, x] += 1
        dev = counts - (t + 1) * tgt
        var_t[:, t] = np.cumsum(dev * dev, axis=1)[:, -1] / n
        disc_t[:, t] = np.abs(dev).max(axis=1)
        since += 1
        since[ar, x] = 0
        np.maximum(drought, since.max(axis=1), out=drought)
    rep = (draws[:, 1:] == draws[:, :-1]) if N > 1 else np.zeros((T, 0), dtype=bool)
    tri = (rep[:, 1:] & rep[:, :-1]) if N > 2 else np.zeros((T, 0), dtype=bool)

    def cols(a: Any) -> tuple[list[float], list[float]]:
        m = np.cumsum(a, axis=0)[-1] / T
        if T < 2:
            return m.tolist(), []
        d = a - m[None, :]
        return m.tolist(), (np.sqrt(np.cumsum(d * d, axis=0)[-1] / (T - 1))
                            / math.sqrt(T)).tolist()

    ent_mean, ent_se = cols(ent)
    var_mean, var_se = cols(var_t)
    return {"ent_row": (np.cumsum(ent, axis=1)[:, -1] / N).tolist(),
            "guess_row": (np.cumsum(guess, axis=1)[:, -1] / N).tolist(),
            "var_last": var_t[:, -1].tolist(), "disc_last": disc_t[:, -1].tolist(),
            "repeats": rep.sum(axis=1).tolist(), "triples": tri.sum(axis=1).tolist(),
            "drought": drought.tolist(),
            "ent_mean": ent_mean, "ent_se": ent_se,
            "guess_mean": (np.cumsum(guess, axis=0)[-1] / T).tolist(),
            "var_mean": var_mean, "var_se": var_se,
            "disc_mean": (np.cumsum(disc_t, axis=0)[-1] / T).tolist()}


def _figures_py(draws: list[list[int]], ent: list[list[float]], guess: list[list[float]],
                target: list[float], N: int) -> dict[str, Any]:
    """:func:`_figures_np` in pure Python: the same floats."""
    T, n = len(draws), len(target)
    var_t: list[list[float]] = []
    disc_t: list[list[float]] = []
    drought: list[int] = []
    repeats: list[int] = []
    triples: list[int] = []
    base = N + 1  # the counts after t draws, as one integer: sum of count_j * base**j
    pw = [base**j for j in range(n)]

    class Memo(dict):  # type: ignore[type-arg]
        """code -> (mean squared deviation, largest deviation) of those counts."""

        def __missing__(self, code: int) -> tuple[float, float]:
            counts = [(code // w) % base for w in pw]
            t = reduce(add, counts)  # the draws so far
            dev = [c - t * g for c, g in zip(counts, target, strict=True)]
            got = self[code] = (reduce(add, [d * d for d in dev]) / n, max(map(abs, dev)))
            return got

    memo = Memo()
    at = memo.__getitem__
    for row in draws:
        vd = list(map(at, accumulate(map(pw.__getitem__, row))))
        var_t.append([v for v, _ in vd])
        disc_t.append([d for _, d in vd])
        last = [-1] * n  # where each value was last drawn
        longest = 0  # the longest run without some value, so far
        for t, x in enumerate(row):
            gap = t - 1 - last[x]
            if gap > longest:
                longest = gap
            last[x] = t
        drought.append(max(longest, N - 1 - min(last)))
        rep = list(map(eq, row[1:], row[:-1]))
        repeats.append(sum(rep))
        triples.append(sum(map(and_, rep[1:], rep[:-1])))
    ent_mean, ent_se = _col_mean_sd(zip(*ent, strict=True), T)
    var_mean, var_se = _col_mean_sd(zip(*var_t, strict=True), T)
    return {"ent_row": [_seqsum(r) / N for r in ent],
            "guess_row": [_seqsum(r) / N for r in guess],
            "var_last": [r[-1] for r in var_t], "disc_last": [r[-1] for r in disc_t],
            "repeats": repeats, "triples": triples, "drought": drought,
            "ent_mean": ent_mean, "ent_se": ent_se,
            "guess_mean": [_seqsum(c) / T for c in zip(*guess, strict=True)],
            "var_mean": var_mean, "var_se": var_se,
            "disc_mean": [_seqsum(c) / T for c in zip(*disc_t, strict=True)]}
