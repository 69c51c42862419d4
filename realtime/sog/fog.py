"""The game interface of general Student of Games: any explicit two-player zero-sum game
as a public tree with each player's information states inside every public state.

Student of Games is one algorithm for perfect and imperfect information games (Schmid
et al., "Background and Terminology": factored-observation games, public states
``s_pub``, the information states ``S_i(s_pub)`` of each player within one). This
module compiles any :class:`pokerbot.efg.game.Game` into that form, in flat arrays:

- **public states**: the connected components of the nodes of one depth under the
  relation "some player cannot tell them apart" (the common-knowledge closure; depth is
  common knowledge in every game here, since every move is one edge). By perfect recall
  the children of a public state's nodes fall into public states of their own, so the
  components form a tree. Every node of a public state must be of one kind (the same
  player to act, chance, or terminal); a game whose move ends the game without telling
  both players is refused.
- **information states** ("slots"): the distinct observation infosets of each player
  among a public state's nodes, numbered per player, contiguous per public state.
  ``parent_slot[i][s]`` is the slot of ``s``'s parent information state; where the
  parent public state's actor is ``i``, ``action[i][s]`` is the action ``i`` took there
  (perfect recall makes both unique).
- **decisions**: the actor's slots carry their decision infoset's actions at
  ``action_offset[i][s] .. + num_actions[i][s]`` of one flat policy array.
- **terminal values**: each terminal node's slots, chance reach and payoffs; from them
  counterfactual values are ``v_i(s) = sum_{h in s} pi_c(h) * r_{-i}(s_{-i}(h)) * u_i(h)``.
- **chance** is folded into the terminal values (``pi_c`` from the game's root), so chance
  public states only pass values up.
- **beliefs for a network**: a public state's beliefs are its slots' reaches, each added
  at its slot's *key* in a vector of ``num_keys[i]`` entries. By default a slot's key is its
  position in the public state (vectors padded to the widest public state); a game may
  key slots by what the player privately holds (Mr. X's station in Scotland Yard), which
  lets a network generalise across public states: slots that share a key must be
  strategically alike (same future), since they share the network's outputs. A game
  may add public features (a board, a map) through ``public_features``; the default is
  a one-hot of the public state.

Perfect-information games come out with one node per public state and one slot per
player; the search then expands one action at a time (k = 1, see
:mod:`realtime.sog.fog_search`).

>>> from pokerbot.efg.games import kuhn
>>> ps = PublicStates(kuhn())
>>> ps.num_states, ps.max_slots, int(ps.kind[0]) == CHANCE, ps.perfect_information
(11, (3, 3), True, False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from pokerbot.efg.game import CHANCE, TERMINAL, Game
from realtime.sog.search import SoGError

__all__ = ["CHANCE", "TERMINAL", "PublicStates", "GAMES", "load", "describe"]


class PublicStates:
    """An explicit game compiled into public states and information-state slots (see the module docstring).

    ``public_features(game, nodes) -> vector`` optionally encodes a public state from its nodes
    (all of one public state); without it the encoding is a one-hot of the public state.
    ``slot_key(game, player, node) -> key`` with ``num_keys`` optionally keys the slots (see the
    module docstring); without it a slot's key is its position in its public state.
    """

    def __init__(self, game: Game, public_features: Callable[[Game, np.ndarray], np.ndarray] | None = None,
                 name: str | None = None, slot_key: Callable[[Game, int, int], int] | None = None,
                 num_keys: tuple[int, int] | None = None) -> None:
        if not game.is_zero_sum:
            raise SoGError(f"game {game.name!r} is not zero-sum; Student of Games needs a two-player zero-sum game")
        self.game = game
        self.name = name or game.name
        n = game.num_nodes
        # --- public states: common-knowledge components (edges only join nodes of one depth) ---
        rows, cols = [], []
        for i in (0, 1):
            obs = game.obs[i]
            first = np.full(game.info[i].num_obs, n, dtype=np.int64)
            np.minimum.at(first, obs, np.arange(n))  # lowest node of every infoset
            rows.append(np.arange(n))
            cols.append(first[obs])
        r, c = np.concatenate(rows), np.concatenate(cols)
        graph = coo_matrix((np.ones(len(r), dtype=np.int8), (r, c)), shape=(n, n))
        _, label = connected_components(graph, directed=False)
        # number the components in order of (depth, lowest node): parents before children
        lowest = np.full(label.max() + 1, n, dtype=np.int64)
        np.minimum.at(lowest, label, np.arange(n))
        comp_order = np.lexsort((lowest, game.depth[lowest]))
        rank = np.empty_like(comp_order)
        rank[comp_order] = np.arange(len(comp_order))
        self.node_state = rank[label].astype(np.int64)
        m = len(comp_order)
        self.num_states = m
        by_state = np.argsort(self.node_state, kind="stable")
        starts = np.searchsorted(self.node_state[by_state], np.arange(m + 1))
        self._members = (by_state, starts)
        # --- kind, parent, children ---
        first_node = by_state[starts[:-1]]
        self.kind = game.player[first_node].astype(np.int64)
        bad = np.flatnonzero(game.player != self.kind[self.node_state])
        if len(bad):
            h = int(bad[0])
            raise SoGError(
                f"game {game.name!r}: public state of node {h} ({'/'.join(game.path_labels(h)) or 'root'}) mixes node kinds;"
                " every move that ends the game or changes who acts must be observed by both players"
            )
        par = game.parent[first_node]
        self.parent = np.where(par >= 0, self.node_state[np.maximum(par, 0)], -1).astype(np.int64)
        kids = np.argsort(self.parent[1:], kind="stable") + 1
        self.child_start = np.searchsorted(self.parent[kids], np.arange(m + 1)).astype(np.int64)
        self.child_list = kids.astype(np.int64)
        # --- information-state slots per player, contiguous per public state ---
        self.node_slot = np.zeros((2, n), dtype=np.int64)
        self.slot_start = np.zeros((2, m + 1), dtype=np.int64)
        slot_obs: list[np.ndarray] = []
        for i in (0, 1):
            key = self.node_state.astype(np.int64) * (game.info[i].num_obs + 1) + game.obs[i]
            uniq, inv = np.unique(key, return_inverse=True)  # sorted by public state, then infoset
            self.node_slot[i] = inv
            st = uniq // (game.info[i].num_obs + 1)
            self.slot_start[i] = np.searchsorted(st, np.arange(m + 1))
            slot_obs.append((uniq % (game.info[i].num_obs + 1)).astype(np.int64))
        self.slot_obs = tuple(slot_obs)
        self.num_slots = (len(slot_obs[0]), len(slot_obs[1]))
        counts = np.diff(self.slot_start, axis=1)
        self.max_slots = (int(counts[0].max()), int(counts[1].max()))
        # parent slots and the action taken by the parent's actor
        self.parent_slot = tuple(np.full(k, -1, dtype=np.int64) for k in self.num_slots)
        self.action = tuple(np.full(k, -1, dtype=np.int64) for k in self.num_slots)
        self.action_offset = tuple(np.full(k, -1, dtype=np.int64) for k in self.num_slots)
        self.num_actions = tuple(np.zeros(k, dtype=np.int64) for k in self.num_slots)
        offset = 0
        for i in (0, 1):
            info = game.info[i]
            tp = info.treeplex
            nodes = np.flatnonzero(game.parent >= 0)
            s = self.node_slot[i, nodes]
            self.parent_slot[i][s] = self.node_slot[i, game.parent[nodes]]
            par_kind = game.player[game.parent[nodes]]
            mine = nodes[par_kind == i]
            d_par = info.obs_decision[game.obs[i, game.parent[mine]]]
            seq = info.obs_parent_seq[game.obs[i, mine]]
            self.action[i][self.node_slot[i, mine]] = seq - tp.first_seq[d_par]
            acting = np.flatnonzero(self.kind[self.slot_state(i)] == i)
            d = info.obs_decision[self.slot_obs[i][acting]]
            if len(acting) and (d < 0).any():
                raise SoGError(f"game {game.name!r}: an acting player's information state has no decision infoset")
            na = tp.num_actions[d]
            self.num_actions[i][acting] = na
            self.action_offset[i][acting] = offset + np.concatenate(([0], np.cumsum(na)[:-1])).astype(np.int64)
            offset += int(na.sum())
        self.num_policy_entries = offset
        self.max_actions = max(int(self.num_actions[0].max(initial=1)), int(self.num_actions[1].max(initial=1)))
        # --- terminal nodes, grouped by public state ---
        term = np.flatnonzero(game.player == TERMINAL)
        term = term[np.argsort(self.node_state[term], kind="stable")]
        self.term_start = np.searchsorted(self.node_state[term], np.arange(m + 1)).astype(np.int64)
        self.term_slot0 = self.node_slot[0, term]
        self.term_slot1 = self.node_slot[1, term]
        self.term_chance = game.chance_reach[term].astype(np.float64)
        self.term_u0 = game.payoff[term, 0].astype(np.float64)
        self.term_u1 = game.payoff[term, 1].astype(np.float64)
        self.max_stake = float(np.abs(game.payoff[term]).max()) if len(term) else 1.0
        self.perfect_information = bool(np.all(np.diff(starts) == 1))
        # --- keys of the slots in the network's belief vectors ---
        keys = []
        for i in (0, 1):
            if slot_key is None:
                keys.append(np.arange(self.num_slots[i]) - self.slot_start[i][self.slot_state(i)])
                continue
            rep = np.full(self.num_slots[i], n, dtype=np.int64)
            np.minimum.at(rep, self.node_slot[i], np.arange(n))
            keys.append(np.array([slot_key(game, i, int(h)) for h in rep], dtype=np.int64))
        self.slot_key = (keys[0].astype(np.int64), keys[1].astype(np.int64))
        self.num_keys = self.max_slots if slot_key is None else (int(num_keys[0]), int(num_keys[1])) if num_keys else (
            int(keys[0].max()) + 1, int(keys[1].max()) + 1)
        for i in (0, 1):
            if len(keys[i]) and (keys[i].min() < 0 or keys[i].max() >= self.num_keys[i]):
                raise SoGError(f"game {game.name!r}: slot keys of player {i} must lie in 0..{self.num_keys[i] - 1}")
        self._public_features = public_features
        self.chance_mass = np.zeros(m)
        np.add.at(self.chance_mass, self.node_state, game.chance_reach)

    # --- lookups -----------------------------------------------------------------------

    def slot_state(self, player: int) -> np.ndarray:
        """The public state of each of ``player``'s slots."""
        return np.repeat(np.arange(self.num_states), np.diff(self.slot_start[player])).astype(np.int64)

    def nodes(self, state: int) -> np.ndarray:
        """The game nodes (world states) of public state ``state``."""
        order, starts = self._members
        return order[starts[state] : starts[state + 1]]

    def slots(self, player: int, state: int) -> range:
        return range(int(self.slot_start[player, state]), int(self.slot_start[player, state + 1]))

    def children(self, state: int) -> np.ndarray:
        return self.child_list[self.child_start[state] : self.child_start[state + 1]]

    def deal(self, node: int, rng: np.random.Generator) -> int:
        """The first node below ``node`` that is not chance, sampling chance by its probabilities."""
        g = self.game
        while g.player[node] == CHANCE:
            kids = g.children(node)
            node = int(kids[rng.choice(len(kids), p=g.edge_prob[kids] / g.edge_prob[kids].sum())])
        return node

    def decision_infoset(self, player: int, slot: int) -> int:
        return int(self.game.info[player].obs_decision[self.slot_obs[player][slot]])

    @cached_property
    def kernel_bundle(self) -> tuple:
        """The arrays :mod:`realtime.sog.fog_kernels` reads (``F``)."""
        return (self.kind, self.parent, self.child_start, self.child_list, self.slot_start[0], self.slot_start[1],
                self.parent_slot[0], self.parent_slot[1], self.action[0], self.action[1], self.action_offset[0],
                self.action_offset[1], self.num_actions[0], self.num_actions[1], self.term_start, self.term_slot0,
                self.term_slot1, self.term_chance, self.term_u0, self.term_u1)

    def subtree(self, state: int) -> np.ndarray:
        """Public states of the subtree under ``state`` (itself first), parents before children."""
        out = [state]
        i = 0
        while i < len(out):
            out.extend(int(c) for c in self.children(out[i]))
            i += 1
        return np.asarray(out, dtype=np.int64)

    def decision_states(self, state: int) -> list[int]:
        """The public decision states right below ``state``: its children, through chance states."""
        out = []
        todo = [int(c) for c in self.children(state)]
        while todo:
            c = todo.pop(0)
            if self.kind[c] == CHANCE:
                todo.extend(int(x) for x in self.children(c))
            elif self.kind[c] != TERMINAL:
                out.append(c)
        return out

    def initial_ranges(self, state: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches at a public state no player has acted before (all ones)."""
        return (np.ones(len(self.slots(0, state))), np.ones(len(self.slots(1, state))))

    def first_decisions(self) -> list[int]:
        """The public decision states no player has acted before: the root, or those below its chance states."""
        return [0] if self.kind[0] in (0, 1) else self.decision_states(0)

    # --- the network's view ------------------------------------------------------------

    @cached_property
    def public_feature_size(self) -> int:
        return len(self.public_features(0))

    def public_features(self, state: int) -> np.ndarray:
        if self._public_features is None:
            x = np.zeros(self.num_states, dtype=np.float32)
            x[state] = 1.0
            return x
        return np.asarray(self._public_features(self.game, self.nodes(state)), dtype=np.float32)


def _efg(name: str) -> Callable[[], Game]:
    def build() -> Game:
        from pokerbot.efg import games

        return games.load(name)

    return build


def _poker(name: str) -> Callable[[], Game]:
    def build() -> Game:
        from pokerbot.efg.games import poker_game
        from pokerbot.gamedef import load_game

        return poker_game(load_game(name), name)

    return build


def _goofspiel3() -> Game:
    from pokerbot.efg.games import goofspiel

    return goofspiel(3)


def _liars_dice3() -> Game:
    from pokerbot.efg.games import liars_dice

    return liars_dice(3)


def _scotland_yard_hidden() -> Game:
    from pokerbot.efg.scotland_yard import scotland_yard

    return scotland_yard(reveal_rounds=(), keep_states=True)


def _scotland_yard() -> Game:
    from pokerbot.efg.scotland_yard import scotland_yard

    return scotland_yard(keep_states=True)


def _yard_features(game: Game, nodes: np.ndarray) -> np.ndarray:
    """Detectives' stations, the round, who moves and the station last revealed (Table S1's
    Scotland Yard row, on the small map)."""
    st = game.states[int(nodes[0])]
    stations = max(max(e) for e in _yard_edges())
    x = np.zeros(2 * stations + 6 + 3 + stations + 1, dtype=np.float32)
    x[st.detectives[0] - 1] = 1.0
    x[stations + st.detectives[1] - 1] = 1.0
    x[2 * stations + min(st.round, 6) - 1] = 1.0
    x[2 * stations + 6 + st.mover] = 1.0
    xs = {game.states[int(h)].x for h in nodes}
    if len(xs) == 1:  # Mr. X's station is common knowledge (revealed)
        x[2 * stations + 9 + next(iter(xs)) - 1] = 1.0
    else:
        x[-1] = 1.0
    return x


def _yard_edges() -> tuple[tuple[int, int], ...]:
    from pokerbot.efg.scotland_yard import GLASSES

    return GLASSES


def _yard_key(game: Game, player: int, node: int) -> int:
    """Mr. X's slots by his station (his past path does not change his future); the detectives have one."""
    return game.states[node].x - 1 if player == 0 else 0


def _board(game: Game, nodes: np.ndarray) -> np.ndarray:
    from pokerbot.efg.tictactoe import board_features

    return board_features(game.states[int(nodes[0])])


@dataclass(frozen=True)
class Adapter:
    """How general SoG loads one game: the explicit game's builder and, optionally, the
    network's public features and slot keys (see :class:`PublicStates`)."""

    build: Callable[[], Game]
    public_features: Callable[[Game, np.ndarray], np.ndarray] | None = None
    slot_key: Callable[[Game, int, int], int] | None = None
    num_keys: tuple[int, int] | None = None


#: Games general SoG loads by name.
GAMES: dict[str, Adapter] = {
    "kuhn": Adapter(_efg("kuhn")),
    "leduc": Adapter(_efg("leduc")),
    "leduc-nl": Adapter(_poker("leduc-nl")),
    "lfh-tiny": Adapter(_efg("lfh-tiny")),
    "goofspiel-3": Adapter(_goofspiel3),
    "goofspiel-4": Adapter(_efg("goofspiel-increasing")),
    "liars-dice-3": Adapter(_liars_dice3),
    "liars-dice": Adapter(_efg("liars-dice")),
    "scotland-yard": Adapter(_scotland_yard, _yard_features, _yard_key, (11, 1)),
    "scotland-yard-hidden": Adapter(_scotland_yard_hidden, _yard_features, _yard_key, (11, 1)),
    "tic-tac-toe": Adapter(_efg("tic-tac-toe"), _board),
}


def load(name: str) -> PublicStates:
    """A game of :data:`GAMES` compiled into public states."""
    try:
        a = GAMES[name]
    except KeyError:
        raise SoGError(f"unknown game {name!r} for general Student of Games; known: {', '.join(GAMES)}") from None
    return PublicStates(a.build(), a.public_features, name=name, slot_key=a.slot_key, num_keys=a.num_keys)


def describe(ps: PublicStates) -> dict[str, Any]:
    """Sizes of a compiled game (for reports)."""
    return {"game": ps.name, "nodes": ps.game.num_nodes, "public_states": ps.num_states,
            "slots": ps.num_slots, "max_slots": ps.max_slots, "max_actions": ps.max_actions,
            "perfect_information": ps.perfect_information}
