"""Pin the benchmark process to one CPU while it measures single-core figures."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def one_cpu() -> Iterator[str]:
    """Run the block on one CPU (the highest-numbered one allowed), then restore the affinity.

    Yields a short description ("pinned to CPU 1" or "not pinned" where the OS
    does not allow it), for the benchmark's report.
    """
    try:
        allowed = os.sched_getaffinity(0)
        cpu = max(allowed)
        os.sched_setaffinity(0, {cpu})
    except (AttributeError, OSError):
        yield "not pinned"
        return
    try:
        yield f"pinned to CPU {cpu}"
    finally:
        os.sched_setaffinity(0, allowed)
