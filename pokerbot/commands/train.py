"""``pokerbot train CONFIG``: train a blueprint with external-sampling MCCFR (resumes by default)."""

from __future__ import annotations

import argparse

HELP = "train a blueprint (MCCFR) from a TOML config in configs/ (resumes from its checkpoint)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leduc, hunl-tiny, ...)")
    parser.add_argument("--iterations", type=int, help="total iterations, counting those already done "
                        "(default: the config's)")
    parser.add_argument("--fresh", action="store_true",
                        help="ignore an existing checkpoint and start over (default: resume)")
    parser.add_argument("--workers", type=int, help="ray workers (default: the config's)")
    parser.add_argument("--ray-address", help="ray cluster address ('auto', host:port; default: local)")
    parser.add_argument("--eval-every", type=int,
                        help="exploitability every N iterations, small games only; 0 for never (default: the config's)")
    parser.add_argument("--checkpoint-every", type=int, help="checkpoint every N iterations (default: the config's)")
    parser.add_argument("--dir", help="run directory (default: $POKERBOT_HOME/blueprints/<config name>)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar)")


def run(args: argparse.Namespace) -> int:
    from pokerbot.commands._args import optional_count, writable_directory

    optional_count("--iterations", args.iterations)
    optional_count("--workers", args.workers, 1, 1024)
    optional_count("--eval-every", args.eval_every, 0)
    optional_count("--checkpoint-every", args.checkpoint_every)
    if args.dir is not None:
        writable_directory("--dir", args.dir)

    from blueprint.config import load_config
    from blueprint.storage import blueprint_dir
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
    from pokerbot.resources import cap_workers

    cfg = cfg.replace(workers=cap_workers(cfg.workers, "workers", cfg.ray_address))
    if args.dir is None:
        writable_directory("the run directory", blueprint_dir(cfg.name))
    print(f"{cfg.name}: building the abstract game of {cfg.game} ({cfg.cards} cards, {cfg.actions} actions)",
          flush=True)
    trainer = Trainer(cfg, directory=args.dir or True)
    try:
        facts = trainer.describe()
        print(f"{facts['nodes']:,} nodes, {facts['infosets']:,} information sets, "
              f"{facts['memory_bytes'] / 1e6:.1f} MB; run directory {trainer.directory}", flush=True)
        if args.fresh and trainer.checkpoint_path.is_file():
            trainer.checkpoint_path.unlink()
        evaluate = small_game_evaluator(trainer) if cfg.eval_every else None
        result = trainer.train(args.iterations, resume=not args.fresh, evaluate=evaluate,
                               progress=not args.no_progress)
    finally:
        trainer.close()
    state = "interrupted, checkpoint saved" if result.interrupted else "done"
    assert trainer.directory is not None  # made with a directory above
    print(f"{state}: {trainer.iteration:,} iterations ({result.iterations:,} new, "
          f"{result.iterations_per_second:,.0f} it/s); blueprint {trainer.directory / 'blueprint.npz'}")
    for it, value in result.exploitability[-3:]:
        print(f"  exploitability after {it:,} iterations: {value:.2f} mbb/g")
    return 0
