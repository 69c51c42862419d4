"""pokerbot.files: one way to find and read a TOML config, one file digest."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pokerbot.errors import PokerbotError
from pokerbot.files import CONFIGS_DIR, config_path, file_sha256, read_toml_config


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
