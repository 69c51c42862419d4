"""The project's own files: where artifacts live, TOML configs, atomic writes and file fingerprints.

Every command that reads a config (``train``, ``leaves``, ``leafnet``, ``sog``, ``eval``, the
real-time agent's ...) finds and parses it here, so a name means the same thing everywhere and
a damaged file gets the same typed error; every artifact goes under :func:`pokerbot_home` and is
written through :func:`atomic_open` (a reader sees the old file or the whole new one); every
artifact that records the identity of another file uses :func:`file_sha256`; a job that writes a
run directory or a growing file holds it with :func:`exclusive`, so a second job on it stops at
once with a clear error instead of the two tearing each other's files.

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

from pokerbot.errors import LockedError, PokerbotError
from pokerbot.gamedef import read_text_file

#: The configs shipped with the repository (``configs/<name>.toml``).
CONFIGS_DIR = Path(__file__).resolve().parent.parent / "configs"


def pokerbot_home() -> Path:
    """Where generated artifacts live: ``$POKERBOT_HOME`` (``~`` expanded), or ``~/.cache/pokerbot`` when the
    variable is unset or empty."""
    home = os.environ.get("POKERBOT_HOME", "")
    return Path(home).expanduser() if home else Path.home() / ".cache" / "pokerbot"


def is_plain_name(name: str | os.PathLike[str]) -> bool:
    """Whether ``name`` is one path component, not ``.`` or ``..``, with no separator or NUL (see :func:`plain_name`).

    >>> is_plain_name("hunl-tiny"), is_plain_name("runs/hunl-tiny"), is_plain_name("..")
    (True, False, False)
    """
    text = os.fspath(name)
    return bool(text) and text not in (".", "..") and not any(c in text for c in ("/", "\\", "\0", os.sep))


def plain_name(name: str, what: str = "name") -> str:
    """``name`` if it can name a file or directory under :func:`pokerbot_home` without leaving it: one path
    component, not ``.`` or ``..``, no separator or NUL. Raises :class:`PokerbotError` otherwise.

    >>> plain_name("hunl-tiny")
    'hunl-tiny'
    >>> plain_name("../../etc")
    Traceback (most recent call last):
    ...
    pokerbot.errors.PokerbotError: name '../../etc' must be a plain name (no '/', not '.' or '..'): it names a directory under $POKERBOT_HOME
    """
    text = str(name)
    if not is_plain_name(text):
        raise PokerbotError(f"{what} {text!r} must be a plain name (no '/', not '.' or '..'): it names a directory "
                            f"under $POKERBOT_HOME")
    return text


def config_path(spec: str | os.PathLike[str], error: type[Exception] = PokerbotError, prefix: str = "",
                what: str = "config") -> Path:
    """``spec`` if it is a file, else (a bare name, no directory) the shipped ``configs/<prefix><name>.toml``.

    ``<name>`` is ``spec`` without a ``.toml`` suffix and without ``prefix``: a kind of config whose shipped
    files share a prefix (the real-time agents' ``realtime-``) takes its names with or without it. Raises
    ``error`` ("no <what> ...") naming every place it looked if none holds the file.
    """
    path = Path(spec)
    if path.is_file():
        return path
    looked = [f"the file {str(path.absolute())!r}"]
    if path.name == os.fspath(spec):
        name = path.name.removesuffix(".toml")
        shipped = CONFIGS_DIR / f"{prefix}{name.removeprefix(prefix)}.toml"
        if shipped.is_file():
            return shipped
        looked.append(f"the shipped {str(shipped)!r}")
    raise error(f"no {what} {os.fspath(spec)!r}: looked for {' and '.join(looked)}")


def read_toml_config(spec: str | os.PathLike[str], error: type[Exception] = PokerbotError, prefix: str = "",
                     what: str = "config") -> tuple[Path, dict[str, Any]]:
    """The path and parsed content of the TOML config ``spec`` (see :func:`config_path` for the arguments).

    A binary, oversized or malformed file raises ``error`` naming the file, and so does an integer beyond
    TOML's 64 bits (the TOML standard makes it an error; Python's parser reads it as a big int, which
    numpy, numba and torch would refuse later, far from the file).
    """
    path = config_path(spec, error, prefix, what)
    try:
        data = tomllib.loads(read_text_file(path, "TOML config", error))
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None
    for key, value in _integers(data):
        if not -(2**63) <= value < 2**63:
            raise error(f"{path}: {key} = {value} is beyond TOML's 64-bit integers")
    return path, data


def _integers(node: Any, key: str = "") -> Iterator[tuple[str, int]]:
    """Every integer of parsed TOML with its dotted key (array items as ``key[i]``)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _integers(v, f"{key}.{k}" if key else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _integers(v, f"{key}[{i}]")
    elif isinstance(node, int) and not isinstance(node, bool):
        yield key, node


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of the file at ``path`` (read in 1 MiB blocks), as hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: The most bytes of the target's name that :func:`atomic_open`'s temporary name repeats, so that it fits
#: wherever the target's fits (255 bytes): ".", the name, ".", 8 random hex digits, ".tmp".
_TMP_NAME_BYTES = 240


def _create_beside(target: Path) -> tuple[int, Path]:
    """A new file ``.<name>.<random>.tmp`` in ``target``'s directory, open for writing: its descriptor and path.

    Created with mode 0666 less the umask, the mode a plain ``open`` gives the file users get (``mkstemp``'s
    0600 would need a ``chmod``, and reading the umask means setting it, which races with other threads).
    """
    import secrets

    stem = os.fsdecode(os.fsencode(target.name)[:_TMP_NAME_BYTES])
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = target.parent / f".{stem}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


@contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through, so that a reader sees the old file or the whole new one: a
    unique temporary file beside it (``.<name>.<random>.tmp``), flushed to disk and renamed over it when
    the block ends (removed if the block raises). Refuses to replace anything but a regular file.

    Anything that writes to a binary file object writes through it, byte for byte as to a path:
    ``np.save(f, a)`` (:func:`pokerbot.npz.write_npy`), ``np.savez(f, ...)`` (:func:`pokerbot.npz.write_npz`),
    ``torch.save(obj, f)`` (the archive's top folder is then torch's ``archive/``, not one named after the
    file); text goes through :func:`atomic_write_text`, or an ``io.TextIOWrapper`` around ``f`` to stream it.
    """
    target = Path(path)
    if target.exists() and not target.is_file():
        raise PokerbotError(f"{os.fspath(path)!r} exists and is not a regular file; not replacing it")
    fd, tmp = _create_beside(target)
    try:
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


def save_figure(fig: Any, path: str | os.PathLike[str], **savefig_kwargs: Any) -> None:
    """Write the matplotlib figure ``fig`` to ``path`` atomically (:func:`atomic_open`), in the format its suffix
    names (``.png`` when it has none); ``savefig_kwargs`` go to ``fig.savefig`` (``dpi``, ``bbox_inches``, ...)."""
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_open(path) as f:
        fig.savefig(f, format=fmt, **savefig_kwargs)


def load_torch(path: str | os.PathLike[str], map_location: Any = "cpu") -> Any:
    """``torch.load`` that runs no code from the file: ``weights_only=True``, with numpy arrays allowed (their
    reconstructor, ``ndarray``, ``dtype`` and the dtype classes: data, not callables a file may choose). A file
    that needs anything else raises :class:`pickle.UnpicklingError`, as a damaged one does (torch's unpickler
    meets damage with whatever exception it happens on: an IndexError, a struct.error, ...)."""
    import pickle

    import numpy as np
    import torch

    core = getattr(np, "_core", None) or np.core  # numpy 2 moved it
    allowed: list[Any] = [core.multiarray._reconstruct, np.ndarray, np.dtype]
    allowed += sorted({type(np.dtype(c)) for c in "?bBhHiIlLqQefdgFDG"} - {np.dtype}, key=str)
    with torch.serialization.safe_globals(allowed):
        try:
            return torch.load(path, map_location=map_location, weights_only=True)
        except (OSError, MemoryError, pickle.UnpicklingError):
            raise
        except Exception as exc:  # any other failure to unpickle is damage, not a bug of ours
            raise pickle.UnpicklingError(f"{type(exc).__name__}: {exc}") from None


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of ``path`` (a directory or a file, existing or not): ``.<name>.lock`` beside it.

    Beside, not inside, so that the same path has the same lock whether or not it exists yet.

    >>> lock_path("/tmp/runs/leduc").as_posix()
    '/tmp/runs/.leduc.lock'
    """
    p = Path(os.path.abspath(path))
    return p / ".lock" if not p.name else p.parent / f".{p.name}.lock"


@contextmanager
def exclusive(path: str | os.PathLike[str], what: str = "") -> Iterator[None]:
    """Hold ``path`` (a run directory, or a file a job writes over time) for this process while the block runs.

    The lock is an advisory ``flock`` on :func:`lock_path`, released by the kernel
    if the process dies (no stale locks after SIGKILL); the lock file holds the
    holder's pid for the message. A second job on the same path raises
    :class:`~pokerbot.errors.LockedError` at once. ``what`` names the path in
    that message (default: the path). On systems without ``flock`` the block runs
    unguarded.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> with exclusive(d, "the run directory"):
    ...     with exclusive(d, "the run directory"):
    ...         pass
    Traceback (most recent call last):
    pokerbot.errors.LockedError: the run directory ... is being written by another job (pid ...); wait for it to finish, or stop it
    """
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    lock = lock_path(path)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            name = f"{what} {os.fspath(path)}" if what else os.fspath(path)
            raise LockedError(f"{name} is being written by another job (pid {holder}); wait for it to finish, "
                              f"or stop it") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
