"""Blueprints and the paper's experiments: toy numbers and Table 1's first rows in the
default suite; the Leduc and Goofspiel reproductions are slow (``-m slow``)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.general_sum_games import raked_leduc, two_stage, two_stage_spec
from pokerbot.efg.lp import maxmin
from experiments.stackelberg_tables import (
    figure_rows,
    goofspiel_row,
    leduc_row,
    leduc_setup,
    two_stage_blueprint,
    two_stage_row,
)
from realtime.stackelberg.response import follower_response, matrix_sse


def test_figure_rows_are_the_papers_numbers() -> None:
    rows = figure_rows()
    assert rows["figure 1"]["blueprint"] == pytest.approx(1.5)
    assert rows["figure 1"]["naive search"] == pytest.approx(0.5)
    assert rows["figure 2"]["blueprint"] == pytest.approx(1.0)
    assert rows["figure 2"]["naive search, left only"] == pytest.approx(1.5)
    assert rows["figure 2"]["naive search"] == pytest.approx(0.0)
    for row in rows.values():
        assert row["blueprint"] <= row["safe search"] <= row["whole-game SSE"] + 1e-9


def test_two_stage_blueprint_plays_the_stage_one_sse() -> None:
    spec = two_stage_spec(3, 2, 2, 0.5, 4)
    g = two_stage(spec)
    x = two_stage_blueprint(g, spec.main[0], spec.main[1])
    tp = g.treeplex(0)
    root = int(np.flatnonzero(tp.parent_seq == 0)[0])
    f = int(tp.first_seq[root])
    assert x[f:f + 3] == pytest.approx(matrix_sse(spec.main[0], spec.main[1]).leader)
    assert x[-2:] == pytest.approx(x[tp.parent_seq[-1]] * 0.5)  # uniform in stage 2


def test_table1_first_row_orders_blueprint_search_full() -> None:
    row = two_stage_row(2, 2, 2, 0.0, range(3))
    assert row.blueprint < row.search <= row.full + 1e-7


def test_leduc_blueprint_is_the_unraked_nash() -> None:
    subs, x = leduc_setup(2)
    plain = raked_leduc(2, 0.0, "generator").sequence_form  # the default rule's unraked twin
    # zero-sum: the follower's best response holds the leader to the game value
    assert follower_response(plain, x).leader_value == pytest.approx(maxmin(plain, 0).value, abs=1e-7)
    raked = follower_response(subs.game.sequence_form, x)
    assert raked.leader_value < follower_response(plain, x).leader_value  # the rake costs the leader


@pytest.mark.slow
def test_table3_leduc3_search_improves_on_the_blueprint() -> None:
    row = leduc_row(3, time_limit=20.0)
    assert (row.seqs, row.infosets) == (5377, 2016)
    assert row.search > row.blueprint


@pytest.mark.slow
def test_table2_goofspiel4_search_never_below_the_blueprint() -> None:
    row = goofspiel_row(4, 3, time_limit=5.0)
    assert row.subgames == 64
    assert row.search >= row.blueprint - 1e-9


def test_command_prints_the_figures_and_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from pokerbot.cli import main

    assert main(["stackelberg", "figures"]) == 0
    out = capsys.readouterr().out
    assert "figure 1: blueprint 1.5000, naive search 0.5000" in out and "load average" in out
    for bad, words in ((["tablex"], "unknown table"), (["table3", "--rule", "house"], "--rule"),
                       (["table3", "--full-start", "nash"], "--full-start"), (["table3", "--polish", "-1"], "--polish"),
                       (["table1", "--table1-sizes", "10by10"], "--table1-sizes"), (["table2", "--depths", "7"], "--depths")):
        assert main(["stackelberg", *bad]) == 1
        assert words in capsys.readouterr().err
