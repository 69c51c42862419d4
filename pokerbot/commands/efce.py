"""``pokerbot efce``: reproduce Table 1 of Ling & Fang (safe EFCE subgame resolving on
Battleship) with exact safety checks and run times (``--refine lp``, the default), or run
the regret-minimisation refinement (Algorithm 2, ``--refine regret``) on one instance and
report its pseudo-exploitability per iteration, time per iteration and memory (Fig. 2)."""

from __future__ import annotations

import argparse

#: Listed under this heading in ``pokerbot --help``.
GROUP = "research systems and paper reproductions"
HELP = ("reproduce the safe-EFCE-resolving paper's Table 1 (Battleship, blueprint vs safe LP refinement) "
        "or run its regret-minimisation refinement (--refine regret)")

_INSTANCES = ("3,2", "4,3", "5,3", "6,3")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instances", nargs="+", metavar="N,T", default=["3,2", "4,3"],
                        help=f"rows as cells,timesteps (default: 3,2 4,3; the paper's: {' '.join(_INSTANCES)})")
    parser.add_argument("--refine", choices=("lp", "regret"), default="lp",
                        help="lp: Table 1 rows (--instances); regret: Algorithm 2 on one grid instance "
                             "(--grid, --timesteps, --ship) (default lp)")
    parser.add_argument("--gammas", nargs="+", type=float, default=None,
                        help="loss γ for a destroyed ship (default: 2 5 with --refine lp, 2 with --refine regret)")
    parser.add_argument("--seeds", type=int, default=10,
                        help="Jittered blueprints averaged: seeds 0..S-1 (default 10; 0 skips the column)")
    parser.add_argument("--width", type=float, default=None,
                        help="jitter width w in [0, 1] (default 0.25; the paper does not state its w)")
    parser.add_argument("--literal", action="store_true",
                        help="also run the paper's (B)/(C) bounds without the cross terms and report their "
                             "safety violation (default: off)")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the exact safety check of each refinement (default: checked)")
    parser.add_argument("--lp-method", choices=("highs-ipm", "highs-ds", "highs"), default="highs-ipm",
                        help="HiGHS method for the refinement LPs (default highs-ipm, with crossover)")
    regret = parser.add_argument_group("--refine regret (Algorithm 2)")
    regret.add_argument("--grid", metavar="W,H", default="3,2",
                        help="grid width,height (default 3,2: with --timesteps 3 the paper's Medium, |Ξ| = 3.89M)")
    regret.add_argument("--timesteps", type=int, default=3, help="firing timesteps T (default 3)")
    regret.add_argument("--ship", type=int, default=1, help="ship length m (default 1)")
    regret.add_argument("--blueprint", choices=("uniform", "jittered"), default="uniform",
                        help="blueprint (default uniform, as in the paper's Fig. 2)")
    regret.add_argument("--seed", type=int, default=0, help="seed of the jittered blueprint (default 0)")
    regret.add_argument("--iterations", type=int, default=1000, help="self-play iterations (default 1000)")
    regret.add_argument("--record-every", type=int, default=10,
                        help="measure the average plan's pseudo-exploitability every K iterations (default 10)")
    regret.add_argument("--epsilon", type=float, default=0.0,
                        help="stop early once the saddle-point gap is below this (default 0: run all iterations)")
    regret.add_argument("--fully-safe", action="store_true",
                        help="also require the subgame's blueprint welfare (default: safety constraints only)")
    regret.add_argument("--max-welfare", type=int, default=0, metavar="STEPS",
                        help="maximise the subgame's welfare by binary search over a welfare floor, STEPS "
                             "halvings of --iterations each (default 0: safety only)")
    regret.add_argument("--tolerance", type=float, default=1e-5,
                        help="--max-welfare: a floor counts as met at pseudo-exploitability <= this (default 1e-5)")
    regret.add_argument("--compare-lp", action="store_true",
                        help="also solve the LP for the smallest possible pseudo-exploitability v* (small "
                             "instances; default: off)")
    regret.add_argument("--implicit", action="store_true",
                        help="store only the refined subgame's pairs S0 ∪ S_j and compute the blueprint's values "
                             "by passes over the game, never the whole plan (the paper's Large instance needs it; "
                             "no exact safety check of the complete plan) (default: the whole plan)")
    regret.add_argument("--polish", action="store_true",
                        help="make the final plan exactly safe: unchanged if it meets every constraint, else the "
                             "L1-nearest safe plan by LP (default: off, the average plan is only ε-safe)")
    regret.add_argument("--checkpoint", metavar="NPZ", default=None,
                        help="save the self-play state here (every 30 s and at the end) and resume from it "
                             "if it exists (default: none)")
    regret.add_argument("--plot", metavar="PNG", default=None,
                        help="write the pseudo-exploitability curve here (default: no plot)")
    parser.epilog = "Welfare of the refined subgame (first shots both at cell 0) in units of 1e-2; wall seconds."


def _parse(spec: str) -> tuple[int, int]:
    from pokerbot.errors import PokerbotError

    try:
        n, t = (int(v) for v in spec.split(","))
    except ValueError:
        raise PokerbotError(f"--instances: {spec!r} is not N,T (two integers)") from None
    if n < 2 or not 2 <= t <= n:
        raise PokerbotError(f"--instances: need N >= 2 cells and 2 <= T <= N timesteps (T = 1 has no subgame), got {spec!r}")
    return n, t


def _grid(spec: str) -> tuple[int, int]:
    from pokerbot.errors import PokerbotError

    try:
        w, h = (int(v) for v in spec.split(","))
    except ValueError:
        raise PokerbotError(f"--grid: {spec!r} is not W,H (two integers)") from None
    if w < 1 or h < 1:
        raise PokerbotError(f"--grid: need W, H >= 1, got {spec!r}")
    return w, h


#: Options that only one mode reads (given in the other, they are an error, not ignored).
_LP_ONLY = ("instances", "seeds", "literal", "lp_method")
_REGRET_ONLY = ("grid", "timesteps", "ship", "blueprint", "seed", "iterations", "record_every", "epsilon",
                "fully_safe", "max_welfare", "tolerance", "compare_lp", "checkpoint", "plot", "implicit", "polish")


def run(args: argparse.Namespace) -> int:
    import math

    from pokerbot.errors import PokerbotError

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = vars(parser.parse_args([]))
    other = _LP_ONLY if args.refine == "regret" else _REGRET_ONLY
    for dest in other:
        if getattr(args, dest, defaults[dest]) != defaults[dest]:
            raise PokerbotError(f"--{dest.replace('_', '-')} does not apply to --refine {args.refine}")
    for name, values in (("--gammas", args.gammas or []), ("--width", [args.width or 0.0]),
                         ("--epsilon", [args.epsilon]), ("--tolerance", [args.tolerance])):
        if not all(math.isfinite(v) for v in values):
            raise PokerbotError(f"{name} must be finite")
    if args.refine == "regret":
        return _run_regret(args)
    return _run_lp(args)


def _run_regret(args: argparse.Namespace) -> int:
    import os
    import sys
    from pathlib import Path

    from pokerbot.errors import PokerbotError

    w, h = _grid(args.grid)
    if not 2 <= args.timesteps <= w * h:
        raise PokerbotError(f"--timesteps: need 2 <= T <= {w * h} cells (T = 1 has no subgame), got {args.timesteps}")
    if args.ship < 1 or args.ship > max(w, h):
        raise PokerbotError(f"--ship: a 1 x {args.ship} ship does not fit a {w} x {h} grid")
    if not 1 <= args.iterations <= 10**9 or not 1 <= args.record_every <= 10**9:
        raise PokerbotError("--iterations and --record-every must be in 1 .. 10^9")
    if not 0 <= args.seed < 2**32 or args.max_welfare > 64:
        raise PokerbotError("--seed must be in 0 .. 2^32 - 1 and --max-welfare at most 64")
    if args.epsilon < 0 or args.tolerance < 0 or args.max_welfare < 0:
        raise PokerbotError("--epsilon, --tolerance and --max-welfare must be >= 0")
    if args.max_welfare and (args.checkpoint or args.fully_safe or args.polish):
        raise PokerbotError("--max-welfare runs its own floors; it takes no --checkpoint, --fully-safe or --polish")
    gammas = [2.0] if args.gammas is None else args.gammas
    if any(g < 0 for g in gammas):
        raise PokerbotError("--gammas must be non-negative")
    for opt, path in (("--plot", args.plot), ("--checkpoint", args.checkpoint)):
        if path is not None and (not path.strip() or Path(path).is_dir() or not Path(path).resolve().parent.is_dir()):
            raise PokerbotError(f"{opt}: {path!r} is not a file path in an existing directory")
    width = 0.25 if args.width is None else args.width
    if not 0.0 <= width <= 1.0:
        raise PokerbotError(f"--width must be in [0, 1], got {width}")

    from tqdm import tqdm

    from experiments.efce_tables import plot_curve, regret_run

    for gamma in gammas:
        print(f"building Battleship {w}x{h}, T={args.timesteps}, m={args.ship}, γ={gamma:g} ...", file=sys.stderr)
        ckpt = args.checkpoint if args.checkpoint is None or len(gammas) == 1 else f"{args.checkpoint}.g{gamma:g}.npz"
        searching = args.max_welfare > 0
        with tqdm(total=args.max_welfare if searching else args.iterations, desc="Algorithm 2",
                  unit=" floor" if searching else " it", file=sys.stderr) as bar:

            def progress(t: int, value: float) -> None:
                bar.update(t - bar.n)
                bar.set_postfix(pseudo=f"{value:.3g}")

            def step(k: int, floor: float, value: float, met: bool) -> None:
                bar.update(k - bar.n)
                bar.set_postfix(floor=f"{floor:.5g}", pseudo=f"{value:.3g}", met=met)

            r = regret_run(w, h, args.timesteps, args.ship, gamma, iterations=args.iterations,
                           record_every=args.record_every, epsilon=args.epsilon, blueprint=args.blueprint,
                           seed=args.seed, width_jitter=width, welfare_floor=args.fully_safe, progress=progress,
                           checkpoint=ckpt, check=not args.no_check, compare_lp=args.compare_lp,
                           max_welfare_steps=args.max_welfare, tolerance=args.tolerance, search_progress=step,
                           implicit=args.implicit, polish=args.polish)
        load = " ".join(f"{v:.2f}" for v in os.getloadavg())
        res = r.result
        stored = "stored: S0 ∪ S_j only" if r.implicit else "stored: the whole plan"
        print(f"Battleship {w}x{h}, T={args.timesteps}, m={args.ship}, γ={gamma:g}, {args.blueprint} blueprint: "
              f"|Ξ| = {r.num_pairs:,}, |Ξ_j| = {r.size:,} ({res.num_free:,} refined, {res.num_ops:,} scaled "
              f"extensions), J = {r.subgames}; deviator: {res.deviator_sequences:,} sequences, "
              f"{res.deviator_terms:,} terms; {stored}")
        print(f"build {r.build_seconds:.1f} s, setup {res.setup_seconds:.1f} s, "
              f"{res.seconds_per_iteration * 1e3:.2f} ms per iteration, peak RSS {r.peak_rss_mib:.0f} MiB "
              f"(load average {load})")
        print(f"after {res.iterations} iterations: pseudo-exploitability {res.pseudo_exploitability[-1]:.3e}, "
              f"saddle gap {res.gap[-1]:.3e}; subgame welfare {res.blueprint_welfare:.6g} -> {res.refined_welfare:.6g}")
        if r.search is not None:
            print(f"welfare search (unconstrained max {r.search.upper:.6g}): floor, pseudo-exploitability, "
                  "lower bound on v* (> 0: infeasible), met")
            for floor, pseudo, lower, met in r.search.steps:
                print(f"  {floor:.6g}  {pseudo:.3e}  {lower:.3e}  {'met' if met else 'not met'}")
            print(f"highest floor met: {r.search.floor:.6g}")
        if res.polish is not None:
            p = res.polish
            print(f"polish ({p.method}, {p.seconds:.1f} s): pseudo-exploitability {p.before:.3e} -> {p.after:.3e}, "
                  f"L1 moved {p.moved:.3e}; subgame welfare of the polished plan {res.refined_welfare:.6g}")
        if r.safety_violation is not None:
            which = "polished" if res.polish is not None else "average"
            print(f"exact safety of the {which} plan: max δ* excess {r.safety_violation:.3e} (≤ 0: safe)")
        if r.lp_value is not None:
            print(f"LP saddle value v* = {r.lp_value:.3e} ({r.lp_seconds:.1f} s): pseudo-exploitability − v* = "
                  f"{res.pseudo_exploitability[-1] - r.lp_value:.3e}")
        print("iteration  pseudo-exploitability  gap")
        for t, v, g in zip(res.recorded, res.pseudo_exploitability, res.gap, strict=True):
            print(f"{t:9d}  {v:21.4e}  {g:.4e}")
        if args.plot is not None:
            path = args.plot if len(gammas) == 1 else str(Path(args.plot).with_suffix(f".g{gamma:g}.png"))
            plot_curve(r, path, load)
            print(f"curve: {path}")
    return 0


def _run_lp(args: argparse.Namespace) -> int:
    import os
    import sys

    from pokerbot.errors import PokerbotError

    args.gammas = [2.0, 5.0] if args.gammas is None else args.gammas
    rows_spec = [_parse(s) for s in args.instances]
    if any(g < 0 for g in args.gammas):
        raise PokerbotError("--gammas must be non-negative")
    if not 0 <= args.seeds <= 1000:
        raise PokerbotError("--seeds must be in 0 .. 1000")

    from tqdm import tqdm

    from experiments.efce_tables import DEFAULT_WIDTH, format_table, table1_row

    width = DEFAULT_WIDTH if args.width is None else args.width
    if not 0.0 <= width <= 1.0:
        raise PokerbotError(f"--width must be in [0, 1], got {width}")
    rows = []
    per_row = 1 + args.seeds + int(args.literal)
    with tqdm(total=per_row * len(rows_spec) * len(args.gammas), desc="refinements", unit=" LP",
              file=sys.stderr) as bar:
        for n, t in rows_spec:
            for gamma in args.gammas:
                row = table1_row(n, t, gamma, seeds=range(args.seeds), width=width, check=not args.no_check,
                                 literal=args.literal, method=args.lp_method, progress=lambda: bar.update(1))
                rows.append(row)
                tqdm.write(f"done: n={n}, T={t}, γ={gamma:g} (build {row.build_seconds:.1f} s)", file=sys.stderr)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"Table 1 (Jittered width w = {width}, {args.seeds} seeds; {args.lp_method}):")
    print(format_table(rows, load))
    return 0
