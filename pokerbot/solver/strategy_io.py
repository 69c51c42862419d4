"""Strategy files: a plain-text table of information sets, readable by any tool.

Format (UTF-8 text, gzip-compressed when the name ends in ``.gz``)::

    #pokerbot-policy 1
    #game leduc
    #gamedef GAMEDEF
    #gamedef limit
    ...
    #gamedef END GAMEDEF
    Kh:\tc=0.25\tr=0.75
    Kh/Qs:rc/r\tf=0.1\tc=0.6\tr=0.3

- Lines starting with ``#`` are headers (``#<name> <value>``); a reader may skip
  them. ``#gamedef`` lines, in order, are the ACPC ``.game`` text of the game.
- Every other line is one information set: its key, then one tab-separated
  ``label=probability`` field per action. Keys are
  ``<hole cards>[/<board of round 1>[/...]]:<ACPC betting string>``: hole cards
  high to low, each round's board low to high, e.g. ``AsKd/2c3c4c:r300c/``
  (readers accept any card order, see :func:`pokerbot.solver.policy.canonical_key`).
  Labels are ``f``, ``c``, ``r`` (limit) or ``r<raise-to total>`` (no-limit).
  Probabilities are decimal floats written with full precision; they should sum
  to 1, and a reader renormalises them. Every line ends with a newline (a file
  that ends mid-line is refused as truncated).
- Information sets missing from a file are played uniformly over the actions
  of the bet menu by :func:`pokerbot.solver.policy_exploitability`.

>>> import tempfile, os
>>> from pokerbot.gamedef import load_game
>>> path = os.path.join(tempfile.mkdtemp(), "k.txt")
>>> save_policy(path, {"Ks:": {"c": 0.5, "r": 0.5}}, load_game("kuhn"))
>>> load_policy(path)
{'Ks:': {'c': 0.5, 'r': 0.5}}
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import zlib
from collections.abc import Iterator, Mapping
from typing import IO

import numpy as np

from pokerbot.errors import CheckpointError, GameDefError
from pokerbot.files import atomic_open
from pokerbot.gamedef import GameDef, parse_gamedef

MAGIC = "#pokerbot-policy 1"


def _open(path: str | os.PathLike[str], mode: str) -> IO[str]:
    if str(path).endswith(".gz"):
        return io.TextIOWrapper(gzip.GzipFile(path, mode + "b"), encoding="utf-8")  # = gzip.open(path, mode + "b")
    return open(path, mode, encoding="utf-8")


@contextlib.contextmanager
def _replacing(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """A UTF-8 text file (gzip-compressed if ``path`` ends in ``.gz``) that replaces ``path`` when the block
    ends (:func:`~pokerbot.files.atomic_open`), and leaves nothing behind if it fails."""
    with atomic_open(path) as raw, contextlib.ExitStack() as stack:
        binary: IO[bytes] | gzip.GzipFile = raw
        if str(path).endswith(".gz"):
            binary = stack.enter_context(gzip.GzipFile(filename=os.path.basename(path), mode="wb", fileobj=raw))
        text = io.TextIOWrapper(binary, encoding="utf-8")
        try:
            yield text
            text.flush()
        finally:
            text.detach()  # the file objects below close themselves (atomic_open's after syncing it)


def _header(game: GameDef | None, extra: Mapping[str, str] | None) -> list[str]:
    lines = [MAGIC]
    if game is not None:
        lines.append(f"#game {game.name or 'custom'}")
        lines.extend(f"#gamedef {line}" for line in game.to_text().splitlines())
    for k, v in (extra or {}).items():
        lines.append(f"#{k} {v}")
    return lines


def _line(key: str, dist: Mapping[str, float]) -> str:
    if "\t" in key or "\n" in key:
        raise CheckpointError(f"infoset key {key!r} contains a tab or newline")
    return key + "".join(f"\t{lab}={float(p)!r}" for lab, p in dist.items())


def save_policy(
    path: str | os.PathLike[str],
    policy: Mapping[str, Mapping[str, float]],
    game: GameDef | None = None,
    extra: Mapping[str, str] | None = None,
) -> None:
    """Write ``policy`` to ``path`` in the format above (keys sorted); ``extra`` adds header lines."""
    with _replacing(path) as f:
        for line in _header(game, extra):
            f.write(line + "\n")
        for key in sorted(policy):
            f.write(_line(key, policy[key]) + "\n")


def save_strategy(
    path: str | os.PathLike[str], tree, strat: np.ndarray, extra: Mapping[str, str] | None = None
) -> int:
    """Stream a strategy array of a :class:`~pokerbot.solver.tree.PublicTree` to ``path``; returns lines written.

    Same format as :func:`save_policy` (in tree order), without building the dict in memory.
    """
    from pokerbot.solver.policy import iter_strategy_rows

    count = 0
    with _replacing(path) as f:
        for line in _header(tree.game, extra):
            f.write(line + "\n")
        for key, labels, col in iter_strategy_rows(tree, strat):
            f.write(key + "".join(f"\t{lab}={float(q)!r}" for lab, q in zip(labels, col) if q > 0.0) + "\n")
            count += 1
    return count


def _read_lines(f: IO[str], path: str | os.PathLike[str], policy: dict[str, dict[str, float]],
                headers: dict[str, str], gamedef: list[str]) -> None:
    """Fill ``policy``, ``headers`` and the ``#gamedef`` lines from the open strategy file ``f``."""
    first = f.readline()
    if first.rstrip("\n") != MAGIC:
        raise CheckpointError(f"{os.fspath(path)}: first line must be {MAGIC!r}, got {first[:40]!r}")
    if not first.endswith("\n"):
        raise CheckpointError(f"{os.fspath(path)}:1: the file ends in the middle of a line (truncated?)")
    for line_no, raw in enumerate(f, start=2):
        if not raw.endswith("\n"):
            raise CheckpointError(f"{os.fspath(path)}:{line_no}: the file ends in the middle of a line (truncated?)")
        line = raw.rstrip("\n")
        if not line:
            continue
        if line.startswith("#"):
            name, _, value = line[1:].partition(" ")
            if name == "gamedef":
                gamedef.append(value)
            else:
                headers[name] = value
            continue
        key, *fields = line.split("\t")
        if ":" not in key:
            raise CheckpointError(f"{os.fspath(path)}:{line_no}: infoset key {key!r} has no ':'")
        dist: dict[str, float] = {}
        for fld in fields:
            lab, eq, prob = fld.partition("=")
            try:
                dist[lab] = float(prob)
            except ValueError:
                eq = ""
            if not eq or not lab or not 0.0 <= dist[lab] < float("inf"):
                raise CheckpointError(f"{os.fspath(path)}:{line_no}: bad action field {fld!r} "
                                      f"(want label=probability, a finite number >= 0)")
        if fields and not sum(dist.values()) > 0.0:
            raise CheckpointError(f"{os.fspath(path)}:{line_no}: the probabilities of {key!r} sum to 0")
        if key in policy:
            raise CheckpointError(f"{os.fspath(path)}:{line_no}: infoset {key!r} appears twice")
        policy[key] = dist


def read_policy(path: str | os.PathLike[str]) -> tuple[dict[str, dict[str, float]], dict[str, str], GameDef | None]:
    """(policy, headers, game) of a strategy file; ``game`` is None when the file has no ``#gamedef``.

    Raises :class:`~pokerbot.errors.CheckpointError` naming the line that is malformed.
    """
    policy: dict[str, dict[str, float]] = {}
    headers: dict[str, str] = {}
    gamedef: list[str] = []
    try:
        f = _open(path, "r")
    except OSError as exc:
        raise CheckpointError(f"cannot read strategy file {os.fspath(path)!r}: {exc}") from None
    try:
        with f:
            _read_lines(f, path, policy, headers, gamedef)
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        raise CheckpointError(f"{os.fspath(path)}: not a text strategy file ({exc})") from None
    game = None
    if gamedef:
        try:
            game = parse_gamedef("\n".join(gamedef), name=headers.get("game", ""))
        except GameDefError as exc:
            raise CheckpointError(f"{os.fspath(path)}: bad #gamedef header: {exc}") from None
    if not policy:
        raise CheckpointError(f"{os.fspath(path)}: holds no information set (truncated?)")
    return policy, headers, game


def load_policy(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """The policy stored in a strategy file (see :func:`read_policy` for the headers too)."""
    return read_policy(path)[0]
