"""Student of Games training: actors (sound self-play + query solving) feeding a replay buffer, one trainer.

Actors run :func:`realtime.sog.selfplay.work_unit` with the latest network,
over ray (``workers >= 1``; a local ray instance unless an address is given)
or in this process (``workers = 0``). The trainer keeps a sliding-window
replay buffer, takes Adam steps on ``w_v * Huber + w_p * cross-entropy`` with
the learning rate ``lr * decay_rate ** (step / decay_steps)``, never more than
``max_updates_per_example`` gradient updates per example on average (it waits
for data otherwise), evaluates the paper's exploitability protocol every
``eval_every`` steps (min / mean / max over ``eval_seeds`` seeds) and
checkpoints everything (network, optimiser, buffer, curve, counters) so a run
resumes where it stopped. A config is a TOML file (``configs/sog-*.toml``).
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from pokerbot.errors import CheckpointError
from pokerbot.files import atomic_open, atomic_write_text, load_torch, read_toml_config, save_figure
from realtime.sog.network import CVPN, NetworkValue, default_device
from realtime.sog.resolve import SearchSettings, composed_policy
from realtime.sog.search import PublicGame, SoGError
from realtime.sog.selfplay import Examples, SelfPlayConfig, UnitResult, work_unit

#: The paper's baselines (Schmid et al., Student of Games, supplementary "Reinforcement
#: Learning and Search in Imperfect Information Games": Table S5, Fig. S4), mbb/g: drawn
#: on the curves.
BASELINES = {"leduc": {"IS-MCTS": 465.0, "A2C": 78.0}, "kuhn": {"A2C": 52.0}}

#: What each key means, by table ("" = the top level), for the configuration reference (docs/config-reference.md,
#: made by :mod:`evaluation.configref`): ``"meaning"`` or ``(meaning, allowed values or range[, type, default])``.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "": {
        "name": ("the run's name (its directory under $POKERBOT_HOME/sog/), unless [sog] gives one", "",
                 "string", "the file's name"),
    },
    "sog": {
        "name": ("the run's name: its directory under $POKERBOT_HOME/sog/", "", "", "the top-level name"),
        "game": ("the game", "kuhn, leduc, leduc-nl"),
        "hidden": ("width of the value-and-policy network's hidden layers (an MLP)", ">= 1"),
        "layers": ("hidden layers of the network", ">= 1"),
        "simulations": ("training search: s of SoG(s, c), the expansion simulations of one GT-CFR search", ">= 1"),
        "c": ("training search: c of SoG(s, c), expansion simulations per CFR update", "> 0"),
        "steps": ("gradient steps in all (a resumed run counts those done)", ">= 1"),
        "batch_size": ("examples per gradient step", ">= 1"),
        "lr": ("Adam's learning rate at step 0: lr * decay_rate ** (step / decay_steps)", "> 0"),
        "decay_steps": ("steps over which the learning rate is multiplied by decay_rate", ">= 1"),
        "decay_rate": ("learning-rate decay factor per decay_steps steps", "> 0"),
        "w_v": ("weight of the value loss (Huber)", ">= 0"),
        "w_p": ("weight of the policy loss (cross-entropy)", ">= 0"),
        "replay_size": ("the replay buffer's sliding window, in examples", ">= 1"),
        "max_updates_per_example": ("gradient updates per example on average at most: the trainer waits for "
                                    "data beyond it", "> 0"),
        "epsilon": ("self-play: probability of mixing in a uniform action", "0 .. 1"),
        "q_search": ("self-play: probability that a search queues one of its network queries to be solved "
                     "(a solved query is a training example)", "0 .. 1"),
        "q_recursive": ("probability that a query solve queues one of its own network queries", "0 .. 1"),
        "max_queries": ("query solves per work unit at most (not in the paper: keeps units short); 0: none",
                        ">= 0"),
        "prior_temperature": ("temperature T_prior of the network's policy as the search's prior", "> 0"),
        "seed": ("seed of the run (network initialisation, self-play)", ">= 0"),
        "workers": ("ray actors playing self-play; 0: in this process", ">= 0"),
        "ray_address": "ray cluster to join: \"\" starts a local ray, \"auto\" or host:port joins a cluster",
        "eval_every": ("steps between runs of the exploitability protocol; 0: never", ">= 0"),
        "eval_seeds": ("seeds per evaluation (min / mean / max over them; the paper uses 50)", ">= 1"),
        "eval_simulations": ("evaluation search: s of SoG(s, c)", ">= 1"),
        "eval_c": ("evaluation search: c of SoG(s, c)", "> 0"),
        "checkpoint_every": ("steps between checkpoints (a stopped run resumes from the last); 0: only at the "
                             "end and on a stop", ">= 0"),
        "snapshot_every": ("also save nets/step-N.pt every this many steps without evaluating (for `pokerbot "
                           "sog eval --over-steps`); 0: only at evaluations", ">= 0"),
    },
}


@dataclass(frozen=True)
class TrainConfig:
    """A training run (see ``configs/sog-leduc.toml`` for every field with its meaning)."""

    name: str = "sog-leduc"
    game: str = "leduc"
    hidden: int = 128
    layers: int = 3
    simulations: int = 100
    c: float = 1.0
    steps: int = 2000
    batch_size: int = 128
    lr: float = 1e-3
    decay_steps: int = 2000
    decay_rate: float = 0.5
    w_v: float = 1.0
    w_p: float = 0.01
    replay_size: int = 100_000
    max_updates_per_example: float = 10.0
    epsilon: float = 0.1
    q_search: float = 0.9
    q_recursive: float = 0.1
    max_queries: int = 64
    prior_temperature: float = 1.0
    seed: int = 0
    workers: int = 1
    ray_address: str = ""
    eval_every: int = 500
    eval_seeds: int = 2
    eval_simulations: int = 100
    eval_c: float = 1.0
    checkpoint_every: int = 200
    snapshot_every: int = 0

    def __post_init__(self) -> None:
        positive = ("hidden", "layers", "simulations", "steps", "batch_size", "replay_size", "decay_steps", "eval_seeds",
                    "eval_simulations")
        for f in positive:
            if int(getattr(self, f)) <= 0:
                raise SoGError(f"config field {f} must be positive, got {getattr(self, f)}")
        for f in ("c", "lr", "decay_rate", "max_updates_per_example", "prior_temperature", "eval_c"):
            if not float(getattr(self, f)) > 0:
                raise SoGError(f"config field {f} must be > 0, got {getattr(self, f)}")
        for f in ("w_v", "w_p"):
            if not float(getattr(self, f)) >= 0:
                raise SoGError(f"config field {f} must be >= 0, got {getattr(self, f)}")
        for f in ("epsilon", "q_search", "q_recursive"):
            if not 0.0 <= float(getattr(self, f)) <= 1.0:
                raise SoGError(f"config field {f} must be in [0, 1], got {getattr(self, f)}")
        for f in ("name", "game"):
            if not getattr(self, f):
                raise SoGError(f"config field {f} must not be empty")
        if self.seed < 0:
            raise SoGError(f"config field seed must be >= 0, got {self.seed}")
        if min(self.workers, self.eval_every, self.checkpoint_every, self.snapshot_every, self.max_queries) < 0:
            raise SoGError("workers, eval_every, checkpoint_every, snapshot_every and max_queries must be >= 0")

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)

    @property
    def selfplay(self) -> SelfPlayConfig:
        return SelfPlayConfig(SearchSettings(self.simulations, self.c), self.epsilon, self.q_search, self.q_recursive,
                              self.max_queries)

    @property
    def eval_settings(self) -> SearchSettings:
        return SearchSettings(self.eval_simulations, self.eval_c)


def load_config(name_or_path: str) -> TrainConfig:
    """Read a ``[sog]`` table (flat keys as in :class:`TrainConfig`). Raises :class:`SoGError`."""
    from pokerbot.schema import build, check_keys, take

    path, data = read_toml_config(name_or_path, SoGError)
    check_keys(data, ("name", "sog"), str(path), SoGError)  # a misspelt [sgo], a blueprint config: refused
    if "sog" not in data:
        raise SoGError(f"{path}: no [sog] table: not a Student of Games config (see configs/sog-leduc.toml)")
    table = dict(take(data, "sog", dict, where=str(path), error=SoGError))
    table.setdefault("name", take(data, "name", str, path.stem, str(path), SoGError))
    try:
        return build(TrainConfig, table, f"{path} [sog]", SoGError)
    except SoGError as exc:  # a range TrainConfig refuses: say which file
        message = str(exc)
        raise SoGError(message if message.startswith(str(path)) else f"{path} [sog]: {message}") from None


def load_network(path: str | os.PathLike[str]) -> tuple[CVPN, dict[str, Any]]:
    """The network of a training checkpoint and the checkpoint's metadata. Raises :class:`CheckpointError`."""
    try:
        data = load_torch(path)
        net = CVPN.from_spec(data["spec"])
        net.load_state_dict(data["model"])
    except (OSError, KeyError, RuntimeError, EOFError, ValueError, TypeError, pickle.UnpicklingError) as exc:
        raise CheckpointError(f"cannot read SoG checkpoint {os.fspath(path)!r}: {exc}") from None
    return net, data


def evaluate_network(
    game: PublicGame, net: CVPN, settings: SearchSettings, seeds: list[int], prior_temperature: float = 1.0
) -> list[float]:
    """Exact exploitability (mbb/g) of the composed policy of each seed (the paper's protocol)."""
    from pokerbot.solver import exploitability

    out = []
    for seed in seeds:
        strat = composed_policy(game, lambda: NetworkValue(net, prior_temperature), settings, seed)
        out.append(exploitability(game.tree, strat))
    return out


class _LocalActors:
    """Work units in this process (``workers = 0``)."""

    def __init__(self, game: PublicGame, cfg: TrainConfig) -> None:
        self.game, self.cfg = game, cfg
        self.pending: list[tuple[dict[str, torch.Tensor], int]] = []

    def submit(self, net: CVPN, seed: int) -> None:
        self.pending.append(({k: v.detach().cpu().clone() for k, v in net.state_dict().items()}, seed))

    def wait(self) -> UnitResult:
        weights, seed = self.pending.pop(0)
        net = CVPN.from_spec(_spec(self.game, self.cfg))
        net.load_state_dict(weights)
        return work_unit(self.game, NetworkValue(net, self.cfg.prior_temperature, torch.device("cpu")), self.cfg.selfplay, seed)

    def close(self) -> None:
        pass


def _spec(game: PublicGame, cfg: TrainConfig) -> dict[str, int]:
    return CVPN.for_game(game, cfg.hidden, cfg.layers).spec()


class _RayActors:
    """Work units on ray actors (one per worker), each holding its own copy of the game."""

    def __init__(self, game: PublicGame, cfg: TrainConfig) -> None:
        from pokerbot.ray_util import start_ray

        self.ray = ray = start_ray(cfg.ray_address, cfg.workers)
        remote = ray.remote(num_cpus=1)(_RemoteActor)
        self.actors = [remote.remote(cfg) for _ in range(cfg.workers)]
        self.free = list(self.actors)
        self.futures: dict[Any, Any] = {}

    def submit(self, net: CVPN, seed: int) -> None:
        actor = self.free.pop(0) if self.free else self.actors[len(self.futures) % len(self.actors)]
        weights = self.ray.put({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
        self.futures[actor.run.remote(weights, seed)] = actor

    def wait(self) -> UnitResult:
        done, _ = self.ray.wait(list(self.futures), num_returns=1)
        actor = self.futures.pop(done[0])
        self.free.append(actor)
        return self.ray.get(done[0])

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)


class _RemoteActor:
    def __init__(self, cfg: TrainConfig) -> None:
        torch.set_num_threads(1)
        self.cfg = cfg
        self.game = PublicGame.load(cfg.game)
        self.net = CVPN.from_spec(_spec(self.game, cfg))

    def run(self, weights: dict[str, torch.Tensor], seed: int) -> UnitResult:
        self.net.load_state_dict(weights)
        value_fn = NetworkValue(self.net, self.cfg.prior_temperature, torch.device("cpu"))
        return work_unit(self.game, value_fn, self.cfg.selfplay, seed)


@dataclass
class TrainResult:
    steps: int
    examples: int
    units: int
    seconds: float
    interrupted: bool
    curve: list[tuple[int, float, float, float]]


def _stop_on_sigterm() -> Callable[[], None]:
    """Treat SIGTERM and SIGHUP like Ctrl-C while training (:mod:`pokerbot.interrupts`), so that a stopped
    run checkpoints; returns the function that restores the previous handlers."""
    from contextlib import ExitStack

    from pokerbot.interrupts import stop_signals_raise

    stack = ExitStack()
    stack.enter_context(stop_signals_raise())
    return stack.close


class Trainer:
    """A resumable SoG training run in ``directory`` (``checkpoint.pt``, ``curve.png``, ``curve.csv``)."""

    def __init__(self, cfg: TrainConfig, directory: str | os.PathLike[str], device: torch.device | None = None) -> None:
        self.cfg = cfg
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SoGError(f"cannot create run directory {str(self.directory)!r}: {exc}") from None
        self.device = device or default_device()
        if self.device.type == "cpu":
            torch.set_num_threads(1)  # small batches: see NetworkValue
        self.game = PublicGame.load(cfg.game)
        torch.manual_seed(cfg.seed)
        self.net = CVPN.for_game(self.game, cfg.hidden, cfg.layers).to(self.device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.buffer = Examples.empty(self.game, self.net.input_size)
        self.step = 0
        self.units = 0
        self.examples_seen = 0
        self.curve: list[tuple[int, float, float, float]] = []
        self.rng = np.random.default_rng(cfg.seed)
        if self.checkpoint_path.is_file():
            self.load()

    @property
    def checkpoint_path(self) -> Path:
        return self.directory / "checkpoint.pt"

    def describe(self) -> str:
        c = self.cfg
        return (f"{c.game}, CVPN {c.layers}x{c.hidden}, training search SoG({c.simulations},{c.c:g}), "
                f"batch {c.batch_size}, Adam lr {c.lr:g}, {c.workers or 'no'} ray workers, device {self.device}")

    # --- checkpoints -----------------------------------------------------------------

    def save(self) -> None:
        data = {
            "spec": self.net.spec(), "model": self.net.state_dict(), "optimizer": self.opt.state_dict(),
            "step": self.step, "units": self.units, "examples_seen": self.examples_seen, "curve": self.curve,
            "config": dataclasses.asdict(self.cfg), "rng": self.rng.bit_generator.state,
            "buffer": {f: getattr(self.buffer, f) for f in ("x", "value", "value_mask", "policy", "policy_mask", "actor")},
        }
        with atomic_open(self.checkpoint_path) as f:
            torch.save(data, f)

    def load(self) -> None:
        net, data = load_network(self.checkpoint_path)
        config = data.get("config") if isinstance(data, dict) else None
        if net.spec() != self.net.spec() or not isinstance(config, dict) or config.get("game") != self.cfg.game:
            raise CheckpointError(f"checkpoint {str(self.checkpoint_path)!r} was written for another game or network")
        self.net.load_state_dict(data["model"])
        self.net.to(self.device)
        try:
            self.opt.load_state_dict(data["optimizer"])
            self.step, self.units, self.examples_seen = int(data["step"]), int(data["units"]), int(data["examples_seen"])
            self.curve = [tuple(x) for x in data["curve"]]
            self.buffer = Examples(**data["buffer"])
            self.rng.bit_generator.state = data["rng"]
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RuntimeError) as exc:
            raise CheckpointError(f"checkpoint {str(self.checkpoint_path)!r} is incomplete: {exc}") from None

    # --- learning --------------------------------------------------------------------

    def loss(self, batch: Examples) -> tuple[torch.Tensor, float, float]:
        d = self.device
        x = torch.from_numpy(batch.x).to(d)
        v, l0, l1 = self.net(x)
        vt = torch.from_numpy(batch.value).to(d)
        vm = torch.from_numpy(batch.value_mask).to(d)
        hub = F.huber_loss(v * vm, vt * vm, reduction="sum") / vm.sum().clamp(min=1.0)
        pt = torch.from_numpy(batch.policy).to(d)
        pm = torch.from_numpy(batch.policy_mask).to(d)
        actor = torch.from_numpy(batch.actor).to(d)
        hm = pt.shape[2]
        logits = torch.zeros_like(pt)
        logits[:, :, : l0.shape[2]] = torch.where((actor == 0)[:, None, None], l0, 0.0)
        lp1 = torch.zeros_like(pt)
        lp1[:, :, : l1.shape[2]] = l1
        logits = torch.where((actor == 1)[:, None, None], lp1, logits)
        legal = pm.sum(dim=2, keepdim=True) > 0
        logp = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
        hands = (pm.sum(dim=1) > 0).float()
        ce = -(pt * logp * pm).sum() / hands.sum().clamp(min=1.0)
        del hm
        return self.cfg.w_v * hub + self.cfg.w_p * ce, float(hub.detach()), float(ce.detach())

    def train_step(self) -> tuple[float, float]:
        c = self.cfg
        lr = c.lr * c.decay_rate ** (self.step / c.decay_steps)
        for g in self.opt.param_groups:
            g["lr"] = lr
        idx = self.rng.integers(len(self.buffer), size=min(c.batch_size, len(self.buffer)))
        self.net.train()
        loss, hub, ce = self.loss(self.buffer.rows(idx))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.step += 1
        return hub, ce

    def snapshot(self) -> Path:
        """Save the current network as ``nets/step-<N>.pt`` (for curves under several SoG(s, c) later)."""
        path = self.directory / "nets" / f"step-{self.step:07d}.pt"
        path.parent.mkdir(exist_ok=True)
        with atomic_open(path) as f:
            torch.save({"spec": self.net.spec(), "model": self.net.state_dict(), "step": self.step,
                        "config": dataclasses.asdict(self.cfg)}, f)
        return path

    def evaluate(self) -> tuple[float, float, float]:
        self.snapshot()
        seeds = list(range(self.cfg.eval_seeds))
        self.net.eval()
        figures = evaluate_network(self.game, self.net.cpu(), self.cfg.eval_settings, seeds, self.cfg.prior_temperature)
        self.net.to(self.device)
        point = (self.step, min(figures), float(np.mean(figures)), max(figures))
        self.curve.append(point)
        return point[1:]

    def train(self, steps: int | None = None, progress: bool = True,
              on_unit: Callable[[UnitResult], None] | None = None) -> TrainResult:
        """Train up to ``steps`` gradient steps in all (default: the config's); Ctrl-C checkpoints and returns.

        The run directory is held for the run: a second training on it stops at once (LockedError)."""
        from pokerbot.files import exclusive

        self.directory.parent.mkdir(parents=True, exist_ok=True)
        with exclusive(self.directory, "the run directory"):
            return self._train(steps, progress, on_unit)

    def _train(self, steps: int | None, progress: bool, on_unit: Callable[[UnitResult], None] | None) -> TrainResult:
        from tqdm import tqdm

        c = self.cfg
        total = c.steps if steps is None else steps
        start = time.perf_counter()
        steps0, units0, ex0 = self.step, self.units, self.examples_seen
        actors = _RayActors(self.game, c) if c.workers > 0 else _LocalActors(self.game, c)
        bar = tqdm(total=total, initial=self.step, unit="step", desc=c.name, disable=not progress)
        interrupted = False
        restore = _stop_on_sigterm()
        last_ckpt = self.step
        try:
            if self.step == 0 and c.eval_every and not self.curve:
                self.evaluate()
            elif self.step == 0 and c.snapshot_every:
                self.snapshot()
            for _ in range(max(c.workers, 1)):
                actors.submit(self.net, self._unit_seed())
            while self.step < total:
                unit = actors.wait()
                self.units += 1
                self.examples_seen += len(unit.examples)
                self.buffer = Examples.concat([self.buffer, unit.examples]).tail(c.replay_size)
                if on_unit is not None:
                    on_unit(unit)
                actors.submit(self.net, self._unit_seed())
                allowed = int(c.max_updates_per_example * self.examples_seen / c.batch_size)
                hub = ce = float("nan")
                while self.step < min(allowed, total):
                    hub, ce = self.train_step()
                    bar.update(1)
                    if c.eval_every and self.step % c.eval_every == 0:
                        lo, mean, hi = self.evaluate()
                        bar.set_postfix(expl_mbb=f"{mean:.0f}")
                    elif c.snapshot_every and self.step % c.snapshot_every == 0:
                        self.snapshot()  # for `pokerbot sog eval --over-steps` later, without the protocol now
                    if c.checkpoint_every and self.step - last_ckpt >= c.checkpoint_every:
                        self.save()
                        last_ckpt = self.step
                bar.set_postfix(examples=self.examples_seen, huber=f"{hub:.3g}", ce=f"{ce:.3g}",
                                expl_mbb=f"{self.curve[-1][2]:.0f}" if self.curve else "-")
        except KeyboardInterrupt:
            interrupted = True
        finally:
            from pokerbot.interrupts import held

            try:
                bar.close()
                actors.close()
                with held():  # the checkpoint, snapshot and curve are written whole, whatever arrives now
                    self.save()
                    if not (self.directory / "nets" / f"step-{self.step:07d}.pt").exists():
                        self.snapshot()
                    self.write_curve()
            finally:
                restore()
        return TrainResult(self.step - steps0, self.examples_seen - ex0, self.units - units0,
                           time.perf_counter() - start, interrupted, list(self.curve))

    def _unit_seed(self) -> int:
        return int(self.cfg.seed * 1_000_003 + self.units * 7919 + int(self.rng.integers(1 << 20)))

    def write_curve(self) -> None:
        """``curve.csv`` and ``curve.png`` (exploitability vs training steps, min/max band)."""
        if not self.curve:
            return
        lines = ["step,min_mbb,mean_mbb,max_mbb"] + [f"{s},{a:.3f},{b:.3f},{c:.3f}" for s, a, b, c in self.curve]
        atomic_write_text(self.directory / "curve.csv", "\n".join(lines) + "\n")
        plot_curve(self.curve, self.directory / "curve.png", self.cfg.game,
                   f"{self.cfg.name}: SoG({self.cfg.eval_simulations},{self.cfg.eval_c:g}), {self.cfg.eval_seeds} seeds")


def plot_curve(curve: list[tuple[int, float, float, float]], path: Path, game: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [p[0] for p in curve]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(steps, [p[2] for p in curve], marker="o", label="mean")
    ax.fill_between(steps, [p[1] for p in curve], [p[3] for p in curve], alpha=0.3, label="min-max over seeds")
    for name, value in BASELINES.get(game, {}).items():
        ax.axhline(value, linestyle="--", color="grey")
        ax.text(steps[0], value, f" {name} {value:g}", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("training steps")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)
