"""Refining one subgame without the whole correlation plan, and exact safety at the end.

The subgame-restricted space (``S0 ∪ S_j`` only) and the product blueprint's values by
passes over the game are checked against the complete space and the plan-based values
(the exact reference) to 1e-12; Algorithm 2 on the restricted space reproduces the
complete space's run; the final polish turns an ε-safe average plan (negative control:
it violates a constraint by ~1e-5) into one that violates none beyond rounding."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.battleship import battleship, first_shot_subgame_key
from pokerbot.efg.game import EfgError
from realtime.efce.battleship import first_shot_subgames, grid_instance, subgame_instance, tree_size
from realtime.efce.plan import (
    CorrelationSpace,
    jittered_strategy,
    num_relevant_pairs,
    product_plan,
    uniform_strategy,
)
from realtime.efce.regret import polish_plan, regret_refine, scaled_extensions
from realtime.efce.subgames import Blueprint, Decomposition, node_subgames, refinement_program, safety

CASES = [(3, 1, 2, 1), (4, 1, 3, 1), (3, 2, 2, 2)]


def _strategies(space: CorrelationSpace, kind: str) -> tuple[np.ndarray, np.ndarray]:
    tps = space.treeplex
    if kind == "uniform":
        return uniform_strategy(tps[0]), uniform_strategy(tps[1])
    rng = np.random.default_rng(5)
    return jittered_strategy(tps[0], 0.25, rng), jittered_strategy(tps[1], 0.25, rng)


@pytest.fixture(scope="module")
def pairs() -> list[tuple[Decomposition, Decomposition, int]]:
    out = []
    for case in CASES:
        full, j = grid_instance(*case, 2.0)
        local, j2 = subgame_instance(*case, 2.0)
        assert j == j2
        out.append((full, local, j))
    return out


def _reference_keys(space: CorrelationSpace) -> np.ndarray:
    """Relevant pairs by walking every node's path (an independent, slow enumeration)."""
    game, tps = space.game, space.treeplex
    n1 = tps[1].num_seqs
    keys = {s for s in range(n1)} | {s * n1 for s in range(tps[0].num_seqs)}
    for h in np.flatnonzero(game.player == 0).tolist():
        d0 = int(game.info[0].obs_decision[game.obs[0, h]])
        s = int(game.seq[1, h])
        while s > 0:
            d1 = int(tps[1].seq_infoset[s])
            for a in range(int(tps[0].num_actions[d0])):
                for b in range(int(tps[1].num_actions[d1])):
                    keys.add((int(tps[0].first_seq[d0]) + a) * n1 + int(tps[1].first_seq[d1]) + b)
            s = int(tps[1].seq_parent[s])
    for h in np.flatnonzero(game.player == 1).tolist():
        d1 = int(game.info[1].obs_decision[game.obs[1, h]])
        s = int(game.seq[0, h])
        while s > 0:
            d0 = int(tps[0].seq_infoset[s])
            for a in range(int(tps[0].num_actions[d0])):
                for b in range(int(tps[1].num_actions[d1])):
                    keys.add((int(tps[0].first_seq[d0]) + a) * n1 + int(tps[1].first_seq[d1]) + b)
            s = int(tps[0].seq_parent[s])
    return np.asarray(sorted(keys), np.int64)


def test_relevant_pairs_and_counts() -> None:
    for case in CASES[:2]:
        space = CorrelationSpace.of(battleship(*case[:3], ship=case[3]))
        assert np.array_equal(space.keys, _reference_keys(space))
        assert space.total_pairs() == space.num_pairs == num_relevant_pairs(space.treeplex, space.connected)
    for case in CASES:
        g = battleship(*case[:3], ship=case[3])
        assert tree_size(*case) == (g.num_nodes, len(g.terminals))
    g = battleship(3, 1, 2)
    ids, keys = node_subgames(g, lambda h: first_shot_subgame_key(g, h))
    ids2, keys2 = first_shot_subgames(g)
    assert np.array_equal(ids, ids2) and keys == keys2 and (ids >= 0).sum() > 0


def test_subgame_space_is_the_complete_space_restricted(pairs: list[tuple[Decomposition, Decomposition, int]]) -> None:
    for full, local, j in pairs:
        fs, ls = full.space, local.space
        keep = np.flatnonzero((full.pair_sub == -1) | (full.pair_sub == j))
        assert not ls.complete and fs.complete
        assert np.array_equal(fs.pair_seq[:, keep], ls.pair_seq) and np.array_equal(fs.payoff[:, keep], ls.payoff)
        assert ls.num_pairs == full.size(j) == local.size(j) < fs.num_pairs == ls.total_pairs()
        assert np.array_equal(full.pair_sub[keep], local.pair_sub) and full.touching == local.touching
        a, b = ls.polytope()  # every row lies inside: a product plan meets it exactly
        x = _strategies(fs, "jittered")
        assert abs(a @ product_plan(ls, *x) - b).max() < 1e-12 and a.shape[0] > 1
        with pytest.raises(EfgError, match="complete"):
            Blueprint.of(local, product_plan(ls, *x))
        with pytest.raises(EfgError, match="complete"):
            safety(ls, Blueprint.of_product(local, *x), product_plan(ls, *x))


def test_product_values_equal_the_plan_based_values(pairs: list[tuple[Decomposition, Decomposition, int]]) -> None:
    for full, local, j in pairs:
        for kind in ("uniform", "jittered"):
            x = _strategies(full.space, kind)
            ref = Blueprint.of(full, product_plan(full.space, *x))
            for dec in (full, local):
                new = Blueprint.of_product(dec, *x)
                for i in (0, 1):
                    o, n = ref.values[i], new.values[i]
                    fin = np.isfinite(o.delta)
                    assert np.array_equal(fin, np.isfinite(n.delta)) and fin.sum() > 10
                    assert abs(o.mu - n.mu).max() < 1e-12
                    assert abs(o.delta[fin] - n.delta[fin]).max() < 1e-12
                    assert abs(o.beta_star[fin] - n.beta_star[fin]).max() < 1e-12
                    assert set(o.beta) == set(n.beta) and len(o.beta) > 0
                    assert max(abs(o.beta[t] - n.beta[t]).max() for t in o.beta) < 1e-12
            loc = Blueprint.of_product(local, *x)
            idx = full.space.index(local.space.pair_seq[0], local.space.pair_seq[1])
            assert abs(ref.plan[idx] - loc.plan).max() < 1e-15
            # the refinement program: same rows once the columns are mapped
            rpo, rpn = refinement_program(full, ref, j), refinement_program(local, loc, j)
            a = rpo.a_ub.tocsc()
            cols = np.concatenate([idx, rpo.num_pairs + np.arange(rpo.num_aux)])
            assert a[:, cols].nnz == a.nnz and rpo.num_aux == rpn.num_aux and a.shape[0] > 0
            assert abs(a[:, cols] - rpn.a_ub).max() < 1e-12 and abs(rpo.b_ub - rpn.b_ub).max() < 1e-12


def test_algorithm2_on_the_restricted_space_is_the_same_run(pairs: list[tuple[Decomposition, Decomposition, int]]) -> None:
    for full, local, j in pairs[:2]:
        x = _strategies(full.space, "jittered")
        ref = Blueprint.of(full, product_plan(full.space, *x))
        idx = full.space.index(local.space.pair_seq[0], local.space.pair_seq[1])
        # the same blueprint values (bit for bit): regret matching+ is not continuous at ties
        same = Blueprint(ref.plan[idx], ref.values)
        a = regret_refine(full, ref, j, iterations=300, record_every=100)
        b = regret_refine(local, same, j, iterations=300, record_every=100)
        assert abs(a.plan[idx] - b.plan).max() < 1e-12 and a.num_entries == b.num_entries == len(idx)
        assert np.allclose(a.pseudo_exploitability, b.pseudo_exploitability, rtol=0, atol=1e-12)
        assert a.blueprint_welfare == pytest.approx(b.blueprint_welfare, abs=1e-15)
        # with the product values (equal to 1e-16) it converges alike
        c = regret_refine(local, Blueprint.of_product(local, *x), j, iterations=300, record_every=300)
        assert abs(c.pseudo_exploitability[-1] - a.pseudo_exploitability[-1]) < 1e-4


def test_polish_makes_the_average_plan_exactly_safe() -> None:
    for n, t, iterations in ((3, 2, 2000), (4, 3, 50)):
        dec, j = grid_instance(n, 1, t, 1, 2.0)
        x = _strategies(dec.space, "uniform")
        bp = Blueprint.of(dec, product_plan(dec.space, *x))
        raw = regret_refine(dec, bp, j, iterations=iterations, record_every=iterations)
        pol = regret_refine(dec, bp, j, iterations=iterations, record_every=iterations, polish=True)
        assert np.array_equal(raw.state.plan_sum, pol.state.plan_sum)  # the same run, then the polish
        # negative control: the ε-safe average plan violates Definition 9 by a small positive amount
        before = safety(dec.space, bp, raw.plan).violation
        assert 1e-6 < before < 2e-3 and raw.pseudo_exploitability[-1] > 1e-6
        assert pol.polish is not None and pol.polish.method == "lp" and pol.polish.before > 1e-6
        assert safety(dec.space, bp, pol.plan).violation <= 1e-12 and pol.polish.after <= 1e-12
        a, b = dec.space.polytope()
        assert abs(a @ pol.plan - b).max() < 1e-9 and pol.plan.min() >= 0
        outside = dec.pair_sub != j
        assert np.array_equal(pol.plan[outside], raw.plan[outside])  # only S_j moves
        assert 0 < pol.polish.moved < abs(raw.plan - bp.plan).sum()
        # on the restricted space too (its polytope rows are the ones touching S_j)
        local, _ = subgame_instance(n, 1, t, 1, 2.0)
        lp = polish_plan(local, Blueprint.of_product(local, *x), j, raw.plan[(dec.pair_sub == -1) | (dec.pair_sub == j)])
        assert lp.method == "lp" and lp.after <= 1e-12


def test_polish_leaves_a_safe_plan_alone() -> None:
    dec, j = grid_instance(3, 1, 2, 1, 2.0)
    rng = np.random.default_rng(0)
    x = jittered_strategy(dec.space.treeplex[0], 0.25, rng), jittered_strategy(dec.space.treeplex[1], 0.25, rng)
    bp = Blueprint.of(dec, product_plan(dec.space, *x))
    res = regret_refine(dec, bp, j, iterations=2000, record_every=2000, polish=True)
    assert res.polish is not None and res.polish.method == "none" and res.polish.before < 0
    ext = scaled_extensions(dec, j)
    assert np.array_equal(res.plan, ext.plan(res.state.plan_sum / res.state.weight, bp.plan))


def test_cli_implicit_and_polish(capsys) -> None:  # type: ignore[no-untyped-def]
    from pokerbot.cli import main

    base = ["efce", "--refine", "regret", "--grid", "3,1", "--timesteps", "2", "--iterations", "200",
            "--record-every", "100"]
    assert main([*base, "--implicit", "--polish"]) == 0
    out = capsys.readouterr().out
    assert "|Ξ| = 1,150, |Ξ_j| = 382" in out and "stored: S0 ∪ S_j only" in out
    assert "polish (lp" in out and "exact safety" not in out
    assert main([*base, "--polish"]) == 0
    out = capsys.readouterr().out
    assert "stored: the whole plan" in out and "exact safety of the polished plan" in out
    assert main(["efce", "--implicit"]) == 1
    assert "--implicit does not apply to --refine lp" in capsys.readouterr().err


@pytest.mark.slow
def test_medium_restricted_values_and_large_count() -> None:
    full, j = grid_instance(3, 2, 3, 1, 2.0)
    local, _ = subgame_instance(3, 2, 3, 1, 2.0)
    assert local.space.total_pairs() == full.space.num_pairs == 3_893_341 and local.space.num_pairs == 115_966
    x = _strategies(full.space, "uniform")
    ref, new = Blueprint.of(full, product_plan(full.space, *x)), Blueprint.of_product(local, *x)
    for i in (0, 1):
        fin = np.isfinite(ref.values[i].delta)
        assert abs(ref.values[i].delta[fin] - new.values[i].delta[fin]).max() < 1e-12
        assert abs(ref.values[i].mu - new.values[i].mu).max() < 1e-12
        assert max(abs(ref.values[i].beta[t] - new.values[i].beta[t]).max() for t in ref.values[i].beta) < 1e-12
    rpo, rpn = refinement_program(full, ref, j), refinement_program(local, new, j)
    idx = full.space.index(local.space.pair_seq[0], local.space.pair_seq[1])
    a = rpo.a_ub.tocsc()[:, np.concatenate([idx, rpo.num_pairs + np.arange(rpo.num_aux)])]
    assert abs(a - rpn.a_ub).max() < 1e-12 and abs(rpo.b_ub - rpn.b_ub).max() < 1e-12
    # ship 1 x 2, T = 3: counted, not stored (the paper's Large is T = 4: 111,187,224 pairs, docs/efce.md)
    big = subgame_instance(3, 2, 3, 2, 2.0)[0].space
    assert big.total_pairs() == 12_725_784 and big.num_pairs == 374_571
