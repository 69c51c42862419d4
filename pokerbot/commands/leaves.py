"""``pokerbot leaves build|train-net CONFIG``: the leaves of depth-limited solving.

``build`` builds continuation strategies (a ``configs/leaves-*.toml``); ``train-net`` trains the
leaf-value network (a ``configs/leafnet-*.toml``), generating what is missing of its data first: the
same code as ``pokerbot leafnet train`` (:mod:`pokerbot.commands.leafnet`).

``build`` has two methods (the ``[leaves]`` table's ``method``):

* ``bias`` (default): K copies of a trained blueprint (``blueprint = NAME``) -- the
  blueprint, then fold-, call- and raise-biased ones (``factor``). Any game, HUNL included.
* ``self-generative``: on a small game (``game = "leduc-nl"``, ``"nlfh-small"``; exact
  whole-game solver trees), grow each chooser's set from {blueprint} by exact best
  responses (:func:`blueprint.continuation.self_generative`). The blueprint is DCFR on the
  game with the bet menu (``blueprint_iterations``), or a ``.npy`` strategy array of that
  tree named by ``blueprint``. Keys: ``menu`` (a PotFractionMenu spec line) or
  ``fractions`` + ``max_raises`` (+ ``all_in``), ``k``, ``chooser`` (0, 1 or "both"),
  ``iterations`` (DCFR iterations of each depth-limited solve), ``weaken``.

Both write ``$POKERBOT_HOME/leaves/<name>/`` (a self-generative set: ``blueprint.npy`` and
one ``chooser<seat>/`` set per chooser) strategy by strategy, and a stopped build resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

HELP = ("build K continuation strategies (bias of a blueprint, or self-generative on a small game) under "
        "$POKERBOT_HOME/leaves, or train the leaf-value network under $POKERBOT_HOME/leafnet (both resume)")

BIAS_KEYS = {"name", "blueprint", "method", "k", "factor"}
GENERATIVE_KEYS = {"name", "method", "game", "menu", "fractions", "max_raises", "all_in", "k", "chooser",
                   "iterations", "blueprint", "blueprint_iterations", "weaken"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["build", "train-net"],
                        help="'build': continuation strategies (leaves-*.toml); 'train-net': the leaf-value network "
                             "(leafnet-*.toml; the same as 'pokerbot leafnet train')")
    parser.add_argument("config", help="a TOML file, or the name of one in configs/ (leaves-hunl-tiny, "
                                       "leaves-leduc-nl-sg, leafnet-hunl-tiny, ...)")
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


def _bar(args: argparse.Namespace, total: int, desc: str) -> Any:
    if args.no_progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="strategy", desc=desc)


def run(args: argparse.Namespace) -> int:
    from pokerbot.errors import PokerbotError

    if args.action == "train-net":
        from pokerbot.commands import leafnet

        return leafnet.run(argparse.Namespace(**dict(vars(args), action="train")))
    if args.workers is not None or args.fresh:
        raise PokerbotError("--workers and --fresh are options of 'train-net', not of 'build'")
    data, source = _load_config(args.config)
    unknown_tables = set(data) - {"leaves"}
    if unknown_tables:
        raise PokerbotError(f"{source}: unknown tables {sorted(unknown_tables)} (only [leaves])")
    section = data.get("leaves", {})
    method = section.get("method", "bias")
    if method not in ("bias", "self-generative"):
        raise PokerbotError(f"{source}: method {method!r}: use 'bias' or 'self-generative'")
    allowed = BIAS_KEYS if method == "bias" else GENERATIVE_KEYS
    unknown = set(section) - allowed
    if unknown:
        raise PokerbotError(f"{source}: unknown [leaves] keys {sorted(unknown)} for method {method!r} "
                            f"(known: {sorted(allowed)})")
    if not section.get("name"):
        raise PokerbotError(f"{source}: [leaves] needs 'name'")
    if method == "bias":
        return _run_bias(args, section, source)
    return _run_generative(args, section, source)


def _run_bias(args: argparse.Namespace, section: dict, source: str) -> int:
    from pokerbot.errors import PokerbotError

    name = section["name"]
    bp_name = section.get("blueprint")
    if not bp_name:
        raise PokerbotError(f"{source}: [leaves] needs 'blueprint' for method 'bias'")
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
    bar = _bar(args, k, f"leaves {name}")

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


def _positive_int(section: dict, key: str, default: int, source: str) -> int:
    from pokerbot.errors import PokerbotError

    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PokerbotError(f"{source}: {key} must be a positive integer, got {value!r}")
    return value


def _generative_menu(section: dict, source: str) -> Any:
    from pokerbot.errors import PokerbotError
    from pokerbot.menus import PotFractionMenu, menu_from_spec

    if "menu" in section:
        if {"fractions", "max_raises", "all_in"} & set(section):
            raise PokerbotError(f"{source}: give 'menu' or 'fractions'/'max_raises'/'all_in', not both")
        menu = menu_from_spec(str(section["menu"]))
        if not isinstance(menu, PotFractionMenu):
            raise PokerbotError(f"{source}: menu {section['menu']!r} is not a pot-fraction menu (no-limit games)")
        return menu
    if "fractions" not in section:
        raise PokerbotError(f"{source}: [leaves] needs 'menu' (a spec line) or 'fractions' for method 'self-generative'")
    return PotFractionMenu(tuple(float(f) for f in section["fractions"]), bool(section.get("all_in", True)),
                           section.get("max_raises", 3))


def _generative_blueprint(section: dict, source: str, directory: Path, full: Any, bar_off: bool) -> tuple[Any, str]:
    """The blueprint strategy array and where it came from: the config's ``.npy``, the one
    saved by an earlier (stopped) build, or DCFR on the whole game (saved for a resume)."""
    import numpy as np

    from pokerbot.errors import PokerbotError
    from pokerbot.npz import write_npy
    from pokerbot.solver import Solver

    named = section.get("blueprint")
    path = Path(named) if named else directory / "blueprint.npy"
    if named or path.is_file():
        try:
            bp = np.load(path)
        except (OSError, ValueError) as exc:
            raise PokerbotError(f"{path}: not a readable blueprint strategy array ({exc})") from None
        if bp.dtype != np.float64 or bp.shape != (full.num_slots,):
            raise PokerbotError(f"{path}: a {bp.dtype} array of shape {bp.shape}, the game's tree needs float64 "
                                f"({full.num_slots},)")
        return bp, str(path)
    iterations = _positive_int(section, "blueprint_iterations", 1000, source)
    solver = Solver(full, "dcfr")
    solver.run(iterations, progress=not bar_off)
    bp = solver.average_strategy()
    directory.mkdir(parents=True, exist_ok=True)
    write_npy(path, bp)
    return bp, f"DCFR, {iterations} iterations ({path})"


def _run_generative(args: argparse.Namespace, section: dict, source: str) -> int:
    from pokerbot.errors import PokerbotError

    name = section["name"]
    game_name = section.get("game")
    if not game_name:
        raise PokerbotError(f"{source}: [leaves] needs 'game' for method 'self-generative'")
    k = section.get("k", 4)
    if isinstance(k, bool) or not isinstance(k, int):
        raise PokerbotError(f"{source}: k must be an integer, got {k!r}")
    iterations = _positive_int(section, "iterations", 300, source)
    weaken = section.get("weaken", True)
    if not isinstance(weaken, bool):
        raise PokerbotError(f"{source}: weaken must be true or false, got {weaken!r}")
    chooser = section.get("chooser", "both")
    valid = isinstance(chooser, (int, str)) and not isinstance(chooser, bool)
    seats = {0: (0,), 1: (1,), "both": (0, 1)}.get(chooser) if valid else None
    if seats is None:
        raise PokerbotError(f"{source}: chooser must be 0, 1 or \"both\", got {chooser!r}")
    from blueprint.continuation import build_generated_set, check_count, check_small_game, leaves_dir
    from pokerbot.gamedef import load_game
    from pokerbot.solver import build_tree

    check_count(k)
    menu = _generative_menu(section, source)
    game = load_game(game_name)
    check_small_game(game)
    directory = Path(args.dir) if args.dir else leaves_dir(name)
    full = build_tree(game, menu)
    dl = build_tree(game, menu, depth_limit=0)
    bp, bp_source = _generative_blueprint(section, source, directory, full, args.no_progress)
    bar = _bar(args, k * len(seats), f"leaves {name}")
    sets = []
    try:
        for n, seat in enumerate(seats):
            def progress(done: int, offset: int = n * k) -> None:
                if bar is not None:
                    bar.n = offset + done
                    bar.refresh()

            sets.append(build_generated_set(directory / f"chooser{seat}", name, game, menu, bp, k, seat,
                                            iterations=iterations, weaken=weaken, full_tree=full, dl_tree=dl,
                                            progress=progress, source={"config": source, "blueprint": bp_source}))
    finally:
        if bar is not None:
            bar.close()
    for seat, cs in zip(seats, sets):
        pens = ", ".join(f"{p:.4g}" for p in cs.penalties)
        print(f"{name}: chooser {seat}: {cs.k} self-generated continuation strategies of {game_name} "
              f"(blueprint: {bp_source}) in {directory / f'chooser{seat}'}; penalties (chips) [{pens}]")
    return 0
