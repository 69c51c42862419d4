"""The paper's exploitability protocol as a table: min / mean / max over seeds for several SoG(s, c).

For each setting and seed, :func:`realtime.sog.resolve.composed_policy` composes
the per-public-state searches into a whole-game policy and its exact
exploitability is computed (``pokerbot.solver.exploitability``). The value
function is a trained CVPN (a training checkpoint) or, for verification, the
exact subgame solver.

Seeds are independent, so :func:`run_jobs` spreads them over ray actors
(``workers``; each keeps its networks loaded) and records every finished seed
in a :class:`SeedCache` (``seeds.csv`` beside the table), so that a long
evaluation resumes after an interruption and a later one reuses what is done.
"""

from __future__ import annotations

import csv
import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerbot.files import atomic_write_text, save_figure
from pokerbot.solver import exploitability
from realtime.sog.resolve import SearchSettings, composed_policy
from realtime.sog.search import PublicGame, SoGError, ValueFunction


@dataclass
class Row:
    settings: SearchSettings
    figures: list[float]
    seconds_per_seed: float

    @property
    def summary(self) -> tuple[float, float, float]:
        return min(self.figures), float(np.mean(self.figures)), max(self.figures)


@dataclass(frozen=True)
class Job:
    """One seed's composed policy under one SoG(s, c) with one value function (``network`` None: exact)."""

    settings: SearchSettings
    seed: int
    network: Path | None = None


def network_key(network: Path | None, exact_iterations: int) -> str:
    """What identifies a value function in the seed cache: a hash of the network's shape and weights
    (so a run's last snapshot and its checkpoint share seeds), or the exact solver's iterations."""
    if network is None:
        return f"exact-{exact_iterations}"
    from realtime.sog.training import load_network

    net, _ = load_network(network)
    h = hashlib.sha1(repr(sorted(net.spec().items())).encode())
    for name, tensor in sorted(net.state_dict().items()):
        h.update(name.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:16]


class SeedCache:
    """Finished seeds of the protocol, one CSV line each (``game,value,search,seed,mbb,seconds``).

    A seed's figure depends only on the game, the value function, SoG(s, c) and
    the seed, so an interrupted evaluation resumes where it stopped and a later
    one with more seeds or more settings reuses what is done.
    """

    HEADER = "game,value,search,seed,mbb,seconds"

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.done: dict[tuple[str, str, str, int], tuple[float, float]] = {}
        if path is not None and path.is_file():
            with path.open(newline="") as f:
                for parts in list(csv.reader(f))[1:]:
                    if len(parts) == 6:  # a line cut short by an interruption is dropped
                        self.done[(parts[0], parts[1], parts[2], int(parts[3]))] = (float(parts[4]), float(parts[5]))

    def get(self, key: tuple[str, str, str, int]) -> tuple[float, float] | None:
        return self.done.get(key)

    def put(self, key: tuple[str, str, str, int], mbb: float, seconds: float) -> None:
        self.done[key] = (mbb, seconds)
        if self.path is None:
            return
        new = not self.path.is_file()
        with self.path.open("a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(self.HEADER.split(","))
            w.writerow([*key, f"{mbb:.6f}", f"{seconds:.3f}"])


class _Evaluator:
    """Runs jobs for one game, keeping each network it loads (in this process or in a ray actor)."""

    def __init__(self, game: PublicGame | str, exact_iterations: int) -> None:
        self.game = PublicGame.load(game) if isinstance(game, str) else game
        self.exact_iterations = exact_iterations
        self.makers: dict[str, Callable[[], ValueFunction]] = {}

    def maker(self, network: Path | None) -> Callable[[], ValueFunction]:
        key = str(network)
        if key not in self.makers:
            if network is None:
                from realtime.sog.values import ExactValue

                game, n = self.game, self.exact_iterations
                self.makers[key] = lambda: ExactValue(game, n)
            else:
                from realtime.sog.network import NetworkValue
                from realtime.sog.training import load_network

                net, data = load_network(network)
                trained_on = data.get("config", {}).get("game")
                if trained_on is not None and trained_on != self.game.game.name:
                    raise SoGError(f"network {str(network)!r} was trained on {trained_on!r}, not {self.game.game.name!r}")
                temperature = float(data.get("config", {}).get("prior_temperature", 1.0))
                self.makers[key] = lambda: NetworkValue(net, temperature)
        return self.makers[key]

    def run(self, job: Job) -> tuple[float, float]:
        """(exploitability in mbb/g, seconds) of one job."""
        start = time.perf_counter()
        strat = composed_policy(self.game, self.maker(job.network), job.settings, job.seed)
        return exploitability(self.game.tree, strat), time.perf_counter() - start


def run_jobs(
    game: PublicGame,
    jobs: list[Job],
    exact_iterations: int = 100,
    workers: int = 0,
    cache: SeedCache | None = None,
    progress: bool = True,
) -> list[tuple[float, float]]:
    """(mbb/g, seconds) of every job, in order: from ``cache`` where done, else computed in this
    process (``workers = 0``) or on ``workers`` ray actors (local ray), and added to ``cache``."""
    from tqdm import tqdm

    cache = cache or SeedCache(None)
    name = game.game.name
    hashes = {j.network: network_key(j.network, exact_iterations) for j in jobs}
    keys = [(name, hashes[j.network], j.settings.label, j.seed) for j in jobs]
    results: list[tuple[float, float] | None] = [cache.get(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    bar = tqdm(total=len(jobs), initial=len(jobs) - len(todo), unit="seed", desc="sog eval", disable=not progress)
    for i, (mbb, seconds) in _compute(game, [jobs[i] for i in todo], todo, exact_iterations, workers):
        results[i] = (mbb, seconds)
        cache.put(keys[i], mbb, seconds)
        bar.update(1)
        bar.set_postfix(setting=jobs[i].settings.label, seed=jobs[i].seed, mbb=f"{mbb:.1f}")
    bar.close()
    return [r for r in results if r is not None]


def _compute(
    game: PublicGame, jobs: list[Job], ids: list[int], exact_iterations: int, workers: int
) -> Iterator[tuple[int, tuple[float, float]]]:
    if not jobs:
        return
    if workers <= 0:
        local = _Evaluator(game, exact_iterations)
        for i, job in zip(ids, jobs):
            yield i, local.run(job)
        return
    from pokerbot.ray_util import start_ray

    ray = start_ray(num_cpus=workers)
    remote = ray.remote(num_cpus=1)(_RemoteEvaluator)
    actors = [remote.remote(game.game.name, exact_iterations) for _ in range(min(workers, len(jobs)))]
    pending: dict[Any, int] = {}
    queue = list(zip(ids, jobs))
    try:
        for actor in actors:
            if queue:
                i, job = queue.pop(0)
                pending[actor.run.remote(job)] = i
        owner = {ref: a for ref, a in zip(list(pending), actors)}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            i = pending.pop(ref)
            actor = owner.pop(ref)
            if queue:
                j, job = queue.pop(0)
                nxt = actor.run.remote(job)
                pending[nxt] = j
                owner[nxt] = actor
            yield i, ray.get(ref)
    finally:
        for actor in actors:
            ray.kill(actor)


class _RemoteEvaluator(_Evaluator):
    def __init__(self, game: str, exact_iterations: int) -> None:
        import torch

        torch.set_num_threads(1)
        super().__init__(game, exact_iterations)


def evaluate_table(
    game: PublicGame,
    searches: list[tuple[int, float]],
    seeds: int,
    checkpoint: Path | None = None,
    exact_iterations: int = 100,
    progress: bool = True,
    workers: int = 0,
    cache: SeedCache | None = None,
) -> list[Row]:
    """One :class:`Row` per (s, c): the exploitability of each seed's composed policy (seeds 0 .. seeds-1)."""
    settings = [SearchSettings(s, c) for s, c in searches]
    jobs = [Job(st, seed, checkpoint) for st in settings for seed in range(seeds)]
    results = run_jobs(game, jobs, exact_iterations, workers, cache, progress)
    rows = []
    for k, st in enumerate(settings):
        got = results[k * seeds : (k + 1) * seeds]
        rows.append(Row(st, [m for m, _ in got], float(np.mean([sec for _, sec in got]))))
    return rows


def _baselines(game: str, units: str) -> dict[str, float]:
    """The paper's baselines for ``game`` (in mbb/g; none for tables in other units)."""
    from realtime.sog.training import BASELINES

    return BASELINES.get(game, {}) if units == "mbb/g" else {}


def _number(units: str) -> Callable[[float], str]:
    """How a table prints an exploitability: one decimal in mbb/g, four significant digits otherwise."""
    return (lambda x: f"{x:.1f}") if units == "mbb/g" else (lambda x: f"{x:.4g}")


def write_table(rows: list[Row], out: Path, game: str, what: str, units: str = "mbb/g") -> str:
    """``eval.md`` (returned), ``eval.csv`` and ``eval.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"Exploitability of composed SoG policies on {game} ({what}; {units})", "",
             "| search | seeds | min | mean | max | s per seed |", "|---|---|---|---|---|---|"]
    f = _number(units)
    for r in rows:
        lo, mean, hi = r.summary
        lines.append(f"| {r.settings.label} | {len(r.figures)} | {f(lo)} | {f(mean)} | {f(hi)} | "
                     f"{r.seconds_per_seed:.1f} |")
    for name, value in _baselines(game, units).items():
        lines.append(f"| paper: {name} | | | {value:g} | | |")
    text = "\n".join(lines) + "\n"
    atomic_write_text(out / "eval.md", text)
    column = "mbb" if units == "mbb/g" else "exploitability"
    digits = ".4f" if units == "mbb/g" else ".6g"
    csv = [f"search,seed,{column}"] + [f"{r.settings.label},{i},{x:{digits}}" for r in rows for i, x in enumerate(r.figures)]
    atomic_write_text(out / "eval.csv", "\n".join(csv) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = np.arange(len(rows))
    means = [r.summary[1] for r in rows]
    err = np.array([[r.summary[1] - r.summary[0] for r in rows], [r.summary[2] - r.summary[1] for r in rows]])
    ax.errorbar(xs, means, yerr=err, fmt="o", capsize=4, label="mean, min-max over seeds")
    for name, value in _baselines(game, units).items():
        ax.axhline(value, linestyle="--", color="grey")
        ax.text(-0.4, value, f" {name} {value:g}", va="bottom", fontsize=8)
    ax.set_xticks(xs, [r.settings.label for r in rows])
    ax.set_yscale("log")
    ax.set_ylabel(f"exploitability ({units})")
    ax.set_title(f"{game}: {what}", fontsize=9)
    ax.legend(fontsize=8)
    save_figure(fig, out / "eval.png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return text


def snapshot_curves(
    game: PublicGame,
    run_dir: Path,
    searches: list[tuple[int, float]],
    seeds: int,
    progress: bool = True,
    workers: int = 0,
    cache: SeedCache | None = None,
) -> dict[str, list[tuple[int, float, float, float]]]:
    """Exploitability against training steps for each SoG(s, c): every ``nets/step-*.pt`` of a run.

    Returns ``{label: [(step, min, mean, max), ...]}`` and writes ``curves.csv``,
    ``curves.md`` and ``curves.png`` in ``run_dir``.
    """
    snaps = sorted((run_dir / "nets").glob("step-*.pt"))
    if not snaps:
        raise SoGError(f"no network snapshots in {str(run_dir / 'nets')!r} (a run saves one per evaluation)")
    settings = [SearchSettings(s, c) for s, c in searches]
    jobs = [Job(st, seed, snap) for st in settings for snap in snaps for seed in range(seeds)]
    results = iter(run_jobs(game, jobs, 100, workers, cache, progress))
    curves: dict[str, list[tuple[int, float, float, float]]] = {}
    for st in settings:
        curves[st.label] = []
        for snap in snaps:
            figures = [next(results)[0] for _ in range(seeds)]
            curves[st.label].append((int(snap.stem.split("-")[1]), min(figures), float(np.mean(figures)), max(figures)))
    lines = ["search,step,min_mbb,mean_mbb,max_mbb"] + [
        f"{label},{p[0]},{p[1]:.3f},{p[2]:.3f},{p[3]:.3f}" for label, pts in curves.items() for p in pts]
    atomic_write_text(run_dir / "curves.csv", "\n".join(lines) + "\n")
    atomic_write_text(run_dir / "curves.md", curves_table(curves, game.game.name, seeds))
    plot_curves(curves, run_dir / "curves.png", game.game.name, seeds)
    return curves


def curves_table(curves: dict[str, list[tuple[int, float, float, float]]], game: str, seeds: int,
                 units: str = "mbb/g") -> str:
    """Markdown: one row per (search, step) with min / mean / max, and the paper's baselines."""
    lines = [f"Exploitability of composed SoG policies on {game} against training steps ({seeds} seeds; {units})", "",
             "| search | step | min | mean | max |", "|---|---|---|---|---|"]
    f = _number(units)
    for label, pts in curves.items():
        lines += [f"| {label} | {step} | {f(lo)} | {f(mean)} | {f(hi)} |" for step, lo, mean, hi in pts]
    lines += [f"| paper: {name} | | | {value:g} | |" for name, value in _baselines(game, units).items()]
    return "\n".join(lines) + "\n"


def plot_curves(curves: dict[str, list[tuple[int, float, float, float]]], path: Path, game: str, seeds: int,
                units: str = "mbb/g") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for label, pts in curves.items():
        steps = [p[0] for p in pts]
        ax.plot(steps, [p[2] for p in pts], marker="o", label=f"{label} mean")
        ax.fill_between(steps, [p[1] for p in pts], [p[3] for p in pts], alpha=0.2)
    for name, value in _baselines(game, units).items():
        ax.axhline(value, linestyle="--", color="grey")
        ax.text(0, value, f" {name} {value:g}", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("training steps")
    ax.set_ylabel(f"exploitability ({units})")
    ax.set_title(f"{game}: composed SoG policies, min-max over {seeds} seeds", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)
