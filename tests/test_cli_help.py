"""What a new user sees first: ``--help`` of every command and sub-command (found dynamically).

Every argument has a help text, every option with a default states it (the CLI's
formatter adds ``(default: X)`` where the text does not say), and ``--help``
exits 0 listing every option.
"""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from pokerbot.cli import HelpFormatter, build_parser, command_modules, main


def parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command line, parser) of every command and nested sub-command."""
    found = []

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        found.append((prefix, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(f"{prefix} {name}", sub)

    top = build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                walk(name, sub)
    return found


PARSERS = parsers()


def test_every_discovered_command_is_reachable() -> None:
    assert {line.split()[0] for line, _ in PARSERS} == set(command_modules())


def undocumented(parser: argparse.ArgumentParser) -> list[str]:
    """Arguments without help, and options with a default their help does not state."""
    missing = []
    formatter = HelpFormatter(parser.prog)
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = "/".join(action.option_strings) or action.dest
        if not action.help:
            missing.append(f"{name}: no help")
            continue
        text = formatter._get_help_string(action) or ""
        if action.option_strings and action.nargs != 0 and "default" not in text:
            missing.append(f"{name}: no default stated")
    return missing


@pytest.mark.parametrize("line,parser", PARSERS, ids=[line for line, _ in PARSERS])
def test_every_argument_is_described_with_its_default(line: str, parser: argparse.ArgumentParser) -> None:
    assert undocumented(parser) == []


@pytest.mark.parametrize("line", [line for line, _ in PARSERS])
def test_help_exits_zero_and_lists_every_option(line: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        main([*line.split(), "--help"])
    assert exit_info.value.code == 0
    parser = dict(PARSERS)[line]
    for action in parser._actions:
        for option in action.option_strings:
            assert option in out.getvalue(), option


def test_an_undocumented_option_is_caught() -> None:
    """Negative control: an option with neither help nor a stated default is reported."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--quiet-one", type=int)
    parser.add_argument("--documented", type=int, default=3, help="stated by the formatter")
    assert undocumented(parser) == ["--quiet-one: no help"]
    parser.add_argument("--no-default-said", type=int, help="says nothing of it")
    assert undocumented(parser) == ["--quiet-one: no help", "--no-default-said: no default stated"]


def test_top_level_help_lists_every_command_under_its_heading() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["--help"])
    text = out.getvalue()
    main_part, _, research = text.partition("research systems and paper reproductions:")
    listed = {line.split()[0] for line in text.splitlines() if line.startswith("  ") and not line.startswith("   ")
              and not line.strip().startswith("-")}
    assert set(command_modules()) <= listed
    for name in ("efce", "klss", "stackelberg", "sog"):
        assert f"\n  {name} " in research and f"\n  {name} " not in main_part
    for name in ("train", "match", "eval", "spot"):
        assert f"\n  {name} " in main_part
