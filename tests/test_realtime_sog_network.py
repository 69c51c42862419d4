"""The CVPN: inputs, conversion of its outputs to counterfactual values, priors, learning."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from realtime.sog.network import CVPN, NetworkValue, default_device, feature_size, features
from realtime.sog.search import GTCFR, PublicGame
from realtime.sog.selfplay import Examples, example
from realtime.sog.values import ExactValue


@pytest.fixture(scope="module")
def leduc() -> PublicGame:
    return PublicGame.load("leduc")


def test_features_hold_ranges_board_commitments_actor_round(leduc: PublicGame) -> None:
    t = leduc.tree
    node = leduc.decision_children(int(t.first_child[0]))[0]  # 'c' then the first board
    r0 = np.arange(1.0, 7.0)[None]
    r1 = np.ones(6)[None]
    x = features(leduc, np.array([node]), r0, r1)[0]
    assert x.shape == (feature_size(leduc),)
    assert x[:6].sum() == pytest.approx(1.0) and x[6:12].sum() == pytest.approx(1.0)
    assert x[12:18].sum() == 1.0  # one board card
    assert x[18:20].tolist() == pytest.approx((leduc.spent[node] / leduc.max_stake).tolist())
    assert x[20:23].sum() == 1.0 and x[23:].tolist() == [0.0, 1.0]  # round 2


def test_network_values_are_counterfactual(leduc: PublicGame) -> None:
    torch.manual_seed(0)
    net = CVPN.for_game(leduc, hidden=16, layers=1)
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        net.value.bias.fill_(0.5)
    vf = NetworkValue(net, device=torch.device("cpu"))
    node = leduc.decision_children(int(leduc.tree.first_child[0]))[0]
    r0, r1 = np.full((1, 6), 0.5), np.full((1, 6), 2.0)
    out = vf.evaluate(leduc, np.array([node]), r0, r1)
    valid0 = leduc.tree.valid[0][int(leduc.tree.board[node])]
    mass = leduc.opponent_mass(0, r1[0])
    assert out.v0[0] == pytest.approx(0.5 * leduc.max_stake * mass * valid0)
    assert out.v0[0][valid0 == 0].tolist() == [0.0]
    assert out.prior is not None
    nc = int(leduc.tree.num_children[node])
    assert out.prior[0, :nc].sum(axis=0) == pytest.approx(np.ones(6))
    assert default_device().type in ("cpu", "cuda")


def test_network_fits_search_targets(leduc: PublicGame) -> None:
    """Supervised on exact searches at a few belief states, the value loss falls (it could fail to)."""
    from realtime.sog.training import TrainConfig, Trainer

    rng = np.random.default_rng(0)
    parts = []
    nodes = [0] + leduc.decision_children(0)
    for i, n in enumerate(nodes):
        r = (rng.random(6), rng.random(6))
        s = GTCFR(leduc, n, r, ExactValue(leduc, 20), seed=i).run(5, 1)
        parts.append(example(leduc, s, with_values=True))
    data = Examples.concat(parts)
    assert data.value_mask.sum() > 0 and np.allclose(data.policy.sum(axis=1)[data.policy_mask.sum(axis=1) > 0], 1.0)
    import tempfile

    trainer = Trainer(TrainConfig(game="leduc", hidden=32, layers=2, lr=3e-3, w_p=1.0), tempfile.mkdtemp(), torch.device("cpu"))
    trainer.buffer = data
    _, huber_before, ce_before = trainer.loss(data)
    for _ in range(200):
        trainer.train_step()
    _, huber_after, ce_after = trainer.loss(data)
    assert huber_after < 0.2 * huber_before
    assert ce_after < ce_before
