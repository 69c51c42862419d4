"""Starting ray: the one place every distributed job (training, data, evaluation) gets its ray from.

Local by default: a private ray on this machine with ``num_cpus`` CPUs, no dashboard, quiet (ray's
start-up lines and the workers' output stay out of the user's terminal), and the workers find this
package through the driver's ``PYTHONPATH``. With an ``address`` (``"auto"``, ``host:port``) it joins
that cluster instead, whose nodes must be able to import this package. Either way nothing happens if
ray is already running in this process (the first job to start it chose how), so jobs that run one
after another, or inside a test session, share one ray.

:class:`LoopbackCluster` starts a real multi-node cluster on this machine (``ray start`` processes) for
benches and tests of the cluster path.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from types import ModuleType
from typing import Any


def start_ray(address: str = "", num_cpus: int = 1, env_vars: Mapping[str, str] | None = None,
              object_store_bytes: int | None = None) -> ModuleType:
    """The ``ray`` module, started (locally with ``num_cpus`` CPUs, at least 1) or connected to the cluster at
    ``address``, unless it already is. ``env_vars`` are set in the local workers' environment (e.g.
    ``{"NUMBA_NUM_THREADS": "1"}``) on top of ``PYTHONPATH``. ``object_store_bytes`` sizes a local ray's
    object store (ray's default, 30% of the memory, when None) so that a job moving large arrays does not
    spill them to disk."""
    import ray

    if ray.is_initialized():
        return ray
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if address:
        ray.init(address=address, **quiet)
    else:
        env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), **(env_vars or {})}
        if object_store_bytes:
            quiet["object_store_memory"] = int(object_store_bytes)
        ray.init(num_cpus=max(int(num_cpus), 1), ignore_reinit_error=True, runtime_env={"env_vars": env}, **quiet)
    return ray


def share_cores(workers: int) -> dict[str, str]:
    """Environment for ``workers`` local workers that split this machine's cores between them: each worker's
    numba kernels get ``cores // workers`` threads (at least 1), so parallel kernels in several workers do not
    run more spinning threads than there are cores (on 2 cores, two workers of 2 threads each ran several times
    slower than one).

    >>> share_cores(os.cpu_count() or 1)
    {'NUMBA_NUM_THREADS': '1'}
    """
    return {"NUMBA_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // max(1, int(workers))))}


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _same_auth_everywhere() -> None:
    """Token authentication (ray's newer versions) as ray's own driver decides it, written into this process's
    ``RAY_AUTH_MODE`` so that the nodes started from here (which inherit it) and ``ray.init`` here agree:
    ``ray start --head`` and a driver turn it on by themselves when ``~/.ray/auth_token`` exists, a
    ``ray start --address`` node only when told."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a ray without token authentication
        return
    if not maybe_enable_token_auth_if_token_available(warn_if_disabled=False):
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")


class LoopbackCluster:
    """A ray cluster of ``nodes`` nodes on this machine, for benches and tests: a head (``ray start --head``)
    and ``nodes - 1`` more (``ray start --address``), each its own ``ray start --block`` process in its own
    process group, joined through 127.0.0.1, every port chosen free, under a private temp dir (ray itself
    reports the machine's own address for a node given as 127.0.0.1, and its servers listen on every
    interface; token authentication is on where ``~/.ray/auth_token`` exists). :meth:`stop` ends those process
    groups and whatever else runs under that temp dir, and nothing else: it never calls ``ray stop``, which
    would end every ray on the machine. ``env`` is added to the nodes' environment (the workers inherit it,
    e.g. ``PYTHONPATH`` so they can import this package). A process killed outright (SIGKILL) leaves its nodes
    running: end them by the ``pbray-`` temp dir on their command lines.

    A context manager: ``with LoopbackCluster(nodes=2) as c:`` a run of ``config.replace(ray_address=c.address)``
    trains on it (``bench/bench_cluster.py``, ``tests/test_blueprint_cluster.py``).
    """

    def __init__(self, nodes: int = 2, cpus_per_node: int = 1, object_store_bytes: int = 200 * 2**20,
                 env: Mapping[str, str] | None = None, start_timeout: float = 90.0) -> None:
        self.nodes = int(nodes)
        self.cpus_per_node = int(cpus_per_node)
        self.object_store_bytes = int(object_store_bytes)
        self.env = dict(env or {})
        self.start_timeout = float(start_timeout)
        self.temp_dir = ""
        self.address = ""
        self.processes: list[Any] = []  # subprocess.Popen of each `ray start --block`
        self._auth_mode: str | None = None  # this process's RAY_AUTH_MODE before start(), put back by stop()

    @staticmethod
    def ray_cli() -> str | None:
        """The ``ray`` command next to this Python, else the one on ``PATH``; None without one."""
        import shutil
        import sys

        here = os.path.join(os.path.dirname(sys.executable), "ray")
        return here if os.access(here, os.X_OK) else shutil.which("ray")

    def _node_command(self, cli: str, head: bool, port: int) -> list[str]:
        cmd = [cli, "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", str(self.cpus_per_node),
               "--num-gpus", "0", "--object-store-memory", str(self.object_store_bytes), "--temp-dir", self.temp_dir,
               "--disable-usage-stats", "--min-worker-port", "0", "--max-worker-port", "0",
               "--node-manager-port", str(_free_port()), "--object-manager-port", str(_free_port()),
               "--dashboard-agent-listen-port", str(_free_port()), "--dashboard-agent-grpc-port", str(_free_port()),
               "--runtime-env-agent-port", str(_free_port()), "--metrics-export-port", str(_free_port())]
        if head:
            return cmd + ["--head", "--port", str(port), "--include-dashboard", "false",
                          "--dashboard-port", str(_free_port())]
        return cmd + ["--address", f"127.0.0.1:{port}", "--include-log-monitor", "false"]

    def start(self) -> str:
        """Start the nodes and wait until all have joined; returns the head's address (``127.0.0.1:port``)."""
        import subprocess
        import tempfile

        cli = self.ray_cli()
        if cli is None:
            raise RuntimeError("the ray command is not installed")
        # short: ray's unix sockets live under it and their paths must stay under 108 characters
        self.temp_dir = tempfile.mkdtemp(prefix="pbray-", dir="/tmp" if os.path.isdir("/tmp") else None)
        self._auth_mode = os.environ.get("RAY_AUTH_MODE")
        _same_auth_everywhere()
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **self.env}
        env.pop("RAY_ADDRESS", None)
        port = _free_port()
        try:
            for i in range(self.nodes):
                log = open(os.path.join(self.temp_dir, f"node{i}.log"), "wb")
                with log:
                    self.processes.append(subprocess.Popen(self._node_command(cli, i == 0, port), env=env,
                                                           stdin=subprocess.DEVNULL, stdout=log,
                                                           stderr=subprocess.STDOUT, start_new_session=True))
                if i == 0:
                    self._wait_for_nodes(port, 1)
            self._wait_for_nodes(port, self.nodes)
        except BaseException:
            self.stop()
            raise
        self.address = f"127.0.0.1:{port}"
        return self.address

    def _wait_for_nodes(self, port: int, count: int) -> None:
        """Block until ``count`` nodes are alive, as the head's GCS sees them."""
        import time

        from ray._raylet import GcsClient  # type: ignore[attr-defined]
        from ray.core.generated.gcs_pb2 import GcsNodeInfo  # type: ignore[attr-defined]

        deadline = time.monotonic() + self.start_timeout
        alive, error = 0, ""
        while True:
            for i, p in enumerate(self.processes):
                if p.poll() is not None:
                    log = os.path.join(self.temp_dir, f"node{i}.log")
                    with open(log, errors="replace") as f:
                        tail = f.read()[-2000:]
                    raise RuntimeError(f"ray node {i} exited with {p.returncode}:\n{tail}")
            try:
                client = GcsClient(address=f"127.0.0.1:{port}")
                alive = len(client.get_all_node_info(timeout=5, state_filter=GcsNodeInfo.GcsNodeState.ALIVE))
            except Exception as exc:  # the GCS is not up yet
                error = f"{type(exc).__name__}: {exc}"
            if alive >= count:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"ray cluster: {alive} of {count} nodes up after {self.start_timeout:.0f} s "
                                   f"({error})")
            time.sleep(0.5)

    def own_pids(self) -> list[int]:
        """Live processes of this cluster: whose command line names its private temp dir."""
        if not self.temp_dir:
            return []
        mine = []
        key = self.temp_dir.encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if key in f.read():
                        mine.append(int(entry))
            except OSError:
                continue
        return mine

    def stop(self, grace: float = 15.0) -> None:
        """End this cluster's processes (SIGTERM, then SIGKILL after ``grace`` seconds) and its temp dir."""
        import shutil
        import signal
        import time

        for p in self.processes:  # `ray start --block` shuts its node down on SIGTERM
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for p in self.processes:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except Exception:
                pass
        for p in self.processes:  # their process groups: the raylet, GCS, agents and workers they started
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                p.wait(5)
            except Exception:
                pass
        for pid in self.own_pids():  # anything under our temp dir that left the groups
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.processes = []
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        if self.address or self.temp_dir:
            if self._auth_mode is None:
                os.environ.pop("RAY_AUTH_MODE", None)
            else:
                os.environ["RAY_AUTH_MODE"] = self._auth_mode
        self.address = ""

    def __enter__(self) -> LoopbackCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
