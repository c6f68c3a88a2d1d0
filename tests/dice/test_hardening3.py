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
