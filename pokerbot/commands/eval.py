"""``pokerbot eval CONFIG``: an evaluation experiment (matches with AIVAT, LBR, training curves) with reports and plots."""

from __future__ import annotations

import argparse
import dataclasses

HELP = ("run an evaluation experiment from a TOML file: matches with AIVAT, local best response, exploitability "
        "curves; writes ACPC logs, results.csv, results.md and PNG plots (resumable)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG",
                        help="experiment TOML file (see configs/eval-*.toml and docs/evaluation.md)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="output folder (default: the file's `out`, else runs/eval-<name>); rerun to resume")
    parser.add_argument("--hands", type=int, default=None,
                        help="override hands per matchup (default: the file's `hands`)")
    parser.add_argument("--lbr-hands", type=int, default=None, metavar="N",
                        help="override the hands of every [[lbr]] run (default: each run's `hands`; a longer "
                             "run keeps the pieces already played)")
    parser.add_argument("--workers", type=int, default=None,
                        help="override ray workers (default: the file's `workers`; 1 runs in-process)")
    parser.add_argument("--ray-address", default=None,
                        help="ray cluster address ('auto', host:port) (default: the file's `ray_address`; '' is local)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--status", action="store_true",
                        help="print how far the experiment has got (pieces and hands played, pace, fallbacks, time "
                             "left) without its results, and play nothing; safe beside a running evaluation")


def run(args: argparse.Namespace) -> int:
    from evaluation.experiment import ExperimentError, load_experiment, run_experiment

    exp = load_experiment(args.config)
    if args.out:
        exp.out = args.out
    if args.hands is not None:
        if args.hands < 2 or (exp.duplicate and args.hands % 2):
            raise ExperimentError(f"--hands must be at least 2 (and even for duplicate matches), got {args.hands}")
        exp.hands = args.hands
    if args.lbr_hands is not None:
        if args.lbr_hands < 2 or args.lbr_hands % 2:
            raise ExperimentError(f"--lbr-hands must be even and at least 2 (LBR plays duplicate pairs), got "
                                  f"{args.lbr_hands}")
        exp.lbr = [dataclasses.replace(run, hands=args.lbr_hands) for run in exp.lbr]
    if args.workers is not None:
        if args.workers < 1:
            raise ExperimentError(f"--workers must be at least 1, got {args.workers}")
        exp.workers = args.workers
    if args.ray_address is not None:
        exp.ray_address = args.ray_address
    if args.status:
        from evaluation.experiment import experiment_progress, format_progress

        print(format_progress(exp, experiment_progress(exp)))
        return 0
    from pokerbot.resources import cap_workers

    exp.workers = cap_workers(exp.workers, "workers", exp.ray_address)
    from pokerbot.resources import check_memory

    check_memory(32 * exp.hands * max(len(exp.pairs()), 1), f"{len(exp.pairs())} matches of {exp.hands:,} hands",
                 "play fewer hands")
    run_experiment(exp, progress=not args.no_progress)
    return 0
