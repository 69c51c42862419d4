"""Starting ray: the one place every distributed job (training, data, evaluation) gets its ray from.

Local by default: a private ray on this machine with ``num_cpus`` CPUs, no dashboard, quiet (ray's
start-up lines and the workers' output stay out of the user's terminal), and the workers find this
package through the driver's ``PYTHONPATH``. With an ``address`` (``"auto"``, ``host:port``) it joins
that cluster instead, whose nodes must be able to import this package. Either way nothing happens if
ray is already running in this process (the first job to start it chose how), so jobs that run one
after another, or inside a test session, share one ray.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from types import ModuleType
from typing import Any


def start_ray(address: str = "", num_cpus: int = 1, env_vars: Mapping[str, str] | None = None) -> ModuleType:
    """The ``ray`` module, started (locally with ``num_cpus`` CPUs, at least 1) or connected to the cluster at
    ``address``, unless it already is. ``env_vars`` are set in the local workers' environment (e.g.
    ``{"NUMBA_NUM_THREADS": "1"}``) on top of ``PYTHONPATH``."""
    import ray

    if ray.is_initialized():
        return ray
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if address:
        ray.init(address=address, **quiet)
    else:
        env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), **(env_vars or {})}
        ray.init(num_cpus=max(int(num_cpus), 1), ignore_reinit_error=True, runtime_env={"env_vars": env}, **quiet)
    return ray
