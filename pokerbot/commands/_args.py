"""Checks a command runs on its arguments before it does any work.

Each raises :class:`ArgumentError` (a :class:`~pokerbot.errors.PokerbotError`)
naming the option and what was wrong, which the CLI prints as one line:

>>> count("--iterations", 0)
Traceback (most recent call last):
...
pokerbot.commands._args.ArgumentError: --iterations must be in 1..1000000000000, got 0
>>> float_list("--bet-sizes", "0.5,1")
(0.5, 1.0)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pokerbot.errors import PokerbotError

#: The largest count (iterations, hands, ...) a command accepts: far beyond any run, well inside int64.
MAX_COUNT = 10**12
#: ACPC dealer seeds are unsigned 32-bit.
MAX_SEED = 2**32 - 1


class ArgumentError(PokerbotError, ValueError):
    """A command-line argument out of range, of the wrong form, or naming an unusable file."""


def agent_spec(name: str, spec: str) -> str:
    """An agent spec naming an agent a spec may use (:func:`pokerbot.bots.resolve_spec_name`), options after ``?``.

    Only the name is checked here (a factory is imported when the agent is made).
    """
    from pokerbot.bots import ALLOW_ANY_ENV, BUILTIN, parse_spec, registered_agents, resolve_spec_name

    try:
        base, _ = parse_spec(spec)
    except PokerbotError as exc:
        raise ArgumentError(f"{name}: {exc}") from None
    module, colon, factory = base.partition(":")
    if colon and not (module and factory):
        raise ArgumentError(f"{name}: agent spec {spec!r} needs package.module:factory")
    if resolve_spec_name(base) is None:
        known = ", ".join([*BUILTIN, *registered_agents()])
        if colon:
            raise ArgumentError(f"{name}: {base} is not a registered agent factory (registered: {known}); to run "
                                f"it anyway, opt in with pokerbot --allow-any-agent (or {ALLOW_ANY_ENV}=1)")
        raise ArgumentError(f"{name}: unknown agent {base!r}: use one of {known}")
    return spec


def count(name: str, value: int, low: int = 1, high: int = MAX_COUNT) -> int:
    """``value`` if ``low <= value <= high``."""
    if not low <= value <= high:
        raise ArgumentError(f"{name} must be in {low}..{high}, got {value}")
    return value


def optional_count(name: str, value: int | None, low: int = 1, high: int = MAX_COUNT) -> int | None:
    """:func:`count`, letting None (the option not given) through."""
    return None if value is None else count(name, value, low, high)


def seed(name: str, value: int | None) -> int | None:
    """A seed in 0..2**32-1 (or None)."""
    return optional_count(name, value, 0, MAX_SEED)


def number(name: str, value: float | None, low: float = float("-inf"), high: float = float("inf"),
           low_open: bool = False) -> float | None:
    """A finite float in ``[low, high]`` (``(low, high]`` when ``low_open``), or None."""
    if value is None:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        raise ArgumentError(f"{name} must be a finite number, got {value}")
    if value < low or value > high or (low_open and value == low):
        bracket = "(" if low_open else "["
        raise ArgumentError(f"{name} must be in {bracket}{low:g}, {high:g}], got {value:g}")
    return value


def float_list(name: str, text: str) -> tuple[float, ...]:
    """Comma-separated finite floats, e.g. ``"0.5,1"``."""
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ArgumentError(f"{name} must be comma-separated numbers, got {text!r}") from None
    for v in values:
        number(name, v)
    return values


def int_list(name: str, text: str, low: int = 1, high: int = MAX_COUNT) -> tuple[int, ...]:
    """Comma-separated whole numbers in ``low..high``, e.g. ``"3,10"``."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise ArgumentError(f"{name} must be comma-separated whole numbers, got {text!r}") from None
    for v in values:
        count(name, v, low, high)
    return values


def input_file(name: str, path: str | os.PathLike[str]) -> Path:
    """``path`` if it is a readable regular file."""
    p = Path(path)
    try:
        if not p.exists():
            raise ArgumentError(f"{name}: no such file {os.fspath(path)!r}")
        if not p.is_file():
            raise ArgumentError(f"{name}: {os.fspath(path)!r} is not a regular file")
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise ArgumentError(f"{name}: cannot read {os.fspath(path)!r} ({exc.strerror})") from None
    return p


def output_file(name: str, path: str | os.PathLike[str], make_parents: bool = False,
                force: bool | None = None) -> Path:
    """``path`` if a file can be written there (its directory exists, or can be made, and is writable).

    Checked before the work starts, so that a long job never ends unable to save what it computed.
    ``force=False``: an existing file is refused (the user's file is replaced only with ``--force``);
    ``None``: the caller decides (a resumable checkpoint, a log the command says it replaces).
    """
    p = Path(path)
    if not os.fspath(path):
        raise ArgumentError(f"{name}: empty file name")
    if force is False and os.path.lexists(p) and not p.is_dir():
        raise ArgumentError(f"{name}: {os.fspath(path)!r} exists; pass --force to replace it")
    try:
        if p.is_dir():
            raise ArgumentError(f"{name}: {os.fspath(path)!r} is a directory")
        if p.exists() and not os.access(p, os.W_OK):
            raise ArgumentError(f"{name}: cannot write {os.fspath(path)!r}")
        if len(p.name.encode()) > 250:  # room for the ".tmp" a writer adds
            raise ArgumentError(f"{name}: file name too long ({len(p.name.encode())} bytes)")
    except OSError as exc:
        raise ArgumentError(f"{name}: cannot write {os.fspath(path)!r} ({exc.strerror})") from None
    writable_directory(name, p.parent, make=make_parents)
    return p


def writable_directory(name: str, path: str | os.PathLike[str], make: bool = True) -> Path:
    """``path`` if it is (or, with ``make``, can be created as) a writable directory."""
    p = Path(path) if os.fspath(path) else Path(".")
    existing = p
    while not _exists(existing):
        if not make:
            raise ArgumentError(f"{name}: directory {os.fspath(p)!r} does not exist")
        if existing.parent == existing:
            break
        existing = existing.parent
    if not os.path.isdir(existing):
        raise ArgumentError(f"{name}: {os.fspath(existing)!r} is not a directory")
    try:  # os.access says yes to root even on read-only mounts: try it
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ArgumentError(f"{name}: cannot write in directory {os.fspath(existing)!r} ({exc.strerror})") from None
    return p


def _exists(path: Path) -> bool:
    return os.path.lexists(path)  # False, not an exception, for a name too long
