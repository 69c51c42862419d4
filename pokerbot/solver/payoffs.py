"""The game's terminal interface: fold and showdown values of hold'em-style hands, with card removal.

The CFR kernels (:mod:`pokerbot.solver.kernels`) know no cards: at a terminal node they call
one of the two functions below with the traverser's output vector, the opponent's reach and
the tables of the hand bundle ``P`` (built by the tree, :mod:`pokerbot.solver.tree`):

* :func:`fold_tables_into` -- ``out[i] = stake`` x the opponent's reach over hands that share no
  card with hand ``i`` (inclusion-exclusion over per-card sums, from :func:`card_hands`);
* :func:`showdown_sorted_into` -- ``out[i] = stake`` x (reach of the hands ``i`` beats - reach of
  those it loses to), card removal included, from prefix sums over the opponent's hands sorted by
  strength and over each card's hands (:func:`showdown_tables` precomputes, per board, where each
  hand's weaker and stronger hands end); no data-dependent branch, linear in the hands.

Both compute in the precision of the vectors they are given and index with ``uint32`` tables (a
signed index costs numba a wrap-around check per access, which keeps LLVM from vectorising).
Another game plugs in by filling the same tables. :func:`fold_into` and :func:`showdown_into` (the
per-card scatter and the two-pointer sweep, from plain hand lists) serve Student of Games' search
and are the tests' oracles.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

@njit(cache=True, fastmath=True)
def fold_into(out, reach_o, t_cards, o_cards, t_same, stake, card_sum):
    """``out[i] = stake`` x total opponent reach over hands sharing no card with hand ``i`` (``t_same[i]``
    the identical opponent hand, -1 where none)."""
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


@njit(cache=True, fastmath=True, parallel=True)
def equity_matrix(hands0, hands1, strengths0, strengths1, valid0, valid1, out):
    """``out[i, j]`` += (runouts hand0 ``i`` wins - runouts it loses to hand1 ``j``), hands disjoint.

    ``strengths*`` (runouts, H) are showdown strengths per runout (-1 where the hand
    is blocked by the runout); ``valid*`` the hands missing the board before it.
    Blocks of rows in parallel, each over the run-outs in order (whole numbers: the same sums on any
    number of threads).
    """
    nr = strengths0.shape[0]
    n0 = hands0.shape[0]
    n1 = hands1.shape[0]
    k = hands0.shape[1]
    blocks = min(n0, 64)
    for blk in prange(blocks):
        lo = blk * n0 // blocks
        hi = (blk + 1) * n0 // blocks
        for r in range(nr):
            s0 = strengths0[r]
            s1 = strengths1[r]
            for i in range(lo, hi):
                a = s0[i]
                if a < 0:
                    continue
                for j in range(n1):
                    b = s1[j]
                    if b >= 0:
                        if a > b:
                            out[i, j] += 1.0
                        elif a < b:
                            out[i, j] -= 1.0
    # Hands sharing a card never meet.
    for i in range(n0):
        for j in range(n1):
            for x in range(k):
                for y in range(k):
                    if hands0[i, x] == hands1[j, y]:
                        out[i, j] = 0.0


@njit(cache=True)
def card_hands(hands, rows):
    """``out[m, c]``: the ``m``-th hand of ``hands`` holding card ``c`` (``len(hands)`` past the end), ``rows``
    rows (the most hands any card is in): the per-card lists :func:`fold_tables_into` sums reach over."""
    nh = hands.shape[0]
    out = np.full((rows, 52), nh, dtype=np.uint32)
    cnt = np.zeros(52, dtype=np.int64)
    for j in range(nh):
        for x in range(hands.shape[1]):
            c = hands[j, x]
            out[cnt[c], c] = j
            cnt[c] += 1
    return out


@njit(cache=True, fastmath=True)
def fold_tables_into(out, reach_o, t_cards_t, o_card_hands, t_same, stake, card_sum, pad):
    """:func:`fold_into` from tables: ``t_cards_t`` (cards, H_t) the traverser's cards by position,
    ``o_card_hands`` the opponent's :func:`card_hands`, ``t_same`` the identical opponent hand of each
    traverser hand (``H_o`` where none; all ``uint32``); one or two cards a hand. ``card_sum`` (52) and
    ``pad`` (H_o + 1) are scratch. Branch-free gathers in the pass's precision: the loops vectorise."""
    z = out.dtype.type(0.0)
    no = reach_o.shape[0]
    nt = out.shape[0]
    tot = z
    for j in range(no):
        r = reach_o[j]
        pad[j] = r
        tot += r
    pad[no] = z
    for c in range(52):
        card_sum[c] = z
    # 2-D indexing, no row views: a view of a shared table costs an atomic reference count, which the
    # threads of a parallel pass would contend for.
    for m in range(o_card_hands.shape[0]):
        for c in range(52):
            card_sum[c] += pad[o_card_hands[m, c]]
    for i in range(nt):
        out[i] = tot
    for x in range(t_cards_t.shape[0]):
        for i in range(nt):
            out[i] -= card_sum[t_cards_t[x, i]]
    # The identical hand holds every card of the hand: the per-card sums count it k times, not once.
    extra = out.dtype.type(t_cards_t.shape[0] - 1)
    st = out.dtype.type(stake)
    for i in range(nt):
        out[i] = st * (out[i] + extra * pad[t_same[i]])


@njit(cache=True)
def showdown_tables(t_cards, o_cards, t_str, o_str, o_order, gidx, cl, cl_str):
    """Fill one board's tables of :func:`showdown_sorted_into` (``t_str``/``o_str`` strengths, -1 if blocked;
    ``o_order`` the opponent's hands by ascending strength).

    ``cl[m, c]``: the ``m``-th weakest opponent hand holding card ``c`` (``len(o_str)`` past the end).
    ``gidx[:, i]``: where hand ``i``'s terms sit in the kernel's array ``G = [F | P]`` (``F[j]`` the reach
    of the ``j`` weakest opponent hands, ``P[m, c]`` of the ``m`` weakest holding card ``c``, flattened):
    ``F[#weaker]``, ``F[#not stronger]``, ``F[all]`` and per card ``x`` of the hand ``P[L, c]`` (every
    hand holding it), ``P[#weaker holding c, c]``, ``P[#not stronger holding c, c]``; all zero for a
    hand the board blocks. ``cl_str`` (52, rows of ``cl``) is scratch.
    """
    no = o_order.shape[0]
    nt = t_cards.shape[0]
    k = t_cards.shape[1]
    L = cl.shape[0]
    base = no + 1
    cl[:, :] = no
    cl_str[:, :] = 2**31 - 1
    cnt = np.zeros(52, dtype=np.int64)
    srt = np.empty(no, dtype=np.int64)
    for j in range(no):
        srt[j] = o_str[o_order[j]]
    for m in range(no):
        j = o_order[m]
        if o_str[j] < 0:
            continue
        for x in range(o_cards.shape[1]):
            c = o_cards[j, x]
            cl[cnt[c], c] = j
            cl_str[c, cnt[c]] = o_str[j]
            cnt[c] += 1
    for i in range(nt):
        s = t_str[i]
        if s < 0:
            for e in range(3 + 3 * k):
                gidx[e, i] = 0
            continue
        gidx[0, i] = np.searchsorted(srt, s, side="left")
        gidx[1, i] = np.searchsorted(srt, s, side="right")
        gidx[2, i] = no
        for x in range(k):
            c = t_cards[i, x]
            row = cl_str[c, : min(cnt[c], L)]
            gidx[3 + 3 * x, i] = base + L * 52 + c
            gidx[4 + 3 * x, i] = base + np.searchsorted(row, s, side="left") * 52 + c
            gidx[5 + 3 * x, i] = base + np.searchsorted(row, s, side="right") * 52 + c


@njit(cache=True, fastmath=True)
def showdown_sorted_into(out, reach_o, o_order, gidx, cl, stake, G, pad):
    """``out[i] = stake`` x (opponent reach hand ``i`` beats - reach it loses to), with card removal, from the
    tables of :func:`showdown_tables` (all ``uint32``). ``G`` (H_o + 1 + (rows of ``cl`` + 1) x 52) and ``pad``
    (H_o + 1) are scratch. In the pass's precision, with no data-dependent branch: the prefix sums, then
    ``F[#weaker] + F[#not stronger] - F[all] + sum over the hand's cards of (P[all] - P[#weaker] -
    P[#not stronger])`` by gathers."""
    z = out.dtype.type(0.0)
    no = reach_o.shape[0]
    nt = out.shape[0]
    L = cl.shape[0]
    for j in range(no):
        pad[j] = reach_o[j]
    pad[no] = z
    G[0] = z
    if no < 256:
        acc = z
        for j in range(no):
            acc += pad[o_order[j]]
            G[j + 1] = acc
    else:
        # Four independent running sums over the quarters (one chain of additions would wait on each
        # add's latency), then each quarter shifted by the totals before it.
        q = (no + 3) // 4
        a0 = z
        a1 = z
        a2 = z
        a3 = z
        for j in range(q):
            a0 += pad[o_order[j]]
            G[j + 1] = a0
            a1 += pad[o_order[q + j]]
            G[q + j + 1] = a1
            a2 += pad[o_order[2 * q + j]]
            G[2 * q + j + 1] = a2
            jj = 3 * q + j
            a3 += pad[o_order[jj] if jj < no else no]
            if jj < no:
                G[jj + 1] = a3
        for j in range(q + 1, 2 * q + 1):
            G[j] += a0
        a1 += a0
        for j in range(2 * q + 1, 3 * q + 1):
            G[j] += a1
        a2 += a1
        for j in range(3 * q + 1, no + 1):
            G[j] += a2
    P = G[no + 1:]
    for c in range(52):
        P[c] = z
    # 2-D indexing, no row views of the shared tables (see fold_tables_into).
    for m in range(L):
        b = m * 52
        for c in range(52):
            P[b + 52 + c] = P[b + c] + pad[cl[m, c]]
    # win = F[#weaker] - sum P[#weaker holding c]; lose = F[all] - F[#not stronger] - sum (P[all holding c] -
    # P[#not stronger holding c]); in this order (CFR's trajectories on small games are exact to the rounding).
    st = out.dtype.type(stake)
    if gidx.shape[0] == 9:
        for i in range(nt):
            win = G[gidx[0, i]] - G[gidx[4, i]] - G[gidx[7, i]]
            lose = G[gidx[2, i]] - G[gidx[1, i]] - (G[gidx[3, i]] - G[gidx[5, i]]) - (G[gidx[6, i]] - G[gidx[8, i]])
            out[i] = st * (win - lose)
        return
    nx = gidx.shape[0] // 3 - 1
    for i in range(nt):
        win = G[gidx[0, i]]
        lose = G[gidx[2, i]] - G[gidx[1, i]]
        for x in range(nx):
            win -= G[gidx[4 + 3 * x, i]]
            lose -= G[gidx[3 + 3 * x, i]] - G[gidx[5 + 3 * x, i]]
        out[i] = st * (win - lose)
