"""Every documented limit is refused up front: quickly, cheaply, naming the limit.

One case per row of docs/limits.md (a test checks that the table and the cases match, and
that the values in the table are the code's constants). Each case calls the public API with
input just past the limit and checks:

- it raises ``LimitError`` (or the documented error) whose ``.limit`` (or message) names
  the limit;
- it is up front, measured deterministically (tests/_upfront.py; no seconds are asserted,
  CI is a busy 2-core machine): the call makes fewer than ``MAX_CALLS`` Python function
  calls (work that was started makes hundreds of thousands, and is stopped at 50 x that)
  and the ``tracemalloc`` peak stays under 50 MB (nothing big was built first).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from _upfront import MAX_CALLS, PEAK_BYTES, measure
from chancekit.errors import LimitError, NotationError

DOC = Path(__file__).resolve().parents[1] / "docs" / "limits.md"


# --------------------------------------------------------------------------- the cases
# (limit name, module as in the table) -> a factory returning the call to refuse; the
# factory builds the input (not measured), the call is measured.
def _dice() -> Any:
    from chancekit.dice import d

    return d


def _const_sampler() -> Any:
    class Always:
        def draw(self, rng: Any = None) -> str:
            return "same"

    from chancekit.rng import PCG32
    from chancekit.sampling import MaxStreak

    f = MaxStreak(Always(), 1)
    f.draw(PCG32(1))
    return lambda: f.draw(PCG32(1))


def _primes(below: int) -> list[int]:
    sieve = bytearray([1]) * below
    sieve[:2] = b"\0\0"
    for i in range(2, int(below**0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(range(i * i, below, i)))
    return [i for i in range(below) if sieve[i]]


def _pool_states() -> Callable[[], Any]:
    from chancekit.dice import d
    from chancekit.dice.pool import FaceRule, evaluate_pool

    rule = FaceRule(lambda st, face, c: st, initial=0)
    pool = [d(s) for s in range(2, 9) for _ in range(8)]  # 9**7 = 4.8 M (dice left) combos
    return lambda: evaluate_pool(rule, pool)


def _pool_dice() -> Callable[[], Any]:
    from chancekit.dice import d
    from chancekit.dice.pool import FaceRule, evaluate_pool

    rule = FaceRule(lambda st, face, c: st, initial=0)
    pool = [d(6)] * 10_001
    return lambda: evaluate_pool(rule, pool)


def _table_bits() -> Callable[[], Any]:
    from chancekit.sampling import AliasTable

    weights = [Fraction(1, p) for p in _primes(200_000)]  # lcm of ~18 000 primes
    return lambda: AliasTable(weights)


def _deep_child() -> Callable[[], Any]:
    from chancekit.rng import Streams

    store = Streams(1)
    for i in range(100):
        store = store.child(f"level-{i}")
    return lambda: store.child("one-too-many")


def _audit_steps() -> Callable[[], Any]:
    """5,000 pulls of the 90-pull banner: refused after a few dozen transitions explored
    (the pass would be about 5,000 x 400 polynomial steps)."""
    from chancekit.fair import GachaPity, audit_log

    g = GachaPity(0.006, soft_start=74, ramp=0.06, hard=90)
    log = (["common"] * 80 + ["featured"]) * 62
    return lambda: audit_log(g, log)


def _big_log() -> Callable[[], Any]:
    """``chancekit audit`` on a 21 MB (sparse) file: refused by its size, unread."""
    import tempfile

    from chancekit.cli.main import build_parser

    f = tempfile.NamedTemporaryFile(suffix=".csv", delete=False)
    f.truncate(21 * 2**20)
    f.close()
    args = build_parser().parse_args(["audit", f.name, "--rates", "a=0.5,b=0.5"])

    def call() -> Any:
        try:
            return args.func(args)
        finally:
            Path(f.name).unlink()

    return call


CASES: dict[tuple[str, str], Callable[[], Callable[[], Any]]] = {
    # chancekit.dice: the Distribution API, pools and notation share every limit (the
    # notation cases that used to have their own, differently sized twins are in
    # tests/dice/test_one_algebra.py, which checks that both make the same decision)
    ("MAX_WORK", "chancekit.limits"): lambda: lambda: _dist("831d100"),
    ("MAX_DICE", "chancekit.limits"): lambda: lambda: 100_001 @ _dice()(6),
    ("MAX_SIDES", "chancekit.limits"): lambda: lambda: _dist("d1000001"),
    ("MAX_OUTCOMES", "chancekit.limits"): lambda: lambda: _dice()(1000).explode(depth=2002),
    ("MAX_WEIGHT_BITS", "chancekit.limits"): lambda: lambda: 20_000 @ _dice()(6),
    ("MAX_PAIRS", "chancekit.limits"): lambda: (lambda a: lambda: a * a)(_dice()(5000)),
    ("MAX_EXPLODE_DEPTH", "chancekit.limits"): lambda: lambda: _dice()(6).explode(depth=10_001),
    ("depth", "chancekit.dice.distribution"):
        lambda: lambda: _dice()(6).explode(range(1, 7), depth=1001),
    ("MAX_FRACTION_WORK", "chancekit.limits"):
        lambda: (3500 @ _dice()(6)).cumulative,  # 17 501 rows x 9 048 bits: 1.4e12
    ("MAX_POOL_DICE", "chancekit.limits"): _pool_dice,
    ("MAX_POOL_STATES", "chancekit.limits"): _pool_states,
    ("MAX_POOL_TEXT", "chancekit.limits"): lambda: lambda: importlib.import_module(
        "chancekit.dice.mechanics").evaluate_text("a" * 1001, {}),
    ("MAX_POOL_TEXT_NODES", "chancekit.limits"): lambda: lambda: importlib.import_module(
        "chancekit.dice.mechanics").evaluate_text("(" + "1," * 400 + ")", {}),
    ("MAX_LENGTH", "chancekit.limits"): lambda: lambda: _dist("1+" * 1000 + "1"),
    ("MAX_POWER_BITS", "chancekit.limits"): lambda: lambda: _dist_foundry("2**99999999"),
    ("MAX_DEPTH", "chancekit.limits"): lambda: lambda: _dist("(" * 101 + "1" + ")" * 101),
    ("MAX_ROLLED", "chancekit.limits"):
        lambda: lambda: importlib.import_module("chancekit.dice").roll(
            "10001d6", importlib.import_module("chancekit.rng").PCG32(1)),
    # chancekit.fair
    ("max_states", "chancekit.limits"):
        lambda: lambda: _fair().evaluate_exact(_fair().Dice(12), 100),
    ("MAX_LAYER_CELLS", "chancekit.limits"):
        lambda: lambda: _fair().tune(6, 100, 0.9, systems=("dynamic-dice",), chunk_size=100),
    ("MAX_FAIR_WORK", "chancekit.limits"): lambda: lambda: _fair().tune(6, 3000, 0.9),
    ("MAX_MC_CELLS", "chancekit.limits"):
        lambda: lambda: _fair().evaluate_montecarlo(_fair().Dice(6), 100_000, trials=1000),
    ("MAX_VALUES", "chancekit.limits"): lambda: lambda: _fair().Dice(1_000_001),
    ("MAX_REROLL_TRIES", "chancekit.limits"): lambda: lambda: _fair().HistoryReroll(7, 4, 10_001),
    ("MIN_PRD_P", "chancekit.limits"): lambda: lambda: _fair().PRD(1e-9),
    # chancekit.sampling
    ("MAX_LABELS", "chancekit.limits"):
        lambda: lambda: _sampling().AliasTable(range(1_000_001)),
    ("MAX_TABLE_BITS", "chancekit.limits"): _table_bits,
    ("MAX_WEIGHT_DIGITS", "chancekit.limits"):
        lambda: lambda: importlib.import_module("chancekit.sampling._weights").parse_weights(
            "a=1e999999999"),
    ("MAX_TABLE_CELLS", "chancekit.limits"):
        lambda: lambda: _sampling().TabletopTable.build({1: 1, 2: 1}, row_die=1000,
                                                        check_die=1000),
    ("row_die", "chancekit.sampling.tabletop"):
        lambda: lambda: _sampling().TabletopTable.build("2d20"),
    ("max_tries", "chancekit.limits"): _const_sampler,
    ("MAX_TOTAL_BITS", "chancekit.limits"):
        lambda: (lambda big: lambda: _sampling().ChanceTree({"a": big, "b": 1}))(2**(10**7)),
    # chancekit.rng
    ("MAX_CHILD_DEPTH", "chancekit.limits"): _deep_child,
    ("MAX_BULK", "chancekit.limits"):
        lambda: (lambda g: lambda: g.random_array(2**30 + 1))(importlib.import_module(
            "chancekit.rng").PCG32(1)),
    # chancekit.markov (processes that count their states refuse before exploring)
    ("MAX_MARKOV_STATES", "chancekit.limits"):
        lambda: lambda: _markov().hp_race((1000, 1000), ("d6-1", "d6-1"), method="joint"),
    ("MAX_MARKOV_TRANSITIONS", "chancekit.limits"):
        lambda: lambda: _markov().hp_race((100, 100), ("d100", "d100"), method="joint"),
    ("MAX_MARKOV_STEPS", "chancekit.limits"):
        lambda: lambda: _markov().steps(lambda n: n, 0, upto=100_001),
    ("MAX_MARKOV_WORK", "chancekit.limits"): lambda: lambda: _markov().board(1000, "1d2"),
    # chancekit.anydice (a :s function with state: every sorted roll of 20d20 enumerated)
    ("MAX_ANYDICE_WORK", "chancekit.limits"): lambda: lambda: _anydice(
        "T: 0\nfunction: f S:s { T: T + 1 result: T }\noutput [f 20d20]"),
    ("MAX_FUNCTION_DEPTH", "chancekit.limits"):
        lambda: lambda: _anydice('set "maximum function depth" to 1001'),
    ("MAX_CERTIFIED_BITS", "chancekit.limits"):
        lambda: lambda: importlib.import_module("chancekit.dice.certified").precision(4096),
    ("MAX_SEQUENCE", "chancekit.limits"): lambda: lambda: _anydice("output #{1..1000001}"),
    ("MAX_OUTPUTS", "chancekit.limits"):
        lambda: lambda: _anydice("loop I over {1..1000000} { output I }"),
    # planning (issue #30): audits, copies, loot bags, pull logs
    ("MAX_AUDIT_PULLS", "chancekit.limits"): lambda: lambda: _fair().audit_counts(
        {"rare": 50_001, "common": 50_000}, {"rare": 0.01, "common": 0.99}),
    ("MAX_MULTINOMIAL_CELLS", "chancekit.limits"): lambda: lambda: _fair().audit_counts(
        dict.fromkeys("abcde", 20), dict.fromkeys("abcde", 0.2)),   # C(104, 4) = 4.6 M
    ("MAX_AUDIT_STEPS", "chancekit.limits"): _audit_steps,
    ("MAX_COPIES", "chancekit.limits"): lambda: lambda: _markov().copies(
        _fair().PityTimer(0.5, hard=2), True, 1001),
    ("MAX_WANTED", "chancekit.limits"): lambda: lambda: _markov().all_of(
        _fair().PityTimer(0.5), True, {i: 0.01 for i in range(17)}, 4),
    ("MAX_BAG_STATES", "chancekit.limits"): lambda: lambda: _sampling(
        ).draw_without_replacement({i: i + 1 for i in range(20)}, 10),  # 616,665 states
    ("MAX_BAG_HANDS", "chancekit.limits"): lambda: lambda: _sampling(
        ).draw_without_replacement(dict.fromkeys(range(40), 1), 10),  # C(40, 10) hands
    ("MAX_LOG_BYTES", "chancekit.limits"): _big_log,
}

#: rows allowed more Python calls than MAX_CALLS before refusing, and why
CALL_ALLOWANCE: dict[tuple[str, str], int] = {
    # the check reads every label first (O(input), about 20 calls a label: 18 000 here)
    ("MAX_TABLE_BITS", "chancekit.limits"): 500_000,
    # documented as not up front: the filter counts its re-draws of an unknown sampler
    ("max_tries", "chancekit.limits"): 500_000,
}

#: rows whose documented error is not LimitError: (error class, text the message names)
OTHER_ERRORS: dict[tuple[str, str], tuple[type[Exception], str]] = {
    ("MAX_DEPTH", "chancekit.limits"): (NotationError, "nested too deeply (more than 100"),
}


def _anydice(text: str) -> Any:
    from chancekit.anydice import run

    return run(text)


def _dist(text: str) -> Any:
    from chancekit.dice import dist

    return dist(text)


def _dist_foundry(text: str) -> Any:
    from chancekit.dice import dist

    return dist(text, dialect="foundry")


def _fair() -> Any:
    return importlib.import_module("chancekit.fair")


def _sampling() -> Any:
    return importlib.import_module("chancekit.sampling")


def _markov() -> Any:
    return importlib.import_module("chancekit.markov")


# --------------------------------------------------------------------------- measuring
@pytest.mark.parametrize("key", sorted(CASES), ids=lambda k: f"{k[0]}@{k[1]}")
def test_limit_refused_quickly(key: tuple[str, str]) -> None:
    name, module = key
    for mod in ("chancekit.dice", "chancekit.fair", "chancekit.sampling", "chancekit.markov",
                module, "numpy"):  # numpy: imported lazily, on the first vectorised step
        importlib.import_module(mod)  # imports are not part of the refusal
    call = CASES[key]()
    error, peak, calls = measure(call)
    expected, text = OTHER_ERRORS.get(key, (LimitError, name))
    assert isinstance(error, expected), f"{key}: expected {expected.__name__}, got {error!r}"
    if expected is LimitError:
        assert error.limit == name
    assert text in str(error)  # the message names the limit too
    allowed = CALL_ALLOWANCE.get(key, MAX_CALLS)
    assert calls < allowed, f"{key}: {calls} Python calls before the refusal"
    assert peak < PEAK_BYTES, f"{key}: {peak / 2**20:.1f} MB allocated before the refusal"


# --------------------------------------------------------------------------- doc <-> tests
_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|")


def doc_rows() -> list[tuple[str, str, str, str]]:
    """(limit, value, module, constant) of every row of the table in docs/limits.md."""
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(3), m.group(4).strip("`")))
    return rows


def test_doc_table_and_cases_match() -> None:
    rows = doc_rows()
    keys = [(limit, module) for limit, _, module, _ in rows]
    assert len(keys) == len(set(keys)), "a limit is listed twice in docs/limits.md"
    assert set(keys) == set(CASES), (
        f"only in docs/limits.md: {sorted(set(keys) - set(CASES))}; "
        f"only in tests/test_limits.py: {sorted(set(CASES) - set(keys))}")


def _value(text: str) -> int | float:
    text = text.replace(" ", "").replace("_", "")
    if re.fullmatch(r"\d*\.\d+", text):
        return float(text)
    m = re.fullmatch(r"(\d+)(?:\*\*|\^)(\d+)", text)
    if m:
        return int(m.group(1)) ** int(m.group(2))
    m = re.fullmatch(r"(\d+)\*10(?:\*\*|\^)(\d+)", text)
    if m:
        return int(m.group(1)) * 10 ** int(m.group(2))
    return int(text)


def test_doc_values_are_the_code_constants() -> None:
    checked = 0
    for limit, value, module, constant in doc_rows():
        if constant in ("-", "—"):
            continue
        mod_name, _, attr = constant.rpartition(".")
        assert mod_name.startswith(module.rsplit(".", 1)[0]), (limit, constant)
        actual = getattr(importlib.import_module(mod_name), attr)
        assert _value(value) == actual, f"{limit} ({module}): doc says {value}, code {actual}"
        checked += 1
    assert checked >= 20


def test_every_limit_is_defined_in_the_limits_module() -> None:
    """One module of limits (issue #11): a ``MAX_*``/``MIN_*`` constant assigned at module
    level anywhere but ``chancekit/limits.py`` fails this test."""
    import ast

    src = Path(__file__).resolve().parents[1] / "src" / "chancekit"
    pattern = re.compile(r"_?(MAX|MIN)_[A-Z0-9_]+")
    elsewhere = []
    for path in sorted(src.rglob("*.py")):
        if path.name == "limits.py" and path.parent == src:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else [])
            elsewhere += [f"{path.relative_to(src)}:{node.lineno} {t.id}" for t in targets
                          if isinstance(t, ast.Name) and pattern.fullmatch(t.id)]
    assert not elsewhere, elsewhere


# --------------------------------------------------------------------------- CLI
@pytest.mark.parametrize(("argv", "limit"), [
    (["dist", "1000000d1000000"], "MAX_DICE"),
    (["fairness", "dice", "--samples", "100000", "--trials", "1000"], "MAX_MC_CELLS"),
    (["fairness", "dice", "--values", "2000000", "--samples", "25"], "MAX_VALUES"),
    (["fairness", "dice", "--values", "12", "--samples", "100"], "max_states"),
    (["gacha", "gacha:0.006,74,0.06,90", "--copies", "1001"], "MAX_COPIES"),
    (["audit", "--counts", "a=20,b=20,c=20,d=20,e=20", "--rates",
      "a=0.2,b=0.2,c=0.2,d=0.2,e=0.2"], "MAX_MULTINOMIAL_CELLS"),
])
def test_cli_refuses_with_one_line(argv: list[str], limit: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    from chancekit.cli.main import main

    # imports and parser set-up are not part of the refusal: the same command once first
    # (so the count does not depend on which tests ran before: run alone, the fairness
    # command's first call imported chancekit.fair inside the measurement)
    main(argv)
    capsys.readouterr()
    codes: list[int] = []
    _, peak, calls = measure(lambda: codes.append(main(argv)))
    code = codes[0]
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert limit in lines[0]
    assert calls < MAX_CALLS and peak < PEAK_BYTES
