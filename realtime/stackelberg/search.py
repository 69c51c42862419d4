"""Stackelberg MILPs (Bosansky & Cermak) for a whole game and for one subgame under the
safety bounds, and safe search: refine every subgame, combine, let the follower
best-respond to the combination (Ling & Brown, Safe search for Stackelberg equilibria:
the MILP (1)-(12) of section 4 and Appendix C, evaluated as in section 5).

One program serves all three uses. For subgame j, every leaf z gets
``ω(z) = C(z) · r1_bp(leader's sequence where z's path enters j)``; the follower's
values (constraint (2), the bounds (9)-(10)) are ω-weighted, in the units of the
blueprint's BRVs (ω is Appendix D's ω_h; with section 4's printed ``C^j`` instead, the
leaves below non-trunk heads would weigh 0 and (10) would be vacuous). The objective
weights ``C^j(z) = ω(z) · r2_bp(follower's sequence at entry)`` (safe search: leaves the
blueprint's response never reaches count 0) or ``ω(z)`` (naive search: the follower is
assumed to enter). The leader's in-subgame sequences are relative to her entry (``r1 = 1``
on the sequences outside), the follower's binary. Leaves with one sequence pair share one
``p`` variable. The whole-game SSE is the same program with the root as the only entry.

Big-M for (5): a slack is a difference of two values of one infoset, so it is at most
(max u2 - min u2) times the ω-mass entering the subgame; that product is M.

>>> from pokerbot.efg.general_sum_games import figure1, figure_subgame, label_subgames
>>> from realtime.stackelberg.response import blueprint_rows
>>> g = figure1()
>>> subs = Subgames(g, label_subgames(g, figure_subgame))
>>> x = blueprint_rows(g, 0)
>>> naive = safe_search(subs, x, naive=True)
>>> safe = safe_search(subs, x)
>>> naive.blueprint_value, naive.leader_value, safe.leader_value
(1.5, 0.5, 1.625)
>>> round(full_game_sse(g).leader_value, 6)
1.75
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pokerbot.efg.game import TERMINAL, EfgError, Game
from pokerbot.efg.sequence_form import check_strategy, to_behavioral, to_sequence, uniform_strategy
from realtime.stackelberg.bounds import Bounds, Subgames, compute_bounds
from realtime.stackelberg.milp import MilpResult, solve_milp
from realtime.stackelberg.response import FollowerResponse, follower_response


@dataclass(frozen=True)
class SSEProgram:
    """One Stackelberg MILP in HiGHS's terms plus the layout to read it back:
    ``leader_seqs`` / ``leader_infosets``: the global ids of the leader's sequences and
    infosets it decides (local sequence k+1 = ``leader_seqs[k]``; local 0 = the fixed
    entry sequence), ``start``: the blueprint point, ``mass``: M(j)."""

    c: np.ndarray
    a: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    start: np.ndarray
    leader_seqs: np.ndarray
    leader_infosets: np.ndarray
    mass: float

    @property
    def num_binaries(self) -> int:
        return int(self.integer.sum())

    @property
    def start_value(self) -> float:
        return float(self.c @ self.start)


def _relative(tp_parent: np.ndarray, first: np.ndarray, counts: np.ndarray, infosets: np.ndarray,
              loc: np.ndarray, beh: np.ndarray, size: int) -> np.ndarray:
    """Sequence form relative to the entry sequences (local 0 = 1) from a behavioural
    strategy, over the given infosets (topological order)."""
    out = np.zeros(size)
    out[0] = 1.0
    for d in infosets:
        f, n = int(first[d]), int(counts[d])
        out[loc[f:f + n]] = beh[f:f + n] * out[loc[tp_parent[d]]]
    return out


_SPREAD_CACHE: dict[int, tuple[Game, np.ndarray]] = {}


def _follower_spread(game: Game) -> np.ndarray:
    """Per follower infoset, the range of her payoffs below it (remembered per game:
    safe search asks once per subgame)."""
    hit = _SPREAD_CACHE.get(id(game))
    if hit is None or hit[0] is not game:
        nodes = np.flatnonzero(game.player == 1)
        d = game.info[1].obs_decision[game.obs[1, nodes]]
        lo, hi = _subtree_range(game, game.payoff[:, 1])
        spread = np.zeros(game.treeplex(1).num_infosets)
        np.maximum.at(spread, d, hi[nodes] - lo[nodes])
        hit = (game, spread)
        _SPREAD_CACHE.clear()  # one game at a time is enough
        _SPREAD_CACHE[id(game)] = hit
    return hit[1]


def _subtree_range(game: Game, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node, the least and largest of ``values`` over the terminals below it."""
    lo = np.where(game.player == TERMINAL, values, np.inf)
    hi = np.where(game.player == TERMINAL, values, -np.inf)
    order = np.argsort(-game.depth, kind="stable")
    order = order[game.parent[order] >= 0]
    for depth in np.unique(game.depth[order])[::-1]:
        nodes = order[game.depth[order] == depth]
        np.minimum.at(lo, game.parent[nodes], lo[nodes])
        np.maximum.at(hi, game.parent[nodes], hi[nodes])
    return lo, hi


def _big_m(game: Game, blueprint: np.ndarray, subgames: Subgames | None, infosets: np.ndarray) -> np.ndarray:
    """A valid big-M per follower infoset: a slack is the difference of two of the
    infoset's action values, each at most its ω-mass (the leader playing to reach it)
    times the payoff range below it."""
    tp = game.treeplex(1)
    nodes = np.flatnonzero(game.player == 1)
    d = game.info[1].obs_decision[game.obs[1, nodes]]
    entry = subgames.entry[nodes] if subgames is not None else np.zeros(len(nodes), dtype=np.int64)
    weight = game.chance_reach[nodes] * blueprint[game.seq[0, entry]]
    mass = np.bincount(d, weight, tp.num_infosets)
    return (_follower_spread(game) * mass)[infosets] * 1.001 + 1e-12


def sse_program(game: Game, blueprint: np.ndarray, response: FollowerResponse, subgames: Subgames | None = None,
                subgame: int = -1, bounds: Bounds | None = None, naive: bool = False) -> SSEProgram:
    """Build the SSE MILP of the whole game (``subgames`` None) or of subgame
    ``subgame`` (with the safety ``bounds``, or none for naive search)."""
    sf = game.sequence_form
    tp0, tp1 = sf.treeplex
    x = np.asarray(blueprint, dtype=np.float64)
    y = response.strategy
    z_all = game.terminals
    if subgames is None:
        s1 = np.arange(1, tp0.num_seqs)
        s2 = np.arange(1, tp1.num_seqs)
        d1 = np.arange(tp0.num_infosets)
        d2 = np.arange(tp1.num_infosets)
        z = z_all
        entry = np.zeros(len(z), dtype=np.int64)  # the root
        roots = np.zeros(1, dtype=np.int64)
    else:
        if not 0 <= subgame < subgames.count:
            raise EfgError(f"subgame {subgame} out of range 0..{subgames.count - 1}")
        s1 = np.flatnonzero(subgames.seq_subgame(0) == subgame)
        s2 = np.flatnonzero(subgames.seq_subgame(1) == subgame)
        d1 = np.flatnonzero(subgames.infoset_subgame(0) == subgame)
        d2 = np.flatnonzero(subgames.infoset_subgame(1) == subgame)
        z = z_all[subgames.label[z_all] == subgame]
        entry = subgames.entry[z]
        lab = subgames.label
        roots = np.flatnonzero((subgames.entry == np.arange(game.num_nodes)) & (lab == subgame))
    loc1 = np.zeros(tp0.num_seqs, dtype=np.int64)
    loc1[s1] = np.arange(1, len(s1) + 1)
    loc2 = np.zeros(tp1.num_seqs, dtype=np.int64)
    loc2[s2] = np.arange(1, len(s2) + 1)
    n1, n2, ni = len(s1) + 1, len(s2) + 1, len(d2)
    loci = np.full(tp1.num_infosets, -1, dtype=np.int64)
    loci[d2] = np.arange(ni)

    chance = game.chance_reach
    omega = chance[z] * x[game.seq[0, entry]]
    cobj = omega if naive else omega * y[game.seq[1, entry]]
    mass_w = chance[roots] * x[game.seq[0, roots]]
    mass = float((mass_w if naive else mass_w * y[game.seq[1, roots]]).sum())
    l1 = loc1[game.seq[0, z]]
    l2 = loc2[game.seq[1, z]]
    u1 = game.payoff[z, 0]
    u2 = game.payoff[z, 1]
    loose = (l2 == 0) & (l1 > 0) & (omega * np.abs(u2) > 0)
    if loose.any():
        raise EfgError(f"subgame {subgame}: the leader's play changes the follower's payoff at leaves where the "
                       "follower does not act inside the subgame; the bounds cannot protect those")
    keys, inv = np.unique(l1 * n2 + l2, return_inverse=True)
    k1, k2 = keys // n2, keys % n2
    w1 = np.bincount(inv, cobj * u1, len(keys))
    cm = np.bincount(inv, cobj, len(keys))
    g2 = np.bincount(inv, omega * u2, len(keys))
    live = np.flatnonzero(cm > 0)
    npairs = len(live)
    ns = n2 - 1
    o_r1, o_r2, o_v = 0, n1, n1 + n2
    o_s = o_v + ni
    o_p = o_s + ns
    ncol = o_p + npairs

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []
    nrow = 0

    def add(r: np.ndarray, c: np.ndarray, v: np.ndarray, count: int, lower: np.ndarray | float,
            upper: np.ndarray | float) -> None:
        nonlocal nrow
        rows.append(r + nrow)
        cols.append(c)
        vals.append(np.asarray(v, dtype=np.float64))
        lo.append(np.broadcast_to(np.asarray(lower, dtype=np.float64), (count,)))
        hi.append(np.broadcast_to(np.asarray(upper, dtype=np.float64), (count,)))
        nrow += count

    # (4) sequence form of both players over their infosets in the program
    for tp, infosets, loc, off in ((tp0, d1, loc1, o_r1), (tp1, d2, loc2, o_r2)):
        counts = tp.num_actions[infosets]
        r_act = np.repeat(np.arange(len(infosets)), counts)
        c_act = loc[np.concatenate([np.arange(tp.first_seq[d], tp.first_seq[d] + tp.num_actions[d]) for d in infosets])
                    if len(infosets) else np.zeros(0, np.int64)]
        r_all = np.concatenate([r_act, np.arange(len(infosets))])
        c_all = off + np.concatenate([c_act, loc[tp.parent_seq[infosets]]])
        v_all = np.concatenate([np.ones(len(r_act)), -np.ones(len(infosets))])
        add(r_all, c_all, v_all, len(infosets), 0.0, 0.0)

    # (2) v[Inf(σ)] - s_σ - Σ_{I' under σ} v[I'] - Σ_σ1 r1(σ1) g2(σ1, σ) = 0 for the program's follower sequences
    seq_inf = tp1.seq_infoset[s2]
    r_parts = [np.arange(ns), np.arange(ns)]
    c_parts = [o_v + loci[seq_inf], o_s + np.arange(ns)]
    v_parts = [np.ones(ns), -np.ones(ns)]
    child_r = [k for k, s in enumerate(s2) for _ in tp1.children[s]]
    child_c = [loci[dd] for s in s2 for dd in tp1.children[s]]
    r_parts.append(np.asarray(child_r, dtype=np.int64))
    c_parts.append(o_v + np.asarray(child_c, dtype=np.int64))
    v_parts.append(-np.ones(len(child_r)))
    has = (k2 > 0) & (g2 != 0)
    r_parts.append(k2[has] - 1)
    c_parts.append(o_r1 + k1[has])
    v_parts.append(-g2[has])
    add(np.concatenate(r_parts), np.concatenate(c_parts), np.concatenate(v_parts), ns, 0.0, 0.0)

    # (5) s_σ + M_σ r2(σ) <= M_σ, M_σ = spread of u2 below Inf(σ) times its largest ω-mass
    big_m = _big_m(game, x, subgames, d2)[np.searchsorted(d2, seq_inf)]
    add(np.concatenate([np.arange(ns), np.arange(ns)]), np.concatenate([o_s + np.arange(ns), o_r2 + np.arange(1, n2)]),
        np.concatenate([np.ones(ns), big_m]), ns, -np.inf, big_m)
    # (6), (7) p <= r2(σ2), p <= r1(σ1)
    pr = np.arange(npairs)
    add(np.concatenate([pr, pr]), np.concatenate([o_p + pr, o_r2 + k2[live]]),
        np.concatenate([np.ones(npairs), -np.ones(npairs)]), npairs, -np.inf, 0.0)
    add(np.concatenate([pr, pr]), np.concatenate([o_p + pr, o_r1 + k1[live]]),
        np.concatenate([np.ones(npairs), -np.ones(npairs)]), npairs, -np.inf, 0.0)
    # p >= r1 + r2 - 1 (p = r1·r2 with r2 binary): redundant for the integers, tightens the relaxation
    add(np.concatenate([pr, pr, pr]), np.concatenate([o_p + pr, o_r1 + k1[live], o_r2 + k2[live]]),
        np.concatenate([np.ones(npairs), -np.ones(npairs), -np.ones(npairs)]), npairs, -1.0, np.inf)
    # (8) Σ p C^j = M(j)
    add(np.zeros(npairs, dtype=np.int64), o_p + pr, cm[live], 1, mass, mass)

    a = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(nrow, ncol))
    col_lo = np.zeros(ncol)
    col_hi = np.ones(ncol)
    col_lo[[o_r1, o_r2]] = 1.0
    col_lo[o_v:o_s] = -np.inf
    col_hi[o_v:o_s] = np.inf
    col_hi[o_s:o_p] = np.inf
    if bounds is not None and not naive:
        heads = d2[bounds.is_head[d2]]
        low = bounds.lower[heads]
        col_lo[o_v + loci[heads[low]]] = bounds.value[heads[low]]  # (9)
        col_hi[o_v + loci[heads[~low]]] = bounds.value[heads[~low]]  # (10)
    integer = np.zeros(ncol, dtype=bool)
    integer[o_r2 + 1:o_v] = True
    c = np.zeros(ncol)
    c[o_p:] = w1[live]

    start = np.zeros(ncol)
    start[o_r1:o_r2] = _relative(tp0.parent_seq, tp0.first_seq, tp0.num_actions, d1, loc1, to_behavioral(tp0, x), n1)
    ybeh = to_behavioral(tp1, y)
    start[o_r2:o_v] = _relative(tp1.parent_seq, tp1.first_seq, tp1.num_actions, d2, loc2, ybeh, n2)
    start[o_v:o_s] = response.infoset_values[d2]
    start[o_s:o_p] = np.maximum(response.infoset_values[seq_inf] - response.seq_values[s2], 0.0)
    start[o_p:] = np.minimum(start[o_r1 + k1[live]], start[o_r2 + k2[live]])
    return SSEProgram(c, a, np.concatenate(lo), np.concatenate(hi), col_lo, col_hi, integer, start, s1, d1, mass)


def solve_program(prog: SSEProgram, time_limit: float | None, warm_start: bool = True, what: str = "SSE MILP") -> MilpResult:
    """Solve an :class:`SSEProgram` (maximising the leader's value) with HiGHS."""
    return solve_milp(prog.c, prog.a, prog.row_lower, prog.row_upper, prog.col_lower, prog.col_upper, prog.integer,
                      maximize=True, time_limit=time_limit, start=prog.start if warm_start else None, what=what)


# --- whole game --------------------------------------------------------------------------


@dataclass(frozen=True)
class SSEResult:
    """A leader strategy from a whole-game MILP, its value against the follower's
    leader-favoured best response, and how the solve ended. ``start_value``: the warm
    start's value; ``polished_value``: after the fixed-response LPs (:func:`polish`),
    what the MILP started from."""

    strategy: np.ndarray
    leader_value: float
    milp: MilpResult | None
    num_binaries: int
    start_value: float = float("nan")
    polished_value: float = float("nan")
    polish_rounds: int = 0


def polish(game: Game, strategy: np.ndarray, rounds: int = 10) -> tuple[np.ndarray, float, int]:
    """Improve a leader strategy without branching: fix the follower's pure best
    response ``y`` to it and solve the whole-game program with those binaries fixed, an
    LP (the best leader strategy to which ``y`` is still a best response, as in the
    multiple-LP method); repeat with the response to the result while the value grows.
    Returns the strategy, its value (follower best-responding, leader-favoured ties)
    and the LP rounds that improved it.

    >>> from pokerbot.efg.general_sum_games import figure1
    >>> from realtime.stackelberg.response import blueprint_rows
    >>> _, value, _ = polish(figure1(), blueprint_rows(figure1(), 0))
    >>> round(value, 6)  # the blueprint's 1.5, then the best strategy for the same response
    1.75
    """
    sf = game.sequence_form
    tp0 = sf.treeplex[0]
    x = np.asarray(strategy, dtype=np.float64)
    value = follower_response(sf, x).leader_value
    improved = 0
    for _ in range(rounds):
        prog = sse_program(game, x, follower_response(sf, x))
        lo, hi = prog.col_lower.copy(), prog.col_upper.copy()
        lo[prog.integer] = hi[prog.integer] = np.round(prog.start[prog.integer])
        res = solve_milp(prog.c, prog.a, prog.row_lower, prog.row_upper, lo, hi, np.zeros_like(prog.integer),
                         maximize=True, what=f"{game.name}: fixed-response LP")
        if res.x is None:
            break
        cand = to_sequence(tp0, to_behavioral(tp0, res.x[:tp0.num_seqs]))
        cand_value = follower_response(sf, cand).leader_value
        if cand_value <= value + 1e-12:
            break
        x, value, improved = cand, cand_value, improved + 1
    return x, value, improved


def full_game_sse(game: Game, time_limit: float | None = None, warm_start: np.ndarray | None = None,
                  polish_rounds: int = 0) -> SSEResult:
    """The strong Stackelberg equilibrium of a whole game by MILP (13)-(22), optionally
    warm-started from a leader strategy (and the follower's response to it), first
    improved by ``polish_rounds`` fixed-response LPs (:func:`polish`); with a time
    limit the result is the best incumbent (``milp.status == "time limit"``), or the
    (polished) warm start itself if HiGHS found nothing better. ``time_limit`` 0 skips
    the MILP (``milp`` None)."""
    sf = game.sequence_form
    tp0 = sf.treeplex[0]
    x0 = uniform_strategy(tp0) if warm_start is None else np.asarray(warm_start, np.float64)
    check_strategy(tp0, x0)
    base = follower_response(sf, x0).leader_value
    x1, start_value, rounds = polish(game, x0, polish_rounds) if polish_rounds > 0 else (x0, base, 0)
    if time_limit is not None and time_limit <= 0:
        return SSEResult(x1, start_value, None, 0, base, start_value, rounds)
    prog = sse_program(game, x1, follower_response(sf, x1))
    res = solve_program(prog, time_limit, warm_start=True, what=f"{game.name}: whole-game SSE MILP")
    if res.x is None:
        strategy = x1
    else:
        strategy = to_sequence(tp0, to_behavioral(tp0, res.x[:tp0.num_seqs]))
    value = follower_response(sf, strategy).leader_value
    if warm_start is not None or polish_rounds > 0:
        if value < start_value:  # an incumbent worse than the start cannot be; keep the start
            strategy, value = x1, start_value
    return SSEResult(strategy, value, res, prog.num_binaries, base, start_value, rounds)


# --- safe search ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SubgameReport:
    """One subgame's refinement: ``status`` (``optimal``, ``time limit``, or ``kept
    blueprint`` when the blueprint's response never enters it), the MILP's objective
    and the blueprint's in the same units, its size and wall time."""

    subgame: int
    status: str
    value: float
    blueprint_value: float
    gap: float
    seconds: float
    num_binaries: int


@dataclass(frozen=True)
class SearchResult:
    """The combined strategy (sequence form), the leader's value with the follower
    best-responding to it, the blueprint's value, the per-subgame reports, wall time."""

    strategy: np.ndarray
    leader_value: float
    blueprint_value: float
    reports: tuple[SubgameReport, ...] = field(repr=False)
    seconds: float

    @property
    def limits_hit(self) -> int:
        return sum(r.status == "time limit" for r in self.reports)

    @property
    def max_subgame_seconds(self) -> float:
        return max((r.seconds for r in self.reports), default=0.0)


def refine_subgame(subgames: Subgames, subgame: int, blueprint: np.ndarray, response: FollowerResponse,
                   bounds: Bounds | None, naive: bool = False, time_limit: float | None = None,
                   ) -> tuple[np.ndarray | None, SubgameReport]:
    """Solve one subgame's (constrained, or naive) SSE; returns the leader's relative
    in-subgame sequence values (None: keep the blueprint) and the report."""
    t0 = time.perf_counter()
    prog = sse_program(subgames.game, blueprint, response, subgames, subgame, bounds, naive)
    if prog.mass <= 0.0:
        return None, SubgameReport(subgame, "kept blueprint", 0.0, 0.0, 0.0, time.perf_counter() - t0, prog.num_binaries)
    res = solve_program(prog, time_limit, what=f"{subgames.game.name}: subgame {subgame} SSE MILP")
    seconds = time.perf_counter() - t0
    if res.x is None or res.value < prog.start_value:
        # nothing found (or, within tolerance, worse than the blueprint): keep the blueprint
        return None, SubgameReport(subgame, res.status, prog.start_value, prog.start_value, res.gap, seconds,
                                   prog.num_binaries)
    local = res.x[:len(prog.leader_seqs) + 1]
    return local, SubgameReport(subgame, res.status, res.value, prog.start_value, res.gap, seconds, prog.num_binaries)


def combine(game: Game, blueprint: np.ndarray, refinements: Iterable[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The blueprint with each refined subgame's behaviour swapped in: pairs of (the
    leader's sequences of the subgame, their relative values with the entry at index 0)."""
    tp = game.treeplex(0)
    beh = to_behavioral(tp, blueprint)
    for seqs, local in refinements:
        loc = np.zeros(tp.num_seqs, dtype=np.int64)
        loc[seqs] = np.arange(1, len(seqs) + 1)
        for d in np.unique(tp.seq_infoset[seqs]):
            f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
            parent = local[loc[tp.parent_seq[d]]]
            if parent <= 1e-12:
                continue  # the refined strategy never reaches d: keep the blueprint there
            probs = np.clip(local[loc[f:f + n]], 0.0, None)
            beh[f:f + n] = probs / probs.sum() if probs.sum() > 0 else 1.0 / n
    return to_sequence(tp, beh)


def safe_search(subgames: Subgames, blueprint: np.ndarray, alpha: float = 0.5, beta: float = 1.0,
                naive: bool = False, time_limit: float | None = None,
                progress: Callable[[Iterable[int]], Iterable[int]] | None = None) -> SearchResult:
    """Search in every subgame (Algorithm 1 applied everywhere), combine, and evaluate
    the combination against the follower's leader-favoured best response.
    ``naive=True`` drops the bounds and assumes the follower enters every subgame."""
    game = subgames.game
    sf = game.sequence_form
    x = np.asarray(blueprint, dtype=np.float64)
    check_strategy(sf.treeplex[0], x)
    t0 = time.perf_counter()
    response = follower_response(sf, x)
    bounds = None if naive else compute_bounds(subgames, response, alpha, beta)
    seq_sub = subgames.seq_subgame(0)
    refinements = []
    reports = []
    ids: Iterable[int] = range(subgames.count)
    for j in (progress(ids) if progress else ids):
        local, rep = refine_subgame(subgames, j, x, response, bounds, naive, time_limit)
        reports.append(rep)
        if local is not None:
            refinements.append((np.flatnonzero(seq_sub == j), local))
    strategy = combine(game, x, refinements)
    value = follower_response(sf, strategy).leader_value
    return SearchResult(strategy, value, response.leader_value, tuple(reports), time.perf_counter() - t0)
