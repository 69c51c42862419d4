"""GT-CFR (growing-tree CFR), the search of Student of Games (Schmid et al., Student of
Games, "Search via Growing-Tree CFR" and Algorithm 1).

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

from pokerbot.actions import RAISE, action_from_text, action_text
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.menus import BetMenuFn
from pokerbot.solver import PublicTree, game_tree
from pokerbot.solver.payoffs import fold_values
from pokerbot.state import State
from realtime.sog import kernels as K


#: Uniform draws a search keeps at hand for its simulations, and the most one walk may use.
_UNIFORMS = 4096
_UNIFORMS_PER_WALK = 128


class SoGError(PokerbotError, ValueError):
    """Bad input to Student of Games: a bad search setting, range, network or checkpoint."""


class PublicGame:
    """A whole game's public tree with what the searches need on top of it.

    ``parent[n]``, ``spent[n]`` (chips each player has put in), the sorted node
    list of every subtree (cached), the largest stake, the deck index of each
    card, ``max_actions`` and the kernels' tree, card and payoff bundles (``kernel_tree``,
    ``kernel_cards`` and ``kernel_payoffs``: ``T``, ``C`` and ``P`` of :mod:`realtime.sog.kernels`).

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
                    states[f + c] = st.apply(action_from_text(t.node_labels(i)[c], self.game.nolimit))
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
        self.kernel_tree = K.tree_bundle(t)
        self.kernel_cards = K.card_bundle(t, self.compat)
        self.kernel_payoffs = K.payoff_bundle(t)

    @classmethod
    def load(cls, game: GameDef | str, bet_menu: BetMenuFn | None = None) -> PublicGame:
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
                text = action_text(action, self.game.nolimit)
                if text not in labels and translate and action.kind == RAISE.kind:
                    menu = [action_from_text(lab, self.game.nolimit) for lab in labels]
                    sizes = [(abs(a.size - action.size), lab) for a, lab in zip(menu, labels) if a.size]
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
    """The safe re-solving gadget at the search root with range mixing (Schmid et al.,
    Student of Games, "Modified Continual Re-solving").

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


@dataclass
class SearchStats:
    cfr_iterations: int = 0
    simulations: int = 0
    value_queries: int = 0
    leaf_batches: int = 0
    queries: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)


def schedule(simulations: int, c: float) -> tuple[int, int, int]:
    """GT-CFR(s, c)'s shape: ``(rounds, CFR updates a round, simulations a round)`` =
    ``(max(1, s // ceil(c)), ceil(1/c), ceil(c))``."""
    if simulations < 0 or not c > 0:
        raise SoGError(f"GT-CFR needs s >= 0 and c > 0, got s={simulations}, c={c}")
    sims = math.ceil(c)
    return max(1, simulations // sims), math.ceil(1.0 / c - 1e-9), sims


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
        self.uniforms = self.rng.random(_UNIFORMS)
        self.next_uniform = 0
        self.log_queries = log_queries
        b = int(t.board[root])
        self.root_valid = (t.valid[0][b], t.valid[1][b])
        self.root_ranges = [r[0] * t.valid[0][b], r[1] * t.valid[1][b]]
        n = t.num_nodes
        # The kernels' bundles (see realtime.sog.kernels), built once: W, S and X here, G (kernel_root) below.
        self.kernel_work = K.work_arrays(n, t.num_hands)
        self.R0, self.R1, self.V0, self.V1, self.CS = self.kernel_work
        self.kernel_strategy = K.strategy_arrays(t.num_slots)
        self.strat, self.regret, self.ssum = self.kernel_strategy
        self.Vsum0 = np.zeros((n, h0))
        self.Vsum1 = np.zeros((n, h1))
        self.visits = np.zeros(t.num_slots)
        self.prior = np.zeros(t.num_slots)
        self.kernel_stats = (self.Vsum0, self.Vsum1, self.visits, self.prior)
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
            self.follow = np.zeros(t.num_hands[o])
            self.opp_prev_range = np.asarray(gadget.opp_prev_range, dtype=np.float64)
        self.kernel_root = self._root_bundle()
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

    def _root_bundle(self) -> tuple:
        """The kernels' root bundle ``G``. Without a gadget its gadget arrays are zero placeholders of the
        same types as a gadget's, so one compilation of the kernels serves searches with and without one."""
        r0, r1 = self.root_ranges
        g = self.gadget
        if g is None:
            return (int(self.root), -1, 0.0, r0, r1, np.zeros(1), np.zeros(1), np.zeros(1), np.zeros((2, 1)),
                    np.zeros(1), np.zeros(1))
        o = 1 - g.own
        return (int(self.root), int(g.own), float(g.alpha), r0, r1, self.opp_prev_range,
                np.ascontiguousarray(g.opp_values, dtype=np.float64), self.root_valid[o], self.gadget_regret,
                self.follow, self.root_opp_sum)

    def _root_reach(self) -> None:
        g = self.gadget
        if g is None:
            self.R0[self.root] = self.root_ranges[0]
            self.R1[self.root] = self.root_ranges[1]
            return
        o = 1 - g.own
        assert self.root_opp_sum is not None
        R = (self.R0, self.R1)
        K.gadget_root_reach(g.alpha, self.root_ranges[g.own], self.opp_prev_range, self.root_valid[o], self.gadget_regret,
                            self.follow, self.root_opp_sum, R[g.own][self.root], R[o][self.root])

    def cfr_iteration(self) -> None:
        """One regret update of both players on the current tree."""
        t = self.game.tree
        self.t += 1
        self._root_reach()
        self._reach(self.strat)
        self._leaf_values()
        game = self.game
        K.value_pass(self.nodes, self.expanded, game.kernel_tree, game.kernel_cards, game.kernel_payoffs,
                     self.kernel_strategy, float(self.t), True, self.kernel_work, (self.R0, self.R1))
        K.regret_match(self.dec[0], t.num_children, t.slot, t.num_hands[0], self.regret, self.strat)
        K.regret_match(self.dec[1], t.num_children, t.slot, t.num_hands[1], self.regret, self.strat)
        K.accumulate_values(self.nodes, self.V0, self.V1, self.Vsum0, self.Vsum1)
        if self.gadget is not None:
            o = 1 - self.gadget.own
            K.gadget_update(self.follow, (self.V0, self.V1)[o][self.root], self.gadget.opp_values, self.gadget_regret)
        self.stats.cfr_iterations += 1

    def cfr_iterations_grown(self, count: int) -> None:
        """``count`` regret updates in one kernel call; only for a tree without leaves (fully grown)."""
        if self.leaves.shape[0]:
            raise SoGError("cfr_iterations_grown needs a search tree without leaves")
        game = self.game
        K.cfr_loop(count, self.t, self.nodes, self.expanded, self.dec, self.kernel_root, game.kernel_tree,
                   game.kernel_cards, game.kernel_payoffs, self.kernel_strategy, self.kernel_work, self.kernel_stats)
        self.t += count
        self.stats.cfr_iterations += count

    def _reach(self, strat: np.ndarray) -> None:
        K.reach_pass(self.nodes, self.expanded, self.game.kernel_tree, self.game.kernel_cards, strat, self.R0, self.R1)

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

    def simulate(self) -> None:
        """One expansion simulation (see the module docstring; the walk is :func:`kernels.simulate_walk`)."""
        i = self.stats.simulations % 2
        self.stats.simulations += 1
        if self.next_uniform + _UNIFORMS_PER_WALK > _UNIFORMS:
            self.uniforms = self.rng.random(_UNIFORMS)
            self.next_uniform = 0
        leaf, self.next_uniform = K.simulate_walk(
            self.uniforms, self.next_uniform, self.root, i, self.expanded, self.game.kernel_tree, self.game.kernel_cards,
            self.kernel_strategy, self.kernel_work, self.kernel_stats, float(self.t), self.game.max_stake, self.c_puct,
        )
        if leaf >= 0:
            self._expand(int(leaf))

    # --- the search ------------------------------------------------------------------------

    def run(self, simulations: int, c: float) -> GTCFR:
        """GT-CFR(s = ``simulations``, c): ``s / ceil(c)`` iterations of ``ceil(1/c)`` CFR updates + ``ceil(c)`` simulations."""
        rounds, updates, sims = schedule(simulations, c)
        for r in range(rounds):
            if self.leaves.shape[0] == 0:
                # The tree holds the whole subgame: simulations can expand nothing (they would only count
                # visits, which steer expansion alone), so the remaining updates run in one kernel call.
                self.cfr_iterations_grown((rounds - r) * updates)
                if simulations:
                    self.stats.simulations += (rounds - r) * sims
                break
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
        K.normalize_into(nodes, self.game.kernel_tree, t.num_hands[0], t.num_hands[1], self.ssum, out)
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
        R0, R1 = self.R0.copy(), self.R1.copy()
        R0[self.root], R1[self.root] = self.root_ranges[0], self.root_ranges[1]
        if self.gadget is not None and self.root_opp_sum is not None and self.t:
            (R0, R1)[1 - self.gadget.own][self.root] = self.root_opp_sum / self.t
        K.reach_pass(self.nodes, self.expanded, self.game.kernel_tree, self.game.kernel_cards, self.average_strategy(),
                     R0, R1)
        return R0, R1

    def root_value(self) -> float:
        """Expected chips for player 0 at the root under the average values (normalised by the ranges)."""
        t = self.game.tree
        v0, _ = self.average_values()
        r0 = self.R0[self.root]
        r1 = self.R1[self.root]
        mass = float(np.dot(r0, fold_values(r1, t.hands[0], t.hands[1], t.same[0], 1.0)))
        return float(np.dot(r0, v0)) / mass if mass > 0 else 0.0
