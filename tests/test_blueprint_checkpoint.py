"""Checkpoints: exact resume, Ctrl-C, crashes, corrupt and mismatched files, configs, the train CLI."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

from blueprint.config import BlueprintConfig, ConfigError, config_from_dict, load_config
from blueprint.model import Blueprint
from blueprint.trainer import Trainer
from pokerbot.errors import CheckpointError


def cfg(**kw) -> BlueprintConfig:
    base = dict(name="ck", game="leduc", iterations=6000, chunk=500, checkpoint_every=1000, seed=7,
                discount_every=700, discount_until=4000)
    base.update(kw)
    return BlueprintConfig(**base)


def reference() -> Trainer:
    t = Trainer(cfg(), directory=None)
    t.train(progress=False)
    return t


def same(a: Trainer, b: Trainer) -> bool:
    return (a.iteration == b.iteration and np.array_equal(a.regret, b.regret) and np.array_equal(a.ssum, b.ssum)
            and np.array_equal(a.trav_rng, b.trav_rng) and np.array_equal(a.deal_rng, b.deal_rng))


def test_stop_and_resume_is_exact(tmp_path: Path):
    ref = reference()
    first = Trainer(cfg(), directory=tmp_path)
    r = first.train(progress=False, stop_after=2300)
    assert r.iterations == 2300 and (tmp_path / "checkpoint.npz").is_file()
    again = Trainer(cfg(), directory=tmp_path)
    again.train(progress=False)
    assert same(ref, again)
    bp = Blueprint.load(tmp_path / "blueprint.npz")
    assert bp.meta["iterations"] == 6000
    assert np.allclose(bp.strategy, ref.average().astype(np.float32))


def test_ctrl_c_saves_a_checkpoint_and_resumes_exactly(tmp_path: Path):
    ref = reference()
    calls = []

    def interrupt(policy):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # as if the user pressed Ctrl-C
        return 0.0

    t = Trainer(cfg(eval_every=1000), directory=tmp_path)
    r = t.train(progress=False, evaluate=interrupt)
    assert r.interrupted and t.iteration == 2000  # the chunk finished, nothing lost
    again = Trainer(cfg(), directory=tmp_path)
    again.load_checkpoint()
    assert again.iteration == 2000
    again.train(progress=False)
    assert same(ref, again)


def test_crash_loses_at_most_one_checkpoint_interval(tmp_path: Path):
    ref = reference()

    def crash(policy):
        raise RuntimeError("simulated crash")

    t = Trainer(cfg(eval_every=2500, checkpoint_every=1000), directory=tmp_path)
    with pytest.raises(RuntimeError):
        t.train(progress=False, evaluate=crash)
    again = Trainer(cfg(), directory=tmp_path)
    again.load_checkpoint()
    assert 2500 - 1000 <= again.iteration <= 2500
    again.train(progress=False)
    assert same(ref, again)


def test_corrupt_and_mismatched_checkpoints_are_refused(tmp_path: Path):
    t = Trainer(cfg(iterations=1000), directory=tmp_path)
    t.train(progress=False)
    path = tmp_path / "checkpoint.npz"
    good = path.read_bytes()
    # another seed: refused, naming the field
    with pytest.raises(CheckpointError, match="seed"):
        Trainer(cfg(seed=8), directory=tmp_path).load_checkpoint()
    with pytest.raises(CheckpointError, match="game"):
        Trainer(cfg(game="kuhn"), directory=tmp_path).load_checkpoint()
    # a flipped byte inside the regrets: checksum mismatch (or unreadable zip)
    data = bytearray(good)
    at = good.find(t.ssum.tobytes()[:64])
    assert at > 0
    data[at + 40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt|not a readable"):
        Trainer(cfg(), directory=tmp_path).load_checkpoint()
    # truncated
    path.write_bytes(good[: len(good) // 3])
    with pytest.raises(CheckpointError, match="not a readable"):
        Trainer(cfg(), directory=tmp_path).train(progress=False)
    # not a checkpoint at all
    np.savez(path, regret=np.zeros(3))
    with pytest.raises(CheckpointError, match="no header"):
        Trainer(cfg(), directory=tmp_path).load_checkpoint()
    with pytest.raises(CheckpointError, match="expected a 'checkpoint'"):
        Trainer(cfg(), directory=tmp_path).load_checkpoint(tmp_path / "blueprint.npz")
    with pytest.raises(CheckpointError, match="expected a 'blueprint'"):
        path.write_bytes(good)
        Blueprint.load(path)


def test_configs_parse_and_refuse_bad_input(tmp_path: Path):
    for name in ("kuhn", "leduc", "leduc-linear", "hunl-tiny", "hunl-default", "hunl-slumbot"):
        c = load_config(name)
        assert c.name == name and c.iterations > 0
    assert load_config("hunl-tiny").regret_floor == -310_000_000.0
    with pytest.raises(ConfigError, match="unknown key 'iterationz'"):
        config_from_dict({"game": {"name": "leduc"}, "mccfr": {"iterationz": 3}})
    with pytest.raises(ConfigError, match="missing 'iterations'"):
        config_from_dict({"game": {"name": "leduc"}})
    with pytest.raises(ConfigError, match="dtype"):
        config_from_dict({"game": {"name": "leduc"}, "mccfr": {"iterations": 3, "dtype": "int8"}})
    bad = tmp_path / "bad.toml"
    bad.write_text("[game\nname = 'leduc'")
    with pytest.raises(ConfigError, match="bad.toml"):
        load_config(bad)
    with pytest.raises(ConfigError, match="no config"):
        load_config("no-such-config")


def test_train_cli_runs_and_resumes(tmp_path: Path, capsys, monkeypatch):
    from pokerbot.cli import main

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path))
    conf = tmp_path / "k.toml"
    conf.write_text('name = "k"\n[game]\nname = "kuhn"\n[mccfr]\niterations = 4000\n'
                    '[run]\nchunk = 1000\ncheckpoint_every = 1000\neval_every = 2000\n')
    assert main(["train", str(conf), "--iterations", "2000", "--no-progress"]) == 0
    assert main(["train", str(conf), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "4,000 iterations (2,000 new" in out and "exploitability after 4,000" in out
    assert (tmp_path / "blueprints" / "k" / "blueprint.npz").is_file()
    assert (tmp_path / "blueprints" / "k" / "manifest.json").is_file()
    (tmp_path / "blueprints" / "k" / "checkpoint.npz").write_bytes(b"garbage")
    assert main(["train", str(conf), "--no-progress"]) == 1
    assert "not a readable checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])  # 2: ray start-ups, ~30 s
def test_runs_meet_iterations_and_checkpoints_exactly(workers: int, tmp_path) -> None:
    """A run stops at its iteration count and checkpoints at every checkpoint_every, with ray workers too (not at
    the next whole epoch: 300,000 once ran 500,000); a run stopped at a checkpoint resumes to the same arrays."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer
    from pokerbot.npz import load_checked

    cfg = BlueprintConfig(name="exact", game="kuhn", iterations=3_500, workers=workers, sync_every=1_000,
                          checkpoint_every=1_500, chunk=1_000)
    whole = Trainer(cfg, directory=tmp_path / "whole")
    split = Trainer(cfg, directory=tmp_path / "split")
    saved = []
    real_save = Trainer.save_checkpoint

    def record(self, path=None):  # type: ignore[no-untyped-def]
        saved.append(self.iteration)
        return real_save(self, path)

    try:
        Trainer.save_checkpoint = record  # type: ignore[method-assign]
        result = whole.train(progress=False)
        assert whole.iteration == 3_500 and result.iterations == 3_500
        assert saved == [1_500, 3_000, 3_500]
        split.train(1_500, progress=False)
        meta, _ = load_checked(tmp_path / "split" / "checkpoint.npz", "checkpoint")
        assert meta["iteration"] == 1_500
        split.close()
        resumed = Trainer(cfg, directory=tmp_path / "split")
        resumed.train(progress=False)
        assert resumed.iteration == 3_500
        assert np.array_equal(resumed.regret, whole.regret) and np.array_equal(resumed.ssum, whole.ssum)
        resumed.close()
    finally:
        Trainer.save_checkpoint = real_save  # type: ignore[method-assign]
        whole.close()
        split.close()


@pytest.mark.parametrize("damage", ["deleted", "dangling-link", "directory"])
def test_training_never_starts_over_silently(damage: str, tmp_path, capsys) -> None:
    """A run directory whose checkpoint is gone (its blueprint still there), a dangling link or a directory in
    its place is refused with one line; --fresh retrains on purpose (hunl-tiny once silently retrained 2M
    iterations over its blueprint)."""
    from pokerbot.cli import main

    conf = tmp_path / "k.toml"
    conf.write_text('name = "k"\n[game]\nname = "kuhn"\n[mccfr]\niterations = 2000\n[run]\nchunk = 1000\n')
    run = ["train", str(conf), "--dir", str(tmp_path / "run"), "--no-progress"]
    assert main(run) == 0
    ckpt = tmp_path / "run" / "checkpoint.npz"
    ckpt.unlink()
    if damage == "dangling-link":
        ckpt.symlink_to(tmp_path / "nowhere.npz")
    elif damage == "directory":
        ckpt.mkdir()
    capsys.readouterr()
    before = (tmp_path / "run" / "blueprint.npz").read_bytes()
    assert main(run + ["--iterations", "3000"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pokerbot train: error:" in err and "--fresh" in err, err
    assert (tmp_path / "run" / "blueprint.npz").read_bytes() == before  # untouched
    if damage == "deleted":  # negative control: on purpose, it retrains
        assert main(run + ["--fresh"]) == 0
        assert "done: 2,000 iterations (2,000 new" in capsys.readouterr().out


def test_snapshots_keep_the_blueprint_along_the_run(tmp_path: Path):
    t = Trainer(cfg(snapshot_every=2000), directory=tmp_path)
    t.train(progress=False)
    kept = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert kept == ["blueprint-2000.npz", "blueprint-4000.npz", "blueprint-6000.npz"]
    early, last = Blueprint.load(tmp_path / "snapshots" / kept[0]), Blueprint.load(tmp_path / "blueprint.npz")
    assert early.meta["iterations"] == 2000 and last.meta["iterations"] == 6000
    assert np.array_equal(Blueprint.load(tmp_path / "snapshots" / kept[-1]).strategy, last.strategy)
    assert not np.array_equal(early.strategy, last.strategy)
    with pytest.raises(ConfigError, match="snapshot_every"):
        cfg(snapshot_every=-1)


def test_a_run_stopped_between_checkpoints_keeps_the_snapshot_schedule(tmp_path: Path):
    t = Trainer(cfg(snapshot_every=2000), directory=tmp_path)
    t.train(progress=False, stop_after=1500)  # a stop off the checkpoint grid (as Ctrl-C mid-way)
    assert t.iteration == 1500
    again = Trainer(cfg(snapshot_every=2000), directory=tmp_path)
    again.train(progress=False)
    kept = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert kept == ["blueprint-2000.npz", "blueprint-4000.npz", "blueprint-6000.npz"]
    # Negative control: without the grid, checkpoints would fall at 2500, 3500, ... and keep no 4000 snapshot.
    assert Blueprint.load(tmp_path / "snapshots" / "blueprint-4000.npz").meta["iterations"] == 4000


def test_a_snapshot_is_named_run_at_iteration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from blueprint.agent import resolve_path

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path))
    t = Trainer(cfg(name="snap", snapshot_every=3000), directory=True)
    t.train(progress=False)
    assert resolve_path("snap@3000") == tmp_path / "blueprints" / "snap" / "snapshots" / "blueprint-3000.npz"
    with pytest.raises(CheckpointError, match=r"snap@2000.*kept: snap@3000, snap@6000"):
        resolve_path("snap@2000")
