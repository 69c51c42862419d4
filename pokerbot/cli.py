"""The ``pokerbot`` command: a thin shell over the packages.

Each subcommand is one module in :mod:`pokerbot.commands` that defines

- ``HELP``: one line for ``pokerbot --help``;
- ``add_arguments(parser)``: its options, each with a help text that states its default;
- ``run(args) -> int``: the work, importing what it needs inside, so that
  ``pokerbot --help`` stays fast and ``pokerbot`` imports none of the higher
  packages until a command needs them. It validates its arguments before doing
  any work (helpers in :mod:`pokerbot.commands._args`).

A new command is a new module there; nothing else changes.

One error path: whatever goes wrong reaches the user as one line on stderr,
``pokerbot <command>: error: ...``, with exit status 1 (2 for usage errors, as
argparse does; 128 + the signal after a stop signal: 130 after Ctrl-C, 143 after
SIGTERM, 129 after SIGHUP, see :mod:`pokerbot.interrupts`). A :class:`~pokerbot.errors.PokerbotError` or an
``OSError`` is bad input and says what was wrong; anything else is a bug in
pokerbot and says so. ``--debug`` (or ``POKERBOT_DEBUG=1``) shows the traceback.

>>> main(["solve", "kuhn", "--iterations", "0"])  # doctest: +SKIP
pokerbot solve: error: --iterations must be in 1..1000000000000, got 0
1
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import traceback
from collections.abc import Iterator, Sequence
from types import ModuleType

from pokerbot import __version__, commands, interrupts
from pokerbot.errors import PokerbotError

#: Set to a non-empty value other than ``0`` to see tracebacks (as ``--debug`` does).
DEBUG_ENV = "POKERBOT_DEBUG"


def command_modules() -> dict[str, ModuleType]:
    """Every command module of :mod:`pokerbot.commands`, by command name (``_private`` modules excluded)."""
    found = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        found[info.name.replace("_", "-")] = importlib.import_module(f"{commands.__name__}.{info.name}")
    return found


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, adding ``(default: X)`` to an option whose help does not state its default."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text or not action.option_strings:
            return text
        if isinstance(action, (argparse._StoreConstAction, argparse._HelpAction, argparse._VersionAction)):
            return text
        return f"{text} (default: %(default)s)" if text else "(default: %(default)s)"


def _add_subparsers_formatter(parser: argparse.ArgumentParser) -> None:
    """Give nested sub-commands (``pokerbot abstraction build``) the same formatter."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.formatter_class = HelpFormatter
                _add_subparsers_formatter(sub)


#: The heading of commands whose module names no ``GROUP``.
MAIN_GROUP = "commands"


def command_listing(modules: dict[str, ModuleType], width: int = 100) -> str:
    """The commands and their one-line helps, under their modules' ``GROUP`` headings (the main group first)."""
    import textwrap

    groups: dict[str, list[tuple[str, str]]] = {MAIN_GROUP: []}
    for name, module in modules.items():
        groups.setdefault(getattr(module, "GROUP", MAIN_GROUP), []).append((name, module.HELP))
    pad = max(len(name) for name in modules) + 4
    lines = []
    for heading, entries in groups.items():
        lines.append(f"{heading}:")
        for name, text in entries:
            wrapped = textwrap.wrap(text, width - pad - 2) or [""]
            lines.append(f"  {name.ljust(pad)}{wrapped[0]}")
            lines.extend(" " * (pad + 2) + more for more in wrapped[1:])
        lines.append("")
    return "\n".join(lines).rstrip()


def build_parser() -> argparse.ArgumentParser:
    modules = command_modules()
    parser = argparse.ArgumentParser(
        prog="pokerbot",
        description="Train, play and measure poker agents (HUNL and the small research games).\n\n"
                    + command_listing(modules),
        epilog=f"Errors are one line; --debug or {DEBUG_ENV}=1 shows the traceback. "
               "`pokerbot COMMAND --help` describes a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pokerbot {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    parser.add_argument("--allow-any-agent", action="store_true",
                        help="let agent specs import any package.module:factory, not only registered agents "
                             "(runs that code: only for specs you trust)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help="one of the commands listed above")
    for name, module in modules.items():
        p = sub.add_parser(name, description=module.HELP, formatter_class=HelpFormatter)
        module.add_arguments(p)
        _add_subparsers_formatter(p)
        p.set_defaults(_run=module.run, _parser=p)
    return parser


def one_line(text: str) -> str:
    """``text`` with its line breaks and runs of blanks folded into single spaces."""
    return " ".join(text.split())


def _debug_wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "debug", False)) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def error_message(exc: BaseException) -> str:
    """The one-line message a user sees for ``exc``."""
    if isinstance(exc, PokerbotError):
        return one_line(str(exc))
    if isinstance(exc, MemoryError):
        return ("not enough memory for this job: ask for less (fewer hands or iterations, a smaller game or "
                "abstraction)")
    if isinstance(exc, OSError):
        where = f" {exc.filename!r}" if exc.filename else ""
        return one_line(f"{exc.strerror or exc}{where}" if exc.strerror else str(exc))
    return one_line(f"internal error ({type(exc).__name__}: {exc}); "
                    f"please report it with the output of --debug")


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def _refuse_swallowed_values(args: argparse.Namespace) -> None:
    """Python 3.11's argparse reads ``--opt=--`` as an empty list: a usage error, not a value."""
    for action in _actions(args._parser):
        if action.nargs is not None or not action.option_strings:
            continue
        value = getattr(args, action.dest, None)
        # a single-value option holding a list, or an `append` option (a list by design) holding one
        if ((type(action) is argparse._StoreAction and isinstance(value, list))
                or (type(action) is argparse._AppendAction and isinstance(value, list)
                    and any(isinstance(v, list) for v in value))):
            args._parser.error(f"argument {'/'.join(action.option_strings)}: expected one argument")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # name the command in the message, as for its other usage errors
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    _refuse_swallowed_values(args)
    if args.allow_any_agent:
        from pokerbot.bots import ALLOW_ANY_ENV

        os.environ[ALLOW_ANY_ENV] = "1"  # ray workers and subprocesses inherit it
    interrupts.reset()
    try:
        with interrupts.stop_signals_raise():
            status = int(args._run(args) or 0)
    except KeyboardInterrupt as exc:
        signum = interrupts.signum_of(exc)
        print(f"pokerbot {args.command}: interrupted{_signal_name(signum)}", file=sys.stderr)
        return interrupts.exit_status(signum)
    except Exception as exc:  # the one error path: every failure becomes one line
        if _debug_wanted(args):
            traceback.print_exc()
        print(f"pokerbot {args.command}: error: {error_message(exc)}", file=sys.stderr)
        return 1
    stopped = interrupts.received()  # the command stopped gracefully on a signal and saved its work
    return interrupts.exit_status(stopped) if stopped is not None and status == 0 else status


def _signal_name(signum: int) -> str:
    """`` (SIGTERM)`` for a signal other than Ctrl-C's, which needs no name."""
    import signal

    return "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"


if __name__ == "__main__":
    sys.exit(main())
