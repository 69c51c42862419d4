"""``pokerbot sog train|eval|bench``: Student of Games (GT-CFR + CVPN + sound self-play), see docs/sog.md."""

from __future__ import annotations

import argparse

#: Listed under this heading in ``pokerbot --help``.
GROUP = "research systems and paper reproductions"
HELP = "Student of Games: train a CVPN by sound self-play, or measure exploitability with the paper's protocol"


def _settings(text: str) -> tuple[int, float]:
    try:
        s, c = text.split(",")
        return int(s), float(c)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected S,C (e.g. 100,1), got {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="sog_command", metavar="ACTION", required=True)
    t = sub.add_parser("train", help="train from a TOML config (configs/sog-*.toml); resumes from its checkpoint")
    t.add_argument("config", help="a TOML file or the name of one in configs/ (sog-leduc, sog-kuhn)")
    t.add_argument("--steps", type=int, help="total gradient steps (default: the config's)")
    t.add_argument("--workers", type=int, help="ray actors, 0 = in this process (default: the config's)")
    t.add_argument("--ray-address", help="ray cluster address ('auto', host:port) (default: the config's, local)")
    t.add_argument("--eval-every", type=int, help="exploitability protocol every N steps (default: the config's)")
    t.add_argument("--simulations", type=int, help="training search s of SoG(s, c) (default: the config's)")
    t.add_argument("--seed", type=int, help="seed of the run (default: the config's)")
    t.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint and start over (default: resume)")
    t.add_argument("--dir", help="run directory (default: $POKERBOT_HOME/sog/<config name>)")
    t.add_argument("--no-progress", action="store_true", help="no progress bar (default: shown)")

    e = sub.add_parser("eval", help="exact exploitability of composed SoG policies: min/mean/max over seeds, table + PNG")
    e.add_argument("--game", default="leduc", help="kuhn, leduc or leduc-nl (default: leduc)")
    e.add_argument("--checkpoint", help="a training checkpoint (checkpoint.pt or its run directory); "
                   "default: the exact subgame-solving value function in place of the network")
    e.add_argument("--exact-iterations", type=int, default=100,
                   help="CFR+ iterations of the exact value function's subgame solves (default: 100)")
    e.add_argument("--search", type=_settings, action="append",
                   help="S,C of a search SoG(S, C); repeat for several (default: 10,1 and 100,1)")
    e.add_argument("--seeds", type=int, default=5, help="seeds per setting (default: 5; the paper uses 50)")
    e.add_argument("--out", help="directory for eval.md / eval.csv / eval.png (default: the checkpoint's run "
                   "directory, else $POKERBOT_HOME/sog/eval-<game>)")
    e.add_argument("--over-steps", action="store_true",
                   help="with --checkpoint RUN_DIR: evaluate every network snapshot of the run (nets/step-*.pt) "
                   "under each --search, writing curves.csv / curves.png (default: only the checkpoint)")
    e.add_argument("--workers", type=int, default=0,
                   help="ray actors evaluating seeds in parallel, 0 = in this process (default: 0)")
    e.add_argument("--no-cache", action="store_true",
                   help="recompute every seed instead of reusing (and resuming from) OUT/seeds.csv (default: reuse)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar (default: shown)")


def run(args: argparse.Namespace) -> int:
    if args.sog_command == "train":
        return _train(args)
    return _eval(args)


def _train(args: argparse.Namespace) -> int:
    from pokerbot.files import plain_name, pokerbot_home
    from realtime.sog.search import SoGError
    from realtime.sog.training import Trainer, load_config

    cfg = load_config(args.config)
    changes = {k: v for k, v in (("steps", args.steps), ("workers", args.workers), ("ray_address", args.ray_address),
                                 ("eval_every", args.eval_every), ("simulations", args.simulations),
                                 ("seed", args.seed)) if v is not None}
    if changes:
        try:
            cfg = cfg.replace(**changes)
        except TypeError as exc:
            raise SoGError(str(exc)) from None
    from pokerbot.resources import cap_workers

    cfg = cfg.replace(workers=cap_workers(cfg.workers, "workers", cfg.ray_address))
    directory = args.dir or pokerbot_home() / "sog" / plain_name(cfg.name, "config name")
    if args.fresh:
        from pathlib import Path

        ck = Path(directory) / "checkpoint.pt"
        if ck.is_file():
            ck.unlink()
    trainer = Trainer(cfg, directory)
    print(f"{cfg.name}: {trainer.describe()}")
    print(f"run directory: {trainer.directory} (resuming at step {trainer.step})" if trainer.step else
          f"run directory: {trainer.directory}")
    result = trainer.train(progress=not args.no_progress)
    state = "interrupted, checkpoint saved" if result.interrupted else "done"
    print(f"{state}: step {trainer.step} ({result.steps} new), {result.examples} new examples from {result.units} "
          f"self-play units in {result.seconds:.0f} s")
    for step, lo, mean, hi in result.curve[-3:]:
        print(f"  step {step}: exploitability min {lo:.1f} / mean {mean:.1f} / max {hi:.1f} mbb/g")
    if result.curve:
        print(f"curve: {trainer.directory / 'curve.png'}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pokerbot.files import pokerbot_home
    from realtime.sog.evaluate import SeedCache, evaluate_table, write_table
    from realtime.sog.search import PublicGame, SoGError

    if args.seeds <= 0:
        raise SoGError(f"--seeds must be positive, got {args.seeds}")
    if args.exact_iterations <= 0:
        raise SoGError(f"--exact-iterations must be positive, got {args.exact_iterations}")
    if args.workers < 0:
        raise SoGError(f"--workers must be >= 0, got {args.workers}")
    from pokerbot.resources import cap_workers

    args.workers = cap_workers(args.workers, "--workers")
    searches = args.search or [(10, 1.0), (100, 1.0)]
    checkpoint = None
    if args.checkpoint:
        checkpoint = Path(args.checkpoint)
        if checkpoint.is_dir():
            checkpoint = checkpoint / "checkpoint.pt"
        if not checkpoint.is_file():
            raise SoGError(f"no checkpoint at {str(checkpoint)!r}")
    game = PublicGame.load(args.game)
    out = Path(args.out) if args.out else (checkpoint.parent if checkpoint else pokerbot_home() / "sog" / f"eval-{args.game}")
    from realtime.sog.resolve import SearchSettings

    for s, c in searches:
        SearchSettings(s, c)  # validates before any work
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SoGError(f"cannot create output directory {str(out)!r}: {exc}") from None
    if args.over_steps:
        if checkpoint is None:
            raise SoGError("--over-steps needs --checkpoint RUN_DIR")
        out = checkpoint.parent
    cache = SeedCache(None if args.no_cache else out / "seeds.csv")
    if args.over_steps:
        from realtime.sog.evaluate import snapshot_curves

        curves = snapshot_curves(game, out, searches, args.seeds, not args.no_progress, args.workers, cache)
        for label, pts in curves.items():
            for step, lo, mean, hi in pts:
                print(f"{label} step {step}: min {lo:.1f} / mean {mean:.1f} / max {hi:.1f} mbb/g")
        print(f"curves: {out / 'curves.md'}, {out / 'curves.png'}")
        return 0
    rows = evaluate_table(game, searches, args.seeds, checkpoint, args.exact_iterations, not args.no_progress,
                          args.workers, cache)
    text = write_table(rows, out, args.game, "network " + str(checkpoint) if checkpoint else "exact value function")
    print(text)
    print(f"table: {out / 'eval.md'}  figure: {out / 'eval.png'}")
    return 0
