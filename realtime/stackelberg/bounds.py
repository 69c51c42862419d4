"""Subgame partitions and the safety bounds of Algorithm 2 (Ling & Brown, App. B).

A :class:`Subgames` checks a node -> subgame labelling (closed under descendants,
whole infosets) and finds each subgame's entry nodes and head infosets: the infosets
of a subgame whose parent sequence lies outside it.

:func:`compute_bounds` walks the follower's treeplex top-down from the empty sequence
with a lower bound of -inf. On the trunk (sequences the blueprint's best response
plays) it hands each child infoset of a sequence σ its BRV minus an equal share of
σ's slack ``β·(BRV(σ) - lb)/K``; at a trunk infoset the threshold is ``max(α·v* +
(1-α)·v', lb)`` (v*, v': BRVs of the response's action and the best other one; a
single action gives ``lb``); the response's action inherits it as a lower bound, the
others as an upper bound, which is split over their infosets as ``BRV(I) + (ub -
BRV(σ))/K`` and passed down unchanged below. A head infoset stores the bound it
receives: lower on the trunk, upper off it. α ∈ [0, 1] and β = 1 are safe; β > 1
loosens the trunk's bounds (possibly unsafe).

>>> from pokerbot.efg.general_sum_games import figure2, figure_subgame, label_subgames
>>> from realtime.stackelberg.response import blueprint_rows, follower_response
>>> g = figure2()
>>> subs = Subgames(g, label_subgames(g, figure_subgame))
>>> b = compute_bounds(subs, follower_response(g.sequence_form, blueprint_rows(g, 0)))
>>> [(round(float(v), 3), bool(lo)) for v, lo in zip(b.value[b.is_head], b.lower[b.is_head])]  # >= 1/4 each
[(0.25, True), (0.25, True)]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pokerbot.efg.game import EfgError, Game
from realtime.stackelberg.response import FollowerResponse


@dataclass(frozen=True)
class Subgames:
    """A validated partition of some of ``game``'s nodes into subgames (``label[h]`` =
    subgame id, -1 outside)."""

    game: Game
    label: np.ndarray

    def __post_init__(self) -> None:
        g = self.game
        lab = np.asarray(self.label, dtype=np.int64)
        object.__setattr__(self, "label", lab)
        if lab.shape != (g.num_nodes,):
            raise EfgError(f"subgame labels: {lab.shape} entries for {g.num_nodes} nodes")
        inner = np.flatnonzero(g.parent >= 0)
        par = g.parent[inner]
        bad = (lab[par] >= 0) & (lab[inner] != lab[par])
        if bad.any():
            h = int(inner[np.argmax(bad)])
            raise EfgError(f"subgame labels: node {g.path_labels(h)} leaves its parent's subgame "
                           "(subgames must be closed under descendants)")
        for i in (0, 1):
            sub = self.infoset_subgame(i)  # raises if an infoset straddles subgames
            del sub

    @property
    def count(self) -> int:
        return int(self.label.max(initial=-1)) + 1

    @cached_property
    def entry(self) -> np.ndarray:
        """For each node in a subgame, its subgame's entry node above it (the first
        node of the subgame on its path); -1 outside."""
        g = self.game
        out = np.full(g.num_nodes, -1, dtype=np.int64)
        for h in range(g.num_nodes):  # preorder: parents first
            if self.label[h] < 0:
                continue
            p = g.parent[h]
            out[h] = out[p] if p >= 0 and self.label[p] == self.label[h] else h
        return out

    def infoset_subgame(self, player: int) -> np.ndarray:
        """Subgame of each of ``player``'s decision infosets (-1 outside)."""
        return self._infoset_subgame[player]

    @cached_property
    def _infoset_subgame(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        out = []
        for i in (0, 1):
            info = g.info[i]
            nodes = np.flatnonzero(g.player == i)
            d = info.obs_decision[g.obs[i, nodes]]
            lab = self.label[nodes]
            lo = np.full(info.treeplex.num_infosets, np.iinfo(np.int64).max)
            hi = np.full(info.treeplex.num_infosets, np.iinfo(np.int64).min)
            np.minimum.at(lo, d, lab)
            np.maximum.at(hi, d, lab)
            if (lo != hi).any():
                k = int(np.argmax(lo != hi))
                raise EfgError(f"subgame labels: player {i}'s infoset {k} straddles subgames {lo[k]} and {hi[k]}")
            out.append(lo)
        return out[0], out[1]

    def seq_subgame(self, player: int) -> np.ndarray:
        """Subgame of each of ``player``'s sequences (that of its infoset; -1 for the
        empty sequence and outside)."""
        tp = self.game.treeplex(player)
        return np.concatenate(([-1], np.repeat(self.infoset_subgame(player), tp.num_actions)))

    def heads(self, player: int) -> np.ndarray:
        """Whether each of ``player``'s infosets heads a subgame (in one, with its parent
        sequence outside it)."""
        tp = self.game.treeplex(player)
        sub = self.infoset_subgame(player)
        return (sub >= 0) & (self.seq_subgame(player)[tp.parent_seq] != sub)


@dataclass(frozen=True)
class Bounds:
    """Per follower infoset: ``is_head``; ``value`` the bound (chance- and
    leader-reach-weighted, the units of BRVs); ``lower`` True for a lower bound (trunk
    heads), False for an upper bound."""

    is_head: np.ndarray
    value: np.ndarray
    lower: np.ndarray


_TRUNK, _OFF, _NONE = 0, 1, 2


def compute_bounds(subgames: Subgames, response: FollowerResponse, alpha: float = 0.5, beta: float = 1.0) -> Bounds:
    """Algorithm 2 with the α threshold and the β slack multiplier (see module doc)."""
    if not 0.0 <= alpha <= 1.0:
        raise EfgError(f"alpha must be in [0, 1], got {alpha}")
    if beta < 0.0:
        raise EfgError(f"beta must be non-negative, got {beta}")
    tp = subgames.game.treeplex(1)
    head = subgames.heads(1)
    brv_seq = response.seq_values
    brv_inf = response.infoset_values
    kind = np.full(tp.num_seqs, _NONE, dtype=np.int64)
    bound = np.zeros(tp.num_seqs)
    kind[0] = _TRUNK
    bound[0] = -np.inf
    fan = np.array([len(c) for c in tp.children], dtype=np.float64)
    value = np.full(tp.num_infosets, np.nan)
    lower = np.zeros(tp.num_infosets, dtype=bool)
    for d in range(tp.num_infosets):  # topological: a parent sequence's kind is known
        sigma = int(tp.parent_seq[d])
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        if kind[sigma] == _TRUNK:
            # the empty sequence's bound is -inf: everything below it is vacuous
            lb = -np.inf if np.isneginf(bound[sigma]) else brv_inf[d] - beta * (brv_seq[sigma] - bound[sigma]) / fan[sigma]
            if head[d]:
                value[d], lower[d] = lb, True
                continue
            star = f + int(response.choice[d])
            others = [s for s in range(f, f + n) if s != star]
            threshold = lb
            if others:
                v_star = brv_seq[star]
                v_second = max(brv_seq[s] for s in others)
                threshold = max(alpha * v_star + (1.0 - alpha) * v_second, lb)
            kind[f:f + n] = _OFF
            bound[f:f + n] = threshold
            kind[star] = _TRUNK
        elif kind[sigma] == _OFF:
            ub = brv_inf[d] + (bound[sigma] - brv_seq[sigma]) / fan[sigma]
            if head[d]:
                value[d], lower[d] = ub, False
                continue
            kind[f:f + n] = _OFF
            bound[f:f + n] = ub
    return Bounds(head, value, lower)
