"""PNG plots of evaluation results (matplotlib, no display needed).

- :func:`plot_win_rates`: mbb/g per matchup with 95% CI bars, plain and AIVAT side by side;
- :func:`plot_cumulative`: cumulative winnings (chips, and AIVAT) per hand of each matchup;
- :func:`plot_lbr`: LBR winnings per agent with 95% CI bars;
- :func:`plot_exploitability`: exploitability against iterations of training runs (log scales).

Each returns the path it wrote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from pokerbot.files import save_figure
from pokerbot.gamedef import GameDef


def _pyplot() -> ModuleType:  # matplotlib.pyplot, on the Agg backend
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_win_rates(rows: Sequence[dict[str, Any]], path: str | Path, title: str) -> Path:
    """Bars of ``mbb`` ± ``ci95`` (and ``aivat_mbb`` ± ``aivat_ci95`` where present) per row ``a`` vs ``b``."""
    plt = _pyplot()
    labels = [f"{r['a']}\nvs {r['b']}" for r in rows]
    x = np.arange(len(rows))
    has_aivat = any(not math.isnan(r.get("aivat_mbb", math.nan)) for r in rows)
    width = 0.38 if has_aivat else 0.6
    fig, ax = plt.subplots(figsize=(max(5.0, 1.4 * len(rows) + 2), 4.2))
    ax.bar(x - (width / 2 if has_aivat else 0), [r["mbb"] for r in rows], width, yerr=[r["ci95"] for r in rows],
           capsize=4, label="chips")
    if has_aivat:
        ax.bar(x + width / 2, [r["aivat_mbb"] for r in rows], width, yerr=[r["aivat_ci95"] for r in rows], capsize=4,
               label="AIVAT")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("mbb/g of A (95% CI)")
    ax.set_title(title)
    ax.legend()
    return _save(fig, plt, path)


def plot_cumulative(series: Sequence[tuple[str, np.ndarray, np.ndarray | None]], game: GameDef, path: str | Path,
                    title: str) -> Path:
    """Cumulative big blinds won by A per hand: solid the chips, dashed the AIVAT estimates."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    bb = game.big_blind
    for i, (label, chips, aivat) in enumerate(series):
        color = f"C{i % 10}"
        hands = np.arange(1, chips.size + 1)
        ax.plot(hands, np.cumsum(chips) / bb, color=color, label=label)
        if aivat is not None and np.isfinite(aivat).all():
            ax.plot(hands, np.cumsum(aivat) / bb, color=color, linestyle="--", label=f"{label} (AIVAT)")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("hand")
    ax.set_ylabel("cumulative big blinds won by A")
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _save(fig, plt, path)


def plot_lbr(rows: Sequence[dict[str, Any]], path: str | Path, title: str) -> Path:
    """LBR mbb/g ± 95% CI per agent (positive: the agent is exploited by at least that much)."""
    plt = _pyplot()
    labels = [f"{r['agent']}\n{r['actions']}, {r['hands']} h" for r in rows]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.4 * len(rows) + 2), 4.2))
    ax.bar(np.arange(len(rows)), [r["mbb"] for r in rows], 0.6, yerr=[r["ci95"] for r in rows], capsize=4,
           color="C3")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(rows)), labels, fontsize=8)
    ax.set_ylabel("LBR winnings, mbb/g (95% CI)")
    ax.set_title(title)
    return _save(fig, plt, path)


def plot_exploitability(curves: Sequence[tuple[str, Sequence[Sequence[float]]]], path: str | Path, title: str) -> Path:
    """Exploitability (mbb/g) against iterations, log-log, one line per training run."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for name, curve in curves:
        if curve:
            its, vals = zip(*curve)
            ax.plot(its, vals, marker="o", markersize=3, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title(title)
    ax.legend()
    return _save(fig, plt, path)


def plot_training_curves(curves: Sequence[tuple[str, Sequence[tuple[int, float, float]]]], path: str | Path,
                         title: str, ylabel: str = "mbb/g (95% CI)") -> Path:
    """Win rate against training iterations, one line per (run, opponent): points ``(iterations, mbb, ci95)``."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for name, points in curves:
        its, vals, cis = zip(*sorted(points))
        ax.errorbar(its, vals, yerr=cis, marker="o", markersize=4, capsize=4, label=name)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("training iterations")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _save(fig, plt, path)


def _save(fig: Any, plt: Any, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    save_figure(fig, p, dpi=110)
    plt.close(fig)
    return p
