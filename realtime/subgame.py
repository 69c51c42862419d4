"""Subgames built from a live hand: the blueprint's view of any real state, menus, node lookup.

* :class:`BlueprintPolicy` reads the blueprint at any real betting state through the
  one real-to-abstract mapping (:class:`blueprint.mapping.TreeMapper`), for every hand of
  a player at once; an off-tree size translates to the more likely side of its
  pseudo-harmonic bracket, or to a side drawn per hand (:meth:`BlueprintPolicy.new_hand`).
* :class:`SubgameMenu` is the bet menu of a real subgame: at every state the
  abstraction's actions as real actions (``TreeMapper.real_actions`` at the mapped
  position) plus the actions the real hand took there, so the real (possibly
  off-tree) opponent action is a branch of the tree and needs no translation.
* :func:`hand_universe` is the one hand list every subgame of a game uses, so range
  vectors carry over between subgames without re-indexing (hands blocked by the
  board have zero validity in each tree).

>>> from pokerbot.gamedef import load_game
>>> hand_universe(load_game("leduc-nl")).shape
(6, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from blueprint.mapping import HandDraws, TreeMapper
from blueprint.model import Blueprint, PresetCards, make_cards
from pokerbot.gamedef import GameDef
from pokerbot.menus import BetMenuFn
from pokerbot.solver.tree import CHANCE, DECISION, PublicTree, action_text, hand_list
from pokerbot.state import Action, State


def hand_universe(game: GameDef) -> np.ndarray:
    """Every combination of hole cards, in the solver's default order (as ``build_tree`` lists them)."""
    return _universe(game)


@lru_cache(maxsize=8)
def _universe(game: GameDef) -> np.ndarray:
    out = hand_list(game)
    out.setflags(write=False)
    return out


def public(state: State) -> State:
    """``state`` without hole cards (what both players see)."""
    return state.with_cards(hole_cards=((),) * state.game.num_players)


def public_key(state: State) -> str:
    """The betting and the board: the key of a public state."""
    return f"{state.betting_string()}|{','.join(str(c) for c in state.visible_board)}"


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
        self.mapper.rng = _MoreLikely()  # type: ignore[assignment]
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
            self.mapper.rng = _MoreLikely() if self._hand is None else HandDraws(*self._hand)  # type: ignore[assignment]
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
        if isinstance(self.cards, PresetCards):
            from abstraction.isomorphism import hand_index_batch

            nb = self.game.board_cards_through(round_)
            rows = np.concatenate([hands[ok].astype(np.int64),
                                   np.tile(np.array(key[1][:nb], dtype=np.int64), (int(ok.sum()), 1))], axis=1)
            out[ok] = self.cards.tables[round_][hand_index_batch(round_, rows)]
        else:
            for h in np.nonzero(ok)[0]:
                out[h] = self.cards.bucket(round_, hands[h].tolist(), list(key[1]))
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


class SubgameMenu:
    """The bet menu of a subgame: the blueprint's actions at each state, then, where ``player`` acts,
    ``extra``'s (a round's added sizes, :attr:`realtime.config.RoundConfig.sizes`), then the real hand's own
    action there.

    Added sizes are the agent's only: offered to the opponent, they would be answered in the blueprint's
    alternative values by translation, whose exploitation would inflate those values and let a safe gadget
    give the same amount away elsewhere (measured on no-limit Leduc, resolve x100: exploitability 101 -> 223 mbb/g)."""

    def __init__(self, policy: BlueprintPolicy, real: State, extra: BetMenuFn | None = None,
                 player: int | None = None) -> None:
        self.policy = policy
        self.extra = extra
        self.player = player
        self.taken: dict[str, Action] = {}
        s = State.initial(real.game)
        for a in real.actions():
            self.taken[s.betting_string()] = a
            s = s.apply(a)

    def __call__(self, state: State) -> list[Action]:
        actions = self.policy.actions(state)
        if self.extra is not None and state.current_player == self.player:
            actions = actions + [a for a in self.extra(state) if a not in actions]
        taken = self.taken.get(state.betting_string())
        if taken is not None and taken not in actions:
            actions = actions + [taken]
        return actions


def find_node(tree: PublicTree, state: State) -> int | None:
    """The node of ``tree`` at ``state`` (betting and board), or None if the tree does not hold it."""
    root = tree.root_state
    done = root.actions()
    actions = state.actions()
    if actions[: len(done)] != done:
        return None
    board = list(state.visible_board)
    n = 0
    todo = actions[len(done):]
    i = 0
    while True:
        kind = int(tree.kind[n])
        if kind == CHANCE:
            f, k = int(tree.first_child[n]), int(tree.num_children[n])
            target = None
            for c in range(f, f + k):
                cards = [x for g in tree.boards[int(tree.board[c])] for x in g]
                if sorted(cards) == sorted(board[: len(cards)]) and len(cards) <= len(board):
                    target = c
                    break
            if target is None:
                return None
            n = target
            continue
        if i == len(todo):
            cards = [x for g in tree.boards[int(tree.board[n])] for x in g]
            return n if sorted(cards) == sorted(board) else None
        if kind != DECISION:
            return None
        label = action_text(todo[i], tree.game.nolimit)
        labels = tree.node_labels(n)
        if label not in labels:
            return None
        n = int(tree.first_child[n]) + labels.index(label)
        i += 1


def blueprint_on_tree(tree: PublicTree, policy: BlueprintPolicy, player: int, out: np.ndarray) -> np.ndarray:
    """``out`` (a strategy array of ``tree``) with ``player``'s decisions set to the blueprint's strategy.

    Every blueprint action must be a branch of the tree (true for trees built with
    :class:`SubgameMenu`); the tree's other branches get probability 0.
    """
    from pokerbot.solver.gadgets import node_state

    nh = tree.num_hands[player]
    for n in tree.decision_nodes[player]:
        n = int(n)
        state = node_state(tree, n)
        actions, probs = policy.probabilities(state)
        labels = tree.node_labels(n)
        block = np.zeros((len(labels), nh))
        for a, row in zip(actions, probs):
            block[labels.index(action_text(a, tree.game.nolimit))] = row
        o = int(tree.slot[n])
        out[o : o + len(labels) * nh] = block.ravel()
    return out


def sampled_equity(tree: PublicTree, board_id: int, samples: int, seed: int) -> np.ndarray:
    """:func:`pokerbot.solver.leaves.equity_table` estimated from ``samples`` run-outs drawn without
    replacement (all of them when there are no more): the all-in leaves of a flop subgame need
    1,176 run-outs x 1,326^2 hand pairs exactly, too slow per decision on 2 cores."""
    from pokerbot.solver.leaves import runout_equity

    return runout_equity(tree, board_id, samples, seed)
