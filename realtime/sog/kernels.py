"""Numba kernels of GT-CFR over a *growing* part of a flat public tree.

The search works on the arrays of a whole :class:`~pokerbot.solver.tree.PublicTree`
(node kinds, actors, children, strategy slots, boards, stakes, chance weights)
and a boolean ``expanded`` mask: a node is *in the tree* when its parent is
expanded (or it is the search root), and an in-tree decision node that is not
expanded is a *leaf* whose counterfactual values come from a value function.
Children always have larger indices than their parent, so a pass over the
sorted in-tree node list visits parents first (reaches, top-down) and the same
list reversed visits children first (values, bottom-up): no recursion, no stack.

Both players update at once (simultaneous updates) with regret-matching+ and
linearly weighted averaging, as GT-CFR prescribes. Values are counterfactual:
``V_p[n, h]`` sums, over opponent hands, the opponent's reach times the chance
probability below ``n`` times player ``p``'s payoff, exactly as in
:mod:`pokerbot.solver.kernels` (whose terminal kernels these reuse).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerbot.solver.kernels import CHANCE, DECISION, FOLD_NODE, SHOWDOWN, fold_into, regret_match, showdown_into

__all__ = ["CHANCE", "DECISION", "FOLD_NODE", "SHOWDOWN", "reach_pass", "value_pass", "solve_subtree", "regret_match"]


@njit(cache=True)
def reach_pass(nodes, expanded, kind, player, first_child, num_children, slot, board, valid0, valid1, strat, R0, R1):
    """Reach of both players at every in-tree node from the reach at ``nodes[0]`` (set by the caller)."""
    nh0 = R0.shape[1]
    nh1 = R1.shape[1]
    for n in nodes:
        if not expanded[n]:
            continue
        f = first_child[n]
        nc = num_children[n]
        k = kind[n]
        if k == CHANCE:
            for c in range(nc):
                ch = f + c
                b = board[ch]
                for h in range(nh0):
                    R0[ch, h] = R0[n, h] * valid0[b, h]
                for h in range(nh1):
                    R1[ch, h] = R1[n, h] * valid1[b, h]
        elif k == DECISION:
            p = player[n]
            for c in range(nc):
                ch = f + c
                if p == 0:
                    base = slot[n] + c * nh0
                    for h in range(nh0):
                        R0[ch, h] = R0[n, h] * strat[base + h]
                    for h in range(nh1):
                        R1[ch, h] = R1[n, h]
                else:
                    base = slot[n] + c * nh1
                    for h in range(nh0):
                        R0[ch, h] = R0[n, h]
                    for h in range(nh1):
                        R1[ch, h] = R1[n, h] * strat[base + h]


@njit(cache=True)
def value_pass(
    nodes, expanded, kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
    cards0, cards1, same0, same1, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
    strat, regret, ssum, weight, update, R0, R1, V0, V1, CS, A0, A1,
):
    """Values of both players bottom-up; leaves (in-tree, unexpanded decisions) must hold values already.

    With ``update``, every expanded decision node gets its actor's regret-matching+
    update (simultaneous: both players against the same current strategy) and its
    strategy sum gains ``weight`` x reach x strategy. The current strategy is not
    recomputed here (call :func:`regret_match` after).
    """
    nh0 = R0.shape[1]
    nh1 = R1.shape[1]
    for i in range(nodes.shape[0] - 1, -1, -1):
        n = nodes[i]
        k = kind[n]
        if k == FOLD_NODE:
            s0 = amount[n] if player[n] != 0 else -amount[n]
            fold_into(V0[n], R1[n], cards0, cards1, same0, s0, CS)
            fold_into(V1[n], R0[n], cards1, cards0, same1, -s0, CS)
            continue
        if k == SHOWDOWN:
            row = sd_row[n]
            showdown_into(V0[n], R1[n], sdc0[row], sdc1[row], order0[row], str0[row], order1[row], str1[row], amount[n], CS)
            showdown_into(V1[n], R0[n], sdc1[row], sdc0[row], order1[row], str1[row], order0[row], str0[row], amount[n], CS)
            continue
        if not expanded[n]:
            continue
        f = first_child[n]
        nc = num_children[n]
        for h in range(nh0):
            V0[n, h] = 0.0
        for h in range(nh1):
            V1[n, h] = 0.0
        if k == CHANCE:
            w = chance_weight[n]
            for c in range(nc):
                ch = f + c
                b = board[ch]
                for h in range(nh0):
                    V0[n, h] += V0[ch, h] * valid0[b, h]
                for h in range(nh1):
                    V1[n, h] += V1[ch, h] * valid1[b, h]
            for h in range(nh0):
                V0[n, h] *= w
            for h in range(nh1):
                V1[n, h] *= w
            continue
        p = player[n]
        nh = nh0 if p == 0 else nh1
        off = slot[n]
        for c in range(nc):
            ch = f + c
            base = off + c * nh
            if p == 0:
                for h in range(nh0):
                    V0[n, h] += strat[base + h] * V0[ch, h]
                for h in range(nh1):
                    V1[n, h] += V1[ch, h]
            else:
                for h in range(nh1):
                    V1[n, h] += strat[base + h] * V1[ch, h]
                for h in range(nh0):
                    V0[n, h] += V0[ch, h]
        if update:
            for c in range(nc):
                ch = f + c
                base = off + c * nh
                for h in range(nh):
                    if p == 0:
                        r = regret[base + h] + V0[ch, h] - V0[n, h]
                        ssum[base + h] += weight * A0[n, h] * strat[base + h]
                    else:
                        r = regret[base + h] + V1[ch, h] - V1[n, h]
                        ssum[base + h] += weight * A1[n, h] * strat[base + h]
                    regret[base + h] = r if r > 0.0 else 0.0


@njit(cache=True)
def normalize_into(nodes, kind, player, num_children, slot, nh0, nh1, ssum, out):
    """Average strategy (``ssum`` normalised; uniform where it is all zero) at the decision ``nodes``."""
    for n in nodes:
        if kind[n] != DECISION:
            continue
        nc = num_children[n]
        nh = nh0 if player[n] == 0 else nh1
        off = slot[n]
        for h in range(nh):
            tot = 0.0
            for a in range(nc):
                tot += ssum[off + a * nh + h]
            for a in range(nc):
                out[off + a * nh + h] = ssum[off + a * nh + h] / tot if tot > 0.0 else 1.0 / nc


@njit(cache=True)
def solve_subtree(
    nodes, expanded, dec0, dec1, iterations,
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
    cards0, cards1, same0, same1, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
    strat, regret, ssum, R0, R1, V0, V1, CS, A0, A1,
):
    """CFR+ (simultaneous, linear averaging) on a fully expanded subtree with fixed root reaches.

    ``R0[nodes[0]]`` / ``R1[nodes[0]]`` hold the root reaches. Leaves the
    values of the *average* strategy in ``V0`` / ``V1`` (so ``V*[nodes[0]]`` are
    the root counterfactual values of a near-equilibrium of the subgame with
    those beliefs) and the average strategy in ``strat``. ``A0`` / ``A1`` are
    work arrays (reaches from a root of ones, used for averaging).
    """
    nh0 = R0.shape[1]
    nh1 = R1.shape[1]
    for n in dec0:
        for a in range(num_children[n]):
            for h in range(nh0):
                strat[slot[n] + a * nh0 + h] = 1.0 / num_children[n]
                regret[slot[n] + a * nh0 + h] = 0.0
                ssum[slot[n] + a * nh0 + h] = 0.0
    for n in dec1:
        for a in range(num_children[n]):
            for h in range(nh1):
                strat[slot[n] + a * nh1 + h] = 1.0 / num_children[n]
                regret[slot[n] + a * nh1 + h] = 0.0
                ssum[slot[n] + a * nh1 + h] = 0.0
    root = nodes[0]
    for h in range(nh0):
        A0[root, h] = 1.0
    for h in range(nh1):
        A1[root, h] = 1.0
    for t in range(1, iterations + 1):
        reach_pass(nodes, expanded, kind, player, first_child, num_children, slot, board, valid0, valid1, strat, R0, R1)
        reach_pass(nodes, expanded, kind, player, first_child, num_children, slot, board, valid0, valid1, strat, A0, A1)
        value_pass(
            nodes, expanded, kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
            cards0, cards1, same0, same1, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
            strat, regret, ssum, float(t), True, R0, R1, V0, V1, CS, A0, A1,
        )
        regret_match(dec0, num_children, slot, nh0, regret, strat)
        regret_match(dec1, num_children, slot, nh1, regret, strat)
    normalize_into(dec0, kind, player, num_children, slot, nh0, nh1, ssum, strat)
    normalize_into(dec1, kind, player, num_children, slot, nh0, nh1, ssum, strat)
    reach_pass(nodes, expanded, kind, player, first_child, num_children, slot, board, valid0, valid1, strat, R0, R1)
    value_pass(
        nodes, expanded, kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
        cards0, cards1, same0, same1, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
        strat, regret, ssum, 0.0, False, R0, R1, V0, V1, CS, A0, A1,
    )
