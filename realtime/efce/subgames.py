"""Subgame decompositions and the safe LP refinement of one subgame (Ling & Fang, Safe
subgame resolving for EFCE, sections "Subgame Resolving for EFCE" and "Safe Subgame
Resolving Using LPs", full LP in Appendix C).

A decomposition assigns every node a subgame ``j`` or ``-1`` (pre-subgame); subgames are
closed under descendants and hold whole infosets. Theorem 1: the relevant pairs split
into ``S0`` (both sequences pre-subgame) and ``S_j`` (one in subgame ``j``, the other in
``j`` or pre-subgame); :meth:`Decomposition.of` raises if a pair spans two subgames.

The refinement of subgame ``j`` keeps the blueprint ``xi0`` on ``S0`` (and on the other
subgames) and chooses ``xi`` on ``S_j`` in the correlation polytope subject to

- **(A)** every trigger ``t`` inside ``j``: ``δ*(xi; t) <= max(0, δ*(xi0; t))``;
- **(B)** lower bounds on what the follow values of pre-subgame sequences gain from ``j``,
- **(C)** upper bounds on what the deviation values of pre-subgame triggers gain from ``j``,

where (B) and (C) unroll the slack ``-min(0, δ*(xi0; t))/2`` of each pre-subgame trigger
(or 0) top-down over its pre-subgame subtree, splitting it evenly among the *items* of
each sequence: its pre-subgame child infosets and one group per subgame it touches. The
group of ``(s, k)`` holds the head-infoset values of ``k`` under ``s`` **and** the leaf
terms that pair ``s`` with a sequence of ``k`` — the cross terms the paper's derivation
leaves out (its unrolling (B)-(C) stops at head infosets and never bounds them);
``cross_terms=False`` drops them (paper-literal).
If every item keeps its bound, every pre-subgame trigger satisfies
``δ*(xi; t) <= max(0, δ*(xi0; t))`` whichever subgames are refined (Theorem 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.lp import linear_program
from realtime.efce.incentives import (
    Program,
    TriggerValues,
    add_deviation_rows,
    add_trigger_rows,
    product_trigger_values,
    trigger_values,
    welfare,
)
from realtime.efce.plan import CorrelationSpace


@dataclass(frozen=True)
class Decomposition:
    """``infoset_sub[i][d]`` / ``seq_sub[i][s]`` / ``pair_sub[p]``: subgame or -1."""

    space: CorrelationSpace
    num_subgames: int
    infoset_sub: tuple[np.ndarray, np.ndarray]
    seq_sub: tuple[np.ndarray, np.ndarray]
    pair_sub: np.ndarray

    @staticmethod
    def of(space: CorrelationSpace, node_sub: np.ndarray) -> Decomposition:
        """From a subgame id (or -1) per node; :class:`EfgError` if a subgame is not
        closed under descendants, splits an infoset, or a pair spans two subgames.
        ``space`` may be restricted to one subgame (:func:`subgame_space`)."""
        inf_sub, seq_sub = infoset_subgames(space.game, node_sub)
        a, b = seq_sub[0][space.pair_seq[0]], seq_sub[1][space.pair_seq[1]]
        c0, c1 = inf_sub[0][space.connected[:, 0]], inf_sub[1][space.connected[:, 1]]
        if ((a >= 0) & (b >= 0) & (a != b)).any() or ((c0 >= 0) & (c1 >= 0) & (c0 != c1)).any():
            raise EfgError("a relevant pair spans two subgames (Theorem 1 violated)")
        node_sub = np.asarray(node_sub, dtype=np.int64)
        num = int(node_sub.max()) + 1 if len(node_sub) else 0
        return Decomposition(space, max(num, 0), inf_sub, seq_sub, np.maximum(a, b))

    def pairs(self, j: int) -> np.ndarray:
        """``S_j`` (``j = -1``: ``S0``)."""
        return np.flatnonzero(self.pair_sub == j)

    def size(self, j: int) -> int:
        """``|Ξ_j|``: the entries a refinement of ``j`` stores (``S0 ∪ S_j``)."""
        return int(((self.pair_sub == -1) | (self.pair_sub == j)).sum())

    def heads(self, player: int, j: int) -> np.ndarray:
        """Head infosets of subgame ``j``: in ``j`` with a pre-subgame parent sequence."""
        tp = self.space.treeplex[player]
        sub = self.infoset_sub[player]
        return np.flatnonzero((sub == j) & (self.seq_sub[player][tp.parent_seq] == -1))

    @cached_property
    def anchor(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player and sequence: the nearest pre-subgame ancestor-or-self sequence."""
        out = []
        for i in (0, 1):
            tp = self.space.treeplex[i]
            anc = np.arange(tp.num_seqs)
            for s in range(1, tp.num_seqs):  # parents first
                if self.seq_sub[i][s] >= 0:
                    anc[s] = anc[tp.seq_parent[s]]
            out.append(anc)
        return (out[0], out[1])

    @cached_property
    def touching(self) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
        """Per player: pre-subgame sequence -> the subgames it has items in (head
        infosets below it, or leaf pairs with a sequence of the subgame). Read from the
        game's leaves, so a space restricted to one subgame gives the same answer."""
        out = []
        game = self.space.game
        z = game.terminals
        for i in (0, 1):
            tp = self.space.treeplex[i]
            res: dict[int, set[int]] = {}
            for j_sub, d in zip(self.infoset_sub[i].tolist(), range(tp.num_infosets), strict=True):
                s = int(tp.parent_seq[d])
                if j_sub >= 0 and self.seq_sub[i][s] == -1:
                    res.setdefault(s, set()).add(j_sub)
            n_o = self.space.treeplex[1 - i].num_seqs
            zkey = game.seq[i, z].astype(np.int64) * n_o + game.seq[1 - i, z]
            key, pos = np.unique(zkey, return_inverse=True)
            pay = np.zeros(len(key))
            np.add.at(pay, pos, game.payoff[z, i])  # u_i per pair, summed in leaf order as in the space
            mine, other = key // n_o, key % n_o
            cross = (self.seq_sub[i][mine] == -1) & (self.seq_sub[1 - i][other] >= 0) & (pay != 0)
            for s, k in set(zip(mine[cross].tolist(), self.seq_sub[1 - i][other[cross]].tolist(), strict=True)):
                res.setdefault(s, set()).add(k)
            out.append({s: sorted(v) for s, v in res.items()})
        return (out[0], out[1])


def infoset_subgames(game: Game, node_sub: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray],
                                                                 tuple[np.ndarray, np.ndarray]]:
    """Per player the subgame (or -1) of every decision infoset and every sequence, from a
    subgame id per node; :class:`EfgError` if a subgame is not closed under descendants
    or splits an infoset."""
    node_sub = np.asarray(node_sub, dtype=np.int64)
    par = game.parent[1:]
    bad = (node_sub[par] >= 0) & (node_sub[1:] != node_sub[par])
    if bad.any():
        raise EfgError(f"subgame of node {int(np.flatnonzero(bad)[0]) + 1} differs from its parent's")
    inf_sub, seq_sub = [], []
    for i in (0, 1):
        tp = game.treeplex(i)
        nodes = np.flatnonzero(game.player == i)
        dec = game.info[i].obs_decision[game.obs[i, nodes]]
        lo = np.full(tp.num_infosets, np.iinfo(np.int64).max)
        hi = np.full(tp.num_infosets, np.iinfo(np.int64).min)
        np.minimum.at(lo, dec, node_sub[nodes])
        np.maximum.at(hi, dec, node_sub[nodes])
        if (lo != hi).any():
            raise EfgError(f"player {i}'s infoset {int(np.flatnonzero(lo != hi)[0])} is split by the decomposition")
        inf_sub.append(lo)
        seq_sub.append(np.concatenate(([-1], np.repeat(lo, tp.num_actions))))
    return (inf_sub[0], inf_sub[1]), (seq_sub[0], seq_sub[1])


def subgame_space(game: Game, node_sub: np.ndarray, j: int) -> CorrelationSpace:
    """The correlation space restricted to ``S0 ∪ S_j`` (``|Ξ_j|`` pairs): everything a
    refinement of subgame ``j`` reads, without the other subgames' pairs. With
    :meth:`Blueprint.of_product` for the blueprint's values, refining ``j`` never stores
    the whole plan."""
    _, seq_sub = infoset_subgames(game, node_sub)
    keep = (seq_sub[0] == -1) | (seq_sub[0] == j), (seq_sub[1] == -1) | (seq_sub[1] == j)
    return CorrelationSpace.of(game, keep=keep)


def node_subgames(space: CorrelationSpace | Game, key: Callable[[int], object]) -> tuple[np.ndarray, list[object]]:
    """Number the distinct non-``None`` values of ``key(h)`` over the nodes (in node order)."""
    ids: dict[object, int] = {}
    game = space.game if isinstance(space, CorrelationSpace) else space
    out = np.full(game.num_nodes, -1, dtype=np.int64)
    for h in range(game.num_nodes):
        k = key(h)
        if k is not None:
            out[h] = ids.setdefault(k, len(ids))
    return out, list(ids)


# --- blueprint quantities -------------------------------------------------------------


@dataclass(frozen=True)
class Blueprint:
    """A blueprint plan and its per-trigger values (both players), computed once."""

    plan: np.ndarray
    values: tuple[TriggerValues, TriggerValues]

    @staticmethod
    def of(dec: Decomposition, plan: np.ndarray) -> Blueprint:
        """From a plan over the (complete) space: values by passes over the plan."""
        if not dec.space.complete:
            raise EfgError("Blueprint.of needs the complete space; use Blueprint.of_product on a restricted one")
        vals = []
        for i in (0, 1):
            pre = np.flatnonzero(dec.seq_sub[i] == -1)[1:]
            vals.append(trigger_values(dec.space, i, plan, keep=pre))
        return Blueprint(plan, (vals[0], vals[1]))

    @staticmethod
    def of_product(dec: Decomposition, x0: np.ndarray, x1: np.ndarray) -> Blueprint:
        """The product blueprint ``xi[s0, s1] = x0[s0] x1[s1]`` on ``dec``'s pairs, its
        values by passes over the game's leaves and treeplexes
        (:func:`realtime.efce.incentives.product_trigger_values`): the whole plan is
        never formed, so ``dec`` may be restricted to one subgame. Equals
        :meth:`of` on ``product_plan(space, x0, x1)`` up to rounding."""
        space = dec.space
        plan = x0[space.pair_seq[0]] * x1[space.pair_seq[1]]
        vals = []
        for i, (mine, other) in enumerate(((x0, x1), (x1, x0))):
            pre = np.flatnonzero(dec.seq_sub[i] == -1)[1:]
            vals.append(product_trigger_values(space, i, mine, other, keep=pre))
        return Blueprint(plan, (vals[0], vals[1]))


def _slack(delta: float) -> float:
    """The half of a negative blueprint exploitability each side may use (case i), else 0."""
    return -delta / 2.0 if np.isfinite(delta) and delta < 0 else 0.0


def _items(dec: Decomposition, player: int, s: int) -> tuple[list[int], list[int]]:
    tp = dec.space.treeplex[player]
    pre_children = [d for d in tp.children[s] if dec.infoset_sub[player][d] == -1]
    return pre_children, dec.touching[player].get(s, [])


def follow_allowances(dec: Decomposition, bp: Blueprint, player: int) -> dict[tuple[int, int], float]:
    """(B): ``(s, k) -> d``: the group of pre-subgame sequence ``s`` in subgame ``k``
    may lose at most ``d`` of follow value (the tightest over the triggers above ``s``)."""
    tp = dec.space.treeplex[player]
    tv = bp.values[player]
    out: dict[tuple[int, int], float] = {}
    for t in np.flatnonzero(np.isfinite(tv.delta)).tolist():
        if dec.seq_sub[player][t] != -1:
            continue
        stack = [(t, _slack(float(tv.delta[t])))]
        while stack:
            s, e = stack.pop()
            children, groups = _items(dec, player, s)
            n = len(children) + len(groups)
            if n == 0:
                continue
            d = e / n
            for k in groups:
                out[(s, k)] = min(out.get((s, k), np.inf), d)
            for c in children:
                first, m = int(tp.first_seq[c]), int(tp.num_actions[c])
                stack.extend((first + a, d / m) for a in range(m))
    return out


def deviation_allowances(dec: Decomposition, bp: Blueprint, player: int, trigger: int) -> dict[int, float]:
    """(C) for one pre-subgame trigger: ``s -> allowance`` for every pre-subgame
    deviation sequence ``s`` with groups: each of its groups may gain at most that much."""
    tp = dec.space.treeplex[player]
    tv = bp.values[player]
    beta0 = tv.beta[trigger]
    d = int(tp.seq_infoset[trigger])
    first, n = int(tp.first_seq[d]), int(tp.num_actions[d])
    top = float(tv.beta_star[trigger]) + _slack(float(tv.delta[trigger]))
    stack = [(s, top - float(beta0[s])) for s in range(first, first + n) if s != trigger]
    out: dict[int, float] = {}
    while stack:
        s, e = stack.pop()
        children, groups = _items(dec, player, s)
        m = len(children) + len(groups)
        if m == 0:
            continue
        share = e / m
        if groups:
            out[s] = share
        for c in children:
            cf, cn = int(tp.first_seq[c]), int(tp.num_actions[c])
            cap = float(beta0[cf : cf + cn].max()) + share  # ν̆(c) = ν0(c) + share
            stack.extend((cf + a, cap - float(beta0[cf + a])) for a in range(cn))
    return out


# --- the refinement LP ------------------------------------------------------------------


@dataclass(frozen=True)
class Refinement:
    """A refined plan (complete: the blueprint outside ``S_j``) and the welfare ``S_j``
    contributes before and after."""

    plan: np.ndarray
    subgame: int
    blueprint_welfare: float
    refined_welfare: float
    num_variables: int
    num_constraints: int


@dataclass(frozen=True)
class RefinementProgram:
    """The safety constraints (A)-(C) of refining subgame ``j`` as rows
    ``a_ub [xi; ν] <= b_ub`` over all pairs then ``num_aux`` free ``ν`` columns, before the
    blueprint entries are moved to the right-hand side. ``free``: the pairs ``S_j``;
    ``fixed``: ``S0`` (kept at the blueprint). Shared by the LP (:func:`refine`) and the
    regret-minimisation refinement (:mod:`realtime.efce.regret`)."""

    a_ub: sp.csr_matrix
    b_ub: np.ndarray
    num_pairs: int
    num_aux: int
    free: np.ndarray
    fixed: np.ndarray


def refinement_program(dec: Decomposition, bp: Blueprint, j: int, *, incentives: bool = True,
                       cross_terms: bool = True) -> RefinementProgram:
    """Rows (A), (B), (C) of subgame ``j`` (see :func:`refine` for the flags);
    :class:`EfgError` if ``j`` is out of range or a row touches another subgame."""
    if not 0 <= j < dec.num_subgames:
        raise EfgError(f"subgame {j} out of range 0..{dec.num_subgames - 1}")
    space = dec.space
    prog = Program(space.num_pairs)
    if incentives:
        for i in (0, 1):
            _add_in_subgame(prog, dec, bp, i, j)
            _add_lower_bounds(prog, dec, bp, i, j, cross_terms)
            _add_upper_bounds(prog, dec, bp, i, j, cross_terms)
    a_ub, b_ub = prog.matrix()
    free = dec.pair_sub == j
    fixed = dec.pair_sub == -1
    other = np.flatnonzero(~(free | fixed))
    if a_ub.shape[0] and abs(a_ub.tocsc()[:, other]).sum() > 0:
        raise EfgError(f"refinement of subgame {j} touches pairs of another subgame")
    return RefinementProgram(a_ub.tocsr(), b_ub, space.num_pairs, prog.num_aux, free, fixed)


def refine(dec: Decomposition, bp: Blueprint, j: int, *, objective: str = "welfare",
           incentives: bool = True, cross_terms: bool = True, method: str = "highs") -> Refinement:
    """The LP refinement of subgame ``j`` (module docstring). ``objective``: ``"welfare"``
    (fully safe: maximise the welfare of ``S_j``) or ``"feasible"``; ``incentives=False``
    drops (A)-(C) (unsafe: the negative control); ``cross_terms=False`` is the paper's
    literal (B)/(C) without the pre-/in-subgame leaf terms. ``method``: the HiGHS
    method (:func:`pokerbot.efg.lp.linear_program`)."""
    if objective not in ("welfare", "feasible"):
        raise EfgError(f"objective must be 'welfare' or 'feasible', got {objective!r}")
    space = dec.space
    rp = refinement_program(dec, bp, j, incentives=incentives, cross_terms=cross_terms)
    a_ub, b_ub, free, fixed, num_aux = rp.a_ub, rp.b_ub, rp.free, rp.fixed, rp.num_aux
    a_eq, b_eq = space.polytope()
    eq_rows = np.flatnonzero(abs(a_eq[:, np.flatnonzero(free)]).sum(axis=1).A1 > 0)
    a_eq = a_eq[eq_rows]
    b_eq = b_eq[eq_rows]
    aux = np.arange(space.num_pairs, space.num_pairs + num_aux)
    a_ub = a_ub.tocsc()
    if abs(a_eq[:, np.flatnonzero(~(free | fixed))]).sum() > 0:
        raise EfgError(f"refinement of subgame {j} touches pairs of another subgame")
    x0 = bp.plan
    b_eq = b_eq - a_eq[:, np.flatnonzero(fixed)] @ x0[fixed]
    b_ub = b_ub - a_ub[:, np.flatnonzero(fixed)] @ x0[fixed] if a_ub.shape[0] else b_ub
    cols = np.concatenate([np.flatnonzero(free), aux])
    n_free = int(free.sum())
    a_eq = sp.hstack([a_eq[:, np.flatnonzero(free)], sp.csr_matrix((a_eq.shape[0], num_aux))]).tocsr()
    a_ub = a_ub[:, cols].tocsr()
    c = np.zeros(len(cols))
    if objective == "welfare":
        c[:n_free] = space.welfare[free]
    lower = np.concatenate([np.zeros(n_free), np.full(num_aux, -np.inf)])
    res = linear_program(c, a_ub=a_ub if a_ub.shape[0] else None, b_ub=b_ub if a_ub.shape[0] else None,
                         a_eq=a_eq, b_eq=b_eq, lower=lower, maximize=True, what=f"refinement of subgame {j}", method=method)
    plan = x0.copy()
    plan[free] = np.maximum(res.x[:n_free], 0.0)
    return Refinement(plan, j, subgame_welfare(dec, x0, j), subgame_welfare(dec, plan, j), len(cols),
                      a_ub.shape[0] + a_eq.shape[0])


def subgame_welfare(dec: Decomposition, plan: np.ndarray, j: int) -> float:
    """Social welfare contributed by subgame ``j`` (its leaves: the pairs ``S_j``)."""
    p = dec.pairs(j)
    return float(dec.space.welfare[p] @ plan[p])


def _add_in_subgame(prog: Program, dec: Decomposition, bp: Blueprint, player: int, j: int) -> None:
    delta = bp.values[player].delta
    for t in np.flatnonzero(dec.seq_sub[player] == j).tolist():
        if np.isfinite(delta[t]):
            add_trigger_rows(prog, dec.space, player, t, max(0.0, float(delta[t])))


def _group_rows(dec: Decomposition, player: int, j: int, seqs: np.ndarray, column_seq: np.ndarray | None,
                cross_terms: bool) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The leaf terms of the groups ``(seqs[k], j)``: pairs of ``S_j`` whose own
    sequence anchors at ``seqs[k]``; deviation groups (``column_seq`` given) hold only
    the cross terms of ``seqs[k]`` itself (heads enter through ``ν``)."""
    space = dec.space
    if column_seq is not None:
        if not cross_terms:
            return [], [], []
        k, cols, u = space.leaf_terms(player, seqs, column_seq)
        keep = dec.pair_sub[cols] == j
        return [k[keep]], [cols[keep]], [u[keep]]
    row_of = {int(s): r for r, s in enumerate(seqs)}
    mine = space.pair_seq[player]
    sel = np.flatnonzero((dec.pair_sub == j) & (space.payoff[player] != 0))
    anc = dec.anchor[player][mine[sel]]
    if not cross_terms:  # only the pairs below head infosets, not the pre-subgame sequence's own
        sel, anc = sel[mine[sel] != anc], anc[mine[sel] != anc]
    rows = np.asarray([row_of.get(int(a), -1) for a in anc], np.int64)
    ok = rows >= 0
    return [rows[ok]], [sel[ok]], [space.payoff[player, sel[ok]]]


def _add_lower_bounds(prog: Program, dec: Decomposition, bp: Blueprint, player: int, j: int,
                      cross_terms: bool) -> None:
    allow = follow_allowances(dec, bp, player)
    seqs = np.asarray(sorted(s for (s, k) in allow if k == j), np.int64)
    if len(seqs) == 0:
        return
    rows, cols, vals = _group_rows(dec, player, j, seqs, None, cross_terms)
    r, c, v = rows[0], cols[0], vals[0]
    base = np.bincount(r, weights=v * bp.plan[c], minlength=len(seqs))  # G_j0(s)
    rhs = -(base - np.asarray([allow[(int(s), j)] for s in seqs]))
    prog.add(r, c, -v, rhs)  # -G_j(s) <= -(G_j0(s) - d)


def _add_upper_bounds(prog: Program, dec: Decomposition, bp: Blueprint, player: int, j: int,
                      cross_terms: bool) -> None:
    space = dec.space
    tp = space.treeplex[player]
    tv = bp.values[player]
    in_j = dec.infoset_sub[player] == j
    for t in np.flatnonzero(np.isfinite(tv.delta)).tolist():
        if dec.seq_sub[player][t] != -1:
            continue
        allow = {s: a for s, a in deviation_allowances(dec, bp, player, t).items() if j in dec.touching[player][s]}
        if not allow:
            continue
        d = int(tp.seq_infoset[t])
        first, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        dev = np.concatenate([space.below[player][s] for s in range(first, first + n) if s != t])
        nu = add_deviation_rows(prog, space, player, t, dev[in_j[dev]])
        seqs = np.asarray(sorted(allow), np.int64)
        rows, cols, vals = _group_rows(dec, player, j, seqs, np.full(len(seqs), t), cross_terms)
        beta0 = tv.beta[t]
        base = np.zeros(len(seqs))
        if rows:
            base += np.bincount(rows[0], weights=vals[0] * bp.plan[cols[0]], minlength=len(seqs))
        for k, s in enumerate(seqs.tolist()):
            for h in tp.children[s]:
                if h in nu:
                    rows.append(np.asarray([k]))
                    cols.append(np.asarray([nu[h]]))
                    vals.append(np.ones(1))
                    hf, hn = int(tp.first_seq[h]), int(tp.num_actions[h])
                    base[k] += float(beta0[hf : hf + hn].max())  # ν0(h; t)
        rhs = base + np.asarray([allow[int(s)] for s in seqs])
        if rows:
            prog.add(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), rhs)


# --- safety -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Safety:
    """``violation``: ``max_t δ*(xi; t) − max(0, δ*(xi0; t))`` over both players' triggers
    (≤ 0 means safe); ``welfare_gain``: ``SW(xi) − SW(xi0)`` (≥ 0: fully safe)."""

    violation: float
    welfare_gain: float
    worst_trigger: tuple[int, int]

    def is_safe(self, tol: float = 1e-7) -> bool:
        return self.violation <= tol

    def is_fully_safe(self, tol: float = 1e-7) -> bool:
        return self.is_safe(tol) and self.welfare_gain >= -tol


def safety(space: CorrelationSpace, bp: Blueprint, plan: np.ndarray) -> Safety:
    """Exact check of Definition 9 on a complete refinement (needs the complete space)."""
    if not space.complete:
        raise EfgError("the exact safety check reads every pair: it needs the complete correlation space")
    worst, where = -np.inf, (-1, -1)
    for i in (0, 1):
        d0 = bp.values[i].delta
        d1 = trigger_values(space, i, plan).delta
        ok = np.isfinite(d0)
        gap = np.where(ok, d1 - np.maximum(0.0, np.where(ok, d0, 0.0)), -np.inf)
        t = int(np.argmax(gap))
        if gap[t] > worst:
            worst, where = float(gap[t]), (i, t)
    return Safety(worst, welfare(space, plan) - welfare(space, bp.plan), where)
