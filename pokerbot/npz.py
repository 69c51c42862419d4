"""Reading and writing ``.npz`` archives (checkpoints, blueprints) and ``.npy`` arrays safely.

``np.load`` on a path leaks its file handle when the file is not an archive;
:func:`read_npz` opens the file itself, refuses pickles, and returns plain arrays.
:func:`read_npy` reads one ``.npy`` array (memory-mapped if asked), refusing an
archive, a pickle or a damaged header with a ``ValueError``, whatever numpy raised.
:func:`write_npz` and :func:`write_npy` write atomically (:func:`pokerbot.files.atomic_open`):
a reader sees the old file or the whole new one.

:func:`save_checked` and :func:`load_checked` add a JSON header (the file's kind,
format version and the SHA-256 of every array): every artifact a command writes
and reads back (checkpoints, blueprints, evaluation chunks) goes through them, so
a damaged, foreign or swapped file is a :class:`~pokerbot.errors.CheckpointError`,
never data used as if it were right.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "x.npz")
>>> save_checked(path, "example", {"step": 3}, {"a": np.arange(4)})
>>> meta, arrays = load_checked(path, "example")
>>> meta["step"], arrays["a"].tolist()
(3, [0, 1, 2, 3])
>>> load_checked(path, "checkpoint")
Traceback (most recent call last):
pokerbot.errors.CheckpointError: ...x.npz: is a 'example' file, expected a 'checkpoint' file
"""

from __future__ import annotations

import hashlib
import json
import os
import tokenize
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from pokerbot.errors import CheckpointError

#: The version of the checked archive's header (:func:`save_checked`).
FORMAT_VERSION = 1

#: Every ``.npz`` file is a zip archive, and starts with a zip local-file header.
ZIP_MAGIC = b"PK\x03\x04"


def read_npz(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive at ``path``.

    Raises OSError if the file cannot be read, ValueError (or zipfile.BadZipFile,
    EOFError) if it is not an archive of plain arrays; callers turn these into
    their own typed error.
    """
    with open(path, "rb") as f:
        if f.read(4) != ZIP_MAGIC:
            raise ValueError("not an .npz archive (empty, or not a zip file)")
        f.seek(0)
        try:
            data = np.load(f, allow_pickle=False)
        except ValueError:  # numpy's message advises unpickling: say what the file is instead
            raise ValueError("not an .npz archive of plain arrays") from None
        except (NotImplementedError, zlib.error, zipfile.BadZipFile, EOFError) as exc:  # a damaged zip directory
            raise ValueError(f"a damaged .npz archive ({exc})") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with data:
            try:
                return {k: data[k] for k in data.files}
            except ValueError:
                raise ValueError("an .npz archive holding objects, not plain arrays") from None
            except (NotImplementedError, zlib.error) as exc:  # a damaged member header (compression method, data)
                raise ValueError(f"a damaged .npz archive ({exc})") from None


#: Every ``.npy`` file starts with this.
NPY_MAGIC = b"\x93NUMPY"


def read_npy(path: str | os.PathLike[str], mmap: bool = False) -> np.ndarray:
    """The array of the ``.npy`` file at ``path`` (memory-mapped, read-only, if ``mmap``).

    Raises OSError if the file cannot be read, ValueError if it is not one ``.npy`` array of plain values
    (an archive, a pickle, a damaged or truncated header or body); callers turn these into their own
    typed error.
    """
    with open(path, "rb") as f:
        if f.read(len(NPY_MAGIC)) != NPY_MAGIC:
            raise ValueError("not an .npy array (empty, or another kind of file)")
    try:
        a = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except OSError:
        raise
    except ValueError as exc:
        raise ValueError(f"not an .npy array of plain values ({exc})") from None
    except (EOFError, OverflowError, SyntaxError, TypeError, MemoryError, tokenize.TokenError) as exc:
        raise ValueError(f"a damaged .npy array ({type(exc).__name__}: {exc})") from None
    if not isinstance(a, np.ndarray):
        raise ValueError("not an .npy array")
    return a


def write_npz(path: str | os.PathLike[str], **arrays: ArrayLike) -> None:
    """Write ``arrays`` to ``path`` atomically (a synced temporary file, then a rename).

    If the write fails (a full disk, an interrupt) the temporary file is removed and
    ``path`` keeps its previous content.
    """
    from pokerbot.files import atomic_open

    with atomic_open(path) as f:
        np.savez(f, allow_pickle=True, **arrays)  # savez's default, named so that no array binds to it


def write_npy(path: str | os.PathLike[str], array: np.ndarray) -> None:
    """Write ``array`` to ``path`` atomically, in ``np.save``'s ``.npy`` format (``path`` is used as given:
    no ``.npy`` is added)."""
    from pokerbot.files import atomic_open

    with atomic_open(path) as f:
        np.save(f, array)


def digest(arrays: dict[str, np.ndarray]) -> str:
    """The SHA-256 of named arrays: each name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(a.shape).encode())
        h.update(a.data.cast("B"))  # the array's memoryview: no copy
    return h.hexdigest()


def save_checked(path: str | os.PathLike[str], kind: str, header: dict[str, Any],
                 arrays: dict[str, np.ndarray]) -> None:
    """Atomically write ``arrays`` and a JSON ``header`` (plus format, kind and checksum)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(header, format=FORMAT_VERSION, kind=kind, sha256=digest(arrays))
    write_npz(path, __header__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)


def load_checked(path: str | os.PathLike[str], kind: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a file written by :func:`save_checked`, verifying its kind, format and checksum."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such {kind} file")
    try:
        arrays = read_npz(path)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise CheckpointError(f"{path}: not a readable {kind} file ({exc})") from None
    if "__header__" not in arrays:
        raise CheckpointError(f"{path}: not a pokerbot {kind} file (no header)")
    try:
        meta = json.loads(arrays.pop("__header__").tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{path}: corrupt header ({exc})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: corrupt header (not a JSON object)")
    if meta.get("kind") != kind:
        raise CheckpointError(f"{path}: is a {meta.get('kind')!r} file, expected a {kind!r} file")
    if meta.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: format {meta.get('format')!r}, this version reads {FORMAT_VERSION}")
    if meta.get("sha256") != digest(arrays):
        raise CheckpointError(f"{path}: checksum mismatch, the file is corrupt")
    return meta, arrays
