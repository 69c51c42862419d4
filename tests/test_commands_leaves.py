"""``pokerbot leaves build`` with method = "self-generative": builds, loads, resumes exactly, refuses bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blueprint.continuation import ContinuationError, load_set, self_generative, stored_strategy
from pokerbot.cli import main
from pokerbot.gamedef import load_game
from pokerbot.menus import PotFractionMenu
from pokerbot.solver import build_tree
from pokerbot.solver.leaf_tables import tree_fingerprint

GAME = "leduc-nl"
MENU = PotFractionMenu((1.0,), True, 1)
K = 3
ITERATIONS = 60

CONFIG = f"""[leaves]
name = "sg-test"
method = "self-generative"
game = "{GAME}"
fractions = [1.0]
max_raises = 1
k = {K}
chooser = 1
iterations = {ITERATIONS}
blueprint_iterations = 10     # a weak blueprint: the generated strategies beat it and are weakened
"""


def _config(tmp_path: Path, text: str, name: str = "sg.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The command's set (chooser 1) in a fresh directory, and the trees it was built on."""
    tmp = tmp_path_factory.mktemp("sg")
    out = tmp / "set"
    assert main(["leaves", "build", _config(tmp, CONFIG), "--dir", str(out), "--no-progress"]) == 0
    game = load_game(GAME)
    return out, game, build_tree(game, MENU), build_tree(game, MENU, depth_limit=0)


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_built_set_loads_and_equals_self_generative(built) -> None:
    out, game, full, dl = built
    cs = load_set(out / "chooser1", full, tree_fingerprint(full))
    assert cs.method == "self-generative" and cs.k == K and cs.chooser == 1
    bp = np.load(out / "blueprint.npy")
    direct = self_generative(game, MENU, bp, K, 1, iterations=ITERATIONS, full_tree=full, dl_tree=dl, stored=True)
    assert cs.penalties == direct.penalties and cs.penalties[0] == 0.0
    assert all(p > 0 for p in cs.penalties[1:])  # weakening is exercised (and its penalties stored exactly)
    np.testing.assert_array_equal(cs.strategies[0], stored_strategy(full, bp))
    for loaded, made in zip(cs.strategies[1:], direct.strategies[1:]):
        np.testing.assert_array_equal(loaded, made)
    # The generated strategies are new: each differs from the blueprint and from each other.
    assert all(np.abs(cs.strategies[i] - cs.strategies[j]).max() > 0.5 for i in range(K) for j in range(i))
    # The rounding to bytes is small: the unrounded first step is within one byte of the stored one.
    raw = self_generative(game, MENU, bp, 2, 1, iterations=ITERATIONS, full_tree=full, dl_tree=dl)
    assert np.abs(raw.strategies[1] - cs.strategies[1]).max() <= 1.0 / 255


def test_resumed_build_after_deleting_the_last_strategy_is_identical(built, tmp_path) -> None:
    out, _, _, _ = built
    before = _files(out / "chooser1")
    copy = tmp_path / "set"
    (copy / "chooser1").mkdir(parents=True)
    (copy / "blueprint.npy").write_bytes((out / "blueprint.npy").read_bytes())
    for name, data in before.items():
        (copy / "chooser1" / name).write_bytes(data)
    (copy / "chooser1" / f"strategy_{K - 1}.npy").unlink()
    # A stopped build: the manifest also lost the last strategy's entry (written after the file).
    m = json.loads((copy / "chooser1" / "manifest.json").read_text())
    m["files"].pop(str(K - 1))
    m["penalties"] = m["penalties"][: K - 1]
    (copy / "chooser1" / "manifest.json").write_text(json.dumps(m))
    kept = {i: (copy / "chooser1" / f"strategy_{i}.npy").stat().st_ino for i in range(K - 1)}
    assert main(["leaves", "build", _config(tmp_path, CONFIG), "--dir", str(copy), "--no-progress"]) == 0
    # The strategies already written were kept (files are replaced, never rewritten in place) ...
    assert all((copy / "chooser1" / f"strategy_{i}.npy").stat().st_ino == ino for i, ino in kept.items())
    # ... and the one made again is byte for byte the one deleted.
    after = _files(copy / "chooser1")
    assert after.keys() == before.keys() and f"strategy_{K - 1}.npy" in after
    for name in before:
        if name != "manifest.json":
            assert after[name] == before[name], name
    manifests = [json.loads(m["manifest.json"]) for m in (before, after)]
    for m in manifests:
        del m["source"]  # the config's path
    assert manifests[0] == manifests[1]


def test_a_set_for_another_blueprint_is_refused(built) -> None:
    out, game, _, _ = built
    other = build_tree(game, PotFractionMenu((0.5, 1.0), True, 1))
    with pytest.raises(ContinuationError, match="another blueprint"):
        load_set(out / "chooser1", other, tree_fingerprint(other))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('game = "leduc-nl"', 'game = "hunl"'), 'too large for exact self-generation.*method = "bias"'),
        (("k = 3", "k = 0"), "K >= 1"),
        (("k = 3", 'k = "three"'), "k must be an integer"),
        (("chooser = 1", "chooser = 2"), "chooser must be 0, 1 or"),
        (("chooser = 1", "chooser = [0, 1]"), "chooser must be 0, 1 or"),
        (("iterations = 60", "iterations = 0"), "iterations must be a positive integer"),
        (("max_raises = 1", "max_raises = 1\nfactor = 10.0"), r"unknown \[leaves\] keys \['factor'\]"),
        (("fractions = [1.0]", 'fractions = [1.0]\nmenu = "pot 1 all_in=1 max_raises=1 all_in_after_cap=0"'),
         "not both"),
        (('method = "self-generative"', 'method = "selfgen"'), "use 'bias' or 'self-generative'"),
    ],
)
def test_bad_configs_are_refused_in_one_line(tmp_path, capsys, change, message) -> None:
    import re

    old, new = change
    assert old in CONFIG
    out = tmp_path / "never"
    assert main(["leaves", "build", _config(tmp_path, CONFIG.replace(old, new)), "--dir", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pokerbot leaves: error:") and re.search(message, err[0]), err
    assert not out.exists()  # refused before doing any work


def test_resume_refuses_a_directory_built_with_other_settings(built, tmp_path, capsys) -> None:
    out, _, _, _ = built
    copy = tmp_path / "set"
    (copy / "chooser1").mkdir(parents=True)
    (copy / "blueprint.npy").write_bytes((out / "blueprint.npy").read_bytes())
    for name, data in _files(out / "chooser1").items():
        (copy / "chooser1" / name).write_bytes(data)
    text = CONFIG.replace(f"iterations = {ITERATIONS}", "iterations = 61")
    assert main(["leaves", "build", _config(tmp_path, text), "--dir", str(copy), "--no-progress"]) == 1
    assert "iterations = 60, this build asks 61" in capsys.readouterr().err


def test_resume_goes_on_from_the_stored_strategies(built, tmp_path) -> None:
    """Negative control of the resume test: a different stored strategy 1 changes the strategy made next."""
    from blueprint.continuation import write_strategy

    out, _, full, _ = built
    copy = tmp_path / "set"
    (copy / "chooser1").mkdir(parents=True)
    (copy / "blueprint.npy").write_bytes((out / "blueprint.npy").read_bytes())
    for name, data in _files(out / "chooser1").items():
        if name != f"strategy_{K - 1}.npy":
            (copy / "chooser1" / name).write_bytes(data)
    m = json.loads((copy / "chooser1" / "manifest.json").read_text())
    m["files"].pop(str(K - 1))
    m["penalties"] = m["penalties"][: K - 1]
    # Strategy 1 replaced by the blueprint itself (a valid file with its checksum in the manifest).
    m["files"]["1"] = write_strategy(copy / "chooser1", 1, np.load(out / "blueprint.npy"))
    (copy / "chooser1" / "manifest.json").write_text(json.dumps(m))
    assert main(["leaves", "build", _config(tmp_path, CONFIG), "--dir", str(copy), "--no-progress"]) == 0
    assert (copy / "chooser1" / f"strategy_{K - 1}.npy").read_bytes() != (out / "chooser1" / f"strategy_{K - 1}.npy").read_bytes()
