"""The game's terminal interface: fold and showdown values of hold'em-style hands, with card removal.

The CFR kernels (:mod:`pokerbot.solver.kernels`) know no cards: at a terminal node they call
one of the two functions below with the traverser's output vector, the opponent's reach and
the arrays of the hand bundle ``P`` (built by the tree, :mod:`pokerbot.solver.tree`):

* :func:`fold_into` -- ``out[i] = stake`` x the opponent's reach over hands that share no card
  with hand ``i`` (inclusion-exclusion over per-card sums);
* :func:`showdown_sorted_into` -- ``out[i] = stake`` x (reach of the hands ``i`` beats - reach of
  those it loses to), card removal included, from prefix sums over the opponent's hands sorted by
  strength and over each card's hands (:func:`showdown_tables` precomputes, per board, where each
  hand's weaker and stronger hands end); no data-dependent branch, linear in the hands.

Another game plugs in by filling the same arrays. :func:`showdown_into` (the two-pointer sweep
it replaces in the kernels) stays for Student of Games' search and as a test oracle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(cache=True)
def showdown_tables(t_cards, o_cards, t_str, o_str, o_order, lt, le, pos, cl, cl_str):
    """Fill one board's tables of :func:`showdown_sorted_into` (``t_str``/``o_str`` strengths, -1 if blocked;
    ``o_order`` the opponent's hands by ascending strength).

    ``lt[i]``/``le[i]``: how many opponent hands are weaker than / at most as strong as hand ``i``;
    ``cl[m, c]``: the ``m``-th weakest opponent hand holding card ``c`` (``len(o_str)`` past the end);
    ``pos[i, 2x]``/``pos[i, 2x + 1]``: how many of card ``t_cards[i, x]``'s hands are weaker / not stronger.
    ``cl_str`` (52, rows of ``cl``) is scratch.
    """
    no = o_order.shape[0]
    nt = t_cards.shape[0]
    k = t_cards.shape[1]
    L = cl.shape[0]
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
            lt[i] = 0
            le[i] = 0
            for x in range(2 * k):
                pos[i, x] = 0
            continue
        lt[i] = np.searchsorted(srt, s, side="left")
        le[i] = np.searchsorted(srt, s, side="right")
        for x in range(k):
            c = t_cards[i, x]
            row = cl_str[c, : min(cnt[c], L)]
            pos[i, 2 * x] = np.searchsorted(row, s, side="left")
            pos[i, 2 * x + 1] = np.searchsorted(row, s, side="right")


@njit(cache=True, fastmath=True)
def showdown_sorted_into(out, reach_o, t_cards, t_ok, o_order, lt, le, pos, cl, stake, F, P, pad):
    """``out[i] = stake`` x (opponent reach hand ``i`` beats - reach it loses to), with card removal, from the
    tables of :func:`showdown_tables`; ``t_ok`` zeroes the traverser's hands the board blocks. ``F``
    (opponent hands + 1), ``P`` (rows of ``cl`` + 1, 52) and ``pad`` (opponent hands + 1) are scratch."""
    no = o_order.shape[0]
    nt = t_cards.shape[0]
    k = t_cards.shape[1]
    L = cl.shape[0]
    for j in range(no):
        pad[j] = reach_o[j]
    pad[no] = 0.0
    acc = 0.0
    F[0] = 0.0
    for j in range(no):
        acc += pad[o_order[j]]
        F[j + 1] = acc
    p0 = P[0]
    for c in range(52):
        p0[c] = 0.0
    for m in range(L):
        row = cl[m]
        prev = P[m]
        nxt = P[m + 1]
        for c in range(52):
            nxt[c] = prev[c] + pad[row[c]]
    tot = F[no]
    last = P[L]
    for i in range(nt):
        win = F[lt[i]]
        lose = tot - F[le[i]]
        for x in range(k):
            c = t_cards[i, x]
            win -= P[pos[i, 2 * x], c]
            lose -= last[c] - P[pos[i, 2 * x + 1], c]
        out[i] = stake * (win - lose) * t_ok[i]
