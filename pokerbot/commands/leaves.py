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
The config's checks and the build are :mod:`blueprint.leaves_build`'s (:class:`~blueprint.leaves_build.LeavesConfig`,
:func:`~blueprint.leaves_build.build_leaves`); this module parses, calls it, shows its progress and prints.
"""

from __future__ import annotations

import argparse
from typing import Any

HELP = ("build K continuation strategies (bias of a blueprint, or self-generative on a small game) under "
        "$POKERBOT_HOME/leaves, or train the leaf-value network under $POKERBOT_HOME/leafnet (both resume)")


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
    parser.add_argument("--ray-address", default=None,
                        help="train-net only: ray cluster address for the data ('auto', host:port) (default: the "
                             "config's [data] address; '' is local)")
    parser.add_argument("--fresh", action="store_true",
                        help="train-net only: train from scratch, ignoring a checkpoint (default: resume from it)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars (default: shown)")


def run(args: argparse.Namespace) -> int:
    from pokerbot.errors import PokerbotError

    if args.action == "train-net":
        from pokerbot.commands import leafnet

        return leafnet.run(argparse.Namespace(**dict(vars(args), action="train")))
    if args.workers is not None or args.fresh or args.ray_address is not None:
        raise PokerbotError("--workers, --ray-address and --fresh are options of 'train-net', not of 'build'")
    from blueprint.leaves_build import LeavesConfig, build_leaves

    config = LeavesConfig.load(args.config)
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # at the first report: after the blueprint is loaded or solved (a solve has its own bar)
            from tqdm import tqdm

            bar = tqdm(total=total, initial=done, unit="strategy", desc=f"leaves {config.name}")
            return
        bar.n = done
        bar.refresh()

    try:
        lines = build_leaves(config, args.dir, None if args.no_progress else progress)
    finally:
        if bar is not None:
            bar.close()
    for line in lines:
        print(line)
    return 0
