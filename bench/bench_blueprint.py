"""Blueprint MCCFR speed: Leduc against OpenSpiel's C++ external sampling, and HUNL presets.

``python -m bench blueprint``. Leduc: this project's external-sampling MCCFR and
``pyspiel.ExternalSamplingMCCFRSolver`` each run for the same wall time in this
process pinned to one CPU (an iteration is one traversal per player, as
OpenSpiel counts it); prints iterations/s of both, the ratio and the NashConv
each reached (both measured by OpenSpiel's exact ``nash_conv``). HUNL: iterations/s
and memory of the ``tiny`` / ``default`` presets and of the slumbot2019-like
pot-size + all-in tree, and the ray speed-up from 1 to 2 workers. The machine
may be shared: rates are the best of a few repeats where noted.

Environment: ``BENCH_SECONDS`` (Leduc wall time per solver, default 20).
"""

from __future__ import annotations

import os
import time

import numpy as np


from bench.pinning import one_cpu

# --- OpenSpiel oracle: the tests' shared adapter (tests/oracles.py) -----------------------


def spiel_nash_conv(game_name: str, policy) -> float:  # type: ignore[no-untyped-def]
    """OpenSpiel's exact NashConv (chips, sum over both players) of our policy."""
    from tests.oracles import spiel_nash_conv as nash_conv

    return nash_conv(game_name, policy)


# --- benchmarks -------------------------------------------------------------------------------


def bench_leduc(seconds: float) -> dict:
    import pyspiel

    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    ours = Trainer(BlueprintConfig(name="bench-leduc", game="leduc", iterations=10**9), directory=None)
    ours.step(10)  # compile
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        ours.step(5000)
    our_time = time.perf_counter() - t0
    our_iters = ours.iteration - 10
    our_nc = spiel_nash_conv("leduc", ours.policy())

    sg = pyspiel.load_game("leduc_poker")
    solver = pyspiel.ExternalSamplingMCCFRSolver(sg, seed=1)
    rng_iters = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(200):
            solver.run_iteration()
        rng_iters += 200
    their_time = time.perf_counter() - t0
    their_nc = float(pyspiel.nash_conv(sg, solver.average_policy()))
    ours_rate, theirs_rate = our_iters / our_time, rng_iters / their_time
    print(f"Leduc ES-MCCFR, {seconds:.0f} s each, one CPU")
    print(f"  pokerbot : {our_iters:>10,} iterations  {ours_rate:>10,.0f} it/s  NashConv {our_nc:.4f}")
    print(f"  OpenSpiel: {rng_iters:>10,} iterations  {theirs_rate:>10,.0f} it/s  NashConv {their_nc:.4f}")
    print(f"  ratio    : {ours_rate / theirs_rate:.2f}x iterations/s")
    return {"ours": ours_rate, "theirs": theirs_rate, "ours_nc": our_nc, "theirs_nc": their_nc}


def bench_tree(label: str, cards: str, actions: str, iterations: int, repeats: int = 3,
               shared_deal: bool = True, dtype: str = "float32") -> None:
    from abstraction.buckets import load_abstraction
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    load_abstraction(cards, build_if_missing=False, progress=False)  # never start a long build here
    t = Trainer(BlueprintConfig(name=f"bench-{label}", game="hunl", iterations=10**12, cards=cards,
                                actions=actions, dtype=dtype, shared_deal=shared_deal), directory=None)
    t.step(10)
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        t.step(iterations)
        best = max(best, iterations / (time.perf_counter() - t0))
    d = t.describe()
    print(f"HUNL {label}: {d['decision_nodes']:,} betting nodes, {d['infosets']:,} infosets, "
          f"{d['bytes_per_infoset']} B/infoset, arrays+tree {d['memory_bytes'] / 2**20:.1f} MiB; "
          f"{best:,.0f} it/s (best of {repeats}, one process, {'shared' if shared_deal else 'one per traversal'} deal, "
          f"{dtype}); resident {_rss_mib():,.0f} MiB")


def _rss_mib() -> float:
    """This process's resident memory now (MiB): untouched pages of the zeroed arrays are not resident."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def bench_workers(cards: str, actions: str, per_worker: int = 100_000, epochs: int = 3) -> dict[int, float]:
    """iterations/s of a ray-distributed run with 1 and 2 workers (after a warm-up epoch)."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    rates: dict[int, float] = {}
    for workers in (1, 2):
        cfg = BlueprintConfig(name="bench-ray", game="hunl", iterations=10**12, cards=cards, actions=actions,
                              dtype="float32", workers=workers, sync_every=per_worker, shared_deal=True)
        t = Trainer(cfg, directory=None)
        t.use_ray = True
        try:
            t.train(t.iteration + 1, progress=False)  # start ray and the workers, one warm-up epoch
            best = 0.0
            for _ in range(epochs):
                t0 = time.perf_counter()
                done = t._advance(0)
                best = max(best, done / (time.perf_counter() - t0))
            rates[workers] = best
        finally:
            t.close()
    print(f"HUNL {actions} menu / {cards} buckets over ray: 1 worker {rates[1]:,.0f} it/s, 2 workers "
          f"{rates[2]:,.0f} it/s, speed-up {rates[2] / rates[1]:.2f}x (best epoch of {epochs}, "
          f"{per_worker:,} iterations per worker per epoch)")
    return rates


def quantized_sums(ssum: np.ndarray, tree) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The strategy sums as compact storage would hold them at best: per infoset, uint16 under the smallest
    power-of-two scale that fits (round to nearest), decoded back to floats."""
    from pokerbot.betting_tree import DECISION

    out = np.empty_like(ssum, dtype=np.float64)
    for n in np.flatnonzero(tree.kind == DECISION):
        a_n = int(tree.num_actions[n])
        for b in range(tree.num_buckets[tree.round[n]]):
            off = int(tree.base[n]) + b * a_n
            x = ssum[off: off + a_n].astype(np.float64)
            scale = 65535.0 / x.max() if x.max() > 0 else 1.0
            scale = 2.0 ** np.floor(np.log2(scale))
            out[off: off + a_n] = np.round(x * scale) / scale
    return out


def bench_storage(seeds: int = 5, iterations: int = 1_000_000) -> dict[str, list[float]]:
    """Leduc: NashConv of float64, float32 and compact runs over ``seeds`` seeds, and the strategy error of
    16-bit sums alone (a float64 run's sums quantized)."""
    from blueprint.config import BlueprintConfig
    from blueprint.mccfr import average_strategy
    from blueprint.model import export_policy
    from blueprint.trainer import Trainer

    runs: dict[str, list[float]] = {}
    for label, kw in (("float64", {}), ("float32", {"dtype": "float32"}),
                      ("compact", {"dtype": "compact", "regret_scale": 1000.0})):
        for seed in range(seeds):
            t = Trainer(BlueprintConfig(name="bench", game="leduc", iterations=10**12, seed=seed, **kw),  # type: ignore[arg-type]
                        directory=None)
            t0 = time.perf_counter()
            t.step(iterations)
            secs = time.perf_counter() - t0
            runs.setdefault(label, []).append(spiel_nash_conv("leduc", t.policy()))
            runs.setdefault(label + " s", []).append(secs)
            if label == "float64" and seed == 0:
                tree = t.tree
                q = quantized_sums(t.ssum, tree)
                avg = np.empty_like(q)
                average_strategy(q, tree.base, tree.kind, tree.round, tree.num_actions,
                                 np.array(tree.num_buckets, dtype=np.int64), avg)
                err = float(np.abs(avg - t.average()).max())
                nc_q = spiel_nash_conv("leduc", export_policy(tree, t.cards, avg))
                print(f"Leduc, float64 run (seed 0, {iterations:,} it.): its sums held in 16 bits with a scale per "
                      f"infoset change the average strategy by at most {err:.2e}; NashConv {runs['float64'][0]:.5f} -> "
                      f"{nc_q:.5f}")
    print(f"Leduc ES-MCCFR storage, {iterations:,} iterations, seeds 0-{seeds - 1} (NashConv min / mean / max, "
          f"seconds per run):")
    for label in ("float64", "float32", "compact"):
        v = runs[label]
        print(f"  {label:<8} {min(v):.4f} / {np.mean(v):.4f} / {max(v):.4f}   {np.mean(runs[label + ' s']):.1f} s")
    return runs


def main() -> None:
    seconds = float(os.environ.get("BENCH_SECONDS", "20"))
    with one_cpu() as pinned:
        print(pinned)
        bench_leduc(seconds)
        bench_storage()
        for label, cards, actions, shared in (("tiny", "tiny", "tiny", False), ("tiny", "tiny", "tiny", True),
                                              ("pot+allin/tiny-buckets", "tiny", "pot_allin", True),
                                              ("default", "default", "default", True),
                                              ("medium", "default", "tiny", True),
                                              ("large", "large", "large", True)):
            try:
                bench_tree(label, cards, actions, 50_000, shared_deal=shared)
                if label == "large":
                    bench_tree(label, cards, actions, 50_000, shared_deal=shared, dtype="compact")
            except Exception as exc:  # an abstraction preset may be missing on this machine
                print(f"HUNL {label}: skipped ({type(exc).__name__}: {exc})")
    for cards, actions in (("tiny", "tiny"), ("tiny", "pot_allin")):
        try:
            bench_workers(cards, actions)
        except Exception as exc:
            print(f"ray workers ({actions}): skipped ({type(exc).__name__}: {exc})")


if __name__ == "__main__":
    main()
