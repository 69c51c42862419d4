"""Driving a blueprint run: chunks of MCCFR iterations, progress bar, checkpoints, exact resume.

>>> from blueprint.config import BlueprintConfig
>>> t = Trainer(BlueprintConfig(name="doc-kuhn", game="kuhn", iterations=2000), directory=None)
>>> _ = t.step(2000)
>>> t.iteration
2000
>>> t.policy()["As:r"]["c"] > 0.9   # Kuhn's deck is Q K A: facing a bet, the ace calls
True

A run is a pure function of its config (seed included): the arrays after
``N`` iterations are bit-identical whether the run was stopped and resumed or
not, and whatever the chunk sizes. ``Ctrl-C`` finishes the current chunk,
writes a checkpoint and returns; a crash loses at most ``checkpoint_every``
iterations.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blueprint.abstract_game import AbstractGame
from blueprint.config import BlueprintConfig
from blueprint.lossless import LosslessAbstraction
from blueprint.mccfr import average_strategy, current_strategy, run_iterations, seed_state
from blueprint.model import Blueprint, export_policy, make_cards, make_menu
from blueprint.storage import blueprint_dir, check_identity, write_manifest
from pokerbot.betting_tree import DECISION
from pokerbot.errors import CheckpointError
from pokerbot.files import exclusive
from pokerbot.gamedef import load_game
from pokerbot.infoset import Policy
from pokerbot.interrupts import held, on_stop
from pokerbot.resources import check_memory
from pokerbot.npz import load_checked, save_checked

#: A callable giving the exploitability (mbb/g) of a policy, shown on the progress bar.
EvaluateFn = Callable[[Policy], float]


@dataclass
class TrainResult:
    iterations: int
    seconds: float
    interrupted: bool
    exploitability: list[tuple[int, float]]

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def storage_arrays(tree: AbstractGame, dtype: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed (regrets, strategy sums, sum exponents) of a run: float arrays with no exponents, or compact
    storage (int32, uint16, one uint8 per infoset). ``np.zeros`` maps untouched pages lazily, so information
    sets never visited take no resident memory."""
    if dtype == "compact":
        return (np.zeros(tree.num_slots, np.int32), np.zeros(tree.num_slots, np.uint16),
                np.zeros(tree.num_infosets, np.uint8))
    return np.zeros(tree.num_slots, np.dtype(dtype)), np.zeros(tree.num_slots, np.dtype(dtype)), np.zeros(0, np.uint8)


class Trainer:
    """One blueprint run. ``directory=None`` keeps it in memory (no checkpoints)."""

    def __init__(self, config: BlueprintConfig, directory: str | Path | None | bool = True,
                 check_fits: bool = True) -> None:
        self.config = config
        self.game = load_game(config.game)
        self.cards = make_cards(config.cards, self.game)
        self.menu = make_menu(config.actions, self.game)
        self.tree = AbstractGame.build(self.game, self.cards.num_buckets, self.menu)
        if check_fits:
            check_memory(self.memory_estimate(), f"training {config.name!r} ({self.tree.num_slots:,} infoset actions, "
                         f"dtype {config.dtype}, {config.workers} worker{'s' if config.workers > 1 else ''})",
                         hint="use dtype = \"compact\", fewer workers, or smaller abstractions")
        #: compact storage (see :mod:`blueprint.mccfr`): int32 regrets, uint16 sums, a sum exponent per infoset
        self.compact = config.dtype == "compact"
        self.regret, self.ssum, self.sexp = storage_arrays(self.tree, config.dtype)
        decision = self.tree.kind == DECISION
        per_node = np.where(decision, np.array(self.tree.num_buckets, dtype=np.int64)[self.tree.round], 0)
        self._ibase = np.concatenate([[0], np.cumsum(per_node)[:-1]]).astype(np.int64)
        self.deal_rng = seed_state(config.seed, 0)
        self.trav_rng = seed_state(config.seed, 1)
        self.iteration = 0
        if directory is True:
            self.directory: Path | None = blueprint_dir(config.name)
        elif directory is None or directory is False:
            self.directory = None
        else:
            self.directory = Path(directory)
        self._params = np.array(config.params(), dtype=np.float64)
        if self.compact:  # the kernel compares stored (scaled) regrets with the threshold and the floor
            self._params[3] *= config.regret_scale
            self._params[5] *= config.regret_scale
        self._num_buckets = np.array(self.tree.num_buckets, dtype=np.int64)
        self._ray: dict[str, Any] | None = None  # blueprint.distributed's ray module and workers, once started
        #: Run through ray workers (always when ``workers > 1``; set True to use ray with one worker).
        self.use_ray = config.workers > 1

    # -- sizes --------------------------------------------------------------------------

    def memory_estimate(self) -> int:
        """Bytes this run will hold at most on this machine: its arrays (once per process that keeps a copy: see
        :func:`blueprint.distributed.array_copies`), the betting tree and the card tables."""
        slots, infosets = self.tree.num_slots, self.tree.num_infosets
        per_copy = slots * 6 + infosets if self.config.dtype == "compact" else slots * 2 * np.dtype(
            self.config.dtype).itemsize
        copies = 1.0
        if self.config.workers > 1 and not self.config.ray_address:
            from blueprint.distributed import array_copies

            copies = array_copies(self.config.workers)
        tables = sum(int(getattr(t, "nbytes", 0)) for t in getattr(self.cards, "tables", ()))
        return int(per_copy * copies) + self.tree.tree_bytes() + tables

    def memory_bytes(self) -> int:
        return self.regret.nbytes + self.ssum.nbytes + self.sexp.nbytes + self.tree.tree_bytes()

    def describe(self) -> dict[str, Any]:
        t = self.tree
        item = self.regret.dtype.itemsize
        sum_item = self.ssum.dtype.itemsize + self.sexp.nbytes / max(1, t.num_slots)
        return {
            "game": self.config.game, "cards": self.config.cards, "actions": self.config.actions,
            "num_buckets": list(t.num_buckets), "nodes": t.num_nodes, "decision_nodes": t.num_decision_nodes,
            "infosets": t.num_infosets, "slots": t.num_slots,
            "bytes_per_infoset": round(t.bytes_per_infoset(item, sum_item), 2), "memory_bytes": self.memory_bytes(),
        }

    # -- iterating ------------------------------------------------------------------------

    def _tree_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                  np.ndarray]:
        t = self.tree
        return (t.kind, t.player, t.round, t.num_actions, t.first_child, t.child, t.base, t.spent)

    def step(self, count: int) -> None:
        """Run ``count`` iterations in this process (one traversal per player each)."""
        if count <= 0:
            return
        rounds = self.game.num_rounds
        deals = count if self.config.shared_deal else 2 * count
        buckets = np.empty((deals, 2, rounds), dtype=np.int32)
        result = np.empty(deals, dtype=np.int8)
        self.cards.deal(self.deal_rng, buckets, result)
        run_iterations(self.iteration, count, buckets, result, *self._tree_args(), self.regret, self.ssum,
                       self.sexp, self._ibase, self.trav_rng, self._params, self.tree.max_depth, self.tree.max_actions, rounds - 1)
        self.iteration += count

    def _epoch_size(self) -> int:
        from blueprint.distributed import epoch_size

        return epoch_size(self)

    def _advance(self, count: int) -> int:
        """Advance by ``count`` iterations (distributed: one epoch of at most ``count``); return how many."""
        if self.use_ray:
            from blueprint.distributed import run_epoch

            return run_epoch(self, count)
        self.step(count)
        return count

    # -- strategies ------------------------------------------------------------------------

    def average(self, dtype: type = np.float64) -> np.ndarray:
        out: np.ndarray = np.empty(self.tree.num_slots, dtype=dtype)
        t = self.tree
        average_strategy(self.ssum, t.base, t.kind, t.round, t.num_actions, self._num_buckets, out)
        return out

    def current(self) -> np.ndarray:
        out = np.empty(self.tree.num_slots, dtype=np.float64)
        t = self.tree
        current_strategy(self.regret, t.base, t.kind, t.round, t.num_actions, self._num_buckets, out)
        return out

    def policy(self, average: bool = True) -> dict[str, dict[str, float]]:
        """The average (or current) strategy as an infoset-keyed Policy (lossless small games only)."""
        if not isinstance(self.cards, LosslessAbstraction):
            raise CheckpointError("a Policy dictionary is only exported for lossless small games")
        return export_policy(self.tree, self.cards, self.average() if average else self.current())

    def blueprint(self) -> Blueprint:
        meta = {"game": self.config.game, "iterations": self.iteration, "config": self.config.identity(),
                "name": self.config.name}
        return Blueprint(self.tree, self.average(np.float32), self.config.cards, self.config.actions, meta)

    # -- checkpoints ------------------------------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        return dict(self.config.identity(), tree=self.tree.signature(), slots=self.tree.num_slots)

    @property
    def checkpoint_path(self) -> Path:
        if self.directory is None:
            raise CheckpointError("this run has no directory for checkpoints")
        return self.directory / "checkpoint.npz"

    def save_checkpoint(self, path: str | Path | None = None) -> Path:
        path = Path(path) if path else self.checkpoint_path
        header = {"identity": self._identity(), "iteration": self.iteration}
        save_checked(path, "checkpoint", header, {
            "regret": self.regret, "ssum": self.ssum, "sexp": self.sexp, "deal_rng": self.deal_rng,
            "trav_rng": self.trav_rng,
        })
        return path

    def load_checkpoint(self, path: str | Path | None = None) -> None:
        """Restore a checkpoint of this run; CheckpointError if corrupt or from another config."""
        path = Path(path) if path else self.checkpoint_path
        try:
            meta, arrays = load_checked(path, "checkpoint")
            check_identity(path, meta.get("identity", {}), self._identity())
            if "sexp" not in arrays and not self.compact:  # checkpoints of float runs from before compact storage
                arrays["sexp"] = self.sexp
            for name, like in (("regret", self.regret), ("ssum", self.ssum), ("sexp", self.sexp),
                               ("deal_rng", self.deal_rng), ("trav_rng", self.trav_rng)):
                a = arrays.get(name)
                if a is None or a.shape != like.shape or a.dtype != like.dtype:
                    raise CheckpointError(f"{path}: array {name!r} missing or of the wrong shape/dtype")
            iteration = meta.get("iteration")
            if not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0:
                raise CheckpointError(f"{path}: bad iteration count {iteration!r}")
        except CheckpointError as exc:
            raise CheckpointError(f"{exc}; to start over, delete {path} "
                                  f"(`pokerbot train --fresh` does)") from None
        self.regret = arrays["regret"].copy()
        self.ssum = arrays["ssum"].copy()
        self.sexp = arrays["sexp"].copy()
        self.deal_rng = arrays["deal_rng"].astype(np.uint64).copy()
        self.trav_rng = arrays["trav_rng"].astype(np.uint64).copy()
        self.iteration = iteration

    def _resume(self) -> None:
        """Load the run directory's checkpoint; never start over silently where a run has been before."""
        assert self.directory is not None  # the caller's check
        path = self.checkpoint_path
        if path.is_file() and not path.is_symlink():
            self.load_checkpoint()
            return
        fresh = "to start over, delete it (`pokerbot train --fresh` does)"
        if os.path.lexists(path):
            kind = "a dangling link" if path.is_symlink() and not path.exists() else (
                "a link" if path.is_symlink() else "a directory" if path.is_dir() else "not a regular file")
            raise CheckpointError(f"{path} is {kind}, not a checkpoint; {fresh}")
        if (self.directory / "blueprint.npz").exists() and self.iteration == 0:
            raise CheckpointError(f"{self.directory} holds a blueprint but no checkpoint.npz to resume it from: "
                                  f"training would start over and replace it; give another --dir, or pass "
                                  f"--fresh to retrain from scratch")

    def snapshot_path(self, iteration: int) -> Path:
        """Where the blueprint kept at ``iteration`` lives (``snapshot_every``): ``snapshots/blueprint-<it>.npz``."""
        if self.directory is None:
            raise CheckpointError("this run has no directory")
        return self.directory / "snapshots" / f"blueprint-{iteration}.npz"

    def save_blueprint(self, path: Path | None = None) -> Path:
        """Write the blueprint (default: the run's ``blueprint.npz``, with the manifest)."""
        if self.directory is None:
            raise CheckpointError("this run has no directory")
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.blueprint().save(path)
            return path
        path = self.directory / "blueprint.npz"
        self.blueprint().save(path)
        write_manifest(self.directory, {
            "config": {k: v for k, v in vars(self.config).items()}, "iterations": self.iteration,
            "tree": self.describe(), "files": ["checkpoint.npz", "blueprint.npz"],
        })
        return path

    # -- the loop ---------------------------------------------------------------------------

    def train(
        self,
        iterations: int | None = None,
        resume: bool = True,
        evaluate: EvaluateFn | None = None,
        progress: bool = True,
        stop_after: int | None = None,
    ) -> TrainResult:
        """Train up to ``iterations`` in total (default: the config's), resuming a checkpoint if present.

        ``evaluate`` (small games) is called every ``eval_every`` iterations with the
        average policy; its figure shows on the progress bar. ``stop_after`` stops after
        that many new iterations (tests use it to simulate an interruption). The run
        directory is held for the run (:func:`pokerbot.files.exclusive`): a second
        training on it stops at once with :class:`~pokerbot.errors.LockedError`.
        """
        if self.directory is None:
            return self._train(iterations, resume, evaluate, progress, stop_after)
        self.directory.parent.mkdir(parents=True, exist_ok=True)
        with exclusive(self.directory, "the run directory"):
            return self._train(iterations, resume, evaluate, progress, stop_after)

    def _train(self, iterations: int | None, resume: bool, evaluate: EvaluateFn | None, progress: bool,
               stop_after: int | None) -> TrainResult:
        total = self.config.iterations if iterations is None else int(iterations)
        if resume and self.directory is not None:
            self._resume()
        cfg = self.config
        stop = threading.Event()
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=total, initial=min(self.iteration, total), unit="it", dynamic_ncols=True,
                       desc=cfg.name, smoothing=0.1)
        start_iter = self.iteration
        last_ckpt = self.iteration
        # Checkpoints fall on multiples of checkpoint_every even after a stop between them (so snapshots,
        # kept at the checkpoints that are multiples of snapshot_every, keep their schedule).
        grid = self.iteration - self.iteration % cfg.checkpoint_every
        last_eval = self.iteration
        curve: list[tuple[int, float]] = []
        t0 = time.perf_counter()
        try:
            with on_stop(lambda signum: stop.set()):  # Ctrl-C, SIGTERM, SIGHUP: finish the chunk, then save
                while self.iteration < total and not stop.is_set():
                    if stop_after is not None and self.iteration - start_iter >= stop_after:
                        break
                    n = min(cfg.chunk if not self.use_ray else self._epoch_size(), total - self.iteration)
                    if self.directory is not None:  # checkpoints fall exactly every checkpoint_every
                        n = min(n, grid + cfg.checkpoint_every - self.iteration)
                    if stop_after is not None:
                        n = min(n, start_iter + stop_after - self.iteration)
                    done = self._advance(n)
                    if bar is not None:
                        bar.update(min(done, total - bar.n))
                    if evaluate is not None and cfg.eval_every and self.iteration - last_eval >= cfg.eval_every:
                        last_eval = self.iteration
                        value = float(evaluate(self.policy()))
                        curve.append((self.iteration, value))
                        if bar is not None:
                            bar.set_postfix(expl=f"{value:.1f} mbb/g")
                    if self.directory is not None and self.iteration - grid >= cfg.checkpoint_every:
                        with held():
                            self.save_checkpoint()
                            if cfg.snapshot_every and self.iteration % cfg.snapshot_every == 0:
                                self.save_blueprint(self.snapshot_path(self.iteration))
                        last_ckpt = grid = self.iteration
        finally:
            if bar is not None:
                bar.close()
        seconds = time.perf_counter() - t0
        with held():  # the last checkpoint and the blueprint are written whole, whatever arrives now
            if self.directory is not None and self.iteration != last_ckpt:
                self.save_checkpoint()
            if self.directory is not None:
                self.save_blueprint()
        if evaluate is not None and (not curve or curve[-1][0] != self.iteration):
            curve.append((self.iteration, float(evaluate(self.policy()))))
        return TrainResult(self.iteration - start_iter, seconds, stop.is_set(), curve)

    def close(self) -> None:
        if self._ray is not None:
            from blueprint.distributed import shutdown

            shutdown(self)


def small_game_evaluator(trainer: Trainer) -> EvaluateFn | None:
    """Exact exploitability (mbb/g) by the solver core's best response, for lossless small games."""
    if not isinstance(trainer.cards, LosslessAbstraction):
        return None
    from pokerbot.solver import policy_exploitability

    game = trainer.game
    menu = None if not game.nolimit else trainer.menu
    return lambda policy: float(policy_exploitability(game, policy, bet_menu=menu))
