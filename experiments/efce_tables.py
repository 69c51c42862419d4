"""Table 1 of Ling & Fang, Safe subgame resolving for EFCE (section "Experiments"), on
Battleship: the social welfare one subgame contributes under the blueprint and under the
fully safe LP refinement.

Instances: ``n`` cells in a row (``n x 1`` grid), ship ``1 x 1``, ``T`` timesteps,
subgames by the first timestep's shots (``T' = 1``, ``J = n²``); the refined subgame is
the one where both first shots were at cell 0 and missed. Every refinement is checked
exactly (:func:`realtime.efce.subgames.safety`) on the complete refinement.

>>> row = table1_row(3, 2, 2.0, seeds=())
>>> round(row.uniform.blueprint * 100, 2), round(row.uniform.refined * 100, 2), row.size
(-3.7, -3.7, 382)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.files import save_figure
from realtime.efce.battleship import grid_instance, instance, subgame_instance
from realtime.efce.plan import jittered_plan, jittered_strategy, uniform_plan, uniform_strategy
from realtime.efce.regret import (
    RegretRefinement,
    RegretState,
    WelfareSearch,
    regret_max_welfare,
    regret_refine,
    violation_lp,
)
from realtime.efce.subgames import Blueprint, Decomposition, refine, safety, subgame_welfare

#: Jitter width ``w`` (Ling & Fang, section "Experiments": w in [0, 1]; the paper does not
#: give the value used, we take 0.25).
DEFAULT_WIDTH = 0.25


@dataclass(frozen=True)
class Cell:
    """Blueprint and refined welfare of the subgame (means over seeds for Jittered),
    the worst safety violation and smallest welfare gain seen, and wall seconds per LP."""

    blueprint: float
    refined: float
    violation: float
    min_gain: float
    seconds: float
    runs: int


@dataclass(frozen=True)
class Row:
    n: int
    timesteps: int
    gamma: float
    size: int
    subgames: int
    uniform: Cell
    jittered: Cell | None
    literal: Cell | None
    build_seconds: float


def _cell(dec: Decomposition, j: int, plans: Sequence[np.ndarray], check: bool, method: str,
          cross_terms: bool = True, progress: Callable[[], None] | None = None) -> Cell:
    bps, refs, worst, gain, secs = [], [], -np.inf, np.inf, 0.0
    for plan in plans:
        bp = Blueprint.of(dec, plan)
        start = time.perf_counter()
        r = refine(dec, bp, j, cross_terms=cross_terms, method=method)
        secs += time.perf_counter() - start
        bps.append(r.blueprint_welfare)
        refs.append(r.refined_welfare)
        if check:
            s = safety(dec.space, bp, r.plan)
            worst, gain = max(worst, s.violation), min(gain, s.welfare_gain)
        if progress is not None:
            progress()
    return Cell(float(np.mean(bps)), float(np.mean(refs)), worst, gain, secs / len(plans), len(plans))


def table1_row(n: int, timesteps: int, gamma: float, seeds: Sequence[int] = tuple(range(10)),
               width: float = DEFAULT_WIDTH, check: bool = True, literal: bool = False, method: str = "highs",
               progress: Callable[[], None] | None = None) -> Row:
    """One (n, T, γ) row: Uniform, Jittered over ``seeds`` (none: skipped), and with
    ``literal`` the paper's bounds without the cross terms (unsafe; for comparison)."""
    start = time.perf_counter()
    dec, j = instance(n, timesteps, gamma)
    built = time.perf_counter() - start
    uni = [uniform_plan(dec.space)]
    uniform = _cell(dec, j, uni, check, method, progress=progress)
    jit = None
    if seeds:
        jit = _cell(dec, j, [jittered_plan(dec.space, width, s) for s in seeds], check, method, progress=progress)
    lit = _cell(dec, j, uni, check, method, cross_terms=False, progress=progress) if literal else None
    return Row(n, timesteps, gamma, dec.size(j), dec.num_subgames, uniform, jit, lit, built)


#: Table 1 as printed (units of 1e-2): (n, T, γ) -> Uniform BP, refined, Jittered BP, refined.
PAPER = {
    (3, 2, 2.0): (-3.70, -3.70, -3.55, -3.55), (3, 2, 5.0): (-14.8, -14.8, -14.2, -14.2),
    (4, 3, 2.0): (-3.13, -2.95, -3.24, -3.10), (4, 3, 5.0): (-12.5, -11.4, -13.0, -11.8),
    (5, 3, 2.0): (-1.92, -1.34, -1.95, -1.25), (5, 3, 5.0): (-7.68, -4.80, -7.82, -4.32),
    (6, 3, 2.0): (-1.23, -0.772, -1.25, -0.627), (6, 3, 5.0): (-4.94, -2.47, -4.99, -1.95),
}


def format_table(rows: Sequence[Row], load: str) -> str:
    """Markdown table: ours vs the paper's (welfare in units of 1e-2)."""

    def f(x: float) -> str:
        return f"{x * 100:.4g}"

    head = ("| n, T | \\|Ξ_j\\| | J | γ | Uniform BP | Uniform refined (paper) | Jittered BP (paper) "
            "| Jittered refined (paper) | literal (B)/(C) refined: violation | max δ* excess | LP s (U / J) |")
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        p = PAPER.get((r.n, r.timesteps, r.gamma), (np.nan,) * 4)
        u, jt, lt = r.uniform, r.jittered, r.literal
        jbp = f"{f(jt.blueprint)} ({p[2]})" if jt else "—"
        jre = f"{f(jt.refined)} ({p[3]})" if jt else "—"
        lit = f"{f(lt.refined)}: {lt.violation:.3g}" if lt else "—"
        worst = max(u.violation, jt.violation if jt else -np.inf)
        secs = f"{u.seconds:.1f} / {jt.seconds:.1f}" if jt else f"{u.seconds:.1f}"
        lines.append(f"| {r.n}, {r.timesteps} | {r.size} | {r.subgames} | {r.gamma:g} | {f(u.blueprint)} ({p[0]}) "
                     f"| {f(u.refined)} ({p[1]}) | {jbp} | {jre} | {lit} | {worst:.1e} | {secs} |")
    lines.append(f"\nload average: {load}; welfare in units of 1e-2; 'max δ* excess' = max over triggers of "
                 "δ*(refined) − max(0, δ*(blueprint)) (≤ 0: safe).")
    return "\n".join(lines)


# --- Algorithm 2 at scale (the paper's Fig. 2) ---------------------------------------------

#: Fig. 2's instances as printed: name -> (W, H, T, m, |Ξ|). Our ``T`` counts firing
#: timesteps as in Table 1 (whose |Ξ_j| we match); the printed Medium |Ξ| = 3.89M is
#: ``battleship(3, 2, 3)``'s (3,893,341 pairs), not T = 4's; the printed Large 111M is
#: ``battleship(3, 2, 4, ship=2)``'s (111,187,224 pairs, counted with ``--implicit``) (docs/efce.md).
FIG2 = {"medium": (3, 2, 4, 1, 3.89e6), "large": (3, 2, 4, 2, 111e6), "huge": (3, 2, 5, 2, 360e6)}


@dataclass(frozen=True)
class RegretRun:
    """One Algorithm 2 run on a Battleship instance: sizes, the result, build seconds
    (game, correlation space, decomposition, blueprint values) and peak RSS in MiB."""

    width: int
    height: int
    timesteps: int
    ship: int
    gamma: float
    num_pairs: int
    size: int
    subgames: int
    result: RegretRefinement
    build_seconds: float
    peak_rss_mib: float
    #: With ``check``: the exact ``max_t δ*(plan; t) − max(0, δ*(blueprint; t))`` of the
    #: average plan over all triggers (Definition 9; ≤ 0 safe).
    safety_violation: float | None = None
    #: With ``compare_lp``: the LP's saddle value ``v*`` (smallest possible pseudo-exploitability).
    lp_value: float | None = None
    lp_seconds: float | None = None
    #: With ``max_welfare_steps``: the binary search (``result`` is its best run).
    search: WelfareSearch | None = None
    #: True when only ``S0 ∪ S_j`` was stored (``implicit``); ``num_pairs`` is then counted, not stored.
    implicit: bool = False


def regret_run(width: int, height: int, timesteps: int, ship: int, gamma: float, *, iterations: int,
               record_every: int = 10, epsilon: float = 0.0, blueprint: str = "uniform", seed: int = 0,
               width_jitter: float = DEFAULT_WIDTH, welfare_floor: bool = False,
               progress: Callable[[int, float], None] | None = None, checkpoint: str | None = None,
               checkpoint_seconds: float = 30.0, check: bool = False, compare_lp: bool = False,
               max_welfare_steps: int = 0, tolerance: float = 1e-5,
               search_progress: Callable[[int, float, float, bool], None] | None = None, implicit: bool = False,
               polish: bool = False) -> RegretRun:
    """Algorithm 2 on the first subgame of a Battleship instance (``T' = 1``).
    ``blueprint``: ``"uniform"`` or ``"jittered"`` (``seed``, ``width_jitter``);
    ``welfare_floor``: also require the blueprint's welfare of the subgame (fully safe).
    ``checkpoint``: an ``.npz`` path, resumed from if it exists, written at recordings at
    most every ``checkpoint_seconds`` and at the end. ``check``: exact safety of the
    average plan; ``compare_lp``: the LP's saddle value (:func:`violation_lp`).
    ``max_welfare_steps > 0``: binary search for the highest welfare floor met within
    ``tolerance`` (:func:`regret_max_welfare`, ``iterations`` per step; no checkpoint).
    ``implicit``: store only ``S0 ∪ S_j`` and take the product blueprint's values from
    passes over the game (:func:`realtime.efce.battleship.subgame_instance`,
    :meth:`Blueprint.of_product`); ``check`` then does nothing (it reads every pair).
    ``polish``: make the final plan exactly safe (:func:`realtime.efce.regret.polish_plan`)."""
    import os
    import resource

    start = time.perf_counter()
    if implicit:
        dec, j = subgame_instance(width, height, timesteps, ship, gamma)
        tps = dec.space.treeplex
        if blueprint == "uniform":
            x0, x1 = uniform_strategy(tps[0]), uniform_strategy(tps[1])
        else:  # the draws of jittered_plan
            rng = np.random.default_rng(seed)
            x0 = jittered_strategy(tps[0], width_jitter, rng)
            x1 = jittered_strategy(tps[1], width_jitter, rng)
        bp = Blueprint.of_product(dec, x0, x1)
        check = False
    else:
        dec, j = grid_instance(width, height, timesteps, ship, gamma)
        plan = uniform_plan(dec.space) if blueprint == "uniform" else jittered_plan(dec.space, width_jitter, seed)
        bp = Blueprint.of(dec, plan)
    built = time.perf_counter() - start
    floor = subgame_welfare(dec, bp.plan, j) if welfare_floor else None
    key = f"{width}x{height}-T{timesteps}-m{ship}-g{gamma:g}-{blueprint}-{seed}-{width_jitter:g}-floor{welfare_floor}"
    state = RegretState.load(checkpoint, key) if checkpoint and os.path.exists(checkpoint) else None
    last = [time.perf_counter()]

    def save(st: RegretState) -> None:
        if checkpoint and time.perf_counter() - last[0] >= checkpoint_seconds:
            st.save(checkpoint, key)
            last[0] = time.perf_counter()

    search = None
    if max_welfare_steps > 0:
        search = regret_max_welfare(dec, bp, j, steps=max_welfare_steps, iterations=iterations, tolerance=tolerance,
                                    record_every=record_every, progress=search_progress)
        res = search.best
        floor = search.floor
    else:
        res = regret_refine(dec, bp, j, iterations=iterations, record_every=record_every, epsilon=epsilon,
                            welfare_floor=floor, progress=progress, state=state, checkpoint=save, polish=polish)
    if checkpoint and search is None:
        res.state.save(checkpoint, key)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    violation = safety(dec.space, bp, res.plan).violation if check else None
    lp_value, lp_seconds = None, None
    if compare_lp:
        t0 = time.perf_counter()
        lp_value = violation_lp(dec, bp, j, welfare_floor=floor)
        lp_seconds = time.perf_counter() - t0
    return RegretRun(width, height, timesteps, ship, gamma, dec.space.total_pairs(), dec.size(j), dec.num_subgames,
                     res, built, rss, violation, lp_value, lp_seconds, search, implicit)


def plot_curve(run: RegretRun, path: str, load: str) -> None:
    """Pseudo-exploitability of the average plan against iterations (log-log where
    positive; the paper's Fig. 2, left) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = run.result
    fig, ax = plt.subplots(figsize=(6, 4))
    pos = r.pseudo_exploitability > 0
    ax.loglog(r.recorded[pos], r.pseudo_exploitability[pos], label="pseudo-exploitability (average plan)")
    ax.loglog(r.recorded, np.maximum(r.gap, 1e-16), "--", label="saddle-point gap")
    ax.set_xlabel("iteration")
    ax.set_ylabel("largest constraint violation")
    ax.set_title(f"Battleship {run.width}x{run.height}, T={run.timesteps}, m={run.ship}, γ={run.gamma:g}: "
                 f"|Ξ| = {run.num_pairs:,}, |Ξ_j| = {run.size:,}", fontsize=9)
    ax.text(0.02, 0.02, f"{r.seconds_per_iteration * 1e3:.1f} ms/iteration, peak RSS {run.peak_rss_mib:.0f} MiB, "
            f"load {load}", transform=ax.transAxes, fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
