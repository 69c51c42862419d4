"""Table 1 of Ling & Fang on Battleship (reading notes §4.5): the social welfare one
subgame contributes under the blueprint and under the fully safe LP refinement.

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

from pokerbot.efg.battleship import battleship, first_shot_subgame_key
from realtime.efce.plan import CorrelationSpace, jittered_plan, uniform_plan
from realtime.efce.subgames import Blueprint, Decomposition, node_subgames, refine, safety

#: Jitter width ``w`` (the paper does not state its value; reading notes §4.5).
DEFAULT_WIDTH = 0.25
#: The refined subgame: both first shots at cell 0.
FIRST_SUBGAME = ("s0", "s0")


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


def instance(n: int, timesteps: int, gamma: float) -> tuple[Decomposition, int]:
    """The decomposition of the ``n x 1`` instance and the index of :data:`FIRST_SUBGAME`."""
    g = battleship(n, 1, timesteps, gamma=gamma)
    space = CorrelationSpace.of(g)
    ids, keys = node_subgames(space, lambda h: first_shot_subgame_key(g, h))
    return Decomposition.of(space, ids), keys.index(FIRST_SUBGAME)


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
