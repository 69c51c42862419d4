"""Safe EFCE refinement: Algorithm 2 (regret minimisation) per-iteration time and set-up
on Battleship n x 1, T = 3 (ship 1 x 1, Uniform blueprint, γ = 2), beside one LP
refinement of the n = 4 subgame; then the build of the complete space and blueprint
values against the subgame-restricted one (``S0 ∪ S_j`` and product values, no plan) at
n = 5, and one exact-safety polish. Iteration times are the best of ``REPEATS`` blocks of
``BLOCK`` iterations (the machine is shared). The paper's Medium instance (|Ξ| = 3.89M)
takes minutes to build: ``python -m pokerbot efce --refine regret`` (docs/efce.md).

Run: ``python -m bench efce``.
"""

from __future__ import annotations

import os
import time

REPEATS = 3
BLOCK = 200


def main() -> None:
    from realtime.efce.regret import regret_refine
    from realtime.efce.subgames import refine

    print(f"load average {os.getloadavg()[0]:.2f}")
    regret_refine(*_setup(3, 2), iterations=2)  # compile the kernels
    for n in (4, 5):
        dec, bp, j = _setup(n, 3)
        per_it = []
        for _ in range(REPEATS):
            res = regret_refine(dec, bp, j, iterations=BLOCK, record_every=BLOCK)
            per_it.append(res.seconds_per_iteration)
        lp = ""
        if n == 4:  # at n = 5 one LP takes minutes
            t0 = time.perf_counter()
            refine(dec, bp, j, objective="feasible")
            lp = f"; one feasibility LP {time.perf_counter() - t0:.2f} s"
            pol = regret_refine(dec, bp, j, iterations=50, record_every=50, polish=True).polish
            assert pol is not None
            lp += (f"; polish after 50 iterations: pseudo-exploitability {pol.before:.2e} -> {pol.after:.2e} "
                   f"({pol.method}, {pol.seconds:.2f} s)")
        print(f"Battleship {n}x1 T=3: |Ξ_j| = {dec.size(j):,}, {res.num_ops:,} scaled extensions, deviator "
              f"{res.deviator_sequences:,} sequences / {res.deviator_terms:,} terms: set-up {res.setup_seconds:.2f} s, "
              f"{min(per_it) * 1e3:.3f} ms per iteration (pseudo-exploitability after {BLOCK}: "
              f"{res.pseudo_exploitability[-1]:.2e}){lp}")
    _restricted_vs_complete()


def _restricted_vs_complete() -> None:
    from realtime.efce.battleship import grid_instance, subgame_instance
    from realtime.efce.plan import uniform_plan, uniform_strategy
    from realtime.efce.regret import regret_refine
    from realtime.efce.subgames import Blueprint

    t0 = time.perf_counter()
    dec, j = grid_instance(5, 1, 3, 1, 2.0)
    Blueprint.of(dec, uniform_plan(dec.space))
    t1 = time.perf_counter()
    local, _ = subgame_instance(5, 1, 3, 1, 2.0)
    tps = local.space.treeplex
    bp = Blueprint.of_product(local, uniform_strategy(tps[0]), uniform_strategy(tps[1]))
    t2 = time.perf_counter()
    print(f"Battleship 5x1 T=3 build (game, space, decomposition, blueprint values): complete "
          f"{dec.space.num_pairs:,} pairs {t1 - t0:.2f} s; restricted {local.space.num_pairs:,} pairs {t2 - t1:.2f} s")
    res = regret_refine(local, bp, j, iterations=BLOCK, record_every=BLOCK)
    print(f"  restricted: {res.seconds_per_iteration * 1e3:.3f} ms per iteration, pseudo-exploitability after "
          f"{BLOCK}: {res.pseudo_exploitability[-1]:.2e}")


def _setup(n: int, t: int):  # type: ignore[no-untyped-def]
    from realtime.efce.battleship import instance
    from realtime.efce.plan import uniform_plan
    from realtime.efce.subgames import Blueprint

    dec, j = instance(n, t, 2.0)
    return dec, Blueprint.of(dec, uniform_plan(dec.space)), j


if __name__ == "__main__":
    main()
