"""EFCE incentive constraints, exploitability per trigger, social welfare, and the
welfare-maximising EFCE by LP (Ling & Fang, Safe subgame resolving for EFCE, section
"Background and Related Work": constraints (1)-(4) and Definition 4).

A *trigger* of player i is one of her sequences ``t = (I, a!)``: she was recommended
``a!`` at ``I``. Following earns ``μ(t) = Σ_{s ⪰ t} Σ_{s'} u_i(s, s') xi[s, s']``;
deviating to ``a' ≠ a!`` and playing optimally afterwards (against the posterior
``xi[t, ·]``, recommendations below ``I`` ignored) earns ``β((I, a'); t)`` where
``β(s; t) = Σ_{s'} u_i(s, s') xi[t, s'] + Σ_{I' : σ(I') = s} ν(I'; t)`` and
``ν(I'; t) = max_a β((I', a); t)``. The exploitability is
``δ*(xi; t) = max_{a' ≠ a!} β((I, a'); t) − μ(t)``; ``xi`` is an EFCE iff every δ* ≤ 0.
In an LP, ``ν`` becomes a variable with ``ν(I'; t) >= β((I', a); t)`` for every ``a``.

>>> from pokerbot.efg.battleship import battleship
>>> from realtime.efce.plan import CorrelationSpace, uniform_plan
>>> space = CorrelationSpace.of(battleship(3, 1, timesteps=2))
>>> xi = uniform_plan(space)
>>> round(welfare(space, xi), 6), bool(max_exploitability(space, xi) < 1e-12)   # NE: an EFCE
(-0.888889, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numba import njit

from pokerbot.efg.game import Treeplex
from pokerbot.efg.lp import linear_program
from realtime.efce.plan import CorrelationSpace


def welfare(space: CorrelationSpace, xi: np.ndarray) -> float:
    """Social welfare ``Σ_p (u0 + u1)(p) xi[p]``."""
    return float(space.welfare @ xi)


def follow_values(space: CorrelationSpace, player: int, xi: np.ndarray) -> np.ndarray:
    """``μ(s)`` for every sequence of ``player`` (``μ(∅)`` is her expected payoff)."""
    tp = space.treeplex[player]
    mu = np.bincount(space.pair_seq[player], weights=space.payoff[player] * xi, minlength=tp.num_seqs)
    for d in range(tp.num_infosets - 1, -1, -1):
        f = int(tp.first_seq[d])
        mu[tp.parent_seq[d]] += mu[f : f + int(tp.num_actions[d])].sum()
    return mu


def deviation_values(space: CorrelationSpace, player: int, xi: np.ndarray, trigger: int,
                     buffer: np.ndarray | None = None) -> np.ndarray:
    """``β(s; t)`` for every sequence ``s`` of ``player`` in the subtree of the trigger's
    infoset (exact best continuation; 0 elsewhere). ``buffer``: a zero scratch array of
    ``|Σ_i|`` entries to reuse (left zero); the result is a fresh array."""
    tp = space.treeplex[player]
    d = int(tp.seq_infoset[trigger])
    first = int(tp.first_seq[d])
    own = np.arange(first, first + int(tp.num_actions[d]))
    below = _below_infoset(space, player, d)
    seqs = np.concatenate([own, space.seqs_of(player, below)])
    k, cols, u = space.leaf_terms(player, seqs, np.full(len(seqs), trigger))
    q = np.zeros(tp.num_seqs) if buffer is None else buffer
    _subtree_best_response(tp.parent_seq, tp.first_seq, tp.num_actions, seqs[k], u * xi[cols], below, q)
    out = np.zeros(tp.num_seqs)
    out[seqs] = q[seqs]
    q[seqs] = 0.0
    return out


@njit(cache=True)
def _subtree_best_response(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray,
                           at: np.ndarray, terms: np.ndarray, infosets: np.ndarray, q: np.ndarray) -> None:
    """Add ``terms`` at sequences ``at`` into ``q``, then pass each of ``infosets`` (in
    topological order) best value up to its parent sequence, bottom-up."""
    for k in range(at.shape[0]):
        q[at[k]] += terms[k]
    for m in range(infosets.shape[0] - 1, -1, -1):
        d = infosets[m]
        f = first_seq[d]
        best = q[f]
        for s in range(f + 1, f + num_actions[d]):
            if q[s] > best:
                best = q[s]
        q[parent_seq[d]] += best


def _below_infoset(space: CorrelationSpace, player: int, d: int) -> np.ndarray:
    tp = space.treeplex[player]
    first = int(tp.first_seq[d])
    parts = [space.below[player][first + a] for a in range(int(tp.num_actions[d]))]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


@dataclass(frozen=True)
class TriggerValues:
    """Per sequence ``t`` of one player: ``mu[t]``, ``beta_star[t]`` and
    ``delta[t] = beta_star[t] − mu[t]`` (``-inf`` where the infoset has one action and for ∅)."""

    mu: np.ndarray
    beta_star: np.ndarray
    delta: np.ndarray
    beta: Mapping[int, np.ndarray] = field(default_factory=dict)


def trigger_values(space: CorrelationSpace, player: int, xi: np.ndarray, triggers: np.ndarray | None = None,
                   keep: np.ndarray | None = None) -> TriggerValues:
    """Exploitability of every trigger of ``player`` (or of ``triggers``); ``keep``: the
    triggers whose whole ``β(·; t)`` vector to return in ``beta``."""
    tp = space.treeplex[player]
    mu = follow_values(space, player, xi)
    beta_star = np.full(tp.num_seqs, -np.inf)
    kept: dict[int, np.ndarray] = {}
    todo = np.arange(1, tp.num_seqs) if triggers is None else np.asarray(triggers, dtype=np.int64)
    keep_set = set() if keep is None else {int(t) for t in keep}
    buffer = np.zeros(tp.num_seqs)
    for t in todo.tolist():
        d = int(tp.seq_infoset[t])
        n = int(tp.num_actions[d])
        if n < 2:
            continue
        q = deviation_values(space, player, xi, t, buffer)
        first = int(tp.first_seq[d])
        others = [s for s in range(first, first + n) if s != t]
        beta_star[t] = q[others].max()
        if t in keep_set:
            kept[t] = q
    return TriggerValues(mu, beta_star, beta_star - mu, kept)


def product_trigger_values(space: CorrelationSpace, player: int, x_self: np.ndarray, x_other: np.ndarray,
                           keep: np.ndarray | None = None) -> TriggerValues:
    """:func:`trigger_values` of the product plan ``xi[s_i, s_-i] = x_self[s_i] x_other[s_-i]``
    without the plan: two passes over the game's leaves and ``player``'s treeplex.

    With ``L(s) = Σ_{leaves with own sequence s} u_i · x_other[s_-i]``, the follow value is
    ``μ(t) = Σ_{s ⪰ t} x_self[s] L(s)``, and since the posterior of a trigger is
    ``xi[t, s'] = x_self[t] x_other[s']``, its deviation values are
    ``β(s; t) = x_self[t] B(s)`` with ``B`` one best-response pass
    (``B(s) = L(s) + Σ_{I' below s} max_a B((I', a))``), the same for every trigger.
    ``beta`` is built per kept trigger on demand. Reads only ``space.game`` and the
    treeplexes, so ``space`` may be restricted to one subgame."""
    tp = space.treeplex[player]
    game = space.game
    z = game.terminals
    own = game.seq[player, z]
    leaf = np.bincount(own, weights=game.payoff[z, player] * x_other[game.seq[1 - player, z]], minlength=tp.num_seqs)
    mu = np.zeros(tp.num_seqs)
    _sequence_sums(tp.parent_seq, tp.first_seq, tp.num_actions, x_self * leaf, mu)
    best = np.zeros(tp.num_seqs)
    _subtree_best_response(tp.parent_seq, tp.first_seq, tp.num_actions, np.arange(tp.num_seqs), leaf,
                           np.arange(tp.num_infosets), best)
    beta_star = np.full(tp.num_seqs, -np.inf)
    _others_best(tp.first_seq, tp.num_actions, best, x_self, beta_star)
    kept = _ProductBeta(space, player, x_self, best, [] if keep is None else [int(t) for t in keep])
    return TriggerValues(mu, beta_star, beta_star - mu, kept)


@njit(cache=True)
def _sequence_sums(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray, terms: np.ndarray,
                   out: np.ndarray) -> None:
    """``out[s] = terms[s] + Σ`` over the sequences below ``s`` (bottom-up)."""
    out[:] = terms
    for d in range(parent_seq.shape[0] - 1, -1, -1):
        f = first_seq[d]
        v = 0.0
        for s in range(f, f + num_actions[d]):
            v += out[s]
        out[parent_seq[d]] += v


@njit(cache=True)
def _others_best(first_seq: np.ndarray, num_actions: np.ndarray, best: np.ndarray, scale: np.ndarray,
                 out: np.ndarray) -> None:
    """``out[t] = max_{s ≠ t at t's infoset} scale[t] * best[s]`` where the infoset has ≥ 2 actions."""
    for d in range(first_seq.shape[0]):
        f, n = first_seq[d], num_actions[d]
        if n < 2:
            continue
        for t in range(f, f + n):
            m = -np.inf
            for s in range(f, f + n):
                if s != t:
                    v = scale[t] * best[s]
                    if v > m:
                        m = v
            out[t] = m


class _ProductBeta(Mapping[int, np.ndarray]):
    """``t -> β(·; t) = x_self[t] B`` on the subtree of ``t``'s infoset (0 elsewhere), for the kept triggers."""

    def __init__(self, space: CorrelationSpace, player: int, x_self: np.ndarray, best: np.ndarray,
                 keep: list[int]) -> None:
        self._space, self._player, self._x, self._best = space, player, x_self, best
        tp = space.treeplex[player]
        self._keep = [t for t in keep if int(tp.num_actions[tp.seq_infoset[t]]) >= 2]
        self._set = set(self._keep)

    def __getitem__(self, t: int) -> np.ndarray:
        if t not in self._set:
            raise KeyError(t)
        tp = self._space.treeplex[self._player]
        d = int(tp.seq_infoset[t])
        first = int(tp.first_seq[d])
        seqs = np.concatenate([np.arange(first, first + int(tp.num_actions[d])),
                               self._space.seqs_of(self._player, _below_infoset(self._space, self._player, d))])
        out = np.zeros(tp.num_seqs)
        out[seqs] = self._x[t] * self._best[seqs]
        return out

    def __iter__(self) -> Iterator[int]:
        return iter(self._keep)

    def __len__(self) -> int:
        return len(self._keep)


def max_exploitability(space: CorrelationSpace, xi: np.ndarray) -> float:
    """``max_t δ*(xi; t)`` over both players' triggers (≤ 0 iff ``xi`` is an EFCE)."""
    return max(float(trigger_values(space, i, xi).delta.max()) for i in (0, 1))


# --- LP assembly --------------------------------------------------------------------------


class Program:
    """Rows ``A [xi; aux] <= b`` over all pairs plus auxiliary (``ν``) variables."""

    def __init__(self, num_pairs: int) -> None:
        self.num_pairs = num_pairs
        self.num_aux = 0
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.rhs: list[np.ndarray] = []
        self.num_rows = 0

    def new_aux(self, count: int) -> np.ndarray:
        """Column indices of ``count`` new free auxiliary variables."""
        out = self.num_pairs + self.num_aux + np.arange(count)
        self.num_aux += count
        return out

    def add(self, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """Add ``len(rhs)`` rows; ``rows`` are local (0 .. len(rhs)-1). Returns global row ids."""
        base = self.num_rows
        self.rows.append(np.asarray(rows, np.int64) + base)
        self.cols.append(np.asarray(cols, np.int64))
        self.vals.append(np.asarray(vals, np.float64))
        self.rhs.append(np.asarray(rhs, np.float64))
        self.num_rows += len(rhs)
        return base + np.arange(len(rhs))

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray]:
        if not self.rows:
            return sp.csr_matrix((0, self.num_pairs + self.num_aux)), np.zeros(0)
        a = sp.csr_matrix((np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols))),
                          shape=(self.num_rows, self.num_pairs + self.num_aux))
        return a, np.concatenate(self.rhs)


def value_terms(space: CorrelationSpace, player: int, seqs: np.ndarray, column_seq: np.ndarray | None,
                row_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """COO ``(row, pair, u)`` of the leaf payoffs of ``seqs`` on pairs with
    ``column_seq`` (``None``: the sequences themselves, i.e. follow values), each
    assigned to ``row_of[k]``."""
    k, cols, u = space.leaf_terms(player, seqs, seqs if column_seq is None else column_seq)
    return row_of[k], cols, u


def add_deviation_rows(prog: Program, space: CorrelationSpace, player: int, trigger: int,
                       infosets: np.ndarray) -> dict[int, int]:
    """``ν(I'; t) >= β((I', a); t)`` for every ``I'`` in ``infosets`` (closed under
    descendants) and action ``a``. Returns the ``ν`` column of each infoset."""
    tp = space.treeplex[player]
    if len(infosets) == 0:
        return {}
    nu = dict(zip(infosets.tolist(), prog.new_aux(len(infosets)).tolist(), strict=True))
    seqs = space.seqs_of(player, infosets)
    local = np.arange(len(seqs))
    r, c, v = value_terms(space, player, seqs, np.full(len(seqs), trigger), local)
    rows, cols, vals = [r], [c], [v]
    own = np.asarray([nu[int(d)] for d in tp.seq_infoset[seqs]])
    rows.append(local)
    cols.append(own)
    vals.append(-np.ones(len(seqs)))
    ch_r, ch_c = _children_nu(tp, seqs, nu)
    rows.append(ch_r)
    cols.append(ch_c)
    vals.append(np.ones(len(ch_r)))
    prog.add(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), np.zeros(len(seqs)))
    return nu


def _children_nu(tp: Treeplex, seqs: np.ndarray, nu: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = [], []
    for k, s in enumerate(seqs.tolist()):
        for d in tp.children[s]:
            if d in nu:
                rows.append(k)
                cols.append(nu[d])
    return np.asarray(rows, np.int64), np.asarray(cols, np.int64)


def add_trigger_rows(prog: Program, space: CorrelationSpace, player: int, trigger: int, slack: float) -> None:
    """The incentive constraints of trigger ``t``: ``β((I, a'); t) − μ(t) <= slack`` for
    every ``a' ≠ a!``, with the deviation rows of every infoset below ``I``."""
    tp = space.treeplex[player]
    d = int(tp.seq_infoset[trigger])
    first, n = int(tp.first_seq[d]), int(tp.num_actions[d])
    alts = np.asarray([s for s in range(first, first + n) if s != trigger], np.int64)
    if len(alts) == 0:
        return
    dev = np.concatenate([space.below[player][s] for s in alts])
    nu = add_deviation_rows(prog, space, player, trigger, dev)
    local = np.arange(len(alts))
    rows, cols, vals = [], [], []
    r, c, v = value_terms(space, player, alts, np.full(len(alts), trigger), local)
    rows += [r]
    cols += [c]
    vals += [v]
    ch_r, ch_c = _children_nu(tp, alts, nu)
    rows += [ch_r]
    cols += [ch_c]
    vals += [np.ones(len(ch_r))]
    follow = np.concatenate([[trigger], space.seqs_of(player, space.below[player][trigger])]).astype(np.int64)
    r, c, v = value_terms(space, player, follow, None, np.zeros(len(follow), np.int64))
    for k in local:  # − μ(t) on every row
        rows.append(np.full(len(c), k))
        cols.append(c)
        vals.append(-v)
    prog.add(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), np.full(len(alts), slack))


@dataclass(frozen=True)
class EfceResult:
    plan: np.ndarray
    welfare: float


def max_welfare_efce(space: CorrelationSpace) -> EfceResult:
    """An EFCE maximising social welfare (one LP over the whole correlation polytope)."""
    prog = Program(space.num_pairs)
    for i in (0, 1):
        for t in range(1, space.treeplex[i].num_seqs):
            add_trigger_rows(prog, space, i, t, 0.0)
    a_ub, b_ub = prog.matrix()
    a_eq, b_eq = space.polytope()
    n_aux = prog.num_aux
    a_eq = sp.hstack([a_eq, sp.csr_matrix((a_eq.shape[0], n_aux))]).tocsr()
    c = np.concatenate([space.welfare, np.zeros(n_aux)])
    lower = np.concatenate([np.zeros(space.num_pairs), np.full(n_aux, -np.inf)])
    res = linear_program(c, a_ub=a_ub, b_ub=b_ub, a_eq=a_eq, b_eq=b_eq, lower=lower, maximize=True,
                         what="max-welfare EFCE")
    plan = np.maximum(res.x[: space.num_pairs], 0.0)
    return EfceResult(plan, welfare(space, plan))
