"""``pokerbot klss``: reproduce Table 1 and Proposition 3 of the KLSS paper (exact LPs)."""

from __future__ import annotations

import argparse

#: Listed under this heading in ``pokerbot --help``.
GROUP = "research systems and paper reproductions"
HELP = "reproduce the 1-KLSS paper's Table 1 (ε-blueprints before / after nested 1-KLSS) with run times"

_GAMES = ("dark-hex", "goofspiel-random", "goofspiel-increasing", "kuhn", "leduc", "liars-dice", "matching-pennies")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="+", metavar="GAME", default=list(_GAMES),
                        help=f"games whose rows to run (default: all: {' '.join(_GAMES)})")
    parser.add_argument("--epsilon", type=float, default=0.25,
                        help="blueprint floor ε: every action >= ε/m (default 0.25, as in the paper)")
    parser.add_argument("--safe", action="store_true",
                        help="also run the safe variants (Theorem 4: updating the blueprint; Theorem 5: "
                             "independent sets) and print their exploitability (default: off)")
    parser.add_argument("--form", choices=("maxmargin", "resolve"), default="maxmargin",
                        help="gadget form (default maxmargin, as in the paper)")
    parser.add_argument("--lp-method", choices=("highs-ipm", "highs-ds", "highs"), default="highs-ipm",
                        help="HiGHS method for the gadget LPs (default highs-ipm; see docs/klss.md)")
    parser.add_argument("--prop3", nargs="*", type=int, metavar="N", default=[4, 10, 100],
                        help="N values for Proposition 3's counterexample (default 4 10 100; none to skip)")
    parser.epilog = "Exploitability is player 0's, rewards normalised to [-1, 1]; times are wall seconds."


def run(args: argparse.Namespace) -> int:
    import os

    from pokerbot.errors import PokerbotError

    unknown = [g for g in args.games if g not in _GAMES]
    if unknown:
        raise PokerbotError(f"unknown game {unknown[0]!r}; choose from {', '.join(_GAMES)}")
    if not 0.0 <= args.epsilon <= 0.5:
        raise PokerbotError(f"--epsilon must be in [0, 0.5], got {args.epsilon}")
    if any(n < 2 for n in args.prop3):
        raise PokerbotError("--prop3 values must be at least 2")

    from experiments.klss_tables import ROWS, format_table, proposition3, table1_row
    from realtime.klss.nested import KlssOptions

    import sys

    from tqdm import tqdm

    options = KlssOptions(form=args.form, lp_method=args.lp_method)
    results = []
    for spec in ROWS:
        if spec.game not in args.games:
            continue
        with tqdm(desc=spec.label, unit=" solves", file=sys.stderr, leave=False) as bar:
            results.append(table1_row(spec, args.epsilon, options, safe=args.safe, progress=lambda _: bar.update(1)))
        print(f"done: {spec.label} ({results[-1].klss_seconds:.1f} s)", flush=True)
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"\nTable 1 (ε = {args.epsilon}, {args.form}, {args.lp_method}):")
    print(format_table(results, load))
    if args.prop3:
        print("\nProposition 3 (heads w.p. 1/2 + 2/N; exploitability before -> after 1-KLSS at every infoset):")
        for n in args.prop3:
            r = proposition3(n, options)
            print(f"  N = {n:4d}: {r.before:.6f} (4/N = {4 / n:.6f}) -> {r.after:.6f}")
    return 0
