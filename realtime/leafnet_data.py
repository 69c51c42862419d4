"""Training data for the leaf-value network: leaf states, features and continuation values.

A data set is ``$POKERBOT_HOME/leafnet/<name>/data/``: ``shard_<i>.npz`` files (``x`` feature
rows, ``y`` targets ``V[k0, k1] / pot`` for player 0, ``group`` the leaf state or subgame a
row comes from, for a validation split that holds whole states out) and ``manifest.json``
(the config, the feature spec, what the targets were built for, a SHA-256 per shard).
Generation is resumable (shards already written and intact are kept), shows a progress
bar, and is reproducible: shard ``i`` depends only on the config and its seed.

Sources (``[leafnet] source``):

* ``"small"`` (no-limit Leduc and other small games): the depth-limited game from the
  start, cut at the end of round 1; the blueprint is a DCFR solution of the whole game and
  the opponent's K continuations a self-generated set (:func:`blueprint.continuation.self_generative`);
  targets are **exact** (:class:`pokerbot.solver.leaf_tables.ExactLeafEvaluator`), one class
  per hand, one row per (leaf, hand pair). Shards split the leaves.
* ``"holdem"`` (HUNL with a trained blueprint and its continuation set, ``pokerbot leaves
  build``): each task samples a flop subgame root, by the blueprint's own preflop play
  (actions drawn from the blueprint at sampled hole cards' buckets) or, with probability
  ``explore``, uniformly random preflop actions (broader coverage), a random flop, and a bet
  menu from ``menus``; the subgame is cut at the end of the flop and its leaves valued by
  :class:`realtime.leaf_values.RolloutLeafEvaluator` (both players choosing among the K
  continuations: ``K x K`` targets); classes are the blueprint's flop buckets.

Targets for class pairs come from any :class:`LeafEvaluator` through its interface
(:func:`class_pair_targets`): the opponent's reach is the indicator of one class and
option at a time, and the result is averaged over the disjoint hand pairs.

Workers are ray tasks: local (``workers`` processes) by default, a cluster with
``address``; ``workers = 0`` runs in this process.
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from blueprint.leafnet import FeatureSpec, LeafNetError, strategy_identity
from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.files import atomic_write_text, file_sha256, is_plain_name
from pokerbot.npz import load_checked, read_npz, save_checked, write_npz
from pokerbot.solver.leaves import LeafEvaluator
from pokerbot.solver.tree import PublicTree
from realtime.network_leaves import class_reach, leaf_rows, same_hand_index


#: What each key of ``[leafnet]`` and ``[data]`` means (``[features]`` and ``[train]``: :data:`blueprint.leafnet.KEY_DOCS`),
#: for the configuration reference (docs/config-reference.md, made by :mod:`evaluation.configref`): ``"meaning"`` or
#: ``(meaning, allowed values or range[, type, default])``.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "leafnet": {
        "name": "the run's name: its directory under $POKERBOT_HOME/leafnet/ (data/ and model/)",
        "source": ("where the leaves come from: the depth-limited game of a small game from the start, exact "
                   "targets; or flop subgames of a hold'em blueprint, rollout targets", "small, holdem"),
        "game": "small: the game (a shipped name or .game path)",
        "fractions": ("small: the bet menu's pot-fraction raises (plus all-in)", "each > 0"),
        "max_raises": ("raises per round in the bet menus (small and holdem)", ">= 0"),
        "k": ("the opponent's continuation strategies (holdem: the set's K must equal it)", ">= 1"),
        "iterations": ("small: DCFR iterations of the whole-game blueprint and of each self-generative step",
                       ">= 1"),
        "blueprint": "holdem: the blueprint, a run name under $POKERBOT_HOME/blueprints/ or a blueprint.npz path",
        "leaves": "holdem: the continuation set, a name under $POKERBOT_HOME/leaves/ (`pokerbot leaves build`)",
        "menus": ("holdem: bet menus (lists of pot fractions) a subgame draws its menu from", "each > 0"),
        "rollouts": ("holdem: run-outs per leaf of the rollout targets", ">= 1"),
        "explore": ("holdem: share of subgames reached by uniformly random preflop lines instead of the "
                    "blueprint's play", "0 .. 1"),
    },
    "data": {
        "subgames": ("holdem: flop subgames sampled in all", ">= 1, >= shards"),
        "shards": ("data files the work is split into (the unit of resuming and of a ray task)", ">= 1"),
        "workers": ("ray worker processes; 0: in this process", ">= 0"),
        "address": "ray cluster to join: \"\" starts a local ray, \"auto\" or host:port joins a cluster",
        "seed": ("seed of the data: shard i depends only on the config and this seed", ">= 0"),
    },
}


@dataclass
class DataConfig:
    """``[leafnet]`` and ``[data]`` of a ``configs/leafnet-*.toml`` (see docs/leafnet.md)."""

    name: str
    source: str  # "small" | "holdem"
    game: str = "leduc-nl"
    fractions: list[float] = field(default_factory=lambda: [1.0])
    max_raises: int = 2
    k: int = 4
    iterations: int = 300
    blueprint: str = "hunl-tiny"
    leaves: str = "hunl-tiny-bias"
    menus: list[list[float]] = field(default_factory=lambda: [[0.5, 1.0], [1.0], [0.33, 0.75, 1.5]])
    rollouts: int = 3
    explore: float = 0.3
    subgames: int = 16
    shards: int = 4
    workers: int = 2
    address: str = ""
    seed: int = 0

    def check(self) -> DataConfig:
        if not self.name or not self.game:
            raise PokerbotError(f"name and game must not be empty, got {self.name!r}, {self.game!r}")
        if self.source not in ("small", "holdem"):
            raise PokerbotError(f"source must be 'small' or 'holdem', got {self.source!r}")
        if self.shards < 1 or self.workers < 0 or self.k < 1 or self.rollouts < 1 or self.subgames < 1:
            raise PokerbotError("shards >= 1, workers >= 0, k >= 1, rollouts >= 1 and subgames >= 1 are needed")
        if not 0 <= self.explore <= 1:
            raise PokerbotError(f"explore is a probability, got {self.explore}")
        if self.max_raises < 0 or self.iterations < 1 or self.seed < 0:
            raise PokerbotError(f"max_raises >= 0, iterations >= 1 and seed >= 0 are needed, got {self.max_raises}, "
                                f"{self.iterations}, {self.seed}")
        for what, sizes in [("fractions", self.fractions)] + [(f"menus[{i}]", m) for i, m in enumerate(self.menus)]:
            if not sizes or not all(math.isfinite(f) and f > 0 for f in sizes):
                raise PokerbotError(f"{what} must be a list of positive pot fractions, got {sizes}")
        if not self.menus:
            raise PokerbotError("menus must hold at least one bet menu (a list of pot fractions)")
        if self.source == "holdem" and self.shards > self.subgames:
            raise PokerbotError(f"{self.shards} shards for {self.subgames} subgames: use at most one shard per subgame")
        return self


# --- targets through the evaluator interface -----------------------------------------------------------


def class_pair_targets(tree: PublicTree, ev: LeafEvaluator, maps: list[np.ndarray], ncls: int) -> tuple[np.ndarray, np.ndarray]:
    """``V[l, a * C + b, k0 * K1 + k1]`` (player 0's average payoff over disjoint pairs, chips) and pair counts.

    Player 1's reach is the indicator of class ``b`` under option ``k1``, one ``values``
    call per (class, option); ``V`` divides the class-``a`` sum by the number of disjoint
    pairs, computed with :func:`realtime.network_leaves.class_reach` on a reach of ones.
    """
    nl = len(tree.continuation_leaves)
    k0, k1 = ev.num_choices
    h0, h1 = tree.num_hands
    hands = (tree.hands[0].astype(np.int64), tree.hands[1].astype(np.int64))
    same = same_hand_index(tree)
    sums = np.zeros((nl, ncls, ncls, k0, k1))
    pairs = np.zeros((nl, ncls, ncls))
    onehot = [np.stack([(m == a).astype(np.float64) for a in range(ncls)]) for m in maps]  # (C, H) per leaf
    for i in range(nl):
        n = np.zeros((1, h0, ncls))
        class_reach(np.ones((1, h1)), hands[1], maps[i], hands[0], maps[i], same, ncls, n)
        pairs[i] = onehot[i] @ n[0]  # (a, b)
    for b in range(ncls):
        for kk in range(k1):
            reach = np.zeros((nl, k1, h1))
            for i in range(nl):
                reach[i, kk] = onehot[i][b]
            v = ev.values(0, reach)  # (L, K0, H0)
            for i in range(nl):
                sums[i, :, b, :, kk] = (onehot[i] @ v[i].T)  # (a, k0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(pairs[..., None, None] > 0, sums / pairs[..., None, None], 0.0)
    return out.reshape(nl, ncls * ncls, k0 * k1), pairs.reshape(nl, ncls * ncls)


def tree_rows(tree: PublicTree, ev: LeafEvaluator, classes: str, spec: FeatureSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``x``, targets ``y`` (fraction of the pot) and leaf numbers of a tree's valid class pairs."""
    x, maps, ncls = leaf_rows(tree, classes, spec)
    v, pairs = class_pair_targets(tree, ev, maps, ncls)
    pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
    y = v / pots[:, None, None]
    keep = pairs > 0
    leaf = np.broadcast_to(np.arange(len(pots))[:, None], keep.shape)
    return x[keep], y[keep].astype(np.float32), leaf[keep]


# --- sources -----------------------------------------------------------------------------------------


@dataclass
class SmallContext:
    """What a small-game data set is built for: the trees, the blueprint and the opponent's set."""

    dl: PublicTree
    full: PublicTree
    blueprint: np.ndarray
    continuations: list[np.ndarray]
    penalties: list[float]

    def evaluator(self) -> LeafEvaluator:
        from pokerbot.solver.leaf_tables import ExactLeafEvaluator

        return ExactLeafEvaluator(self.dl, self.full, ([self.blueprint], self.continuations),
                                  ((0.0,), tuple(self.penalties)))

    @property
    def identities(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The blueprint's and the opponent's continuation set's :func:`strategy_identity`."""
        from pokerbot.solver.leaf_tables import tree_fingerprint

        tid = tree_fingerprint(self.full)
        return strategy_identity(tid, [self.blueprint]), strategy_identity(tid, self.continuations, self.penalties)


def small_trees(cfg: DataConfig) -> tuple[PublicTree, PublicTree]:
    from pokerbot.gamedef import load_game
    from pokerbot.solver import PotFractionMenu, build_tree

    game = load_game(cfg.game)
    menu = PotFractionMenu(tuple(cfg.fractions), True, cfg.max_raises)
    return build_tree(game, menu, depth_limit=0), build_tree(game, menu)


#: The kind of the cached small-game solution (``context.npz``) in its checked archive's header.
CONTEXT_KIND = "leaf-net small-game context"


def small_context(cfg: DataConfig, directory: Path | None = None) -> SmallContext:
    """Solve the whole small game (DCFR) and self-generate the opponent's K continuations; cached in ``directory``."""
    from blueprint.continuation import self_generative
    from pokerbot.solver import Solver

    dl, full = small_trees(cfg)
    cache = directory / "context.npz" if directory is not None else None
    identity = {"game": cfg.game, "fractions": list(cfg.fractions), "max_raises": cfg.max_raises,
                "iterations": cfg.iterations, "k": cfg.k}
    if cache is not None and cache.is_file():
        try:
            meta, z = load_checked(cache, CONTEXT_KIND)
        except CheckpointError as exc:
            raise LeafNetError(f"{exc}; delete it to solve the game again") from None
        if (meta.get("identity") != identity or z["blueprint"].shape != (full.num_slots,)
                or z["continuations"].shape != (cfg.k, full.num_slots) or z["penalties"].shape != (cfg.k,)):
            raise LeafNetError(f"{cache}: solved for other options ({meta.get('identity')}); delete it to solve again")
        return SmallContext(dl, full, z["blueprint"], list(z["continuations"]), list(z["penalties"]))
    solver = Solver(full, "dcfr")
    solver.run(cfg.iterations)
    bp = solver.average_strategy()
    gen = self_generative(full.game, None, bp, cfg.k, chooser=1, iterations=cfg.iterations, full_tree=full, dl_tree=dl)
    ctx = SmallContext(dl, full, bp, gen.strategies, gen.penalties)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        save_checked(cache, CONTEXT_KIND, {"identity": identity}, {
            "blueprint": bp, "continuations": np.stack(gen.strategies), "penalties": np.array(gen.penalties)})
    return ctx


def _small_shard(cfg: DataConfig, spec: FeatureSpec, ctx_arrays: tuple, shard: int) -> dict[str, np.ndarray]:
    dl, full = small_trees(cfg)
    ctx = SmallContext(dl, full, *ctx_arrays)
    x, y, leaf = tree_rows(dl, ctx.evaluator(), "hand", spec)
    keep = leaf % cfg.shards == shard
    # Each row is its own group: the whole (small) population of leaf states is in the data.
    rows = np.nonzero(keep)[0]
    return {"x": x[keep], "y": y[keep], "group": rows.astype(np.int64), "leaf": leaf[keep].astype(np.int64)}


def sample_flop_root(bp: Any, rng: np.random.Generator, explore: bool) -> Any:
    """A flop subgame root: a preflop line from the blueprint's play (or uniform actions) and a random flop."""
    from blueprint.abstract_game import DECISION
    from blueprint.model import PresetCards
    from pokerbot.state import State

    game = bp.game
    cards = PresetCards(game, bp.cards_name)
    atree = bp.tree
    for _ in range(1000):
        deck = rng.permutation(52)
        holes = [tuple(int(c) for c in deck[0:2]), tuple(int(c) for c in deck[2:4])]
        buckets = [cards.bucket(0, h, []) for h in holes]
        node = 0
        state = State.initial(game)
        while atree.kind[node] == DECISION and atree.round[node] == 0:
            p = int(atree.player[node])
            probs = bp.probabilities(node, buckets[p]).astype(np.float64)
            if explore or probs.sum() <= 0:
                probs = np.ones_like(probs)
            a = int(rng.choice(len(probs), p=probs / probs.sum()))
            state = state.apply(atree.actions(node)[a])
            node = atree.children(node)[a]
        if atree.kind[node] == DECISION and state.round == 1:
            flop = [int(c) for c in rng.choice(52, size=3, replace=False)]
            return state.with_cards(board_cards=tuple(flop))
    raise PokerbotError("could not sample a preflop line that reaches the flop")


def _holdem_shard(cfg: DataConfig, spec: FeatureSpec, ctx_arrays: tuple, shard: int) -> dict[str, np.ndarray]:
    from blueprint.continuation import leaves_dir, load_set
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from pokerbot.solver import PotFractionMenu, build_tree
    from realtime.leaf_values import RolloutLeafEvaluator
    from realtime.network_leaves import holdem_classes

    bp = Blueprint.load(_blueprint_path(cfg.blueprint, blueprint_dir))
    cs = load_set(leaves_dir(cfg.leaves), bp.tree, bp.tree.signature())
    xs, ys, gs, ls = [], [], [], []
    for task in range(shard, cfg.subgames, cfg.shards):
        rng = np.random.default_rng([cfg.seed, task])
        explore = bool(rng.random() < cfg.explore)
        root = sample_flop_root(bp, rng, explore)
        menu = cfg.menus[int(rng.integers(len(cfg.menus)))]
        tree = build_tree(bp.game, PotFractionMenu(tuple(menu), True, cfg.max_raises), root=root, depth_limit=0)
        if not len(tree.continuation_leaves):
            continue
        ev = RolloutLeafEvaluator(tree, bp, (cs.strategies, cs.strategies), rollouts=cfg.rollouts,
                                  seed=int(rng.integers(2**31)))
        x, y, leaf = tree_rows(tree, ev, holdem_classes(bp), spec)
        xs.append(x)
        ys.append(y)
        gs.append(np.full(len(x), task, dtype=np.int64))
        ls.append(leaf.astype(np.int64))
    if not xs:
        return {"x": np.zeros((0, spec.num_features), np.float32), "y": np.zeros((0, cfg.k * cfg.k), np.float32),
                "group": np.zeros(0, np.int64), "leaf": np.zeros(0, np.int64)}
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "group": np.concatenate(gs), "leaf": np.concatenate(ls)}


def _blueprint_path(name: str, blueprint_dir: Callable[[str], Path]) -> Path:
    p = Path(name)
    return p if p.is_file() or not is_plain_name(name) else blueprint_dir(name) / "blueprint.npz"


def build_shard(cfg: DataConfig, spec: FeatureSpec, ctx_arrays: tuple, shard: int) -> dict[str, np.ndarray]:
    """The rows of shard ``shard`` (pure function of its arguments: reproducible anywhere)."""
    fn = _small_shard if cfg.source == "small" else _holdem_shard
    return fn(cfg, spec, ctx_arrays, shard)


# --- the driver: shards, manifest, resume, ray -------------------------------------------------------------


def describe(cfg: DataConfig, spec: FeatureSpec, directory: Path) -> dict[str, Any]:
    """What the data is built for: game, classes, K0 x K1, the blueprint's / continuation set's identities and
    ``leaf_round`` (the round at whose end the leaves are: 0 for ``small``, 1, the flop, for ``holdem``)."""
    if cfg.source == "small":
        ctx = small_context(cfg, directory)
        bpf, csf = ctx.identities
        return {"game": ctx.dl.game.name, "classes": "hand", "choices": [1, len(ctx.continuations)],
                "blueprint": bpf, "continuations": csf, "leaf_round": 0}
    from blueprint.continuation import leaves_dir, load_set
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from realtime.network_leaves import blueprint_identity, holdem_classes

    bp = Blueprint.load(_blueprint_path(cfg.blueprint, blueprint_dir))
    cs = load_set(leaves_dir(cfg.leaves), bp.tree, bp.tree.signature())
    if cs.k != cfg.k:
        raise PokerbotError(f"the continuation set {cfg.leaves!r} has K = {cs.k}, the config says k = {cfg.k}")
    return {"game": bp.game.name, "classes": holdem_classes(bp), "choices": [cs.k, cs.k],
            "blueprint": blueprint_identity(bp), "continuations": strategy_identity(bp.tree.signature(), cs.strategies),
            "leaf_round": 1}


def generate(
    cfg: DataConfig,
    spec: FeatureSpec,
    directory: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Write (or complete) the data set in ``directory``; returns its manifest.

    Refuses (:class:`LeafNetError`) a directory holding data built with other options, and
    (LockedError) one another job is writing. ``progress(done, total)`` is called as shards finish.
    """
    from pokerbot.files import exclusive

    cfg.check()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive(directory, "the leaf data directory"):
        return _generate(cfg, spec, directory, progress)


def _generate(cfg: DataConfig, spec: FeatureSpec, directory: Path,
              progress: Callable[[int, int], None] | None) -> dict[str, Any]:
    from dataclasses import asdict

    mpath = directory / "manifest.json"
    built_for = describe(cfg, spec, directory)
    manifest: dict[str, Any] = {"config": asdict(cfg), "spec": spec.as_dict(), **built_for, "shards": {}}
    if mpath.is_file():
        old = _read_manifest(directory)
        for key in ("config", "spec", "blueprint", "continuations", "choices", "classes"):
            if old.get(key) != manifest[key]:
                raise LeafNetError(f"{directory}: holds leaf data built with another {key}; use another name or --dir")
        manifest["shards"] = {k: v for k, v in old.get("shards", {}).items()
                              if (directory / v["file"]).is_file() and file_sha256(directory / v["file"]) == v["sha256"]}
    todo = [i for i in range(cfg.shards) if str(i) not in manifest["shards"]]
    ctx_arrays: tuple = ()
    if cfg.source == "small":
        ctx = small_context(cfg, directory)
        ctx_arrays = (ctx.blueprint, ctx.continuations, ctx.penalties)

    def write_manifest() -> None:
        atomic_write_text(mpath, json.dumps(manifest, indent=2, sort_keys=True))

    def save(i: int, arrays: dict[str, np.ndarray]) -> None:
        name = f"shard_{i:05d}.npz"
        write_npz(directory / name, **arrays)
        manifest["shards"][str(i)] = {"file": name, "rows": int(len(arrays["x"])), "sha256": file_sha256(directory / name)}
        write_manifest()
        if progress is not None:
            progress(len(manifest["shards"]), cfg.shards)

    if progress is not None:
        progress(len(manifest["shards"]), cfg.shards)
    if cfg.workers == 0 or not todo:
        for i in todo:
            save(i, build_shard(cfg, spec, ctx_arrays, i))
    else:
        from pokerbot.ray_util import start_ray

        ray = start_ray(cfg.address, cfg.workers, {"NUMBA_NUM_THREADS": "1"})
        task = ray.remote(build_shard)
        ctx_ref = ray.put(ctx_arrays)
        pending = {task.remote(cfg, spec, ctx_ref, i): i for i in todo}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                save(pending.pop(ref), ray.get(ref))
    if not mpath.is_file():
        write_manifest()
    return manifest


def load_data(directory: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The manifest and the concatenated shards of a complete data set (checksums verified)."""
    directory = Path(directory)
    manifest = _read_manifest(directory)
    n = manifest["config"]["shards"]
    if len(manifest["shards"]) != n:
        raise LeafNetError(f"{directory}: {len(manifest['shards'])} of {n} shards written; finish generating the data")
    parts = []
    for i in range(n):
        info = manifest["shards"].get(str(i))
        if info is None:
            raise LeafNetError(f"{directory}: the manifest lists no shard {i}; generate the data again")
        path = directory / info["file"]
        if not path.is_file() or file_sha256(path) != info["sha256"]:
            raise LeafNetError(f"{path}: missing or checksum mismatch")
        try:
            part = read_npz(path)
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise LeafNetError(f"{path}: not a readable shard ({exc})") from None
        if set(part) != set(SHARD_ARRAYS) or any(part[k].shape[:1] != (info["rows"],) for k in SHARD_ARRAYS):
            raise LeafNetError(f"{path}: holds {sorted(part)} with other than the {info['rows']} rows the manifest "
                               f"lists; generate the data again")
        parts.append(part)
    try:
        data = {k: np.concatenate([p[k] for p in parts]) for k in SHARD_ARRAYS}
    except ValueError as exc:
        raise LeafNetError(f"{directory}: shards of different shapes ({exc}); generate the data again") from None
    columns = (FeatureSpec.from_dict(manifest["spec"]).num_features, manifest["choices"][0] * manifest["choices"][1])
    if (data["x"].ndim != 2 or data["y"].ndim != 2 or (data["x"].shape[1], data["y"].shape[1]) != columns
            or data["group"].ndim != 1 or data["leaf"].ndim != 1):
        raise LeafNetError(f"{directory}: the shards hold {data['x'].shape} features and {data['y'].shape} targets, "
                           f"the manifest's spec and choices make {columns[0]} and {columns[1]} columns; generate the "
                           "data again")
    if not all(np.all(np.isfinite(data[k])) for k in ("x", "y")):
        raise LeafNetError(f"{directory}: the data hold non-finite values; generate the data again")
    return manifest, data


#: The arrays of every shard: features, targets, each row's group (sampled state) and leaf.
SHARD_ARRAYS = ("x", "y", "group", "leaf")

_SHARD_NAME = re.compile(r"shard_\d{5}\.npz")


def _read_manifest(directory: Path) -> dict[str, Any]:
    """The data set's ``manifest.json``, its structure checked: shard entries name files in ``directory`` only,
    with their row counts and checksums."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise LeafNetError(f"{directory}: no readable leaf data manifest ({exc}); generate the data first") from None
    bad = LeafNetError(f"{directory / 'manifest.json'}: not a leaf data manifest; generate the data again")
    if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
        raise bad
    choices = manifest.get("choices")
    if (not isinstance(manifest.get("spec"), dict) or not isinstance(choices, list) or len(choices) != 2
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in choices)
            or not isinstance(manifest.get("classes"), str) or not isinstance(manifest.get("game", ""), str)
            or not isinstance(manifest.get("leaf_round", 0), int) or isinstance(manifest.get("leaf_round"), bool)
            or not all(isinstance(manifest.get(k), dict) for k in ("blueprint", "continuations"))):
        raise bad
    try:
        FeatureSpec.from_dict(manifest["spec"])
    except LeafNetError as exc:
        raise LeafNetError(f"{directory / 'manifest.json'}: {exc}; generate the data again") from None
    n = manifest["config"].get("shards")
    shards = manifest.get("shards")
    if not isinstance(n, int) or isinstance(n, bool) or n < 1 or not isinstance(shards, dict):
        raise bad
    for key, info in shards.items():
        if (not isinstance(info, dict) or not isinstance(info.get("file"), str)
                or not _SHARD_NAME.fullmatch(info["file"]) or not isinstance(info.get("sha256"), str)
                or not isinstance(info.get("rows"), int) or isinstance(info.get("rows"), bool) or info["rows"] < 0
                or not key.isdigit() or int(key) >= n):
            raise bad
    return manifest
