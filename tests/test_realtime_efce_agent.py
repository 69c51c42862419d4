"""Algorithm 1 as a mediator: exact outcome distribution, one refinement per game, and
sampling frequencies against the plan."""

from __future__ import annotations

import numpy as np

from pokerbot.efg.game import TERMINAL
from realtime.efce.agent import Mediator, outcome_distribution
from realtime.efce.battleship import instance
from realtime.efce.plan import jittered_plan
from realtime.efce.subgames import Blueprint, refine, subgame_welfare


def test_following_reaches_leaves_with_plan_probabilities() -> None:
    dec, j = instance(3, 2, 2.0)
    space = dec.space
    bp = Blueprint.of(dec, jittered_plan(space, 0.5, 3))
    plan = refine(dec, bp, j).plan
    reach = outcome_distribution(dec, plan)
    z = space.game.terminals
    pairs = space.index(space.game.seq[0, z], space.game.seq[1, z])
    assert np.allclose(reach[z], plan[pairs])
    assert abs(reach[z].sum() - 1.0) < 1e-12
    sub_leaves = z[dec.pair_sub[pairs] == j]
    welfare = float((space.game.payoff[sub_leaves].sum(axis=1) * reach[sub_leaves]).sum())
    assert abs(welfare - subgame_welfare(dec, plan, j)) < 1e-12


def test_mediator_refines_once_on_entering_a_subgame() -> None:
    dec, _ = instance(3, 2, 2.0)
    calls: list[int] = []
    memo: dict[int, object] = {}

    def counting(d, b, j):  # noqa: ANN001, ANN202
        calls.append(j)
        if j not in memo:  # same blueprint, same LP: solve each subgame once in this test
            memo[j] = refine(d, b, j)
        return memo[j]

    med = Mediator(dec, Blueprint.of(dec, jittered_plan(dec.space, 0.5, 0)), refiner=counting)
    rng = np.random.default_rng(1)
    game = dec.space.game
    counts = np.zeros(game.num_nodes)
    games = 300
    for _ in range(games):
        before = len(calls)
        z = med.play(rng)
        assert game.player[z] == TERMINAL
        entered = any(dec.infoset_sub[i][game.info[i].obs_decision[game.obs[i, h]]] >= 0
                      for h in _path(game, z) for i in (0, 1) if game.player[h] == i)
        assert len(calls) - before == int(entered)
        counts[z] += 1
    # the blueprint's first-shot marginals are untouched by refinement: compare frequencies
    reach = outcome_distribution(dec, med.blueprint.plan)
    depth3 = np.flatnonzero(game.depth == 3)
    freq = np.asarray([counts[h : game.subtree_end[h]].sum() for h in depth3]) / games
    assert np.abs(freq - reach[depth3]).max() < 0.08  # 300 games: ~7 standard errors at p = 1/27


def _path(game, z: int) -> list[int]:  # noqa: ANN001
    out = []
    while z >= 0:
        out.append(int(z))
        z = int(game.parent[z])
    return out
