"""Safe refinement by regret minimisation (Ling & Fang, Safe subgame resolving for EFCE,
Algorithm 2 and Appendices E-F).

The LP refinement's constraints (A)-(C) (:func:`realtime.efce.subgames.refinement_program`)
become a bilinear saddle point ``min_{xi in Ξ_j} max_{z in Z} xi^T M z + c^T z``:

- the **deviator** picks one constraint row (the multipliers λ: a simplex over the rows)
  and, below it, a best-deviating continuation for every ``ν`` the row uses — the ``ν``
  variables of the LP become the infosets of a treeplex ``Z`` (each ``ν`` row is an
  action), so ``max_z`` is the largest constraint violation with exact ``ν``: the
  **pseudo-exploitability** (the paper's Fig. 2 metric; ≤ 0 iff the plan meets (A)-(C));
- the **mediator** picks ``xi`` in ``Ξ_j`` (blueprint on ``S0``), written as a chain of
  scaled extensions (Farina et al. 2019b): *expansions* ``xi[(I, ·), s'] = xi[s, s'] · y``
  with ``y`` in a simplex, and *fills* ``xi[s, s'] = Σ_a xi[(I*, a), s']`` over the
  critical infoset ``I*``. The order is Farina et al.'s (critical player first) with the
  paper's tie-break (expand pre-subgame pairs first, Theorem 3), so no fill ever lands
  on a blueprint-fixed pair; :func:`scaled_extensions` checks that.

Both sides run regret matching+ at every simplex (the deviator is CFR+ on ``Z``; the
mediator is the scaled-extension regret circuit: top-down recommend, bottom-up loss),
alternating updates, linearly weighted averages. The average plan's pseudo-exploitability
tends to the saddle value ``v* = min_xi max violation`` (≤ 0: the blueprint is feasible),
which :func:`violation_lp` computes exactly by LP on small instances.

>>> from realtime.efce.battleship import instance
>>> from realtime.efce.plan import uniform_plan
>>> from realtime.efce.subgames import Blueprint
>>> dec, j = instance(3, 2, 2.0)
>>> res = regret_refine(dec, Blueprint.of(dec, uniform_plan(dec.space)), j, iterations=200)
>>> bool(res.pseudo_exploitability[-1] < 1e-3)
True
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from pokerbot.efg.game import EfgError, Treeplex
from pokerbot.efg.lp import linear_program
from pokerbot.efg.sequence_form import optimize_linear
from realtime.efce.subgames import Blueprint, Decomposition, RefinementProgram, refinement_program, subgame_welfare

EXPAND = 0
FILL = 1


# --- the mediator: Ξ_j as a chain of scaled extensions ------------------------------------


@dataclass(frozen=True)
class ScaledExtensions:
    """``Ξ_j`` as ops over local entries (``pairs[k]``: the space's pair of entry ``k``).

    Op ``o`` of ``kind[o]``: EXPAND (one source, targets = a simplex scaled by the source)
    or FILL (sources summed into one target); ``src[src_ptr[o]:src_ptr[o+1]]`` and
    ``tgt[tgt_ptr[o]:tgt_ptr[o+1]]`` are local entries. Ops are in top-down order; every
    free entry (``free[k]``: in ``S_j``) is the target of exactly one op; the others
    hold the blueprint."""

    pairs: np.ndarray
    free: np.ndarray
    kind: np.ndarray
    src_ptr: np.ndarray
    src: np.ndarray
    tgt_ptr: np.ndarray
    tgt: np.ndarray

    @property
    def num_ops(self) -> int:
        return len(self.kind)

    def plan(self, local: np.ndarray, blueprint: np.ndarray) -> np.ndarray:
        """The complete plan: ``blueprint`` with the local entries written back."""
        out = blueprint.copy()
        out[self.pairs] = local
        return out


def scaled_extensions(dec: Decomposition, j: int, *, prefer_pre_subgame: bool = True) -> ScaledExtensions:
    """Decompose ``Ξ_j`` (module docstring). :class:`EfgError` if neither player is
    critical at some pair (a game with chance), or a fill would set a blueprint pair.
    ``prefer_pre_subgame=False`` drops the paper's tie-break (lower player first): the
    negative control of Appendix F's Chicken example."""
    space = dec.space
    tps = space.treeplex
    conn: tuple[list[set[int]], list[set[int]]] = ([set() for _ in range(tps[0].num_infosets)],
                                                   [set() for _ in range(tps[1].num_infosets)])
    for d0, d1 in space.connected.tolist():
        conn[0][d0].add(d1)
        conn[1][d1].add(d0)
    inf_sub = (dec.infoset_sub[0].tolist(), dec.infoset_sub[1].tolist())
    seq_inf = (tps[0].seq_infoset.tolist(), tps[1].seq_infoset.tolist())
    first = (tps[0].first_seq.tolist(), tps[1].first_seq.tolist())
    nact = (tps[0].num_actions.tolist(), tps[1].num_actions.tolist())
    keep = (dec.pair_sub == -1) | (dec.pair_sub == j)
    pairs = np.flatnonzero(keep)
    local_of = np.full(space.num_pairs, -1, np.int64)
    local_of[pairs] = np.arange(len(pairs))
    free = dec.pair_sub[pairs] == j
    n1 = tps[1].num_seqs
    key_local = dict(zip((space.keys[pairs]).tolist(), range(len(pairs)), strict=True))
    done = np.zeros(len(pairs), bool)
    kind: list[int] = []
    srcs: list[list[int]] = []
    tgts: list[list[int]] = []

    def loc(p: int, s_p: int, s_o: int) -> int:
        """Local entry of the pair with player p's sequence s_p (-1: other subgame / not relevant)."""
        s0, s1 = (s_p, s_o) if p == 0 else (s_o, s_p)
        return key_local.get(s0 * n1 + s1, -1)

    def seqs(p: int, d: int) -> range:
        return range(first[p][d], first[p][d] + nact[p][d])

    def relevant(p: int, s_p: int, d_o: int) -> bool:
        """Player p's sequence s_p and the opponent's infoset d_o are relevant."""
        return s_p == 0 or d_o in conn[p][seq_inf[p][s_p]]

    def mark(targets: list[int]) -> None:
        for t in targets:
            if done[t]:
                raise EfgError(f"scaled extensions: pair {int(pairs[t])} produced twice")
            done[t] = True

    def expand(source: int, targets: list[int]) -> bool:
        """Emit the expansion (if its targets are free); False if they lie outside Ξ_j."""
        if min(targets) < 0:
            if max(targets) >= 0:
                raise EfgError("scaled extensions: an infoset's block straddles Ξ_j")
            return False
        mark(targets)
        if free[targets[0]]:
            kind.append(EXPAND)
            srcs.append([source])
            tgts.append(targets)
        return True

    def fill(target: int, sources: list[int]) -> None:
        if target < 0:  # another subgame's pair: not part of Ξ_j
            if any(s >= 0 and free[s] for s in sources):
                raise EfgError("scaled extensions: a pair outside Ξ_j would be a sum of refined pairs")
            return
        mark([target])
        if free[target]:
            if min(sources) < 0:
                raise EfgError("scaled extensions: a fill of a refined pair reads outside Ξ_j")
            kind.append(FILL)
            srcs.append(sources)
            tgts.append([target])
        elif any(s >= 0 and free[s] for s in sources):
            raise EfgError(f"scaled extensions: pair {int(pairs[target])} of the blueprint would be a sum of refined pairs")

    def other_side(p: int, s_p: int, s_o: int, star: int) -> None:
        """Pairs (s_p, s') for the opponent's s' strictly below s_o, given the rows of
        player p's critical infoset ``star`` (-1: none) are done."""
        o = 1 - p
        for d in tps[o].children[s_o]:
            if not relevant(p, s_p, d):
                continue
            if star >= 0 and d in conn[p][star]:
                for b in seqs(o, d):
                    t = loc(p, s_p, b)
                    fill(t, [loc(p, a, b) for a in seqs(p, star)])
                for b in seqs(o, d):
                    if loc(p, s_p, b) >= 0:
                        other_side(p, s_p, b, star)
            else:
                src = loc(p, s_p, s_o)
                if expand(src, [loc(p, s_p, b) for b in seqs(o, d)]):
                    for b in seqs(o, d):
                        decompose(p, s_p, b)

    def decompose(p0: int, s_a: int, s_b: int) -> None:
        """All pairs strictly below (s0, s1) (player p0 holds s_a), given (s0, s1) is done."""
        s = (s_a, s_b) if p0 == 0 else (s_b, s_a)
        cand = [[d for d in tps[i].children[s[i]] if relevant(1 - i, s[1 - i], d)] for i in (0, 1)]
        crit = [[d for d in cand[i] if conn[i][d].intersection(cand[1 - i])] for i in (0, 1)]
        options = [i for i in (0, 1) if len(crit[i]) <= 1]
        if not options:
            raise EfgError("scaled extensions: no critical player (a game with chance?)")
        # Tie-break (Theorem 3): prefer no fills, then a pre-subgame critical infoset.
        if prefer_pre_subgame:
            p = min(options, key=lambda i: (len(crit[i]) > 0, bool(crit[i]) and inf_sub[i][crit[i][0]] != -1, i))
        else:
            p = min(options)
        star = crit[p][0] if crit[p] else -1
        o = 1 - p
        for d in cand[p]:
            targets = [loc(p, a, s[o]) for a in seqs(p, d)]
            if expand(loc(p, s[p], s[o]), targets):
                for a in seqs(p, d):
                    decompose(p, a, s[o])
        other_side(p, s[p], s[o], star)

    root = int(local_of[space.index(0, 0)])
    done[root] = True
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        decompose(0, 0, 0)
    finally:
        sys.setrecursionlimit(limit)
    if not done[free].all():
        raise EfgError(f"scaled extensions: {int((~done[free]).sum())} refined pairs were never produced")
    return ScaledExtensions(pairs, free, np.asarray(kind, np.int64), _ptr(srcs), _flat(srcs), _ptr(tgts), _flat(tgts))


def _ptr(lists: list[list[int]]) -> np.ndarray:
    return np.concatenate(([0], np.cumsum([len(v) for v in lists]))).astype(np.int64)


def _flat(lists: list[list[int]]) -> np.ndarray:
    return np.asarray([v for vs in lists for v in vs], np.int64)


@njit(cache=True)
def _mediator_recommend(kind: np.ndarray, src_ptr: np.ndarray, src: np.ndarray, tgt_ptr: np.ndarray,
                        tgt: np.ndarray, regret: np.ndarray, strat: np.ndarray, xi: np.ndarray) -> None:
    """Top-down: regret matching+ at every expansion (``strat`` per target slot), sums at fills."""
    for o in range(kind.shape[0]):
        lo, hi = tgt_ptr[o], tgt_ptr[o + 1]
        if kind[o] == EXPAND:
            total = 0.0
            for q in range(lo, hi):
                total += regret[q]
            base = xi[src[src_ptr[o]]]
            for q in range(lo, hi):
                strat[q] = regret[q] / total if total > 0.0 else 1.0 / (hi - lo)
                xi[tgt[q]] = base * strat[q]
        else:
            v = 0.0
            for q in range(src_ptr[o], src_ptr[o + 1]):
                v += xi[src[q]]
            xi[tgt[lo]] = v


@njit(cache=True)
def _mediator_observe(kind: np.ndarray, src_ptr: np.ndarray, src: np.ndarray, tgt_ptr: np.ndarray,
                      tgt: np.ndarray, regret: np.ndarray, strat: np.ndarray, loss: np.ndarray) -> None:
    """Bottom-up: a fill passes its target's loss to its sources; an expansion updates its
    regrets (RM+) and passes its expected loss to its source. ``loss`` is consumed."""
    for o in range(kind.shape[0] - 1, -1, -1):
        lo, hi = tgt_ptr[o], tgt_ptr[o + 1]
        if kind[o] == EXPAND:
            v = 0.0
            for q in range(lo, hi):
                v += strat[q] * loss[tgt[q]]
            for q in range(lo, hi):
                r = regret[q] + v - loss[tgt[q]]
                regret[q] = r if r > 0.0 else 0.0
            loss[src[src_ptr[o]]] += v
        else:
            g = loss[tgt[lo]]
            for q in range(src_ptr[o], src_ptr[o + 1]):
                loss[src[q]] += g


@njit(cache=True)
def _mediator_best(kind: np.ndarray, src_ptr: np.ndarray, src: np.ndarray, tgt_ptr: np.ndarray,
                   tgt: np.ndarray, loss: np.ndarray) -> None:
    """Bottom-up minimum of a linear loss over Ξ_j: afterwards ``loss`` on the fixed
    entries is what each contributes (times its blueprint value) at the optimum."""
    for o in range(kind.shape[0] - 1, -1, -1):
        lo, hi = tgt_ptr[o], tgt_ptr[o + 1]
        if kind[o] == EXPAND:
            v = loss[tgt[lo]]
            for q in range(lo + 1, hi):
                if loss[tgt[q]] < v:
                    v = loss[tgt[q]]
            loss[src[src_ptr[o]]] += v
        else:
            g = loss[tgt[lo]]
            for q in range(src_ptr[o], src_ptr[o + 1]):
                loss[src[q]] += g


# --- the deviator: constraint rows and their ν as a treeplex ------------------------------


@dataclass(frozen=True)
class DeviatorSpace:
    """The deviator's treeplex ``Z`` (root infoset: one action per constraint row; the
    other infosets: the rows' ``ν``) and the bilinear form ``xi_local^T M z + c^T z``
    (``M``: CSR, local entries x sequences; ``c``: blueprint terms minus bounds).
    ``top[k]``: the sequence of constraint row ``k`` of the program."""

    treeplex: Treeplex
    m: sp.csr_matrix
    c: np.ndarray
    top: np.ndarray

    def violation(self, xi_local: np.ndarray) -> float:
        """Pseudo-exploitability of a plan: its largest constraint violation with exact ν."""
        return optimize_linear(self.treeplex, self.m.T @ xi_local + self.c).value


def deviator_space(rp: RefinementProgram, ext: ScaledExtensions, blueprint: np.ndarray) -> DeviatorSpace:
    """Turn the refinement program's rows into the deviator's treeplex: a row with a
    ``-1`` on a ``ν`` column defines that ``ν`` (one action of its infoset), a ``+1``
    uses a child ``ν``; every other row is a constraint (root action)."""
    a = rp.a_ub.tocsr()
    n_rows = a.shape[0]
    if n_rows == 0:
        raise EfgError("the refinement program has no constraint rows")
    coo = a.tocoo()
    is_aux = coo.col >= rp.num_pairs
    aux_r, aux_c, aux_v = coo.row[is_aux], coo.col[is_aux] - rp.num_pairs, coo.data[is_aux]
    own = np.full(n_rows, -1, np.int64)
    defining = aux_v < 0
    if not np.allclose(aux_v[defining], -1.0) or not np.allclose(aux_v[~defining], 1.0):
        raise EfgError("deviator: ν columns must enter rows with coefficient +1 (use) or -1 (definition)")
    if len(np.unique(aux_r[defining])) != int(defining.sum()):
        raise EfgError("deviator: a row defines two ν")
    own[aux_r[defining]] = aux_c[defining]
    user = np.full(rp.num_aux, -1, np.int64)
    used_r, used_c = aux_r[~defining], aux_c[~defining]
    if len(np.unique(used_c)) != len(used_c):
        raise EfgError("deviator: a ν is used by two rows (not a tree)")
    user[used_c] = used_r
    rows_of: list[list[int]] = [[] for _ in range(rp.num_aux)]
    for r in np.flatnonzero(own >= 0).tolist():
        rows_of[int(own[r])].append(r)
    children_of: list[list[int]] = [[] for _ in range(n_rows)]
    for r, v in zip(used_r.tolist(), used_c.tolist(), strict=True):
        children_of[r].append(v)
    top = np.flatnonzero(own < 0)
    # breadth first: infoset 0 = the root (constraint rows), then each used ν
    seq_row = [-1] + top.tolist()
    parent_seq, num_actions = [0], [len(top)]
    seq_of_row = np.full(n_rows, -1, np.int64)
    seq_of_row[top] = 1 + np.arange(len(top))
    queue: list[int | np.integer] = list(top)
    head = 0
    while head < len(queue):
        r = int(queue[head])
        head += 1
        for v in children_of[r]:
            acts = rows_of[v]
            if not acts:
                raise EfgError(f"deviator: ν {v} is used but never defined")
            parent_seq.append(int(seq_of_row[r]))
            num_actions.append(len(acts))
            seq_of_row[acts] = len(seq_row) + np.arange(len(acts))
            seq_row.extend(acts)
            queue.extend(acts)
    tp = Treeplex(np.asarray(parent_seq), np.asarray(num_actions))
    rows = np.asarray(seq_row[1:], np.int64)
    sub = a[rows][:, : rp.num_pairs].tocsc()
    local_of = np.full(rp.num_pairs, -1, np.int64)
    local_of[ext.pairs] = np.arange(len(ext.pairs))
    free_pairs = ext.pairs[ext.free]
    c = np.zeros(tp.num_seqs)
    c[1:] = sub[:, np.flatnonzero(rp.fixed)] @ blueprint[rp.fixed]
    c[seq_of_row[top]] -= rp.b_ub[top]
    if (rp.b_ub[own >= 0] != 0).any():
        raise EfgError("deviator: a ν row has a nonzero right-hand side")
    m_free = sub[:, free_pairs].tocoo()  # sequences(-1) x free pairs
    m = sp.csr_matrix((m_free.data, (local_of[free_pairs][m_free.col], m_free.row + 1)),
                      shape=(len(ext.pairs), tp.num_seqs))
    return DeviatorSpace(tp, m, c, seq_of_row[top])


@njit(cache=True)
def _treeplex_recommend(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray,
                        regret: np.ndarray, z: np.ndarray) -> None:
    """Sequence form of regret matching+ at every infoset (``regret`` per sequence)."""
    z[0] = 1.0
    for d in range(parent_seq.shape[0]):
        f, n = first_seq[d], num_actions[d]
        total = 0.0
        for s in range(f, f + n):
            total += regret[s]
        for s in range(f, f + n):
            z[s] = z[parent_seq[d]] * (regret[s] / total if total > 0.0 else 1.0 / n)


@njit(cache=True)
def _treeplex_observe(parent_seq: np.ndarray, first_seq: np.ndarray, num_actions: np.ndarray,
                      regret: np.ndarray, utility: np.ndarray) -> None:
    """CFR+ update for a gain ``utility`` per sequence (consumed: it becomes the
    counterfactual values)."""
    for d in range(parent_seq.shape[0] - 1, -1, -1):
        f, n = first_seq[d], num_actions[d]
        total = 0.0
        for s in range(f, f + n):
            total += regret[s]
        v = 0.0
        for s in range(f, f + n):
            v += utility[s] * (regret[s] / total if total > 0.0 else 1.0 / n)
        for s in range(f, f + n):
            r = regret[s] + utility[s] - v
            regret[s] = r if r > 0.0 else 0.0
        utility[parent_seq[d]] += v


@njit(cache=True)
def _csr_matvec(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    for r in range(indptr.shape[0] - 1):
        v = 0.0
        for k in range(indptr[r], indptr[r + 1]):
            v += data[k] * x[indices[k]]
        out[r] = v


# --- Algorithm 2 --------------------------------------------------------------------------


@dataclass(frozen=True)
class RegretRefinement:
    """The average plan (complete) after ``iterations``; per recorded iteration
    (``recorded``): the average plan's pseudo-exploitability and the saddle-point gap
    (pseudo-exploitability minus the mediator's best value against the average deviator),
    and wall seconds per iteration (excluding the recordings)."""

    plan: np.ndarray
    subgame: int
    iterations: int
    recorded: np.ndarray
    pseudo_exploitability: np.ndarray
    gap: np.ndarray
    blueprint_welfare: float
    refined_welfare: float
    seconds_per_iteration: float
    setup_seconds: float
    num_entries: int
    num_free: int
    num_ops: int
    deviator_sequences: int
    deviator_terms: int
    state: RegretState
    #: With ``polish``: how the average plan was made exactly safe (``plan`` is the
    #: polished plan; the recordings are of the average plan before it).
    polish: Polish | None = None


@dataclass
class RegretState:
    """Everything self-play carries between iterations (a checkpoint): regrets of both
    sides, the weighted sums of their iterates, the recordings so far."""

    iteration: int
    mediator_regret: np.ndarray
    deviator_regret: np.ndarray
    plan_sum: np.ndarray
    deviator_sum: np.ndarray
    weight: float
    recorded: list[int]
    pseudo: list[float]
    gap: list[float]
    busy_seconds: float

    @staticmethod
    def fresh(num_slots: int, num_entries: int, num_seqs: int) -> RegretState:
        return RegretState(0, np.zeros(num_slots), np.zeros(num_seqs), np.zeros(num_entries), np.zeros(num_seqs),
                           0.0, [], [], [], 0.0)

    def save(self, path: str, key: str) -> None:
        """Write to ``path`` (a checked ``.npz``: :func:`pokerbot.npz.save_checked`) atomically, tagged with
        ``key`` (the run's identity)."""
        from pokerbot.npz import save_checked

        header = {"key": key, "iteration": self.iteration, "weight": self.weight, "busy_seconds": self.busy_seconds}
        save_checked(path, CHECKPOINT_KIND, header, {
            "mediator_regret": self.mediator_regret, "deviator_regret": self.deviator_regret,
            "plan_sum": self.plan_sum, "deviator_sum": self.deviator_sum,
            "recorded": np.asarray(self.recorded, np.int64), "pseudo": np.asarray(self.pseudo, np.float64),
            "gap": np.asarray(self.gap, np.float64)})

    @staticmethod
    def load(path: str, key: str) -> RegretState:
        """Read a checkpoint; :class:`EfgError` if it is damaged, foreign or belongs to another run."""
        from pokerbot.errors import CheckpointError
        from pokerbot.npz import load_checked

        try:
            meta, f = load_checked(path, CHECKPOINT_KIND)
        except CheckpointError as exc:
            raise EfgError(f"{exc}; delete it to start over") from None
        if meta.get("key") != key:
            raise EfgError(f"checkpoint {path} is for {meta.get('key')!r}, not {key!r}")
        iteration, weight, busy = meta.get("iteration"), meta.get("weight"), meta.get("busy_seconds")
        if (not isinstance(iteration, int) or iteration < 0 or not all(
                isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in (weight, busy))
                or len({len(f["recorded"]), len(f["pseudo"]), len(f["gap"])}) != 1
                or not all(np.all(np.isfinite(a)) for a in f.values())):
            raise EfgError(f"checkpoint {path}: bad counts or non-finite values; delete it to start over")
        assert isinstance(weight, (int, float)) and isinstance(busy, (int, float))  # checked above
        return RegretState(iteration, f["mediator_regret"], f["deviator_regret"], f["plan_sum"], f["deviator_sum"],
                           float(weight), f["recorded"].tolist(), f["pseudo"].tolist(), f["gap"].tolist(),
                           float(busy))


#: The kind of an EFCE regret checkpoint in its checked archive's header.
CHECKPOINT_KIND = "efce regret checkpoint"


def regret_refine(dec: Decomposition, bp: Blueprint, j: int, *, iterations: int = 1000, epsilon: float = 0.0,
                  record_every: int = 1, welfare_floor: float | None = None, cross_terms: bool = True,
                  progress: Callable[[int, float], None] | None = None, state: RegretState | None = None,
                  checkpoint: Callable[[RegretState], None] | None = None, polish: bool = False) -> RegretRefinement:
    """Algorithm 2 on subgame ``j``: self-play of the mediator (scaled extensions) and the
    deviator (CFR+), alternating, up to iteration ``iterations`` or until the saddle-point
    gap of the averages is below ``epsilon`` (checked at recordings). ``welfare_floor``:
    also require ``SW_j(xi) >= welfare_floor`` (a row like (B); the blueprint's SW_j makes
    the target fully safe). ``progress(t, pseudo)`` and ``checkpoint(state)`` are called
    at every recording; ``state`` resumes from a checkpoint of the same run. ``polish``:
    make the average plan exactly safe at the end (:func:`polish_plan`)."""
    if iterations < 1 or record_every < 1:
        raise EfgError(f"iterations and record_every must be >= 1, got {iterations}, {record_every}")
    start = time.perf_counter()
    rp = refinement_program(dec, bp, j, cross_terms=cross_terms)
    if welfare_floor is not None:
        rp = _with_welfare_row(rp, dec, j, welfare_floor)
    ext = scaled_extensions(dec, j)
    dev = deviator_space(rp, ext, bp.plan)
    setup = time.perf_counter() - start
    tp = dev.treeplex
    m, mt = dev.m, dev.m.T.tocsr()
    xi = bp.plan[ext.pairs].copy()
    st = RegretState.fresh(len(ext.tgt), len(xi), tp.num_seqs) if state is None else state
    if ((st.mediator_regret.shape, st.deviator_regret.shape, st.plan_sum.shape, st.deviator_sum.shape)
            != ((len(ext.tgt),), (tp.num_seqs,), (len(xi),), (tp.num_seqs,))):
        raise EfgError("the resumed state does not fit this refinement")
    strat, z = np.zeros(len(ext.tgt)), np.zeros(tp.num_seqs)
    loss, util = np.zeros(len(xi)), np.zeros(tp.num_seqs)
    kernels = (ext.kind, ext.src_ptr, ext.src, ext.tgt_ptr, ext.tgt)
    tpa = (tp.parent_seq, tp.first_seq, tp.num_actions)
    med_regret, dev_regret = st.mediator_regret, st.deviator_regret
    stop = bool(st.gap) and st.gap[-1] < epsilon
    while st.iteration < iterations and not stop:
        t = st.iteration + 1
        tick = time.perf_counter()
        _mediator_recommend(*kernels, med_regret, strat, xi)
        _csr_matvec(mt.indptr, mt.indices, mt.data, xi, util)  # deviator's gain M^T xi + c
        util += dev.c
        _treeplex_recommend(*tpa, dev_regret, z)  # the z it played against xi (for the average)
        st.deviator_sum += t * z
        _treeplex_observe(*tpa, dev_regret, util)
        _treeplex_recommend(*tpa, dev_regret, z)  # alternation: the mediator faces the updated z
        _csr_matvec(m.indptr, m.indices, m.data, z, loss)
        st.plan_sum += t * xi
        st.weight += t
        _mediator_observe(*kernels, med_regret, strat, loss)
        st.busy_seconds += time.perf_counter() - tick
        st.iteration = t
        if t % record_every == 0 or t == iterations:
            avg = st.plan_sum / st.weight
            value = dev.violation(avg)
            st.recorded.append(t)
            st.pseudo.append(value)
            st.gap.append(value - _mediator_value(ext, m, st.deviator_sum / st.weight, dev.c, avg))
            stop = st.gap[-1] < epsilon
            if progress is not None:
                progress(t, value)
            if checkpoint is not None:
                checkpoint(st)
    if st.weight == 0:
        raise EfgError("no iteration was run")
    local = st.plan_sum / st.weight
    pol = _polish(dec, bp, j, rp, ext, dev, local) if polish else None
    plan = ext.plan(local if pol is None else pol.plan[ext.pairs], bp.plan)
    return RegretRefinement(plan, j, st.iteration, np.asarray(st.recorded), np.asarray(st.pseudo), np.asarray(st.gap),
                            subgame_welfare(dec, bp.plan, j), subgame_welfare(dec, plan, j),
                            st.busy_seconds / st.iteration, setup, len(ext.pairs), int(ext.free.sum()), ext.num_ops,
                            tp.num_seqs, m.nnz, st, pol)


# --- exact safety at the end --------------------------------------------------------------


@dataclass(frozen=True)
class Polish:
    """An exactly safe plan near a regret-minimisation plan. ``method``: ``"none"`` (it
    already met every constraint) or ``"lp"`` (the L1-nearest plan of ``Ξ_j`` that meets
    (A)-(C), by LP: dual simplex with feasibility tolerance 1e-10). Mixing with the
    blueprint would not do: the blueprint meets some rows with equality (``v0 = 0``
    where a trigger has ``δ* >= 0``), so convexity guarantees nothing short of the blueprint itself.
    ``before``/``after``: pseudo-exploitability; ``moved``: L1 distance of the refined entries."""

    plan: np.ndarray
    method: str
    before: float
    after: float
    moved: float
    seconds: float


#: HiGHS tolerances of the polishing LP (its violations are of this order).
POLISH_TOLERANCE = 1e-10


def polish_plan(dec: Decomposition, bp: Blueprint, j: int, plan: np.ndarray, *, welfare_floor: float | None = None,
                cross_terms: bool = True) -> Polish:
    """Make a refinement of subgame ``j`` (complete plan over ``dec``'s pairs) exactly
    safe: unchanged if its pseudo-exploitability is ≤ 0, else projected by LP (see :class:`Polish`)."""
    rp = refinement_program(dec, bp, j, cross_terms=cross_terms)
    if welfare_floor is not None:
        rp = _with_welfare_row(rp, dec, j, welfare_floor)
    ext = scaled_extensions(dec, j)
    dev = deviator_space(rp, ext, bp.plan)
    return _polish(dec, bp, j, rp, ext, dev, plan[ext.pairs])


def _polish(dec: Decomposition, bp: Blueprint, j: int, rp: RefinementProgram, ext: ScaledExtensions,
            dev: DeviatorSpace, local: np.ndarray) -> Polish:
    start = time.perf_counter()
    before = dev.violation(local)
    if before <= 0:
        return Polish(ext.plan(local, bp.plan), "none", before, before, 0.0, time.perf_counter() - start)
    out = _project_lp(dec, rp, ext, bp.plan, local)
    return Polish(ext.plan(out, bp.plan), "lp", before, dev.violation(out), float(abs(out - local).sum()),
                  time.perf_counter() - start)


def _project_lp(dec: Decomposition, rp: RefinementProgram, ext: ScaledExtensions, blueprint: np.ndarray,
                local: np.ndarray) -> np.ndarray:
    """``argmin ||xi − local||_1`` over the refined entries, subject to the polytope rows
    touching them and the program's rows (free ``ν``); variables ``[xi_free, ν, d]``."""
    from scipy.optimize import linprog

    space = dec.space
    free, fixed = rp.free, rp.fixed
    fcols, xcols = np.flatnonzero(free), np.flatnonzero(fixed)
    n_f, n_aux = len(fcols), rp.num_aux
    a = rp.a_ub.tocsc()
    b_ub = rp.b_ub - a[:, xcols] @ blueprint[xcols]
    poly, rhs = space.polytope()
    poly = poly.tocsc()
    rows = np.flatnonzero(abs(poly[:, fcols]).sum(axis=1).A1 > 0)
    poly = poly[rows]
    b_eq = rhs[rows] - poly[:, xcols] @ blueprint[xcols]
    target = np.zeros(space.num_pairs)
    target[ext.pairs] = local
    eye = sp.identity(n_f, format="csr")
    zero_aux = sp.csr_matrix((n_f, n_aux))
    a_ub = sp.vstack([
        sp.hstack([a[:, fcols], a[:, rp.num_pairs:], sp.csr_matrix((a.shape[0], n_f))]),
        sp.hstack([eye, zero_aux, -eye]),
        sp.hstack([-eye, zero_aux, -eye]),
    ]).tocsr()
    b_all = np.concatenate([b_ub, target[fcols], -target[fcols]])
    a_eq = sp.hstack([poly[:, fcols], sp.csr_matrix((len(rows), n_aux + n_f))]).tocsr()
    c = np.concatenate([np.zeros(n_f + n_aux), np.ones(n_f)])
    bounds = np.column_stack([np.concatenate([np.zeros(n_f), np.full(n_aux, -np.inf), np.zeros(n_f)]),
                              np.full(2 * n_f + n_aux, np.inf)])
    res = linprog(c, A_ub=a_ub, b_ub=b_all, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs-ds",
                  options={"primal_feasibility_tolerance": POLISH_TOLERANCE,
                           "dual_feasibility_tolerance": POLISH_TOLERANCE})
    if res.status != 0 or res.x is None:
        raise EfgError(f"polishing LP of subgame: HiGHS found no optimum ({res.message})")
    out = local.copy()
    local_of = np.full(space.num_pairs, -1, np.int64)
    local_of[ext.pairs] = np.arange(len(ext.pairs))
    out[local_of[fcols]] = np.maximum(res.x[:n_f], 0.0)
    return out


def _mediator_value(ext: ScaledExtensions, m: sp.csr_matrix, z: np.ndarray, c: np.ndarray, xi: np.ndarray) -> float:
    """``min_{xi in Ξ_j} xi^T M z + c^T z`` (``xi``: any plan, for the fixed entries)."""
    loss = m @ z
    _mediator_best(ext.kind, ext.src_ptr, ext.src, ext.tgt_ptr, ext.tgt, loss)
    fixed = ~ext.free
    return float(loss[fixed] @ xi[fixed] + c @ z)


def _with_welfare_row(rp: RefinementProgram, dec: Decomposition, j: int, floor: float) -> RefinementProgram:
    """Append ``-SW_j(xi) <= -floor``."""
    p = dec.pairs(j)
    row = sp.csr_matrix((-dec.space.welfare[p], (np.zeros(len(p), np.int64), p)), shape=(1, rp.a_ub.shape[1]))
    return RefinementProgram(sp.vstack([rp.a_ub, row]).tocsr(), np.append(rp.b_ub, -floor), rp.num_pairs,
                             rp.num_aux, rp.free, rp.fixed)


# --- exact references by LP (small instances) ---------------------------------------------


def violation_lp(dec: Decomposition, bp: Blueprint, j: int, plan: np.ndarray | None = None, *,
                 welfare_floor: float | None = None, cross_terms: bool = True) -> float:
    """The largest violation of the refinement constraints, by LP with free ``ν`` (an
    independent route to the pseudo-exploitability): of ``plan`` if given, else the
    smallest over ``Ξ_j`` (the saddle value ``v*`` Algorithm 2 converges to)."""
    rp = refinement_program(dec, bp, j, cross_terms=cross_terms)
    if welfare_floor is not None:
        rp = _with_welfare_row(rp, dec, j, welfare_floor)
    space = dec.space
    a = rp.a_ub.tocsc()
    n_rows = a.shape[0]
    aux = a[:, rp.num_pairs:].tocoo()
    top = np.ones(n_rows)
    top[aux.row[aux.data < 0]] = 0.0  # rows defining a ν are not constraints of their own
    free = rp.free if plan is None else np.zeros_like(rp.free)
    known = ~free
    x_known = bp.plan if plan is None else plan
    b = rp.b_ub - a[:, np.flatnonzero(known)] @ x_known[known]
    n_free = int(free.sum())
    # variables: [xi_free, ν, s]; rows: A_free xi + A_ν ν - top * s <= b
    a_ub = sp.hstack([a[:, np.flatnonzero(free)], a[:, rp.num_pairs:], sp.csr_matrix(-top.reshape(-1, 1))]).tocsr()
    n = n_free + rp.num_aux + 1
    c = np.zeros(n)
    c[-1] = 1.0
    lower = np.concatenate([np.zeros(n_free), np.full(rp.num_aux + 1, -np.inf)])
    a_eq, b_eq = None, None
    if n_free:
        poly, rhs = space.polytope()
        rows = np.flatnonzero(abs(poly[:, np.flatnonzero(free)]).sum(axis=1).A1 > 0)
        poly = poly[rows].tocsc()
        b_eq = rhs[rows] - poly[:, np.flatnonzero(rp.fixed)] @ bp.plan[rp.fixed]
        a_eq = sp.hstack([poly[:, np.flatnonzero(free)], sp.csr_matrix((len(rows), rp.num_aux + 1))]).tocsr()
    res = linear_program(c, a_ub=a_ub, b_ub=b, a_eq=a_eq, b_eq=b_eq, lower=lower, what="largest violation")
    return float(res.x[-1])


# --- welfare: binary search over a welfare floor -------------------------------------------


@dataclass(frozen=True)
class WelfareSearch:
    """Binary search for the largest welfare floor Algorithm 2 meets within ``tolerance``.
    ``best``: the run at the highest floor met (the blueprint's welfare at worst);
    ``steps``: ``(floor, pseudo-exploitability, certified lower bound on v*, met)`` per
    step (a lower bound > 0 proves the floor infeasible); ``upper``: max SW_j over Ξ_j."""

    best: RegretRefinement
    floor: float
    steps: list[tuple[float, float, float, bool]]
    upper: float


def max_welfare_bound(dec: Decomposition, bp: Blueprint, j: int) -> float:
    """``max_{xi in Ξ_j} SW_j(xi)`` without incentive constraints (through the decomposition)."""
    ext = scaled_extensions(dec, j)
    loss = np.zeros(len(ext.pairs))
    loss[ext.free] = -dec.space.welfare[ext.pairs[ext.free]]
    _mediator_best(ext.kind, ext.src_ptr, ext.src, ext.tgt_ptr, ext.tgt, loss)
    fixed = ~ext.free
    return -float(loss[fixed] @ bp.plan[ext.pairs][fixed])


def regret_max_welfare(dec: Decomposition, bp: Blueprint, j: int, *, steps: int = 8, iterations: int = 1000,
                       tolerance: float = 1e-5, record_every: int = 100,
                       progress: Callable[[int, float, float, bool], None] | None = None) -> WelfareSearch:
    """Welfare maximisation with Algorithm 2 (the paper: "typically requires binary
    search"): start from the blueprint's SW_j (feasible) and the unconstrained maximum;
    a floor is met when, after ``iterations``, the average plan's pseudo-exploitability is
    ≤ ``tolerance`` and the certified lower bound on ``v*`` is ≤ 0 (a violation within the
    tolerance alone can buy much welfare where reach probabilities are small). ``progress(step, floor, pseudo, met)`` after each step."""
    if steps < 0 or tolerance < 0:
        raise EfgError(f"steps and tolerance must be >= 0, got {steps}, {tolerance}")
    lo = subgame_welfare(dec, bp.plan, j)
    hi = max_welfare_bound(dec, bp, j)
    best = regret_refine(dec, bp, j, iterations=iterations, record_every=record_every, welfare_floor=lo)
    upper = hi
    log: list[tuple[float, float, float, bool]] = []
    for k in range(steps):
        mid = (lo + hi) / 2
        run = regret_refine(dec, bp, j, iterations=iterations, record_every=record_every, welfare_floor=mid)
        pseudo = float(run.pseudo_exploitability[-1])
        lower = pseudo - float(run.gap[-1])
        met = pseudo <= tolerance and lower <= 0.0  # lower > 0 proves the floor infeasible
        log.append((mid, pseudo, lower, met))
        if met:
            lo, best = mid, run
        else:
            hi = mid
        if progress is not None:
            progress(k + 1, mid, pseudo, met)
    return WelfareSearch(best, lo, log, upper)
