"""Tic-tac-toe as an explicit perfect-information game and the exact minimax player."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from pokerbot.efg import games
from pokerbot.efg.game import CHANCE, Branch, EfgError, Leaf, Move, build_game
from pokerbot.efg.tictactoe import (
    NUM_FEATURES,
    TicTacToeState,
    board_features,
    minimax_action,
    minimax_values,
    tic_tac_toe,
)


@cache
def _negamax(board: tuple[int, ...]) -> float:
    """X's value of a position by plain recursion (an independent check)."""
    s = TicTacToeState(board, sum(c != 0 for c in board) % 2)
    for line in ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)):
        a, b, c = (board[i] for i in line)
        if a and a == b == c:
            return 1.0 if a == 1 else -1.0
    free = [c for c in range(9) if board[c] == 0]
    if not free:
        return 0.0
    vals = [_negamax(board[:c] + (1 + s.to_move,) + board[c + 1 :]) for c in free]
    return max(vals) if s.to_move == 0 else min(vals)


def test_tree_size_and_draw_by_symmetry() -> None:
    # the first move is a corner, an edge or the centre: 1 + 4 corners + 4 edges + centre
    sub = {c: tic_tac_toe(prefix=(c,)) for c in (0, 1, 4)}
    sizes = {c: g.num_nodes for c, g in sub.items()}
    assert sizes == {0: 59705, 1: 63905, 4: 55505}
    assert 1 + 4 * sizes[0] + 4 * sizes[1] + sizes[4] == 549946  # the standard count
    assert all(float(minimax_values(g)[0]) == 0.0 for g in sub.values())  # every first move draws


def test_minimax_matches_plain_recursion() -> None:
    g = tic_tac_toe(prefix=(4,))
    v = minimax_values(g)
    for h in range(0, g.num_nodes, 97):
        assert v[h] == _negamax(g.states[h].board)
    assert g.num_infosets == int(np.count_nonzero(g.player < 2))  # perfect information


def test_forced_wins_and_best_moves() -> None:
    g = tic_tac_toe(prefix=(4, 1))  # O answered the centre on an edge: X wins
    assert float(minimax_values(g)[0]) == 1.0
    g = tic_tac_toe(prefix=(4, 1, 0, 8))
    kids = g.children(0)
    assert [g.edge_label[int(c)] for c in kids] == ["2", "3", "5", "6", "7"]
    assert minimax_values(g)[kids].tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
    assert minimax_action(g, 0) == 1  # the fork at 3, the lowest of the two winning moves
    # X on two edges, O centre and corner 0: X must block 8, then O forks at 6 (or 2): lost for X
    g = tic_tac_toe(prefix=(1, 4, 7, 0))
    assert float(minimax_values(g)[0]) == -1.0 == _negamax(g.states[0].board)
    o_turn = g.children(0)[minimax_action(g, 0)]  # all moves lose: the lowest index, cell 2
    assert g.edge_label[int(o_turn)] == "2" and g.player[o_turn] == 1
    assert minimax_values(g)[g.children(int(o_turn))[minimax_action(g, int(o_turn))]] == -1.0  # O wins
    # only the block at 8 holds the draw
    g = tic_tac_toe(prefix=(1, 4, 3, 0))
    assert minimax_values(g)[g.children(0)].tolist() == [-1.0, -1.0, -1.0, -1.0, 0.0]
    assert minimax_action(g, 0) == 4 and g.edge_label[int(g.children(0)[4])] == "8"
    with pytest.raises(EfgError, match="decision node"):
        minimax_action(g, int(g.terminals[0]))


def test_board_features() -> None:
    s = TicTacToeState().play(4).play(0)
    f = board_features(s)
    assert f.shape == (NUM_FEATURES,) and f.dtype == np.float32
    cells = f[:27].reshape(9, 3)
    assert cells.sum(axis=1).tolist() == [1.0] * 9
    assert cells[4].tolist() == [0.0, 1.0, 0.0] and cells[0].tolist() == [0.0, 0.0, 1.0]
    assert f[27] == 0.0 and board_features(s.play(8))[27] == 1.0
    g = tic_tac_toe(prefix=(4, 0))
    assert np.array_equal(board_features(g.states[0]), f)
    with pytest.raises(EfgError):
        s.play(4)


def test_minimax_with_chance_and_refusing_hidden_information() -> None:
    def expand(n: tuple[str, ...]) -> Branch | Leaf:
        if not n:
            return Branch(CHANCE, [Move("lo", ("lo",), 0.25, ("lo", "lo")), Move("hi", ("hi",), 0.75, ("hi", "hi"))])
        if len(n) == 1:
            return Branch(0, [Move("a", n + ("a",), obs=("a", "a")), Move("b", n + ("b",), obs=("b", "b"))])
        u = {("lo", "a"): 1.0, ("lo", "b"): 3.0, ("hi", "a"): 2.0, ("hi", "b"): -1.0}[(n[0], n[1])]
        return Leaf((u, -u))

    g = build_game("chance", (), expand)
    assert float(minimax_values(g)[0]) == pytest.approx(0.25 * 3 + 0.75 * 2)
    with pytest.raises(EfgError, match="perfect information"):
        minimax_values(games.kuhn())


def test_registered() -> None:
    assert games.GAMES["tic-tac-toe"] is tic_tac_toe


@pytest.mark.slow
def test_full_tree() -> None:  # about 12 s and 0.8 GB
    g = tic_tac_toe()
    assert g.num_nodes == 549946 and len(g.terminals) == 255168
    assert float(minimax_values(g)[0]) == 0.0 and minimax_action(g, 0) == 0
