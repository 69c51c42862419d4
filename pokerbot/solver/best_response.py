"""Exact best responses, exploitability and expected values on a public tree.

Everything works on *strategy arrays* (see :mod:`pokerbot.solver.kernels`): one
array over the tree's slots holding both players' behaviour strategies. For a
policy dict keyed by infoset keys use :func:`policy_to_strategy` first, or the
one-call helpers in :mod:`pokerbot.solver` (``policy_exploitability``,
``policy_value``).

Values are chips for the given seat, averaged over the deal (or over the root
ranges of a subgame); exploitability is ``(BR0 + BR1) / 2`` in mbb/g, i.e.
``1000 * chips / game.big_blind``.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver.tree import build_tree
>>> tree = build_tree(load_game("leduc"))
>>> round(exploitability(tree, uniform_strategy(tree)), 1)
2373.6
"""

from __future__ import annotations

import numpy as np

from pokerbot.solver import kernels as K
from pokerbot.solver import passes, payoffs
from pokerbot.solver.leaves import LeafEvaluator, LeafLayout, leaf_layout
from pokerbot.solver.tree import PublicTree, SolverError


def uniform_strategy(tree: PublicTree, leaves: LeafEvaluator | None = None) -> np.ndarray:
    """The strategy array that plays every menu action (and every leaf option) with equal probability."""
    layout = leaf_layout(tree, leaves)
    out = np.empty(layout.num_slots)
    for p in range(2):
        normalize_blocks(layout, p, np.zeros(layout.num_slots), out)
    return out


def normalize_blocks(layout: LeafLayout, p: int, ssum: np.ndarray, out: np.ndarray) -> None:
    """Player ``p``'s average strategy (decisions and leaf choices) from strategy sums, into ``out``."""
    off, size = layout.blocks[p]
    K.normalize(np.arange(off.shape[0]), size, off, layout.tree.num_hands[p], ssum, out)


def root_ranges(tree: PublicTree, ranges: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Root reach vectors: ``ranges`` (default all ones) with hands blocked by the root board zeroed."""
    out = []
    b = tree.root_board
    for p in range(2):
        if ranges is None:
            r = np.ones(tree.num_hands[p])
        else:
            r = np.asarray(ranges[p], dtype=np.float64)
            if r.shape != (tree.num_hands[p],):
                raise SolverError(f"range of player {p} has shape {r.shape}, the tree has {tree.num_hands[p]} hands")
            if np.any(r < 0) or not np.all(np.isfinite(r)):
                raise SolverError(f"range of player {p} has negative or non-finite weights")
        out.append(np.ascontiguousarray(r * tree.valid[p][b]))
    return out[0], out[1]


def _perspective(tree: PublicTree, trav: int, dtype: type | np.dtype = np.float64) -> tuple:
    """The kernels' hand bundle ``P`` from ``trav``'s side for passes in ``dtype`` (cached on the tree)."""
    cache = tree.derived.setdefault("perspectives", {})
    key = (int(trav), np.dtype(dtype).char)
    hit = cache.get(key)
    if hit is None:
        o = 1 - trav
        cards_t, card_hands, same = tree.fold_tables[trav]
        order, gidx, cl = tree.sd_tables[trav]
        hit = cache[key] = (
            cards_t, card_hands, same, tree.valid[trav].astype(dtype), tree.valid[o].astype(dtype), order, gidx, cl,
            tree.iso_first, tree.iso_count, tree.iso_board, tree.iso_g, tree.iso_perm[trav].astype(np.uint32))
    return hit


_EMPTY = np.zeros(0)
_NO_LEAVES = np.zeros((0, 1, 1))
_EVAL_OPTS = (1.0, 1.0, 1.0, False)


def _work(tree: PublicTree, trav: int, max_choices: int = 1) -> tuple:
    """Work buffers ``W`` of the traversal kernel for ``trav`` (cached on the tree)."""
    return passes.work(tree, trav, max_choices)


def leaf_values_for(layout: LeafLayout, trav: int, r: tuple[np.ndarray, np.ndarray], strat: np.ndarray,
                    root: int = 0) -> np.ndarray:
    """``LV`` for a pass of ``trav`` below ``root``: the opponent's reach at every leaf (split by its
    leaf choice under ``strat``, any strategy source of :func:`~pokerbot.solver.kernels.node_strategy`)
    through the leaf evaluator (and the equity tables)."""
    tree = layout.tree
    if tree.num_leaves == 0:
        return _NO_LEAVES
    o = 1 - trav
    reach = np.zeros((tree.num_leaves, layout.max_choices[o], tree.num_hands[o]))
    K.reach_at_leaves(o, root, r[o], layout.bundle, tree.valid[o], strat, reach)
    return layout.leaf_values(trav, reach)


def _run(
    tree: PublicTree, trav: int, r: tuple[np.ndarray, np.ndarray], mode: int, strat: np.ndarray,
    layout: LeafLayout, br_out: np.ndarray = _EMPTY, root: int = 0,
) -> np.ndarray:
    lv = leaf_values_for(layout, trav, r, strat, root)
    dt = passes.pass_dtype(strat)
    none = np.zeros(0, dtype=dt)
    out = passes.run_pass(tree, layout.bundle, _perspective(tree, trav, dt), trav, root, r[trav], r[1 - trav], mode, strat,
                          none, none, _EVAL_OPTS, lv, br_out, layout.max_choices[trav])
    return out.copy()


def counterfactual_values(
    tree: PublicTree, strat: np.ndarray, trav: int, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    best_response: bool = False, leaves: LeafEvaluator | None = None,
) -> np.ndarray:
    """Root counterfactual values of ``trav``'s hands (under ``strat``, or best-responding to it).

    In a depth-limited tree ``leaves`` values the continuation leaves and the best
    response includes ``trav``'s leaf choice.
    """
    r = root_ranges(tree, ranges)
    mode = K.MODE_BR if best_response else K.MODE_EVAL
    layout = _check(tree, strat, leaves)
    return _run(tree, trav, r, mode, strat, layout)


def best_response_strategy(
    tree: PublicTree, strat: np.ndarray, player: int, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    leaves: LeafEvaluator | None = None,
) -> np.ndarray:
    """``strat`` with ``player``'s part replaced by a pure best response to the other player's part.

    Hands at nodes where every action has the same value (e.g. nodes the opponent
    never reaches) keep ``strat``'s probabilities.
    """
    layout = _check(tree, strat, leaves)
    out = np.array(strat, dtype=np.float64)
    _run(tree, player, root_ranges(tree, ranges), K.MODE_BR, strat, layout, out)
    return out


def _norm(tree: PublicTree, r: tuple[np.ndarray, np.ndarray]) -> float:
    """Total weight of compatible (hand0, hand1) pairs at the root."""
    compat = payoffs.fold_values(r[1], tree.hands[0], tree.hands[1], tree.same[0], 1.0)
    total = float(np.dot(r[0], compat))
    if total <= 0.0:
        raise SolverError("the root ranges have no compatible pair of hands")
    return total


def best_response_values(
    tree: PublicTree, strat: np.ndarray, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    leaves: LeafEvaluator | None = None,
) -> tuple[float, float]:
    """(BR0, BR1): chips won per hand by each seat best-responding to the other's part of ``strat``
    (in a depth-limited tree, leaf choices included)."""
    layout = _check(tree, strat, leaves)
    r = root_ranges(tree, ranges)
    norm = _norm(tree, r)
    out = []
    for p in range(2):
        v = _run(tree, p, r, K.MODE_BR, strat, layout)
        out.append(float(np.dot(r[p], v)) / norm)
    return out[0], out[1]


def expected_value(
    tree: PublicTree, strat: np.ndarray, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    leaves: LeafEvaluator | None = None,
) -> float:
    """Chips per hand won by player 0 when both play ``strat``."""
    layout = _check(tree, strat, leaves)
    r = root_ranges(tree, ranges)
    v = _run(tree, 0, r, K.MODE_EVAL, strat, layout)
    return float(np.dot(r[0], v)) / _norm(tree, r)


def nash_conv(
    tree: PublicTree, strat: np.ndarray, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    leaves: LeafEvaluator | None = None,
) -> float:
    """BR0 + BR1 in chips (zero at a Nash equilibrium)."""
    b0, b1 = best_response_values(tree, strat, ranges, leaves)
    return b0 + b1


def exploitability(
    tree: PublicTree, strat: np.ndarray, ranges: tuple[np.ndarray, np.ndarray] | None = None,
    leaves: LeafEvaluator | None = None,
) -> float:
    """(BR0 + BR1) / 2 in mbb/g: ``1000 * chips / big blind`` (inside the depth-limited game if ``leaves``)."""
    return 1000.0 * nash_conv(tree, strat, ranges, leaves) / 2.0 / tree.game.big_blind


def _check(tree: PublicTree, strat: np.ndarray, leaves: LeafEvaluator | None = None) -> LeafLayout:
    layout = leaf_layout(tree, leaves)
    if (not isinstance(strat, np.ndarray) or strat.shape != (layout.num_slots,)
            or strat.dtype not in (np.float64, np.float32, np.uint16)):
        raise SolverError(f"a strategy array for this tree is float64 (or float32, or the uint16 sums of compressed "
                          f"storage) of shape ({layout.num_slots},)")
    return layout
