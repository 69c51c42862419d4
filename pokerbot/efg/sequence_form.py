"""Sequence form: treeplex constraints, sparse payoff matrices, strategy conversions,
best responses and exploitability.

A :class:`SequenceForm` is what the linear programs need and nothing more: both players'
treeplexes and, per player ``i``, the sparse matrix ``payoff[i]`` of shape
``(|Σ_0|, |Σ_1|)`` with ``payoff[i][s0, s1] = Σ_z p(z) u_i(z)`` over the terminals ``z``
whose sequences are ``(s0, s1)`` (p = chance reach). Expected payoffs are bilinear:
``u_i(x, y) = x @ payoff[i] @ y``. Gadget games (real-time subgames) are sequence forms
too, built without a tree.

>>> from pokerbot.efg.games import kuhn
>>> sf = kuhn().sequence_form
>>> sf.num_seqs, sf.payoff[0].shape
((13, 13), (13, 13))
>>> x = uniform_strategy(sf.treeplex[0]); y = uniform_strategy(sf.treeplex[1])
>>> round(float(x @ sf.payoff[0] @ y), 4)   # Kuhn uniform vs uniform, player 0 (chips)
0.125
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numba import njit

from pokerbot.efg.game import EfgError, Game, Treeplex


@dataclass(frozen=True)
class SequenceForm:
    """Two treeplexes and one sparse payoff matrix per player (rows: player 0's sequences)."""

    treeplex: tuple[Treeplex, Treeplex]
    payoff: tuple[sp.csr_matrix, sp.csr_matrix]

    @property
    def num_seqs(self) -> tuple[int, int]:
        return (self.treeplex[0].num_seqs, self.treeplex[1].num_seqs)

    def oriented(self, player: int) -> sp.csr_matrix:
        """Player ``player``'s payoff with her sequences as rows."""
        m = self.payoff[player]
        return m if player == 0 else m.T.tocsr()

    @cached_property
    def is_zero_sum(self) -> bool:
        return bool(abs(self.payoff[0] + self.payoff[1]).max() < 1e-12) if self.payoff[0].nnz else True


def game_sequence_form(game: Game) -> SequenceForm:
    """The sequence form of an explicit game (``game.sequence_form`` caches it)."""
    z = game.terminals
    shape = (game.treeplex(0).num_seqs, game.treeplex(1).num_seqs)
    mats = []
    for i in (0, 1):
        m = sp.coo_matrix((game.chance_reach[z] * game.payoff[z, i], (game.seq[0, z], game.seq[1, z])), shape=shape)
        mats.append(m.tocsr())  # duplicates are summed
    return SequenceForm((game.treeplex(0), game.treeplex(1)), (mats[0], mats[1]))


# --- constraints -----------------------------------------------------------------------


def constraint_matrix(tp: Treeplex) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(F, f)`` with the treeplex as ``{x >= 0 : F x = f}``: row 0 is ``x[∅] = 1``,
    row ``1 + d`` is ``Σ_a x[d, a] - x[parent_seq[d]] = 0`` (built once per treeplex)."""
    cached = tp.__dict__.get("_constraints")
    if cached is not None:
        return cached
    d_count = tp.num_infosets
    seqs = np.arange(1, tp.num_seqs)
    rows = np.concatenate([[0], 1 + tp.seq_infoset[1:], 1 + np.arange(d_count)])
    cols = np.concatenate([[0], seqs, tp.parent_seq])
    vals = np.concatenate([[1.0], np.ones(len(seqs)), -np.ones(d_count)])
    mat = sp.csr_matrix((vals, (rows, cols)), shape=(1 + d_count, tp.num_seqs))
    rhs = np.zeros(1 + d_count)
    rhs[0] = 1.0
    tp.__dict__["_constraints"] = (mat, rhs)  # frozen dataclass: cache beside the cached properties
    return mat, rhs


def check_strategy(tp: Treeplex, x: np.ndarray, tol: float = 1e-7) -> None:
    """Raise :class:`EfgError` unless ``x`` is a sequence-form strategy of ``tp``."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (tp.num_seqs,):
        raise EfgError(f"strategy has {x.shape} entries, the treeplex has {tp.num_seqs} sequences")
    err = abs(x[0] - 1.0)
    if tp.num_infosets:
        sums = np.add.reduceat(x[1:], tp.first_seq - 1)
        err = max(err, float(np.abs(sums - x[tp.parent_seq]).max()))
    if err > tol or x.min(initial=0.0) < -tol:
        raise EfgError(f"not a sequence-form strategy (constraint violation {err:.2e}, min {x.min():.2e})")


# --- conversions -----------------------------------------------------------------------


@njit(cache=True)
def _seq_from_beh(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray, beh: np.ndarray) -> np.ndarray:
    x = np.empty(beh.shape[0])
    x[0] = 1.0
    for d in range(parent_seq.shape[0]):
        base = x[parent_seq[d]]
        for s in range(first_seq[d], first_seq[d] + num_actions[d]):
            x[s] = base * beh[s]
    return x


@njit(cache=True)
def _beh_from_seq(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray, x: np.ndarray) -> np.ndarray:
    beh = np.empty(x.shape[0])
    beh[0] = 1.0
    for d in range(parent_seq.shape[0]):
        f, n = first_seq[d], num_actions[d]
        total = 0.0
        for s in range(f, f + n):
            total += max(x[s], 0.0)
        for s in range(f, f + n):
            beh[s] = max(x[s], 0.0) / total if total > 0.0 else 1.0 / n
    return beh


def to_sequence(tp: Treeplex, beh: np.ndarray) -> np.ndarray:
    """Sequence form of a behavioural strategy (``beh[s]`` = probability of ``s``'s action)."""
    return _seq_from_beh(tp.parent_seq, tp.first_seq, tp.num_actions, np.asarray(beh, dtype=np.float64))


def to_behavioral(tp: Treeplex, x: np.ndarray) -> np.ndarray:
    """Behavioural strategy of a sequence-form one (uniform where ``x`` never reaches).

    Small negative entries (LP round-off) are clipped, so ``to_sequence(tp,
    to_behavioral(tp, x))`` is a clean strategy close to ``x``.
    """
    return _beh_from_seq(tp.parent_seq, tp.first_seq, tp.num_actions, np.asarray(x, dtype=np.float64))


def uniform_strategy(tp: Treeplex) -> np.ndarray:
    """The sequence form of the uniform behavioural strategy."""
    return to_sequence(tp, 1.0 / np.concatenate(([1.0], np.repeat(tp.num_actions, tp.num_actions))))


# --- best responses --------------------------------------------------------------------


@njit(cache=True)
def _treeplex_best_response(
    parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray, c: np.ndarray, sign: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximise ``sign * c @ y`` over the treeplex; returns (Q per sequence, V per infoset, pure choice)."""
    q = c * sign
    v = np.empty(parent_seq.shape[0])
    choice = np.empty(parent_seq.shape[0], dtype=np.int64)
    for d in range(parent_seq.shape[0] - 1, -1, -1):
        f, n = first_seq[d], num_actions[d]
        best = f
        for s in range(f + 1, f + n):
            if q[s] > q[best]:
                best = s
        v[d] = q[best]
        choice[d] = best - f
        q[parent_seq[d]] += q[best]
    return q * sign, v * sign, choice


@dataclass(frozen=True)
class BestResponse:
    """The optimum of a linear objective over a treeplex.

    ``value``: the optimum; ``seq_values[s]``: the optimum given sequence ``s`` is played
    (counterfactual value of ``s``: its own payoff term plus its subtree's optimum);
    ``infoset_values[d]``; ``strategy``: a pure optimal sequence-form strategy.
    """

    value: float
    seq_values: np.ndarray
    infoset_values: np.ndarray
    strategy: np.ndarray


def optimize_linear(tp: Treeplex, c: np.ndarray, maximize: bool = True) -> BestResponse:
    """Best pure strategy for ``c @ y`` over ``tp`` (maximise or minimise)."""
    c = np.asarray(c, dtype=np.float64)
    if c.shape != (tp.num_seqs,):
        raise EfgError(f"objective has {c.shape} entries, the treeplex has {tp.num_seqs} sequences")
    q, v, choice = _treeplex_best_response(tp.parent_seq, tp.first_seq, tp.num_actions, c, 1.0 if maximize else -1.0)
    beh = np.zeros(tp.num_seqs)
    beh[0] = 1.0
    if tp.num_infosets:
        beh[tp.first_seq + choice] = 1.0
    return BestResponse(float(q[0]), q, v, to_sequence(tp, beh))


def best_response(sf: SequenceForm, player: int, opponent: np.ndarray) -> BestResponse:
    """Player ``player``'s best response (maximising her own payoff) to the opponent's
    sequence-form strategy."""
    other = 1 - player
    check_strategy(sf.treeplex[other], opponent)
    c = sf.oriented(player) @ np.asarray(opponent, dtype=np.float64)
    return optimize_linear(sf.treeplex[player], c, maximize=True)


def worst_case_value(sf: SequenceForm, player: int, strategy: np.ndarray) -> float:
    """``min_y u_player(strategy, y)``: what the strategy guarantees against any opponent."""
    check_strategy(sf.treeplex[player], strategy)
    c = sf.oriented(player).T @ np.asarray(strategy, dtype=np.float64)
    return optimize_linear(sf.treeplex[1 - player], c, maximize=False).value


def expected_payoffs(sf: SequenceForm, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(u_0(x, y), u_1(x, y))``."""
    return (float(x @ (sf.payoff[0] @ y)), float(x @ (sf.payoff[1] @ y)))


def exploitability(sf: SequenceForm, player: int, strategy: np.ndarray, value: float) -> float:
    """Zero-sum exploitability of one player's strategy: ``value - min_y u_player``,
    where ``value`` is the player's game value (see :func:`pokerbot.efg.lp.game_value`)."""
    return value - worst_case_value(sf, player, strategy)


# --- observation-infoset values in a game tree ------------------------------------------


@njit(cache=True)
def _obs_best_response(
    obs_parent: np.ndarray,
    obs_parent_seq: np.ndarray,
    obs_decision: np.ndarray,
    first_seq: np.ndarray,
    num_actions: np.ndarray,
    leaf: np.ndarray,
    num_seqs: int,
    sign: float,
) -> tuple[np.ndarray, np.ndarray]:
    m = obs_parent.shape[0]
    passive = leaf * sign
    acc = np.zeros(num_seqs)
    v = np.empty(m)
    for j in range(m - 1, -1, -1):
        total = passive[j]
        d = obs_decision[j]
        if d >= 0:
            f = first_seq[d]
            best = acc[f]
            for s in range(f + 1, f + num_actions[d]):
                if acc[s] > best:
                    best = acc[s]
            total += best
        v[j] = total
        p = obs_parent[j]
        if p >= 0:
            if obs_parent_seq[j] >= 0:
                acc[obs_parent_seq[j]] += total
            else:
                passive[p] += total
    return v * sign, acc * sign


@dataclass(frozen=True)
class ObservationValues:
    """Counterfactual best-response values at every observation infoset of the responder.

    With ``π`` the opponent's (and chance's) reach: ``values[J] = opt_y Σ_{z below J}
    u(z) p(z) π(z) y(z)`` (unnormalised), ``seq_values[s]`` the same after playing ``s``
    at its infoset, ``mass[J] = Σ_{h in J} p(h) π(h)`` (divide by it to normalise).
    """

    values: np.ndarray
    seq_values: np.ndarray
    mass: np.ndarray


def observation_values(game: Game, responder: int, opponent: np.ndarray, payoff_player: int,
                       maximize: bool) -> ObservationValues:
    """Best-response values of ``responder`` against the opponent's sequence form, for the
    payoff of ``payoff_player``, at every observation infoset of the responder (the
    responder maximises or minimises that payoff)."""
    other = 1 - responder
    opp = np.asarray(opponent, dtype=np.float64)
    check_strategy(game.treeplex(other), opp)
    info = game.info[responder]
    reach = game.chance_reach * opp[game.seq[other]]
    z = game.terminals
    leaf = np.bincount(game.obs[responder, z], weights=game.payoff[z, payoff_player] * reach[z], minlength=info.num_obs)
    mass = np.bincount(game.obs[responder], weights=reach, minlength=info.num_obs)
    tp = info.treeplex
    v, q = _obs_best_response(
        info.obs_parent, info.obs_parent_seq, info.obs_decision, tp.first_seq, tp.num_actions,
        leaf, tp.num_seqs, 1.0 if maximize else -1.0,
    )
    return ObservationValues(v, q, mass)
