"""Configuration of a real-time agent (TOML files ``configs/realtime-*.toml``).

One file per agent::

    name = "realtime-hunl-tiny"
    blueprint = "hunl-tiny"       # a run under $POKERBOT_HOME/blueprints/, or a blueprint.npz path
    seed = 0                      # translations, rollouts, sampling: the agent is deterministic for a seed
    action_time_limit = 5.0       # seconds: the hard limit of one decision (the agent plays the blueprint,
                                  # with a warning, if a solve is not done by then)
    hand_time_limit = 0.0         # seconds per hand on average over the match (the ACPC dealer's t_per_hand,
                                  # 7 s by default): a decision may use only what is left; 0: no such limit
    translation = "likely"        # an off-tree opponent action met where the agent plays or models the blueprint:
                                  # "likely" (the more likely side of its bracket, always) or "random" (a side
                                  # drawn per hand, as the blueprint agent does; not with cached rounds)

    [leaves]                      # depth-limited streets only
    evaluator = "rollout"         # "rollout": rollouts of the blueprint's continuation strategies (hold'em);
                                  # "network": a trained leaf-value network (docs/leafnet.md), built for this
                                  # blueprint, this continuation set and the rounds it is used in
    model = ""                    # the network: a name under $POKERBOT_HOME/leafnet/ or a model directory
    continuations = "bias"        # "bias" (made from the blueprint) or a set name under $POKERBOT_HOME/leaves/
    k = 4                         # the opponent's continuation strategies (ours: the blueprint)
    factor = 10.0                 # bias factor
    rollouts = 3                  # run-outs per leaf (0: every run-out once, the exact expectation)
    equity_samples = 0            # all-in leaves: run-outs sampled for their equity (0: every run-out)

    [round.1]                     # one table per round (0 = preflop); missing rounds play the blueprint
    mode = "solve"                # "solve" or "blueprint"
    gadget = "unsafe"             # unsafe | resolve | maxmargin | reach
    alt = "previous"              # safe gadgets' alternative values: "previous" solve (unsafe where
                                  # none covers the root, as Modicum) or "blueprint" (always)
    algorithm = "dcfr"            # cfr | cfr+ | lcfr | dcfr
    iterations = 300
    min_iterations = 50           # fewer than this within the time budget: play the blueprint (warning)
    time_budget = 4.0             # seconds per decision for this round
    depth_limit = 0               # rounds beyond this one inside the subgame (-1: to the end of the hand)
    rollouts = -1                 # this round's run-outs per rollout leaf (-1: [leaves] rollouts; 0: every one)
    leaf_mb = -1.0                # this round's budget for rollout leaf values in MiB (-1: none): fewer run-outs
                                  # are kept where they would take more (their work per iteration grows alike)
    leaves = ""                   # this round's leaf evaluator, "rollout" or "network" ("": [leaves] evaluator);
                                  # "table" in [round.0] with depth_limit = 0: flop-start values of the
                                  # blueprint and the continuations (realtime.preflop_values, built once)
    sizes = ""                    # more bet sizes for the agent in this round's subgames, on top of the
                                  # blueprint's: a bet menu line (pokerbot.menus.menu_from_spec), e.g.
                                  # "pot 0.5,0.75 all_in=0 max_raises=1" (the opening bet only); "": none
    drop_half = true              # leave the first half of the iterations out of the average (Modicum)
    cache = false                 # keep solutions on disk by action sequence (the preflop cache)
    reuse = false                 # true: keep playing the last solution while the hand stays on its tree
                                  # (re-solve only after an opponent action it lacks); false: re-solve
                                  # after every opponent action (Modicum)
    ranges = "bayes"              # both players' ranges at the subgame's root: "bayes" (ours from the strategy
                                  # the agent played, the opponent's from its latest solution's model of it) or
                                  # "blueprint" (both as the blueprint would have played the public history)

>>> cfg = RealtimeConfig.from_dict({"blueprint": "x", "round": {"0": {"mode": "solve", "gadget": "resolve"}}})
>>> cfg.round(0).gadget, cfg.round(3).mode
('resolve', 'blueprint')
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pokerbot.errors import PokerbotError
from pokerbot.files import is_plain_name, read_toml_config
from pokerbot.menus import BetMenuFn, MenuError, menu_from_spec
from pokerbot.schema import build, take
from pokerbot.solver.cfr import ALGORITHMS
from pokerbot.solver.gadgets import GADGETS


class RealtimeConfigError(PokerbotError, ValueError):
    """A malformed real-time agent configuration (names the key and the bad value)."""


#: The shipped real-time agents are ``configs/realtime-<name>.toml``: ``hunl-tiny`` names ``realtime-hunl-tiny``.
CONFIG_PREFIX = "realtime-"


#: Leaf evaluators of depth-limited subgames (``realtime.network_leaves.make_leaf_evaluator``); "table" is a
#: preflop round's own (:mod:`realtime.preflop_values`).
LEAF_EVALUATORS = ("rollout", "network", "table")


#: Round numbers a config may name: hold'em's four (a game with fewer refuses the rest when the agent is built).
MAX_ROUNDS = 4

#: What each key means, by table ("" = the top level), for the configuration reference (docs/config-reference.md,
#: made by :mod:`evaluation.configref`): ``"meaning"`` or ``(meaning, allowed values or range[, type, default])``.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "": {
        "name": ("the agent's name: its cache directory under $POKERBOT_HOME (preflop cache, tables)",
                 "a plain name (no '/')"),
        "blueprint": ("the blueprint it plays and re-solves: a run name under $POKERBOT_HOME/blueprints/ or a "
                      "blueprint.npz path (an agent spec's `blueprint=` overrides it)"),
        "seed": ("seed of translations, rollouts and sampling: the agent is deterministic for a seed",
                 "0 .. 2**63-1"),
        "action_time_limit": ("seconds: the hard limit of one decision; a solve not done by then plays the "
                              "blueprint (with a warning)", "> 0"),
        "hand_time_limit": ("seconds per hand on average over the match (the ACPC dealer's t_per_hand, 7 s by "
                            "default): a decision uses at most what is left; 0: no such limit", ">= 0"),
        "translation": ("an off-tree opponent action met where the agent plays or models the blueprint: the more "
                        "likely side of its bracket always, or a side drawn per hand (not with cached rounds)",
                        "likely, random"),
    },
    "leaves": {
        "evaluator": ("leaf values of depth-limited subgames: rollouts of the continuation strategies "
                      "(hold'em), or a trained leaf-value network (docs/leafnet.md)",
                      ", ".join(LEAF_EVALUATORS[:2])),
        "model": ("the leaf-value network: a name under $POKERBOT_HOME/leafnet/ or a model directory (needed "
                  "when a round uses network leaves)"),
        "continuations": ("the opponent's continuation strategies: made from the blueprint (bias) or a set "
                          "built by `pokerbot leaves build`, named under $POKERBOT_HOME/leaves/",
                          "bias, or a set name"),
        "k": ("how many continuation strategies the opponent chooses among at a leaf (ours: the blueprint)",
              ">= 1"),
        "factor": ("bias factor: a biased copy multiplies the probabilities of its kind of action by this",
                   "> 0"),
        "rollouts": ("run-outs per leaf of the rollout evaluator; 0: every run-out once (the exact expectation "
                     "over the cards to come; a round's own `rollouts` overrides it)", ">= 0"),
        "equity_samples": ("all-in leaves: run-outs sampled for their equity; 0: every run-out", ">= 0"),
        "shared_runouts": ("sampled run-outs: the same for every leaf of a subgame on one board (common random "
                           "numbers: the solve compares its actions over the same cards), or drawn per leaf",
                           "true, false"),
        "max_mb": ("cap on a rollout evaluator's leaf values in MiB: when a subgame's run-outs would take more "
                   "(fine card abstractions: up to 1,326 classes a player), the first that fit are kept (a sample "
                   "of them where every run-out was asked for), with a warning", "> 0"),
    },
    "round.N": {
        "mode": ("re-solve this round's decisions, or play the blueprint", "solve, blueprint"),
        "gadget": ("root gadget of the re-solve: unsafe (the blueprint's ranges), or a safe one keeping the "
                   "opponent's values (resolve, maxmargin, reach = Reach-Maxmargin)", ", ".join(GADGETS)),
        "alt": ("the safe gadgets' alternative values: the previous solve's (unsafe where none covers the root, "
                "as Modicum) or always the blueprint's", "previous, blueprint"),
        "algorithm": ("the CFR variant of the re-solve", ", ".join(ALGORITHMS)),
        "iterations": ("CFR iterations of a re-solve", ">= 1"),
        "min_iterations": ("fewer iterations than this within the time budget: play the blueprint (warning)",
                           "0 .. iterations"),
        "time_budget": ("seconds per decision in this round", "> 0"),
        "depth_limit": ("rounds beyond this one inside the subgame: 0 cuts it at the end of the round "
                        "(depth-limited leaves); -1: to the end of the hand", ">= -1"),
        "drop_half": "leave the first half of the iterations out of the average strategy (Modicum)",
        "cache": "keep solutions on disk by action sequence (the preflop cache); not with translation = \"random\"",
        "reuse": ("keep playing the last solution while the hand stays on its tree (re-solve only after an "
                  "opponent action it lacks); false: re-solve after every opponent action (Modicum)"),
        "leaves": ("this round's leaf evaluator (\"\": the [leaves] evaluator); \"table\": flop-start values "
                   "(realtime.preflop_values, built once), only in [round.0] with depth_limit = 0",
                   "\"\", " + ", ".join(LEAF_EVALUATORS)),
        "rollouts": ("this round's run-outs per rollout leaf (-1: [leaves] rollouts; 0: every run-out once)",
                     ">= -1"),
        "leaf_mb": ("this round's budget for the rollout evaluator's leaf values in MiB (-1: none, only [leaves] "
                    "max_mb): where the planned run-outs would take more, the first that fit are kept (a sample of "
                    "them where every run-out was asked for), logged at info level. A leaf value costs the same "
                    "work every iteration, so the budget keeps a round's decisions within their time on fine card "
                    "abstractions (many card classes a run-out) and changes nothing on coarse ones",
                    "-1 or > 0"),
        "sizes": ("more opening bet sizes for the agent in this round's subgames, on top of the blueprint's: a "
                  "bet menu line (pokerbot.menus.menu_from_spec), e.g. \"pot 0.5,0.75 all_in=0 max_raises=1\"; "
                  "\"\": none"),
        "ranges": ("both players' ranges at a subgame's root: bayes (ours from the strategy the agent played, the "
                   "opponent's from its latest solution's model of it, else the blueprint's) or blueprint (both as "
                   "the blueprint would have played the public history; an ablation)", "bayes, blueprint"),
    },
}


@dataclass(frozen=True)
class RoundConfig:
    """How one round is played; see the module docstring."""

    mode: str = "blueprint"
    gadget: str = "unsafe"
    alt: str = "previous"
    algorithm: str = "dcfr"
    iterations: int = 200
    min_iterations: int = 20
    time_budget: float = 5.0
    depth_limit: int = -1
    drop_half: bool = True
    cache: bool = False
    reuse: bool = False
    leaves: str = ""
    rollouts: int = -1
    leaf_mb: float = -1.0
    sizes: str = ""
    ranges: str = "bayes"

    def check(self, where: str) -> RoundConfig:
        if self.mode not in ("solve", "blueprint"):
            raise RealtimeConfigError(f"{where}.mode must be 'solve' or 'blueprint', got {self.mode!r}")
        if self.gadget not in GADGETS:
            raise RealtimeConfigError(f"{where}.gadget must be one of {', '.join(GADGETS)}, got {self.gadget!r}")
        if self.alt not in ("previous", "blueprint"):
            raise RealtimeConfigError(f"{where}.alt must be 'previous' or 'blueprint', got {self.alt!r}")
        if self.algorithm not in ALGORITHMS:
            raise RealtimeConfigError(f"{where}.algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if self.iterations < 1 or not 0 <= self.min_iterations <= self.iterations:
            raise RealtimeConfigError(f"{where}: need iterations >= 1 and 0 <= min_iterations <= iterations, got "
                                      f"{self.iterations}, {self.min_iterations}")
        if not self.time_budget > 0:
            raise RealtimeConfigError(f"{where}.time_budget must be positive seconds, got {self.time_budget}")
        if self.depth_limit < -1:
            raise RealtimeConfigError(f"{where}.depth_limit must be -1 (to the end) or >= 0, got {self.depth_limit}")
        if self.leaves not in ("",) + LEAF_EVALUATORS:
            raise RealtimeConfigError(f"{where}.leaves must be '' (the [leaves] evaluator), 'rollout', 'network' or "
                                      f"'table', got {self.leaves!r}")
        if self.rollouts < -1:
            raise RealtimeConfigError(f"{where}.rollouts must be -1 ([leaves] rollouts), 0 (every run-out) or more, "
                                      f"got {self.rollouts}")
        if not (self.leaf_mb == -1 or self.leaf_mb > 0):
            raise RealtimeConfigError(f"{where}.leaf_mb must be -1 (no budget) or positive MiB, got {self.leaf_mb}")
        if self.ranges not in ("bayes", "blueprint"):
            raise RealtimeConfigError(f"{where}.ranges must be 'bayes' or 'blueprint', got {self.ranges!r}")
        if self.leaves == "table" and (where != "round.0" or self.depth_limit != 0):
            raise RealtimeConfigError(f"{where}.leaves = 'table' (flop-start values) is for the preflop cut at its end: "
                                      "[round.0] with depth_limit = 0")
        if self.sizes:
            try:
                menu_from_spec(self.sizes)
            except MenuError as exc:
                raise RealtimeConfigError(f"{where}.sizes: {exc}") from None
        return self

    def extra_menu(self) -> BetMenuFn | None:
        """The menu of :attr:`sizes` (None when the round adds no size)."""
        return _menu(self.sizes) if self.sizes else None


@lru_cache(maxsize=64)
def _menu(spec: str) -> BetMenuFn:
    return menu_from_spec(spec)  # parsed once per line: the exact evaluation asks at every state


@dataclass(frozen=True)
class LeavesConfig:
    evaluator: str = "rollout"
    model: str = ""
    continuations: str = "bias"
    k: int = 4
    factor: float = 10.0
    rollouts: int = 3
    equity_samples: int = 0
    shared_runouts: bool = False
    max_mb: float = 1024.0

    def check(self) -> LeavesConfig:
        if self.evaluator not in LEAF_EVALUATORS[:2]:
            raise RealtimeConfigError(f"leaves.evaluator must be 'rollout' or 'network', got {self.evaluator!r} "
                                      "('table' goes in [round.0])")
        if self.k < 1 or self.rollouts < 0 or not self.factor > 0 or self.equity_samples < 0 or not self.max_mb > 0:
            raise RealtimeConfigError(f"leaves: need k >= 1, rollouts >= 0 (0: every run-out), factor > 0, "
                                      f"equity_samples >= 0, max_mb > 0, got {self.k}, {self.rollouts}, {self.factor}, "
                                      f"{self.equity_samples}, {self.max_mb}")
        return self


@dataclass(frozen=True)
class RealtimeConfig:
    """A whole agent: blueprint, leaves, one :class:`RoundConfig` per round, seed, time limit."""

    blueprint: str
    name: str = "realtime"
    seed: int = 0
    action_time_limit: float = 5.0
    hand_time_limit: float = 0.0
    translation: str = "likely"
    leaves: LeavesConfig = LeavesConfig()
    rounds: tuple[tuple[int, RoundConfig], ...] = field(default_factory=tuple)

    def round(self, r: int) -> RoundConfig:
        """The configuration of round ``r`` (the blueprint where the file has none)."""
        for k, c in self.rounds:
            if k == r:
                return c
        return RoundConfig()

    def leaf_evaluator(self, r: int) -> str:
        """The leaf evaluator of round ``r``'s depth-limited subgames: its own ``leaves``, else ``[leaves] evaluator``."""
        return self.round(r).leaves or self.leaves.evaluator

    def rollouts(self, r: int) -> int:
        """Run-outs per rollout leaf in round ``r``'s subgames: its own ``rollouts``, else ``[leaves] rollouts``."""
        own = self.round(r).rollouts
        return self.leaves.rollouts if own < 0 else own

    def leaf_budget_mb(self, r: int) -> float:
        """Round ``r``'s budget for rollout leaf values in MiB (its ``leaf_mb``; 0: none)."""
        return max(self.round(r).leaf_mb, 0.0)

    def uses_table(self) -> bool:
        """Whether the preflop is solved with flop-start table leaves (:mod:`realtime.preflop_values`)."""
        c = self.round(0)
        return c.mode == "solve" and c.leaves == "table"

    def network_rounds(self) -> list[int]:
        """The rounds whose subgames have depth-limited leaves valued by the network."""
        return [r for r, c in self.rounds
                if c.mode == "solve" and c.depth_limit >= 0 and self.leaf_evaluator(r) == "network"]

    def identity(self) -> str:
        """A digest of everything that changes a solution (names the preflop cache)."""
        d = asdict(self)
        d.pop("action_time_limit")
        d.pop("hand_time_limit")
        if d["translation"] == "likely":
            d.pop("translation")  # the default: the digests of files written before the key existed stay
        for _, c in d["rounds"]:
            c.pop("time_budget")
            c.pop("min_iterations")
            if c["rollouts"] == -1:
                c.pop("rollouts")  # the default: digests of files written before the key existed stay
            if c["leaf_mb"] == -1:
                c.pop("leaf_mb")  # likewise
            if c["ranges"] == "bayes":
                c.pop("ranges")  # likewise
        if not d["leaves"]["shared_runouts"]:
            d["leaves"].pop("shared_runouts")  # likewise
        if d["leaves"]["max_mb"] == LeavesConfig.max_mb:
            d["leaves"].pop("max_mb")  # likewise
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RealtimeConfig:
        known = {"name", "blueprint", "seed", "action_time_limit", "hand_time_limit", "translation", "leaves", "round"}
        extra = set(data) - known
        if extra:
            raise RealtimeConfigError(f"unknown key(s) {', '.join(sorted(extra))}; expected {', '.join(sorted(known))}")
        if not isinstance(data.get("blueprint"), str) or not data["blueprint"]:
            raise RealtimeConfigError("blueprint must name a blueprint run or file")
        if "name" in data and not (isinstance(data["name"], str) and is_plain_name(data["name"])):
            raise RealtimeConfigError(f"name {data['name']!r} must be a plain name (no '/', not '.' or '..'): it names "
                                      "the agent's cache directory under $POKERBOT_HOME")
        err = RealtimeConfigError
        leaves = build(LeavesConfig, take(data, "leaves", dict, {}, error=err), "[leaves]", err).check()
        rounds = []
        for key, table in sorted(take(data, "round", dict, {}, error=err).items()):
            if not key.isdigit() or not 0 <= int(key) < MAX_ROUNDS:
                raise err(f"[round.{key}]: rounds are numbered 0..{MAX_ROUNDS - 1} (0: preflop)")
            rounds.append((int(key), build(RoundConfig, table, f"[round.{key}]", err).check(f"round.{key}")))
        seed = take(data, "seed", int, 0, error=err, low=0, high=2**63 - 1)
        limit = take(data, "action_time_limit", float, 5.0, error=err, low=0.0)
        if not limit > 0:
            raise err(f"action_time_limit must be positive seconds, got {limit!r}")
        per_hand = take(data, "hand_time_limit", float, 0.0, error=err, low=0.0)
        translation = take(data, "translation", str, "likely", error=err)
        if translation not in ("likely", "random"):
            raise RealtimeConfigError(f"translation must be 'likely' or 'random', got {translation!r}")
        if translation == "random" and any(c.cache for _, c in rounds):
            raise RealtimeConfigError("translation = 'random' changes a subgame's menu from hand to hand: "
                                      "it cannot share cached solutions (cache = true)")
        cfg = cls(blueprint=data["blueprint"], name=take(data, "name", str, "realtime", error=err), seed=seed,
                  action_time_limit=float(limit), hand_time_limit=float(per_hand), translation=translation,
                  leaves=leaves, rounds=tuple(rounds))
        if cfg.network_rounds() and not leaves.model:
            raise RealtimeConfigError(f"round(s) {cfg.network_rounds()} use network leaves: leaves.model must name the "
                                      "leaf-value model (a name under $POKERBOT_HOME/leafnet/ or a model directory)")
        return cfg

    @classmethod
    def load(cls, path: str | Path) -> RealtimeConfig:
        """Read a TOML file: a path, or a name ``realtime-X`` / ``X`` of ``configs/realtime-X.toml``
        (:func:`pokerbot.files.config_path`, with the real-time agents' prefix)."""
        source, data = read_toml_config(path, RealtimeConfigError, prefix=CONFIG_PREFIX, what="real-time config")
        try:
            return cls.from_dict(data)
        except RealtimeConfigError as exc:
            raise RealtimeConfigError(f"{source}: {exc}") from None
