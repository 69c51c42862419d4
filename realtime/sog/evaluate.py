"""The paper's exploitability protocol as a table: min / mean / max over seeds for several SoG(s, c).

For each setting and seed, :func:`realtime.sog.resolve.composed_policy` composes
the per-public-state searches into a whole-game policy and its exact
exploitability is computed (``pokerbot.solver.exploitability``). The value
function is a trained CVPN (a training checkpoint) or, for verification, the
exact subgame solver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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


def evaluate_table(
    game: PublicGame,
    searches: list[tuple[int, float]],
    seeds: int,
    checkpoint: Path | None = None,
    exact_iterations: int = 100,
    progress: bool = True,
) -> list[Row]:
    """One :class:`Row` per (s, c): the exploitability of each seed's composed policy."""
    from collections.abc import Callable

    from tqdm import tqdm

    make: Callable[[], ValueFunction]
    if checkpoint is not None:
        from realtime.sog.network import NetworkValue
        from realtime.sog.training import load_network

        net, data = load_network(checkpoint)
        trained_on = data.get("config", {}).get("game")
        if trained_on is not None and trained_on != game.game.name:
            raise SoGError(f"checkpoint was trained on {trained_on!r}, not {game.game.name!r}")
        temperature = float(data.get("config", {}).get("prior_temperature", 1.0))
        make = lambda: NetworkValue(net, temperature)  # noqa: E731
    else:
        from realtime.sog.values import ExactValue

        make = lambda: ExactValue(game, exact_iterations)  # noqa: E731
    rows = []
    bar = tqdm(total=len(searches) * seeds, unit="seed", desc="sog eval", disable=not progress)
    for s, c in searches:
        settings = SearchSettings(s, c)
        figures = []
        start = time.perf_counter()
        for seed in range(seeds):
            figures.append(exploitability(game.tree, composed_policy(game, make, settings, seed)))
            bar.update(1)
            bar.set_postfix(setting=settings.label, mbb=f"{figures[-1]:.1f}")
        rows.append(Row(settings, figures, (time.perf_counter() - start) / seeds))
    bar.close()
    return rows


def write_table(rows: list[Row], out: Path, game: str, what: str) -> str:
    """``eval.md`` (returned), ``eval.csv`` and ``eval.png`` in ``out``."""
    from realtime.sog.training import BASELINES

    out.mkdir(parents=True, exist_ok=True)
    n = len(rows[0].figures) if rows else 0
    lines = [f"Exploitability of composed SoG policies on {game} ({what}; {n} seeds; mbb/g)", "",
             "| search | min | mean | max | s per seed |", "|---|---|---|---|---|"]
    for r in rows:
        lo, mean, hi = r.summary
        lines.append(f"| {r.settings.label} | {lo:.1f} | {mean:.1f} | {hi:.1f} | {r.seconds_per_seed:.1f} |")
    for name, value in BASELINES.get(game, {}).items():
        lines.append(f"| paper: {name} | | {value:g} | | |")
    text = "\n".join(lines) + "\n"
    (out / "eval.md").write_text(text)
    csv = ["search,seed,mbb"] + [f"{r.settings.label},{i},{x:.4f}" for r in rows for i, x in enumerate(r.figures)]
    (out / "eval.csv").write_text("\n".join(csv) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = np.arange(len(rows))
    means = [r.summary[1] for r in rows]
    err = np.array([[r.summary[1] - r.summary[0] for r in rows], [r.summary[2] - r.summary[1] for r in rows]])
    ax.errorbar(xs, means, yerr=err, fmt="o", capsize=4, label="mean, min-max over seeds")
    for name, value in BASELINES.get(game, {}).items():
        ax.axhline(value, linestyle="--", color="grey")
        ax.text(-0.4, value, f" {name} {value:g}", va="bottom", fontsize=8)
    ax.set_xticks(xs, [r.settings.label for r in rows])
    ax.set_yscale("log")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title(f"{game}: {what}", fontsize=9)
    ax.legend(fontsize=8)
    fig.savefig(out / "eval.png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return text


def snapshot_curves(
    game: PublicGame, run_dir: Path, searches: list[tuple[int, float]], seeds: int, progress: bool = True
) -> dict[str, list[tuple[int, float, float, float]]]:
    """Exploitability against training steps for each SoG(s, c): every ``nets/step-*.pt`` of a run.

    Returns ``{label: [(step, min, mean, max), ...]}`` and writes ``curves.csv`` and ``curves.png``
    in ``run_dir``.
    """
    snaps = sorted((run_dir / "nets").glob("step-*.pt"))
    if not snaps:
        raise SoGError(f"no network snapshots in {str(run_dir / 'nets')!r} (a run saves one per evaluation)")
    curves: dict[str, list[tuple[int, float, float, float]]] = {}
    for s, c in searches:
        label = SearchSettings(s, c).label
        curves[label] = []
        for snap in snaps:
            step = int(snap.stem.split("-")[1])
            row = evaluate_table(game, [(s, c)], seeds, snap, progress=progress)[0]
            lo, mean, hi = row.summary
            curves[label].append((step, lo, mean, hi))
    lines = ["search,step,min_mbb,mean_mbb,max_mbb"] + [
        f"{label},{p[0]},{p[1]:.3f},{p[2]:.3f},{p[3]:.3f}" for label, pts in curves.items() for p in pts]
    (run_dir / "curves.csv").write_text("\n".join(lines) + "\n")
    _plot_curves(curves, run_dir / "curves.png", game.game.name, seeds)
    return curves


def _plot_curves(curves: dict[str, list[tuple[int, float, float, float]]], path: Path, game: str, seeds: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from realtime.sog.training import BASELINES

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for label, pts in curves.items():
        steps = [p[0] for p in pts]
        ax.plot(steps, [p[2] for p in pts], marker="o", label=f"{label} mean")
        ax.fill_between(steps, [p[1] for p in pts], [p[3] for p in pts], alpha=0.2)
    for name, value in BASELINES.get(game, {}).items():
        ax.axhline(value, linestyle="--", color="grey")
        ax.text(0, value, f" {name} {value:g}", va="bottom", fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("training steps")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title(f"{game}: composed SoG policies, min-max over {seeds} seeds", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
