"""Leaf evaluators for real subgames: rollouts of a blueprint's continuation strategies.

:class:`RolloutLeafEvaluator` implements :class:`pokerbot.solver.leaves.LeafEvaluator`
for depth-limited hold'em subgames (a HUNL flop subgame stopped at the end of the flop).
The exact and table evaluators for small games are in :mod:`pokerbot.solver.leaf_tables`;
a network evaluator plugs into the same interface.

**Leaf mapping** (Modicum, appendix A: "based on similarity of the action sequence").
A leaf's real action history is replayed in the blueprint's abstract game: at each
node the real action maps to the abstract action of the same kind (fold, call) or, for
a raise, to the abstract raise whose pot fraction (``abstraction.actions.fraction_of_raise``,
measured in the abstract state) is nearest to the real raise's fraction in the real state;
all-in maps to all-in. Ties go to the smaller size. Values found at the abstract leaf
are scaled by ``real pot / abstract pot`` (values as pot fractions). A leaf whose mapped
line ends the abstract hand early (say a real half-pot bet mapped to an abstract all-in
that was called) has no continuation there; it is valued as a check-down (every
option the same).

**Rollouts.** For each continuation leaf, ``rollouts`` run-outs of the remaining board
cards are sampled (seeded). On each run-out the continuation strategies are not
sampled but *enumerated* in the abstract game below the mapped node, with every hand
mapped to its card buckets on that run-out: for each pair of options ``(k0, k1)`` and
each pair of bucket classes (turn bucket, river bucket) of the two players the payoff
is a sum over the subtree's terminals, so the run-out's values are a matrix
``U[c0, c1]`` between bucket classes. Showdown terminals use the average sign of the
hands' strengths over the pairs of hands in the two classes. Per CFR pass, a hand's
value is then ``sum_c1 U[c(h), c1] * (opponent reach in class c1)``, averaged over
run-outs: linear in the opponent's reach, cheap per iteration, no hand-pair tables.
Approximations, stated: card removal between the two hands is ignored inside the class
sums (it is exact for blocking by the board and run-out), and showdowns use class-average
equity; more rollouts reduce only the run-out sampling error.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit, prange

from pokerbot.solver.leaves import LeafEvaluator, check_choices
from pokerbot.solver.tree import PublicTree, SolverError
from pokerbot.state import ActionType, State

log = logging.getLogger("realtime")

if TYPE_CHECKING:
    from blueprint.abstract_game import AbstractGame
    from blueprint.continuation import StrategyArray
    from blueprint.model import Blueprint, CardBuckets


# --- leaf mapping --------------------------------------------------------------------------


def map_to_abstract(tree: AbstractGame, state: State) -> tuple[int, State]:
    """The abstract-game node (and abstract state) that ``state``'s action history maps to.

    ``tree`` is a :class:`blueprint.abstract_game.AbstractGame`; see the module docstring
    for the rule. Raises :class:`SolverError` if an action has no counterpart.
    """
    from abstraction.actions import fraction_of_raise

    game = tree.game
    node = 0
    abs_state = State.initial(game)
    real = State.initial(game)
    for action in state.actions():
        if tree.kind[node] != 0:  # the abstract hand is over
            return node, abs_state
        options = tree.actions(node)
        kids = tree.children(node)
        if action.kind != ActionType.RAISE:
            pick = next((i for i, a in enumerate(options) if a.kind == action.kind), None)
            if pick is None:  # a fold the abstraction lacks here: a call is the nearest continuation
                pick = next(i for i, a in enumerate(options) if a.kind == ActionType.CALL)
        else:
            raises = [i for i, a in enumerate(options) if a.kind == ActionType.RAISE]
            if not raises:
                pick = next(i for i, a in enumerate(options) if a.kind == ActionType.CALL)
            else:
                hi = real.raise_bounds()
                if hi is not None and action.size >= hi[1]:
                    pick = raises[-1]  # all-in
                else:
                    x = fraction_of_raise(real, action.size)
                    pick = min(raises, key=lambda i: (abs(fraction_of_raise(abs_state, options[i].size) - x), i))
        abs_state = abs_state.apply(options[pick])
        real = real.apply(action)
        node = kids[pick]
    return node, abs_state


# --- numba kernels ------------------------------------------------------------------------


def _class_equity(strength0, strength1, cls0, cls1, hands0, hands1, n0, n1):
    """Average sign(strength0 - strength1) over pairs of disjoint hands per class pair (``(n0, n1)``)."""
    order = np.argsort(cls0, kind="stable")  # player 0's hands class by class, in hand order within a class
    order = order[cls0[order] >= 0]
    ptr = np.searchsorted(cls0[order], np.arange(n0 + 1))
    m0 = (np.int64(1) << hands0.astype(np.int64)).sum(axis=1)  # distinct cards: the bit masks
    m1 = (np.int64(1) << hands1.astype(np.int64)).sum(axis=1)
    tot = np.zeros((n0, n1))
    _class_equity_rows(strength0, strength1, cls1, m0, m1, order, ptr, tot)
    return tot


@njit(cache=True, parallel=True)
def _class_equity_rows(strength0, strength1, cls1, m0, m1, order, ptr, tot):
    """Row ``a`` of :func:`_class_equity` from player 0's hands ``order[ptr[a]:ptr[a + 1]]``; rows in parallel,
    each summed in hand order (the same sums whatever the number of threads)."""
    n1 = tot.shape[1]
    for a in prange(tot.shape[0]):
        cnt = np.zeros(n1)
        for k in range(ptr[a], ptr[a + 1]):
            i = order[k]
            for j in range(m1.shape[0]):
                b = cls1[j]
                if b < 0 or (m0[i] & m1[j]) != 0:
                    continue
                s = strength0[i] - strength1[j]
                tot[a, b] += 1.0 if s > 0 else (-1.0 if s < 0 else 0.0)
                cnt[b] += 1.0
        for b in range(n1):
            if cnt[b] > 0:
                tot[a, b] /= cnt[b]


_CHUNK = 20  # run-outs per parallel task of :func:`_evaluate` (fixed: the sums do not depend on the thread count)


@njit(cache=True, fastmath=True, parallel=True)
def _evaluate(player, reach_t, group, cls, u_off, u_rows, u_cols, U, weight, out_t):
    """Player ``player``'s values ``out_t[l, h, k]`` at each leaf ``l`` against the opponent's reach
    ``reach_t[l, h', k']`` (both per hand, then per option).

    Run-out ``r`` of leaf ``l`` has the block U_lr = ``U[u_off[l, r]:]`` of shape (rows, k0, cols, k1): player
    0's payoff from a player-0 class and option against a player-1 class and option (``u_rows[l, r]`` and
    ``u_cols[l, r]`` classes). ``cls[p][g, r, h]`` is the class of player ``p``'s hand ``h`` on run-out ``r``
    of the leaves of group ``g = group[l]`` (leaves valued over the same run-outs share their rows); a blocked
    hand's class is one past the last: its value is zero, its reach ignored. The opponent's reach is summed by
    class, then multiplied by U_lr (player 0: the block's rows; player 1: its columns, negated), then read back
    per hand; the same block serves both players (one copy, read in order either way).

    Tasks of (leaf, ``_CHUNK`` run-outs) run in parallel, each into its own partial sum; a leaf's partial sums
    are then added in run-out order, so the result does not depend on the number of threads."""
    nl = out_t.shape[0]
    nh = out_t.shape[1]
    k_own = out_t.shape[2]
    no = reach_t.shape[1]
    k_opp = reach_t.shape[2]
    cls_own = cls[player]
    cls_opp = cls[1 - player]
    nr = cls_own.shape[1]
    nch = (nr + _CHUNK - 1) // _CHUNK
    most = max(u_rows.max(), u_cols.max()) + 1 if u_rows.size else 1
    part = np.zeros((nl * nch, nh, k_own))
    uk_own = np.uint64(k_own)  # unsigned indices: a signed one costs a wrap-around check that stops LLVM's vectoriser
    uk_opp = np.uint64(k_opp)
    for t in prange(nl * nch):
        l = t // nch
        r0 = (t % nch) * _CHUNK
        g = group[l]
        binned = np.zeros(most * k_opp)
        vals = np.zeros(most * k_own)
        pt = part[t]
        rt = reach_t[l]
        w = weight[l]
        for r in range(r0, min(nr, r0 + _CHUNK)):
            n0 = u_rows[l, r]
            n1 = u_cols[l, r]
            if n0 == 0 or n1 == 0:
                continue
            n_own = n0 if player == 0 else n1
            n_opp = n1 if player == 0 else n0
            cp = cls_own[g, r]
            co = cls_opp[g, r]
            binned[: (n_opp + 1) * k_opp] = 0.0
            for h in range(no):
                c = np.uint64(co[h]) * uk_opp
                for k in range(uk_opp):
                    binned[c + k] += rt[h, k]
            base = u_off[l, r]
            if player == 0:  # vals[a, k0] = w * U_lr[a, k0, :, :] . binned
                width = n1 * k_opp
                for i in range(n0 * k_own):
                    s = 0.0
                    row = np.uint64(base + i * width)
                    for j in range(np.uint64(width)):
                        s += U[row + j] * binned[j]
                    vals[i] = w * s
            else:  # vals[b, k1] = -w * sum_(a, k0) binned[a, k0] U_lr[a, k0, b, k1]
                width = n1 * k_own
                vals[:width] = 0.0
                for i in range(n0 * k_opp):
                    x = binned[i]
                    row = np.uint64(base + i * width)
                    for j in range(np.uint64(width)):
                        vals[j] += U[row + j] * x
                for j in range(width):
                    vals[j] *= -w
            vals[n_own * k_own : (n_own + 1) * k_own] = 0.0
            for h in range(nh):
                c = np.uint64(cp[h]) * uk_own
                for k in range(uk_own):
                    pt[h, k] += vals[c + k]
    for l in prange(nl):
        for t in range(l * nch, (l + 1) * nch):
            out_t[l] += part[t]


# --- the evaluator ---------------------------------------------------------------------------


@dataclass
class _Terminal:
    fold_by: int  # -1: showdown
    stake: float  # chips the folder loses / at stake at showdown (abstract)
    path: list[tuple[int, int, int, int]]  # (node, action index, player, round)


@dataclass
class _TerminalPaths:
    """The abstract terminals below one leaf, as each player's edges on their paths (for batched reach products).

    ``edges[p]`` rows are player ``p``'s distinct (node, action, round) decisions on any path;
    terminal ``t``'s path holds edges ``ids[p][ptr[p][t]:ptr[p][t + 1]]``. ``fold``/``show``: player 0's
    chips per unit of joint reach at each terminal (a fold's signed stake, a showdown's stake to be
    multiplied by the equity).
    """

    edges: list[np.ndarray]  # int64 (E_p, 3): node, action, round
    ptr: list[np.ndarray]
    ids: list[np.ndarray]
    fold: np.ndarray
    show: np.ndarray

    @classmethod
    def build(cls, terminals: list[_Terminal]) -> _TerminalPaths:
        edges: list[np.ndarray] = []
        ptrs: list[np.ndarray] = []
        ids: list[np.ndarray] = []
        for p in range(2):
            index: dict[tuple[int, int, int], int] = {}
            ptr = [0]
            flat: list[int] = []
            for t in terminals:
                for node, a, q, rnd in t.path:
                    if q == p:
                        flat.append(index.setdefault((node, a, rnd), len(index)))
                ptr.append(len(flat))
            edges.append(np.array(list(index), dtype=np.int64).reshape(-1, 3))
            ptrs.append(np.array(ptr, dtype=np.int64))
            ids.append(np.array(flat, dtype=np.int64))
        fold = np.array([0.0 if t.fold_by < 0 else (t.stake if t.fold_by == 1 else -t.stake) for t in terminals])
        show = np.array([t.stake if t.fold_by < 0 else 0.0 for t in terminals])
        return cls(edges, ptrs, ids, fold, show)

    def reach(self, atree: AbstractGame, player: int, strategy: StrategyArray, buckets: np.ndarray) -> np.ndarray:
        """R[t, c]: the product of ``player``'s probabilities on terminal ``t``'s path for card class ``c``
        (``buckets[round, c]`` its bucket each round), with one read of ``strategy`` for all edges."""
        e = self.edges[player]
        ncls = buckets.shape[1]
        if len(e) == 0:
            return np.ones((len(self.fold), ncls))
        node, act, rnd = e[:, 0], e[:, 1], e[:, 2]
        na = atree.num_actions[node].astype(np.int64)
        slots = atree.base[node].astype(np.int64)[:, None] + buckets[rnd] * na[:, None] + act[:, None]
        probs = np.asarray(strategy[slots.ravel()], dtype=np.float64).reshape(len(e), ncls)
        out = np.empty((len(self.fold), ncls))
        _path_products(self.ptr[player], self.ids[player], probs, out)
        return out

    def class_values(self, reach0: Sequence[np.ndarray], reach1: Sequence[np.ndarray], eq: np.ndarray) -> np.ndarray:
        """U[a, b, c0, c1]: player 0's payoff between card classes when player 0 plays its option ``a``
        (path reaches ``reach0[a]``, :meth:`reach`) and player 1 its option ``b``. Fold and showdown
        terminals are disjoint, so each terminal is in one float32 matrix product per option of player 0
        (the terminals are the inner dimension, all of player 1's options side by side)."""
        n0, n1 = eq.shape
        out = np.zeros((len(reach0), len(reach1), n0, n1))
        for weights, ids, by_equity in ((self.fold, np.nonzero(self.fold)[0], False),
                                        (self.show, np.nonzero(self.show)[0], True)):
            if len(ids) == 0:
                continue
            right = np.concatenate([r[ids] for r in reach1], axis=1).astype(np.float32)  # (T', K1 * n1)
            for a, r0 in enumerate(reach0):
                left = (r0[ids] * weights[ids, None]).T.astype(np.float32)
                m = (left @ right).astype(np.float64).reshape(n0, len(reach1), n1).transpose(1, 0, 2)
                out[a] += m * eq if by_equity else m
        return out


@njit(cache=True)
def _path_products(ptr, ids, probs, out):
    """out[t] = the product of probs[ids[k]] over k in ptr[t]..ptr[t + 1] (ones for an empty path)."""
    for t in range(out.shape[0]):
        out[t, :] = 1.0
        for k in range(ptr[t], ptr[t + 1]):
            e = ids[k]
            for c in range(out.shape[1]):
                out[t, c] *= probs[e, c]


class RolloutLeafEvaluator(LeafEvaluator):
    """Rollout values of a hold'em subgame's leaves from a blueprint's continuation strategies.

    ``blueprint`` is a :class:`blueprint.model.Blueprint` with a hold'em card preset;
    ``continuations[p]`` lists player ``p``'s options as strategy arrays over the
    blueprint's slots (a :class:`blueprint.continuation.ContinuationSet`'s strategies;
    ``[blueprint.strategy]`` for a player who plays the blueprint beyond the leaves).
    ``rollouts`` run-outs per leaf (the paper found 3 best), ``seed`` makes them
    reproducible; ``rollouts=0`` takes every run-out once (the expectation over the cards to come: a
    river leaf's 44-odd cards, a small game's flops). ``shared``: the leaves on one board are valued over the
    same sampled run-outs (common random numbers: the solve compares its actions over the same cards, and
    cannot prefer an action for the cards its leaves happened to draw); otherwise each leaf draws its own.
    The work is done here, once; :meth:`values` is a cheap batched pass.

    **Memory.** The values take ``4 k0 k1 n0 n1`` bytes a leaf and run-out (``n`` card classes a player: a few
    dozen on 12-bucket blueprints, up to the 1,326 hands on fine ones). ``max_bytes`` caps them (with the class
    equities held while building): when the planned run-outs do not fit, the first ones that do are kept (a
    sample of them, the same for every leaf, when every run-out was asked for), with a logged warning;
    :attr:`planned_bytes` and :attr:`rollouts` say what was planned and kept. ``budget_bytes`` is the same cut
    chosen as a budget rather than a memory limit (a round's ``leaf_mb``: the values cost work in proportion to
    their size every iteration), logged at info level when it binds; it keeps at least one run-out.
    """

    def __init__(
        self,
        tree: PublicTree,
        blueprint: Blueprint,
        continuations: tuple[Sequence[StrategyArray], Sequence[StrategyArray]],
        rollouts: int = 3,
        seed: int = 0,
        shared: bool = False,
        max_bytes: float | None = None,
        budget_bytes: float | None = None,
    ) -> None:
        from blueprint.continuation import as_strategy
        from blueprint.model import make_cards

        if rollouts < 0:
            raise SolverError(f"rollouts per leaf must be >= 1 (or 0: every run-out), got {rollouts}")
        self.num_choices = check_choices((len(continuations[0]), len(continuations[1])))
        game = tree.game
        if blueprint.game != game:
            raise SolverError("the blueprint was trained for another game than the subgame's")
        cards = make_cards(blueprint.cards_name, game)
        atree = blueprint.tree
        strats = [[as_strategy(s) for s in continuations[p]] for p in range(2)]
        for p in range(2):
            for s in strats[p]:
                if s.shape != (atree.num_slots,):
                    raise SolverError(f"a continuation of player {p} does not fit the blueprint ({s.shape} vs {atree.num_slots})")
        self.tree = tree
        leaves = tree.continuation_leaves
        nl = len(leaves)
        h = tree.num_hands
        rng = np.random.default_rng(seed)
        runouts = [self._runouts(tree, int(li)) for li in leaves]
        exhaustive = rollouts == 0
        if exhaustive:  # every run-out, once: the leaf's expectation over the cards to come, without sampling
            rollouts = max((math.comb(len(rem), need) for rem, need in runouts), default=1)
            if any(math.comb(len(rem), need) != rollouts for rem, need in runouts):
                raise SolverError("rollouts=0 needs the same number of run-outs at every leaf")
        k0, k1 = self.num_choices
        # 1. Plan: each leaf's abstract node, scale, board and run-outs (drawn in the same order whatever is kept).
        drawn: dict[tuple[tuple[int, ...], int], list[list[int]]] = {}  # shared: the run-outs of each board
        plans: list[tuple[int, float, list[int], list[list[int]]]] = []
        self.mapped: list[tuple[int, str]] = []
        for i, li in enumerate(leaves):
            state = tree.leaf_states[int(li)]
            node, abs_state = map_to_abstract(atree, state)
            self.mapped.append((int(node), abs_state.betting_string()))
            board = [c for g in tree.boards[int(tree.board[tree.leaf_nodes[li]])] for c in g]
            remaining, need = runouts[i]
            if exhaustive:
                runs = [[int(c) for c in d] for d in itertools.combinations(remaining, need)]
            elif shared:
                board_key = (tuple(remaining), need)
                if board_key not in drawn:
                    drawn[board_key] = [[int(c) for c in rng.choice(remaining, size=need, replace=False)]
                                        for _ in range(rollouts)]
                runs = drawn[board_key]
            else:
                runs = [[int(c) for c in rng.choice(remaining, size=need, replace=False)] for _ in range(rollouts)]
            plans.append((int(node), sum(state.spent) / max(1, sum(abs_state.spent)), board, runs))
        # 2. Fit: each run-out's card classes (cheap: bucket lookups), then as many run-outs as the leaf values
        # (float32) and the class equities (float64, held while building) fit in ``max_bytes``.
        common = shared or exhaustive  # a run-out's classes and equity depend on the cards, not the leaf
        rounds = [int(tree.leaf_states[int(li)].round) for li in leaves]
        rows_of: dict[tuple[int, ...], tuple[list[np.ndarray], list[np.ndarray]]] = {}

        def class_rows(i: int, r: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
            full = plans[i][2] + plans[i][3][r]
            key = (rounds[i], *full) if common else (i, r)
            if key not in rows_of:
                rows_of[key] = self._class_rows(tree, cards, rounds[i], full)
            return rows_of[key]

        sizes = np.array([[[b.shape[1] for b in class_rows(i, r)[1]] for r in range(rollouts)] for i in range(nl)],
                         dtype=np.int64).reshape(nl, rollouts, 2)
        per_run = (sizes[:, :, 0] * sizes[:, :, 1]).astype(np.float64)  # (leaves, run-outs): n0 * n1
        held = list({(rounds[i], *plans[i][2]): i for i in range(nl)}.values()) if common else list(range(nl))
        need_bytes = np.cumsum(4.0 * k0 * k1 * per_run.sum(axis=0) + 8.0 * per_run[held].sum(axis=0))
        #: Bytes of leaf values (and class equities while building) with every planned run-out.
        self.planned_bytes = float(need_bytes[-1]) if nl else 0.0
        memory = float("inf") if max_bytes is None else float(max_bytes)
        budget = float("inf") if budget_bytes is None else float(budget_bytes)

        def fit(cap: float) -> int:
            return rollouts if self.planned_bytes <= cap else int(np.searchsorted(need_bytes, cap, side="right"))

        keep = fit(memory)
        if keep == 0:
            raise SolverError(f"one run-out's leaf values take {need_bytes[0] / 2**20:,.1f} MiB, over the "
                              f"{memory / 2**20:,.1f} MiB cap")
        by_budget = max(fit(budget), 1)  # a budget is a time aim: at least one run-out
        if keep < rollouts or by_budget < rollouts:
            what, cap = ("cap", memory) if keep <= by_budget else ("budget", budget)
            keep = min(keep, by_budget)
            log.log(logging.WARNING if what == "cap" else logging.INFO,
                    f"leaf values over {rollouts} run-outs would take {self.planned_bytes / 2**20:,.1f} MiB, over the "
                    f"{cap / 2**20:,.1f} MiB {what}: {'sampling' if exhaustive else 'keeping'} {keep} of them")
            if exhaustive:  # every run-out does not fit: a sample of them, the same for every leaf
                pick = np.sort(rng.choice(rollouts, size=keep, replace=False))
                plans = [(n, sc, bd, [runs[j] for j in pick]) for n, sc, bd, runs in plans]  # rows_of: by cards
                exhaustive = False
            else:
                plans = [(n, sc, bd, runs[:keep]) for n, sc, bd, runs in plans]
            rollouts = keep
        #: Run-outs each leaf is valued over (those planned, or fewer when the cap binds).
        self.rollouts = int(rollouts)
        # 3. Build: the class-to-class values of every leaf and kept run-out.
        group = np.zeros(nl, dtype=np.int64)
        group_of: dict[tuple[int, ...], int] = {}
        group_cls: list[list[list[np.ndarray]]] = []  # [group][player][run-out]: the class of each hand
        rows = np.zeros((nl, rollouts), dtype=np.int64)
        cols = np.zeros((nl, rollouts), dtype=np.int64)
        off = np.zeros((nl, rollouts), dtype=np.int64)
        blocks: list[np.ndarray] = []
        pos = 0
        weight = np.zeros(nl)
        equity: dict[tuple[int, ...], np.ndarray] = {}  # shared or every run-out: each run-out's class equity
        for i, (node, scale, board, runs) in enumerate(plans):
            remaining, need = runouts[i]
            free = len(remaining) - 2 * game.num_hole_cards
            weight[i] = math.comb(len(remaining), need) / math.comb(free, need) / rollouts
            paths = _TerminalPaths.build(self._terminals(atree, node))
            key = (rounds[i], *board, *(c for run in runs for c in run)) if common else (-1 - i,)
            new_group = key not in group_of
            group[i] = group_of.setdefault(key, len(group_of))
            if new_group:
                group_cls.append([[], []])
            for r, run in enumerate(runs):
                full = board + run
                run_cls, buckets = class_rows(i, r)
                eq_key = (rounds[i], *full)
                eq = equity.get(eq_key) if common else None
                if eq is None:
                    eq = self._equity(tree, full, run_cls, buckets)
                    if common:
                        equity[eq_key] = eq
                rows[i, r], cols[i, r] = buckets[0].shape[1], buckets[1].shape[1]
                if new_group:
                    for p in range(2):  # a blocked hand: the class one past the last (valued zero)
                        group_cls[-1][p].append(np.where(run_cls[p] >= 0, run_cls[p], buckets[p].shape[1]))
                reach = [[paths.reach(atree, p, st, buckets[p]) for st in strats[p]] for p in range(2)]
                values = (paths.class_values(reach[0], reach[1], eq) * scale).astype(np.float32)  # (k0, k1, n0, n1)
                blocks.append(values.transpose(2, 0, 3, 1).ravel())  # (n0, k0, n1, k1)
                off[i, r] = pos
                pos += values.size
        self._group = group
        self._cls = tuple(np.array([g[p] for g in group_cls], dtype=np.int32).reshape(len(group_cls), rollouts, h[p])
                          for p in range(2))
        self._rows = rows
        self._cols = cols
        self._off = off
        self._U = np.concatenate(blocks) if blocks else np.zeros(0, np.float32)  # float32: half the memory
        self._weight = weight

    def leaf_classes(self, player: int) -> np.ndarray:
        """(leaves, rollouts, hands): the card class of each of ``player``'s hands on each leaf's run-outs (-1:
        blocked by the board or the run-out)."""
        c = self._cls[player][self._group]
        n = (self._rows if player == 0 else self._cols)[:, :, None]
        return np.where(c == n, -1, c)

    @staticmethod
    def _class_rows(tree: PublicTree, cards: CardBuckets, round_: int, full: list[int],
                    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """On the full board ``full``: each player's card class of every hand (-1: blocked by the board; a class
        is the hand's buckets from ``round_`` on) and the buckets of each class (rounds, classes)."""
        game = tree.game
        cls: list[np.ndarray] = []
        buckets: list[np.ndarray] = []
        for p in range(2):
            hands = tree.hands[p].astype(np.int64)
            ok = ~np.isin(hands, full).any(axis=1)
            per_round = np.zeros((game.num_rounds, len(hands)), dtype=np.int64)
            for rnd in range(round_, game.num_rounds):
                nb = game.board_cards_through(rnd)
                cards_ = np.concatenate([hands, np.tile(np.array(full[:nb], dtype=np.int64), (len(hands), 1))], axis=1)
                per_round[rnd, ok] = cards.bucket_batch(rnd, cards_[ok])
            key = np.zeros(len(hands), dtype=np.int64)
            for rnd in range(round_, game.num_rounds):
                key = key * (cards.num_buckets[rnd] + 1) + per_round[rnd]
            uniq, inv = np.unique(key[ok], return_inverse=True)
            c = np.full(len(hands), -1, dtype=np.int64)
            c[ok] = inv
            cls.append(c)
            first = np.zeros(len(uniq), dtype=np.int64)
            first[inv] = np.arange(len(inv))
            buckets.append(per_round[:, ok][:, first])  # (rounds, classes): buckets of each class
        return cls, buckets

    @staticmethod
    def _equity(tree: PublicTree, full: list[int], cls: list[np.ndarray], buckets: list[np.ndarray]) -> np.ndarray:
        """The class equity matrix on the full board ``full`` (:func:`_class_equity`)."""
        from pokerbot.solver.strength import hand_strengths

        strengths = [hand_strengths(tree.hands[p].astype(np.int64), np.array(full, dtype=np.int64)) for p in range(2)]
        return _class_equity(strengths[0], strengths[1], cls[0], cls[1], tree.hands[0].astype(np.int64),
                             tree.hands[1].astype(np.int64), buckets[0].shape[1], buckets[1].shape[1])

    @staticmethod
    def _runouts(tree: PublicTree, leaf: int) -> tuple[list[int], int]:
        """The cards a run-out at continuation leaf ``leaf`` is drawn from (the deck less the board) and how many."""
        board = {c for g in tree.boards[int(tree.board[tree.leaf_nodes[leaf]])] for c in g}
        remaining = [int(c) for c in tree.game.deck() if c not in board]
        return remaining, tree.game.total_board_cards - len(board)

    @staticmethod
    def _terminals(atree: AbstractGame, node: int) -> list[_Terminal]:
        from blueprint.abstract_game import DECISION, FOLD_NODE

        out: list[_Terminal] = []
        stack: list[tuple[int, list[tuple[int, int, int, int]]]] = [(node, [])]
        while stack:
            n, path = stack.pop()
            if atree.kind[n] == DECISION:
                for a, c in enumerate(atree.children(n)):
                    stack.append((c, path + [(n, a, int(atree.player[n]), int(atree.round[n]))]))
            elif atree.kind[n] == FOLD_NODE:
                folder = int(atree.player[n])
                out.append(_Terminal(folder, float(atree.spent[n, folder]), path))
            else:
                out.append(_Terminal(-1, float(min(atree.spent[n])), path))
        return out

    def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        nl = opp_reach.shape[0]
        out_t = np.zeros((nl, self.tree.num_hands[player], self.num_choices[player]))
        reach_t = np.ascontiguousarray(np.transpose(opp_reach, (0, 2, 1)), dtype=np.float64)
        _evaluate(player, reach_t, self._group, self._cls, self._off, self._rows, self._cols, self._U, self._weight,
                  out_t)
        return np.ascontiguousarray(np.transpose(out_t, (0, 2, 1)))
