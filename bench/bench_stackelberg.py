"""Safe Stackelberg search: time of the follower's leader-favoured best response (numba
kernel over the treeplex), of Algorithm 2's bounds, and of the subgame MILPs of a small
instance. Every figure is the best of ``REPEATS`` runs (the machine is shared).

Run: ``python -m bench stackelberg``.
"""

from __future__ import annotations

import time
from bench.timing import best_time as _best

REPEATS = 3




def main() -> None:
    import os

    from pokerbot.efg.general_sum_games import goofspiel, goofspiel_subgame, label_subgames
    from pokerbot.efg.sequence_form import uniform_strategy
    from realtime.stackelberg.bounds import Subgames, compute_bounds
    from experiments.stackelberg_tables import leduc_setup
    from realtime.stackelberg.response import follower_response
    from realtime.stackelberg.search import safe_search

    print(f"load average {os.getloadavg()[0]:.2f}")
    g = goofspiel(4)
    sf = g.sequence_form
    x = uniform_strategy(sf.treeplex[0])
    follower_response(sf, x)  # compile
    t = _best(lambda: follower_response(sf, x))
    print(f"follower response, Goofspiel n=4 ({sf.treeplex[1].num_seqs} follower sequences): {t * 1e3:.1f} ms")
    subs = Subgames(g, label_subgames(g, goofspiel_subgame(4, 3)))
    r = follower_response(sf, x)
    t = _best(lambda: compute_bounds(subs, r))
    print(f"Algorithm 2 bounds, Goofspiel n=4, 64 subgames: {t * 1e3:.1f} ms")
    leduc, blueprint = leduc_setup(2)
    t0 = time.perf_counter()
    res = safe_search(leduc, blueprint, time_limit=5.0)
    print(f"safe search, raked Leduc n=2 ({leduc.count} subgames, 5 s limit): {time.perf_counter() - t0:.1f} s, "
          f"{res.limits_hit} hit the limit, blueprint {res.blueprint_value:+.4f} -> {res.leader_value:+.4f}")


if __name__ == "__main__":
    main()
