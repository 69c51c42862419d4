"""An ACPC 2.0.0 player: connects an :class:`~pokerbot.agent.Agent` to any ACPC dealer.

It sends ``VERSION:2.0.0``, then reads the dealer's match states one line at
a time (whatever way TCP splits them), skips comment lines, tells the agent
when a hand begins and ends, and answers ``<state>:<action>`` only when the
state says it is the agent's turn. It returns when the dealer closes the
connection; :attr:`ClientResult.closed_mid_hand` tells an aborted match (closed
in the middle of a hand) from a finished one. An exception of the agent becomes
an :class:`AgentError` naming the agent and the hand.

>>> # with a dealer listening on 127.0.0.1:PORT for seat 1:
>>> # play_acpc(make_agent("call", game), game, "127.0.0.1", PORT)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from pokerbot.actions import action_text, betting_actions
from pokerbot.agent import Agent, legal_or_call
from pokerbot.cards import parse_cards
from pokerbot.errors import MatchStateError, PokerbotError, ProtocolError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState, parse_matchstate
from pokerbot.protocol.net import LineConnection, LineTimeout, connect
from pokerbot.state import State

VERSION_LINE = "VERSION:2.0.0"


class AgentError(PokerbotError):
    """The agent raised while playing over ACPC; the message names the agent, the hand and its error."""


@dataclass
class ClientResult:
    """What a player saw of a match: chips won per finished hand (its own view)."""

    hand_values: list[float] = field(default_factory=list)
    actions_sent: int = 0
    #: Actions the agent returned that were not legal (sent as the dealer's repair instead).
    repaired: int = 0
    #: The dealer closed the connection in the middle of a hand (the match was aborted), not after one.
    closed_mid_hand: bool = False
    #: The hand the dealer's last state belonged to (None before the first state).
    last_hand_id: int | None = None

    @property
    def hands(self) -> int:
        return len(self.hand_values)

    @property
    def total(self) -> float:
        return float(sum(self.hand_values))


class MatchStateReader:
    """Parses a dealer's successive MATCHSTATE lines, replaying only the new actions of a hand.

    Within a hand each state extends the previous one, so re-parsing the whole
    betting string every time (what :func:`parse_matchstate` must do) is
    wasted work; this reader applies just the new actions and reads the cards.
    Anything unusual (a new hand, betting that does not extend the last, odd
    cards) goes through :func:`parse_matchstate`, which raises the typed error.

    >>> from pokerbot.gamedef import load_game
    >>> reader = MatchStateReader(load_game("hunl"))
    >>> _ = reader.parse("MATCHSTATE:1:7::|AsKd")
    >>> ms = reader.parse("MATCHSTATE:1:7:r300c/:|AsKd/2c3c4c")
    >>> ms.state.round, ms.state.pot, ms == parse_matchstate(load_game("hunl"), "MATCHSTATE:1:7:r300c/:|AsKd/2c3c4c")
    (1, 600, True)
    """

    def __init__(self, game: GameDef) -> None:
        self.game = game
        self._key: tuple[str, str] | None = None
        self._betting = ""
        self._state: State | None = None
        self._cards_text = ""
        self._cards: tuple[tuple[tuple[int, ...], ...], tuple[int, ...]] | None = None
        self._holes_text = ""
        self._holes: tuple[tuple[int, ...], ...] = ()

    def parse(self, line: str) -> MatchState:
        parts = line.split(":", 4)
        if len(parts) != 5 or parts[0] != "MATCHSTATE":
            return parse_matchstate(self.game, line)  # raises MatchStateError naming the problem
        return self._parse_parts(line, parts)

    def _parse_parts(self, line: str, parts: list[str]) -> MatchState:
        _, viewer, hand, betting, cards = parts
        state = self._extend(viewer, hand, betting)
        if state is not None:
            view = self._with_cards(state, int(viewer), cards)
            if view is not None:
                return view
        view = parse_matchstate(self.game, line)
        self._key, self._betting, self._state = (viewer, hand), betting, view.state
        return view

    def step(self, line: str) -> MatchState | None:
        """What :meth:`others_turn` and then :meth:`parse` give, reading ``line`` once.

        None if the state continues the hand, is unfinished and another player
        acts (nothing to tell the agent); otherwise the parsed view.
        """
        parts = line.split(":", 4)
        if len(parts) != 5 or parts[0] != "MATCHSTATE":
            return parse_matchstate(self.game, line)  # raises MatchStateError naming the problem
        state = self._extend(parts[1], parts[2], parts[3])
        if state is not None and not state.finished and state.current_player != int(parts[1]):
            return None
        return self._parse_parts(line, parts)

    def others_turn(self, line: str) -> bool:
        """True if ``line`` continues the hand being read, is unfinished and another player acts.

        Such a state needs no view (nothing to answer), so the caller may skip
        :meth:`parse`; its betting is still followed. Its cards are checked with the next state parsed.
        """
        parts = line.split(":", 4)
        if len(parts) != 5 or parts[0] != "MATCHSTATE":
            return False
        _, viewer, hand, betting, _ = parts
        state = self._extend(viewer, hand, betting)
        return state is not None and not state.finished and state.current_player != int(viewer)

    def _extend(self, viewer: str, hand: str, betting: str) -> State | None:
        if self._key != (viewer, hand) or self._state is None or not betting.startswith(self._betting):
            return None
        state = self._state
        if len(betting) == len(self._betting):
            return state  # nothing new (the state was already followed by others_turn)
        try:
            for _, action in betting_actions(betting[len(self._betting) :], self.game.nolimit):
                state = state.apply(action)  # IllegalActionError (a PokerbotError) if not legal
        except PokerbotError:
            return None
        self._betting, self._state = betting, state
        return state

    def _with_cards(self, state: State, viewer: int, text: str) -> MatchState | None:
        if text == self._cards_text and self._cards is not None:
            holes, board = self._cards  # same cards as the last state (same round): already checked
            return MatchState(viewer, state._replace_cards(holes, board))
        game = self.game
        segments = text.split("/")
        if len(segments) != state.round + 1:
            return None
        try:
            if segments[0] == self._holes_text:
                holes = self._holes  # the hole cards did not change (a new round of the hand)
            else:
                holes = tuple(tuple(parse_cards(h)) for h in segments[0].split("|"))
            board = tuple(c for seg in segments[1:] for c in parse_cards(seg))
        except PokerbotError:
            return None
        if len(holes) != game.num_players or any(len(h) not in (0, game.num_hole_cards) for h in holes):
            return None
        if any(len(parse_cards_len) != game.num_board_cards[r + 1] * 2
               for r, parse_cards_len in enumerate(segments[1:])):
            return None
        if game.num_board_cards[0] or not holes[viewer]:
            return None  # round-0 board cards or a missing own hand: leave it to the full parser
        every = [c for h in holes for c in h] + list(board)
        if len(set(every)) != len(every):
            return None
        self._cards_text, self._cards = text, (holes, board)
        self._holes_text, self._holes = segments[0], holes
        return MatchState(viewer, state._replace_cards(holes, board))


def plural(n: int, noun: str) -> str:
    """``n`` and ``noun``, with an ``s`` unless ``n`` is 1.

    >>> plural(1, "finished hand"), plural(0, "hand")
    ('1 finished hand', '0 hands')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def format_response(line: str, text: str) -> str:
    """The response to the state ``line``: the state, a colon, the action's text."""
    return f"{line}:{text}"


def play_connection(
    agent: Agent,
    game: GameDef,
    conn: LineConnection,
    idle_timeout: float | None = None,
    on_hand: Callable[[MatchState, float], None] | None = None,
    err: TextIO | None = None,
    track_values: bool = True,
) -> ClientResult:
    """Play a match over an open connection (after nothing has been sent on it).

    ``idle_timeout`` (seconds) bounds the wait for each dealer message (None:
    wait as long as the dealer takes; :class:`LineTimeout` after it). ``on_hand(final_view, chips_won)`` is
    called after each finished hand. ``track_values=False`` skips scoring the
    hands (``hand_values`` are then 0), for callers that take the score from the dealer.
    """
    import time

    err = err if err is not None else sys.stderr
    result = ClientResult()
    conn.send_line(VERSION_LINE)
    hand_id: int | None = None
    in_hand = False  # the last state read belongs to an unfinished hand
    try:
        agent.begin_match(game)
    except Exception as exc:
        raise _agent_error(agent, "at the start of the match", exc) from exc
    reader = MatchStateReader(game)
    while True:
        deadline = None if idle_timeout is None else time.monotonic() + idle_timeout
        try:
            line = conn.read_line(deadline)
        except LineTimeout:
            raise LineTimeout(f"no message from the dealer for {idle_timeout:g} s "
                              f"(after {plural(result.hands, 'finished hand')})") from None
        if line is None:
            result.closed_mid_hand = in_hand  # the dealer closed the connection: the match is over (or aborted)
            break
        if not line or line[0] in "#;":
            continue
        try:
            view = reader.step(line)
        except MatchStateError as exc:
            raise ProtocolError(f"garbled message from the dealer: {exc}") from exc
        if view is None:
            in_hand = True
            continue  # not our turn and nothing to tell the agent
        state = view.state
        in_hand = not state.finished
        if state.hand_id != hand_id:
            hand_id = result.last_hand_id = state.hand_id
            try:
                agent.begin_hand(view)
            except Exception as exc:
                raise _agent_error(agent, f"at the start of hand {hand_id}", exc) from exc
        if state.finished:
            value = state.payoffs()[view.viewer] if track_values else 0.0
            result.hand_values.append(value)
            try:
                agent.end_hand(view)
            except Exception as exc:
                raise _agent_error(agent, f"at the end of hand {hand_id}", exc) from exc
            if on_hand is not None:
                on_hand(view, value)
            continue
        if not view.is_my_turn:
            continue
        try:
            action = agent.act(view)
        except Exception as exc:  # a stop signal (KeyboardInterrupt) passes through
            betting = state.betting_string()
            raise _agent_error(agent, f"in hand {hand_id}" + (f" after {betting!r}" if betting else ""),
                               exc) from exc
        fixed = legal_or_call(state, action)
        if fixed != action:
            result.repaired += 1
            print(f"WARNING: {agent.name} chose illegal {action} at {state.betting_string()!r}; sent {fixed}",
                  file=err)
        conn.send_line(format_response(line, action_text(fixed, game.nolimit)))
        result.actions_sent += 1
    return result


def _agent_error(agent: Agent, where: str, exc: Exception) -> AgentError:
    """The :class:`AgentError` for ``exc``, raised by ``agent`` ``where``."""
    return AgentError(f"the agent {agent.name} failed {where}: {type(exc).__name__}: {exc}")


def warm_up(game: GameDef) -> None:
    """Load the compiled hand evaluator (a second or two the first time in a process)."""
    from pokerbot.evaluator import evaluate

    n = min(game.num_hole_cards + game.total_board_cards, 7)
    evaluate(game.deck()[:n])


def play_acpc(
    agent: Agent,
    game: GameDef,
    host: str,
    port: int,
    idle_timeout: float | None = None,
    on_hand: Callable[[MatchState, float], None] | None = None,
    err: TextIO | None = None,
    track_values: bool = True,
) -> ClientResult:
    """Connect to ``host:port`` and play until the dealer ends the match.

    The hand evaluator is loaded first, so that the first showdown does not
    spend the agent's response time on compiling it.
    """
    warm_up(game)
    conn = connect(host, port)
    try:
        return play_connection(agent, game, conn, idle_timeout=idle_timeout, on_hand=on_hand, err=err,
                               track_values=track_values)
    finally:
        conn.close()
