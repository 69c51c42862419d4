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

The kernels take their arrays in bundles (tuples of arrays, as the kernels of
:mod:`pokerbot.solver.kernels` do), each built once by its owner and passed
unchanged on every call, so each kernel compiles for one set of types. ``n`` is
the number of public nodes, ``H_p`` player ``p``'s number of hands, ``k`` the
cards per hand; all float arrays are float64.

* ``T`` the tree (:func:`tree_bundle`, one per game): ``(kind, player, first_child,
  num_children, slot, board, amount, sd_row, chance_weight)``, the (n,) node arrays of the
  :class:`~pokerbot.solver.tree.PublicTree`: ``kind``/``player`` int8, ``first_child``/
  ``num_children``/``board``/``sd_row`` int32, ``slot`` int64 (offset of the node's
  ``num_children x H_player`` block in strategy-sized arrays), ``amount`` (terminal stake)
  and ``chance_weight``;
* ``C`` the card compatibility (:func:`card_bundle`, one per game): ``(valid0, valid1,
  compat)``: ``valid_p`` (boards, H_p) 1.0 where player ``p``'s hand misses the board,
  ``compat`` (H0, H1) 1.0 where the two players' hands share no card;
* ``P`` the payoff tables (:func:`payoff_bundle`, one per game), what the terminal kernels of
  :mod:`pokerbot.solver.payoffs` read: ``(cards0, cards1, same0, same1, order0, str0, order1,
  str1, sdc0, sdc1)``: per player ``p`` the hands ``cards_p`` (H_p, k) int32, ``same_p`` (H_p,)
  int32 the identical hand of the other player (-1 if none), and the showdown tables
  ``order_p``/``str_p`` (showdown boards, H_p) int32 (hands sorted by strength, their
  strengths) and ``sdc_p`` (showdown boards, H_p, k) int32 (their cards);
* ``S`` the strategy state (:func:`strategy_arrays`): ``(strat, regret, ssum)``, the current
  strategy, the regrets+ and the weighted strategy sums, each strategy-sized;
* ``W`` the work arrays of a pass (:func:`work_arrays`): ``(R0, R1, V0, V1, CS)``, both
  players' reaches ``R_p`` and counterfactual values ``V_p`` at every node (n, H_p) and
  ``CS`` (52,) the terminal kernels' scratch;
* ``A`` the reaches that weight the strategy sums: ``(A0, A1)``, (n, H_p) each (a search's
  own ``(R0, R1)``; a subgame solve's reaches from a root of ones);
* ``X`` a search's expansion statistics: ``(Vsum0, Vsum1, visits, prior)``, the sums over
  iterations of both players' values (n, H_p) and, strategy-sized, the visit counts and
  the prior policy of every action;
* ``G`` a search's root: ``(root, gadget_own, alpha, root_r0, root_r1, opp_prev_range,
  opp_values, valid_opp, gadget_regret, follow, opp_sum)``: the root node, the player the
  re-solving gadget protects (-1: no gadget, the gadget arrays are then unused
  placeholders), its mixing ``alpha``, both players' root ranges (H_p,), and the gadget's
  opponent arrays (H_o,) (previous range, Terminate values, validity on the root board,
  Follow probabilities and the sum of its root ranges) and Follow/Terminate regrets
  (2, H_o) (see :func:`gadget_root_reach`);
* ``dec`` the expanded decision nodes of each player: ``(dec0, dec1)``, int64 node ids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerbot.solver.kernels import CHANCE, DECISION, FOLD_NODE, SHOWDOWN, regret_match
from pokerbot.solver.payoffs import fold_into, showdown_into
from pokerbot.solver.tree import PublicTree

__all__ = ["CHANCE", "DECISION", "FOLD_NODE", "SHOWDOWN", "reach_pass", "value_pass", "solve_subtree", "regret_match",
           "simulate_walk", "tree_bundle", "card_bundle", "payoff_bundle", "strategy_arrays", "work_arrays"]


def tree_bundle(tree: PublicTree) -> tuple:
    """The tree bundle ``T`` of ``tree`` (see the module docstring)."""
    t = tree
    return (t.kind, t.player, t.first_child, t.num_children, t.slot, t.board, t.amount, t.sd_row, t.chance_weight)


def card_bundle(tree: PublicTree, compat: np.ndarray) -> tuple:
    """The card bundle ``C`` of ``tree`` with the hand compatibility ``compat`` (H0, H1)."""
    return (tree.valid[0], tree.valid[1], np.ascontiguousarray(compat, np.float64))


def payoff_bundle(tree: PublicTree) -> tuple:
    """The payoff bundle ``P`` of ``tree``."""
    t = tree
    return (t.hands[0], t.hands[1], t.same[0], t.same[1], t.sd_order[0], t.sd_strength[0], t.sd_order[1],
            t.sd_strength[1], t.sd_cards[0], t.sd_cards[1])


def strategy_arrays(num_slots: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A fresh strategy bundle ``S = (strat, regret, ssum)``, all zeros."""
    return np.zeros(num_slots), np.zeros(num_slots), np.zeros(num_slots)


def work_arrays(num_nodes: int, num_hands: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """A fresh work bundle ``W = (R0, R1, V0, V1, CS)``, all zeros."""
    h0, h1 = num_hands
    return (np.zeros((num_nodes, h0)), np.zeros((num_nodes, h1)), np.zeros((num_nodes, h0)),
            np.zeros((num_nodes, h1)), np.zeros(52))


@njit(cache=True)
def reach_pass(nodes, expanded, T, C, strat, R0, R1):
    """Reach of both players at every in-tree node from the reach at ``nodes[0]`` (set by the caller),
    under the strategy ``strat`` (``R0``/``R1``: (n, H_p), the caller's ``W`` reaches or others)."""
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
    valid0, valid1, compat = C
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
def value_pass(nodes, expanded, T, C, P, S, weight, update, W, A):
    """Values ``W``'s ``V0``/``V1`` of both players bottom-up from the reaches ``W``'s ``R0``/``R1``;
    leaves (in-tree, unexpanded decisions) must hold values already.

    With ``update``, every expanded decision node gets its actor's regret-matching+
    update (simultaneous: both players against the same current strategy) and its
    strategy sum gains ``weight`` x reach ``A`` x strategy. The current strategy is not
    recomputed here (call :func:`regret_match` after).
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
    valid0, valid1, compat = C
    cards0, cards1, same0, same1, order0, str0, order1, str1, sdc0, sdc1 = P
    strat, regret, ssum = S
    R0, R1, V0, V1, CS = W
    A0, A1 = A
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
def normalize_into(nodes, T, nh0, nh1, ssum, out):
    """Average strategy (``ssum`` normalised; uniform where it is all zero) at the decision ``nodes``."""
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
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
def solve_subtree(nodes, expanded, dec, iterations, T, C, P, S, W, A):
    """CFR+ (simultaneous, linear averaging) on a fully expanded subtree with fixed root reaches.

    ``W``'s ``R0[nodes[0]]`` / ``R1[nodes[0]]`` hold the root reaches; ``dec`` the decision
    nodes of the subtree. Leaves the values of the *average* strategy in ``V0`` / ``V1``
    (so ``V*[nodes[0]]`` are the root counterfactual values of a near-equilibrium of the
    subgame with those beliefs) and the average strategy in ``S``'s ``strat``. ``A`` is work
    (reaches from a root of ones, used for averaging).
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
    strat, regret, ssum = S
    R0, R1, V0, V1, CS = W
    A0, A1 = A
    dec0, dec1 = dec
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
        reach_pass(nodes, expanded, T, C, strat, R0, R1)
        reach_pass(nodes, expanded, T, C, strat, A0, A1)
        value_pass(nodes, expanded, T, C, P, S, float(t), True, W, A)
        regret_match(dec0, num_children, slot, nh0, regret, strat)
        regret_match(dec1, num_children, slot, nh1, regret, strat)
    normalize_into(dec0, T, nh0, nh1, ssum, strat)
    normalize_into(dec1, T, nh0, nh1, ssum, strat)
    reach_pass(nodes, expanded, T, C, strat, R0, R1)
    value_pass(nodes, expanded, T, C, P, S, 0.0, False, W, A)


@njit(cache=True)
def _draw(weights, u):
    """Index drawn with probability proportional to ``weights`` from the uniform ``u`` (uniform if all zero)."""
    n = weights.shape[0]
    s = 0.0
    for i in range(n):
        s += weights[i]
    if s <= 0.0:
        return min(int(u * n), n - 1)
    target = u * s
    acc = 0.0
    last = 0
    for i in range(n):
        if weights[i] > 0.0:
            acc += weights[i]
            last = i
            if target < acc:
                return i
    return last


@njit(cache=True)
def simulate_walk(uniforms, pos, root, i, expanded, T, C, S, W, X, iterations, max_stake, c_puct):
    """One expansion simulation's walk (GT-CFR's expansion phase); returns the node to expand or -1.

    Samples player ``i``'s hand from its root range (``W``'s reaches at ``root``), the opponent's
    from its range times card compatibility, walks down from ``root`` (chance:
    a board consistent with both hands; decisions: ``1/2 PUCT argmax + 1/2``
    the CFR average policy of ``S``) to the first unexpanded decision node (returned) or a
    terminal (-1), and adds a visit to every action taken (``X``). ``iterations`` (float) is the
    number of CFR updates ``X``'s value sums hold. Random draws are ``uniforms[pos:]``;
    returns ``(node, next pos)``. The caller leaves room for one draw per level plus two.
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
    valid0, valid1, compat = C
    strat, regret, ssum = S
    R0, R1, V0, V1, CS = W
    Vsum0, Vsum1, visits, prior = X
    r0 = R0[root]
    r1 = R1[root]
    nh0 = r0.shape[0]
    nh1 = r1.shape[0]
    h0 = 0
    h1 = 0
    if i == 0:
        h0 = _draw(r0, uniforms[pos])
        h1 = _draw(r1 * compat[h0], uniforms[pos + 1])
    else:
        h1 = _draw(r1, uniforms[pos])
        h0 = _draw(r0 * compat[:, h1], uniforms[pos + 1])
    pos += 2
    n = root
    path = np.empty(64, dtype=np.int64)
    depth = 0
    out = -1
    while True:
        k = kind[n]
        if k == FOLD_NODE or k == SHOWDOWN:
            break
        if pos >= uniforms.shape[0]:
            raise ValueError("simulate_walk: the walk needs more uniform draws than the caller left")
        f = first_child[n]
        nc = num_children[n]
        if k == CHANCE:
            ok = np.zeros(nc)
            for c in range(nc):
                b = board[f + c]
                if valid0[b, h0] and valid1[b, h1]:
                    ok[c] = 1.0
            n = f + _draw(ok, uniforms[pos])
            pos += 1
            continue
        if not expanded[n]:
            out = n
            break
        p = player[n]
        h = h0 if p == 0 else h1
        nh = nh0 if p == 0 else nh1
        off = slot[n]
        total_visits = 0.0
        for a in range(nc):
            total_visits += visits[off + a * nh + h]
        best = 0
        best_score = -np.inf
        avg_tot = 0.0
        for a in range(nc):
            ch = f + a
            mass = 0.0
            q = 0.0
            if p == 0:
                for o in range(nh1):
                    mass += R1[ch, o] * compat[h, o]
                if iterations > 0 and mass > 0.0:
                    q = Vsum0[ch, h] / iterations / mass / max_stake
            else:
                for o in range(nh0):
                    mass += R0[ch, o] * compat[o, h]
                if iterations > 0 and mass > 0.0:
                    q = Vsum1[ch, h] / iterations / mass / max_stake
            idx = off + a * nh + h
            score = q + c_puct * prior[idx] * np.sqrt(total_visits + 1.0) / (1.0 + visits[idx])
            if score > best_score:
                best_score = score
                best = a
            avg_tot += ssum[idx]
        select = np.empty(nc)
        for a in range(nc):
            select[a] = 0.5 * (ssum[off + a * nh + h] / avg_tot if avg_tot > 0.0 else 1.0 / nc)
        select[best] += 0.5
        a = _draw(select, uniforms[pos])
        pos += 1
        if depth == path.shape[0]:
            grown = np.empty(2 * depth, dtype=np.int64)
            grown[:depth] = path
            path = grown
        path[depth] = off + a * nh + h
        depth += 1
        n = f + a
    for d in range(depth):
        visits[path[d]] += 1.0
    return out, pos


@njit(cache=True)
def _normalise_into(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    for i in range(x.shape[0]):
        out[i] = x[i] / s if s > 0.0 else x[i]


@njit(cache=True)
def gadget_root_reach(alpha, own_root_range, opp_prev_range, valid_opp, gadget_regret, follow, opp_sum, R_own, R_opp):
    """The gadget's root reaches: ``own`` keeps its range; each opponent hand follows with the
    regret-matching+ probability of its Follow/Terminate regrets (``gadget_regret`` rows), mixed
    ``alpha * F + (1 - alpha) * opp_prev_range`` (both normalised) and added to ``opp_sum``."""
    nh = valid_opp.shape[0]
    for h in range(nh):
        a = gadget_regret[0, h] if gadget_regret[0, h] > 0.0 else 0.0
        b = gadget_regret[1, h] if gadget_regret[1, h] > 0.0 else 0.0
        follow[h] = a / (a + b) if a + b > 0.0 else 0.5
    f = np.empty(nh)
    p = np.empty(nh)
    _normalise_into(follow * valid_opp, f)
    _normalise_into(opp_prev_range * valid_opp, p)
    any_mass = False
    for h in range(nh):
        R_opp[h] = alpha * f[h] + (1.0 - alpha) * p[h]
        if R_opp[h] != 0.0:
            any_mass = True
    if not any_mass:
        _normalise_into(valid_opp.astype(np.float64), R_opp)
    for h in range(nh):
        opp_sum[h] += R_opp[h]
    for h in range(R_own.shape[0]):
        R_own[h] = own_root_range[h]


@njit(cache=True)
def gadget_update(follow, v_follow, v_term, gadget_regret):
    """Regret-matching+ update of each opponent hand's Follow (row 0) / Terminate (row 1) regrets."""
    for h in range(follow.shape[0]):
        u = follow[h] * v_follow[h] + (1.0 - follow[h]) * v_term[h]
        r = gadget_regret[0, h] + v_follow[h] - u
        gadget_regret[0, h] = r if r > 0.0 else 0.0
        r = gadget_regret[1, h] + v_term[h] - u
        gadget_regret[1, h] = r if r > 0.0 else 0.0


@njit(cache=True)
def accumulate_values(nodes, V0, V1, Vsum0, Vsum1):
    """``Vsum += V`` on the in-tree ``nodes`` (the only rows a search ever writes)."""
    for n in nodes:
        for h in range(V0.shape[1]):
            Vsum0[n, h] += V0[n, h]
        for h in range(V1.shape[1]):
            Vsum1[n, h] += V1[n, h]


@njit(cache=True)
def cfr_loop(count, t0, nodes, expanded, dec, G, T, C, P, S, W, X):
    """``count`` GT-CFR regret updates (iterations ``t0 + 1 ..``) on a search tree *without leaves*.

    The same update as ``GTCFR.cfr_iteration`` (root reaches from ``G``, with the gadget when
    its ``gadget_own >= 0``; reaches; values with regret-matching+ and linear
    averaging; value sums in ``X``; gadget regrets), all in one call: once a search has
    grown its whole subtree no value function is queried, and the Python-side
    cost per update would dominate.
    """
    root, gadget_own, alpha, root_r0, root_r1, opp_prev_range, opp_values, valid_opp, gadget_regret, follow, \
        opp_sum = G
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight = T
    strat, regret, ssum = S
    R0, R1, V0, V1, CS = W
    Vsum0, Vsum1, visits, prior = X
    dec0, dec1 = dec
    own_reach = (R0, R1)
    nh0 = R0.shape[1]
    nh1 = R1.shape[1]
    for it in range(count):
        if gadget_own < 0:
            R0[root, :] = root_r0
            R1[root, :] = root_r1
        elif gadget_own == 0:
            gadget_root_reach(alpha, root_r0, opp_prev_range, valid_opp, gadget_regret, follow, opp_sum, R0[root], R1[root])
        else:
            gadget_root_reach(alpha, root_r1, opp_prev_range, valid_opp, gadget_regret, follow, opp_sum, R1[root], R0[root])
        reach_pass(nodes, expanded, T, C, strat, R0, R1)
        value_pass(nodes, expanded, T, C, P, S, float(t0 + it + 1), True, W, own_reach)
        regret_match(dec0, num_children, slot, nh0, regret, strat)
        regret_match(dec1, num_children, slot, nh1, regret, strat)
        accumulate_values(nodes, V0, V1, Vsum0, Vsum1)
        if gadget_own == 0:
            gadget_update(follow, V1[root], opp_values, gadget_regret)
        elif gadget_own == 1:
            gadget_update(follow, V0[root], opp_values, gadget_regret)
