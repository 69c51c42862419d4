"""The Battleship instances of Ling & Fang's experiments (section 6), decomposed into subgames by the
first timestep's shots (``T' = 1``).

>>> dec, j = instance(3, 2, 2.0)
>>> dec.num_subgames, j  # n² pairs of first shots; (s0, s0) is the last
(9, 8)
"""

from __future__ import annotations

from pokerbot.efg.battleship import battleship, first_shot_subgame_key
from realtime.efce.plan import CorrelationSpace
from realtime.efce.subgames import Decomposition, node_subgames

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
    ids, keys = node_subgames(space, lambda h: first_shot_subgame_key(g, h))
    return Decomposition.of(space, ids), keys.index(FIRST_SUBGAME)
