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

Depth-limited trees add ``LEAF`` nodes. At a leaf each player picks one of its
continuation options per hand (a choice block in the strategy array, like a
decision node's); the traverser's value of each option comes in the ``LV`` array,
computed before the pass from the opponent's reach at every leaf
(:func:`reach_at_leaves`) by a leaf evaluator outside the kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# The node kinds of every flat tree (callers also read them as ``kernels.DECISION`` etc.).
from pokerbot.betting_tree import CHANCE, DECISION, FOLD_NODE, LEAF, SHOWDOWN

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
def _finish_choice(mode, off, nc, nt, vals, out, rt, regret, ssum, strat, opts, br_out):
    """Value of a choice of the traverser (a decision node or a leaf's continuation choice).

    ``vals`` (>= nc, nt) holds the value of each option; ``out`` receives the
    node's value; in MODE_CFR the regrets and strategy sums at ``off`` are updated.
    """
    dpos, dneg, sdisc, clip, match_inline = opts
    if mode == MODE_BR:
        record = br_out.shape[0] > 0
        for h in range(nt):
            best = vals[0, h]
            worst = best
            arg = 0
            for a in range(1, nc):
                if vals[a, h] > best:
                    best = vals[a, h]
                    arg = a
                if vals[a, h] < worst:
                    worst = vals[a, h]
            out[h] = best
            # Record only where the options differ (unreached hands keep br_out's initial values).
            if record and best > worst:
                for a in range(nc):
                    br_out[off + a * nt + h] = 1.0 if a == arg else 0.0
        return
    for h in range(nt):
        out[h] = 0.0
    for a in range(nc):
        base = off + a * nt
        for h in range(nt):
            out[h] += strat[base + h] * vals[a, h]
    if mode != MODE_CFR:
        return
    for a in range(nc):
        base = off + a * nt
        for h in range(nt):
            i = base + h
            r = regret[i]
            if r > 0.0:
                r *= dpos
            else:
                r *= dneg
            r += vals[a, h] - out[h]
            if clip and r < 0.0:
                r = 0.0
            regret[i] = r
            ssum[i] = ssum[i] * sdisc + rt[h] * strat[i]
    if match_inline:
        # Regret matching right away (alternating updates: nothing reads it this pass).
        for h in range(nt):
            tot = 0.0
            for a in range(nc):
                r = regret[off + a * nt + h]
                if r > 0.0:
                    tot += r
            for a in range(nc):
                i = off + a * nt + h
                if tot > 0.0:
                    r = regret[i]
                    strat[i] = r / tot if r > 0.0 else 0.0
                else:
                    strat[i] = 1.0 / nc


@njit(cache=True, fastmath=True)
def traverse(trav, root, reach_t, reach_o, mode, T, P, regret, ssum, strat, opts, LV, br_out, W):
    """Counterfactual values (per traverser hand) at node ``root``; see the module docstring.

    Bundles (tuples of arrays, built by :mod:`pokerbot.solver.best_response`):

    * ``T`` the tree: ``(kind, player, first_child, num_children, slot, board, amount,
      sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk)``; ``leaf_slot[l, p]`` is the
      offset of player ``p``'s ``leaf_nk[l, p] x H_p`` choice block of leaf ``l``;
    * ``P`` the hands from the traverser's side: ``(t_cards, o_cards, t_same, t_valid,
      o_valid, t_order, t_str, o_order, o_str, t_sdc, o_sdc)``;
    * ``opts`` the update: ``(d_pos, d_neg, d_avg, clip, match_inline)``;
    * ``W`` work buffers: ``RT``/``RO``/``OUT`` (depth+1, H), ``VALS`` (depth+1, max
      options, H_t), the stack ``NODE``/``CHILD``, ``CS`` (52 floats).

    ``LV`` (leaves, options, H_t) holds the traverser's value of each of its options at
    each leaf, already summed over the opponent's reach and leaf choice (see
    :func:`reach_at_leaves`). In MODE_BR a non-empty ``br_out`` (strategy-sized) receives
    the best response (one-hot per hand). With ``match_inline`` (MODE_CFR, alternating
    updates) each traverser node's current strategy is recomputed from its new regrets
    as soon as it is updated. Returns ``OUT[0]``.
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk = T
    t_cards, o_cards, t_same, t_valid, o_valid, t_order, t_str, o_order, o_str, t_sdc, o_sdc = P
    RT, RO, OUT, VALS, NODE, CHILD, CS = W
    nt = reach_t.shape[0]
    no = reach_o.shape[0]
    for h in range(nt):
        RT[0, h] = reach_t[h]
    for h in range(no):
        RO[0, h] = reach_o[h]
    NODE[0] = root
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
            if kd == LEAF:
                li = leaf_index[n]
                nk = leaf_nk[li, trav]
                for k in range(nk):
                    for h in range(nt):
                        VALS[d, k, h] = LV[li, k, h]
                _finish_choice(mode, leaf_slot[li, trav], nk, nt, VALS[d], OUT[d], RT[d], regret, ssum, strat, opts, br_out)
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
            _finish_choice(mode, slot[n], nc, nt, VALS[d], OUT[d], RT[d], regret, ssum, strat, opts, br_out)
        d -= 1
    return OUT[0]


@njit(cache=True)
def reach_at_leaves(p, root, reach, T, valid, strat, out):
    """Player ``p``'s reach at every leaf below ``root``, split by its leaf choice.

    ``out[l, k, h]`` = reach of hand ``h`` at leaf ``l`` x probability that ``h``
    picks continuation ``k`` there (``strat`` at ``leaf_slot[l, p]``); zero at
    leaves no hand reaches. The walk skips subtrees ``p`` does not reach.
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk = T
    nh = reach.shape[0]
    out[:] = 0.0
    n_nodes = kind.shape[0]
    # Explicit stack of (node, reach row); children follow their parent in the arrays.
    stack_node = np.empty(n_nodes if n_nodes < 4096 else 4096, dtype=np.int64)
    R = np.empty((stack_node.shape[0], nh))
    stack_node[0] = root
    for h in range(nh):
        R[0, h] = reach[h]
    top = 1
    while top > 0:
        top -= 1
        n = stack_node[top]
        kd = kind[n]
        if kd == LEAF:
            li = leaf_index[n]
            off = leaf_slot[li, p]
            for k in range(leaf_nk[li, p]):
                for h in range(nh):
                    out[li, k, h] = R[top, h] * strat[off + k * nh + h]
            continue
        if kd != DECISION and kd != CHANCE:
            continue
        nc = num_children[n]
        first = first_child[n]
        row = top
        if top + nc > stack_node.shape[0]:
            grow = np.empty((2 * (top + nc), nh))
            grow[:top + 1] = R[:top + 1]
            R = grow
            gn = np.empty(2 * (top + nc), dtype=np.int64)
            gn[:top + 1] = stack_node[:top + 1]
            stack_node = gn
        # Copy the parent's reach out of the slot the children overwrite.
        parent = R[row].copy()
        for c in range(nc - 1, -1, -1):
            child = first + c
            any_r = False
            if kd == CHANCE:
                v = valid[board[child]]
                for h in range(nh):
                    x = parent[h] * v[h]
                    R[top, h] = x
                    if x != 0.0:
                        any_r = True
            elif player[n] == p:
                base = slot[n] + c * nh
                for h in range(nh):
                    x = parent[h] * strat[base + h]
                    R[top, h] = x
                    if x != 0.0:
                        any_r = True
            else:
                for h in range(nh):
                    x = parent[h]
                    R[top, h] = x
                    if x != 0.0:
                        any_r = True
            if any_r:
                stack_node[top] = child
                top += 1


@njit(cache=True, fastmath=True)
def equity_matrix(hands0, hands1, strengths0, strengths1, valid0, valid1, out):
    """``out[i, j]`` += (runouts hand0 ``i`` wins - runouts it loses to hand1 ``j``), hands disjoint.

    ``strengths*`` (runouts, H) are showdown strengths per runout (-1 where the hand
    is blocked by the runout); ``valid*`` the hands missing the board before it.
    """
    nr = strengths0.shape[0]
    n0 = hands0.shape[0]
    n1 = hands1.shape[0]
    k = hands0.shape[1]
    for r in range(nr):
        s0 = strengths0[r]
        s1 = strengths1[r]
        for i in range(n0):
            a = s0[i]
            if a < 0:
                continue
            row = out[i]
            for j in range(n1):
                b = s1[j]
                if b >= 0:
                    if a > b:
                        row[j] += 1.0
                    elif a < b:
                        row[j] -= 1.0
    # Hands sharing a card never meet.
    for i in range(n0):
        for j in range(n1):
            for x in range(k):
                for y in range(k):
                    if hands0[i, x] == hands1[j, y]:
                        out[i, j] = 0.0


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
def run_iterations(t_start, count, alg, alpha, beta, gamma, alternating, reach0, reach1, T, P0, P1, blocks0, blocks1,
                   regret, ssum, strat, W0, W1):
    """Iterations ``t_start + 1 .. t_start + count`` of a CFR-family algorithm, in place (trees without leaves).

    ``P0``/``P1`` are the hand bundles from each player's side, ``blocks*`` ``(offsets,
    sizes)`` of each player's choice blocks (for simultaneous updates), ``W*`` work buffers.
    """
    nh0 = reach0.shape[0]
    nh1 = reach1.shape[0]
    no_leaves = np.zeros((0, 1, 1))
    no_br = np.zeros(0)
    for it in range(count):
        t = t_start + it + 1
        dpos, dneg, davg, clip = iteration_factors(float(t), alg, alpha, beta, gamma)
        opts = (dpos, dneg, davg, clip, alternating)
        traverse(0, 0, reach0, reach1, MODE_CFR, T, P0, regret, ssum, strat, opts, no_leaves, no_br, W0)
        traverse(1, 0, reach1, reach0, MODE_CFR, T, P1, regret, ssum, strat, opts, no_leaves, no_br, W1)
        if not alternating:
            regret_match(np.arange(blocks0[0].shape[0]), blocks0[1], blocks0[0], nh0, regret, strat)
            regret_match(np.arange(blocks1[0].shape[0]), blocks1[1], blocks1[0], nh1, regret, strat)
