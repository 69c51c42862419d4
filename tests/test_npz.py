"""pokerbot.npz: atomic writes, safe reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerbot.npz import read_npz, write_npz


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    write_npz(path, x=np.arange(5), y=np.array(2.5))
    data = read_npz(path)
    assert data["x"].tolist() == [0, 1, 2, 3, 4] and float(data["y"]) == 2.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.npz"
    write_npz(path, x=np.arange(3))

    def interrupted(f, **arrays):  # type: ignore[no-untyped-def]
        f.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_npz(path, x=np.arange(7))
    assert read_npz(path)["x"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npz"]
