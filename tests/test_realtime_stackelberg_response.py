"""The follower's leader-favoured best response, BRVs, trunk, and bimatrix SSE."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.game import EfgError
from pokerbot.efg.general_sum_games import figure1, figure2
from realtime.stackelberg.response import blueprint_rows, follower_response, leader_value, matrix_sse


def test_ties_go_to_the_leader() -> None:
    g = figure2()
    # the leader mixes 1/2 on row 1 in both subgames: staying is worth 0 to the follower, as is exiting
    x = blueprint_rows(g, 0)
    tp = g.treeplex(0)
    x = 0.5 * x + 0.5 * blueprint_rows(g, 1)
    r = follower_response(g.sequence_form, x)
    assert r.follower_value == pytest.approx(0.0)
    assert r.leader_value == pytest.approx(1.5)  # stays (leader 1.5) rather than exits (leader 0)
    assert tp.num_seqs == len(x)


def test_brvs_and_trunk_of_figure1() -> None:
    g = figure1()
    r = follower_response(g.sequence_form, blueprint_rows(g, 0))
    tp = g.treeplex(1)
    brv = {tp.seq_label(s).split(":")[1]: round(float(v), 9) for s, v in enumerate(r.seq_values) if s}
    assert brv["X1"] == 0.0 and brv["S1"] == 0.5 and brv["X2"] == 1.0 and brv["S2"] == 0.0  # chance-weighted
    trunk = {tp.labels[d] for d in range(tp.num_infosets) if r.trunk[d]}
    assert trunk == {("X1", "S1"), ("X2", "S2"), ("Ac0", "Ac1")}  # B is never entered
    assert leader_value(g.sequence_form, blueprint_rows(g, 1)) == pytest.approx(0.5)


def _grid_sse(a: np.ndarray, b: np.ndarray, steps: int = 400) -> float:
    """Strong SSE of a 2-row bimatrix game by scanning the leader's mix."""
    best = -np.inf
    for q in np.linspace(0.0, 1.0, steps + 1):
        x = np.array([1 - q, q])
        fb = x @ b
        ties = np.flatnonzero(fb >= fb.max() - 1e-12)
        best = max(best, float((x @ a)[ties].max()))
    return best


@pytest.mark.parametrize("seed", range(5))
def test_matrix_sse_beats_or_matches_every_grid_point(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.random((2, 3)), rng.random((2, 3))
    sse = matrix_sse(a, b)
    assert sse.leader.sum() == pytest.approx(1.0) and (sse.leader >= -1e-12).all()
    fb = sse.leader @ b
    assert fb[sse.column] >= fb.max() - 1e-7  # the column is a best response
    assert sse.leader_value >= _grid_sse(a, b) - 1e-9
    assert sse.leader_value <= _grid_sse(a, b) + 5e-3  # and the grid gets close to it


def test_matrix_sse_rejects_mismatched_shapes() -> None:
    with pytest.raises(EfgError, match="one shape"):
        matrix_sse(np.zeros((2, 2)), np.zeros((2, 3)))
