"""``pokerbot street-gain``: what re-solving one street gains over the blueprint, exact per public state.

The agent re-solves only the street named (every other round plays the blueprint) against the blueprint;
at public states drawn by blueprint self-play at that street's start, its expected winnings and the
blueprint's own are computed exactly over both players' hands and every later card
(:mod:`realtime.street_gain`). Variants of the agent (config settings) are measured on the same states,
so the table's paired column compares them with the first. Results go to a JSON-lines file as they are
made; the same command resumes a stopped run, and the table is printed at the end.
"""

from __future__ import annotations

import argparse

HELP = ("measure what the real-time agent's re-solving of one street gains over its blueprint, exactly at "
        "public states drawn by self-play, for variants of its config (resumes)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="hunl-tiny",
                        help="the real-time agent: a configs/realtime-NAME.toml name or a TOML path (default hunl-tiny)")
    parser.add_argument("--street", default="turn", choices=["preflop", "flop", "turn", "river"],
                        help="the street re-solved; its tree to the end of the hand must fit (default turn)")
    parser.add_argument("--turn-cards", type=int, default=None, metavar="N",
                        help="on the flop: turn cards drawn at each state to stand for all 49, the same for every "
                             "variant (default 4; the tree with every turn card does not fit)")
    parser.add_argument("--states", type=int, default=20, help="public states measured (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the self-play that draws the states (default 0)")
    parser.add_argument("--variant", action="append", default=[], metavar="'NAME[: key=value, ...]'",
                        help="an agent measured: the config with these settings (TOML values, dotted keys such as "
                             "leaves.rollouts=30 or round.2.iterations=50); repeat for more; the first is the "
                             "paired column's reference (default: one variant, 'shipped', the config as it is)")
    parser.add_argument("--out", default=None, metavar="PATH",
                        help="results file (JSON lines; resumed when it holds this design; default "
                             "runs/street-gain-<config>-<street>-s<seed>.jsonl)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pokerbot.commands._args import count, output_file, seed
    from pokerbot.errors import PokerbotError

    count("--states", args.states, high=100_000)
    seed("--seed", args.seed)
    from realtime.street_gain import STREETS, Design, Variant, measure, render, table

    variants = tuple(Variant.parse(v) for v in args.variant) or (Variant("shipped"),)
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise PokerbotError(f"--variant names must differ: {names}")
    street = STREETS[args.street]
    if args.turn_cards is not None and street != STREETS["flop"]:
        raise PokerbotError("--turn-cards is for --street flop (later streets take every card)")
    turn_cards = (4 if args.turn_cards is None else count("--turn-cards", args.turn_cards, high=49)) \
        if street == STREETS["flop"] else 0
    design = Design(args.config, street, args.states, args.seed, variants, turn_cards)
    out = args.out or str(Path("runs") / f"street-gain-{Path(args.config).stem}-{args.street}-s{args.seed}.jsonl")
    output_file("--out", out, make_parents=True)
    from pokerbot.files import exclusive

    with exclusive(out, "the results file"):
        results, sampled = measure(design, out, progress=not args.no_progress)
    game = sampled.states[0].game
    print(render(design, table(design, results, sampled.reach_fraction, game.big_blind), sampled.reach_fraction))
    print(f"results: {out}")
    return 0
