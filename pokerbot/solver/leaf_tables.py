"""Exact leaf values for small games: hand-pair payoff tables per leaf and continuation pair.

:class:`ExactLeafEvaluator` plays the continuation strategies out to the end of the
game with exact chance enumeration, on the whole-game public tree of the same game
and menu: for every continuation leaf ``l`` of a depth-limited tree and options
``(k0, k1)`` it computes the table ``M[l, k0, k1, h0, h1]`` of player 0's expected
payoff when player 0 holds ``h0`` and continues with its ``k0``-th strategy and
player 1 holds ``h1`` and continues with its ``k1``-th (zero where the hands
collide). Values are then matrix products with the reach vectors. The tables have
``L x K0 x K1 x H0 x H1`` numbers, which is right for small games (no-limit Leduc,
small-deck flop hold'em, the end of a HUNL preflop with few hands) and wrong for HUNL
flop leaves (use a rollout or network evaluator there).

:class:`PairTableEvaluator` is the same values from saved tables, memory-mapped
(``save`` / ``load``); ``load`` refuses a file that is corrupt or was built for
another tree with :class:`~pokerbot.errors.CheckpointError`.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver import build_tree, pot_fraction_menu, uniform_strategy
>>> game, menu = load_game("leduc-nl"), pot_fraction_menu((1.0,), True, 1)
>>> full = build_tree(game, menu)
>>> dl = build_tree(game, menu, depth_limit=0)
>>> ev = ExactLeafEvaluator(dl, full, ([uniform_strategy(full)], [uniform_strategy(full)]))
>>> ev.num_choices, ev.tables.shape
((1, 1), (3, 1, 1, 6, 6))
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pokerbot.errors import CheckpointError
from pokerbot.files import atomic_write_text, file_sha256
from pokerbot.npz import read_npy, write_npy
from pokerbot.solver import kernels as K
from pokerbot.solver.best_response import _EMPTY, _EVAL_OPTS, _NO_LEAVES, _perspective, _work
from pokerbot.solver.leaves import LeafEvaluator, check_choices, leaf_layout
from pokerbot.solver.passes import NO_SCALES, no_frontier
from pokerbot.solver.tree import CHANCE, PublicTree, SolverError

_NO_FV = np.zeros((0, 1))


class PairTableEvaluator(LeafEvaluator):
    """Leaf values from hand-pair tables ``tables[l, k0, k1, h0, h1]`` (player 0's payoff)."""

    def __init__(self, tables: np.ndarray) -> None:
        if tables.ndim != 5:
            raise SolverError(f"leaf tables have 5 axes (leaf, k0, k1, h0, h1), got shape {tables.shape}")
        self.tables = tables
        self.num_choices = check_choices((tables.shape[1], tables.shape[2]))

    def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        m = self.tables
        if player == 0:
            return np.einsum("labij,lbj->lai", m, opp_reach, optimize=True)
        return -np.einsum("labij,lai->lbj", m, opp_reach, optimize=True)

    # -- storage ---------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], tree: PublicTree, meta: dict | None = None) -> None:
        """Write ``path`` (a ``.npy`` table) and ``path.json`` (shape, tree fingerprint, checksum)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_npy(path, np.ascontiguousarray(self.tables, dtype=np.float64))
        header = dict(meta or {}, shape=list(self.tables.shape), tree=tree_fingerprint(tree),
                      sha256=file_sha256(path))
        atomic_write_text(path.with_name(path.name + ".json"), json.dumps(header, indent=2, sort_keys=True))

    @classmethod
    def load(cls, path: str | os.PathLike[str], tree: PublicTree, verify: bool = True) -> PairTableEvaluator:
        """Memory-map a table written by :meth:`save` for ``tree``.

        Raises :class:`CheckpointError` naming the problem: missing or unreadable
        file, checksum mismatch (``verify``), wrong shape, or a table built for
        another tree.
        """
        path = Path(path)
        head = path.with_name(path.name + ".json")
        try:
            header = json.loads(head.read_text())
            tables = read_npy(path, mmap=True)
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"{path}: not a readable leaf table ({exc})") from None
        if not isinstance(header, dict):
            raise CheckpointError(f"{head}: not a leaf table header (not a JSON object)")
        if list(tables.shape) != header.get("shape") or tables.dtype != np.float64:
            raise CheckpointError(f"{path}: leaf table has shape {tables.shape}, its header says {header.get('shape')}")
        if header.get("tree") != tree_fingerprint(tree):
            raise CheckpointError(f"{path}: leaf table was built for another depth-limited tree")
        if verify and header.get("sha256") != file_sha256(path):
            raise CheckpointError(f"{path}: checksum mismatch, the leaf table is corrupt")
        if tables.ndim != 5 or tables.shape[0] != len(tree.continuation_leaves) or tables.shape[3:] != tree.num_hands:
            raise CheckpointError(f"{path}: leaf table shape {tables.shape} does not fit the tree")
        return cls(tables)


def tree_fingerprint(tree: PublicTree) -> str:
    """A short hash of a tree's game, betting, boards and hand lists."""
    h = hashlib.sha256()
    h.update(tree.game.to_text().encode())
    for a in (tree.kind, tree.num_children, tree.board, tree.amount, tree.hands[0], tree.hands[1]):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update("\n".join(tree.betting).encode())
    return h.hexdigest()[:16]


def leaf_nodes_in_full_tree(dl_tree: PublicTree, full_tree: PublicTree) -> np.ndarray:
    """For each continuation leaf of ``dl_tree``, the chance node of ``full_tree`` where the game goes on.

    Matched by betting string and board; the two trees must share game, menu, root and hands.
    """
    if dl_tree.game != full_tree.game or any(
        not np.array_equal(dl_tree.hands[p], full_tree.hands[p]) for p in range(2)
    ):
        raise SolverError("the depth-limited tree and the whole-game tree have different games or hand lists")
    index: dict[tuple[str, tuple], int] = {}
    for chance in np.nonzero(full_tree.kind == CHANCE)[0]:
        key = (full_tree.betting[int(full_tree.template[chance])], full_tree.boards[int(full_tree.board[chance])])
        index.setdefault(key, int(chance))
    out = []
    for li in dl_tree.continuation_leaves:
        n = int(dl_tree.leaf_nodes[li])
        key = (dl_tree.betting[int(dl_tree.template[n])], dl_tree.boards[int(dl_tree.board[n])])
        if key not in index:
            raise SolverError(f"leaf {key[0]!r} has no matching chance node in the whole-game tree (other menu?)")
        out.append(index[key])
    return np.array(out, dtype=np.int64)


def combine(full_tree: PublicTree, strat0: np.ndarray, strat1: np.ndarray) -> np.ndarray:
    """A strategy array with player 0's part from ``strat0`` and player 1's from ``strat1``."""
    out = np.array(strat0[: full_tree.num_slots], dtype=np.float64)
    for n in full_tree.decision_nodes[1]:
        a, b = int(full_tree.slot[n]), int(full_tree.slot[n] + full_tree.num_children[n] * full_tree.num_hands[1])
        out[a:b] = strat1[a:b]
    return out


def pair_table(full_tree: PublicTree, node: int, strat: np.ndarray) -> np.ndarray:
    """``M[h0, h1]``: player 0's expected payoff below ``node`` of ``full_tree`` under ``strat`` (a whole-tree array)."""
    if full_tree.num_leaves:
        raise SolverError("pair tables are computed on a whole-game tree (no depth limit)")
    layout = leaf_layout(full_tree)
    h0, h1 = full_tree.num_hands
    out = np.zeros((h0, h1))
    valid1 = full_tree.valid[1][int(full_tree.board[node])]
    ones = np.ones(h0)
    unit = np.zeros(h1)
    persp = _perspective(full_tree, 0)
    work = _work(full_tree, 0)
    for j in np.nonzero(valid1)[0]:
        unit[:] = 0.0
        unit[j] = 1.0
        out[:, j] = K.traverse(0, node, ones, unit, K.MODE_EVAL, layout.bundle, persp, strat, _EMPTY, _EMPTY,
                               NO_SCALES, _EVAL_OPTS, _NO_LEAVES, _EMPTY, work, _NO_FV, no_frontier(full_tree))
    return out


def continuation_tables(
    full_tree: PublicTree, nodes: np.ndarray, strat0: np.ndarray, strat1: np.ndarray, shift: float = 0.0
) -> np.ndarray:
    """``M[l, h0, h1]`` at the whole-tree chance ``nodes`` (see :func:`leaf_nodes_in_full_tree`) when
    player 0 continues with ``strat0`` and player 1 with ``strat1``; ``shift`` chips are added to
    player 0's payoff of every pair of hands that can meet there."""
    strat = combine(full_tree, strat0, strat1)
    out = np.zeros((len(nodes),) + full_tree.num_hands)
    compat = (full_tree.hands[0][:, None, :, None] != full_tree.hands[1][None, :, None, :]).all(axis=(2, 3))
    for i, n in enumerate(nodes):
        out[i] = pair_table(full_tree, int(n), strat)
        if shift:
            bd = int(full_tree.board[n])
            out[i] += shift * compat * full_tree.valid[0][bd][:, None] * full_tree.valid[1][bd][None, :]
    return out


class ExactLeafEvaluator(PairTableEvaluator):
    """Exact leaf values: continuation strategies played to the end on the whole-game tree.

    ``continuations[p]`` lists player ``p``'s continuation strategies as strategy
    arrays of ``full_tree`` (only ``p``'s part of each is read); player ``p`` picks
    among them at every leaf, so ``num_choices = (len(continuations[0]),
    len(continuations[1]))``. Modicum's variant solving for player 0 is
    ``([blueprint], [blueprint, c1, c2, ...])``.

    ``penalties[p][k]`` (chips, default 0) lowers player ``p``'s payoff, and raises the
    opponent's, whenever ``p`` continues with its ``k``-th strategy: the weakening of
    self-generated strategies (Modicum, section 4).
    """

    def __init__(
        self,
        dl_tree: PublicTree,
        full_tree: PublicTree,
        continuations: tuple[Sequence[np.ndarray], Sequence[np.ndarray]],
        penalties: tuple[Sequence[float], Sequence[float]] | None = None,
    ) -> None:
        k0, k1 = check_choices((len(continuations[0]), len(continuations[1])))
        for p in range(2):
            for s in continuations[p]:
                if s.shape[0] < full_tree.num_slots:
                    raise SolverError(f"a continuation of player {p} is not a strategy array of the whole-game tree")
        nodes = leaf_nodes_in_full_tree(dl_tree, full_tree)
        pen = penalties or ((0.0,) * k0, (0.0,) * k1)
        if len(pen[0]) != k0 or len(pen[1]) != k1:
            raise SolverError("one penalty per continuation strategy")
        h0, h1 = full_tree.num_hands
        tables = np.zeros((len(nodes), k0, k1, h0, h1))
        for a in range(k0):
            for b in range(k1):
                tables[:, a, b] = continuation_tables(full_tree, nodes, continuations[0][a], continuations[1][b],
                                                      float(pen[1][b]) - float(pen[0][a]))
        super().__init__(tables)
        self.full_tree = full_tree
        self.full_nodes = nodes


def _node_index(tree: PublicTree, kind: int) -> dict[tuple[str, tuple], int]:
    index: dict[tuple[str, tuple], int] = {}
    for n in np.nonzero(tree.kind == kind)[0]:
        index.setdefault((tree.betting[int(tree.template[n])], tree.boards[int(tree.board[n])]), int(n))
    return index


def embed_strategy(
    dl_tree: PublicTree, dl_strategy: np.ndarray, full_tree: PublicTree, beyond: np.ndarray,
    players: tuple[int, ...] = (0, 1),
) -> np.ndarray:
    """A whole-game strategy array: ``dl_strategy`` at the depth-limited tree's decision nodes
    (for ``players``), ``beyond`` (a whole-tree array) everywhere else."""
    from pokerbot.solver.tree import DECISION

    out = np.array(beyond[: full_tree.num_slots], dtype=np.float64)
    index = _node_index(full_tree, DECISION)
    for p in players:
        nh = dl_tree.num_hands[p]
        for n in dl_tree.decision_nodes[p]:
            key = (dl_tree.betting[int(dl_tree.template[n])], dl_tree.boards[int(dl_tree.board[n])])
            m = index.get(key)
            if m is None:
                raise SolverError(f"decision node {key[0]!r} of the depth-limited tree is not in the whole-game tree")
            size = int(dl_tree.num_children[n]) * nh
            out[int(full_tree.slot[m]) : int(full_tree.slot[m]) + size] = dl_strategy[int(dl_tree.slot[n]) : int(dl_tree.slot[n]) + size]
    return out


def restrict_strategy(
    full_tree: PublicTree, strategy: np.ndarray, dl_tree: PublicTree, leaves: LeafEvaluator | None = None
) -> np.ndarray:
    """The depth-limited tree's strategy array taken from a whole-game one; at every leaf each hand
    picks its first continuation (the blueprint, by convention)."""
    from pokerbot.solver.tree import DECISION

    layout = leaf_layout(dl_tree, leaves)
    out = np.zeros(layout.num_slots)
    index = _node_index(full_tree, DECISION)
    for p in range(2):
        nh = dl_tree.num_hands[p]
        for n in dl_tree.decision_nodes[p]:
            m = index[(dl_tree.betting[int(dl_tree.template[n])], dl_tree.boards[int(dl_tree.board[n])])]
            size = int(dl_tree.num_children[n]) * nh
            out[int(dl_tree.slot[n]) : int(dl_tree.slot[n]) + size] = strategy[int(full_tree.slot[m]) : int(full_tree.slot[m]) + size]
        for li in range(dl_tree.num_leaves):
            off = int(layout.leaf_slot[li, p])
            out[off : off + nh] = 1.0
    return out
