"""Action abstraction: bet menus as pot fractions per round and raise depth, plus all-in.

Pot-fraction convention: a raise of fraction ``f`` means

    raise-to = max_spent + f * (pot after calling)

where ``pot after calling`` is the pot once the player to act has called
(``state.pot + state.to_call()``). So ``f = 1`` is a pot-sized raise: facing a
bet of 100 into 300 the pot after calling is 500 and a pot raise goes to
``max_spent + 500``. Every size is rounded to whole chips and clamped into
``State.raise_bounds()`` (a size below the minimum raise becomes the minimum
raise; above the stack, all-in); duplicates are dropped.

The *raise depth* is the number of raises already made in the current round
(0 = opening bet, 1 = raise, ...); depths past the last listed reuse the last
list, and an empty list means only all-in. In a limit game the menu is every
legal kind.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.state import State
>>> menu = BetMenu.tiny()
>>> [str(a) for a in menu(State.initial(load_game("hunl")))]
['f', 'c', 'r300', 'r20000']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pokerbot.errors import IllegalActionError
from pokerbot.state import CALL, FOLD, RAISE, Action, State, raise_to

__all__ = ["BetMenu", "raise_size_for_fraction", "fraction_of_raise"]


def raise_size_for_fraction(state: State, fraction: float) -> int:
    """Raise-to total (unclamped, whole chips) of a raise of ``fraction`` of the pot after calling.

    >>> from pokerbot.gamedef import load_game
    >>> raise_size_for_fraction(State.initial(load_game("hunl")), 1.0)
    300
    """
    pot_after_call = state.pot + state.to_call()
    return int(round(state.max_spent + fraction * pot_after_call))


def fraction_of_raise(state: State, size: int) -> float:
    """Inverse of :func:`raise_size_for_fraction`: the pot fraction of a raise to ``size``."""
    pot_after_call = state.pot + state.to_call()
    return (size - state.max_spent) / pot_after_call


class BetMenu:
    """Abstract actions at a state: fold (when legal), call, pot-fraction raises and all-in.

    ``fractions`` maps a round to a list, per raise depth, of pot fractions; a
    round missing from the mapping uses the entry of the largest listed round
    below it. ``allin`` adds the all-in raise whenever a raise is legal.

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.state import State, CALL
    >>> menu = BetMenu({0: [[0.5, 1.0]], 1: [[0.5, 1.0], [1.0]]})
    >>> s = State.initial(load_game("hunl")).apply(CALL)
    >>> [str(a) for a in menu(s)]
    ['c', 'r200', 'r300', 'r20000']
    """

    def __init__(self, fractions: Mapping[int, Sequence[Sequence[float]]], allin: bool = True, name: str = "custom"):
        if not fractions:
            raise IllegalActionError("a bet menu needs fractions for at least one round")
        fr: dict[int, tuple[tuple[float, ...], ...]] = {}
        for rnd, depths in fractions.items():
            if int(rnd) != rnd or rnd < 0:
                raise IllegalActionError(f"bet menu round must be a non-negative int, got {rnd!r}")
            ds = tuple(tuple(float(f) for f in d) for d in depths)
            for d in ds:
                for f in d:
                    if not f > 0:
                        raise IllegalActionError(f"bet menu fractions must be positive, got {f!r} in round {rnd}")
            fr[int(rnd)] = ds
        if 0 not in fr:
            raise IllegalActionError("a bet menu must list round 0")
        self.fractions = fr
        self.allin = bool(allin)
        self.name = name

    @classmethod
    def tiny(cls) -> BetMenu:
        """Pot-sized raises and all-in in every round (then all-in only after two raises)."""
        return cls({0: [[1.0], [1.0], []]}, name="tiny")

    @classmethod
    def default(cls) -> BetMenu:
        """A richer menu: several opening sizes, fewer as raises stack up, always all-in."""
        return cls(
            {
                0: [[0.5, 1.0, 2.0], [0.75, 1.5], [1.0], []],
                1: [[0.33, 0.67, 1.0, 2.0], [0.75, 1.5], [1.0], []],
                2: [[0.5, 1.0, 2.0], [1.0], []],
                3: [[0.5, 1.0, 2.0], [1.0], []],
            },
            name="default",
        )

    def fractions_at(self, round_: int, depth: int) -> tuple[float, ...]:
        """Pot fractions offered in round ``round_`` after ``depth`` raises this round."""
        rnd = max(r for r in self.fractions if r <= round_)
        depths = self.fractions[rnd]
        if not depths:
            return ()
        return depths[min(depth, len(depths) - 1)]

    def raise_sizes(self, state: State) -> list[int]:
        """Sorted distinct raise-to totals of the menu at ``state`` (empty when no raise is legal)."""
        bounds = state.raise_bounds()
        if bounds is None or not state.game.nolimit:
            return []
        lo, hi = bounds
        sizes = set()
        for f in self.fractions_at(state.round, state.num_raises()):
            sizes.add(min(max(raise_size_for_fraction(state, f), lo), hi))
        if self.allin:
            sizes.add(hi)
        return sorted(sizes)

    def __call__(self, state: State) -> list[Action]:
        """The abstract actions at ``state``: fold when legal, call, then raises by size."""
        if state.finished:
            return []
        acts: list[Action] = []
        if state.can_fold():
            acts.append(FOLD)
        acts.append(CALL)
        if not state.game.nolimit:
            if state.raise_bounds() is not None:
                acts.append(RAISE)
            return acts
        acts.extend(raise_to(s) for s in self.raise_sizes(state))
        return acts

    def contains(self, state: State, action: Action) -> bool:
        """Whether ``action`` is one of the menu's actions at ``state``."""
        return action in self(state)

    def __repr__(self) -> str:
        return f"BetMenu({self.name!r}, {self.fractions}, allin={self.allin})"

