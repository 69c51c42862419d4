"""Depth-limited leaves: the :class:`LeafEvaluator` interface, choice layout, equity leaves.

A depth-limited tree (``build_tree(..., depth_limit=N)``) has two kinds of
``LEAF`` node (see :mod:`pokerbot.solver.tree`):

* **continuation leaves**, where the game would go on past the depth limit. There
  each player picks, per hand, one of its continuation strategies for the rest of the
  game (``num_choices[p]`` options; 1 means "plays its one continuation", say the
  blueprint). The choice is a real decision of the CFR iteration: it has regrets and
  an average strategy per hand like any decision node. Modicum's multi-valued leaves
  are ``num_choices = (1, K)`` when solving for player 0 (only the opponent picks; we
  play the blueprint beyond); Pluribus-style K x K leaves are ``(K, K)``.
* **equity leaves**, where both players are all-in and cards remain to come past the
  limit: the better hand after every run-out wins ``amount`` chips. Their values come
  from an exact equity matrix per board (:func:`equity_table`), no continuation.

A :class:`LeafEvaluator` gives the values of the continuation leaves. It sees only
reach vectors: given the *other* player's reach at every continuation leaf, split by
that player's leaf choice, it returns the counterfactual value of each hand of
``player`` for each of ``player``'s options, all leaves in one batch::

    values(player, opp_reach[L, K_opp, H_opp]) -> cfv[L, K_player, H_player]

``cfv[l, k, h] = sum_k' sum_h' opp_reach[l, k', h'] * u_player(l, k, k', h, h')``,
where ``u`` is ``player``'s expected payoff (chips, averaged over the cards still to
come) when ``player`` holds ``h`` and continues with its option ``k`` and the
opponent holds ``h'`` (sharing no card with ``h``) and continues with ``k'``. The
values are linear in the reach, so the evaluator may precompute anything that does
not depend on it; it is called twice per CFR iteration (once per traverser) and once
per best response. Leaves are numbered as in ``tree.continuation_leaves``.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver.tree import build_tree, pot_fraction_menu
>>> tree = build_tree(load_game("leduc-nl"), pot_fraction_menu((1.0,), True, 1), depth_limit=0)
>>> tree.num_leaves, int(tree.leaf_equity.sum())
(5, 2)
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from pokerbot.solver import payoffs
from pokerbot.solver.tree import PublicTree, SolverError


class LeafEvaluator(ABC):
    """Values of a depth-limited tree's continuation leaves (see the module docstring).

    An evaluator is built for one tree (it knows its leaves' states and hand lists).
    ``num_choices[p]`` is how many continuation options player ``p`` picks from at
    every continuation leaf (>= 1).
    """

    num_choices: tuple[int, int]

    @abstractmethod
    def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        """``player``'s counterfactual values ``(L, num_choices[player], H_player)`` from the
        other player's reach split by its leaf choice, ``(L, num_choices[1 - player], H_other)``."""


def check_choices(num_choices: tuple[int, int]) -> tuple[int, int]:
    """``num_choices`` as two ints >= 1, else :class:`SolverError` naming the bad count."""
    out = tuple(int(k) for k in num_choices)
    if len(out) != 2 or any(k < 1 for k in out):
        raise SolverError(f"each player needs at least one continuation at a leaf (K >= 1), got {num_choices}")
    return out


# --- equity leaves -------------------------------------------------------------------


@dataclass(frozen=True)
class EquityTable:
    """An equity matrix ``E[h0, h1] = scale * values[h0, h1]`` (see :func:`equity_table`).

    Counted over run-outs (:func:`equity_counts`), ``values`` holds each hand pair's whole number of run-outs
    won less those lost, in the smallest integer type that holds them (int8 on a HUNL turn: 44 river cards;
    int16 on a flop: 990 run-outs), and ``scale`` is one over the run-outs: a leaf's products read an eighth or
    a quarter of a float64 table's bytes, and the values are those of the float table to the last bit or one.
    A table given as floats (a precomputed preflop table) has ``scale = 1``.

    >>> t = EquityTable(np.array([[0, 3], [-3, 0]], dtype=np.int8), 0.25)
    >>> t.dense().tolist(), t.transposed().values.tolist()
    ([[0.0, 0.75], [-0.75, 0.0]], [[0, -3], [3, 0]])
    """

    values: np.ndarray
    scale: float

    @classmethod
    def of(cls, e: np.ndarray) -> EquityTable:
        """A float table as it is (scale 1)."""
        return cls(np.ascontiguousarray(e, dtype=np.float64), 1.0)

    def dense(self) -> np.ndarray:
        """``E`` as float64."""
        return self.values * self.scale if self.scale != 1.0 else np.asarray(self.values, dtype=np.float64)

    def transposed(self) -> EquityTable:
        """``E.T`` (player 1's side), contiguous."""
        return EquityTable(np.ascontiguousarray(self.values.T), self.scale)

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes)


def equity_entry(tree: PublicTree, board_id: int, player: int = 0) -> EquityTable:
    """Board ``board_id``'s :class:`EquityTable` from ``player``'s side (player 1: the transpose), kept in
    ``tree.equity_tables`` / ``tree.equity_tables_t`` (which a caller may seed). Cost: run-outs x H0 x H1
    comparisons (HUNL flop: 1,081 x 1,176^2), once per board."""
    cache = tree.equity_tables
    if board_id not in cache:
        cache[board_id] = equity_counts(tree, board_id)
    if player == 0:
        return cache[board_id]
    cache_t = tree.equity_tables_t
    if board_id not in cache_t:
        cache_t[board_id] = cache[board_id].transposed()
    return cache_t[board_id]


def equity_table(tree: PublicTree, board_id: int) -> np.ndarray:
    """``E[h0, h1]``: P(h0 wins) - P(h0 loses) over every run-out of board ``board_id`` (0 if they share a card),
    as float64 (:func:`equity_entry` holds it compactly)."""
    return equity_entry(tree, board_id).dense()


def _runout_counts(tree: PublicTree, board_id: int, samples: int | None, seed: int) -> tuple[np.ndarray, float]:
    """Run-outs won less run-outs lost per hand pair of board ``board_id`` (float64 whole numbers, zero for pairs
    sharing a card or blocked by the board), over every run-out or ``samples`` of them, and what divides them."""
    from pokerbot.solver.strength import hand_strengths

    game = tree.game
    board = [c for g in tree.boards[board_id] for c in g]
    missing = game.total_board_cards - len(board)
    remaining = [c for c in sorted(game.deck()) if c not in set(board)]
    runouts = list(itertools.combinations(remaining, missing))
    chosen = runouts
    if samples is not None and len(runouts) > samples:
        pick = np.random.default_rng(seed).choice(len(runouts), size=samples, replace=False)
        chosen = [runouts[i] for i in sorted(pick)]
    strengths = []
    for p in range(2):
        hands = np.ascontiguousarray(tree.hands[p], dtype=np.int64)
        s = np.empty((len(chosen), hands.shape[0]), dtype=np.int32)
        for i, r in enumerate(chosen):
            s[i] = hand_strengths(hands, np.array(board + list(r), dtype=np.int64))
        strengths.append(s)
    free = game.deck_size - len(board) - 2 * game.num_hole_cards
    out = np.zeros(tree.num_hands)
    valid = (tree.valid[0][board_id], tree.valid[1][board_id])
    payoffs.equity_matrix(tree.hands[0], tree.hands[1], strengths[0], strengths[1], valid[0], valid[1], out)
    # Hands blocked by the board itself never reach this leaf; zero them for clarity.
    out *= valid[0][:, None] * valid[1][None, :]
    return out, math.comb(free, missing) * len(chosen) / len(runouts)


def runout_equity(tree: PublicTree, board_id: int, samples: int | None = None, seed: int = 0) -> np.ndarray:
    """:func:`equity_table` (not cached), or with ``samples`` its estimate from that many run-outs drawn
    without replacement (seeded; all of them when there are no more)."""
    counts, divisor = _runout_counts(tree, board_id, samples, seed)
    return counts / divisor


def equity_counts(tree: PublicTree, board_id: int, samples: int | None = None, seed: int = 0) -> EquityTable:
    """:func:`runout_equity` as an :class:`EquityTable` of whole-number counts (not cached)."""
    counts, divisor = _runout_counts(tree, board_id, samples, seed)
    most = float(np.abs(counts).max()) if counts.size else 0.0
    dtype = next((t for t in (np.int8, np.int16, np.int32) if most <= np.iinfo(t).max), None)
    if dtype is None:
        return EquityTable.of(counts / divisor)
    return EquityTable(counts.astype(dtype), 1.0 / divisor)


@njit(cache=True, parallel=True, fastmath=True)
def equity_products(e: np.ndarray, r: np.ndarray, stake: np.ndarray) -> np.ndarray:
    """``out[k, h] = stake[k] * sum_j e[h, j] * r[k, j]``: an equity table (float or whole-number counts) times each
    leaf's opponent reach.

    Rows in parallel on numba's threads (a BLAS call here would share the cores with numba's spinning
    workers between the pass kernels: 4x slower measured); each row is read once for every leaf.
    """
    n, no = r.shape
    nh = e.shape[0]
    out = np.empty((n, nh))
    for h in prange(nh):
        row = e[h]
        for k in range(n):
            rk = r[k]
            acc = 0.0
            for j in range(no):
                acc += row[j] * rk[j]
            out[k, h] = stake[k] * acc
    return out


# --- the choice layout -----------------------------------------------------------------


@dataclass
class LeafLayout:
    """Where each player's leaf choices live in a strategy array, and how leaf values are computed.

    A strategy array of a depth-limited tree has ``num_slots`` entries: the tree's
    decision slots first (``tree.num_slots``, so policy conversion works unchanged),
    then one ``leaf_nk[l, p] x H_p`` block per leaf and player at ``leaf_slot[l, p]``.
    """

    tree: PublicTree
    evaluator: LeafEvaluator | None
    leaf_slot: np.ndarray  # int64 (L, 2)
    leaf_nk: np.ndarray  # int64 (L, 2)
    num_slots: int
    blocks: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]  # per player (offsets, sizes)
    max_choices: tuple[int, int]

    def leaf_values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        """``LV[L, max_choices[player], H_player]`` for every leaf from ``opp_reach[L, max_choices[o], H_o]``."""
        tree = self.tree
        o = 1 - player
        out = np.zeros((tree.num_leaves, self.max_choices[player], tree.num_hands[player]))
        cont = tree.continuation_leaves
        if len(cont):
            assert self.evaluator is not None
            ko = self.evaluator.num_choices[o]
            v = np.asarray(self.evaluator.values(player, np.ascontiguousarray(opp_reach[cont, :ko])), dtype=np.float64)
            kp = self.evaluator.num_choices[player]
            if v.shape != (len(cont), kp, tree.num_hands[player]):
                raise SolverError(
                    f"leaf evaluator returned values of shape {v.shape}, expected {(len(cont), kp, tree.num_hands[player])}"
                )
            out[cont, :kp] = v
        eq = np.nonzero(tree.leaf_equity)[0]
        if len(eq):
            boards = tree.board[tree.leaf_nodes[eq]]
            for b in np.unique(boards):
                ids = eq[boards == b]
                e = equity_entry(tree, int(b), player)
                stake = tree.amount[tree.leaf_nodes[ids]].astype(np.float64)
                r = np.ascontiguousarray(opp_reach[ids, 0], dtype=np.float64)  # (n, H_o)
                out[ids, 0] = equity_products(e.values, r, (stake if player == 0 else -stake) * e.scale)
        return out

    @property
    def bundle(self) -> tuple:
        """The kernels' tree bundle ``T`` (see :func:`pokerbot.solver.kernels.traverse`)."""
        t = self.tree
        return (t.kind, t.player, t.first_child, t.num_children, t.slot, t.board, t.amount, t.sd_row,
                t.chance_weight, t.leaf_index, self.leaf_slot, self.leaf_nk)


def leaf_layout(tree: PublicTree, evaluator: LeafEvaluator | None = None) -> LeafLayout:
    """The :class:`LeafLayout` of ``tree`` with ``evaluator`` (cached per evaluator on the tree).

    Raises :class:`SolverError` if the tree has continuation leaves and no evaluator
    is given, or an evaluator's ``num_choices`` is not at least 1 per player.
    """
    cache = tree.derived.setdefault("layout_cache", {})
    key = id(evaluator)
    hit = cache.get(key)
    if hit is not None and hit.evaluator is evaluator:
        return hit
    cont = tree.continuation_leaves
    if len(cont) and evaluator is None:
        raise SolverError(
            f"the tree has {len(cont)} continuation leaves (depth limit) and needs a LeafEvaluator for their values"
        )
    choices = check_choices(evaluator.num_choices) if evaluator is not None else (1, 1)
    nl = tree.num_leaves
    nk = np.ones((nl, 2), dtype=np.int64)
    nk[cont] = choices
    slot = np.zeros((nl, 2), dtype=np.int64)
    off = tree.num_slots
    for p in range(2):
        for li in range(nl):
            slot[li, p] = off
            off += int(nk[li, p]) * tree.num_hands[p]
    blocks = []
    for p in range(2):
        dec = tree.decision_nodes[p]
        offsets = np.concatenate([tree.slot[dec], slot[:, p]]).astype(np.int64)
        sizes = np.concatenate([tree.num_children[dec].astype(np.int64), nk[:, p]]).astype(np.int64)
        blocks.append((offsets, sizes))
    layout = LeafLayout(
        tree=tree, evaluator=evaluator, leaf_slot=slot, leaf_nk=nk, num_slots=off,
        blocks=(blocks[0], blocks[1]),
        max_choices=(int(nk[:, 0].max(initial=1)), int(nk[:, 1].max(initial=1))),
    )
    cache[key] = layout
    return layout
