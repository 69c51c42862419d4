"""Deal kernel for heads-up hold'em with a suit-isomorphic bucket table per round."""

from __future__ import annotations

import numpy as np
from numba import njit

from abstraction.isomorphism import hand_index
from blueprint.mccfr import randint
from pokerbot.evaluator import eval7


@njit(cache=True)
def deal_holdem(rng, count, t0, t1, t2, t3, buckets, result):
    """Deals of heads-up hold'em: buckets via suit-isomorphic index tables, showdown by eval7."""
    pos = np.arange(52)
    hand = np.empty(7, dtype=np.int64)
    for j in range(count):
        for i in range(52):  # a fresh deck each deal: deals do not depend on how calls are chunked
            pos[i] = i
        for i in range(9):
            s = i + randint(rng, 52 - i)
            t = pos[i]
            pos[i] = pos[s]
            pos[s] = t
        for p in range(2):
            hand[0] = pos[2 * p]
            hand[1] = pos[2 * p + 1]
            for i in range(5):
                hand[2 + i] = pos[4 + i]
            buckets[j, p, 0] = t0[hand_index(0, hand)]
            buckets[j, p, 1] = t1[hand_index(1, hand)]
            buckets[j, p, 2] = t2[hand_index(2, hand)]
            buckets[j, p, 3] = t3[hand_index(3, hand)]
        v0 = eval7(pos[0], pos[1], pos[4], pos[5], pos[6], pos[7], pos[8])
        v1 = eval7(pos[2], pos[3], pos[4], pos[5], pos[6], pos[7], pos[8])
        result[j] = 1 if v0 > v1 else (-1 if v0 < v1 else 0)
