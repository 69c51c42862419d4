"""Algorithm 1 (Ling & Fang) as a mediator: recommend from the blueprint until play
enters a subgame, refine that subgame once, and recommend from the refinement after.

A plan is sampled move by move: at player 0's infoset ``I`` with player 1 on sequence
``s1``, action ``a`` is recommended with probability ``xi[(I, a), s1] / xi[σ(I), s1]``
(symmetrically for player 1). When both players follow, the leaf with sequence pair
``(s0, s1)`` is reached with probability ``xi[s0, s1]``: the conditionals telescope.

>>> from realtime.efce.battleship import instance
>>> from realtime.efce.plan import uniform_plan
>>> dec, j = instance(3, 2, 2.0)
>>> med = Mediator(dec, Blueprint.of(dec, uniform_plan(dec.space)))
>>> z = med.play(np.random.default_rng(0))
>>> med.refinements <= 1      # at most one refinement per game (none if the first shots hit)
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pokerbot.efg.game import TERMINAL, EfgError
from realtime.efce.regret import RegretRefinement
from realtime.efce.subgames import Blueprint, Decomposition, Refinement, refine


def action_probabilities(dec: Decomposition, plan: np.ndarray, h: int) -> np.ndarray:
    """The recommendation distribution at node ``h`` (players following so far)."""
    space, game = dec.space, dec.space.game
    i = int(game.player[h])
    if i not in (0, 1):
        raise EfgError(f"node {h} is not a decision node")
    tp = space.treeplex[i]
    d = int(game.info[i].obs_decision[game.obs[i, h]])
    other = int(game.seq[1 - i, h])
    first, n = int(tp.first_seq[d]), int(tp.num_actions[d])
    mass = plan[space.oriented_index(i, np.arange(first, first + n), np.full(n, other))]
    mass = np.maximum(mass, 0.0)
    total = mass.sum()
    return mass / total if total > 0 else np.full(n, 1.0 / n)


def outcome_distribution(dec: Decomposition, plan: np.ndarray) -> np.ndarray:
    """Probability of every node when both players follow the plan's recommendations."""
    game = dec.space.game
    reach = np.zeros(game.num_nodes)
    reach[0] = 1.0
    for h in range(game.num_nodes):  # preorder: parents first
        if game.player[h] in (0, 1) and reach[h] > 0:
            reach[game.children(h)] = reach[h] * action_probabilities(dec, plan, h)
    return reach


class Mediator:
    """Algorithm 1: the blueprint until a subgame is entered, then its refinement
    (``refiner``: the LP, :func:`refine`, or e.g. ``lambda d, b, j: regret_refine(d, b, j,
    iterations=1000)`` for Algorithm 2)."""

    def __init__(self, dec: Decomposition, blueprint: Blueprint,
                 refiner: Callable[[Decomposition, Blueprint, int], Refinement | RegretRefinement] = refine) -> None:
        self.dec = dec
        self.blueprint = blueprint
        self.refiner = refiner
        self.refined: int | None = None
        self.plan = blueprint.plan
        self.refinements = 0

    def recommend(self, h: int, rng: np.random.Generator) -> int:
        """The recommended action (child index) at decision node ``h``; refines the
        subgame of ``h`` the first time play reaches one."""
        j = self._subgame_of(h)
        if j >= 0 and self.refined is None:
            self.plan = self.refiner(self.dec, self.blueprint, j).plan
            self.refined = j
            self.refinements += 1
        p = action_probabilities(self.dec, self.plan, h)
        return int(rng.choice(len(p), p=p))

    def _subgame_of(self, h: int) -> int:
        game = self.dec.space.game
        i = int(game.player[h])
        d = int(game.info[i].obs_decision[game.obs[i, h]])
        return int(self.dec.infoset_sub[i][d])

    def play(self, rng: np.random.Generator) -> int:
        """One game with both players following; returns the leaf reached."""
        game = self.dec.space.game
        self.plan, self.refined = self.blueprint.plan, None
        h = 0
        while game.player[h] != TERMINAL:
            h = int(game.children(h)[self.recommend(h, rng)])
        return h
