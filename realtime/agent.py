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
   "network"``, :mod:`realtime.network_leaves`, checked against the config when the agent is made).
3. **Solves it with the round's gadget** (:mod:`pokerbot.solver.gadgets`): ``unsafe``
   from the tracked ranges, or ``resolve`` / ``maxmargin`` / ``reach`` with alternative
   values from the previous solution when its tree holds the new root (the nested
   case), from the blueprint when ``alt = "blueprint"``, else unsafe (Modicum's rule).
   CFR+/DCFR for the round's iterations, within its time budget; fewer than
   ``min_iterations`` in the budget plays the blueprint instead (logged warning).
4. **Plays** its hand's row of the solution at the real node; the solution becomes
   the previous one.

Rounds with ``mode = "blueprint"`` play the blueprint (through the same mapping
as :class:`blueprint.agent.BlueprintAgent`, translation fixed to the more likely
side). ``cache = true`` keeps solutions on disk by action sequence
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
import logging
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from blueprint.agent import resolve_path
from blueprint.model import Blueprint
from blueprint.storage import pokerbot_home
from pokerbot.agent import Agent
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.solver.best_response import uniform_strategy
from pokerbot.solver.gadgets import SubgameSolver, alternative_values, gifts, reach_at
from pokerbot.solver.leaves import LeafEvaluator
from pokerbot.solver.tree import PublicTree, action_text, build_tree
from pokerbot.state import Action, State, parse_action
from realtime.config import RealtimeConfig, RoundConfig
from realtime.network_leaves import agent_leaf_model, make_leaf_evaluator
from realtime.subgame import (
    BlueprintPolicy,
    SubgameMenu,
    blueprint_on_tree,
    find_node,
    hand_universe,
    public_key,
    sampled_equity,
)

log = logging.getLogger("realtime")


@dataclass
class Solution:
    """A solved subgame: its tree, average strategy, leaf evaluator and our reach at its root."""

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
    source: str  # "solve", "cache", "blueprint" (the round's mode) or "fallback" (budget)
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


class Resolver:
    """The public-state side of the agent: :meth:`decide` at any public state (memoised)."""

    def __init__(self, config: RealtimeConfig, blueprint: Blueprint) -> None:
        self.config = config
        self.blueprint = blueprint
        self.game = blueprint.game
        self.policy = BlueprintPolicy(blueprint)
        self.universe = hand_universe(self.game)
        self.memo: dict[tuple[int, str], Decision] = {}
        #: Compute each safe solution's smallest margin (a diagnostic for the exact tests; costs a best response).
        self.check_margins = False
        self._continuations: list[np.ndarray] | None = None
        # The leaf-value network, loaded and checked against the blueprint, continuations and rounds up front.
        self._leafnet = agent_leaf_model(config, blueprint, self._opponent_continuations()) if config.network_rounds() else None
        self._equity: dict[tuple[int, ...], dict[str, dict[int, np.ndarray]]] = {}
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

    def _replay(self, state: State, us: int) -> tuple[_Replay, np.ndarray, np.ndarray, Solution | None]:
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
                r_us = r_us * d.probs[d.actions.index(a)]
                prev = d.solution
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
                    nh = prev.tree.num_hands[int(prev.tree.player[node])]
                    off = int(prev.tree.slot[node]) + labels.index(label) * nh
                    return prev.strategy[off : off + nh].copy()
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
        self.memo[key] = d
        return d

    def _solve(self, state: State, us: int, rc: RoundConfig) -> Decision:
        start = time.perf_counter()
        budget = min(rc.time_budget, self.config.action_time_limit)
        rep, r_us, r_opp, prev = self._replay(state, us)
        if rc.reuse and prev is not None and prev.tree.last_round >= state.round:
            node = find_node(prev.tree, state)
            if node is not None:
                actions, probs = _row(prev, node, self.game.nolimit)
                return Decision(actions, probs, prev, "reuse", seconds=time.perf_counter() - start)
        # The root: just before the opponent's last action of this round, else our own decision.
        root, reach_us, opp_range = state, r_us, r_opp
        if rep.states and rep.states[-1].current_player != us and rep.states[-1].round == state.round:
            root = rep.states[-1]
            reach_us, opp_range = rep.ranges[-1]
            prev = rep.prev[-1]
        depth = None if rc.depth_limit < 0 else rc.depth_limit
        uni = (self.universe, self.universe)
        tree = build_tree(self.game, SubgameMenu(self.policy, state), root=root, hands=uni, depth_limit=depth)
        if depth == 0:
            # A tree cut at the end of its round has one board; its all-in equity tables depend only on that
            # board (the hand list is always the universe): share them between the subgames of a hand.
            shared = self._equity.setdefault(tuple(root.visible_board), {})
            tree.__dict__["_equity_cache"] = shared.setdefault("e", {})
            tree.__dict__["_equity_t_cache"] = shared.setdefault("t", {})
            samples = self.config.leaves.equity_samples
            if samples > 0 and tree.leaf_equity.any():
                cache = tree.__dict__["_equity_cache"]
                for b in np.unique(tree.board[tree.leaf_nodes[tree.leaf_equity]]).tolist():
                    if b not in cache:
                        cache[b] = sampled_equity(tree, int(b), samples, self.config.seed + int(b))
        leaves = None
        if len(tree.continuation_leaves):
            if time.perf_counter() - start > budget:
                return self._fallback(state, rc, budget, 0, start, tree.num_nodes)
            leaves = self._leaves(tree, us, state)
        gadget = rc.gadget
        alt = gift = None
        if gadget != "unsafe":
            prev_root = find_node(prev.tree, root) if prev is not None else None
            if prev is not None and prev_root is not None:
                mine = reach_at(prev.tree, prev.strategy, us, prev_root, prev.reach_us)
                alt = alternative_values(prev.tree, prev.strategy, us, mine, prev_root, prev.leaves)
                if gadget == "reach":
                    gift = gifts(prev.tree, prev.strategy, us, prev_root, prev.leaves, prev.reach_us)
            elif rc.alt == "blueprint":
                base = blueprint_on_tree(tree, self.policy, us, uniform_strategy(tree, leaves))
                alt = alternative_values(tree, base, us, reach_us, 0, leaves)
                gift = np.zeros(len(self.universe))
            else:
                gadget = "unsafe"
        if not (opp_range * tree.valid[1 - us][tree.root_board]).any():
            opp_range = np.ones(len(self.universe))  # an action our model gave probability 0: no information
        cached = self._cache_path(rc, us, root, state)
        solver = SubgameSolver(
            tree, us, gadget, reach_us, opp_range=opp_range, alt=alt, gift=gift, algorithm=rc.algorithm,
            leaves=leaves, drop_average_before=(rc.iterations // 2 + 1) if rc.drop_half else 0,
        )
        source = "solve"
        if cached is not None and cached.is_file():
            strategy = np.load(cached)
            if strategy.shape != (solver.num_slots,):
                raise PokerbotError(f"cached solution {cached} does not fit its subgame; delete the cache directory")
            source = "cache"
        else:
            chunk = 1
            while solver.iteration < rc.iterations:
                t0 = time.perf_counter()
                solver.run(min(chunk, rc.iterations - solver.iteration))
                now = time.perf_counter()
                per = (now - t0) / chunk
                chunk = max(1, min(chunk * 2, 50))
                if now - start + per > budget:
                    break
            if solver.iteration < rc.min_iterations:
                return self._fallback(state, rc, budget, solver.iteration, start, tree.num_nodes)
            strategy = solver.strategy()
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                tmp = cached.with_suffix(".tmp.npy")
                np.save(tmp, strategy)
                tmp.replace(cached)
        min_margin = float("nan")
        if self.check_margins and gadget != "unsafe":
            min_margin = float(solver.margins(strategy).min())
        node = find_node(tree, state)
        assert node is not None, "the subgame holds the real state"
        solution = Solution(tree, strategy, leaves, reach_us * tree.valid[us][tree.root_board])
        actions, probs = _row(solution, node, self.game.nolimit)
        return Decision(actions, probs, solution, source, gadget, solver.iteration, time.perf_counter() - start,
                        tree.num_nodes, min_margin)

    def _fallback(self, state: State, rc: RoundConfig, budget: float, done: int, start: float, nodes: int) -> Decision:
        """The blueprint's decision, when the budget runs out before ``min_iterations`` (logged)."""
        log.warning("round %d at %r: %d of %d minimum iterations in the %.1f s budget; playing the blueprint",
                    state.round, state.betting_string(), done, rc.min_iterations, budget)
        actions, probs = self.policy.probabilities(state)
        return Decision(actions, probs, None, "fallback", rc.gadget, done, time.perf_counter() - start, nodes)

    def _cache_path(self, rc: RoundConfig, us: int, root: State, state: State) -> Path | None:
        if not rc.cache:
            return None
        text = f"{us}|{public_key(root)}|{public_key(state)}"
        name = hashlib.sha256(text.encode()).hexdigest()[:24]
        return pokerbot_home() / "realtime-cache" / f"{self.config.name}-{self.config.identity()}" / f"{name}.npy"

    def _opponent_continuations(self) -> list[np.ndarray]:
        lc = self.config.leaves
        if self._continuations is None:
            bp = self.blueprint
            if lc.continuations == "bias":
                from blueprint.continuation import bias_strategies

                self._continuations = bias_strategies(bp.tree, bp.strategy, lc.factor, lc.k)
            else:
                from blueprint.continuation import leaves_dir, load_set

                cs = load_set(leaves_dir(lc.continuations), bp.tree, bp.tree.signature())
                self._continuations = [np.asarray(s, dtype=np.float64) for s in cs.strategies[: lc.k]]
        return self._continuations

    def _leaves(self, tree: PublicTree, us: int, state: State) -> LeafEvaluator:
        conts: list[list[np.ndarray]] = [[], []]
        conts[us] = [np.asarray(self.blueprint.strategy, dtype=np.float64)]
        conts[1 - us] = list(self._opponent_continuations())
        seed = (self.config.seed * 1_000_003 + zlib.crc32(public_key(state).encode())) % (2**32)
        return make_leaf_evaluator(self.config.leaf_evaluator(state.round), tree, blueprint=self.blueprint,
                                   continuations=(conts[0], conts[1]), model=self._leafnet,
                                   rollouts=self.config.leaves.rollouts, seed=seed)


def _row(solution: Solution, node: int, nolimit: bool) -> tuple[list[Action], np.ndarray]:
    """The actions at ``node`` of a solution and their probabilities ``P[A, H]``."""
    tree = solution.tree
    labels = tree.node_labels(node)
    nh = tree.num_hands[int(tree.player[node])]
    off = int(tree.slot[node])
    probs = solution.strategy[off : off + len(labels) * nh].reshape(len(labels), nh).copy()
    return [parse_action(lab, nolimit)[0] for lab in labels], probs


class RealtimeAgent(Agent):
    """Plays the :class:`Resolver`'s decisions; ``stats`` keeps one record per decision."""

    def __init__(self, config: RealtimeConfig, blueprint: Blueprint, seed: int | None = None,
                 name: str = "realtime") -> None:
        self.config = config
        self.resolver = Resolver(config, blueprint)
        self.game = blueprint.game
        self.rng = np.random.default_rng(config.seed if seed is None else seed)
        self.name = name
        self.index = {tuple(int(c) for c in row): i for i, row in enumerate(self.resolver.universe)}
        self.stats: list[dict[str, object]] = []
        self.hands = 0

    def begin_match(self, game: GameDef) -> None:
        if game != self.game:
            raise PokerbotError(f"the agent's blueprint is for {self.game.name}, not {game.name}")

    def begin_hand(self, view: MatchState) -> None:
        self.resolver.clear()
        self.hands += 1

    def act(self, view: MatchState) -> Action:
        start = time.perf_counter()
        state = view.state
        pub = state.with_cards(hole_cards=((),) * self.game.num_players)
        d = self.resolver.decide(pub)
        hole = tuple(sorted((int(c) for c in state.hole_cards[view.viewer]), reverse=True))
        p = d.probs[:, self.index[hole]].clip(min=0.0)
        total = p.sum()
        p = p / total if total > 0 else np.full(len(p), 1.0 / len(p))
        action = d.actions[int(self.rng.choice(len(p), p=p))]
        self.stats.append({"hand": self.hands, "round": state.round, "seconds": time.perf_counter() - start, "source": d.source,
                           "gadget": d.gadget, "iterations": d.iterations, "nodes": d.nodes})
        return action


def make_agent(game: GameDef, seed: int | None = None, config: str = "", name: str = "realtime",
               blueprint: str = "") -> RealtimeAgent:
    """Factory for ``realtime.agent:make_agent?config=NAME`` (``blueprint=`` overrides the config's)."""
    if not config:
        raise PokerbotError("the real-time agent needs config=<configs/realtime-NAME.toml name or a TOML path>")
    cfg = RealtimeConfig.load(config)
    bp = Blueprint.load(resolve_path(blueprint or cfg.blueprint))
    if bp.game != game:
        raise PokerbotError(f"blueprint {cfg.blueprint!r} is for {bp.game.name}, the match plays {game.name}")
    return RealtimeAgent(cfg, bp, seed=seed, name=name)
