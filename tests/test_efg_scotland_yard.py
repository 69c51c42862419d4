"""Scotland Yard on the (reconstructed) glasses map of the Student of Games paper: sizes,
hand-checked positions, exact values by the sequence-form LP, and the public-state
structure a Student-of-Games engine needs (depth common knowledge, one node kind per public state)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from pokerbot.efg import game_value, games
from pokerbot.efg.game import TERMINAL, EfgError, Game
from pokerbot.efg.scotland_yard import GLASSES, adjacency, scotland_yard
from pokerbot.efg.tictactoe import minimax_values

#: A small map with a mixed value: a 4-cycle 1-2-3-4 with the chord 1-3 and a tail 4-5-6.
KITE = ((1, 2), (2, 3), (3, 4), (4, 1), (1, 3), (4, 5), (5, 6))


def public_states(g: Game) -> np.ndarray:
    """Component id per node: nodes at the same depth sharing either player's observation infoset."""
    n = g.num_nodes
    rows, cols = [], []
    offset = n
    for i in (0, 1):
        key = g.depth * (g.info[i].num_obs + 1) + g.obs[i]
        _, inv = np.unique(key, return_inverse=True)
        rows.append(np.arange(n))
        cols.append(offset + inv)
        offset += int(inv.max()) + 1
    r, c = np.concatenate(rows), np.concatenate(cols)
    adj = sp.coo_matrix((np.ones(len(r)), (r, c)), shape=(offset, offset))
    return connected_components(adj, directed=False)[1][:n]


def assert_public_states_homogeneous(g: Game) -> None:
    comp = public_states(g)
    for kind_per_comp in (g.player, g.depth):
        pairs = np.unique(np.stack([comp, kind_per_comp]), axis=1)
        assert len(np.unique(pairs[0])) == pairs.shape[1], "a public state mixes node kinds or depths"


def test_glasses_map_and_default_size() -> None:
    adj = adjacency(GLASSES)
    assert sorted(adj) == list(range(1, 12)) and adj[6] == (3, 9)
    g = scotland_yard()
    assert (g.num_nodes, g.num_infosets) == (49358, 7726)
    assert (g.treeplex(0).num_infosets, g.treeplex(1).num_infosets) == (3944, 3782)
    assert g.is_zero_sum and set(np.unique(g.payoff[g.terminals, 0])) == {-1.0, 1.0}
    assert int(g.depth.max()) == 3 * 5
    assert games.load("scotland-yard").num_nodes == g.num_nodes


def test_one_round_by_hand() -> None:
    # Mr. X 6 -> 3 or 9; detective A 1 -> 2 or 5; detective B 11 -> 7 or 10: nobody is caught
    g = scotland_yard(rounds=1)
    assert g.num_nodes == 1 + 2 + 4 + 8
    assert np.all(g.payoff[g.terminals] == [1.0, -1.0])
    # player 1 does not see where Mr. X went: detective A's two nodes are one infoset
    a_nodes = g.children(0)
    assert g.obs[1, a_nodes[0]] == g.obs[1, a_nodes[1]] and g.obs[0, a_nodes[0]] != g.obs[0, a_nodes[1]]
    assert (g.treeplex(0).num_infosets, g.treeplex(1).num_infosets) == (1, 1 + 2)
    # revealed after round 1, player 1 tells them apart
    r = scotland_yard(rounds=1, reveal_rounds=(1,))
    assert r.obs[1, r.children(0)[0]] != r.obs[1, r.children(0)[1]]


@pytest.mark.parametrize("reveal", [(), (3,), (1, 2, 3, 4, 5)])
def test_public_states_have_one_kind(reveal: tuple[int, ...]) -> None:
    g = scotland_yard(reveal_rounds=reveal)
    assert_public_states_homogeneous(g)
    # a detective move that ends the game is seen by both players as a catch
    ends = [h for h in g.terminals if g.player[g.parent[h]] == 1 and g.depth[h] < g.depth.max()]
    assert ends and all(g.payoff[h, 1] == 1.0 for h in ends)
    assert all(str(g.info[i].obs_label[g.obs[i, h]]).endswith(":caught") for h in ends for i in (0, 1))


def test_cornered_and_escaping_positions() -> None:
    # Mr. X at the end of a path with both neighbours' stations held: caught at once
    g = scotland_yard(((1, 2), (2, 3)), x_start=1, detective_starts=(2, 3), rounds=3)
    assert g.num_nodes == 1 and g.player[0] == TERMINAL and g.payoff[0, 0] == -1.0
    # path 1-2-3-4: Mr. X must go to 2, next to detective A at 3, who catches him
    g = scotland_yard(((1, 2), (2, 3), (3, 4)), x_start=1, detective_starts=(3, 4), rounds=2)
    assert game_value(g.sequence_form) == pytest.approx(-1.0)
    # path 1-2-3-4, X at 2, A at 4, B at 3: X must go to 1, A is stuck (stays), B's only move
    # to 2 corners him: the game ends at B's move, and both players observe the catch
    g = scotland_yard(((1, 2), (2, 3), (3, 4)), x_start=2, detective_starts=(4, 3), rounds=2)
    assert g.num_nodes == 4 and g.path_labels(3) == ["x1", "a-stay", "b2"]
    assert g.player[3] == TERMINAL and g.payoff[3, 0] == -1.0
    assert g.info[0].obs_label[g.obs[0, 3]] == g.info[1].obs_label[g.obs[1, 3]] == "b2:caught"
    # an 8-cycle with the detectives three and five steps away: one round is survived
    cycle = tuple((i, i % 8 + 1) for i in range(1, 9))
    g = scotland_yard(cycle, x_start=1, detective_starts=(4, 6), rounds=1)
    assert game_value(g.sequence_form) == pytest.approx(1.0)


def test_exact_values_by_lp() -> None:
    # hidden information matters: with Mr. X never revealed the kite is worth -1/3 to him
    g = scotland_yard(KITE, x_start=1, detective_starts=(6, 5), rounds=3, reveal_rounds=())
    assert (g.num_nodes, g.num_infosets) == (84, 18)
    assert game_value(g.sequence_form) == pytest.approx(-1 / 3, abs=1e-7)
    # revealed every round it is a perfect-information game: the LP value is the minimax value
    p = scotland_yard(KITE, x_start=1, detective_starts=(6, 5), rounds=3, reveal_rounds=(1, 2, 3))
    assert game_value(p.sequence_form) == pytest.approx(float(minimax_values(p)[0])) == pytest.approx(-1.0)
    # the glasses map: never revealed, a coin flip; revealed after round 3 (the default), the detectives win
    assert game_value(scotland_yard(reveal_rounds=()).sequence_form) == pytest.approx(0.0, abs=1e-7)
    assert game_value(scotland_yard().sequence_form) == pytest.approx(-1.0)
    # four rounds are too few to catch him
    assert game_value(scotland_yard(rounds=4).sequence_form) == pytest.approx(1.0)


def test_bad_parameters_are_typed_errors() -> None:
    with pytest.raises(EfgError, match="distinct"):
        scotland_yard(x_start=1)
    with pytest.raises(EfgError, match="on the map"):
        scotland_yard(x_start=12)
    with pytest.raises(EfgError, match="round"):
        scotland_yard(rounds=0)
