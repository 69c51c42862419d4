"""Where blueprint runs live, and the checks that tie a checkpoint to its run.

Checkpoints and blueprint files are checked archives (:func:`pokerbot.npz.save_checked`:
``.npz`` arrays plus a JSON header with a checksum), written to a temporary file and
renamed into place, so a crash while saving leaves the previous file intact. Loading
verifies the format, the SHA-256 of every array and (for checkpoints, with
:func:`check_identity`) that the run's identity matches, and raises
:class:`~pokerbot.errors.CheckpointError` naming what is wrong.

Artifacts live under ``$POKERBOT_HOME`` (:func:`pokerbot.files.pokerbot_home`), in
``blueprints/<name>/``: ``checkpoint.npz``, ``blueprint.npz`` and
``manifest.json`` (the config that built them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


from pokerbot.errors import CheckpointError
from pokerbot.files import atomic_write_text, plain_name, pokerbot_home

__all__ = ["blueprint_dir", "check_identity", "write_manifest"]


def blueprint_dir(name: str) -> Path:
    """``$POKERBOT_HOME/blueprints/<name>`` (``name`` a plain name: :func:`pokerbot.files.plain_name`)."""
    return pokerbot_home() / "blueprints" / plain_name(name, "blueprint name")


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
