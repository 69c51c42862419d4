"""Hand histories from ACPC logs: one player's per-hand chips, win rate, and per-hand records.

Reads any log in the ACPC dealer's format (ours or the reference dealer's),
so matches played elsewhere can be scored the same way.

>>> from pokerbot.gamedef import load_game
>>> lines = ["STATE:0:cc:Ks|Qs:1|-1:A|B", "STATE:1:crf:Qs|As:-1|1:B|A", "SCORE:2|-2:A|B"]
>>> log = history_from_lines(load_game("kuhn"), lines)
>>> chips_of(log, "A").tolist(), str(log_win_rate(log, load_game("kuhn"), "A").mbb)
([1.0, 1.0], '1000.0')
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from evaluation.stats import WinRate, win_rate
from pokerbot.cards import format_cards
from pokerbot.gamedef import GameDef
from pokerbot.protocol.log import HandRecord, MatchLog, parse_log, read_log

__all__ = ["HandRecord", "MatchLog", "load_history", "history_from_lines", "chips_of", "log_win_rate", "hand_row",
           "hand_rows", "to_frame"]


def load_history(game: GameDef, path: str | os.PathLike[str]) -> MatchLog:
    """The hands and score of the ACPC log at ``path``."""
    return read_log(game, path)


def history_from_lines(game: GameDef, lines: Iterable[str]) -> MatchLog:
    """The hands and score of ACPC log lines."""
    return parse_log(game, lines)


def chips_of(log: MatchLog, name: str) -> np.ndarray:
    """Chips won by ``name`` in each hand, in log order (KeyError if it missed a hand)."""
    return np.array([hand.value_of(name) for hand in log.hands], dtype=np.float64)


def log_win_rate(log: MatchLog, game: GameDef, name: str, duplicate: bool = False) -> WinRate:
    """``name``'s mbb/g with a 95% CI (over pairs of hands in a duplicate log)."""
    return win_rate(chips_of(log, name), game, pair=duplicate)


def hand_row(hand: HandRecord) -> dict[str, Any]:
    """One hand as plain columns: ``hand`` (its number), ``betting`` (ACPC), ``board`` (per round, ``/``-separated),
    ``cards`` (hole cards in position order, ``|``-separated), then ``player<p>`` (name) and ``chips<p>`` (chips
    won) for each position ``p``.

    >>> from pokerbot.gamedef import load_game
    >>> log = history_from_lines(load_game("kuhn"), ["STATE:0:rc:Ks|Qs:2|-2:A|B"])
    >>> hand_row(log.hands[0])
    {'hand': 0, 'betting': 'rc', 'board': '', 'cards': 'Ks|Qs', 'player0': 'A', 'chips0': 2.0, 'player1': 'B', 'chips1': -2.0}
    """
    state = hand.state
    game = state.game
    board = "/".join(format_cards(state.board_cards[game.board_cards_before(r):game.board_cards_through(r)])
                     for r in range(1, state.round + 1))
    row: dict[str, Any] = {"hand": hand.hand_id, "betting": state.betting_string(), "board": board,
                           "cards": "|".join(format_cards(h) for h in state.hole_cards)}
    for p, (name, value) in enumerate(zip(hand.names, hand.values)):
        row[f"player{p}"], row[f"chips{p}"] = name, value
    return row


def hand_rows(log: MatchLog) -> list[dict[str, Any]]:
    """:func:`hand_row` of every hand of ``log``, in log order."""
    return [hand_row(hand) for hand in log.hands]


def to_frame(rows: Sequence[dict[str, Any]]) -> Any:
    """``rows`` (dicts of the same columns) as a pandas DataFrame. pandas is not a pokerbot dependency: without
    it, an ImportError says how to get it (the rows themselves need nothing)."""
    try:
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise ImportError("a DataFrame of the hands needs pandas, which pokerbot does not install: "
                          "pip install pandas (or use the rows as plain dicts: hand_rows)") from None
    return pandas.DataFrame(list(rows))
