"""Where networks run: CUDA when present, else the CPU, and ``POKERBOT_DEVICE`` to choose."""

from __future__ import annotations

import pytest
import torch

from pokerbot.errors import PokerbotError
from pokerbot.torch_device import default_device


def test_the_default_follows_what_torch_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POKERBOT_DEVICE", raising=False)
    assert default_device().type == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert default_device() == torch.device("cpu")


def test_pokerbot_device_overrides_and_bad_values_are_one_line_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POKERBOT_DEVICE", " CPU ")
    assert default_device() == torch.device("cpu")
    for bad in ("gpu", "cuda:x", "tpu"):
        monkeypatch.setenv("POKERBOT_DEVICE", bad)
        with pytest.raises(PokerbotError, match="POKERBOT_DEVICE must be"):
            default_device()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for absent in ("cuda", "cuda:1"):
        monkeypatch.setenv("POKERBOT_DEVICE", absent)
        with pytest.raises(PokerbotError, match="torch sees 0 CUDA devices"):
            default_device()


def test_the_networks_take_their_device_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from realtime.sog.network import CVPN, NetworkValue
    from realtime.sog.search import PublicGame

    monkeypatch.setenv("POKERBOT_DEVICE", "cpu")
    game = PublicGame.load("kuhn")
    assert NetworkValue(CVPN.for_game(game, 8, 1)).device == torch.device("cpu")
    monkeypatch.setenv("POKERBOT_DEVICE", "nonsense")
    with pytest.raises(PokerbotError):
        NetworkValue(CVPN.for_game(game, 8, 1))
