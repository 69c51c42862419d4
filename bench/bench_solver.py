"""Full-tree solver speed: pokerbot.solver against OpenSpiel's C++ CFR+ in the same run.

``python -m bench solver`` prints

1. Leduc, 1,000 CFR+ iterations: this project and ``pyspiel.CFRPlusSolver``
   (OpenSpiel 2.0.2, C++, native ``leduc_poker``), both times, the ratio, and
   both exploitabilities after the run;
2. small-deck no-limit flop hold'em (``nlfh-small``) under two bet menus:
   iterations/s and memory;
3. a HUNL river subgame (board Ks9h4c7d2s after ``r300c/cr600c/cc/``, pot
   1,200, 19,400 behind) with full ranges (every one of the 1,081 hands that
   miss the board, of 1,326) and a two-size menu (half pot and pot, at most
   three raises): time of 1,000 iterations and exploitability.

The process is pinned to one CPU while measuring (where the OS allows). Each
figure gives wall time and this process's CPU time (``time.process_time``):
on a shared machine the wall time includes waiting for the core, the CPU time
does not. Figures are the best of a few repetitions.
"""

from __future__ import annotations

import os
import resource
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from bench.pinning import one_cpu  # noqa: E402
from pokerbot.cards import parse_cards  # noqa: E402
from pokerbot.gamedef import load_game  # noqa: E402
from pokerbot.solver import Solver, build_tree, pot_fraction_menu  # noqa: E402
from pokerbot.state import State  # noqa: E402

REPEATS = 3


def _timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _best(make_and_run, repeats: int = REPEATS) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = make_and_run()
        walls.append(w)
        cpus.append(c)
    return min(walls), min(cpus)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def leduc_vs_openspiel(iterations: int = 1000) -> None:
    game = load_game("leduc")
    tree = build_tree(game)
    Solver(tree, "cfr+").iterate(2)  # compile / load the numba cache outside the timing

    holder: dict[str, Solver] = {}

    def ours() -> tuple[float, float]:
        s = Solver(tree, "cfr+")
        holder["s"] = s
        return _timed(lambda: s.iterate(iterations))

    wall, cpu = _best(ours)
    ours_expl = holder["s"].exploitability()
    print(f"leduc cfr+ x{iterations}: pokerbot    {wall:8.3f} s wall {cpu:8.3f} s cpu  "
          f"({iterations / cpu:,.0f} it/s cpu); exploitability {ours_expl:.4f} mbb/g")
    try:
        import pyspiel
    except ImportError:
        print("leduc cfr+: pyspiel not installed, no OpenSpiel figure")
        return
    os_game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRPlusSolver(os_game)

    def run_os() -> None:
        for _ in range(iterations):
            solver.evaluate_and_update_policy()

    os_wall, os_cpu = _timed(run_os)  # one repetition: it takes tens of seconds
    os_expl = 1000.0 * pyspiel.nash_conv(os_game, solver.average_policy()) / 2.0
    print(f"leduc cfr+ x{iterations}: OpenSpiel   {os_wall:8.3f} s wall {os_cpu:8.3f} s cpu  "
          f"({iterations / os_cpu:,.1f} it/s cpu); exploitability {os_expl:.4f} mbb/g")
    print(f"leduc cfr+ x{iterations}: pokerbot is {os_wall / wall:.1f}x faster (wall), "
          f"{os_cpu / cpu:.1f}x (cpu); goal >= 20x")


def nlfh_small(iterations: int = 5) -> None:
    game = load_game("nlfh-small")
    for menu in (pot_fraction_menu((), True, 1), pot_fraction_menu((1.0,), True, 2)):
        w0 = time.perf_counter()
        tree = build_tree(game, menu)
        build = time.perf_counter() - w0
        s = Solver(tree, "dcfr")
        s.iterate(1)
        wall, cpu = _best(lambda: _timed(lambda: s.iterate(iterations)), 2)
        print(f"nlfh-small [{menu.spec()}]: {tree.num_nodes:,} nodes, {tree.num_slots:,} entries, "
              f"{s.memory_bytes() / 1e6:.0f} MB (tree + regrets + sums, {s.dtype.name}), built in {build:.1f} s; "
              f"{iterations / wall:.2f} it/s wall, {iterations / cpu:.2f} it/s cpu (dcfr); "
              f"exploitability after {s.iteration} its {s.exploitability():.1f} mbb/g; peak RSS {_rss_mb():.0f} MB")


def hunl_river(iterations: int = 1000) -> None:
    game = load_game("hunl")
    root = State.from_betting(game, "r300c/cr600c/cc/", board_cards=parse_cards("Ks9h4c7d2s"))
    for all_in in (False, True):
        menu = pot_fraction_menu((0.5, 1.0), all_in, 3)
        tree = build_tree(game, menu, root)
        Solver(tree, "dcfr").iterate(1)
        for algorithm in ("dcfr", "cfr+"):
            holder: dict[str, Solver] = {}

            def run() -> tuple[float, float]:
                s = Solver(tree, algorithm)
                holder["s"] = s
                return _timed(lambda: s.iterate(iterations))

            wall, cpu = _best(run)
            expl = holder["s"].exploitability()
            pct = 100.0 * expl / 1000.0 * game.big_blind / root.pot
            label = "half pot, pot" + (", all-in" if all_in else "")
            print(f"hunl river [{label}; {tree.num_nodes} nodes, {tree.num_hands[0]} hands/player, "
                  f"{holder['s'].memory_bytes() / 1e6:.1f} MB, {holder['s'].dtype.name}]: {algorithm} x{iterations} {wall:.3f} s wall "
                  f"{cpu:.3f} s cpu; exploitability {expl:.2f} mbb/g = {pct:.3f}% of the pot; goal < 2 s")


def main() -> None:
    with one_cpu():
        leduc_vs_openspiel()
        hunl_river()
        nlfh_small()


if __name__ == "__main__":
    main()
