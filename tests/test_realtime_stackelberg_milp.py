"""The HiGHS MILP wrapper: optimum, warm start, time limit, infeasibility."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from pokerbot.efg.game import EfgError
from realtime.stackelberg.milp import solve_milp


def _knapsack(n: int, seed: int) -> tuple[np.ndarray, sp.csr_matrix, float]:
    rng = np.random.default_rng(seed)
    return rng.random(n), sp.csr_matrix(rng.random((1, n))), n / 4


def test_optimum_and_warm_start() -> None:
    c, a, cap = _knapsack(12, 0)
    args = (c, a, np.array([-np.inf]), np.array([cap]), np.zeros(12), np.ones(12), np.ones(12, dtype=bool))
    res = solve_milp(*args, maximize=True)
    best = max(  # brute force over all 4096 subsets
        float(c @ s) for s in (np.array(list(np.binary_repr(k, 12)), dtype=float) for k in range(4096))
        if float((a @ s)[0]) <= cap
    )
    assert res.status == "optimal" and res.value == pytest.approx(best)
    assert solve_milp(*args, maximize=True, start=np.zeros(12)).started


def test_time_limit_keeps_the_incumbent() -> None:
    c, a, cap = _knapsack(400, 1)
    args = (c, a, np.array([-np.inf]), np.array([cap]), np.zeros(400), np.ones(400), np.ones(400, dtype=bool))
    res = solve_milp(*args, maximize=True, time_limit=1e-6, start=np.zeros(400))
    assert res.hit_limit and res.x is not None and res.value >= 0.0


def test_infeasible_program_raises_naming_it() -> None:
    with pytest.raises(EfgError, match="toy program"):
        solve_milp(np.ones(1), sp.csr_matrix([[1.0]]), np.array([2.0]), np.array([3.0]), np.zeros(1), np.ones(1),
                   np.ones(1, dtype=bool), what="toy program")
