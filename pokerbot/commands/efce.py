"""``pokerbot efce``: reproduce Table 1 of Ling & Fang (safe EFCE subgame resolving on
Battleship) with exact safety checks and run times."""

from __future__ import annotations

import argparse

HELP = "reproduce the safe-EFCE-resolving paper's Table 1 (Battleship, blueprint vs safe LP refinement)"

_INSTANCES = ("3,2", "4,3", "5,3", "6,3")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instances", nargs="+", metavar="N,T", default=["3,2", "4,3"],
                        help=f"rows as cells,timesteps (default: 3,2 4,3; the paper's: {' '.join(_INSTANCES)})")
    parser.add_argument("--gammas", nargs="+", type=float, default=[2.0, 5.0],
                        help="loss γ for a destroyed ship (default: 2 5)")
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


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from pokerbot.errors import PokerbotError

    rows_spec = [_parse(s) for s in args.instances]
    if any(g < 0 for g in args.gammas):
        raise PokerbotError("--gammas must be non-negative")
    if args.seeds < 0:
        raise PokerbotError("--seeds must be >= 0")

    from tqdm import tqdm

    from realtime.efce.experiments import DEFAULT_WIDTH, format_table, table1_row

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
