"""EFCE incentive constraints, exploitability per trigger and the max-welfare EFCE LP,
checked against known values (Chicken), an independent normal-form CE LP, and an
independent game-tree computation of δ*."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog

from pokerbot.efg.battleship import battleship
from pokerbot.efg.game import Branch, Game, Leaf, Move, build_game
from pokerbot.efg.sequence_form import optimize_linear
from realtime.efce.incentives import max_exploitability, max_welfare_efce, trigger_values, welfare
from realtime.efce.plan import CorrelationSpace, jittered_plan, uniform_plan
from tests.test_realtime_efce_plan import signalling_game


def one_shot(payoffs: np.ndarray) -> Game:
    """A bimatrix game as an EFG (player 1 does not see player 0's move)."""
    m, n = payoffs.shape[:2]

    def expand(s: tuple[int, ...]) -> Branch | Leaf:
        if len(s) < 2:
            return Branch(len(s), [Move(f"a{len(s)}{k}", s + (k,)) for k in range(m if not s else n)])
        return Leaf((float(payoffs[s][0]), float(payoffs[s][1])))

    return build_game("bimatrix", (), expand)


def test_chicken_max_welfare_ce_is_10_5() -> None:
    chicken = np.array([[[6, 6], [2, 7]], [[7, 2], [0, 0]]], dtype=float)  # C, D
    space = CorrelationSpace.of(one_shot(chicken))
    res = max_welfare_efce(space)
    assert abs(res.welfare - 10.5) < 1e-9
    joint = {(a, b): res.plan[space.index(1 + a, 1 + b)] for a, b in itertools.product(range(2), range(2))}
    assert np.allclose([joint[0, 0], joint[0, 1], joint[1, 0], joint[1, 1]], [0.5, 0.25, 0.25, 0.0])
    assert max_exploitability(space, res.plan) <= 1e-9
    # a pure (C, C) plan is not an EFCE: recommended C, player 0 gains 7 - 6 by playing D
    xi = np.zeros(space.num_pairs)
    for s0, s1 in ((0, 0), (1, 0), (0, 1), (1, 1)):
        xi[space.index(s0, s1)] = 1.0
    assert abs(trigger_values(space, 0, xi).delta[1] - 1.0) < 1e-12


def normal_form_ce_welfare(payoffs: np.ndarray) -> float:
    """Max-welfare correlated equilibrium of a bimatrix game, written independently."""
    m, n = payoffs.shape[:2]
    rows = []
    for a, a2 in itertools.permutations(range(m), 2):  # player 0 told a, deviates to a2
        r = np.zeros((m, n))
        r[a] = payoffs[a2, :, 0] - payoffs[a, :, 0]
        rows.append(r.ravel())
    for b, b2 in itertools.permutations(range(n), 2):
        r = np.zeros((m, n))
        r[:, b] = payoffs[:, b2, 1] - payoffs[:, b, 1]
        rows.append(r.ravel())
    res = linprog(-(payoffs[..., 0] + payoffs[..., 1]).ravel(), A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                  A_eq=np.ones((1, m * n)), b_eq=[1.0], bounds=(0, None), method="highs")
    return -float(res.fun)


def test_efce_equals_ce_on_random_bimatrix_games() -> None:
    rng = np.random.default_rng(3)
    for _ in range(4):
        payoffs = rng.integers(-5, 6, size=(3, 3, 2)).astype(float)
        space = CorrelationSpace.of(one_shot(payoffs))
        assert abs(max_welfare_efce(space).welfare - normal_form_ce_welfare(payoffs)) < 1e-7


def tree_delta(space: CorrelationSpace, player: int, xi: np.ndarray, trigger: int) -> float:
    """δ*(xi; t) from the game tree leaf by leaf (independent of the pair-indexed code)."""
    g = space.game
    tp = space.treeplex[player]
    d = int(tp.seq_infoset[trigger])
    c = np.zeros(tp.num_seqs)
    mu = 0.0
    for z in g.terminals.tolist():
        chain, s = [], int(g.seq[player, z])
        while s > 0:
            chain.append(s)
            s = int(tp.seq_parent[s])
        if trigger in chain:
            mu += g.payoff[z, player] * xi[space.index(g.seq[0, z], g.seq[1, z])]
        if any(tp.seq_infoset[s] == d and s != trigger for s in chain):
            other = int(g.seq[1 - player, z])
            p = space.index(trigger, other) if player == 0 else space.index(other, trigger)
            c[g.seq[player, z]] += g.payoff[z, player] * xi[p]
    q = optimize_linear(tp, c).seq_values
    first, n = int(tp.first_seq[d]), int(tp.num_actions[d])
    return max(float(q[s]) for s in range(first, first + n) if s != trigger) - mu


def test_exploitability_matches_tree_computation() -> None:
    for game, plan in ((signalling_game(), None), (battleship(3, 1, timesteps=2), 0.8)):
        space = CorrelationSpace.of(game)
        xi = max_welfare_efce(space).plan if plan is None else jittered_plan(space, plan, 1)
        mixed = 0.5 * xi + 0.5 * jittered_plan(space, 0.9, 2)  # generic, not an equilibrium
        for i in (0, 1):
            tv = trigger_values(space, i, mixed)
            for t in range(1, space.treeplex[i].num_seqs):
                if np.isfinite(tv.delta[t]):
                    assert abs(tv.delta[t] - tree_delta(space, i, mixed, t)) < 1e-10


def test_uniform_battleship_is_an_efce_and_the_lp_improves_welfare() -> None:
    space = CorrelationSpace.of(battleship(3, 1, timesteps=2))
    xi = uniform_plan(space)
    assert abs(max_exploitability(space, xi)) < 1e-12  # an NE with full support: δ* = 0
    best = max_welfare_efce(space)
    space.check_plan(best.plan)
    assert max_exploitability(space, best.plan) <= 1e-8
    assert best.welfare > welfare(space, xi) + 0.1
