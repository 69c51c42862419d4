"""Weighted k-means with k-means++ seeding (numba), L2 or earth mover's distance.

Points carry weights (the multiplicity of an isomorphic class), so clustering
classes is the same as clustering every concrete hand.

Earth mover's distance between two histograms over ordered positions
``x_0 < x_1 < ... < x_{B-1}`` (1-D ground distance ``|x_i - x_j|``) is exactly
``sum_i |F_p(i) - F_q(i)| * (x_{i+1} - x_i)`` with ``F`` the cumulative
distributions. :func:`emd_embed` maps histograms to those gap-scaled
cumulative vectors, where EMD is plain L1 and the mean of a cluster's vectors
is the embedding of its mean histogram. ``metric="emd"`` therefore runs k-means
with L1 assignments and mean updates on the embedding (the usual EMD k-means of
Johanson et al. 2013, exact for a 1-D ground metric).

>>> import numpy as np
>>> x = np.array([[0.0], [0.1], [0.9], [1.0]], np.float32)
>>> c, lab = kmeans(x, np.ones(4), 2, seed=0)
>>> [round(float(v), 2) for v in sorted(c[:, 0])], bool(lab[0] == lab[1] != lab[2] == lab[3])
([0.05, 0.95], True)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

__all__ = ["kmeans", "assign", "emd_embed", "emd"]


def emd_embed(hist: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
    """Gap-scaled cumulative distributions (float32, ``(N, B-1)``) of histograms ``(N, B)``.

    Rows are normalized to sum to 1. ``positions`` (length B, increasing; default
    bin centres of [0, 1]) are the bins' places on the ground line.

    >>> import numpy as np
    >>> a = emd_embed(np.array([[1, 0, 0], [0, 0, 1]]), np.array([0.0, 0.5, 1.0]))
    >>> float(np.abs(a[0] - a[1]).sum())
    1.0
    """
    h = np.asarray(hist, dtype=np.float32)
    if h.ndim != 2 or h.shape[1] < 2:
        raise ValueError(f"histograms must be (N, B) with B >= 2, got shape {h.shape}")
    b = h.shape[1]
    pos = (np.arange(b) + 0.5) / b if positions is None else np.asarray(positions, np.float64)
    if pos.shape != (b,) or np.any(np.diff(pos) < 0):
        raise ValueError("positions must be non-decreasing with one per bin")
    gaps = np.diff(pos).astype(np.float32)
    out = np.empty((h.shape[0], b - 1), np.float32)
    _embed(h, gaps, out)
    return out


@njit(cache=True, parallel=True)
def _embed(h, gaps, out):
    for i in prange(h.shape[0]):
        tot = 0.0
        for j in range(h.shape[1]):
            tot += h[i, j]
        if tot <= 0:
            tot = 1.0
        acc = 0.0
        for j in range(h.shape[1] - 1):
            acc += h[i, j]
            out[i, j] = acc / tot * gaps[j]


def emd(p: np.ndarray, q: np.ndarray, positions: np.ndarray | None = None) -> float:
    """Earth mover's distance between two histograms over ordered 1-D positions."""
    e = emd_embed(np.stack([p, q]), positions)
    return float(np.abs(e[0] - e[1]).sum())


@njit(cache=True, inline="always")
def _dist(x, i, c, j, l1):
    d = 0.0
    if l1:
        for t in range(x.shape[1]):
            d += abs(x[i, t] - c[j, t])
    else:
        for t in range(x.shape[1]):
            v = x[i, t] - c[j, t]
            d += v * v
    return d


@njit(cache=True, parallel=True)
def _assign_scan(x, c, l1, labels, dists):
    """Nearest centre by trying every centre (the reference for :func:`_assign`)."""
    n = x.shape[0]
    k = c.shape[0]
    for i in prange(n):
        best = np.inf
        bj = 0
        for j in range(k):
            d = _dist(x, i, c, j, l1)
            if d < best:
                best = d
                bj = j
        labels[i] = bj
        dists[i] = best


#: Slack on the pruning bound (relative to the best distance, and to the coordinate sums for the gap): a centre
#: is skipped only when its bound beats the best distance by more than float64 rounding could account for, so
#: pruning never changes a label.
_SLACK = 1e-9


@njit(cache=True, parallel=True)
def _assign(x, c, l1, labels, dists):
    """Nearest centre (ties to the lowest index), as :func:`_assign_scan`, trying few centres.

    The sum of a point's coordinates bounds its distance to a centre from below: ``|p(x) - p(c)|``
    for L1 and ``(p(x) - p(c))^2 / D`` for squared L2, with ``p`` the coordinate sum (the EMD
    embedding's sum is the histogram's mean on the ground line, up to a constant). Centres sorted
    by ``p`` are tried outwards from the point's place until the bound exceeds the best distance on
    both sides. Exact: a skipped centre is farther than the best one.
    """
    n, dim = x.shape
    k = c.shape[0]
    pc = np.zeros(k)
    for j in range(k):
        for t in range(dim):
            pc[j] += c[j, t]
    order = np.argsort(pc, kind="mergesort")
    ps = pc[order]
    for i in prange(n):
        p = 0.0
        for t in range(dim):
            p += x[i, t]
        hi = np.searchsorted(ps, p)
        lo = hi - 1
        best = np.inf
        bj = 0
        while lo >= 0 or hi < k:
            gap_lo = p - ps[lo] if lo >= 0 else np.inf
            gap_hi = ps[hi] - p if hi < k else np.inf
            if gap_lo <= gap_hi:
                gap = gap_lo
                j = order[lo]
                lo -= 1
            else:
                gap = gap_hi
                j = order[hi]
                hi += 1
            gap = max(gap - _SLACK * (abs(p) + 1.0), 0.0)  # what float64 rounding of the sums could hide
            bound = gap if l1 else gap * gap / dim
            if bound > best * (1.0 + _SLACK):
                break  # the nearer side's next centre is too far: so is every other
            d = _dist(x, i, c, j, l1)
            if d < best or (d == best and j < bj):
                best = d
                bj = j
        labels[i] = bj
        dists[i] = best


@njit(cache=True, parallel=True)
def _update_mind(x, px, c, j, l1, mind):
    """``mind[i] = min(mind[i], d(x_i, c_j))``, skipping points whose coordinate-sum bound (see :func:`_assign`)
    already shows ``c_j`` is no nearer; ``px`` holds the points' coordinate sums."""
    dim = x.shape[1]
    pj = 0.0
    for t in range(dim):
        pj += c[j, t]
    for i in prange(x.shape[0]):
        gap = max(abs(px[i] - pj) - _SLACK * (abs(px[i]) + 1.0), 0.0)
        bound = gap if l1 else gap * gap / dim
        if bound > mind[i] * (1.0 + _SLACK):
            continue
        d = _dist(x, i, c, j, l1)
        if d < mind[i]:
            mind[i] = d


@njit(cache=True)
def _centers(x, w, labels, k):
    d = x.shape[1]
    sums = np.zeros((k, d), np.float64)
    tot = np.zeros(k, np.float64)
    for i in range(x.shape[0]):
        j = labels[i]
        tot[j] += w[i]
        for t in range(d):
            sums[j, t] += w[i] * x[i, t]
    return sums, tot


def _seed_pp(x: np.ndarray, w: np.ndarray, k: int, l1: bool, rng: np.random.Generator) -> np.ndarray:
    n = x.shape[0]
    p = w / w.sum()
    first = int(rng.choice(n, p=p))
    c = np.empty((k, x.shape[1]), np.float32)
    c[0] = x[first]
    mind = np.full(n, np.inf, np.float64)
    px = x.astype(np.float64).sum(axis=1)
    _update_mind(x, px, c, 0, l1, mind)
    for j in range(1, k):
        score = w * mind  # D(x) for L1 (a metric), D(x)^2 for squared L2
        tot = score.sum()
        if tot <= 0:  # fewer distinct points than k: duplicate centres
            c[j] = x[int(rng.choice(n, p=p))]
        else:
            c[j] = x[int(rng.choice(n, p=score / tot))]
        _update_mind(x, px, c, j, l1, mind)
    return c


def kmeans(
    x: np.ndarray,
    weights: np.ndarray,
    k: int,
    metric: str = "l2",
    seed: int = 0,
    iters: int = 30,
    tol: float = 1e-5,
    sample: int = 0,
    progress: Callable[[int, float], object] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted k-means (k-means++ seeding, Lloyd iterations). Returns (centres (k, D), labels (N,)).

    ``metric``: ``"l2"`` (squared Euclidean) or ``"emd"``/``"l1"`` (L1 assignments on
    :func:`emd_embed` vectors). ``sample > 0`` fits the centres on that many points
    drawn (seeded) with probability proportional to weight, then assigns every
    point once. ``progress(iteration, weighted_cost)`` is called after each
    iteration. Same inputs and seed, same result.
    """
    if metric not in ("l2", "emd", "l1"):
        raise ValueError(f"metric must be 'l2', 'emd' or 'l1', got {metric!r}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[:, None]
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (x.shape[0],):
        raise ValueError(f"one weight per point: {w.shape} weights for {x.shape[0]} points")
    if not 1 <= k:
        raise ValueError(f"k must be positive, got {k}")
    l1 = metric != "l2"
    rng = np.random.default_rng(seed)
    fit_x, fit_w = x, w
    if sample and sample < x.shape[0]:
        pick = rng.choice(x.shape[0], size=sample, replace=True, p=w / w.sum())
        pick, counts = np.unique(pick, return_counts=True)
        fit_x, fit_w = x[pick], counts.astype(np.float64)
    c = _seed_pp(fit_x, fit_w, k, l1, rng)
    labels = np.zeros(fit_x.shape[0], np.int32)
    dists = np.zeros(fit_x.shape[0], np.float64)
    prev = np.inf
    for it in range(iters):
        _assign(fit_x, c, l1, labels, dists)
        cost = float((fit_w * dists).sum() / fit_w.sum())
        sums, tot = _centers(fit_x, fit_w, labels, k)
        empty = tot <= 0
        c[~empty] = (sums[~empty] / tot[~empty, None]).astype(np.float32)
        if empty.any():  # re-seed empty clusters on the worst-fitted points
            worst = np.argsort(-dists * fit_w)[: int(empty.sum())]
            c[empty] = fit_x[worst]
        if progress:
            progress(it + 1, cost)
        if np.isfinite(prev) and prev - cost <= tol * max(prev, 1e-12) and not empty.any():
            break
        prev = cost
    if fit_x is not x:
        labels = np.zeros(x.shape[0], np.int32)
        dists = np.zeros(x.shape[0], np.float64)
    _assign(x, c, l1, labels, dists)
    return c, labels


def assign(x: np.ndarray, centers: np.ndarray, metric: str = "l2") -> np.ndarray:
    """Nearest centre (int32) of every row of ``x``."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[:, None]
    c = np.ascontiguousarray(centers, dtype=np.float32)
    labels = np.zeros(x.shape[0], np.int32)
    dists = np.zeros(x.shape[0], np.float64)
    _assign(x, c, metric != "l2", labels, dists)
    return labels
