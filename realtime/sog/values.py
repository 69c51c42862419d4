"""Value functions for GT-CFR's leaves: an exact subgame solver (for verification) and the CVPN.

:class:`ExactValue` stands in for the network in the paper's "exact value
function" check: at a leaf with beliefs (r0, r1) it solves the whole subgame
below with CFR+ (fixed root reaches, ``iterations`` iterations) and returns the
counterfactual values of the resulting average strategy, i.e. the values of a
near-equilibrium of the subgame given those beliefs: a (epsilon, 0) value
function in the sense of the paper's Theorem 1, with epsilon falling as
``iterations`` grows.

>>> from realtime.sog.search import PublicGame
>>> g = PublicGame.load("kuhn")
>>> v = ExactValue(g).evaluate(g, np.array([0]), *[r[None] for r in g.initial_ranges()])
>>> round(float(v.v0.sum() / 6), 3)  # 200 CFR+ iterations; the game value is -1/18 = -0.0556
-0.055
"""

from __future__ import annotations

import numpy as np

from realtime.sog import kernels as K
from realtime.sog.search import LeafValues, PublicGame


class ExactValue:
    """Leaf values by solving the subgame below each leaf (see the module docstring)."""

    def __init__(self, game: PublicGame, iterations: int = 200) -> None:
        t = game.tree
        self.iterations = int(iterations)
        n = t.num_nodes
        h0, h1 = t.num_hands
        # The kernels' bundles (see realtime.sog.kernels): work arrays, averaging reaches, strategy state.
        self.kernel_work = K.work_arrays(n, t.num_hands)
        self.R0, self.R1, self.V0, self.V1, self.CS = self.kernel_work
        self.A0, self.A1 = self.kernel_avg = (np.zeros((n, h0)), np.zeros((n, h1)))
        self.kernel_strategy = K.strategy_arrays(t.num_slots)
        self.strat, self.regret, self.ssum = self.kernel_strategy
        self._dec: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _decisions(self, game: PublicGame, node: int) -> tuple[np.ndarray, np.ndarray]:
        got = self._dec.get(node)
        if got is None:
            t = game.tree
            sub = game.subtree(node)
            d = sub[t.kind[sub] == K.DECISION]
            got = self._dec[node] = (d[t.player[d] == 0], d[t.player[d] == 1])
        return got

    def evaluate(self, game: PublicGame, nodes: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> LeafValues:
        t = game.tree
        v0 = np.zeros((len(nodes), t.num_hands[0]))
        v1 = np.zeros((len(nodes), t.num_hands[1]))
        for i, n in enumerate(nodes):
            n = int(n)
            sub = game.subtree(n)
            self.R0[n], self.R1[n] = r0[i], r1[i]
            K.solve_subtree(sub, game.expandable, self._decisions(game, n), self.iterations, game.kernel_tree,
                            game.kernel_cards, game.kernel_payoffs, self.kernel_strategy, self.kernel_work,
                            self.kernel_avg)
            v0[i], v1[i] = self.V0[n], self.V1[n]
        return LeafValues(v0, v1)
