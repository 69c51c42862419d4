"""Explicit two-player extensive-form games with per-player observations at every node.

A :class:`Game` is a tree stored in flat arrays, nodes in depth-first preorder (so the
subtree of node ``h`` is the index range ``h .. subtree_end[h] - 1``). Every node carries,
for each player, an *observation infoset*: the class of nodes with the same sequence of
that player's observations and own actions (Zhang & Sandholm's ``s_i(h)``). Both players
therefore have an infoset at every node, acting or not; the infosets where a player acts
are her *decision infosets*, and their actions make her sequences (treeplex).

Games are general-sum: ``payoff[z, i]`` is player ``i``'s payoff at terminal ``z``.

Build one with :func:`build_game` from a root state and an ``expand`` function::

    def expand(n):                       # a one-card toy: chance deals 0/1, player 0 guesses
        if n is None:
            return Branch(CHANCE, [Move("0", 0, 0.5, ("", "")), Move("1", 1, 0.5, ("", ""))])
        if isinstance(n, int):
            return Branch(0, [Move(g, (n, g)) for g in ("g0", "g1")])
        return Leaf((1.0, -1.0) if n[1] == f"g{n[0]}" else (-1.0, 1.0))

    game = build_game("guess", None, expand)
    game.num_nodes, game.num_infosets      # (7, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from pokerbot.errors import PokerbotError

if TYPE_CHECKING:
    from pokerbot.efg.sequence_form import SequenceForm

#: Node kinds besides the players 0 and 1.
CHANCE = 2
TERMINAL = 3


class EfgError(PokerbotError, ValueError):
    """A malformed explicit game, strategy or program (the message names what was wrong)."""


@dataclass(frozen=True)
class Move:
    """One edge: its label, the child state, the chance probability (chance nodes only),
    and what each player observes on arriving at the child (``""``: nothing new)."""

    label: str
    child: Any
    prob: float = 1.0
    obs: tuple[Hashable, Hashable] = ("", "")


@dataclass(frozen=True)
class Branch:
    """An internal node: who moves (0, 1 or :data:`CHANCE`) and the moves."""

    player: int
    moves: Sequence[Move]


@dataclass(frozen=True)
class Leaf:
    """A terminal node with each player's payoff."""

    payoffs: tuple[float, float]


Expand = Callable[[Any], "Branch | Leaf"]


@dataclass(frozen=True)
class Treeplex:
    """One player's sequence-form strategy space.

    Decision infosets ``d = 0 .. D-1`` are in topological order (an infoset's parent
    sequence belongs to an earlier infoset or is the empty sequence 0). The sequences of
    ``d`` are ``first_seq[d] .. first_seq[d] + num_actions[d] - 1``, numbered infoset by
    infoset from 1. A sequence-form strategy ``x`` has ``x[0] = 1`` and, for every ``d``,
    ``sum(x[first_seq[d]:first_seq[d]+num_actions[d]]) = x[parent_seq[d]]``.
    """

    parent_seq: np.ndarray
    num_actions: np.ndarray
    labels: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        parent = np.asarray(self.parent_seq, dtype=np.int64)
        counts = np.asarray(self.num_actions, dtype=np.int64)
        object.__setattr__(self, "parent_seq", parent)
        object.__setattr__(self, "num_actions", counts)
        if parent.shape != counts.shape or (counts < 1).any():
            raise EfgError("treeplex: parent_seq and num_actions must match and every infoset needs an action")
        first = 1 + np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) else np.zeros(0, np.int64)
        if len(parent) and ((parent < 0).any() or (parent >= first).any()):
            raise EfgError("treeplex: infosets must be in topological order (parent sequence earlier)")

    @cached_property
    def first_seq(self) -> np.ndarray:
        c = self.num_actions
        return (1 + np.concatenate(([0], np.cumsum(c)[:-1]))).astype(np.int64) if len(c) else np.zeros(0, np.int64)

    @property
    def num_infosets(self) -> int:
        return len(self.num_actions)

    @cached_property
    def num_seqs(self) -> int:
        return 1 + int(self.num_actions.sum())

    @cached_property
    def seq_infoset(self) -> np.ndarray:
        """The decision infoset of each sequence (-1 for the empty sequence)."""
        return np.concatenate(([-1], np.repeat(np.arange(self.num_infosets), self.num_actions))).astype(np.int64)

    @cached_property
    def seq_parent(self) -> np.ndarray:
        """The parent sequence of each sequence's infoset (-1 for the empty sequence)."""
        out = np.full(self.num_seqs, -1, dtype=np.int64)
        out[1:] = self.parent_seq[self.seq_infoset[1:]]
        return out

    @cached_property
    def children(self) -> list[list[int]]:
        """For each sequence, the decision infosets whose parent sequence it is."""
        out: list[list[int]] = [[] for _ in range(self.num_seqs)]
        for d, s in enumerate(self.parent_seq):
            out[int(s)].append(d)
        return out

    def seq_label(self, s: int) -> str:
        """A readable name: ``d<infoset>:<action label>`` (``∅`` for the empty sequence)."""
        if s == 0:
            return "∅"
        d = int(self.seq_infoset[s])
        a = s - int(self.first_seq[d])
        name = self.labels[d][a] if self.labels else str(a)
        return f"d{d}:{name}"


@dataclass(frozen=True)
class PlayerInfo:
    """One player's observation infosets in a :class:`Game`.

    Observation infosets ``J`` are numbered in order of first visit (so a parent
    infoset precedes its children). ``obs_parent[J]`` is the infoset at the parent nodes
    (-1 at the root), ``obs_parent_seq[J]`` the player's own sequence played from the
    parent infoset to reach ``J`` (-1 if the player did not act there), ``obs_seq[J]``
    her sequence at ``J``, ``obs_decision[J]`` the decision infoset (-1 if she does not
    act at ``J``), and ``decision_obs[d]`` the inverse map.
    """

    obs_parent: np.ndarray
    obs_parent_seq: np.ndarray
    obs_seq: np.ndarray
    obs_decision: np.ndarray
    decision_obs: np.ndarray
    treeplex: Treeplex
    #: The observation made on entering each infoset (what tells it from its siblings).
    obs_label: tuple[Hashable, ...] = ()

    @property
    def num_obs(self) -> int:
        return len(self.obs_parent)


@dataclass(frozen=True)
class Game:
    """An explicit game in flat arrays (see the module docstring)."""

    name: str
    parent: np.ndarray
    player: np.ndarray
    depth: np.ndarray
    subtree_end: np.ndarray
    edge_label: tuple[str, ...]
    edge_prob: np.ndarray
    chance_reach: np.ndarray
    payoff: np.ndarray
    #: ``obs[i, h]``: player i's observation infoset at node h.
    obs: np.ndarray
    #: ``seq[i, h]``: player i's sequence at node h (her last own action).
    seq: np.ndarray
    info: tuple[PlayerInfo, PlayerInfo]
    states: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        return len(self.parent)

    @property
    def num_infosets(self) -> int:
        """Decision infosets of both players (the count the papers report)."""
        return self.info[0].treeplex.num_infosets + self.info[1].treeplex.num_infosets

    def treeplex(self, player: int) -> Treeplex:
        return self.info[player].treeplex

    @cached_property
    def sequence_form(self) -> SequenceForm:
        """Treeplexes and sparse payoff matrices (computed once)."""
        from pokerbot.efg.sequence_form import game_sequence_form

        return game_sequence_form(self)

    @cached_property
    def terminals(self) -> np.ndarray:
        return np.flatnonzero(self.player == TERMINAL)

    @cached_property
    def normalizer(self) -> float:
        """``2 / (max u_0 - min u_0)``: the factor that maps player 0's payoff range onto
        [-1, 1] (Table 1 of the KLSS paper reports exploitability in these units)."""
        u = self.payoff[self.terminals, 0]
        spread = float(u.max() - u.min())
        return 2.0 / spread if spread > 0 else 1.0

    @cached_property
    def is_zero_sum(self) -> bool:
        z = self.terminals
        return bool(np.allclose(self.payoff[z, 0], -self.payoff[z, 1], atol=1e-12))

    @cached_property
    def _obs_members(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        out = []
        for i in (0, 1):
            order = np.argsort(self.obs[i], kind="stable")
            starts = np.searchsorted(self.obs[i][order], np.arange(self.info[i].num_obs + 1))
            out.append((order, starts))
        return tuple(out)

    def obs_nodes(self, player: int, j: int) -> np.ndarray:
        """The nodes of player ``player``'s observation infoset ``j``."""
        order, starts = self._obs_members[player]
        return order[starts[j] : starts[j + 1]]

    def decision_nodes(self, player: int, d: int) -> np.ndarray:
        """The nodes of player ``player``'s decision infoset ``d``."""
        return self.obs_nodes(player, int(self.info[player].decision_obs[d]))

    def children(self, h: int) -> np.ndarray:
        """Children of node ``h`` in order (contiguous preorder subranges)."""
        out = []
        c = h + 1
        while c < self.subtree_end[h]:
            out.append(c)
            c = int(self.subtree_end[c])
        return np.asarray(out, dtype=np.int64)

    def path_labels(self, h: int) -> list[str]:
        """Edge labels from the root to ``h``."""
        out = []
        while self.parent[h] >= 0:
            out.append(self.edge_label[h])
            h = int(self.parent[h])
        return out[::-1]


def build_game(name: str, root: Any, expand: Expand, root_obs: tuple[Hashable, Hashable] = ("", ""),
               keep_states: bool = False) -> Game:
    """Expand the tree from ``root`` depth-first and index everything.

    Observation infosets are keyed by (parent infoset, own action taken there or -1,
    observation), which gives perfect recall by construction. A decision infoset must
    offer the same action labels at all its nodes; otherwise :class:`EfgError`.
    """
    parent: list[int] = []
    player: list[int] = []
    depth: list[int] = []
    end: list[int] = []
    label: list[str] = []
    prob: list[float] = []
    pay: dict[int, tuple[float, float]] = {}
    obs_ids: list[list[int]] = [[], []]
    states: list[Any] = []
    # per player: key -> obs id, and per obs id: parent obs, own action index from parent, decision labels
    key_to_obs: list[dict[tuple[int, int, Hashable], int]] = [{}, {}]
    o_parent: list[list[int]] = [[], []]
    o_action: list[list[int]] = [[], []]
    o_labels: list[list[tuple[str, ...] | None]] = [[], []]
    o_acts: list[list[bool | None]] = [[], []]
    o_seen: list[list[Hashable]] = [[], []]

    def obs_id(i: int, parent_obs: int, own_action: int, o: Hashable) -> int:
        key = (parent_obs, own_action, o)
        j = key_to_obs[i].get(key)
        if j is None:
            j = len(o_parent[i])
            key_to_obs[i][key] = j
            o_parent[i].append(parent_obs)
            o_action[i].append(own_action)
            o_labels[i].append(None)
            o_acts[i].append(None)
            o_seen[i].append(o)
        return j

    # Recursion (not an explicit stack) keeps preorder and subtree ends simple; the trees are shallow.
    def visit(state: Any, par: int, lab: str, p: float, ob: tuple[int, int], d: int) -> int:
        h = len(parent)
        parent.append(par)
        depth.append(d)
        end.append(-1)
        label.append(lab)
        prob.append(p)
        obs_ids[0].append(ob[0])
        obs_ids[1].append(ob[1])
        if keep_states:
            states.append(state)
        node = expand(state)
        if isinstance(node, Leaf):
            player.append(TERMINAL)
            pay[h] = (float(node.payoffs[0]), float(node.payoffs[1]))
            for i in (0, 1):
                _mark(i, ob[i], None, h)
            end[h] = h + 1
            return h + 1
        if not isinstance(node, Branch) or node.player not in (0, 1, CHANCE) or not node.moves:
            raise EfgError(f"{name}: node {lab!r} at depth {d} is neither a Leaf nor a Branch with moves")
        player.append(node.player)
        labels = tuple(m.label for m in node.moves)
        if len(set(labels)) != len(labels):
            raise EfgError(f"{name}: repeated action labels {labels} at depth {d}")
        for i in (0, 1):
            _mark(i, ob[i], labels if node.player == i else None, h)
        if node.player == CHANCE:
            total = sum(m.prob for m in node.moves)
            if abs(total - 1.0) > 1e-9 or any(m.prob < 0 for m in node.moves):
                raise EfgError(f"{name}: chance probabilities {[m.prob for m in node.moves]} do not sum to 1")
        for a, m in enumerate(node.moves):
            child_ob = (obs_id(0, ob[0], a if node.player == 0 else -1, m.obs[0]),
                        obs_id(1, ob[1], a if node.player == 1 else -1, m.obs[1]))
            visit(m.child, h, m.label, m.prob if node.player == CHANCE else 1.0, child_ob, d + 1)
        end[h] = len(parent)
        return end[h]

    def _mark(i: int, j: int, labels: tuple[str, ...] | None, h: int) -> None:
        acts = labels is not None
        if o_acts[i][j] is None:
            o_acts[i][j] = acts
            o_labels[i][j] = labels
        elif o_acts[i][j] != acts or o_labels[i][j] != labels:
            raise EfgError(
                f"{name}: player {i}'s infoset at node {h} mixes nodes with different moves "
                f"({o_labels[i][j]} vs {labels}): her observations must tell them apart"
            )

    root_ob = (obs_id(0, -1, -1, root_obs[0]), obs_id(1, -1, -1, root_obs[1]))
    visit(root, -1, "", 1.0, root_ob, 0)

    n = len(parent)
    parent_a = np.asarray(parent, dtype=np.int64)
    edge_prob = np.asarray(prob, dtype=np.float64)
    reach = np.ones(n)
    for h in range(1, n):  # preorder: parents first
        reach[h] = reach[parent_a[h]] * edge_prob[h]
    payoff = np.zeros((n, 2))
    for h, v in pay.items():
        payoff[h] = v
    obs = np.asarray(obs_ids, dtype=np.int64)
    infos = []
    seqs = []
    for i in (0, 1):
        info = _player_info(o_parent[i], o_action[i], o_labels[i], tuple(o_seen[i]))
        infos.append(info)
        seqs.append(info.obs_seq[obs[i]])
    return Game(
        name=name,
        parent=parent_a,
        player=np.asarray(player, dtype=np.int64),
        depth=np.asarray(depth, dtype=np.int64),
        subtree_end=np.asarray(end, dtype=np.int64),
        edge_label=tuple(label),
        edge_prob=edge_prob,
        chance_reach=reach,
        payoff=payoff,
        obs=obs,
        seq=np.asarray(seqs, dtype=np.int64),
        info=(infos[0], infos[1]),
        states=tuple(states),
    )


def _player_info(o_parent: list[int], o_action: list[int], o_labels: list[tuple[str, ...] | None],
                 seen: tuple[Hashable, ...]) -> PlayerInfo:
    m = len(o_parent)
    decision_obs = [j for j in range(m) if o_labels[j] is not None]
    obs_decision = np.full(m, -1, dtype=np.int64)
    obs_decision[decision_obs] = np.arange(len(decision_obs))
    decision_labels = [labels for labels in o_labels if labels is not None]  # those of decision_obs, in order
    counts = np.asarray([len(labels) for labels in decision_labels], dtype=np.int64)
    first = 1 + np.concatenate(([0], np.cumsum(counts)[:-1])) if len(counts) else np.zeros(0, np.int64)
    obs_seq = np.zeros(m, dtype=np.int64)
    obs_parent_seq = np.full(m, -1, dtype=np.int64)
    for j in range(m):  # parents come first
        p = o_parent[j]
        if p < 0:
            continue
        if o_action[j] >= 0:
            obs_parent_seq[j] = first[obs_decision[p]] + o_action[j]
            obs_seq[j] = obs_parent_seq[j]
        else:
            obs_seq[j] = obs_seq[p]
    parent_seq = obs_seq[decision_obs] if decision_obs else np.zeros(0, np.int64)
    tp = Treeplex(parent_seq, counts, tuple(decision_labels))
    return PlayerInfo(
        obs_parent=np.asarray(o_parent, dtype=np.int64),
        obs_parent_seq=obs_parent_seq,
        obs_seq=obs_seq,
        obs_decision=obs_decision,
        decision_obs=np.asarray(decision_obs, dtype=np.int64),
        treeplex=tp,
        obs_label=seen,
    )
