"""Following a real hand on an abstract betting tree: the real-to-abstract mapping.

A blueprint is trained on an abstract tree (:class:`~blueprint.abstract_game.AbstractGame`)
whose bet sizes are a small menu; real opponents bet any size. A
:class:`TreeMapper` follows one real hand action by action and keeps an
*abstract position*: a node of the tree, and the abstract state at it, that
stands for the real state. Every agent that plays from a blueprint (the
blueprint agent, the real-time agent's blueprint lookups) follows the hand
through this one module.

The rule, for each real action in turn:

1. **Own actions** (of player ``me``, when given): the abstract action whose real
   counterpart (:meth:`TreeMapper.to_real`) is exactly that action; a raise
   keeps its pot fraction between the two states, all-in stays all-in. An own
   action no abstract action produces is mapped like an opponent's.
2. **Other actions**: fold, call and limit raises map to the abstract action of
   the same kind. A no-limit raise of pot fraction ``x`` (measured in the real
   state) maps by :func:`abstraction.translation.bracket` onto the abstract
   node's sizes (measured in the abstract state) with check/call as the size
   0: between two sizes ``A < B`` to ``A`` with the pseudo-harmonic
   probability ``f(A, B, x) = (B - x)(1 + A) / ((B - A)(1 + x))``, else to
   ``B``; so a raise below the smallest abstract raise is read as a call or
   as that raise. A real all-in maps to the abstract all-in; a raise beyond
   the largest abstract size to the largest. The draw is seeded.
3. **Fit**: the chosen abstract child must *fit* the real state after the
   action: a decision node of the same round with the same player to act (any
   node fits a finished real hand). Reading a raise as a call can break this:
   the abstract call closes the round (or the hand) while the real raise did
   not. When the child does not fit, or no abstract action has the real one's
   kind (a fold where the abstract player faces no bet), the position jumps
   to the **nearest abstract state**: among the decision nodes of the real
   round where the real player acts, first those that agree on facing a bet,
   then the smallest ``|s_me - s'_me| + |s_opp - s'_opp|`` over the two
   players' chips in the pot as shares of their stacks, ``s`` real and ``s'``
   abstract (so the pot size, the price of a call and the chips left behind
   all count), ties to the lower node id. The draw between the two bracketing
   actions is not redone among the fitting ones: that would turn every small
   raise the tree cannot read as a call back into the larger size (after two
   raises in ``PotFractionMenu.tiny()``, into all-in).

So after every real action of an unfinished hand the position is a decision
node of the real player to act, in the real round: an agent always has a
blueprint strategy to play and never falls off the tree.

The position says how it was reached: ``exact`` when the real betting *is*
the abstract betting (every action identical), and per hand how many real
actions were ``translated`` (mapped to an abstract action of another size or
kind) and how many times the ``nearest`` state was taken.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.state import raise_to
>>> from pokerbot.menus import PotFractionMenu
>>> game = load_game("hunl")
>>> tree = AbstractGame.build(game, (1, 1, 1, 1), PotFractionMenu.tiny())
>>> mapper = TreeMapper(tree, rng=0)
>>> real = State.initial(game).apply(raise_to(300))   # on the menu: the pot raise
>>> p = mapper.follow(real)
>>> p.exact, p.state.betting_string()
(True, 'r300')
>>> [str(a) for a in mapper.real_actions(real)]      # the responder's menu, as real actions
['f', 'c', 'r900', 'r20000']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from abstraction.actions import fraction_of_raise, raise_size_for_fraction
from abstraction.translation import bracket
from blueprint.abstract_game import DECISION, AbstractGame
from pokerbot.errors import PokerbotError
from pokerbot.state import CALL, FOLD, RAISE, Action, ActionType, State, raise_to

__all__ = ["AbstractPosition", "MappingError", "TreeMapper"]

#: Added to the distance of a candidate that disagrees with the real state on facing a bet.
_FACING_MISMATCH = 1e6


class MappingError(PokerbotError, ValueError):
    """A real state the mapper cannot follow (another game, or not a continuation of the hand)."""


@dataclass(frozen=True)
class AbstractPosition:
    """Where a real state stands on the abstract tree.

    ``node`` is a node id of the tree and ``state`` the abstract state at it
    (betting only, no cards). ``exact``: the real betting so far is this
    abstract betting. ``translated``: real actions this hand mapped onto an
    abstract action of another size or kind. ``nearest``: times this hand no
    abstract action fitted and the nearest abstract state was taken.
    """

    node: int
    state: State
    exact: bool
    translated: int
    nearest: int


class Draws(Protocol):
    """Anything :class:`TreeMapper` can draw its translations from: ``random()``, uniform in [0, 1) (a
    Generator, :class:`HandDraws`, or a fixed stand-in that always picks one side)."""

    def random(self) -> float: ...


class HandDraws:
    """Translation draws for :class:`TreeMapper` fixed by (seed, hand, k) for the hand's k-th draw.

    Following a hand's history from its start (:meth:`TreeMapper.reset` restarts the count) makes the same
    draws for the same off-tree actions, however often it is followed: the blueprint agent and the
    real-time agent's blueprint policy, seeded alike, translate a hand alike (common random numbers),
    and translations still vary from hand to hand.

    >>> a, b = HandDraws(1, 7), HandDraws(1, 7)
    >>> [a.random() for _ in range(2)] == [b.random() for _ in range(2)]
    True
    """

    def __init__(self, seed: int, hand: int) -> None:
        self.seed, self.hand, self.k = int(seed), int(hand) % 2**63, 0

    def random(self) -> float:
        self.k += 1
        return float(np.random.default_rng((self.seed, self.hand, self.k)).random())

    def restart(self) -> None:
        self.k = 0


class TreeMapper:
    """Follows one real hand at a time on ``tree``; ``rng`` (a Generator or a seed) draws the translations.

    Per hand: :meth:`reset`, then :meth:`follow` with each new real state (it maps
    only the actions it has not seen), :meth:`to_real` / :meth:`real_actions` to
    turn the abstract actions at the position into legal real ones.
    """

    def __init__(self, tree: AbstractGame, rng: np.random.Generator | int | None = None) -> None:
        if tree.game.num_players != 2:
            raise MappingError(f"tree mapping is heads-up; the game has {tree.game.num_players} players")
        self.tree = tree
        self.game = tree.game
        self.rng: np.random.Generator | HandDraws | Draws = (
            rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng))
        n = tree.num_nodes
        decisions = np.flatnonzero(tree.kind == DECISION)
        # each decision node owns the slots child[first : first + num_actions], and these slices tile `child`
        by_first = decisions[np.argsort(tree.first_child[decisions], kind="stable")]
        owner = np.repeat(by_first, tree.num_actions[by_first])
        at = np.arange(len(owner), dtype=np.int64)
        self._parent = np.full(n, -1, dtype=np.int64)
        self._slot = np.full(n, -1, dtype=np.int64)
        self._parent[tree.child[at]] = owner
        self._slot[tree.child[at]] = at - tree.first_child[owner]
        self._decisions = decisions
        self._actions: dict[int, list[Action]] = {}
        self._stack = np.asarray(tree.game.stack[:2], dtype=np.float64)
        self._share = tree.spent.astype(np.float64) / self._stack  # chips in the pot as shares of the stack
        self.reset()

    # -- the hand being followed -----------------------------------------------------------

    def reset(self) -> None:
        """Start a new hand at the root (per-hand draws start again)."""
        if isinstance(self.rng, HandDraws):
            self.rng.restart()
        self._real = State.initial(self.game)
        self._node = 0
        self._abs = State.initial(self.game)
        self._translated = 0
        self._nearest = 0

    @property
    def position(self) -> AbstractPosition:
        """The abstract position of the real state followed so far."""
        return AbstractPosition(self._node, self._abs, self._abs.actions() == self._real.actions(),
                                self._translated, self._nearest)

    def follow(self, real: State, me: int | None = None) -> AbstractPosition:
        """Map the actions of ``real`` not mapped yet and return the position; ``me``: whose own actions to invert.

        ``real`` must continue the hand followed since :meth:`reset` (its first
        actions those already followed); :class:`MappingError` otherwise.
        """
        self._check_same_hand(real, allow_more=True)
        actions = real.actions()
        for action in actions[len(self._real.actions()) :]:
            own = me is not None and self._real.current_player == me
            self._step(action, own)
        return self.position

    def _check_same_hand(self, real: State, allow_more: bool) -> None:
        if real.game != self.game:
            raise MappingError(f"the tree is for {self.game.name}, the state is of {real.game.name}")
        done = self._real.actions()
        actions = real.actions()
        if actions[: len(done)] != done or (not allow_more and len(actions) != len(done)):
            raise MappingError(f"betting {real.betting_string()!r} does not continue the hand followed so far "
                               f"({self._real.betting_string()!r}); reset() or follow() it first")

    def _step(self, action: Action, own: bool) -> None:
        before, after = self._real, self._real.apply(action)
        self._real = after
        options: list[tuple[int, float]] = []
        if own:
            slot = self._own_slot(before, action)
            if slot is not None:
                options = [(slot, 1.0)]
        if not options:
            options = self.options(before, action)
        if options:
            slot = options[0][0]
            if len(options) > 1 and self.rng.random() >= options[0][1]:
                slot = options[1][0]
            abstract = self.actions(self._node)[slot]
            child = int(self.tree.child[int(self.tree.first_child[self._node]) + slot])
            if not own and abstract != action:
                self._translated += 1
            if self.fits(child, after):
                self._abs = self._abs.apply(abstract)
                self._node = child
                return
        if after.finished:
            return  # nothing left to decide: keep the last position
        self._nearest += 1
        self._node = self.nearest(after)
        self._abs = self.state_at(self._node)

    def actions(self, node: int) -> list[Action]:
        """The abstract actions at ``node`` (the tree's, kept once read; do not modify the list)."""
        acts = self._actions.get(node)
        if acts is None:
            acts = self._actions[node] = self.tree.actions(node)
        return acts

    # -- mapping one real action ------------------------------------------------------------

    def options(self, real: State, action: Action) -> list[tuple[int, float]]:
        """The child slots of the current node that ``action`` (legal at ``real``) maps to, with probabilities.

        One or two (slot, probability) pairs, or none when no abstract action has
        the real one's kind. ``real`` is the state the position stands for.
        """
        acts = self.actions(self._node)
        if action.kind != ActionType.RAISE or not self.game.nolimit:
            same = [i for i, a in enumerate(acts) if a.kind == action.kind]
            return [(same[0], 1.0)] if same else []
        raises = sorted((fraction_of_raise(self._abs, a.size), i) for i, a in enumerate(acts)
                        if a.kind == ActionType.RAISE)
        allin = self._abstract_allin(acts)
        bounds = real.raise_bounds()
        if allin is not None and bounds is not None and action.size >= bounds[1]:
            return [(allin, 1.0)]
        call = next(i for i, a in enumerate(acts) if a.kind == ActionType.CALL)
        points = [0.0] + [f for f, _ in raises]
        slots = [call] + [i for _, i in raises]
        return [(slots[j], p) for j, p in bracket(fraction_of_raise(real, action.size), points)]

    def _abstract_allin(self, acts: list[Action]) -> int | None:
        bounds = self._abs.raise_bounds()
        if bounds is None:
            return None
        return next((i for i, a in enumerate(acts) if a.kind == ActionType.RAISE and a.size >= bounds[1]), None)

    def _own_slot(self, real: State, action: Action) -> int | None:
        """The abstract action whose real counterpart at ``real`` is ``action`` (same kind first, nearest size)."""
        acts = self.actions(self._node)
        made = [i for i in range(len(acts)) if self._to_real(real, i) == action]
        if not made:
            return None
        same = [i for i in made if acts[i].kind == action.kind] or made
        if action.kind != ActionType.RAISE or not self.game.nolimit:
            return same[0]
        allin = self._abstract_allin(acts)
        bounds = real.raise_bounds()
        if allin in same and bounds is not None and action.size >= bounds[1]:
            return allin
        x = fraction_of_raise(real, action.size)
        return min(same, key=lambda i: abs(fraction_of_raise(self._abs, acts[i].size) - x))

    # -- fitting and the nearest abstract state --------------------------------------------

    def fits(self, node: int, real: State) -> bool:
        """Whether abstract ``node`` can stand for ``real``: any node for a finished hand, else a
        decision node of the same round with the same player to act."""
        if real.finished:
            return True
        tree = self.tree
        return (int(tree.kind[node]) == DECISION and int(tree.round[node]) == real.round
                and int(tree.player[node]) == real.current_player)

    def nearest(self, real: State) -> int:
        """The decision node nearest ``real`` (same round and player to act; facing a bet alike; chips in alike).

        Without a decision node of that round and player, any of that player's.
        """
        p = real.current_player
        if p is None:
            raise MappingError(f"the hand {real.betting_string()!r} is finished: no decision to map")
        tree = self.tree
        dec = self._decisions
        cand = dec[(tree.player[dec] == p) & (tree.round[dec] == real.round)]
        if len(cand) == 0:
            cand = dec[tree.player[dec] == p]
        if len(cand) == 0:
            raise MappingError(f"the tree has no decision node for player {p}")
        me, opp = real.spent[p], real.spent[1 - p]
        spent = tree.spent[cand]
        facing = spent[:, 1 - p] > spent[:, p]
        share = self._share[cand]
        dist = (np.abs(share[:, p] - me / self._stack[p]) + np.abs(share[:, 1 - p] - opp / self._stack[1 - p])
                + _FACING_MISMATCH * (facing != (opp > me)))
        return int(cand[int(np.argmin(dist))])

    def state_at(self, node: int) -> State:
        """The abstract state at ``node`` (the tree's actions from the root)."""
        path: list[Action] = []
        n = node
        while self._parent[n] >= 0:
            parent = int(self._parent[n])
            path.append(self.actions(parent)[int(self._slot[n])])
            n = parent
        state = State.initial(self.game)
        for a in reversed(path):
            state = state.apply(a)
        return state

    # -- abstract actions as real ones -------------------------------------------------------

    def to_real(self, real: State, slot: int) -> Action:
        """The legal real action at ``real`` (the state followed) for child ``slot`` of the position.

        Fold becomes check where fold is illegal; a raise keeps its pot fraction
        (clamped into the real raise bounds) and all-in stays all-in; a raise
        where none is legal becomes a call.
        """
        self._check_same_hand(real, allow_more=False)
        return self._to_real(real, slot)

    def real_actions(self, real: State) -> list[Action]:
        """:meth:`to_real` of every child slot of the position, in slot order (may repeat)."""
        self._check_same_hand(real, allow_more=False)
        return [self._to_real(real, i) for i in range(int(self.tree.num_actions[self._node]))]

    def _to_real(self, real: State, slot: int) -> Action:
        a = self.actions(self._node)[slot]
        if a.kind == ActionType.FOLD:
            return FOLD if real.can_fold() else CALL
        bounds = real.raise_bounds()
        if a.kind == ActionType.CALL or bounds is None:
            return CALL
        if not self.game.nolimit:
            return RAISE
        abs_bounds = self._abs.raise_bounds()
        if abs_bounds is not None and a.size >= abs_bounds[1]:
            return raise_to(bounds[1])
        size = raise_size_for_fraction(real, fraction_of_raise(self._abs, a.size))
        return raise_to(min(max(size, bounds[0]), bounds[1]))
