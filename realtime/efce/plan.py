"""Correlation plans: relevant sequence pairs and the von Stengel–Forges polytope.

Reading notes §4.1. For a two-player chance-free game with perfect recall, decision
infosets ``I0`` (player 0) and ``I1`` (player 1) are *connected* when some root path
passes through both; sequences ``s0, s1`` are *relevant* (``s0 ⋈ s1``) when either is
empty or their infosets are connected. A correlation plan ``xi`` has one entry per
relevant pair and lies in the polytope::

    xi[∅, ∅] = 1,  xi >= 0,
    Σ_a xi[(I0, a), s1] = xi[σ(I0), s1]   for every I0 and s1 ⋈ I0,
    Σ_a xi[s0, (I1, a)] = xi[s0, σ(I1)]   for every I1 and s0 ⋈ I1.

Pairs are stored sorted by ``s0 * |Σ_1| + s1``; :meth:`CorrelationSpace.index` finds them.

>>> from pokerbot.efg.battleship import battleship
>>> space = CorrelationSpace.of(battleship(3, 1, timesteps=2))
>>> space.num_pairs, space.num_seqs
(1150, (49, 58))
>>> xi = product_plan(space, uniform_strategy(space.treeplex[0]), uniform_strategy(space.treeplex[1]))
>>> bool(abs(space.polytope()[0] @ xi - space.polytope()[1]).max() < 1e-12)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from pokerbot.efg.game import CHANCE, EfgError, Game, Treeplex
from pokerbot.efg.sequence_form import to_sequence, uniform_strategy

__all__ = ["CorrelationSpace", "product_plan", "uniform_plan", "jittered_plan", "uniform_strategy"]


@dataclass(frozen=True)
class CorrelationSpace:
    """The relevant pairs of a chance-free game and everything indexed by them.

    ``pair_seq[i, p]``: player i's sequence of pair ``p``; ``payoff[i, p]``: player i's
    payoff summed over the leaves whose sequence pair is ``p`` (every leaf's pair is
    relevant); ``connected``: the connected decision-infoset pairs ``(I0, I1)``.
    """

    game: Game
    treeplex: tuple[Treeplex, Treeplex]
    pair_seq: np.ndarray
    payoff: np.ndarray
    connected: np.ndarray

    #: False for a space restricted to some infoset classes (:meth:`of` with ``keep``):
    #: it holds only the pairs of those classes, and :meth:`polytope` only the rows that
    #: lie wholly inside them.
    complete: bool = True

    @staticmethod
    def of(game: Game, keep: tuple[np.ndarray, np.ndarray] | None = None) -> CorrelationSpace:
        """Build the space of ``game``; :class:`EfgError` if it has chance nodes.
        ``keep``: per player a boolean per sequence; only pairs whose two sequences are
        both kept are stored (for one subgame ``j``: the sequences pre-subgame or in
        ``j``, i.e. ``S0 ∪ S_j`` without the other subgames' pairs). ``connected`` always
        lists every connected infoset pair."""
        if (game.player == CHANCE).any():
            raise EfgError(f"{game.name}: correlation plans here need a game without chance nodes")
        tps = (game.treeplex(0), game.treeplex(1))
        connected = connected_infosets(game)
        n1 = tps[1].num_seqs
        if keep is None:
            key = _pair_keys(tps, connected, np.ones(tps[0].num_seqs, bool), np.ones(n1, bool))
        else:
            key = _pair_keys(tps, connected, np.asarray(keep[0], bool), np.asarray(keep[1], bool))
        pair_seq = np.stack([key // n1, key % n1])
        z = game.terminals
        zkey = game.seq[0, z] * n1 + game.seq[1, z]
        if keep is not None:
            inside = np.asarray(keep[0], bool)[game.seq[0, z]] & np.asarray(keep[1], bool)[game.seq[1, z]]
            z, zkey = z[inside], zkey[inside]
        pos = np.searchsorted(key, zkey)
        if (pos >= len(key)).any() or (key[np.minimum(pos, len(key) - 1)] != zkey).any():
            raise EfgError(f"{game.name}: a leaf's sequence pair is not relevant (imperfect recall?)")
        payoff = np.zeros((2, len(key)))
        for i in (0, 1):
            np.add.at(payoff[i], pos, game.payoff[z, i])
        return CorrelationSpace(game, tps, pair_seq, payoff, connected, keep is None)

    def total_pairs(self) -> int:
        """``|Ξ|`` of the whole game (counted from ``connected``; equals :attr:`num_pairs`
        for a complete space)."""
        return num_relevant_pairs(self.treeplex, self.connected)

    @property
    def num_pairs(self) -> int:
        return self.pair_seq.shape[1]

    @property
    def num_seqs(self) -> tuple[int, int]:
        return (self.treeplex[0].num_seqs, self.treeplex[1].num_seqs)

    @cached_property
    def keys(self) -> np.ndarray:
        return self.pair_seq[0] * self.treeplex[1].num_seqs + self.pair_seq[1]

    def index(self, s0: np.ndarray | int, s1: np.ndarray | int, strict: bool = True) -> np.ndarray:
        """Pair indices of ``(s0, s1)`` (broadcast); -1 where not relevant, or
        :class:`EfgError` with ``strict``."""
        key = np.asarray(s0, dtype=np.int64) * self.treeplex[1].num_seqs + np.asarray(s1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, key), self.num_pairs - 1)
        ok = self.keys[pos] == key
        if strict and not ok.all():
            raise EfgError("a sequence pair that is not relevant was looked up")
        return np.where(ok, pos, -1)

    def oriented_index(self, player: int, mine: np.ndarray, other: np.ndarray) -> np.ndarray:
        """:meth:`index` with player ``player``'s sequence first."""
        return self.index(mine, other) if player == 0 else self.index(other, mine)

    @cached_property
    def welfare(self) -> np.ndarray:
        """Social welfare ``u0 + u1`` per pair: ``SW(xi) = welfare @ xi``."""
        return self.payoff[0] + self.payoff[1]

    def polytope(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """``(A, b)`` with the correlation polytope as ``{xi >= 0 : A xi = b}`` (row 0 is
        ``xi[∅, ∅] = 1``; then one row per sequence-form constraint of a row or column)."""
        rows, cols, vals = [np.zeros(1, np.int64)], [self.index(0, 0).reshape(1)], [np.ones(1)]
        r = 1
        for i in (0, 1):
            tp, other = self.treeplex[i], self.treeplex[1 - i]
            # (infoset d of player i, opponent sequence s) for s = ∅ and every s in a connected infoset
            ds = [np.arange(tp.num_infosets)]
            ss = [np.zeros(tp.num_infosets, np.int64)]
            for d_me, d_op in self.connected[:, [i, 1 - i]]:
                n = int(other.num_actions[d_op])
                ds.append(np.full(n, d_me))
                ss.append(other.first_seq[d_op] + np.arange(n))
            d = np.concatenate(ds)
            s = np.concatenate(ss)
            if not self.complete:  # rows wholly inside the kept pairs
                mine = tp.first_seq[d]
                inside = (self.index(mine, s, strict=False) if i == 0 else self.index(s, mine, strict=False)) >= 0
                d, s = d[inside], s[inside]
            row = r + np.arange(len(d))
            r += len(d)
            rows.append(row)
            cols.append(self.oriented_index(i, tp.parent_seq[d], s))
            vals.append(-np.ones(len(d)))
            width = tp.num_actions[d]
            rep = np.repeat(np.arange(len(d)), width)
            offset = np.arange(len(rep)) - np.repeat(np.cumsum(width) - width, width)
            rows.append(row[rep])
            cols.append(self.oriented_index(i, tp.first_seq[d][rep] + offset, s[rep]))
            vals.append(np.ones(len(rep)))
        mat = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(r, self.num_pairs))
        rhs = np.zeros(r)
        rhs[0] = 1.0
        return mat, rhs

    def check_plan(self, xi: np.ndarray, tol: float = 1e-7) -> None:
        """:class:`EfgError` unless ``xi`` is in the correlation polytope (within ``tol``)."""
        a, b = self.polytope()
        if xi.shape != (self.num_pairs,):
            raise EfgError(f"plan has {xi.shape} entries, the space has {self.num_pairs} pairs")
        gap = float(abs(a @ xi - b).max())
        if gap > tol or xi.min() < -tol:
            raise EfgError(f"plan is not in the correlation polytope (residual {gap:.2e}, min {xi.min():.2e})")

    # --- per-player structure used by the incentive constraints -------------------------

    @cached_property
    def leaf_lists(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Per player i: CSR ``|Σ_i| x |Σ_-i|`` with ``u_i(s_i, s_-i)`` at the leaf pairs."""
        out = []
        for i in (0, 1):
            nz = self.payoff[i] != 0
            m = sp.csr_matrix((self.payoff[i, nz], (self.pair_seq[i, nz], self.pair_seq[1 - i, nz])),
                              shape=(self.num_seqs[i], self.num_seqs[1 - i]))
            m.sort_indices()
            out.append(m)
        return (out[0], out[1])

    def leaf_terms(self, player: int, payoff_seq: np.ndarray, column_seq: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """COO terms ``(k, pair, u)``: for each ``k``, ``u_i(payoff_seq[k], s)`` on the pair
        ``(column_seq[k], s)`` for every opponent sequence ``s`` with a leaf. With
        ``column_seq = payoff_seq`` this is player i's leaf payoff of the plan at that
        sequence; with a trigger sequence, the deviation value under its posterior."""
        m = self.leaf_lists[player]
        start, stop = m.indptr[payoff_seq], m.indptr[payoff_seq + 1]
        count = stop - start
        k = np.repeat(np.arange(len(payoff_seq)), count)
        flat = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count) + np.repeat(start, count)
        cols = self.oriented_index(player, np.repeat(column_seq, count), m.indices[flat])
        return k, cols, m.data[flat]

    @cached_property
    def below(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per player: for each sequence, the decision infosets in its subtree (children
        first-come, topological order)."""
        out = []
        for tp in self.treeplex:
            res: list[np.ndarray] = [np.zeros(0, np.int64)] * tp.num_seqs
            for s in range(tp.num_seqs - 1, -1, -1):  # children have larger sequence numbers
                parts = []
                for d in tp.children[s]:
                    parts.append(np.asarray([d]))
                    first = int(tp.first_seq[d])
                    parts.extend(res[first + a] for a in range(int(tp.num_actions[d])))
                res[s] = np.sort(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
            out.append(res)
        return (out[0], out[1])

    def seqs_of(self, player: int, infosets: np.ndarray) -> np.ndarray:
        """All sequences of the given infosets of ``player``."""
        tp = self.treeplex[player]
        n = tp.num_actions[infosets]
        return np.repeat(tp.first_seq[infosets], n) + np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)


def connected_infosets(game: Game) -> np.ndarray:
    """Connected decision-infoset pairs ``(I0, I1)`` (some root path passes through
    both), sorted; passes over the nodes, one level of the opponent's sequences at a time."""
    tps = (game.treeplex(0), game.treeplex(1))
    n1 = tps[1].num_infosets
    found = [np.zeros(0, np.int64)]
    for i in (0, 1):
        other = tps[1 - i]
        nodes = np.flatnonzero(game.player == i)
        dec = game.info[i].obs_decision[game.obs[i, nodes]].astype(np.int64)
        opp = game.seq[1 - i, nodes].astype(np.int64)
        key = np.unique(dec * other.num_seqs + opp)
        d, s = key // other.num_seqs, key % other.num_seqs
        while len(s):
            live = s > 0
            d, s = d[live], s[live]
            e = other.seq_infoset[s]
            found.append(d * n1 + e if i == 0 else e * n1 + d)
            key = np.unique(d * other.num_seqs + other.seq_parent[s])
            d, s = key // other.num_seqs, key % other.num_seqs
    key = np.unique(np.concatenate(found))
    return np.stack([key // n1, key % n1], axis=1).astype(np.int64).reshape(-1, 2)


def num_relevant_pairs(tps: tuple[Treeplex, Treeplex], connected: np.ndarray) -> int:
    """``|Ξ|``: pairs with an empty sequence plus the action pairs of the connected infosets."""
    return int(tps[0].num_seqs + tps[1].num_seqs - 1
               + (tps[0].num_actions[connected[:, 0]] * tps[1].num_actions[connected[:, 1]]).sum())


def _pair_keys(tps: tuple[Treeplex, Treeplex], connected: np.ndarray, keep0: np.ndarray, keep1: np.ndarray
               ) -> np.ndarray:
    """Sorted keys ``s0 * |Σ_1| + s1`` of the relevant pairs whose sequences are both kept."""
    n1 = tps[1].num_seqs
    s1 = np.flatnonzero(keep1)
    s0 = np.flatnonzero(keep0)
    parts = [s1[s1 > 0].astype(np.int64), s0.astype(np.int64) * n1]
    d0, d1 = connected[:, 0], connected[:, 1]
    f0, f1 = tps[0].first_seq[d0], tps[1].first_seq[d1]
    ok = keep0[f0] & keep1[f1]  # an infoset's sequences are kept together
    f0, f1, a0, a1 = f0[ok], f1[ok], tps[0].num_actions[d0[ok]], tps[1].num_actions[d1[ok]]
    width = a0 * a1
    rep = np.repeat(np.arange(len(width)), width)
    off = np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width)
    parts.append((f0[rep] + off // a1[rep]) * n1 + f1[rep] + off % a1[rep])
    return np.unique(np.concatenate(parts))


def product_plan(space: CorrelationSpace, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """The plan of independent play: ``xi[s0, s1] = x0[s0] * x1[s1]`` on relevant pairs."""
    return x0[space.pair_seq[0]] * x1[space.pair_seq[1]]


def uniform_plan(space: CorrelationSpace) -> np.ndarray:
    """Uniform blueprint: both players uniform at every infoset (an NE of Battleship)."""
    return product_plan(space, uniform_strategy(space.treeplex[0]), uniform_strategy(space.treeplex[1]))


def jittered_strategy(tp: Treeplex, width: float, rng: np.random.Generator) -> np.ndarray:
    """Behaviour ``κ_k / Σ κ`` with ``κ_k = 1 + width * ε_k``, ``ε_k ~ U[-1, 1]`` at every
    infoset (the paper's Jittered blueprint), in sequence form."""
    if not 0.0 <= width <= 1.0:
        raise EfgError(f"jitter width must be in [0, 1], got {width}")
    kappa = 1.0 + width * rng.uniform(-1.0, 1.0, tp.num_seqs - 1)
    sums = np.add.reduceat(kappa, tp.first_seq - 1) if tp.num_infosets else np.zeros(0)
    beh = np.concatenate(([1.0], kappa / np.repeat(sums, tp.num_actions)))
    return to_sequence(tp, beh)


def jittered_plan(space: CorrelationSpace, width: float, seed: int) -> np.ndarray:
    """Jittered blueprint: independent jittered strategies for both players (seeded)."""
    rng = np.random.default_rng(seed)
    return product_plan(space, jittered_strategy(space.treeplex[0], width, rng),
                        jittered_strategy(space.treeplex[1], width, rng))
