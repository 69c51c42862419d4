"""Win-rate statistics: mbb/g, means and 95% confidence intervals.

mbb/g is 1000 × chips won per hand / big blind (in Kuhn and Leduc, whose
blinds are 1 chip, it is milli-chips per hand). A confidence interval is the
normal approximation mean ± 1.96 standard errors, with the sample standard
deviation (n - 1); it is only meaningful for a few hundred hands or more.

>>> from pokerbot.gamedef import load_game
>>> to_mbb(150.0, load_game("hunl"))
1500.0
>>> m, h = mean_ci([1.0, -1.0, 1.0, -1.0])
>>> m, round(h, 4)
(0.0, 1.1316)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.gamedef import GameDef

#: Two-sided 95% quantile of the standard normal.
Z95 = 1.959963984540054


def to_mbb(chips: float, game: GameDef) -> float:
    """Chips per hand as mbb/g in ``game``."""
    return 1000.0 * chips / game.big_blind


def mean_ci(values: Sequence[float] | np.ndarray, z: float = Z95) -> tuple[float, float]:
    """(mean, half-width of the confidence interval); the half-width is inf below two values."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return math.nan, math.inf
    mean = float(x.mean())
    if n < 2:
        return mean, math.inf
    return mean, float(z * x.std(ddof=1) / math.sqrt(n))


@dataclass(frozen=True)
class WinRate:
    """A win rate in mbb/g with its 95% confidence half-width."""

    mbb: float
    ci95: float
    hands: int

    def __str__(self) -> str:
        return f"{self.mbb:+.1f} ± {self.ci95:.1f} mbb/g ({self.hands} hands)"


def win_rate(chips: Sequence[float] | np.ndarray, game: GameDef, pair: bool = False) -> WinRate:
    """mbb/g and 95% CI of per-hand chip results.

    With ``pair=True`` the hands are duplicate pairs (hands 2k and 2k+1 share
    their cards): the interval is computed over the pair means, which are
    independent while single hands of a pair are not. An odd last hand is dropped.
    """
    x = np.asarray(chips, dtype=np.float64)
    if pair and x.size >= 2:
        x = x[: x.size // 2 * 2].reshape(-1, 2).mean(axis=1)
        mean, half = mean_ci(x)
        hands = x.size * 2
    else:
        mean, half = mean_ci(x)
        hands = x.size
    return WinRate(to_mbb(mean, game), to_mbb(half, game), hands)
