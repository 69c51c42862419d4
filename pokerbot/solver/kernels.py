"""Numba kernels over a flat public tree: CFR traversals, best responses, evaluation.

Nothing here knows poker. A tree is the arrays of :class:`~pokerbot.solver.tree.PublicTree`
(node kind, actor, children, strategy slots, board ids, terminal stakes, chance
weights) plus, per player, a validity matrix per board and the arrays the terminal
values need, which reach the kernels only through the two functions of the game's
terminal interface (:mod:`pokerbot.solver.payoffs`: fold and showdown values).

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
from numba import njit, prange

# The node kinds of every flat tree (callers also read them as ``kernels.DECISION`` etc.).
from pokerbot.betting_tree import CHANCE, DECISION, FOLD_NODE, LEAF, SHOWDOWN

# The terminal interface: the kernels' only view of the cards.
from pokerbot.solver.payoffs import fold_tables_into, showdown_sorted_into

MODE_CFR = 0
MODE_BR = 1
MODE_EVAL = 2


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
def node_strategy(src, off, nc, nh, out):
    """Regret matching of the ``nc x nh`` block of ``src`` at ``off`` into ``out[:nc, :nh]``.

    Positive parts normalised per hand, uniform where none is positive. A strategy
    sum or an explicit strategy (non-negative) comes out normalised, so one rule
    reads regrets (the current strategy), strategy sums (the average strategy) and
    strategy arrays alike. ``out`` needs ``nc + 1`` rows (the last holds totals).
    """
    # Typed constants and no load under a condition: the loops vectorise in the array's precision.
    z = out.dtype.type(0.0)
    one = out.dtype.type(1.0)
    tot = out[nc]
    for h in range(nh):
        tot[h] = z
    for a in range(nc):
        base = off + a * nh
        row = out[a]
        for h in range(nh):
            x = out.dtype.type(src[base + h])
            x = x if x > z else z
            row[h] = x
            tot[h] += x
    u = one / out.dtype.type(nc)
    for h in range(nh):
        t = tot[h]
        tot[h] = one / t if t > z else z
    for a in range(nc):
        row = out[a]
        for h in range(nh):
            t = tot[h]
            x = row[h] * t
            row[h] = x if t > z else u


#: The 16-bit codes of compressed storage: regrets as int16 in [-R16, R16], sums as uint16 in [0, S16].
R16 = 32767.0
S16 = 65535.0


@njit(cache=True, fastmath=True)
def _block_max(rows, nc, nt, absolute):
    """The largest entry (``absolute``: magnitude) of ``rows[:nc, :nt]``."""
    dt = rows.dtype.type
    top = dt(0.0)
    for a in range(nc):
        row = rows[a]
        for h in range(nt):
            x = row[h]
            if absolute:
                x = x if x > dt(0.0) else -x
            top = x if x > top else top
    return top


@njit(cache=True, fastmath=True)
def _encode(rows, nc, nt, codes, off, enc):
    """``codes[off + a * nt + h]`` = ``rows[a, h] x enc`` rounded to nearest, in the codes' integer type."""
    for a in range(nc):
        row = rows[a]
        base = off + a * nt
        for h in range(nt):
            codes[base + h] = codes.dtype.type(np.rint(row[h] * enc))


@njit(cache=True, fastmath=True)
def _update_compressed(off, si, nc, nt, vals, sb, rt, regret, ssum, scales, dpos, dneg, sdisc, clip):
    """The CFR update of one block in compressed storage (postflop-solver's scheme): ``regret`` int16 and
    ``ssum`` uint16 codes, each block's largest magnitude in ``scales[0][si]`` / ``scales[1][si]``; the block
    is decoded, updated in the pass's precision (``vals`` holds the regret increments, ``sb`` the current
    strategy; both are overwritten) and encoded again with its new scale, rounding to nearest."""
    rscale, sscale = scales
    dt = vals.dtype.type
    z = dt(0.0)
    # Simple loops (decode and update; the largest entry; encode): each vectorises on its own.
    dec = dt(rscale[si]) / dt(R16)
    for a in range(nc):
        va = vals[a]
        base = off + a * nt
        for h in range(nt):
            r = dt(regret[base + h]) * dec
            r = r * (dpos if r > z else dneg) + va[h]
            va[h] = (r if r > z else z) if clip else r
    top = _block_max(vals, nc, nt, True)
    _encode(vals, nc, nt, regret, off, dt(R16) / top if top > z else z)
    rscale[si] = top
    dec = dt(sscale[si]) / dt(S16) * sdisc
    for a in range(nc):
        sa = sb[a]
        base = off + a * nt
        for h in range(nt):
            sa[h] = dt(ssum[base + h]) * dec + rt[h] * sa[h]
    top = _block_max(sb, nc, nt, False)
    _encode(sb, nc, nt, ssum, off, dt(S16) / top if top > z else z)
    sscale[si] = top


@njit(cache=True, fastmath=True)
def _finish_choice(mode, off, si, nc, nt, vals, sb, out, rt, regret, ssum, scales, opts, br_out):
    """Value of a choice of the traverser (a decision node or a leaf's continuation choice).

    ``vals`` (>= nc, nt) holds the value of each option and ``sb`` the traverser's
    current strategy there; ``out`` receives the node's value; in MODE_CFR the regrets
    and strategy sums at ``off`` are updated (in compressed storage, where ``scales`` are
    not empty, through :func:`_update_compressed` with the block's scale index ``si``).
    """
    dt = out.dtype.type
    z = dt(0.0)
    dpos, dneg, sdisc, clip = dt(opts[0]), dt(opts[1]), dt(opts[2]), opts[3]
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
        out[h] = z
    for a in range(nc):
        va = vals[a]
        sa = sb[a]
        for h in range(nt):
            out[h] += sa[h] * va[h]
    if mode != MODE_CFR:
        return
    # The regret increments v(a) - v, in place of the option values.
    for a in range(nc):
        va = vals[a]
        for h in range(nt):
            va[h] -= out[h]
    if scales[0].shape[0] > 0:
        _update_compressed(off, si, nc, nt, vals, sb, rt, regret, ssum, scales, dpos, dneg, sdisc, clip)
        return
    # Simple loops over few arrays each: LLVM vectorises them (one loop over six arrays it does not).
    for a in range(nc):
        va = vals[a]
        reg = regret[off + a * nt : off + (a + 1) * nt]
        if clip:
            for h in range(nt):
                r = reg[h]
                r = r * (dpos if r > z else dneg) + va[h]
                reg[h] = r if r > z else z
        else:
            for h in range(nt):
                r = reg[h]
                reg[h] = r * (dpos if r > z else dneg) + va[h]
        sa = sb[a]
        ss = ssum[off + a * nt : off + (a + 1) * nt]
        for h in range(nt):
            ss[h] = ss[h] * sdisc + rt[h] * sa[h]


@njit(cache=True, fastmath=True)
def traverse(trav, root, reach_t, reach_o, mode, T, P, src, regret, ssum, scales, opts, LV, br_out, W, FV, fidx):
    """Counterfactual values (per traverser hand) at node ``root``; see the module docstring.

    Bundles (tuples of arrays, built by :mod:`pokerbot.solver.best_response`):

    * ``T`` the tree: ``(kind, player, first_child, num_children, slot, board, amount,
      sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk)``; ``leaf_slot[l, p]`` is the
      offset of player ``p``'s ``leaf_nk[l, p] x H_p`` choice block of leaf ``l``;
    * ``P`` the hands from the traverser's side: ``(t_cards_t, o_card_hands, t_same, t_valid,
      o_valid, sd_order, sd_gidx, sd_cl, iso_first, iso_count, iso_board, iso_g, t_perm)``: the
      tables of the terminal interface (:mod:`pokerbot.solver.payoffs`; ``uint32``), each player's
      hands that miss each board (1/0 in the pass's precision), and the suit isomorphism of chance
      nodes (a child stands for ``iso_count`` more deals, valued as its own values with the hands
      permuted by ``t_perm[iso_g[e]]``);
    * ``scales`` ``(regret scales, sum scales)``: empty for float storage; for compressed storage
      (``regret`` int16, ``ssum`` uint16 codes) one scale per block, decision node ``n`` at ``n`` and
      player ``p``'s choice at leaf ``l`` at ``num_nodes + 2 l + p`` (see :func:`_update_compressed`);
    * ``opts`` the update: ``(d_pos, d_neg, d_avg, clip)``;
    * ``W`` work buffers (:func:`work_buffers`): ``RT``/``RO``/``OUT`` (depth+1, H),
      ``VALS`` (depth+1, max options, H_t), ``SB`` (depth+1, max options + 1, max H),
      the stack ``NODE``/``CHILD`` and the reach rows ``IT``/``IO``, and the terminals' scratch ``CS``
      (52), ``G`` (H_o + 1 + (card rows + 1) x 52) and ``PAD`` (H_o + 1).

    Both players' strategies come from ``src`` by :func:`node_strategy` at every node
    visited: the regrets in MODE_CFR (the current strategy; nothing else is stored), a
    strategy array or the strategy sums (the average strategy, no copy) otherwise.
    ``LV`` (leaves, options, H_t) holds the traverser's value of each of its options at
    each leaf, already summed over the opponent's reach and leaf choice (see
    :func:`reach_at_leaves`). In MODE_BR a non-empty ``br_out`` (strategy-sized) receives
    the best response (one-hot per hand). ``FV``/``fidx``: a node ``n`` below the root
    with ``fidx[n] >= 0`` is not entered; its values are ``FV[fidx[n]]`` (computed
    by :func:`frontier_pass`). Returns ``OUT[0]``.
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk = T
    t_cards_t, o_card_hands, t_same, t_valid, o_valid, sd_order, sd_gidx, sd_cl, iso_first, iso_count, iso_board, \
        iso_g, t_perm = P
    RT, RO, OUT, VALS, SB, NODE, CHILD, IT, IO, CS, G, PAD = W
    dt = OUT.dtype.type
    z = dt(0.0)
    nt = reach_t.shape[0]
    no = reach_o.shape[0]
    for h in range(nt):
        RT[0, h] = reach_t[h]
    for h in range(no):
        RO[0, h] = reach_o[h]
    NODE[0] = root
    CHILD[0] = -1
    IT[0] = 0
    IO[0] = 0
    d = 0
    while d >= 0:
        n = NODE[d]
        kd = kind[n]
        c = CHILD[d]
        out = OUT[d]
        if c == -1:
            if d > 0 and fidx[n] >= 0:
                fv = FV[fidx[n]]
                for h in range(nt):
                    out[h] = fv[h]
                d -= 1
                continue
            if kd == FOLD_NODE:
                stake = amount[n] if player[n] != trav else -amount[n]
                fold_tables_into(out, RO[IO[d]], t_cards_t, o_card_hands, t_same, stake, CS, PAD)
                d -= 1
                continue
            if kd == SHOWDOWN:
                row = sd_row[n]
                showdown_sorted_into(out, RO[IO[d]], sd_order[row], sd_gidx[row], sd_cl[row], amount[n], G, PAD)
                d -= 1
                continue
            if kd == LEAF:
                li = leaf_index[n]
                nk = leaf_nk[li, trav]
                off = leaf_slot[li, trav]
                for k in range(nk):
                    for h in range(nt):
                        VALS[d, k, h] = LV[li, k, h]
                node_strategy(src, off, nk, nt, SB[d])
                _finish_choice(mode, off, kind.shape[0] + 2 * li + trav, nk, nt, VALS[d], SB[d], out, RT[IT[d]], regret,
                               ssum, scales, opts, br_out)
                d -= 1
                continue
            for h in range(nt):
                out[h] = z
            if kd == DECISION:
                node_strategy(src, slot[n], num_children[n], nt if player[n] == trav else no, SB[d])
            c = 0
        else:
            # The child c has just returned its values in OUT[d + 1].
            back = OUT[d + 1]
            if kd == CHANCE:
                child = first_child[n] + c
                tv = t_valid[board[child]]
                for h in range(nt):
                    out[h] += back[h] * tv[h]
                # Deals this child stands for (suit isomorphism): its values with the hands permuted.
                for e in range(iso_first[child], iso_first[child] + iso_count[child]):
                    perm = t_perm[iso_g[e]]
                    tv = t_valid[iso_board[e]]
                    for h in range(nt):
                        out[h] += back[perm[h]] * tv[h]
            elif player[n] == trav:
                vc = VALS[d, c]
                for h in range(nt):
                    vc[h] = back[h]
            else:
                for h in range(nt):
                    out[h] += back[h]
            c += 1
        nc = num_children[n]
        first = first_child[n]
        rt = RT[IT[d]]
        ro = RO[IO[d]]
        # Find the next child to visit and set up its reach.
        while c < nc:
            child = first + c
            if kd == CHANCE:
                b = board[child]
                ov = o_valid[b]
                nro = RO[d + 1]
                any_o = z
                for h in range(no):
                    x = ro[h] * ov[h]
                    nro[h] = x
                    any_o += x
                if any_o != z or mode == MODE_CFR:
                    tv = t_valid[b]
                    nrt = RT[d + 1]
                    for h in range(nt):
                        nrt[h] = rt[h] * tv[h]
                    IT[d + 1] = d + 1
                    IO[d + 1] = d + 1
                    break
            elif player[n] == trav:
                sc = SB[d, c]
                nrt = RT[d + 1]
                for h in range(nt):
                    nrt[h] = rt[h] * sc[h]
                IT[d + 1] = d + 1
                IO[d + 1] = IO[d]
                break
            else:
                sc = SB[d, c]
                nro = RO[d + 1]
                any_o = z
                for h in range(no):
                    x = ro[h] * sc[h]
                    nro[h] = x
                    any_o += x
                if any_o != z or mode == MODE_CFR:
                    IT[d + 1] = IT[d]
                    IO[d + 1] = d + 1
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
            w = dt(chance_weight[n])
            for h in range(nt):
                out[h] *= w
        elif player[n] == trav:
            _finish_choice(mode, slot[n], n, nc, nt, VALS[d], SB[d], out, rt, regret, ssum, scales, opts, br_out)
        d -= 1
    return OUT[0]


def work_buffers(depth: int, max_actions: int, nt: int, no: int, card_rows: int,
                 dtype: type | np.dtype = np.float64) -> tuple:
    """Fresh work buffers ``W`` of :func:`traverse` for a tree ``depth`` edges deep (``card_rows`` the rows
    of the showdown tables' ``cl``); the vectors in ``dtype`` (a pass computes in the precision of its
    strategy source)."""
    d = depth + 1
    return (
        np.zeros((d, nt), dtype), np.zeros((d, no), dtype), np.zeros((d, nt), dtype),
        np.zeros((d, max_actions, nt), dtype), np.zeros((d, max_actions + 1, max(nt, no)), dtype),
        np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64),
        np.zeros(d, dtype=np.int64), np.zeros(52, dtype),
        np.zeros(no + 1 + (card_rows + 1) * 52, dtype), np.zeros(no + 1, dtype),
    )


@njit(cache=True)
def frontier_reach(p, root, reach, T, valid, src, fidx, out, stack_node, R, S):
    """Player ``p``'s reach at every frontier node below ``root`` (``out[fidx[n]]``), under ``src``.

    The walk stops at frontier nodes (``fidx[n] >= 0``, the root excepted) and at
    terminals; ``stack_node``/``R`` are scratch (nodes, H), ``S`` (max options + 1, H).
    """
    kind, player, first_child, num_children, slot, board, amount, sd_row, chance_weight, leaf_index, leaf_slot, leaf_nk = T
    nh = reach.shape[0]
    stack_node[0] = root
    for h in range(nh):
        R[0, h] = reach[h]
    top = 1
    while top > 0:
        top -= 1
        n = stack_node[top]
        kd = kind[n]
        if n != root and fidx[n] >= 0:
            o = out[fidx[n]]
            for h in range(nh):
                o[h] = R[top, h]
            continue
        if kd != DECISION and kd != CHANCE:
            continue
        nc = num_children[n]
        first = first_child[n]
        parent = R[top].copy()
        own = kd == DECISION and player[n] == p
        if own:
            node_strategy(src, slot[n], nc, nh, S)
        for c in range(nc - 1, -1, -1):
            child = first + c
            r = R[top]
            if kd == CHANCE:
                v = valid[board[child]]
                for h in range(nh):
                    r[h] = parent[h] * v[h]
            elif own:
                sc = S[c]
                for h in range(nh):
                    r[h] = parent[h] * sc[h]
            else:
                for h in range(nh):
                    r[h] = parent[h]
            stack_node[top] = child
            top += 1


@njit(cache=True, parallel=True)
def frontier_pass(trav, root, reach_t, reach_o, mode, T, P, src, regret, ssum, scales, opts, LV, br_out, W, FV, fidx,
                  task_node, thread_tasks, RF, scratch):
    """:func:`traverse` from ``root`` with the subtrees below a frontier solved in parallel.

    The frontier is a set of subtree roots below ``root`` (``fidx[n]`` their numbers, ``task_node``
    the nodes), none below another; ``thread_tasks[i]`` lists the tasks of worker ``i`` (-1 padded),
    each worker with its own work buffers (shaped like ``W``). Both players' reaches at the frontier come
    first (:func:`frontier_reach`); the subtrees share no slot, so their regrets and sums are updated
    independently; then the part above the frontier is traversed with their values (``FV``). Every
    value is computed by the same operations whatever the number of workers. ``RF`` ((tasks, H_t),
    (tasks, H_o)) and ``scratch`` hold the frontier reaches and the walk's stack.
    """
    stack_node, R, S = scratch
    t_valid = P[3]
    o_valid = P[4]
    nt = reach_t.shape[0]
    no = reach_o.shape[0]
    RF0, RF1 = RF
    frontier_reach(trav, root, reach_t, T, t_valid, src, fidx, RF0, stack_node, R, S)
    frontier_reach(1 - trav, root, reach_o, T, o_valid, src, fidx, RF1, stack_node, R, S)
    nw = thread_tasks.shape[0]
    for i in prange(nw):
        # Each worker's own buffers, allocated here: views of one shared array would make the workers
        # contend for its reference count at every step.
        Wi = (np.empty_like(W[0]), np.empty_like(W[1]), np.empty_like(W[2]), np.empty_like(W[3]), np.empty_like(W[4]),
              np.empty_like(W[5]), np.empty_like(W[6]), np.empty_like(W[7]), np.empty_like(W[8]), np.empty_like(W[9]),
              np.empty_like(W[10]), np.empty_like(W[11]))
        for j in range(thread_tasks.shape[1]):
            k = thread_tasks[i, j]
            if k < 0:
                break
            ro = RF1[k]
            any_o = 0.0
            for h in range(no):
                any_o += ro[h]
            fv = FV[k]
            if any_o == 0.0 and mode != MODE_CFR:
                for h in range(nt):
                    fv[h] = 0.0
                continue
            v = traverse(trav, task_node[k], RF0[k], ro, mode, T, P, src, regret, ssum, scales, opts, LV, br_out, Wi,
                         FV, fidx)
            for h in range(nt):
                fv[h] = v[h]
    return traverse(trav, root, reach_t, reach_o, mode, T, P, src, regret, ssum, scales, opts, LV, br_out, W, FV, fidx)


@njit(cache=True)
def reach_at_leaves(p, root, reach, T, valid, strat, out):
    """Player ``p``'s reach at every leaf below ``root``, split by its leaf choice.

    ``out[l, k, h]`` = reach of hand ``h`` at leaf ``l`` x probability that ``h``
    picks continuation ``k`` there; zero at leaves no hand reaches. ``strat`` is any
    strategy source of :func:`node_strategy` (regrets, sums or a strategy array). The walk skips subtrees ``p`` does not reach.
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
    S = np.empty((8, nh))
    top = 1
    while top > 0:
        top -= 1
        n = stack_node[top]
        kd = kind[n]
        if kd == LEAF:
            li = leaf_index[n]
            off = leaf_slot[li, p]
            nk = leaf_nk[li, p]
            if S.shape[0] < nk + 1:
                S = np.empty((nk + 1, nh))
            node_strategy(strat, off, nk, nh, S)
            for k in range(nk):
                for h in range(nh):
                    out[li, k, h] = R[top, h] * S[k, h]
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
        own = kd == DECISION and player[n] == p
        if own:
            if S.shape[0] < nc + 1:
                S = np.empty((nc + 1, nh))
            node_strategy(strat, slot[n], nc, nh, S)
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
            elif own:
                for h in range(nh):
                    x = parent[h] * S[c, h]
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
def iteration_factors(t, alg, alpha, beta, gamma, reset=False):
    """(d_pos, d_neg, d_avg, clip) of iteration ``t`` (1-based); see :mod:`pokerbot.solver.cfr`.

    With ``reset`` the average restarts at iterations 1, 2, 5, 17, 65, ... (0-based
    ``t - 1`` a power of 4, as postflop-solver's DCFR): ``d_avg = (u / (u + 1)) ** gamma``
    with ``u`` the iterations since the last restart.
    """
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
    if reset:
        it = int(s)
        low = 0
        if it > 0:
            low = 1
            while low * 4 <= it:
                low *= 4
        u = float(it - low)
        davg = (u / (u + 1.0)) ** gamma
    else:
        davg = (s / t) ** gamma if gamma > 0.0 else 1.0
    return dpos, dneg, davg, alg == ALG_CFR_PLUS


@njit(cache=True)
def run_iterations(t_start, count, alg, alpha, beta, gamma, reset, reach0, reach1, T, P0, P1, regret, ssum, scales, W0, W1,
                   FV, fidx):
    """Iterations ``t_start + 1 .. t_start + count`` of a CFR-family algorithm with alternating
    updates, in place, one thread (trees without leaves). ``P0``/``P1`` are the hand bundles
    from each player's side, ``W*`` work buffers; ``fidx`` all -1."""
    no_leaves = np.zeros((0, 1, 1))
    no_br = np.zeros(0)
    for it in range(count):
        t = t_start + it + 1
        dpos, dneg, davg, clip = iteration_factors(float(t), alg, alpha, beta, gamma, reset)
        opts = (dpos, dneg, davg, clip)
        traverse(0, 0, reach0, reach1, MODE_CFR, T, P0, regret, regret, ssum, scales, opts, no_leaves, no_br, W0, FV, fidx)
        traverse(1, 0, reach1, reach0, MODE_CFR, T, P1, regret, regret, ssum, scales, opts, no_leaves, no_br, W1, FV, fidx)
