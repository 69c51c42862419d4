"""The project's own files: TOML configs (by path or by shipped name) and file fingerprints.

Every command that reads a config (``train``, ``leaves``, ``leafnet``, ``sog``, ``eval``, ...)
finds and parses it here, so a name means the same thing everywhere and a damaged file gets
the same typed error; every artifact that records the identity of another file uses
:func:`file_sha256`.

>>> path, data = read_toml_config("leduc")
>>> path.name, data["game"]["name"]
('leduc.toml', 'leduc')
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any

from pokerbot.errors import PokerbotError
from pokerbot.gamedef import read_text_file

#: The configs shipped with the repository (``configs/<name>.toml``).
CONFIGS_DIR = Path(__file__).resolve().parent.parent / "configs"


def config_path(spec: str | os.PathLike[str], error: type[Exception] = PokerbotError) -> Path:
    """``spec`` if it is a file, else the shipped ``configs/<spec>.toml``; ``error`` if neither exists."""
    path = Path(spec)
    if path.is_file():
        return path
    shipped = CONFIGS_DIR / f"{str(spec).removesuffix('.toml')}.toml"
    if shipped.is_file():
        return shipped
    raise error(f"no config {str(spec)!r}: not a file nor a name in configs/")


def read_toml_config(spec: str | os.PathLike[str], error: type[Exception] = PokerbotError) -> tuple[Path, dict[str, Any]]:
    """The path and parsed content of the TOML config ``spec`` (see :func:`config_path`).

    A binary, oversized or malformed file raises ``error`` naming the file.
    """
    path = config_path(spec, error)
    try:
        return path, tomllib.loads(read_text_file(path, "TOML config", error))
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of the file at ``path`` (read in 1 MiB blocks), as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
