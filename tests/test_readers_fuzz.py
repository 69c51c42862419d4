"""Every reader refuses a damaged file with a typed error (issue 13).

For each kind of file the project writes and reads back (``.game`` files, TOML
configs, strategy files, solver and blueprint checkpoints, blueprints, ACPC logs,
card-abstraction manifests and bucket tables), hypothesis damages a valid file
(random bytes, empty, truncated at a random offset, one byte flipped, one token
replaced) and the reader must either read it or raise a
:class:`~pokerbot.errors.PokerbotError` subclass: never another exception.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokerbot.errors import PokerbotError

EXAMPLES = 40


def _solver():  # type: ignore[no-untyped-def]
    from pokerbot.gamedef import load_game
    from pokerbot.solver import Solver, build_tree

    return Solver(build_tree(load_game("kuhn")), "cfr+")


def _trainer(directory: Path):  # type: ignore[no-untyped-def]
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    return Trainer(BlueprintConfig(name="r", game="kuhn", iterations=300, chunk=100), directory=directory)


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory, tiny_card_abstraction: object) -> dict[str, Path]:
    """One valid file of every kind, written by the project's own writers."""
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from pokerbot.solver import save_strategy

    d = tmp_path_factory.mktemp("readers")
    game = load_game("kuhn")
    files = {"game": d / "k.game", "config": d / "c.toml", "strategy": d / "s.txt",
             "solver-checkpoint": d / "ck.npz", "log": d / "m.log"}
    shutil.copy(Path(__file__).parent.parent / "pokerbot" / "games" / "kuhn.limit.2p.game", files["game"])
    files["config"].write_text('name = "c"\n[game]\nname = "kuhn"\n[mccfr]\niterations = 10\nseed = 1\n'
                               "[run]\nchunk = 5\n")
    solver = _solver()
    solver.iterate(10)
    save_strategy(files["strategy"], solver.tree, solver.average_strategy())
    solver.save_checkpoint(files["solver-checkpoint"])
    trainer = _trainer(d / "run")
    trainer.train(progress=False)
    files["train-checkpoint"] = d / "run" / "checkpoint.npz"
    files["blueprint"] = d / "run" / "blueprint.npz"
    play_match(make_agent("random", game, seed=1), make_agent("call", game, seed=2), game, 5, 0,
               log_path=files["log"], progress=False)
    from abstraction.buckets import artifact_dir

    tiny = artifact_dir("tiny")  # built by the tiny_card_abstraction fixture
    files["manifest"] = tiny / "manifest.json"
    files["table"] = tiny / "table_1.npy"
    return files


def read(kind: str, path: Path, samples: dict[str, Path], tmp: Path) -> None:
    """Read ``path`` as a file of ``kind`` with the project's reader."""
    if kind == "game":
        from pokerbot.gamedef import load_game

        load_game(str(path))
    elif kind == "config":
        from blueprint.config import load_config

        load_config(path)
    elif kind == "strategy":
        from pokerbot.solver import read_policy

        read_policy(path)
    elif kind == "solver-checkpoint":
        _solver().load_checkpoint(path)
    elif kind == "train-checkpoint":
        _trainer(tmp).load_checkpoint(path)
    elif kind == "blueprint":
        from blueprint.model import Blueprint

        Blueprint.load(path)
    elif kind == "log":
        from pokerbot.gamedef import load_game
        from pokerbot.protocol.log import read_log

        read_log(load_game("kuhn"), path)
    elif kind in ("manifest", "table"):
        from abstraction.buckets import artifact_dir, load_abstraction

        home = tmp / "home"
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("POKERBOT_HOME", str(home))
            d = artifact_dir("tiny")
            d.mkdir(parents=True, exist_ok=True)
            for original in samples["manifest"].parent.glob("table_*.npy"):
                (d / original.name).unlink(missing_ok=True)
                (d / original.name).symlink_to(original)  # the big tables are shared, read-only
            shutil.copy(samples["manifest"], d / "manifest.json")
            target = d / samples[kind].name
            target.unlink()
            shutil.copy(path, target)
            load_abstraction("tiny", build_if_missing=False)
    else:
        raise AssertionError(kind)


def damage() -> st.SearchStrategy[Callable[[bytes], bytes]]:
    def flip(position: float) -> Callable[[bytes], bytes]:
        def f(data: bytes) -> bytes:
            if not data:
                return data
            i = int(position * (len(data) - 1))
            return data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1 :]
        return f

    def replace_token(position: float, token: str) -> Callable[[bytes], bytes]:
        def f(data: bytes) -> bytes:
            parts = re.split(rb"(\s+|=|\t|:|,|\")", data)
            values = [i for i, t in enumerate(parts) if t.strip() and t not in (b"=", b":", b",", b'"')]
            if not values:
                return data
            parts[values[int(position * (len(values) - 1))]] = token.encode()
            return b"".join(parts)
        return f

    return st.one_of(
        st.binary(max_size=200).map(lambda b: (lambda data: b)),
        st.just(lambda data: b""),
        st.floats(0.0, 0.999).map(lambda x: (lambda data: data[: int(len(data) * x)])),
        st.floats(0.0, 1.0).map(flip),
        st.builds(replace_token, st.floats(0.0, 1.0),
                  st.sampled_from(["-1", "0", "99999", "x", "nan", "1e400", "", "[]", "{}", "true", "\xff"])),
    )


KINDS = ["game", "config", "strategy", "solver-checkpoint", "train-checkpoint", "blueprint", "log", "manifest",
         "table"]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(how=damage(), n=st.integers(0, 10**9))
def test_a_damaged_file_is_refused_with_a_typed_error(kind: str, how: Callable[[bytes], bytes], n: int,
                                                        samples: dict[str, Path], tmp_path: Path) -> None:
    data = how(samples[kind].read_bytes())
    path = tmp_path / f"{n}-{kind}{samples[kind].suffix}"  # a fresh name: load_game caches by path
    path.write_bytes(data)
    work = tmp_path / f"w{n}"
    work.mkdir(exist_ok=True)
    try:
        read(kind, path, samples, work)
    except PokerbotError:
        pass


@pytest.mark.parametrize("kind", KINDS)
def test_the_valid_samples_read(kind: str, samples: dict[str, Path], tmp_path: Path) -> None:
    """The undamaged files read (so the damaged ones are refused for their damage)."""
    read(kind, samples[kind], samples, tmp_path)


def test_a_bucket_out_of_range_is_refused(samples: dict[str, Path], tmp_path: Path) -> None:
    """One field changed, the format intact: a flop bucket beyond the round's count."""
    import numpy as np

    table = np.load(samples["table"])
    table[7] = 200
    bad = tmp_path / "table_1.npy"
    np.save(bad, table)
    with pytest.raises(PokerbotError, match="holds bucket 200"):
        read("table", bad, samples, tmp_path)
