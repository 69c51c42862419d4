"""An ACPC 2.0.0 player: connects an :class:`~pokerbot.agent.Agent` to any ACPC dealer.

It sends ``VERSION:2.0.0``, then reads the dealer's match states one line at
a time (whatever way TCP splits them), skips comment lines, tells the agent
when a hand begins and ends, and answers ``<state>:<action>`` only when the
state says it is the agent's turn. It returns when the dealer closes the
connection at the end of the match.

>>> # with a dealer listening on 127.0.0.1:PORT for seat 1:
>>> # play_acpc(make_agent("call", game), game, "127.0.0.1", PORT)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from pokerbot.agent import Agent, legal_or_call
from pokerbot.errors import MatchStateError, ProtocolError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState, parse_matchstate
from pokerbot.protocol.net import LineConnection, connect

VERSION_LINE = "VERSION:2.0.0"


@dataclass
class ClientResult:
    """What a player saw of a match: chips won per finished hand (its own view)."""

    hand_values: list[float] = field(default_factory=list)
    actions_sent: int = 0
    #: Actions the agent returned that were not legal (sent as the dealer's repair instead).
    repaired: int = 0

    @property
    def hands(self) -> int:
        return len(self.hand_values)

    @property
    def total(self) -> float:
        return float(sum(self.hand_values))


def format_response(line: str, action_text: str) -> str:
    """The response to the state ``line``: the state, a colon, the action."""
    return f"{line}:{action_text}"


def play_connection(
    agent: Agent,
    game: GameDef,
    conn: LineConnection,
    idle_timeout: float | None = None,
    on_hand: Callable[[MatchState, float], None] | None = None,
    err: TextIO | None = None,
) -> ClientResult:
    """Play a match over an open connection (after nothing has been sent on it).

    ``idle_timeout`` (seconds) bounds the wait for each dealer message (None:
    wait as long as the dealer takes). ``on_hand(final_view, chips_won)`` is
    called after each finished hand.
    """
    import time

    from pokerbot.protocol.dealer import format_action

    err = err if err is not None else sys.stderr
    result = ClientResult()
    conn.send_line(VERSION_LINE)
    agent.begin_match(game)
    hand_id: int | None = None
    while True:
        deadline = None if idle_timeout is None else time.monotonic() + idle_timeout
        line = conn.read_line(deadline)
        if line is None:
            break  # the dealer closed the connection: the match is over
        if not line or line[0] in "#;":
            continue
        try:
            view = parse_matchstate(game, line)
        except MatchStateError as exc:
            raise ProtocolError(f"garbled message from the dealer: {exc}") from exc
        state = view.state
        if state.hand_id != hand_id:
            hand_id = state.hand_id
            agent.begin_hand(view)
        if state.finished:
            value = state.payoffs()[view.viewer]
            result.hand_values.append(value)
            agent.end_hand(view)
            if on_hand is not None:
                on_hand(view, value)
            continue
        if not view.is_my_turn:
            continue
        action = agent.act(view)
        fixed = legal_or_call(state, action)
        if fixed != action:
            result.repaired += 1
            print(f"WARNING: {agent.name} chose illegal {action} at {state.betting_string()!r}; sent {fixed}",
                  file=err)
        conn.send_line(format_response(line, format_action(fixed, game)))
        result.actions_sent += 1
    return result


def play_acpc(
    agent: Agent,
    game: GameDef,
    host: str,
    port: int,
    idle_timeout: float | None = None,
    on_hand: Callable[[MatchState, float], None] | None = None,
    err: TextIO | None = None,
) -> ClientResult:
    """Connect to ``host:port`` and play until the dealer ends the match."""
    conn = connect(host, port)
    try:
        return play_connection(agent, game, conn, idle_timeout=idle_timeout, on_hand=on_hand, err=err)
    finally:
        conn.close()
