"""Algorithm 2 (regret-minimisation refinement): the scaled-extension decomposition spans
Ξ_j (checked against the polytope and, for linear objectives, against an LP), the
deviator's best response is the LP's largest constraint violation, and self-play
converges to the LP's saddle value; negative controls: the paper's Chicken example
without the tie-break, an unsafe plan, and a welfare floor above the LP optimum."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from pokerbot.efg.game import Branch, EfgError, Game, Leaf, Move, build_game
from pokerbot.efg.lp import linear_program
from experiments.efce_tables import regret_run
from realtime.efce.battleship import instance
from realtime.efce.agent import Mediator
from realtime.efce.plan import CorrelationSpace, jittered_plan, uniform_plan
from realtime.efce.regret import (
    RegretState,
    _mediator_recommend,
    _mediator_value,
    deviator_space,
    max_welfare_bound,
    regret_max_welfare,
    regret_refine,
    scaled_extensions,
    violation_lp,
)
from realtime.efce.subgames import Blueprint, Decomposition, refine, refinement_program, safety


@pytest.fixture(scope="module")
def small() -> list[tuple[Decomposition, int, Blueprint]]:
    out = []
    for n, t in ((3, 2), (4, 3)):
        dec, j = instance(n, t, 2.0)
        for plan in (uniform_plan(dec.space), jittered_plan(dec.space, 0.25, 3)):
            out.append((dec, j, Blueprint.of(dec, plan)))
    return out


def test_scaled_extensions_span_the_polytope(small: list[tuple[Decomposition, int, Blueprint]]) -> None:
    rng = np.random.default_rng(0)
    for dec, j, bp in small:
        ext = scaled_extensions(dec, j)
        assert len(ext.pairs) == dec.size(j)
        assert sorted(ext.tgt.tolist()) == np.flatnonzero(ext.free).tolist()  # each free entry exactly once
        for _ in range(3):
            xi = bp.plan[ext.pairs].copy()
            regret = rng.random(len(ext.tgt)) * (rng.random(len(ext.tgt)) < 0.7)  # some zero: pure choices
            _mediator_recommend(ext.kind, ext.src_ptr, ext.src, ext.tgt_ptr, ext.tgt, regret,
                                np.zeros(len(ext.tgt)), xi)
            plan = ext.plan(xi, bp.plan)
            dec.space.check_plan(plan, tol=1e-12)
            assert np.array_equal(plan[dec.pair_sub != j], bp.plan[dec.pair_sub != j])
            assert abs(plan - bp.plan).max() > 1e-3  # the free entries did move


def test_mediator_best_response_is_the_lp_minimum(small: list[tuple[Decomposition, int, Blueprint]]) -> None:
    rng = np.random.default_rng(1)
    for dec, j, bp in small[::2]:
        ext = scaled_extensions(dec, j)
        free_pairs = ext.pairs[ext.free]
        loss = rng.normal(size=len(free_pairs))
        m = sp.csr_matrix((loss, (np.flatnonzero(ext.free), np.zeros(len(loss), np.int64))),
                          shape=(len(ext.pairs), 1))
        ours = _mediator_value(ext, m, np.ones(1), np.zeros(1), bp.plan[ext.pairs])
        a, b = dec.space.polytope()
        a = a.tocsc()
        fixed = dec.pair_sub == -1
        rows = np.flatnonzero(abs(a[:, free_pairs]).sum(axis=1).A1 > 0)
        res = linear_program(loss, a_eq=a[rows][:, free_pairs], b_eq=b[rows] - a[rows][:, np.flatnonzero(fixed)] @ bp.plan[fixed],
                             what="test")
        assert abs(ours - res.value) < 1e-9


def _matrix_game(first: int) -> Game:
    """Chicken as an EFG: player ``first`` moves, the other moves without seeing it."""
    pay = {(0, 0): (6.0, 6.0), (0, 1): (2.0, 7.0), (1, 0): (7.0, 2.0), (1, 1): (0.0, 0.0)}

    def expand(s: tuple[int, ...]) -> Branch | Leaf:
        if len(s) == 2:
            a = (s[0], s[1]) if first == 0 else (s[1], s[0])
            return Leaf(pay[a])
        mover = first if not s else 1 - first
        return Branch(mover, [Move(f"a{k}", s + (k,)) for k in range(2)])

    return build_game(f"chicken-{first}", (), expand)


def test_chicken_needs_the_pre_subgame_tie_break() -> None:
    # Appendix F: the subgame holds the second mover's infoset; expanding it first would
    # force a fill of blueprint pairs (negative control), the tie-break avoids that.
    for first in (0, 1):
        game = _matrix_game(first)
        space = CorrelationSpace.of(game)
        dec = Decomposition.of(space, np.where(game.depth >= 1, 0, -1))
        bp = Blueprint.of(dec, uniform_plan(space))
        ext = scaled_extensions(dec, 0)
        assert int(ext.free.sum()) == 6  # (∅, b) and (a, b)
        if first == 1:  # the lower-numbered player is the in-subgame one
            with pytest.raises(EfgError, match="blueprint"):
                scaled_extensions(dec, 0, prefer_pre_subgame=False)
        res = regret_refine(dec, bp, 0, iterations=300)
        assert res.pseudo_exploitability[-1] < 1e-2
        space.check_plan(res.plan)


def test_pseudo_exploitability_is_the_lps_largest_violation(small: list[tuple[Decomposition, int, Blueprint]]) -> None:
    for dec, j, bp in small:
        ext = scaled_extensions(dec, j)
        dev = deviator_space(refinement_program(dec, bp, j), ext, bp.plan)
        unsafe = refine(dec, bp, j, incentives=False).plan  # welfare-maximal, no constraints
        rm = regret_refine(dec, bp, j, iterations=20).plan
        values = []
        for plan in (bp.plan, unsafe, rm):
            ours = dev.violation(plan[ext.pairs])
            assert abs(ours - violation_lp(dec, bp, j, plan)) < 1e-9
            values.append(ours)
        assert values[0] <= 1e-12  # the blueprint meets every constraint
        if dec.size(j) > 1000:  # n = 4: the unconstrained optimum breaks the constraints
            assert values[1] > 1e-3


def test_algorithm2_approaches_the_lp_saddle_value(small: list[tuple[Decomposition, int, Blueprint]]) -> None:
    for dec, j, bp in small:
        v_star = violation_lp(dec, bp, j)
        assert v_star <= 1e-12  # the blueprint is feasible
        res = regret_refine(dec, bp, j, iterations=1500, record_every=50)
        p = res.pseudo_exploitability
        assert (p >= v_star - 1e-9).all()  # nobody beats the LP's optimum
        assert (res.gap >= -1e-9).all()
        assert p[-1] - v_star < 5e-5
        assert p[-1] < p[0] or p[0] - v_star < 1e-6
        dec.space.check_plan(res.plan)
        s = safety(dec.space, bp, res.plan)
        assert s.violation < 1e-3 and s.violation <= 20 * max(p[-1], 0.0) + 1e-9


def test_welfare_floor_is_met_below_the_lp_optimum_only() -> None:
    dec, j = instance(4, 3, 2.0)
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    best = refine(dec, bp, j).refined_welfare  # the fully safe LP optimum
    base = refine(dec, bp, j, incentives=False).blueprint_welfare
    assert best > base + 1e-3
    assert violation_lp(dec, bp, j, welfare_floor=best + 1e-3) > 1e-5  # above the optimum: infeasible
    mid = (best + base) / 2
    assert violation_lp(dec, bp, j, welfare_floor=mid) <= 1e-12  # (0 for Uniform: its (B) rows are tight)
    res = regret_refine(dec, bp, j, iterations=1500, record_every=100, welfare_floor=mid)
    assert res.pseudo_exploitability[-1] < 1e-4
    assert res.refined_welfare > mid - 1e-4
    high = regret_refine(dec, bp, j, iterations=300, record_every=100, welfare_floor=best + 1e-3)
    assert (high.pseudo_exploitability > 1e-5).all()  # cannot fake feasibility


def test_bad_arguments() -> None:
    dec, j = instance(3, 2, 2.0)
    bp = Blueprint.of(dec, uniform_plan(dec.space))
    with pytest.raises(EfgError, match="iterations"):
        regret_refine(dec, bp, j, iterations=0)
    with pytest.raises(EfgError, match="out of range"):
        regret_refine(dec, bp, dec.num_subgames, iterations=1)


def test_checkpoint_resume_is_exact(tmp_path) -> None:  # type: ignore[no-untyped-def]
    dec, j = instance(4, 3, 2.0)
    bp = Blueprint.of(dec, jittered_plan(dec.space, 0.25, 1))
    whole = regret_refine(dec, bp, j, iterations=100, record_every=20)
    first = regret_refine(dec, bp, j, iterations=60, record_every=20)
    path = str(tmp_path / "state.npz")
    first.state.save(path, "run")
    with pytest.raises(EfgError, match="not 'other'"):
        RegretState.load(path, "other")
    resumed = regret_refine(dec, bp, j, iterations=100, record_every=20, state=RegretState.load(path, "run"))
    assert np.array_equal(resumed.plan, whole.plan)
    assert resumed.recorded.tolist() == whole.recorded.tolist() == [20, 40, 60, 80, 100]
    assert np.array_equal(resumed.pseudo_exploitability, whole.pseudo_exploitability)
    # A damaged checkpoint (a regret changed, the archive intact) and a foreign file are refused, not resumed.
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["mediator_regret"] = arrays["mediator_regret"] + 1.0
    np.savez(path, **arrays)
    with pytest.raises(EfgError, match="checksum mismatch"):
        RegretState.load(path, "run")
    np.savez(path, key=np.asarray("run"), iteration=3)  # the old, unchecked layout
    with pytest.raises(EfgError, match="no header"):
        RegretState.load(path, "run")


@pytest.mark.slow
def test_medium_instance_size_and_progress() -> None:
    # Fig. 2's Medium: |Ξ| = 3.89M is Battleship 3x2 with a 1x1 ship and T = 3 firing
    # timesteps in our (Table 1's) count; a few hundred iterations make progress.
    run = regret_run(3, 2, 3, 1, 2.0, iterations=300, record_every=100)
    assert run.num_pairs == 3_893_341 and round(run.num_pairs / 1e6, 2) == 3.89
    assert run.size == 115_966 and run.subgames == 36
    p = run.result.pseudo_exploitability
    assert p[-1] < p[0] and p[-1] < 1e-3


def test_welfare_search_approaches_the_lp_optimum() -> None:
    dec, j = instance(4, 3, 2.0)
    for plan in (uniform_plan(dec.space), jittered_plan(dec.space, 0.25, 0)):
        bp = Blueprint.of(dec, plan)
        lp = refine(dec, bp, j)  # fully safe LP optimum (Uniform: −2.539e-2 over the blueprint's −3.125e-2)
        assert abs(max_welfare_bound(dec, bp, j) - refine(dec, bp, j, incentives=False).refined_welfare) < 1e-9
        search = regret_max_welfare(dec, bp, j, steps=6, iterations=1500, tolerance=1e-5, record_every=1500)
        gain = lp.refined_welfare - lp.blueprint_welfare
        assert search.best.pseudo_exploitability[-1] <= 1e-5
        assert search.best.refined_welfare >= lp.blueprint_welfare + 0.8 * gain
        assert search.floor <= lp.refined_welfare + 1e-9  # no floor above the safe optimum is accepted
        for floor, _, lower, _ in search.steps:  # a positive lower bound certifies infeasibility
            if lower > 1e-9:
                assert floor > lp.refined_welfare


def test_algorithm1_with_the_regret_refiner() -> None:
    dec, _ = instance(3, 2, 2.0)
    bp = Blueprint.of(dec, jittered_plan(dec.space, 0.5, 2))
    plans: dict[int, np.ndarray] = {}

    def refiner(d: Decomposition, b: Blueprint, j: int):  # type: ignore[no-untyped-def]
        res = regret_refine(d, b, j, iterations=50, record_every=50)
        plans[j] = res.plan
        return res

    med = Mediator(dec, bp, refiner=refiner)
    rng = np.random.default_rng(0)
    refined = 0
    for _ in range(40):
        med.play(rng)
        if med.refined is not None:
            refined += 1
            assert np.array_equal(med.plan, plans[med.refined])  # recommends from Algorithm 2's plan
            assert not np.array_equal(med.plan, bp.plan)
    assert refined > 10 and med.refinements == refined


def test_cli_regret_mode(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from pokerbot.cli import main

    png, npz = tmp_path / "curve.png", tmp_path / "state.npz"
    base = ["efce", "--refine", "regret", "--grid", "3,1", "--timesteps", "2", "--record-every", "20",
            "--plot", str(png), "--checkpoint", str(npz)]
    assert main([*base, "--iterations", "40"]) == 0
    out = capsys.readouterr().out
    assert "|Ξ| = 1,150, |Ξ_j| = 382" in out and "exact safety of the average plan" in out
    assert png.stat().st_size > 0 and RegretState.load(str(npz), "3x1-T2-m1-g2-uniform-0-0.25-floorFalse").iteration == 40
    assert main([*base, "--iterations", "60"]) == 0  # resumes from iteration 40
    out = capsys.readouterr().out
    assert "after 60 iterations" in out and "       40" in out  # the resumed recordings are kept
    assert main(["efce", "--plot", str(png)]) == 1
    assert "pokerbot efce: error: --plot does not apply to --refine lp" in capsys.readouterr().err
