"""Depth-limited solving figures: the Modicum Fig. 1 experiment and an HUNL flop subgame.

``python -m bench depth_limited`` prints

1. an HUNL flop subgame (board Ks7h2c after ``r300c/``, pot 600, 1,176 hands per player,
   menu {0.5 pot, pot, all-in} with at most three raises, depth-limited to the end of the
   flop; leaves valued by rollouts of the ``hunl-tiny`` blueprint's bias set, K = 4 for the
   opponent, the blueprint for us): nodes, leaves, memory, rollout precomputation time and
   rollout values per second, the time of one batched evaluation of every leaf, DCFR
   iterations per second, and the time to reach 1% of the pot exploitability inside the
   depth-limited game (CPU time beside wall time);
2. with ``FIG1=1`` in the environment (slow: about 40 minutes on the loaded 2-core
   machine), the Fig. 1 table on ``nlfh-small`` (:mod:`experiments.offtree_fig1`) and a
   PNG plot written to ``$FIG1_PNG`` (default ``fig1-nlfh-small.png``).

Needs the ``hunl-tiny`` blueprint (``pokerbot demo``) and its bias set
(``pokerbot leaves build leaves-hunl-tiny``; built here if missing).
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from pokerbot.cards import parse_cards  # noqa: E402
from pokerbot.gamedef import load_game  # noqa: E402
from pokerbot.solver import PotFractionMenu, Solver, build_tree  # noqa: E402
from pokerbot.state import CALL, State, raise_to  # noqa: E402


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    w, c = _clock()
    return w - start[0], c - start[1]


def hunl_flop(rollouts: int = 3, k: int = 4, target_pct: float = 1.0) -> dict[str, float]:
    from blueprint.continuation import build_bias_set, leaves_dir, load_set
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from realtime.leaf_values import RolloutLeafEvaluator

    game = load_game("hunl")
    root = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c"))
    pot = sum(root.spent)
    tree = build_tree(game, PotFractionMenu((0.5, 1.0), True, 3), root=root, depth_limit=0)
    bp = Blueprint.load(blueprint_dir("hunl-tiny") / "blueprint.npz")
    sig = bp.tree.signature()
    directory = leaves_dir("hunl-tiny-bias")
    try:
        cs = load_set(directory, bp.tree, sig)
    except Exception:
        cs = build_bias_set(directory, "hunl-tiny-bias", bp.tree, bp.strategy, sig, k=4, factor=10.0)
    t = _clock()
    ev = RolloutLeafEvaluator(tree, bp, ([cs.strategies[0]], cs.strategies[:k]), rollouts=rollouts, seed=0)
    pre = _since(t)
    leaves = len(tree.continuation_leaves)
    print(f"HUNL flop subgame: {tree.num_nodes} nodes, {tree.num_leaves} leaves ({leaves} continuation, "
          f"{int(tree.leaf_equity.sum())} all-in equity), hands {tree.num_hands}, pot {pot}")
    n_values = leaves * rollouts * k * sum(tree.num_hands)
    print(f"rollout precomputation ({rollouts} run-outs per leaf, K = {k}): {pre[0]:.2f} s wall, {pre[1]:.2f} s CPU "
          f"-> {n_values / pre[1]:,.0f} rollout values/s (hand x option x run-out, CPU)")
    reach = np.random.default_rng(0).random((leaves, k, tree.num_hands[1]))
    ev.values(0, reach)
    reps = 20
    t = _clock()
    for _ in range(reps):
        ev.values(0, reach)
    one = _since(t)
    print(f"evaluate every continuation leaf (one batch, one player): {1000 * one[0] / reps:.2f} ms wall, "
          f"{1000 * one[1] / reps:.2f} ms CPU")
    t = _clock()
    solver = Solver(tree, "dcfr", leaves=ev)
    solver.run(1)  # equity tables of the all-in leaves, compilation
    setup = _since(t)
    print(f"first iteration (equity table of {int(tree.leaf_equity.sum())} all-in leaves, compile): "
          f"{setup[0]:.2f} s wall, {setup[1]:.2f} s CPU")
    mem = solver.memory_bytes()
    mem += ev._U.nbytes + sum(c.nbytes for c in ev._cls)
    mem += sum(v.nbytes for v in tree.equity_tables.values()) * 2
    print(f"memory: tree + 2 strategy arrays ({solver.dtype.name}) + leaf data + equity tables = {mem / 1e6:.1f} MB")
    target = target_pct / 100 * pot / game.big_blind * 1000  # mbb/g
    solve_wall = solve_cpu = 0.0
    history = []
    while True:
        t = _clock()
        solver.run(10)
        w, c = _since(t)
        solve_wall += w
        solve_cpu += c
        e = solver.exploitability()
        history.append((solver.iteration, e))
        if e <= target or solver.iteration >= 1000:
            break
    it_s = solver.iteration / solve_cpu
    print(f"DCFR: {solver.iteration} iterations to {e:.1f} mbb/g = {100 * e / 1000 * game.big_blind / pot:.2f}% of the "
          f"pot (target {target_pct}%): {solve_wall:.2f} s wall, {solve_cpu:.2f} s CPU ({it_s:.0f} it/s CPU), "
          f"exploitability checks every 10 iterations not counted")
    total_cpu = pre[1] + setup[1] + solve_cpu
    print(f"time to {target_pct}% of the pot including rollouts and equity tables: {total_cpu:.2f} s CPU")
    return {"nodes": tree.num_nodes, "cpu_to_target": total_cpu, "solve_cpu": solve_cpu}


def fig1() -> None:
    from experiments.offtree_fig1 import fig1 as run_fig1
    from experiments.offtree_fig1 import plot

    result = run_fig1(round2=("blueprint", "unsafe", "resolve", "maxmargin"))
    print(result.table())
    print(f"(value estimate {result.value:+.4f} chips; blueprint {result.blueprint_exploitability:.2f} mbb/g in its "
          f"abstraction; {result.seconds:.0f} s)")
    for k, v in result.details.items():
        print(f"  {k}: {v:.3f} mbb/g")
    path = os.environ.get("FIG1_PNG", "fig1-nlfh-small.png")
    plot(result, path)
    print(f"wrote {path}")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} (shared machine)")
    hunl_flop()
    if os.environ.get("FIG1"):
        fig1()


if __name__ == "__main__":
    main()
