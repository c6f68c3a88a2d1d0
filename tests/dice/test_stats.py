"""dice.stats: skewness, excess kurtosis and distances, checked against scipy.stats."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from chancekit.dice import d, dist, ks_distance, kurtosis, skewness, tv_distance
from chancekit.dice.stats import central_moment
from chancekit.errors import InvalidTypeError, InvalidValueError

scipy_stats = pytest.importorskip("scipy.stats")

EXAMPLES = [d(6), 3 @ d(6), d(20).max(d(20)), dist("4d6kh3"), d(6).explode(), d(10) - d(4),
            dist("2d6") * 3 + 1]


def _arrays(dd):
    xs = np.array([float(x) for x in dd.outcomes()])
    ps = np.array([float(dd.probability(x)) for x in dd.outcomes()])
    return xs, ps


@pytest.mark.parametrize("dd", EXAMPLES)
def test_skew_and_kurtosis_match_scipy(dd) -> None:
    xs, ps = _arrays(dd)
    law = scipy_stats.rv_discrete(values=(np.arange(len(xs)), ps))
    # scipy on the values themselves: moments of a discrete law with given support
    mean = float((xs * ps).sum())
    m2 = float(((xs - mean) ** 2 * ps).sum())
    m3 = float(((xs - mean) ** 3 * ps).sum())
    m4 = float(((xs - mean) ** 4 * ps).sum())
    assert law is not None
    assert skewness(dd) == pytest.approx(m3 / m2 ** 1.5, rel=1e-9, abs=1e-12)
    assert kurtosis(dd) == pytest.approx(m4 / m2 ** 2 - 3, rel=1e-9, abs=1e-12)
    # and scipy's own estimators on a sample whose frequencies are the exact law
    weights = dd.weights
    total = dd.total
    if total <= 50_000:
        sample = np.repeat(xs, [int(weights[x]) for x in dd.outcomes()])
        assert skewness(dd) == pytest.approx(float(scipy_stats.skew(sample)), rel=1e-9,
                                             abs=1e-12)
        assert kurtosis(dd) == pytest.approx(float(scipy_stats.kurtosis(sample)), rel=1e-9,
                                             abs=1e-12)


def test_exact_values() -> None:
    assert central_moment(d(6), 2) == Fraction(35, 12)
    assert kurtosis(d(6), exact=True) == Fraction(-222, 175)
    assert skewness(d(6)) == 0.0 and skewness(3 @ d(6)) == 0.0
    assert skewness(d(6).explode()) > 0 and skewness(d(20).max(d(20))) < 0
    assert kurtosis(d(2)) == -2.0


@pytest.mark.parametrize(("a", "b"), [(2 @ d(6), d(12)), (d(4), d(6)), (d(6), d(6) + 1),
                                      (dist("4d6kh3"), 3 @ d(6)), (d(20), d(20).max(d(20)))])
def test_distances_match_scipy(a, b) -> None:
    xa, pa = _arrays(a)
    xb, pb = _arrays(b)
    support = np.union1d(xa, xb)
    fa = np.array([pa[xa <= x].sum() for x in support])
    fb = np.array([pb[xb <= x].sum() for x in support])
    assert float(ks_distance(a, b)) == pytest.approx(float(np.abs(fa - fb).max()), abs=1e-12)
    # scipy: KS statistic of two samples holding the exact frequencies
    if a.total * b.total <= 10**7:
        sa = np.repeat(xa, [int(a.weights[x]) for x in a.outcomes()])
        sb = np.repeat(xb, [int(b.weights[x]) for x in b.outcomes()])
        res = scipy_stats.ks_2samp(sa, sb)
        assert float(ks_distance(a, b)) == pytest.approx(float(res.statistic), abs=1e-12)
    qa = np.array([pa[xa == x].sum() for x in support])
    qb = np.array([pb[xb == x].sum() for x in support])
    assert float(tv_distance(a, b)) == pytest.approx(0.5 * float(np.abs(qa - qb).sum()),
                                                     abs=1e-12)
    assert isinstance(ks_distance(a, b), Fraction) and isinstance(tv_distance(a, b), Fraction)
    assert ks_distance(a, b) == ks_distance(b, a) and tv_distance(a, b) == tv_distance(b, a)
    assert ks_distance(a, b) <= tv_distance(a, b)


def test_exact_distances() -> None:
    assert ks_distance(2 @ d(6), d(12)) == Fraction(1, 6)
    assert tv_distance(d(4), d(6)) == Fraction(1, 3)
    assert tv_distance(d(6), d(6)) == 0 == ks_distance(d(6), d(6))


def test_bad_input() -> None:
    with pytest.raises(InvalidValueError):
        skewness(d(1))  # a constant
    with pytest.raises(InvalidTypeError):
        skewness([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        tv_distance(d(6), "d6")  # type: ignore[arg-type]


# -- the integer power-sum moments and the integer distances, against brute force --------------

def _brute_moments(dd):
    """Central moments 2..4 with one Fraction per outcome (the plain definition)."""
    p = {Fraction(x): Fraction(w, dd.total) for x, w in dd.items()}
    mu = sum(x * q for x, q in p.items())
    return mu, [sum((x - mu) ** k * q for x, q in p.items()) for k in (2, 3, 4)]


SHAPES = [*EXAMPLES, dist("1d2/2"), dist("3d6/4 - 1"), dist("1d20+5 >= 15"),
          d(6).map(lambda x: x * 0.25), d(6).map(lambda x: Fraction(x, 3) if x % 2 else x),
          dist("2d10 - 2d6"), dist("8d6kh2"), 40 @ d(6)]


@pytest.mark.parametrize("dd", SHAPES)
def test_shape_is_exactly_the_plain_definition(dd) -> None:
    from chancekit.dice.stats import shape

    mu, (m2, m3, m4) = _brute_moments(dd)
    s = shape(dd)
    assert s["mean"] == mu and s["variance"] == m2
    assert [central_moment(dd, k) for k in (2, 3, 4)] == [m2, m3, m4]
    assert s["kurtosis"] == kurtosis(dd, exact=True) == m4 / m2 ** 2 - 3
    assert s["kurtosis_float"] == kurtosis(dd) == float(m4 / m2 ** 2 - 3)
    assert s["skewness"] == skewness(dd)
    # skewness: the square root of the correctly rounded mu3**2 / mu2**3
    root = float(m3 * m3 / m2 ** 3) ** 0.5
    assert skewness(dd) == (-root if m3 < 0 else root)


def test_shape_of_a_constant_and_of_non_numbers() -> None:
    from chancekit.dice import Distribution, Symbols, symbol_die
    from chancekit.dice.stats import shape

    s = shape(dist("5"))
    assert s["mean"] == 5 and s["variance"] == 0
    assert s["skewness"] is None and s["kurtosis"] is None and s["kurtosis_float"] is None
    for bad in [Distribution({"a": 1, "b": 2}), symbol_die([{"hit": 1}, {}]),
                Distribution({(1, 2): 1}), Distribution({True: 1, False: 1})]:
        with pytest.raises(InvalidValueError):
            shape(bad)
        with pytest.raises(InvalidValueError):
            skewness(bad)
    assert isinstance(Symbols(), Symbols)


def test_huge_weights_moments_in_integers() -> None:
    # 3000d6: 7 800-bit weights; n iid dice have skewness 0 and kurtosis -222/175 / n
    dd = 3000 @ d(6)
    assert kurtosis(dd, exact=True) == Fraction(-222, 175) / 3000
    assert skewness(dd) == 0.0
    assert central_moment(dd, 2) == 3000 * Fraction(35, 12)
    # a Bernoulli with p = 6**-400: skewness**2 = (1 - 2p)**2 / (p (1 - p)) overflows no float
    p = Fraction(1, 6 ** 400)
    b = dist("400d6 >= 2400")
    assert b.probability(1) == p
    assert kurtosis(b, exact=True) == (1 - 6 * p * (1 - p)) / (p * (1 - p))
    assert kurtosis(b) == float("inf") and skewness(b) == float("inf")


def _brute_distances(a, b):
    pa, pb = a.pmf(), b.pmf()
    xs = sorted(set(pa) | set(pb))
    cum = [sum(pa.get(y, 0) - pb.get(y, 0) for y in xs if y <= x) for x in xs]
    return max(abs(c) for c in cum), sum(abs(pa.get(x, 0) - pb.get(x, 0)) for x in xs) / 2


PAIRS = [(d(6), d(7)), (2 @ d(6), 3 @ d(5)), (dist("4d6kh3"), dist("3d6")),
         (dist("1d2/2"), dist("1d3/3")), (d(20), d(20).max(d(20))), (d(4), d(4)),
         (dist("2d10 - 2d6"), dist("1d11 - 1d7")), (dist("5"), d(9)),
         (dist("6d7"), dist("5d9"))]


@pytest.mark.parametrize(("a", "b"), PAIRS)
@pytest.mark.parametrize("scale_bits", [64, 0])   # 0: the log-sign path for every pair
def test_distances_are_exactly_the_brute_force(monkeypatch, a, b, scale_bits) -> None:
    import chancekit.dice.stats as st

    monkeypatch.setattr(st, "_SMALL_SCALE_BITS", scale_bits)
    ks, tv = _brute_distances(a, b)
    assert ks_distance(a, b) == ks == ks_distance(b, a)
    assert tv_distance(a, b) == tv == tv_distance(b, a)


def test_distances_of_huge_unrelated_totals() -> None:
    # totals 6**300 and 7**260 share no factor: every scaled weight is a big product
    a, b = 300 @ d(6), 260 @ d(7)
    xs = sorted(set(a.outcomes()) | set(b.outcomes()))
    ta, tb = a.total, b.total
    gaps, running = [], 0
    for x in xs:
        running += a.weights.get(x, 0) * tb - b.weights.get(x, 0) * ta
        gaps.append(abs(running))
    assert ks_distance(a, b) == Fraction(max(gaps), ta * tb)
    tv = sum(abs(a.weights.get(x, 0) * tb - b.weights.get(x, 0) * ta) for x in xs)
    assert tv_distance(a, b) == Fraction(tv, 2 * ta * tb)


def test_distances_of_labels() -> None:
    from chancekit.dice import Distribution, symbol_die

    a = symbol_die([{"hit": 1}, {}, {}])
    b = symbol_die([{"hit": 1}, {"hit": 1}, {}, {"crit": 1}])
    assert tv_distance(a, b) == Fraction(5, 12)  # (|1/3-1/2| + |2/3-1/4| + |0-1/4|) / 2
    with pytest.raises(InvalidValueError):
        ks_distance(a, b)
    assert tv_distance(Distribution({"x": 1}), Distribution({"y": 1})) == 1
