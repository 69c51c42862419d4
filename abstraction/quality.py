"""Quality of a card abstraction, by measurement.

* :func:`ehs_spread`: per round, the mean within-bucket standard deviation of
  EHS (weighted by multiplicity), next to the spread with one bucket (the
  round's total EHS standard deviation) for scale.
* :func:`nlfh_small_exploitability`: in the small-deck no-limit flop hold'em
  (``nlfh-small``), solve the game with the flop cards abstracted into ``k``
  EHS buckets (information sets tied across boards and hands of a bucket) and
  measure the exploitability of that equilibrium in the real game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pokerbot.errors import CheckpointError

__all__ = ["ehs_spread", "nlfh_small_exploitability", "format_report"]


def _weighted_spread(values: np.ndarray, labels: np.ndarray, weights: np.ndarray, k: int) -> tuple[float, float]:
    w = weights.astype(np.float64)
    v = values.astype(np.float64)
    tot = np.bincount(labels, weights=w, minlength=k)
    s1 = np.bincount(labels, weights=w * v, minlength=k)
    s2 = np.bincount(labels, weights=w * v * v, minlength=k)
    nz = tot > 0
    var = np.zeros(k)
    var[nz] = np.maximum(s2[nz] / tot[nz] - (s1[nz] / tot[nz]) ** 2, 0.0)
    within = float((tot * np.sqrt(var)).sum() / tot.sum())
    mean = v @ w / w.sum()
    total = float(np.sqrt(max((w * v * v).sum() / w.sum() - mean**2, 0.0)))
    return within, total


def ehs_spread(path: str | Path) -> list[dict]:
    """Per round: buckets, mean within-bucket EHS std, total EHS std (from a built artifact dir)."""
    import json

    d = Path(path)
    try:
        cfg = json.loads((d / "manifest.json").read_text())["config"]
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"no readable manifest in {d}: {exc}") from exc
    k = cfg["buckets"]
    rows = []

    def load(name: str) -> np.ndarray:
        p = d / f"{name}.npy"
        if not p.exists():
            raise CheckpointError(f"missing {p}; rebuild the abstraction")
        return np.load(p, mmap_mode="r")

    # preflop (lossless)
    pe, pw = np.asarray(load("preflop_ehs")), np.asarray(load("preflop_weight"))
    rows.append({"round": 0, "buckets": 169, "within": 0.0, "total": _weighted_spread(pe, np.zeros(169, np.int64), pw, 1)[1]})
    for r, name in ((1, "flop"), (2, "turn")):
        e = np.asarray(load(f"{name}_ehs"))
        w = np.asarray(load(f"{name}_weight"))
        lab = np.asarray(load(f"table_{r}")).astype(np.int64)
        within, total = _weighted_spread(e, lab, w, k[r])
        rows.append({"round": r, "buckets": k[r], "within": within, "total": total})
    # river: the bucket is a function of the equity value, so the weighted value distribution suffices
    dist = np.asarray(load("river_dist"))
    vb = np.asarray(load("river_value_bucket")).astype(np.int64)
    values = np.arange(len(dist)) / (len(dist) - 1)
    within, total = _weighted_spread(values, vb, dist, k[3])
    rows.append({"round": 3, "buckets": k[3], "within": within, "total": total})
    return rows


def format_report(rows: list[dict]) -> str:
    names = ["preflop", "flop", "turn", "river"]
    out = ["round    buckets  within-bucket EHS std  one-bucket EHS std"]
    for r in rows:
        out.append(f"{names[r['round']]:<8} {r['buckets']:>7}  {r['within']:>21.4f}  {r['total']:>18.4f}")
    return "\n".join(out)


def nlfh_small_exploitability(*args, **kwargs):  # filled in below when the solver is available
    raise NotImplementedError
