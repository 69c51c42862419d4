"""The exact state of a hand under ACPC protocol 2.0.0 rules.

A :class:`State` is immutable: :meth:`State.apply` returns the next state. It
follows the ACPC server's rules to the chip: who acts, fold only when facing a
bet, no-limit raise-to sizes with the minimum-raise rule and all-in, limit
raise caps, round transitions, all-in run-outs, and showdowns with side and
split pots. Cards are optional, so the same class serves the dealer (every card
known), a player (own cards known) and game-tree builders (no cards).

Actions and their ACPC text live in :mod:`pokerbot.actions`; this module imports
:class:`Action`, :class:`ActionType`, ``FOLD``, ``CALL``, ``RAISE`` and
:func:`raise_to` from there, so ``from pokerbot.state import Action`` gives the same objects.

>>> from pokerbot.gamedef import load_game
>>> s = State.initial(load_game("hunl"))
>>> s.current_player, s.raise_bounds()
(1, (200, 20000))
>>> s = s.apply(raise_to(300)).apply(CALL)
>>> s.round, s.betting_string(), s.pot
(1, 'r300c/', 600)
"""

from __future__ import annotations

from collections.abc import Sequence

from pokerbot.actions import CALL, FOLD, RAISE, Action, ActionType, betting_actions, betting_text, raise_to
from pokerbot.cards import check_distinct
from pokerbot.errors import BettingStringError, IllegalActionError
from pokerbot.gamedef import GameDef

__all__ = ["CALL", "FOLD", "MAX_ACTIONS_PER_ROUND", "RAISE", "Action", "ActionType", "State", "raise_to"]

#: The ACPC server refuses a raise when a round's actions would pass this count.
MAX_ACTIONS_PER_ROUND = 64

# Plain ints for the hot paths (comparing with an IntEnum member means an attribute look-up).
_FOLD, _CALL, _RAISE = 0, 1, 2


_new_state = object.__new__


class State:
    """One hand's exact state. Build with :meth:`initial`, advance with :meth:`apply`."""

    __slots__ = (
        "game",
        "hand_id",
        "hole_cards",
        "board_cards",
        "round",
        "history",
        "spent",
        "folded",
        "max_spent",
        "min_raise_to",
        "finished",
        "_player",
    )

    game: GameDef
    hand_id: int
    #: Per player, their hole cards; an empty tuple where unknown.
    hole_cards: tuple[tuple[int, ...], ...]
    #: Every board card known so far in deal order (may run ahead of the round, as for a dealer).
    board_cards: tuple[int, ...]
    round: int
    #: Per round, the (player, action) pairs taken.
    history: tuple[tuple[tuple[int, Action], ...], ...]
    spent: tuple[int, ...]
    folded: tuple[bool, ...]
    max_spent: int
    min_raise_to: int
    finished: bool
    #: The player to act (None once finished), worked out once per state by :meth:`_set_player`.
    _player: int | None

    @classmethod
    def initial(
        cls,
        game: GameDef,
        hand_id: int = 0,
        hole_cards: Sequence[Sequence[int]] = (),
        board_cards: Sequence[int] = (),
    ) -> State:
        """The state after the blinds are posted."""
        s = cls.__new__(cls)
        s.game = game
        s.hand_id = hand_id
        holes = tuple(tuple(int(c) for c in h) for h in hole_cards)
        if not holes:
            holes = ((),) * game.num_players
        if len(holes) != game.num_players or any(
            len(h) not in (0, game.num_hole_cards) for h in holes
        ):
            raise IllegalActionError(
                f"hole cards must be {game.num_hole_cards} per player (or none) for {game.num_players} players"
            )
        s.hole_cards = holes
        s.board_cards = tuple(int(c) for c in board_cards)
        if len(s.board_cards) > game.total_board_cards:
            raise IllegalActionError(f"{len(s.board_cards)} board cards, the game has {game.total_board_cards}")
        check_distinct([c for h in holes for c in h] + list(s.board_cards))
        s.round = 0
        s.history = ((),)
        s.spent = tuple(game.blind)
        s.folded = (False,) * game.num_players
        s.max_spent = max(game.blind)
        if game.nolimit:
            # Calling the big blind and raising by it: the first raise-to is twice the largest blind.
            s.min_raise_to = 2 * s.max_spent if s.max_spent else 1
        else:
            s.min_raise_to = 0
        s.finished = False
        s._set_player()
        return s

    @classmethod
    def from_betting(
        cls,
        game: GameDef,
        betting: str,
        hand_id: int = 0,
        hole_cards: Sequence[Sequence[int]] = (),
        board_cards: Sequence[int] = (),
    ) -> State:
        """Replay an ACPC betting string ("r300c/cr600f"); rounds separated by '/'."""
        state = cls.initial(game, hand_id, hole_cards, board_cards)
        for i, action in betting_actions(betting, game.nolimit):
            if not state.is_legal(action):
                raise BettingStringError(
                    f"illegal action {action} at position {i} of betting string {betting!r}"
                )
            state = state.apply(action)
        return state

    def _copy(self) -> State:
        """A shallow copy (every field is immutable); spelled out, as a loop over the slots is slower."""
        s = _new_state(State)
        s.game = self.game
        s.hand_id = self.hand_id
        s.hole_cards = self.hole_cards
        s.board_cards = self.board_cards
        s.round = self.round
        s.history = self.history
        s.spent = self.spent
        s.folded = self.folded
        s.max_spent = self.max_spent
        s.min_raise_to = self.min_raise_to
        s.finished = self.finished
        s._player = self._player
        return s

    # --- who acts -------------------------------------------------------------

    def _can_act(self, p: int) -> bool:
        return not self.folded[p] and self.spent[p] < self.game.stack[p]

    def _next_player(self, after: int) -> int:
        n = self.game.num_players
        stack = self.game.stack
        folded = self.folded
        spent = self.spent
        p = after
        for _ in range(n):
            p = (p + 1) % n
            if not folded[p] and spent[p] < stack[p]:
                return p
        raise AssertionError("no player can act in an unfinished hand")

    def _set_player(self) -> None:
        """Work out who acts (None when the hand is over); the state must not change afterwards."""
        if self.finished:
            self._player = None
            return
        actions = self.history[self.round]
        if actions:
            self._player = self._next_player(actions[-1][0])
        else:
            first = self.game.first_player[self.round]
            self._player = self._next_player(first + self.game.num_players - 1)

    @property
    def current_player(self) -> int | None:
        """The player to act, or None when the hand is over."""
        return self._player

    def _num_acting(self) -> int:
        stack = self.game.stack
        folded = self.folded
        count = 0
        for p, s in enumerate(self.spent):
            if not folded[p] and s < stack[p]:
                count += 1
        return count

    def _num_called(self) -> int:
        called = 0
        spent = self.spent
        stack = self.game.stack
        for p, action in reversed(self.history[self.round]):
            still_acting = spent[p] < stack[p]
            kind = action.kind
            if kind == _RAISE:
                return called + (1 if still_acting else 0)
            if kind == _CALL and still_acting:
                called += 1
        return called

    def num_raises(self) -> int:
        """Raises so far in the current round."""
        return sum(1 for _, a in self.history[self.round] if a.kind == _RAISE)

    # --- what is legal ----------------------------------------------------------

    def can_fold(self) -> bool:
        """Fold is legal only for a player who faces a bet and is not all-in."""
        p = self._player
        if p is None:
            return False
        spent = self.spent[p]
        return spent != self.max_spent and spent != self.game.stack[p]

    def raise_bounds(self) -> tuple[int, int] | None:
        """(min, max) raise-to totals, or None if no raise is legal.

        In a limit game the size is fixed and both bounds are the resulting total.
        """
        p = self._player
        if p is None:
            return None
        game = self.game
        actions = self.history[self.round]
        if len(actions) + game.num_players > MAX_ACTIONS_PER_ROUND:
            return None
        if sum(1 for _, a in actions if a.kind == _RAISE) >= game.max_raises[self.round]:
            return None
        if self._num_acting() <= 1:
            return None  # nobody left to call a bet
        stack = game.stack[p]
        if not game.nolimit:
            total = min(self.max_spent + game.raise_size[self.round], stack)
            return (total, total)
        lo = self.min_raise_to
        if lo > stack:
            if self.max_spent >= stack:
                return None  # cannot even raise all-in
            lo = stack
        return (lo, stack)

    def legal_kinds(self) -> list[ActionType]:
        """The kinds of action the player to act may take."""
        if self.finished:
            return []
        kinds = [ActionType.FOLD] if self.can_fold() else []
        kinds.append(ActionType.CALL)
        if self.raise_bounds() is not None:
            kinds.append(ActionType.RAISE)
        return kinds

    def is_legal(self, action: Action) -> bool:
        if self.finished:
            return False
        kind = action.kind
        if kind == _CALL:
            return action.size == 0
        if kind == _FOLD:
            return action.size == 0 and self.can_fold()
        bounds = self.raise_bounds()
        if bounds is None:
            return False
        if not self.game.nolimit:
            return action.size in (0, bounds[0])
        return bounds[0] <= action.size <= bounds[1]

    def fix_action(self, action: Action) -> Action:
        """The ACPC dealer's repair of a near-legal action: clamp a no-limit raise into bounds.

        Returns the action unchanged when it is legal; raises IllegalActionError when
        no repair exists (a raise when none is allowed, a fold when not facing a bet).
        """
        if self.is_legal(action):
            return action
        if action.kind == ActionType.RAISE and self.game.nolimit:
            bounds = self.raise_bounds()
            if bounds is not None:
                return raise_to(min(max(action.size, bounds[0]), bounds[1]))
        if action.kind == ActionType.RAISE and not self.game.nolimit and self.raise_bounds():
            return RAISE
        raise IllegalActionError(f"{action} is not legal at {self.betting_string()!r}")

    # --- acting -----------------------------------------------------------------

    def apply(self, action: Action) -> State:
        """The state after the player to act takes ``action``; IllegalActionError if not legal."""
        if not self.is_legal(action):
            raise IllegalActionError(
                f"illegal action {action} for player {self.current_player} "
                f"at betting {self.betting_string()!r} (legal: {self.describe_legal()})"
            )
        game = self.game
        p = self._player
        assert p is not None
        s = self._copy()
        spent = list(self.spent)
        kind = action.kind
        if kind == _CALL:
            spent[p] = min(self.max_spent, game.stack[p])
        elif kind == _FOLD:
            folded = list(self.folded)
            folded[p] = True
            s.folded = tuple(folded)
        else:
            if game.nolimit:
                size = action.size
                # The next raise must call this one and raise by at least as much.
                s.min_raise_to = max(self.min_raise_to, 2 * size - self.max_spent)
            else:
                size = min(self.max_spent + game.raise_size[self.round], game.stack[p])
                action = RAISE
            s.max_spent = size
            spent[p] = size
        s.spent = tuple(spent)
        history = self.history
        r = self.round
        s.history = history[:r] + (history[r] + ((p, action),),) + history[r + 1 :]
        s._after_action()
        return s

    def _after_action(self) -> None:
        game = self.game
        acting = self._num_acting()
        if self.folded.count(True) + 1 >= game.num_players:
            self.finished = True
        elif self._num_called() >= acting:
            if acting > 1:
                if self.round + 1 < game.num_rounds:
                    self.round += 1
                    self.history = self.history + ((),)
                    self.min_raise_to = max(1, max(game.blind)) + self.max_spent
                else:
                    self.finished = True
            else:
                # Everyone left is all-in (or one player is not): run the board out.
                self.finished = True
                self.history = self.history + ((),) * (game.num_rounds - 1 - self.round)
                self.round = game.num_rounds - 1
        self._set_player()

    # --- reading ------------------------------------------------------------------

    @property
    def pot(self) -> int:
        return sum(self.spent)

    def to_call(self) -> int:
        """Chips the player to act must add to call (0 when checking)."""
        p = self.current_player
        if p is None:
            return 0
        return min(self.max_spent, self.game.stack[p]) - self.spent[p]

    @property
    def visible_board(self) -> tuple[int, ...]:
        """Board cards visible in the current round (those dealt so far may run ahead)."""
        return self.board_cards[: self.game.board_cards_through(self.round)]

    def with_cards(
        self, hole_cards: Sequence[Sequence[int]] | None = None, board_cards: Sequence[int] | None = None
    ) -> State:
        """The same betting with other (or more) cards known."""
        s = self._copy()
        if hole_cards is not None:
            s.hole_cards = tuple(tuple(int(c) for c in h) for h in hole_cards)
        if board_cards is not None:
            s.board_cards = tuple(int(c) for c in board_cards)
        return s

    def _replace_cards(self, hole_cards: tuple[tuple[int, ...], ...], board_cards: tuple[int, ...]) -> State:
        """:meth:`with_cards` for callers that already hold tuples of ints (nothing is converted)."""
        s = self._copy()
        s.hole_cards = hole_cards
        s.board_cards = board_cards
        return s

    def actions(self) -> list[Action]:
        """Every action of the hand in order."""
        return [a for rnd in self.history for _, a in rnd]

    def betting_string(self) -> str:
        """The ACPC betting string: rounds up to the current one joined by '/'."""
        return betting_text([[a for _, a in rnd] for rnd in self.history[: self.round + 1]])

    def describe_legal(self) -> str:
        parts = [k.char for k in self.legal_kinds() if k != ActionType.RAISE]
        bounds = self.raise_bounds()
        if bounds is not None:
            parts.append(f"{raise_to(bounds[0])}..{raise_to(bounds[1])}" if self.game.nolimit else str(RAISE))
        return ",".join(parts) or "none"

    def is_showdown(self) -> bool:
        return self.finished and sum(self.folded) + 1 < self.game.num_players

    def payoffs(self) -> list[float]:
        """Chips won (negative: lost) by each player in a finished hand, as ACPC ``valueOfState``.

        A showdown needs every non-folded player's hole cards and the full board.
        Side pots are settled from the smallest up; a split pot is shared evenly
        (fractions of a chip only arise with three or more players).
        """
        if not self.finished:
            raise IllegalActionError("payoffs of an unfinished hand")
        game = self.game
        n = game.num_players
        if sum(self.folded) + 1 >= n:
            total = self.pot
            return [float(-self.spent[p]) if self.folded[p] else float(total - self.spent[p]) for p in range(n)]
        ranks = self.showdown_ranks()
        values = [0.0] * n
        remaining = list(self.spent)
        while True:
            contenders = [p for p in range(n) if remaining[p] > 0]
            if not contenders:
                break
            layer = min(remaining[p] for p in contenders)
            best = max(ranks[p] for p in contenders)
            winners = [p for p in contenders if ranks[p] == best]
            share = layer * (len(contenders) - len(winners)) / len(winners)
            for p in contenders:
                values[p] += share if ranks[p] == best else -layer
                remaining[p] -= layer
        return values

    def showdown_ranks(self) -> list[int]:
        """Hand strength of each player at showdown (-1 for folded players)."""
        from pokerbot.evaluator import evaluate

        game = self.game
        board = self.board_cards[: game.board_cards_through(game.num_rounds - 1)]
        if len(board) < game.total_board_cards:
            raise IllegalActionError("showdown needs the full board")
        ranks = []
        for p in range(game.num_players):
            if self.folded[p]:
                ranks.append(-1)
                continue
            if len(self.hole_cards[p]) != game.num_hole_cards:
                raise IllegalActionError(f"showdown needs player {p}'s hole cards")
            ranks.append(evaluate(list(self.hole_cards[p]) + list(board)))
        return ranks

    def __repr__(self) -> str:
        return f"State({self.game.name or 'game'}, hand {self.hand_id}, {self.betting_string()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return (
            self.game == other.game
            and self.hand_id == other.hand_id
            and self.history == other.history
            and self.hole_cards == other.hole_cards
            and self.visible_board == other.visible_board
        )

    def __hash__(self) -> int:
        return hash((self.hand_id, self.history, self.hole_cards, self.visible_board))
