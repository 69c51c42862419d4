"""An agent that plays a blueprint in the real game.

It follows each hand on the blueprint's abstract tree with a
:class:`~blueprint.mapping.TreeMapper` (see :mod:`blueprint.mapping` for the
rule: its own actions back to the abstract action that made them, the
opponent's by pseudo-harmonic translation bracketed by check/call, and the
nearest abstract state when no abstract action fits). The position is always
a decision node of the player to act in the real round, so the agent always
plays the blueprint: it looks up the bucket of its cards, takes the average
strategy at the position, turns each abstract action into a legal real one (a
raise keeps its pot fraction, all-in stays all-in, an illegal fold becomes a
check) and samples.

``stats`` counts its decisions, and among them those ``off_tree`` (the real
betting is not a line of the abstract tree), ``translated`` (reached through
at least one translated real action this hand) and ``nearest`` (reached
through at least one jump to the nearest abstract state this hand).

Over ACPC or in the match runner, by spec::

    blueprint.agent:make_agent?path=/path/to/blueprint.npz
    blueprint.agent:make_agent?path=hunl-tiny       # $POKERBOT_HOME/blueprints/hunl-tiny/blueprint.npz
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from blueprint.mapping import HandDraws, MappingError, TreeMapper
from blueprint.model import Blueprint, make_cards
from blueprint.storage import blueprint_dir
from pokerbot.agent import Agent, Holes, agent_seed, hand_rng
from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.files import is_plain_name, pokerbot_home
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import Action


class BlueprintAgent(Agent):
    """Plays ``blueprint``'s average strategy; ``seed`` fixes its sampling and translations."""

    def __init__(self, blueprint: Blueprint, seed: int | None = None, name: str = "blueprint") -> None:
        self.blueprint = blueprint
        self.game = blueprint.game
        self.tree = blueprint.tree
        self.cards = make_cards(blueprint.cards_name, self.game)
        self.seed = agent_seed(seed)
        self.rng = np.random.default_rng(self.seed)
        self.mapper = TreeMapper(self.tree, rng=self.rng)
        self.name = name
        self.stats = {"decisions": 0, "off_tree": 0, "translated": 0, "nearest": 0}

    def begin_match(self, game: GameDef) -> None:
        if game != self.game:
            raise PokerbotError(f"this blueprint is for {self.game.name}, not {game.name}")

    def begin_hand(self, view: MatchState) -> None:
        # per hand: comparisons with other agents on the same deals share their random numbers
        self.rng = hand_rng(self.seed, view)
        self.mapper.rng = HandDraws(self.seed, view.state.hand_id)
        self.mapper.reset()

    def _decision(self, view: MatchState) -> tuple[list[Action], np.ndarray]:
        """The distinct legal real actions at ``view`` and the probabilities the blueprint gives them.

        Follows the hand up to ``view`` first (drawing any translations, once per action).
        """
        real = view.state
        position = self.mapper.follow(real, me=view.viewer)
        bucket = self.cards.bucket(real.round, real.hole_cards[view.viewer], real.visible_board)
        probs = np.asarray(self.blueprint.probabilities(position.node, bucket), dtype=np.float64)
        total = probs.sum()
        probs = probs / total if total > 0 else np.full(len(probs), 1.0 / len(probs))
        actions: list[Action] = []
        merged: list[float] = []
        for action, p in zip(self.mapper.real_actions(real), probs):
            if action in actions:  # two abstract actions can land on one real action (sizes clamped)
                merged[actions.index(action)] += p
            else:
                actions.append(action)
                merged.append(p)
        return actions, np.array(merged)

    # -- the policy-reporting hook (evaluation: AIVAT, local best response) ----------------

    @contextmanager
    def _scratch(self, view: MatchState) -> Iterator[None]:
        """Follow ``view`` on a copy of the hand tracking, then put the agent back as it was.

        The generator is restored too, so ``act`` at the same view draws the same
        translations. A view that does not continue the hand followed so far (an
        earlier or hypothetical one) is followed from the start of the hand.
        """
        saved, state = self.mapper, self.rng.bit_generator.state
        self.mapper = copy.copy(saved)
        self.mapper.rng = copy.copy(saved.rng)  # its own count of translation draws (a Generator's is restored)
        try:
            try:
                self.mapper.follow(view.state, me=view.viewer)
            except MappingError:
                self.mapper.reset()
                self.mapper.follow(view.state, me=view.viewer)
            yield
        finally:
            self.mapper = saved
            self.rng.bit_generator.state = state

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        """The probabilities with which :meth:`act` chooses at ``view``, given the translations drawn so far."""
        with self._scratch(view):
            actions, probs = self._decision(view)
        return [(a, float(p)) for a, p in zip(actions, probs) if p > 0]

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray:
        """The probability of ``action`` at ``view`` for each of ``holes`` as this agent's cards, in one pass."""
        with self._scratch(view):
            real = view.state
            node = self.mapper.position.node
            slots = [i for i, a in enumerate(self.mapper.real_actions(real)) if a == action]
        if not slots:
            return np.zeros(len(holes))
        board = list(real.visible_board)
        cards = np.array([list(h) + board for h in holes], dtype=np.int64).reshape(len(holes), -1)
        buckets = self.cards.bucket_batch(real.round, cards)
        a_n = int(self.tree.num_actions[node])
        rows = self.blueprint.strategy[int(self.tree.base[node]) + buckets.astype(np.int64)[:, None] * a_n
                                       + np.arange(a_n)[None, :]].astype(np.float64)
        total = rows.sum(axis=1)
        chosen = rows[:, slots].sum(axis=1)
        return np.where(total > 0, chosen / np.where(total > 0, total, 1.0), len(slots) / a_n)

    def act(self, view: MatchState) -> Action:
        actions, probs = self._decision(view)
        position = self.mapper.position
        self.stats["decisions"] += 1
        self.stats["off_tree"] += not position.exact
        self.stats["translated"] += position.translated > 0
        self.stats["nearest"] += position.nearest > 0
        return actions[int(self.rng.choice(len(actions), p=probs))]


def resolve_path(path: str | Path) -> Path:
    """A blueprint file, the name of a trained run under ``$POKERBOT_HOME/blueprints``, or ``RUN@ITERATION``:
    the run's blueprint kept at that iteration (``snapshot_every``)."""
    text = str(path)
    run, at, it = text.rpartition("@")
    if at and is_plain_name(run) and it.isdigit():
        snap = blueprint_dir(run) / "snapshots" / f"blueprint-{int(it)}.npz"
        if not snap.is_file():
            kept = sorted((blueprint_dir(run) / "snapshots").glob("blueprint-*.npz"))
            names = ", ".join(f"{run}@{k.stem.split('-')[-1]}" for k in kept) or "none"
            raise CheckpointError(f"no blueprint {text!r}: {snap} is missing (kept: {names})")
        return snap
    p = Path(path)
    if p.is_dir():
        p = p / "blueprint.npz"
    if not p.is_file():
        runs = pokerbot_home() / "blueprints"
        if is_plain_name(path) and (blueprint_dir(str(path)) / "blueprint.npz").is_file():
            return blueprint_dir(str(path)) / "blueprint.npz"
        raise CheckpointError(f"no blueprint {str(path)!r}: not a file nor a trained run in {runs}")
    return p


def make_agent(game: GameDef, seed: int | None = None, path: str = "", name: str = "blueprint") -> BlueprintAgent:
    """Factory for ``make_agent("blueprint.agent:make_agent?path=...")``."""
    if not path:
        raise CheckpointError("the blueprint agent needs path=<blueprint file or run name>")
    bp = Blueprint.load(resolve_path(path))
    if bp.game != game:
        raise PokerbotError(f"blueprint {path!r} is for {bp.game.name}, the match plays {game.name}")
    return BlueprintAgent(bp, seed=seed, name=name)
