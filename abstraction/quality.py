"""Quality of a card abstraction, by measurement.

* :func:`ehs_spread`: per round, the mean within-bucket standard deviation of
  EHS (weighted by multiplicity), next to the spread with one bucket (the
  round's total EHS standard deviation) for scale.
* :func:`nlfh_small_exploitability`: in the small-deck no-limit flop hold'em
  (``nlfh-small``), solve the game with the flop cards abstracted into ``k``
  buckets (:func:`nlfh_small_flop_buckets`: equity, or OCHS within equity levels
  as the ``large`` preset's river; information sets tied across boards and hands
  of a bucket) and measure the exploitability of that equilibrium in the real game.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from pokerbot.errors import CheckpointError
from pokerbot.evaluator import eval5

__all__ = ["ehs_spread", "nlfh_small_exploitability", "nlfh_small_flop_buckets", "format_report", "format_comparison"]


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
    if (d / "river_bucket_eq.npy").exists():  # OCHS buckets: the weighted (bucket, equity) counts
        cells = np.asarray(load("river_bucket_eq"))
        values = np.tile(np.arange(cells.shape[1]) / (cells.shape[1] - 1), cells.shape[0])
        labels = np.repeat(np.arange(cells.shape[0]), cells.shape[1])
        within, total = _weighted_spread(values, labels, cells.reshape(-1), k[3])
    else:  # equity buckets: the bucket is a function of the equity value, so its weighted distribution suffices
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


def format_comparison(reports: dict[str, list[dict]]) -> str:
    """Several presets' :func:`ehs_spread` side by side: per round, each preset's within-bucket EHS std (its
    buckets), then the one-bucket std.

    >>> rows = [{"round": 3, "buckets": 12, "within": 0.0246, "total": 0.2948}]
    >>> print(format_comparison({"tiny": rows, "large": [dict(rows[0], buckets=2000, within=0.0012)]}))
    round                 tiny            large  one bucket
    river          0.0246 (12)    0.0012 (2000)      0.2948
    """
    names = ["preflop", "flop", "turn", "river"]
    out = ["round    " + "".join(f"{name:>17}" for name in reports) + "  one bucket"]
    rounds = sorted({r["round"] for rows in reports.values() for r in rows})
    for rnd in rounds:
        cells, total = [], 0.0
        for rows in reports.values():
            row = next((r for r in rows if r["round"] == rnd), None)
            cells.append(f"{row['within']:.4f} ({row['buckets']})" if row else "-")
            total = row["total"] if row else total
        out.append(f"{names[rnd]:<8} " + "".join(f"{c:>17}" for c in cells) + f"  {total:>10.4f}")
    return "\n".join(out)


def _flop_equities(hands, boards, out):
    """Showdown equity of every hand on every 3-card board vs a uniform opponent (-1 if blocked):
    :func:`_flop_ochs` with every opponent hand in one group."""
    one = np.empty(out.shape + (1,))
    _flop_ochs(hands, boards, np.zeros(len(hands), np.int64), 1, one)
    out[:] = one[:, :, 0]


@njit(cache=True)
def _flop_ochs(hands, boards, group, groups, out):
    """Showdown equity of every hand on every 3-card board against each group of opponent hands
    (``out[b, h, g]``; -1 where the hand is blocked by the board, or no hand of the group is left)."""
    for b in range(boards.shape[0]):
        bm = (np.int64(1) << boards[b, 0]) | (np.int64(1) << boards[b, 1]) | (np.int64(1) << boards[b, 2])
        vals = np.empty(hands.shape[0], np.int32)
        masks = np.empty(hands.shape[0], np.int64)
        for h in range(hands.shape[0]):
            masks[h] = (np.int64(1) << hands[h, 0]) | (np.int64(1) << hands[h, 1])
            vals[h] = eval5(hands[h, 0], hands[h, 1], boards[b, 0], boards[b, 1], boards[b, 2])
        s = np.zeros(groups)
        n = np.zeros(groups)
        for h in range(hands.shape[0]):
            if masks[h] & bm:
                out[b, h, :] = -1.0
                continue
            s[:] = 0.0
            n[:] = 0.0
            for o in range(hands.shape[0]):
                if masks[o] & (bm | masks[h]):
                    continue
                g = group[o]
                n[g] += 1.0
                if vals[h] > vals[o]:
                    s[g] += 1.0
                elif vals[h] == vals[o]:
                    s[g] += 0.5
            for g in range(groups):
                out[b, h, g] = s[g] / n[g] if n[g] > 0 else -1.0


def nlfh_small_flop_buckets(
    hands: np.ndarray, boards: np.ndarray, buckets: int, features: str = "equity", levels: int = 0,
    groups: int = 8, seed: int = 0
) -> np.ndarray:
    """Flop buckets of nlfh-small (int64 ``(boards, hands)``, -1 where a hand is blocked by the board).

    ``features="equity"``: 1-D k-means on each (board, hand)'s showdown equity. ``"ochs"``: as the
    ``large`` preset's river: the equity clustered into ``levels`` levels, then each level into
    ``buckets // levels`` buckets by k-means on the hand's equities against ``groups`` groups of
    opponent hands (the hands sorted by their equity before the flop, cut into equal runs).
    """
    from abstraction.kmeans import kmeans

    if features not in ("equity", "ochs"):
        raise ValueError(f"flop features are 'equity' or 'ochs', got {features!r}")
    eq = np.empty((len(boards), len(hands)))
    _flop_equities(hands, boards, eq)
    ok = eq >= 0
    out = np.full(eq.shape, -1, np.int64)
    if features == "equity":
        _, lab = kmeans(eq[ok], np.ones(int(ok.sum())), buckets, "l2", seed=seed, iters=100)
        out[ok] = lab
        return out
    if levels < 1 or buckets % levels:
        raise ValueError(f"OCHS buckets come as levels x clusters: {buckets} buckets, {levels} levels")
    per = buckets // levels
    preflop = np.where(ok, eq, 0.0).sum(axis=0) / ok.sum(axis=0)  # every flop equally likely
    order = np.argsort(preflop, kind="stable")
    group = np.empty(len(hands), np.int64)
    group[order] = np.arange(len(hands)) * groups // len(hands)
    ochs = np.empty((len(boards), len(hands), groups))
    _flop_ochs(hands, boards, group, groups, ochs)
    ochs = np.where(ochs < 0, eq[:, :, None], ochs)  # a group with no hand left: the overall equity
    _, level = kmeans(eq[ok], np.ones(int(ok.sum())), levels, "l2", seed=seed, iters=100)
    feats = ochs[ok]
    lab = np.empty(len(level), np.int64)
    for lv in range(levels):
        sel = np.nonzero(level == lv)[0]
        k = min(per, len(sel))
        _, sub = kmeans(feats[sel], np.ones(len(sel)), k, "l2", seed=seed, iters=100)
        lab[sel] = lv * per + sub
    out[ok] = lab
    return out


def nlfh_small_exploitability(
    buckets: int | None, iterations: int = 300, bet_menu=None, seed: int = 0, algorithm: str = "dcfr",
    features: str = "equity", levels: int = 0, groups: int = 8
) -> dict:
    """Real-game exploitability (mbb/g) of the equilibrium of nlfh-small with ``buckets`` flop buckets.

    The flop (the last round) is abstracted by :func:`nlfh_small_flop_buckets` (``features``:
    1-D k-means on each (board, hand)'s exact showdown equity, or OCHS within ``levels`` equity
    levels against ``groups`` opponent groups); an abstract information set is (betting, flop
    bucket), tied across boards and hands by summing their regrets and strategy sums every
    iteration (simultaneous updates). Preflop stays lossless. ``buckets=None`` solves without
    abstraction. Returns a dict: ``exploitability`` (mbb/g, real game, same bet
    menu), ``seconds``, and ``tie_spread`` (largest strategy difference inside an
    abstract information set: 0 up to rounding when the tying works).
    """
    import time

    from pokerbot.gamedef import load_game
    from pokerbot.menus import PotFractionMenu
    from pokerbot.solver import Solver, build_tree, exploitability

    game = load_game("nlfh-small")
    menu = bet_menu or PotFractionMenu.tiny()
    tree = build_tree(game, menu)
    t0 = time.perf_counter()
    solver = Solver(tree, algorithm, alternating=False)
    ties = []
    if buckets:
        flop_ids = [b for b, grp in enumerate(tree.boards) if len(grp) == 2 and len(grp[1]) == 3]
        boards = np.array([tree.boards[b][1] for b in flop_ids], np.int64)
        hands = tree.hands[0].astype(np.int64)
        bmap = np.full((len(tree.boards), len(hands)), -1, np.int64)
        bmap[flop_ids] = nlfh_small_flop_buckets(hands, boards, buckets, features, levels, groups, seed)
        flop_set = set(flop_ids)
        for p in range(2):
            nh = tree.num_hands[p]
            assert np.array_equal(tree.hands[p], tree.hands[0])
            idx_parts, grp_parts = [], []
            for n in tree.decision_nodes[p]:
                n = int(n)
                b = int(tree.board[n])
                if b not in flop_set:
                    continue
                hs = np.nonzero(tree.valid[p][b])[0]
                off, nc, t = int(tree.slot[n]), int(tree.num_children[n]), int(tree.template[n])
                for a in range(nc):
                    idx_parts.append(off + a * nh + hs)
                    grp_parts.append(((t * buckets + bmap[b, hs]) * 8 + a))
            idx = np.concatenate(idx_parts)
            grp = np.concatenate(grp_parts)
            uniq, grp = np.unique(grp, return_inverse=True)
            ties.append((idx, grp, np.bincount(grp).astype(np.float64), np.zeros(len(uniq)), np.zeros(len(uniq))))
    for _ in range(iterations):
        solver.iterate(1)
        if not ties:
            continue
        dpos, dneg, davg, _clip = solver.discount_factors(solver.iteration)
        for p, (idx, grp, n, G, S) in enumerate(ties):
            dG = np.where(G > 0, G * dpos, G * dneg)
            G[:] = np.bincount(grp, weights=solver.regret[idx], minlength=len(G)) - (n - 1) * dG
            solver.regret[idx] = G[grp]
            S[:] = np.bincount(grp, weights=solver.ssum[idx], minlength=len(S)) - (n - 1) * S * davg
            solver.ssum[idx] = S[grp]
    strat = solver.average_strategy()
    tie_spread = 0.0  # largest difference of average strategies inside one abstract information set
    for idx, grp, *_ in ties:
        v = strat[idx]
        lo = np.full(grp.max() + 1, np.inf)
        hi = np.full(grp.max() + 1, -np.inf)
        np.minimum.at(lo, grp, v)
        np.maximum.at(hi, grp, v)
        tie_spread = max(tie_spread, float((hi - lo).max()))
    return {
        "buckets": buckets,
        "iterations": iterations,
        "exploitability": float(exploitability(tree, strat)),
        "seconds": time.perf_counter() - t0,
        "tie_spread": tie_spread,
    }

