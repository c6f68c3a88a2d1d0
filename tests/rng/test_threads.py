"""Issue #15: one generator (and one Streams store) shared by threads.

Every PCG32 method is atomic, so threads never get the same word twice, never lose one,
and the generator ends exactly ``total`` steps on. The checks count words, never time; a
tiny switch interval makes the interpreter change threads often, so a race shows."""

from __future__ import annotations

import contextlib
import copy
import pickle
import sys
import threading
from collections import Counter

import numpy as np
import pytest

from chancekit import PCG32, PCG32Random, Streams
from chancekit.rng.pcg32 import PurePCG32

THREADS = 8
# the compiled core (when built) and the pure-Python one: the same guarantees
CORES = pytest.mark.parametrize("cls", [PCG32, PurePCG32], ids=["compiled", "python"])


@contextlib.contextmanager
def busy_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(target, n=THREADS):
    barrier = threading.Barrier(n)
    results: list = [None] * n
    errors: list = []

    def worker(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    with busy_switching():
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    return results


@CORES
@pytest.mark.parametrize("size", [5000, 70_000])  # 70_000: the C fill releases the GIL
def test_u32_array_from_8_threads_hands_out_each_block_once(cls, size):
    calls = 6 if size < 10_000 else 2
    shared = cls(2024, 7)
    start = shared.getstate()
    chunks = [c for per in run_threads(lambda i: [shared.u32_array(size) for _ in range(calls)])
              for c in per]
    total = THREADS * calls * size
    reference = PCG32.from_state(start).u32_array(total)
    # each call got one whole, contiguous block of the sequence; together they are all blocks
    where = {tuple(reference[k:k + 3].tolist()): k for k in range(0, total, size)}
    offsets = sorted(where[tuple(c[:3].tolist())] for c in chunks)
    assert offsets == list(range(0, total, size))
    for c in chunks:
        k = where[tuple(c[:3].tolist())]
        assert np.array_equal(c, reference[k:k + size])
    after = PCG32.from_state(start)
    after.advance(total)
    assert shared.getstate() == after.getstate()


@CORES
def test_mixed_scalar_and_bulk_calls_lose_and_repeat_nothing(cls):
    shared = cls(99)
    start = shared.getstate()

    def work(i):
        got: list[int] = []
        for _ in range(300):
            got.append(shared.next_u32())
            got.append(shared.randbelow(1 << 32))  # one word, returned as is
            got.extend(shared.u32_array(7).tolist())
            got.extend(shared.randbelow_array(1 << 32, 3).tolist())
        return got

    words = [w for per in run_threads(work) for w in per]
    reference = PCG32.from_state(start).u32_array(len(words)).tolist()
    assert Counter(words) == Counter(reference)
    after = PCG32.from_state(start)
    after.advance(len(words))
    assert shared.getstate() == after.getstate()


@CORES
def test_random_takes_two_consecutive_words_atomically(cls):
    shared = cls(5)
    start = shared.getstate()
    floats = [x for per in run_threads(lambda i: [shared.random() for _ in range(500)])
              for x in per]
    ref = PCG32.from_state(start)
    expected = [ref.random() for _ in range(len(floats))]
    assert Counter(floats) == Counter(expected)
    assert shared.getstate() == ref.getstate()


def test_pcg32random_shared_by_threads_counts_its_words():
    r = PCG32Random(3, stream=4)
    start = r.generator.getstate()
    bits = [b for per in run_threads(lambda i: [r.getrandbits(64) for _ in range(300)])
            for b in per]
    ref = PCG32.from_state(start)
    assert Counter(bits) == Counter(ref.getrandbits(64) for _ in range(len(bits)))


@CORES
def test_locks_do_not_break_pickle_or_copy(cls):
    g = cls(1, 2)
    g.advance(10)
    for clone in (pickle.loads(pickle.dumps(g)), copy.copy(g), copy.deepcopy(g),
                  cls.from_state(g.getstate())):
        assert clone == g and clone is not g
        # the pure-Python core's lock is not shared (the compiled core has none: the GIL)
        assert getattr(clone, "_lock", None) is None or clone._lock is not g._lock
        assert clone.next_u32() == PCG32.from_state(g.getstate()).next_u32()


def test_first_use_of_a_stream_is_atomic():
    for run in range(200):
        store = Streams(run)
        got = run_threads(lambda i, store=store: (store["shared"], store.child("area")))
        assert len({id(g) for g, _ in got}) == 1
        assert len({id(c) for _, c in got}) == 1
        assert list(store) == ["shared"]


def test_to_json_while_another_thread_creates_streams():
    store = Streams(1)
    stop = threading.Event()
    saves = []

    def create():
        for i in range(20_000):
            store[f"id-{i}"]
            store.child(f"c-{i % 50}")[f"x-{i}"]
        stop.set()

    errors = []

    def save():
        try:
            while not stop.is_set():
                saves.append(Streams.from_json(store.to_json()))
        except Exception as exc:  # RuntimeError: dictionary changed size during iteration
            errors.append(exc)
            stop.wait()

    t1, t2 = threading.Thread(target=create), threading.Thread(target=save)
    with busy_switching():
        t1.start()
        t2.start()
        t1.join()
        t2.join()
    assert not errors, errors
    assert saves, "the saver ran at least once"
    for saved in saves:  # each save is a consistent snapshot that loads back
        assert set(saved) <= set(store)
    final = Streams.from_json(store.to_json())
    assert len(final) == 20_000


@CORES
@pytest.mark.parametrize("method", ["shuffle", "getrandbits", "randbelow_big", "random_array",
                                    "randbelow_array"])
def test_longer_methods_are_atomic_too(cls, method):
    shared = cls(8)
    start = shared.getstate()

    def work(i):
        out = []
        for _ in range(50):
            if method == "shuffle":
                x = list(range(20))
                shared.shuffle(x)
                out.append(tuple(x))
            elif method == "getrandbits":
                out.append(shared.getrandbits(200))
            elif method == "random_array":
                out.append(tuple(shared.random_array(3).tolist()))
            elif method == "randbelow_array":
                out.append(tuple(shared.randbelow_array(6, 5).tolist()))
            else:
                out.append(shared.randbelow(1 << 100))
        return out

    got = [x for per in run_threads(work) for x in per]
    ref = PCG32.from_state(start)
    expected = []
    for _ in got:
        if method == "shuffle":
            x = list(range(20))
            ref.shuffle(x)
            expected.append(tuple(x))
        elif method == "getrandbits":
            expected.append(ref.getrandbits(200))
        elif method == "random_array":
            expected.append(tuple(ref.random() for _ in range(3)))
        elif method == "randbelow_array":
            expected.append(tuple(ref.randbelow(6) for _ in range(5)))
        else:
            expected.append(ref.randbelow(1 << 100))
    assert Counter(got) == Counter(expected)
    assert shared.getstate() == ref.getstate()
