"""Systems studios ship: gacha pity with a 50/50, duplicate protection, player-favouring
hidden odds (XCOM aim assist, Fire Emblem's two-number hit, lucky streaks) and the Tetris:
The Grand Master randomisers (TGM1, TGM2, TGM3). Every one follows the
:class:`~chancekit.fair.System` protocol, so both engines, the streak engine
(:mod:`chancekit.fair.streaks`) and spec strings work on them; the exact rules and sources
are in docs/fair.md ("Systems studios ship").

>>> from chancekit.fair.studio import GachaPity, true_hit
>>> g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
>>> [round(x, 5) for x in g.target()]        # long-run shares: common, off-banner, featured
[0.98395, 0.00535, 0.0107]
>>> float(true_hit(70))                      # Fire Emblem: displayed 70 -> real 82.3 %
0.823
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from chancekit._validate import require_int
from chancekit.errors import InvalidValueError, NotationError, StateError
from chancekit.fair.systems import (
    PityTimer,
    System,
    _check_prob,
    _comb,
    _SinceSuccess,
    _state_tuple,
)
from chancekit.rng.source import as_source

__all__ = [
    "PIECES",
    "AimAssist",
    "DuplicateProtection",
    "GachaPity",
    "LuckyStreak",
    "TGM3Randomizer",
    "TGMRandomizer",
    "TwoRollHit",
    "long_run_rate",
    "true_hit",
    "true_hit_table",
]

#: the seven tetrominoes, in the index order of the TGM systems
PIECES = ("I", "J", "L", "O", "S", "T", "Z")


def long_run_rate(chance: Any, limit: int = 1_000_000) -> float:
    """The long-run success rate of a "k-th try since the last success" rule
    ``chance(k)`` (k = 1, 2, ...): 1 / E[tries per success], summed until the survival is
    below 1e-15 (at most ``limit`` tries; the remaining tail is ignored).

    >>> round(long_run_rate(lambda k: 0.25), 12)
    0.25
    """
    tries, survive, k = 0.0, 1.0, 1
    while survive > 1e-15 and k <= limit:
        tries += survive
        survive *= 1.0 - min(1.0, max(0.0, chance(k)))
        k += 1
    return 1.0 / tries


# --------------------------------------------------------------------------- gacha
class GachaPity(System):
    """Two-level gacha pity. Values ``("common", "off-banner", "featured")``.

    Rare rate: ``base`` per pull; from pull ``soft_start`` since the last rare the chance
    rises by ``ramp`` per pull; pull ``hard`` is a certain rare (the :class:`PityTimer`
    rule). A rare is the featured item with chance ``featured`` (the 50/50) — unless the
    previous rare was off-banner (a lost 50/50), then it is featured for sure. State:
    ``(k, guaranteed)``, k the pull number since the last rare (1 after one). O(1) a draw.

    Weapon banners (issue #30): ``chosen`` is the share of featured rares that are the
    item you want (two featured weapons, one chosen: 0.5); then a fourth value
    ``"other-featured"`` is the featured item you did not choose (the guarantee after a
    lost 50/50 makes the next rare featured, not necessarily chosen). ``fate=m`` (fate
    points): every rare that is not the chosen item is a miss; after ``m`` misses in a row
    the next rare is the chosen item for certain. With ``fate`` the state is ``(k,
    guaranteed, misses)``.

    >>> g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    >>> g.setstate((90, True)); g.probabilities()
    (0.0, 0.0, 1.0)
    >>> w = GachaPity(0.007, soft_start=63, ramp=0.07, hard=80, featured=0.75, chosen=0.5,
    ...               fate=1)
    >>> w.values, w.getstate()
    (('common', 'off-banner', 'featured', 'other-featured'), (1, False, 0))
    >>> w.setstate((80, False, 1)); w.probabilities()
    (0.0, 0.0, 1.0, 0.0)
    """

    kind = "gacha"

    def __init__(self, base: float, *, soft_start: int | None = None, ramp: float = 0.0,
                 hard: int | None = None, featured: float = 0.5, fate: int | None = None,
                 chosen: float | None = None) -> None:
        self._pity = PityTimer(base, soft_start=soft_start, ramp=ramp, hard=hard)
        self.base, self.soft_start, self.ramp, self.hard = (
            self._pity.base, self._pity.soft_start, self._pity.ramp, self._pity.hard)
        self.featured = _check_prob("featured", featured, open_high=False)
        self.fate = None if fate is None else require_int("fate", fate, lo=1, hi=1000)
        self.chosen = 1.0 if chosen is None else _check_prob("chosen", chosen,
                                                             open_high=False)
        self._values = ("common", "off-banner", "featured") + (
            ("other-featured",) if self.chosen < 1.0 else ())
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.base,), {"soft_start": self.soft_start, "ramp": self.ramp,
                               "hard": self.hard, "featured": self.featured,
                               "fate": self.fate,
                               "chosen": self.chosen if self.chosen < 1.0 else None})

    def rare_rate(self) -> float:
        """Long-run share of rares (1 / expected pulls per rare)."""
        return long_run_rate(self._pity.chance)

    def _rare_split(self, guaranteed: bool, misses: int) -> tuple[float, float, float]:
        """(off-banner, chosen featured, other featured) shares of a rare in a state."""
        if self.fate is not None and misses >= self.fate:
            return (0.0, 1.0, 0.0)
        f = 1.0 if guaranteed else self.featured
        return (1.0 - f, f * self.chosen, f * (1.0 - self.chosen))

    def _after_rare(self, index: int, misses: int) -> tuple[bool, int]:
        """(guaranteed, misses) after a rare of value ``index`` (1, 2 or 3)."""
        if index == 2:
            return (False, 0)
        m = 0 if self.fate is None else min(misses + 1, self.fate)
        return (index == 1, m)

    def target(self) -> tuple[float, ...]:
        r = self.rare_rate()
        if self.fate is None and self.chosen >= 1.0:
            # the guarantee flag is a two-state chain: P(lost last 50/50) = (1-f)/(2-f)
            f = self.featured
            return (1.0 - r, r * (1.0 - f) / (2.0 - f), r / (2.0 - f))
        # the (guaranteed, misses) chain at rares: its stationary shares, by iteration
        # (at most 2 * (fate + 1) states; converges geometrically)
        top = self.fate or 0
        share = {(False, 0): 1.0}
        out = (0.0, 0.0, 0.0)
        for _ in range(100_000):
            nxt: dict[tuple[bool, int], float] = {}
            acc = [0.0, 0.0, 0.0]
            for (g, m), q in share.items():
                for j, p in enumerate(self._rare_split(g, m)):
                    if p:
                        acc[j] += q * p
                        key = self._after_rare(j + 1, min(m, top))
                        nxt[key] = nxt.get(key, 0.0) + q * p
            done = all(abs(nxt.get(k, 0.0) - share.get(k, 0.0)) < 1e-16
                       for k in set(nxt) | set(share))
            share, out = nxt, (acc[0], acc[1], acc[2])
            if done:
                break
        shares = (1.0 - r, r * out[0], r * out[1])
        return shares + ((r * out[2],) if self.chosen < 1.0 else ())

    def probabilities(self) -> tuple[float, ...]:
        q = self._pity.chance(self._k)
        off, mine, other = self._rare_split(self._guaranteed, self._misses)
        out = (1.0 - q, q * off, q * mine)
        return out + ((q * other,) if self.chosen < 1.0 else ())

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=self.n - 1)
        if index == 0:
            self._k += 1
        else:
            self._k = 1
            self._guaranteed, self._misses = self._after_rare(index, self._misses)

    def getstate(self) -> tuple[Any, ...]:
        if self.fate is None:
            return (self._k, self._guaranteed)
        return (self._k, self._guaranteed, self._misses)

    def setstate(self, state: Any) -> None:
        if self.fate is None:
            state = _state_tuple(state, 2, "GachaPity")
            misses = 0
        else:
            state = _state_tuple(state, 3, "GachaPity")
            misses = state[2]
            if not (isinstance(misses, int) and not isinstance(misses, bool)
                    and 0 <= misses <= self.fate):
                raise StateError(f"GachaPity state must be (k >= 1, guaranteed, misses in "
                                 f"0..{self.fate}), not {state!r}")
        if not (isinstance(state[0], int) and not isinstance(state[0], bool)
                and state[0] >= 1 and isinstance(state[1], bool)):
            want = "(k >= 1, guaranteed)" if self.fate is None else \
                "(k >= 1, guaranteed, misses)"
            raise StateError(f"GachaPity state must be {want}, not {state!r}")
        self._k, self._guaranteed, self._misses = state[0], state[1], misses

    def reset(self) -> None:
        self._k, self._guaranteed, self._misses = 1, False, 0

    def state_bound(self, draws: int) -> float:
        """(k, guaranteed, counts) after t draws, r of them rares: k <= min(hard, t - r + 1)
        (k - 1 trailing commons), off-banner rares at most (r + 1) // 2 (one is always
        followed by a featured), the flag 2 ways: at most ``sum over r of min(hard, t - r
        + 1) * (r + 3)``, summed in closed form (j = t - r + 1). With fate points or a
        chosen share: k times the flags times the compositions of the counts."""
        t = draws
        w = t + 1 if self.hard is None else min(self.hard, t + 1)
        if self.fate is not None or self.chosen < 1.0:
            return float(w * 2 * ((self.fate or 0) + 1)) * _comb(t + self.n - 1, self.n - 1)
        m = w  # j = 1..m: min(hard, j) = j; j = m+1..t+1: hard
        low = (t + 4) * m * (m + 1) / 2 - m * (m + 1) * (2 * m + 1) / 6
        high = w * ((t + 3 - w) * (t + 4 - w) / 2 - 3) if w < t + 1 else 0.0
        return float(low + high)


# --------------------------------------------------------------------------- duplicates
class DuplicateProtection(System):
    """Loot with rarities, duplicate protection and a guaranteed rare.

    ``sizes[j]`` items of rarity j (values are the items, rarity by rarity, labelled
    ``"r{j}-{i}"``); each draw picks rarity j with chance ``rates[j]`` (normalised;
    default: in proportion to the sizes), then an item of that rarity uniformly among
    those *not yet seen* in the rarity's current set; once every item of a rarity has been
    seen the set starts over (no duplicate of a rarity until its set is complete).
    ``guarantee=K``: if none of the first K - 1 draws was of rarity ``rare`` (default 1)
    or above, draw K is (rarities below ``rare`` are dropped for it and the rest renormalised).
    State: ``(seen items per rarity, draws without a rare while the guarantee runs, or -1)``.
    O(n) a draw.

    >>> loot = DuplicateProtection((3, 1), rates=(0.9, 0.1), guarantee=2)
    >>> loot.observe(0); [round(p, 3) for p in loot.probabilities()]
    [0.0, 0.0, 0.0, 1.0]
    """

    kind = "duplicate-protection"

    def __init__(self, sizes: Sequence[int], rates: Sequence[float] | None = None, *,
                 guarantee: int | None = None, rare: int | None = None) -> None:
        sizes = tuple(sizes)
        if not sizes:
            raise InvalidValueError("sizes", sizes, "one item count per rarity")
        self.sizes = tuple(require_int("sizes[j]", s, lo=1, hi=64) for s in sizes)
        if rates is None:
            self.rates: tuple[float, ...] | None = None
            w = [float(s) for s in self.sizes]
        else:
            rates = tuple(rates)
            if len(rates) != len(self.sizes) or any(
                isinstance(r, bool) or not isinstance(r, (int, float)) or not r > 0
                or not math.isfinite(r) for r in rates
            ):
                raise InvalidValueError("rates", rates,
                                        f"{len(self.sizes)} positive numbers (one per rarity)")
            self.rates = tuple(float(r) for r in rates)
            w = list(self.rates)
        tot = math.fsum(w)
        self._p = tuple(x / tot for x in w)
        if rare is None:
            rare = min(1, len(self.sizes) - 1)
        self.rare = require_int("rare", rare, lo=0, hi=len(self.sizes) - 1)
        self.guarantee = None if guarantee is None else require_int("guarantee", guarantee,
                                                                    lo=1)
        if self.guarantee is not None and self.rare == 0:
            raise InvalidValueError("rare", rare, "a rarity index >= 1 when a guarantee is set")
        if sum(self.sizes) < 2:
            raise InvalidValueError("sizes", sizes, "at least 2 items in all")
        self._rarity: list[int] = []
        self._start: list[int] = []
        for j, s in enumerate(self.sizes):
            self._start.append(len(self._rarity))
            self._rarity += [j] * s
        self._values = tuple(f"r{j}-{i + 1}" for j, s in enumerate(self.sizes)
                             for i in range(s))
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.sizes, self.rates), {"guarantee": self.guarantee, "rare": self.rare})

    def target(self) -> tuple[float, ...]:
        return tuple(self._p[j] / self.sizes[j] for j in self._rarity)

    def probabilities(self) -> tuple[float, ...]:
        p = list(self._p)
        if self.guarantee is not None and self._dry == self.guarantee - 1:
            for j in range(self.rare):
                p[j] = 0.0
            tot = math.fsum(p)
            p = [x / tot for x in p]
        out = []
        for i, j in enumerate(self._rarity):
            left = self.sizes[j] - len(self._seen[j])
            out.append(0.0 if i in self._seen[j] else p[j] / left)
        return tuple(out)

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=self.n - 1)
        j = self._rarity[index]
        seen = self._seen[j] | {index}
        self._seen[j] = frozenset() if len(seen) == self.sizes[j] else frozenset(seen)
        if self._dry >= 0:
            self._dry = -1 if j >= self.rare or self._dry + 1 >= (self.guarantee or 0) \
                else self._dry + 1

    def getstate(self) -> tuple[Any, ...]:
        return (tuple(tuple(sorted(s)) for s in self._seen), self._dry)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 2, "DuplicateProtection")
        seen, dry = state
        ok = (isinstance(seen, tuple) and len(seen) == len(self.sizes)
              and isinstance(dry, int) and -1 <= dry < (self.guarantee or 0))
        if ok:
            for j, s in enumerate(seen):
                lo, hi = self._start[j], self._start[j] + self.sizes[j]
                ok = ok and isinstance(s, tuple) and len(s) < self.sizes[j] and all(
                    isinstance(i, int) and lo <= i < hi for i in s)
        if not ok:
            raise StateError(f"bad DuplicateProtection state {state!r}")
        self._seen = [frozenset(s) for s in seen]
        self._dry = dry

    def reset(self) -> None:
        self._seen: list[frozenset[int]] = [frozenset() for _ in self.sizes]
        self._dry = -1 if self.guarantee is None else 0

    def state_bound(self, draws: int) -> float:
        seen = math.prod(2.0 ** s for s in self.sizes)
        return seen * ((self.guarantee or 0) + 1) * _comb(draws + self.n - 1, self.n - 1)


# --------------------------------------------------------------------------- hidden odds
class AimAssist(_SinceSuccess):
    """XCOM-style hidden aim assist: the hit chance is ``base`` plus ``step`` for every
    miss since the last hit, at most ``cap``; a hit resets it. Values ``(False, True)``
    (miss, hit). State ``(k,)``: the try number since the last hit. O(1) a draw, vectorised
    under Monte Carlo.

    >>> aim = AimAssist(0.65, 0.10, cap=0.95)
    >>> aim.observe(0); aim.observe(0); aim.probabilities()[1]
    0.85
    """

    kind = "aim-assist"

    def __init__(self, base: float, step: float, cap: float = 1.0) -> None:
        super().__init__()
        self.base = _check_prob("base", base)
        self.step = _check_prob("step", step, open_low=False, open_high=False)
        self.cap = _check_prob("cap", cap, open_high=False)
        if self.cap < self.base:
            raise InvalidValueError("cap", cap, f"a cap at least base = {self.base}")
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.base, self.step, self.cap), {})

    def chance(self, k: int) -> float:
        """The hit chance on try k since the last hit."""
        return min(self.cap, round(self.base + (k - 1) * self.step, 12))

    def probabilities(self) -> tuple[float, ...]:
        return self._pair(self.chance(self._k))

    def target(self) -> tuple[float, ...]:
        r = long_run_rate(self.chance)
        return (1.0 - r, r)

    def _k_max(self) -> float:
        if self.cap < 1.0 or self.step == 0.0:
            return math.inf
        return math.ceil((1.0 - self.base) / self.step) + 1


def true_hit(displayed: int) -> Fraction:
    """Fire Emblem's real hit rate for a displayed rate (0..100): the hit roll is the
    average of two rolls of 0..99, a hit when it is below the displayed rate, i.e.
    ``r1 + r2 < 2 * displayed``; exact, counted over the 10 000 pairs in closed form.

    >>> true_hit(70), true_hit(50), true_hit(100)
    (Fraction(823, 1000), Fraction(101, 200), Fraction(1, 1))
    """
    d = require_int("displayed", displayed, lo=0, hi=100)
    s = 2 * d  # pairs (a, b) in 0..99 with a + b < s: sum over c < s of pairs summing to c
    pairs = sum(min(c, 198 - c) + 1 for c in range(min(s, 199)))
    return Fraction(pairs, 10_000)


def true_hit_table(step: int = 5) -> dict[int, Fraction]:
    """``{displayed: real}`` for displayed = 0, step, ..., 100.

    >>> {k: float(v) for k, v in true_hit_table(25).items()}
    {0: 0.0, 25: 0.1275, 50: 0.505, 75: 0.8775, 100: 1.0}
    """
    step = require_int("step", step, lo=1, hi=100)
    return {d: true_hit(d) for d in range(0, 101, step)}


class TwoRollHit(System):
    """Fire Emblem's two random numbers: the displayed hit rate ``displayed`` (0..100) is
    tested against the average of two rolls of 0..99, so the real rate is
    :func:`true_hit` (70 shows 82.3 %, 30 only 18.3 %). Values ``(False, True)``;
    stateless; a draw is two exact ``randbelow(100)``.

    >>> TwoRollHit(70).probabilities()
    (0.177, 0.823)
    """

    kind = "two-roll"

    def __init__(self, displayed: int) -> None:
        self.displayed = require_int("displayed", displayed, lo=1, hi=99)
        self.real = true_hit(self.displayed)
        self._values = (False, True)

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.displayed,), {})

    def probabilities(self) -> tuple[float, ...]:
        return (float(1 - self.real), float(self.real))

    def target(self) -> tuple[float, ...]:
        return self.probabilities()

    def _sample(self, rng: Any) -> int:
        return int(rng.randbelow(100) + rng.randbelow(100) < 2 * self.displayed)

    def observe(self, index: int) -> None:
        require_int("index", index, lo=0, hi=1)

    def getstate(self) -> tuple[()]:
        return ()

    def setstate(self, state: Any) -> None:
        _state_tuple(state, 0, "TwoRollHit")

    def reset(self) -> None:
        pass

    def state_bound(self, draws: int) -> float:
        return draws + 1.0


class LuckyStreak(System):
    """A capped lucky streak: a try succeeds with chance ``p``; after a *rolled* success
    the next ``cap`` tries succeed automatically, then rolling resumes. Values
    ``(False, True)``; state ``(auto-successes left,)``; long-run rate
    ``(1 + cap) / (1/p + cap)``. O(1) a draw.

    >>> luck = LuckyStreak(0.25, 2)
    >>> luck.observe(1); luck.probabilities()
    (0.0, 1.0)
    >>> round(luck.target()[1], 4)
    0.5
    """

    kind = "lucky-streak"

    def __init__(self, p: float, cap: int) -> None:
        self.p = _check_prob("p", p)
        self.cap = require_int("cap", cap, lo=1, hi=10_000)
        self._values = (False, True)
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.p, self.cap), {})

    def target(self) -> tuple[float, ...]:
        r = (1 + self.cap) / (1 / self.p + self.cap)
        return (1.0 - r, r)

    def probabilities(self) -> tuple[float, ...]:
        return (0.0, 1.0) if self._left else (1.0 - self.p, self.p)

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=1)
        if self._left:
            if not index:
                raise InvalidValueError("index", index, "1: a lucky streak is running")
            self._left -= 1
        elif index:
            self._left = self.cap

    def getstate(self) -> tuple[int]:
        return (self._left,)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 1, "LuckyStreak")
        if not (isinstance(state[0], int) and 0 <= state[0] <= self.cap):
            raise StateError(f"LuckyStreak state must be (0..{self.cap},), not {state!r}")
        self._left = state[0]

    def reset(self) -> None:
        self._left = 0

    def state_bound(self, draws: int) -> float:
        return (self.cap + 1.0) * (draws + 1)


# --------------------------------------------------------------------------- TGM
def _pieces(seq: Sequence[str], what: str) -> tuple[int, ...]:
    try:
        return tuple(PIECES.index(str(x).upper()) for x in seq)
    except ValueError:
        raise InvalidValueError(what, seq, f"pieces among {''.join(PIECES)}") from None


class TGMRandomizer(System):
    """The TGM1 / TGM2 randomiser with its start rules: a 4-piece history starting at
    ``start`` (newest first; TGM1 ``ZZZZ``, TGM2 ``SZSZ``); the first piece is uniform
    among the pieces not in ``forbidden_first`` (S, Z, O); every later piece is rolled
    uniformly up to ``tries`` times (TGM1 4, TGM2 6) until it is not in the history, the last
    roll kept. Values :data:`PIECES`. State ``(first, history)``; probabilities in closed
    form (as :class:`~chancekit.fair.HistoryReroll`). O(history) a draw.

    >>> tgm = TGMRandomizer.tgm1()
    >>> [round(p, 3) for p in tgm.probabilities()]
    [0.25, 0.25, 0.25, 0.0, 0.0, 0.25, 0.0]
    >>> tgm.observe(0); round(tgm.probabilities()[6], 6)   # Z is still in the history
    0.003332
    """

    kind = "tgm"

    def __init__(self, tries: int = 4, start: Sequence[str] = "ZZZZ",
                 forbidden_first: Sequence[str] = "SZO") -> None:
        self.tries = require_int("tries", tries, lo=1, hi=64)
        self.start = _pieces(start, "start")
        if not 1 <= len(self.start) <= 6:
            raise InvalidValueError("start", start, "1 to 6 pieces (the history length)")
        self.forbidden_first = tuple(sorted(set(_pieces(forbidden_first, "forbidden_first"))))
        if len(self.forbidden_first) >= len(PIECES):
            raise InvalidValueError("forbidden_first", forbidden_first, "at most 6 pieces")
        self._values = PIECES
        self.reset()

    @classmethod
    def tgm1(cls) -> TGMRandomizer:
        """TGM1: history ZZZZ, 4 tries."""
        return cls(4, "ZZZZ")

    @classmethod
    def tgm2(cls) -> TGMRandomizer:
        """TGM2 (TAP): history S,Z,S,Z (newest first), 6 tries."""
        return cls(6, "SZSZ")

    def _init_args(self) -> tuple[Any, ...]:
        return ((self.tries, "".join(PIECES[i] for i in self.start),
                 "".join(PIECES[i] for i in self.forbidden_first)), {})

    def probabilities(self) -> tuple[float, ...]:
        n = len(PIECES)
        if self._first:
            ok = n - len(self.forbidden_first)
            return tuple(0.0 if i in self.forbidden_first else 1.0 / ok for i in range(n))
        held = set(self._hist)
        q = len(held) / n
        inside = q ** (self.tries - 1) / n
        outside = (1.0 - q ** self.tries) / (1.0 - q) / n
        return tuple(inside if i in held else outside for i in range(n))

    def _sample(self, rng: Any) -> int:
        if self._first:
            allowed = [i for i in range(len(PIECES)) if i not in self.forbidden_first]
            return allowed[int(rng.randbelow(len(allowed)))]
        v = 0
        for _ in range(self.tries):
            v = int(rng.randbelow(len(PIECES)))
            if v not in self._hist:
                break
        return v

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=len(PIECES) - 1)
        if self._first and index in self.forbidden_first:
            raise InvalidValueError("index", index, "a piece allowed first")
        self._hist = (index, *self._hist[:-1])
        self._first = False

    def getstate(self) -> tuple[Any, ...]:
        return (self._first, self._hist)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 2, "TGMRandomizer")
        first, hist = state
        if not (isinstance(first, bool) and isinstance(hist, tuple)
                and len(hist) == len(self.start)
                and all(isinstance(i, int) and 0 <= i < len(PIECES) for i in hist)):
            raise StateError(f"bad TGMRandomizer state {state!r}")
        self._first, self._hist = first, hist

    def reset(self) -> None:
        self._first, self._hist = True, self.start

    def state_bound(self, draws: int) -> float:
        h = min(draws, len(self.start))
        return 7.0 ** h * _comb(draws - h + 6, 6)


def _tgm3_closed(pool: tuple[int, ...], hist: frozenset[int], rep: int) -> tuple[float, ...]:
    """:func:`_tgm3_law` with 6 rolls in closed form, when the most droughted piece ``rep``
    is not in the history: each rejection then moves one history copy to ``rep``, so with
    ``h`` history copies the chance of reaching roll r is ``prod_{i<r} (h - i) / 35``; the
    rejected copies are a uniform draw without replacement, so on the 6th roll history piece
    y is dealt with chance ``reach(5) * c_y * (h - 5) / (35 h)``."""
    h = sum(pool[x] for x in hist)
    reach = [1.0]
    for i in range(5):
        reach.append(reach[-1] * max(0, h - i) / 35.0)
    total = math.fsum(reach)
    out = []
    for x, c in enumerate(pool):
        if x in hist:
            out.append(reach[5] * c * (h - 5) / (35.0 * h) if h > 5 else 0.0)
        elif x == rep:
            out.append(math.fsum(r * (c + k) for k, r in enumerate(reach)) / 35.0)
        else:
            out.append(c * total / 35.0)
    return tuple(out)


@lru_cache(maxsize=4096)
def _tgm3_law(pool: tuple[int, ...], hist: frozenset[int], rep: int, rolls: int,
              ) -> tuple[float, ...]:
    """Exact chance of each piece being dealt from ``pool`` counts with ``rolls`` rolls left:
    a roll of a history piece is rejected (unless it is the last roll) and, when ``rep`` >=
    0, one copy of it in the pool becomes piece ``rep`` (the most droughted piece)."""
    out = [0.0] * 7
    for x, c in enumerate(pool):
        if not c:
            continue
        p = c / 35.0
        if x not in hist or rolls == 1:
            out[x] += p
            continue
        nxt = list(pool)
        if rep >= 0:
            nxt[x] -= 1
            nxt[rep] += 1
        for y, q in enumerate(_tgm3_law(tuple(nxt), hist, rep, rolls - 1)):
            out[y] += p * q
    return tuple(out)


class TGM3Randomizer(System):
    """TGM3 (Terror-Instinct): a 35-piece pool (5 of each), a 4-piece history and 6 rolls,
    weighted by drought. The first piece is uniform among I, J, L, T and is pushed onto the
    history S,Z,S,Z (newest first); it touches neither pool nor drought order. Then each
    piece: up to 6 times, pick one of the 35 pool slots uniformly; stop if its piece is not
    in the history (or on the 6th roll); a *rejected* roll replaces that slot's piece by
    the most droughted piece (``order[0]``, once any piece has been dealt). The dealt piece
    moves to the end of the drought order and its slot is refilled with the new
    ``order[0]`` (so the pool drifts towards the pieces least recently seen). Values
    :data:`PIECES`. Only the pool's counts matter (slots are uniform), so the state is
    ``(first, pool counts, drought order, history)``. ``probabilities()`` is exact
    (a recursion over the rejected rolls); ``draw`` runs the procedure itself. Because a
    rejected roll changes the pool, the state after a draw is not a function of the piece
    dealt: ``observe(i)`` applies the no-rejection update only, and exact engines refuse
    this system (use Monte Carlo).

    >>> from chancekit.rng import PCG32
    >>> seq = TGM3Randomizer().draw_many(14, PCG32(3))
    >>> seq[0] in "IJLT", set(seq) <= set("IJLOSTZ")
    (True, True)
    """

    kind = "tgm3"
    #: the state after a draw depends on the rejected rolls, not only on the piece
    markov_observe = False

    def __init__(self) -> None:
        self._values = PIECES
        self.reset()

    def _init_args(self) -> tuple[Any, ...]:
        return ((), {})

    def probabilities(self) -> tuple[float, ...]:
        if self._first:
            return tuple(0.25 if p in "IJLT" else 0.0 for p in PIECES)
        rep = self._order[0] if self._order else -1
        hist = frozenset(self._hist)
        if rep >= 0 and rep not in hist:
            return _tgm3_closed(self._pool, hist, rep)
        return _tgm3_law(self._pool, hist, rep, 6)

    def _deal(self, x: int) -> None:
        order = [o for o in self._order if o != x] + [x]
        pool = list(self._pool)
        pool[x] -= 1
        pool[order[0]] += 1
        self._pool, self._order = tuple(pool), tuple(order)
        self._hist = (x, *self._hist[:-1])

    def draw_index(self, rng: Any = None) -> int:
        rng = as_source(rng)
        if self._first:
            x = PIECES.index("IJLT"[int(rng.randbelow(4))])
            self._hist = (x, *self._hist[:-1])
            self._first = False
            return x
        pool = list(self._pool)
        x = 0
        for roll in range(6):
            slot = int(rng.randbelow(35))
            x = 0
            while slot >= pool[x]:
                slot -= pool[x]
                x += 1
            if x not in self._hist or roll == 5:
                break
            if self._order:
                pool[x] -= 1
                pool[self._order[0]] += 1
        self._pool = tuple(pool)
        self._deal(x)
        return x

    def observe(self, index: int) -> None:
        index = require_int("index", index, lo=0, hi=6)
        if self._first:
            if PIECES[index] not in "IJLT":
                raise InvalidValueError("index", index, "I, J, L or T first")
            self._hist = (index, *self._hist[:-1])
            self._first = False
            return
        if not self._pool[index]:
            raise InvalidValueError("index", index, "a piece in the pool")
        self._deal(index)

    def getstate(self) -> tuple[Any, ...]:
        return (self._first, self._pool, self._order, self._hist)

    def setstate(self, state: Any) -> None:
        state = _state_tuple(state, 4, "TGM3Randomizer")
        first, pool, order, hist = state
        ok = (isinstance(first, bool) and isinstance(pool, tuple) and len(pool) == 7
              and all(isinstance(c, int) and c >= 0 for c in pool) and sum(pool) == 35
              and isinstance(order, tuple) and len(set(order)) == len(order)
              and all(isinstance(i, int) and 0 <= i < 7 for i in order)
              and isinstance(hist, tuple) and len(hist) == 4
              and all(isinstance(i, int) and 0 <= i < 7 for i in hist))
        if not ok:
            raise StateError(f"bad TGM3Randomizer state {state!r}")
        self._first, self._pool, self._order, self._hist = first, pool, order, hist

    def reset(self) -> None:
        self._first = True
        self._pool: tuple[int, ...] = (5,) * 7
        self._order: tuple[int, ...] = ()
        self._hist: tuple[int, ...] = _pieces("SZSZ", "start")

    def state_bound(self, draws: int) -> float:
        return 1.0 if draws == 0 else math.inf  # not Markov under observe(): refused

    def _mc_draw_units(self) -> float:
        from chancekit.fair import work

        return super()._mc_draw_units() + 6 * work.MC_GENERIC_ROLL_UNITS + 300


# --------------------------------------------------------------------------- specs
#: spec names (and aliases) of the studio systems, merged into ``spec.SPEC_NAMES``
STUDIO_NAMES: dict[str, str] = {
    "gacha": "gacha", "gacha-pity": "gacha",
    "duplicate-protection": "duplicate-protection", "dupe": "duplicate-protection",
    "aim-assist": "aim-assist", "xcom": "aim-assist",
    "two-roll": "two-roll", "fire-emblem": "two-roll", "fe": "two-roll",
    "lucky-streak": "lucky-streak", "lucky": "lucky-streak",
    "tgm1": "tgm1", "tgm2": "tgm2", "tgm3": "tgm3",
}
#: (min positional, max positional) per studio spec
STUDIO_ARITY: dict[str, tuple[int, int]] = {
    "gacha": (1, 5), "duplicate-protection": (0, 2), "aim-assist": (2, 3),
    "two-roll": (1, 1), "lucky-streak": (2, 2), "tgm1": (0, 0), "tgm2": (0, 0),
    "tgm3": (0, 0),
}
#: the key=value options each studio spec accepts
STUDIO_OPTIONS: dict[str, set[str]] = {"duplicate-protection": {"sizes", "weights"},
                                       "gacha": {"fate", "chosen"}}


def studio_from_spec(key: str, pos: Sequence[str], opts: dict[str, str], spec: str,
                     col: int, values: int) -> System:
    """Build a studio system from a parsed spec (called by
    :func:`~chancekit.fair.system_from_spec`): ``gacha:B[,SOFT,RAMP,HARD[,F]][,fate=M][,chosen=C]``,
    ``duplicate-protection[:K[,R]],sizes=3/2/1[,weights=70/25/5]`` (without ``sizes``: one
    rarity of ``values`` items), ``aim-assist:B,STEP[,CAP]``, ``two-roll:D``,
    ``lucky-streak:P,CAP``, ``tgm1``, ``tgm2``, ``tgm3``.

    >>> studio_from_spec("two-roll", ["70"], {}, "two-roll:70", 10, 2)
    TwoRollHit(70)
    """

    def num(text: str, integer: bool, at: int = col) -> Any:
        try:
            return int(text) if integer else float(text)
        except ValueError:
            kind = "an integer" if integer else "a number"
            raise NotationError(f"expected {kind}, got {text!r}", spec, at) from None

    if key == "gacha":
        ints = (False, True, False, True, False)
        a = [num(x, ints[i]) for i, x in enumerate(pos)]
        kw = dict(zip(("soft_start", "ramp", "hard", "featured"), a[1:], strict=False))
        if "fate" in opts:
            kw["fate"] = num(opts["fate"], True, spec.find(opts["fate"]) + 1)
        if "chosen" in opts:
            kw["chosen"] = num(opts["chosen"], False, spec.find(opts["chosen"]) + 1)
        return GachaPity(a[0], **kw)
    if key == "duplicate-protection":
        sizes = (tuple(num(x, True, spec.find(opts["sizes"]) + 1)
                       for x in opts["sizes"].split("/")) if "sizes" in opts else (values,))
        rates = (tuple(num(x, False, spec.find(opts["weights"]) + 1)
                       for x in opts["weights"].split("/")) if "weights" in opts else None)
        k = num(pos[0], True) if pos else None
        rare = num(pos[1], True) if len(pos) > 1 else None
        return DuplicateProtection(sizes, rates, guarantee=k, rare=rare)
    if key == "aim-assist":
        return AimAssist(*(num(x, False) for x in pos))
    if key == "two-roll":
        return TwoRollHit(num(pos[0], True))
    if key == "lucky-streak":
        return LuckyStreak(num(pos[0], False), num(pos[1], True))
    if key == "tgm1":
        return TGMRandomizer.tgm1()
    if key == "tgm2":
        return TGMRandomizer.tgm2()
    return TGM3Randomizer()
