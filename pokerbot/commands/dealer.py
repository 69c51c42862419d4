"""``pokerbot dealer``: an ACPC 2.0.0 dealer with the reference dealer's command line."""

from __future__ import annotations

import argparse

HELP = "run an ACPC 2.0.0 dealer (same arguments and log format as the reference dealer)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = "pokerbot dealer MATCH GAMEDEF HANDS SEED NAME1 NAME2 ... [options]"
    parser.description = (
        "Prints one port per seat, waits for the players, plays HANDS hands dealt from SEED "
        "(the same cards as the reference dealer with that seed), rotating seats, and writes MATCH.log."
    )
    parser.add_argument("match", metavar="MATCH", help="match name (the log is MATCH.log)")
    parser.add_argument("gamedef", metavar="GAMEDEF", help="a .game file or a shipped game name (hunl, kuhn, ...)")
    parser.add_argument("hands", metavar="HANDS", type=int, help="number of hands (at least 1)")
    parser.add_argument("seed", metavar="SEED", type=int, help="card seed (0..2**32-1)")
    parser.add_argument("names", metavar="NAME", nargs="+", help="one name per seat")
    parser.add_argument("-f", dest="fixed", action="store_true", help="fixed seats (default: seats rotate between hands)")
    parser.add_argument("-l", dest="log", action="store_false", default=True, help="disable the log file")
    parser.add_argument("-L", dest="log", action="store_true", help="enable the log file (default)")
    parser.add_argument("-p", dest="ports", default="", help="seat ports, comma separated (default: any free port)")
    parser.add_argument("-q", dest="quiet", action="store_true",
                        help="print only errors, warnings and the score (the default; kept for the reference's "
                        "command line)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="trace every message to and from the seats on stderr, as the reference dealer does "
                        "without -q (default: quiet)")
    parser.add_argument("-t", dest="transaction", action="store_false", default=False,
                        help="no transaction file (default)")
    parser.add_argument("-T", dest="transaction", action="store_true", help="transaction file (not supported)")
    parser.add_argument("-a", dest="append", action="store_true", help="append to the log (default: overwrite)")
    parser.add_argument("--t_response", type=int, default=600_000, metavar="MS", help="maximum time per response (default 600000)")
    parser.add_argument("--t_hand", type=int, default=600_000, metavar="MS", help="maximum player time per hand (default 600000)")
    parser.add_argument("--t_per_hand", type=int, default=7_000, metavar="MS",
                        help="maximum average player time per hand over the match (default 7000)")
    parser.add_argument("--start_timeout", type=int, default=-1, metavar="MS",
                        help="maximum time to wait for the players to connect (<0: no limit; default -1)")
    parser.add_argument("--max_invalid", type=int, default=2**32 - 1, metavar="N",
                        help="invalid actions a seat may make (each becomes a call) before the match ends "
                        "with an error (extension; the reference fixes 2**32-1)")
    parser.add_argument("--duplicate", action="store_true",
                        help="deal each pair of hands the same cards, seats swapped (extension; default: off)")
    parser.add_argument("--coalesce", action="store_true",
                        help="send a seat its states only when it must act, several per write (extension; default: off)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pokerbot.errors import PokerbotError
    from pokerbot.gamedef import load_game
    from pokerbot.protocol.dealer import Dealer, DealerConfig

    from pokerbot.commands._args import MAX_COUNT, count, output_file, seed

    if args.transaction:
        raise PokerbotError("transaction files (-T) are not supported")
    count("HANDS", args.hands)
    seed("SEED", args.seed)
    for name in ("t_response", "t_hand", "t_per_hand"):
        count(f"--{name}", getattr(args, name), 0, MAX_COUNT)
    count("--start_timeout", args.start_timeout, -1, MAX_COUNT)
    count("--max_invalid", args.max_invalid, 0, 2**32 - 1)
    try:
        ports = [int(p) for p in args.ports.split(",")] if args.ports else None
    except ValueError:
        raise PokerbotError(f"-p: bad port list {args.ports!r} (want comma-separated numbers)") from None
    for port in ports or ():
        count("-p", port, 0, 65535)
    if args.log:
        output_file("MATCH", args.match + ".log")
    game = load_game(args.gamedef)
    config = DealerConfig(
        args.match, game, args.hands, args.seed, args.names, game_file=args.gamedef, ports=ports,
        fixed_seats=args.fixed, log=args.log, append=args.append, quiet=not args.verbose,
        t_response_ms=args.t_response, t_hand_ms=args.t_hand, t_per_hand_ms=args.t_per_hand,
        start_timeout_ms=args.start_timeout, max_invalid=args.max_invalid, duplicate=args.duplicate, coalesce=args.coalesce,
        host=args.host,
    )
    result = Dealer(config, out=sys.stdout, err=sys.stderr).run()
    return 1 if result.error else 0
