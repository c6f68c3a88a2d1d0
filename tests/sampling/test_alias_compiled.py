"""The compiled sweep of the exact alias build (sampling/_vose.c) against the pure-Python
Vose (:func:`vose_integer`) and numpy's sweep: the same tables for int64 weights and for
two-word (128-bit) masses, its guards, and eight threads building at once."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chancekit.sampling import AliasTable, _wide, alias
from chancekit.sampling.alias import vose_integer

if alias._vose is None:  # pragma: no cover - CI builds it (.ci/run checks the compiler)
    if os.environ.get("CI"):
        raise RuntimeError("chancekit.sampling._vose was not built: install a C compiler "
                           "and the Python headers, then reinstall (docs/dependencies.md)")
    pytest.skip("the compiled sweep is not built (no C compiler)", allow_module_level=True)

U64 = 2**64


def words(xs: list[int]) -> np.ndarray:
    return np.array([[x % U64 for x in xs], [x >> 64 for x in xs]], dtype=np.uint64)


def ints(v: np.ndarray) -> list[int]:
    return [_wide.to_int(v, i) for i in range(v.shape[1])]


def cap_for(ws: list[int]) -> tuple[int, int]:
    """``(k, cap)`` as AliasTable takes them: masses ``k * w`` in columns of ``cap``."""
    import math

    n, total = len(ws), sum(ws)
    g = math.gcd(total, n)
    return n // g, total // g


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.lists(st.integers(0, 50), min_size=1, max_size=40),
    st.lists(st.integers(0, 2**100), min_size=1, max_size=40),
    st.lists(st.sampled_from([0, 1, 2**63, 2**64 - 1, 2**64, 2**90 + 1]), min_size=1,
             max_size=40),
).filter(any))
def test_compiled_sweep_equals_vose_integer_and_numpy(ws: list[int]) -> None:
    k, cap = cap_for(ws)
    if (len(ws) * cap).bit_length() >= 128:
        return  # past two words: the limbs path, not the compiled sweep's
    want_t, want_a = vose_integer([k * w for w in ws], cap)
    t, a = alias._sweep_compiled("w64", words(ws), k, cap)
    assert ints(t) == want_t and a.tolist() == want_a
    old = alias._vose
    alias._vose = None
    try:
        t2, a2 = alias._sweep("w64", words(ws), k, cap)
    finally:
        alias._vose = old
    assert ints(t2) == want_t and a2.tolist() == want_a
    if max(ws) < 2**62 and len(ws) * cap < 2**63:  # the int64 form
        t3, a3 = alias._sweep_compiled("i64", np.array(ws, dtype=np.int64), k, cap)
        assert t3.dtype == np.int64 and t3.tolist() == want_t and a3.tolist() == want_a


def test_guards() -> None:
    w = np.ones(4, dtype=np.uint64)
    t = np.empty(4, dtype=np.uint64)
    a = np.empty(4, dtype=np.int64)
    with pytest.raises(ValueError, match="t_lo"):
        alias._vose.sweep(w, None, 1, 1, 0, np.empty(3, dtype=np.uint64), None, a)
    with pytest.raises(ValueError, match="ali"):
        alias._vose.sweep(w, None, 1, 1, 0, t, None, np.empty(4, dtype=np.int32))
    with pytest.raises((ValueError, BufferError, TypeError)):  # read-only output
        ro = np.empty(4, dtype=np.uint64)
        ro.setflags(write=False)
        alias._vose.sweep(w, None, 1, 1, 0, ro, None, a)
    # masses that do not sum to n * cap: an error, never a wrong table
    with pytest.raises(ValueError, match="sum"):
        alias._vose.sweep(np.array([0, 0, 0, 1], dtype=np.uint64), None, 1, 2, 0, t, None, a)
    alias._vose.sweep(np.empty(0, dtype=np.uint64), None, 1, 1, 0,
                      np.empty(0, dtype=np.uint64), None, np.empty(0, dtype=np.int64))


def test_eight_threads_build_the_same_table() -> None:
    """The sweep releases the GIL: eight threads at once give equal tables."""
    p = np.random.default_rng(5).random(20_000)
    p /= p.sum()
    want = AliasTable(p)
    got: list[AliasTable] = []
    lock = threading.Lock()

    def build() -> None:
        table = AliasTable(p)
        with lock:
            got.append(table)

    threads = [threading.Thread(target=build) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(got) == 8
    for table in got:
        assert table.thresholds == want.thresholds and table.aliases == want.aliases
