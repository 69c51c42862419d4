"""What the machine has: memory and CPUs, checked before a job starts rather than discovered when it dies.

- :func:`available_memory`: bytes a new job may use (Linux's ``MemAvailable``);
  :func:`check_memory` refuses, with the estimate, a job that cannot fit.
- :func:`usable_cpus`: the CPUs this process may run on; :func:`cap_workers`
  caps a requested worker count at them with a warning (a thousand ray workers on
  two cores only exhaust memory), unless a cluster address is given, whose
  size this machine cannot know.

>>> cap_workers(1, "--workers") == 1
True
>>> check_memory(10**18, "the tree")
Traceback (most recent call last):
pokerbot.errors.PokerbotError: the tree needs about ... MiB, more than the ... MiB this machine has available
"""

from __future__ import annotations

import os
import sys

from pokerbot.errors import PokerbotError

__all__ = ["MEMORY_FRACTION", "available_memory", "cap_workers", "check_memory", "usable_cpus"]

#: The share of the available memory a job may plan to use.
MEMORY_FRACTION = 0.8


def available_memory() -> int:
    """Bytes of memory available to a new job (``MemAvailable``; the physical memory where that is unknown)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_memory(need: int, what: str, hint: str = "", limit: int | None = None) -> None:
    """Refuse (PokerbotError, naming the estimate) a job needing more than ``limit`` bytes (default
    :data:`MEMORY_FRACTION` of :func:`available_memory`)."""
    allowed = limit if limit is not None else int(MEMORY_FRACTION * available_memory())
    if need > allowed:
        raise PokerbotError(f"{what} needs about {need / 2**20:,.0f} MiB, more than the {allowed / 2**20:,.0f} MiB "
                            f"this machine has available{'; ' + hint if hint else ''}")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cap_workers(requested: int, option: str, cluster: str = "") -> int:
    """``requested`` workers, capped at :func:`usable_cpus` with a one-line warning on stderr; unchanged for a
    ray cluster (``cluster`` an address), whose size is its own."""
    most = usable_cpus()
    if cluster or requested <= most:
        return requested
    print(f"warning: {option} {requested} is more than the {most} CPUs here; using {most}", file=sys.stderr)
    return most
