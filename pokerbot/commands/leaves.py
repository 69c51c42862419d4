"""``pokerbot leaves build|train-net CONFIG``: the leaves of depth-limited solving.

``build`` builds a blueprint's continuation strategies (a ``configs/leaves-*.toml``);
``train-net`` trains the leaf-value network (a ``configs/leafnet-*.toml``), generating what is
missing of its data first: the same code as ``pokerbot leafnet train`` (:mod:`pokerbot.commands.leafnet`).
"""

from __future__ import annotations

import argparse

HELP = ("build the K continuation strategies of a blueprint under $POKERBOT_HOME/leaves, or train the leaf-value "
        "network under $POKERBOT_HOME/leafnet (both resume)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["build", "train-net"],
                        help="'build': the continuation strategies (leaves-*.toml); 'train-net': the leaf-value network "
                             "(leafnet-*.toml; the same as 'pokerbot leafnet train')")
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leaves-hunl-tiny, leafnet-hunl-tiny, "
                                       "...)")
    parser.add_argument("--dir", default=None,
                        help="output directory (default: $POKERBOT_HOME/leaves/<name> for build, "
                             "$POKERBOT_HOME/leafnet/<name> for train-net, the name from the config)")
    parser.add_argument("--workers", type=int, default=None,
                        help="train-net only: ray worker processes for the data (default: the config's [data] workers; "
                             "0: in-process)")
    parser.add_argument("--fresh", action="store_true",
                        help="train-net only: train from scratch, ignoring a checkpoint (default: resume from it)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (default: shown)")


def _load_config(spec: str) -> tuple[dict, str]:
    from pokerbot.files import read_toml_config

    path, data = read_toml_config(spec)
    return data, str(path)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pokerbot.errors import PokerbotError

    if args.action == "train-net":
        from pokerbot.commands import leafnet

        return leafnet.run(argparse.Namespace(**dict(vars(args), action="train")))
    if args.workers is not None or args.fresh:
        raise PokerbotError("--workers and --fresh are options of 'train-net', not of 'build'")
    data, source = _load_config(args.config)
    section = data.get("leaves", {})
    unknown = set(section) - {"name", "blueprint", "method", "k", "factor"}
    if unknown:
        raise PokerbotError(f"{source}: unknown [leaves] keys {sorted(unknown)}")
    name = section.get("name")
    bp_name = section.get("blueprint")
    if not name or not bp_name:
        raise PokerbotError(f"{source}: [leaves] needs 'name' and 'blueprint'")
    method = section.get("method", "bias")
    if method != "bias":
        raise PokerbotError(
            f"{source}: method {method!r}: this command builds 'bias' sets; self-generative sets are built "
            "on exact small-game trees with blueprint.continuation.self_generative"
        )
    k = int(section.get("k", 4))
    factor = float(section.get("factor", 10.0))
    from blueprint.continuation import build_bias_set, check_count, leaves_dir
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir

    check_count(k, 4)
    if not factor > 0:
        raise PokerbotError(f"{source}: factor must be positive, got {factor}")
    bp_path = Path(bp_name)
    if not bp_path.is_file():
        bp_path = blueprint_dir(bp_name) / "blueprint.npz"
    bp = Blueprint.load(bp_path)
    directory = Path(args.dir) if args.dir else leaves_dir(name)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=k, unit="strategy", desc=f"leaves {name}")

    def progress(done: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()

    try:
        cs = build_bias_set(directory, name, bp.tree, bp.strategy, bp.tree.signature(), k, factor, progress,
                            {"config": source, "blueprint": str(bp_path)})
    finally:
        if bar is not None:
            bar.close()
    size = sum((directory / f"strategy_{i}.npy").stat().st_size for i in range(cs.k))
    print(f"{name}: {cs.k} continuation strategies ({cs.method}, factor {cs.factor:g}) of {bp_path} "
          f"in {directory} ({size / 1e6:.2f} MB, one byte per infoset action)")
    return 0
