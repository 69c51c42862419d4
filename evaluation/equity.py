"""Showdown equity of a hand against other hands, by exact enumeration of the missing board cards.

Both AIVAT's value function (one hand against one hand) and local best response
(one hand against a weighted range) need the probability of winning a
check-down, ties counting half. :func:`hand_equities` enumerates every way the
rest of the board can come (990 turn-river pairs on a HUNL flop, 46 rivers on
a turn, one on the river); when there are more ways than ``max_exact`` (a HUNL
preflop board: 1.7 million), it draws ``samples`` uniform run-outs instead and
says so (``exact=False``). Works for every shipped game (Kuhn, Leduc, hold'em)
through :func:`pokerbot.evaluator.eval_cards`.

>>> from pokerbot.cards import parse_cards
>>> from pokerbot.gamedef import load_game
>>> game = load_game("hunl")
>>> eq, exact = hand_equities(game, parse_cards("AsAh"), parse_cards("2c7d9h"), np.array([parse_cards("KsKh")]))
>>> exact, round(float(eq[0]), 4)
(True, 0.9162)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numba import njit

from pokerbot.evaluator import eval_cards
from pokerbot.gamedef import GameDef
from pokerbot.solver.tree import hand_list

#: Enumerate the run-outs exactly up to this many (a HUNL flop has 990 or 1,081; preflop is sampled).
MAX_EXACT_RUNOUTS = 5_000
#: Run-outs drawn when there are more than that.
DEFAULT_SAMPLES = 2_000


@njit(cache=True)
def _equities(mine, board, hands, weights, runouts, win, count):  # pragma: no cover - numba
    """Add, for each hand ``h`` with positive weight, the wins (ties half) of ``mine`` and the run-outs it misses."""
    k = mine.shape[0]
    kh = hands.shape[1]
    nb = board.shape[0]
    nr = runouts.shape[1]
    n_me = k + nb + nr
    n_op = kh + nb + nr
    me = np.empty(max(n_me, 1), dtype=np.int64)
    op = np.empty(max(n_op, 1), dtype=np.int64)
    for i in range(k):
        me[i] = mine[i]
    for i in range(nb):
        me[k + i] = board[i]
        op[kh + i] = board[i]
    hmask = np.zeros(hands.shape[0], dtype=np.int64)
    for h in range(hands.shape[0]):
        m = np.int64(0)
        for c in range(kh):
            m |= np.int64(1) << hands[h, c]
        hmask[h] = m
    for r in range(runouts.shape[0]):
        rmask = np.int64(0)
        for i in range(nr):
            c = runouts[r, i]
            rmask |= np.int64(1) << c
            me[k + nb + i] = c
            op[kh + nb + i] = c
        v_me = eval_cards(me, n_me)
        for h in range(hands.shape[0]):
            if weights[h] <= 0.0 or (hmask[h] & rmask) != 0:
                continue
            for c in range(kh):
                op[c] = hands[h, c]
            v_op = eval_cards(op, n_op)
            if v_me > v_op:
                win[h] += 1.0
            elif v_me == v_op:
                win[h] += 0.5
            count[h] += 1.0


@lru_cache(maxsize=64)
def _combination_indices(m: int, n: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(m), n)), dtype=np.int64).reshape(-1, n)


def runouts(
    game: GameDef,
    known: Sequence[int],
    missing: int,
    max_exact: int = MAX_EXACT_RUNOUTS,
    samples: int = DEFAULT_SAMPLES,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, bool]:
    """Every set of ``missing`` board cards from the cards not in ``known`` (or ``samples`` drawn ones), and whether exact."""
    used = set(int(c) for c in known)
    avail = np.array([c for c in game.deck() if c not in used], dtype=np.int64)
    if missing <= 0:
        return np.zeros((1, 0), dtype=np.int64), True
    if math.comb(avail.size, missing) <= max_exact:
        return avail[_combination_indices(avail.size, missing)], True
    rng = rng if rng is not None else np.random.default_rng()
    keys = rng.random((samples, avail.size))
    picks = np.argpartition(keys, missing, axis=1)[:, :missing]
    return avail[picks], False


def hand_equities(
    game: GameDef,
    mine: Sequence[int],
    board: Sequence[int],
    hands: np.ndarray,
    weights: np.ndarray | None = None,
    max_exact: int = MAX_EXACT_RUNOUTS,
    samples: int = DEFAULT_SAMPLES,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, bool]:
    """Equity (win + tie / 2) of ``mine`` with ``board`` against each row of ``hands`` (NaN where impossible).

    A hand sharing a card with ``mine`` or ``board``, or with zero weight, gets NaN.
    The run-outs are those of :func:`runouts` over the cards outside ``mine`` and
    ``board``; each hand is scored on the run-outs it does not block.
    """
    hands = np.ascontiguousarray(hands, dtype=np.int64).reshape(len(hands), -1)
    known = [int(c) for c in mine] + [int(c) for c in board]
    kmask = 0
    for c in known:
        kmask |= 1 << c
    w = np.ones(len(hands)) if weights is None else np.asarray(weights, dtype=np.float64).copy()
    for h in range(len(hands)):
        m = 0
        for c in hands[h]:
            m |= 1 << int(c)
        if m & kmask:
            w[h] = 0.0
    missing = game.total_board_cards - len(board)
    outs, exact = runouts(game, known, missing, max_exact, samples, rng)
    win = np.zeros(len(hands))
    count = np.zeros(len(hands))
    _equities(np.array(mine, dtype=np.int64), np.array(board, dtype=np.int64), hands, w, outs, win, count)
    with np.errstate(invalid="ignore", divide="ignore"):
        eq = np.where(count > 0, win / np.maximum(count, 1.0), np.nan)
    return eq, exact


@lru_cache(maxsize=16)
def all_hands(game: GameDef) -> np.ndarray:
    """Every hole-card combination of ``game`` (rows of ``num_hole_cards`` cards, high card first)."""
    out = hand_list(game).astype(np.int64)
    out.setflags(write=False)
    return out
