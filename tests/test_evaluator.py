"""Tests of pokerbot.evaluator against treys (5..7 cards) and a brute-force ACPC reference (1..4 cards)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from treys import Card, Evaluator
from treys.lookup import LookupTable

from pokerbot.cards import RANK_CHARS, SUIT_CHARS, deck, format_card, parse_cards
from pokerbot.errors import CardError
from pokerbot.evaluator import (
    HAND_CLASS_NAMES,
    NUM_HAND_VALUES,
    eval5,
    eval6,
    eval7,
    eval_cards,
    evaluate,
    evaluate_batch,
    hand_class_name,
)

TREYS = Evaluator()
# treys' integer for each ACPC card index.
TREYS_CARD = [Card.new(format_card(c)) for c in range(52)]


def treys_rank(hand) -> int:
    """treys' rank (1 = royal flush .. 7462) of 5..7 ACPC cards."""
    tc = [TREYS_CARD[c] for c in hand]
    return TREYS.evaluate(tc[:2], tc[2:])


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """``n`` seeded random hands of ``k`` distinct cards."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int8)


@njit
def _kernel_eval_rows(cards):
    """Scalar kernels called from inside another kernel: (evalK, eval_cards) per row."""
    n, k = cards.shape
    out = np.empty((n, 2), dtype=np.int32)
    for i in range(n):
        r = cards[i]
        if k == 5:
            out[i, 0] = eval5(r[0], r[1], r[2], r[3], r[4])
        elif k == 6:
            out[i, 0] = eval6(r[0], r[1], r[2], r[3], r[4], r[5])
        else:
            out[i, 0] = eval7(r[0], r[1], r[2], r[3], r[4], r[5], r[6])
        out[i, 1] = eval_cards(r, k)
    return out


# ---------------------------------------------------------------- five cards


@pytest.fixture(scope="module")
def all_five_card_hands() -> np.ndarray:
    return np.fromiter(
        itertools.combinations(range(52), 5), dtype=np.dtype((np.int8, 5)), count=2_598_960
    )


@pytest.mark.slow  # 2.6 million hands through treys' Python lookup
def test_every_five_card_hand_matches_treys(all_five_card_hands):
    hands = all_five_card_hands
    mine = evaluate_batch(hands)
    five = TREYS._five  # treys' 5-card lookup, once per hand
    tc = TREYS_CARD
    ref = np.fromiter(
        (five([tc[a], tc[b], tc[c], tc[d], tc[e]]) for a, b, c, d, e in hands.tolist()),
        dtype=np.int64,
        count=len(hands),
    )
    assert mine.dtype == np.int32 and mine.shape == (len(hands),)
    # Same value for every hand implies the same ordering and the same ties.
    np.testing.assert_array_equal(mine, 7463 - ref)
    assert np.unique(mine).size == NUM_HAND_VALUES


@pytest.mark.slow
def test_scalar_kernels_agree_with_batch_on_all_five_card_hands(all_five_card_hands):
    rows = _kernel_eval_rows(all_five_card_hands)
    batch = evaluate_batch(all_five_card_hands)
    np.testing.assert_array_equal(rows[:, 0], batch)
    np.testing.assert_array_equal(rows[:, 1], batch)


def test_hand_class_name_matches_treys_for_every_value():
    for value in range(1, NUM_HAND_VALUES + 1):
        treys_class = TREYS.class_to_string(TREYS.get_rank_class(7463 - value))
        expected = "Straight Flush" if treys_class == "Royal Flush" else treys_class
        assert hand_class_name(value) == expected, value
    assert set(HAND_CLASS_NAMES) == {hand_class_name(v) for v in range(1, NUM_HAND_VALUES + 1)}
    assert LookupTable.MAX_HIGH_CARD == NUM_HAND_VALUES


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AsKsQsJsTs", "Straight Flush"),
        ("5d4d3d2dAd", "Straight Flush"),
        ("9c9d9h9s2c", "Four of a Kind"),
        ("3c3d3h2s2c", "Full House"),
        ("Ah9h7h5h3h", "Flush"),
        ("5c4d3h2sAc", "Straight"),
        ("7c7d7hKsQc", "Three of a Kind"),
        ("7c7dKhKsQc", "Two Pair"),
        ("7c7dAhKsQc", "Pair"),
        ("7c5d4h3s2c", "High Card"),
    ],
)
def test_named_hands(text, name):
    assert hand_class_name(evaluate(parse_cards(text))) == name


def test_known_orderings():
    v = lambda t: evaluate(parse_cards(t))  # noqa: E731
    assert v("AsKsQsJsTs") == NUM_HAND_VALUES
    assert v("7c5d4h3s2c") == 1
    assert v("6c5d4h3s2c") > v("5c4d3h2sAc")  # the wheel is the lowest straight
    assert v("AcKdQhJsTc") > v("KcQdJhTs9c")
    assert v("AsKdQhJs9c") == v("AhKcQdJh9s")  # suits never break ties
    assert v("2c2d2h3s3c") > v("AhKhQhJh9h")  # full house over flush
    assert v("AcAdKhKs2c") > v("AcAdQhQsKc")  # two pair: higher top pair first


# --------------------------------------------------------- six and seven cards


@pytest.mark.parametrize(("num_cards", "count"), [(7, 30_000), (6, 10_000), (5, 10_000)])
def test_random_hands_match_treys(num_cards: int, count: int) -> None:
    hands = random_hands(count, num_cards, seed=num_cards)
    ref = np.array([treys_rank(h) for h in hands.tolist()])
    mine = evaluate_batch(hands)
    np.testing.assert_array_equal(mine, 7463 - ref)
    rows = _kernel_eval_rows(hands)
    np.testing.assert_array_equal(rows[:, 0], mine)
    np.testing.assert_array_equal(rows[:, 1], mine)


def test_seven_card_flush_heavy_hands_match_treys():
    # Random hands are rarely flushes; deal from two suits so that most are.
    rng = np.random.default_rng(11)
    two_suits = np.array([c for c in range(52) if c % 4 in (1, 3)])
    hands = np.array([rng.choice(two_suits, 7, replace=False) for _ in range(20_000)])
    ref = np.array([treys_rank(h) for h in hands.tolist()])
    np.testing.assert_array_equal(evaluate_batch(hands), 7463 - ref)
    names = {hand_class_name(v) for v in evaluate_batch(hands)}
    assert {"Flush", "Straight Flush"} <= names


def test_batch_accepts_integer_dtypes_and_permutations():
    hands = random_hands(5_000, 7, seed=3)
    base = evaluate_batch(hands)
    for dtype in (np.uint8, np.int16, np.int32, np.int64, np.uint64):
        np.testing.assert_array_equal(evaluate_batch(hands.astype(dtype)), base)
    perm = np.random.default_rng(4).permuted(hands, axis=1)
    np.testing.assert_array_equal(evaluate_batch(perm), base)
    np.testing.assert_array_equal(evaluate_batch(np.asfortranarray(hands)), base)
    assert evaluate_batch(np.zeros((0, 7), dtype=np.int8)).shape == (0,)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True))
def test_evaluate_equals_best_five_of_the_hand(hand):
    best = max(evaluate(list(sub)) for sub in itertools.combinations(hand, 5))
    assert evaluate(hand) == best
    assert evaluate(hand) == evaluate(hand[::-1])
    assert evaluate(hand) == 7463 - treys_rank(hand)


# ---------------------------------------------------------- 1..4 cards (ACPC)


def acpc_partial_key(hand) -> tuple:
    """Brute-force ACPC rule for fewer than five cards.

    No straights or flushes; category by the rank multiplicities (high card <
    pair < two pair < trips < quads), then the ranks, grouped by multiplicity,
    highest first.
    """
    counts = Counter(c // 4 for c in hand)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    mult = sorted(counts.values(), reverse=True)
    if mult[0] == 4:
        cat = 4
    elif mult[0] == 3:
        cat = 3
    elif mult[:2] == [2, 2]:
        cat = 2
    elif mult[0] == 2:
        cat = 1
    else:
        cat = 0
    return (cat, tuple(r for r, _ in groups))


@njit
def _kernel_eval_short(cards):
    n, k = cards.shape
    out = np.empty(n, dtype=np.int32)
    for i in range(n):
        out[i] = eval_cards(cards[i], k)
    return out


@pytest.mark.parametrize("n", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_short_hands_order_like_brute_force_acpc_rule(n):
    hands = list(itertools.combinations(range(52), n))
    mine = _kernel_eval_short(np.array(hands, dtype=np.int64))
    keys = [acpc_partial_key(h) for h in hands]
    order = sorted(range(len(hands)), key=keys.__getitem__)
    for a, b in itertools.pairwise(order):
        if keys[a] == keys[b]:
            assert mine[a] == mine[b], (hands[a], hands[b])
        else:
            assert mine[a] < mine[b], (hands[a], hands[b])
    # The Python wrapper gives the same values.
    for i in range(0, len(hands), max(1, len(hands) // 500)):
        assert evaluate(hands[i]) == mine[i]


def test_kuhn_and_leduc_showdowns():
    kuhn = deck(3, 1)  # Qs Ks As
    assert [evaluate([c]) for c in kuhn] == sorted(evaluate([c]) for c in kuhn)
    assert len({evaluate([c]) for c in kuhn}) == 3
    leduc = deck(3, 2)
    q, k, a = (parse_cards(t) for t in ("QhQs", "KhKs", "AhAs"))
    pairs = [evaluate(p) for p in (q, k, a)]
    assert pairs == sorted(pairs) and len(set(pairs)) == 3
    non_pairs = [
        evaluate([x, y]) for x, y in itertools.combinations(leduc, 2) if x // 4 != y // 4
    ]
    assert max(non_pairs) < min(pairs)
    assert evaluate(parse_cards("AhQs")) > evaluate(parse_cards("KhQs"))
    assert evaluate(parse_cards("AhKs")) > evaluate(parse_cards("AsQh"))
    assert evaluate(parse_cards("AhKs")) == evaluate(parse_cards("AsKh"))


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "cards",
    [
        [],
        [0, 1, 2, 3, 4, 5, 6, 7],
        [52],
        [-1, 3],
        [5, 5],
        [0, 1, 2, 3, 3],
        [0.5, 1, 2, 3, 4],
        [1.0, 2, 3, 4, 5],
        ["As"],
        [None],
    ],
)
def test_evaluate_rejects_bad_cards(cards):
    with pytest.raises(CardError):
        evaluate(cards)


@pytest.mark.parametrize(
    "cards",
    [
        np.zeros(7, dtype=np.int8),
        np.arange(4, dtype=np.int8).reshape(1, 4),
        np.arange(8, dtype=np.int8).reshape(1, 8),
        np.arange(7, dtype=np.float64).reshape(1, 7),
        np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 5]]),
        np.array([[0, 1, 2, 3, 4, 5, 52]]),
        np.array([[0, 1, 2, 3, 4, 5, -1]], dtype=np.int8),
        np.array([[0, 1, 2, 3, 4, 5, 70]], dtype=np.int64),
    ],
)
def test_evaluate_batch_rejects_bad_input(cards):
    with pytest.raises(CardError):
        evaluate_batch(cards)


@pytest.mark.parametrize("value", [0, -5, NUM_HAND_VALUES + 1])
def test_hand_class_name_rejects_bad_values(value):
    with pytest.raises(CardError):
        hand_class_name(value)


def test_evaluate_batch_names_the_first_bad_row_whatever_the_dtype():
    """Cards that would wrap to valid ones in uint8 (256 + 3) are refused, and the first bad row is named."""
    good = [0, 1, 2, 3, 4, 5, 6]
    for bad_row, dtype in (([0, 1, 2, 3, 4, 5, 259], np.int64), ([0, 1, 2, 3, 4, 5, 5], np.uint16)):
        cards = np.array([good, good, bad_row, [7, 1, 2, 3, 4, 5, 300]], dtype=dtype)
        with pytest.raises(CardError, match="^row 2:"):
            evaluate_batch(cards)


# ----------------------------------------------------- exhaustive (slow) checks


@njit
def _all_seven_card_hands(hist):
    """Histogram of eval7 over all C(52, 7) hands; returns the number of hands
    where eval7 differs from the best of the 21 five-card sub-hands (via eval5)."""
    c = np.empty(7, dtype=np.int64)
    h = np.empty(5, dtype=np.int64)
    mismatches = 0
    for c0 in range(52):
        c[0] = c0
        for c1 in range(c0 + 1, 52):
            c[1] = c1
            for c2 in range(c1 + 1, 52):
                c[2] = c2
                for c3 in range(c2 + 1, 52):
                    c[3] = c3
                    for c4 in range(c3 + 1, 52):
                        c[4] = c4
                        for c5 in range(c4 + 1, 52):
                            c[5] = c5
                            for c6 in range(c5 + 1, 52):
                                c[6] = c6
                                v = eval7(c0, c1, c2, c3, c4, c5, c6)
                                hist[v] += 1
                                best = 0
                                for skip_a in range(7):  # drop two of the seven cards
                                    for skip_b in range(skip_a + 1, 7):
                                        m = 0
                                        for j in range(7):
                                            if j != skip_a and j != skip_b:
                                                h[m] = c[j]
                                                m += 1
                                        w = eval5(h[0], h[1], h[2], h[3], h[4])
                                        if w > best:
                                            best = w
                                if best != v:
                                    mismatches += 1
    return mismatches


@pytest.mark.slow
def test_all_seven_card_hands_exhaustively():
    hist = np.zeros(NUM_HAND_VALUES + 1, dtype=np.int64)
    assert _all_seven_card_hands(hist) == 0
    assert hist.sum() == 133_784_560
    assert hist[0] == 0
    # The 7-card hand reaches 4,824 of the 7,462 classes.
    assert np.count_nonzero(hist) == 4_824
    # Published frequencies of the best five-card category among seven cards.
    by_class = Counter()
    for value in np.flatnonzero(hist):
        by_class[hand_class_name(int(value))] += int(hist[value])
    assert by_class == {
        "Straight Flush": 41_584,
        "Four of a Kind": 224_848,
        "Full House": 3_473_184,
        "Flush": 4_047_644,
        "Straight": 6_180_020,
        "Three of a Kind": 6_461_620,
        "Two Pair": 31_433_400,
        "Pair": 58_627_800,
        "High Card": 23_294_460,
    }


@pytest.mark.slow
def test_more_random_seven_card_hands_match_treys():
    hands = random_hands(2_000_000, 7, seed=77)
    ref = np.array([treys_rank(h) for h in hands.tolist()])
    np.testing.assert_array_equal(evaluate_batch(hands), 7463 - ref)


def test_rank_and_suit_chars_match_encoding():
    # The evaluator relies on card = rank * 4 + suit with suits c, d, h, s.
    assert format_card(51) == "As" and RANK_CHARS[-1] == "A" and SUIT_CHARS == "cdhs"

