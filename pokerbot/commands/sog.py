"""``pokerbot sog train|eval|games|general-train|general-eval|general-minimax``: Student of Games (GT-CFR +
CVPN + sound self-play), see docs/sog.md. ``train``/``eval`` run the poker engine (ACPC games); the
``general-*`` actions run the same algorithm on any game of :mod:`realtime.sog.fog`."""

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

    sub.add_parser("games", help="list the games general Student of Games loads, with their sizes")
    gt = sub.add_parser("general-train", help="train a CVPN by sound self-play on any general game; resumes from "
                        "the newest step-*.pt of --dir")
    gt.add_argument("--game", required=True, help="a game of `pokerbot sog games` (required: no default)")
    gt.add_argument("--steps", type=int, default=2000, help="total gradient steps (default: 2000)")
    gt.add_argument("--simulations", type=int, default=100, help="training search s of SoG(s, 1) (default: 100)")
    gt.add_argument("--checkpoint-every", type=int, default=250, help="save step-<n>.pt every N steps (default: 250)")
    gt.add_argument("--hidden", type=int, default=128, help="hidden units per layer (default: 128)")
    gt.add_argument("--layers", type=int, default=3, help="hidden layers (default: 3)")
    gt.add_argument("--seed", type=int, default=0, help="seed of the run (default: 0)")
    gt.add_argument("--dir", help="run directory (default: $POKERBOT_HOME/sog/general-<game>)")
    gt.add_argument("--no-progress", action="store_true", help="no progress line (default: shown)")
    ge = sub.add_parser("general-eval", help="exact exploitability of composed SoG policies on a general game "
                        "(min/mean/max over seeds), table + PNG; or against training steps")
    ge.add_argument("--game", required=True, help="a game of `pokerbot sog games` (required: no default)")
    ge.add_argument("--checkpoint", help="a network step-<n>.pt of general-train, or with --over-steps its run "
                    "directory (default: the exact subgame-solving value function)")
    ge.add_argument("--exact-iterations", type=int, default=200,
                    help="CFR+ iterations of the exact value function's subgame solves (default: 200)")
    ge.add_argument("--search", type=_settings, action="append",
                    help="S,C of a search SoG(S, C); repeat for several (default: 10,1 and 100,1)")
    ge.add_argument("--seeds", type=int, default=5, help="seeds per setting (default: 5; the paper uses 50)")
    ge.add_argument("--over-steps", action="store_true", help="evaluate every step-*.pt of the --checkpoint run "
                    "directory under each --search (curves.md / curves.csv / curves.png there)")
    ge.add_argument("--steps", type=int, action="append", dest="only_steps",
                    help="with --over-steps: only the checkpoint of this step; repeat for several (default: all)")
    ge.add_argument("--out", help="directory for eval.md / eval.csv / eval.png (default: "
                    "$POKERBOT_HOME/sog/general-eval-<game>)")
    ge.add_argument("--no-progress", action="store_true", help="no progress line (default: shown)")
    gm = sub.add_parser("general-minimax", help="play SoG against an exact minimax player in a perfect-information "
                        "game (seats alternate); prints wins / draws / losses")
    gm.add_argument("--game", default="tic-tac-toe", help="a perfect-information game (default: tic-tac-toe)")
    gm.add_argument("--search", type=_settings, default=(200, 1.0), dest="one_search",
                    help="S,C of the search (default: 200,1)")
    gm.add_argument("--games", type=int, default=10, help="games to play (default: 10)")
    gm.add_argument("--value", choices=("zero", "exact"), default="zero",
                    help="leaf values without --checkpoint: zero (search alone) or exact (default: zero)")
    gm.add_argument("--checkpoint", help="a network step-<n>.pt of general-train for the leaf values "
                    "(default: none, --value decides)")


def run(args: argparse.Namespace) -> int:
    if args.sog_command == "train":
        return _train(args)
    if args.sog_command == "games":
        return _games()
    if args.sog_command == "general-train":
        return _general_train(args)
    if args.sog_command == "general-eval":
        return _general_eval(args)
    if args.sog_command == "general-minimax":
        return _general_minimax(args)
    return _eval(args)


def _games() -> int:
    from realtime.sog.fog import GAMES, describe, load

    print("| game | nodes | public states | information states (p0, p1) | widest public state | perfect information |")
    print("|---|---|---|---|---|---|")
    for name in GAMES:
        d = describe(load(name))
        print(f"| {name} | {d['nodes']:,} | {d['public_states']:,} | {d['slots'][0]:,}, {d['slots'][1]:,} | "
              f"{d['max_slots'][0]}, {d['max_slots'][1]} | {'yes' if d['perfect_information'] else 'no'} |")
    return 0


def _positive(value: int, flag: str) -> None:
    from realtime.sog.search import SoGError

    if value <= 0:
        raise SoGError(f"{flag} must be positive, got {value}")


def _general_train(args: argparse.Namespace) -> int:
    from pokerbot.files import pokerbot_home
    from realtime.sog.fog import load
    from realtime.sog.fog_training import FogTrainConfig, train
    from realtime.sog.resolve import SearchSettings

    for flag in ("steps", "simulations", "checkpoint_every", "hidden", "layers"):
        _positive(getattr(args, flag), "--" + flag.replace("_", "-"))
    ps = load(args.game)
    cfg = FogTrainConfig(steps=args.steps, search=SearchSettings(args.simulations, 1.0), hidden=args.hidden,
                         layers=args.layers, checkpoint_every=args.checkpoint_every, seed=args.seed)
    directory = args.dir or pokerbot_home() / "sog" / f"general-{args.game}"
    print(f"{args.game}: training SoG({args.simulations},1) self-play into {directory}")
    result = train(ps, cfg, directory, progress=not args.no_progress)
    print(f"done: step {result.step}, {result.units} episodes, {result.seconds:.0f} s; "
          f"checkpoints: {', '.join(p.name for p in result.checkpoints)}")
    return 0


def _general_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pokerbot.files import pokerbot_home
    from realtime.sog.fog import load
    from realtime.sog.fog_evaluate import evaluate, steps_curve
    from realtime.sog.resolve import SearchSettings
    from realtime.sog.search import SoGError

    _positive(args.seeds, "--seeds")
    _positive(args.exact_iterations, "--exact-iterations")
    settings = [SearchSettings(s, c) for s, c in (args.search or [(10, 1.0), (100, 1.0)])]
    ps = load(args.game)
    if args.over_steps:
        if not args.checkpoint or not Path(args.checkpoint).is_dir():
            raise SoGError("--over-steps needs --checkpoint RUN_DIR (a general-train directory)")
        run_dir = Path(args.checkpoint)
        curves = steps_curve(ps, run_dir, settings, args.seeds, progress=not args.no_progress, steps=args.only_steps)
        for label, pts in curves.items():
            for step, lo, mean, hi in pts:
                print(f"{label} step {step}: min {lo:.4g} / mean {mean:.4g} / max {hi:.4g}")
        print(f"curves: {run_dir / 'curves.md'}, {run_dir / 'curves.png'}")
        return 0
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    if checkpoint is not None and not checkpoint.is_file():
        raise SoGError(f"no checkpoint file at {str(checkpoint)!r}")
    out = Path(args.out) if args.out else pokerbot_home() / "sog" / f"general-eval-{args.game}"
    text = evaluate(ps, settings, args.seeds, out, checkpoint, args.exact_iterations, progress=not args.no_progress)
    print(text)
    print(f"table: {out / 'eval.md'}  figure: {out / 'eval.png'}")
    return 0


def _general_minimax(args: argparse.Namespace) -> int:
    from pathlib import Path

    from collections.abc import Callable

    from pokerbot.efg.tictactoe import minimax_values
    from realtime.sog.fog import load
    from realtime.sog.fog_evaluate import minimax_match, value_factory
    from realtime.sog.fog_search import ExactValue, FogValueFunction, ZeroValue
    from realtime.sog.resolve import SearchSettings
    from realtime.sog.search import SoGError

    _positive(args.games, "--games")
    ps = load(args.game)
    if not ps.perfect_information:
        raise SoGError(f"{args.game} is not a perfect-information game")
    settings = SearchSettings(*args.one_search)
    make: Callable[[], FogValueFunction]
    if args.checkpoint:
        make = value_factory(ps, Path(args.checkpoint))
        what = f"network {args.checkpoint}"
    elif args.value == "exact":
        make, what = (lambda: ExactValue(ps)), "exact leaf values"
    else:
        make, what = (lambda: ZeroValue()), "zero leaf values (search alone)"
    rec = minimax_match(ps, minimax_values(ps.game), settings, args.games, make)
    print(f"{settings.label} with {what} against exact minimax on {args.game}, {rec.games} games (seats alternate): "
          f"{rec.wins} wins, {rec.draws} draws, {rec.losses} losses, {rec.seconds / rec.games:.1f} s a game")
    return 0


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
