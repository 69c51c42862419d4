"""The real-time agent: nested subgame solving from a blueprint, as Modicum (depth-limited, safe).

At each of its decisions the agent (its :class:`Resolver`):

1. **Replays the public hand** and keeps both players' ranges: ours multiplied by the
   strategy it played at each of its decisions (for every hand, not only the one it
   holds), the opponent's by the strategy the latest solution (or the blueprint)
   gives the action it took.
2. **Roots a subgame just before the opponent's last action** in this round (at its own
   decision when the round starts with it), built with the :class:`~realtime.subgame.SubgameMenu`:
   the abstraction's actions plus the real ones, so an off-tree opponent size is a
   branch of the tree, not a translation. Rounds beyond ``depth_limit`` become
   depth-limited leaves valued by rollouts of the blueprint's continuation strategies
   (:class:`realtime.leaf_values.RolloutLeafEvaluator`: the opponent picks one of K,
   we play the blueprint) or by a trained leaf-value network (``[leaves] evaluator =
   "network"``, :mod:`realtime.network_leaves`, checked against the config when the agent is made); a
   preflop cut at its end by a table of flop-start values (``[round.0] leaves = "table"``,
   :mod:`realtime.preflop_values`, loaded when the agent is made).
3. **Solves it with the round's gadget** (:mod:`pokerbot.solver.gadgets`): ``unsafe``
   from the tracked ranges, or ``resolve`` / ``maxmargin`` / ``reach`` with alternative
   values from the previous solution when its tree holds the new root (the nested
   case), from the blueprint when ``alt = "blueprint"``, else unsafe (Modicum's rule).
   CFR+/DCFR for the round's iterations, within its time budget; fewer than
   ``min_iterations`` in the budget plays the blueprint instead (logged warning).
4. **Plays** its hand's row of the solution at the real node; the solution becomes
   the previous one.

Rounds with ``mode = "blueprint"`` play the blueprint (through the same mapping
as :class:`blueprint.agent.BlueprintAgent`; an off-tree size to the more likely side
of its bracket, or with ``translation = "random"`` to a side drawn per hand, the
blueprint agent's draws). Random numbers are drawn per hand (:func:`pokerbot.agent.hand_rng`).
``cache = true`` keeps solutions on disk by action sequence
(``$POKERBOT_HOME/realtime-cache/<config digest>/``): the preflop cache.

Everything depends only on the public history and the config's seed, so
:meth:`Resolver.decide` is a function of the public state: the exact tests compose
it into a whole strategy (:func:`realtime.exact.agent_strategy`).

Over ACPC or in the match runner::

    realtime.agent:make_agent?config=hunl-tiny          # configs/realtime-hunl-tiny.toml
    realtime.agent:make_agent?config=/path/to/file.toml
"""

from __future__ import annotations

import hashlib
import json
import logging
import resource
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from blueprint.agent import resolve_path
from blueprint.continuation import StrategyArray
from blueprint.model import Blueprint
from blueprint.policy import BlueprintPolicy
from pokerbot.actions import CALL, action_from_text, action_text
from pokerbot.agent import FELL_BACK, Agent, Holes, agent_seed, hand_rng
from pokerbot.errors import PokerbotError
from pokerbot.files import plain_name, pokerbot_home
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.npz import write_npy
from pokerbot.solver.best_response import uniform_strategy
from pokerbot.solver.gadgets import SubgameSolver, alternative_values, gifts, reach_at
from pokerbot.solver.leaves import EquityTable, LeafEvaluator, equity_counts
from pokerbot.solver.navigate import find_node
from pokerbot.solver.tree import PublicTree, build_tree, hand_list, hand_universe, universe_rows
from pokerbot.state import Action, State
from realtime.config import RealtimeConfig, RealtimeConfigError, RoundConfig
from realtime.network_leaves import agent_leaf_model, make_leaf_evaluator
from realtime.subgame import SubgameMenu, blueprint_on_tree, public_key

log = logging.getLogger("realtime")


@dataclass
class Solution:
    """A solved subgame: its tree, average strategy, leaf evaluator and our reach at its root (over the tree's
    hands: those of the universe its root's board does not block, :func:`pokerbot.solver.tree.universe_rows`)."""

    tree: PublicTree
    strategy: np.ndarray
    leaves: LeafEvaluator | None
    reach_us: np.ndarray


@dataclass
class Decision:
    """What the agent plays at one public state: ``probs[a, h]`` for every hand ``h`` of the universe."""

    actions: list[Action]
    probs: np.ndarray
    solution: Solution | None
    #: "solve", "cache", "reuse", "blueprint" (the round's mode), "fallback" (the solve could not reach
    #: ``min_iterations`` in its budget) or "timeout" (the agent's hard limit stopped the decision)
    source: str
    gadget: str = ""
    iterations: int = 0
    seconds: float = 0.0
    nodes: int = 0
    #: The smallest margin of the solution (safe gadgets; computed only when ``Resolver.check_margins``).
    min_margin: float = float("nan")


@dataclass
class _Replay:
    """The public hand replayed up to a decision: ranges and previous solution before each action."""

    states: list[State] = field(default_factory=list)
    ranges: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    prev: list[Solution | None] = field(default_factory=list)


@dataclass
class _Subgame:
    """One subgame the resolver solves: the real state, its root, both ranges there, the solution the root
    lies in (for the gadget), the tree, and what the stages add: leaf values and the gadget's inputs."""

    state: State
    us: int
    root: State
    reach_us: np.ndarray
    opp_range: np.ndarray
    prev: Solution | None
    tree: PublicTree
    leaves: LeafEvaluator | None = None
    gadget: str = "unsafe"
    alt: np.ndarray | None = None
    gift: np.ndarray | None = None


class Resolver:
    """The public-state side of the agent: :meth:`decide` at any public state (memoised)."""

    def __init__(self, config: RealtimeConfig, blueprint: Blueprint) -> None:
        self.config = config
        self.blueprint = blueprint
        self.game = blueprint.game
        beyond = [r for r, _ in config.rounds if r >= self.game.num_rounds]
        if beyond:
            raise RealtimeConfigError(f"[round.{beyond[0]}]: {self.game.name} has rounds 0..{self.game.num_rounds - 1}")
        self.policy = BlueprintPolicy(blueprint)
        self.universe = hand_universe(self.game)
        #: Subgames list only the hands their root's board does not block (False: every hand of the universe, the
        #: blocked ones with zero validity: the same solutions up to rounding, 10-18% slower; the tests' control).
        self.compact_hands = True
        self.memo: dict[tuple[int, str], Decision] = {}
        #: Compute each safe solution's smallest margin (a diagnostic for the exact tests; costs a best response).
        self.check_margins = False
        #: Set by the agent when a decision runs past its hard limit: the solve stops at its next check.
        self.cancel = threading.Event()
        #: Absolute ``time.perf_counter()`` time by which a decision must be made (None: only the budgets).
        self.deadline: float | None = None
        self._continuations: list[StrategyArray] | None = None
        #: What values the depth-limited leaves of a subgame: ``(tree, us, state) -> LeafEvaluator``; the config's
        #: evaluator by default (:meth:`config_leaves`), exact play-outs in :func:`realtime.exact.exact_leaves`.
        self.leaf_source: Callable[[PublicTree, int, State], LeafEvaluator] = self.config_leaves
        # The leaf-value network, loaded and checked against the blueprint, continuations and rounds up front.
        self._leafnet = agent_leaf_model(config, blueprint, self.opponent_continuations()) if config.network_rounds() else None
        self._equity: dict[tuple[tuple[int, ...], int], dict[str, dict[int, EquityTable]]] = {}
        # Preflop tables (built once per machine, cached on disk) are loaded up front, never inside a timed decision.
        self._table = None
        self._preflop_equity: EquityTable | None = None
        if config.uses_table():
            from realtime.preflop_values import FlopStartTable, preflop_equity

            log.info("loading the flop-start table of %s (built on first use: minutes)", config.blueprint)
            self._table = FlopStartTable(blueprint, self.opponent_continuations())
            self._preflop_equity = EquityTable.of(preflop_equity(self.game))
        for r, rc in config.rounds:
            if rc.mode == "solve" and rc.time_budget > config.action_time_limit:
                log.warning("round %d time budget %.1f s exceeds the action time limit %.1f s: the limit applies",
                            r, rc.time_budget, config.action_time_limit)

    def clear(self) -> None:
        """Forget the solutions of the hand (call between hands)."""
        self.memo.clear()
        if len(self._equity) > 8:
            self._equity.clear()

    # -- the replay ---------------------------------------------------------------------------

    def _replay(self, state: State, us: int, blueprint_ranges: bool = False,
                ) -> tuple[_Replay, np.ndarray, np.ndarray, Solution | None]:
        """The hand replayed up to ``state``: the ranges and previous solution before each action, then both ranges
        and the latest solution at ``state``. Ranges are Bayes's (ours from what the agent played, the opponent's
        from the latest solution's model of it), or with ``blueprint_ranges`` the blueprint's for both."""
        board = state.board_cards
        s = State.initial(self.game).with_cards(board_cards=board)
        n = len(self.universe)
        r_us, r_opp = np.ones(n), np.ones(n)
        prev: Solution | None = None
        rep = _Replay()
        for a in state.actions():
            rep.states.append(s)
            rep.ranges.append((r_us.copy(), r_opp.copy()))
            rep.prev.append(prev)
            if s.current_player == us:
                d = self.decide(s)
                if a not in d.actions:
                    raise PokerbotError(f"the agent's own action {a} at {s.betting_string()!r} is not one it plays there")
                mine = self.policy.action_probabilities(s, a) if blueprint_ranges else d.probs[d.actions.index(a)]
                r_us = r_us * mine
                prev = d.solution
            elif blueprint_ranges:
                r_opp = r_opp * self.policy.action_probabilities(s, a)
            else:
                r_opp = r_opp * self._opponent_probs(s, a, prev)
            s = s.apply(a)
        return rep, r_us, r_opp, prev

    def _opponent_probs(self, s: State, a: Action, prev: Solution | None) -> np.ndarray:
        if prev is not None:
            node = find_node(prev.tree, s)
            if node is not None:
                labels = prev.tree.node_labels(node)
                label = action_text(a, self.game.nolimit)
                if label in labels:
                    p = int(prev.tree.player[node])
                    nh = prev.tree.num_hands[p]
                    off = int(prev.tree.slot[node]) + labels.index(label) * nh
                    return _to_universe(prev.strategy[off : off + nh], prev.tree, p, len(self.universe))
        return self.policy.action_probabilities(s, a)

    # -- deciding --------------------------------------------------------------------------------

    def decide(self, state: State) -> Decision:
        """The agent's strategy (every hand) at public ``state``, where it is to act."""
        us = state.current_player
        if us is None:
            raise PokerbotError(f"no one acts at {state.betting_string()!r}: the hand is over")
        key = (us, public_key(state))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        rc = self.config.round(state.round)
        if rc.mode == "blueprint":
            actions, probs = self.policy.probabilities(state)
            d = Decision(actions, probs, None, "blueprint")
        else:
            d = self._solve(state, us, rc)
        # setdefault: a solve the agent gave up on (timeout) must not replace the decision it played instead
        return self.memo.setdefault(key, d)

    def blueprint_decision(self, state: State, source: str) -> Decision:
        """The blueprint's strategy at public ``state`` (through the real-to-abstract mapping), marked ``source``."""
        actions, probs = self.policy.probabilities(state)
        return Decision(actions, probs, None, source)

    def _solve(self, state: State, us: int, rc: RoundConfig) -> Decision:
        """Re-solve at ``state`` in stages: live state -> ranges -> subgame -> tree -> gadget inputs -> solve -> policy."""
        start = time.perf_counter()
        budget = min(rc.time_budget, self.config.action_time_limit)
        if self.deadline is not None:
            # leave a tenth of what is left for the average strategy and the row the agent plays
            budget = min(budget, 0.9 * (self.deadline - start))
        rep, r_us, r_opp, prev = self._replay(state, us, rc.ranges == "blueprint")
        reused = self._reuse(state, rc, prev, start)
        if reused is not None:
            return reused
        sub = self._subgame(state, us, rc, rep, r_us, r_opp, prev)
        if len(sub.tree.continuation_leaves):
            if self.cancel.is_set() or time.perf_counter() - start > budget:
                return self._fallback(state, rc, budget, 0, start, sub.tree.num_nodes)
            sub.leaves = self.leaf_source(sub.tree, us, state)
        self._gadget_inputs(sub, rc)
        solver = SubgameSolver(
            sub.tree, us, sub.gadget, sub.reach_us, opp_range=sub.opp_range, alt=sub.alt, gift=sub.gift,
            algorithm=rc.algorithm, leaves=sub.leaves,
            drop_average_before=(rc.iterations // 2 + 1) if rc.drop_half else 0,
        )
        solved = self._run(solver, sub, rc, budget, start)
        if isinstance(solved, Decision):
            return solved
        strategy, source = solved
        return self._policy(sub, solver, strategy, source, start)

    def _reuse(self, state: State, rc: RoundConfig, prev: Solution | None, start: float) -> Decision | None:
        """The previous solution's row at ``state`` when the round reuses solutions and ``state`` lies in it."""
        if rc.reuse and prev is not None and prev.tree.last_round >= state.round:
            node = find_node(prev.tree, state)
            if node is not None:
                actions, probs = _row(prev, node, self.game.nolimit, len(self.universe))
                return Decision(actions, probs, prev, "reuse", seconds=time.perf_counter() - start)
        return None

    def _subgame(self, state: State, us: int, rc: RoundConfig, rep: _Replay, r_us: np.ndarray, r_opp: np.ndarray,
                 prev: Solution | None) -> _Subgame:
        """The subgame to solve: its root, both ranges there, the solution it continues and its tree."""
        # The root: just before the opponent's last action of this round, else our own decision.
        root, reach_us, opp_range = state, r_us, r_opp
        if rep.states and rep.states[-1].current_player != us and rep.states[-1].round == state.round:
            root = rep.states[-1]
            reach_us, opp_range = rep.ranges[-1]
            prev = rep.prev[-1]
        depth = None if rc.depth_limit < 0 else rc.depth_limit
        hands = hand_list(self.game, root.visible_board) if self.compact_hands else self.universe
        menu = SubgameMenu(self.policy, state, rc.extra_menu(), us)
        tree = build_tree(self.game, menu, root=root, hands=(hands, hands), depth_limit=depth)
        if depth == 0:
            self._seed_equity(tree, root)
        # From here on ranges are over the tree's hands.
        reach_us, opp_range = _to_tree(reach_us, tree, us), _to_tree(opp_range, tree, 1 - us)
        if not (opp_range * tree.valid[1 - us][tree.root_board]).any():
            opp_range = np.ones(tree.num_hands[1 - us])  # an action our model gave probability 0: no information
        return _Subgame(state, us, root, reach_us, opp_range, prev, tree)

    def _seed_equity(self, tree: PublicTree, root: State) -> None:
        """Share the all-in equity tables of a tree cut at the end of its round between the subgames of its
        board (they list the same hands: those the board does not block), seeded with the preflop table or sampled estimates."""
        shared = self._equity.setdefault((tuple(root.visible_board), tree.num_hands[0]), {})  # board, hand list
        tree.equity_tables = shared.setdefault("e", {})
        tree.equity_tables_t = shared.setdefault("t", {})
        if not tree.leaf_equity.any():
            return
        boards = np.unique(tree.board[tree.leaf_nodes[tree.leaf_equity]]).tolist()
        samples = self.config.leaves.equity_samples
        if root.round == 0 and self._preflop_equity is not None:
            for b in boards:
                tree.equity_tables.setdefault(b, self._preflop_equity)  # the preflop has one board: no cards
        elif samples > 0:  # estimates from sampled run-outs (every run-out by default: on first use)
            for b in boards:
                if b not in tree.equity_tables:
                    tree.equity_tables[b] = equity_counts(tree, int(b), samples, self.config.seed + int(b))

    def _gadget_inputs(self, sub: _Subgame, rc: RoundConfig) -> None:
        """The safe gadget's inputs: the opponent's alternative values (and gifts) at the root, from the
        solution the root lies in, else from the blueprint on the subgame (``alt = "blueprint"``), else unsafe."""
        sub.gadget = rc.gadget
        if sub.gadget == "unsafe":
            return
        us, prev = sub.us, sub.prev
        prev_root = find_node(prev.tree, sub.root) if prev is not None else None
        if prev is not None and prev_root is not None:
            mine = reach_at(prev.tree, prev.strategy, us, prev_root, prev.reach_us)
            # The previous tree lists at least the new one's hands (its board is part of the new board).
            alt = alternative_values(prev.tree, prev.strategy, us, mine, prev_root, prev.leaves)
            sub.alt = _carry(alt, prev.tree, sub.tree, 1 - us)
            if sub.gadget == "reach":
                gift = gifts(prev.tree, prev.strategy, us, prev_root, prev.leaves, prev.reach_us)
                sub.gift = _carry(gift, prev.tree, sub.tree, 1 - us)
        elif rc.alt == "blueprint":
            base = blueprint_on_tree(sub.tree, self.policy, us, uniform_strategy(sub.tree, sub.leaves))
            sub.alt = alternative_values(sub.tree, base, us, sub.reach_us, 0, sub.leaves)
            sub.gift = np.zeros(sub.tree.num_hands[1 - us])
        else:
            sub.gadget = "unsafe"

    def _run(self, solver: SubgameSolver, sub: _Subgame, rc: RoundConfig, budget: float,
             start: float) -> tuple[np.ndarray, str] | Decision:
        """The solved strategy and its source ("solve" or "cache"), or the blueprint's fallback decision."""
        cached = self._cache_path(rc, sub.us, sub.root, sub.state)
        if cached is not None and cached.is_file():
            strategy = np.load(cached)
            if strategy.shape != (solver.num_slots,):
                raise PokerbotError(f"cached solution {cached} does not fit its subgame; delete the cache directory")
            return strategy, "cache"
        chunk = 1
        while solver.iteration < rc.iterations:
            t0 = time.perf_counter()
            solver.run(min(chunk, rc.iterations - solver.iteration))
            now = time.perf_counter()
            per = (now - t0) / chunk
            chunk = max(1, min(chunk * 2, 50))
            if self.cancel.is_set() or now - start + per > budget:
                break
        if solver.iteration < rc.min_iterations or self.cancel.is_set():
            return self._fallback(sub.state, rc, budget, solver.iteration, start, sub.tree.num_nodes)
        strategy = solver.strategy()
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            write_npy(cached, strategy)
        return strategy, "solve"

    def _policy(self, sub: _Subgame, solver: SubgameSolver, strategy: np.ndarray, source: str,
                start: float) -> Decision:
        """The decision at the real state from a solved subgame (and the solution later subgames continue)."""
        min_margin = float("nan")
        if self.check_margins and sub.gadget != "unsafe":
            min_margin = float(solver.margins(strategy).min())
        tree = sub.tree
        node = find_node(tree, sub.state)
        assert node is not None, "the subgame holds the real state"
        solution = Solution(tree, strategy, sub.leaves, sub.reach_us * tree.valid[sub.us][tree.root_board])
        actions, probs = _row(solution, node, self.game.nolimit, len(self.universe))
        return Decision(actions, probs, solution, source, sub.gadget, solver.iteration, time.perf_counter() - start,
                        tree.num_nodes, min_margin)

    def _fallback(self, state: State, rc: RoundConfig, budget: float, done: int, start: float, nodes: int) -> Decision:
        """The blueprint's decision, when the budget runs out before ``min_iterations`` (logged)."""
        if self.cancel.is_set():  # the agent already played the blueprint here and said so
            log.debug("round %d at %r: solve cancelled after %d iterations", state.round, state.betting_string(), done)
        else:
            log.warning("round %d at %r: %d of %d minimum iterations in the %.1f s budget; playing the blueprint",
                        state.round, state.betting_string(), done, rc.min_iterations, budget)
        actions, probs = self.policy.probabilities(state)
        return Decision(actions, probs, None, "fallback", rc.gadget, done, time.perf_counter() - start, nodes)

    def _cache_path(self, rc: RoundConfig, us: int, root: State, state: State) -> Path | None:
        if not rc.cache:
            return None
        text = f"{us}|{public_key(root)}|{public_key(state)}"
        name = hashlib.sha256(text.encode()).hexdigest()[:24]
        tag = self.config.identity() + (f"-{self._table.key}" if self._table is not None else "")  # new table: new cache
        return pokerbot_home() / "realtime-cache" / plain_name(f"{self.config.name}-{tag}", "config name") / f"{name}.npy"

    def opponent_continuations(self) -> list[StrategyArray]:
        """The opponent's K continuation strategies beyond a depth limit, over the blueprint's slots (built once;
        the bias set as lazy views of the blueprint, so it costs no memory of its own)."""
        lc = self.config.leaves
        if self._continuations is None:
            bp = self.blueprint
            if lc.continuations == "bias":
                from blueprint.continuation import bias_views

                self._continuations = bias_views(bp.tree, bp.strategy, lc.factor, lc.k)
            else:
                from blueprint.continuation import leaves_dir, load_set

                cs = load_set(leaves_dir(lc.continuations), bp.tree, bp.tree.signature())
                self._continuations = [np.asarray(s, dtype=np.float64) for s in cs.strategies[: lc.k]]
        return self._continuations

    def config_leaves(self, tree: PublicTree, us: int, state: State) -> LeafEvaluator:
        """The config's leaf evaluator for a depth-limited subgame (rollouts, the network or the preflop table)."""
        conts: list[list[StrategyArray]] = [[], []]
        conts[us] = [self.blueprint.strategy]
        conts[1 - us] = list(self.opponent_continuations())
        seed = (self.config.seed * 1_000_003 + zlib.crc32(public_key(state).encode())) % (2**32)
        if self.config.leaf_evaluator(state.round) == "table":
            from realtime.preflop_values import PreflopTableEvaluator

            assert self._table is not None
            return PreflopTableEvaluator(tree, self._table, us)
        return make_leaf_evaluator(self.config.leaf_evaluator(state.round), tree, blueprint=self.blueprint,
                                   continuations=(conts[0], conts[1]), model=self._leafnet,
                                   rollouts=self.config.rollouts(state.round), seed=seed,
                                   shared_runouts=self.config.leaves.shared_runouts,
                                   max_bytes=self.config.leaves.max_mb * 2**20,
                                   budget_bytes=self.config.leaf_budget_mb(state.round) * 2**20 or None)


def _row(solution: Solution, node: int, nolimit: bool, universe: int) -> tuple[list[Action], np.ndarray]:
    """The actions at ``node`` of a solution and their probabilities ``P[A, H]`` for every hand of the universe
    (``universe`` hands; uniform for those the tree does not list)."""
    tree = solution.tree
    labels = tree.node_labels(node)
    p = int(tree.player[node])
    nh = tree.num_hands[p]
    off = int(tree.slot[node])
    probs = solution.strategy[off : off + len(labels) * nh].reshape(len(labels), nh)
    out = np.full((len(labels), universe), 1.0 / len(labels))
    out[:, universe_rows(tree, p)] = probs
    return [action_from_text(lab, nolimit) for lab in labels], out


def _to_tree(vec: np.ndarray, tree: PublicTree, player: int) -> np.ndarray:
    """A vector over the universe's hands on ``player``'s hands of ``tree``."""
    return np.asarray(vec)[universe_rows(tree, player)]


def _to_universe(vec: np.ndarray, tree: PublicTree, player: int, universe: int) -> np.ndarray:
    """A vector over ``player``'s hands of ``tree`` on all ``universe`` hands (0 for those the tree does not list)."""
    out = np.zeros(universe)
    out[universe_rows(tree, player)] = vec
    return out


def _carry(vec: np.ndarray, old: PublicTree, new: PublicTree, player: int) -> np.ndarray:
    """A vector over ``player``'s hands of tree ``old`` on those of tree ``new`` (``old``'s board is part of
    ``new``'s, so ``old`` lists every hand ``new`` does)."""
    return _to_tree(_to_universe(vec, old, player, len(hand_universe(old.game))), new, player)


#: With the match's length known, how many hands' time budgets the agent may spend ahead of the hands played.
HANDS_AHEAD = 10


class RealtimeAgent(Agent):
    """Plays the :class:`Resolver`'s decisions within a hard time limit; ``stats`` keeps one record per decision.

    **Time limits.** Each decision runs in a worker thread that the agent waits on for at most
    :meth:`time_limit` seconds: ``action_time_limit``, lowered to what is left of the match's
    ``hand_time_limit`` x hands when the config sets one (the ACPC dealer's ``t_per_hand``). The
    solve itself aims at the round's ``time_budget`` within that limit and plays its current average
    when time runs out (the blueprint below ``min_iterations``). If the limit passes anyway (a leaf
    precomputation or a numba compilation that cannot stop midway), the agent plays the blueprint
    at once, logs a warning (``logging`` name ``realtime``, record ``source = "timeout"``) and
    cancels the solve, which stops at its next check. The wait can overrun the limit only by one
    numba kernel call (they hold the interpreter lock), milliseconds in these subgames.

    ``action_distribution`` / ``action_probabilities`` report the exact policy :meth:`act` plays
    (AIVAT's decision terms, LBR's range tracking): both go through the same time-limited, memoised
    decision, so asking first does not change what is played.

    ``stats_path``: a file that gets one JSON line per decision (round, seconds, source, resident
    and peak memory), for measuring an agent inside another runner (``pokerbot eval``).
    """

    def __init__(self, config: RealtimeConfig, blueprint: Blueprint, seed: int | None = None,
                 name: str = "realtime", stats_path: str = "", match_hands: int = 0) -> None:
        self.config = config
        #: Hands in the match when known (0: unknown): the dealer's time bank is ``hand_time_limit`` x this.
        self.match_hands = int(match_hands)
        self._spec_match_hands = self.match_hands  # the spec's value wins over a runner's
        self.resolver = Resolver(config, blueprint)
        self.game = blueprint.game
        self.seed = agent_seed(config.seed if seed is None else seed)
        self.rng = np.random.default_rng(self.seed)
        self.name = name
        self.index = {tuple(int(c) for c in row): i for i, row in enumerate(self.resolver.universe)}
        self.stats: list[dict[str, object]] = []
        self.hands = 0
        self.stats_path = stats_path
        #: Seconds spent deciding in this match (against ``hand_time_limit`` x hands).
        self.used = 0.0
        #: Wall seconds each decision of the hand took when first made (asking again is free).
        self._walls: dict[tuple[int, str], float] = {}
        self._worker: threading.Thread | None = None

    def warm_up(self) -> float:
        """Make one untimed decision at the first decision of each round the agent re-solves (fixed cards, every
        bet called), then forget it; returns the seconds it took.

        The first solve of a process pays for loading numba's compiled kernels and the leaf and preflop tables;
        in a timed match that falls on the first hand, when the match's time bank (``hand_time_limit`` x hands)
        holds one hand's budget, and pushes its later decisions to the blueprint. Warming up before the match
        moves that cost out of the clock. Decisions do not depend on it: they depend on the public history and
        the config's seed only (up to floating-point rounding in the last bits)."""
        start = time.perf_counter()
        deck = self.game.deck()
        state = State.initial(self.game, board_cards=deck[: self.game.total_board_cards])
        if self.config.translation == "random":
            self.resolver.policy.new_hand(self.seed, 0)
        rounds: set[int] = set()
        while not state.finished:
            if state.round not in rounds and self.config.round(state.round).mode != "blueprint":
                self.resolver.decide(state.with_cards(board_cards=state.visible_board))
            rounds.add(state.round)
            state = state.apply(CALL)
        self.resolver.clear()
        return time.perf_counter() - start

    def set_match_hands(self, hands: int) -> None:
        """The match's length from the runner, unless the spec gave one (``match_hands``)."""
        self.match_hands = self._spec_match_hands if self._spec_match_hands > 0 else int(hands)

    def begin_match(self, game: GameDef) -> None:
        """A new match: a new time bank (the hands played and the seconds spent count from zero)."""
        if game != self.game:
            raise PokerbotError(f"the agent's blueprint is for {self.game.name}, not {game.name}")
        self.hands = 0
        self.used = 0.0

    def begin_hand(self, view: MatchState) -> None:
        if self._worker is not None:  # a cancelled solve still running: it stops at its next check
            self._worker.join()
            self._worker = None
        self.resolver.clear()
        self._walls.clear()
        self.hands += 1
        self.rng = hand_rng(self.seed, view)  # as the blueprint agent's: equal strategies, equal play
        if self.config.translation == "random":  # the hand's translations: drawn, as the blueprint agent's
            self.resolver.policy.new_hand(self.seed, view.state.hand_id)

    def time_limit(self) -> float:
        """Seconds the next decision may take: the action limit, or less when the match's time bank is short.

        The ACPC dealer's bank is ``t_per_hand`` x the match's hands, for the whole match. Not knowing the
        match's length, the agent spends at most ``hand_time_limit`` x the hands played so far; knowing it
        (``match_hands``), up to :data:`HANDS_AHEAD` hands' budgets ahead of that, never past the whole bank, so
        that one long first hand does not push its last decisions to the blueprint."""
        limit = self.config.action_time_limit
        if self.config.hand_time_limit > 0:
            hands = max(self.hands, 1)
            if self.match_hands > 0:
                hands = min(hands + HANDS_AHEAD, max(self.match_hands, hands))
            limit = min(limit, self.config.hand_time_limit * hands - self.used)
        return max(limit, 0.0)

    def decision(self, view: MatchState) -> Decision:
        """The decision at ``view``'s public state (every hand's probabilities), made within :meth:`time_limit`."""
        state = view.state
        pub = state.with_cards(hole_cards=((),) * self.game.num_players)
        key = (int(state.current_player if state.current_player is not None else -1), public_key(pub))
        hit = self.resolver.memo.get(key)
        if hit is not None:
            return hit
        start = time.perf_counter()
        limit = self.time_limit()
        if self._worker is not None:  # the solve cancelled at the last timeout must end before the resolver is reused
            self._worker.join(limit)
            if self._worker.is_alive():
                return self._timeout(pub, key, start, limit)
            self._worker = None
        if limit <= 0.0:
            return self._timeout(pub, key, start, limit)
        if limit == float("inf"):  # untimed: no watchdog
            d = self.resolver.decide(pub)
            self._walls[key] = time.perf_counter() - start
            self.used += self._walls[key]
            return d
        box: dict[str, Decision] = {}
        failed: dict[str, BaseException] = {}

        def work() -> None:
            try:
                box["decision"] = self.resolver.decide(pub)
            except BaseException as exc:  # handed to the caller below
                failed["error"] = exc

        self.resolver.cancel.clear()
        self.resolver.deadline = start + limit
        worker = threading.Thread(target=work, name="realtime-solve", daemon=True)
        worker.start()
        worker.join(max(limit - (time.perf_counter() - start), 0.0))
        self.resolver.deadline = None
        if worker.is_alive():
            self._worker = worker
            return self._timeout(pub, key, start, limit)
        self._walls[key] = time.perf_counter() - start
        self.used += self._walls[key]
        if "error" in failed:
            raise failed["error"]
        return box["decision"]

    def _timeout(self, pub: State, key: tuple[int, str], start: float, limit: float) -> Decision:
        self.resolver.cancel.set()
        log.warning("round %d at %r: no decision within the %.2f s limit; playing the blueprint",
                    pub.round, pub.betting_string(), limit)
        d = self.resolver.blueprint_decision(pub, "timeout")
        d.seconds = time.perf_counter() - start
        self.resolver.memo[key] = d
        self._walls[key] = d.seconds
        self.used += d.seconds
        return d

    def _row(self, d: Decision, hole: Sequence[int]) -> np.ndarray:
        p = d.probs[:, self.index[tuple(sorted((int(c) for c in hole), reverse=True))]].clip(min=0.0)
        total = p.sum()
        return p / total if total > 0 else np.full(len(p), 1.0 / len(p))

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        d = self.decision(view)
        p = self._row(d, view.state.hole_cards[view.viewer])
        return [(a, float(q)) for a, q in zip(d.actions, p) if q > 0]

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray:
        d = self.decision(view)
        if action not in d.actions:
            return np.zeros(len(holes))
        rows = np.array([self.index[tuple(sorted((int(c) for c in h), reverse=True))] for h in holes], dtype=np.int64)
        p = d.probs[:, rows].clip(min=0.0)
        total = p.sum(axis=0)
        chosen = p[d.actions.index(action)]
        return np.where(total > 0, chosen / np.where(total > 0, total, 1.0), 1.0 / len(d.actions))

    def decision_counts(self) -> dict[str, int]:
        """Decisions by how they were made (from ``stats``): solved, from the solve cache, reused, the
        blueprint's rounds, and the fallbacks to the blueprint (time budget: too few iterations in it;
        time limit: the agent's hard limit stopped the decision)."""
        counts: dict[str, int] = {}
        for record in self.stats:
            key = _SOURCE_WORDS.get(str(record.get("source")), str(record.get("source")))
            counts[key] = counts.get(key, 0) + 1
        return counts

    def decision_note(self) -> str | None:
        """How the last :meth:`act` decided, from its ``stats`` record (see :func:`decision_note`)."""
        return decision_note(self.stats[-1], self.config) if self.stats else None

    def act(self, view: MatchState) -> Action:
        start = time.perf_counter()
        state = view.state
        d = self.decision(view)
        p = self._row(d, state.hole_cards[view.viewer])
        action = d.actions[int(self.rng.choice(len(p), p=p))]
        player = state.current_player
        assert player is not None  # the agent is asked to act
        key = (int(player), public_key(state.with_cards(hole_cards=((),) * self.game.num_players)))
        # the decision's own wall time when an earlier question (AIVAT, LBR) made it, else this call's
        seconds = max(self._walls.pop(key, 0.0), time.perf_counter() - start)
        record: dict[str, object] = {"hand": self.hands, "round": state.round, "seconds": seconds,
                                     "source": d.source, "gadget": d.gadget, "iterations": d.iterations,
                                     "nodes": d.nodes}
        self.stats.append(record)
        if self.stats_path:
            with open(self.stats_path, "a") as f:
                f.write(json.dumps({**record, "rss_mb": _rss_mb(),
                                    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}) + "\n")
        return action


#: :meth:`RealtimeAgent.decision_counts` keys of each ``Decision.source``.
_SOURCE_WORDS = {"solve": "solved", "cache": "solved (cache)", "reuse": "reused", "blueprint": "blueprint",
                 "fallback": f"{FELL_BACK}: time budget", "timeout": f"{FELL_BACK}: time limit"}

#: Solver names as people write them.
_ALGORITHM_NAMES = {"cfr": "CFR", "cfr+": "CFR+", "lcfr": "LCFR", "dcfr": "DCFR"}


def decision_note(record: dict[str, object], config: RealtimeConfig) -> str:
    """One decision's ``stats`` record in words: its mode and any fallback to the blueprint.

    >>> cfg = RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": {"mode": "solve", "time_budget": 2.0}}})
    >>> decision_note({"round": 1, "seconds": 1.26, "source": "solve", "gadget": "unsafe", "iterations": 200}, cfg)
    'solved (DCFR 200 it, 1.3 s)'
    >>> decision_note({"round": 1, "seconds": 2.1, "source": "fallback", "gadget": "unsafe", "iterations": 7}, cfg)
    'fell back to the blueprint: time budget (7 of 20 it in 2 s)'
    >>> decision_note({"round": 0, "seconds": 0.01, "source": "blueprint", "gadget": "", "iterations": 0}, cfg)
    'blueprint'
    """
    rc = config.round(int(str(record.get("round", 0))))
    seconds = float(str(record.get("seconds", 0.0)))
    iterations = int(str(record.get("iterations", 0)))
    algorithm = _ALGORITHM_NAMES.get(rc.algorithm, rc.algorithm)
    gadget = str(record.get("gadget") or "")
    safe = f", {gadget} gadget" if gadget and gadget != "unsafe" else ""
    source = record.get("source")
    if source == "solve":
        return f"solved ({algorithm} {iterations} it, {seconds:.1f} s{safe})"
    if source == "cache":
        return f"solved earlier, from the cache ({seconds:.1f} s)"
    if source == "reuse":
        return f"reused the previous solve ({seconds:.1f} s)"
    if source == "fallback":
        budget = min(rc.time_budget, config.action_time_limit)
        return (f"fell back to the blueprint: time budget ({iterations} of {rc.min_iterations} it "
                f"in {budget:g} s)")
    if source == "timeout":
        return f"fell back to the blueprint: time limit ({seconds:.1f} s)"
    return str(source)


def _rss_mb() -> float:
    """This process's resident memory now (Linux ``/proc``; NaN elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return float("nan")
    return pages * resource.getpagesize() / 2**20


def untimed(config: RealtimeConfig) -> RealtimeConfig:
    """``config`` without time limits: every solve runs its iterations (measurements independent of the load).

    >>> untimed(RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": {"mode": "solve"}}})).round(1).time_budget
    inf
    """
    from dataclasses import replace

    rounds = tuple((r, replace(rc, time_budget=float("inf"))) for r, rc in config.rounds)
    return replace(config, action_time_limit=float("inf"), hand_time_limit=0.0, rounds=rounds)


def make_agent(game: GameDef, seed: int | None = None, config: str = "", name: str = "realtime",
               blueprint: str = "", stats: str = "", timed: str = "1", warm: str = "auto",
               match_hands: str = "0") -> RealtimeAgent:
    """Factory for ``realtime.agent:make_agent?config=NAME`` (``blueprint=`` overrides the config's, ``stats=PATH``
    appends one JSON line per decision to PATH, ``timed=0`` lifts every time limit: see :func:`untimed`;
    ``warm=1`` / ``warm=0`` warms the agent up before its first hand or not (:meth:`RealtimeAgent.warm_up`;
    ``auto``, the default: when it is timed); ``match_hands=N``: the match's length, when known, lets the agent
    spend the dealer's time bank a few hands ahead (:meth:`RealtimeAgent.time_limit`))."""
    if str(warm).lower() not in ("auto", "0", "1", "true", "false", "yes", "no", "on", "off"):
        raise PokerbotError(f"warm must be auto, 1 or 0, got {warm!r}")
    if not config:
        raise PokerbotError("the real-time agent needs config=<configs/realtime-NAME.toml name or a TOML path>")
    cfg = RealtimeConfig.load(config)
    if str(timed).lower() in ("0", "false", "no", "off"):
        cfg = untimed(cfg)
    if blueprint:  # the config then names it too, so the preflop cache's identity tells blueprints apart
        cfg = replace(cfg, blueprint=blueprint)
    bp = Blueprint.load(resolve_path(cfg.blueprint))
    if bp.game != game:
        raise PokerbotError(f"blueprint {cfg.blueprint!r} is for {bp.game.name}, the match plays {game.name}")
    try:
        hands = int(match_hands)
    except ValueError:
        hands = -1
    if hands < 0:
        raise PokerbotError(f"match_hands must be the match's number of hands (0: unknown), got {match_hands!r}")
    agent = RealtimeAgent(cfg, bp, seed=seed, name=name, stats_path=stats, match_hands=hands)
    timed_ = cfg.action_time_limit != float("inf") or cfg.hand_time_limit > 0
    if str(warm).lower() in ("1", "true", "yes", "on") or (str(warm).lower() == "auto" and timed_):
        log.info("warming up: %.1f s", agent.warm_up())
    return agent
