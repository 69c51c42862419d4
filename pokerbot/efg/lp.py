"""Linear and mixed-integer programs through HiGHS (``scipy.optimize``), and the
sequence-form programs built on them: maxmin (Nash in zero-sum games), game values,
and least-exploitable strategies under per-action probability floors (the KLSS paper's
ε-blueprints).

The maxmin LP for player ``i`` with payoff matrix ``M`` (her sequences as rows) and the
opponent's treeplex ``{y >= 0 : F y = f}``::

    max_{x, v}  f @ v      s.t.   F.T @ v <= M.T @ x,   E x = e,   x >= 0,
                                  x[s] >= floor[s] * x[parent(s)]      (optional floors)

(the inner ``min_y x M y`` replaced by its LP dual).

>>> from pokerbot.efg.games import kuhn
>>> sol = maxmin(kuhn().sequence_form, 0)
>>> round(sol.value, 6) == round(-1 / 18, 6)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from pokerbot.efg.game import EfgError, Treeplex
from pokerbot.efg.sequence_form import SequenceForm, constraint_matrix, to_behavioral, to_sequence


@dataclass(frozen=True)
class ProgramResult:
    """An optimal point and value of a (MI)LP (``value`` in the caller's sense: the
    maximum when maximising)."""

    x: np.ndarray
    value: float


def linear_program(
    c: np.ndarray,
    *,
    a_ub: sp.spmatrix | None = None,
    b_ub: np.ndarray | None = None,
    a_eq: sp.spmatrix | None = None,
    b_eq: np.ndarray | None = None,
    lower: np.ndarray | float = 0.0,
    upper: np.ndarray | float = np.inf,
    integrality: np.ndarray | None = None,
    maximize: bool = False,
    what: str = "program",
    method: str = "highs",
) -> ProgramResult:
    """Solve ``min/max c @ x`` subject to ``a_ub x <= b_ub``, ``a_eq x = b_eq``,
    ``lower <= x <= upper`` with HiGHS; ``integrality[k] = 1`` makes ``x[k]`` integer (MILP).
    ``method`` (LPs): ``"highs"`` (HiGHS chooses; dual simplex here), ``"highs-ds"`` or
    ``"highs-ipm"`` (interior point, then crossover). Where the optimum is not unique they
    may return different optimal points.

    Raises :class:`EfgError` naming ``what`` if HiGHS finds no optimum.
    """
    c = np.asarray(c, dtype=np.float64)
    sign = -1.0 if maximize else 1.0
    n = len(c)
    lo = np.broadcast_to(np.asarray(lower, dtype=np.float64), (n,))
    hi = np.broadcast_to(np.asarray(upper, dtype=np.float64), (n,))
    if integrality is not None and np.any(integrality):
        cons = []
        if a_ub is not None:
            cons.append(LinearConstraint(a_ub, -np.inf, b_ub))
        if a_eq is not None:
            cons.append(LinearConstraint(a_eq, b_eq, b_eq))
        res = milp(sign * c, constraints=cons, integrality=integrality, bounds=Bounds(lo, hi))
    else:
        res = linprog(
            sign * c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq,
            bounds=np.column_stack([lo, hi]), method=method,
        )
    if res.status != 0 or res.x is None:
        raise EfgError(f"{what}: HiGHS found no optimum ({res.message})")
    return ProgramResult(np.asarray(res.x), sign * float(res.fun))


def mixed_integer_program(c: np.ndarray, integrality: np.ndarray, **kwargs: Any) -> ProgramResult:
    """:func:`linear_program` with integer variables where ``integrality`` is 1."""
    return linear_program(c, integrality=integrality, **kwargs)


# --- floors ----------------------------------------------------------------------------


def uniform_floor(tp: Treeplex, epsilon: float, skip: Iterable[int] = ()) -> np.ndarray:
    """The ε-uniform floor: every action of infoset ``d`` at least ``ε / m_d`` (``m_d`` its
    action count), except at the infosets in ``skip``."""
    if not 0.0 <= epsilon <= 1.0:
        raise EfgError(f"epsilon must be in [0, 1], got {epsilon}")
    floor = np.concatenate(([0.0], np.repeat(epsilon / tp.num_actions, tp.num_actions)))
    for d in skip:
        f = int(tp.first_seq[d])
        floor[f : f + int(tp.num_actions[d])] = 0.0
    return floor


def action_floor(tp: Treeplex, epsilon: float, labels: Iterable[str], skip: Iterable[int] = ()) -> np.ndarray:
    """The ε-uniform floor (``ε / m_d``) on the actions whose label is in ``labels`` only,
    0 elsewhere and at the infosets in ``skip``: Table 1's ε-bet / ε-fold blueprints
    (this reading reproduces the table's Kuhn ε-bet .0035, Leduc ε-bet .0097 and
    ε-fold .0065 blueprint figures; a floor of ε itself gives .0069, .035, .019)."""
    uniform = uniform_floor(tp, epsilon, skip)
    wanted = set(labels)
    mask = np.zeros(tp.num_seqs, dtype=bool)
    for d in range(tp.num_infosets):
        for a, lab in enumerate(tp.labels[d]):
            mask[int(tp.first_seq[d]) + a] = lab in wanted
    return np.where(mask, uniform, 0.0)


def _floor_rows(tp: Treeplex, floor: np.ndarray) -> sp.csr_matrix:
    """Rows ``floor[s] x[parent(s)] - x[s] <= 0`` for every ``s`` with a positive floor."""
    s = np.flatnonzero(floor > 0)
    k = len(s)
    rows = np.concatenate([np.arange(k), np.arange(k)])
    cols = np.concatenate([tp.seq_parent[s], s])
    vals = np.concatenate([floor[s], -np.ones(k)])
    return sp.csr_matrix((vals, (rows, cols)), shape=(k, tp.num_seqs))


def check_floor(tp: Treeplex, floor: np.ndarray) -> None:
    floor = np.asarray(floor, dtype=np.float64)
    if floor.shape != (tp.num_seqs,) or floor.min(initial=0.0) < 0:
        raise EfgError(f"floor needs {tp.num_seqs} non-negative entries")
    sums = np.add.reduceat(floor[1:], tp.first_seq - 1) if tp.num_infosets else np.zeros(0)
    if (sums > 1 + 1e-12).any():
        d = int(np.argmax(sums))
        raise EfgError(f"floors at infoset {d} sum to {sums[d]:.3f} > 1: no strategy satisfies them")


# --- maxmin / Nash ---------------------------------------------------------------------


@dataclass(frozen=True)
class MaxminResult:
    """``strategy``: sequence form (cleaned through the behavioural form); ``value``: the LP
    optimum (what the strategy guarantees); ``behavioral``: the same strategy behaviourally."""

    strategy: np.ndarray
    behavioral: np.ndarray
    value: float


def maxmin_matrix(me: Treeplex, opponent: Treeplex, payoff: sp.spmatrix, floor: np.ndarray | None = None,
                  what: str = "maxmin LP", method: str = "highs") -> MaxminResult:
    """``max_x min_y x @ payoff @ y`` over the two treeplexes (``payoff`` rows = ``me``)."""
    payoff = sp.csr_matrix(payoff)
    if payoff.shape != (me.num_seqs, opponent.num_seqs):
        raise EfgError(f"{what}: payoff is {payoff.shape}, treeplexes need {(me.num_seqs, opponent.num_seqs)}")
    nx = me.num_seqs
    f_opp, e_opp = constraint_matrix(opponent)
    f_me, e_me = constraint_matrix(me)
    nv = f_opp.shape[0]
    # F_opp.T v - payoff.T x <= 0
    a_ub = sp.hstack([-payoff.T, f_opp.T]).tocsr()
    b_ub = np.zeros(opponent.num_seqs)
    if floor is not None:
        check_floor(me, floor)
        rows = _floor_rows(me, np.asarray(floor, dtype=np.float64))
        a_ub = sp.vstack([a_ub, sp.hstack([rows, sp.csr_matrix((rows.shape[0], nv))])]).tocsr()
        b_ub = np.concatenate([b_ub, np.zeros(rows.shape[0])])
    a_eq = sp.hstack([f_me, sp.csr_matrix((f_me.shape[0], nv))]).tocsr()
    c = np.concatenate([np.zeros(nx), e_opp])
    lower = np.concatenate([np.zeros(nx), np.full(nv, -np.inf)])
    res = linear_program(c, a_ub=a_ub, b_ub=b_ub, a_eq=a_eq, b_eq=e_me, lower=lower, maximize=True, what=what,
                         method=method)
    beh = to_behavioral(me, res.x[:nx])
    return MaxminResult(to_sequence(me, beh), beh, res.value)


def maxmin(sf: SequenceForm, player: int, floor: np.ndarray | None = None) -> MaxminResult:
    """Player ``player``'s maxmin strategy for her own payoff (a Nash strategy in zero-sum
    games), optionally under per-sequence behavioural floors."""
    return maxmin_matrix(sf.treeplex[player], sf.treeplex[1 - player], sf.oriented(player), floor,
                         what=f"maxmin LP for player {player}")


def least_exploitable(sf: SequenceForm, player: int, floor: np.ndarray) -> MaxminResult:
    """The least-exploitable strategy whose every action ``s`` has behavioural probability
    at least ``floor[s]`` (zero-sum games)."""
    return maxmin(sf, player, floor)


@dataclass(frozen=True)
class NashResult:
    strategies: tuple[np.ndarray, np.ndarray]
    #: Player 0's game value.
    value: float


def nash_equilibrium(sf: SequenceForm) -> NashResult:
    """A Nash equilibrium of a zero-sum sequence form, by one maxmin LP per player."""
    if not sf.is_zero_sum:
        raise EfgError("nash_equilibrium needs a zero-sum game (use maxmin for security strategies)")
    a = maxmin(sf, 0)
    b = maxmin(sf, 1)
    if abs(a.value + b.value) > 1e-6 * max(1.0, abs(a.value)):
        raise EfgError(f"maxmin values {a.value} and {-b.value} disagree: the LPs did not solve")
    return NashResult((a.strategy, b.strategy), a.value)


def game_value(sf: SequenceForm) -> float:
    """Player 0's value of a zero-sum sequence form (one LP, remembered on the object)."""
    cached = sf.__dict__.get("_game_value")
    if cached is None:
        if not sf.is_zero_sum:
            raise EfgError("game_value needs a zero-sum game")
        cached = maxmin(sf, 0).value
        sf.__dict__["_game_value"] = cached  # frozen dataclass: cache beside its cached properties
    return float(cached)
