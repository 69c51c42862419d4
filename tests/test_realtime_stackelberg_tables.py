"""The ``pokerbot stackelberg`` options for Tables 1 and 4: Table 1's main-game size n,
its κ values, Table 4's α row and its Goofspiel rows (small instances here; the
reproductions themselves are in docs/stackelberg.md)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from experiments import stackelberg_tables as ex
from pokerbot.cli import main
from pokerbot.commands.stackelberg import (
    PAPER_TABLE1,
    PAPER_TABLE4_ALPHA,
    PAPER_TABLE4_BETA,
    table1_sizes,
)
from pokerbot.errors import PokerbotError
from realtime.stackelberg.bounds import Subgames
from realtime.stackelberg.search import SearchResult


def test_table1_sizes_take_n_and_keep_mxm_as_n_2() -> None:
    assert table1_sizes("2x2,10x10") == [(2, 2, 2), (2, 10, 10)]
    assert table1_sizes("2x100x100,5x100x100") == [(2, 100, 100), (5, 100, 100)]
    assert table1_sizes("3X2x4") == [(3, 2, 4)]
    for bad in ("10by10", "2x2x2x2", "0x2", "2x", "2x2,", "5x1001x2"):
        with pytest.raises(PokerbotError, match="--table1-sizes"):
            table1_sizes(bad)


def test_paper_cells_of_table1_and_table4_are_all_there() -> None:
    # Table 1: 4 settings x 3 κ; Table 4: 5 α and 5 β cells for each of the two games
    assert {(n, games, m) for n, games, m, _ in PAPER_TABLE1} == {(2, 2, 2), (2, 10, 10), (2, 100, 100), (5, 100, 100)}
    assert len(PAPER_TABLE1) == 12
    assert PAPER_TABLE1[(5, 100, 100, 0.9)] == (1.3752, 1.8723, 1.4534)
    for table in (PAPER_TABLE4_ALPHA, PAPER_TABLE4_BETA):
        assert set(table) == {"leduc", "goofspiel"} and all(len(row) == 5 for row in table.values())
    assert PAPER_TABLE4_ALPHA["goofspiel"][0.5] == PAPER_TABLE4_BETA["goofspiel"][1.0] == 5.29
    assert PAPER_TABLE4_ALPHA["leduc"][0.5] == PAPER_TABLE4_BETA["leduc"][1.0] == -0.186


def test_two_stage_row_with_a_3x3_main_game_counts_its_subgames() -> None:
    row = ex.two_stage_row(3, 2, 2, 0.5, range(2), time_limit=10.0, full_time_limit=10.0)
    assert (row.n, row.instances, row.subgames) == (3, 2, 2 * 3 * 3 * 2)  # (stage-1 pair, secondary game)
    assert row.blueprint <= row.search + 1e-9 <= row.full + 2e-6
    assert row.full_limits_hit == row.search_limits_hit == 0 and 0 <= row.full_improved <= 2
    skipped = ex.two_stage_row(3, 2, 2, 0.5, range(2), time_limit=10.0, full_time_limit=0.0)
    assert math.isnan(skipped.full) and skipped.seconds_full == 0.0
    assert skipped.search == pytest.approx(row.search)


def test_goofspiel_row_passes_alpha_and_beta_to_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[float, float]] = []
    real = ex.safe_search

    def spy(subs: Subgames, blueprint: np.ndarray, alpha: float = 0.5, beta: float = 1.0,
            **kw: Any) -> SearchResult:
        seen.append((alpha, beta))
        return real(subs, blueprint, alpha, beta, **kw)

    monkeypatch.setattr(ex, "safe_search", spy)
    setup = ex.goofspiel_setup(3)
    rows = [ex.goofspiel_row(3, 2, 5.0, setup=setup, alpha=a, beta=b) for a, b in ((0.1, 1.0), (0.5, 4.0))]
    assert seen == [(0.1, 1.0), (0.5, 4.0)]
    assert all(r.search >= r.blueprint - 1e-9 and r.subgames == 27 for r in rows)


def test_command_table1_prints_an_n_x_m_x_m_row_beside_the_paper(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stackelberg", "table1", "--table1-sizes", "3x2x2,2x2", "--kappas", "0.9", "--seeds", "1",
                 "--subgame-time", "10", "--full-time", "10"]) == 0
    out = capsys.readouterr().out
    assert "1 game(s) per row, 10 s a subgame, whole-game MILP 10 s" in out
    assert re.search(r"^ 3   2   2  0\.9 \| [\d.]+ [\d.]+ [\d.]+ \| - \|", out, re.M)  # no paper cell at n = 3
    assert re.search(r"^ 2   2   2  0\.9 \| .* \| 1\.2951, 1\.4519, 1\.4790 \|", out, re.M)
    assert "0.1 |" not in out  # only the κ asked for


def test_command_table4_goofspiel_alpha_and_beta_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stackelberg", "table4", "--table4-games", "goofspiel", "--table4-cards", "3", "--table4-depth", "2",
                 "--alphas", "0.25", "--betas", "2", "--subgame-time", "5"]) == 0
    out = capsys.readouterr().out
    assert "Goofspiel n=3, m=2 (not the paper's n=5, m=4 instance)" in out
    assert re.search(r"α=0\.25 search [\d.]+ vs blueprint [\d.]+ \(safe; paper 5\.34 \(n=5, m=4\)\)", out)
    assert re.search(r"β=2 search [\d.]+ vs blueprint [\d.]+ \(safe; paper 5\.35 \(n=5, m=4\)\)", out)
    assert "Leduc" not in out


@pytest.mark.parametrize("bad, words", [
    (["table1", "--kappas", "1.5"], "--kappas"), (["table1", "--kappas", ""], "--kappas"),
    (["table1", "--table1-sizes", "2x2x2x2"], "--table1-sizes"), (["table4", "--alphas", "nan"], "--alphas"),
    (["table4", "--table4-games", "chess"], "--table4-games"), (["table4", "--table4-cards", "6"], "--table4-cards"),
    (["table4", "--table4-cards", "4", "--table4-depth", "5"], "--table4-depth"),
    (["table4", "--table4-ranks", "1"], "--table4-ranks")])
def test_command_rejects_bad_table_options(bad: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stackelberg", *bad]) == 1
    assert words in capsys.readouterr().err


@pytest.mark.slow
def test_table4_leduc_alpha_row_runs_at_n_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stackelberg", "table4", "--table4-ranks", "2", "--alphas", "0.1,0.9", "--betas", "",
                 "--subgame-time", "2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Leduc n=2 generator: α=0\.1 search [-+\d.]+ vs blueprint [-+\d.]+ \(safe; paper n/a\)", out)
    assert "α=0.9" in out and "β=" not in out
