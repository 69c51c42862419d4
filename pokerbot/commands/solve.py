"""``pokerbot solve``: solve a game with a CFR-family algorithm and write the strategy file."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokerbot.gamedef import GameDef
    from pokerbot.menus import BetMenuFn

HELP = "solve a game (CFR, CFR+, Linear CFR, DCFR) and write its strategy; prints exploitability as it goes"


def add_menu_arguments(parser: argparse.ArgumentParser) -> None:
    """Bet-menu options shared with ``pokerbot exploitability`` (no-limit games only)."""
    parser.add_argument("--bet-sizes", default=None, metavar="F1,F2",
                        help="no-limit raises as pot fractions (default 0.5,1; '-' for none)")
    parser.add_argument("--no-all-in", action="store_true", help="no-limit: leave all-in out of the menu (default: all-in in)")
    parser.add_argument("--max-raises", type=int, default=None, metavar="N",
                        help="no-limit: raises kept per round (default 3)")


def menu_from_args(args: argparse.Namespace, game: GameDef, fallback: str | None = None) -> BetMenuFn:
    """The bet menu the options describe (or ``fallback`` spec, or the game's default)."""
    from pokerbot.solver import default_menu, menu_from_spec, pot_fraction_menu

    if not game.nolimit:
        return default_menu(game)
    if args.bet_sizes is None and not args.no_all_in and args.max_raises is None:
        return menu_from_spec(fallback) if fallback else default_menu(game)
    from pokerbot.commands._args import float_list

    sizes = (0.5, 1.0) if args.bet_sizes is None else (
        () if args.bet_sizes.strip() == "-" else float_list("--bet-sizes", args.bet_sizes)
    )
    return pot_fraction_menu(sizes, not args.no_all_in, 3 if args.max_raises is None else args.max_raises)


def check_menu_arguments(args: argparse.Namespace) -> None:
    """Validate the options of :func:`add_menu_arguments` before any work."""
    from pokerbot.commands._args import ArgumentError, count, float_list

    if args.bet_sizes is not None and args.bet_sizes.strip() != "-":
        if any(size <= 0 for size in float_list("--bet-sizes", args.bet_sizes)):
            raise ArgumentError(f"--bet-sizes must be positive pot fractions, got {args.bet_sizes!r}")
    if args.max_raises is not None:
        count("--max-raises", args.max_raises, 0, 255)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help="a shipped game name (kuhn, leduc, leduc-nl, nlfh-small, ...) or a .game file")
    parser.add_argument("--algorithm", default="cfr+", choices=["cfr", "cfr+", "lcfr", "dcfr"],
                        help="CFR, CFR+, Linear CFR or Discounted CFR (default cfr+)")
    parser.add_argument("--iterations", type=int, default=1000, metavar="N",
                        help="total iterations (with --checkpoint, counting those already done; default 1000)")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="strategy file to write (.gz to compress; default: none)")
    parser.add_argument("--force", action="store_true", help="replace an existing --out file (default: refuse)")
    parser.add_argument("--eval-every", type=int, default=None, metavar="N",
                        help="compute exploitability every N iterations, 0 for only at the end "
                        "(default: iterations/10)")
    parser.add_argument("--target", type=float, default=None, metavar="MBB",
                        help="stop once exploitability is at most MBB mbb/g (default: run every iteration)")
    parser.add_argument("--simultaneous", action="store_true", help="simultaneous instead of alternating updates (default: alternating)")
    parser.add_argument("--averaging", default=None, choices=["uniform", "linear", "quadratic"],
                        help="average-strategy weighting (default: per algorithm)")
    parser.add_argument("--checkpoint", default=None, metavar="FILE.npz",
                        help="resume from FILE.npz if it exists; save to it at every evaluation and at the end "
                        "(default: none)")
    add_menu_arguments(parser)
    parser.add_argument("--no-progress", "-q", "--quiet", dest="quiet", action="store_true",
                        help="no progress bar, as in every command (-q and --quiet are aliases; default: a bar)")


def run(args: argparse.Namespace) -> int:
    import os

    from pokerbot.commands._args import count, input_file, number, optional_count, output_file

    count("--iterations", args.iterations)
    optional_count("--eval-every", args.eval_every, 0)
    number("--target", args.target)
    check_menu_arguments(args)
    if args.out is not None:
        output_file("--out", args.out, force=args.force)
    if args.checkpoint is not None:
        output_file("--checkpoint", args.checkpoint)
        if os.path.exists(args.checkpoint):
            input_file("--checkpoint", args.checkpoint)
        from pokerbot.files import exclusive

        with exclusive(args.checkpoint, "--checkpoint"):  # two solves on one checkpoint: the second stops at once
            return _solve(args)
    return _solve(args)


def _solve(args: argparse.Namespace) -> int:
    import os
    import time

    from pokerbot.errors import CheckpointError
    from pokerbot.gamedef import load_game
    from pokerbot.solver import Solver, build_tree, menu_spec, save_strategy

    game = load_game(args.game)
    menu = menu_from_args(args, game)
    from pokerbot.resources import check_memory
    from pokerbot.solver.tree import estimate_size

    nodes, slots, need = estimate_size(game, menu)  # HUNL's tree would grow until the machine gives out
    check_memory(need, f"solving {game.name} whole ({nodes:,} public nodes, {slots:,} strategy entries)",
                 "solve a smaller game, or a spot of it with `pokerbot spot`")
    start = time.perf_counter()
    tree = build_tree(game, menu)
    print(f"{game.name}: {tree.num_nodes:,} nodes, {tree.num_hands[0]:,} hands per player, "
          f"{tree.num_slots:,} strategy entries, {tree.memory_bytes() / 1e6:.1f} MB "
          f"(built in {time.perf_counter() - start:.2f} s)", flush=True)
    solver = Solver(tree, args.algorithm, alternating=not args.simultaneous, averaging=args.averaging)
    every = args.eval_every if args.eval_every is not None else max(1, args.iterations // 10)
    if args.checkpoint and os.path.exists(args.checkpoint):
        start_over = f"delete {args.checkpoint} (or name another --checkpoint) to start over"
        try:
            solver.load_checkpoint(args.checkpoint)
        except CheckpointError as exc:
            raise CheckpointError(f"{exc}; {start_over}") from None
        if solver.iteration < 0:
            raise CheckpointError(f"{args.checkpoint}: negative iteration count {solver.iteration}; {start_over}")
        print(f"resumed from {args.checkpoint} at iteration {solver.iteration}", flush=True)
    remaining = max(0, args.iterations - solver.iteration)

    class _Stop(Exception):
        pass

    def save_checkpoint() -> None:
        """Save with stop signals held back until the file is whole (an interrupted zip write is an error)."""
        from pokerbot.interrupts import held

        with held():
            solver.save_checkpoint(args.checkpoint)

    def report(it: int, mbb: float) -> None:
        print(f"iteration {it}: exploitability {mbb:.6g} mbb/g", flush=True)
        if args.checkpoint:
            save_checkpoint()
        if args.target is not None and mbb <= args.target:
            raise _Stop

    start = time.perf_counter()
    try:
        solver.run(remaining, progress=not args.quiet, eval_every=every, callback=report)
    except _Stop:
        pass
    finally:
        if args.checkpoint:
            save_checkpoint()
    seconds = time.perf_counter() - start
    strat = solver.average_strategy()
    from pokerbot.solver import exploitability, expected_value

    mbb = exploitability(tree, strat)
    value = expected_value(tree, strat)
    print(f"{args.algorithm}: {solver.iteration} iterations in {seconds:.2f} s; "
          f"exploitability {mbb:.6g} mbb/g; value for player 0 {value:+.6f} chips")
    if args.out:
        extra = {"algorithm": args.algorithm, "iterations": str(solver.iteration), "exploitability_mbb": repr(mbb)}
        spec = menu_spec(menu)
        if spec:
            extra["menu"] = spec
        lines = save_strategy(args.out, tree, strat, extra)
        print(f"wrote {lines:,} information sets to {args.out}")
    return 0
