"""pokerbot.files: one way to find and read a TOML config, one home for artifacts, atomic writes, one file digest."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from pokerbot.errors import PokerbotError
from pokerbot.files import (
    CONFIGS_DIR,
    atomic_open,
    atomic_write_text,
    config_path,
    file_sha256,
    load_torch,
    plain_name,
    pokerbot_home,
    read_toml_config,
    save_figure,
)


class MyError(PokerbotError):
    pass


def test_a_name_means_the_shipped_config_and_a_path_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config_path("leduc") == CONFIGS_DIR / "leduc.toml"
    assert config_path("leduc.toml") == CONFIGS_DIR / "leduc.toml"
    local = tmp_path / "leduc"
    local.write_text('name = "mine"\n')
    monkeypatch.chdir(tmp_path)
    path, data = read_toml_config("leduc")
    assert path == Path("leduc") and data == {"name": "mine"}


@pytest.mark.parametrize("content", [b"", b"\x00\x01binary", b"[unclosed\n", b"\xff\xfe"])
def test_bad_configs_raise_the_callers_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.toml"
    path.write_bytes(content)
    if content == b"":
        assert read_toml_config(path, MyError) == (path, {})
        return
    with pytest.raises(MyError, match="c.toml"):
        read_toml_config(path, MyError)
    with pytest.raises(MyError, match="no config"):
        read_toml_config(tmp_path / "missing", MyError)


def test_file_sha256_is_the_digest_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    data = bytes(range(256)) * 9000  # several read blocks
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()


def test_pokerbot_home_unset_or_empty_is_the_default_and_a_tilde_is_expanded(monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path: Path) -> None:
    default = Path.home() / ".cache" / "pokerbot"
    monkeypatch.delenv("POKERBOT_HOME", raising=False)
    assert pokerbot_home() == default
    monkeypatch.setenv("POKERBOT_HOME", "")  # set but empty: as if unset (not the current directory)
    assert pokerbot_home() == default
    monkeypatch.setenv("POKERBOT_HOME", "~/elsewhere")
    assert pokerbot_home() == Path.home() / "elsewhere"
    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path))
    assert pokerbot_home() == tmp_path


def test_a_kind_prefix_is_optional_in_a_name_and_a_missing_name_says_where_it_looked(tmp_path: Path) -> None:
    shipped = CONFIGS_DIR / "realtime-hunl-tiny.toml"
    for spec in ("hunl-tiny", "realtime-hunl-tiny", "realtime-hunl-tiny.toml", shipped):
        assert config_path(spec, prefix="realtime-") == shipped
    assert config_path("hunl-tiny") == CONFIGS_DIR / "hunl-tiny.toml"  # no prefix: the name as it is
    with pytest.raises(MyError, match="no real-time config 'nope'") as err:
        config_path("nope", MyError, prefix="realtime-", what="real-time config")
    assert str(Path("nope").absolute()) in str(err.value) and str(CONFIGS_DIR / "realtime-nope.toml") in str(err.value)
    with pytest.raises(MyError, match="no config") as err:  # a path is only a path: never looked up in configs/
        config_path(tmp_path / "leduc.toml", MyError)
    assert str(CONFIGS_DIR) not in str(err.value)


def test_atomic_open_leaves_the_old_file_on_failure_and_gives_the_umask_mode(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    atomic_write_text(path, "old")
    with pytest.raises(KeyboardInterrupt), atomic_open(path) as f:
        f.write(b"half")
        raise KeyboardInterrupt
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["a.txt"]
    umask = os.umask(0o027)
    try:
        atomic_write_text(path, "new \u2660")
    finally:
        os.umask(umask)
    assert path.read_bytes() == "new \u2660".encode() and path.stat().st_mode & 0o777 == 0o640


def test_atomic_open_takes_the_longest_file_name(tmp_path: Path) -> None:
    """The temporary name fits wherever the file's own does (a 255-byte name, multi-byte characters cut)."""
    for name in ("x" * 255, "\u00e9" * 127 + "x"):
        atomic_write_text(tmp_path / name, "ok")
        assert (tmp_path / name).read_text() == "ok"
    assert len(os.listdir(tmp_path)) == 2


def test_save_figure_writes_the_suffix_format_atomically(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure(fig, tmp_path / "a.png", dpi=50)
    save_figure(fig, tmp_path / "a.svg")
    with pytest.raises(ValueError):  # matplotlib refuses the format: the old file stays, no temporary is left
        save_figure(fig, tmp_path / "a.png.nosuchformat")
    plt.close(fig)
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "a.svg").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["a.png", "a.svg"]


class _Payload:
    """Unpickling this calls ``Path.touch`` on a file of the test's choosing: code a crafted checkpoint runs."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Path.touch, (str(self.target),))


def test_load_torch_runs_no_code_from_the_file(tmp_path: Path) -> None:
    import pickle

    import numpy as np
    import torch

    good = tmp_path / "good.pt"
    torch.save({"model": {"w": torch.ones(2)}, "buffer": np.arange(3, dtype=np.int8), "curve": [(1, 2.5)],
                "rng": np.random.default_rng(0).bit_generator.state}, good)
    data = load_torch(good)
    assert data["buffer"].tolist() == [0, 1, 2] and data["curve"] == [(1, 2.5)] and data["model"]["w"].sum() == 2
    crafted = tmp_path / "crafted.pt"
    torch.save({"model": _Payload(tmp_path / "ran")}, crafted)
    with pytest.raises(pickle.UnpicklingError):
        load_torch(crafted)
    assert not (tmp_path / "ran").exists()
    torch.load(crafted, weights_only=False)  # negative control: an unrestricted load runs it
    assert (tmp_path / "ran").exists()


@pytest.mark.parametrize("name", ["", ".", "..", "../../x", "a/b", "/abs", "nul\0"])
def test_a_name_that_would_leave_pokerbot_home_is_refused(name: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    with pytest.raises(PokerbotError, match="plain name"):
        plain_name(name)
    with pytest.raises(PokerbotError, match="plain name"):
        Trainer(BlueprintConfig(name=name, game="kuhn", iterations=10))
    from realtime.config import RealtimeConfig

    with pytest.raises(PokerbotError, match="plain name"):
        RealtimeConfig.from_dict({"blueprint": "hunl-tiny", "name": name})
    assert not (tmp_path / "x").exists() and not (tmp_path / "abs").exists()
    assert plain_name("hunl-tiny") == "hunl-tiny"  # negative control: a plain name passes
