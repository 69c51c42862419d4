"""Leaf-value network: features of a depth-limited leaf, the model, training and storage (torch).

Modicum (Brown, Sandholm & Amos 2018, section 6.2) replaced rollouts at the end of the
second round by a small network (34 input floats, 2 hidden layers x 64, Huber loss,
Adam) that predicts a leaf state's value under each of the K continuation strategies
as a fraction of the pot. Our evaluator interface needs values per hand that are
*linear in the opponent's reach* (:class:`pokerbot.solver.leaves.LeafEvaluator`), so
the network predicts one row per **(leaf state, class a of player 0, class b of player 1)**:

    features(leaf, a, b) -> V[k0, k1] = player 0's average payoff over the pairs of hands
                                        (h0 in a, h1 in b, no shared card) / pot

for every pair of continuation options (``K0 x K1`` outputs; Modicum's is the
``(1, K)`` slice). Classes are the blueprint's card buckets on the leaf's board in
hold'em (12 flop buckets for ``tiny``: 144 rows per leaf) and single hands in small
games (exact). The evaluator then computes ``cfv[l, k, h] = sum_k' sum_b V[l, k, k',
c(h), b] * pot_l * R[l, k', h, b]`` with ``R`` the opponent's reach in class ``b``
over hands sharing no card with ``h``: a matrix product, all leaves in one batch.

**Features** (``FeatureSpec``, 26 floats with 8 bins), in this order:

====  ==========================================================================
0     pot / both starting stacks
1     SPR / (1 + SPR), SPR = smallest remaining stack / pot
2     raises in the last round with an action (the one the leaf ends) / 4
3     raises in the whole hand / 8
4     the last raiser in that round: +1 player 0, -1 player 1, 0 none
5     the last raiser in the earlier rounds (same code)
6     actions in the last round / 6
7-14  class ``a``'s hand-strength histogram: over hands of ``a`` and run-outs of the
      rest of the board, the hand's strength percentile among the opponent's hands
      (beats + half the ties, over hands sharing no card with it or the board), in
      ``bins`` equal bins, normalised to sum 1
15    class ``a``'s mean percentile (its equity against a uniform hand)
16-23 class ``b``'s histogram
24    class ``b``'s mean percentile
25    ``a`` against ``b``: average sign(strength(h0) - strength(h1)) over the run-outs and
      the disjoint pairs (the check-down value per pot/2)
====  ==========================================================================

Run-outs are enumerated when there are at most ``exact_runouts`` of them (no-limit
Leduc: 1 card of 6) and otherwise ``runouts`` are sampled with a seed derived from the
board and ``seed`` (HUNL flop: 24 of 1,176 turn-river pairs), so training and play
compute the same features for the same board.

Example (no-limit Leduc, whose deck here is Q, K, A in two suits; nothing on the board
yet; A♠ against the other five cards): the board card pairs it (percentile 1) once and
gives percentile 0.625 four times (beats the two unpaired cards, ties A♥, loses to the
paired card): histogram ``[0, 0, 0, 0, 0, 0.8, 0, 0.2]``, mean 0.7.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.files import atomic_open, atomic_write_text, file_sha256, load_torch
from pokerbot.torch_device import default_device
from pokerbot.solver.strength import hands_overlap

FEATURE_NAME = "leafnet-pair"
FEATURE_VERSION = 2


class LeafNetError(CheckpointError):
    """A leaf-value model or data set that cannot be used (corrupt, or built for something else)."""


# --- features ---------------------------------------------------------------------------------


#: What each key of ``[features]`` and ``[train]`` of a ``configs/leafnet-*.toml`` means (``[leafnet]`` and ``[data]``:
#: :data:`realtime.leafnet_data.KEY_DOCS`), for the configuration reference (docs/config-reference.md, made by
#: :mod:`evaluation.configref`): ``"meaning"`` or ``(meaning, allowed values or range[, type, default])``.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "features": {
        "bins": ("bins of each class's hand-strength histogram", ">= 1"),
        "runouts": ("run-outs sampled for the features where there are more than exact_runouts (HUNL flop: 24 "
                    "of 1,176 turn-river pairs)", ">= 1"),
        "exact_runouts": ("enumerate the run-outs when there are at most this many", ">= 0"),
        "seed": ("seed of the sampled run-outs (with the board: training and play compute the same features)",
                 ">= 0"),
    },
    "train": {
        "hidden": ("widths of the hidden layers", "each >= 1"),
        "lr": ("Adam's learning rate", "> 0"),
        "batch": ("rows per gradient step", ">= 1"),
        "epochs": ("epochs at most", ">= 1"),
        "patience": ("stop when the validation loss has not improved for this many epochs", ">= 1"),
        "val_fraction": ("share of the leaf states (or subgames) held out for validation", "(0, 1)"),
        "huber_delta": ("delta of the Huber loss", "> 0"),
        "seed": ("seed of the initialisation, the validation split and the batches", ">= 0"),
        "threads": ("CPU threads for torch (more than the free cores slows it down many times over)", ">= 1"),
    },
}


@dataclass(frozen=True)
class FeatureSpec:
    """What the features are; a model is only used with the spec it was trained on."""

    bins: int = 8
    runouts: int = 24
    exact_runouts: int = 64
    seed: int = 0
    name: str = FEATURE_NAME
    version: int = FEATURE_VERSION

    @property
    def num_features(self) -> int:
        return NUM_PUBLIC + 2 * (self.bins + 1) + 1

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def check(self) -> FeatureSpec:
        """This spec, if its counts are usable (:class:`PokerbotError` naming the first that is not)."""
        for key, low in (("bins", 1), ("runouts", 1), ("exact_runouts", 0), ("seed", 0), ("version", 1)):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise PokerbotError(f"features: {key} must be a whole number >= {low}, got {value!r}")
        if not isinstance(self.name, str):
            raise PokerbotError(f"features: name must be a string, got {self.name!r}")
        return self

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FeatureSpec:
        """The spec a manifest or model description records; :class:`LeafNetError` if it is not one."""
        try:
            return cls(**d).check()
        except (TypeError, PokerbotError) as exc:
            raise LeafNetError(f"not a feature spec ({exc})") from None


NUM_PUBLIC = 7


def public_features(state: Any) -> np.ndarray:
    """The 7 public floats of a leaf state (pot, SPR, raises, aggressors, actions; see the module docstring)."""
    from pokerbot.state import ActionType, State

    game = state.game
    pot = float(sum(state.spent))
    total = float(sum(game.stack[:2]))
    remaining = min(float(game.stack[p] - state.spent[p]) for p in range(2))
    spr = remaining / pot
    # Replay the betting for who acted when; the last round is the latest one with an action.
    replay = State.initial(game)
    acts: list[tuple[int, int, bool]] = []  # (round, actor, is a raise)
    for a in state.actions():
        actor = replay.current_player
        assert actor is not None  # someone acts before every action of the hand
        acts.append((replay.round, actor, a.kind == ActionType.RAISE))
        replay = replay.apply(a)
    last = max((r for r, _, _ in acts), default=0)
    sign = (1.0, -1.0)
    in_last = [(p, r) for rnd, p, r in acts if rnd == last]
    earlier = [(p, r) for rnd, p, r in acts if rnd < last]
    aggr_last = next((sign[p] for p, r in reversed(in_last) if r), 0.0)
    aggr_before = next((sign[p] for p, r in reversed(earlier) if r), 0.0)
    raises_last = sum(1 for _, r in in_last if r)
    raises_all = sum(1 for _, _, r in acts if r)
    return np.array([pot / total, spr / (1.0 + spr), raises_last / 4.0, raises_all / 8.0, aggr_last, aggr_before,
                     len(in_last) / 6.0])


@njit(cache=True)
def _board_stats(hands, strengths, cls, ncls, bins, hist, pct_sum, eq_sum, eq_cnt):
    """Accumulate percentiles per class and pair signs per class pair over run-outs (strength -1: blocked)."""
    nr, nh = strengths.shape
    for r in range(nr):
        s = strengths[r]
        for i in range(nh):
            a = cls[i]
            if a < 0 or s[i] < 0:
                continue
            win = 0.0
            tie = 0.0
            n = 0.0
            for j in range(nh):
                if s[j] < 0:
                    continue
                if hands_overlap(hands[i], hands[j]):
                    continue
                n += 1.0
                d = s[i] - s[j]
                if d > 0:
                    win += 1.0
                elif d == 0:
                    tie += 1.0
                b = cls[j]
                if b >= 0:
                    eq_sum[a, b] += 1.0 if d > 0 else (-1.0 if d < 0 else 0.0)
                    eq_cnt[a, b] += 1.0
            if n > 0:
                p = (win + 0.5 * tie) / n
                q = int(p * bins)
                if q >= bins:
                    q = bins - 1
                hist[a, q] += 1.0
                pct_sum[a] += p


@dataclass
class BoardFeatures:
    """Per-class features of one board (see the module docstring): ``hist[c]``, ``mean[c]``, ``eq[a, b]``."""

    hist: np.ndarray  # (C, bins)
    mean: np.ndarray  # (C,)
    eq: np.ndarray  # (C, C)
    pairs: np.ndarray  # (C, C) number of (hand pair, run-out) samples behind eq


def runouts(game: Any, board: Sequence[int], spec: FeatureSpec) -> list[tuple[int, ...]]:
    """The run-outs of the rest of the board the features average over (all, or a seeded sample)."""
    need = game.total_board_cards - len(board)
    remaining = [c for c in sorted(game.deck()) if c not in set(board)]
    if need == 0:
        return [()]
    if math.comb(len(remaining), need) <= spec.exact_runouts:
        return list(itertools.combinations(remaining, need))
    rng = np.random.default_rng([spec.seed, *sorted(int(c) for c in board)])
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[int, ...]] = []
    while len(out) < spec.runouts:
        r = tuple(sorted(int(c) for c in rng.choice(remaining, size=need, replace=False)))
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out


def board_features(game: Any, board: Sequence[int], hands: np.ndarray, cls: np.ndarray, ncls: int,
                   spec: FeatureSpec) -> BoardFeatures:
    """Class histograms, mean percentiles and class-pair equities on ``board`` (``cls[h] = -1``: not used)."""
    from pokerbot.solver.strength import hand_strengths

    hands = np.ascontiguousarray(hands, dtype=np.int64)
    outs = runouts(game, board, spec)
    strengths = np.empty((len(outs), len(hands)), dtype=np.int32)
    for i, r in enumerate(outs):
        strengths[i] = hand_strengths(hands, np.array(list(board) + list(r), dtype=np.int64))
    hist = np.zeros((ncls, spec.bins))
    pct = np.zeros(ncls)
    eq = np.zeros((ncls, ncls))
    cnt = np.zeros((ncls, ncls))
    _board_stats(hands, strengths, np.ascontiguousarray(cls, dtype=np.int64), ncls, spec.bins, hist, pct, eq, cnt)
    n = hist.sum(axis=1)
    safe = np.maximum(n, 1.0)
    return BoardFeatures(hist / safe[:, None], pct / safe, eq / np.maximum(cnt, 1.0), cnt)


def pair_rows(public: np.ndarray, bf: BoardFeatures) -> np.ndarray:
    """The ``C * C`` feature rows of one leaf, ``a``-major (row ``a * C + b``), float32."""
    c = bf.mean.shape[0]
    a_part = np.concatenate([bf.hist, bf.mean[:, None]], axis=1)  # (C, bins + 1)
    rows = np.concatenate([
        np.broadcast_to(public, (c, c, public.shape[0])),
        np.broadcast_to(a_part[:, None, :], (c, c, a_part.shape[1])),
        np.broadcast_to(a_part[None, :, :], (c, c, a_part.shape[1])),
        bf.eq[:, :, None],
    ], axis=2)
    return rows.reshape(c * c, -1).astype(np.float32)


# --- identities of what a model is built for ---------------------------------------------------


PROBE_SIZE = 512
PROBE_TOLERANCE = 0.02


def strategy_identity(tree_id: str, strategies: Sequence[Any], penalties: Sequence[float] | None = None) -> dict[str, Any]:
    """What identifies strategy arrays of one tree: the tree's id and ``PROBE_SIZE`` fixed entries of each.

    Entries rather than a hash, so that a continuation set compared after a round trip through its
    one-byte storage (``blueprint.continuation.quantize``, renormalised on load) still matches:
    :func:`identity_mismatch` allows ``PROBE_TOLERANCE`` per entry.
    """
    n = len(strategies[0])
    idx = np.sort(np.random.default_rng(12345).choice(n, size=min(PROBE_SIZE, n), replace=False))
    pen = list(penalties) if penalties is not None else [0.0] * len(strategies)
    return {"tree": tree_id, "size": int(n), "probes": [np.round(np.asarray(s[idx], dtype=np.float64), 4).tolist()
                                                       for s in strategies],
            "penalties": [round(float(p), 9) for p in pen]}


def identity_mismatch(have: dict[str, Any], want: dict[str, Any]) -> str | None:
    """Why ``want`` is not ``have`` or its first strategies (``None`` if it is)."""
    if have.get("tree") != want.get("tree") or have.get("size") != want.get("size"):
        return f"tree {have.get('tree')!r} ({have.get('size')} entries), here {want.get('tree')!r} ({want.get('size')})"
    if len(want["probes"]) > len(have["probes"]):
        return f"{len(have['probes'])} strategies, here {len(want['probes'])}"
    for i, (a, b) in enumerate(zip(have["probes"], want["probes"])):
        gap = float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if a else 0.0
        if gap > PROBE_TOLERANCE:
            return f"strategy {i} differs (by {gap:.3f} at a probed entry)"
    if not np.allclose(have["penalties"][: len(want["penalties"])], want["penalties"], atol=1e-6):
        return "other penalties"
    return None


# --- the model ------------------------------------------------------------------------------


def _torch() -> Any:
    import torch

    return torch


def make_model(num_features: int, num_outputs: int, hidden: Sequence[int]) -> Any:
    """An MLP ``num_features -> hidden... -> num_outputs`` with ReLU (Modicum: 2 x 64)."""
    torch = _torch()
    layers: list[Any] = []
    width = num_features
    for h in hidden:
        layers += [torch.nn.Linear(width, int(h)), torch.nn.ReLU()]
        width = int(h)
    layers.append(torch.nn.Linear(width, num_outputs))
    return torch.nn.Sequential(*layers)


@dataclass
class TrainConfig:
    """Training options (``[train]`` of a ``configs/leafnet-*.toml``)."""

    hidden: list[int] = field(default_factory=lambda: [64, 64])
    lr: float = 1e-3
    batch: int = 512
    epochs: int = 200
    patience: int = 15
    val_fraction: float = 0.2
    huber_delta: float = 1.0
    seed: int = 0
    threads: int = 1  # CPU threads for torch (more than the free cores slows it down many times over)

    def check(self) -> TrainConfig:
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise PokerbotError(f"hidden layer widths must be >= 1, got {self.hidden}")
        if not (self.lr > 0 and self.batch >= 1 and self.epochs >= 1 and self.patience >= 1):
            raise PokerbotError("lr > 0, batch >= 1, epochs >= 1 and patience >= 1 are needed")
        if self.threads < 1:
            raise PokerbotError(f"threads must be >= 1, got {self.threads}")
        if not 0 < self.val_fraction < 1:
            raise PokerbotError(f"val_fraction must be in (0, 1), got {self.val_fraction}")
        if not 0 < self.huber_delta < math.inf or not self.lr < math.inf:
            raise PokerbotError(f"huber_delta and lr must be positive and finite, got {self.huber_delta}, {self.lr}")
        if self.seed < 0:
            raise PokerbotError(f"seed must be >= 0, got {self.seed}")
        return self


@dataclass
class LeafNet:
    """A trained leaf-value network with what it was built for.

    ``meta`` holds ``spec`` (the feature spec dict), ``choices`` ``[K0, K1]``, ``classes``
    (``"hand"`` or ``"buckets:<preset>"``), ``blueprint`` and ``continuations``
    (:func:`strategy_identity` dicts), ``game``, ``leaf_round`` and training figures.
    """

    model: Any
    meta: dict[str, Any]

    @property
    def spec(self) -> FeatureSpec:
        return FeatureSpec.from_dict(self.meta["spec"])

    @property
    def choices(self) -> tuple[int, int]:
        k0, k1 = self.meta["choices"]
        return int(k0), int(k1)

    @property
    def leaf_round(self) -> int:
        """The round at whose end the model's leaves are (``meta["leaf_round"]``).

        Models written before the key was recorded came from the two data sources, both cut at the end of
        the first round they solve: round 0 for ``"small"`` (one class per hand), round 1 (the flop) for
        ``"holdem"`` (card buckets).
        """
        if "leaf_round" in self.meta:
            return int(self.meta["leaf_round"])
        return 0 if self.meta["classes"] == "hand" else 1

    def predict(self, x: np.ndarray, batch: int = 65536, threads: int | None = 1) -> np.ndarray:
        """``V / pot`` for rows of features, float64 ``(n, K0 * K1)`` (batched, no gradients).

        ``threads``: torch CPU threads for this call (restored after; ``None``: leave as is).
        """
        torch = _torch()
        dev = next(self.model.parameters()).device
        out = np.empty((x.shape[0], self.choices[0] * self.choices[1]))
        self.model.eval()
        before = torch.get_num_threads()
        if threads is not None and dev.type == "cpu":
            torch.set_num_threads(threads)
        try:
            with torch.no_grad():
                for i in range(0, x.shape[0], batch):
                    xb = torch.from_numpy(np.ascontiguousarray(x[i : i + batch], dtype=np.float32)).to(dev)
                    out[i : i + batch] = self.model(xb).double().cpu().numpy()
        finally:
            torch.set_num_threads(before)
        return out

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write ``model.pt`` (weights) and ``model.json`` (meta, SHA-256 of the weights)."""
        torch = _torch()
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "model.pt"
        with atomic_open(path) as f:
            torch.save({k: v.detach().cpu() for k, v in self.model.state_dict().items()}, f)
        meta = dict(self.meta, sha256=file_sha256(path))
        atomic_write_text(directory / "model.json", json.dumps(meta, indent=2, sort_keys=True))
        return path

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> LeafNet:
        """Load a model written by :meth:`save`; :class:`LeafNetError` if missing, corrupt or not a leaf net."""
        torch = _torch()
        directory = Path(directory)
        path = directory / "model.pt"
        try:
            meta = json.loads((directory / "model.json").read_text())
        except (OSError, ValueError) as exc:
            raise LeafNetError(f"{directory}: no readable leaf-value model ({exc})") from None
        if not isinstance(meta, dict):
            raise LeafNetError(f"{directory}/model.json: not a leaf-value model (not a JSON object)")
        for key in ("spec", "choices", "hidden", "classes", "blueprint", "continuations"):
            if key not in meta:
                raise LeafNetError(f"{directory}/model.json: not a leaf-value model (no {key!r})")
        if not path.is_file() or meta.get("sha256") != file_sha256(path):
            raise LeafNetError(f"{path}: missing or checksum mismatch, the model is corrupt")
        try:
            spec = FeatureSpec.from_dict(meta["spec"])
        except LeafNetError as exc:
            raise LeafNetError(f"{directory}/model.json: {exc}") from None
        choices, hidden = meta["choices"], meta["hidden"]

        def counts(x: Any, n: int | None = None) -> bool:  # a list of n (any number of) whole numbers >= 1
            return isinstance(x, list) and (n is None or len(x) == n) and all(
                isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in x)

        if not counts(choices, 2) or not counts(hidden) or not isinstance(meta["classes"], str) or not all(
                isinstance(meta[k], dict) for k in ("blueprint", "continuations")):
            raise LeafNetError(f"{directory}/model.json: not a leaf-value model (choices, hidden, classes, blueprint "
                               "or continuations of the wrong kind)")
        try:
            model = make_model(spec.num_features, choices[0] * choices[1], hidden)
            model.load_state_dict(load_torch(path))
        except (RuntimeError, ValueError, TypeError, pickle.UnpicklingError) as exc:
            raise LeafNetError(f"{path}: weights do not fit the model described in model.json ({exc})") from None
        return cls(model.to(default_device()), meta)

    def check_built_for(self, *, spec: FeatureSpec, choices: tuple[int, int] | None, classes: str,
                        blueprint: dict[str, Any], continuations: dict[str, Any]) -> None:
        """Raise :class:`LeafNetError` naming the first thing this model was not built for.

        ``blueprint`` / ``continuations`` are :func:`strategy_identity` dicts; a continuation set
        may be the first strategies of the model's (fewer options).
        """
        for what, (have, need) in {"feature spec": (self.meta["spec"], spec.as_dict()),
                                   "card classes": (self.meta["classes"], classes)}.items():
            if have != need:
                raise LeafNetError(f"the leaf-value model was built for another {what} ({have!r}, here {need!r})")
        for what, have, need in (("blueprint", self.meta["blueprint"], blueprint),
                                 ("continuation set", self.meta["continuations"], continuations)):
            why = identity_mismatch(have, need)
            if why is not None:
                raise LeafNetError(f"the leaf-value model was built for another {what}: {why}")
        if choices is not None and (choices[0] > self.choices[0] or choices[1] > self.choices[1]):
            raise LeafNetError(f"the leaf-value model predicts {self.choices} options, {choices} were asked for")


# --- training ---------------------------------------------------------------------------------


@dataclass
class TrainResult:
    net: LeafNet
    history: list[tuple[float, float]]  # (train, validation) Huber loss per epoch
    best_epoch: int
    stopped_early: bool


def split_groups(groups: np.ndarray, val_fraction: float, seed: int) -> np.ndarray:
    """A validation mask holding out whole groups (leaf states / subgames), seeded."""
    uniq = np.unique(groups)
    rng = np.random.default_rng(seed)
    n_val = max(1, int(round(val_fraction * len(uniq))))
    val = rng.choice(uniq, size=n_val, replace=False)
    return np.isin(groups, val)


def train(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    directory: str | os.PathLike[str],
    config: TrainConfig,
    meta: dict[str, Any],
    progress: Callable[[int, float, float], None] | None = None,
) -> TrainResult:
    """Train on rows ``x -> y`` with Huber loss and Adam; checkpoint every epoch, resume, stop early.

    ``directory`` receives ``checkpoint.pt`` (resumed from when it matches ``config`` and
    the data's digest) and, at the end, the best model (:meth:`LeafNet.save`).
    ``progress(epoch, train_loss, val_loss)`` is called after each epoch.
    """
    torch = _torch()
    config.check()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    dev = default_device()
    if dev.type == "cpu":
        torch.set_num_threads(config.threads)
    val_mask = split_groups(groups, config.val_fraction, config.seed)
    if val_mask.all() or not val_mask.any():
        raise PokerbotError("the data has too few groups (leaf states) for a validation split")
    xt = torch.from_numpy(np.ascontiguousarray(x[~val_mask], dtype=np.float32)).to(dev)
    yt = torch.from_numpy(np.ascontiguousarray(y[~val_mask], dtype=np.float32)).to(dev)
    xv = torch.from_numpy(np.ascontiguousarray(x[val_mask], dtype=np.float32)).to(dev)
    yv = torch.from_numpy(np.ascontiguousarray(y[val_mask], dtype=np.float32)).to(dev)
    data_digest = hashlib.sha256(np.ascontiguousarray(x).tobytes() + np.ascontiguousarray(y).tobytes()).hexdigest()[:16]
    torch.manual_seed(config.seed)
    model = make_model(x.shape[1], y.shape[1], config.hidden).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    loss_fn = torch.nn.HuberLoss(delta=config.huber_delta)
    history: list[tuple[float, float]] = []
    best = (math.inf, -1)
    best_state: dict[str, Any] = {}
    ckpt = directory / "checkpoint.pt"
    key = {"config": asdict(config), "data": data_digest}
    if ckpt.is_file():
        fresh = "remove it or pass --fresh"
        try:
            saved = load_torch(ckpt)  # on the CPU: the RNG state must stay there; weights are copied to dev
        except (OSError, RuntimeError, EOFError, ValueError, TypeError, pickle.UnpicklingError) as exc:
            raise LeafNetError(f"cannot read the training checkpoint {str(ckpt)!r} ({exc}); {fresh}") from None
        if not isinstance(saved, dict) or not isinstance(saved.get("key"), dict):
            raise LeafNetError(f"{ckpt} is not a leaf-net training checkpoint; {fresh}")
        if saved["key"] == key:  # a checkpoint of this run (one of other options or data is started over)
            try:
                model.load_state_dict(saved["model"])
                opt.load_state_dict(saved["opt"])
                history = [(float(t), float(v)) for t, v in saved["history"]]
                best = (float(saved["best"][0]), int(saved["best"][1]))
                best_state = saved["best_state"]
                torch.set_rng_state(saved["rng"])
                if (len(history) > config.epochs or not all(math.isfinite(t) for h in history for t in h)
                        or not -1 <= best[1] < max(len(history), 1) or (best[1] >= 0) != bool(best_state)):
                    raise ValueError("inconsistent history")
            except (KeyError, IndexError, RuntimeError, TypeError, ValueError) as exc:
                raise LeafNetError(f"the training checkpoint {str(ckpt)!r} is damaged ({exc}); {fresh}") from None
            if best_state:
                try:
                    make_model(x.shape[1], y.shape[1], config.hidden).load_state_dict(best_state)
                except (RuntimeError, TypeError, ValueError, AttributeError) as exc:
                    raise LeafNetError(f"the training checkpoint {str(ckpt)!r} is damaged ({exc}); {fresh}") from None
    gen = torch.Generator(device="cpu")
    stopped = False
    for epoch in range(len(history), config.epochs):
        if epoch - best[1] > config.patience and best[1] >= 0:
            stopped = True
            break
        model.train()
        gen.manual_seed(config.seed * 100003 + epoch)
        order = torch.randperm(xt.shape[0], generator=gen).to(dev)
        total = 0.0
        for i in range(0, xt.shape[0], config.batch):
            idx = order[i : i + config.batch]
            opt.zero_grad()
            loss = loss_fn(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            val = float(loss_fn(model(xv), yv))
        history.append((total / xt.shape[0], val))
        if val < best[0]:
            best = (val, epoch)
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        with atomic_open(ckpt) as f:
            torch.save({"key": key, "model": model.state_dict(), "opt": opt.state_dict(), "history": history,
                        "best": list(best), "best_state": best_state, "rng": torch.get_rng_state()}, f)
        if progress is not None:
            progress(epoch + 1, history[-1][0], val)
    model.load_state_dict(best_state)
    out_meta = dict(meta, hidden=list(config.hidden), train=asdict(config), val_loss=best[0], best_epoch=best[1],
                    epochs_run=len(history), rows={"train": int(xt.shape[0]), "val": int(xv.shape[0])},
                    data_digest=data_digest)
    net = LeafNet(model, out_meta)
    net.save(directory)
    return TrainResult(net, history, best[1], stopped)


def plot_losses(history: Sequence[tuple[float, float]], path: str | os.PathLike[str], title: str = "") -> None:
    """A PNG of the training and validation Huber loss per epoch (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ep = np.arange(1, len(history) + 1)
    ax.plot(ep, [h[0] for h in history], label="train")
    ax.plot(ep, [h[1] for h in history], label="validation")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("Huber loss (fraction of the pot)")
    ax.set_title(title or "leaf-value network")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
