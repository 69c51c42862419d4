"""Best-of-N timing for the benchmarks (the least disturbed run of a job on a shared machine)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_times(fn: Callable[[], object], repeats: int = 3) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of ``fn()`` over ``repeats`` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def best_time(fn: Callable[[], object], repeats: int = 3) -> float:
    """Best wall seconds of ``fn()`` over ``repeats`` runs."""
    return best_times(fn, repeats)[0]
