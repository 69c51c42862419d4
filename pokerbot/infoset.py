"""Information-set keys and action labels shared by every strategy in the project.

An information set is named the way an ACPC player sees it: its own hole cards,
the board grouped by round, and the betting string::

    <hole cards>[/<round-1 board>[/<round-2 board>...]]:<betting>

Kuhn "Ks:r", Leduc "Kh/Qs:r2c/" is not possible (limit) but "Kh/Qs:rc/r" is,
HUNL "AsKd/2c3c4c:r300c/". An action is labelled by its ACPC text: "f", "c",
"r" (limit) or "r<raise-to>" (no-limit), as :func:`pokerbot.actions.action_text`
writes it. A strategy is a mapping from keys to
{label: probability}; strategy files of :mod:`pokerbot.solver` store exactly that.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.state import State, RAISE, CALL
>>> from pokerbot.cards import parse_cards
>>> s = State.initial(load_game("leduc"), hole_cards=[parse_cards("Kh"), parse_cards("Qh")],
...                   board_cards=parse_cards("Qs"))
>>> infoset_key(s.apply(RAISE).apply(CALL).apply(RAISE), 1)
'Qh/Qs:rc/r'
"""

from __future__ import annotations

from collections.abc import Mapping

from pokerbot.cards import format_cards
from pokerbot.state import State

#: A behaviour strategy: information-set key -> {action label: probability}.
Policy = Mapping[str, Mapping[str, float]]


def board_text(state: State) -> str:
    """The visible board grouped by round, as in MATCHSTATE: '' preflop, '/2c3c4c' on the flop, ..."""
    game = state.game
    return "/".join(
        format_cards(state.board_cards[game.board_cards_before(r) : game.board_cards_through(r)])
        for r in range(state.round + 1)
    )


def infoset_key(state: State, player: int) -> str:
    """The key of ``player``'s information set in ``state`` (its hole cards must be known)."""
    return f"{format_cards(state.hole_cards[player])}{board_text(state)}:{state.betting_string()}"
