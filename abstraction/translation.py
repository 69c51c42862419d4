"""Mapping real no-limit actions onto a bet menu: randomized pseudo-harmonic translation.

Ganzfried & Sandholm (2013) map an opponent bet ``x`` lying between two menu
sizes ``A < B`` (all as fractions of the pot) to ``A`` with probability

    f(A, B, x) = (B - x) * (1 + A) / ((B - A) * (1 + x))

and to ``B`` otherwise. It equals 1 at ``x = A`` and 0 at ``x = B``, decreases
monotonically in between, depends on sizes only as pot fractions (scale
invariance) and is continuous in ``x``, ``A`` and ``B`` (robustness) -- the
axioms of the paper, tested in ``tests/test_abstraction_actions.py``.

Sizes here use the bet-menu convention of :mod:`pokerbot.menus`: a raise
to ``s`` is the fraction ``(s - max_spent) / (pot after calling)``. Check/call
is the bet of fraction 0, so it brackets the menu from below: a raise smaller
than the menu's smallest raise ``B`` maps to call with probability
``f(0, B, x) = (B - x) / (B * (1 + x))`` and to ``B`` otherwise (a min-raise
is mostly read as a call, not blown up to the smallest size). A raise above
the largest (all-in) maps to the largest. Fold and call map to themselves; in
a limit game every action is already in the menu. :func:`bracket` is the rule
on bare pot fractions, for callers that hold their own list of sizes (the
blueprint's tree mapping).

>>> pseudo_harmonic(0.5, 1.0, 0.5), pseudo_harmonic(0.5, 1.0, 1.0)
(1.0, 0.0)
>>> round(pseudo_harmonic(0.5, 1.0, 0.75), 4)
0.4286
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from pokerbot.errors import IllegalActionError
from pokerbot.menus import PotFractionMenu, fraction_of_raise
from pokerbot.state import CALL, RAISE, Action, ActionType, State, raise_to

__all__ = ["bracket", "pseudo_harmonic", "translate", "translation_probabilities"]


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


def bracket(x: float, points: Sequence[float]) -> list[tuple[int, float]]:
    """The points bracketing the bet fraction ``x``, as (index, probability) pairs (one or two).

    ``points`` are the abstract sizes as pot fractions, sorted ascending; put
    0.0 first for check/call to bracket small bets by it. ``x`` at or below
    the first point maps to the first, at or above the last to the last, onto
    a point to that point, and between two points by :func:`pseudo_harmonic`.

    >>> bracket(0.5, [0.0, 1.0, 99.5])  # a min-raise preflop: call 1/3 of the time, pot raise 2/3
    [(0, 0.3333333333333333), (1, 0.6666666666666667)]
    >>> bracket(150.0, [0.0, 1.0, 99.5])
    [(2, 1.0)]
    """
    if not points:
        raise IllegalActionError("cannot bracket a bet by an empty list of sizes")
    x = float(x)
    last = len(points) - 1
    if x <= points[0]:
        return [(0, 1.0)]
    if x >= points[last]:
        return [(last, 1.0)]
    for hi in range(1, last + 1):
        if x <= points[hi]:
            if x == points[hi]:
                return [(hi, 1.0)]
            p = pseudo_harmonic(points[hi - 1], points[hi], x)
            return [(hi - 1, p), (hi, 1.0 - p)]
    raise AssertionError("unreachable: x < points[last]")


def translation_probabilities(state: State, action: Action, menu: PotFractionMenu) -> list[tuple[Action, float]]:
    """The menu actions ``action`` maps to and their probabilities (one or two entries).

    A raise below the smallest menu raise is bracketed by call (fraction 0).
    """
    if not state.is_legal(action):
        raise IllegalActionError(f"cannot translate {action}: not legal at {state.betting_string()!r}")
    if action.kind != ActionType.RAISE:
        return [(action, 1.0)]
    if not state.game.nolimit:
        return [(RAISE, 1.0)]
    sizes = menu.raise_sizes(state)
    if not sizes:
        raise IllegalActionError(f"menu {menu.name!r} offers no raise at {state.betting_string()!r}")
    if action.size in sizes:
        return [(action, 1.0)]
    options = [CALL] + [raise_to(s) for s in sizes]
    points = [0.0] + [fraction_of_raise(state, s) for s in sizes]
    return [(options[i], p) for i, p in bracket(fraction_of_raise(state, action.size), points)]


def translate(state: State, action: Action, menu: PotFractionMenu, rng: _Rng | None = None) -> Action:
    """Map a legal real action at ``state`` onto ``menu`` (randomized pseudo-harmonic mapping).

    ``rng`` is anything with ``.random()`` (``random.Random(seed)``,
    ``numpy.random.default_rng(seed)``); the same seed gives the same mapping.

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.state import State, raise_to
    >>> s = State.initial(load_game("hunl"))
    >>> str(translate(s, raise_to(20000), PotFractionMenu.tiny(), random.Random(0)))
    'r20000'
    """
    options = translation_probabilities(state, action, menu)
    if len(options) == 1:
        return options[0][0]
    u = (rng if rng is not None else random.Random(0)).random()
    return options[0][0] if u < options[0][1] else options[1][0]
