"""Every reader refuses a damaged or foreign file with a typed error naming it (issues 13 and 30).

For each kind of file the project writes and reads back (``.game`` files, TOML
configs, strategy files, solver and blueprint checkpoints, blueprints, ACPC logs of
our dealer and of the reference dealer, card-abstraction manifests and bucket tables,
evaluation pieces, EFCE regret checkpoints, leaf-net data sets (manifest, shards and
the small-game context cache), leaf-net models and their training checkpoints, Student
of Games checkpoints, continuation sets (manifest and strategy tables) and exact leaf
tables (table and header)), hypothesis damages a valid file (random bytes, empty,
truncated at a random offset, one byte flipped, one token replaced) and the reader must
either raise a :class:`~pokerbot.errors.PokerbotError` subclass whose message names the
file (or the directory that holds it), never another exception, or return what a valid
file of its kind holds: :func:`check_valid` asserts each kind's invariants on what was
read (distributions that sum to one, finite non-negative sums, zero-sum hands whose
chips are the rules' payoffs, buckets within their counts, arrays of the shapes the
file's own description gives), so a reader that silently accepts damage it cannot
represent fails.

A *foreign* file, a valid file of another kind put where this kind is read, must be
refused the same way; a checked archive (:func:`pokerbot.npz.load_checked`) of another
kind is refused by its kind.

The default run is derandomized with few examples per kind; ``-m slow`` runs many more
with fresh randomness.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pokerbot.errors import PokerbotError

#: Damaged copies per kind in the default run, and in ``-m slow``.
EXAMPLES = 40
SLOW_EXAMPLES = 400

#: What each evaluation piece sample was "played for" (its identity, checked on reading).
PIECE_IDENTITY = {"agents": ["call", "raise"], "names": ["a", "b"], "game": "kuhn", "hands": 4, "seed": 0,
                  "duplicate": True, "aivat": True, "value": "fitted"}
#: The run key of the EFCE regret checkpoint sample.
EFCE_KEY = "fuzz-run"
#: Hands of the reference dealer's log kept in the sample (the whole log parses in seconds).
REFERENCE_HANDS = 40


def _solver():  # type: ignore[no-untyped-def]
    from pokerbot.gamedef import load_game
    from pokerbot.solver import Solver, build_tree

    return Solver(build_tree(load_game("kuhn")), "cfr+")


def _trainer(directory: Path):  # type: ignore[no-untyped-def]
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    return Trainer(BlueprintConfig(name="r", game="kuhn", iterations=300, chunk=100), directory=directory)


def _leafnet_data_config():  # type: ignore[no-untyped-def]
    from realtime.leafnet_data import DataConfig

    return DataConfig(name="fuzz", source="small", game="leduc-nl", fractions=[1.0], max_raises=1, k=2,
                      iterations=30, shards=2, workers=0)


def _leafnet_train_config():  # type: ignore[no-untyped-def]
    from blueprint.leafnet import TrainConfig

    return TrainConfig(hidden=[8], epochs=1, batch=64)


def _sog_config():  # type: ignore[no-untyped-def]
    from realtime.sog.training import load_config

    return load_config("sog-kuhn").replace(workers=0, steps=2, eval_every=0, checkpoint_every=1, simulations=5,
                                           batch_size=8, hidden=8, layers=1, max_queries=2)


def _leaf_trees():  # type: ignore[no-untyped-def]
    from pokerbot.gamedef import load_game
    from pokerbot.solver import build_tree, pot_fraction_menu

    game, menu = load_game("leduc-nl"), pot_fraction_menu((1.0,), True, 1)
    return build_tree(game, menu, depth_limit=0), build_tree(game, menu)


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory, tiny_card_abstraction: object) -> dict[str, Path]:
    """One valid file of every kind, written by the project's own writers (for a kind read as a directory,
    the file the damage goes to, in its directory)."""
    import torch

    from blueprint.continuation import build_bias_set
    from blueprint.leafnet import FeatureSpec, train
    from blueprint.model import Blueprint
    from evaluation.experiment import _save_piece
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from pokerbot.solver import save_strategy, uniform_strategy
    from pokerbot.solver.leaf_tables import ExactLeafEvaluator, PairTableEvaluator
    from realtime.efce.battleship import instance
    from realtime.efce.plan import uniform_plan
    from realtime.efce.regret import regret_refine
    from realtime.efce.subgames import Blueprint as EfceBlueprint
    from realtime.leafnet_data import generate, load_data
    from realtime.sog.training import Trainer

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

    # The reference dealer's log (HUNL), its first hands and a score line that sums them.
    lines = (Path(__file__).parent / "data" / "acpc_dealer_hunl.log").read_text().splitlines()
    head = [line for line in lines if line.startswith("#")]
    hands = [line for line in lines if line.startswith("STATE:")][:REFERENCE_HANDS]
    totals: dict[str, float] = {}
    for line in hands:
        _, values, names = line.rsplit(":", 2)
        for name, value in zip(names.split("|"), values.split("|")):
            totals[name] = totals.get(name, 0.0) + float(value)
    score = f"SCORE:{'|'.join(f'{v:g}' for v in totals.values())}:{'|'.join(totals)}"
    files["reference-log"] = d / "reference.log"
    files["reference-log"].write_text("\n".join(head + hands + [score]) + "\n")

    files["eval-piece"] = d / "piece.npz"
    _save_piece(files["eval-piece"], PIECE_IDENTITY, {"chips": np.array([1.0, -1.0, 2.0, -2.0]),
                                                      "aivat": np.array([0.5, -0.5, 1.0, -1.0]),
                                                      "seconds": np.asarray(0.25)})
    dec, j = instance(3, 2, 2.0)
    refinement = regret_refine(dec, EfceBlueprint.of(dec, uniform_plan(dec.space)), j, iterations=10, record_every=5)
    files["efce-checkpoint"] = d / "efce.npz"
    refinement.state.save(str(files["efce-checkpoint"]), EFCE_KEY)

    data = d / "leafnet" / "data"
    manifest = generate(_leafnet_data_config(), FeatureSpec(), data)
    files["leafnet-manifest"] = data / "manifest.json"
    files["leafnet-shard"] = data / "shard_00001.npz"
    files["leafnet-context"] = data / "context.npz"
    _, arrays = load_data(data)
    meta = {k: manifest[k] for k in ("spec", "choices", "classes", "blueprint", "continuations", "game",
                                     "leaf_round")}
    model = d / "leafnet" / "model"
    train(arrays["x"], arrays["y"], arrays["group"], model, _leafnet_train_config(), meta)
    files["leafnet-model"] = model / "model.pt"
    files["leafnet-model-json"] = model / "model.json"
    files["leafnet-train-checkpoint"] = model / "checkpoint.pt"

    Trainer(_sog_config(), d / "sog", torch.device("cpu")).train(progress=False)
    files["sog-checkpoint"] = d / "sog" / "checkpoint.pt"

    bp = Blueprint.load(files["blueprint"])
    build_bias_set(d / "continuations", "fuzz", bp.tree, bp.strategy, bp.tree.signature())
    files["continuation-manifest"] = d / "continuations" / "manifest.json"
    files["continuation-strategy"] = d / "continuations" / "strategy_1.npy"

    dl, full = _leaf_trees()
    ev = ExactLeafEvaluator(dl, full, ([uniform_strategy(full)], [uniform_strategy(full), uniform_strategy(full)]))
    PairTableEvaluator(ev.tables).save(d / "leaf" / "leaf.npy", dl)
    files["leaf-table"] = d / "leaf" / "leaf.npy"
    files["leaf-table-json"] = d / "leaf" / "leaf.npy.json"
    return files


#: Kinds whose reader reads a directory: the damaged file replaces the sample's in a copy of its directory.
DIRECTORY_KINDS = {"leafnet-manifest", "leafnet-shard", "leafnet-context", "leafnet-model", "leafnet-model-json",
                   "leafnet-train-checkpoint", "sog-checkpoint", "continuation-manifest", "continuation-strategy",
                   "leaf-table", "leaf-table-json", "manifest", "table"}


def _copy_with(kind: str, path: Path, samples: dict[str, Path], tmp: Path) -> Path:
    """A copy of the directory of ``samples[kind]`` (under ``tmp``) with ``path`` in place of that file."""
    original = samples[kind]
    target_dir = tmp / f"{tmp.name}-{original.parent.name}"
    if target_dir.exists():
        shutil.rmtree(target_dir)
    shutil.copytree(original.parent, target_dir, ignore=shutil.ignore_patterns(".*.lock", "nets"))
    shutil.copy(path, target_dir / original.name)
    return target_dir


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
    elif kind in ("log", "reference-log"):
        from pokerbot.gamedef import load_game
        from pokerbot.protocol.log import read_log

        return read_log(load_game("kuhn" if kind == "log" else "hunl"), path)
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
    elif kind == "eval-piece":
        from evaluation.experiment import _load_piece, _piece_decisions

        arrays, meta = _load_piece(path, PIECE_IDENTITY)
        _piece_decisions(path, meta)
        return arrays
    elif kind == "efce-checkpoint":
        from realtime.efce.regret import RegretState

        return RegretState.load(str(path), EFCE_KEY)
    elif kind in ("leafnet-manifest", "leafnet-shard"):
        from realtime.leafnet_data import load_data

        return load_data(_copy_with(kind, path, samples, tmp))
    elif kind == "leafnet-context":
        from realtime.leafnet_data import small_context

        return small_context(_leafnet_data_config(), _copy_with(kind, path, samples, tmp))
    elif kind in ("leafnet-model", "leafnet-model-json"):
        from blueprint.leafnet import LeafNet

        return LeafNet.load(_copy_with(kind, path, samples, tmp))
    elif kind == "leafnet-train-checkpoint":
        from blueprint.leafnet import train
        from realtime.leafnet_data import load_data

        manifest, arrays = load_data(samples["leafnet-manifest"].parent)
        meta = {k: manifest[k] for k in ("spec", "choices", "classes", "blueprint", "continuations", "game",
                                         "leaf_round")}
        return train(arrays["x"], arrays["y"], arrays["group"], _copy_with(kind, path, samples, tmp),
                     _leafnet_train_config(), meta)
    elif kind == "sog-checkpoint":
        import torch

        from realtime.sog.training import Trainer, load_network

        directory = _copy_with(kind, path, samples, tmp)
        net, _ = load_network(directory / "checkpoint.pt")
        return net, Trainer(_sog_config(), directory, torch.device("cpu"))
    elif kind in ("continuation-manifest", "continuation-strategy"):
        from blueprint.continuation import load_set
        from blueprint.model import Blueprint

        bp = Blueprint.load(samples["blueprint"])
        return load_set(_copy_with(kind, path, samples, tmp), bp.tree, bp.tree.signature()), bp.tree
    elif kind in ("leaf-table", "leaf-table-json"):
        from pokerbot.solver.leaf_tables import PairTableEvaluator

        dl, _ = _leaf_trees()
        return PairTableEvaluator.load(_copy_with(kind, path, samples, tmp) / samples["leaf-table"].name, dl), dl
    else:
        raise AssertionError(kind)


def _finite(*arrays: Any) -> bool:
    return all(np.all(np.isfinite(np.asarray(a, dtype=np.float64))) for a in arrays)


def _whole(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def check_valid(kind: str, obj: Any) -> None:
    """Assert the invariants every file of ``kind`` holds once read (see the module docstring)."""
    if kind == "game":
        assert obj.num_players >= 2 and obj.num_rounds >= 1 and obj.num_suits >= 1 and obj.num_ranks >= 1
        assert obj.num_hole_cards >= 1
        for field in ("stack", "blind", "first_player", "max_raises", "num_board_cards"):
            assert len(getattr(obj, field)) >= 1 and min(getattr(obj, field)) >= 0, field
        assert obj.num_hole_cards * obj.num_players + sum(obj.num_board_cards) <= obj.num_suits * obj.num_ranks
    elif kind == "config":  # the blueprint's config: no iterations (a uniform blueprint) is allowed
        assert obj.name and obj.iterations >= 0 and obj.chunk > 0
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
    elif kind in ("log", "reference-log"):
        for hand in obj.hands:
            assert sum(hand.values) == pytest.approx(0.0), hand.hand_id
            assert list(hand.values) == pytest.approx(hand.state.payoffs()), hand.hand_id
    elif kind in ("manifest", "table"):
        for rnd, table in enumerate(obj.tables):
            if table is not None and len(table):
                assert 0 <= int(table.min()) and int(table.max()) < obj.num_buckets(rnd), rnd
    elif kind == "eval-piece":
        n = PIECE_IDENTITY["hands"]
        assert set(obj) == {"chips", "aivat", "seconds"}
        assert obj["chips"].shape == obj["aivat"].shape == (n,) and obj["seconds"].shape == ()
        assert _finite(obj["chips"], obj["aivat"]) and float(obj["seconds"]) >= 0
    elif kind == "efce-checkpoint":
        assert _whole(obj.iteration) and obj.weight >= 0 and obj.busy_seconds >= 0
        assert len(obj.recorded) == len(obj.pseudo) == len(obj.gap)
        assert obj.deviator_regret.shape == obj.deviator_sum.shape and obj.mediator_regret.ndim == 1
        assert _finite(obj.mediator_regret, obj.deviator_regret, obj.plan_sum, obj.deviator_sum, obj.pseudo, obj.gap)
    elif kind in ("leafnet-manifest", "leafnet-shard"):
        from blueprint.leafnet import FeatureSpec

        manifest, data = obj
        spec = FeatureSpec.from_dict(manifest["spec"])
        k0, k1 = manifest["choices"]
        rows = len(data["x"])
        assert data["x"].shape == (rows, spec.num_features) and data["y"].shape == (rows, k0 * k1)
        assert data["group"].shape == data["leaf"].shape == (rows,) and rows == sum(
            s["rows"] for s in manifest["shards"].values())
        assert _finite(data["x"], data["y"])
    elif kind == "leafnet-context":
        assert obj.blueprint.shape == (obj.full.num_slots,) and len(obj.continuations) == len(obj.penalties) >= 1
        assert _finite(obj.blueprint, obj.penalties, *obj.continuations)
    elif kind in ("leafnet-model", "leafnet-model-json", "leafnet-train-checkpoint"):
        net = obj if kind != "leafnet-train-checkpoint" else obj.net
        k0, k1 = net.choices
        assert k0 >= 1 and k1 >= 1
        out = net.predict(np.zeros((3, net.spec.num_features), dtype=np.float32))
        assert out.shape == (3, k0 * k1) and _finite(out)
        if kind == "leafnet-train-checkpoint":
            assert obj.history and all(_finite(h) for h in obj.history)
    elif kind == "sog-checkpoint":
        net, trainer = obj
        assert all(_finite(p.detach().numpy()) for p in net.parameters())
        assert _whole(trainer.step) and _whole(trainer.units) and _whole(trainer.examples_seen)
        assert len(trainer.buffer) <= trainer.cfg.replay_size
        assert all(len(p) == 4 and _finite(p) for p in trainer.curve)
    elif kind in ("continuation-manifest", "continuation-strategy"):
        cs, tree = obj
        from blueprint.abstract_game import DECISION

        assert cs.k >= 1 and len(cs.penalties) == cs.k and _finite(cs.penalties, [cs.factor])
        assert cs.chooser in (None, 0, 1)
        for s in cs.strategies:
            assert s.shape == (tree.num_slots,) and _finite(s) and np.all(s >= 0)
            for node in np.flatnonzero(tree.kind == DECISION):
                a_n, nb = int(tree.num_actions[node]), tree.num_buckets[int(tree.round[node])]
                block = s[int(tree.base[node]) : int(tree.base[node]) + nb * a_n].reshape(nb, a_n)
                assert np.allclose(block.sum(axis=1), 1.0, atol=1e-5), node
    elif kind in ("leaf-table", "leaf-table-json"):
        ev, dl = obj
        t = ev.tables
        assert t.ndim == 5 and t.shape[0] == len(dl.continuation_leaves) and t.shape[3:] == tuple(dl.num_hands)
        assert _finite(t)
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
                  st.sampled_from(["-1", "0", "99999", "x", "nan", "1e400", "", "[]", "{}", "true", "\xff",
                                   "-99999999999999999999", "null", "1.5", '"s"'])),
    )


KINDS = ["game", "config", "strategy", "solver-checkpoint", "train-checkpoint", "blueprint", "log", "reference-log",
         "manifest", "table", "eval-piece", "efce-checkpoint", "leafnet-manifest", "leafnet-shard", "leafnet-context",
         "leafnet-model", "leafnet-model-json", "leafnet-train-checkpoint", "sog-checkpoint", "continuation-manifest",
         "continuation-strategy", "leaf-table", "leaf-table-json"]

#: Kinds written as checked archives (:func:`pokerbot.npz.save_checked`), with the kind their header names.
CHECKED = {"train-checkpoint": "checkpoint", "blueprint": "blueprint", "eval-piece": "evaluation piece",
           "efce-checkpoint": "efce regret checkpoint", "leafnet-context": "leaf-net small-game context"}


def refused(kind: str, path: Path, samples: dict[str, Path], tmp: Path) -> PokerbotError | None:
    """The typed error the reader of ``kind`` raised for ``path`` (None if it read the file, then valid).

    The error must name the file, or the directory the reader was given that holds it."""
    try:
        obj = read(kind, path, samples, tmp)
    except PokerbotError as exc:
        message = str(exc)
        names = {path.name, samples[kind].name} if kind not in DIRECTORY_KINDS else {samples[kind].name, tmp.name}
        assert any(n in message for n in names), f"{kind}: the error names neither {sorted(names)}: {message}"
        return exc
    check_valid(kind, obj)
    return None


def _damaged(kind: str, how: Callable[[bytes], bytes], n: int, samples: dict[str, Path], tmp_path: Path) -> None:
    data = how(samples[kind].read_bytes())
    path = tmp_path / f"{n}-{kind}{samples[kind].suffix}"  # a fresh name: load_game caches by path
    path.write_bytes(data)
    work = tmp_path / f"w{n}"
    work.mkdir(exist_ok=True)
    refused(kind, path, samples, work)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(how=damage(), n=st.integers(0, 10**9))
def test_a_damaged_file_is_refused_with_a_typed_error(kind: str, how: Callable[[bytes], bytes], n: int,
                                                        samples: dict[str, Path], tmp_path: Path) -> None:
    _damaged(kind, how, n, samples, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=SLOW_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(how=damage(), n=st.integers(0, 10**9))
def test_many_damaged_files_are_refused_with_a_typed_error(kind: str, how: Callable[[bytes], bytes], n: int,
                                                             samples: dict[str, Path], tmp_path: Path) -> None:
    _damaged(kind, how, n, samples, tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_the_valid_samples_read(kind: str, samples: dict[str, Path], tmp_path: Path) -> None:
    """The undamaged files read and hold their invariants (so the damaged ones are refused for their damage)."""
    assert refused(kind, samples[kind], samples, tmp_path) is None


def _foreign(kind: str, other: str, samples: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / f"foreign-{other}{samples[other].suffix}"
    shutil.copy(samples[other], path)
    work = tmp_path / f"w-{kind}"
    work.mkdir()
    exc = refused(kind, path, samples, work)
    assert exc is not None, f"a {other} file was read as a {kind} file"
    if kind in CHECKED and other in CHECKED:  # refused by its kind, before anything else
        assert f"is a {CHECKED[other]!r} file, expected a {CHECKED[kind]!r} file" in str(exc), str(exc)


#: The foreign files of each kind in the default run: the other kinds of the same family (the confusions
#: likeliest in practice) and a few others; ``-m slow`` tries every pair.
FAMILIES = [{"train-checkpoint", "blueprint", "eval-piece", "efce-checkpoint", "leafnet-context", "solver-checkpoint",
             "leafnet-shard"},
            {"manifest", "leafnet-manifest", "leafnet-model-json", "continuation-manifest", "leaf-table-json"},
            {"leafnet-model", "leafnet-train-checkpoint", "sog-checkpoint"},
            {"table", "continuation-strategy", "leaf-table"},
            {"game", "config", "strategy", "log", "reference-log"}]


def _default_pairs() -> list[tuple[str, str]]:
    pairs = []
    for i, kind in enumerate(KINDS):
        family = next(f for f in FAMILIES if kind in f)
        others = [o for o in KINDS if o != kind and o not in family]
        pairs += [(kind, o) for o in sorted(family - {kind})] + [(kind, others[(i * 7) % len(others)])]
    return pairs


@pytest.mark.parametrize("kind, other", _default_pairs())
def test_a_foreign_file_is_refused(kind: str, other: str, samples: dict[str, Path], tmp_path: Path) -> None:
    _foreign(kind, other, samples, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind, other", [(k, o) for k in KINDS for o in KINDS
                                         if o != k and (k, o) not in set(_default_pairs())])
def test_every_foreign_file_is_refused(kind: str, other: str, samples: dict[str, Path], tmp_path: Path) -> None:
    _foreign(kind, other, samples, tmp_path)


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
    table = np.load(samples["table"])
    table[7] = 200
    bad = tmp_path / "table_1.npy"
    np.save(bad, table)
    with pytest.raises(PokerbotError, match="holds bucket 200"):
        read("table", bad, samples, tmp_path)


def test_a_log_whose_chips_are_not_the_hands_payoffs_is_refused(samples: dict[str, Path], tmp_path: Path) -> None:
    """One field changed, the line intact: a hand's chips that its final state does not pay."""
    lines = samples["reference-log"].read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("STATE:"))
    head, values, names = lines[i].rsplit(":", 2)
    a, b = (float(v) for v in values.split("|"))
    lines[i] = f"{head}:{a + 100:g}|{b - 100:g}:{names}"
    bad = tmp_path / "bad.log"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(PokerbotError, match=r"bad\.log.*chips"):
        read("reference-log", bad, samples, tmp_path)


def test_a_piece_of_an_experiment_without_aivat_reads(samples: dict[str, Path], tmp_path: Path) -> None:
    """An experiment with ``aivat = false`` stores no AIVAT estimates (NaN): its pieces read back."""
    from evaluation.experiment import _load_piece, _save_piece

    identity = dict(PIECE_IDENTITY, aivat=False)
    path = tmp_path / "piece.npz"
    _save_piece(path, identity, {"chips": np.array([1.0, -1.0, 2.0, -2.0]), "aivat": np.full(4, np.nan),
                                 "seconds": np.asarray(0.25)})
    assert _load_piece(path, identity)[0]["chips"].tolist() == [1.0, -1.0, 2.0, -2.0]
    _save_piece(path, identity, {"chips": np.array([1.0, -1.0, np.nan, -2.0]), "aivat": np.full(4, np.nan),
                                 "seconds": np.asarray(0.25)})
    with pytest.raises(PokerbotError, match="non-finite"):
        _load_piece(path, identity)


def test_a_leafnet_manifest_whose_spec_does_not_fit_its_shards_is_refused(samples: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    """One field changed, the JSON intact: the feature spec says other columns than the shards hold."""
    manifest = json.loads(samples["leafnet-manifest"].read_text())
    manifest["spec"]["bins"] = 4
    bad = tmp_path / "manifest.json"
    bad.write_text(json.dumps(manifest))
    with pytest.raises(PokerbotError, match="columns"):
        read("leafnet-manifest", bad, samples, tmp_path)
