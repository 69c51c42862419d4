"""The Battleship instances of Ling & Fang's experiments (section 6), decomposed into subgames by the
first timestep's shots (``T' = 1``).

>>> dec, j = instance(3, 2, 2.0)
>>> dec.num_subgames, j  # n² pairs of first shots; (s0, s0) is the last
(9, 8)
>>> local, j = subgame_instance(3, 1, 2, 1, 2.0)   # only S0 ∪ S_j is stored
>>> local.space.num_pairs == dec.size(j) == 382, local.space.total_pairs() == dec.space.num_pairs
(True, True)
"""

from __future__ import annotations

import numpy as np

from functools import lru_cache

from pokerbot.efg.battleship import battleship, first_shot_subgame_key, placements
from pokerbot.efg.game import TERMINAL, Game
from realtime.efce.plan import CorrelationSpace
from realtime.efce.subgames import Decomposition, node_subgames, subgame_space

#: The subgame the experiments refine: both first shots at cell 0.
FIRST_SUBGAME = ("s0", "s0")


def instance(n: int, timesteps: int, gamma: float) -> tuple[Decomposition, int]:
    """The decomposition of the ``n x 1`` instance (a ``1 x 1`` ship) and the index of :data:`FIRST_SUBGAME`."""
    return grid_instance(n, 1, timesteps, 1, gamma)


def grid_instance(width: int, height: int, timesteps: int, ship: int, gamma: float) -> tuple[Decomposition, int]:
    """The ``W x H`` instance with a ``1 x m`` ship, decomposed by the first shots
    (``T' = 1``), and the index of :data:`FIRST_SUBGAME`."""
    g = battleship(width, height, timesteps, ship=ship, gamma=gamma)
    space = CorrelationSpace.of(g)
    ids, keys = first_shot_subgames(g)
    return Decomposition.of(space, ids), keys.index(FIRST_SUBGAME)


def subgame_instance(width: int, height: int, timesteps: int, ship: int, gamma: float) -> tuple[Decomposition, int]:
    """:func:`grid_instance` with the correlation space restricted to ``S0 ∪ S_j`` of
    :data:`FIRST_SUBGAME` (:func:`realtime.efce.subgames.subgame_space`): ``|Ξ_j|``
    pairs instead of ``|Ξ|``. Use :meth:`realtime.efce.subgames.Blueprint.of_product`
    for the blueprint."""
    g = battleship(width, height, timesteps, ship=ship, gamma=gamma)
    ids, keys = first_shot_subgames(g)
    j = keys.index(FIRST_SUBGAME)
    return Decomposition.of(subgame_space(g, ids, j), ids), j


def first_shot_subgames(game: Game) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """``node_subgames(game, first_shot_subgame_key)`` by array passes: every non-leaf
    node at depth 4 heads the subgame of its two first shots, which holds its subtree
    (nodes are in preorder); subgames numbered in node order of first appearance."""
    heads = np.flatnonzero((game.depth == 4) & (game.player != TERMINAL))
    up = game.parent[heads]
    labels = [(game.edge_label[int(a)], game.edge_label[int(h)]) for a, h in zip(up.tolist(), heads.tolist(), strict=True)]
    ids: dict[tuple[str, str], int] = {}
    head_id = np.asarray([ids.setdefault(k, len(ids)) for k in labels], np.int64)
    mark = np.zeros(game.num_nodes + 1, np.int64)
    # subtrees of distinct heads are disjoint ranges: mark id + 1 at the start, subtract at the end
    np.add.at(mark, heads, head_id + 1)
    np.add.at(mark, game.subtree_end[heads], -(head_id + 1))
    return np.cumsum(mark)[:-1] - 1, list(ids)


def tree_size(width: int, height: int, timesteps: int, ship: int = 1) -> tuple[int, int]:
    """``(nodes, leaves)`` of ``battleship(width, height, timesteps, ship)`` without building
    it: a memoised count over (placements, cells fired, hits, turn), the same rules."""
    places = placements(width, height, ship)
    cells = width * height

    @lru_cache(maxsize=None)
    def firing(t0: int, t1: int, shots0: frozenset[int], shots1: frozenset[int], h0: int, h1: int) -> tuple[int, int]:
        if h0 == ship or h1 == ship or len(shots1) == timesteps:
            return 1, 1
        me = 0 if len(shots0) == len(shots1) else 1
        mine, target = (shots0, places[t1]) if me == 0 else (shots1, places[t0])
        nodes, leaves = 1, 0
        for c in range(cells):
            if c in mine:
                continue
            hit = int(c in target)
            if me == 0:
                n, z = firing(t0, t1, shots0 | {c}, shots1, h0 + hit, h1)
            else:
                n, z = firing(t0, t1, shots0, shots1 | {c}, h0, h1 + hit)
            nodes, leaves = nodes + n, leaves + z
        return nodes, leaves

    nodes, leaves = 1 + len(places), 0
    for t0 in range(len(places)):
        for t1 in range(len(places)):
            n, z = firing(t0, t1, frozenset(), frozenset(), 0, 0)
            nodes, leaves = nodes + n, leaves + z
    return nodes, leaves
