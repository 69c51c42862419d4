"""The interface every playing agent implements.

An agent is told when a match and each hand begin, asked for an action when it
is to act, and shown the final view of each hand. The same agent plays
in-process (:func:`evaluation.match.play_match`) and over the ACPC protocol
(:mod:`pokerbot.protocol.client`); in both it sees exactly what an ACPC player
sees: a :class:`~pokerbot.matchstate.MatchState` holding its own hole cards,
the visible board and the betting, and the opponents' cards only at a showdown.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.matchstate import parse_matchstate
>>> from pokerbot.state import CALL
>>> class Caller(Agent):
...     name = "caller"
...     def act(self, view):
...         return CALL
>>> game = load_game("kuhn")
>>> view = parse_matchstate(game, "MATCHSTATE:0:0::Ks|")
>>> view.is_my_turn, Caller().act(view)
(True, Action(kind=<ActionType.CALL: 1>, size=0))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import cast

import numpy as np

from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, Action, State

#: Several hands' hole cards, one hand a row: sequences of card codes or an int array ``(N, hole cards)``.
Holes = Sequence[Sequence[int]] | np.ndarray


class Agent(ABC):
    """A poker player. Subclasses implement :meth:`act`; the other hooks are optional.

    The order of calls is ``begin_match`` once, then per hand ``begin_hand``,
    ``act`` zero or more times (only when ``view.is_my_turn``) and ``end_hand``
    with the final view.
    """

    name: str = "agent"

    def begin_match(self, game: GameDef) -> None:
        """Called once before the first hand."""

    def set_match_hands(self, hands: int) -> None:
        """Told the match's length before ``begin_match`` by runners that know it (the ACPC protocol does not
        carry it): the dealer's time bank is ``t_per_hand`` x the match's hands. The default ignores it."""

    def begin_hand(self, view: MatchState) -> None:
        """Called with the first view of each hand (blinds posted, own cards dealt)."""

    @abstractmethod
    def act(self, view: MatchState) -> Action:
        """The action to take; called only when ``view.is_my_turn``. Must be legal."""

    def end_hand(self, view: MatchState) -> None:
        """Called with the final view of each hand (opponents' cards if there was a showdown)."""

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]] | None:
        """The exact probabilities with which :meth:`act` would choose at ``view``, or None if unknown.

        Evaluation uses it (AIVAT corrections, the range tracking of local best
        response), so it must not change how the agent plays: calling it, at the
        view the agent is about to act at or at a hypothetical one (other hole
        cards, another last action of the opponent), leaves the distribution of
        the agent's later choices as it was. Probabilities are conditional on
        the agent's internal state (say, a translation it already drew). The
        default, None, marks the policy unknown (a remote player, a human).
        """
        return None

    def decision_note(self) -> str | None:
        """A short note on how :meth:`act` made its last decision, for people watching; None: nothing to say.

        Say ``"solved (DCFR 200 it, 1.3 s)"``, ``"blueprint"`` or ``"fell back to the blueprint:
        time budget"``. The play page (:mod:`evaluation.play`) shows it beside each of the agent's
        actions; it is asked right after :meth:`act` returns and must not change how the agent plays.
        The default, None, suits agents with one way of deciding.
        """
        return None

    def decision_counts(self) -> dict[str, int] | None:
        """How the agent's decisions so far were made: counts by way of deciding, for reports; None: one way.

        Keys are short phrases (``"solved"``, ``"blueprint"``); a key starting with ``"fell back"``
        (:data:`FELL_BACK`), say ``"fell back: time budget"``, counts decisions where the agent could not
        do what it set out to and played a fallback instead. Matches, ``pokerbot eval`` reports, ``pokerbot
        connect`` and the play page say how many (:func:`fallback_note`). Must not change how the agent plays.
        """
        return None

    def action_probability(self, view: MatchState, action: Action) -> float | None:
        """The probability that :meth:`act` takes ``action`` at ``view`` (None if the policy is unknown).

        Defaults to summing :meth:`action_distribution`; agents with large
        supports (a uniform raise size) answer it directly.
        """
        dist = self.action_distribution(view)
        if dist is None:
            return None
        return sum(p for a, p in dist if a == action)

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray | None:
        """:meth:`action_probability` of ``action`` at ``view`` for each of ``holes`` as the agent's hole cards.

        Local best response asks this for every hand in a range; agents answer it
        in one go where they can. None if the policy is unknown.
        """
        out = np.empty(len(holes))
        state = view.state
        for i, hole in enumerate(holes):
            cards = [tuple(int(c) for c in hole) if p == view.viewer else () for p in range(state.game.num_players)]
            q = self.action_probability(MatchState(view.viewer, state.with_cards(cards)), action)
            if q is None:
                return None
            out[i] = q
        return out


#: How :meth:`Agent.decision_counts` keys begin for decisions that fell back.
FELL_BACK = "fell back"


def count_changes(after: dict[str, int] | None, before: dict[str, int] | None) -> dict[str, int] | None:
    """The decisions counted in ``after`` but not yet in ``before`` (two :meth:`Agent.decision_counts`)."""
    if after is None:
        return None
    before = before or {}
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


def add_counts(*counts: dict[str, int] | None) -> dict[str, int] | None:
    """The sum of several :meth:`Agent.decision_counts` (None if every one is None)."""
    if all(c is None for c in counts):
        return None
    out: dict[str, int] = {}
    for c in counts:
        for k, v in (c or {}).items():
            out[k] = out.get(k, 0) + int(v)
    return out


def fallback_note(counts: dict[str, int] | None) -> str | None:
    """Decision counts in words when any decision fell back (None otherwise: nothing to warn of).

    >>> fallback_note({"solved": 1200, "blueprint": 30, "fell back: time budget": 3, "fell back: time limit": 1})
    'fell back at 4 of 1,234 decisions (time budget 3, time limit 1)'
    >>> fallback_note({"solved": 12}) is None
    True
    """
    if not counts:
        return None
    fell = {k[len(FELL_BACK):].lstrip(": ") or "other": v for k, v in counts.items() if k.startswith(FELL_BACK) and v}
    if not fell:
        return None
    total = sum(counts.values())
    why = ", ".join(f"{k} {v:,}" for k, v in sorted(fell.items()))
    return f"fell back at {sum(fell.values()):,} of {total:,} decisions ({why})"


def agent_seed(seed: int | None) -> int:
    """``seed``, or a fresh random one when None (an agent's base seed for :func:`hand_rng`)."""
    # a SeedSequence made without entropy draws an int (its entropy is typed int | Sequence[int] | None)
    return int(cast(int, np.random.SeedSequence().entropy) % 2**63) if seed is None else int(seed)


def hand_rng(seed: int, view: MatchState) -> np.random.Generator:
    """The random generator of one hand: seeded by the agent's ``seed`` and the hand's number.

    Agents that draw from it (one number per decision, over the same action order) play identically
    whenever their strategies agree, whatever happened in earlier hands: two agents compared on the
    same deals (the blueprint and a real-time agent that re-solves only the river, say) then differ
    only where their strategies do — common random numbers, not just common cards.

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.matchstate import parse_matchstate
    >>> view = parse_matchstate(load_game("kuhn"), "MATCHSTATE:0:7::Ks|")
    >>> float(hand_rng(3, view).random()) == float(hand_rng(3, view).random())
    True
    """
    return np.random.default_rng((int(seed), int(view.state.hand_id) % 2**63))


def legal_or_call(state: State, action: Action) -> Action:
    """``action`` repaired the way the ACPC dealer would (raise sizes clamped), or a call.

    Used by the runners when an agent returns an illegal action, so one bad
    answer never stops a match (the dealer would turn it into a call too).

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.state import FOLD, raise_to
    >>> s = State.initial(load_game("hunl"))
    >>> str(legal_or_call(s, raise_to(50))), str(legal_or_call(s.apply(CALL), FOLD))
    ('r200', 'c')
    """
    try:
        return state.fix_action(action)
    except Exception:
        return CALL
