"""Reading and writing ``.npz`` archives (checkpoints, blueprints) and ``.npy`` arrays safely.

``np.load`` on a path leaks its file handle when the file is not an archive;
:func:`read_npz` opens the file itself, refuses pickles, and returns plain arrays.
:func:`write_npz` and :func:`write_npy` write atomically (:func:`pokerbot.files.atomic_open`):
a reader sees the old file or the whole new one.
"""

from __future__ import annotations

import os
import zlib

import numpy as np
from numpy.typing import ArrayLike

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
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with data:
            try:
                return {k: data[k] for k in data.files}
            except ValueError:
                raise ValueError("an .npz archive holding objects, not plain arrays") from None
            except (NotImplementedError, zlib.error) as exc:  # a damaged member header (compression method, data)
                raise ValueError(f"a damaged .npz archive ({exc})") from None


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
