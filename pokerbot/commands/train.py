"""``pokerbot train CONFIG``: train a blueprint with external-sampling MCCFR (resumes by default)."""

from __future__ import annotations

import argparse

HELP = "train a blueprint (MCCFR) from a TOML config in configs/ (resumes from its checkpoint)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leduc, hunl-tiny, ...)")
    parser.add_argument("--iterations", type=int, help="total iterations (default: the config's)")
    parser.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint and start over")
    parser.add_argument("--workers", type=int, help="ray workers (default: the config's)")
    parser.add_argument("--ray-address", help="ray cluster address ('auto', host:port); default: local")
    parser.add_argument("--eval-every", type=int, help="exploitability every N iterations (small games)")
    parser.add_argument("--checkpoint-every", type=int, help="checkpoint every N iterations")
    parser.add_argument("--dir", help="run directory (default: $POKERBOT_HOME/blueprints/<name>)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from blueprint.config import load_config
    from blueprint.trainer import Trainer, small_game_evaluator

    cfg = load_config(args.config)
    changes = {}
    if args.workers is not None:
        changes["workers"] = args.workers
    if args.ray_address is not None:
        changes["ray_address"] = args.ray_address
    if args.eval_every is not None:
        changes["eval_every"] = args.eval_every
    if args.checkpoint_every is not None:
        changes["checkpoint_every"] = args.checkpoint_every
    if changes:
        cfg = cfg.replace(**changes)
    trainer = Trainer(cfg, directory=args.dir or True)
    try:
        print(f"{cfg.name}: {trainer.describe()}")
        print(f"run directory: {trainer.directory}")
        if args.fresh and trainer.checkpoint_path.is_file():
            trainer.checkpoint_path.unlink()
        evaluate = small_game_evaluator(trainer) if cfg.eval_every else None
        result = trainer.train(args.iterations, evaluate=evaluate, progress=not args.no_progress)
    finally:
        trainer.close()
    state = "interrupted, checkpoint saved" if result.interrupted else "done"
    print(f"{state}: {trainer.iteration:,} iterations ({result.iterations:,} new, "
          f"{result.iterations_per_second:,.0f} it/s); blueprint {trainer.directory / 'blueprint.npz'}")
    for it, value in result.exploitability[-3:]:
        print(f"  exploitability after {it:,} iterations: {value:.2f} mbb/g")
    return 0
