"""Every reader refuses a damaged file with a typed error (issue 13).

For each kind of file the project writes and reads back (``.game`` files, TOML
configs, strategy files, solver and blueprint checkpoints, blueprints, ACPC logs,
card-abstraction manifests and bucket tables), hypothesis damages a valid file
(random bytes, empty, truncated at a random offset, one byte flipped, one token
replaced) and the reader must either raise a :class:`~pokerbot.errors.PokerbotError`
subclass (never another exception) or return what a valid file of its kind holds:
:func:`check_valid` asserts each kind's invariants on what was read (distributions
that sum to one, finite non-negative sums, zero-sum hands whose chips are the rules'
payoffs, buckets within their counts, positive counts), so a reader that silently
accepts damage it cannot represent fails.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

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


def read(kind: str, path: Path, samples: dict[str, Path], tmp: Path) -> Any:
    """Read ``path`` as a file of ``kind`` with the project's reader; what it read."""
    if kind == "game":
        from pokerbot.gamedef import load_game

        return load_game(str(path))
    elif kind == "config":
        from blueprint.config import load_config

        return load_config(path)
    elif kind == "strategy":
        from pokerbot.solver import read_policy

        return read_policy(path)
    elif kind == "solver-checkpoint":
        solver = _solver()
        solver.load_checkpoint(path)
        return solver
    elif kind == "train-checkpoint":
        trainer = _trainer(tmp)
        trainer.load_checkpoint(path)
        return trainer
    elif kind == "blueprint":
        from blueprint.model import Blueprint

        return Blueprint.load(path)
    elif kind == "log":
        from pokerbot.gamedef import load_game
        from pokerbot.protocol.log import read_log

        return read_log(load_game("kuhn"), path)
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
            return load_abstraction("tiny", build_if_missing=False)
    else:
        raise AssertionError(kind)


def check_valid(kind: str, obj: Any) -> None:
    """Assert the invariants every file of ``kind`` holds once read (see the module docstring)."""
    if kind == "game":
        assert obj.num_players >= 2 and obj.num_rounds >= 1 and obj.num_suits >= 1 and obj.num_ranks >= 1
        assert obj.num_hole_cards >= 1
        for field in ("stack", "blind", "first_player", "max_raises", "num_board_cards"):
            assert len(getattr(obj, field)) >= 1 and min(getattr(obj, field)) >= 0, field
        assert obj.num_hole_cards * obj.num_players + sum(obj.num_board_cards) <= obj.num_suits * obj.num_ranks
    elif kind == "config":
        assert obj.name and obj.iterations > 0 and obj.chunk > 0
    elif kind == "strategy":
        policy = obj[0]
        assert policy
        for infoset, probs in policy.items():  # weights: the format renormalises them
            values = np.array(list(probs.values()))
            assert np.all(np.isfinite(values)) and np.all(values >= 0) and values.sum() > 0, infoset
    elif kind in ("solver-checkpoint", "train-checkpoint"):
        assert obj.iteration >= 0
        assert np.all(np.isfinite(obj.regret)) and np.all(np.isfinite(obj.ssum)) and np.all(obj.ssum >= 0)
    elif kind == "blueprint":
        strategy = np.asarray(obj.strategy, dtype=np.float64)
        assert np.all(np.isfinite(strategy)) and np.all(strategy >= 0)
        from blueprint.abstract_game import DECISION

        tree = obj.tree
        for node in np.flatnonzero(tree.kind == DECISION):
            for bucket in range(tree.num_buckets[int(tree.round[node])]):
                assert obj.probabilities(int(node), bucket).sum() == pytest.approx(1.0, abs=1e-5), (node, bucket)
    elif kind == "log":
        for hand in obj.hands:
            assert sum(hand.values) == pytest.approx(0.0), hand.hand_id
            assert list(hand.values) == pytest.approx(hand.state.payoffs()), hand.hand_id
    elif kind in ("manifest", "table"):
        for rnd, table in enumerate(obj.tables):
            if table is not None and len(table):
                assert 0 <= int(table.min()) and int(table.max()) < obj.num_buckets(rnd), rnd
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
        obj = read(kind, path, samples, work)
    except PokerbotError:
        return
    check_valid(kind, obj)


@pytest.mark.parametrize("kind", KINDS)
def test_the_valid_samples_read(kind: str, samples: dict[str, Path], tmp_path: Path) -> None:
    """The undamaged files read and hold their invariants (so the damaged ones are refused for their damage)."""
    check_valid(kind, read(kind, samples[kind], samples, tmp_path))


def test_a_strategy_file_cut_mid_line_is_refused(samples: dict[str, Path], tmp_path: Path) -> None:
    """Truncation inside a line would leave a shorter probability that still parses: the reader refuses it."""
    data = samples["strategy"].read_bytes()
    assert data.endswith(b"\n")
    cut = tmp_path / "cut.txt"
    cut.write_bytes(data[:-7])
    with pytest.raises(PokerbotError, match="ends in the middle of a line"):
        read("strategy", cut, samples, tmp_path)
    whole_lines = tmp_path / "whole.txt"  # negative control: cut at a line end, it reads (missing sets play uniformly)
    whole_lines.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])
    check_valid("strategy", read("strategy", whole_lines, samples, tmp_path))


def test_a_bucket_out_of_range_is_refused(samples: dict[str, Path], tmp_path: Path) -> None:
    """One field changed, the format intact: a flop bucket beyond the round's count."""
    import numpy as np

    table = np.load(samples["table"])
    table[7] = 200
    bad = tmp_path / "table_1.npy"
    np.save(bad, table)
    with pytest.raises(PokerbotError, match="holds bucket 200"):
        read("table", bad, samples, tmp_path)
