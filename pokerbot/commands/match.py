"""``pokerbot match``: a match between two agents, in-process or over ACPC sockets."""

from __future__ import annotations

import argparse

HELP = "play a heads-up match between two agents and print A's mbb/g with its 95-percent confidence interval"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A", help="agent spec of A: random, call, raise, equity or package.module:factory[?k=v]")
    parser.add_argument("b", metavar="B", help="agent spec of B (same forms as A)")
    parser.add_argument("--game", default="hunl", help="a shipped game name or .game file (default hunl)")
    parser.add_argument("--hands", type=int, default=1000, help="number of hands (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="card seed, as the ACPC dealer's (default 0)")
    parser.add_argument("--duplicate", action="store_true", help="play every deal twice with seats swapped (default: once)")
    parser.add_argument("--over-acpc", action="store_true",
                        help="play through the dealer over loopback sockets (default: in-process)")
    parser.add_argument("--log", default=None, metavar="PATH",
                        help="ACPC-format log, replaced if it exists (the command says so first; default runs/<A>_vs_<B>.<game>.s<seed>.log)")
    parser.add_argument("--no-log", action="store_true", help="write no log (default: write one)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar)")


def run(args: argparse.Namespace) -> int:
    import contextlib
    from pathlib import Path

    from pokerbot.commands._args import agent_spec, count, output_file, seed

    count("--hands", args.hands)
    from pokerbot.resources import check_memory

    check_memory(32 * args.hands, f"a match of {args.hands:,} hands", "play fewer hands, or several matches")
    agent_spec("A", args.a)
    agent_spec("B", args.b)
    seed("--seed", args.seed)
    if args.log and not args.no_log:
        output_file("--log", args.log, make_parents=True)

    from evaluation.match import MatchAborted, play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game(args.game)
    agent_a = make_agent(args.a, game, seed=(2 * args.seed + 1) % 2**32)
    agent_b = make_agent(args.b, game, seed=(2 * args.seed + 2) % 2**32)
    log_path = None
    if not args.no_log:
        if args.log:
            log_path = Path(args.log)
        else:
            from evaluation.match import match_names

            a, b = match_names(agent_a, agent_b)
            log_path = Path("runs") / f"{a}_vs_{b}.{game.name}.s{args.seed}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        if log_path.exists():
            print(f"replacing the log {log_path} of an earlier match", flush=True)
    from pokerbot.files import exclusive

    try:
        with exclusive(log_path, "the log") if log_path else contextlib.nullcontext():  # two matches, one log
            result = play_match(agent_a, agent_b, game, args.hands, args.seed, duplicate=args.duplicate,
                                log_path=log_path, progress=not args.no_progress, over_acpc=args.over_acpc)
    except MatchAborted as exc:  # a failure: the hands finished before on stdout, the error on stderr (exit 1)
        if exc.result.hands:
            print(exc.result.summary() + " [stopped early]", flush=True)
        raise
    print(result.summary())
    if log_path:
        print(f"log: {log_path}")
    return 0

