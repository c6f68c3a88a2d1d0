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
