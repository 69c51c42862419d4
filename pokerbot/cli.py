"""The ``pokerbot`` command: a thin shell over the packages.

Each subcommand is one module in :mod:`pokerbot.commands` that defines

- ``HELP``: one line for ``pokerbot --help``;
- ``add_arguments(parser)``: its options;
- ``run(args) -> int``: the work, importing what it needs inside, so that
  ``pokerbot --help`` stays fast and ``pokerbot`` imports none of the higher
  packages until a command needs them.

A new command is a new module there; nothing else changes.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from pokerbot import __version__, commands
from pokerbot.errors import PokerbotError


def _command_modules() -> dict[str, object]:
    found = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        found[info.name.replace("_", "-")] = importlib.import_module(f"{commands.__name__}.{info.name}")
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pokerbot",
        description="Train, play and measure poker agents (HUNL and the small research games).",
    )
    parser.add_argument("--version", action="version", version=f"pokerbot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _command_modules().items():
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)  # type: ignore[attr-defined]
        module.add_arguments(p)  # type: ignore[attr-defined]
        p.set_defaults(_run=module.run)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except PokerbotError as exc:
        print(f"pokerbot {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"pokerbot {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
