"""External-sampling MCCFR kernels (numba) over an :class:`~blueprint.abstract_game.AbstractGame`.

One *iteration* is one traversal for each player, as OpenSpiel counts it. Each
traversal uses its own deal (or, with ``shared_deal``, both traversals of an
iteration use one: each is still unbiased, and hold'em deals cost about a third
of an iteration) -- hole cards and full board, pre-sampled by a deal
kernel into ``buckets[j, p, r]`` (bucket of player ``p`` in round ``r``) and
``result[j]`` (+1 player 0 wins the showdown, -1 loses, 0 split). At the
traverser's nodes every action is explored and regrets updated; at the
opponent's nodes one action is sampled from the current (regret-matching)
strategy and that strategy is added to the strategy sum ("simple" averaging,
as OpenSpiel's external sampling).

Options (``params`` array, see :data:`PARAM_NAMES`), as in Pluribus:

* linear discounting: every ``discount_every`` iterations up to
  ``discount_until``, regrets and strategy sums are multiplied by ``k/(k+1)``
  (``k`` = intervals elapsed), which is linear CFR weighting of early iterations;
* negative-regret pruning: after ``prune_after`` iterations, with probability
  ``prune_probability`` a traversal skips the traverser's actions whose regret is
  below ``prune_threshold`` (never actions that end the hand, nor on the last round,
  nor an action of nonzero probability: a node whose regrets are all negative plays
  uniformly and is explored in full, which keeps every node value exact);
* ``regret_floor``: regrets never fall below it (Pluribus floors them).

Storage: float64 or float32 regrets and strategy sums, or *compact*: regrets as
int32 in units of ``1 / regret_scale`` chips (rounded to nearest, saturating),
strategy sums as uint16 with one power-of-two scale per information set
(``sexp``, uint8; ``ibase[node] + bucket`` is the infoset's number). The
current strategy ``σ(a)`` is added as ``σ(a) · 256 · 2^-e`` stochastically
rounded (``floor(x + u)`` with one uniform ``u`` per visit: unbiased); when an entry would pass 65,535 the infoset's sums are
halved and its ``e`` goes up, so the average (a ratio within the infoset) is
kept. 6 bytes per infoset action instead of 8 (float32) or 16 (float64).

Random numbers come from two xorshift64* streams held in uint64 arrays (one for
deals, one for the traversal), so a run is a pure function of its seed and the
state saved in a checkpoint resumes it bit for bit, whatever the chunk sizes.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pokerbot.betting_tree import DECISION, FOLD_NODE
from pokerbot.evaluator import eval_cards

PARAM_NAMES = (
    "discount_every",
    "discount_until",
    "prune_after",
    "prune_threshold",
    "prune_probability",
    "regret_floor",
    "regret_scale",
)

#: Compact strategy sums: the quantum of a probability-one addition at scale exponent 0.
SUM_QUANTUM = 256.0
_U16_MAX = 65535.0
_I32_MAX = 2147483647.0

_M = np.uint64(0x2545F4914F6CDD1D)
_S12, _S25, _S27, _S11 = np.uint64(12), np.uint64(25), np.uint64(27), np.uint64(11)


def seed_state(seed: int, stream: int) -> np.ndarray:
    """A nonzero xorshift state for ``(seed, stream)`` (splitmix64 of both)."""
    mask = (1 << 64) - 1
    z = (int(seed) * 0x9E3779B97F4A7C15 + (int(stream) + 1) * 0xBF58476D1CE4E5B9) & mask
    for _ in range(3):
        z = (z + 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit(cache=True, inline="always")
def _next_u64(rng):
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    return x * _M


@njit(cache=True, inline="always")
def uniform(rng):
    """A float in [0, 1) (53 random bits)."""
    return np.float64(_next_u64(rng) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def randint(rng, n):
    """An int in [0, n)."""
    return np.int64(uniform(rng) * n)


# --- deals -------------------------------------------------------------------------------


@njit(cache=True)
def deal_lossless(rng, count, deck, num_hole, board_through, tables, table_offsets, buckets, result):
    """Fill ``buckets[:count]`` / ``result[:count]`` with ``count`` deals of a small game.

    ``tables`` is the concatenation of the per-round lossless tables (see
    :mod:`blueprint.lossless`), round ``r`` starting at ``table_offsets[r]``.
    """
    d = deck.shape[0]
    num_rounds = board_through.shape[0]
    total_board = board_through[num_rounds - 1]
    k = 2 * num_hole + total_board
    pos = np.arange(d)
    cards = np.empty(num_hole + total_board, dtype=np.int64)
    for j in range(count):
        for i in range(d):  # a fresh deck each deal: deals do not depend on how calls are chunked
            pos[i] = i
        for i in range(k):  # partial Fisher-Yates
            s = i + randint(rng, d - i)
            t = pos[i]
            pos[i] = pos[s]
            pos[s] = t
        for p in range(2):
            for r in range(num_rounds):
                code = 0
                mul = 1
                for i in range(num_hole):
                    code += pos[p * num_hole + i] * mul
                    mul *= d
                for i in range(board_through[r]):
                    code += pos[2 * num_hole + i] * mul
                    mul *= d
                buckets[j, p, r] = tables[table_offsets[r] + code]
        for i in range(total_board):
            cards[num_hole + i] = deck[pos[2 * num_hole + i]]
        for i in range(num_hole):
            cards[i] = deck[pos[i]]
        v0 = eval_cards(cards, num_hole + total_board)
        for i in range(num_hole):
            cards[i] = deck[pos[num_hole + i]]
        v1 = eval_cards(cards, num_hole + total_board)
        result[j] = 1 if v0 > v1 else (-1 if v0 < v1 else 0)


# --- traversal ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _regret_match(regret, off, a_n, out):
    total = 0.0
    for a in range(a_n):
        r = regret[off + a]
        if r > 0:
            out[a] = r
            total += r
        else:
            out[a] = 0.0
    if total > 0:
        for a in range(a_n):
            out[a] /= total
    else:
        for a in range(a_n):
            out[a] = 1.0 / a_n


@njit(cache=True, inline="always")
def _terminal_value(node, p, res, kind, player, spent):
    if kind[node] == FOLD_NODE:  # player[node] folded
        if player[node] == p:
            return -np.float64(spent[node, p])
        return np.float64(spent[node, 1 - p])
    amount = np.float64(min(spent[node, 0], spent[node, 1]))  # showdown
    return amount * res if p == 0 else -amount * res


@njit(cache=True, inline="always")
def _skip(a, a_n, off, f, can_prune, prune_thr, regret, kind, child, sig, val):
    """The first action >= a not pruned (a_n if none); pruned ones get NaN values.

    Only actions of probability zero are pruned (regret below the threshold while another
    action's is positive), so the node's value stays exact.
    """
    while a < a_n:
        if can_prune and sig[a] == 0.0 and regret[off + a] < prune_thr and kind[child[f + a]] == DECISION:
            val[a] = np.nan
            a += 1
        else:
            break
    return a


@njit(cache=True, inline="always")
def _add_sum(ssum, sexp, iset, off, a_n, sig, rng):
    """Add the strategy ``sig`` to the strategy sums of one infoset (compact sums: see the module docstring)."""
    if sexp.shape[0] == 0:
        for a in range(a_n):
            ssum[off + a] += sig[a]
        return
    e = np.int64(sexp[iset])
    scale = SUM_QUANTUM * 2.0 ** (-e)
    top = 0.0
    for a in range(a_n):
        top = max(top, ssum[off + a] + sig[a] * scale)
    while top + 1.0 > _U16_MAX and e < 255:  # halve the infoset's sums (rounded without bias), double the unit
        u = uniform(rng)
        top = 0.0
        scale *= 0.5
        for a in range(a_n):
            ssum[off + a] = np.floor(ssum[off + a] * 0.5 + u)
            top = max(top, ssum[off + a] + sig[a] * scale)
        e += 1
    sexp[iset] = e
    u = uniform(rng)  # one dither for the infoset: each floor(x + u) is x on average
    for a in range(a_n):
        ssum[off + a] = min(ssum[off + a] + np.floor(sig[a] * scale + u), _U16_MAX)


@njit(cache=True, inline="always")
def _store_regret(regret, i, x, floor, compact):
    x = x if x > floor else floor
    if compact:
        x = max(min(np.floor(x + 0.5), _I32_MAX), -_I32_MAX)
    regret[i] = x


@njit(cache=True)
def _traverse(p, bk, res, kind, player, rnd, nact, first, child, base, spent, regret, ssum, sexp, ibase, rng,
              prune, prune_thr, floor, rscale, last_round, sigma, values, fnode, fa, fv, tmp):
    """One external-sampling traversal for player ``p`` (iterative: an explicit stack of the
    traverser's nodes; opponent nodes are followed in place). Returns p's sampled value."""
    node = 0
    sp = 0
    value = 0.0
    compact = sexp.shape[0] > 0
    while True:
        # descend until a terminal value is known
        while True:
            k = kind[node]
            if k != DECISION:
                value = _terminal_value(node, p, res, kind, player, spent)
                break
            actor = player[node]
            a_n = nact[node]
            off = base[node] + bk[actor, rnd[node]] * a_n
            f = first[node]
            if actor != p:
                _regret_match(regret, off, a_n, tmp)
                _add_sum(ssum, sexp, ibase[node] + bk[actor, rnd[node]], off, a_n, tmp, rng)
                u = uniform(rng)
                chosen = a_n - 1
                acc = 0.0
                for a in range(a_n):
                    acc += tmp[a]
                    if u < acc:
                        chosen = a
                        break
                node = child[f + chosen]
                continue
            sig = sigma[sp]
            _regret_match(regret, off, a_n, sig)
            can_prune = prune and rnd[node] != last_round
            a = _skip(0, a_n, off, f, can_prune, prune_thr, regret, kind, child, sig, values[sp])
            if a == a_n:  # everything pruned: no value, no update
                value = 0.0
                break
            fnode[sp] = node
            fa[sp] = a
            fv[sp] = 0.0
            sp += 1
            node = child[f + a]
        # ascend: hand the value to the frames above
        descend = False
        while sp > 0:
            top = sp - 1
            n = fnode[top]
            a_n = nact[n]
            f = first[n]
            off = base[n] + bk[p, rnd[n]] * a_n
            val = values[top]
            sig = sigma[top]
            a = fa[top]
            val[a] = value
            fv[top] += sig[a] * value
            can_prune = prune and rnd[n] != last_round
            a = _skip(a + 1, a_n, off, f, can_prune, prune_thr, regret, kind, child, sig, val)
            if a < a_n:
                fa[top] = a
                node = child[f + a]
                descend = True
                break
            v = fv[top]
            for b in range(a_n):
                if val[b] == val[b]:  # explored (not NaN)
                    if compact:
                        _store_regret(regret, off + b, regret[off + b] + rscale * (val[b] - v), floor, True)
                    else:
                        x = regret[off + b] + (val[b] - v)
                        regret[off + b] = x if x > floor else floor
            value = v
            sp -= 1
        if not descend:
            return value


@njit(cache=True)
def _scale(arr, factor):
    for i in range(arr.shape[0]):
        arr[i] *= factor


@njit(cache=True)
def scale_rounded(arr, factor):
    """Integer arrays (compact storage): scaled and rounded to nearest."""
    for i in range(arr.shape[0]):
        arr[i] = np.floor(arr[i] * factor + 0.5)


@njit(cache=True)
def run_iterations(t0, count, buckets, result, kind, player, rnd, nact, first, child, base, spent,
                   regret, ssum, sexp, ibase, rng, params, max_depth, max_actions, last_round):
    """Run iterations ``t0 + 1 .. t0 + count`` (1-based).

    ``sexp`` / ``ibase``: compact storage's per-infoset sum exponents and the first infoset number of each
    node (``sexp`` empty for float storage).

    With ``2 * count`` deals, iteration i uses deals ``2i`` and ``2i + 1`` (one per traversal);
    with ``count`` deals both traversals of iteration i share deal ``i``.

    Returns the number of nodes visited (a work measure for benchmarks).
    """
    discount_every = np.int64(params[0])
    discount_until = np.int64(params[1])
    prune_after = np.int64(params[2])
    prune_thr = params[3]
    prune_prob = params[4]
    floor = params[5]
    rscale = params[6]
    compact = sexp.shape[0] > 0
    sigma = np.empty((max_depth + 1, max_actions))
    values = np.empty((max_depth + 1, max_actions))
    fnode = np.empty(max_depth + 1, dtype=np.int64)
    fa = np.empty(max_depth + 1, dtype=np.int64)
    fv = np.empty(max_depth + 1)
    tmp = np.empty(max_actions)
    per = buckets.shape[0] // count  # deals per iteration: 2 (one per traversal) or 1 (shared)
    for i in range(count):
        t = t0 + i + 1
        for p in range(2):
            j = per * i + (p if per == 2 else 0)
            prune = False
            if prune_after >= 0 and t > prune_after:
                prune = uniform(rng) < prune_prob
            _traverse(p, buckets[j], np.float64(result[j]), kind, player, rnd, nact, first, child, base,
                      spent, regret, ssum, sexp, ibase, rng, prune, prune_thr, floor, rscale, last_round, sigma, values,
                      fnode, fa, fv, tmp)
        if discount_every > 0 and t % discount_every == 0 and t <= discount_until:
            kk = t // discount_every
            d = kk / (kk + 1.0)
            if compact:
                scale_rounded(regret, d)
                scale_rounded(ssum, d)
            else:
                _scale(regret, d)
                _scale(ssum, d)
    return count


@njit(cache=True, parallel=True)
def merge_compact(regret, ssum, sexp, s_regret, s_ssum, s_sexp, x_regret, x_ssum, x_sexp, share, floor,
                  base, kind, rnd, nact, num_buckets, ibase):
    """Add one worker's changes to compact arrays in place: ``regret += share * (x - s)`` (rounded, floored,
    saturating) and, per infoset, the strategy sums' change ``x - s`` decoded by each array's exponent; the
    merged sums take the smallest exponent (never below their own) under which they fit in 16 bits.
    ``s_*`` is the epoch's snapshot, ``x_*`` the worker's end state, ``share`` 1 / workers. Parallel over
    slots and nodes; every element's arithmetic is the same however the work is split."""
    for i in prange(regret.shape[0]):
        _store_regret(regret, i, regret[i] + share * (np.float64(x_regret[i]) - np.float64(s_regret[i])), floor,
                      True)
    width = max(1, nact.max())
    for n in prange(kind.shape[0]):
        if kind[n] != DECISION:
            continue
        tot = np.empty(width)
        a_n = nact[n]
        for b in range(num_buckets[rnd[n]]):
            off = base[n] + b * a_n
            iset = ibase[n] + b
            e = np.int64(sexp[iset])
            unit, x_unit, s_unit = 2.0 ** e, 2.0 ** np.int64(x_sexp[iset]), 2.0 ** np.int64(s_sexp[iset])
            top = 0.0
            for a in range(a_n):
                v = ssum[off + a] * unit + x_ssum[off + a] * x_unit - s_ssum[off + a] * s_unit
                tot[a] = v if v > 0 else 0.0
                top = max(top, tot[a])
            while e < 255 and top / unit > _U16_MAX:
                e += 1
                unit *= 2.0
            sexp[iset] = e
            for a in range(a_n):
                ssum[off + a] = min(np.floor(tot[a] / unit + 0.5), _U16_MAX)


@njit(cache=True)
def average_strategy(ssum, base, kind, rnd, nact, num_buckets, out):
    """Normalise strategy sums into ``out`` (uniform where an infoset was never reached)."""
    for n in range(kind.shape[0]):
        if kind[n] != DECISION:
            continue
        a_n = nact[n]
        for b in range(num_buckets[rnd[n]]):
            off = base[n] + b * a_n
            total = 0.0
            for a in range(a_n):
                total += ssum[off + a]
            for a in range(a_n):
                out[off + a] = ssum[off + a] / total if total > 0 else 1.0 / a_n


@njit(cache=True)
def current_strategy(regret, base, kind, rnd, nact, num_buckets, out):
    """Regret matching of every infoset into ``out``."""
    for n in range(kind.shape[0]):
        if kind[n] != DECISION:
            continue
        a_n = nact[n]
        for b in range(num_buckets[rnd[n]]):
            off = base[n] + b * a_n
            total = 0.0
            for a in range(a_n):
                if regret[off + a] > 0:
                    total += regret[off + a]
            for a in range(a_n):
                r = regret[off + a]
                out[off + a] = (r if r > 0 else 0.0) / total if total > 0 else 1.0 / a_n
