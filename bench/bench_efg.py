"""Explicit games and 1-KLSS speed: building, the sequence-form Nash LP, the ε-blueprint LP,
and nested 1-KLSS (one gadget LP per player-0 infoset), per game.

``python -m bench efg`` prints, per game, wall and CPU seconds (``time.process_time``;
on a shared machine wall time includes waiting for a core) and the number of gadget
solves. Liar's Dice and Goofspiel with random order are left out of the nested column
(minutes; ``pokerbot klss`` times them). HiGHS runs single-threaded here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from bench.pinning import one_cpu
from pokerbot.efg import games, least_exploitable, nash_equilibrium, uniform_floor
from realtime.klss.nested import nested_klss

NESTED = ("kuhn", "dark-hex", "goofspiel-increasing", "matching-pennies", "leduc")


def _timed(fn: Callable[[], object]) -> tuple[object, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    with one_cpu() as pinned:
        print(f"({pinned}; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())})")
        print(f"{'game':22s} {'build s':>8s} {'Nash LP s':>10s} {'ε-LP s':>8s} {'nested s (wall/cpu)':>20s} {'solves':>7s}")
        for name in games.GAMES:
            g, build, _ = _timed(lambda: games.load(name))
            sf = g.sequence_form  # type: ignore[attr-defined]
            _, nash, _ = _timed(lambda: nash_equilibrium(sf))
            floor = uniform_floor(sf.treeplex[0], 0.25)
            bp, eps, _ = _timed(lambda: least_exploitable(sf, 0, floor))
            nested = "-"
            solves = "-"
            if name in NESTED:
                res, wall, cpu = _timed(lambda: nested_klss(g, bp.behavioral, floor))  # type: ignore[attr-defined]
                nested = f"{wall:.1f} / {cpu:.1f}"
                solves = str(res.solves)  # type: ignore[attr-defined]
            print(f"{name:22s} {build:8.2f} {nash:10.2f} {eps:8.2f} {nested:>20s} {solves:>7s}", flush=True)


if __name__ == "__main__":
    main()
