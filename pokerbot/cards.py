"""Cards as small integers, in the ACPC encoding.

A card is ``rank * 4 + suit`` with ranks 2..A = 0..12 and suits c, d, h, s = 0..3,
exactly as the ACPC server's ``makeCard``. Cards print as two characters ("As",
"Td"). A set of cards is also a 64-bit mask with bit ``card`` set, which makes
card-removal tests a single ``&``.

>>> parse_card("As")
51
>>> format_cards(parse_cards("2cTdAs"))
'2cTdAs'
>>> mask_to_cards(cards_to_mask([0, 51]))
[0, 51]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pokerbot.errors import CardError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = 52


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c, d, h, s)."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise CardError(f"no card with rank {rank} and suit {suit}")
    return rank * NUM_SUITS + suit


def rank_of(card: int) -> int:
    """Rank of ``card``: 0 = deuce .. 12 = ace."""
    return card // NUM_SUITS


def suit_of(card: int) -> int:
    """Suit of ``card``: 0..3 = c, d, h, s."""
    return card % NUM_SUITS


#: Every spelling of a card the parser accepts in the usual ASCII cases, for a one-look-up fast path.
_CARD_CODES = {
    r + s: rank * NUM_SUITS + suit
    for rank, rank_char in enumerate(RANK_CHARS)
    for r in {rank_char, rank_char.lower()}
    for suit, suit_char in enumerate(SUIT_CHARS)
    for s in (suit_char, suit_char.upper())
}


def parse_card(text: str) -> int:
    """Parse a two-character ACPC card ("As", "td"; rank case-insensitive as in ACPC)."""
    code = _CARD_CODES.get(text)
    if code is not None:
        return code
    if len(text) != 2:
        raise CardError(f"a card is two characters, got {text!r}")
    rank = RANK_CHARS.find(text[0].upper())
    suit = SUIT_CHARS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise CardError(f"not a card: {text!r}")
    return rank * NUM_SUITS + suit


def format_card(card: int) -> str:
    """The ACPC string of ``card``."""
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"not a card index: {card}")
    return RANK_CHARS[card // NUM_SUITS] + SUIT_CHARS[card % NUM_SUITS]


def parse_cards(text: str) -> list[int]:
    """Parse concatenated cards ("AsKd" -> [51, 45]); spaces are ignored."""
    text = text.replace(" ", "")
    if len(text) % 2:
        raise CardError(f"odd number of characters in card string {text!r}")
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def format_cards(cards: Iterable[int]) -> str:
    """Concatenated ACPC strings of ``cards``."""
    return "".join(format_card(int(c)) for c in cards)


def cards_to_mask(cards: Iterable[int]) -> int:
    """64-bit mask with one bit per card."""
    mask = 0
    for c in cards:
        mask |= 1 << int(c)
    return mask


def mask_to_cards(mask: int) -> list[int]:
    """Cards of a mask, ascending."""
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def deck(num_ranks: int = NUM_RANKS, num_suits: int = NUM_SUITS) -> list[int]:
    """The cards of an ACPC deck with ``num_ranks`` ranks and ``num_suits`` suits.

    As in the ACPC server, a short deck keeps the highest ranks and the last
    suits: Leduc (3 ranks, 2 suits) is Qh Qs Kh Ks Ah As.

    >>> format_cards(deck(3, 2))
    'QhQsKhKsAhAs'
    """
    if not (1 <= num_ranks <= NUM_RANKS and 1 <= num_suits <= NUM_SUITS):
        raise CardError(f"no deck of {num_ranks} ranks and {num_suits} suits")
    return sorted(
        make_card(r, s)
        for r in range(NUM_RANKS - num_ranks, NUM_RANKS)
        for s in range(NUM_SUITS - num_suits, NUM_SUITS)
    )


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`CardError` if a card repeats."""
    if len(set(cards)) != len(cards):
        raise CardError(f"repeated card in {format_cards(cards)}")
