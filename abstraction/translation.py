"""Mapping real no-limit actions onto a bet menu: randomized pseudo-harmonic translation.

Ganzfried & Sandholm (2013) map an opponent bet ``x`` lying between two menu
sizes ``A < B`` (all as fractions of the pot) to ``A`` with probability

    f(A, B, x) = (B - x) * (1 + A) / ((B - A) * (1 + x))

and to ``B`` otherwise. It equals 1 at ``x = A`` and 0 at ``x = B``, decreases
monotonically in between, depends on sizes only as pot fractions (scale
invariance) and is continuous in ``x``, ``A`` and ``B`` (robustness) -- the
axioms of the paper, tested in ``tests/test_abstraction_actions.py``.

Sizes here use the bet-menu convention of :mod:`abstraction.actions`: a raise
to ``s`` is the fraction ``(s - max_spent) / (pot after calling)``. A raise
below the menu's smallest raise maps to that smallest raise, one above the
largest (all-in) to the largest. Fold and call map to themselves; in a limit
game every action is already in the menu.

>>> pseudo_harmonic(0.5, 1.0, 0.5), pseudo_harmonic(0.5, 1.0, 1.0)
(1.0, 0.0)
>>> round(pseudo_harmonic(0.5, 1.0, 0.75), 4)
0.4286
"""

from __future__ import annotations

import random
from typing import Protocol

from abstraction.actions import BetMenu, fraction_of_raise
from pokerbot.errors import IllegalActionError
from pokerbot.state import RAISE, Action, ActionType, State, raise_to

__all__ = ["pseudo_harmonic", "translate", "translation_probabilities"]


class _Rng(Protocol):
    def random(self) -> float: ...


def pseudo_harmonic(a: float, b: float, x: float) -> float:
    """Probability of mapping a bet of pot fraction ``x`` to the smaller size ``a`` (``a <= x <= b``).

    >>> pseudo_harmonic(1.0, 3.0, 2.0)
    0.3333333333333333
    """
    a, b, x = float(a), float(b), float(x)
    if not (0.0 <= a <= b):
        raise IllegalActionError(f"pseudo-harmonic mapping needs 0 <= a <= b, got a={a}, b={b}")
    if not (a <= x <= b):
        raise IllegalActionError(f"bet fraction {x} is outside [{a}, {b}]")
    if a == b:
        return 1.0
    p = (b - x) * (1.0 + a) / ((b - a) * (1.0 + x))
    return min(1.0, max(0.0, p))


def translation_probabilities(state: State, action: Action, menu: BetMenu) -> list[tuple[Action, float]]:
    """The menu actions ``action`` maps to and their probabilities (one or two entries)."""
    if not state.is_legal(action):
        raise IllegalActionError(f"cannot translate {action}: not legal at {state.betting_string()!r}")
    if action.kind != ActionType.RAISE:
        return [(action, 1.0)]
    if not state.game.nolimit:
        return [(RAISE, 1.0)]
    sizes = menu.raise_sizes(state)
    if not sizes:
        raise IllegalActionError(f"menu {menu.name!r} offers no raise at {state.betting_string()!r}")
    x = action.size
    if x <= sizes[0]:
        return [(raise_to(sizes[0]), 1.0)]
    if x >= sizes[-1]:
        return [(raise_to(sizes[-1]), 1.0)]
    for lo, hi in zip(sizes, sizes[1:]):
        if lo <= x <= hi:
            if x == lo:
                return [(raise_to(lo), 1.0)]
            if x == hi:
                return [(raise_to(hi), 1.0)]
            p = pseudo_harmonic(
                fraction_of_raise(state, lo), fraction_of_raise(state, hi), fraction_of_raise(state, x)
            )
            return [(raise_to(lo), p), (raise_to(hi), 1.0 - p)]
    raise AssertionError("unreachable: sizes are sorted")


def translate(state: State, action: Action, menu: BetMenu, rng: _Rng | None = None) -> Action:
    """Map a legal real action at ``state`` onto ``menu`` (randomized pseudo-harmonic mapping).

    ``rng`` is anything with ``.random()`` (``random.Random(seed)``,
    ``numpy.random.default_rng(seed)``); the same seed gives the same mapping.

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.state import State, raise_to
    >>> s = State.initial(load_game("hunl"))
    >>> str(translate(s, raise_to(20000), BetMenu.tiny(), random.Random(0)))
    'r20000'
    """
    options = translation_probabilities(state, action, menu)
    if len(options) == 1:
        return options[0][0]
    u = (rng if rng is not None else random.Random(0)).random()
    return options[0][0] if u < options[0][1] else options[1][0]
