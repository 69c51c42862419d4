"""``pokerbot abstraction``: build, inspect and measure the hold'em card abstraction."""

from __future__ import annotations

import argparse

HELP = "build the hold'em card abstraction (bucket tables) and report its quality"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="build the bucket tables of a preset (resumes an interrupted build)")
    b.add_argument("--preset", default="tiny", help="tiny (minutes) or default (hundreds of buckets)")
    b.add_argument("--force", action="store_true", help="rebuild the clustering even if a manifest exists")
    b.add_argument("--no-progress", action="store_true", help="no progress bars")
    r = sub.add_parser("report", help="within-bucket EHS spread per round of a built preset")
    r.add_argument("--preset", default="tiny")
    r.add_argument("--exploitability", action="store_true",
                   help="also solve nlfh-small with flop buckets and measure real-game exploitability")
    r.add_argument("--buckets", default="3,10", help="flop bucket counts for --exploitability (default 3,10)")
    r.add_argument("--iterations", type=int, default=300, help="CFR iterations for --exploitability")
    w = sub.add_parser("bucket", help="print the bucket of a hand, e.g. AsKs 2s7sQd")
    w.add_argument("--preset", default="tiny")
    w.add_argument("hole")
    w.add_argument("board", nargs="?", default="")


def run(args: argparse.Namespace) -> int:
    import json

    from abstraction.buckets import build_abstraction, load_abstraction

    if args.action == "build":
        d = build_abstraction(args.preset, progress=not args.no_progress, force=args.force)
        m = json.loads((d / "manifest.json").read_text())
        print(f"{args.preset}: buckets {m['config']['buckets']} in {d} (built in {m['build_seconds']} s)")
        return 0
    if args.action == "bucket":
        from abstraction.isomorphism import BOARD_CARDS
        from pokerbot.cards import parse_cards

        ab = load_abstraction(args.preset, build_if_missing=False)
        hole, board = parse_cards(args.hole), parse_cards(args.board)
        r = BOARD_CARDS.index(len(board)) if len(board) in BOARD_CARDS else -1
        print(ab.bucket(r, hole, board))
        return 0
    from abstraction.quality import ehs_spread, format_report, nlfh_small_exploitability

    ab = load_abstraction(args.preset, build_if_missing=False)
    print(f"{ab!r} at {ab.path}")
    print(format_report(ehs_spread(ab.path)))
    if args.exploitability:
        for k in [int(x) for x in args.buckets.split(",")]:
            res = nlfh_small_exploitability(k, iterations=args.iterations)
            print(f"nlfh-small, {k} flop buckets: {res['exploitability']:.1f} mbb/g real-game exploitability "
                  f"(lossless solve: {res['lossless']:.1f} mbb/g, {args.iterations} iterations)")
    return 0
