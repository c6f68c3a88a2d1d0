"""``chancekit dist`` and ``chancekit roll``, run in-process."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from chancekit.cli.main import main
from chancekit.dice.notation import roll
from chancekit.rng import PCG32, Streams


def test_dist_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "4d6kh3"]) == 0
    out = capsys.readouterr().out
    assert "outcome" in out and "at least" in out and "at most" in out
    row18 = next(line for line in out.splitlines() if line.strip().startswith("18 "))
    assert "1.6204%" in row18  # 21/1296
    assert "mean 12.2446 (exactly 15869/1296), sd 2.8468" in out


def test_dist_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "1d20+5 >= 15", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["outcome"] for o in data["outcomes"]] == [0, 1]
    assert data["outcomes"][1]["probability"] == 0.55  # dist/2: a float; exact: weight/total
    assert data["outcomes"][1]["weight"] == "11" and data["total_weight"] == "20"
    assert data["outcomes"][1]["at_least"] == 0.55
    assert data["mean"] == "11/20" and data["hidden"] == 0


def test_dist_fraction_outcomes_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "1d2/2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["outcome"] for o in data["outcomes"]] == ["1/2", 1]


def test_dist_hides_tiny_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "40d6"]) == 0
    assert "--all shows them" in capsys.readouterr().out
    assert main(["dist", "40d6", "--all"]) == 0
    assert "--all shows them" not in capsys.readouterr().out


def test_dist_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "d.png"
    assert main(["dist", "3d6", "--plot", str(f)]) == 0
    assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["dist", "3d6", "--plot", str(tmp_path / "no" / "d.png")]) == 1
    assert "existing folder" in capsys.readouterr().err


def test_dist_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "3d6x2"]) == 1
    err = capsys.readouterr().err
    assert "unexpected 'x' at column 4" in err
    assert err.splitlines()[-1] == "     ^"
    assert main(["dist", "1000000d1000000"]) == 1
    assert "MAX_DICE" in capsys.readouterr().err


def test_roll_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "4d6kh3", "--seed", "42", "-n", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    g = PCG32(42)
    assert lines == [str(roll("4d6kh3", rng=g)) for _ in range(3)]


def test_roll_named_stream_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "1d20+5", "--seed", "12345", "--stream", "combat", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = roll("1d20+5", rng=Streams(12345)["combat"])
    assert data["rolls"] == [expected.to_dict()]
    assert data["seed"] == 12345 and data["stream"] == "combat"


def test_roll_raw_stream_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "3d6", "--seed", "1", "--stream", "7"]) == 0
    assert capsys.readouterr().out.strip() == str(roll("3d6", rng=PCG32(1, 7)))


def test_roll_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll", "1d1e1", "--seed", "1"]) == 1
    assert "every face" in capsys.readouterr().err
    assert main(["roll", "1d6", "-n", "0"]) == 1
    capsys.readouterr()


def test_epilogs_have_examples() -> None:
    from chancekit.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("dist", "roll"):
        assert f"chancekit {name} " in sub.choices[name].epilog


# -- summary figures and --compare (issue #14) ---------------------------------------------------

def _brute(text: str):
    """(mean, skewness, excess kurtosis) by expanding the exact frequencies into a sample
    and asking scipy (a small distribution: total <= a few thousand)."""
    import numpy as np

    scipy_stats = pytest.importorskip("scipy.stats")
    from chancekit.dice import dist

    dd = dist(text)
    sample = np.repeat([float(x) for x in dd.outcomes()],
                       [int(dd.weights[x]) for x in dd.outcomes()])
    return (float(sample.mean()), float(scipy_stats.skew(sample)),
            float(scipy_stats.kurtosis(sample)))


@pytest.mark.parametrize("text", ["4d6kh3", "3d6", "1d20+5 >= 15", "2d20kl1", "1d4r1 + 1d8"])
def test_dist_prints_skewness_and_kurtosis(capsys: pytest.CaptureFixture[str],
                                           text: str) -> None:
    assert main(["dist", text, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    mean, skew, kurt = _brute(text)
    assert doc["mean_float"] == pytest.approx(mean, rel=1e-12)
    assert doc["skewness"] == pytest.approx(skew, rel=1e-9, abs=1e-12)
    assert doc["kurtosis_float"] == pytest.approx(kurt, rel=1e-9, abs=1e-12)
    assert float(Fraction(doc["kurtosis"])) == doc["kurtosis_float"]
    assert doc["compare"] is None
    assert main(["dist", text]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert f", skewness {doc['skewness']:.4f}, excess kurtosis " in last.replace("-0.0000",
                                                                              "0.0000")


def test_dist_4d6kh3_figures_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # brute force over the 1296 rolls of four dice, keeping the three highest
    import itertools

    totals = [sum(sorted(r)[1:]) for r in itertools.product(range(1, 7), repeat=4)]
    mu = Fraction(sum(totals), len(totals))
    m2, m4 = (sum((t - mu) ** k for t in totals) / len(totals) for k in (2, 4))
    assert main(["dist", "4d6kh3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert Fraction(doc["mean"]) == mu and Fraction(doc["kurtosis"]) == m4 / m2 ** 2 - 3


def test_dist_compare_matches_brute_force(capsys: pytest.CaptureFixture[str]) -> None:
    import itertools

    a = [sum(sorted(r)[1:]) for r in itertools.product(range(1, 7), repeat=4)]
    b = [sum(r) for r in itertools.product(range(1, 7), repeat=3)]
    xs = sorted(set(a) | set(b))
    fa = [Fraction(sum(t <= x for t in a), len(a)) for x in xs]
    fb = [Fraction(sum(t <= x for t in b), len(b)) for x in xs]
    ks = max(abs(p - q) for p, q in zip(fa, fb, strict=True))
    tv = sum(abs(Fraction(a.count(x), len(a)) - Fraction(b.count(x), len(b))) for x in xs) / 2
    assert main(["dist", "4d6kh3", "--compare", "3d6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    c = doc["compare"]
    assert c["notation"] == "3d6" and Fraction(c["mean"]) == Fraction(21, 2)
    assert Fraction(c["ks"]) == ks and c["ks_float"] == float(ks)
    assert Fraction(c["tv"]) == tv and c["tv_float"] == float(tv)
    assert c["skewness"] == 0.0 and c["kurtosis"] == "-74/175"
    assert main(["dist", "4d6kh3", "--compare", "3d6"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("vs 3d6: mean 10.5000 (exactly 21/2), sd 2.9580, skewness")
    assert lines[-1] == (f"KS distance {float(ks):.4f} (exactly {ks}), total variation "
                         f"distance {float(tv):.4f} (exactly {tv})")


def test_dist_compare_errors_before_printing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dist", "3d6", "--compare", "4d6kq3"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "4d6kq3" in err and "Traceback" not in err


def test_constant_and_non_numeric_outcomes(capsys: pytest.CaptureFixture[str]) -> None:
    from chancekit.cli._dice import distances, summary_figures
    from chancekit.dice import Distribution, symbol_die

    assert main(["dist", "5", "--compare", "1d6", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sd"] == 0.0 and doc["skewness"] is None and doc["kurtosis"] is None
    assert doc["compare"]["tv"] == "5/6" and doc["compare"]["ks"] == "2/3"  # F(4): 0 vs 4/6
    assert main(["dist", "5"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "mean 5.0000 (exactly 5), sd 0.0000, skewness n/a, excess kurtosis n/a")
    # tuples (RISK), labels and symbols: a note instead of the figures, never a crash
    assert main(["pool", "risk", "3", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "(mean, sd, skewness and kurtosis: n/a, the outcomes are not numbers)")
    coin = symbol_die([{"hit": 1}, {}])
    for dd in [coin, Distribution({"sword": 1, "shield": 3})]:
        f = summary_figures(dd)
        assert f["numeric"] is False and f["mean"] is None and f["skewness"] is None
    got = distances(coin, symbol_die([{"hit": 1}, {"hit": 1}, {}]))
    assert got == {"ks": None, "ks_float": None, "tv": "1/6", "tv_float": 1 / 6}
