"""``pokerbot abstraction``: build, inspect and measure the hold'em card abstraction."""

from __future__ import annotations

import argparse

HELP = "build the hold'em card abstraction (bucket tables) and report its quality"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="build the bucket tables of a preset (resumes an interrupted build)")
    b.add_argument("--preset", default="tiny", help="tiny (minutes), default (hundreds of buckets) or large (thousands; default tiny)")
    b.add_argument("--force", action="store_true",
                   help="rebuild the clustering even if a manifest exists (default: reuse)")
    b.add_argument("--no-progress", action="store_true", help="no progress bars (default: bars)")
    r = sub.add_parser("report", help="within-bucket EHS spread per round of built presets")
    r.add_argument("--preset", default="tiny",
                   help="a built preset (tiny, default, large), or several comma-separated side by side (default tiny)")
    r.add_argument("--exploitability", action="store_true",
                   help="also solve nlfh-small with flop buckets and measure real-game exploitability (default: off)")
    r.add_argument("--buckets", default="3,10", help="flop bucket counts for --exploitability (default 3,10)")
    r.add_argument("--iterations", type=int, default=300, help="CFR iterations for --exploitability (default 300)")
    r.add_argument("--ochs-levels", type=int, default=0,
                   help="with --exploitability, also measure each bucket count clustered as the large preset's river: "
                        "this many equity levels, each split by OCHS over 8 opponent groups (the count must divide "
                        "every --buckets; default 0: equity buckets only)")
    w = sub.add_parser("bucket", help="print the bucket of a hand, e.g. AsKs 2s7sQd")
    w.add_argument("--preset", default="tiny", help="a built preset: tiny, default or large (default tiny)")
    w.add_argument("hole", help="two hole cards, e.g. AsKs")
    w.add_argument("board", nargs="?", default="", help="0, 3, 4 or 5 board cards, e.g. 2s7sQd (default: none)")


def run(args: argparse.Namespace) -> int:
    import json

    from abstraction.buckets import build_abstraction, load_abstraction
    from pokerbot.commands._args import ArgumentError, count, int_list

    if args.action == "report":
        if args.exploitability:
            count("--iterations", args.iterations)
            ks = int_list("--buckets", args.buckets, 1, 1000)
            if args.ochs_levels < 0:
                raise ArgumentError(f"--ochs-levels must be >= 0, got {args.ochs_levels}")
            if args.ochs_levels and any(k % args.ochs_levels for k in ks):
                raise ArgumentError(f"--ochs-levels {args.ochs_levels} must divide every --buckets count ({args.buckets})")
    if args.action == "bucket":
        from abstraction.isomorphism import BOARD_CARDS
        from pokerbot.cards import parse_cards

        hole, board = parse_cards(args.hole), parse_cards(args.board)
        if len(hole) != 2:
            raise ArgumentError(f"HOLE must be two cards, got {args.hole!r}")
        if len(board) not in BOARD_CARDS:
            raise ArgumentError(f"BOARD must have 0, 3, 4 or 5 cards, got {args.board!r}")
        ab = load_abstraction(args.preset, build_if_missing=False)
        print(ab.bucket(BOARD_CARDS.index(len(board)), hole, board))
        return 0
    if args.action == "build":
        from abstraction.buckets import artifact_dir

        print(f"building card abstraction {args.preset!r} in {artifact_dir(args.preset)} "
              f"(reuses finished stages; tiny takes a few minutes)", flush=True)
        d = build_abstraction(args.preset, progress=not args.no_progress, force=args.force)
        m = json.loads((d / "manifest.json").read_text())
        sizes = "/".join(str(b) for b in m["config"]["buckets"])
        print(f"card abstraction {args.preset!r}: {sizes} buckets (preflop/flop/turn/river) in {d} "
              f"(built in {m['build_seconds']} s)")
        return 0
    from abstraction.quality import ehs_spread, format_comparison, format_report, nlfh_small_exploitability

    presets = [p.strip() for p in args.preset.split(",") if p.strip()]
    if len(presets) > 1:
        reports = {}
        for name in presets:
            one = load_abstraction(name, build_if_missing=False)
            assert one.path is not None
            reports[name] = ehs_spread(one.path)
        print(format_comparison(reports))
        presets = presets[:1]
        if not args.exploitability:
            return 0
    ab = load_abstraction(presets[0], build_if_missing=False)
    sizes = "/".join(str(ab.num_buckets(r)) for r in range(4))
    print(f"card abstraction {args.preset!r}: {sizes} buckets (preflop/flop/turn/river) in {ab.path}")
    assert ab.path is not None  # a loaded abstraction has its folder
    print(format_report(ehs_spread(ab.path)))
    if args.exploitability:
        lossless = nlfh_small_exploitability(None, iterations=args.iterations)["exploitability"]
        print(f"nlfh-small, real-game exploitability after {args.iterations} iterations (mbb/g): "
              f"lossless flop {lossless:.1f}")
        for k in int_list("--buckets", args.buckets, 1, 1000):
            res = nlfh_small_exploitability(k, iterations=args.iterations)
            line = f"  {k} flop buckets: equity {res['exploitability']:.1f}"
            if args.ochs_levels:
                och = nlfh_small_exploitability(k, iterations=args.iterations, features="ochs", levels=args.ochs_levels)
                line += f", OCHS ({args.ochs_levels} levels x {k // args.ochs_levels}) {och['exploitability']:.1f}"
            print(line)
    return 0
