"""docs/python.md runs as written, and what it shows off holds: the results' notebook reprs and the hands as
rows or a pandas DataFrame (pandas is not a dependency: without it, a clear ImportError)."""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluation.aivat import AivatResult
from evaluation.hand_history import hand_rows, history_from_lines, to_frame
from evaluation.match import MatchResult, play_match
from pokerbot.bots import make_agent
from pokerbot.gamedef import load_game

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "python.md"


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def test_the_blocks_are_found() -> None:
    """Negative control for the walk: the page's blocks are seen, and a block of another language is not."""
    assert len(python_blocks(PAGE.read_text(encoding="utf-8"))) >= 8
    assert python_blocks("x\n```python\na = 1\n```\n```sh\nls\n```\n") == ["a = 1\n"]


def test_the_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Every block, in order, in one namespace (as notebook cells), in an empty folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    namespace: dict[str, Any] = {"__name__": "python_md"}
    for number, block in enumerate(python_blocks(PAGE.read_text(encoding="utf-8")), start=1):
        try:
            exec(compile(block, f"docs/python.md block {number}", "exec"), namespace)
        except Exception as exc:  # name the block that failed
            raise AssertionError(f"docs/python.md block {number} failed: {exc!r}\n{block}") from exc
    out = capsys.readouterr().out
    assert "<MatchResult equity vs random (leduc, in-process duplicate): equity" in out
    assert "<AivatResult equity vs random: plain" in out
    assert (tmp_path / "equity_vs_random.log").is_file() and (tmp_path / "river.json").is_file()


# --- the reprs ---------------------------------------------------------------------------------------------


def small_match(tmp_path: Path, log: bool = True) -> MatchResult:
    game = load_game("kuhn")
    return play_match(make_agent("raise", game, seed=1), make_agent("call", game, seed=2), game, hands=20, seed=3,
                      duplicate=True, log_path=str(tmp_path / "m.log") if log else None, progress=False)


def test_match_result_repr_is_its_summary(tmp_path: Path) -> None:
    r = small_match(tmp_path)
    assert repr(r) == f"<MatchResult {r.summary()}>"
    assert "chips=" not in repr(r) and "array" not in repr(r)
    html = r._repr_html_()
    assert html.startswith("<table>") and "raise vs call" in html and str(r.win_rate) in html
    assert "(duplicate)" in html and "m.log" in html


def test_match_result_html_escapes_names(tmp_path: Path) -> None:
    r = small_match(tmp_path, log=False)
    r.names = ("<b>a</b>", "b&c")
    html = r._repr_html_()
    assert "<b>a</b>" not in html and "&lt;b&gt;a&lt;/b&gt; vs b&amp;c" in html


def test_aivat_result_repr_is_its_summary() -> None:
    r = AivatResult(("a", "b"), load_game("kuhn"), np.array([1.0, -1.0, 2.0, 0.0]), np.array([0.5, -0.5, 1.0, 0.0]),
                    known=(True, False))
    assert repr(r) == f"<AivatResult {r.summary()}>"
    html = r._repr_html_()
    assert str(r.plain_rate) in html and str(r.aivat_rate) in html and "<td style='text-align:left'>a</td>" in html


# --- the hands as rows and as a DataFrame -------------------------------------------------------------------


def test_hand_rows_of_a_match_join_its_log(tmp_path: Path) -> None:
    r = small_match(tmp_path)
    rows = r.hand_rows()
    assert [row["hand"] for row in rows] == list(range(20))
    assert [row["chips"] for row in rows] == r.chips.tolist()
    for row in rows:  # A's chips are those of A's position in the log
        position = [row["player0"], row["player1"]].index("raise")
        assert row[f"chips{position}"] == row["chips"]
    assert rows[0].keys() >= {"betting", "board", "cards"}


def test_hand_rows_without_a_log_hold_the_chips(tmp_path: Path) -> None:
    r = small_match(tmp_path, log=False)
    assert r.hand_rows()[:2] == [{"hand": 0, "chips": r.chips[0]}, {"hand": 1, "chips": r.chips[1]}]


def test_hand_rows_of_a_log() -> None:
    game = load_game("leduc")
    log = history_from_lines(game, ["STATE:0:rc/rc:Ks|Qs/Kh:7|-7:A|B", "STATE:1:rf:Ah|Qh:1|-1:B|A"])
    assert hand_rows(log) == [
        {"hand": 0, "betting": "rc/rc", "board": "Kh", "cards": "Ks|Qs", "player0": "A", "chips0": 7.0,
         "player1": "B", "chips1": -7.0},
        {"hand": 1, "betting": "rf", "board": "", "cards": "Ah|Qh", "player0": "B", "chips0": 1.0, "player1": "A",
         "chips1": -1.0}]


def test_without_pandas_the_frame_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError, installed or not
    r = small_match(tmp_path)
    with pytest.raises(ImportError, match=r"needs pandas, which pokerbot does not install: pip install pandas"):
        r.hands_frame()
    with pytest.raises(ImportError, match="pip install pandas"):
        to_frame([{"hand": 0}])


def test_the_frame_holds_the_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With pandas, a real DataFrame; without it (pandas is not a dependency), a stand-in module checks that the
    rows go to ``pandas.DataFrame`` as they are."""
    r = small_match(tmp_path)
    try:
        pandas: Any = importlib.import_module("pandas")
    except ImportError:
        pandas = None
    if pandas is not None:
        frame = r.hands_frame()
        assert isinstance(frame, pandas.DataFrame) and len(frame) == 20
        assert frame["chips"].tolist() == r.chips.tolist() and "betting" in frame.columns
        return
    fake = types.ModuleType("pandas")
    setattr(fake, "DataFrame", lambda rows: ("frame", rows))
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert r.hands_frame() == ("frame", r.hand_rows())
