"""Lossless card abstraction for small games (Kuhn, Leduc, small-deck flop hold'em).

A bucket is the exact private information of a player in a round: its hole
cards and the visible board, grouped by round. When no flush is possible
(fewer than five cards make a hand, ACPC's partial ranking has no flushes or
straights) suits never matter and cards are identified by rank alone, which
is still lossless (a strategically equivalent game) and shrinks Leduc to 3
preflop and 9 flop buckets per betting node.

For numba the abstraction is one dense table per round over the deck
*positions* of the dealt cards, in deal order (hole cards, then the board
through that round): ``code = sum(pos[i] * D**i)`` and
``bucket = tables[r][code]``. Tables above ``MAX_TABLE`` entries are refused
(use a card abstraction preset for hold'em).

>>> from pokerbot.gamedef import load_game
>>> ab = LosslessAbstraction(load_game("leduc"))
>>> ab.num_buckets
(3, 9)
>>> from pokerbot.cards import parse_cards
>>> ab.bucket(1, parse_cards("Kh"), parse_cards("Ks")) == ab.bucket(1, parse_cards("Ks"), parse_cards("Kh"))
True
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from blueprint.mccfr import deal_lossless
from pokerbot.cards import format_cards, rank_of
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef

#: The largest per-round lookup table built (entries).
MAX_TABLE = 4_000_000


class AbstractionError(PokerbotError, ValueError):
    """A card abstraction that does not fit the game (or is too large to build)."""


class LosslessAbstraction:
    """Exact buckets (private cards + visible board) of a small game.

    Attributes: ``num_buckets`` (per round), ``tables`` (per round, int32 arrays
    over deal codes), ``deck`` (int64 card array: position -> card),
    ``suit_isomorphic`` (True when buckets ignore suits), ``members[r][b]``
    (one list of ``(hole, board)`` card tuples per bucket, for exporting policies).
    """

    name = "lossless"

    def __init__(self, game: GameDef, by_rank: bool | None = None) -> None:
        if game.num_players != 2:
            raise AbstractionError(f"blueprints are heads-up; the game has {game.num_players} players")
        self.game = game
        deck = game.deck()
        self.deck = np.array(deck, dtype=np.int64)
        d = len(deck)
        hand_cards = game.num_hole_cards + game.total_board_cards
        no_flush = hand_cards < 5
        self.suit_isomorphic = no_flush if by_rank is None else bool(by_rank)
        if self.suit_isomorphic and not no_flush:
            raise AbstractionError("rank-only buckets lose information in a game where flushes exist")
        tables: list[np.ndarray] = []
        num_buckets: list[int] = []
        members: list[list[list[tuple[tuple[int, ...], tuple[int, ...]]]]] = []
        h = game.num_hole_cards
        for r in range(game.num_rounds):
            nb = game.board_cards_through(r)
            k = h + nb
            size = d**k
            if size > MAX_TABLE:
                raise AbstractionError(
                    f"a lossless abstraction of {game.name or 'this game'} needs {size:,} table entries in "
                    f"round {r} (limit {MAX_TABLE:,}); use a card abstraction preset instead"
                )
            table = np.full(size, -1, dtype=np.int32)
            ids: dict[tuple, int] = {}
            mem: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = []
            for pos in itertools.permutations(range(d), k):
                cards = [deck[i] for i in pos]
                key = self._canonical(r, cards[:h], cards[h:])
                b = ids.get(key)
                if b is None:
                    b = ids[key] = len(ids)
                    mem.append([])
                hole_t = tuple(sorted(cards[:h]))
                board_t = tuple(cards[h:])
                code = sum(p * d**i for i, p in enumerate(pos))
                table[code] = b
                if self._is_sorted_view(r, cards[:h], cards[h:]):
                    mem[b].append((hole_t, board_t))
            tables.append(table)
            num_buckets.append(len(ids))
            members.append(mem)
        self.tables = tuple(tables)
        self.num_buckets = tuple(num_buckets)
        self.members = members
        self._flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _groups(self, r: int, board: Sequence[int]) -> list[Sequence[int]]:
        game = self.game
        return [board[game.board_cards_before(i) : game.board_cards_through(i)] for i in range(r + 1)]

    def _canonical(self, r: int, hole: Sequence[int], board: Sequence[int]) -> tuple:
        f = rank_of if self.suit_isomorphic else int
        return tuple(tuple(sorted(f(c) for c in g)) for g in [hole, *self._groups(r, board)])

    def _is_sorted_view(self, r: int, hole: Sequence[int], board: Sequence[int]) -> bool:
        """One representative ordering per distinct (hole set, board sets) view."""
        return all(list(g) == sorted(g) for g in [hole, *self._groups(r, board)])

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int]) -> int:
        """Bucket of ``hole`` with the ``board`` visible in ``round_`` (extra board cards are ignored)."""
        game = self.game
        if not 0 <= round_ < game.num_rounds:
            raise AbstractionError(f"no round {round_} in a {game.num_rounds}-round game")
        board = list(board)[: game.board_cards_through(round_)]
        if len(hole) != game.num_hole_cards or len(board) != game.board_cards_through(round_):
            raise AbstractionError(
                f"round {round_} needs {game.num_hole_cards} hole and {game.board_cards_through(round_)} "
                f"board cards, got {format_cards(hole)!r} / {format_cards(board)!r}"
            )
        index = {int(c): i for i, c in enumerate(self.deck)}
        try:
            pos = [index[int(c)] for c in [*hole, *board]]
        except KeyError as exc:
            raise AbstractionError(f"card {exc.args[0]} is not in the deck of this game") from None
        d = len(self.deck)
        b = int(self.tables[round_][sum(p * d**i for i, p in enumerate(pos))])
        if b < 0:
            raise AbstractionError(f"repeated card in {format_cards([*hole, *board])}")
        return b

    def bucket_batch(self, round_: int, cards: np.ndarray) -> np.ndarray:
        """The round-``round_`` bucket of each row of ``cards`` (hole cards, then the board through the round), as
        int64; rows are not validated (a repeated card gives -1)."""
        rows = np.asarray(cards, dtype=np.int64).reshape(len(cards), -1)
        position = np.full(int(self.deck.max()) + 1, -1, dtype=np.int64)
        position[self.deck] = np.arange(len(self.deck))
        codes = (position[rows] * (len(self.deck) ** np.arange(rows.shape[1]))[None, :]).sum(axis=1)
        return np.asarray(self.tables[round_])[codes].astype(np.int64)

    def deal(self, rng: np.ndarray, buckets: np.ndarray, result: np.ndarray) -> None:
        """Fill ``buckets`` (shape ``(n, 2, rounds)``) and ``result`` (``n``) with sampled deals."""
        if self._flat is None:
            offsets = np.cumsum([0] + [len(t) for t in self.tables[:-1]]).astype(np.int64)
            through = np.array([self.game.board_cards_through(r) for r in range(self.game.num_rounds)], np.int64)
            self._flat = (np.concatenate(self.tables), offsets, through)
        flat, offsets, through = self._flat
        deal_lossless(rng, len(result), self.deck, self.game.num_hole_cards, through, flat, offsets, buckets, result)

    def config(self) -> dict:
        return {"cards": "lossless", "suit_isomorphic": self.suit_isomorphic}
