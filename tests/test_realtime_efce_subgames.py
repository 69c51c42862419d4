"""Subgame decompositions (Theorem 1) and the safe LP refinement on Battleship: Table 1's
Uniform column exactly, refined welfare, safety on the complete refinement, and negative
controls (no incentive constraints; the paper's bounds without the cross terms)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pokerbot.efg.battleship import battleship, first_shot_subgame_key
from pokerbot.efg.game import EfgError
from realtime.efce.incentives import max_exploitability
from realtime.efce.plan import CorrelationSpace, jittered_plan, uniform_plan
from realtime.efce.subgames import Blueprint, Decomposition, node_subgames, refine, safety
from tests.test_realtime_efce_plan import signalling_game


def decompose(n: int, timesteps: int, gamma: float) -> Decomposition:
    g = battleship(n, 1, timesteps, gamma=gamma)
    space = CorrelationSpace.of(g)
    ids, _ = node_subgames(space, lambda h: first_shot_subgame_key(g, h))
    return Decomposition.of(space, ids)


def closed_form(n: int, timesteps: int, gamma: float) -> float:
    """Reading notes §4.5 (VERIFIED): the Uniform blueprint's welfare of one subgame."""
    later = Fraction(1)
    for k in range(2, timesteps + 1):
        later *= Fraction(n - k, n - k + 1) ** 2
    return float((1 - Fraction(gamma).limit_denominator()) * Fraction(1, n * n) * Fraction(n - 1, n) ** 2 * (1 - later))


def test_fig1_partition() -> None:
    """Subgames = player 1's infosets x and y: S0 is column ∅, S_x columns l_x, r_x."""
    space = CorrelationSpace.of(signalling_game())
    g = space.game
    sub = np.full(g.num_nodes, -1)
    for h in range(g.num_nodes):
        labels = g.path_labels(h)
        if len(labels) >= 2:
            sub[h] = "XY".index(labels[1])
    dec = Decomposition.of(space, sub)
    tp1 = space.treeplex[1]
    col_sub = dec.seq_sub[1][space.pair_seq[1]]
    assert (dec.pair_sub == col_sub).all()  # all player-0 sequences are pre-subgame
    assert (dec.pair_sub == -1).sum() == 7
    for j, letter in enumerate("xy"):
        cols = {tp1.seq_label(s)[-2:] for s in space.pair_seq[1][dec.pairs(j)]}
        assert cols == {f"l{letter}", f"r{letter}"}
        assert dec.size(j) == 21
        assert len(dec.heads(0, j)) == 0 and len(dec.heads(1, j)) == 1  # player 0 has no head infosets


def test_decomposition_errors() -> None:
    space = CorrelationSpace.of(signalling_game())
    g = space.game
    bad = np.full(g.num_nodes, -1)
    bad[int(np.flatnonzero(g.player == 1)[0])] = 0  # half of infoset x: children not in it either
    with pytest.raises(EfgError):
        Decomposition.of(space, bad)
    split = np.full(g.num_nodes, -1)
    x_nodes = [h for h in range(g.num_nodes) if g.path_labels(h)[1:2] == ["X"]]
    for h in x_nodes[: len(x_nodes) // 2]:
        split[h] = 0  # the G-side of infoset x only
    with pytest.raises(EfgError):
        Decomposition.of(space, split)


@pytest.mark.parametrize("gamma", [2.0, 5.0])
def test_table1_n3(gamma: float) -> None:
    dec = decompose(3, 2, gamma)
    assert dec.num_subgames == 9 and dec.size(0) == 382
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    r = refine(dec, bp, 0)
    assert abs(r.blueprint_welfare - closed_form(3, 2, gamma)) < 1e-12  # -3.70e-2 / -14.8e-2
    assert abs(r.refined_welfare - r.blueprint_welfare) < 1e-9  # no gain at n = 3
    assert safety(dec.space, bp, r.plan).is_fully_safe()
    unsafe = refine(dec, bp, 0, incentives=False)  # negative control
    assert unsafe.refined_welfare > r.refined_welfare + 1e-3
    assert not safety(dec.space, bp, unsafe.plan).is_safe()


def test_table1_n4_gain_safety_and_the_gap() -> None:
    dec = decompose(4, 3, 2.0)
    assert dec.num_subgames == 16 and dec.size(0) == 3246
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    r = refine(dec, bp, 0)
    assert abs(r.blueprint_welfare - closed_form(4, 3, 2.0)) < 1e-12  # -1/32
    assert r.refined_welfare > r.blueprint_welfare + 1e-3  # a real gain
    s = safety(dec.space, bp, r.plan)
    assert s.is_fully_safe() and s.welfare_gain > 1e-3
    # the paper's (B)/(C) without the pre-/in-subgame leaf terms is not safe here
    literal = refine(dec, bp, 0, cross_terms=False)
    assert round(literal.refined_welfare * 100, 2) == -2.95  # ... and reproduces Table 1's figure
    assert not safety(dec.space, bp, literal.plan).is_safe()


def refine_all(dec: Decomposition, bp: Blueprint) -> np.ndarray:
    plan = bp.plan.copy()
    for j in range(dec.num_subgames):
        r = refine(dec, bp, j)
        mask = dec.pair_sub == j
        plan[mask] = r.plan[mask]
    dec.space.check_plan(plan)
    return plan


def test_refinements_of_all_subgames_combine_safely() -> None:
    """Refinements of different subgames combine into a safe complete refinement (the
    (B)/(C) slack is split so that each subgame may use its share independently)."""
    dec = decompose(3, 2, 2.0)
    bp = Blueprint.of(dec, jittered_plan(dec.space, 0.5, 0))
    assert safety(dec.space, bp, refine_all(dec, bp)).is_fully_safe()


@pytest.mark.slow
def test_all_subgames_n4() -> None:
    """n = 4: Uniform (δ* = 0) refined everywhere is an exact EFCE with 16 times the
    one-subgame gain; Jittered (triggers with δ* < 0 and > 0) stays safe."""
    dec = decompose(4, 3, 2.0)
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    plan = refine_all(dec, bp)
    assert max_exploitability(dec.space, plan) <= 1e-9
    one = refine(dec, bp, 0)
    assert abs(safety(dec.space, bp, plan).welfare_gain - 16 * (one.refined_welfare - one.blueprint_welfare)) < 1e-7
    bp = Blueprint.of(dec, jittered_plan(dec.space, 0.25, 0))
    assert min(float(v.delta[np.isfinite(v.delta)].min()) for v in bp.values) < 0
    assert safety(dec.space, bp, refine_all(dec, bp)).is_fully_safe()


@pytest.mark.parametrize("seed", [0, 1])
def test_jittered_blueprint_refinement_is_safe(seed: int) -> None:
    dec = decompose(3, 2, 2.0)
    bp = Blueprint.of(dec, jittered_plan(dec.space, 0.5, seed))
    assert max(float(v.delta[np.isfinite(v.delta)].max()) for v in bp.values) > 1e-3  # not an EFCE
    for objective in ("welfare", "feasible"):
        r = refine(dec, bp, 4, objective=objective)
        dec.space.check_plan(r.plan)
        s = safety(dec.space, bp, r.plan)
        assert s.is_safe()
        if objective == "welfare":
            assert s.welfare_gain >= -1e-9


def test_refine_rejects_bad_arguments() -> None:
    dec = decompose(3, 1, 2.0)
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    with pytest.raises(EfgError):
        refine(dec, bp, dec.num_subgames)
    with pytest.raises(EfgError):
        refine(dec, bp, 0, objective="nope")


@pytest.mark.slow
def test_table1_n5() -> None:
    dec = decompose(5, 3, 2.0)
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    r = refine(dec, bp, 0)
    assert abs(r.blueprint_welfare - closed_form(5, 3, 2.0)) < 1e-12
    assert round(r.refined_welfare * 100, 2) == -1.34
    assert safety(dec.space, bp, r.plan).is_fully_safe()
