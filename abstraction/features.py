"""Hand features of every suit-isomorphic hold'em class, computed exactly.

All equities are against one opponent holding a uniformly random hand from the
cards left (card removal exact), ties counting half, the board run out
uniformly. They come from three passes over the *canonical boards* (one board
per suit orbit, weighted by the orbit size); on each board every hole pair is
valued at once by sorting the pairs' hand values and sweeping them with
per-card counters, so the opponent enumeration costs O(1) per hand:

* **river** (:func:`river_features`): the showdown equity of every river class,
  stored exactly as *half-wins* ``2 * wins + ties`` out of 990 opponent hands
  (``uint16`` 0..1980; equity = value / 1980);
* **turn** (:func:`turn_features`): EHS (mean river equity over the 46 river
  cards), EHS² (mean squared river equity) and the histogram of river
  equities (``bins`` equal-width bins; counts out of 46) -- the turn hand's
  potential;
* **flop** (:func:`flop_features`): EHS and EHS² (averaged over the 47 turn
  cards, exact), the histogram of turn EHS (L2 feature) and, once the turn is
  bucketed, the *potential-aware* histogram over turn buckets (counts out of 47);
* **preflop** (:func:`preflop_features`): EHS and EHS² from the flop values.

For river abstractions finer than equity alone allows (equity takes only 1,981
values), :func:`river_ochs_features` gives each river class its equity against
each of ``G`` groups of opponent hands (opponent cluster hand strength, OCHS;
Johanson et al. 2013): the 169 preflop classes split into ``G`` groups of about
equal size by preflop equity (:func:`ochs_groups`).

Every pass also returns each class's multiplicity (number of concrete
(hole, board) deals), the clustering weight.

>>> import numpy as np
>>> from pokerbot.cards import parse_cards
>>> round(equity_bruteforce(parse_cards("AsAh"), parse_cards("2c7d9hJsKc")), 4)
0.8611
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit, prange

from abstraction.isomorphism import SUIT_PERMUTATIONS, hand_index, num_classes
from pokerbot.errors import CardError
from pokerbot.evaluator import eval7

__all__ = [
    "canonical_boards",
    "river_features",
    "turn_features",
    "flop_features",
    "preflop_features",
    "preflop_equity",
    "ochs_groups",
    "river_ochs_features",
    "river_ochs_board",
    "equity_bruteforce",
    "ehs_bruteforce",
    "RIVER_OPPONENTS",
    "HALF_WINS",
]

#: Opponent hands on the river: C(45, 2).
RIVER_OPPONENTS = 990
#: River equity unit: half-wins out of 2 * 990.
HALF_WINS = 2 * RIVER_OPPONENTS

ProgressFn = Callable[[int], None] | None


# --- canonical boards ----------------------------------------------------------------


@njit(cache=True)
def _canonical_boards(n):
    """Boards of n cards (sorted tuples) that are lexicographically least in their suit orbit."""
    perms = SUIT_PERMUTATIONS
    cap = 300000
    boards = np.empty((cap, n), np.int8)
    weights = np.empty(cap, np.int32)
    m = 0
    idx = np.arange(n)
    cur = np.empty(n, np.int64)
    img = np.empty(n, np.int64)
    while True:
        for i in range(n):
            cur[i] = idx[i]
        canonical = True
        same = 0
        for p in range(24):
            for i in range(n):
                img[i] = (cur[i] & ~np.int64(3)) | perms[p, cur[i] & 3]
            img.sort()
            cmp = 0
            for i in range(n):
                if img[i] != cur[i]:
                    cmp = -1 if img[i] < cur[i] else 1
                    break
            if cmp < 0:
                canonical = False
                break
            if cmp == 0:
                same += 1
        if canonical:
            for i in range(n):
                boards[m, i] = cur[i]
            weights[m] = 24 // same
            m += 1
        # next combination
        i = n - 1
        while i >= 0 and idx[i] == 52 - n + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, n):
            idx[j] = idx[j - 1] + 1
    return boards[:m].copy(), weights[:m].copy()


def canonical_boards(n: int) -> tuple[np.ndarray, np.ndarray]:
    """One board per suit orbit of ``n``-card boards, and each orbit's size.

    >>> b, w = canonical_boards(3)
    >>> len(b), int(w.sum())
    (1755, 22100)
    """
    if n not in (3, 4, 5):
        raise CardError(f"boards have 3, 4 or 5 cards, got {n}")
    return _canonical_boards(n)


# --- the per-board sweep ---------------------------------------------------------------


@njit(cache=True, inline="always")
def _sweep(vals, c1, c2, npairs, out, below, grp):
    """Half-wins of each pair against every other pair disjoint from it (vals: hand values).

    ``below``/``grp``: int64 scratch of 52 zeros (left zeroed).
    """
    order = np.argsort(vals[:npairs], kind="quicksort")
    below_total = 0
    i = 0
    while i < npairs:
        v = vals[order[i]]
        j = i
        while j < npairs and vals[order[j]] == v:
            k = order[j]
            grp[c1[k]] += 1
            grp[c2[k]] += 1
            j += 1
        gt = j - i
        for t in range(i, j):
            k = order[t]
            win = below_total - below[c1[k]] - below[c2[k]]
            tie = gt - grp[c1[k]] - grp[c2[k]] + 1
            out[k] = 2 * win + tie
        for t in range(i, j):
            k = order[t]
            below[c1[k]] += grp[c1[k]]
            below[c2[k]] += grp[c2[k]]
            grp[c1[k]] = 0
            grp[c2[k]] = 0
        below_total += gt
        i = j
    for c in range(52):
        below[c] = 0


@njit(cache=True, inline="always")
def _live_cards(board, nb, live):
    used = np.int64(0)
    for i in range(nb):
        used |= np.int64(1) << board[i]
    n = 0
    for c in range(52):
        if not (used >> c) & 1:
            live[n] = c
            n += 1
    return n


@njit(cache=True, parallel=True)
def _river_chunk(boards, weights, lo, hi, eq, wsum, eqhist):
    """River equities of the classes on canonical boards lo..hi-1.

    eq: uint16 (classes,), half-wins; wsum: optional int32 per-class weight (size 0 to skip);
    eqhist: float64 (hi - lo, 1981), per board the weighted distribution of half-wins.
    """
    for bi in prange(lo, hi):
        board = boards[bi]
        live = np.empty(47, np.int64)
        _live_cards(board, 5, live)
        c1 = np.empty(1081, np.int64)
        c2 = np.empty(1081, np.int64)
        vals = np.empty(1081, np.int32)
        out = np.empty(1081, np.int64)
        below = np.zeros(52, np.int64)
        grp = np.zeros(52, np.int64)
        cards = np.empty(7, np.int64)
        for i in range(5):
            cards[2 + i] = board[i]
        b0, b1, b2, b3, b4 = board[0], board[1], board[2], board[3], board[4]
        k = 0
        for a in range(47):
            for b in range(a + 1, 47):
                c1[k] = live[a]
                c2[k] = live[b]
                vals[k] = eval7(live[a], live[b], b0, b1, b2, b3, b4)
                k += 1
        _sweep(vals, c1, c2, 1081, out, below, grp)
        w = weights[bi]
        for k in range(1081):
            cards[0] = c1[k]
            cards[1] = c2[k]
            ix = hand_index(3, cards)
            eq[ix] = out[k]
            if wsum.shape[0] > 0:
                wsum[ix] += w
        # weighted distribution of half-wins: one private row per board (no races)
        for k in range(1081):
            eqhist[bi - lo, out[k]] += w


def _chunks(total: int, size: int):
    for lo in range(0, total, size):
        yield lo, min(total, lo + size)


def river_features(
    with_weights: bool = False, progress: ProgressFn = None, chunk: int = 2048
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Exact river equity of all 123,156,254 river classes.

    Returns ``(half_wins uint16 (classes,), weights int32 (classes,) or None, dist float64 (1981,))``
    where ``dist[h]`` is the number of concrete (hole, board) deals whose equity is ``h / 1980``.
    ``progress(n)`` is called with the boards done in each chunk.
    """
    boards, weights = canonical_boards(5)
    n = num_classes(3)
    eq = np.zeros(n, np.uint16)
    wsum = np.zeros(n if with_weights else 0, np.int32)
    dist = np.zeros(HALF_WINS + 1, np.float64)
    for lo, hi in _chunks(len(boards), chunk):
        part = np.zeros((hi - lo, HALF_WINS + 1), np.float64)
        _river_chunk(boards, weights.astype(np.int64), lo, hi, eq, wsum, part)
        dist += part.sum(axis=0)
        if progress:
            progress(hi - lo)
    return eq, (wsum if with_weights else None), dist


@njit(cache=True, parallel=True)
def _turn_chunk(boards, weights, lo, hi, bins, rivers, ehs, ehs2, hist, wsum):
    """Turn features of the classes on canonical turn boards lo..hi-1.

    rivers: (n_boards, R) river-card choices per board as positions in the 48 live cards
    (R = 48 for the exact pass; a sample otherwise, -1 padded never).
    """
    R = rivers.shape[1]
    for bi in prange(lo, hi):
        board = boards[bi]
        live = np.empty(48, np.int64)
        _live_cards(board, 4, live)
        # pair ids over the 48 live cards
        p1 = np.empty(1128, np.int64)
        p2 = np.empty(1128, np.int64)
        k = 0
        for a in range(48):
            for b in range(a + 1, 48):
                p1[k] = a
                p2[k] = b
                k += 1
        s1 = np.zeros(1128, np.float64)
        s2 = np.zeros(1128, np.float64)
        cnt = np.zeros(1128, np.int64)
        h = np.zeros((1128, bins), np.int64)
        c1 = np.empty(1081, np.int64)
        c2 = np.empty(1081, np.int64)
        pid = np.empty(1081, np.int64)
        vals = np.empty(1081, np.int32)
        out = np.empty(1081, np.int64)
        below = np.zeros(52, np.int64)
        grp = np.zeros(52, np.int64)
        b0, b1, b2, b3 = board[0], board[1], board[2], board[3]
        for ri in range(R):
            x = rivers[bi, ri]
            rc = live[x]
            m = 0
            for k in range(1128):
                if p1[k] == x or p2[k] == x:
                    continue
                c1[m] = live[p1[k]]
                c2[m] = live[p2[k]]
                pid[m] = k
                vals[m] = eval7(c1[m], c2[m], b0, b1, b2, b3, rc)
                m += 1
            _sweep(vals, c1, c2, m, out, below, grp)
            for t in range(m):
                k = pid[t]
                e = out[t] / 1980.0
                s1[k] += e
                s2[k] += e * e
                cnt[k] += 1
                bb = (out[t] * bins) // 1981
                h[k, bb] += 1
        cards = np.empty(6, np.int64)
        for i in range(4):
            cards[2 + i] = board[i]
        w = weights[bi]
        for k in range(1128):
            cards[0] = live[p1[k]]
            cards[1] = live[p2[k]]
            ix = hand_index(2, cards)
            ehs[ix] = s1[k] / cnt[k]
            ehs2[ix] = s2[k] / cnt[k]
            for b in range(bins):
                hist[ix, b] = h[k, b]
            wsum[ix] += w


def turn_features(
    bins: int = 30, river_samples: int = 0, seed: int = 0, progress: ProgressFn = None, chunk: int = 512
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """EHS, EHS² (float32) and river-equity histograms (uint8, counts) of every turn class, and weights.

    ``river_samples = 0`` enumerates all 48 river cards per canonical board (exact; a
    hand's own cards are skipped, leaving 46). A positive value samples that many
    river cards per board (seeded): a cheaper, approximate pass for the ``tiny`` preset.
    """
    if not 1 <= bins <= 255:
        raise ValueError(f"bins must be in 1..255, got {bins}")
    boards, weights = canonical_boards(4)
    rng = np.random.default_rng(seed)
    if river_samples <= 0 or river_samples >= 48:
        rivers = np.tile(np.arange(48, dtype=np.int64), (len(boards), 1))
    else:
        rivers = np.argsort(rng.random((len(boards), 48)), axis=1)[:, :river_samples].astype(np.int64)
    n = num_classes(2)
    ehs = np.zeros(n, np.float32)
    ehs2 = np.zeros(n, np.float32)
    hist = np.zeros((n, bins), np.uint8)
    wsum = np.zeros(n, np.int32)
    for lo, hi in _chunks(len(boards), chunk):
        _turn_chunk(boards, weights.astype(np.int64), lo, hi, bins, rivers, ehs, ehs2, hist, wsum)
        if progress:
            progress(hi - lo)
    return ehs, ehs2, hist, wsum


@njit(cache=True, parallel=True)
def _flop_chunk(boards, weights, lo, hi, turn_ehs, turn_ehs2, turn_bucket, nbuckets, bins, ehs, ehs2, hist, pot, wsum):
    for bi in prange(lo, hi):
        board = boards[bi]
        live = np.empty(49, np.int64)
        _live_cards(board, 3, live)
        fc = np.empty(5, np.int64)
        tc = np.empty(6, np.int64)
        for i in range(3):
            fc[2 + i] = board[i]
            tc[2 + i] = board[i]
        w = weights[bi]
        hb = np.zeros(bins, np.int64)
        pb = np.zeros(max(nbuckets, 1), np.int64)
        for a in range(49):
            for b in range(a + 1, 49):
                fc[0] = live[a]
                fc[1] = live[b]
                tc[0] = live[a]
                tc[1] = live[b]
                s1 = 0.0
                s2 = 0.0
                hb[:] = 0
                pb[:] = 0
                for t in range(49):
                    if t == a or t == b:
                        continue
                    tc[5] = live[t]
                    ti = hand_index(2, tc)
                    e = turn_ehs[ti]
                    s1 += e
                    s2 += turn_ehs2[ti]
                    bb = int(e * bins)
                    if bb >= bins:
                        bb = bins - 1
                    hb[bb] += 1
                    if nbuckets > 0:
                        pb[turn_bucket[ti]] += 1
                ix = hand_index(1, fc)
                ehs[ix] = s1 / 47.0
                ehs2[ix] = s2 / 47.0
                for k in range(bins):
                    hist[ix, k] = hb[k]
                for k in range(nbuckets):
                    pot[ix, k] = pb[k]
                wsum[ix] += w


def flop_features(
    turn_ehs: np.ndarray,
    turn_ehs2: np.ndarray,
    turn_bucket: np.ndarray | None = None,
    num_turn_buckets: int = 0,
    bins: int = 30,
    progress: ProgressFn = None,
    chunk: int = 128,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Flop EHS, EHS², histogram of turn EHS (uint8 counts of 47), potential-aware histogram, weights.

    The potential-aware histogram (uint8 ``(classes, num_turn_buckets)``, counts out of
    47) is the distribution of the hand over next-round buckets; ``None`` when
    ``turn_bucket`` is not given.
    """
    boards, weights = canonical_boards(3)
    n = num_classes(1)
    ehs = np.zeros(n, np.float32)
    ehs2 = np.zeros(n, np.float32)
    hist = np.zeros((n, bins), np.uint8)
    nb = int(num_turn_buckets) if turn_bucket is not None else 0
    pot = np.zeros((n, max(nb, 1)), np.uint8)
    tb = turn_bucket if turn_bucket is not None else np.zeros(1, np.int32)
    wsum = np.zeros(n, np.int32)
    for lo, hi in _chunks(len(boards), chunk):
        _flop_chunk(boards, weights.astype(np.int64), lo, hi, turn_ehs, turn_ehs2, tb, nb, bins, ehs, ehs2, hist, pot, wsum)
        if progress:
            progress(hi - lo)
    return ehs, ehs2, hist, (pot if nb else None), wsum


@njit(cache=True)
def _preflop(flop_ehs, flop_ehs2, out1, out2, wsum):
    fc = np.empty(5, np.int64)
    pc = np.empty(2, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            pc[0], pc[1] = a, b
            pi = hand_index(0, pc)
            fc[0], fc[1] = a, b
            s1 = 0.0
            s2 = 0.0
            n = 0
            for x in range(52):
                if x == a or x == b:
                    continue
                for y in range(x + 1, 52):
                    if y == a or y == b:
                        continue
                    for z in range(y + 1, 52):
                        if z == a or z == b:
                            continue
                        fc[2], fc[3], fc[4] = x, y, z
                        fi = hand_index(1, fc)
                        s1 += flop_ehs[fi]
                        s2 += flop_ehs2[fi]
                        n += 1
            out1[pi] = s1 / n
            out2[pi] = s2 / n
            wsum[pi] += 1


def preflop_features(flop_ehs: np.ndarray, flop_ehs2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Preflop EHS, EHS² (averaged over all 19,600 flops) and multiplicities of the 169 classes."""
    e1 = np.zeros(169, np.float32)
    e2 = np.zeros(169, np.float32)
    w = np.zeros(169, np.int32)
    _preflop(flop_ehs, flop_ehs2, e1, e2, w)
    return e1, e2, w


# --- opponent cluster hand strength (OCHS) on the river ------------------------------------


@njit(cache=True, parallel=True)
def _preflop_equity_mc(samples, seed, out):
    """Monte Carlo all-in equity of each preflop class against a random hand (ties half)."""
    for cls in prange(169):
        # a representative hole pair of the class: ranks hi >= lo, suited when cls's pair is
        hole = np.empty(2, np.int64)
        found = False
        for a in range(52):
            for b in range(a + 1, 52):
                hole[0], hole[1] = a, b
                if not found and hand_index(0, hole) == cls:
                    found = True
                    ha, hb = a, b
        deck = np.empty(50, np.int64)
        n = 0
        for c in range(52):
            if c != ha and c != hb:
                deck[n] = c
                n += 1
        state = np.uint64(seed * 1000003 + cls * 7919 + 1)
        acc = 0.0
        for _ in range(samples):
            # partial Fisher-Yates: 7 cards (5 board, 2 opponent) from the 50 left
            for i in range(7):
                state ^= state >> np.uint64(12)
                state ^= state << np.uint64(25)
                state ^= state >> np.uint64(27)
                r = (state * np.uint64(2685821657736338717)) >> np.uint64(33)
                j = i + int(r % np.uint64(50 - i))
                deck[i], deck[j] = deck[j], deck[i]
            mine = eval7(ha, hb, deck[0], deck[1], deck[2], deck[3], deck[4])
            theirs = eval7(deck[5], deck[6], deck[0], deck[1], deck[2], deck[3], deck[4])
            if mine > theirs:
                acc += 1.0
            elif mine == theirs:
                acc += 0.5
        out[cls] = acc / samples


def preflop_equity(samples: int = 200_000, seed: int = 0) -> np.ndarray:
    """All-in equity (float64, ``(169,)``, by preflop class) against a random hand, by seeded Monte Carlo.

    The standard error is at most ``0.5 / sqrt(samples)`` (0.0011 at the default).

    >>> eq = preflop_equity(samples=20_000)
    >>> round(float(eq[168]), 2)   # AKs (class 168)
    0.67
    """
    if samples < 1:
        raise ValueError(f"samples must be positive, got {samples}")
    out = np.zeros(169, np.float64)
    _preflop_equity_mc(int(samples), int(seed), out)
    return out


def ochs_groups(groups: int, samples: int = 200_000, seed: int = 0) -> np.ndarray:
    """The OCHS group (int64, ``(169,)``) of each preflop class: classes sorted by preflop equity
    (:func:`preflop_equity`) and cut into ``groups`` runs of about equal hand combinations
    (6 for a pair, 4 suited, 12 offsuit). Group 0 is the weakest.

    >>> g = ochs_groups(8, samples=20_000)
    >>> int(g.min()), int(g.max()), int(g[168])   # AKs is among the strongest
    (0, 7, 7)
    """
    if not 1 <= groups <= 169:
        raise ValueError(f"groups must be in 1..169, got {groups}")
    eq = preflop_equity(samples, seed)
    combos = np.zeros(169, np.int64)
    cards = np.empty(2, np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            cards[0], cards[1] = a, b
            combos[hand_index(0, cards)] += 1
    order = np.argsort(eq, kind="stable")
    below = np.cumsum(combos[order]) - combos[order]  # combos of weaker classes
    group = np.empty(169, np.int64)
    group[order] = np.minimum(below * groups // int(combos.sum()), groups - 1)
    return group


@njit(cache=True, parallel=True)
def _river_ochs_chunk(boards, lo, hi, pf_group, ngroups, idx, feat, hw_all):
    """Per canonical board lo..hi-1 (row ``bi - lo``) and each of its 1,081 hole pairs: the pair's river class
    (``idx``), its equity against each OCHS group x 255, rounded (``feat``), and its half-wins against every hand
    (``hw_all``)."""
    G = ngroups
    for bi in prange(lo, hi):
        row = bi - lo
        board = boards[bi]
        live = np.empty(47, np.int64)
        _live_cards(board, 5, live)
        c1 = np.empty(1081, np.int64)
        c2 = np.empty(1081, np.int64)
        g = np.empty(1081, np.int64)
        vals = np.empty(1081, np.int32)
        pc = np.empty(2, np.int64)
        b0, b1, b2, b3, b4 = board[0], board[1], board[2], board[3], board[4]
        k = 0
        for a in range(47):
            for b in range(a + 1, 47):
                c1[k] = live[a]
                c2[k] = live[b]
                pc[0], pc[1] = live[a], live[b]
                g[k] = pf_group[hand_index(0, pc)]
                vals[k] = eval7(live[a], live[b], b0, b1, b2, b3, b4)
                k += 1
        # per group: the pairs holding each card, and all its pairs
        cnt = np.zeros((52, G), np.int64)
        tot = np.zeros(G, np.int64)
        for k in range(1081):
            cnt[c1[k], g[k]] += 1
            cnt[c2[k], g[k]] += 1
            tot[g[k]] += 1
        order = np.argsort(vals, kind="quicksort")
        below = np.zeros((52, G), np.int64)  # per group, pairs of lower value holding the card
        below_tot = np.zeros(G, np.int64)
        grp = np.zeros((52, G), np.int64)  # per group, pairs of the value being swept holding the card
        grp_tot = np.zeros(G, np.int64)
        cards = np.empty(7, np.int64)
        for i in range(5):
            cards[2 + i] = board[i]
        i = 0
        while i < 1081:
            v = vals[order[i]]
            j = i
            while j < 1081 and vals[order[j]] == v:
                q = order[j]
                grp[c1[q], g[q]] += 1
                grp[c2[q], g[q]] += 1
                grp_tot[g[q]] += 1
                j += 1
            for t in range(i, j):
                q = order[t]
                a, b = c1[q], c2[q]
                cards[0], cards[1] = a, b
                idx[row, q] = hand_index(3, cards)
                total = 0
                for h in range(G):
                    own = 1 if g[q] == h else 0  # the pair itself: counted in its group's ties and card counts
                    win = below_tot[h] - below[a, h] - below[b, h]
                    tie = grp_tot[h] - grp[a, h] - grp[b, h] + own
                    opp = tot[h] - cnt[a, h] - cnt[b, h] + own
                    hw = 2 * win + tie
                    total += hw
                    feat[row, q, h] = np.uint8(int(255.0 * hw / (2.0 * opp) + 0.5)) if opp > 0 else np.uint8(128)
                hw_all[row, q] = total
            for t in range(i, j):
                q = order[t]
                below[c1[q], g[q]] += 1
                below[c2[q], g[q]] += 1
                below_tot[g[q]] += 1
                grp[c1[q], g[q]] = 0
                grp[c2[q], g[q]] = 0
            for h in range(G):
                grp_tot[h] = 0
            i = j


def _ochs_boards(boards: np.ndarray, lo: int, hi: int, pf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    G = int(pf.max()) + 1
    idx = np.empty((hi - lo, 1081), np.int64)
    feat = np.empty((hi - lo, 1081, G), np.uint8)
    hw = np.empty((hi - lo, 1081), np.int64)
    _river_ochs_chunk(boards, lo, hi, pf, G, idx, feat, hw)
    return idx, feat, hw


def _check_groups(groups: np.ndarray) -> np.ndarray:
    pf = np.ascontiguousarray(groups, dtype=np.int64)
    if pf.shape != (169,) or pf.min() < 0:
        raise ValueError(f"groups must give each of the 169 preflop classes a group >= 0, got shape {pf.shape}")
    return pf


def river_ochs_board(board: Sequence[int], groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OCHS of every hole pair on one river board (any order): ``(hole pairs (1081, 2), feat (1081, G) uint8,
    half-wins against every hand (1081,))``, as :func:`river_ochs_features` computes them (tests, spot checks)."""
    b = np.array(sorted(int(c) for c in board), np.int8)
    if b.shape != (5,) or len(set(b.tolist())) != 5 or b.min() < 0 or b.max() > 51:
        raise CardError(f"a river board is 5 distinct cards in 0..51, got {list(board)}")
    pf = _check_groups(groups)
    idx, feat, hw = _ochs_boards(b[None, :], 0, 1, pf)
    live = [c for c in range(52) if c not in b.tolist()]
    pairs = np.array([(live[i], live[j]) for i in range(47) for j in range(i + 1, 47)], np.int64)
    return pairs, feat[0], hw[0]


def river_ochs_features(
    groups: np.ndarray, progress: ProgressFn = None, chunk: int = 1024
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OCHS features of all 123,156,254 river classes.

    ``groups``: the OCHS group of each preflop class (:func:`ochs_groups`). Returns ``(feat uint8
    (classes, G), half_wins uint16 (classes,), weights int32 (classes,))``: ``feat[i, h]`` is the
    class's showdown equity against the opponent hands of group ``h`` (card removal exact, ties half)
    times 255, rounded; ``half_wins`` the equity against every hand as in :func:`river_features`
    (the groups' half-wins add up to it exactly); ``weights`` the classes' multiplicities.
    """
    pf = _check_groups(groups)
    G = int(pf.max()) + 1
    boards, weights = canonical_boards(5)
    n = num_classes(3)
    feat = np.zeros((n, G), np.uint8)
    eq = np.zeros(n, np.uint16)
    wsum = np.zeros(n, np.int32)
    for lo, hi in _chunks(len(boards), chunk):
        idx, f, hw = _ochs_boards(boards, lo, hi, pf)
        flat = idx.reshape(-1)
        feat[flat] = f.reshape(-1, G)
        eq[flat] = hw.reshape(-1)
        np.add.at(wsum, flat, np.repeat(weights[lo:hi].astype(np.int32), 1081))
        if progress:
            progress(hi - lo)
    return feat, eq, wsum


# --- brute force (tests and spot checks) -----------------------------------------------


@njit(cache=True)
def _equity_bf(hole, board):
    """Showdown equity on a full board by enumerating every opponent hand."""
    used = np.int64(0)
    for c in hole:
        used |= np.int64(1) << c
    for c in board:
        used |= np.int64(1) << c
    me = eval7(hole[0], hole[1], board[0], board[1], board[2], board[3], board[4])
    win = 0.0
    n = 0
    for x in range(52):
        if (used >> x) & 1:
            continue
        for y in range(x + 1, 52):
            if (used >> y) & 1:
                continue
            v = eval7(x, y, board[0], board[1], board[2], board[3], board[4])
            n += 1
            if me > v:
                win += 1.0
            elif me == v:
                win += 0.5
    return win / n


@njit(cache=True)
def _ehs_bf(hole, board, nb):
    """Mean and mean square of the river equity over every run-out of a 3- or 4-card board."""
    used = np.int64(0)
    for c in hole:
        used |= np.int64(1) << c
    for i in range(nb):
        used |= np.int64(1) << board[i]
    full = np.empty(5, np.int64)
    for i in range(nb):
        full[i] = board[i]
    s1 = 0.0
    s2 = 0.0
    n = 0
    if nb == 4:
        for r in range(52):
            if (used >> r) & 1:
                continue
            full[4] = r
            e = _equity_bf(hole, full)
            s1 += e
            s2 += e * e
            n += 1
    else:
        for t in range(52):
            if (used >> t) & 1:
                continue
            for r in range(t + 1, 52):
                if (used >> r) & 1:
                    continue
                full[3] = t
                full[4] = r
                e = _equity_bf(hole, full)
                s1 += e
                s2 += e * e
                n += 1
    return s1 / n, s2 / n


def _cards_array(hole: Sequence[int], board: Sequence[int], nboard: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    h = np.array([int(c) for c in hole], np.int64)
    b = np.array([int(c) for c in board], np.int64)
    if len(h) != 2 or len(b) not in nboard:
        raise CardError(f"need 2 hole cards and {nboard} board cards, got {len(h)} and {len(b)}")
    allc = np.concatenate([h, b])
    if len(set(allc.tolist())) != len(allc) or allc.min() < 0 or allc.max() > 51:
        raise CardError(f"cards must be distinct and in 0..51, got {allc.tolist()}")
    return h, b


def equity_bruteforce(hole: Sequence[int], board: Sequence[int]) -> float:
    """River equity of ``hole`` on a 5-card ``board`` by plain enumeration of the 990 opponents."""
    h, b = _cards_array(hole, board, (5,))
    return float(_equity_bf(h, b))


def ehs_bruteforce(hole: Sequence[int], board: Sequence[int]) -> tuple[float, float]:
    """(EHS, EHS²) of ``hole`` on a 3-, 4- or 5-card ``board`` by plain enumeration (slow on the flop)."""
    h, b = _cards_array(hole, board, (3, 4, 5))
    if len(b) == 5:
        e = float(_equity_bf(h, b))
        return e, e * e
    e1, e2 = _ehs_bf(h, b, len(b))
    return float(e1), float(e2)

