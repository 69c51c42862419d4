"""The abstract game: a GameDef's betting tree under a bet menu, flattened into arrays.

Nodes are numbered as they are created, root 0, children after their parent. Every node has

* ``kind``: ``DECISION``, ``FOLD`` (``player`` = who folded) or ``SHOWDOWN``;
* ``player`` (the actor at a decision node), ``round``;
* ``num_actions`` and ``first_child``: its children are
  ``child[first_child : first_child + num_actions]``, the actions leading to them
  ``action_kind`` / ``action_size`` at the same slots;
* ``spent[n, p]``: chips player ``p`` has put in (terminal payoffs);
* ``base``: where its slice of the regret / strategy-sum arrays starts.

An information set is (decision node, card bucket of the actor in that round);
its ``A`` values live at ``base[n] + bucket * A + a``. So the arrays hold
``sum(num_buckets[round[n]] * num_actions[n])`` numbers, with no hashing.

>>> from pokerbot.gamedef import load_game
>>> g = AbstractGame.build(load_game("kuhn"), num_buckets=(3,))
>>> g.num_decision_nodes, g.num_infosets, g.num_slots
(4, 12, 24)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.state import CALL, FOLD, RAISE, Action, ActionType, State

DECISION, FOLD_NODE, SHOWDOWN = 0, 1, 2

#: A bet menu: the abstract actions available in a state.
BetMenuFn = Callable[[State], list[Action]]


class AbstractGameError(PokerbotError, ValueError):
    """A bet menu or game the abstract-game builder cannot use."""


def legal_menu(state: State) -> list[Action]:
    """Every legal action kind (fold only when facing a bet): the exact menu of a limit game.

    >>> from pokerbot.gamedef import load_game
    >>> [str(a) for a in legal_menu(State.initial(load_game("leduc")))]
    ['c', 'r']
    """
    if state.game.nolimit:
        raise AbstractGameError("a no-limit game needs a bet menu (for example abstraction.actions.BetMenu)")
    out = [FOLD] if state.can_fold() else []
    out.append(CALL)
    if state.raise_bounds() is not None:
        out.append(RAISE)
    return out


def pot_allin_menu(state: State) -> list[Action]:
    """One pot-size raise per street (two preflop) plus all-in: the slumbot2019 reference tree.

    >>> from pokerbot.gamedef import load_game
    >>> [str(a) for a in pot_allin_menu(State.initial(load_game("hunl")))]
    ['f', 'c', 'r300', 'r20000']
    """
    out = [FOLD] if state.can_fold() else []
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is None:
        return out
    if not state.game.nolimit:
        return out + [RAISE]
    lo, hi = bounds
    limit = 2 if state.round == 0 else 1
    if state.num_raises() < limit:
        to_call = state.to_call()
        size = state.max_spent + state.pot + to_call  # pot-size raise-to
        if lo <= size < hi:
            out.append(Action(ActionType.RAISE, size))
    out.append(Action(ActionType.RAISE, hi))
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
        """Expand the betting tree of ``game`` under ``menu`` (default: :func:`legal_menu`)."""
        if game.num_players != 2:
            raise AbstractGameError(f"blueprints are heads-up; the game has {game.num_players} players")
        if len(num_buckets) != game.num_rounds:
            raise AbstractGameError(f"need one bucket count per round ({game.num_rounds}), got {list(num_buckets)}")
        menu = menu or legal_menu
        kind: list[int] = []
        player: list[int] = []
        rnd: list[int] = []
        nact: list[int] = []
        first: list[int] = []
        spent: list[tuple[int, int]] = []
        child: list[int] = []
        akind: list[int] = []
        asize: list[int] = []
        max_depth = 0
        max_actions = 1

        def new_node(state: State) -> int:
            n = len(kind)
            rnd.append(state.round)
            spent.append((state.spent[0], state.spent[1]))
            if state.finished:
                if any(state.folded):
                    kind.append(FOLD_NODE)
                    player.append(state.folded.index(True))
                else:
                    kind.append(SHOWDOWN)
                    player.append(-1)
                nact.append(0)
                first.append(0)
            else:
                kind.append(DECISION)
                player.append(int(state.current_player))  # type: ignore[arg-type]
                nact.append(0)
                first.append(0)
            return n

        root = State.initial(game)
        stack: list[tuple[State, int, int]] = [(root, new_node(root), 0)]
        while stack:
            state, n, depth = stack.pop()
            if state.finished:
                continue
            max_depth = max(max_depth, depth + 1)
            actions = menu(state)
            if not actions:
                raise AbstractGameError(f"the bet menu offers no action at {state.betting_string()!r}")
            seen = set()
            for a in actions:
                if not state.is_legal(a):
                    raise AbstractGameError(f"the bet menu offers illegal {a} at {state.betting_string()!r}")
                key = (a.kind, a.size)
                if key in seen:
                    raise AbstractGameError(f"the bet menu offers {a} twice at {state.betting_string()!r}")
                seen.add(key)
            max_actions = max(max_actions, len(actions))
            first[n] = len(child)
            nact[n] = len(actions)
            child.extend([-1] * len(actions))
            akind.extend(int(a.kind) for a in actions)
            asize.extend(int(a.size) for a in actions)
            kids = []
            for i, a in enumerate(actions):
                nxt = state.apply(a)
                c = new_node(nxt)
                child[first[n] + i] = c
                kids.append((nxt, c, depth + 1))
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

    def bytes_per_infoset(self, regret_bytes: int = 4, sum_bytes: int = 4) -> float:
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
        for a in (self.kind, self.player, self.round, self.num_actions, self.child, self.action_kind,
                  self.action_size, self.spent):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr(self.num_buckets).encode())
        return h.hexdigest()[:16]

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "kind": self.kind, "player": self.player, "round": self.round, "num_actions": self.num_actions,
            "first_child": self.first_child, "base": self.base, "spent": self.spent, "child": self.child,
            "action_kind": self.action_kind, "action_size": self.action_size,
        }

    @classmethod
    def from_arrays(cls, game: GameDef, num_buckets: Sequence[int], arrays: dict[str, np.ndarray]) -> AbstractGame:
        nact = arrays["num_actions"]
        return cls(
            game=game, num_buckets=tuple(int(b) for b in num_buckets),
            max_depth=_max_depth(arrays["kind"], arrays["first_child"], nact, arrays["child"]),
            max_actions=int(max(1, nact.max(initial=1))),
            **{k: np.asarray(v) for k, v in arrays.items()},
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
