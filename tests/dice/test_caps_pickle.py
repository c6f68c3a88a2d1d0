"""A capped distribution (an explosion's result) keeps its capped mass and uncapped mean
through pickle and copy (pickle rebuilt a plain Distribution: capped_mass 0)."""

from __future__ import annotations

import copy
import pickle
from fractions import Fraction

import pytest

from chancekit import d
from chancekit.dice.caps import CappedDistribution
from chancekit.dice.notation import dist


@pytest.mark.parametrize("make", [lambda: d(6).explode(), lambda: dist("1d6!"),
                                  lambda: dist("4d6!kh3"), lambda: dist("12d10e10cs>=8df1")])
@pytest.mark.parametrize("how", [lambda x: pickle.loads(pickle.dumps(x)), copy.copy,
                                 copy.deepcopy])
def test_the_cap_survives_pickle_and_copy(make, how):
    x = make()
    assert isinstance(x, CappedDistribution) and x.capped_mass > 0
    y = how(x)
    assert type(y) is CappedDistribution
    assert y == x
    assert (y.capped_mass, y.uncapped_mean) == (x.capped_mass, x.uncapped_mean)


def test_a_plain_distribution_still_pickles_plain():
    x = d(6) + 1
    y = pickle.loads(pickle.dumps(x))
    assert y == x and y.capped_mass == Fraction(0)
