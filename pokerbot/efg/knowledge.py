"""The infoset hypergraph, order-k knowledge sets, and the infoset graph G' of Theorem 5.

The infoset hypergraph has the game's nodes as vertices and every observation infoset of
either player as a hyperedge. The order-k knowledge set ``S^k`` of a node set ``S`` is
the set of nodes at distance at most ``k - 1`` from ``S``: ``S^1 = S``; ``I^2`` adds what
the opponent cannot tell apart from ``I``; ``S^∞`` is the connected component (common
knowledge closure).

>>> from pokerbot.efg.games import matching_pennies
>>> g = matching_pennies(100)
>>> d = int(g.info[0].obs_decision[g.obs[0, 1]])        # player 0's infoset at nature's first child
>>> [len(knowledge_set(g, 0, d, k)) for k in (1, 2, 3)]  # n = 1 is alone in ⌊n/2⌋ = 0
[1, 2, 3]
"""

from __future__ import annotations

import numpy as np

from pokerbot.efg.game import EfgError, Game


def expand_once(game: Game, nodes: np.ndarray) -> np.ndarray:
    """``S`` plus every node sharing an observation infoset (of either player) with it."""
    out = [nodes]
    for i in (0, 1):
        for j in np.unique(game.obs[i, nodes]):
            out.append(game.obs_nodes(i, int(j)))
    return np.unique(np.concatenate(out))


def knowledge_set(game: Game, player: int, infoset: int, k: int) -> np.ndarray:
    """Nodes of the order-k knowledge set of ``player``'s decision infoset ``infoset``
    (``k = 0`` or negative: the common-knowledge closure ``I^∞``)."""
    nodes = np.sort(game.decision_nodes(player, infoset))
    steps = 0
    while k <= 0 or steps < k - 1:
        bigger = expand_once(game, nodes)
        steps += 1
        if len(bigger) == len(nodes):
            break
        nodes = bigger
    return nodes


def infoset_graph(game: Game, player: int) -> list[set[int]]:
    """G': one vertex per decision infoset of ``player``, an edge between two infosets that
    hold nodes of a common observation infoset of the opponent."""
    tp = game.treeplex(player)
    adj: list[set[int]] = [set() for _ in range(tp.num_infosets)]
    acting = np.flatnonzero(game.player == player)
    dec = game.info[player].obs_decision[game.obs[player, acting]]
    opp_obs = game.obs[1 - player, acting]
    order = np.argsort(opp_obs, kind="stable")
    opp_sorted, dec_sorted = opp_obs[order], dec[order]
    bounds = np.flatnonzero(np.diff(opp_sorted)) + 1
    for group in np.split(dec_sorted, bounds):
        members = np.unique(group)
        for a in members:
            adj[int(a)].update(int(b) for b in members if b != a)
    return adj


def components(adj: list[set[int]]) -> np.ndarray:
    """Connected-component label of every vertex."""
    label = np.full(len(adj), -1, dtype=np.int64)
    c = 0
    for v in range(len(adj)):
        if label[v] >= 0:
            continue
        label[v] = c
        stack = [v]
        while stack:
            u = stack.pop()
            for w in adj[u]:
                if label[w] < 0:
                    label[w] = c
                    stack.append(w)
        c += 1
    return label


def greedy_coloring(adj: list[set[int]]) -> np.ndarray:
    """A proper colouring (largest degree first); colour classes are independent sets."""
    color = np.full(len(adj), -1, dtype=np.int64)
    for v in sorted(range(len(adj)), key=lambda v: (-len(adj[v]), v)):
        used = {int(color[w]) for w in adj[v] if color[w] >= 0}
        c = 0
        while c in used:
            c += 1
        color[v] = c
    return color


def check_independent(adj: list[set[int]], members: set[int]) -> None:
    """Raise :class:`EfgError` if two of ``members`` are adjacent."""
    for v in members:
        bad = adj[v] & members
        if bad:
            raise EfgError(f"infosets {v} and {min(bad)} share an opponent infoset: not independent")
