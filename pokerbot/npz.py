"""Reading ``.npz`` archives (checkpoints, blueprints) safely.

``np.load`` on a path leaks its file handle when the file is not an archive;
:func:`read_npz` opens the file itself, refuses pickles, and returns plain arrays.
"""

from __future__ import annotations

import os

import numpy as np


def read_npz(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive at ``path``.

    Raises OSError if the file cannot be read, ValueError (or zipfile.BadZipFile,
    EOFError) if it is not an archive of plain arrays; callers turn these into
    their own typed error.
    """
    with open(path, "rb") as f:
        data = np.load(f, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive")
        with data:
            return {k: data[k] for k in data.files}
