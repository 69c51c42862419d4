"""Abstraction speed: isomorphic index / unindex rates, feature rates, preset build times and memory.

``python -m bench abstraction``. The machine may be shared: every rate is the
best of a few repetitions. Index/unindex run on one thread; the feature passes
use numba's threads (2 on the reference machine), as the build does. Preset
build figures come from the manifests of built presets (``pokerbot abstraction
build --preset tiny``); set ``BENCH_BUILD=tiny`` to rebuild tiny in a fresh
temporary cache and measure its wall time and peak memory here.
No peer indexer is installed, so there is no ratio for these figures.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
from bench.timing import best_time as _best

REPEATS = 3




def bench_indexer() -> None:
    from abstraction.isomorphism import BOARD_CARDS, hand_index_batch, hand_unindex_batch, num_classes

    rng = np.random.default_rng(0)
    n = 500_000
    for r in range(4):
        k = 2 + BOARD_CARDS[r]
        cards = np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int64)
        hand_index_batch(r, cards[:10])
        t_idx = _best(lambda: hand_index_batch(r, cards))
        idx = rng.integers(0, num_classes(r), n)
        hand_unindex_batch(r, idx[:10])
        t_un = _best(lambda: hand_unindex_batch(r, idx))
        print(f"round {r}: index {n / t_idx / 1e6:6.2f} M hands/s   unindex {n / t_un / 1e6:6.2f} M/s   (1 thread, best of {REPEATS})")


def bench_features() -> None:
    from abstraction.features import HALF_WINS, _river_chunk, _turn_chunk, canonical_boards
    from abstraction.isomorphism import num_classes

    b5, w5 = canonical_boards(5)
    w5 = w5.astype(np.int64)
    eq = np.zeros(num_classes(3), np.uint16)
    ws = np.zeros(0, np.int32)
    _river_chunk(b5, w5, 0, 8, eq, ws, np.zeros((8, HALF_WINS + 1)))
    nb = 4000
    t = _best(lambda: _river_chunk(b5, w5, 1000, 1000 + nb, eq, ws, np.zeros((nb, HALF_WINS + 1))))
    print(f"river equity: {nb / t:8.0f} boards/s = {nb * 1081 / t / 1e6:5.2f} M hands/s exact (990 opponents each);"
          f" all {len(b5)} canonical boards ~ {len(b5) / (nb / t):.0f} s")
    b4, w4 = canonical_boards(4)
    w4 = w4.astype(np.int64)
    n2 = num_classes(2)
    bins = 30
    ehs, ehs2 = np.zeros(n2, np.float32), np.zeros(n2, np.float32)
    hist, wt = np.zeros((n2, bins), np.uint8), np.zeros(n2, np.int32)
    riv = np.tile(np.arange(48, dtype=np.int64), (len(b4), 1))
    _turn_chunk(b4, w4, 0, 2, bins, riv, ehs, ehs2, hist, wt)
    nb = 300
    t = _best(lambda: _turn_chunk(b4, w4, 100, 100 + nb, bins, riv, ehs, ehs2, hist, wt))
    print(f"turn EHS/EHS2/histograms (exact, 46 rivers): {nb / t:6.0f} boards/s = {nb * 1128 / t / 1e3:6.0f} k hands/s;"
          f" all {len(b4)} boards ~ {len(b4) / (nb / t):.0f} s")


def bench_lookup() -> None:
    from abstraction.buckets import artifact_dir, load_abstraction
    from pokerbot.cards import parse_cards

    if not (artifact_dir("tiny") / "manifest.json").exists():
        print("bucket lookup: tiny not built (pokerbot abstraction build --preset tiny)")
        return
    ab = load_abstraction("tiny", build_if_missing=False)
    hole, board = parse_cards("AsKd"), parse_cards("2c7hQs9dTd")
    for r in range(4):
        ab.bucket(r, hole, board)
    n = 20000
    for r in (0, 3):
        t = _best(lambda: [ab.bucket(r, hole, board) for _ in range(n)])
        print(f"CardAbstraction.bucket round {r} (Python call): {t / n * 1e6:5.2f} us")


def bench_presets() -> None:
    from abstraction.buckets import PRESETS, artifact_dir

    for name in PRESETS:
        m = artifact_dir(name) / "manifest.json"
        if m.exists():
            man = json.loads(m.read_text())
            print(f"preset {name}: built in {man['build_seconds']} s wall (stages {man['stage_seconds']}),"
                  f" peak RSS {man.get('peak_rss_mb', '?')} MB, on {man.get('built_at')}")
        else:
            print(f"preset {name}: not built")
    which = os.environ.get("BENCH_BUILD")
    if which:
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "POKERBOT_HOME": home}
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pokerbot", "abstraction", "build", "--preset", which, "--no-progress"],
                           check=True, env=env)
            wall = time.perf_counter() - t
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"rebuilt {which} from scratch: {wall:.0f} s wall, peak RSS {peak:.0f} MB")


def bench_kmeans_assignment(n: int = 200_000, k: int = 2_000) -> None:
    """The k-means assignment at a ``large`` preset's scale: ``n`` turn-like histograms (equity samples around
    a hand's mean, 30 bins, EMD embedding) to ``k`` centres, pruned by the coordinate-sum bound and by trying
    every centre (the same labels: asserted here and tested)."""
    from abstraction.kmeans import _assign, _assign_scan, emd_embed

    rng = np.random.default_rng(0)
    mean, conc = rng.beta(2, 2, n), rng.uniform(2, 40, n)
    runs = rng.beta((mean * conc)[:, None] + 1e-3, ((1 - mean) * conc)[:, None] + 1e-3, (n, 44))
    x = emd_embed(np.stack([np.histogram(r, np.linspace(0, 1, 31))[0] for r in runs]))
    c = x[rng.choice(n, k, replace=False)].copy()
    out = {}
    for name, fn in (("pruned", _assign), ("every centre", _assign_scan)):
        labels, dists = np.zeros(n, np.int32), np.zeros(n)
        fn(x[:100], c, True, labels[:100], dists[:100])  # compile
        sec = _best(lambda: fn(x, c, True, labels, dists))
        out[name] = (sec, labels.copy())
        print(f"k-means assignment, {n:,} turn-like histograms (EMD) to {k:,} centres, {name}: {sec:.2f} s "
              f"({n / sec:,.0f} points/s)", flush=True)
    assert np.array_equal(out["pruned"][1], out["every centre"][1])
    print(f"  pruned / every centre: {out['every centre'][0] / out['pruned'][0]:.1f}x faster, same labels")


def main() -> None:
    bench_indexer()
    bench_features()
    bench_lookup()
    bench_kmeans_assignment()
    bench_presets()


if __name__ == "__main__":
    main()
