"""pokerbot.npz: atomic writes, safe reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pokerbot.npz import read_npz, write_npy, write_npz


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


def test_write_npy_writes_np_save_bytes_to_the_name_given(tmp_path: Path) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "ref.npy", a)
    write_npy(tmp_path / "a.bin", a)  # no ".npy" added, unlike np.save on a path
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "ref.npy").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "ref.npy"]
