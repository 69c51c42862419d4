"""Action abstraction: bet menus as pot fractions per round and raise depth, plus all-in.

The menu type and the pot-fraction arithmetic live in :mod:`pokerbot.menus` (one
home for the solver, the blueprint and the real-time agent): the menu is
:class:`pokerbot.menus.PotFractionMenu`. Built from ``{round: [[fractions at
depth 0], [depth 1], ...]}`` it has no raise cap, depths past the last listed
reuse the last list and an empty list means only all-in (see that class). This
module keeps the action abstraction's names of the pot-fraction arithmetic.

Pot-fraction convention: a raise of fraction ``f`` means

    raise-to = max_spent + f * (pot after calling)

where ``pot after calling`` is the pot once the player to act has called
(``state.pot + state.to_call()``); sizes are rounded to whole chips, clamped into
``State.raise_bounds()`` and deduplicated. In a limit game the menu is every
legal kind.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.menus import PotFractionMenu
>>> from pokerbot.state import State
>>> menu = PotFractionMenu.tiny()
>>> [str(a) for a in menu(State.initial(load_game("hunl")))]
['f', 'c', 'r300', 'r20000']
>>> raise_size_for_fraction(State.initial(load_game("hunl")), 1.0)
300
"""

from __future__ import annotations

from pokerbot.menus import fraction_of_raise, raise_size_for_fraction

__all__ = ["raise_size_for_fraction", "fraction_of_raise"]
