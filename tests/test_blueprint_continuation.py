"""Continuation strategies: bias and self-generative sets, compact storage, resume, typed errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from blueprint.config import BlueprintConfig
from blueprint.continuation import (
    BIAS_KINDS,
    BiasedStrategy,
    ContinuationError,
    bias_strategies,
    bias_views,
    build_bias_set,
    dequantize,
    load_set,
    quantize,
    self_generative,
)
from blueprint.trainer import Trainer
from pokerbot.gamedef import load_game
from pokerbot.solver import Solver, build_tree, exploitability, pot_fraction_menu, solve
from pokerbot.solver.leaf_tables import ExactLeafEvaluator, embed_strategy
from pokerbot.state import ActionType


@pytest.fixture(scope="module")
def leduc_blueprint():
    t = Trainer(BlueprintConfig(name="cont-leduc", game="leduc", iterations=20_000, seed=3), directory=None)
    t.step(20_000)
    return t.tree, t.blueprint().strategy


def _blocks(tree, strategy):
    from blueprint.abstract_game import DECISION

    for n in np.nonzero(tree.kind == DECISION)[0]:
        a_n = int(tree.num_actions[n])
        nb = tree.num_buckets[int(tree.round[n])]
        base = int(tree.base[n])
        f = int(tree.first_child[n])
        yield tree.action_kind[f : f + a_n], np.asarray(strategy[base : base + nb * a_n]).reshape(nb, a_n)


def test_bias_multiplies_one_kind_and_renormalises(leduc_blueprint) -> None:
    tree, bp = leduc_blueprint
    sets = bias_strategies(tree, bp, 10.0, 4)
    assert len(sets) == 4 and np.array_equal(sets[0], np.asarray(bp, dtype=np.float64))
    for s, kind in zip(sets[1:], BIAS_KINDS[1:]):
        for (kinds, block), (_, base) in zip(_blocks(tree, s), _blocks(tree, bp)):
            np.testing.assert_allclose(block.sum(axis=1), 1.0, atol=1e-9)
            hit = kinds == int(kind)
            if hit.any() and not hit.all():
                # The biased kind gains probability wherever it had some and something else did too.
                mixed = (base[:, hit].sum(axis=1) > 1e-6) & (base[:, ~hit].sum(axis=1) > 1e-6)
                assert np.all(block[mixed][:, hit].sum(axis=1) > base[mixed][:, hit].sum(axis=1))
                # Odds between two actions of the biased kind vs the rest change by exactly the factor.
                r = block[mixed][:, hit].sum(axis=1) / block[mixed][:, ~hit].sum(axis=1)
                r0 = base[mixed][:, hit].sum(axis=1) / base[mixed][:, ~hit].sum(axis=1)
                np.testing.assert_allclose(r, 10.0 * r0, rtol=1e-6)
    assert ActionType.FOLD in BIAS_KINDS


def _biased_per_node(tree, strategy, kind, factor):
    """The bias, one information-set row at a time (the reference the lazy view is checked against)."""
    from blueprint.abstract_game import DECISION

    out = np.array(strategy, dtype=np.float64)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        a_n = int(tree.num_actions[n])
        f = int(tree.first_child[n])
        mult = np.where(tree.action_kind[f : f + a_n] == int(kind), factor, 1.0)
        base = int(tree.base[n])
        for lo in range(base, base + tree.num_buckets[int(tree.round[n])] * a_n, a_n):
            row = out[lo : lo + a_n] * mult
            out[lo : lo + a_n] = row / row.sum() if row.sum() > 0 else 1.0 / a_n
    return out


def test_lazy_bias_views_read_what_a_row_by_row_bias_computes(leduc_blueprint) -> None:
    tree, bp = leduc_blueprint
    bp32 = np.array(bp, dtype=np.float32)  # a copy: the fixture stays as it is
    bp32[:3] = 0.0  # a row of zeros reads uniform
    views = bias_views(tree, bp32, 10.0, 4)
    assert views[0] is bp32  # the blueprint itself: no copy
    rng = np.random.default_rng(0)
    idx = rng.integers(0, tree.num_slots, size=500)
    for view, kind in zip(views[1:], BIAS_KINDS[1:]):
        assert isinstance(view, BiasedStrategy) and view.shape == (tree.num_slots,) and len(view) == tree.num_slots
        want = _biased_per_node(tree, bp32, kind, 10.0)
        np.testing.assert_allclose(np.asarray(view), want, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(view[idx], want[idx], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(view[idx.reshape(20, 25)], want[idx].reshape(20, 25), rtol=1e-12)
        assert view[7] == pytest.approx(want[7]) and view[-1] == pytest.approx(want[-1])
        np.testing.assert_allclose(view[5:40:3], want[5:40:3], rtol=1e-12)
        mask = np.zeros(tree.num_slots, dtype=bool)
        mask[idx] = True
        np.testing.assert_allclose(view[mask], want[mask], rtol=1e-12)
        np.testing.assert_array_equal(np.asarray(view), bias_strategies(tree, bp32, 10.0, 4)[BIAS_KINDS.index(kind)])
    # Negative control: the reference differs from the unbiased blueprint where the bias has anything to move.
    assert np.max(np.abs(_biased_per_node(tree, bp32, ActionType.RAISE, 10.0) - bp32)) > 0.1
    with pytest.raises(IndexError):
        views[1][tree.num_slots]
    with pytest.raises(IndexError):
        views[1][np.array([0.5])]
    with pytest.raises(Exception, match="does not fit"):
        BiasedStrategy(tree, bp32[:-1], ActionType.CALL, 10.0)
    with pytest.raises(Exception, match="positive"):
        bias_views(tree, bp32, 0.0, 2)


def test_quantized_storage_is_one_byte_per_infoset_action(leduc_blueprint) -> None:
    tree, bp = leduc_blueprint
    q = quantize(bp)
    assert q.dtype == np.uint8 and q.shape == (tree.num_slots,)
    back = dequantize(tree, q)
    assert np.max(np.abs(back - bp)) < 4.0 / 255


def test_bias_set_builds_resumes_and_refuses_bad_input(leduc_blueprint, tmp_path) -> None:
    tree, bp = leduc_blueprint
    sig = tree.signature()
    d = tmp_path / "set"
    seen = []
    cs = build_bias_set(d, "s", tree, bp, sig, k=3, factor=10.0, progress=seen.append)
    assert cs.k == 3 and seen == [1, 2, 3]
    # Resume: a finished strategy is not rebuilt (its file is untouched).
    before = (d / "strategy_1.npy").stat().st_mtime_ns
    (d / "strategy_2.npy").unlink()
    cs2 = build_bias_set(d, "s", tree, bp, sig, k=3, factor=10.0)
    assert (d / "strategy_1.npy").stat().st_mtime_ns == before and cs2.k == 3
    np.testing.assert_allclose(cs2.strategies[2], cs.strategies[2])
    with pytest.raises(ContinuationError, match="another blueprint"):
        load_set(d, tree, "0123456789abcdef")
    with pytest.raises(ContinuationError, match="factor"):
        build_bias_set(d, "s", tree, bp, sig, k=3, factor=5.0)
    with pytest.raises(ContinuationError, match="K >= 1"):
        build_bias_set(tmp_path / "zero", "z", tree, bp, sig, k=0)
    data = bytearray((d / "strategy_0.npy").read_bytes())
    data[-1] ^= 0x55
    (d / "strategy_0.npy").write_bytes(bytes(data))
    with pytest.raises(ContinuationError, match="corrupt"):
        load_set(d, tree, sig)
    m = json.loads((d / "manifest.json").read_text())
    m["k"] = 0
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ContinuationError, match="K = 0"):
        load_set(d, tree, sig)


def test_leaves_command_reports_bad_config_in_one_line(tmp_path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('[leaves]\nname = "x"\nblueprint = "hunl-tiny"\nk = 0\n')
    out = subprocess.run([sys.executable, "-m", "pokerbot", "leaves", "build", str(cfg)], capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1].startswith("pokerbot leaves: error:") and "K >= 1" in out.stderr


def test_self_generated_values_beat_a_single_value_on_no_limit_leduc() -> None:
    """More self-generated continuations make the depth-limited solution less exploitable in the whole game."""
    game = load_game("leduc-nl")
    menu = pot_fraction_menu((1.0,), True, 1)
    full = build_tree(game, menu)
    dl = build_tree(game, menu, depth_limit=0)
    bp = solve(game, "dcfr", 1500, menu).strategy
    result = {}
    sets = {seat: self_generative(game, menu, bp, 4, 1 - seat, iterations=400, full_tree=full, dl_tree=dl)
            for seat in (0, 1)}
    for seat in (0, 1):
        g = sets[seat]
        assert len(g.strategies) == 4 and g.penalties[0] == 0.0 and all(p >= 0.0 for p in g.penalties)
    for k in (1, 4):
        parts = []
        for seat in (0, 1):
            g = sets[seat]
            conts: list[list[np.ndarray]] = [[], []]
            conts[seat] = [bp]
            conts[1 - seat] = g.strategies[:k]
            pens: list[list[float]] = [[0.0], [0.0]]
            pens[1 - seat] = g.penalties[:k]
            ev = ExactLeafEvaluator(dl, full, (conts[0], conts[1]), (pens[0], pens[1]))
            s = Solver(dl, "dcfr", leaves=ev)
            s.run(1000)
            parts.append(s.average_strategy())
        glued = embed_strategy(dl, parts[0], full, bp, players=(0,))
        result[k] = exploitability(full, embed_strategy(dl, parts[1], full, glued, players=(1,)))
    assert result[4] < 0.5 * result[1], result  # measured: K=1 42.6, K=2 12.9, K=3 0.43, K=4 0.41 mbb/g (blueprint 0.30)


def test_leaves_command_builds_and_resumes_a_bias_set(tmp_path, hunl_tiny_home) -> None:
    cfg = tmp_path / "ok.toml"
    blueprint = hunl_tiny_home / "blueprints" / "hunl-tiny" / "blueprint.npz"
    cfg.write_text(f'[leaves]\nname = "t"\nblueprint = "{blueprint}"\nk = 4\nfactor = 10.0\n')
    cmd = [sys.executable, "-m", "pokerbot", "leaves", "build", str(cfg), "--dir", str(tmp_path / "set"), "--no-progress"]
    first = subprocess.run(cmd, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "4 continuation strategies (bias, factor 10)" in first.stdout
    stamp = (tmp_path / "set" / "strategy_3.npy").stat().st_mtime_ns
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0 and (tmp_path / "set" / "strategy_3.npy").stat().st_mtime_ns == stamp
