"""Poker actions and their text: the one codec between an :class:`Action` and ACPC text.

An action is a fold, a call (also a check) or a raise (also a bet); a no-limit
raise carries its raise-to total, the chips the raiser has in the pot after it.
Its text is the ACPC protocol's (version 2.0.0): ``f``, ``c``, ``r`` for a limit
raise and ``r<size>`` for a no-limit one. A *betting string* is the rounds'
action texts joined by ``/`` (``r300c/cr900f``). The same text labels the
branches of the betting trees, the public trees and the policies' action keys,
so every writer and reader of it in the project goes through this module:
:func:`action_text` and ``str(action)`` write one action, :func:`betting_text`
a betting string; :func:`parse_action`, :func:`action_from_text` and
:func:`betting_actions` read them back.

>>> [str(a) for _, a in betting_actions("r300c/cr900f", nolimit=True)]
['r300', 'c', 'c', 'r900', 'f']
>>> betting_text([[raise_to(300), CALL], [CALL, raise_to(900), FOLD]])
'r300c/cr900f'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

from pokerbot.errors import BettingStringError

__all__ = [
    "CALL",
    "FOLD",
    "RAISE",
    "Action",
    "ActionType",
    "action_from_text",
    "action_text",
    "betting_actions",
    "betting_text",
    "parse_action",
    "raise_to",
]

#: The letter of each action kind, in :class:`ActionType` order.
_CHARS = "fcr"


class ActionType(IntEnum):
    FOLD = 0
    CALL = 1  # also check
    RAISE = 2  # also bet

    @property
    def char(self) -> str:
        """The kind's letter: ``f``, ``c`` or ``r``.

        >>> ActionType.CALL.char
        'c'
        """
        return _CHARS[self]


#: ``ActionType.RAISE`` as a plain int, for the hot paths (the writers run in every tree build).
_RAISE = int(ActionType.RAISE)


@dataclass(frozen=True, slots=True)
class Action:
    """An action. ``size`` is the no-limit raise-to total (chips in the pot after it); 0 otherwise.

    ``str(action)`` is its :func:`action_text` (the size written when it has one).
    """

    kind: ActionType
    size: int = 0

    def __str__(self) -> str:
        return action_text(self)


FOLD = Action(ActionType.FOLD)
CALL = Action(ActionType.CALL)
#: A limit raise (the game fixes its size).
RAISE = Action(ActionType.RAISE)
_PLAIN_ACTIONS = (FOLD, CALL, RAISE)


def raise_to(size: int) -> Action:
    """A no-limit raise to a total of ``size`` chips in the pot for the raiser.

    >>> raise_to(300)
    Action(kind=<ActionType.RAISE: 2>, size=300)
    """
    return Action(ActionType.RAISE, int(size))


def action_text(action: Action, nolimit: bool = True) -> str:
    """The ACPC text of ``action``: ``f``, ``c``, ``r`` or ``r<size>``.

    The size is written for a raise that has one in a no-limit game; in a limit
    game (``nolimit=False``) every raise is ``r``, whatever its size.

    >>> action_text(raise_to(300)), action_text(raise_to(300), nolimit=False), action_text(RAISE), action_text(FOLD)
    ('r300', 'r', 'r', 'f')
    """
    size = action.size
    if size and nolimit and action.kind == _RAISE:
        return f"r{size}"
    return _CHARS[action.kind]


def betting_text(rounds: Iterable[Iterable[Action]], nolimit: bool = True) -> str:
    """The ACPC betting string of the actions of each round: rounds joined by ``/``.

    >>> betting_text([[raise_to(300), CALL], []])
    'r300c/'
    """
    return "/".join(["".join([action_text(a, nolimit) for a in rnd]) for rnd in rounds])


def parse_action(text: str, nolimit: bool) -> tuple[Action, int]:
    """Parse one action at the start of ``text``; return it and the characters used.

    Raises :class:`~pokerbot.errors.BettingStringError` for an unknown letter or a
    no-limit raise without a size.

    >>> parse_action("r300c/", nolimit=True)
    (Action(kind=<ActionType.RAISE: 2>, size=300), 4)
    >>> parse_action("rc", nolimit=False)
    (Action(kind=<ActionType.RAISE: 2>, size=0), 1)
    """
    if not text:
        raise BettingStringError("empty action")
    kind = _CHARS.find(text[0])
    if kind < 0:
        raise BettingStringError(f"unknown action character {text[0]!r}")
    if kind == _RAISE and nolimit:
        end = 1
        while end < len(text) and text[end] in "0123456789":  # ASCII only: str.isdigit takes '²'
            end += 1
        if end == 1:
            raise BettingStringError(f"no-limit raise without a size in {text!r}")
        return raise_to(int(text[1:end])), end
    return _PLAIN_ACTIONS[kind], 1


def action_from_text(text: str, nolimit: bool) -> Action:
    """The action written ``text`` (all of it, as :func:`action_text` writes one: a tree label).

    >>> action_from_text("r900", nolimit=True), action_from_text("c", nolimit=True)
    (Action(kind=<ActionType.RAISE: 2>, size=900), Action(kind=<ActionType.CALL: 1>, size=0))
    """
    action, used = parse_action(text, nolimit)
    if used != len(text):
        raise BettingStringError(f"{text!r} is not one action")
    return action


def betting_actions(betting: str, nolimit: bool) -> Iterator[tuple[int, Action]]:
    """(position in ``betting``, action) of each action of a betting string, in order (``/`` skipped).

    Parses lazily: a garbled action raises :class:`~pokerbot.errors.BettingStringError`
    only once the actions before it have been taken.

    >>> list(betting_actions("cr/c", nolimit=False))[1:]
    [(1, Action(kind=<ActionType.RAISE: 2>, size=0)), (3, Action(kind=<ActionType.CALL: 1>, size=0))]
    """
    i = 0
    while i < len(betting):
        if betting[i] == "/":
            i += 1
            continue
        action, used = parse_action(betting[i:], nolimit)
        yield i, action
        i += used
