"""Bucket tables of the hold'em card abstraction: presets, build pipeline, cache, manifest.

A :class:`CardAbstraction` holds one table per round mapping a suit-isomorphic
index (:mod:`abstraction.isomorphism`) to a bucket, so a numba kernel reads
``tables[r][hand_index(r, cards)]``. Preflop is lossless (bucket = the 169
classes). Later rounds are clustered with weighted k-means over isomorphic
classes (weights = multiplicities):

* **river**: 1-D k-means on the exact showdown equity (EHS);
* **turn**: k-means with earth mover's distance on the histogram of river
  equities over the river cards (potential);
* **flop**: k-means with earth mover's distance on the *potential-aware*
  histogram over turn buckets (the ground distance between two turn buckets is
  the difference of their mean EHS; turn buckets are numbered by mean EHS).

Within every round, bucket numbers increase with the bucket's mean EHS.

Tables live under ``$POKERBOT_HOME/abstraction/<preset>-<config hash>/`` with a
``manifest.json`` naming the config that built them and each table's SHA-256;
they are memory-mapped when loaded and rebuilt only when the config changes.
Loading checks every table's shape, its checksum and that every bucket it holds
is within its round's count (kernels index arrays by these values unchecked):
about 0.2 s for the tiny preset's 140 MB. A stopped build resumes:
each finished stage is saved (atomically) and reused.

Presets (see :data:`PRESETS`):

* ``tiny``: 12 buckets on the flop, turn and river; turn potential sampled from
  12 of the 48 river cards per board; a couple of minutes on 2 cores.
* ``default``: 200 buckets on the flop, turn and river, every feature exact.
* ``large``: 2,000 buckets on the flop, turn and river. The river splits 200 equity levels into 10 buckets
  each by OCHS (equity against 8 groups of opponent hands; equity alone has only 1,981 values), and the
  flop's potential-aware histograms are over a coarser 200-bucket clustering of the turn
  (``flop_turn_buckets``), so they stay small. Optional config keys: ``river_feature`` (``"equity"`` or
  ``"ochs"``), ``river_equity_levels`` (OCHS only; default 1), ``ochs_groups``, ``flop_turn_buckets``
  (default: the turn's buckets).

>>> ab = load_abstraction("tiny")            # doctest: +SKIP
>>> ab.bucket(1, parse_cards("AsKs"), parse_cards("2s7sQd"))   # doctest: +SKIP
9
"""

from __future__ import annotations

import hashlib
import json
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abstraction.isomorphism import BOARD_CARDS, hand_index, num_classes
from pokerbot.errors import CardError, CheckpointError
from pokerbot.files import atomic_write_text, exclusive, file_sha256, pokerbot_home
from pokerbot.npz import read_npy, write_npy

__all__ = [
    "PRESETS",
    "CardAbstraction",
    "artifact_dir",
    "build_abstraction",
    "load_abstraction",
]

#: Bump when the build pipeline changes what a config produces.
PIPELINE_VERSION = 1

PRESETS: dict[str, dict] = {
    "tiny": {
        "buckets": [169, 12, 12, 12],
        "turn_bins": 8,
        "turn_river_samples": 12,
        "flop_metric": "emd-potential",
        "turn_metric": "emd",
        "kmeans_sample": 20000,
        "kmeans_iters": 15,
        "seed": 0,
    },
    "default": {
        "buckets": [169, 200, 200, 200],
        "turn_bins": 30,
        "turn_river_samples": 0,
        "flop_metric": "emd-potential",
        "turn_metric": "emd",
        "kmeans_sample": 200000,
        "kmeans_iters": 25,
        "seed": 0,
    },
    "large": {
        "buckets": [169, 2000, 2000, 2000],
        "turn_bins": 30,
        "turn_river_samples": 0,
        "flop_metric": "emd-potential",
        "flop_turn_buckets": 200,
        "turn_metric": "emd",
        "river_feature": "ochs",
        "river_equity_levels": 200,
        "ochs_groups": 8,
        "kmeans_sample": 400000,
        "kmeans_iters": 25,
        "seed": 0,
    },
}


def _config_of(preset: str | dict) -> tuple[str, dict]:
    if isinstance(preset, dict):
        cfg = dict(preset)
        name = str(cfg.pop("name", "custom"))
    else:
        if preset not in PRESETS:
            raise CheckpointError(f"unknown abstraction preset {preset!r}; presets: {', '.join(PRESETS)}")
        name, cfg = preset, dict(PRESETS[preset])
    b = cfg.get("buckets")
    if not (isinstance(b, list) and len(b) == 4 and b[0] == 169 and all(1 <= int(x) <= 65535 for x in b)):
        raise CheckpointError(f"config 'buckets' must be [169, flop, turn, river] in 1..65535, got {b!r}")
    if cfg.get("flop_metric") not in ("emd-potential", "l2-ehs-hist"):
        raise CheckpointError(f"flop_metric must be 'emd-potential' or 'l2-ehs-hist', got {cfg.get('flop_metric')!r}")
    if cfg.get("turn_metric") not in ("emd", "l2"):
        raise CheckpointError(f"turn_metric must be 'emd' or 'l2', got {cfg.get('turn_metric')!r}")
    if cfg.get("river_feature", "equity") not in ("equity", "ochs"):
        raise CheckpointError(f"river_feature must be 'equity' or 'ochs', got {cfg.get('river_feature')!r}")
    g = cfg.get("ochs_groups", 8)
    if not (isinstance(g, int) and 2 <= g <= 32):
        raise CheckpointError(f"ochs_groups must be an integer in 2..32, got {g!r}")
    lv = cfg.get("river_equity_levels", 1)
    if not (isinstance(lv, int) and lv >= 1 and int(b[3]) % lv == 0):
        raise CheckpointError(f"river_equity_levels must be a positive integer dividing the river's {b[3]} buckets, "
                              f"got {lv!r}")
    m = cfg.get("flop_turn_buckets", b[2])
    if not (isinstance(m, int) and 2 <= m <= int(b[2])):
        raise CheckpointError(f"flop_turn_buckets must be an integer in 2..{b[2]} (the turn's buckets), got {m!r}")
    cfg["pipeline_version"] = PIPELINE_VERSION
    return name, cfg


def _hash(cfg: dict) -> str:
    return hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:12]


def artifact_dir(preset: str | dict = "tiny") -> Path:
    """Where the tables of ``preset`` (a name or a config dict) live."""
    name, cfg = _config_of(preset)
    return pokerbot_home() / "abstraction" / f"{name}-{_hash(cfg)}"


@dataclass(frozen=True)
class CardAbstraction:
    """Per-round bucket tables of a hold'em card abstraction.

    ``tables[r]`` maps the isomorphic index of round ``r`` to a bucket in
    ``0 .. num_buckets(r) - 1`` (memory-mapped, read-only).
    """

    name: str
    tables: tuple[np.ndarray, ...]
    manifest: dict
    path: Path | None = None

    def num_buckets(self, round_: int) -> int:
        """Buckets of round ``round_`` (0..3)."""
        if not 0 <= round_ < 4:
            raise CardError(f"no hold'em round {round_!r} (expected 0..3)")
        return int(self.manifest["config"]["buckets"][round_])

    def bucket(self, round_: int, hole: Sequence[int], board: Sequence[int] = ()) -> int:
        """Bucket of a hand: 2 hole cards and the round's board (0, 3, 4 or 5 cards).

        Only the board cards of ``round_`` are used, so a longer board (a dealer's) is fine.
        """
        if not 0 <= round_ < 4:
            raise CardError(f"no hold'em round {round_!r} (expected 0..3)")
        nb = BOARD_CARDS[round_]
        if len(hole) != 2 or len(board) < nb:
            raise CardError(f"round {round_} needs 2 hole cards and {nb} board cards, got {len(hole)} and {len(board)}")
        cards = np.empty(2 + nb, np.int64)
        cards[0] = hole[0]
        cards[1] = hole[1]
        for i in range(nb):
            cards[2 + i] = board[i]
        if cards.min() < 0 or cards.max() > 51 or len(set(cards.tolist())) != len(cards):
            raise CardError(f"cards must be distinct and in 0..51, got {cards.tolist()}")
        return int(self.tables[round_][hand_index(round_, cards)])

    def __repr__(self) -> str:
        return f"CardAbstraction({self.name!r}, buckets={[self.num_buckets(r) for r in range(4)]})"


# --- stage files -------------------------------------------------------------------------


def _stage(d: Path, name: str) -> Path:
    return d / f"{name}.npy"


def _load_stage(d: Path, *names: str) -> tuple[np.ndarray, ...] | None:
    paths = [_stage(d, n) for n in names]
    if all(p.exists() for p in paths):
        try:
            return tuple(np.load(p, mmap_mode="r") for p in paths)
        except (ValueError, OSError, EOFError):
            return None  # a damaged stage file: recompute it
    return None


def _peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux ru_maxrss is in kB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _bucket_dtype(k: int) -> type:
    return np.uint8 if k <= 256 else np.uint16


def _relabel_by(values: np.ndarray, labels: np.ndarray, weights: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Renumber clusters by increasing weighted mean of ``values``; return (new labels, sorted means)."""
    w = weights.astype(np.float64)
    tot = np.bincount(labels, weights=w, minlength=k)
    s = np.bincount(labels, weights=w * values, minlength=k)
    means = np.where(tot > 0, s / np.maximum(tot, 1e-300), np.inf)
    order = np.argsort(means, kind="stable")
    new = np.empty(k, np.int64)
    new[order] = np.arange(k)
    sorted_means = means[order]
    finite = np.isfinite(sorted_means)
    if not finite.all():  # empty clusters go last; give them the largest mean seen
        sorted_means[~finite] = sorted_means[finite].max() if finite.any() else 1.0
    return new[labels].astype(labels.dtype), sorted_means


def build_abstraction(preset: str | dict = "tiny", progress: bool = True, force: bool = False) -> Path:
    """Build (or finish building) the tables of ``preset``; return the artifact directory.

    Each stage shows a progress bar and is saved when done, so an interrupted build resumes. The
    directory is held while building: a second build of the same preset stops at once (LockedError).
    """
    name, cfg = _config_of(preset)
    d = artifact_dir(preset)
    d.mkdir(parents=True, exist_ok=True)
    if (d / "manifest.json").exists() and not force:
        return d
    with exclusive(d, f"the card abstraction {name!r}"):
        return _build(name, cfg, d, progress, force)


def _build(name: str, cfg: dict, d: Path, progress: bool, force: bool) -> Path:
    from tqdm import tqdm

    from abstraction import features as F
    from abstraction.kmeans import emd_embed, kmeans

    manifest_path = d / "manifest.json"
    atomic_write_text(d / "config.json", json.dumps(cfg, indent=1, sort_keys=True))
    kb = cfg["buckets"]
    seed = int(cfg["seed"])
    t_start = time.time()
    timings: dict[str, float] = {}

    def bar(desc: str, total: int):
        return tqdm(total=total, desc=desc, unit="boards", disable=not progress, smoothing=0.1)

    # river ------------------------------------------------------------------------
    t0 = time.time()
    ochs = cfg.get("river_feature", "equity") == "ochs"
    got = _load_stage(d, "table_3", "river_bucket_eq" if ochs else "river_dist")
    if got is None and ochs:
        _river_ochs_stage(d, cfg, bar, progress)
    elif got is None:
        nboards = len(F.canonical_boards(5)[0])
        with bar("river equity", nboards) as pb:
            eq, _, dist = F.river_features(progress=pb.update)
        values = np.arange(F.HALF_WINS + 1, dtype=np.float32) / F.HALF_WINS
        keep = dist > 0
        cent, lab = kmeans(values[keep], dist[keep], kb[3], "l2", seed=seed, iters=100)
        value_bucket = np.zeros(F.HALF_WINS + 1, np.int64)
        lab, _ = _relabel_by(values[keep], lab, dist[keep], kb[3])
        value_bucket[keep] = lab
        # values never seen take the bucket of the nearest seen value
        seen = np.flatnonzero(keep)
        nearest = seen[np.clip(np.searchsorted(seen, np.arange(len(values))), 0, len(seen) - 1)]
        value_bucket[~keep] = value_bucket[nearest[~keep]]
        table3 = value_bucket.astype(_bucket_dtype(kb[3]))[eq]
        write_npy(_stage(d, "river_value_bucket"), value_bucket)
        write_npy(_stage(d, "river_half_wins"), eq)
        write_npy(_stage(d, "river_dist"), dist)
        write_npy(_stage(d, "table_3"), table3)
        del eq, table3
    timings["river"] = time.time() - t0

    # turn -------------------------------------------------------------------------
    t0 = time.time()
    mid = int(cfg.get("flop_turn_buckets", kb[2]))
    turn_stage = ("table_2", "turn_bucket_ehs") + (("turn_mid_table", "turn_mid_ehs") if mid != kb[2] else ())
    got = _load_stage(d, *turn_stage)
    if got is None:
        feats = _load_stage(d, "turn_ehs", "turn_ehs2", "turn_hist", "turn_weight")
        if feats is None:
            nboards = len(F.canonical_boards(4)[0])
            with bar("turn features", nboards) as pb:
                feats = F.turn_features(
                    bins=int(cfg["turn_bins"]),
                    river_samples=int(cfg["turn_river_samples"]),
                    seed=seed,
                    progress=pb.update,
                )
            for nm, arr in zip(("turn_ehs", "turn_ehs2", "turn_hist", "turn_weight"), feats):
                write_npy(_stage(d, nm), arr)
        ehs, ehs2, hist, wt = (np.asarray(a) for a in feats)
        if cfg["turn_metric"] == "emd":
            x = emd_embed(hist)
        else:
            x = hist.astype(np.float32) / np.maximum(hist.sum(axis=1, keepdims=True), 1).astype(np.float32)
        # the flop's potential-aware histograms are over `mid` turn buckets: the turn's own, or a coarser
        # clustering of the same features when the turn has too many buckets for flop histograms to hold
        for k_turn, table_name, means_name in ((kb[2], "table_2", "turn_bucket_ehs"),
                                               (mid, "turn_mid_table", "turn_mid_ehs"))[: 1 if mid == kb[2] else 2]:
            with tqdm(total=int(cfg["kmeans_iters"]), desc=f"turn k-means k={k_turn}", disable=not progress) as pb:
                _, lab = kmeans(
                    x, wt, k_turn, "emd" if cfg["turn_metric"] == "emd" else "l2", seed=seed,
                    iters=int(cfg["kmeans_iters"]), sample=int(cfg["kmeans_sample"]),
                    progress=lambda it, cost: (pb.update(1), pb.set_postfix(cost=f"{cost:.4g}")),
                )
            lab, means = _relabel_by(ehs, lab, wt, k_turn)
            write_npy(_stage(d, means_name), means)
            write_npy(_stage(d, table_name), lab.astype(_bucket_dtype(k_turn)))
        del x
    timings["turn"] = time.time() - t0

    # flop -------------------------------------------------------------------------
    t0 = time.time()
    got = _load_stage(d, "table_1")
    if got is None:
        mid_names = ("table_2", "turn_bucket_ehs") if mid == kb[2] else ("turn_mid_table", "turn_mid_ehs")
        table2 = np.load(_stage(d, mid_names[0]), mmap_mode="r")
        turn_means = np.load(_stage(d, mid_names[1]))
        tehs = np.load(_stage(d, "turn_ehs"), mmap_mode="r")
        tehs2 = np.load(_stage(d, "turn_ehs2"), mmap_mode="r")
        nboards = len(F.canonical_boards(3)[0])
        with bar("flop features", nboards) as pb:
            fehs, fehs2, fhist, fpot, fwt = F.flop_features(
                np.asarray(tehs), np.asarray(tehs2), np.asarray(table2), mid, bins=int(cfg["turn_bins"]),
                progress=pb.update,
            )
        for nm, arr in zip(("flop_ehs", "flop_ehs2", "flop_weight"), (fehs, fehs2, fwt)):
            write_npy(_stage(d, nm), arr)
        if cfg["flop_metric"] == "emd-potential":
            assert fpot is not None  # given the turn buckets, flop_features returns the potential histogram
            x, metric = emd_embed(fpot, turn_means), "emd"
        else:
            x, metric = fhist.astype(np.float32) / 47.0, "l2"
        del fpot, fhist
        with tqdm(total=int(cfg["kmeans_iters"]), desc=f"flop k-means k={kb[1]}", disable=not progress) as pb:
            _, lab = kmeans(
                x, fwt, kb[1], metric, seed=seed, iters=int(cfg["kmeans_iters"]), sample=int(cfg["kmeans_sample"]),
                progress=lambda it, cost: (pb.update(1), pb.set_postfix(cost=f"{cost:.4g}")),
            )
        lab, _ = _relabel_by(fehs, lab, fwt, kb[1])
        write_npy(_stage(d, "table_1"), lab.astype(_bucket_dtype(kb[1])))
    timings["flop"] = time.time() - t0

    # preflop (lossless) -------------------------------------------------------------
    t0 = time.time()
    fehs = np.load(_stage(d, "flop_ehs"))
    fehs2 = np.load(_stage(d, "flop_ehs2"))
    pe, pe2, pw = F.preflop_features(fehs, fehs2)
    write_npy(_stage(d, "preflop_ehs"), pe)
    write_npy(_stage(d, "preflop_ehs2"), pe2)
    write_npy(_stage(d, "preflop_weight"), pw)
    write_npy(_stage(d, "table_0"), np.arange(169, dtype=np.uint8))
    timings["preflop"] = time.time() - t0

    tables = [f"table_{r}.npy" for r in range(4)]
    for r, table in enumerate(tables):  # never record a checksum for a table a kernel could not index by
        _check_range(d / table, np.load(d / table, mmap_mode="r"), kb[r], name)
    manifest = {
        "name": name,
        "config": cfg,
        "config_hash": _hash(cfg),
        "classes": [num_classes(r) for r in range(4)],
        "tables": tables,
        "sha256": {table: file_sha256(d / table) for table in tables},
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "build_seconds": round(time.time() - t_start, 1),
        "stage_seconds": {k: round(v, 1) for k, v in timings.items()},
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        "host": platform.node(),
        "numpy": np.__version__,
    }
    atomic_write_text(manifest_path, json.dumps(manifest, indent=1))
    return d


def _weighted_draws(weights: np.ndarray, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws (with replacement, probability proportional to ``weights``) as (distinct indices, counts);
    one int64 cumulative sum of the weights, so it suits hundreds of millions of points."""
    cum = np.cumsum(weights, dtype=np.int64)
    draws = np.sort(rng.integers(0, int(cum[-1]), size=size))
    pick = np.searchsorted(cum, draws, side="right")
    del cum
    return np.unique(pick, return_counts=True)


def _river_ochs_stage(d: Path, cfg: dict, bar, progress: bool) -> None:
    """River buckets: equity levels, each split by OCHS (:func:`abstraction.features.river_ochs_features`).

    The exact equity (1,981 values) is first clustered into ``river_equity_levels`` levels (1-D weighted
    k-means, as the equity-only river); within each level, k-means (squared L2) on the OCHS vectors splits its
    classes into ``buckets / levels`` buckets, fitted on the level's share of ``kmeans_sample``
    weight-proportional draws. So a bucket never mixes equities farther apart than its level, and hands of one
    equity that fare differently against strong and weak ranges are told apart. Buckets are numbered by mean
    equity. Saves ``table_3``, ``river_half_wins`` and ``river_bucket_eq`` (the weighted (bucket, half-wins)
    counts the quality report reads).
    """
    from tqdm import tqdm

    from abstraction import features as F
    from abstraction.kmeans import assign, kmeans

    k = int(cfg["buckets"][3])
    levels = int(cfg.get("river_equity_levels", 1))
    per = k // levels
    seed = int(cfg["seed"])
    groups = F.ochs_groups(int(cfg.get("ochs_groups", 8)), seed=seed)
    nboards = len(F.canonical_boards(5)[0])
    with bar("river OCHS", nboards) as pb:
        feat, eq, wt = F.river_ochs_features(groups, progress=pb.update)
    write_npy(_stage(d, "river_half_wins"), eq)
    # equity levels over the 1,981 values, weighted by how many deals have each
    dist = np.bincount(eq, weights=wt, minlength=F.HALF_WINS + 1)
    values = np.arange(F.HALF_WINS + 1, dtype=np.float32) / F.HALF_WINS
    seen = np.flatnonzero(dist > 0)
    _, lab = kmeans(values[seen], dist[seen], levels, "l2", seed=seed, iters=100)
    lab, _ = _relabel_by(values[seen], lab, dist[seen], levels)
    level_of_value = np.zeros(F.HALF_WINS + 1, np.int64)
    level_of_value[seen] = lab
    level = level_of_value[eq].astype(np.int16 if levels < 2**15 else np.int32)
    order = np.argsort(level, kind="stable")  # the classes of each level, contiguous
    starts = np.searchsorted(level[order], np.arange(levels + 1))
    del level
    rng = np.random.default_rng(seed)
    labels: np.ndarray = np.empty(len(eq), _bucket_dtype(k))
    sample = max(int(cfg["kmeans_sample"]) // levels, 20 * per)
    with tqdm(total=levels, desc=f"river: {levels} equity levels x {per} OCHS clusters", disable=not progress) as pb:
        for lv in range(levels):
            idx = order[starts[lv]:starts[lv + 1]]
            if len(idx) == 0:
                pb.update(1)
                continue
            x = feat[idx].astype(np.float32) / 255.0
            pick, counts = _weighted_draws(wt[idx], sample, rng)
            centres, _ = kmeans(x[pick], counts.astype(np.float64), per, "l2", seed=seed + lv,
                                iters=int(cfg["kmeans_iters"]))
            labels[idx] = lv * per + assign(x, centres, "l2")
            pb.update(1)
    del feat, order
    # buckets renumbered by their mean equity, and the (bucket, equity) counts of the quality report
    n = len(eq)
    step = 1 << 22
    flat = np.zeros(k * (F.HALF_WINS + 1), np.float64)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        flat += np.bincount(labels[lo:hi].astype(np.int64) * (F.HALF_WINS + 1) + eq[lo:hi],
                            weights=wt[lo:hi].astype(np.float64), minlength=len(flat))
    cells = flat.reshape(k, F.HALF_WINS + 1)
    tot = cells.sum(axis=1)
    mean = np.where(tot > 0, cells @ np.arange(F.HALF_WINS + 1) / np.maximum(tot, 1e-300), np.inf)
    renumber = np.empty(k, np.int64)
    renumber[np.argsort(mean, kind="stable")] = np.arange(k)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        labels[lo:hi] = renumber[labels[lo:hi]]
    write_npy(_stage(d, "river_bucket_eq"), cells[np.argsort(mean, kind="stable")])
    write_npy(_stage(d, "table_3"), labels)


def _check_range(path: Path, table: np.ndarray, buckets: int, name: str) -> None:
    """Refuse a table holding a bucket outside ``0..buckets-1``: kernels index arrays by these values unchecked."""
    if not len(table):
        return
    low, high = int(table.min()), int(table.max())
    if low < 0 or high >= buckets:
        bad = high if high >= buckets else low
        raise CheckpointError(f"bucket table {path} holds bucket {bad}, the round has {buckets}; rebuild with "
                              f"`pokerbot abstraction build --preset {name} --force`")


def load_abstraction(preset: str | dict = "tiny", build_if_missing: bool = True, progress: bool = True) -> CardAbstraction:
    """The card abstraction of ``preset``, memory-mapped; built first if missing and allowed.

    Raises :class:`~pokerbot.errors.CheckpointError` if it is missing and
    ``build_if_missing`` is false, or if the files do not match the manifest.
    """
    name, cfg = _config_of(preset)
    d = artifact_dir(preset)
    mpath = d / "manifest.json"
    if not mpath.exists():
        if not build_if_missing:
            raise CheckpointError(
                f"card abstraction {name!r} is not built (looked in {d}); run `pokerbot abstraction build --preset {name}`"
            )
        build_abstraction(preset, progress=progress)
    try:
        manifest = json.loads(mpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"unreadable manifest {mpath}: {exc}; rebuild with "
                              f"`pokerbot abstraction build --preset {name} --force`") from None
    if not isinstance(manifest, dict):
        raise CheckpointError(f"unreadable manifest {mpath}: not a JSON object")
    if manifest.get("config") != cfg:
        raise CheckpointError(f"manifest {mpath} was built from another config: {manifest.get('config')}")
    rebuild = f"rebuild with `pokerbot abstraction build --preset {name} --force`"
    sums = manifest.get("sha256")
    if not isinstance(sums, dict):
        raise CheckpointError(f"manifest {mpath} records no checksums of its tables (built by an older pokerbot); "
                              f"add them with `pokerbot abstraction build --preset {name} --force` (it reuses the "
                              f"built tables, checking their buckets)")
    tables = []
    for r in range(4):
        p = d / f"table_{r}.npy"
        try:
            t = read_npy(p, mmap=True)
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot read bucket table {p}: {exc}; rebuild with "
                                  f"`pokerbot abstraction build --preset {name} --force`") from None
        if t.shape != (num_classes(r),) or t.dtype.kind not in "iu":
            raise CheckpointError(f"bucket table {p} has shape {t.shape} and dtype {t.dtype}, expected "
                                  f"({num_classes(r)},) integers; rebuild with "
                                  f"`pokerbot abstraction build --preset {name} --force`")
        _check_range(p, t, manifest["config"]["buckets"][r], name)
        if sums.get(p.name) != file_sha256(p):
            raise CheckpointError(f"bucket table {p}: checksum mismatch, the table is corrupt; {rebuild}")
        tables.append(t.view(np.ndarray) if isinstance(t, np.memmap) else t)
    return CardAbstraction(name=name, tables=tuple(tables), manifest=manifest, path=d)
