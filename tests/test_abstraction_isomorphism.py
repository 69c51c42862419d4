"""Suit isomorphism: exact class counts, exhaustive preflop and flop, sampled turn and river.

The oracle is an independent brute-force canonical form: the least (sorted hole,
sorted board) over the 24 suit permutations.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
from numba import njit

from abstraction.isomorphism import (
    BOARD_CARDS,
    class_sizes,
    hand_index,
    hand_index_batch,
    hand_unindex,
    hand_unindex_batch,
    index_hand,
    num_classes,
)
from pokerbot.cards import parse_cards
from pokerbot.errors import CardError

PERMS = list(itertools.permutations(range(4)))


def permute(cards, perm):
    return [(c & ~3) | perm[c & 3] for c in cards]


def canonical(hole, board):
    """Independent oracle: the least (sorted hole, sorted board) over all suit permutations."""
    return min((tuple(sorted(permute(hole, p))), tuple(sorted(permute(board, p)))) for p in PERMS)


def random_hands(rng, n, nb):
    out = np.empty((n, 2 + nb), np.int64)
    for i in range(n):
        out[i] = rng.choice(52, 2 + nb, replace=False)
    return out


def test_class_counts_are_the_known_figures():
    assert [num_classes(r) for r in range(4)] == [169, 1_286_792, 13_960_050, 123_156_254]


def test_preflop_exhaustive_matches_brute_force_classes():
    hands = list(itertools.combinations(range(52), 2))
    idx = hand_index_batch(0, np.array(hands))
    assert sorted(set(idx.tolist())) == list(range(169))
    # same index <=> same canonical form
    by_canon: dict = {}
    for h, i in zip(hands, idx.tolist()):
        by_canon.setdefault(canonical(h, ()), set()).add(i)
    assert len(by_canon) == 169 and all(len(v) == 1 for v in by_canon.values())
    # pairs, suited, offsuit: 13 + 78 + 78
    pairs = {int(hand_index(0, np.array([r * 4, r * 4 + 1]))) for r in range(13)}
    suited = {int(hand_index(0, np.array([a * 4, b * 4]))) for a in range(13) for b in range(a)}
    assert len(pairs) == 13 and len(suited) == 78 and not pairs & suited
    assert class_sizes(0).tolist().count(6) == 13 and class_sizes(0).tolist().count(4) == 78
    assert class_sizes(0).tolist().count(12) == 78


@njit(cache=True)
def _flop_all(perm, out_idx, out_perm_idx):
    cards = np.empty(5, np.int64)
    pc = np.empty(5, np.int64)
    n = 0
    for a in range(52):
        for b in range(a + 1, 52):
            for x in range(52):
                if x == a or x == b:
                    continue
                for y in range(x + 1, 52):
                    if y == a or y == b:
                        continue
                    for z in range(y + 1, 52):
                        if z == a or z == b:
                            continue
                        cards[0], cards[1], cards[2], cards[3], cards[4] = a, b, x, y, z
                        # a different suit permutation for each hand, cycling through all 24
                        p = perm[n % 24]
                        for i in range(5):
                            pc[i] = (cards[i] & ~np.int64(3)) | p[cards[i] & 3]
                        out_idx[n] = hand_index(1, cards)
                        out_perm_idx[n] = hand_index(1, pc)
                        n += 1
    return n


@pytest.mark.slow  # 25 million flop hands, two index arrays of 200 MB
def test_flop_exhaustive_bijection_and_invariance():
    total = 1326 * comb(50, 3)
    idx = np.empty(total, np.int64)
    pidx = np.empty(total, np.int64)
    assert _flop_all(np.array(PERMS, np.int64), idx, pidx) == total
    # invariant under suit permutations ...
    assert np.array_equal(idx, pidx)
    # ... and onto exactly 1,286,792 values: so a bijection from classes to 0..N-1
    counts = np.bincount(idx, minlength=num_classes(1))
    assert counts.shape == (num_classes(1),) and counts.min() > 0
    # each class is hit as often as its multiplicity
    assert np.array_equal(counts, class_sizes(1))
    # every index unindexes to a representative that indexes back to it
    allidx = np.arange(num_classes(1))
    assert np.array_equal(hand_index_batch(1, hand_unindex_batch(1, allidx)), allidx)


@pytest.mark.parametrize("round_", [1, 2, 3])
def test_sampled_index_agrees_with_brute_force_canonical_form(round_):
    rng = np.random.default_rng(round_)
    nb = BOARD_CARDS[round_]
    hands = random_hands(rng, 400, nb)
    # add near neighbours: a suit-permuted copy and a copy with one card swapped
    variants = []
    for h in hands[:200]:
        variants.append(permute(h.tolist(), PERMS[rng.integers(24)]))
        g = h.copy()
        free = [c for c in range(52) if c not in g]
        g[rng.integers(len(g))] = rng.choice(free)
        variants.append(g.tolist())
    allh = np.vstack([hands, np.array(variants)])
    idx = hand_index_batch(round_, allh).tolist()
    canon = [canonical(h[:2].tolist(), h[2:].tolist()) for h in allh]
    seen: dict = {}
    for c, i in zip(canon, idx):
        assert seen.setdefault(c, i) == i  # same class -> same index
    assert len(set(seen.values())) == len(seen)  # different classes -> different indices
    # the representative lies in the hand's orbit
    for h, i in zip(allh[:100], idx[:100]):
        rep = hand_unindex(round_, i)
        assert canonical(rep[:2].tolist(), rep[2:].tolist()) == canonical(h[:2].tolist(), h[2:].tolist())


@pytest.mark.parametrize("round_", [2, 3])
def test_sampled_round_trip_turn_and_river(round_):
    rng = np.random.default_rng(10 + round_)
    n = num_classes(round_)
    idx = np.concatenate([[0, 1, n - 2, n - 1], rng.integers(0, n, 20000)])
    reps = hand_unindex_batch(round_, idx)
    assert np.array_equal(hand_index_batch(round_, reps), idx)
    # representatives are valid hands
    assert reps.min() >= 0 and reps.max() < 52
    assert all(len(set(r)) == len(r) for r in reps.tolist())


def test_errors_name_the_problem():
    with pytest.raises(CardError, match="round"):
        num_classes(4)
    with pytest.raises(CardError, match="out of range"):
        hand_unindex(0, 169)
    with pytest.raises(CardError, match=r"\(N, 5\)"):
        hand_index_batch(1, np.zeros((3, 4), np.int64))
    with pytest.raises(CardError, match="repeated"):
        index_hand(parse_cards("AsAs"), [])
    with pytest.raises(CardError, match="0, 3, 4 or 5"):
        index_hand(parse_cards("AsKs"), parse_cards("2c3c"))


def test_index_hand_matches_kernel():
    r, i = index_hand(parse_cards("AsKs"), parse_cards("2s7sQd9c"))
    assert r == 2 and i == int(hand_index(2, np.array(parse_cards("AsKs2s7sQd9c"))))
    assert i == index_hand(parse_cards("KhAh"), parse_cards("9d7hQc2h"))[1]


@pytest.mark.slow
def test_turn_exhaustive_round_trip():
    n = num_classes(2)
    step = 1 << 21
    for lo in range(0, n, step):
        idx = np.arange(lo, min(n, lo + step))
        assert np.array_equal(hand_index_batch(2, hand_unindex_batch(2, idx)), idx)
