"""Match logs in the ACPC dealer's format, both directions.

The reference dealer writes ``<match>.log``: a few ``#`` comment lines, one
line per finished hand and a final score::

    # name/game/hands/seed demo holdem.nolimit.2p.reverse_blinds.game 1000 0
    STATE:0:cr13024c/r16916f:5d5c|9hQd/8dAs8s:13024|-13024:Alice|Bob
    ...
    SCORE:195857|-195857:Alice|Bob

A ``STATE`` line gives the hand's final state, each player's chips won and the
players' names, all in *player* (position) order for that hand; ``SCORE`` gives
the totals in *seat* order (the order of the names on the dealer's command
line). Numbers print with six decimals and trailing zeros removed, as ``%.6f``
does in the C dealer.

>>> from pokerbot.gamedef import load_game
>>> game = load_game("hunl")
>>> rec = parse_hand_line(game, "STATE:0:cr13024c/r16916f:5d5c|9hQd/8dAs8s:13024|-13024:Alice|Bob")
>>> rec.hand_id, rec.values, rec.names, rec.value_of("Bob")
(0, (13024.0, -13024.0), ('Alice', 'Bob'), -13024.0)
>>> format_value(-13024.0), format_value(0.5)
('-13024', '0.5')
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from pokerbot.errors import MatchStateError, PokerbotError, ProtocolError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import format_state, parse_state
from pokerbot.state import State


def format_value(value: float) -> str:
    """A chip value as the C dealer prints it: ``%.6f`` without trailing zeros or point."""
    text = f"{value:.6f}".rstrip("0")
    return text.rstrip(".")


@dataclass(frozen=True)
class HandRecord:
    """One finished hand of a log: final state, chips won and names, in player order."""

    hand_id: int
    state: State
    values: tuple[float, ...]
    names: tuple[str, ...]

    def value_of(self, name: str) -> float:
        """Chips won by the player called ``name`` in this hand."""
        try:
            return self.values[self.names.index(name)]
        except ValueError:
            raise KeyError(f"no player {name!r} in hand {self.hand_id} ({', '.join(self.names)})") from None


@dataclass
class MatchLog:
    """A parsed log: comment lines, hands in order and the final score (None if the match broke off)."""

    comments: list[str] = field(default_factory=list)
    hands: list[HandRecord] = field(default_factory=list)
    score: dict[str, float] | None = None

    def totals(self) -> dict[str, float]:
        """Chips won per name summed over the hands (equals ``score`` for a complete log)."""
        totals: dict[str, float] = {}
        for hand in self.hands:
            for name, value in zip(hand.names, hand.values):
                totals[name] = totals.get(name, 0.0) + value
        return totals


def format_hand_line(state: State, values: Sequence[float], names: Sequence[str]) -> str:
    """The log line of a finished hand (``values`` and ``names`` in player order)."""
    vals = "|".join(format_value(v) for v in values)
    return f"{format_state(state)}:{vals}:{'|'.join(names)}"


def format_score_line(totals: Sequence[float], seat_names: Sequence[str]) -> str:
    """The final ``SCORE`` line (totals and names in seat order)."""
    return f"SCORE:{'|'.join(format_value(v) for v in totals)}:{'|'.join(seat_names)}"


def header_lines(
    match: str, game_file: str, hands: int, seed: int, t_response_ms: int, t_hand_ms: int, t_per_hand_ms: int
) -> list[str]:
    """The dealer's opening comment lines, written to stderr and the log."""
    return [
        f"# name/game/hands/seed {match} {game_file} {hands} {seed}",
        f"#--t_response {t_response_ms}",
        f"#--t_hand {t_hand_ms}",
        f"#--t_per_hand {t_per_hand_ms}",
    ]


def parse_hand_line(game: GameDef, line: str, check_chips: bool = False) -> HandRecord:
    """Parse one ``STATE:...:<values>:<names>`` log line (``check_chips``: and refuse chips that are not what the
    hand's final state pays)."""
    line = line.rstrip("\r\n")
    head, sep, names_text = line.rpartition(":")
    state_text, sep2, values_text = head.rpartition(":")
    if not sep or not sep2:
        raise MatchStateError(f"log line needs ':<values>:<names>' after the state: {line!r}")
    names = tuple(names_text.split("|"))
    try:
        values = tuple(float(v) for v in values_text.split("|"))
    except ValueError:
        raise MatchStateError(f"bad values {values_text!r} in log line {line!r}") from None
    if len(values) != game.num_players or len(names) != game.num_players:
        raise MatchStateError(f"log line needs {game.num_players} values and names: {line!r}")
    state = parse_state(game, state_text)
    if not state.finished:
        raise MatchStateError(f"log line holds an unfinished hand: {line!r}")
    if check_chips:
        try:
            payoffs = state.payoffs()
        except PokerbotError as exc:  # a showdown without the cards to score it
            raise MatchStateError(f"log line holds a hand that cannot be scored ({exc}): {line!r}") from None
        if not all(math.isclose(v, p, rel_tol=1e-9, abs_tol=1e-6) for v, p in zip(values, payoffs)):
            raise MatchStateError(f"log line gives the chips {values_text!r}, the hand pays "
                                  f"{'|'.join(format_value(p) for p in payoffs)}: {line!r}")
    return HandRecord(state.hand_id, state, values, names)


def parse_log(game: GameDef, lines: Iterable[str], check_chips: bool = False) -> MatchLog:
    """Parse the lines of an ACPC log; MatchStateError naming the line number on bad input (``check_chips``: a
    hand whose chips are not what its final state pays is bad input too)."""
    log = MatchLog()
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line:
            continue
        try:
            if line.startswith("#"):
                log.comments.append(line)
            elif line.startswith("STATE:"):
                log.hands.append(parse_hand_line(game, line, check_chips))
            elif line.startswith("SCORE:"):
                _, values_text, names_text = line.split(":", 2)
                names = names_text.split("|")
                values = [float(v) for v in values_text.split("|")]
                if len(names) != len(values):
                    raise MatchStateError(f"SCORE has {len(values)} values and {len(names)} names")
                log.score = dict(zip(names, values))
            else:
                raise MatchStateError(f"unknown log line {line!r}")
        except (MatchStateError, ValueError) as exc:
            raise MatchStateError(f"log line {number}: {exc}") from exc
    return log


def read_log(game: GameDef, path: str | os.PathLike[str]) -> MatchLog:
    """Parse the ACPC log file at ``path``; MatchStateError naming the file and the line if it cannot be read or
    is not a log of ``game`` (a hand's chips that its final state does not pay included)."""
    try:
        with open(path, encoding="utf-8") as f:
            return parse_log(game, f, check_chips=True)
    except MatchStateError as exc:
        raise MatchStateError(f"{os.fspath(path)}: not an ACPC log of {game.name or 'this game'} ({exc})") from None
    except OSError as exc:
        raise MatchStateError(f"cannot read log {os.fspath(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise MatchStateError(f"{os.fspath(path)}: not an ACPC log (not UTF-8 text: {exc.reason})") from None


class LogWriter:
    """Writes a log as the match goes; every line is flushed at once so no finished hand is lost."""

    def __init__(self, path: str | os.PathLike[str] | None, append: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self._file: IO[str] | None = None
        if self.path is not None:
            try:
                self._file = open(self.path, "a" if append else "w")
            except OSError as exc:
                raise ProtocolError(f"could not open log file {self.path}: {exc}") from exc

    def write(self, line: str) -> None:
        if self._file is not None:
            self._file.write(line + "\n")
            self._file.flush()

    def hand(self, state: State, values: Sequence[float], names: Sequence[str]) -> None:
        if self._file is not None:
            self.write(format_hand_line(state, values, names))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
