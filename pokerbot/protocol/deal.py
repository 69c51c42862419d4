"""Seeded deals identical to the ACPC dealer's.

The ACPC dealer draws cards with MT19937 seeded by ``init_genrand(seed)`` and
deals by "pick index ``genrand_int32() % n``, move the last card into the gap",
from a deck built suit by suit. This module reproduces that stream exactly, so
a match run by :mod:`pokerbot.protocol.dealer` or in-process by
:func:`evaluation.match.play_match` deals the same cards, hand for hand, as the
reference ``dealer`` started with the same seed.

Python's :class:`random.Random` is an MT19937 too; only its seeding differs.
We compute the ``init_genrand`` state (Matsumoto and Nishimura's published
recurrence) and install it with ``setstate``, then ``getrandbits(32)`` is
``genrand_int32``.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.cards import format_cards
>>> dealer = AcpcDeck(load_game("hunl"), seed=0)
>>> holes, board = dealer.deal()
>>> "|".join(format_cards(h) for h in holes), format_cards(board[:3])
('5d5c|9hQd', '8dAs8s')
"""

from __future__ import annotations

import random

from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef

_N = 624


def mt_state(seed: int) -> tuple[int, ...]:
    """The 624-word MT19937 state after ``init_genrand(seed)``."""
    if not 0 <= seed < 2**32:
        raise PokerbotError(f"seed must be in 0..2**32-1 (an ACPC dealer seed), got {seed}")
    mt = [seed & 0xFFFFFFFF]
    for i in range(1, _N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return tuple(mt)


def acpc_random(seed: int) -> random.Random:
    """A :class:`random.Random` whose ``getrandbits(32)`` stream is ACPC ``genrand_int32``."""
    rng = random.Random()
    rng.setstate((3, mt_state(seed) + (_N,), None))
    return rng


def acpc_deck_order(game: GameDef) -> list[int]:
    """The dealer's deck before dealing: suit by suit, ranks ascending within a suit."""
    return [
        rank * 4 + suit
        for suit in range(4 - game.num_suits, 4)
        for rank in range(13 - game.num_ranks, 13)
    ]


class AcpcDeck:
    """Deals hand after hand from one seeded stream, exactly as ``dealCards`` in the ACPC server."""

    def __init__(self, game: GameDef, seed: int) -> None:
        self.game = game
        self.seed = seed
        self._rng = acpc_random(seed)
        self._order = acpc_deck_order(game)

    def deal(self) -> tuple[list[list[int]], list[int]]:
        """The next hand's hole cards (per player) and full board (every round, in deal order)."""
        game = self.game
        deck = list(self._order)
        n = len(deck)
        bits = self._rng.getrandbits
        holes = []
        for _ in range(game.num_players):
            hole = []
            for _ in range(game.num_hole_cards):
                i = bits(32) % n
                hole.append(deck[i])
                deck[i] = deck[n - 1]
                n -= 1
            holes.append(hole)
        board = []
        for _ in range(game.total_board_cards):
            i = bits(32) % n
            board.append(deck[i])
            deck[i] = deck[n - 1]
            n -= 1
        return holes, board
