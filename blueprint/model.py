"""Resolving abstractions by name, and the trained :class:`Blueprint`.

Card abstractions: ``"lossless"`` (:class:`~blueprint.lossless.LosslessAbstraction`,
small games) or a preset of :func:`abstraction.buckets.load_abstraction`
(``"tiny"``, ``"default"``; hold'em). Action abstractions: ``"legal"`` (limit
games), ``"pot_allin"`` (:data:`~blueprint.abstract_game.pot_allin_menu`) or a
preset of :class:`pokerbot.menus.PotFractionMenu` (``"tiny"``, ``"default"``).

A :class:`Blueprint` is the abstract tree, the average strategy (float32, one
number per infoset action) and the names of its abstractions, so it can be
loaded and played without its training run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from blueprint.abstract_game import DECISION, AbstractGame, BetMenuFn, legal_menu, pot_allin_menu
from blueprint.lossless import AbstractionError, LosslessAbstraction
from pokerbot.actions import action_text
from pokerbot.cards import format_cards
from pokerbot.errors import CheckpointError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.menus import PotFractionMenu
from pokerbot.infoset import Policy
from pokerbot.npz import load_checked, save_checked


class CardBuckets(Protocol):
    """What MCCFR needs from a card abstraction."""

    num_buckets: tuple[int, ...]

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int]) -> int: ...

    def bucket_batch(self, round_: int, cards: np.ndarray) -> np.ndarray:
        """The round-``round_`` bucket of each row of ``cards`` (``(N, hole + board through the round)``: hole cards,
        then the board), as int64; rows are not validated."""
        ...

    def deal(self, rng: np.ndarray, buckets: np.ndarray, result: np.ndarray) -> None: ...

    def config(self) -> dict: ...


class PresetCards:
    """A hold'em card abstraction preset of :mod:`abstraction.buckets` in the form MCCFR uses."""

    def __init__(self, game: GameDef, preset: str) -> None:
        if game.num_rounds != 4 or game.num_hole_cards != 2 or game.deck_size != 52 or game.num_players != 2:
            raise AbstractionError(f"card preset {preset!r} is for heads-up hold'em, not {game.name or 'this game'}")
        from abstraction.buckets import load_abstraction

        self.preset = preset
        self.abstraction = load_abstraction(preset=preset, build_if_missing=True)
        self.num_buckets = tuple(int(self.abstraction.num_buckets(r)) for r in range(4))
        self.tables = tuple(np.ascontiguousarray(t) for t in self.abstraction.tables)

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int]) -> int:
        nb = (0, 3, 4, 5)[round_]
        return int(self.abstraction.bucket(round_, list(hole), list(board)[:nb]))

    def bucket_batch(self, round_: int, cards: np.ndarray) -> np.ndarray:
        """See :meth:`CardBuckets.bucket_batch` (the suit-isomorphic index of each row, then the table)."""
        from abstraction.isomorphism import hand_index_batch

        rows = np.asarray(cards, dtype=np.int64).reshape(len(cards), -1)
        return np.asarray(self.tables[round_])[hand_index_batch(round_, rows)].astype(np.int64)

    def deal(self, rng: np.ndarray, buckets: np.ndarray, result: np.ndarray) -> None:
        from blueprint.holdem_deal import deal_holdem

        t = self.tables
        deal_holdem(rng, len(result), t[0], t[1], t[2], t[3], buckets, result)

    def config(self) -> dict:
        return {"cards": self.preset}


def make_cards(name: str, game: GameDef) -> CardBuckets:
    """The card abstraction called ``name`` for ``game``."""
    if name == "lossless":
        return LosslessAbstraction(game)
    if name in ("tiny", "default", "large"):
        return PresetCards(game, name)
    raise AbstractionError(f"unknown card abstraction {name!r}: use 'lossless', 'tiny', 'default' or 'large'")


def make_menu(name: str, game: GameDef) -> BetMenuFn:
    """The bet menu called ``name``."""
    if name == "legal":
        if game.nolimit:
            raise AbstractionError("actions = 'legal' needs a limit game; use 'tiny', 'default' or 'pot_allin'")
        return legal_menu
    if name == "pot_allin":
        return pot_allin_menu
    presets = {"tiny": PotFractionMenu.tiny, "default": PotFractionMenu.default, "large": PotFractionMenu.large}
    if name in presets:
        return presets[name]()
    raise AbstractionError(
        f"unknown action abstraction {name!r}: use 'legal', 'pot_allin', 'tiny', 'default' or 'large'")


@dataclass
class Blueprint:
    """A trained blueprint: tree, average strategy (``strategy[base + bucket * A + a]``), abstractions."""

    tree: AbstractGame
    strategy: np.ndarray
    cards_name: str
    actions_name: str
    meta: dict[str, Any]

    @property
    def game(self) -> GameDef:
        return self.tree.game

    def probabilities(self, node: int, bucket: int) -> np.ndarray:
        """The strategy at decision ``node`` for card ``bucket``."""
        a_n = int(self.tree.num_actions[node])
        off = int(self.tree.base[node]) + bucket * a_n
        return self.strategy[off : off + a_n]

    def save(self, path: str | Path) -> None:
        header = dict(self.meta, game=self.meta.get("game"), cards=self.cards_name, actions=self.actions_name,
                      num_buckets=list(self.tree.num_buckets))
        save_checked(path, "blueprint", header, dict(self.tree.arrays(), strategy=self.strategy))

    @classmethod
    def load(cls, path: str | Path) -> Blueprint:
        """Load a blueprint file; :class:`CheckpointError` if it is corrupt or not a blueprint."""
        meta, arrays = load_checked(path, "blueprint")
        try:
            game = load_game(meta["game"])
            strategy = arrays.pop("strategy")
            tree = AbstractGame.from_arrays(game, meta["num_buckets"], arrays)
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"{path}: incomplete blueprint ({exc})") from None
        if len(strategy) != tree.num_slots:
            raise CheckpointError(f"{path}: strategy has {len(strategy)} numbers, the tree needs {tree.num_slots}")
        return cls(tree, strategy, meta["cards"], meta["actions"], meta)


def export_policy(tree: AbstractGame, cards: LosslessAbstraction, probs: np.ndarray) -> dict[str, dict[str, float]]:
    """A :data:`~pokerbot.infoset.Policy` keyed by infoset strings, for a lossless small game.

    Every (hole, board) view of each bucket gets that bucket's probabilities.
    """
    policy: dict[str, dict[str, float]] = {}
    for node, betting in tree.decision_nodes():
        r = int(tree.round[node])
        labels = [action_text(a, tree.game.nolimit) for a in tree.actions(node)]
        a_n = len(labels)
        game = tree.game
        for b, views in enumerate(cards.members[r]):
            off = int(tree.base[node]) + b * a_n
            row = {labels[a]: float(probs[off + a]) for a in range(a_n)}
            for hole, board in views:
                groups = [format_cards(board[game.board_cards_before(i) : game.board_cards_through(i)])
                          for i in range(r + 1)]
                policy[f"{format_cards(hole)}{'/'.join(groups)}:{betting}"] = row
    return policy


__all__ = ["Blueprint", "CardBuckets", "PresetCards", "export_policy", "make_cards", "make_menu", "DECISION",
           "Policy"]
