"""Student of Games speed: searches per second and network evaluations per second.

``python -m bench sog`` prints, on Leduc with an untrained CVPN of the
``sog-leduc`` shape (3 x 128; the speed does not depend on the weights):

1. GT-CFR searches SoG(s, c) from the first public state: searches/s, CFR
   updates/s and leaf evaluations (network rows)/s inside the search;
2. the raw CVPN: evaluations (rows)/s at batch sizes 1, 32 and 1024, with torch
   on 1 and 2 CPU threads, and on the GPU when one is present;
3. one seed of the paper's protocol (both players' re-solving chains over all
   public states of Leduc) at SoG(100, 1): seconds and searches/s;
4. for comparison, the exact subgame-solving value function at SoG(30, 1).

Wall-clock figures of the best of a few repetitions, with the load average:
on a shared machine they are lower bounds of what the code does alone.
"""

from __future__ import annotations

import os
import time

import numpy as np
import torch

from realtime.sog.network import CVPN, NetworkValue, features
from realtime.sog.resolve import SearchSettings, composed_policy
from realtime.sog.search import GTCFR, PublicGame
from realtime.sog.values import ExactValue
from bench.timing import best_time as _best




def main() -> None:
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}  cpus: {os.cpu_count()}  "
          f"cuda: {torch.cuda.is_available()}")
    game = PublicGame.load("leduc")
    torch.manual_seed(0)
    net = CVPN.for_game(game, 128, 3)
    vf = NetworkValue(net, device=torch.device("cpu"))
    GTCFR(game, 0, game.initial_ranges(), vf, seed=0).run(5, 1)  # compile the kernels
    for s, c in ((100, 1.0), (400, 1.0), (10, 0.1)):
        stats = []

        def one() -> None:
            search = GTCFR(game, 0, game.initial_ranges(), vf, seed=1).run(s, c)
            stats.append(search.stats)

        sec = _best(one)
        st = stats[-1]
        print(f"GT-CFR SoG({s},{c:g}) at the Leduc root, CVPN leaves (cpu, 1 thread): {1 / sec:.2f} searches/s, "
              f"{st.cfr_iterations / sec:,.0f} CFR updates/s, {st.value_queries / sec:,.0f} network evaluations/s "
              f"({st.value_queries} per search in {st.leaf_batches} batches)")

    rng = np.random.default_rng(0)
    nodes = rng.choice(np.flatnonzero(game.tree.kind == 0), size=1024)
    r = rng.random((1024, 6))
    x = torch.from_numpy(features(game, nodes, r, r))
    devices = [("cpu", 1), ("cpu", 2)] + ([("cuda", 0)] if torch.cuda.is_available() else [])
    for dev, threads in devices:
        if dev == "cpu":
            torch.set_num_threads(threads)
        model = CVPN.for_game(game, 128, 3).to(dev).eval()
        for batch in (1, 32, 1024):
            xb = x[:batch].to(dev)
            reps = max(1, 4096 // batch)

            def fwd() -> None:
                with torch.no_grad():
                    for _ in range(reps):
                        out = model(xb)
                    if dev == "cuda":
                        torch.cuda.synchronize()
                    del out

            sec = _best(fwd)
            where = f"cpu, {threads} thread{'s' if threads > 1 else ''}" if dev == "cpu" else "cuda"
            print(f"CVPN 3x128 forward ({where}), batch {batch}: {reps * batch / sec:,.0f} evaluations/s")
    torch.set_num_threads(1)

    count = [0]

    def protocol() -> None:
        composed_policy(game, lambda: NetworkValue(net, device=torch.device("cpu")), SearchSettings(100, 1.0), 0,
                        on_search=lambda _: count.__setitem__(0, count[0] + 1))

    t0 = time.perf_counter()
    protocol()
    sec = time.perf_counter() - t0
    print(f"protocol, one seed of Leduc at SoG(100,1) with the CVPN: {sec:.1f} s, {count[0]} searches, "
          f"{count[0] / sec:.1f} searches/s")
    exact = ExactValue(game, 100)
    sec = _best(lambda: GTCFR(game, 0, game.initial_ranges(), exact, seed=1).run(30, 1.0), repeats=2)
    print(f"GT-CFR SoG(30,1) at the Leduc root, exact value function (100 CFR+ iterations per leaf): "
          f"{1 / sec:.2f} searches/s")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
