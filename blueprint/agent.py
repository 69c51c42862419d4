"""An agent that plays a blueprint in the real game.

It keeps, through each hand, the real state, the matching abstract state and
the abstract node. Each real action is mapped onto the abstract tree: its own
actions to the abstract action it chose, the opponent's by pseudo-harmonic
translation (:func:`abstraction.translation.translate`) of off-menu raise sizes
(then the abstract raise of nearest pot fraction; all-in to all-in). At its
turn it looks up the bucket of its cards, samples from the blueprint's average
strategy, and turns the abstract action into a real one (a raise keeps its pot
fraction; all-in stays all-in; an illegal fold becomes a check). When the
real hand leaves the tree (say, the abstract hand ended in an all-in the real
one did not reach), it checks or calls.

Over ACPC or in the match runner, by spec::

    blueprint.agent:make_agent?path=/path/to/blueprint.npz
    blueprint.agent:make_agent?path=hunl-tiny       # $POKERBOT_HOME/blueprints/hunl-tiny/blueprint.npz
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from blueprint.abstract_game import DECISION
from blueprint.model import Blueprint, PresetCards, make_cards, make_menu
from blueprint.storage import blueprint_dir
from pokerbot.agent import Agent
from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, FOLD, Action, ActionType, State, raise_to


class BlueprintAgent(Agent):
    """Plays ``blueprint``'s average strategy; ``seed`` fixes its sampling and translations."""

    def __init__(self, blueprint: Blueprint, seed: int | None = None, name: str = "blueprint") -> None:
        self.blueprint = blueprint
        self.game = blueprint.game
        self.tree = blueprint.tree
        self.cards = make_cards(blueprint.cards_name, self.game)
        self.menu = make_menu(blueprint.actions_name, self.game)
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.stats = {"decisions": 0, "translated": 0, "off_tree": 0}
        self._reset()

    def _reset(self) -> None:
        self._done = 0  # real actions mapped so far this hand
        self._real = State.initial(self.game)
        self._abs: State | None = State.initial(self.game)
        self._node = 0
        self._mine: dict[int, int] = {}  # action index -> abstract child slot chosen by us

    def begin_match(self, game: GameDef) -> None:
        if game != self.game:
            raise PokerbotError(f"this blueprint is for {self.game.name}, not {game.name}")

    def begin_hand(self, view: MatchState) -> None:
        self._reset()

    # -- mapping the real hand onto the tree --------------------------------------------

    def _abstract_raises(self) -> list[tuple[int, Action]]:
        acts = self.tree.actions(self._node)
        return [(i, a) for i, a in enumerate(acts) if a.kind == ActionType.RAISE]

    def _map_opponent(self, real: State, action: Action) -> int | None:
        """The child slot of the abstract node that the opponent's real ``action`` maps to."""
        acts = self.tree.actions(self._node)
        if action.kind != ActionType.RAISE or not self.game.nolimit:
            for i, a in enumerate(acts):
                if a.kind == action.kind:
                    return i
            return None
        raises = self._abstract_raises()
        if not raises:
            return None
        from abstraction.actions import BetMenu, fraction_of_raise
        from abstraction.translation import translate

        aligned = self._abs is not None and real.spent == self._abs.spent
        if aligned and any(a.size == action.size for _, a in raises):
            return next(i for i, a in raises if a.size == action.size)
        self.stats["translated"] += 1
        hi = real.raise_bounds()[1]  # type: ignore[index]
        if action.size >= hi:
            return raises[-1][0]  # all-in
        target = action
        if isinstance(self.menu, BetMenu):
            target = translate(real, action, self.menu, self.rng)
            if target.size >= hi:
                return raises[-1][0]
        if aligned and any(a.size == target.size for _, a in raises):
            return next(i for i, a in raises if a.size == target.size)
        x = fraction_of_raise(real, target.size)
        assert self._abs is not None
        abs_hi = self._abs.raise_bounds()[1]  # type: ignore[index]
        candidates = [(i, a) for i, a in raises if a.size < abs_hi] or raises
        return min(candidates, key=lambda ia: abs(fraction_of_raise(self._abs, ia[1].size) - x))[0]

    def _follow(self, view: MatchState) -> None:
        actions = view.state.actions()
        while self._done < len(actions):
            i = self._done
            real_action = actions[i]
            actor = self._real.current_player
            slot: int | None = None
            if self._abs is not None and self.tree.kind[self._node] == DECISION:
                if actor == view.viewer and i in self._mine:
                    slot = self._mine[i]
                else:
                    slot = self._map_opponent(self._real, real_action)
            if slot is None or self._abs is None:
                self._abs = None  # off the tree for the rest of the hand
            else:
                self._abs = self._abs.apply(self.tree.actions(self._node)[slot])
                self._node = int(self.tree.children(self._node)[slot])
            self._real = self._real.apply(real_action)
            self._done += 1

    # -- acting ---------------------------------------------------------------------------

    def _to_real(self, real: State, action: Action) -> Action:
        if action.kind == ActionType.FOLD:
            return FOLD if real.can_fold() else CALL
        if action.kind == ActionType.CALL:
            return CALL
        bounds = real.raise_bounds()
        if bounds is None:
            return CALL
        if not self.game.nolimit:
            return action
        assert self._abs is not None
        abs_bounds = self._abs.raise_bounds()
        if abs_bounds is not None and action.size >= abs_bounds[1]:
            return raise_to(bounds[1])  # all-in stays all-in
        from abstraction.actions import fraction_of_raise, raise_size_for_fraction

        size = raise_size_for_fraction(real, fraction_of_raise(self._abs, action.size))
        return raise_to(min(max(size, bounds[0]), bounds[1]))

    def _slot_probabilities(self, view: MatchState) -> np.ndarray | None:
        """The blueprint's probabilities over the abstract node's children (None: off the tree)."""
        self._follow(view)
        real = view.state
        node = self._node
        if (self._abs is None or self.tree.kind[node] != DECISION or self.tree.player[node] != view.viewer
                or self.tree.round[node] != real.round):
            return None
        hole = real.hole_cards[view.viewer]
        bucket = self.cards.bucket(real.round, hole, real.visible_board)
        probs = np.asarray(self.blueprint.probabilities(node, bucket), dtype=np.float64)
        total = probs.sum()
        return probs / total if total > 0 else np.full(len(probs), 1.0 / len(probs))

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        """What :meth:`act` would play at ``view``, given the translations drawn so far; changes nothing.

        The hand tracking (and the random generator, which translation draws from)
        is put back afterwards, so ``act`` at the same view draws the same translation.
        """
        saved = (self._done, self._real, self._abs, self._node, dict(self._mine), dict(self.stats),
                 self.rng.bit_generator.state)
        try:
            probs = self._slot_probabilities(view)
            if probs is None:
                return [(CALL, 1.0)]
            out: dict[Action, float] = {}
            for slot, p in enumerate(probs):
                if p > 0.0:
                    a = self._to_real(view.state, self.tree.actions(self._node)[slot])
                    out[a] = out.get(a, 0.0) + float(p)
            return list(out.items())
        finally:
            (self._done, self._real, self._abs, self._node, self._mine, self.stats,
             self.rng.bit_generator.state) = saved

    def action_probabilities(self, view: MatchState, holes: Sequence[Sequence[int]], action: Action) -> np.ndarray:
        """The probability of ``action`` at ``view`` for each of ``holes`` as this agent's cards; changes nothing."""
        saved = (self._done, self._real, self._abs, self._node, dict(self._mine), dict(self.stats),
                 self.rng.bit_generator.state)
        try:
            self._follow(view)
            real = view.state
            node = self._node
            if (self._abs is None or self.tree.kind[node] != DECISION or self.tree.player[node] != view.viewer
                    or self.tree.round[node] != real.round):
                return np.full(len(holes), 1.0 if action == CALL else 0.0)
            slots = [i for i, a in enumerate(self.tree.actions(node)) if self._to_real(real, a) == action]
            if not slots:
                return np.zeros(len(holes))
            board = list(real.visible_board)
            if isinstance(self.cards, PresetCards):
                from abstraction.isomorphism import hand_index_batch

                cards = np.array([list(h) + board for h in holes], dtype=np.int64).reshape(len(holes), -1)
                buckets = np.asarray(self.cards.tables[real.round])[hand_index_batch(real.round, cards)]
            else:
                buckets = np.array([self.cards.bucket(real.round, h, board) for h in holes])
            a_n = int(self.tree.num_actions[node])
            rows = self.blueprint.strategy[int(self.tree.base[node]) + buckets.astype(np.int64)[:, None] * a_n
                                           + np.arange(a_n)[None, :]].astype(np.float64)
            total = rows.sum(axis=1)
            chosen = rows[:, slots].sum(axis=1)
            return np.where(total > 0, chosen / np.where(total > 0, total, 1.0), len(slots) / a_n)
        finally:
            (self._done, self._real, self._abs, self._node, self._mine, self.stats,
             self.rng.bit_generator.state) = saved

    def act(self, view: MatchState) -> Action:
        real = view.state
        self.stats["decisions"] += 1
        probs = self._slot_probabilities(view)
        node = self._node
        if probs is None:
            self.stats["off_tree"] += 1
            return CALL
        slot = int(self.rng.choice(len(probs), p=probs))
        self._mine[len(real.actions())] = slot
        return self._to_real(real, self.tree.actions(node)[slot])


def resolve_path(path: str | Path) -> Path:
    """A blueprint file, or the name of a trained run under ``$POKERBOT_HOME/blueprints``."""
    p = Path(path)
    if p.is_dir():
        p = p / "blueprint.npz"
    if not p.is_file():
        named = blueprint_dir(str(path)) / "blueprint.npz"
        if named.is_file():
            return named
        raise CheckpointError(f"no blueprint {str(path)!r}: not a file nor a trained run in {named.parent.parent}")
    return p


def make_agent(game: GameDef, seed: int | None = None, path: str = "", name: str = "blueprint") -> BlueprintAgent:
    """Factory for ``make_agent("blueprint.agent:make_agent?path=...")``."""
    if not path:
        raise CheckpointError("the blueprint agent needs path=<blueprint file or run name>")
    bp = Blueprint.load(resolve_path(path))
    if bp.game != game:
        raise PokerbotError(f"blueprint {path!r} is for {bp.game.name}, the match plays {game.name}")
    return BlueprintAgent(bp, seed=seed, name=name)
