"""Measurements of general Student of Games: the paper's exploitability protocol on any game of
:mod:`realtime.sog.fog` (min / mean / max over seeds, a table and a figure), exploitability
against training steps (its Figure 3 shape), and matches against an exact minimax player in
perfect-information games.

Tables, CSVs and figures are written by the same functions as the poker evaluation
(:func:`realtime.sog.evaluate.write_table`, :func:`~realtime.sog.evaluate.curves_table`,
:func:`~realtime.sog.evaluate.plot_curves`), in the game's payoff units.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pokerbot.files import atomic_write_text
from realtime.sog.evaluate import Row, curves_table, plot_curves, write_table
from realtime.sog.fog import PublicStates
from realtime.sog.fog_resolve import composed_exploitability, play_minimax
from realtime.sog.fog_search import ExactValue, FogValueFunction
from realtime.sog.resolve import SearchSettings
from realtime.sog.search import SoGError

UNITS = "game units"


def value_factory(ps: PublicStates, checkpoint: Path | None, exact_iterations: int = 200) -> Callable[[], FogValueFunction]:
    """A maker of the leaf value function: the network of ``checkpoint``, or exact subgame solving."""
    if checkpoint is None:
        return lambda: ExactValue(ps, exact_iterations)
    from realtime.sog.fog_network import FogNetworkValue, input_size
    from realtime.sog.fog_training import load_checkpoint

    net, ck = load_checkpoint(checkpoint)
    if ck.get("game") != ps.name or net.input_size != input_size(ps):
        raise SoGError(f"{checkpoint}: a network for game {ck.get('game')!r}, not {ps.name!r}")
    return lambda: FogNetworkValue(net)


def _progress(done: int, total: int, start: float, what: str, show: bool) -> None:
    if show:
        print(f"\r{what}: {done}/{total} seeds, {time.perf_counter() - start:.0f} s", end="", file=sys.stderr, flush=True)


def evaluate(ps: PublicStates, settings: list[SearchSettings], seeds: int, out: Path, checkpoint: Path | None = None,
             exact_iterations: int = 200, progress: bool = False) -> str:
    """The protocol's table (``eval.md``, ``eval.csv``, ``eval.png`` in ``out``); returns the markdown.
    Every seed's figure is kept in ``out/seeds.csv`` as it is computed (keyed by search, value
    function and seed), so an interrupted or extended evaluation recomputes nothing."""
    out.mkdir(parents=True, exist_ok=True)
    make = value_factory(ps, checkpoint, exact_iterations)
    what = f"network {checkpoint}" if checkpoint else f"exact value function, {exact_iterations} CFR+ iterations"
    key = f"{ps.name}:{checkpoint.resolve() if checkpoint else f'exact-{exact_iterations}'}".replace(",", "_")
    cache_path = out / "seeds.csv"
    cache = _read_cache(cache_path)
    rows = []
    start = time.perf_counter()
    for i, st in enumerate(settings):
        t0 = time.perf_counter()
        rows.append(Row(st, _seed_figures(ps, st, seeds, key, make, cache, cache_path), (time.perf_counter() - t0) / seeds))
        _progress((i + 1) * seeds, len(settings) * seeds, start, ps.name, progress)
    if progress:
        print(file=sys.stderr)
    return write_table(rows, out, ps.name, what, units=UNITS)


def _read_cache(path: Path) -> dict[tuple[str, str, int], float]:
    """Per-seed figures kept by earlier runs: ``(search, value function, seed) -> exploitability``."""
    out: dict[tuple[str, str, int], float] = {}
    if path.is_file():
        for line in path.read_text().splitlines()[1:]:
            label, what, seed, value = line.rsplit(",", 3)
            out[(label, what, int(seed))] = float(value)
    return out


def _seed_figures(ps: PublicStates, st: SearchSettings, seeds: int, what: str,
                  make_value_fn: Callable[[], FogValueFunction], cache: dict[tuple[str, str, int], float],
                  cache_path: Path) -> list[float]:
    """The protocol's figure of each seed, from ``cache`` where present (new ones are added and saved)."""
    figures = []
    for seed in range(seeds):
        key = (st.label, what, seed)
        if key not in cache:
            cache[key] = composed_exploitability(ps, make_value_fn, st, seed)
            lines = ["search,value_function,seed,exploitability"] + [
                f"{a},{b},{c},{v!r}" for (a, b, c), v in sorted(cache.items())]
            atomic_write_text(cache_path, "\n".join(lines) + "\n")
        figures.append(cache[key])
    return figures


def steps_curve(ps: PublicStates, run_dir: Path, settings: list[SearchSettings], seeds: int, progress: bool = False,
                steps: list[int] | None = None) -> dict[str, list[tuple[int, float, float, float]]]:
    """Exploitability against training steps: the ``step-*.pt`` checkpoints of a run (all, or those of
    ``steps``) under every SoG(s, c); writes ``curves.csv``, ``curves.md`` and ``curves.png`` in
    ``run_dir``. Every seed's figure is kept in ``run_dir/seeds.csv`` as it is computed, so an
    interrupted or extended evaluation recomputes nothing."""
    snaps = sorted(run_dir.glob("step-*.pt"), key=lambda p: int(p.stem.split("-")[1]))
    if steps is not None:
        snaps = [p for p in snaps if int(p.stem.split("-")[1]) in set(steps)]
    if not snaps:
        raise SoGError(f"no checkpoints step-*.pt in {str(run_dir)!r}" + (f" for steps {steps}" if steps else ""))
    cache_path = run_dir / "seeds.csv"
    cache = _read_cache(cache_path)
    curves: dict[str, list[tuple[int, float, float, float]]] = {}
    for st in settings:
        curves[st.label] = []
        for snap in snaps:
            step = int(snap.stem.split("-")[1])
            figures = _seed_figures(ps, st, seeds, str(step), value_factory(ps, snap), cache, cache_path)
            curves[st.label].append((step, min(figures), float(np.mean(figures)), max(figures)))
            if progress:
                print(f"{st.label} {snap.name}: mean {np.mean(figures):.4g}", file=sys.stderr, flush=True)
    lines = ["search,step,min,mean,max"] + [f"{label},{p[0]},{p[1]:.6g},{p[2]:.6g},{p[3]:.6g}"
                                           for label, pts in curves.items() for p in pts]
    atomic_write_text(run_dir / "curves.csv", "\n".join(lines) + "\n")
    atomic_write_text(run_dir / "curves.md", curves_table(curves, ps.name, seeds, units=UNITS))
    plot_curves(curves, run_dir / "curves.png", ps.name, seeds, units=UNITS)
    return curves


@dataclass
class MinimaxRecord:
    """Results of the search against an exact minimax player, from the search's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def minimax_match(ps: PublicStates, minimax: np.ndarray, settings: SearchSettings, games: int,
                  make_value_fn: Callable[[], FogValueFunction]) -> MinimaxRecord:
    """``games`` games (seats alternate, the search first as player 0) against exact minimax."""
    rec = MinimaxRecord()
    start = time.perf_counter()
    value_fn = make_value_fn()
    for k in range(games):
        u = play_minimax(ps, value_fn, settings, minimax, k % 2, seed=k)
        if u > 0:
            rec.wins += 1
        elif u < 0:
            rec.losses += 1
        else:
            rec.draws += 1
    rec.seconds = time.perf_counter() - start
    return rec
