"""Cards: the ACPC encoding (rank * 4 + suit), strings, masks and short decks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pokerbot.cards import (
    NUM_CARDS,
    cards_to_mask,
    check_distinct,
    deck,
    format_card,
    format_cards,
    make_card,
    mask_to_cards,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from pokerbot.errors import CardError, PokerbotError

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def test_all_52_round_trip_and_encoding():
    seen = set()
    for r, rc in enumerate(RANKS):
        for s, sc in enumerate(SUITS):
            text = rc + sc
            card = parse_card(text)
            # ACPC makeCard: rank * MAX_SUITS + suit, ranks from the deuce, suits c d h s.
            assert card == r * 4 + s == make_card(r, s)
            assert rank_of(card) == r and suit_of(card) == s
            assert format_card(card) == text
            seen.add(card)
    assert seen == set(range(NUM_CARDS))
    every = "".join(r + s for r in RANKS for s in SUITS)
    assert parse_cards(every) == list(range(52))
    assert format_cards(range(52)) == every


def test_known_cards():
    assert parse_card("2c") == 0
    assert parse_card("2d") == 1
    assert parse_card("3c") == 4
    assert parse_card("As") == 51
    assert parse_card("Kh") == 11 * 4 + 2


def test_case_insensitive_like_acpc_readcard():
    # readCard uses toupper() on the rank and tolower() on the suit.
    assert parse_card("as") == parse_card("As") == parse_card("AS")
    assert parse_card("tD") == parse_card("Td")


def test_parse_cards_ignores_spaces():
    assert parse_cards("As Kd") == [51, 45]
    assert parse_cards("") == []


@pytest.mark.parametrize(
    "text", ["", "A", "Asx", "1s", "Ax", "10s", "Zc", "s A", "  "[:1] + "s"]
)
def test_bad_card_raises_card_error(text):
    with pytest.raises(CardError):
        parse_card(text)


@pytest.mark.parametrize("text", ["AsK", "AsKx", "Xs", "AsAs2"])
def test_bad_card_strings(text):
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert isinstance(info.value, PokerbotError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("card", [-1, 52, 100])
def test_bad_card_index(card):
    with pytest.raises(CardError, match=str(card)):
        format_card(card)


@pytest.mark.parametrize("rank,suit", [(-1, 0), (13, 0), (0, 4), (0, -1)])
def test_make_card_range(rank, suit):
    with pytest.raises(CardError):
        make_card(rank, suit)


def test_masks():
    assert cards_to_mask([]) == 0
    assert cards_to_mask([0]) == 1
    assert cards_to_mask([51]) == 1 << 51
    assert cards_to_mask([0, 51, 51]) == 1 | 1 << 51
    assert mask_to_cards(cards_to_mask(range(52))) == list(range(52))
    assert cards_to_mask(range(52)) == (1 << 52) - 1


@given(st.sets(st.integers(0, 51)))
def test_mask_round_trip(cards):
    mask = cards_to_mask(cards)
    assert mask_to_cards(mask) == sorted(cards)
    assert bin(mask).count("1") == len(cards)
    assert parse_cards(format_cards(sorted(cards))) == sorted(cards)


def test_full_deck():
    assert deck() == list(range(52))
    assert deck(13, 4) == list(range(52))


def _acpc_deck(num_ranks, num_suits):
    # dealCards: for s in MAX_SUITS - numSuits .. MAX_SUITS-1, r in MAX_RANKS - numRanks .. 12
    return {r * 4 + s for s in range(4 - num_suits, 4) for r in range(13 - num_ranks, 13)}


def test_short_decks():
    # Leduc: Q K A in the last two suits (hearts, spades).
    assert format_cards(deck(3, 2)) == "QhQsKhKsAhAs"
    # Kuhn: J Q K? No: ACPC keeps the top ranks, so a 3-rank 1-suit deck is Q K A of spades.
    assert format_cards(deck(3, 1)) == "QsKsAs"
    # Small-deck flop hold'em: 9..A in diamonds, hearts, spades.
    d = deck(6, 3)
    assert len(d) == 18
    assert {format_card(c)[0] for c in d} == set("9TJQKA")
    assert {format_card(c)[1] for c in d} == set("dhs")
    for nr in range(1, 14):
        for ns in range(1, 5):
            cards = deck(nr, ns)
            assert cards == sorted(cards)
            assert set(cards) == _acpc_deck(nr, ns)


@pytest.mark.parametrize("nr,ns", [(0, 4), (14, 4), (13, 0), (13, 5)])
def test_bad_deck(nr, ns):
    with pytest.raises(CardError):
        deck(nr, ns)


def test_check_distinct():
    check_distinct([0, 1, 2])
    check_distinct([])
    with pytest.raises(CardError, match="As"):
        check_distinct([51, 3, 51])
