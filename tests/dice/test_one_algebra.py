"""One dice algebra (issue #11): notation is a front end over the public API.

A seeded generator writes each random expression twice — as notation text, and as the
Python calls a user would write (``Pool``, ``Distribution`` operators, selectors) — without
going through the parser or the compiler. Both must give the same distribution, over 400
expressions; and for expensive expressions both must make the same limit decision (the
same ``LimitError.limit``), since there is one set of limits and one budget.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from chancekit.dice import Distribution, constant, d, dist, faces, fudge
from chancekit.dice.pool import Pool
from chancekit.dice.selectors import (
    above,
    at_least,
    at_most,
    below,
    equal,
    highest,
    lowest,
)
from chancekit.errors import LimitError

Pair = tuple[str, Callable[[], Distribution]]

SIDES = [2, 3, 4, 6, 8, 10, 12, 20]


def _die(rng: random.Random) -> tuple[str, Callable[[], Distribution], list[int]]:
    kind = rng.random()
    if kind < 0.75:
        s = rng.choice(SIDES)
        return str(s), (lambda s=s: d(s)), list(range(1, s + 1))
    if kind < 0.85:
        return "F", fudge, [-1, 0, 1]
    listed = sorted(rng.choices([-1, 0, 1, 2, 3, 5], k=rng.randint(2, 4)))
    text = "{" + ",".join(map(str, listed)) + "}"
    return text, (lambda f=tuple(listed): faces(list(f))), listed


def _value_selector(rng: random.Random, fs: list[int]) -> tuple[str, Callable[[], object]]:
    v = rng.choice(fs)
    return rng.choice([
        (f"{v}", lambda: equal(v)), (f"<{v}", lambda: below(v)), (f">{v}", lambda: above(v)),
        (f"<={v}", lambda: at_most(v)), (f">={v}", lambda: at_least(v)),
    ])


def _dice(rng: random.Random) -> Pair:
    n = rng.randint(0, 4)
    side_text, die, fs = _die(rng)
    text = f"{n}d{side_text}"
    steps: list[Callable[[Pool], Pool]] = []
    last = ""
    for _ in range(rng.randint(0, 2)):
        kind = rng.choice(["kh", "kl", "dh", "dl", "k", "p", "rr", "ro", "ra", "e", "mi",
                           "ma"])
        if kind[0] == last[:1] or kind == last:
            continue  # notation merges repeated operators (``kh1kl1`` is one keep): not here
        last = kind
        if kind in ("kh", "kl", "dh", "dl"):
            k = rng.randint(0, 4)
            sel = (lambda k=k: highest(k)) if kind[1] == "h" else (lambda k=k: lowest(k))
            method = "keep" if kind[0] == "k" else "drop"
            text += f"{kind}{k}"
            steps.append(lambda p, m=method, s=sel: getattr(p, m)(s()))
            continue
        if kind in ("mi", "ma"):
            v = rng.choice(fs)
            text += f"{kind}{v}"
            steps.append(lambda p, k=kind, v=v: p.clamp(lo=v) if k == "mi" else p.clamp(hi=v))
            continue
        stext, sel = _value_selector(rng, fs)
        if kind in ("rr", "e") and all(sel().matches(f) for f in fs):  # type: ignore[attr-defined]
            continue  # would reroll/explode forever: refused by both, tested elsewhere
        text += f"{kind}{stext}"
        method = {"k": "keep", "p": "drop", "rr": "reroll", "ro": "reroll", "ra": "reroll_add",
                  "e": "explode"}[kind]
        once = kind == "ro"
        steps.append(lambda p, m=method, s=sel, o=once: (
            p.reroll(s(), once=True) if o else getattr(p, m)(s())))

    def api(n: int = n, die: Callable[[], Distribution] = die,
            steps: list[Callable[[Pool], Pool]] = steps) -> Distribution:
        pool = Pool(die(), n)
        for step in steps:
            pool = step(pool)
        return pool.sum()

    return text, api


_OPS: dict[str, Callable[[Distribution, Distribution], Distribution]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, ">=": Distribution.ge,
    "<": Distribution.lt, "==": Distribution.eq,
}


def _expr(rng: random.Random, depth: int = 0) -> Pair:
    r = rng.random()
    if depth >= 2 or r < 0.45:
        if rng.random() < 0.15:
            c = rng.randint(-3, 9)
            return str(c) if c >= 0 else f"({c})", lambda c=c: constant(c)
        return _dice(rng)
    if r < 0.8:
        op = rng.choice(list(_OPS))
        lt, la = _expr(rng, depth + 1)
        rt, ra = _expr(rng, depth + 1)
        if op in ("//", "%"):  # a divisor that cannot be 0
            c = rng.randint(1, 4)
            rt, ra = str(c), (lambda c=c: constant(c))
        return f"({lt}) {op} ({rt})", lambda f=_OPS[op], la=la, ra=ra: f(la(), ra())
    items = [_expr(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    kind = rng.choice(["", "kh1", "kl1", "dh1", "dl1"])
    text = "(" + ", ".join(t for t, _ in items) + ("," if len(items) == 1 else "") + ")" + kind

    def api(items: list[Pair] = items, kind: str = kind) -> Distribution:
        pool = Pool.of([f() for _, f in items])
        if kind:
            sel = highest(1) if kind[1] == "h" else lowest(1)
            pool = pool.keep(sel) if kind[0] == "k" else pool.drop(sel)
        return pool.sum()

    return text, api


def _corpus(n: int, seed: int) -> list[Pair]:
    rng = random.Random(seed)
    return [_expr(rng) for _ in range(n)]


CORPUS = _corpus(400, 2026)


def test_corpus_is_large_and_varied() -> None:
    texts = {t for t, _ in CORPUS}
    assert len(texts) >= 300
    for token in ("kh", "dl", "rr", "ro", "ra", "e", "mi", "ma", "(", "//", ">="):
        assert any(token in t for t in texts), token


@pytest.mark.parametrize(("text", "api"), CORPUS, ids=[t for t, _ in CORPUS])
def test_notation_equals_the_api_calls(text: str, api: Callable[[], Distribution]) -> None:
    try:
        want = api()
    except LimitError as e:
        with pytest.raises(LimitError) as info:
            dist(text)
        assert info.value.limit == e.limit
        return
    assert dist(text) == want, text


# -- the same limit decision for expensive expressions (one set of limits, one budget) --
EXPENSIVE: list[Pair] = [
    ("831d100", lambda: 831 @ d(100)),
    ("300d1000", lambda: 300 @ d(1000)),
    ("20000d6", lambda: 20_000 @ d(6)),
    ("100001d6", lambda: 100_001 @ d(6)),
    ("d3000*d3000", lambda: d(3000) * d(3000)),
    ("1d100000!", lambda: Pool(d(100_000)).explode(equal(100_000)).sum()),
    ("1d10000!>7", lambda: Pool(d(10_000)).explode(above(7)).sum()),
    ("100d100kh1kl1", lambda: Pool(d(100), 100).keep(highest(1), lowest(1)).sum()),
    ("30d6e>4kh3", lambda: Pool(d(6), 30).explode(above(4)).keep(highest(3)).sum()),
    ("300d6e6kh3", lambda: Pool(d(6), 300).explode(equal(6)).keep(highest(3)).sum()),
    ("4d6111kh3", lambda: Pool(d(6111), 4).keep(highest(3)).sum()),
    ("3d3000kh2", lambda: Pool(d(3000), 3).keep(highest(2)).sum()),
    ("6d20ro>6dl4kh4",
     lambda: Pool(d(20), 6).reroll(above(6), once=True).drop(lowest(4)).keep(highest(4)).sum()),
    # accepted by both
    ("10000d6", lambda: 10_000 @ d(6)),
    ("8d6!kh3", lambda: Pool(d(6), 8).explode(equal(6)).keep(highest(3)).sum()),
    ("d1000*d1000", lambda: d(1000) * d(1000)),
]


@pytest.mark.parametrize(("text", "api"), EXPENSIVE, ids=[t for t, _ in EXPENSIVE])
def test_same_limit_decision(text: str, api: Callable[[], Distribution]) -> None:
    def decide(f: Callable[[], Distribution]) -> str | Distribution:
        try:
            return f()
        except LimitError as e:
            assert e.limit
            return e.limit

    assert decide(lambda: dist(text)) == decide(api)


def test_documented_pool_examples() -> None:
    assert Pool(d(6), 4).keep(highest(3)).sum() == dist("4d6kh3")
    assert Pool(d(6), 4).drop(lowest(1)).sum() == dist("4d6dl1")
    assert Pool(d(20), 2).keep(highest(1)).sum() + 5 == dist("2d20kh1+5")
    assert Pool(d(6), 3).explode(equal(6)).sum() == dist("3d6!")
    assert Pool(d(6), 3).explode(equal(6)).sum() == 3 @ d(6).explode()
    assert Pool(d(10)).reroll(equal(1), once=True).sum() == d(10).reroll([1], depth=1)
    assert Pool(d(10)).reroll(equal(1)).sum() == d(10).reroll([1])
    assert Pool(d(6), 2).clamp(lo=2).sum() == 2 @ d(6).clamp(lo=2)
    assert Pool.of([d(4) + 1, constant(3), d(6)]).keep(highest(1)).sum() == dist(
        "(1d4+1, 3, 1d6)kh1")


def test_face_rules_go_through_pool() -> None:
    from chancekit.dice.pool import FaceRule, evaluate_pool, largest_set

    most = FaceRule(lambda st, face, c: max(st, c[0]), initial=0)
    assert Pool(d(6), 5).evaluate(most) == evaluate_pool(most, 5 * [d(6)])
    assert Pool(d(6), 5).evaluate(most) == largest_set(5 * [d(6)])
    both = FaceRule(lambda st, face, c: st + c[0] - c[1] if face == 6 else st, initial=0)
    assert Pool(d(6), 2).evaluate(both, Pool(d(6), 1)) == evaluate_pool(both, 2 * [d(6)],
                                                                        [d(6)])
    with pytest.raises(ValueError):
        Pool(d(6), 2).keep(highest(1)).evaluate(most)
