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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

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


@contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through, so that a reader sees the old file or the whole new one: a
    unique temporary file beside it, flushed to disk and renamed over it when the block ends (removed if
    the block raises). Refuses to replace anything but a regular file."""
    import tempfile

    target = Path(path)
    if target.exists() and not target.is_file():
        raise PokerbotError(f"{os.fspath(path)!r} exists and is not a regular file; not replacing it")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is for the temporary name, not the file users get
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through :func:`atomic_open`."""
    with atomic_open(path) as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))
