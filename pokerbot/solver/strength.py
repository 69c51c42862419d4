"""Showdown strengths of many hands on one board (numba; imported on first use by the tree builder)."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerbot.evaluator import eval_cards


@njit(cache=True)
def hand_strengths(hands, board):
    """Strength (pokerbot.evaluator scale) of each row of ``hands`` with ``board``; -1 if they share a card."""
    k = hands.shape[1]
    n = k + board.shape[0]
    out = np.full(hands.shape[0], -1, dtype=np.int32)
    buf = np.zeros(n, dtype=np.int64)
    bmask = np.int64(0)
    for j in range(board.shape[0]):
        bmask |= np.int64(1) << board[j]
        buf[k + j] = board[j]
    for i in range(hands.shape[0]):
        hmask = np.int64(0)
        for c in range(k):
            hmask |= np.int64(1) << hands[i, c]
            buf[c] = hands[i, c]
        if hmask & bmask:
            continue
        out[i] = eval_cards(buf, n)
    return out


@njit(cache=True)
def hands_overlap(a, b):
    """Whether two hole-card rows (card ids) share a card: such a pair cannot be dealt together."""
    for x in range(a.shape[0]):
        for y in range(b.shape[0]):
            if a[x] == b[y]:
                return True
    return False
