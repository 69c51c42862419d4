"""ray workers sharing one MCCFR run.

The run advances in *epochs*: every worker starts from the same snapshot of the
regret and strategy-sum arrays, runs ``sync_every`` iterations with its own
random streams, and returns its changes; the driver adds them up in worker
order, applies the regret floor and the linear discounting of the intervals the
epoch crossed, and starts the next epoch. Strategy sums add up; regret changes
are *averaged*: the merged regrets are the mean of the workers' end states, so
their positive part keeps regret matching's bound. (Summing them instead lets
every worker climb back from the same negative regret and the sum overshoots:
on Leduc, two workers summing reached NashConv 0.12 after 400k iterations where
one process reaches 0.037; averaging reached 0.030-0.036 for 1k-50k iterations
between merges.) A worker's streams depend only on (seed, the epoch's first
iteration, worker), so a distributed run is reproducible and resumes exactly
from a checkpoint taken between epochs. Epochs are cut short where the run must
stop (its ``iterations``, each ``checkpoint_every``), so both are met exactly.
Local ray by default; ``ray_address`` joins a cluster (the workers must be able
to import this package there).

What moves per epoch: the driver puts the snapshot into ray's object store
once, as one object (both arrays); every node that runs workers pulls it once
and its workers read it from shared memory without a copy, each copying it only
into its own writable arrays, which it keeps between epochs (no allocation per
epoch). Each worker returns its two change arrays (the arrays' dtype: float32 in
the HUNL configs); the driver reads them zero-copy from its node's store. The
snapshot cannot shrink to "what changed": the merged state depends on every
worker's changes in every slot they visited, and bit-identical results need the
workers to start from exactly the driver's arrays. :class:`EpochStats` records
each epoch's timings and bytes (``trainer._ray["stats"]``, :func:`epoch_stats`).

Footprint on a small machine: a local ray of ``workers`` CPUs, no dashboard
(:func:`pokerbot.ray_util.start_ray`); starting ray takes several seconds.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from blueprint.mccfr import merge_compact, scale_rounded, seed_state

if TYPE_CHECKING:
    from blueprint.trainer import Trainer

#: Epochs whose :class:`EpochStats` a run keeps (the newest).
STATS_KEPT = 1_000


@dataclasses.dataclass(frozen=True)
class WorkerEpoch:
    """One worker's share of an epoch, measured in the worker."""

    worker: int
    node_id: str          # ray node id (hex) of the worker's node
    pid: int
    iterations: int
    copy_in: float        # seconds: the snapshot copied into the worker's own arrays
    compute: float        # seconds: the MCCFR iterations
    delta: float          # seconds: its changes (end state minus snapshot)
    peak_rss: int         # bytes: the worker process's peak resident set so far (Linux VmHWM; 0 if unknown)
    rss_private: int      # bytes: its private (anonymous) resident memory now (Linux RssAnon; 0 if unknown)


@dataclasses.dataclass(frozen=True)
class EpochStats:
    """One epoch as the driver saw it. ``put + wait + get + merge`` is about the epoch's wall time ``total``;
    ``wait`` holds the slowest worker's own time (:attr:`compute`) plus :attr:`dispatch`."""

    first_iteration: int
    iterations: int
    put: float            # seconds: the snapshot into the object store
    wait: float           # seconds: from submitting the tasks until every result is ready
    get: float            # seconds: the results fetched to the driver and deserialised
    merge: float          # seconds: sums, mean, floor, discounting
    total: float          # seconds: the whole epoch
    bytes_put: int        # the snapshot (both arrays)
    bytes_returned: int   # every worker's change arrays
    bytes_between_nodes: int  # what had to cross to or from another node than the driver's (0 on one node)
    driver_node_id: str
    workers: tuple[WorkerEpoch, ...]

    @property
    def compute(self) -> float:
        """The slowest worker's compute seconds: the part of the epoch that more workers do not shorten."""
        return max((w.compute for w in self.workers), default=0.0)

    @property
    def dispatch(self) -> float:
        """Seconds of ``wait`` outside the slowest worker's own time: scheduling, the snapshot pulled to other
        nodes, the results serialised into the object store."""
        slowest = max((w.copy_in + w.compute + w.delta for w in self.workers), default=0.0)
        return max(0.0, self.wait - slowest)

    @property
    def overhead(self) -> float:
        """Seconds of the epoch not spent in the slowest worker's iterations."""
        return max(0.0, self.total - self.compute)


def process_memory() -> tuple[int, int]:
    """(peak resident set, private resident set now) of this process in bytes, from /proc (Linux)."""
    peak = anon = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
                elif line.startswith("RssAnon:"):
                    anon = int(line.split()[1]) * 1024
    except OSError:
        import resource

        peak = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    return peak, anon


class _WorkerImpl:
    """One worker: its own copy of the tree and card abstraction, and its own regret and strategy-sum arrays,
    kept between epochs."""

    def __init__(self, config: dict[str, Any], index: int = 0) -> None:
        from blueprint.config import BlueprintConfig
        from blueprint.trainer import Trainer

        cfg = BlueprintConfig(**config)
        # discounting happens in the driver, between epochs
        self.trainer = Trainer(cfg.replace(discount_every=0, workers=1), directory=None)
        self.index = index
        self.pid = os.getpid()
        try:
            import ray

            self.node_id = str(ray.get_runtime_context().get_node_id())
        except Exception:  # not in a ray worker (tests call this class directly)
            self.node_id = ""

    def run(self, snapshot: tuple[np.ndarray, np.ndarray, np.ndarray], t0: int, count: int,
            stream: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, WorkerEpoch]:
        regret, ssum, sexp = snapshot  # read-only views of the object store's shared memory
        t = self.trainer
        c0 = time.perf_counter()
        np.copyto(t.regret, regret)
        np.copyto(t.ssum, ssum)
        np.copyto(t.sexp, sexp)
        t.deal_rng = seed_state(t.config.seed, 2 + 2 * stream)
        t.trav_rng = seed_state(t.config.seed, 3 + 2 * stream)
        t.iteration = t0
        c1 = time.perf_counter()
        t.step(count)
        c2 = time.perf_counter()
        if not t.compact:  # float storage returns its changes; compact its end state (16-bit sums do not subtract)
            t.regret -= regret
            t.ssum -= ssum
        c3 = time.perf_counter()
        peak, anon = process_memory()
        info = WorkerEpoch(self.index, self.node_id, self.pid, count, c1 - c0, c2 - c1, c3 - c2, peak, anon)
        # ray serialises the returned arrays before this actor runs its next task, so they are reused safely
        return t.regret, t.ssum, t.sexp, info


def _start(trainer: Trainer) -> dict[str, Any]:
    from pokerbot.ray_util import start_ray

    cfg = trainer.config
    # the store holds an epoch's snapshot and every worker's returned arrays at once: sized for them (with room
    # for the previous epoch's, freed lazily), so large trees do not spill to disk; ray's default is 30% of memory
    from pokerbot.resources import available_memory

    snapshot = trainer.regret.nbytes + trainer.ssum.nbytes + trainer.sexp.nbytes
    want = int(2 * (1 + cfg.workers) * snapshot)
    store = want if want > 0.3 * available_memory() and want < 0.6 * available_memory() else None
    ray = start_ray(cfg.ray_address, cfg.workers, object_store_bytes=store)
    # Locally the workers reserve no CPU, so several runs in one process never wait on each other
    # for ray's CPU slots (the run itself decides how many workers it starts); on a cluster each
    # takes one CPU and they are spread over the nodes.
    if cfg.ray_address:
        remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(_WorkerImpl)
    else:
        remote = ray.remote(num_cpus=0)(_WorkerImpl)
    config = dataclasses.asdict(cfg)
    workers = [remote.remote(config, i) for i in range(cfg.workers)]
    try:
        driver_node = str(ray.get_runtime_context().get_node_id())
    except Exception:
        driver_node = ""
    return {"ray": ray, "workers": workers, "acc": np.zeros_like(trainer.regret), "driver_node": driver_node,
            "stats": collections.deque(maxlen=STATS_KEPT)}


def array_copies(workers: int) -> float:
    """Copies of a run's regret and strategy-sum arrays held on one machine by a local run of ``workers``: the
    driver's, the snapshot in the object store, the driver's merge buffer (half a copy: the regrets), and per
    worker its working copy and its returned arrays in the object store (the driver reads them in place)."""
    return 2.5 + 2.0 * workers


def epoch_size(trainer: Trainer) -> int:
    """Iterations of a whole epoch: ``workers x sync_every``."""
    return trainer.config.workers * trainer.config.sync_every


def epoch_stats(trainer: Trainer) -> list[EpochStats]:
    """The run's epochs so far in this process (the newest :data:`STATS_KEPT`), oldest first."""
    return [] if trainer._ray is None else list(trainer._ray["stats"])


def discounts(every: int, until: int, t0: int, t1: int) -> list[float]:
    """The linear-discounting factors ``k / (k + 1)`` of every ``every``-iteration interval that ends in
    ``(t0, t1]`` and no later than ``until`` (none when ``every`` is 0).

    >>> discounts(10, 25, 5, 40)
    [0.5, 0.6666666666666666]
    """
    if every <= 0:
        return []
    return [k / (k + 1.0) for k in range(t0 // every + 1, t1 // every + 1) if k * every <= until]


def merge(regret: np.ndarray, ssum: np.ndarray, changes: list[tuple[np.ndarray, np.ndarray]], workers: int,
          floor: float, discount_every: int, discount_until: int, t0: int, t1: int,
          acc: np.ndarray | None = None) -> None:
    """The driver's merge, in place: ``ssum`` plus every worker's strategy-sum changes, ``regret`` plus the mean
    (over ``workers``) of their regret changes, floored at ``floor``, then the linear discounting of every
    ``discount_every`` interval that ``[t0, t1)`` crossed up to ``discount_until``. ``acc``: scratch space of
    ``regret``'s shape and dtype (allocated if None). Sums run in worker order: the result is deterministic."""
    d_regret = np.zeros_like(regret) if acc is None else acc
    d_regret.fill(0)
    for r, s in changes:
        d_regret += r
        ssum += s
    d_regret /= workers
    regret += d_regret  # the mean of the workers' regret changes (see the module docstring)
    np.maximum(regret, floor, out=regret)
    for d in discounts(discount_every, discount_until, t0, t1):
        regret *= d
        ssum *= d


def merge_compact_run(trainer: Trainer, snapshot: tuple[np.ndarray, np.ndarray, np.ndarray],
                      ends: list[tuple[np.ndarray, np.ndarray, np.ndarray]], t0: int, t1: int) -> None:
    """The driver's merge for compact storage (:func:`blueprint.mccfr.merge_compact`): every worker's end state
    against the epoch's ``snapshot``, in worker order, then the discounting ``[t0, t1)`` crossed."""
    cfg = trainer.config
    tree = trainer.tree
    s_regret, s_ssum, s_sexp = snapshot
    floor = cfg.regret_floor * cfg.regret_scale
    for x_regret, x_ssum, x_sexp in ends:
        merge_compact(trainer.regret, trainer.ssum, trainer.sexp, s_regret, s_ssum, s_sexp, x_regret, x_ssum, x_sexp,
                      1.0 / len(ends), floor, tree.base, tree.kind, tree.round, tree.num_actions,
                      np.array(tree.num_buckets, dtype=np.int64), trainer._ibase)
    for d in discounts(cfg.discount_every, cfg.discount_until, t0, t1):
        scale_rounded(trainer.regret, d)
        scale_rounded(trainer.ssum, d)


def run_epoch(trainer: Trainer, count: int | None = None) -> int:
    """One epoch of ``count`` iterations (default and most: ``workers x sync_every``), split as evenly as can be
    between the workers; returns the iterations done. A run's last epoch, and the one before each checkpoint,
    may be short, so that ``iterations`` and ``checkpoint_every`` are met exactly."""
    if trainer._ray is None:
        trainer._ray = _start(trainer)
    state = trainer._ray
    ray = state["ray"]
    workers = state["workers"]
    cfg = trainer.config
    w_n = len(workers)
    count = epoch_size(trainer) if count is None else min(int(count), epoch_size(trainer))
    if count < 1:
        return 0
    shares = [count // w_n + (1 if i < count % w_n else 0) for i in range(w_n)]
    t0 = trainer.iteration
    e0 = time.perf_counter()
    # one object, pulled once per node, read zero-copy there
    snapshot = ray.put((trainer.regret, trainer.ssum, trainer.sexp))
    e1 = time.perf_counter()
    # streams unique to (epoch start, worker): t0 grows with every epoch, whole or short
    futures = [w.run.remote(snapshot, t0, shares[i], t0 * w_n + i) for i, w in enumerate(workers) if shares[i]]
    ray.wait(futures, num_returns=len(futures), fetch_local=False)
    e2 = time.perf_counter()
    results = ray.get(futures)
    e3 = time.perf_counter()
    t1 = t0 + count
    if trainer.compact:
        merge_compact_run(trainer, ray.get(snapshot), [(r, s, x) for r, s, x, _ in results], t0, t1)
    else:
        merge(trainer.regret, trainer.ssum, [(r, s) for r, s, _, _ in results], w_n, cfg.regret_floor,
              cfg.discount_every, cfg.discount_until, t0, t1, state["acc"])
    trainer.iteration = t1
    e4 = time.perf_counter()
    infos = tuple(info for _, _, _, info in results)
    put_bytes = trainer.regret.nbytes + trainer.ssum.nbytes + trainer.sexp.nbytes
    returned = [r.nbytes + s.nbytes + x.nbytes for r, s, x, _ in results]
    driver = state["driver_node"]
    remote_nodes = {i.node_id for i in infos if i.node_id != driver}
    between = put_bytes * len(remote_nodes) + sum(b for b, i in zip(returned, infos) if i.node_id != driver)
    state["stats"].append(EpochStats(t0, count, e1 - e0, e2 - e1, e3 - e2, e4 - e3, e4 - e0, put_bytes,
                                     sum(returned), between, driver, infos))
    return t1 - t0


def shutdown(trainer: Trainer) -> None:
    """Stop the run's workers (ray itself stays up for the rest of the process)."""
    if trainer._ray is None:
        return
    ray = trainer._ray["ray"]
    for w in trainer._ray["workers"]:
        ray.kill(w)
    trainer._ray = None
