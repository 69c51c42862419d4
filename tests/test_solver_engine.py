"""The solver engine: parallel passes, float32 storage, the exploitability read in place, node locks,
the averaging schedule with restarts."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from pokerbot.cards import parse_cards
from pokerbot.gamedef import load_game
from pokerbot.solver import Solver, SolverError, best_response_values, build_tree, exploitability, pot_fraction_menu
from pokerbot.solver import kernels as K
from pokerbot.solver import passes
from pokerbot.solver.best_response import expected_value
from pokerbot.solver.cfr import FLOAT64_SLOTS, storage_dtype
from pokerbot.state import State


def _nlfh_tree():  # type: ignore[no-untyped-def]
    return build_tree(load_game("nlfh-small"), pot_fraction_menu((1.0,), True, 1))


def _run(tree, monkeypatch, min_work: int, threads: int, its: int = 4) -> Solver:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(passes, "PARALLEL_MIN_WORK", min_work)
    tree.derived.pop("pass_plans", None)
    numba.set_num_threads(threads)
    try:
        s = Solver(tree, "dcfr", dtype=np.float64)
        s.iterate(its)
        s.was_parallel = passes.pass_plan(tree, 0, 0).parallel  # type: ignore[attr-defined]
        return s
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def test_the_frontier_plan_covers_the_tree_once() -> None:
    tree = _nlfh_tree()
    plan = passes.pass_plan(tree, 0, 0, workers=2)
    assert plan.parallel and plan.num_tasks >= 32
    dealt = plan.thread_tasks[plan.thread_tasks >= 0]
    assert sorted(dealt.tolist()) == list(range(plan.num_tasks))  # every task once
    # No task lies below another, and every leaf of the tree is in exactly one task or above all of them.
    sizes = passes.subtree_sizes(tree.first_child, tree.num_children)
    parent = np.full(tree.num_nodes, -1)
    for n in range(tree.num_nodes):
        f = int(tree.first_child[n])
        parent[f : f + int(tree.num_children[n])] = n
    for n in plan.task_node:
        a = parent[n]
        while a >= 0:
            assert plan.fidx[a] < 0
            a = parent[a]
    assert sizes[plan.task_node].sum() + plan.top_nodes == tree.num_nodes


def test_parallel_passes_equal_the_one_thread_traversal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seq = _run(_nlfh_tree(), monkeypatch, 10**18, 1)
    par1 = _run(_nlfh_tree(), monkeypatch, 0, 1)
    par2 = _run(_nlfh_tree(), monkeypatch, 0, min(2, numba.config.NUMBA_NUM_THREADS))
    assert par2.was_parallel and par1.was_parallel and not seq.was_parallel  # type: ignore[attr-defined]
    np.testing.assert_allclose(par1.regret, seq.regret, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(par1.ssum, seq.ssum, rtol=1e-12, atol=1e-12)
    # The result does not depend on the number of workers: the same operations in the same order.
    assert np.array_equal(par1.regret, par2.regret) and np.array_equal(par1.ssum, par2.ssum)
    assert par2.exploitability() == pytest.approx(seq.exploitability(), rel=1e-10)


def test_exploitability_from_the_sums_equals_the_average_strategy() -> None:
    s = Solver(build_tree(load_game("leduc")), "dcfr")
    s.iterate(30)
    assert s.exploitability() == pytest.approx(exploitability(s.tree, s.average_strategy()), rel=1e-12)
    assert s.value() == pytest.approx(expected_value(s.tree, s.average_strategy()), abs=1e-12)


def _river():  # type: ignore[no-untyped-def]
    game = load_game("hunl")
    root = State.from_betting(game, "r300c/cr600c/cc/", board_cards=parse_cards("Ks9h4c7d2s"))
    return build_tree(game, pot_fraction_menu((0.5, 1.0), False, 2), root)


def test_float32_storage_converges_like_float64() -> None:
    tree = _river()
    out = {}
    for dt in (np.float32, np.float64):
        s = Solver(tree, "dcfr", dtype=dt)
        assert s.regret.dtype == dt and s.ssum.dtype == dt and not hasattr(s, "strat")
        s.iterate(150)
        out[np.dtype(dt).name] = s.exploitability()
    # Both well below 1% of the 1,200-chip pot (12 chips = 120 mbb/g); within a few percent of each other.
    assert out["float32"] < 120 and out["float64"] < 120
    assert out["float32"] == pytest.approx(out["float64"], rel=0.1)


def test_storage_is_two_arrays_and_the_default_dtype_follows_the_size() -> None:
    tree = _river()
    s = Solver(tree, "dcfr", dtype="float32")
    assert s.memory_bytes() == tree.memory_bytes(2, 4)
    assert s.regret.nbytes + s.ssum.nbytes == 8 * tree.num_slots  # a third of three float64 arrays
    assert storage_dtype(FLOAT64_SLOTS - 1) == np.float64 and storage_dtype(FLOAT64_SLOTS) == np.float32
    with pytest.raises(SolverError, match="float32, float64 or 'compressed'"):
        Solver(tree, "dcfr", dtype=np.int32)


def test_a_compressed_update_is_the_float_update_to_the_codes_resolution() -> None:
    """One CFR update of a block in 16-bit codes decodes to the float32 update within half a code step."""
    rng = np.random.default_rng(5)
    nc, nt = 3, 40
    reg = (rng.normal(size=nc * nt) * 50).astype(np.float32)
    ssum = (rng.random(nc * nt) * 7).astype(np.float32)
    inc = rng.normal(size=(nc + 1, nt)).astype(np.float32) * 20
    strat = rng.dirichlet(np.ones(nc), size=nt).T.astype(np.float32)
    sb = np.vstack([strat, np.zeros((1, nt), np.float32)])
    rt = rng.random(nt).astype(np.float32)
    rscale, sscale = np.float32(np.abs(reg).max()), np.float32(ssum.max())
    q_reg = np.rint(reg / rscale * K.R16).astype(np.int16)
    q_sum = np.rint(ssum / sscale * K.S16).astype(np.uint16)
    scales = (np.array([0.0, rscale], np.float32), np.array([0.0, sscale], np.float32))
    dpos, dneg, davg = 0.9, 0.4, 0.7
    # The reference: the float update of the decoded codes.
    r0 = q_reg.astype(np.float32) * rscale / np.float32(K.R16)
    want_r = np.where(r0 > 0, r0 * dpos, r0 * dneg) + inc[:nc].reshape(-1)
    s0 = q_sum.astype(np.float32) * sscale / np.float32(K.S16)
    want_s = s0 * davg + (rt[None, :] * strat).reshape(-1)
    K._update_compressed(0, 1, nc, nt, inc.copy(), sb.copy(), rt, q_reg, q_sum, scales, np.float32(dpos),
                         np.float32(dneg), np.float32(davg), False)
    got_r = q_reg.astype(np.float64) * scales[0][1] / K.R16
    got_s = q_sum.astype(np.float64) * scales[1][1] / K.S16
    assert scales[0][1] == pytest.approx(np.abs(want_r).max(), rel=1e-6)
    assert scales[1][1] == pytest.approx(want_s.max(), rel=1e-6)
    assert np.abs(got_r - want_r).max() <= 0.51 * scales[0][1] / K.R16  # half a step, float32 rounding aside
    assert np.abs(got_s - want_s).max() <= 0.51 * scales[1][1] / K.S16
    assert np.abs(got_r - want_r).max() > 0  # the codes do round


def test_compressed_storage_converges_in_half_the_memory() -> None:
    tree = _river()
    s = Solver(tree, "dcfr", dtype="compressed")
    assert s.regret.dtype == np.int16 and s.ssum.dtype == np.uint16 and s.compressed
    assert s.memory_bytes() == tree.memory_bytes(2, 2) + 8 * (tree.num_nodes + 2 * tree.num_leaves)
    s.iterate(150)
    f = Solver(tree, "dcfr", dtype=np.float32)
    f.iterate(150)
    # Well below 1% of the pot (120 mbb/g), and no more than twice float32's exploitability at equal iterations.
    assert s.exploitability() < 120 and s.exploitability() < 2 * f.exploitability()
    # The average strategy is read from the codes (scale-free per hand) and is a distribution.
    avg = s.average_strategy()
    n = int(tree.decision_nodes[0][0])
    nc, nh = int(tree.num_children[n]), tree.num_hands[0]
    block = avg[int(tree.slot[n]) : int(tree.slot[n]) + nc * nh].reshape(nc, nh)
    np.testing.assert_allclose(block.sum(axis=0), 1.0, atol=1e-9)


def test_a_compressed_checkpoint_resumes_bit_for_bit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    tree = _river()
    a = Solver(tree, "dcfr", dtype="compressed")
    a.iterate(7)
    a.save_checkpoint(tmp_path / "c.npz")
    b = Solver(tree, "dcfr", dtype="compressed")
    b.load_checkpoint(tmp_path / "c.npz")
    a.iterate(5)
    b.iterate(5)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.ssum, b.ssum)
    assert np.array_equal(a.scales[0], b.scales[0]) and np.array_equal(a.scales[1], b.scales[1])
    # A float32 solver refuses the compressed file.
    from pokerbot.errors import CheckpointError

    with pytest.raises(CheckpointError, match="dtype"):
        Solver(tree, "dcfr", dtype=np.float32).load_checkpoint(tmp_path / "c.npz")


def test_a_compressed_lock_holds() -> None:
    tree = build_tree(load_game("kuhn"))
    s = Solver(tree, "cfr+", dtype="compressed")
    n = int(tree.decision_nodes[0][0])
    s.lock(n, [0.3, 0.7])
    s.iterate(200)
    off, nh = int(tree.slot[n]), tree.num_hands[0]
    np.testing.assert_allclose(s.average_strategy()[off : off + 2 * nh], np.repeat([0.3, 0.7], nh), atol=1e-4)


def test_the_average_restarts_at_powers_of_four() -> None:
    restarts = [t for t in range(1, 80) if K.iteration_factors(float(t), K.ALG_DCFR, 1.5, 0.0, 3.0, True)[2] == 0.0]
    assert restarts == [1, 2, 5, 17, 65]
    # Without restarts only the first iteration forgets the (empty) sum.
    plain = [t for t in range(1, 80) if K.iteration_factors(float(t), K.ALG_DCFR, 1.5, 0.0, 3.0, False)[2] == 0.0]
    assert plain == [1]
    s = Solver(_river(), "dcfr", gamma=3.0, reset_average=True)
    s.iterate(100)
    assert s.exploitability() < 120


def test_a_locked_player_is_played_against_with_a_best_response() -> None:
    """Kuhn with every decision of player 0 locked: player 1's average strategy must be a best response to it."""
    tree = build_tree(load_game("kuhn"))
    rng = np.random.default_rng(3)
    locked = {}
    s = Solver(tree, "cfr+", dtype=np.float64)
    for n in tree.decision_nodes[0]:
        nc, nh = int(tree.num_children[n]), tree.num_hands[0]
        probs = rng.dirichlet(np.ones(nc), size=nh).T
        locked[int(n)] = probs
        s.lock(int(n), probs)
    s.iterate(3000)
    avg = s.average_strategy()
    for n, probs in locked.items():
        off = int(tree.slot[n])
        np.testing.assert_allclose(avg[off : off + probs.size], probs.reshape(-1), atol=1e-12)
    br0, br1 = best_response_values(tree, avg)
    v1 = -expected_value(tree, avg)
    assert v1 == pytest.approx(br1, abs=2e-3)  # player 1 gains nothing by deviating
    # Negative control: the unlocked solve plays something else at player 0's nodes.
    free = Solver(tree, "cfr+", dtype=np.float64)
    free.iterate(3000)
    n0 = int(tree.decision_nodes[0][0])
    off = int(tree.slot[n0])
    size = locked[n0].size
    assert np.abs(free.average_strategy()[off : off + size] - locked[n0].reshape(-1)).max() > 0.05


def test_a_lock_must_be_a_distribution_at_a_decision() -> None:
    tree = build_tree(load_game("kuhn"))
    s = Solver(tree, "cfr+")
    n = int(tree.decision_nodes[0][0])
    with pytest.raises(SolverError, match="sum to 1"):
        s.lock(n, [0.5, 0.6])
    with pytest.raises(SolverError, match="probabilities"):
        s.lock(n, [1.0, 0.0, 0.0])
    leaf = int(np.nonzero(tree.kind != K.DECISION)[0][0])
    with pytest.raises(SolverError, match="not a decision node"):
        s.lock(leaf, [1.0])
