"""``pokerbot leafnet data|train CONFIG``: the leaf-value network's training data and training.

``data`` writes ``$POKERBOT_HOME/leafnet/<name>/data/`` (shards + manifest, resumable);
``train`` trains on it (generating what is missing first) and writes
``$POKERBOT_HOME/leafnet/<name>/model/``: ``model.pt``, ``model.json`` (feature spec, what
the model is built for, figures), ``checkpoint.pt`` (resume), ``loss.png``.
``pokerbot leaves train-net CONFIG`` runs the same code (``train``). The config and both steps are
:mod:`realtime.leafnet_run`'s; this module parses, calls them, shows their progress and prints."""

from __future__ import annotations

import argparse

HELP = "leaf-value network for depth-limited solving: generate its data (ray) and train it (torch; resumes)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["data", "train"],
                        help="'data': generate the training data; 'train': generate what is missing, then train")
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leafnet-leduc, leafnet-hunl-tiny)")
    parser.add_argument("--dir", default=None, help="run directory (default: $POKERBOT_HOME/leafnet/<name>)")
    parser.add_argument("--workers", type=int, default=None,
                        help="ray worker processes for the data (default: the config's [data] workers; 0: in-process)")
    parser.add_argument("--ray-address", default=None,
                        help="ray cluster address for the data ('auto', host:port) (default: the config's [data] "
                             "address; '' is local)")
    parser.add_argument("--fresh", action="store_true",
                        help="train from scratch, ignoring a checkpoint (default: resume from it)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (default: shown)")


def run(args: argparse.Namespace) -> int:
    from pokerbot.errors import PokerbotError
    from realtime.leafnet_run import LeafnetConfig, make_data, train_net

    config = LeafnetConfig.load(args.config)
    if args.workers is not None:
        if args.workers < 0:
            raise PokerbotError(f"--workers must be >= 0, got {args.workers}")
        config.data.workers = args.workers
    if args.ray_address is not None:
        config.data.address = args.ray_address
    from pokerbot.resources import cap_workers

    config.data.workers = cap_workers(config.data.workers, "workers", config.data.address)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=config.data.shards, unit="shard", desc=f"leafnet data {config.name}")

    def shard_progress(done: int, total: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()

    try:
        data = make_data(config, args.dir, shard_progress)
    finally:
        if bar is not None:
            bar.close()
    print(data.summary)
    if args.action == "data":
        return 0
    tbar = None
    if not args.no_progress:
        from tqdm import tqdm

        tbar = tqdm(total=config.train.epochs, unit="epoch", desc=f"leafnet train {config.name}")

    def epoch_progress(epoch: int, tl: float, vl: float) -> None:
        if tbar is not None:
            tbar.n = epoch
            tbar.set_postfix(train=f"{tl:.4f}", val=f"{vl:.4f}")
            tbar.refresh()

    try:
        summary = train_net(config, data, args.dir, fresh=args.fresh, progress=epoch_progress)
    finally:
        if tbar is not None:
            tbar.close()
    print(summary)
    return 0
