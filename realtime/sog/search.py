"""GT-CFR (growing-tree CFR), the search of Student of Games (Schmid et al., reading notes 2.3).

``GTCFR(s, c)`` alternates, ``s / ceil(c)`` times, a *regret-update phase*
(``ceil(1/c)`` public-tree CFR iterations: simultaneous updates,
regret-matching+, linearly weighted average policy; leaf values from a value
function queried at the beliefs that Bayes' rule gives under the current
profile; exact terminal values) and an *expansion phase* (``ceil(c)``
simulations: sample an information state from the root beliefs and a world
state from it, walk down choosing actions by ``1/2 PUCT + 1/2 CFR average
policy``, and at the first public state outside the tree add all its children,
k = infinity as the paper prescribes for imperfect-information games).

The public states are the nodes of one whole-game :class:`PublicGame` (a
:class:`~pokerbot.solver.tree.PublicTree` with cached subtrees and features);
a search grows a subset of the subtree under its root. Chance nodes are
expanded together with their parent, so leaves are always decision nodes.

Simulations run one after another, so the virtual losses the paper uses for
``ceil(c) > 1`` parallel simulations are not needed. The PUCT constant and
formula are not given by the paper; this uses AlphaZero's
``Q + c_puct * P * sqrt(N) / (1 + N(a))`` with ``c_puct = 1.25`` and ``Q`` the
state-conditional value (counterfactual value over the opponent's reach)
divided by the largest stake, and plays its argmax.

>>> from realtime.sog.values import ExactValue
>>> game = PublicGame.load("kuhn")
>>> search = GTCFR(game, 0, game.initial_ranges(), ExactValue(game), seed=0)
>>> _ = search.run(simulations=500, c=1)
>>> round(search.root_value(), 2)  # average over the iterations; Kuhn's value is -1/18 = -0.056
-0.05
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.solver import BetMenu, PublicTree, game_tree
from pokerbot.solver.kernels import fold_values
from pokerbot.state import CALL, FOLD, RAISE, Action, State, raise_to
from realtime.sog import kernels as K


class SoGError(PokerbotError, ValueError):
    """Bad input to Student of Games: a bad search setting, range, network or checkpoint."""


def label_action(label: str) -> Action:
    """The action of a public-tree label ('f', 'c', 'r' or 'r<size>')."""
    if label == "f":
        return FOLD
    if label == "c":
        return CALL
    if label == "r":
        return RAISE
    return raise_to(int(label[1:]))


class PublicGame:
    """A whole game's public tree with what the searches need on top of it.

    ``parent[n]``, ``spent[n]`` (chips each player has put in), the sorted node
    list of every subtree (cached), the largest stake, the deck index of each
    card and ``max_actions``.

    >>> g = PublicGame.load("leduc")
    >>> g.tree.num_nodes, g.max_actions, g.num_hands
    (465, 3, (6, 6))
    """

    def __init__(self, tree: PublicTree) -> None:
        self.tree = tree
        self.game: GameDef = tree.game
        t = tree
        n = t.num_nodes
        self.parent = np.full(n, -1, dtype=np.int64)
        self.spent = np.zeros((n, 2))
        self.round = np.zeros(n, dtype=np.int64)
        states: list[State | None] = [None] * n
        states[0] = t.root_state
        for i in range(n):
            st = states[i]
            assert st is not None
            self.spent[i] = st.spent[:2]
            self.round[i] = st.round
            f, nc = int(t.first_child[i]), int(t.num_children[i])
            for c in range(nc):
                self.parent[f + c] = i
                if t.kind[i] == K.DECISION:
                    states[f + c] = st.apply(label_action(t.node_labels(i)[c]))
                else:
                    states[f + c] = st
        self.states = states
        dec = t.kind == K.DECISION
        self.max_actions = int(t.num_children[dec].max())
        self.max_stake = float(max(np.abs(t.amount).max(), 1.0))
        deck = sorted(self.game.deck())
        self.card_index = {c: i for i, c in enumerate(deck)}
        # compat[h0, h1] = 1 when the two players' hands share no card.
        h0, h1 = t.hands
        self.compat = np.array([[0.0 if set(a.tolist()) & set(b.tolist()) else 1.0 for b in h1] for a in h0])
        self.expandable = np.ones(n, dtype=np.bool_)
        self.expandable[(t.kind == K.FOLD_NODE) | (t.kind == K.SHOWDOWN)] = False
        self._subtrees: dict[int, np.ndarray] = {}

    @classmethod
    def load(cls, game: GameDef | str, bet_menu: BetMenu | None = None) -> PublicGame:
        if isinstance(game, str):
            game = load_game(game)
        if game.num_players != 2 or game.num_hole_cards != 1 or game.deck_size > 13:
            # Searches keep dense per-node arrays over the whole public tree: small games only.
            raise SoGError(f"Student of Games here plays small two-player one-card games (kuhn, leduc, leduc-nl), "
                           f"not {game.name or 'this game'}")
        return cls(game_tree(game, bet_menu))

    @property
    def num_hands(self) -> tuple[int, int]:
        return self.tree.num_hands

    def subtree(self, node: int) -> np.ndarray:
        """Sorted node ids of the subtree under ``node`` (``node`` first)."""
        got = self._subtrees.get(node)
        if got is None:
            t = self.tree
            out = [node]
            stack = [node]
            while stack:
                m = stack.pop()
                f, nc = int(t.first_child[m]), int(t.num_children[m])
                out.extend(range(f, f + nc))
                stack.extend(range(f, f + nc))
            got = np.array(sorted(out), dtype=np.int64)
            self._subtrees[node] = got
        return got

    def initial_ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' ranges at the root: every hand that misses the root board."""
        b = self.tree.root_board
        return self.tree.valid[0][b].copy(), self.tree.valid[1][b].copy()

    def opponent_mass(self, player: int, reach_opp: np.ndarray) -> np.ndarray:
        """Per hand of ``player``: the opponent's reach over hands that share no card with it."""
        return self.compat @ reach_opp if player == 0 else self.compat.T @ reach_opp

    def opponent_masses(self, r0: np.ndarray, r1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of :meth:`opponent_mass` for both players (``r0``, ``r1``: one row per belief state)."""
        return r1 @ self.compat.T, r0 @ self.compat

    def decision_children(self, node: int) -> list[int]:
        """The next decision nodes below ``node`` (through chance nodes), skipping terminals."""
        t = self.tree
        out: list[int] = []
        f, nc = int(t.first_child[node]), int(t.num_children[node])
        for c in range(f, f + nc):
            if t.kind[c] == K.DECISION:
                out.append(c)
            elif t.kind[c] == K.CHANCE:
                out.extend(self.decision_children(c))
        return out

    def node_of(self, state: State, translate: bool = False) -> int:
        """The public node of a (live) state: its betting and visible board. Raises :class:`SoGError`.

        With ``translate``, a no-limit raise that is not in the bet menu counts as
        the menu raise of the nearest size.
        """
        t = self.tree
        n = 0
        board = state.visible_board
        for rnd, actions in enumerate(state.history):
            for _, action in actions:
                while t.kind[n] == K.CHANCE:
                    n = self._deal(n, board)
                if t.kind[n] != K.DECISION:
                    raise SoGError(f"state {state.betting_string()!r} goes past the end of the public tree")
                labels = t.node_labels(n)
                text = "r" if (action.kind == RAISE.kind and not self.game.nolimit) else str(action)
                if text not in labels and translate and action.kind == RAISE.kind:
                    sizes = [(abs(int(lab[1:]) - action.size), lab) for lab in labels if lab.startswith("r") and lab != "r"]
                    if sizes:
                        text = min(sizes)[1]
                if text not in labels:
                    raise SoGError(f"action {text!r} at {t.betting[int(t.template[n])]!r} is not in the bet menu {labels}")
                n = int(t.first_child[n]) + labels.index(text)
        while t.kind[n] == K.CHANCE:
            n = self._deal(n, board)
        return n

    def _deal(self, node: int, board: Sequence[int]) -> int:
        t = self.tree
        f, nc = int(t.first_child[node]), int(t.num_children[node])
        for c in range(f, f + nc):
            cards = [x for g in t.boards[int(t.board[c])] for x in g]
            if sorted(cards) == sorted(board[: len(cards)]):
                return c
        raise SoGError(f"board {board} is not dealt below public node {node}")


@dataclass
class LeafValues:
    """What a value function returns for ``k`` leaves: counterfactual values and an optional prior."""

    v0: np.ndarray  # (k, H0)
    v1: np.ndarray  # (k, H1)
    prior: np.ndarray | None = None  # (k, max_actions, max(H0, H1)): acting player's policy per hand


class ValueFunction(Protocol):
    """Counterfactual values of both players at public leaves given both reaches (rows per leaf)."""

    def evaluate(self, game: PublicGame, nodes: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> LeafValues: ...


@dataclass
class Gadget:
    """The safe re-solving gadget at the search root with range mixing (reading notes 2.4).

    ``own`` keeps its range ``own_range``; every opponent hand chooses
    Terminate (receive ``opp_values``, its average counterfactual values from the
    previous search) or Follow; the opponent range entering the subgame is
    ``alpha * F + (1 - alpha) * opp_prev_range`` (both normalised).
    """

    own: int
    own_range: np.ndarray
    opp_values: np.ndarray
    opp_prev_range: np.ndarray
    alpha: float = 0.5


def _normalised(x: np.ndarray) -> np.ndarray:
    s = float(x.sum())
    return x / s if s > 0 else x


@dataclass
class SearchStats:
    cfr_iterations: int = 0
    simulations: int = 0
    value_queries: int = 0
    leaf_batches: int = 0
    queries: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)


class GTCFR:
    """One GT-CFR search from public node ``root`` of ``game`` (see the module docstring).

    ``ranges`` are both players' reaches at the root (ignored for the player a
    ``gadget`` covers). ``log_queries`` keeps every value-function query (node,
    r0, r1) for query solving in training.
    """

    def __init__(
        self,
        game: PublicGame,
        root: int,
        ranges: tuple[np.ndarray, np.ndarray],
        value_fn: ValueFunction,
        *,
        seed: int = 0,
        gadget: Gadget | None = None,
        c_puct: float = 1.25,
        log_queries: bool = False,
    ) -> None:
        t = game.tree
        if not 0 <= root < t.num_nodes or t.kind[root] != K.DECISION:
            raise SoGError(f"search root {root} is not a decision node of the public tree")
        h0, h1 = t.num_hands
        r = [np.asarray(ranges[0], dtype=np.float64), np.asarray(ranges[1], dtype=np.float64)]
        for p in range(2):
            if r[p].shape != (t.num_hands[p],) or np.any(r[p] < 0) or not np.all(np.isfinite(r[p])):
                raise SoGError(f"range of player {p} must be {t.num_hands[p]} non-negative numbers")
        self.game = game
        self.root = root
        self.value_fn = value_fn
        self.gadget = gadget
        self.c_puct = c_puct
        self.rng = np.random.default_rng(seed)
        self.log_queries = log_queries
        b = int(t.board[root])
        self.root_valid = (t.valid[0][b], t.valid[1][b])
        self.root_ranges = [r[0] * t.valid[0][b], r[1] * t.valid[1][b]]
        n = t.num_nodes
        self.R0 = np.zeros((n, h0))
        self.R1 = np.zeros((n, h1))
        self.V0 = np.zeros((n, h0))
        self.V1 = np.zeros((n, h1))
        self.Vsum0 = np.zeros((n, h0))
        self.Vsum1 = np.zeros((n, h1))
        self.regret = np.zeros(t.num_slots)
        self.ssum = np.zeros(t.num_slots)
        self.strat = np.zeros(t.num_slots)
        self.visits = np.zeros(t.num_slots)
        self.prior = np.zeros(t.num_slots)
        self.CS = np.zeros(52)
        self.expanded = np.zeros(n, dtype=np.bool_)
        self.in_tree = np.zeros(n, dtype=np.bool_)
        self.in_tree[root] = True
        self.t = 0
        self.stats = SearchStats()
        self.root_opp_sum = np.zeros(t.num_hands[gadget.own ^ 1]) if gadget else None
        if gadget is not None:
            o = 1 - gadget.own
            if gadget.own_range.shape != (t.num_hands[gadget.own],) or gadget.opp_values.shape != (t.num_hands[o],):
                raise SoGError("gadget ranges / values do not match the number of hands")
            self.root_ranges[gadget.own] = gadget.own_range * self.root_valid[gadget.own]
            self.gadget_regret = np.zeros((2, t.num_hands[o]))  # rows: follow, terminate
        self._set_uniform(root)
        self._expand(root)

    # --- tree structure ---------------------------------------------------------------

    def _set_uniform(self, node: int) -> None:
        t = self.game.tree
        nh = t.num_hands[int(t.player[node])]
        nc = int(t.num_children[node])
        off = int(t.slot[node])
        self.strat[off : off + nc * nh] = 1.0 / nc
        if not self.prior[off : off + nc * nh].any():
            self.prior[off : off + nc * nh] = 1.0 / nc

    def _expand(self, node: int) -> None:
        t = self.game.tree
        todo = [node]
        while todo:
            m = todo.pop()
            self.expanded[m] = True
            f, nc = int(t.first_child[m]), int(t.num_children[m])
            for c in range(f, f + nc):
                self.in_tree[c] = True
                if t.kind[c] == K.CHANCE:
                    todo.append(c)
                elif t.kind[c] == K.DECISION:
                    self._set_uniform(c)
        self.nodes = np.flatnonzero(self.in_tree).astype(np.int64)
        kinds = t.kind[self.nodes]
        exp = self.expanded[self.nodes]
        dec = kinds == K.DECISION
        self.leaves = self.nodes[dec & ~exp]
        inner = self.nodes[dec & exp]
        pl = t.player[inner]
        self.dec = (inner[pl == 0], inner[pl == 1])

    @property
    def tree_size(self) -> int:
        """Number of public states in the search tree."""
        return int(self.nodes.shape[0])

    # --- regret-update phase -------------------------------------------------------------

    def _root_reach(self) -> None:
        g = self.gadget
        if g is None:
            self.R0[self.root] = self.root_ranges[0]
            self.R1[self.root] = self.root_ranges[1]
            return
        o = 1 - g.own
        pos = self.gadget_regret.clip(min=0)
        tot = pos.sum(axis=0)
        follow = np.where(tot > 0, pos[0] / np.where(tot > 0, tot, 1), 0.5)
        self.follow = follow
        valid = self.root_valid[o]
        mixed = g.alpha * _normalised(follow * valid) + (1 - g.alpha) * _normalised(g.opp_prev_range * valid)
        if not mixed.any():
            mixed = _normalised(valid.astype(np.float64))
        (self.R0, self.R1)[g.own][self.root] = self.root_ranges[g.own]
        (self.R0, self.R1)[o][self.root] = mixed
        assert self.root_opp_sum is not None
        self.root_opp_sum += mixed

    def cfr_iteration(self) -> None:
        """One regret update of both players on the current tree."""
        t = self.game.tree
        self.t += 1
        self._root_reach()
        self._reach(self.strat)
        self._leaf_values()
        K.value_pass(
            self.nodes, self.expanded, t.kind, t.player, t.first_child, t.num_children, t.slot, t.board, t.amount,
            t.sd_row, t.chance_weight, t.hands[0], t.hands[1], t.same[0], t.same[1], t.valid[0], t.valid[1],
            t.sd_order[0], t.sd_strength[0], t.sd_order[1], t.sd_strength[1], t.sd_cards[0], t.sd_cards[1],
            self.strat, self.regret, self.ssum, float(self.t), True, self.R0, self.R1, self.V0, self.V1, self.CS,
            self.R0, self.R1,
        )
        K.regret_match(self.dec[0], t.num_children, t.slot, t.num_hands[0], self.regret, self.strat)
        K.regret_match(self.dec[1], t.num_children, t.slot, t.num_hands[1], self.regret, self.strat)
        self.Vsum0 += self.V0
        self.Vsum1 += self.V1
        if self.gadget is not None:
            o = 1 - self.gadget.own
            v_follow = (self.V0, self.V1)[o][self.root]
            v_term = self.gadget.opp_values
            u = self.follow * v_follow + (1 - self.follow) * v_term
            self.gadget_regret[0] = np.maximum(self.gadget_regret[0] + v_follow - u, 0)
            self.gadget_regret[1] = np.maximum(self.gadget_regret[1] + v_term - u, 0)
        self.stats.cfr_iterations += 1

    def _reach(self, strat: np.ndarray) -> None:
        t = self.game.tree
        K.reach_pass(
            self.nodes, self.expanded, t.kind, t.player, t.first_child, t.num_children, t.slot, t.board,
            t.valid[0], t.valid[1], strat, self.R0, self.R1,
        )

    def _leaf_values(self) -> None:
        leaves = self.leaves
        if leaves.shape[0] == 0:
            return
        r0, r1 = self.R0[leaves], self.R1[leaves]
        out = self.value_fn.evaluate(self.game, leaves, r0, r1)
        self.V0[leaves] = out.v0
        self.V1[leaves] = out.v1
        self.stats.value_queries += int(leaves.shape[0])
        self.stats.leaf_batches += 1
        if self.log_queries:
            for i, n in enumerate(leaves):
                self.stats.queries.append((int(n), r0[i].copy(), r1[i].copy()))
        if out.prior is not None:
            t = self.game.tree
            for i, n in enumerate(leaves):
                nh = t.num_hands[int(t.player[n])]
                nc = int(t.num_children[n])
                off = int(t.slot[n])
                self.prior[off : off + nc * nh] = out.prior[i, :nc, :nh].reshape(-1)

    # --- expansion phase -------------------------------------------------------------------

    def _sample(self, weights: np.ndarray) -> int:
        s = float(weights.sum())
        if s <= 0:
            return int(self.rng.integers(weights.shape[0]))
        return int(self.rng.choice(weights.shape[0], p=weights / s))

    def simulate(self) -> None:
        """One expansion simulation (see the module docstring)."""
        t = self.game.tree
        i = self.stats.simulations % 2
        self.stats.simulations += 1
        ranges = (self.R0[self.root], self.R1[self.root])
        hands = [0, 0]
        hands[i] = self._sample(ranges[i])
        o = 1 - i
        compat = self.game.compat[hands[0]] if i == 0 else self.game.compat[:, hands[1]]
        hands[o] = self._sample(ranges[o] * compat)
        n = self.root
        path: list[int] = []
        while True:
            k = t.kind[n]
            if k == K.FOLD_NODE or k == K.SHOWDOWN:
                break
            f, nc = int(t.first_child[n]), int(t.num_children[n])
            if k == K.CHANCE:
                ok = [c for c in range(f, f + nc) if t.valid[0][t.board[c], hands[0]] and t.valid[1][t.board[c], hands[1]]]
                n = ok[int(self.rng.integers(len(ok)))]
                continue
            if not self.expanded[n]:
                self._expand(n)
                break
            p = int(t.player[n])
            a = self._select(n, p, hands[p])
            path.append(int(t.slot[n]) + a * t.num_hands[p] + hands[p])
            n = f + a
        self.visits[path] += 1.0

    def _select(self, node: int, p: int, h: int) -> int:
        t = self.game.tree
        nh = t.num_hands[p]
        nc = int(t.num_children[node])
        f = int(t.first_child[node])
        idx = int(t.slot[node]) + np.arange(nc) * nh + h
        Vsum = (self.Vsum0, self.Vsum1)[p]
        Ro = (self.R0, self.R1)[1 - p]
        col = self.game.compat[h] if p == 0 else self.game.compat[:, h]
        mass = Ro[f : f + nc] @ col
        q = np.zeros(nc)
        if self.t > 0:
            ok = mass > 0
            q[ok] = Vsum[f : f + nc, h][ok] / self.t / mass[ok] / self.game.max_stake
        visits = self.visits[idx]
        puct = q + self.c_puct * self.prior[idx] * math.sqrt(visits.sum() + 1.0) / (1.0 + visits)
        avg = self.ssum[idx]
        tot = avg.sum()
        avg = avg / tot if tot > 0 else np.full(nc, 1.0 / nc)
        select = 0.5 * avg
        select[int(np.argmax(puct))] += 0.5
        return int(self.rng.choice(nc, p=select / select.sum()))

    # --- the search ------------------------------------------------------------------------

    def run(self, simulations: int, c: float) -> GTCFR:
        """GT-CFR(s = ``simulations``, c): ``s / ceil(c)`` iterations of ``ceil(1/c)`` CFR updates + ``ceil(c)`` simulations."""
        if simulations < 0 or not c > 0:
            raise SoGError(f"GT-CFR needs s >= 0 and c > 0, got s={simulations}, c={c}")
        sims = math.ceil(c)
        updates = math.ceil(1.0 / c - 1e-9)
        for _ in range(max(1, simulations // sims)):
            for _ in range(updates):
                self.cfr_iteration()
            if simulations:
                for _ in range(sims):
                    self.simulate()
        return self

    # --- outputs ---------------------------------------------------------------------------

    def average_strategy(self) -> np.ndarray:
        """The average policy at every expanded decision node (uniform elsewhere) as a strategy array."""
        t = self.game.tree
        out = np.zeros(t.num_slots)
        nodes = np.concatenate(self.dec)
        K.normalize_into(nodes, t.kind, t.player, t.num_children, t.slot, t.num_hands[0], t.num_hands[1], self.ssum, out)
        return out

    def policy(self, node: int | None = None) -> np.ndarray:
        """Average policy (actions x hands) at an expanded decision ``node`` (default the root)."""
        t = self.game.tree
        node = self.root if node is None else node
        if not self.expanded[node] or t.kind[node] != K.DECISION:
            raise SoGError(f"node {node} is not an expanded decision node of this search")
        nh = t.num_hands[int(t.player[node])]
        nc = int(t.num_children[node])
        off = int(t.slot[node])
        return self.average_strategy()[off : off + nc * nh].reshape(nc, nh)

    def average_values(self, node: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Average self-play counterfactual values (1/T sum over iterations) of both players at ``node``."""
        node = self.root if node is None else node
        if self.t == 0:
            raise SoGError("no CFR iteration has run")
        return self.Vsum0[node] / self.t, self.Vsum1[node] / self.t

    def average_reaches(self) -> tuple[np.ndarray, np.ndarray]:
        """Both players' reaches at every in-tree node under the average policy (the opponent's
        root range of a gadget search is its average over iterations)."""
        t = self.game.tree
        R0, R1 = self.R0.copy(), self.R1.copy()
        R0[self.root], R1[self.root] = self.root_ranges[0], self.root_ranges[1]
        if self.gadget is not None and self.root_opp_sum is not None and self.t:
            (R0, R1)[1 - self.gadget.own][self.root] = self.root_opp_sum / self.t
        K.reach_pass(
            self.nodes, self.expanded, t.kind, t.player, t.first_child, t.num_children, t.slot, t.board,
            t.valid[0], t.valid[1], self.average_strategy(), R0, R1,
        )
        return R0, R1

    def root_value(self) -> float:
        """Expected chips for player 0 at the root under the average values (normalised by the ranges)."""
        t = self.game.tree
        v0, _ = self.average_values()
        r0 = self.R0[self.root]
        r1 = self.R1[self.root]
        mass = float(np.dot(r0, fold_values(r1, t.hands[0], t.hands[1], t.same[0], 1.0)))
        return float(np.dot(r0, v0)) / mass if mass > 0 else 0.0
