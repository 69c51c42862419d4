"""Numba kernels over a flat public tree: terminal values, CFR traversals, best responses.

Nothing here knows poker. A tree is the arrays of :class:`~pokerbot.solver.tree.PublicTree`
(node kind, actor, children, strategy slots, board ids, terminal stakes, chance
weights) plus, per player, hand cards (only used for card removal), a validity
matrix per board, and hands sorted by strength per showdown board.

Vectors are indexed by the hands of the *traverser* (``t_*``) or of the
*opponent* (``o_*``); a strategy-sized array holds, for decision node ``n`` of
player ``p``, ``num_children[n]`` consecutive blocks of ``H_p`` probabilities
starting at ``slot[n]``.

Modes of :func:`traverse`: ``MODE_CFR`` (update regrets and average-strategy
sums of the traverser), ``MODE_BR`` (best response of the traverser: max over
actions per hand), ``MODE_EVAL`` (values of the traverser under ``strat``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DECISION = 0
CHANCE = 1
FOLD_NODE = 2
SHOWDOWN = 3

MODE_CFR = 0
MODE_BR = 1
MODE_EVAL = 2


@njit(cache=True, fastmath=True)
def fold_into(out, reach_o, t_cards, o_cards, t_same, stake, card_sum):
    """``out[i] = stake`` x total opponent reach over hands sharing no card with hand ``i``."""
    nt = t_cards.shape[0]
    no = o_cards.shape[0]
    k = t_cards.shape[1]
    card_sum[:] = 0.0
    total = 0.0
    if k == 2:
        for j in range(no):
            r = reach_o[j]
            total += r
            card_sum[o_cards[j, 0]] += r
            card_sum[o_cards[j, 1]] += r
        for i in range(nt):
            v = total - card_sum[t_cards[i, 0]] - card_sum[t_cards[i, 1]]
            s = t_same[i]
            if s >= 0:
                v += reach_o[s]
            out[i] = stake * v
        return
    for j in range(no):
        r = reach_o[j]
        total += r
        for c in range(k):
            card_sum[o_cards[j, c]] += r
    for i in range(nt):
        v = total
        for c in range(k):
            v -= card_sum[t_cards[i, c]]
        out[i] = stake * v


@njit(cache=True, fastmath=True)
def showdown_into(out, reach_o, t_cards, o_cards, t_order, t_str, o_order, o_str, stake, card_sum):
    """``out[i] = stake`` x (opponent reach hand ``i`` beats - reach it loses to), with card removal.

    Linear in the number of hands: both lists come pre-sorted by strength on
    this board: ``*_order`` (hand indices), ``*_str`` (their strengths,
    ascending) and ``*_cards`` (their cards, in the same sorted order).
    Handles one or two cards per hand (with a single card, the only opponent
    hand sharing it is the same card, which ties and so never counts).
    """
    nt = t_order.shape[0]
    no = o_order.shape[0]
    two = t_cards.shape[1] == 2
    card_sum[:] = 0.0
    total = 0.0
    j = 0
    for i in range(nt):
        s = t_str[i]
        while j < no and o_str[j] < s:
            r = reach_o[o_order[j]]
            total += r
            card_sum[o_cards[j, 0]] += r
            if two:
                card_sum[o_cards[j, 1]] += r
            j += 1
        v = total - card_sum[t_cards[i, 0]]
        if two:
            v -= card_sum[t_cards[i, 1]]
        out[t_order[i]] = v
    card_sum[:] = 0.0
    total = 0.0
    j = no - 1
    for i in range(nt - 1, -1, -1):
        s = t_str[i]
        while j >= 0 and o_str[j] > s:
            r = reach_o[o_order[j]]
            total += r
            card_sum[o_cards[j, 0]] += r
            if two:
                card_sum[o_cards[j, 1]] += r
            j -= 1
        v = total - card_sum[t_cards[i, 0]]
        if two:
            v -= card_sum[t_cards[i, 1]]
        h = t_order[i]
        out[h] = stake * (out[h] - v)


@njit(cache=True)
def fold_values(reach_o, t_cards, o_cards, t_same, stake):
    """Allocating form of :func:`fold_into`."""
    out = np.empty(t_cards.shape[0])
    fold_into(out, reach_o, t_cards, o_cards, t_same, stake, np.zeros(52))
    return out


@njit(cache=True)
def showdown_values(reach_o, t_cards, o_cards, t_order, t_str, o_order, o_str, stake):
    """Allocating form of :func:`showdown_into` (``*_cards`` in sorted order too)."""
    out = np.empty(t_order.shape[0])
    showdown_into(out, reach_o, t_cards, o_cards, t_order, t_str, o_order, o_str, stake, np.zeros(52))
    return out


@njit(cache=True)
def tree_depth(first_child, num_children):
    """Largest number of edges from the root to a leaf."""
    n = first_child.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    best = 0
    for i in range(n):  # children always come after their parent
        nc = num_children[i]
        f = first_child[i]
        for c in range(nc):
            depth[f + c] = depth[i] + 1
            if depth[i] + 1 > best:
                best = depth[i] + 1
    return best


@njit(cache=True, fastmath=True)
def traverse(
    trav, reach_t, reach_o, mode,
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
    t_cards, o_cards, t_same, t_valid, o_valid, t_order, t_str, o_order, o_str, t_sdc, o_sdc,
    regret, ssum, strat, dpos, dneg, sdisc, clip, match_inline,
    RT, RO, OUT, VALS, NODE, CHILD, CS,
):
    """Counterfactual values (per traverser hand) at the root; see the module docstring.

    A depth-first walk with an explicit stack; ``RT``/``RO``/``OUT`` (depth+1, H)
    and ``VALS`` (depth+1, max actions, H_t) are per-depth work buffers,
    ``NODE``/``CHILD`` the stack, ``CS`` a 52-float buffer. Returns ``OUT[0]``.
    With ``match_inline`` (MODE_CFR, alternating updates) each traverser node's
    current strategy is recomputed from its new regrets as soon as it is updated.
    """
    nt = reach_t.shape[0]
    no = reach_o.shape[0]
    for h in range(nt):
        RT[0, h] = reach_t[h]
    for h in range(no):
        RO[0, h] = reach_o[h]
    NODE[0] = 0
    CHILD[0] = -1
    d = 0
    while d >= 0:
        n = NODE[d]
        kd = kind[n]
        c = CHILD[d]
        if c == -1:
            if kd == FOLD_NODE:
                stake = amount[n] if player[n] != trav else -amount[n]
                fold_into(OUT[d], RO[d], t_cards, o_cards, t_same, stake, CS)
                d -= 1
                continue
            if kd == SHOWDOWN:
                row = sd_row[n]
                showdown_into(
                    OUT[d], RO[d], t_sdc[row], o_sdc[row], t_order[row], t_str[row], o_order[row], o_str[row], amount[n], CS
                )
                d -= 1
                continue
            for h in range(nt):
                OUT[d, h] = 0.0
            c = 0
        else:
            # The child c has just returned its values in OUT[d + 1].
            if kd == CHANCE:
                tv = t_valid[board[first_child[n] + c]]
                for h in range(nt):
                    OUT[d, h] += OUT[d + 1, h] * tv[h]
            elif player[n] == trav:
                for h in range(nt):
                    VALS[d, c, h] = OUT[d + 1, h]
            else:
                for h in range(nt):
                    OUT[d, h] += OUT[d + 1, h]
            c += 1
        nc = num_children[n]
        first = first_child[n]
        # Find the next child to visit and set up its reach.
        while c < nc:
            child = first + c
            if kd == CHANCE:
                b = board[child]
                ov = o_valid[b]
                any_o = False
                for h in range(no):
                    x = RO[d, h] * ov[h]
                    RO[d + 1, h] = x
                    if x != 0.0:
                        any_o = True
                if any_o or mode == MODE_CFR:
                    tv = t_valid[b]
                    for h in range(nt):
                        RT[d + 1, h] = RT[d, h] * tv[h]
                    break
            elif player[n] == trav:
                base = slot[n] + c * nt
                for h in range(nt):
                    RT[d + 1, h] = RT[d, h] * strat[base + h]
                for h in range(no):
                    RO[d + 1, h] = RO[d, h]
                break
            else:
                base = slot[n] + c * no
                any_o = False
                for h in range(no):
                    x = RO[d, h] * strat[base + h]
                    RO[d + 1, h] = x
                    if x != 0.0:
                        any_o = True
                if any_o or mode == MODE_CFR:
                    for h in range(nt):
                        RT[d + 1, h] = RT[d, h]
                    break
            c += 1
        CHILD[d] = c
        if c < nc:
            NODE[d + 1] = first + c
            CHILD[d + 1] = -1
            d += 1
            continue
        # Every child is done: finish the node.
        if kd == CHANCE:
            w = chance_weight[n]
            for h in range(nt):
                OUT[d, h] *= w
        elif player[n] == trav:
            off = slot[n]
            if mode == MODE_BR:
                for h in range(nt):
                    best = VALS[d, 0, h]
                    for a in range(1, nc):
                        if VALS[d, a, h] > best:
                            best = VALS[d, a, h]
                    OUT[d, h] = best
            else:
                for a in range(nc):
                    base = off + a * nt
                    for h in range(nt):
                        OUT[d, h] += strat[base + h] * VALS[d, a, h]
                if mode == MODE_CFR:
                    for a in range(nc):
                        base = off + a * nt
                        for h in range(nt):
                            i = base + h
                            r = regret[i]
                            if r > 0.0:
                                r *= dpos
                            else:
                                r *= dneg
                            r += VALS[d, a, h] - OUT[d, h]
                            if clip and r < 0.0:
                                r = 0.0
                            regret[i] = r
                            ssum[i] = ssum[i] * sdisc + RT[d, h] * strat[i]
                    if match_inline:
                        # Regret matching right away (alternating updates: nothing reads it this pass).
                        tot = VALS[d, 0]
                        for h in range(nt):
                            tot[h] = 0.0
                        for a in range(nc):
                            base = off + a * nt
                            for h in range(nt):
                                r = regret[base + h]
                                if r > 0.0:
                                    tot[h] += r
                        for a in range(nc):
                            base = off + a * nt
                            for h in range(nt):
                                r = regret[base + h]
                                if tot[h] > 0.0:
                                    strat[base + h] = r / tot[h] if r > 0.0 else 0.0
                                else:
                                    strat[base + h] = 1.0 / nc
        d -= 1
    return OUT[0]


@njit(cache=True, fastmath=True)
def regret_match(nodes, num_children, slot, nh, regret, strat):
    """Current strategy of every node in ``nodes`` (one player, ``nh`` hands) from its regrets."""
    for n in nodes:
        nc = num_children[n]
        off = slot[n]
        for h in range(nh):
            total = 0.0
            for a in range(nc):
                r = regret[off + a * nh + h]
                if r > 0.0:
                    total += r
            if total > 0.0:
                for a in range(nc):
                    r = regret[off + a * nh + h]
                    strat[off + a * nh + h] = r / total if r > 0.0 else 0.0
            else:
                u = 1.0 / nc
                for a in range(nc):
                    strat[off + a * nh + h] = u


@njit(cache=True)
def normalize(nodes, num_children, slot, nh, ssum, out):
    """Average strategy of every node in ``nodes`` from strategy sums (uniform where all are zero)."""
    for n in nodes:
        nc = num_children[n]
        off = slot[n]
        for h in range(nh):
            total = 0.0
            for a in range(nc):
                total += ssum[off + a * nh + h]
            if total > 0.0:
                for a in range(nc):
                    out[off + a * nh + h] = ssum[off + a * nh + h] / total
            else:
                u = 1.0 / nc
                for a in range(nc):
                    out[off + a * nh + h] = u


ALG_CFR = 0
ALG_CFR_PLUS = 1
ALG_LCFR = 2
ALG_DCFR = 3


@njit(cache=True)
def iteration_factors(t, alg, alpha, beta, gamma):
    """(d_pos, d_neg, d_avg, clip) of iteration ``t`` (1-based); see :mod:`pokerbot.solver.cfr`."""
    s = t - 1.0
    if alg == ALG_LCFR:
        dpos = s / t
        dneg = dpos
    elif alg == ALG_DCFR:
        pa = s**alpha
        pb = s**beta
        dpos = pa / (pa + 1.0)
        dneg = pb / (pb + 1.0)
    else:
        dpos = 1.0
        dneg = 1.0
    davg = (s / t) ** gamma if gamma > 0.0 else 1.0
    return dpos, dneg, davg, alg == ALG_CFR_PLUS


@njit(cache=True)
def run_iterations(
    t_start, count, alg, alpha, beta, gamma, alternating,
    reach0, reach1,
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
    cards0, cards1, same0, same1, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
    dec0, dec1, regret, ssum, strat,
    RT0, RO0, OUT0, VALS0, RT1, RO1, OUT1, VALS1, NODE, CHILD, CS,
):
    """Iterations ``t_start + 1 .. t_start + count`` of a CFR-family algorithm, in place."""
    nh0 = reach0.shape[0]
    nh1 = reach1.shape[0]
    for it in range(count):
        t = t_start + it + 1
        dpos, dneg, davg, clip = iteration_factors(float(t), alg, alpha, beta, gamma)
        traverse(
            0, reach0, reach1, MODE_CFR,
            kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
            cards0, cards1, same0, valid0, valid1, order0, str0, order1, str1, sdc0, sdc1,
            regret, ssum, strat, dpos, dneg, davg, clip, alternating,
            RT0, RO0, OUT0, VALS0, NODE, CHILD, CS,
        )
        traverse(
            1, reach1, reach0, MODE_CFR,
            kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight,
            cards1, cards0, same1, valid1, valid0, order1, str1, order0, str0, sdc1, sdc0,
            regret, ssum, strat, dpos, dneg, davg, clip, alternating,
            RT1, RO1, OUT1, VALS1, NODE, CHILD, CS,
        )
        if not alternating:
            regret_match(dec0, num_children, slot, nh0, regret, strat)
            regret_match(dec1, num_children, slot, nh1, regret, strat)
