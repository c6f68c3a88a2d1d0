"""``chancekit fairness --streaks``: the exact streak metrics of chancekit.fair.streaks (and
their Monte Carlo counterpart with --trials), in the text and in --json."""

from __future__ import annotations

import json

import pytest

from chancekit.cli.main import main
from chancekit.fair import system_from_spec
from chancekit.fair.streaks import streak_metrics, streak_montecarlo
from chancekit.rng import PCG32


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("spec, values", [("dice", 6), ("deck", 4), ("dynamic-dice:0.355", 3),
                                          ("prd:0.25", 2)])
def test_exact_streaks_in_json_are_streak_metrics(spec: str, values: int,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fairness", spec, "--values", str(values), "--samples", "12",
                       "--streaks", "--json")
    assert code == 0
    got = json.loads(out)["streaks"]
    want = streak_metrics(system_from_spec(spec, values), 12)
    assert got["method"] == "exact" and got["trials"] == 0
    assert got["summary"] == pytest.approx({k: want[k] for k in got["summary"]}, rel=1e-12)
    assert got["run_lengths"] == pytest.approx(list(want.series["run_lengths"]), rel=1e-12)
    assert got["p_gap"] == pytest.approx(list(want.series["p_gap"]), rel=1e-12, abs=1e-15)
    assert set(got["se"].values()) == {0.0}


def test_dice_figures_are_the_known_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fairness", "dice", "--samples", "100", "--streaks", "--json")
    s = json.loads(out)["streaks"]["summary"]
    assert code == 0 and s["p_repeat"] == pytest.approx(1 / 6)
    assert s["longest_gap"] == pytest.approx(18.152, abs=1e-3)
    code, out, _ = run(capsys, "fairness", "dice", "--samples", "100", "--streaks")
    assert code == 0 and "P(repeat)                   0.166667  exact" in out
    assert "expected runs of length k: 1:" in out


def test_monte_carlo_streaks_follow_the_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("fairness", "deck", "--values", "4", "--samples", "20", "--trials", "300",
            "--seed", "5", "--streaks", "--json")
    code, out, _ = run(capsys, *argv)
    first = json.loads(out)["streaks"]
    assert code == 0 and first["method"] == "montecarlo" and first["trials"] == 300
    assert all(v is not None and v >= 0 for v in first["se"].values())
    code, out, _ = run(capsys, *argv)
    assert json.loads(out)["streaks"] == first  # reproducible
    exact = streak_metrics(system_from_spec("deck", 4), 20)
    for k, v in first["summary"].items():
        assert abs(v - exact[k]) <= 5 * first["se"][k] + 1e-12, k
    mc = streak_montecarlo(system_from_spec("deck", 4), 20, trials=300, rng=PCG32(5))
    assert mc.method == "montecarlo"  # the library function the command calls


def test_without_the_flag_streaks_is_null(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "fairness", "deck", "--values", "3", "--samples", "5",
                       "--json")
    assert code == 0 and json.loads(out)["streaks"] is None
    code, out, _ = run(capsys, "fairness", "deck", "--values", "3", "--samples", "5")
    assert "add --streaks" in out


def test_dynamic_dice_at_n100_use_the_default_pruning(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """Without --prune the streaks of dynamic dice use streak_metrics' default pruning
    (1e-15), so n = 6, N = 100 runs; the dropped mass is in the JSON."""
    code, out, _ = run(capsys, "fairness", "dynamic-dice:0.25", "--samples", "100",
                       "--streaks", "--json")
    assert code == 0
    got = json.loads(out)["streaks"]
    want = streak_metrics(system_from_spec("dynamic-dice:0.25", 6), 100)
    assert got["summary"] == pytest.approx({k: want[k] for k in got["summary"]}, rel=1e-12)
    assert 0 < got["dropped"] == want.dropped < 1e-11


def test_streaks_only_where_the_full_evaluation_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    """TGM's fairness engine keeps counts (refused at N = 100); its streak walk keeps the
    renamed history (52 states) and is exact: --streaks prints it, with the refusal."""
    import jsonschema

    from chancekit.cli.schemas import SCHEMAS

    code, out, _ = run(capsys, "fairness", "tgm1", "--samples", "100", "--streaks")
    assert code == 0
    assert "fairness metrics refused:" in out and "MAX_FAIR_WORK" in out
    assert "streaks (exact)" in out
    code, out, _ = run(capsys, "fairness", "tgm1", "--samples", "100", "--streaks", "--json")
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMAS["fairness"])
    assert "MAX_FAIR_WORK" in doc["refused"]
    assert set(doc["summary"].values()) == {None}
    want = streak_metrics(system_from_spec("tgm1", None), 100)
    assert doc["streaks"]["summary"] == pytest.approx(
        {k: want[k] for k in doc["streaks"]["summary"]}, rel=1e-12)
    # without --streaks the refusal is the answer, as before
    code, _, err = run(capsys, "fairness", "tgm1", "--samples", "100")
    assert code != 0 and "MAX_FAIR_WORK" in err
    code, out, _ = run(capsys, "fairness", "dice", "--samples", "10", "--streaks", "--json")
    assert json.loads(out)["refused"] is None
