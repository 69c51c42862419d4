"""The blueprint's strategy at any real betting state, for every hand of the player to act at once.

:class:`BlueprintPolicy` reads the blueprint through the one real-to-abstract
mapping (:class:`blueprint.mapping.TreeMapper`): an off-tree size translates to
the more likely side of its pseudo-harmonic bracket, or to a side drawn per hand
(:meth:`BlueprintPolicy.new_hand`). Its per-hand rows follow
:func:`pokerbot.solver.tree.hand_universe`, the hand list of every real-time
subgame, so they drop into a subgame's strategy and range vectors as they are.
Where :class:`blueprint.agent.BlueprintAgent` plays one hand's cards, this is
the whole range's view that real-time solving and exact evaluation need.

>>> from blueprint.model import Blueprint
>>> from blueprint.abstract_game import AbstractGame
>>> from pokerbot.gamedef import load_game
>>> from pokerbot.menus import PotFractionMenu
>>> from pokerbot.state import State, raise_to
>>> game = load_game("leduc-nl")
>>> tree = AbstractGame.build(game, (3, 9), PotFractionMenu.tiny())
>>> policy = BlueprintPolicy(Blueprint(tree, np.ones(tree.num_slots, np.float32), "lossless", "tiny", {}))
>>> actions, probs = policy.probabilities(State.initial(game).apply(raise_to(3)))
>>> [str(a) for a in actions], probs.shape         # a uniform blueprint; a column per hand
(['f', 'c', 'r9', 'r20'], (4, 6))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from blueprint.mapping import HandDraws, TreeMapper
from blueprint.model import Blueprint, make_cards
from pokerbot.solver.tree import hand_universe
from pokerbot.state import Action, State

__all__ = ["BlueprintPolicy"]


class _MoreLikely:
    """A stand-in random source for :class:`TreeMapper`: always the more likely side of a bracket."""

    def random(self) -> float:
        return 0.5


class BlueprintPolicy:
    """The blueprint's strategy at any real state, for every hand of the acting player.

    Off-tree actions translate to the more likely side of their bracket; after :meth:`new_hand` with a
    seed, to a side drawn per hand (:class:`HandDraws`), as the blueprint agent draws them: a fixed side
    is what an opponent who sizes between the menu's bets exploits (LBR's pot raises taken for all-ins).
    """

    def __init__(self, blueprint: Blueprint) -> None:
        self.blueprint = blueprint
        self.game = blueprint.game
        self.cards = make_cards(blueprint.cards_name, self.game)
        self.mapper = TreeMapper(blueprint.tree)
        self.mapper.rng = _MoreLikely()
        self.hands = hand_universe(self.game)
        self._positions: dict[str, tuple[int, list[Action], list[int]]] = {}
        self._buckets: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self._hand: tuple[int, int] | None = None

    def new_hand(self, seed: int | None, hand: int = 0) -> None:
        """Translate the next hand's off-tree actions by draws of (``seed``, ``hand``); None: the more likely side."""
        self._hand = None if seed is None else (int(seed), int(hand))
        self._positions.clear()

    def _position(self, state: State) -> tuple[int, list[Action], list[int]]:
        """(abstract node, distinct real actions, abstract slot -> index into them) at ``state``."""
        key = state.betting_string()
        hit = self._positions.get(key)
        if hit is None:
            bare = State.initial(self.game)
            for a in state.actions():
                bare = bare.apply(a)
            self.mapper.rng = _MoreLikely() if self._hand is None else HandDraws(*self._hand)
            self.mapper.reset()
            pos = self.mapper.follow(bare, me=state.current_player)
            actions: list[Action] = []
            index: list[int] = []
            for a in self.mapper.real_actions(bare):
                if a not in actions:
                    actions.append(a)
                index.append(actions.index(a))
            hit = (pos.node, actions, index)
            if len(self._positions) > 200_000:
                self._positions.clear()
            self._positions[key] = hit
        return hit

    def actions(self, state: State) -> list[Action]:
        """The abstraction's actions at ``state`` as distinct legal real actions."""
        return list(self._position(state)[1])

    def buckets(self, round_: int, board: Sequence[int]) -> np.ndarray:
        """The bucket of every hand of :func:`hand_universe` on ``board`` (-1 where a card is shared)."""
        key = (round_, tuple(int(c) for c in board))
        hit = self._buckets.get(key)
        if hit is not None:
            return hit
        hands = self.hands
        ok = ~np.isin(hands, np.array(key[1], dtype=np.int32)).any(axis=1)
        out = np.full(len(hands), -1, dtype=np.int64)
        nb = self.game.board_cards_through(round_)
        rows = np.concatenate([hands[ok].astype(np.int64),
                               np.tile(np.array(key[1][:nb], dtype=np.int64), (int(ok.sum()), 1))], axis=1)
        out[ok] = self.cards.bucket_batch(round_, rows)
        if len(self._buckets) > 4096:
            self._buckets.clear()
        self._buckets[key] = out
        return out

    def probabilities(self, state: State, board: Sequence[int] | None = None) -> tuple[list[Action], np.ndarray]:
        """The distinct real actions at ``state`` and their blueprint probabilities ``P[A, H]`` for every
        hand of the player to act (uniform for hands blocked by the board)."""
        node, actions, index = self._position(state)
        board = state.visible_board if board is None else board
        b = self.buckets(state.round, board)
        tree = self.blueprint.tree
        na = int(tree.num_actions[node])
        base = int(tree.base[node])
        good = b >= 0
        raw = np.full((na, len(b)), 1.0 / na)
        cols = base + b[good][None, :] * na + np.arange(na)[:, None]
        raw[:, good] = self.blueprint.strategy[cols]
        tot = raw.sum(axis=0)
        raw = np.where(tot > 0, raw / np.where(tot > 0, tot, 1.0), 1.0 / na)
        out = np.zeros((len(actions), len(b)))
        for slot, i in enumerate(index):
            out[i] += raw[slot]
        return actions, out


    def action_probabilities(self, state: State, action: Action) -> np.ndarray:
        """The blueprint's probability of ``action`` at ``state`` for every hand of the player to act; an
        action off the abstraction counts as the abstract action it translates to (the more likely side)."""
        actions, probs = self.probabilities(state)
        if action in actions:
            return probs[actions.index(action)].copy()
        _, _, index = self._position(state)
        bare = State.initial(self.game)
        for a in state.actions():
            bare = bare.apply(a)
        self.mapper.reset()
        self.mapper.follow(bare, me=state.current_player)
        options = self.mapper.options(bare, action)
        if not options:
            return np.ones(len(self.hands))
        slot = max(options, key=lambda o: o[1])[0]
        return probs[index[slot]].copy()
