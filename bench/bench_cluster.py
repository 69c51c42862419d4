"""Blueprint training on a two-node ray cluster on this machine, against the same run on a local ray.

``python -m bench cluster``. Starts a ray head (``ray start --head``) and a
second node (``ray start --address``), each a separate process with one CPU,
on 127.0.0.1 with free ports and a private temp dir
(:class:`pokerbot.ray_util.LoopbackCluster`); trains ``hunl-tiny``'s tree (or
Leduc where the tiny card tables are not built) with ``ray_address`` set to the
head and 2 workers; checks that the workers ran on two different nodes; prints
the median epoch split into put / wait (the slowest worker's copy-in and compute,
and the dispatch around them) / get / merge, the bytes moved per epoch, each
worker's peak resident memory, and iterations/s; then the same on a local ray.
Stops only the processes it started (never ``ray stop``). Skips with one line
where the ``ray`` command is missing.

Environment: ``BENCH_CLUSTER_EPOCHS`` (measured epochs per run, default 5),
``BENCH_CLUSTER_SYNC`` (comma-separated ``sync_every`` values, default
``20000,100000``).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def pick_config(sync_every: int, ray_address: str) -> Any:
    """hunl-tiny's tree and settings when its card tables are built here, else Leduc; 2 workers."""
    from blueprint.config import BlueprintConfig

    try:
        from abstraction.buckets import load_abstraction

        load_abstraction("tiny", build_if_missing=False, progress=False)  # never start a long build here
        return BlueprintConfig(name="bench-cluster", game="hunl", cards="tiny", actions="tiny", dtype="float32",
                               shared_deal=True, iterations=10**12, workers=2, sync_every=sync_every,
                               ray_address=ray_address)
    except Exception:
        return BlueprintConfig(name="bench-cluster", game="leduc", iterations=10**12, workers=2,
                               sync_every=sync_every, ray_address=ray_address)


def run(cfg: Any, epochs: int) -> dict[str, Any]:
    """One warm-up epoch (starts the workers, compiles), then ``epochs`` measured ones; a summary of those."""
    from blueprint.distributed import epoch_stats
    from blueprint.trainer import Trainer

    t = Trainer(cfg, directory=None)
    t.use_ray = True
    try:
        t._advance(cfg.workers * cfg.sync_every)  # warm-up
        for _ in range(epochs):
            t._advance(cfg.workers * cfg.sync_every)
        stats = epoch_stats(t)[1:]
    finally:
        t.close()
    med = statistics.median
    last = stats[-1]
    return {
        "game": f"{cfg.game}/{cfg.cards}" if cfg.game == "hunl" else cfg.game,
        "epochs": len(stats), "sync_every": cfg.sync_every,
        "total": med(s.total for s in stats), "put": med(s.put for s in stats), "wait": med(s.wait for s in stats),
        "get": med(s.get for s in stats), "merge": med(s.merge for s in stats),
        "compute": med(s.compute for s in stats), "dispatch": med(s.dispatch for s in stats),
        "copy_in": med(max(w.copy_in for w in s.workers) for s in stats),
        "delta": med(max(w.delta for w in s.workers) for s in stats),
        "overhead": med(s.overhead for s in stats),
        "bytes_put": last.bytes_put, "bytes_returned": last.bytes_returned,
        "bytes_between_nodes": last.bytes_between_nodes,
        "rate": sum(s.iterations for s in stats) / sum(s.total for s in stats),
        "driver_node": last.driver_node_id,
        "nodes": [w.node_id for w in last.workers],
        "peak_rss": [max(s.workers[i].peak_rss for s in stats) for i in range(len(last.workers))],
        "rss_private": [w.rss_private for w in last.workers],
    }


#: Array sizes (bytes of regret + strategy sums, float32) for the transfer and merge probes: hunl-tiny's tree,
#: hunl-medium's (169/200/200/200 buckets, tiny menu: 504,777 slots) and the same menu with 2,000 buckets on
#: every post-flop round (4,997,577 slots).
SIZES = {"hunl-tiny": 35_529, "hunl-medium": 504_777, "2,000 buckets": 4_997_577}


def _private_rss() -> int:
    from blueprint.distributed import process_memory

    return process_memory()[1]


class Echo:
    """A stand-in worker without the iterations: copies the snapshot into its own arrays, returns changes of
    the same size (as a worker does)."""

    def __init__(self) -> None:
        self.arrays: dict[int, tuple[Any, Any]] = {}

    def run(self, snapshot: tuple[Any, Any]) -> tuple[Any, Any, int]:
        import numpy as np

        regret, ssum = snapshot
        if regret.size not in self.arrays:
            self.arrays[regret.size] = (np.empty_like(regret), np.empty_like(ssum))
        r, s = self.arrays[regret.size]
        np.copyto(r, regret)
        np.copyto(s, ssum)
        r -= regret
        s -= ssum
        return r, s, _private_rss()

    def memory(self) -> tuple[int, int]:
        from blueprint.distributed import process_memory

        return process_memory()


def transfer_probe(repeats: int = 3) -> dict[str, dict[str, float]]:
    """Per size: the median seconds of an epoch without iterations (put, two workers' copy-in and changes, get,
    the merge of 2 workers) with one stand-in worker on the driver's node and one on the other node; and the
    resident memory of a bare ray worker (python, numpy, ray) before any array."""
    import numpy as np
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from blueprint.distributed import merge

    driver = ray.get_runtime_context().get_node_id()
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    other = next(n for n in nodes if n != driver)
    remote = ray.remote(num_cpus=0)(Echo)
    echoes: list[Any] = [remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote()
                         for n in (driver, other)]
    out: dict[str, dict[str, float]] = {}
    try:
        bare = ray.get([echo.memory.remote() for echo in echoes])
        out["bare worker"] = {"peak_rss": float(max(b[0] for b in bare)), "rss_private": float(max(b[1] for b in bare))}
        for label, slots in SIZES.items():
            regret = np.ones(slots, dtype=np.float32)
            ssum = np.ones(slots, dtype=np.float32)
            acc = np.zeros_like(regret)
            times: dict[str, list[float]] = {"put": [], "wait": [], "get": [], "merge": []}
            for _ in range(repeats + 1):
                a = time.perf_counter()
                ref = ray.put((regret, ssum))
                b = time.perf_counter()
                futures = [echo.run.remote(ref) for echo in echoes]
                ray.wait(futures, num_returns=len(futures), fetch_local=False)
                c = time.perf_counter()
                results = ray.get(futures)
                d = time.perf_counter()
                merge(regret, ssum, [(r, s) for r, s, _ in results], 2, -1e9, 0, 0, 0, 1, acc)
                e = time.perf_counter()
                for k, v in zip(times, (b - a, c - b, d - c, e - d)):
                    times[k].append(v)
                del results, futures, ref
            out[label] = {k: statistics.median(v[1:]) for k, v in times.items()}  # the first: warm-up
            out[label]["bytes"] = float(regret.nbytes + ssum.nbytes)
    finally:
        for echo in echoes:
            ray.kill(echo)
    return out


def merge_probe(workers: tuple[int, ...] = (2, 64)) -> dict[tuple[str, int], float]:
    """Seconds of the driver's merge (:func:`blueprint.distributed.merge`) of ``workers`` workers' changes, per
    size, on this machine (one repeat: the largest is a few GB of memory traffic)."""
    import numpy as np

    from blueprint.distributed import merge

    out = {}
    for label, slots in SIZES.items():
        regret = np.ones(slots, dtype=np.float32)
        ssum = np.ones(slots, dtype=np.float32)
        acc = np.zeros_like(regret)
        pair = [(np.full(slots, 1e-3, dtype=np.float32), np.full(slots, 1e-3, dtype=np.float32)) for _ in range(2)]
        for w in workers:
            changes = [pair[i % 2] for i in range(w)]
            a = time.perf_counter()
            merge(regret, ssum, changes, w, -1e9, 0, 0, 0, 1, acc)
            out[(label, w)] = time.perf_counter() - a
    return out


def report(label: str, r: dict[str, Any]) -> None:
    ms = 1000.0
    mib = 2**20
    print(f"{label}: {r['game']}, 2 workers, sync_every {r['sync_every']:,} (median of {r['epochs']} epochs)")
    print(f"  epoch {r['total']:.3f} s = put {r['put'] * ms:.1f} ms + wait {r['wait']:.3f} s "
          f"[slowest worker: copy-in {r['copy_in'] * ms:.1f} ms, compute {r['compute']:.3f} s, "
          f"changes {r['delta'] * ms:.1f} ms; dispatch {r['dispatch'] * ms:.1f} ms] + get {r['get'] * ms:.1f} ms "
          f"+ merge {r['merge'] * ms:.1f} ms; overhead (epoch - compute) {r['overhead'] * ms:.1f} ms "
          f"= {r['overhead'] / r['total']:.1%}")
    print(f"  bytes per epoch: put {r['bytes_put']:,}, returned {r['bytes_returned']:,}, "
          f"between nodes {r['bytes_between_nodes']:,}")
    print(f"  worker peak RSS {' / '.join(f'{b / mib:.0f}' for b in r['peak_rss'])} MiB "
          f"(private now {' / '.join(f'{b / mib:.0f}' for b in r['rss_private'])} MiB); "
          f"{r['rate']:,.0f} it/s")


def main() -> None:
    from pokerbot.ray_util import LoopbackCluster

    if LoopbackCluster.ray_cli() is None:
        print("cluster: skipped (the ray command is not installed)")
        return
    import ray

    epochs = int(os.environ.get("BENCH_CLUSTER_EPOCHS", "5"))
    syncs = [int(s) for s in os.environ.get("BENCH_CLUSTER_SYNC", "20000,100000").split(",") if s.strip()]
    if ray.is_initialized():  # an earlier bench's local ray: this one must join the cluster
        ray.shutdown()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cluster = LoopbackCluster(nodes=2, cpus_per_node=1, env={"PYTHONPATH": str(ROOT)})
    t0 = time.perf_counter()
    results = []
    try:
        address = cluster.start()
        print(f"cluster: head and second node up in {time.perf_counter() - t0:.1f} s at {address} "
              f"(temp dir {cluster.temp_dir})")
        for sync in syncs:
            r = run(pick_config(sync, address), epochs)
            nodes = set(r["nodes"])
            if len(nodes) != 2:
                raise RuntimeError(f"the 2 workers ran on {len(nodes)} node(s): {r['nodes']}")
            where = ", ".join(f"worker {i} on {n[:8]}{' (driver node)' if n == r['driver_node'] else ''}"
                              for i, n in enumerate(r["nodes"]))
            report(f"cluster ({where})", r)
            results.append(r)
        probe = transfer_probe()
        bare = probe.pop("bare worker")
        print(f"bare ray worker (python, numpy, ray; no tree): peak RSS {bare['peak_rss'] / 2**20:.0f} MiB, "
              f"private {bare['rss_private'] / 2**20:.0f} MiB")
        print("epoch without iterations, 2 stand-in workers (one per node), float32 arrays (median of 3):")
        for label, p in probe.items():
            print(f"  {label:>13}: {p['bytes'] / 1e6:6.2f} MB put {p['put'] * 1000:7.1f} ms, wait "
                  f"{p['wait'] * 1000:7.1f} ms, get {p['get'] * 1000:6.1f} ms, merge {p['merge'] * 1000:6.1f} ms; "
                  f"total {sum(p[k] for k in ('put', 'wait', 'get', 'merge')) * 1000:7.1f} ms")
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()
    left = cluster.own_pids()
    print(f"cluster stopped ({len(left)} of its processes left)")
    for sync, r_cluster in zip(syncs, results):
        r = run(pick_config(sync, ""), epochs)
        report("local ray (one node)", r)
        print(f"  cluster / local: {r_cluster['rate'] / r['rate']:.2f}x it/s, epoch overhead "
              f"{r_cluster['overhead'] * 1000:.1f} ms / {r['overhead'] * 1000:.1f} ms")
    ray.shutdown()
    merged = merge_probe()
    print("driver merge (blueprint.distributed.merge, this machine): " + "; ".join(
        f"{label} x {w} workers {sec * 1000:.1f} ms" for (label, w), sec in merged.items()))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
