"""Showdown hands in words: "two pair, kings and nines", "a full house, aces full of fours".

The best five cards of a player's hole cards and the board are picked with the
project's evaluator (:func:`pokerbot.evaluator.evaluate`, the one the engine
pays showdowns with), and named by category and ranks. With fewer than five
cards (Kuhn, Leduc) every card counts and the categories are the evaluator's for
short hands: high card, pair, two pair, three and four of a kind (no straights,
no flushes).

>>> from pokerbot.cards import parse_cards
>>> describe_hand(parse_cards("KsKh9c9dAs2c3h"))
'two pair, kings and nines'
>>> describe_hand(parse_cards("As2c3d4h5s9c9d"))
'a straight, five high'
>>> showdown_words(parse_cards("AsKd"), parse_cards("AhQc"), parse_cards("Ac7d8h2s3c"))
('a pair of aces, king kicker', 'a pair of aces, queen kicker')
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from pokerbot.evaluator import evaluate, hand_class_name

RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
RANK_PLURALS = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks", "queens",
                "kings", "aces")


def best_five(cards: Sequence[int]) -> tuple[int, ...]:
    """The five cards of ``cards`` that make the best hand (all of them when there are five or fewer)."""
    if len(cards) <= 5:
        return tuple(cards)
    return max(itertools.combinations(cards, 5), key=lambda five: evaluate(five))


def _groups(cards: Sequence[int]) -> list[tuple[int, int]]:
    """(count, rank) of the ranks in ``cards``, largest group first, then highest rank."""
    counts = Counter(c // 4 for c in cards)
    return sorted(((n, r) for r, n in counts.items()), reverse=True)


def _straight_top(ranks: Sequence[int]) -> int:
    """The top rank of a five-card straight (the wheel A-2-3-4-5 is five high)."""
    top = sorted(set(ranks), reverse=True)
    return 3 if top == [12, 3, 2, 1, 0] else top[0]


def _category(five: Sequence[int]) -> str:
    if len(five) >= 5:
        return hand_class_name(evaluate(five))
    counts = [n for n, _ in _groups(five)]
    if counts[0] == 4:
        return "Four of a Kind"
    if counts[0] == 3:
        return "Three of a Kind"
    if counts[0] == 2:
        return "Two Pair" if len(counts) > 1 and counts[1] == 2 else "Pair"
    return "High Card"


def _words_and_kickers(cards: Sequence[int]) -> tuple[str, list[int]]:
    five = best_five(cards)
    category = _category(five)
    groups = _groups(five)
    ranks = [r for _, r in groups]
    singles = [r for n, r in groups if n == 1]
    if category == "High Card":
        return f"{RANK_NAMES[ranks[0]]} high", ranks[1:]
    if category == "Pair":
        return f"a pair of {RANK_PLURALS[ranks[0]]}", singles
    if category == "Two Pair":
        return f"two pair, {RANK_PLURALS[ranks[0]]} and {RANK_PLURALS[ranks[1]]}", singles
    if category == "Three of a Kind":
        return f"three of a kind, {RANK_PLURALS[ranks[0]]}", singles
    if category == "Straight":
        return f"a straight, {RANK_NAMES[_straight_top(ranks)]} high", []
    if category == "Flush":
        return f"a flush, {RANK_NAMES[ranks[0]]} high", ranks[1:]
    if category == "Full House":
        return f"a full house, {RANK_PLURALS[ranks[0]]} full of {RANK_PLURALS[ranks[1]]}", []
    if category == "Four of a Kind":
        return f"four of a kind, {RANK_PLURALS[ranks[0]]}", singles
    top = _straight_top(ranks)
    return ("a royal flush" if top == 12 else f"a straight flush, {RANK_NAMES[top]} high"), []


def describe_hand(cards: Sequence[int]) -> str:
    """The best hand of ``cards`` (hole cards and board together) in words, without kickers.

    >>> from pokerbot.cards import parse_cards
    >>> [describe_hand(parse_cards(c)) for c in ("KsKhKd9c9d2s3h", "AsKsQsJsTs", "7c7d", "Kh")]
    ['a full house, kings full of nines', 'a royal flush', 'a pair of sevens', 'king high']
    """
    return _words_and_kickers(cards)[0]


def showdown_words(hole_a: Sequence[int], hole_b: Sequence[int], board: Sequence[int]) -> tuple[str, str]:
    """Both players' hands in words; when the words are the same but one hand is better, the deciding kicker too.

    >>> from pokerbot.cards import parse_cards
    >>> showdown_words(parse_cards("AsKd"), parse_cards("AhKc"), parse_cards("2c7d8h9sJc"))
    ('ace high', 'ace high')
    """
    cards_a, cards_b = list(hole_a) + list(board), list(hole_b) + list(board)
    (words_a, kick_a), (words_b, kick_b) = _words_and_kickers(cards_a), _words_and_kickers(cards_b)
    if words_a == words_b and evaluate(best_five(cards_a)) != evaluate(best_five(cards_b)):
        for ra, rb in zip(kick_a, kick_b):
            if ra != rb:
                return f"{words_a}, {RANK_NAMES[ra]} kicker", f"{words_b}, {RANK_NAMES[rb]} kicker"
    return words_a, words_b
