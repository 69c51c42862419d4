"""MakeSubgame (Zhang & Sandholm, Appendix E): the k-KLSS gadget in sequence form.

For a blueprint ``x`` of the player we solve for (⊕) and her decision infoset ``I``, the
order-k knowledge set ``I^k`` (k odd: a union of whole ⊕ infosets, the *roots*) is cut
out; ⊕ is fixed to ``x`` everywhere else. The gadget is the game Γ' whose payoff is
``<x', (A + B) y>``:

- ⊖ starts at a root infoset choosing one *branch* per ⊖ observation infoset ``J`` that
  meets ``I^k`` (maxmargin form), or nature picks a branch uniformly and ⊖ chooses Exit
  (0) / Play at each (resolve form: :func:`to_resolve`, :func:`to_maxmargin`).
- A branch continues with the copies of the nodes ``h ∈ J ∩ I^k`` at probability
  ``p(h) x(h) / D_J``, ``D_J = Σ_{h ∈ J∩I^k} p(h) x(h)``; ⊕ plays there with fresh
  (relative) sequence-form variables below the roots; ⊖ keeps her original infosets.
- The nodes of ``J`` outside ``I^k`` keep ⊕ at the blueprint: their terminals go to B's
  empty-sequence row, ``B[∅, s⊖(z)] += x(z) p(z) u(z) / D_J`` (line 27 of the paper's
  pseudocode), so ⊖'s strategy there still matters.
- ``B[∅, branch J] = -u*(x|J)`` with the alternate value on the gadget's scale,
  ``u*(x|J) = V(x, J) / D_J`` (``V`` = ⊖'s unnormalised best-response value at ``J``,
  computed on the full game): the scale needed for *plugging in the blueprint gives every
  margin exactly 0* (the pseudocode's line 21 subtracts ``u*(x|I0)``, normalised by all of
  I0's mass as in section 2: another scale; Appendix C's printed values are not
  consistent either). With ``reach=True`` the gift estimate of the pseudocode is added
  back (it loosens the constraint; see :func:`gift_estimates`).

The value of branch ``J`` for a gadget strategy is its *margin*
``(V(x', J) - V(x, J)) / D_J (+ gift)``; solving the maxmargin gadget (maxmin LP)
maximises the smallest margin.

>>> from pokerbot.efg import games, to_sequence, uniform_strategy
>>> g = games.klss_example()
>>> x = uniform_strategy(g.treeplex(0))
>>> gad = make_subgame(g, x, infoset=0)
>>> gad.alternate.round(3).tolist()          # c0' and c2': B = -1/2, -5/2 (Appendix C.2 prints -1/2, -5)
[0.5, 2.5]
>>> bool((abs(margins(gad, gad.blueprint)) < 1e-12).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from pokerbot.efg.game import TERMINAL, EfgError, Game, Treeplex
from pokerbot.efg.knowledge import knowledge_set
from pokerbot.efg.lp import maxmin_matrix
from pokerbot.efg.sequence_form import (
    ObservationValues,
    SequenceForm,
    check_strategy,
    observation_values,
    optimize_linear,
    to_behavioral,
    to_sequence,
)

MAXMARGIN = "maxmargin"
RESOLVE = "resolve"
#: Transposition merging rules of :func:`make_subgame`: exact, and the paper's heuristic.
DOMINATED = "dominated"
PAPER = "paper"
MERGE_RULES = (DOMINATED, PAPER)


@dataclass(frozen=True)
class Gadget:
    """A k-KLSS gadget Γ[I^k] in sequence form (see the module docstring).

    ``sf.payoff[0]`` is ⊕'s payoff A + B (rows: gadget ⊕ sequences), ``sf.payoff[1]`` its
    negative. ``plus_seqs[s]`` is the original ⊕ sequence of gadget sequence ``s`` (-1 for
    the empty one); ``branches`` the ⊖ observation infosets, one per branch, and
    ``branch_seq`` the gadget ⊖ sequence that enters each (the root action in maxmargin
    form, Play in resolve form). ``blueprint`` is the blueprint's relative sequence form
    in the gadget; ``floor`` the floors on gadget ⊕ sequences (none at the roots).
    """

    form: str
    sf: SequenceForm
    player: int
    infoset: int
    roots: np.ndarray
    plus_seqs: np.ndarray
    root_reach: np.ndarray
    branches: np.ndarray
    branch_seq: np.ndarray
    normalizer: np.ndarray
    alternate: np.ndarray
    gift: np.ndarray
    blueprint: np.ndarray
    floor: np.ndarray | None
    # the form-free parts, kept so that the form can be switched
    _inner: tuple[np.ndarray, np.ndarray, np.ndarray, tuple[tuple[str, ...], ...]]
    _entries: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @property
    def num_branches(self) -> int:
        return len(self.branches)


def _descendant_infosets(tp: Treeplex, roots: list[int]) -> list[int]:
    out: list[int] = []
    stack = list(roots)
    while stack:
        d = stack.pop()
        out.append(d)
        f = int(tp.first_seq[d])
        for s in range(f, f + int(tp.num_actions[d])):
            stack.extend(tp.children[s])
    return sorted(out)


def _subtree_nodes(game: Game, nodes: np.ndarray) -> np.ndarray:
    if len(nodes) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.arange(h, game.subtree_end[h]) for h in nodes])


def _signature(game: Game, h: int) -> tuple:
    """Everything both players see and get below ``h``, relative to ``h`` (transpositions
    have equal signatures)."""
    idx = np.arange(h, game.subtree_end[h])
    labels = [game.info[i].obs_label for i in (0, 1)]
    return tuple(
        (int(game.subtree_end[n] - h), int(game.player[n]), game.edge_label[n] if n != h else "",
         float(game.edge_prob[n]) if n != h else 1.0, float(game.payoff[n, 0]), float(game.payoff[n, 1]),
         labels[0][game.obs[0, n]] if n != h else None, labels[1][game.obs[1, n]] if n != h else None)
        for n in idx
    )


def _merge_transpositions(game: Game, p: int, x: np.ndarray, branches: np.ndarray, in_k: np.ndarray,
                          vals: ObservationValues, reach: bool, rule: str,
                          rng: np.random.Generator | None) -> np.ndarray:
    """The branches left after merging transpositions by ``rule`` (see :func:`make_subgame`)."""
    o = 1 - p
    order = np.arange(len(branches)) if rng is None or rule == DOMINATED else rng.permutation(len(branches))
    kept: dict[tuple, tuple[float, int]] = {}  # signature -> (constant of the kept branch's margin, branch)
    keep: list[int] = []
    for bi in order:
        j = int(branches[bi])
        nodes = game.obs_nodes(o, j)
        lone = nodes[in_k[nodes]]
        if len(lone) != 1 or (rule == DOMINATED and len(nodes) != 1):
            keep.append(int(bi))
            continue
        h = int(lone[0])
        sig = _signature(game, h)
        # the margin's constant: -alternate (+ gift); its variable part is the same for the whole class
        d_j = float(game.chance_reach[h] * x[game.seq[p, h]])
        const = -float(vals.values[j]) / d_j if d_j > 0 else np.inf
        if reach:
            const += float(gift_estimates(game, p, vals.seq_values, vals.values, vals.mass, np.array([j]))[0])
        if sig not in kept:
            kept[sig] = (const, int(bi))
        elif rule == DOMINATED and const < kept[sig][0]:
            kept[sig] = (const, int(bi))  # tighter: it implies the earlier one's constraint
    keep += [bi for _, bi in kept.values()]
    return branches[np.sort(np.asarray(keep, dtype=np.int64))]


def gift_estimates(game: Game, player: int, values_seq: np.ndarray, values_obs: np.ndarray, mass: np.ndarray,
                   branches: np.ndarray) -> np.ndarray:
    """The pseudocode's gift estimate ``ĝ(J) = Σ_{I'a' ≺ J} (u*(x|I'a') - u*(x|I'))`` over
    the opponent's earlier decisions on the way to ``J``, with normalised values (⊖
    minimises ⊕'s payoff, so every term is >= 0: how much ⊖ gave away by not best
    responding). The paper adds it to the alternate payoff; here it is added to the
    margin, the direction that makes the gadget easier for ⊕."""
    info = game.info[1 - player]
    out = np.zeros(len(branches))
    for b, j in enumerate(branches):
        total = 0.0
        node = int(j)
        while info.obs_parent[node] >= 0:
            s = int(info.obs_parent_seq[node])
            par = int(info.obs_parent[node])
            if s >= 0 and mass[par] > 0:
                total += (values_seq[s] - values_obs[par]) / mass[par]
            node = par
        out[b] = total
    return out


def _plus_side(
    tp: Treeplex, roots: np.ndarray, root_parent_reach: np.ndarray, x: np.ndarray, floor: np.ndarray | None
) -> tuple[Treeplex, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """⊕'s side of the gadget: the roots and every infoset below them with relative
    sequences. Returns the gadget treeplex, original -> gadget and gadget -> original
    sequence maps, the gadget floors (none at the roots, capped at the blueprint) and the
    blueprint's relative sequence form."""
    plus_inf = _descendant_infosets(tp, [int(r) for r in roots])
    plus_map = np.full(tp.num_seqs, -1, dtype=np.int64)
    counts = tp.num_actions[plus_inf]
    nxt = 1
    for d in plus_inf:
        f = int(tp.first_seq[d])
        plus_map[f : f + int(tp.num_actions[d])] = np.arange(nxt, nxt + int(tp.num_actions[d]))
        nxt += int(tp.num_actions[d])
    is_root = np.isin(plus_inf, roots)
    plus_parent = np.where(is_root, 0, plus_map[tp.parent_seq[plus_inf]])
    plus_tp = Treeplex(plus_parent, counts, tuple(tp.labels[d] for d in plus_inf))
    plus_seqs = np.full(plus_tp.num_seqs, -1, dtype=np.int64)
    plus_seqs[plus_map[plus_map >= 0]] = np.flatnonzero(plus_map >= 0)
    gfloor = None
    if floor is not None:
        gfloor = np.zeros(plus_tp.num_seqs)
        gfloor[1:] = np.asarray(floor, dtype=np.float64)[plus_seqs[1:]]
        for d_new, root in enumerate(is_root):
            if root:
                f = int(plus_tp.first_seq[d_new])
                gfloor[f : f + int(plus_tp.num_actions[d_new])] = 0.0
    # the blueprint's relative sequence form in the gadget
    reach_of = dict(zip(roots.tolist(), root_parent_reach.tolist()))
    root_of_seq = np.zeros(plus_tp.num_seqs)
    for d_new, d_old in enumerate(plus_inf):
        f = int(plus_tp.first_seq[d_new])
        anc = d_old
        while anc not in reach_of:
            anc = int(tp.seq_infoset[tp.parent_seq[anc]])
        root_of_seq[f : f + int(plus_tp.num_actions[d_new])] = reach_of[anc]
    blueprint = np.zeros(plus_tp.num_seqs)
    blueprint[0] = 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(root_of_seq[1:] > 0, x[plus_seqs[1:]] / np.where(root_of_seq[1:] > 0, root_of_seq[1:], 1), 0)
    blueprint[1:] = rel
    blueprint_beh = to_behavioral(plus_tp, blueprint)
    blueprint = to_sequence(plus_tp, blueprint_beh)
    if gfloor is not None:
        # Never floor above what the blueprint plays, so the blueprint stays feasible and the
        # optimum keeps every margin >= 0. This only binds where an earlier solve already
        # rewrote an inner infoset (k >= 3 revisits); top-down k = 1 never meets it.
        gfloor = np.minimum(gfloor, blueprint_beh)

    return plus_tp, plus_map, plus_seqs, gfloor, blueprint


def make_subgame(
    game: Game,
    x: np.ndarray,
    infoset: int,
    k: int = 1,
    *,
    player: int = 0,
    floor: np.ndarray | None = None,
    reach: bool = False,
    merge_transpositions: bool = False,
    merge_rule: str = DOMINATED,
    rng: np.random.Generator | None = None,
) -> Gadget:
    """The maxmargin k-KLSS gadget at ``player``'s decision infoset ``infoset`` for her
    sequence-form blueprint ``x`` (zero-sum games; the opponent minimises her payoff).

    ``floor`` (per original sequence) is imposed at every gadget infoset except the
    roots, capped at what the blueprint plays (so the blueprint is always feasible).

    ``merge_transpositions`` (k = 1 only) drops branches whose lone node in ``I`` is a
    transposition of another branch's. ``merge_rule`` says which:

    * ``"dominated"`` (default; exact): only branches that are wholly inside ``I`` (the
      opponent's infoset holds no node outside it), and of each class of transpositions
      it keeps the one with the tightest constraint. Their sections of the gadget are
      then identical but for the top row, so the kept margin is the class's smallest and
      the merged gadget has the same value and solutions: the paper's "weakly dominated,
      removed without any loss".
    * ``"paper"``: any branch with a lone node in ``I`` (nodes outside ``I`` allowed), the
      first of each class in a random order if ``rng`` is given (the pseudocode's rule, "a
      slight amount of incorrectness"). It can raise exploitability: the dropped branch's
      constraint is lost (tested on Leduc).
    """
    if k < 1 or k % 2 == 0:
        raise EfgError(f"k-KLSS needs an odd order k >= 1, got {k}")
    if merge_transpositions and k != 1:
        raise EfgError("transposition merging is only defined for k = 1")
    if merge_rule not in MERGE_RULES:
        raise EfgError(f"merge_rule must be one of {', '.join(MERGE_RULES)}, got {merge_rule!r}")
    if not game.is_zero_sum:
        raise EfgError("1-KLSS needs a zero-sum game")
    p, o = player, 1 - player
    tp = game.treeplex(p)
    x = np.asarray(x, dtype=np.float64)
    check_strategy(tp, x)
    if not 0 <= infoset < tp.num_infosets:
        raise EfgError(f"player {p} has no decision infoset {infoset}")
    u = game.payoff[:, p]
    knodes = knowledge_set(game, p, infoset, k)
    if (game.player[knodes] != p).any():
        raise EfgError(f"the order-{k} knowledge set of infoset {infoset} holds nodes where player {p} does not act")
    in_k = np.zeros(game.num_nodes, dtype=bool)
    in_k[knodes] = True
    roots = np.unique(game.info[p].obs_decision[game.obs[p, knodes]])
    root_parent_reach = x[tp.parent_seq[roots]]

    plus_tp, plus_map, plus_seqs, gfloor, blueprint = _plus_side(tp, roots, root_parent_reach, x, floor)

    # branches: the opponent's observation infosets meeting I^k
    branches = np.unique(game.obs[o, knodes])
    vals = observation_values(game, o, x, payoff_player=p, maximize=False)
    if merge_transpositions:
        branches = _merge_transpositions(game, p, x, branches, in_k, vals, reach, merge_rule, rng)
    otp = game.treeplex(o)
    oinfo = game.info[o]
    normal = np.zeros(len(branches))
    rows: list[np.ndarray] = []
    col_branch: list[np.ndarray] = []
    col_seq: list[np.ndarray] = []
    data: list[np.ndarray] = []
    minus_inf: list[np.ndarray] = []
    minus_branch: list[np.ndarray] = []
    for b, j in enumerate(branches):
        nodes = game.obs_nodes(o, int(j))
        inside = nodes[in_k[nodes]]
        outside = nodes[~in_k[nodes]]
        d_j = float((game.chance_reach[inside] * x[game.seq[p, inside]]).sum())
        normal[b] = d_j
        if d_j <= 0:
            raise EfgError(f"branch {b}: the blueprint never reaches infoset {infoset} there (D = 0)")
        below = _subtree_nodes(game, nodes)
        acting = below[game.player[below] == o]
        infs = np.unique(oinfo.obs_decision[game.obs[o, acting]])
        minus_inf.append(infs)
        minus_branch.append(np.full(len(infs), b))
        for group, is_inside in ((inside, True), (outside, False)):
            for h in group:
                z = np.arange(h, game.subtree_end[h])
                z = z[game.player[z] == TERMINAL]
                if is_inside:
                    coef = u[z] * game.chance_reach[z] * x[game.seq[p, h]] / d_j
                    r = plus_map[game.seq[p, z]]
                else:
                    coef = u[z] * game.chance_reach[z] * x[game.seq[p, z]] / d_j
                    r = np.zeros(len(z), dtype=np.int64)
                s_o = game.seq[o, z]
                at_branch = s_o == oinfo.obs_seq[j]
                rows.append(r)
                col_branch.append(np.where(at_branch, b, -1))
                col_seq.append(np.where(at_branch, -1, s_o))
                data.append(coef)
    alternate = vals.values[branches] / normal
    gift = np.zeros(len(branches))
    if reach:
        gift = gift_estimates(game, p, vals.seq_values, vals.values, vals.mass, branches)
    # B[∅, branch] = -alternate (+ gift)
    rows.append(np.zeros(len(branches), dtype=np.int64))
    col_branch.append(np.arange(len(branches)))
    col_seq.append(np.full(len(branches), -1))
    data.append(-alternate + gift)

    inner = np.concatenate(minus_inf) if minus_inf else np.zeros(0, np.int64)
    inner_branch = np.concatenate(minus_branch) if minus_branch else np.zeros(0, np.int64)
    srt = np.argsort(inner, kind="stable")
    inner, inner_branch = inner[srt], inner_branch[srt]
    # parent of each inner infoset: a branch (its parent sequence is the one at J) or an inner sequence
    inner_parent_seq = otp.parent_seq[inner]
    parent_is_branch = inner_parent_seq == oinfo.obs_seq[branches[inner_branch]]
    inner_par_branch = np.where(parent_is_branch, inner_branch, -1)
    inner_labels = tuple(otp.labels[d] for d in inner)
    minus_map = np.full(otp.num_seqs, -1, dtype=np.int64)
    nxt = 0
    for d in inner:
        f = int(otp.first_seq[d])
        minus_map[f : f + int(otp.num_actions[d])] = np.arange(nxt, nxt + int(otp.num_actions[d]))
        nxt += int(otp.num_actions[d])
    inner_par_seq = np.where(parent_is_branch, -1, minus_map[inner_parent_seq])
    if (inner_par_seq[~parent_is_branch] < 0).any():
        raise EfgError("gadget: an opponent infoset's parent sequence lies outside its branch")
    r_all = np.concatenate(rows)
    cb = np.concatenate(col_branch)
    cs = np.concatenate(col_seq)
    cs_inner = np.where(cs >= 0, minus_map[np.maximum(cs, 0)], -1)
    entries = (r_all, cb, cs_inner, np.concatenate(data))
    inner_struct = (inner_par_branch, inner_par_seq, otp.num_actions[inner], inner_labels)
    gad = Gadget(
        form=MAXMARGIN, sf=None,  # type: ignore[arg-type]  # a placeholder: _assemble below builds the sequence form
        player=p, infoset=int(infoset), roots=roots, plus_seqs=plus_seqs,
        root_reach=root_parent_reach, branches=branches, branch_seq=np.zeros(0, np.int64), normalizer=normal,
        alternate=alternate, gift=gift, blueprint=blueprint, floor=gfloor, _inner=inner_struct, _entries=entries,
    )
    return _assemble(gad, plus_tp, MAXMARGIN)


def _assemble(gad: Gadget, plus_tp: Treeplex, form: str) -> Gadget:
    n = gad.num_branches
    par_branch, par_seq, counts, labels = gad._inner
    if form == MAXMARGIN:
        head_parent = np.zeros(1, dtype=np.int64)
        head_counts = np.array([n])
        head_labels: tuple[tuple[str, ...], ...] = (tuple(f"J{int(j)}" for j in gad.branches),)
        branch_seq = 1 + np.arange(n)
        scale = 1.0
    elif form == RESOLVE:
        head_parent = np.zeros(n, dtype=np.int64)
        head_counts = np.full(n, 2)
        head_labels = tuple(("exit", "play") for _ in range(n))
        branch_seq = 2 + 2 * np.arange(n)
        scale = 1.0 / n
    else:
        raise EfgError(f"unknown gadget form {form!r}; use {MAXMARGIN!r} or {RESOLVE!r}")
    offset = 1 + int(head_counts.sum())
    parents = np.concatenate([head_parent, np.where(par_branch >= 0, branch_seq[np.maximum(par_branch, 0)], offset + par_seq)])
    minus_tp = Treeplex(parents, np.concatenate([head_counts, counts]), head_labels + labels)
    rows, cb, cs, data = gad._entries
    cols = np.where(cb >= 0, branch_seq[np.maximum(cb, 0)], offset + cs)
    mat = sp.coo_matrix((data * scale, (rows, cols)), shape=(plus_tp.num_seqs, minus_tp.num_seqs)).tocsr()
    sf = SequenceForm((plus_tp, minus_tp), (mat, (-mat).tocsr()))
    return replace(gad, form=form, sf=sf, branch_seq=branch_seq)


def to_resolve(gad: Gadget) -> Gadget:
    """MaxmarginToResolve: nature picks a branch uniformly, ⊖ may Exit (0) or Play; B/N."""
    return _assemble(gad, gad.sf.treeplex[0], RESOLVE)


def to_maxmargin(gad: Gadget) -> Gadget:
    """ResolveToMaxmargin: the inverse of :func:`to_resolve`."""
    return _assemble(gad, gad.sf.treeplex[0], MAXMARGIN)


def margins(gad: Gadget, r: np.ndarray) -> np.ndarray:
    """Each branch's margin ``(V(x', J) - V(x, J)) / D_J (+ gift)`` for the gadget ⊕
    strategy ``r`` (in either form; resolve values are scaled back by N)."""
    check_strategy(gad.sf.treeplex[0], r)
    c = gad.sf.payoff[0].T @ np.asarray(r, dtype=np.float64)
    br = optimize_linear(gad.sf.treeplex[1], c, maximize=False)
    out = br.seq_values[gad.branch_seq]
    return out * gad.num_branches if gad.form == RESOLVE else out


@dataclass(frozen=True)
class GadgetSolution:
    """``strategy``: gadget ⊕ sequence form; ``value``: the gadget's value (the smallest
    margin in maxmargin form; the mean of min(0, margin) in resolve form)."""

    strategy: np.ndarray
    value: float


#: HiGHS method for gadget LPs. Gadgets often have many optimal strategies (only the
#: smallest margin is maximised); the interior-point solve (then crossover) lands on the
#: ones that reproduce the paper's Kuhn (.0015) and Kuhn ε-bet (0) figures, dual simplex
#: on others (Kuhn .0050, Kuhn ε-bet .0035). Both are exact maxmargin solutions.
GADGET_LP_METHOD = "highs-ipm"


def solve_gadget(gad: Gadget, method: str = GADGET_LP_METHOD) -> GadgetSolution:
    """An equilibrium ⊕ strategy of the gadget (maxmin LP, HiGHS), floors respected. If
    the interior-point method fails on an ill-conditioned gadget, dual simplex is tried."""
    what = f"{gad.form} gadget at infoset {gad.infoset}"
    tps, pay = gad.sf.treeplex, gad.sf.payoff[0]
    try:
        res = maxmin_matrix(tps[0], tps[1], pay, gad.floor, what=what, method=method)
    except EfgError:
        if method == "highs-ds":
            raise
        res = maxmin_matrix(tps[0], tps[1], pay, gad.floor, what=what, method="highs-ds")
    return GadgetSolution(res.strategy, res.value)


def apply_solution(game: Game, beh: np.ndarray, gad: Gadget, r: np.ndarray) -> np.ndarray:
    """The behavioural strategy ``beh`` with the gadget solution ``r`` played at every root
    of ``I^k`` and below (Theorem 4 overrides the blueprint on all of the closure of
    ``I^k``: the margins certify only that; for k = 1 it is the subtree of ``I``).
    Infosets that ``r`` never reaches keep ``beh``."""
    tp = gad.sf.treeplex[0]
    rb = to_behavioral(tp, r)
    out = np.array(beh, dtype=np.float64, copy=True)
    for d in range(tp.num_infosets):
        if r[tp.parent_seq[d]] <= 0:
            continue
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        out[gad.plus_seqs[f : f + n]] = rb[f : f + n]
    return out
