"""Mixed-integer programs through HiGHS (``highspy``) with what the Stackelberg
programs need beyond :func:`pokerbot.efg.lp.mixed_integer_program`: a time limit, a
warm start (the blueprint and its best response) and a report of how the solve ended.

``scipy.optimize.milp`` takes neither a start nor reports the incumbent's gap, hence
the direct ``highspy`` model here.

>>> import numpy as np, scipy.sparse as sp
>>> res = solve_milp(np.array([1.0, 1.0]), sp.csr_matrix([[1.0, 2.0]]), np.array([-np.inf]), np.array([4.0]),
...                  np.zeros(2), np.array([3.0, 3.0]), np.array([True, False]), maximize=True)
>>> res.status, round(res.value, 6)
('optimal', 3.5)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from pokerbot.efg.game import EfgError

if TYPE_CHECKING:
    import highspy

#: HiGHS tolerances: tighter than its defaults (1e-7 primal, 1e-6 integrality) so
#: that the follower's best response to a solution is the one the program encoded.
FEASIBILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class MilpResult:
    """How a solve ended. ``status``: ``optimal``, ``time limit`` (``x`` is the best
    incumbent, ``None`` if none was found), or HiGHS's own words; ``value``: the
    incumbent's objective; ``bound``: the best proven bound; ``gap``: relative gap;
    ``seconds``: wall time of the solve; ``started``: whether HiGHS accepted the warm
    start."""

    x: np.ndarray | None
    value: float
    bound: float
    gap: float
    status: str
    seconds: float
    started: bool

    @property
    def hit_limit(self) -> bool:
        return self.status == "time limit"


def _quiet_highs() -> highspy.Highs:
    """A ``highspy.Highs`` with logging off; its constructor prints a banner straight to
    file descriptor 1, which is muted for the call."""
    import os
    import sys

    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


def solve_milp(
    c: np.ndarray,
    a: sp.spmatrix,
    row_lower: np.ndarray,
    row_upper: np.ndarray,
    col_lower: np.ndarray,
    col_upper: np.ndarray,
    integer: np.ndarray,
    *,
    maximize: bool = False,
    time_limit: float | None = None,
    start: np.ndarray | None = None,
    what: str = "MILP",
) -> MilpResult:
    """Optimise ``c @ x`` s.t. ``row_lower <= a x <= row_upper``, ``col_lower <= x <=
    col_upper``, ``x[k]`` integer where ``integer[k]``.

    Raises :class:`EfgError` naming ``what`` when the program is infeasible or
    unbounded, or HiGHS fails; a time limit is not an error (see :class:`MilpResult`).
    """
    import highspy

    n = len(c)
    a = sp.csc_matrix(a)
    if a.shape[1] != n or len(col_lower) != n or len(col_upper) != n or len(integer) != n:
        raise EfgError(f"{what}: {n} columns but matrix {a.shape} and bounds of other lengths")
    lp = highspy.HighsLp()
    lp.num_col_ = n
    lp.num_row_ = a.shape[0]
    lp.col_cost_ = np.asarray(c, dtype=np.float64)
    lp.col_lower_ = np.asarray(col_lower, dtype=np.float64)
    lp.col_upper_ = np.asarray(col_upper, dtype=np.float64)
    lp.row_lower_ = np.asarray(row_lower, dtype=np.float64)
    lp.row_upper_ = np.asarray(row_upper, dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr.astype(np.int32)
    lp.a_matrix_.index_ = a.indices.astype(np.int32)
    lp.a_matrix_.value_ = a.data.astype(np.float64)
    lp.sense_ = highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize
    lp.integrality_ = [highspy.HighsVarType.kInteger if k else highspy.HighsVarType.kContinuous for k in integer]
    h = _quiet_highs()
    h.setOptionValue("threads", 1)
    h.setOptionValue("primal_feasibility_tolerance", FEASIBILITY_TOLERANCE)
    h.setOptionValue("mip_feasibility_tolerance", FEASIBILITY_TOLERANCE)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    started = False
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(start, dtype=np.float64)
        sol.value_valid = True
        started = h.setSolution(sol) == highspy.HighsStatus.kOk
    t0 = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - t0
    status = h.getModelStatus()
    info = h.getInfo()
    has_x = info.primal_solution_status == 2  # kSolutionStatusFeasible
    ms = highspy.HighsModelStatus
    if status == ms.kOptimal:
        word = "optimal"
    elif status in (ms.kTimeLimit, ms.kIterationLimit, ms.kSolutionLimit, ms.kInterrupt):
        word = "time limit"
    else:
        raise EfgError(f"{what}: HiGHS ended with {h.modelStatusToString(status)}")
    x = np.asarray(h.getSolution().col_value) if has_x else None
    value = float(info.objective_function_value) if has_x else float("nan")
    return MilpResult(x, value, float(info.mip_dual_bound), float(info.mip_gap), word, seconds, started)
