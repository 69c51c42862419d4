"""Weighted k-means++ (L2 / EMD) against exact answers and an independent EMD."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction.kmeans import assign, emd, emd_embed, kmeans


def w1_by_quantiles(p, q, positions):
    """Independent 1-D Wasserstein-1: couple equal-mass unit samples in sorted order."""
    scale = 1000
    a = np.repeat(positions, np.round(np.asarray(p) / np.sum(p) * scale).astype(int))
    b = np.repeat(positions, np.round(np.asarray(q) / np.sum(q) * scale).astype(int))
    assert len(a) == len(b) == scale
    return float(np.abs(np.sort(a) - np.sort(b)).mean())


def test_emd_equals_quantile_coupling():
    rng = np.random.default_rng(0)
    pos = np.sort(rng.random(6))
    for _ in range(20):
        # masses that are multiples of 1/1000 so the sample coupling is exact
        p = rng.multinomial(1000, np.ones(6) / 6)
        q = rng.multinomial(1000, np.ones(6) / 6)
        assert emd(p, q, pos) == pytest.approx(w1_by_quantiles(p, q, pos), abs=1e-5)


def test_emd_known_values():
    assert emd(np.array([1, 0, 0]), np.array([0, 0, 1]), np.array([0.0, 0.5, 1.0])) == pytest.approx(1.0)
    assert emd(np.array([1, 1, 0]), np.array([0, 1, 1]), np.array([0.0, 0.5, 1.0])) == pytest.approx(0.5)
    assert emd(np.array([2, 3]), np.array([4, 6])) == pytest.approx(0.0)  # scale-free
    with pytest.raises(ValueError, match="positions"):
        emd_embed(np.ones((2, 3)), np.array([0.0, 1.0, 0.5]))


@pytest.mark.parametrize("metric", ["l2", "emd"])
def test_recovers_separated_clusters(metric):
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.3, 0.3, 0.4]])
    truth = rng.integers(0, 4, 3000)
    x = np.abs(centres[truth] + rng.normal(0, 0.02, (3000, 3)))
    if metric == "emd":
        x = emd_embed(x + 1e-3)
    c, lab = kmeans(x, np.ones(len(x)), 4, metric, seed=3)
    assert perfect_matching(lab, truth)
    # negative control: one cluster for everything (which "4 distinct (label, truth) pairs" let through)
    assert not perfect_matching(np.zeros_like(lab), truth)


def perfect_matching(labels: np.ndarray, truth: np.ndarray) -> bool:
    """Whether found and true clusters correspond one to one."""
    pairs = set(zip(labels.tolist(), truth.tolist()))
    return len(pairs) == len({l for l, _ in pairs}) == len({t for _, t in pairs}) == len(set(truth.tolist()))


def test_weights_act_as_multiplicities():
    """One point of weight 3 pulls a centre exactly like three copies of it."""
    x = np.array([[0.0], [1.0], [10.0]], np.float32)
    c, lab = kmeans(x, np.array([3.0, 1.0, 1.0]), 2, seed=0)
    assert sorted(np.round(c[:, 0], 5).tolist()) == [0.25, 10.0]
    assert lab[0] == lab[1] != lab[2]


def test_deterministic_given_seed_and_sample_mode():
    rng = np.random.default_rng(2)
    x = rng.random((5000, 4)).astype(np.float32)
    w = rng.integers(1, 5, 5000)
    a = kmeans(x, w, 8, "l2", seed=7, sample=1000)
    b = kmeans(x, w, 8, "l2", seed=7, sample=1000)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    # labels are the nearest centres
    assert np.array_equal(assign(x, a[0]), a[1])


def test_bad_input():
    with pytest.raises(ValueError, match="metric"):
        kmeans(np.zeros((3, 1)), np.ones(3), 2, "cosine")
    with pytest.raises(ValueError, match="weight"):
        kmeans(np.zeros((3, 1)), np.ones(2), 2)


@pytest.mark.parametrize("l1", [True, False])
def test_pruned_assignment_equals_trying_every_centre(l1: bool) -> None:
    """The assignment that skips centres by the coordinate-sum bound gives the labels and distances of the scan
    over every centre: on continuous points, on EMD-embedded equity-like histograms, on a grid full of exact ties
    (lowest index wins in both) and in one dimension."""
    from abstraction.kmeans import _assign, _assign_scan

    rng = np.random.default_rng(7)
    mean, conc = rng.beta(2, 2, 3000), rng.uniform(2, 40, 3000)
    runs = rng.beta((mean * conc)[:, None] + 1e-3, ((1 - mean) * conc)[:, None] + 1e-3, (3000, 44))
    hist = emd_embed(np.stack([np.histogram(r, np.linspace(0, 1, 31))[0] for r in runs]))
    grid = rng.integers(0, 3, (4000, 4)).astype(np.float32)
    cases = [(rng.random((4000, 7)).astype(np.float32), 300), (hist, 200), (grid, 40),
             (rng.random((3000, 1)).astype(np.float32), 100)]
    for x, k in cases:
        c = x[rng.choice(len(x), k, replace=False)].copy()
        got = np.zeros(len(x), np.int32), np.zeros(len(x))
        want = np.zeros(len(x), np.int32), np.zeros(len(x))
        _assign(x, c, l1, *got)
        _assign_scan(x, c, l1, *want)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        if x is grid:  # the ties are real: points with several centres at their best distance
            diff = np.abs(x[:, None, :] - c[None, :, :])
            d = diff.sum(axis=2) if l1 else (diff**2).sum(axis=2)
            assert ((d == d.min(axis=1, keepdims=True)).sum(axis=1) > 1).sum() > 100


@pytest.mark.parametrize("l1", [True, False])
def test_pruned_seeding_draws_what_plain_seeding_draws(l1: bool) -> None:
    """k-means++ with the pruned distance update picks the same centres as the plain update (numpy, here)."""
    from abstraction.kmeans import _seed_pp

    rng = np.random.default_rng(3)
    mean, conc = rng.beta(2, 2, 2000), rng.uniform(2, 40, 2000)
    runs = rng.beta((mean * conc)[:, None] + 1e-3, ((1 - mean) * conc)[:, None] + 1e-3, (2000, 44))
    x = emd_embed(np.stack([np.histogram(r, np.linspace(0, 1, 31))[0] for r in runs]))
    w = rng.integers(1, 5, len(x)).astype(np.float64)
    got = _seed_pp(x, w, 60, l1, np.random.default_rng(11))
    draw = np.random.default_rng(11)
    p = w / w.sum()
    centres = [x[int(draw.choice(len(x), p=p))]]
    mind = np.full(len(x), np.inf)
    for _ in range(59):
        diff = np.abs(x.astype(np.float64) - centres[-1].astype(np.float64))
        mind = np.minimum(mind, diff.sum(axis=1) if l1 else (diff**2).sum(axis=1))
        score = w * mind
        centres.append(x[int(draw.choice(len(x), p=score / score.sum()))])
    assert np.array_equal(got, np.array(centres))
