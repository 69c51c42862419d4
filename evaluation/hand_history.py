"""Hand histories from ACPC logs: one player's per-hand chips, win rate, and per-hand records.

Reads any log in the ACPC dealer's format (ours or the reference dealer's),
so matches played elsewhere can be scored the same way.

>>> from pokerbot.gamedef import load_game
>>> lines = ["STATE:0:cc:Ks|Qs:1|-1:A|B", "STATE:1:rf:Qs|As:-1|1:B|A", "SCORE:2|-2:A|B"]
>>> log = history_from_lines(load_game("kuhn"), lines)
>>> chips_of(log, "A").tolist(), str(log_win_rate(log, load_game("kuhn"), "A").mbb)
([1.0, 1.0], '1000.0')
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np

from evaluation.stats import WinRate, win_rate
from pokerbot.gamedef import GameDef
from pokerbot.protocol.log import HandRecord, MatchLog, parse_log, read_log

__all__ = ["HandRecord", "MatchLog", "load_history", "history_from_lines", "chips_of", "log_win_rate"]


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
