"""``pokerbot spot``: solve a postflop spot (board, pot, stack, two ranges, bet sizes) and write its solution."""

from __future__ import annotations

import argparse

HELP = "solve a postflop spot from Pio-style ranges and bet sizes; writes strategies, EVs and equities as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--board", required=True, metavar="CARDS", help="flop, turn or river cards, e.g. QsJh2h or Ks9h4c7d (required: no default)")
    parser.add_argument("--pot", required=True, metavar="CHIPS", help="the pot at the start of the spot (required: no default)")
    parser.add_argument("--stack", required=True, metavar="CHIPS", help="the effective stack behind (required: no default)")
    parser.add_argument("--oop", required=True, metavar="RANGE",
                        help="the out-of-position player's range, Pio style: 'AA,KK,QQ:0.5,AKs,A5s-A2s,AcKd' "
                        "(required: no default)")
    parser.add_argument("--ip", required=True, metavar="RANGE", help="the in-position player's range (required: no default)")
    for street in ("flop", "turn", "river"):
        parser.add_argument(f"--{street}-bets", default=None, metavar="SIZES",
                            help=f"opening bet sizes on the {street} (default: --bets)")
        parser.add_argument(f"--{street}-raises", default=None, metavar="SIZES",
                            help=f"raise sizes on the {street} (default: --raises)")
    parser.add_argument("--bets", default="50%,100%", metavar="SIZES",
                        help="opening bet sizes on every street: pot percentages and 'a' for all-in (default 50%%,100%%)")
    parser.add_argument("--raises", default="100%", metavar="SIZES",
                        help="raise sizes: pot percentages (of the pot after calling), multiples of the bet faced "
                        "('2.5x') and 'a' (default 100%%)")
    parser.add_argument("--max-raises", default="3", metavar="N",
                        help="raises after the opening bet of a street, or 'none' (default 3: a bet and three raises)")
    parser.add_argument("--allin-threshold", type=float, default=None, metavar="F",
                        help="a bet or raise committing at least this share of the bettor's stack becomes all-in "
                        "(default: off)")
    parser.add_argument("--target", type=float, default=0.5, metavar="PCT",
                        help="stop at this exploitability, in percent of the pot (default 0.5)")
    parser.add_argument("--iterations", type=int, default=1000, metavar="N", help="at most N iterations (default 1000)")
    parser.add_argument("--check-every", type=int, default=10, metavar="N",
                        help="measure exploitability every N iterations (default 10)")
    parser.add_argument("--threads", type=int, default=None, metavar="N", help="solver threads (default: all cores)")
    parser.add_argument("--compress", action="store_true",
                        help="16-bit regrets and strategy sums with a scale per node: half the memory of float32 "
                             "(default: float32)")
    parser.add_argument("--lock", action="append", default=[], metavar="NODE=STRATEGY",
                        help="fix a node's strategy, e.g. 'root=x:0.7,b50:0.3' or 'x-b50=f:0.4,c:0.6' "
                        "(repeat for several nodes)")
    parser.add_argument("--out", default=None, metavar="FILE.json", help="write the solution here (default: none)")
    parser.add_argument("--streets", type=int, default=1, metavar="N",
                        help="decision nodes of the first N streets go into --out (default 1: the spot's street)")
    parser.add_argument("--force", action="store_true", help="replace an existing --out file (default: refuse)")
    parser.add_argument("--no-progress", "-q", "--quiet", dest="quiet", action="store_true",
                        help="no progress bar, as in every command (-q and --quiet are aliases; default: a bar)")


def run(args: argparse.Namespace) -> int:
    from pokerbot.commands._args import ArgumentError, count, number, output_file
    from pokerbot.solver.spot import Spot

    count("--iterations", args.iterations)
    count("--check-every", args.check_every)
    count("--streets", args.streets, 1, 3)
    number("--target", args.target, 0.0)
    cap: int | None = None
    if args.max_raises.strip().lower() != "none":
        try:
            cap = int(args.max_raises)
        except ValueError:
            raise ArgumentError(f"--max-raises must be a count or 'none', got {args.max_raises!r}") from None
    if args.out is not None:
        output_file("--out", args.out, force=args.force)
    locks = {}
    for item in args.lock:
        node, sep, strat = item.partition("=")
        if not sep:
            raise ArgumentError(f"--lock {item!r}: write NODE=STRATEGY, e.g. root=x:0.7,b50:0.3")
        locks[node.strip()] = strat
    bets = {s: getattr(args, f"{s}_bets") or args.bets for s in ("flop", "turn", "river")}
    raises = {s: getattr(args, f"{s}_raises") or args.raises for s in ("flop", "turn", "river")}
    spot = Spot(board=args.board, pot=args.pot, stack=args.stack, oop=args.oop, ip=args.ip, bets=bets, raises=raises,
                max_raises=cap, allin_threshold=args.allin_threshold)
    tree = spot.tree()
    print(f"{spot.street} spot {args.board}: pot {args.pot}, stack {args.stack}; {len(spot.hands(0))} OOP and "
          f"{len(spot.hands(1))} IP hands; {tree.num_nodes:,} nodes, about "
          f"{tree.memory_bytes(2, 2 if args.compress else 4) / 2**20:,.1f} MiB to solve", flush=True)
    sol = spot.solve(target=args.target, iterations=args.iterations, check_every=args.check_every,
                     threads=args.threads, locks=locks, progress=not args.quiet,
                     dtype="compressed" if args.compress else "float32")
    print(f"{sol.solver.iteration} iterations in {sol.seconds:.2f} s; exploitability "
          f"{sol.exploitability_pct:.4f}% of the pot")
    print(f"EV OOP {sol.ev[0] + sol.pot / 2:.4f}, IP {sol.ev[1] + sol.pot / 2:.4f} (pot share included)")
    strat = sol.strategy(0)
    w = sol.solver._reach[0]
    freq = strat @ w / w.sum()
    print("OOP at the root: " + ", ".join(f"{a} {100 * f:.1f}%" for a, f in zip(sol.root_actions(), freq)))
    if args.out:
        sol.save(args.out, args.streets)
        print(f"wrote {args.out}")
    return 0
