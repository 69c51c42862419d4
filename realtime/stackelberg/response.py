"""The follower's side: her pure best response to a leader strategy with ties broken in
the leader's favour, the best-response values (BRVs) on her treeplex, the trunk, and
the strong Stackelberg equilibrium of a bimatrix game by multiple LPs.

Player 0 leads, player 1 follows. Values are unnormalised sequence-form values (chance
and leader reach included, the follower's own reach not): ``BRV(σ) = Σ_{I' under σ}
BRV(I') + Σ_{σ1} r1(σ1) g2(σ1, σ)``, ``BRV(I) = max_{σ ∈ A(I)} BRV(σ)`` (reading
notes §3.3).

>>> from pokerbot.efg.general_sum_games import figure1
>>> from pokerbot.efg import uniform_strategy
>>> g = figure1()
>>> x = blueprint_rows(g, 0)                 # the leader plays row 0 in both subgames
>>> r = follower_response(g.sequence_form, x)
>>> r.leader_value, r.follower_value         # stay left (1, 1), exit right (2, 2)
(1.5, 1.5)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.lp import linear_program
from pokerbot.efg.sequence_form import SequenceForm, check_strategy, to_sequence

#: Follower payoffs within this (times the payoff scale) of the best count as ties,
#: which the follower breaks in the leader's favour.
TIE_TOLERANCE = 1e-9


@njit(cache=True)
def _leader_favoured_response(
    parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray,
    follower: np.ndarray, leader: np.ndarray, tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bottom-up over the follower's treeplex: at each infoset the actions within
    ``tol`` of the best follower value tie, and the one best for the leader wins.
    Returns (follower value per sequence, leader value per sequence, choice per infoset)."""
    q2 = follower.copy()
    q1 = leader.copy()
    choice = np.empty(parent_seq.shape[0], dtype=np.int64)
    for d in range(parent_seq.shape[0] - 1, -1, -1):
        f, n = first_seq[d], num_actions[d]
        top = q2[f]
        for s in range(f + 1, f + n):
            top = max(top, q2[s])
        best = -1
        for s in range(f, f + n):
            if q2[s] >= top - tol and (best < 0 or q1[s] > q1[best]):
                best = s
        choice[d] = best - f
        q2[parent_seq[d]] += q2[best]
        q1[parent_seq[d]] += q1[best]
    return q2, q1, choice


@dataclass(frozen=True)
class FollowerResponse:
    """The follower's leader-favoured pure best response ``strategy`` (sequence form),
    ``seq_values`` = BRV per follower sequence, ``infoset_values`` = BRV per follower
    infoset, ``choice`` (action index per infoset, also where unreached), the trunk
    (infosets whose parent sequence the response plays) and both players' values."""

    strategy: np.ndarray
    seq_values: np.ndarray
    infoset_values: np.ndarray
    choice: np.ndarray
    trunk: np.ndarray
    leader_value: float
    follower_value: float


def payoff_scale(sf: SequenceForm) -> float:
    """The largest absolute entry of either payoff matrix (at least 1)."""
    return max(1.0, *(float(abs(m).max()) if m.nnz else 0.0 for m in sf.payoff))


def follower_response(sf: SequenceForm, leader: np.ndarray, tol: float = TIE_TOLERANCE) -> FollowerResponse:
    """The follower's pure best response to the leader's sequence-form strategy, ties
    (within ``tol`` times :func:`payoff_scale`) broken in the leader's favour."""
    x = np.asarray(leader, dtype=np.float64)
    check_strategy(sf.treeplex[0], x)
    tp = sf.treeplex[1]
    c2 = sf.payoff[1].T @ x
    c1 = sf.payoff[0].T @ x
    q2, q1, choice = _leader_favoured_response(tp.parent_seq, tp.first_seq, tp.num_actions, c2, c1,
                                               tol * payoff_scale(sf))
    beh = np.zeros(tp.num_seqs)
    beh[0] = 1.0
    if tp.num_infosets:
        beh[tp.first_seq + choice] = 1.0
    y = to_sequence(tp, beh)
    infoset_values = q2[tp.first_seq + choice] if tp.num_infosets else np.zeros(0)
    trunk = y[tp.parent_seq] > 0.5
    return FollowerResponse(y, q2, infoset_values, choice, trunk, float(q1[0]), float(q2[0]))


def leader_value(sf: SequenceForm, leader: np.ndarray, tol: float = TIE_TOLERANCE) -> float:
    """The leader's payoff when the follower best-responds (leader-favoured ties)."""
    return follower_response(sf, leader, tol).leader_value


def blueprint_rows(game: Game, row: int) -> np.ndarray:
    """The pure leader strategy that takes action ``row`` at every infoset (toy games)."""
    tp = game.treeplex(0)
    beh = np.zeros(tp.num_seqs)
    beh[0] = 1.0
    beh[tp.first_seq + np.minimum(row, tp.num_actions - 1)] = 1.0
    return to_sequence(tp, beh)


# --- bimatrix games ----------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixSSE:
    """A strong Stackelberg equilibrium of a bimatrix game: the leader's mixed row
    strategy, the follower's column and both values."""

    leader: np.ndarray
    column: int
    leader_value: float
    follower_value: float


def matrix_sse(leader_payoff: np.ndarray, follower_payoff: np.ndarray) -> MatrixSSE:
    """Conitzer & Sandholm's multiple LPs: for every follower column j, the leader's best
    mixed row strategy that makes j a best response; the best of these (ties between
    columns go to the leader, so this is the strong SSE).

    >>> sse = matrix_sse(np.array([[1.0, 3.0], [0.0, 2.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    >>> round(sse.leader_value, 6), sse.column      # the leader mixes 1/2-1/2 to make column 1 tie
    (2.5, 1)
    """
    a = np.asarray(leader_payoff, dtype=np.float64)
    b = np.asarray(follower_payoff, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape:
        raise EfgError(f"matrix_sse needs two matrices of one shape, got {a.shape} and {b.shape}")
    rows, cols = a.shape
    best: MatrixSSE | None = None
    for j in range(cols):
        # x @ (b[:, k] - b[:, j]) <= 0 for every column k: j is a best response
        a_ub = (b - b[:, [j]]).T
        try:
            res = linear_program(a[:, j], a_ub=a_ub, b_ub=np.zeros(cols), a_eq=np.ones((1, rows)), b_eq=np.ones(1),
                                 upper=1.0, maximize=True, what=f"SSE LP for column {j}")
        except EfgError:
            continue  # no leader strategy makes column j a best response
        if best is None or res.value > best.leader_value + 1e-12:
            x = np.clip(res.x, 0.0, None)
            x /= x.sum()
            best = MatrixSSE(x, j, float(x @ a[:, j]), float(x @ b[:, j]))
    if best is None:
        raise EfgError("matrix_sse: no column is ever a best response (malformed payoffs)")
    return best
