"""Checkpoints and blueprint files: ``.npz`` arrays plus a JSON header with a checksum.

Everything is written to a temporary file and renamed into place, so a crash
while saving leaves the previous file intact. Loading verifies the format, the
SHA-256 of every array and (for checkpoints) that the run's identity matches,
and raises :class:`~pokerbot.errors.CheckpointError` naming what is wrong.

Artifacts live under ``$POKERBOT_HOME`` (:func:`pokerbot.files.pokerbot_home`), in
``blueprints/<name>/``: ``checkpoint.npz``, ``blueprint.npz`` and
``manifest.json`` (the config that built them).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerbot.errors import CheckpointError
from pokerbot.files import atomic_write_text, plain_name, pokerbot_home
from pokerbot.npz import read_npz, write_npz

FORMAT_VERSION = 1


def blueprint_dir(name: str) -> Path:
    """``$POKERBOT_HOME/blueprints/<name>`` (``name`` a plain name: :func:`pokerbot.files.plain_name`)."""
    return pokerbot_home() / "blueprints" / plain_name(name, "blueprint name")


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(a.shape).encode())
        h.update(a.data.cast("B"))  # the array's memoryview: no copy
    return h.hexdigest()


def save_arrays(path: str | Path, kind: str, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Atomically write ``arrays`` and a JSON ``header`` (plus format, kind and checksum)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = dict(header, format=FORMAT_VERSION, kind=kind, sha256=_digest(arrays))
    write_npz(path, __header__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)


def load_arrays(path: str | Path, kind: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a file written by :func:`save_arrays`, verifying kind, format and checksum."""
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
    if meta.get("kind") != kind:
        raise CheckpointError(f"{path}: is a {meta.get('kind')!r} file, expected a {kind!r} file")
    if meta.get("format") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: format {meta.get('format')!r}, this version reads {FORMAT_VERSION}")
    if meta.get("sha256") != _digest(arrays):
        raise CheckpointError(f"{path}: checksum mismatch, the file is corrupt")
    return meta, arrays


def check_identity(path: str | Path, saved: dict[str, Any], expected: dict[str, Any]) -> None:
    """Refuse a checkpoint whose run identity differs from ``expected``, naming the fields."""
    diffs = [
        f"{k}: checkpoint {saved.get(k)!r} vs config {expected.get(k)!r}"
        for k in sorted(set(saved) | set(expected))
        if saved.get(k) != expected.get(k)
    ]
    if diffs:
        raise CheckpointError(f"{path}: checkpoint does not match this config ({'; '.join(diffs)})")


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(directory / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True, default=str))
