"""``pokerbot leafnet data|train CONFIG``: the leaf-value network's training data and training.

``data`` writes ``$POKERBOT_HOME/leafnet/<name>/data/`` (shards + manifest, resumable);
``train`` trains on it (generating what is missing first) and writes
``$POKERBOT_HOME/leafnet/<name>/model/``: ``model.pt``, ``model.json`` (feature spec, what
the model is built for, figures), ``checkpoint.pt`` (resume), ``loss.png``.
``pokerbot leaves train-net CONFIG`` runs the same code (``train``)."""

from __future__ import annotations

import argparse

HELP = "leaf-value network for depth-limited solving: generate its data (ray) and train it (torch; resumes)"

_LEAFNET_KEYS = {"name", "source", "game", "fractions", "max_raises", "k", "iterations", "blueprint", "leaves",
                 "menus", "rollouts", "explore"}
_DATA_KEYS = {"subgames", "shards", "workers", "address", "seed"}
_FEATURE_KEYS = {"bins", "runouts", "exact_runouts", "seed"}
_TRAIN_KEYS = {"hidden", "lr", "batch", "epochs", "patience", "val_fraction", "huber_delta", "seed", "threads"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["data", "train"],
                        help="'data': generate the training data; 'train': generate what is missing, then train")
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leafnet-leduc, leafnet-hunl-tiny)")
    parser.add_argument("--dir", default=None, help="run directory (default: $POKERBOT_HOME/leafnet/<name>)")
    parser.add_argument("--workers", type=int, default=None,
                        help="ray worker processes for the data (default: the config's [data] workers; 0: in-process)")
    parser.add_argument("--fresh", action="store_true",
                        help="train from scratch, ignoring a checkpoint (default: resume from it)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (default: shown)")


def load_config(spec: str) -> tuple[dict, str]:
    """The TOML config ``spec`` (a path or a name in configs/), checked for unknown keys."""
    from pokerbot.errors import PokerbotError
    from pokerbot.files import read_toml_config

    path, data = read_toml_config(spec)
    for section, keys in (("leafnet", _LEAFNET_KEYS), ("data", _DATA_KEYS), ("features", _FEATURE_KEYS),
                          ("train", _TRAIN_KEYS)):
        unknown = set(data.get(section, {})) - keys
        if unknown:
            raise PokerbotError(f"{path}: unknown [{section}] keys {sorted(unknown)}")
    unknown_sections = set(data) - {"leafnet", "data", "features", "train"}
    if unknown_sections:
        raise PokerbotError(f"{path}: unknown sections {sorted(unknown_sections)}")
    if not data.get("leafnet", {}).get("name") or not data.get("leafnet", {}).get("source"):
        raise PokerbotError(f"{path}: [leafnet] needs 'name' and 'source'")
    return data, str(path)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pokerbot.errors import PokerbotError

    data, source = load_config(args.config)
    from blueprint.leafnet import FeatureSpec, TrainConfig, plot_losses, train
    from realtime.leafnet_data import DataConfig, generate, load_data
    from realtime.network_leaves import leafnet_dir

    try:
        cfg = DataConfig(**data["leafnet"], **data.get("data", {})).check()
        spec = FeatureSpec(**data.get("features", {}))
        tcfg = TrainConfig(**data.get("train", {})).check()
    except TypeError as exc:
        raise PokerbotError(f"{source}: {exc}") from None
    if args.workers is not None:
        if args.workers < 0:
            raise PokerbotError(f"--workers must be >= 0, got {args.workers}")
        cfg.workers = args.workers
    root = Path(args.dir) if args.dir else leafnet_dir(cfg.name)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.shards, unit="shard", desc=f"leafnet data {cfg.name}")

    def shard_progress(done: int, total: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()

    try:
        manifest = generate(cfg, spec, root / "data", shard_progress)
    finally:
        if bar is not None:
            bar.close()
    rows = sum(s["rows"] for s in manifest["shards"].values())
    print(f"{cfg.name}: {rows} rows in {len(manifest['shards'])} shards in {root / 'data'} "
          f"({manifest['classes']} classes, K0 x K1 = {manifest['choices'][0]} x {manifest['choices'][1]})")
    if args.action == "data":
        return 0
    _, arrays = load_data(root / "data")
    model_dir = root / "model"
    if args.fresh and (model_dir / "checkpoint.pt").is_file():
        (model_dir / "checkpoint.pt").unlink()
    tbar = None
    if not args.no_progress:
        from tqdm import tqdm

        tbar = tqdm(total=tcfg.epochs, unit="epoch", desc=f"leafnet train {cfg.name}")

    def epoch_progress(epoch: int, tl: float, vl: float) -> None:
        if tbar is not None:
            tbar.n = epoch
            tbar.set_postfix(train=f"{tl:.4f}", val=f"{vl:.4f}")
            tbar.refresh()

    meta = {k: manifest[k] for k in ("spec", "choices", "classes", "blueprint", "continuations", "game", "leaf_round")}
    meta["data"] = {"dir": str(root / "data"), "rows": rows, "shards": manifest["shards"]}
    try:
        result = train(arrays["x"], arrays["y"], arrays["group"], model_dir, tcfg, meta, epoch_progress)
    finally:
        if tbar is not None:
            tbar.close()
    plot_losses(result.history, model_dir / "loss.png", f"{cfg.name}: hidden {tcfg.hidden}")
    curve = f"loss curve {model_dir / 'loss.png'}"
    tl, vl = result.history[result.best_epoch]
    print(f"{cfg.name}: best validation Huber loss {vl:.4f} (train {tl:.4f}) at epoch {result.best_epoch + 1} of "
          f"{len(result.history)}{' (stopped early)' if result.stopped_early else ''}; model in {model_dir}, {curve}")
    return 0
