"""Compact MCCFR storage: int32 regrets, 16-bit strategy sums with a power-of-two scale per infoset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blueprint.config import BlueprintConfig, ConfigError
from blueprint.mccfr import SUM_QUANTUM, _add_sum, seed_state
from blueprint.trainer import Trainer
from tests.oracles import spiel_nash_conv


def compact(game: str = "leduc", **kw) -> Trainer:
    base = dict(name="c", game=game, iterations=10**9, dtype="compact", regret_scale=1000.0)
    base.update(kw)
    return Trainer(BlueprintConfig(**base), directory=None)


def test_compact_arrays_and_size_report():
    t = compact()
    assert (t.regret.dtype, t.ssum.dtype, t.sexp.dtype) == (np.int32, np.uint16, np.uint8)
    d = t.describe()
    assert d["infosets"] == 288 and d["slots"] == 672 and t.sexp.shape == (288,)
    assert d["bytes_per_infoset"] == pytest.approx((672 * 6 + 288) / 288, abs=0.01)


def test_sums_keep_the_average_through_rescaling():
    ssum = np.zeros(3, np.uint16)
    sexp = np.zeros(1, np.uint8)
    rng = seed_state(0, 0)
    sig = np.array([0.05, 0.25, 0.70])
    for _ in range(200_000):  # 200,000 x 256 passes 65,535 many times over
        _add_sum(ssum, sexp, 0, 0, 3, sig, rng)
    assert sexp[0] >= 9  # halved at least 9 times
    assert ssum.max() <= 65535 and ssum.sum() > 30_000
    np.testing.assert_allclose(ssum / ssum.sum(), sig, atol=0.01)

def test_the_scale_exponent_keeps_early_iterations_weighted():
    rng = seed_state(2, 0)
    first, second = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    a = np.zeros(2, np.uint16)
    e = np.zeros(1, np.uint8)
    for k in range(100_000):
        _add_sum(a, e, 0, 0, 2, first if k < 50_000 else second, rng)
    np.testing.assert_allclose(a / a.sum(), [0.5, 0.5], atol=0.01)  # the true average of both halves
    # negative control: forgetting the exponent (halving when full, then adding at full scale again) lets
    # the latest additions dominate
    b = np.zeros(2, np.uint16)
    f = np.zeros(1, np.uint8)
    for k in range(100_000):
        _add_sum(b, f, 0, 0, 2, first if k < 50_000 else second, rng)
        f[0] = 0
    assert b[0] / b.sum() < 0.1


def test_a_tiny_probability_is_not_rounded_away():
    ssum = np.zeros(2, np.uint16)
    sexp = np.zeros(1, np.uint8)
    rng = seed_state(1, 0)
    sig = np.array([1.0 - 1e-3, 1e-3])  # 0.256 of a quantum each time: deterministic rounding would keep 0
    for _ in range(100_000):
        _add_sum(ssum, sexp, 0, 0, 2, sig, rng)
    assert SUM_QUANTUM * 1e-3 < 1
    assert ssum[1] / ssum.sum() == pytest.approx(1e-3, rel=0.15)


def test_kuhn_compact_converges_to_the_equilibrium_family():
    t = compact("kuhn")
    t.step(100_000)
    pol = t.policy()
    alpha = pol["Qs:"]["r"]
    assert 0.0 <= alpha <= 1 / 3 + 0.03
    assert pol["As:"]["r"] == pytest.approx(3 * alpha, abs=0.05)
    assert spiel_nash_conv("kuhn", pol) < 0.01


def test_leduc_compact_is_as_good_as_float64():
    t = compact()
    f = Trainer(BlueprintConfig(name="f", game="leduc", iterations=10**9), directory=None)
    t.step(100_000)
    f.step(100_000)
    ours, theirs = spiel_nash_conv("leduc", t.policy()), spiel_nash_conv("leduc", f.policy())
    assert ours < 0.12 and abs(ours - theirs) < 0.04  # measured (seed 0): 0.062 and 0.068


def test_compact_runs_resume_exactly(tmp_path: Path):
    kw = dict(name="cc", game="leduc", iterations=3000, chunk=500, checkpoint_every=1000, dtype="compact",
              regret_scale=100.0, discount_every=700, discount_until=2000)
    ref = Trainer(BlueprintConfig(**kw), directory=None)
    ref.train(progress=False)
    first = Trainer(BlueprintConfig(**kw), directory=tmp_path)
    first.train(progress=False, stop_after=1500)
    again = Trainer(BlueprintConfig(**kw), directory=tmp_path)
    again.train(progress=False)
    for name in ("regret", "ssum", "sexp", "trav_rng", "deal_rng"):
        assert np.array_equal(getattr(ref, name), getattr(again, name)), name
    # a float run's checkpoint is not a compact run's
    other = Trainer(BlueprintConfig(**{**kw, "dtype": "float32"}), directory=tmp_path)
    with pytest.raises(Exception, match="dtype"):
        other.load_checkpoint()


def test_regret_scale_is_checked():
    with pytest.raises(ConfigError, match="regret_scale"):
        BlueprintConfig(name="x", game="leduc", iterations=1, dtype="compact", regret_scale=0.0)
    with pytest.raises(ConfigError, match="compact"):
        BlueprintConfig(name="x", game="leduc", iterations=1, dtype="int8")


def test_a_run_that_cannot_fit_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch):
    import pokerbot.resources as res
    from pokerbot.errors import PokerbotError

    cfg = BlueprintConfig(name="big", game="leduc", iterations=1)
    need = Trainer(cfg, directory=None).memory_estimate()
    monkeypatch.setattr(res, "available_memory", lambda: int(need / res.MEMORY_FRACTION) - 4096)
    with pytest.raises(PokerbotError, match=r"training 'big' \(672 infoset actions, dtype float64, 1 worker\) "
                                            r"needs about .* MiB.*compact"):
        Trainer(cfg, directory=None)
    # the compact form of the same run needs less and fits
    small = Trainer(cfg.replace(dtype="compact"), directory=None)
    assert small.memory_estimate() < need
    # more workers hold more copies
    assert Trainer(cfg.replace(workers=2), directory=None, check_fits=False).memory_estimate() > need


@pytest.mark.slow  # a ray start-up
def test_compact_runs_on_ray_workers():
    from tests.oracles import spiel_nash_conv as nash

    kw = dict(name="cr", game="leduc", iterations=200_000, dtype="compact", regret_scale=1000.0, workers=2,
              sync_every=20_000, discount_every=10_000, discount_until=100_000)
    a = Trainer(BlueprintConfig(**kw), directory=None)
    b = Trainer(BlueprintConfig(**kw), directory=None)
    try:
        a.train(progress=False)
        b.train(progress=False)
    finally:
        a.close()
        b.close()
    for name in ("regret", "ssum", "sexp"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name  # reproducible
    assert a.sexp.max() > 0  # sums were rescaled along the way
    assert nash("leduc", a.policy()) < 0.1  # measured 0.0517 (float32 on 2 workers, same schedule: 0.0521)
