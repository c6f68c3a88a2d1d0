"""``chancekit --help`` is written from the recorded commands without argparse's
formatter (issue 22, cold start): byte for byte what argparse prints, at every terminal
width where the quick path answers, and argparse's own text where it does not."""

from __future__ import annotations

import sys

import pytest

from chancekit.cli.main import build_parser, main, top_help


def test_the_quick_listing_is_argparses_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    quick = 0
    for columns in range(1, 260):
        monkeypatch.setenv("COLUMNS", str(columns))
        text = top_help()
        if text is not None:
            quick += 1
            assert text == build_parser(None).format_help(), columns
    if (3, 9) <= sys.version_info[:2] < (3, 14):  # the versions whose layout it writes
        assert quick >= 190  # every width from the usage line's length on


@pytest.mark.parametrize("argv,code", [(["--help"], 0), (["-h"], 0), ([], 2)])
@pytest.mark.parametrize("columns", ["20", "64", "80", "200"])
def test_main_prints_what_argparse_prints(argv: list[str], code: int, columns: str,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    expected = build_parser(None).format_help()
    with pytest.raises(SystemExit) as done:
        raise SystemExit(main(argv))
    assert done.value.code == code
    out, err = capsys.readouterr()
    assert (out, err) == (expected, "")
    assert "exact distribution of dice expressions" in " ".join(out.split())


def test_the_terminal_width_falls_back_as_shutil_does(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from chancekit.cli.main import _columns

    for value in ["", "0", "-3", "abc", "97"]:
        monkeypatch.setenv("COLUMNS", value)
        assert _columns() == shutil.get_terminal_size().columns, value
    monkeypatch.delenv("COLUMNS")
    assert _columns() == shutil.get_terminal_size().columns
