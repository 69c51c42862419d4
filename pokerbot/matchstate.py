"""ACPC ``STATE`` and ``MATCHSTATE`` strings, both directions.

``MATCHSTATE:<viewer>:<hand>:<betting>:<hole|hole...><board/board...>`` is what
the dealer sends a player; ``STATE:<hand>:<betting>:<holes><board>`` is the
dealer's full view. A player sees only its own hole cards until a showdown.

>>> from pokerbot.gamedef import load_game
>>> game = load_game("hunl")
>>> ms = parse_matchstate(game, "MATCHSTATE:0:7:r300c/:9s8h|/8c8d5c")
>>> ms.viewer, ms.state.round, ms.state.current_player
(0, 1, 0)
>>> format_matchstate(ms.state, ms.viewer)
'MATCHSTATE:0:7:r300c/:9s8h|/8c8d5c'
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerbot.cards import format_cards, parse_card
from pokerbot.errors import CardError, MatchStateError, PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.state import State


@dataclass(frozen=True)
class MatchState:
    """A player's view of a hand: which seat it is in (``viewer``) and the state it can see."""

    viewer: int
    state: State

    @property
    def is_my_turn(self) -> bool:
        return self.state.current_player == self.viewer


def _read_cards(text: str, pos: int, count: int) -> tuple[list[int], int]:
    cards: list[int] = []
    while len(cards) < count and pos + 1 < len(text):
        try:
            cards.append(parse_card(text[pos : pos + 2]))
        except CardError:
            break
        pos += 2
    return cards, pos


def _parse_common(game: GameDef, text: str) -> State:
    """Parse ``<hand>:<betting>:<cards>`` (the part after the header)."""
    parts = text.split(":", 2)
    if len(parts) != 3:
        raise MatchStateError(f"expected <hand>:<betting>:<cards>, got {text!r}")
    hand_text, betting, cards_text = parts
    if not (hand_text.isascii() and hand_text.isdigit()):
        raise MatchStateError(f"bad hand number {hand_text!r}")
    try:
        betting_state = State.from_betting(game, betting, hand_id=int(hand_text))
    except PokerbotError as exc:
        raise MatchStateError(f"bad betting {betting!r}: {exc}") from exc
    holes: list[tuple[int, ...]] = []
    pos = 0
    for p in range(game.num_players):
        if p and pos < len(cards_text) and cards_text[pos] == "|":
            pos += 1
        cards, pos = _read_cards(cards_text, pos, game.num_hole_cards)
        if cards and len(cards) != game.num_hole_cards:
            raise MatchStateError(f"player {p} has {len(cards)} hole cards in {cards_text!r}")
        holes.append(tuple(cards))
    board: list[int] = []
    for r in range(betting_state.round + 1):
        if r and pos < len(cards_text) and cards_text[pos] == "/":
            pos += 1
        cards, pos = _read_cards(cards_text, pos, game.num_board_cards[r])
        if len(cards) != game.num_board_cards[r]:
            raise MatchStateError(f"round {r} needs {game.num_board_cards[r]} board cards in {cards_text!r}")
        board.extend(cards)
    if pos != len(cards_text):
        raise MatchStateError(f"unexpected text {cards_text[pos:]!r} after the cards")
    every_card = [c for h in holes for c in h] + board
    if len(set(every_card)) != len(every_card):
        raise MatchStateError(f"repeated card in {cards_text!r}")
    return betting_state.with_cards(holes, board)


def parse_matchstate(game: GameDef, text: str) -> MatchState:
    """Parse a ``MATCHSTATE`` line (without its line ending)."""
    if not text.startswith("MATCHSTATE:"):
        raise MatchStateError(f"not a MATCHSTATE: {text!r}")
    viewer_text, sep, rest = text[len("MATCHSTATE:") :].partition(":")
    if not sep or not (viewer_text.isascii() and viewer_text.isdigit()) or int(viewer_text) >= game.num_players:
        raise MatchStateError(f"bad viewing player in {text!r}")
    return MatchState(int(viewer_text), _parse_common(game, rest))


def parse_state(game: GameDef, text: str) -> State:
    """Parse a dealer ``STATE`` string (``STATE:<hand>:<betting>:<cards>``)."""
    if not text.startswith("STATE:"):
        raise MatchStateError(f"not a STATE: {text!r}")
    return _parse_common(game, text[len("STATE:") :])


def _board_text(state: State) -> str:
    game = state.game
    return "/".join(
        format_cards(state.board_cards[game.board_cards_before(r) : game.board_cards_through(r)])
        for r in range(state.round + 1)
    )


def _header(state: State) -> str:
    return f"{state.hand_id}:{state.betting_string()}:"


def format_state(state: State) -> str:
    """The dealer's ``STATE`` string: every player's hole cards and the visible board."""
    holes = "|".join(format_cards(h) for h in state.hole_cards)
    return f"STATE:{_header(state)}{holes}{_board_text(state)}"


def format_matchstate(state: State, viewer: int) -> str:
    """What the dealer sends seat ``viewer``: its own cards, others' only at a showdown."""
    show_all = state.is_showdown()
    holes = "|".join(
        format_cards(h) if p == viewer or (show_all and not state.folded[p]) else ""
        for p, h in enumerate(state.hole_cards)
    )
    return f"MATCHSTATE:{viewer}:{_header(state)}{holes}{_board_text(state)}"
