"""``pokerbot demo`` (what ``make demo`` runs): the tiny HUNL blueprint against every baseline bot.

The first run builds the ``tiny`` card abstraction (about two minutes) and trains
the ``tiny`` blueprint (2M external-sampling MCCFR iterations, under a minute);
both are cached under ``$POKERBOT_HOME``, so later runs go straight to the
matches. ``--baseline`` plays only a quick match between two baseline bots.
"""

from __future__ import annotations

import argparse

HELP = ("train (or reuse) the tiny HUNL blueprint and play it against the baseline bots, "
        "printing mbb/g with 95-percent confidence intervals")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=4000, help="duplicate hands per opponent (default 4000)")
    parser.add_argument("--seed", type=int, default=0, help="card and agent seed (default 0)")
    parser.add_argument("--iterations", type=int, default=2_000_000,
                        help="MCCFR iterations of the tiny blueprint (default 2,000,000; resumes a shorter run)")
    parser.add_argument("--baseline", action="store_true",
                        help="skip the blueprint: a quick match between two baseline bots (--a, --b; default: the full demo)")
    parser.add_argument("--a", default="equity", help="with --baseline: first bot (default equity)")
    parser.add_argument("--b", default="random", help="with --baseline: second bot (default random)")
    parser.add_argument("--report", default=None, metavar="DIR",
                        help="play the matches as a `pokerbot eval` experiment (AIVAT, logs, tables, plots) "
                             "written to DIR (default: off, the quick matches)")
    parser.add_argument("--realtime-hands", type=int, default=4,
                        help="then duplicate hands of the real-time agent against the blueprint and the call bot, "
                             "with its decision times; 0 skips it (default 4)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (default: bars)")


def run(args: argparse.Namespace) -> int:
    from pokerbot.commands._args import agent_spec, count, seed

    count("--hands", args.hands, 2)
    seed("--seed", args.seed)
    count("--iterations", args.iterations)
    count("--realtime-hands", args.realtime_hands, 0)
    agent_spec("--a", args.a)
    agent_spec("--b", args.b)
    progress = not args.no_progress
    if args.baseline:
        from evaluation.match import baseline_demo

        baseline_demo(args.a, args.b, hands=args.hands, seed=args.seed, progress=progress)
        return 0
    from evaluation.demo import run_demo

    print(f"training (or resuming) the tiny HUNL blueprint to {args.iterations:,} MCCFR iterations "
          f"(about a minute the first time; the tiny card abstraction is built first if missing), "
          f"then {args.hands:,} duplicate hands against each baseline", flush=True)
    run_demo(iterations=args.iterations, hands=args.hands, seed=args.seed, progress=progress, report=args.report,
             realtime_hands=args.realtime_hands)
    return 0
