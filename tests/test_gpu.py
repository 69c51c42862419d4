"""The networks on CUDA: the same code trains and plays there and agrees with the CPU.

Marked ``gpu`` and left out by default (no CI machine has a GPU); on a machine with one,
``pytest -m gpu tests/test_gpu.py`` runs them, and each fails (not skips) where torch sees
no CUDA device. The default suite checks the device choice itself (``POKERBOT_DEVICE``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from pokerbot.torch_device import default_device

pytestmark = pytest.mark.gpu

CUDA = torch.device("cuda")


@pytest.fixture(autouse=True)
def _needs_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    assert torch.cuda.is_available(), "these tests need a CUDA device (run them with -m gpu on a GPU machine)"
    monkeypatch.delenv("POKERBOT_DEVICE", raising=False)


def test_networks_run_on_cuda_when_present_with_no_code_change() -> None:
    assert default_device().type == "cuda"


def test_cvpn_values_and_priors_on_cuda_match_the_cpu() -> None:
    from realtime.sog.network import CVPN, NetworkValue
    from realtime.sog.search import PublicGame

    game = PublicGame.load("leduc")
    torch.manual_seed(0)
    net = CVPN.for_game(game, 64, 2)
    rng = np.random.default_rng(0)
    nodes = rng.choice(np.flatnonzero(game.tree.kind == 0), size=64)
    r0, r1 = rng.random((64, game.num_hands[0])), rng.random((64, game.num_hands[1]))
    cpu = NetworkValue(CVPN.for_game(game, 64, 2), device=torch.device("cpu"))
    cpu.net.load_state_dict(net.state_dict())
    gpu = NetworkValue(net)  # the default device: CUDA here
    assert next(gpu.net.parameters()).device.type == "cuda"
    a, b = cpu.evaluate(game, nodes, r0, r1), gpu.evaluate(game, nodes, r0, r1)
    scale = np.abs(a.v0).max()
    assert scale > 0
    np.testing.assert_allclose(b.v0, a.v0, rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(b.v1, a.v1, rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(b.prior, a.prior, rtol=0, atol=1e-4)


def test_sog_trains_on_cuda_and_its_checkpoint_resumes_on_the_cpu(tmp_path: Path) -> None:
    from realtime.sog.training import Trainer, load_config

    cfg = load_config("sog-kuhn").replace(workers=0, steps=20, eval_every=10, eval_seeds=1, checkpoint_every=10,
                                          simulations=10, eval_simulations=10, batch_size=16, hidden=16, layers=1)
    trainer = Trainer(cfg, tmp_path)  # no device given: CUDA
    assert trainer.device.type == "cuda"
    trainer.train(progress=False)
    assert trainer.step == 20 and next(trainer.net.parameters()).device.type == "cuda"
    assert all(np.isfinite(p[1:]).all() for p in trainer.curve)
    resumed = Trainer(cfg.replace(steps=25), tmp_path, torch.device("cpu"))
    assert resumed.step == 20
    for k, v in trainer.net.state_dict().items():
        assert torch.equal(resumed.net.state_dict()[k], v.cpu())
    resumed.train(progress=False)
    assert resumed.step == 25


def test_leaf_net_trains_on_cuda_and_predicts_as_on_the_cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from blueprint.leafnet import FeatureSpec, LeafNet, TrainConfig, strategy_identity, train

    rng = np.random.default_rng(0)
    x = rng.random((600, 26)).astype(np.float32)
    y = np.stack([x[:, 0] - x[:, 25], np.sin(3 * x[:, 1])], axis=1).astype(np.float32)
    groups = np.arange(600) // 6
    meta = {"spec": FeatureSpec().as_dict(), "choices": [1, 2], "classes": "hand", "game": "leduc-nl",
            "blueprint": strategy_identity("t", [np.linspace(0, 1, 50)]),
            "continuations": strategy_identity("t", [np.linspace(0, 1, 50)])}
    res = train(x, y, groups, tmp_path, TrainConfig(hidden=[16, 16], epochs=8, patience=50, batch=64, lr=3e-3), meta)
    assert next(res.net.model.parameters()).device.type == "cuda"
    assert res.history[-1][1] < 0.5 * res.history[0][1]  # it learns there
    on_gpu = LeafNet.load(tmp_path)
    monkeypatch.setenv("POKERBOT_DEVICE", "cpu")
    on_cpu = LeafNet.load(tmp_path)
    assert next(on_cpu.model.parameters()).device.type == "cpu"
    np.testing.assert_allclose(on_gpu.predict(x), on_cpu.predict(x), rtol=0, atol=1e-5)


def test_leaf_net_training_resumes_on_cuda(tmp_path: Path) -> None:
    """A checkpoint written on CUDA resumes there (its RNG state is the CPU's: it was once loaded onto the GPU)."""
    from blueprint.leafnet import FeatureSpec, TrainConfig, strategy_identity, train

    rng = np.random.default_rng(1)
    x = rng.random((300, 26)).astype(np.float32)
    y = x[:, :2] - x[:, 2:4]
    groups = np.arange(300) // 6
    meta = {"spec": FeatureSpec().as_dict(), "choices": [1, 2], "classes": "hand", "game": "leduc-nl",
            "blueprint": strategy_identity("t", [np.linspace(0, 1, 50)]),
            "continuations": strategy_identity("t", [np.linspace(0, 1, 50)])}
    first = train(x, y, groups, tmp_path, TrainConfig(hidden=[8], epochs=3, patience=50), meta)
    again = train(x, y, groups, tmp_path, TrainConfig(hidden=[8], epochs=3, patience=50), meta)  # all epochs done
    assert again.history == first.history
