"""Regression tests for issue #23 (hardening, part three), each failing before its fix:
custom dice with faces near 10**17 that explode (a ``MemoryError`` under an address-space
cap), refusals made late, presentation that cost more than the answer and values that
could not be printed. Checked by counted work, refusals and memory caps, never seconds."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from _upfront import MAX_CALLS, PEAK_BYTES, measure
from chancekit.dice import dist
from chancekit.errors import LimitError

# issue #23 item 1: each built a dense polynomial of 10**17 coefficients (MemoryError)
HUGE_FACES = [
    "3d{3,99999999999999999,-2,8}e",
    "((2d{999999999999999999,767167}!))",
    "6d8rr5 +--5d{+2,+2,999999999999999999,999999999999999999}e",
]


@pytest.mark.parametrize("text", HUGE_FACES)
def test_exploding_huge_faces_is_refused_up_front_naming_the_face(text: str) -> None:
    dist("1d6")
    error, peak, calls = measure(lambda: dist(text))
    assert isinstance(error, LimitError), error
    assert error.limit == "MAX_OUTCOMES" and "MAX_OUTCOMES" in str(error)
    assert "99999999999999999" in str(error)  # the face that makes the span
    assert calls < MAX_CALLS and peak < PEAK_BYTES


def test_a_dense_polynomial_of_far_apart_outcomes_is_refused() -> None:
    from chancekit.dice import faces
    with pytest.raises(LimitError) as info:
        faces([1, 10**17])._poly()
    assert info.value.limit == "MAX_OUTCOMES" and "100000000000000000" in str(info.value)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_huge_faces_under_an_address_space_cap() -> None:
    """In a child process capped at 1 GiB of address space: a MemoryError fails it."""
    prog = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from chancekit.dice import dist
        from chancekit.errors import LimitError
        for text in {HUGE_FACES!r}:
            try:
                dist(text)
                print("ok", text)
            except LimitError as e:
                print("refused", e.limit)
    """)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                         timeout=600, env={"OPENBLAS_NUM_THREADS": "1", "PATH": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["refused MAX_OUTCOMES"] * len(HUGE_FACES)


# issue #23 item 4: str(mean) raised ValueError (Python's 4300-digit limit)
def test_huge_exact_values_print() -> None:
    from fractions import Fraction

    d = dist("D{+2, 3 ,-19930, 3 }/41d290")
    m = d.mean()
    assert m.numerator.bit_length() > 15_000  # past the 4300-digit str() limit
    for value in (m, d.variance(), d.probability(d.outcomes()[0]), d.at_least(0),
                  d.at_most(0)):
        text = str(value)
        assert isinstance(value, Fraction) and len(text) < 200 and len(repr(value)) < 250
    assert str(m).startswith("~-0.84179341038633") or str(m).startswith("~-8.41793410386334")
    assert "5235-digit numerator" in str(m)
    assert float(m) == float(Fraction(m.numerator, m.denominator))  # the same exact value
    assert m == Fraction(m.numerator, m.denominator)


def test_small_exact_values_print_as_fractions() -> None:
    m = dist("3d6").mean()
    assert (str(m), repr(m)) == ("21/2", "Fraction(21, 2)")
    assert str(dist("d6-4").mean()) == "-1/2"


@pytest.mark.parametrize(("n", "m"), [(10**5000 + 1, 3 * 10**4999), (-(10**4400), 1),
                                      (1, 7 * 10**4500), (2**20000 - 1, 2**19999)],
                         ids=["third", "negative", "tiny", "binary"])
def test_the_bounded_form_has_sixteen_correct_digits(n: int, m: int) -> None:
    from decimal import Decimal, localcontext

    from chancekit.dice.distribution import ExactFraction

    text = str(ExactFraction(n, m))
    shown = Decimal(text[1:].split(" ")[0])
    with localcontext() as ctx:  # an independent reference: Decimal division
        ctx.prec = 40
        ctx.Emax, ctx.Emin = 10**6, -(10**6)
        exact = Decimal(n) / Decimal(m)
    assert abs(shown - exact) <= abs(exact) * Decimal("1e-15")
