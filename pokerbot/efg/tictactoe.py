"""Tic-tac-toe as an explicit perfect-information :class:`~pokerbot.efg.game.Game`, and an
exact minimax player for any perfect-information game.

Player 0 is X and moves first; moves are labelled by cell ``0 .. 8`` (row-major) and
both players observe every move. The game ends at a line of three (+1 / -1 for the
winner / loser) or a full board (0). The full tree has 549,946 nodes including the root
(255,168 terminals), the standard count of tic-tac-toe games that stop at a win; its
minimax value is a draw.

States are :class:`TicTacToeState` s (kept in ``game.states`` by :func:`tic_tac_toe`, so
``game.states[h]`` is node ``h``'s position) and :func:`board_features` turns one into
a network input.

>>> g = tic_tac_toe(prefix=(4, 1, 0, 8))     # X centre, O edge, X corner, O blocks
>>> g.num_nodes, float(minimax_values(g)[0])   # X forks and wins
(238, 1.0)
>>> g.edge_label[int(g.children(0)[minimax_action(g, 0)])]  # the fork 3 (threatens 5 and 6)
'3'
>>> board_features(g.states[0]).shape
(28,)
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.efg.game import CHANCE, TERMINAL, Branch, EfgError, Game, Leaf, Move, build_game

#: The eight lines of three cells.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
)
EMPTY, X, O = 0, 1, 2
#: Length of :func:`board_features`: 9 cells x {empty, X, O} one-hot, then the side to move.
NUM_FEATURES = 28


_LINES_THROUGH: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(line for line in LINES if c in line) for c in range(9)
)


@dataclass(frozen=True)
class TicTacToeState:
    """A position: ``board[c]`` in {``EMPTY``, ``X``, ``O``} for cells 0..8 (row-major),
    the player to move (0: X, 1: O) and the side that has a line (``X``, ``O`` or
    ``EMPTY``), kept up to date by :meth:`play`."""

    board: tuple[int, ...] = (EMPTY,) * 9
    to_move: int = 0
    won: int = EMPTY

    def winner(self) -> int | None:
        """``X`` or ``O`` if that side has a line, else ``None``."""
        return self.won or None

    def play(self, cell: int) -> TicTacToeState:
        if self.board[cell] != EMPTY or self.won:
            raise EfgError(f"tic-tac-toe: cell {cell} is taken or the game is over")
        stone = X if self.to_move == 0 else O
        board = self.board[:cell] + (stone,) + self.board[cell + 1 :]
        won = stone if any(board[i] == board[j] == board[k] for i, j, k in _LINES_THROUGH[cell]) else EMPTY
        return TicTacToeState(board, 1 - self.to_move, won)


def board_features(state: TicTacToeState) -> np.ndarray:
    """A float32 vector of :data:`NUM_FEATURES`: cell-major one-hot (empty, X, O) for the 9
    cells, then 1.0 if O (player 1) is to move.

    >>> board_features(TicTacToeState().play(4)).reshape(-1)[12:15].tolist(), board_features(TicTacToeState())[-1].item()
    ([0.0, 1.0, 0.0], 0.0)
    """
    out = np.zeros(NUM_FEATURES, dtype=np.float32)
    out[np.arange(9) * 3 + np.asarray(state.board)] = 1.0
    out[27] = float(state.to_move)
    return out


_CELL = tuple(str(c) for c in range(9))


def _expand(s: TicTacToeState) -> Branch | Leaf:
    if s.won:
        return Leaf((1.0, -1.0) if s.won == X else (-1.0, 1.0))
    free = [c for c in range(9) if s.board[c] == EMPTY]
    if not free:
        return Leaf((0.0, 0.0))
    return Branch(s.to_move, [Move(_CELL[c], s.play(c), obs=(_CELL[c], _CELL[c])) for c in free])


def tic_tac_toe(prefix: Sequence[int] = (), keep_states: bool = True) -> Game:
    """Tic-tac-toe from the empty board, or from the position after the moves ``prefix``
    (cells, alternating from X; the root's player follows from the stone count)."""
    s = TicTacToeState()
    for c in prefix:
        if s.winner() is not None:
            raise EfgError(f"tic-tac-toe: the game is over before move {c} of {tuple(prefix)}")
        s = s.play(int(c))
    suffix = "-" + "".join(map(str, prefix)) if prefix else ""
    # The full tree makes millions of small objects: the cyclic collector's full passes
    # would nearly double the build time (about 11 s without them), and there are no cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return build_game(f"tic-tac-toe{suffix}", s, _expand, keep_states=keep_states)
    finally:
        if enabled:
            gc.enable()


def _check_perfect_information(game: Game) -> None:
    for i in (0, 1):
        if game.treeplex(i).num_infosets != int(np.count_nonzero(game.player == i)):
            raise EfgError(f"{game.name}: minimax needs perfect information (player {i} has multi-node infosets)")


def minimax_values(game: Game) -> np.ndarray:
    """Player 0's exact minimax value at every node of a perfect-information game (max at
    player 0's nodes, min at player 1's, expectation at chance nodes), by backward
    induction over the flat arrays, one depth level at a time. Computed once per game."""
    cached = game.__dict__.get("_minimax_values")
    if cached is not None:
        return np.asarray(cached)
    _check_perfect_information(game)
    player, parent, depth = game.player, game.parent, game.depth
    val = np.where(player == 0, -np.inf, np.where(player == 1, np.inf, 0.0))
    term = player == TERMINAL
    val[term] = game.payoff[term, 0]
    for d in range(int(depth.max()), 0, -1):
        kids = np.flatnonzero(depth == d)
        par = parent[kids]
        who = player[par]
        for p, op in ((0, np.maximum), (1, np.minimum)):
            sel = who == p
            op.at(val, par[sel], val[kids[sel]])
        sel = who == CHANCE
        np.add.at(val, par[sel], game.edge_prob[kids[sel]] * val[kids[sel]])
    val.setflags(write=False)
    game.__dict__["_minimax_values"] = val  # frozen dataclass: cache beside its cached properties
    return val


def minimax_action(game: Game, node: int) -> int:
    """The action index (position among ``game.children(node)``) of a best child for the
    player to move at ``node`` (a player-0 or player-1 node), the lowest index on ties."""
    p = int(game.player[node])
    if p not in (0, 1):
        raise EfgError(f"{game.name}: node {node} is not a decision node")
    v = minimax_values(game)[game.children(node)]
    best = v.max() if p == 0 else v.min()
    return int(np.flatnonzero(np.abs(v - best) <= 1e-12)[0])
