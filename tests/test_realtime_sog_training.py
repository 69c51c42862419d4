"""Sound self-play work units, the trainer (checkpoint, resume, curve), configs and the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from pokerbot.cli import main
from pokerbot.errors import CheckpointError
from realtime.sog.network import CVPN, NetworkValue
from realtime.sog.resolve import SearchSettings
from realtime.sog.search import PublicGame, SoGError
from realtime.sog.selfplay import SelfPlayConfig, work_unit
from realtime.sog.training import Trainer, load_config


@pytest.fixture(scope="module")
def leduc() -> PublicGame:
    return PublicGame.load("leduc")


def test_work_unit_yields_policy_and_query_value_targets(leduc: PublicGame) -> None:
    torch.manual_seed(0)
    net = CVPN.for_game(leduc, hidden=16, layers=1)
    cfg = SelfPlayConfig(SearchSettings(10, 1.0), q_search=1.0, q_recursive=1.0, max_queries=5)
    unit = work_unit(leduc, NetworkValue(net, device=torch.device("cpu")), cfg, seed=3)
    ex = unit.examples
    assert unit.searches >= 2 and unit.searches % 2 == 0  # both chains search at every decision
    assert unit.query_solves == 5  # q_recursive = 1 keeps the queue full up to the bound
    main_line = ex.value_mask.sum(axis=1) == 0
    assert main_line.sum() == unit.searches // 2 and (~main_line).sum() == unit.query_solves
    legal = ex.policy_mask.sum(axis=1) > 0
    assert np.allclose(ex.policy.sum(axis=1)[legal], 1.0)
    assert np.all(np.abs(ex.value) <= 1.0 + 1e-6)  # normalised by the largest stake
    again = work_unit(leduc, NetworkValue(net, device=torch.device("cpu")), cfg, seed=3)
    assert np.array_equal(again.examples.x, ex.x)  # reproducible from its seed


def test_trainer_checkpoints_resumes_and_draws_its_curve(tmp_path: Path) -> None:
    cfg = load_config("sog-kuhn").replace(workers=0, steps=20, eval_every=10, eval_seeds=2, checkpoint_every=5,
                                          simulations=10, eval_simulations=10, batch_size=16, hidden=16, layers=1)
    trainer = Trainer(cfg, tmp_path, torch.device("cpu"))
    result = trainer.train(progress=False)
    assert trainer.step == 20 and result.units > 0
    assert [p[0] for p in trainer.curve] == [0, 10, 20]
    assert all(p[1] <= p[2] <= p[3] for p in trainer.curve)
    assert (tmp_path / "curve.png").stat().st_size > 0 and (tmp_path / "checkpoint.pt").is_file()
    resumed = Trainer(cfg.replace(steps=30), tmp_path, torch.device("cpu"))
    assert resumed.step == 20 and len(resumed.buffer) == len(trainer.buffer)
    assert all(torch.equal(a, b) for a, b in zip(resumed.net.state_dict().values(), trainer.net.state_dict().values()))
    resumed.train(progress=False)
    assert resumed.step == 30 and [p[0] for p in resumed.curve][-1] == 30
    assert len(list((tmp_path / "nets").glob("step-*.pt"))) == 4  # one snapshot per evaluation (and at the end)
    rc = main(["sog", "eval", "--game", "kuhn", "--checkpoint", str(tmp_path), "--over-steps", "--search", "5,1",
               "--search", "20,1", "--seeds", "1", "--no-progress"])
    assert rc == 0 and len((tmp_path / "curves.csv").read_text().splitlines()) == 1 + 2 * 4
    assert (tmp_path / "curves.png").stat().st_size > 0
    (tmp_path / "checkpoint.pt").write_bytes(b"garbage")
    with pytest.raises(CheckpointError):
        Trainer(cfg, tmp_path)


def test_snapshots_without_evaluations(tmp_path: Path) -> None:
    cfg = load_config("sog-kuhn").replace(workers=0, steps=10, eval_every=0, snapshot_every=4, simulations=5,
                                          batch_size=16, hidden=8, layers=1)
    Trainer(cfg, tmp_path, torch.device("cpu")).train(progress=False)
    steps = sorted(int(p.stem.split("-")[1]) for p in (tmp_path / "nets").glob("step-*.pt"))
    assert steps == [0, 4, 8, 10]  # every 4 steps, and at the end
    assert not (tmp_path / "curve.csv").exists()  # no protocol was run
    with pytest.raises(SoGError, match="snapshot_every"):
        cfg.replace(snapshot_every=-1)


def test_configs_are_validated(tmp_path: Path) -> None:
    assert load_config("sog-leduc").game == "leduc"
    assert load_config("sog-leduc-nl").game == "leduc-nl"
    quick = load_config("sog-leduc-quick")  # the recipe docs/sog.md times: one core, no protocol while training
    assert (quick.game, quick.steps, quick.simulations, quick.workers, quick.eval_every) == ("leduc", 1500, 50, 0, 0)
    bad = tmp_path / "bad.toml"
    bad.write_text('[sog]\ngame = "leduc"\nbatchsize = 3\n')
    with pytest.raises(SoGError, match="unknown key.*'batchsize'"):
        load_config(str(bad))
    bad.write_text('name = "x"\n[sgo]\nsteps = 5\n')  # a misspelt table is refused, not trained with defaults
    with pytest.raises(SoGError, match="unknown key.*'sgo'"):
        load_config(str(bad))
    bad.write_text('name = "x"\n[game]\nname = "kuhn"\n[mccfr]\niterations = 10\n')  # a blueprint config
    with pytest.raises(SoGError, match="unknown key"):
        load_config(str(bad))
    for text, key in (('steps = "many"', "steps must be a whole number"), ("seed = 1.7", "seed must be a whole"),
                      ("lr = nan", "lr must be a number")):
        bad.write_text(f'[sog]\ngame = "leduc"\n{text}\n')
        with pytest.raises(SoGError, match=key):
            load_config(str(bad))
    bad.write_text('[sog]\ngame = "leduc"\nepsilon = 2.0\n')
    with pytest.raises(SoGError, match="epsilon"):
        load_config(str(bad))
    with pytest.raises(SoGError):
        load_config("no-such-config")


def test_cli_eval_writes_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["sog", "eval", "--game", "kuhn", "--search", "20,1", "--seeds", "2", "--exact-iterations", "50",
               "--out", str(tmp_path), "--no-progress"])
    assert rc == 0
    text = (tmp_path / "eval.md").read_text()
    assert "SoG(20,1)" in text and "A2C" in text
    assert (tmp_path / "eval.png").is_file() and len((tmp_path / "eval.csv").read_text().splitlines()) == 3
    assert main(["sog", "eval", "--game", "kuhn", "--seeds", "0", "--no-progress"]) == 1
    assert "pokerbot sog: error:" in capsys.readouterr().err
    assert main(["sog", "train", "no-such-config"]) == 1


@pytest.mark.slow
def test_training_over_ray(tmp_path: Path) -> None:
    cfg = load_config("sog-kuhn").replace(workers=1, steps=10, eval_every=0, simulations=10, batch_size=16,
                                          hidden=16, layers=1)
    trainer = Trainer(cfg, tmp_path, torch.device("cpu"))
    result = trainer.train(progress=False)
    assert trainer.step == 10 and result.units > 0
