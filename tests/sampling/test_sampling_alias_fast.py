"""AliasTable's vectorised build and lazy draws: the same tables as the pure-Python Vose,
bulk == scalar draws, exact decisions at every boundary (scripted bit sources), goodness
of fit at fixed seeds, and the ChanceTree size limits."""

from __future__ import annotations

import math
import tracemalloc
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _stats import pooled_chisquare
from chancekit.errors import InvalidValueError, LimitError
from chancekit.rng import PCG32
from chancekit.sampling import AliasTable, ChanceTree, _limbs, _weights
from chancekit.sampling.alias import vose_integer
from chancekit.sampling.tree import MAX_TOTAL_BITS

M32 = 0xFFFFFFFF


def python_table(ws: object) -> AliasTable:
    """The same table built by the pure-Python path (integer_weights + vose_integer)."""
    old = _weights.NUMPY_FROM
    _weights.NUMPY_FROM = 10**9
    try:
        return AliasTable(ws)
    finally:
        _weights.NUMPY_FROM = old


@pytest.fixture(params=["compiled", "numpy"])
def sweep(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Build with the compiled sweep (sampling/_vose.c) and again with numpy's."""
    from chancekit.sampling import alias

    if request.param == "numpy":
        monkeypatch.setattr(alias, "_vose", None)
    elif alias._vose is None:  # pragma: no cover - see test_alias_compiled
        pytest.skip("the compiled sweep is not built")
    return request.param


@pytest.fixture
def numpy_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_weights, "NUMPY_FROM", 1)


def same_table(a: AliasTable, b: AliasTable) -> None:
    assert a.capacity == b.capacity
    assert a.thresholds == b.thresholds
    assert a.aliases == b.aliases
    assert a == b and hash(a) == hash(b)


weights_lists = st.one_of(
    st.lists(st.integers(0, 20), min_size=1, max_size=30),
    st.lists(st.integers(0, 2**90), min_size=1, max_size=30),
    st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=30),
    st.lists(st.floats(0, 1, allow_nan=False).map(lambda x: x**40), min_size=1,
             max_size=30),
    st.lists(st.floats(0, 1e308, allow_nan=False), min_size=1, max_size=12),  # subnormals
    st.lists(st.sampled_from([0.0, 5e-324, 1e-310, 0.5, 1.0, 3.0, 1e300]), min_size=1,
             max_size=12),
).filter(any)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # kept on purpose
@given(weights_lists)
def test_numpy_build_equals_python_vose(sweep: str, ws: list) -> None:
    old = _weights.NUMPY_FROM
    _weights.NUMPY_FROM = 1
    try:
        fast = AliasTable(ws)
    finally:
        _weights.NUMPY_FROM = old
    slow = python_table(ws)
    same_table(fast, slow)
    total = sum(Fraction(w) for w in ws)
    assert fast.realized() == {i: Fraction(w) / total for i, w in enumerate(ws)}
    assert all(fast.probability(i) == Fraction(w) / total for i, w in enumerate(ws))


@pytest.mark.parametrize("make", [
    lambda r: r.integers(0, 1001, 5000),
    lambda r: r.random(5000),
    lambda r: r.random(5000) ** 30,                     # many limbs
    lambda r: 1.0 + r.integers(-3, 4, 5000) * 2.0**-52,  # near-equal: top-bit ties
    lambda r: np.concatenate([np.full(2500, 1.0), np.full(2500, 1.0 + 2.0**-52)]),
    lambda r: (r.integers(2**61, 2**62, 5000)),
    # two words (_wide) with top-bit ties and with carries into the high word
    lambda r: np.concatenate([[2.0**-70], 1.0 + r.integers(-3, 4, 4999) * 2.0**-52]),
    lambda r: np.concatenate([[2.0**-120], np.full(2500, 1.0), np.full(2499, 1.0 + 2.0**-52)]),
    lambda r: np.concatenate([[2.0**-70, 0.0], r.random(4998)]),
    lambda r: r.random(5000) ** 2,
])
def test_numpy_build_large_equals_python_vose(sweep: str, make: object) -> None:
    w = make(np.random.default_rng(7))  # type: ignore[operator]
    fast = AliasTable(w)
    slow = python_table(w.tolist())
    same_table(fast, slow)
    units = Counter()
    for j, (t, a) in enumerate(zip(fast.thresholds, fast.aliases, strict=True)):
        assert 0 <= t <= fast.capacity
        units[j] += t
        units[a] += fast.capacity - t
    total = sum(Fraction(x) for x in w.tolist())
    scale = Fraction(len(w) * fast.capacity)
    for i in (0, 1, 17, 4999):
        assert Fraction(units[i]) / scale == Fraction(w[i].item()) / total


def test_large_int64_weights_take_the_wide_form(sweep: str) -> None:
    """int64 weights whose ``n * cap`` passes 2**63 are swept as two words."""
    ws = [2**62 - 1 - i for i in range(300)]
    table = AliasTable(np.array(ws, dtype=np.int64))
    n, total = len(ws), sum(ws)
    k, cap = n // math.gcd(total, n), total // math.gcd(total, n)
    assert len(ws) * cap >= 2**63
    want_t, want_a = vose_integer([k * w for w in ws], cap)
    assert list(table.thresholds) == want_t
    assert [table.labels.index(x) for x in table.aliases] == want_a
    assert table.probability(5) * sum(ws) == ws[5]
    assert table._words  # kept as two words, not as int64


@pytest.mark.parametrize("arr", [
    np.arange(300, dtype=np.float32) / 7,
    np.arange(300, dtype=np.uint16),
    np.arange(300, dtype=np.uint64) * (2**62 // 300),
    np.array([2**63 + 5] + [1] * 299, dtype=np.uint64),   # past int64: the Python path
    np.array([0.0] * 150 + [1e-300] + [2.0] * 149),
])
def test_numpy_dtypes(arr: np.ndarray) -> None:
    same_table(AliasTable(arr), python_table(arr.tolist()))


def test_lists_that_take_the_python_path() -> None:
    for ws in ([1, 2.5] * 200, [2**70] + [1] * 300, [True] + [1] * 300):
        try:
            got = AliasTable(ws)
        except Exception as err:  # the same error either way
            with pytest.raises(type(err)):
                python_table(ws)
        else:
            same_table(got, python_table(ws))


def test_numpy_input_errors_match_python() -> None:
    for bad in ([1.0] * 300 + [float("nan")], [1] * 300 + [-2], [0.0] * 400, [0] * 400):
        with pytest.raises(InvalidValueError) as fast:
            AliasTable(bad)
        with pytest.raises(InvalidValueError) as slow:
            python_table(bad)
        assert str(fast.value) == str(slow.value)
        with pytest.raises(InvalidValueError) as arr:
            AliasTable(np.array(bad))
        assert str(arr.value) == str(slow.value)


def test_mapping_labels_and_lookup() -> None:
    w = {f"item{i}": float(i % 7) for i in range(1000)}
    t = AliasTable(w)
    assert t.labels == tuple(w)
    assert t.probability("item3") == Fraction(3, sum(i % 7 for i in range(1000)))
    with pytest.raises(InvalidValueError, match="unknown label"):
        t.probability("nope")
    positional = AliasTable(np.arange(1000))
    assert positional.probability(True) == positional.probability(1)
    assert positional.probability(2.0) == Fraction(2, 999 * 500)


# ------------------------------------------------------------------ lazy draws
LAZY = [
    [2**70, 3, 5],
    [1e-300, 1.0],
    [0.1, 1e-9, 0.5, 0.7],
    [2**66 + 1, 2**64 - 7, 12345],
]


@pytest.mark.parametrize("ws", LAZY)
def test_lazy_bulk_equals_scalar_and_uses_two_words(ws: list) -> None:
    t = AliasTable(ws)
    assert len(t) * t.capacity >= 2**64
    a, b = PCG32(3, 9), PCG32(3, 9)
    vec = t.draw_indices(a, 4000).tolist()
    assert vec == [t.draw_index(b) for _ in range(4000)]
    assert a.getstate() == b.getstate()
    c = PCG32(3, 9)
    c.advance(8000)  # two words a draw (a tie or a rejection has probability ~2**-60)
    assert c.getstate() == a.getstate()


class Scripted:
    """A bit source replaying given 32-bit words."""

    def __init__(self, words: list[int]) -> None:
        self.words = list(words)
        self.used = 0

    def next_u32(self) -> int:
        w = self.words[self.used]
        self.used += 1
        return w

    def randbelow(self, bound: int) -> int:  # pragma: no cover - the lazy path never asks
        raise AssertionError("not used")


def words_of(u: int, bits: int) -> list[int]:
    """The words that make ``u`` (``bits`` bits, read top down) in the lazy rule's order."""
    x = u >> (bits - 64)
    out = [x & M32, x >> 32]
    known = 64
    while known < bits:
        take = min(32, bits - known)
        part = (u >> (bits - known - take)) & ((1 << take) - 1)
        out.append(part << (32 - take))
        known += take
    return out


def rule(t: AliasTable, u: int) -> int | None:
    """The exact rule: None for a rejected ``u``, else the index it gives."""
    span = len(t) * t.capacity
    s = span.bit_length()
    f = (1 << (s + 64)) // span
    capf = f * t.capacity
    if u >= f * span:
        return None
    j = u // capf
    return j if u < f * (j * t.capacity + t.thresholds[j]) else t._a[j]


@pytest.mark.parametrize("ws", LAZY)
def test_lazy_rule_exact_at_every_boundary(ws: list) -> None:
    """Feed, through a scripted source, every ``u`` next to a column boundary or a cut --
    exact ties of the first 64 bits included -- and compare with the exact rule."""
    t = AliasTable(ws)
    span = len(t) * t.capacity
    s = span.bit_length()
    bits = s + 64
    f = (1 << bits) // span
    capf = f * t.capacity
    points = [0, (1 << bits) - 1, f * span - 1, f * span]
    for j in range(len(t)):
        cut = f * (j * t.capacity + t.thresholds[j])
        for p in (j * capf, cut):
            points += [p - 2, p - 1, p, p + 1, p + (1 << s), p - (1 << s)]
    checked = ties = 0
    for u in points:
        if not 0 <= u < 1 << bits:
            continue
        expect = rule(t, u)
        src = Scripted([*words_of(u, bits), 0, 0, 0, 0, 0])
        if expect is None:
            # rejected as soon as the words read put u past f * span: the draw starts
            # again on the next two words (here those of u = 0)
            w = words_of(u, bits)
            k = 2
            while True:
                known = min(64 + 32 * (k - 2), bits)
                if (u >> (bits - known)) << (bits - known) >= f * span:
                    break
                k += 1
            src = Scripted(w[:k] + words_of(0, bits))
            expect = rule(t, 0)
        got = t.draw_index(src)
        assert got == expect, (u, got, expect)
        x = u >> s
        keys = t._arrays()[1][0]
        ties += x == int(keys[(x * len(t)) >> 64])
        checked += 1
    assert checked > 10 and ties > 0


def test_lazy_exhaustive_after_a_tie() -> None:
    """With the first 64 bits tied to a column's cut, enumerate the next word's top 12 bits
    (the rest below decide only where those tie too): the own label is returned for exactly
    the ``u`` below the cut."""
    t = AliasTable([2**66 + 1, 2**64 - 7, 12345])
    span = len(t) * t.capacity
    s = span.bit_length()
    bits = s + 64
    f = (1 << bits) // span
    for j in range(len(t)):
        cut = f * (j * t.capacity + t.thresholds[j])
        x = cut >> s
        own = 0
        for top in range(1 << 12):
            u = (x << s) | (top << (s - 12))
            src = Scripted(words_of(u, bits) + [0] * 4)
            got = t.draw_index(src)
            assert got == rule(t, u)
            own += got == j and u < cut
        # the own count is the exact number of 12-bit steps below the cut
        below = -(-(cut - (x << s)) // (1 << (s - 12)))
        assert own == below


class ScriptedBulk(Scripted):
    """A scripted source with the bulk interface (the state is the position)."""

    def u32_array(self, n: int) -> np.ndarray:
        out = np.array(self.words[self.used:self.used + n], dtype=np.uint32)
        assert len(out) == n, "script too short"
        self.used += n
        return out

    def getstate(self) -> int:
        return self.used

    def setstate(self, state: int) -> None:
        self.used = state

    def advance(self, k: int) -> None:
        self.used += k


@pytest.mark.parametrize("ws", [
    [0.1, 1e-9, 0.5, 0.7],                                    # few columns: 32-bit column
    (np.random.default_rng(4).random(3000) ** 20).tolist(),   # many: 64-bit column
])
def test_lazy_bulk_with_ties_equals_scalar(ws: list) -> None:
    """Boundary words (ties of the first 64 bits, column edges) among random ones: the
    bulk path finishes them exactly and goes on from the right word."""
    t = AliasTable(ws)
    span = len(t) * t.capacity
    s = span.bit_length()
    bits = s + 64
    f = (1 << bits) // span
    capf = f * t.capacity
    rnd = np.random.default_rng(9)
    words: list[int] = []
    for i in range(3000):
        if i % 7 == 3:
            j = int(rnd.integers(0, len(t)))
            cut = f * (j * t.capacity + t.thresholds[j])
            u = [cut, cut - 1, j * capf, j * capf - 1, (j + 1) * capf][i % 5]
            u = min(max(u, 0), (1 << bits) - 1)
            words += words_of(u, bits)
        else:
            words += rnd.integers(0, 2**32, 2).tolist()
    words += [0] * 64
    draws = 2500
    bulk = ScriptedBulk(words)
    got = t.draw_indices(bulk, draws).tolist()
    scalar = Scripted(words)
    assert got == [t.draw_index(scalar) for _ in range(draws)]
    assert bulk.used == scalar.used


def test_lazy_scripted_source_without_bulk_methods() -> None:
    t = AliasTable([1e-300, 1.0])
    words = PCG32(5).u32_array(200).tolist()
    got = t.draw_indices(Scripted(words), 100).tolist()
    g = PCG32(5)
    assert got == [t.draw_index(g) for _ in range(100)]


@pytest.mark.parametrize("weights", [
    np.random.default_rng(1).random(2000) ** 8,            # floats: lazy path
    np.random.default_rng(2).integers(1, 1001, 2000),      # ints: one word a draw
    np.random.default_rng(3).random(20),                   # floats: pairs of words
])
def test_goodness_of_fit_fixed_seed(weights: np.ndarray) -> None:
    t = AliasTable(weights)
    draws = t.draw_indices(PCG32(20261122), 200_000)
    counts = Counter(draws.tolist())
    probs = {i: t.probability(i) for i in range(len(t))}
    p, cells = pooled_chisquare(counts, probs, ordered=False)
    assert cells > 5
    assert p > 1e-4


def test_limbs_merge_ranks_with_ties() -> None:
    e = [2**100 + 5, 2**100 + 9, 2**101]
    d = [2**100 + 1, 2**100 + 5, 2**100 + 6, 2**102]
    el = np.zeros((5, 3), dtype=np.uint64)
    dl = np.zeros((5, 4), dtype=np.uint64)
    for i, v in enumerate(e):
        el[:, i] = _limbs.from_int(v, 5)[:, 0]
    for i, v in enumerate(d):
        dl[:, i] = _limbs.from_int(v, 5)[:, 0]
    le, lt = _limbs.merge_ranks(el, dl)
    assert le.tolist() == [sum(x <= y for x in e) for y in d]
    assert lt.tolist() == [sum(y < x for y in d) for x in e]


def test_vose_integer_unchanged() -> None:
    assert vose_integer([1, 5, 0], 2) == ([1, 2, 0], [1, 1, 1])


# ------------------------------------------------------------------ ChanceTree limits
def test_tree_huge_weight_refused_up_front() -> None:
    big = 2**(10**7)
    tracemalloc.start()
    try:
        with pytest.raises(LimitError) as err:
            ChanceTree({"a": big, "b": 1})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.value.limit == "MAX_TOTAL_BITS"
    assert peak < 20 * 2**20
    tree = ChanceTree({"a": 1, "b": 2})
    for call in (lambda: tree.add("c", big), lambda: tree.set_weight("a", big),
                 lambda: tree.add("c", Fraction(1, 3) + big)):
        with pytest.raises(LimitError):
            call()
    assert tree.items() == [("a", 1), ("b", 2)]
    tree._check()
    ok = ChanceTree({"a": 2**(MAX_TOTAL_BITS - 2), "b": 1})
    assert ok.draw(PCG32(1)) in ("a", "b")


def test_tree_common_denominator_refused() -> None:
    primes = [p for p in range(3, 60_000, 2) if all(p % q for q in range(3, int(p**0.5) + 1, 2))]
    with pytest.raises(LimitError) as err:
        ChanceTree({p: Fraction(1, p) for p in primes})
    assert err.value.limit in ("MAX_TABLE_BITS", "MAX_TOTAL_BITS")
    tree = ChanceTree({"x": 1})
    with pytest.raises(LimitError):
        for p in primes:
            tree.add(p, Fraction(1, p))
    tree._check()


def test_float_probabilities_take_the_two_word_path() -> None:
    """The usual float weights (probabilities, ~100 bits exact) are built in two 64-bit
    words; past 2**128 the limbs path is used; both give python_table's table."""
    r = np.random.default_rng(11)
    w = r.random(3000)
    assert _weights.array_weights(w / w.sum())[1] == "w64"
    wide = np.concatenate([[2.0**-200], r.random(2999)])
    assert _weights.array_weights(wide)[1] == "limbs"
    for arr in (w / w.sum(), wide):
        same_table(AliasTable(arr), python_table(arr.tolist()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**63, 2**64 - 1]),
                min_size=1, max_size=40),
       st.integers(1, 2**23))  # products below 2**128 (the caller's guarantee)
def test_wide_words_against_python_ints(xs: list, k: int) -> None:
    """_wide's carries and borrows against Python integers (values near 2**64)."""
    from chancekit.sampling import _wide

    a = np.array([[x & (2**64 - 1) for x in xs], [x >> 64 for x in xs]], dtype=np.uint64)
    big = [x * (1 + 2**40) for x in xs] + [2**128 - 1]  # past one word, up to the top
    b = np.array([[x & (2**64 - 1) for x in big], [x >> 64 for x in big]],
                 dtype=np.uint64)
    n = len(big)
    ints = lambda v: [_wide.to_int(v, i) for i in range(v.shape[1])]  # noqa: E731
    assert ints(b) == big and _wide.total(b) == sum(big)
    big, b = big[:-1], b[:, :-1]  # the arithmetic below stays under 2**128
    assert ints(_wide.mul_small(b, k)) == [x * k for x in big]
    c = max(big) // 2 + 1
    sign = _wide.compare(b, c).tolist()
    assert sign == [(x > c) - (x < c) for x in big]
    below = np.flatnonzero(np.array([x < c for x in big]))
    above = np.flatnonzero(np.array([x > c for x in big]))
    run, acc = [], 0
    for i in below.tolist():
        acc += c - big[i]
        run.append(acc)
    assert ints(_wide.running_gaps(b, below, c, below=True)) == run
    run, acc = [], 0
    for i in above.tolist():
        acc += big[i] - c
        run.append(acc)
    assert ints(_wide.running_gaps(b, above, c, below=False)) == run
    cap = max(big) + 1
    assert ints(_wide.sub_from(cap, b)) == [cap - x for x in big]
    assert ints(_wide.sub_gathered(b, np.zeros(n - 1, dtype=np.int64), np.zeros_like(b))) \
        == [big[0]] * (n - 1)
    big = [*big, 2**128 - 1]
    b = np.array([[x & (2**64 - 1) for x in big], [x >> 64 for x in big]], dtype=np.uint64)
    for s in (0, 1, 63, 64, 70):
        if max(big) >> s < 2**64:
            assert _wide.top_bits(b, s).tolist() == [x >> s for x in big]
    limbs = _wide.to_limbs(b, 4)
    assert _limbs.to_ints(limbs) == big
    assert _wide.bit_length(b) == max(big).bit_length()
    sh = np.array([i % 76 for i in range(len(xs))], dtype=np.uint64)
    m = a[0] >> np.uint64(11)  # below 2**53
    assert ints(_wide.shifted(m, sh)) == [(int(x) << int(s)) for x, s in zip(m, sh, strict=True)]
    assert ints(a) == xs
