"""``pokerbot convert LOG --to phh|pokerstars``: an ACPC match log as PHH or PokerStars-style hand histories."""

from __future__ import annotations

import argparse

HELP = "convert an ACPC match log to PHH (pokerkit's hand-history standard) or PokerStars-style text"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="an ACPC match log (ours or the reference dealer's)")
    parser.add_argument("--to", required=True, choices=("phh", "pokerstars"),
                        help="the format: phh (one .phhs file of every hand) or pokerstars (text) "
                             "(required: no default)")
    parser.add_argument("--game", default=None,
                        help="a shipped game name or .game file (default: the game the log's header names)")
    parser.add_argument("--out", default=None, metavar="PATH",
                        help="the file to write (default: LOG with the suffix .phhs or .txt)")
    parser.add_argument("--force", action="store_true", help="replace an existing --out file (default: refuse)")


def run(args: argparse.Namespace) -> int:
    import datetime as dt
    import os
    from pathlib import Path

    from pokerbot.commands._args import ArgumentError, input_file, output_file

    log_path = input_file("LOG", args.log)
    from evaluation.export import FORMATS, export_text, game_of_log, pokerkit_variant, read_log_file

    out = Path(args.out) if args.out is not None else log_path.with_suffix(FORMATS[args.to])
    if out.exists() and os.path.samefile(out, log_path):
        raise ArgumentError(f"--out {os.fspath(out)!r} is the log itself; name another file")
    output_file("--out", out, force=args.force)

    from pokerbot.files import atomic_write_text

    game = game_of_log(log_path, args.game)
    pokerkit_variant(game)  # a game PHH and PokerStars cannot hold is refused before the log is read
    log = read_log_file(game, log_path)
    when = dt.datetime.fromtimestamp(log_path.stat().st_mtime, dt.timezone.utc)
    text = export_text(game, log, args.to, when=when)
    atomic_write_text(out, text)
    print(f"wrote {len(log.hands)} hands of {game.name} as {args.to} to {os.fspath(out)}")
    return 0
