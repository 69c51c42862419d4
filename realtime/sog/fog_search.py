"""GT-CFR on any game of :mod:`realtime.sog.fog` (Schmid et al., Student of Games,
"Search via Growing-Tree CFR"): the same search as :mod:`realtime.sog.search`, over
information-state slots instead of poker hands.

A search grows a tree of public states under its root. A *regret-update phase* runs
``ceil(1/c)`` public-tree CFR iterations (simultaneous updates, regret-matching+,
linearly weighted average policy; leaf values from a value function at the beliefs
Bayes' rule gives under the current profile; exact terminal values); an *expansion
phase* runs ``ceil(c)`` simulations: sample an information state from the root
beliefs (players alternate), a world state from it, and walk down choosing actions by
``1/2 PUCT + 1/2 CFR average policy`` until a public state outside the tree's interior,
which is then expanded. Imperfect-information games add all children (k = infinity);
perfect-information games add the prior's best action only and later ones when a
simulation selects them (k = 1, as the paper prescribes). Chance public states are
expanded with their parent.

PUCT is AlphaZero's ``Q + c_puct * P * sqrt(N) / (1 + N(a))`` with ``Q`` the counterfactual
action value divided by the opponent's reach mass at the information state (a
state-conditional value) and by the largest stake.

>>> from realtime.sog.fog import load
>>> ps = load("kuhn")
>>> root = ps.first_decisions()[0]
>>> search = FogSearch(ps, root, ps.initial_ranges(root), ExactValue(ps), seed=0).run(200, 1)
>>> round(search.root_value(), 2)  # Kuhn's value for player 0 is -1/18 = -0.056
-0.05
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from realtime.sog import fog_kernels as FK
from realtime.sog import kernels as PK
from realtime.sog.fog import CHANCE, TERMINAL, PublicStates
from realtime.sog.search import Gadget, SoGError, schedule


@dataclass
class LeafValue:
    """What a value function returns for one public state: both players' counterfactual values
    per slot and optionally the actor's prior (slots x actions, rows summing to 1)."""

    v0: np.ndarray
    v1: np.ndarray
    prior: np.ndarray | None = None


class FogValueFunction(Protocol):
    """Counterfactual values at public states given both players' reaches (one entry per state)."""

    def evaluate(self, ps: PublicStates, states: list[int], r0: list[np.ndarray], r1: list[np.ndarray]) -> list[LeafValue]: ...


@dataclass
class FogSearchStats:
    cfr_iterations: int = 0
    simulations: int = 0
    value_queries: int = 0
    queries: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)


class ExactValue:
    """Leaf values by solving the whole subgame below each state with ``iterations`` of CFR+."""

    def __init__(self, ps: PublicStates, iterations: int = 200) -> None:
        self.iterations = int(iterations)
        n0, n1 = ps.num_slots
        e = ps.num_policy_entries
        self.R0, self.R1, self.V0, self.V1 = np.zeros(n0), np.zeros(n1), np.zeros(n0), np.zeros(n1)
        self.A0, self.A1 = np.zeros(n0), np.zeros(n1)
        self.strat, self.regret, self.ssum, self.Q, self.avg = (np.zeros(e) for _ in range(5))
        self.allowed = np.ones(e, dtype=np.bool_)
        self.everywhere = np.ones(ps.num_states, dtype=np.bool_)
        self._subtrees: dict[int, np.ndarray] = {}

    def evaluate(self, ps: PublicStates, states: list[int], r0: list[np.ndarray], r1: list[np.ndarray]) -> list[LeafValue]:
        out = []
        for p, a, b in zip(states, r0, r1):
            sub = self._subtrees.get(p)
            if sub is None:
                sub = self._subtrees[p] = ps.subtree(p)
            s0, s1 = ps.slots(0, p), ps.slots(1, p)
            self.R0[s0.start : s0.stop] = a
            self.R1[s1.start : s1.stop] = b
            FK.solve(sub, p, self.iterations, ps.kernel_bundle, self.strat, self.regret, self.ssum, self.allowed,
                     self.everywhere, self.everywhere, self.R0, self.R1, self.V0, self.V1, self.Q, self.avg, self.A0, self.A1)
            out.append(LeafValue(self.V0[s0.start : s0.stop].copy(), self.V1[s1.start : s1.stop].copy()))
        return out


class ZeroValue:
    """A value function that knows nothing: zero values and no prior (search alone, for comparisons)."""

    def evaluate(self, ps: PublicStates, states: list[int], r0: list[np.ndarray], r1: list[np.ndarray]) -> list[LeafValue]:
        return [LeafValue(np.zeros(len(a)), np.zeros(len(b))) for a, b in zip(r0, r1)]


class FogSearch:
    """One GT-CFR search from public state ``root`` (see the module docstring).

    ``ranges`` are both players' reaches over the root's slots (the ``gadget``'s
    opponent range is replaced by the gadget's). ``k``: children added per expansion
    (None: all for imperfect-information games, 1 for perfect-information ones).
    """

    def __init__(self, ps: PublicStates, root: int, ranges: tuple[np.ndarray, np.ndarray], value_fn: FogValueFunction,
                 *, seed: int = 0, gadget: Gadget | None = None, c_puct: float = 1.25, k: int | None = None,
                 log_queries: bool = False) -> None:
        if not 0 <= root < ps.num_states or ps.kind[root] not in (0, 1):
            raise SoGError(f"search root {root} is not a public decision state")
        self.ps = ps
        self.root = root
        self.value_fn = value_fn
        self.gadget = gadget
        self.c_puct = c_puct
        self.k = (1 if ps.perfect_information else 0) if k is None else int(k)  # 0: all children
        self.rng = np.random.default_rng(seed)
        self.log_queries = log_queries
        self.stats = FogSearchStats()
        self.root_slots = (ps.slots(0, root), ps.slots(1, root))
        rr = []
        for i in (0, 1):
            r = np.asarray(ranges[i], dtype=np.float64)
            if r.shape != (len(self.root_slots[i]),) or np.any(r < 0) or not np.all(np.isfinite(r)):
                raise SoGError(f"range of player {i} must be {len(self.root_slots[i])} non-negative numbers")
            rr.append(r)
        self.root_ranges = rr
        n0, n1 = ps.num_slots
        e = ps.num_policy_entries
        self.R0, self.R1, self.V0, self.V1 = np.zeros(n0), np.zeros(n1), np.zeros(n0), np.zeros(n1)
        self.Vsum0, self.Vsum1 = np.zeros(n0), np.zeros(n1)
        self.strat, self.regret, self.ssum, self.Q = np.zeros(e), np.zeros(e), np.zeros(e), np.zeros(e)
        self.Qsum = np.zeros(e)
        self.visits = np.zeros(e)
        self.prior = np.zeros(e)
        self.allowed = np.ones(e, dtype=np.bool_)
        self.expanded = np.zeros(ps.num_states, dtype=np.bool_)
        self.in_tree = np.zeros(ps.num_states, dtype=np.bool_)
        self.in_tree[root] = True
        self.t = 0
        self.states = np.array([root], dtype=np.int64)
        self.leaves = np.zeros(0, dtype=np.int64)
        if gadget is not None:
            o = 1 - gadget.own
            if gadget.own_range.shape != (len(self.root_slots[gadget.own]),) or gadget.opp_values.shape != (len(self.root_slots[o]),):
                raise SoGError("gadget ranges / values do not match the root's information states")
            self.root_ranges[gadget.own] = np.asarray(gadget.own_range, dtype=np.float64)
            self.gadget_regret = np.zeros((2, len(self.root_slots[o])))
            self.follow = np.zeros(len(self.root_slots[o]))
            self.opp_prev_range = np.asarray(gadget.opp_prev_range, dtype=np.float64)
            self.root_opp_sum = np.zeros(len(self.root_slots[o]))
        self._set_uniform(root)
        self._expand(root)

    # --- tree structure ---------------------------------------------------------------

    def _entries(self, p: int) -> tuple[int, int]:
        """The policy entries of decision state ``p`` (its actor's slots' actions are contiguous)."""
        a = int(self.ps.kind[p])
        sl = self.ps.slots(a, p)
        ao, na = self.ps.action_offset[a], self.ps.num_actions[a]
        return int(ao[sl.start]), int(ao[sl.stop - 1] + na[sl.stop - 1])

    def _set_uniform(self, p: int) -> None:
        lo, hi = self._entries(p)
        a = int(self.ps.kind[p])
        for s in self.ps.slots(a, p):
            o, n = int(self.ps.action_offset[a][s]), int(self.ps.num_actions[a][s])
            self.strat[o : o + n] = 1.0 / n
            if not self.prior[o : o + n].any():
                self.prior[o : o + n] = 1.0 / n
        self.allowed[lo:hi] = True

    def _child_of_action(self, p: int, action: int) -> int:
        """The child public state action ``action`` leads to (perfect-information games)."""
        a = int(self.ps.kind[p])
        for c in self.ps.children(p):
            if int(self.ps.action[a][self.ps.slot_start[a, c]]) == action:
                return int(c)
        raise SoGError(f"no child of public state {p} for action {action}")

    def _add(self, c: int) -> None:
        self.in_tree[c] = True
        if self.ps.kind[c] == CHANCE:
            self._expand(c)
        elif self.ps.kind[c] != TERMINAL:
            self._set_uniform(c)

    def _expand(self, p: int) -> None:
        self.expanded[p] = True
        ps = self.ps
        if self.k == 1 and ps.kind[p] in (0, 1):
            lo, hi = self._entries(p)
            best = int(np.argmax(self.prior[lo:hi]))
            self.allowed[lo:hi] = False
            self.allowed[lo + best] = True
            self._set_strategy_allowed(p)
            self._add(self._child_of_action(p, best))
        else:
            for c in ps.children(p):
                self._add(int(c))
        self._refresh()

    def _allow(self, p: int, action: int) -> None:
        lo, _ = self._entries(p)
        self.allowed[lo + action] = True
        self._set_strategy_allowed(p)
        self._add(self._child_of_action(p, action))
        self._refresh()

    def _set_strategy_allowed(self, p: int) -> None:
        FK.regret_match(np.array([p], dtype=np.int64), self.expanded, self.ps.kernel_bundle, self.regret, self.allowed, self.strat)

    def _refresh(self) -> None:
        states = np.flatnonzero(self.in_tree)  # numbered parents before children
        self.states = states.astype(np.int64)
        kinds = self.ps.kind[states]
        self.leaves = states[(kinds <= 1) & ~self.expanded[states]]

    @property
    def tree_size(self) -> int:
        """Public states in the search tree."""
        return int(len(self.states))

    # --- regret-update phase -------------------------------------------------------------

    def _root_reach(self) -> None:
        s0, s1 = self.root_slots
        R = (self.R0[s0.start : s0.stop], self.R1[s1.start : s1.stop])
        g = self.gadget
        if g is None:
            R[0][:] = self.root_ranges[0]
            R[1][:] = self.root_ranges[1]
            return
        o = 1 - g.own
        PK.gadget_root_reach(g.alpha, self.root_ranges[g.own], self.opp_prev_range, np.ones(len(self.follow)),
                             self.gadget_regret, self.follow, self.root_opp_sum, R[g.own], R[o])

    def _leaf_values(self) -> None:
        leaves = [int(p) for p in self.leaves]
        if not leaves:
            return
        ps = self.ps
        r0 = [self.R0[ps.slot_start[0, p] : ps.slot_start[0, p + 1]].copy() for p in leaves]
        r1 = [self.R1[ps.slot_start[1, p] : ps.slot_start[1, p + 1]].copy() for p in leaves]
        out = self.value_fn.evaluate(ps, leaves, r0, r1)
        self.stats.value_queries += len(leaves)
        for p, a, b, lv in zip(leaves, r0, r1, out):
            self.V0[ps.slot_start[0, p] : ps.slot_start[0, p + 1]] = lv.v0
            self.V1[ps.slot_start[1, p] : ps.slot_start[1, p + 1]] = lv.v1
            if self.log_queries:
                self.stats.queries.append((p, a, b))
            if lv.prior is not None:
                actor = int(ps.kind[p])
                for j, s in enumerate(ps.slots(actor, p)):
                    o, n = int(ps.action_offset[actor][s]), int(ps.num_actions[actor][s])
                    self.prior[o : o + n] = lv.prior[j, :n]

    def cfr_iteration(self) -> None:
        """One regret update of both players on the current tree."""
        self.t += 1
        self._root_reach()
        F = self.ps.kernel_bundle
        FK.reach_pass(self.states, self.root, F, self.strat, self.R0, self.R1)
        self._leaf_values()
        FK.value_pass(self.states, self.expanded, self.in_tree, F, self.strat, self.regret, self.ssum, self.allowed,
                      float(self.t), True, self.R0, self.R1, self.V0, self.V1, self.Q, self.R0, self.R1)
        FK.regret_match(self.states, self.expanded, F, self.regret, self.allowed, self.strat)
        self.Vsum0 += self.V0
        self.Vsum1 += self.V1
        self.Qsum += self.Q
        if self.gadget is not None:
            o = 1 - self.gadget.own
            sl = self.root_slots[o]
            PK.gadget_update(self.follow, (self.V0, self.V1)[o][sl.start : sl.stop], np.asarray(self.gadget.opp_values, dtype=np.float64),
                             self.gadget_regret)
        self.stats.cfr_iterations += 1

    # --- expansion phase -------------------------------------------------------------------

    def _sample_root_node(self, i: int) -> int | None:
        ps = self.ps
        nodes = ps.nodes(self.root)
        R = (self.R0, self.R1)
        sl = self.root_slots[i]
        own = R[i][sl.start : sl.stop]
        if not own.sum() > 0:
            return None
        slot = sl.start + int(self.rng.choice(len(own), p=own / own.sum()))
        nodes = nodes[ps.node_slot[i, nodes] == slot]
        w = ps.game.chance_reach[nodes] * R[1 - i][ps.node_slot[1 - i, nodes]]
        if not w.sum() > 0:
            w = ps.game.chance_reach[nodes]
        return int(nodes[self.rng.choice(len(nodes), p=w / w.sum())])

    def _average_policy(self, lo: int, hi: int) -> np.ndarray:
        s = self.ssum[lo:hi] * self.allowed[lo:hi]
        total = s.sum()
        if total > 0:
            return s / total
        a = self.allowed[lo:hi].astype(np.float64)
        return a / a.sum()

    def _puct(self, h: int, actor: int, slot: int, lo: int, hi: int) -> int:
        ps = self.ps
        # state-conditional action values: counterfactual values over the opponent's reach mass
        p = int(ps.node_state[h])
        nodes = ps.nodes(p)
        mine = nodes[ps.node_slot[actor, nodes] == slot]
        mass = float(np.sum(ps.game.chance_reach[mine] * (self.R0, self.R1)[1 - actor][ps.node_slot[1 - actor, mine]]))
        q = self.Qsum[lo:hi] / (self.t * mass * ps.max_stake) if mass > 0 and self.t else np.zeros(hi - lo)
        q = np.where(self.allowed[lo:hi], q, 0.0)
        n = self.visits[lo:hi]
        score = q + self.c_puct * self.prior[lo:hi] * math.sqrt(n.sum() + 1.0) / (1.0 + n)
        return int(np.argmax(score))

    def simulate(self) -> None:
        """One expansion simulation (see the module docstring)."""
        i = self.stats.simulations % 2
        self.stats.simulations += 1
        h = self._sample_root_node(i)
        ps, g = self.ps, self.ps.game
        while h is not None:
            p = int(ps.node_state[h])
            kind = int(ps.kind[p])
            if kind == TERMINAL:
                return
            if not self.expanded[p]:
                self._expand(p)
                return
            if kind == CHANCE:
                h = ps.deal(h, self.rng)
                continue
            kids = g.children(h)
            slot = int(ps.node_slot[kind, h])
            lo = int(ps.action_offset[kind][slot])
            hi = lo + int(ps.num_actions[kind][slot])
            best = self._puct(h, kind, slot, lo, hi)
            if not self.allowed[lo + best]:
                self.visits[lo + best] += 1
                self._allow(p, best)
                return
            pol = 0.5 * self._average_policy(lo, hi)
            pol[best] += 0.5
            a = int(self.rng.choice(hi - lo, p=pol / pol.sum()))
            self.visits[lo + a] += 1
            h = int(kids[a])

    # --- the search ------------------------------------------------------------------------

    def run(self, simulations: int, c: float) -> FogSearch:
        """GT-CFR(s, c): ``s / ceil(c)`` iterations of ``ceil(1/c)`` CFR updates + ``ceil(c)`` simulations."""
        rounds, updates, sims = schedule(simulations, c)
        for _ in range(rounds):
            for _ in range(updates):
                self.cfr_iteration()
            if simulations:
                for _ in range(sims):
                    self.simulate()
        return self

    # --- outputs ---------------------------------------------------------------------------

    def average_strategy(self) -> np.ndarray:
        """Average policy entries at every expanded decision (zero elsewhere)."""
        out = np.zeros(self.ps.num_policy_entries)
        FK.average_into(self.states, self.expanded, self.ps.kernel_bundle, self.ssum, self.allowed, out)
        return out

    def policy(self, state: int | None = None) -> list[np.ndarray]:
        """The average policy at an expanded decision state (default the root): one row of action
        probabilities per slot of its actor."""
        p = self.root if state is None else state
        if not self.expanded[p] or self.ps.kind[p] not in (0, 1):
            raise SoGError(f"public state {p} is not an expanded decision of this search")
        avg = self.average_strategy()
        a = int(self.ps.kind[p])
        return [avg[int(self.ps.action_offset[a][s]) : int(self.ps.action_offset[a][s] + self.ps.num_actions[a][s])]
                for s in self.ps.slots(a, p)]

    def average_values(self, state: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Average counterfactual values (1/T sum over iterations) of both players at ``state``."""
        p = self.root if state is None else state
        if self.t == 0:
            raise SoGError("no CFR iteration has run")
        s0, s1 = self.ps.slots(0, p), self.ps.slots(1, p)
        return self.Vsum0[s0.start : s0.stop] / self.t, self.Vsum1[s1.start : s1.stop] / self.t

    def average_reaches(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches at every in-tree slot under the average policy (a gadget's opponent
        root range is its average over the iterations)."""
        R0, R1 = self.R0.copy(), self.R1.copy()
        s0, s1 = self.root_slots
        R0[s0.start : s0.stop], R1[s1.start : s1.stop] = self.root_ranges[0], self.root_ranges[1]
        if self.gadget is not None and self.t:
            sl = self.root_slots[1 - self.gadget.own]
            (R0, R1)[1 - self.gadget.own][sl.start : sl.stop] = self.root_opp_sum / self.t
        FK.reach_pass(self.states, self.root, self.ps.kernel_bundle, self.average_strategy(), R0, R1)
        return R0, R1

    def root_value(self) -> float:
        """Player 0's expected payoff at the root under the average values, per unit of belief mass."""
        ps = self.ps
        v0, _ = self.average_values()
        nodes = ps.nodes(self.root)
        s0, s1 = self.root_slots
        r0 = self.R0[s0.start : s0.stop]
        mass = float(np.sum(ps.game.chance_reach[nodes] * self.R0[ps.node_slot[0, nodes]] * self.R1[ps.node_slot[1, nodes]]))
        return float(np.dot(r0, v0)) / mass if mass > 0 else 0.0
