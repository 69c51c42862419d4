"""``pokerbot demo``: a quick local HUNL match between two baseline bots (what ``make demo`` runs)."""

from __future__ import annotations

import argparse

HELP = "play a short local HUNL match between baseline bots and print each bot's mbb/g with its 95-percent confidence interval"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=4000, help="hands to play (default 4000, duplicate pairs)")
    parser.add_argument("--seed", type=int, default=0, help="card seed (default 0)")
    parser.add_argument("--a", default="equity", help="first bot (default equity)")
    parser.add_argument("--b", default="random", help="second bot (default random)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from evaluation.match import baseline_demo

    baseline_demo(args.a, args.b, hands=args.hands, seed=args.seed, progress=not args.no_progress)
    return 0
