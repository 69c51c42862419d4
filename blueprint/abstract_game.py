"""The abstract game: a GameDef's betting tree under a bet menu, flattened into arrays.

The betting is enumerated by :func:`pokerbot.betting_tree.betting_tree`, the same
enumeration the solver's public trees are built from (this layout drops its
chance nodes: card buckets stand for the cards). Nodes are numbered as they are
created, root 0, children after their parent. Every node has

* ``kind``: ``DECISION``, ``FOLD_NODE`` (``player`` = who folded) or ``SHOWDOWN``,
  numbered as in :mod:`pokerbot.betting_tree` (blueprint files and
  :meth:`AbstractGame.signature` keep their own codes 0 / 1 / 2, see ``STORED_KIND``);
* ``player`` (the actor at a decision node), ``round``;
* ``num_actions`` and ``first_child``: its children are
  ``child[first_child : first_child + num_actions]``, the actions leading to them
  ``action_kind`` / ``action_size`` at the same slots;
* ``spent[n, p]``: chips player ``p`` has put in (terminal payoffs);
* ``base``: where its slice of the regret / strategy-sum arrays starts.

An information set is (decision node, card bucket of the actor in that round);
its ``A`` values live at ``base[n] + bucket * A + a``. So the arrays hold
``sum(num_buckets[round[n]] * num_actions[n])`` numbers, with no hashing.

Bet menus are :mod:`pokerbot.menus`'s (``legal_menu`` and ``pot_allin_menu``
below are two of them).

>>> from pokerbot.gamedef import load_game
>>> g = AbstractGame.build(load_game("kuhn"), num_buckets=(3,))
>>> g.num_decision_nodes, g.num_infosets, g.num_slots
(4, 12, 24)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.betting_tree import CHANCE, DECISION, FOLD_NODE, SHOWDOWN, BettingNode, betting_tree
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.menus import BetMenuFn, PotFractionMenu, limit_menu
from pokerbot.state import Action, ActionType, State

__all__ = [
    "DECISION", "FOLD_NODE", "SHOWDOWN", "STORED_KIND", "AbstractGame", "AbstractGameError", "BetMenuFn",
    "legal_menu", "pot_allin_menu",
]

#: The code of each node kind in blueprint files and tree signatures (fixed when the abstract game had
#: its own numbering: decision 0, fold 1, showdown 2), so files on disk and their signatures stay valid.
STORED_KIND = {DECISION: 0, FOLD_NODE: 1, SHOWDOWN: 2}


class AbstractGameError(PokerbotError, ValueError):
    """A bet menu or game the abstract-game builder cannot use."""


def legal_menu(state: State) -> list[Action]:
    """Every legal action kind (fold only when facing a bet): :func:`pokerbot.menus.limit_menu`,
    refused for a no-limit game (whose raises need sizes).

    >>> from pokerbot.gamedef import load_game
    >>> [str(a) for a in legal_menu(State.initial(load_game("leduc")))]
    ['c', 'r']
    """
    if state.game.nolimit:
        raise AbstractGameError("a no-limit game needs a bet menu (for example pokerbot.menus.PotFractionMenu)")
    return limit_menu(state)


#: One pot-size raise per street (two preflop) plus all-in: the slumbot2019 reference tree
#: (:meth:`pokerbot.menus.PotFractionMenu.pot_allin`).
pot_allin_menu = PotFractionMenu.pot_allin()


def _past_chance(t: BettingNode) -> BettingNode:
    """The node below ``t``'s board deals (no chance nodes here: card buckets stand for the cards)."""
    while t.kind == CHANCE:
        t = t.children[0]
    return t


def _stored_kinds(kind: np.ndarray) -> np.ndarray:
    """``kind`` in the codes of :data:`STORED_KIND`."""
    out = np.full(kind.shape, -1, dtype=np.int8)
    for k, code in STORED_KIND.items():
        out[kind == k] = code
    return out


def _kinds_from_stored(stored: np.ndarray) -> np.ndarray:
    """The node kinds of stored codes; ValueError for a code that is not one."""
    out = np.full(stored.shape, -1, dtype=np.int8)
    for k, code in STORED_KIND.items():
        out[stored == code] = k
    if (out < 0).any():
        raise ValueError(f"unknown node kind codes {sorted(set(stored[out < 0].tolist()))}")
    return out


@dataclass
class AbstractGame:
    """The flattened betting tree; see the module docstring. Build with :meth:`build`."""

    game: GameDef
    num_buckets: tuple[int, ...]
    kind: np.ndarray  # int8 [N]
    player: np.ndarray  # int8 [N]
    round: np.ndarray  # int8 [N]
    num_actions: np.ndarray  # int32 [N]
    first_child: np.ndarray  # int32 [N]
    base: np.ndarray  # int64 [N]
    spent: np.ndarray  # int32 [N, 2]
    child: np.ndarray  # int32 [M]
    action_kind: np.ndarray  # int8 [M]
    action_size: np.ndarray  # int32 [M]
    max_depth: int
    max_actions: int

    # -- building -------------------------------------------------------------------

    @classmethod
    def build(
        cls, game: GameDef, num_buckets: Sequence[int], menu: BetMenuFn | None = None
    ) -> AbstractGame:
        """Flatten the betting tree of ``game`` under ``menu`` (default: :func:`legal_menu`).

        Raises :class:`AbstractGameError` for a game that is not heads-up, a bucket count
        per round missing, or a menu that offers no action, an illegal one or one twice.
        """
        if game.num_players != 2:
            raise AbstractGameError(f"blueprints are heads-up; the game has {game.num_players} players")
        if len(num_buckets) != game.num_rounds:
            raise AbstractGameError(f"need one bucket count per round ({game.num_rounds}), got {list(num_buckets)}")
        tree = betting_tree(State.initial(game), menu or legal_menu, error=AbstractGameError, max_nodes=None,
                            strings=False)
        kind: list[int] = []
        player: list[int] = []
        rnd: list[int] = []
        nact: list[int] = []
        first: list[int] = []
        spent: list[tuple[int, ...]] = []
        child: list[int] = []
        akind: list[int] = []
        asize: list[int] = []
        max_depth = 0
        max_actions = 1

        def new_node(t: BettingNode) -> int:
            kind.append(t.kind)
            player.append(t.player)
            rnd.append(t.round)
            spent.append(t.spent)
            nact.append(0)
            first.append(0)
            return len(kind) - 1

        stack: list[tuple[BettingNode, int, int]] = [(tree, new_node(tree), 0)]
        while stack:
            t, n, depth = stack.pop()
            if t.kind != DECISION:
                continue
            max_depth = max(max_depth, depth + 1)
            max_actions = max(max_actions, len(t.actions))
            first[n] = len(child)
            nact[n] = len(t.actions)
            akind.extend(int(a.kind) for a in t.actions)
            asize.extend(int(a.size) for a in t.actions)
            kids = [(c, new_node(c), depth + 1) for c in map(_past_chance, t.children)]
            child.extend(c for _, c, _ in kids)
            stack.extend(reversed(kids))

        kind_a = np.array(kind, dtype=np.int8)
        rnd_a = np.array(rnd, dtype=np.int8)
        nact_a = np.array(nact, dtype=np.int32)
        nb = np.array(num_buckets, dtype=np.int64)
        sizes = np.where(kind_a == DECISION, nb[rnd_a] * nact_a, 0)
        base = np.zeros(len(kind), dtype=np.int64)
        base[1:] = np.cumsum(sizes)[:-1]
        return cls(
            game=game,
            num_buckets=tuple(int(b) for b in num_buckets),
            kind=kind_a,
            player=np.array(player, dtype=np.int8),
            round=rnd_a,
            num_actions=nact_a,
            first_child=np.array(first, dtype=np.int32),
            base=base,
            spent=np.array(spent, dtype=np.int32).reshape(-1, 2),
            child=np.array(child, dtype=np.int32),
            action_kind=np.array(akind, dtype=np.int8),
            action_size=np.array(asize, dtype=np.int32),
            max_depth=max_depth,
            max_actions=max_actions,
        )

    # -- sizes ------------------------------------------------------------------------

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decision_nodes(self) -> int:
        return int(np.count_nonzero(self.kind == DECISION))

    @property
    def num_infosets(self) -> int:
        nb = np.array(self.num_buckets, dtype=np.int64)
        return int(nb[self.round[self.kind == DECISION]].sum())

    @property
    def num_slots(self) -> int:
        """Length of the regret and strategy-sum arrays (one number per infoset action)."""
        d = self.kind == DECISION
        nb = np.array(self.num_buckets, dtype=np.int64)
        return int((nb[self.round[d]] * self.num_actions[d]).sum())

    def bytes_per_infoset(self, regret_bytes: float = 4, sum_bytes: float = 4) -> float:
        """Average bytes of regrets + strategy sums per information set."""
        return self.num_slots * (regret_bytes + sum_bytes) / max(1, self.num_infosets)

    def tree_bytes(self) -> int:
        return sum(
            a.nbytes
            for a in (self.kind, self.player, self.round, self.num_actions, self.first_child, self.base,
                      self.spent, self.child, self.action_kind, self.action_size)
        )

    # -- walking --------------------------------------------------------------------------

    def actions(self, node: int) -> list[Action]:
        """The abstract actions at a decision node."""
        f, k = int(self.first_child[node]), int(self.num_actions[node])
        return [Action(ActionType(int(self.action_kind[i])), int(self.action_size[i])) for i in range(f, f + k)]

    def children(self, node: int) -> list[int]:
        f, k = int(self.first_child[node]), int(self.num_actions[node])
        return [int(c) for c in self.child[f : f + k]]

    def decision_nodes(self) -> list[tuple[int, str]]:
        """(node, betting string) of every decision node, depth-first."""
        out = []
        stack: list[tuple[int, State]] = [(0, State.initial(self.game))]
        while stack:
            n, s = stack.pop()
            if self.kind[n] != DECISION:
                continue
            out.append((n, s.betting_string()))
            for a, c in zip(reversed(self.actions(n)), reversed(self.children(n))):
                stack.append((c, s.apply(a)))
        return out

    def signature(self) -> str:
        """A short hash of the tree and bucket counts (checkpoints refuse a different tree)."""
        import hashlib

        h = hashlib.sha256()
        for a in (_stored_kinds(self.kind), self.player, self.round, self.num_actions, self.child, self.action_kind,
                  self.action_size, self.spent):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr(self.num_buckets).encode())
        return h.hexdigest()[:16]

    def arrays(self) -> dict[str, np.ndarray]:
        """The tree as stored in blueprint files (``kind`` in the codes of :data:`STORED_KIND`)."""
        return {
            "kind": _stored_kinds(self.kind), "player": self.player, "round": self.round, "num_actions": self.num_actions,
            "first_child": self.first_child, "base": self.base, "spent": self.spent, "child": self.child,
            "action_kind": self.action_kind, "action_size": self.action_size,
        }

    @classmethod
    def from_arrays(cls, game: GameDef, num_buckets: Sequence[int], arrays: dict[str, np.ndarray]) -> AbstractGame:
        """The tree of :meth:`arrays`; ValueError for an unknown node kind code."""
        fields = {k: np.asarray(v) for k, v in arrays.items()}
        fields["kind"] = _kinds_from_stored(fields["kind"])
        nact = fields["num_actions"]
        return cls(
            game=game, num_buckets=tuple(int(b) for b in num_buckets),
            max_depth=_max_depth(fields["kind"], fields["first_child"], nact, fields["child"]),
            max_actions=int(max(1, nact.max(initial=1))),
            **fields,
        )


def _max_depth(kind: np.ndarray, first: np.ndarray, nact: np.ndarray, child: np.ndarray) -> int:
    depth = np.zeros(len(kind), dtype=np.int64)
    best = 0
    for n in range(len(kind)):  # children always follow their parent in depth-first order
        if kind[n] == DECISION:
            best = max(best, int(depth[n]) + 1)
            for c in child[first[n] : first[n] + nact[n]]:
                depth[c] = depth[n] + 1
    return best
