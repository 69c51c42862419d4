"""Leaf values for preflop subgames: a table of flop-start values (Modicum's first-round table).

A HUNL preflop subgame cut at the end of the preflop has its leaves at the start of the
flop, before the flop is dealt. Rollouts there would have to average over 19,600 flops
per leaf, so Modicum (``depth-limited-solving-modicum.txt`` section 5: "10 values for each
state at the end of the first betting round ... in a table using 240 MB") precomputes
them. :class:`FlopStartTable` does the same for a bucketed blueprint:

* for each seat ``o`` and each of the opponent's ``K`` continuation strategies ``k``,
  seat ``o`` plays continuation ``k`` and the other seat the blueprint from the flop on;
  a backward induction over the blueprint's abstract game
  (:meth:`blueprint.values.BlueprintTables.backward_induction`, with its bucket
  transition tables) gives player 0's expected chips at every flop node per flop bucket
  pair, averaged over the flop, turn and river;
* each flop-start node (a child of a preflop decision in round 1) and each preflop all-in
  showdown then has a value per **preflop bucket pair** (hunl-tiny: the 169 hand classes,
  so the table is per class pair): the round transition table contracted with it, or the
  all-in equity. The table holds ``2 x K x nodes x B x B`` numbers (hunl-tiny: 2 x 4 x 11
  x 169 x 169, 10 MB) and is built in seconds on first use, then cached.

:class:`PreflopTableEvaluator` is the :class:`~pokerbot.solver.leaves.LeafEvaluator` of a
preflop subgame: a leaf's real action sequence maps onto the abstract game as the rollout
evaluator's leaves do (:func:`realtime.leaf_values.map_to_abstract`: nearest pot fraction),
its values scale by real pot / abstract pot, and a hand's value is the table row of its
class against the other player's reach binned by class, without the hands that share a card
with it (:class:`realtime.network_leaves.ClassPairLeaves`, as the network's leaves: card removal
between the two hands is exact; within a class pair the table is an average over suits).

:func:`preflop_equity` is the all-in equity of every pair of hands before the flop, from
sampled boards, cached on disk: the agent's preflop all-in leaves.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence

import numpy as np
from numba import njit

from blueprint.abstract_game import DECISION, FOLD_NODE
from blueprint.storage import pokerbot_home
from pokerbot.solver.leaves import check_choices
from pokerbot.solver.tree import PublicTree, SolverError
from realtime.network_leaves import ClassPairLeaves

#: Flops per pair of hands for the preflop-to-flop bucket transitions (812,175 pairs: ~10^8 deals, ~10 s).
FLOPS_PER_PAIR = 128
#: Boards sampled for the preflop all-in equity table (its error: about 0.7 / sqrt(0.66 x this) per pair).
PREFLOP_EQUITY_BOARDS = 4_000


@njit(cache=True)
def _pair_counts(flop_buckets, hole, flops_per_pair, seed, out):  # pragma: no cover - numba
    """out[b0, b1, f0, f1] += flop deals of every pair of disjoint hands, ``flops_per_pair`` uniform flops each,
    counted in both orders (``flop_buckets[h, f]``: hand ``h``'s flop bucket on flop ``f``, -1 when they share a
    card)."""
    np.random.seed(seed)
    nh, nf = flop_buckets.shape
    for h0 in range(nh):
        for h1 in range(h0 + 1, nh):
            if hole[h0, 0] == hole[h1, 0] or hole[h0, 0] == hole[h1, 1] or hole[h0, 1] == hole[h1, 0] \
                    or hole[h0, 1] == hole[h1, 1]:
                continue
            p0 = hole[h0, 2]
            p1 = hole[h1, 2]
            done = 0
            while done < flops_per_pair:
                f = np.random.randint(0, nf)
                a = flop_buckets[h0, f]
                b = flop_buckets[h1, f]
                if a < 0 or b < 0:
                    continue
                out[p0, p1, a, b] += 1.0
                out[p1, p0, b, a] += 1.0
                done += 1


def flop_transitions(game, cards, flops_per_pair: int = 128, seed: int = 0) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``T[b0, b1, f0, f1]``: the chance of flop buckets ``(f0, f1)`` given preflop buckets ``(b0, b1)`` for a
    hold'em card preset ``cards``, stratified: every ordered pair of disjoint hands with ``flops_per_pair``
    uniform flops (a class pair of n hand pairs gets n x that many deals, so rare pairs such as AA
    against AA are as well estimated as common ones; uniform deals give them tens)."""
    from abstraction.isomorphism import hand_index_batch
    from blueprint.values import hole_buckets
    from realtime.subgame import hand_universe

    hands = np.ascontiguousarray(hand_universe(game), dtype=np.int64)
    deck = sorted(game.deck())
    flops = np.array([f for f in itertools.combinations(deck, 3)], dtype=np.int64)
    table = np.asarray(cards.tables[1])
    fb = np.full((len(hands), len(flops)), -1, dtype=np.int16)  # a hand's row is contiguous: the sampler's reads
    step = 1000
    for lo in range(0, len(flops), step):
        chunk = flops[lo : lo + step]
        rows = np.concatenate([np.repeat(hands, len(chunk), axis=0), np.tile(chunk, (len(hands), 1))], axis=1)
        ok = ~(rows[:, :2, None] == rows[:, None, 2:]).any(axis=(1, 2))
        vals = np.full(len(rows), -1, dtype=np.int64)
        vals[ok] = table[hand_index_batch(1, rows[ok])]
        fb[:, lo : lo + len(chunk)] = vals.reshape(len(hands), len(chunk))
    pre = hole_buckets(cards, hands)
    hole = np.concatenate([hands, pre[:, None]], axis=1)
    nb, nf = int(pre.max()) + 1, int(fb.max()) + 1
    fb = np.ascontiguousarray(fb)
    counts = np.zeros((nb, nb, nf, nf))
    _pair_counts(fb, hole, int(flops_per_pair), int(seed), counts)
    total = counts.sum(axis=(2, 3), keepdims=True)
    return counts / np.where(total > 0, total, 1.0)


def _slot_players(tree) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The player who acts at each slot of a blueprint's abstract game."""
    out = np.zeros(tree.num_slots, dtype=np.int64)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        width = int(tree.num_buckets[int(tree.round[n])]) * int(tree.num_actions[n])
        out[int(tree.base[n]) : int(tree.base[n]) + width] = int(tree.player[n])
    return out


class FlopStartTable:
    """Player 0's chips at each flop-start node per preflop bucket pair, per opponent seat and continuation.

    ``continuations`` are strategies over the blueprint's slots (:func:`blueprint.continuation.bias_strategies`:
    the blueprint first). ``values[o, k, i]`` is the ``(B, B)`` matrix of node ``nodes[i]`` when seat ``o``
    plays ``continuations[k]`` and the other seat the blueprint. ``samples`` and ``table_seed`` are the
    bucket transition tables' (:class:`~blueprint.values.BlueprintTables`, cached there), except the
    preflop-to-flop one of a hold'em preset, from ``flops_per_pair`` flops per hand pair (:func:`flop_transitions`); the finished
    table is cached in ``$POKERBOT_HOME/realtime-tables/`` by the blueprint, the continuations and the samples.
    Raises :class:`~blueprint.values.BlueprintValueError` for a card abstraction whose transition
    tables do not fit (hunl-medium's 200 buckets).
    """

    def __init__(self, blueprint, continuations: Sequence[np.ndarray], samples: int | None = None,  # type: ignore[no-untyped-def]
                 table_seed: int = 0, flops_per_pair: int | None = None, cache: bool = True) -> None:
        import hashlib

        from blueprint.values import DEFAULT_SAMPLES, BlueprintTables

        self.blueprint = blueprint
        tree = self.tree = blueprint.tree
        if int(tree.num_buckets[0]) > 4096:
            raise SolverError(f"{tree.num_buckets[0]} preflop buckets: too many for a flop-start table")
        self.num_choices = len(continuations)
        if self.num_choices < 1:
            raise SolverError("a flop-start table needs at least one continuation (the blueprint)")
        conts = [np.asarray(c, dtype=np.float64) for c in continuations]
        for c in conts:
            if c.shape != (tree.num_slots,):
                raise SolverError(f"a continuation does not fit the blueprint ({c.shape} vs {tree.num_slots})")
        samples = DEFAULT_SAMPLES if samples is None else int(samples)
        flops_per_pair = FLOPS_PER_PAIR if flops_per_pair is None else int(flops_per_pair)
        nodes = []
        for n in np.nonzero((tree.kind == DECISION) & (tree.round == 0))[0]:
            first = int(tree.first_child[n])
            for a in range(int(tree.num_actions[n])):
                c = int(tree.child[first + a])
                if tree.kind[c] != FOLD_NODE and (tree.kind[c] != DECISION or tree.round[c] > 0):
                    nodes.append(c)
        self.nodes = np.array(sorted(nodes), dtype=np.int64)
        self.index = {int(n): i for i, n in enumerate(self.nodes)}
        digest = hashlib.sha256()
        for c in conts:
            digest.update(np.ascontiguousarray(c).tobytes())
        name = (f"{tree.signature()}-{blueprint.cards_name}-{digest.hexdigest()[:16]}-{samples}-{table_seed}-"
                f"{flops_per_pair}.npy")
        path = pokerbot_home() / "realtime-tables" / name
        b = int(tree.num_buckets[0])
        shape = (2, len(conts), len(self.nodes), b, b)
        if cache and path.is_file():
            self.values = np.load(path)
            if self.values.shape == shape:
                return  # (another shape: a file from other code; rebuilt below)
        from blueprint.model import PresetCards

        value = BlueprintTables(blueprint, samples=samples, table_seed=table_seed, cache=cache)
        if isinstance(value.cards, PresetCards):  # the preflop transition stratified by hand pair (see flop_transitions)
            value.T[0] = flop_transitions(blueprint.game, value.cards, flops_per_pair, table_seed)
        seat = _slot_players(tree)
        bp = np.asarray(blueprint.strategy, dtype=np.float64)
        out = np.zeros(shape, dtype=np.float32)
        for o in range(2):
            for k, cont in enumerate(conts):
                if k > 0 or o == 0:
                    F, S = value.backward_induction(np.where(seat == o, cont, bp))
                    for i, n in enumerate(self.nodes):
                        f, _ = value.child_terms(0, int(n), F, S)
                        out[o, k, i] = np.broadcast_to(f, (b, b))
                else:  # the blueprint against itself: the same for both seats
                    out[1, 0] = out[0, 0]
        self.values = out
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, out)
            os.replace(tmp, path)

    def matrix(self, node: int, opponent: int, k: int) -> np.ndarray:
        """Player 0's chips at abstract ``node`` over preflop bucket pairs, seat ``opponent`` on continuation ``k``."""
        i = self.index.get(int(node))
        if i is None:
            raise SolverError(f"abstract node {node} is not where a preflop ends (flop start or all-in showdown)")
        return self.values[opponent, k, i]


class PreflopTableEvaluator(ClassPairLeaves):
    """Values of a preflop subgame's flop-start leaves from a :class:`FlopStartTable` (see the module).

    ``us`` plays the blueprint beyond the leaves (one option); the opponent picks one of the table's
    ``K`` continuations, so ``num_choices[us] = 1`` and ``num_choices[1 - us] = K``.
    """

    def __init__(self, tree: PublicTree, table: FlopStartTable, us: int) -> None:
        from blueprint.model import make_cards
        from blueprint.values import hole_buckets
        from realtime.leaf_values import map_to_abstract

        game = tree.game
        if table.blueprint.game != game:
            raise SolverError("the flop-start table was built for another game than the subgame's")
        if tree.root_state.round != 0 or tree.last_round != 0:
            raise SolverError("a flop-start table values preflop subgames cut at the end of the preflop (depth_limit 0)")
        if not np.array_equal(tree.hands[0], tree.hands[1]):
            raise SolverError("a flop-start table needs both players on one hand list (realtime.subgame.hand_universe)")
        self.us = us
        choices = [1, 1]
        choices[1 - us] = table.num_choices
        self.num_choices = check_choices((choices[0], choices[1]))
        cls = hole_buckets(make_cards(table.blueprint.cards_name, game), np.asarray(tree.hands[0], dtype=np.int64))
        leaves = tree.continuation_leaves
        b = int(table.tree.num_buckets[0])
        w = np.zeros((len(leaves), choices[0], choices[1], b, b))  # player 0's chips per option pair
        self.mapped: list[tuple[int, str]] = []
        for i, li in enumerate(leaves):
            state = tree.leaf_states[int(li)]
            node, abs_state = map_to_abstract(table.tree, state)
            self.mapped.append((int(node), abs_state.betting_string()))
            scale = sum(state.spent) / max(1, sum(abs_state.spent))
            for k in range(table.num_choices):
                mat = table.matrix(node, 1 - us, k) * scale
                if us == 0:
                    w[i, 0, k] = mat
                else:
                    w[i, k, 0] = mat
        self.set_tables(tree, w, np.tile(cls, (len(leaves), 1)), b)


def preflop_equity(game, samples: int = PREFLOP_EQUITY_BOARDS, seed: int = 0, cache: bool = True) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``E[h0, h1]`` = P(h0 wins) - P(h0 loses) all-in before the flop, over the hands of
    :func:`realtime.subgame.hand_universe` (0 where they share a card), from ``samples`` uniform boards
    (seeded); cached in ``$POKERBOT_HOME/realtime-tables/``. 4,000 boards: ~5 s once."""
    from pokerbot.solver import kernels as K
    from pokerbot.solver.strength import hand_strengths
    from realtime.subgame import hand_universe

    hands = np.ascontiguousarray(hand_universe(game), dtype=np.int64)
    path = pokerbot_home() / "realtime-tables" / f"preflop-equity-{game.name}-{len(hands)}-{samples}-{seed}.npy"
    if cache and path.is_file():
        return np.load(path).astype(np.float64)
    deck = np.array(sorted(game.deck()), dtype=np.int64)
    need = game.total_board_cards
    rng = np.random.default_rng(seed)
    boards = deck[np.argsort(rng.random((samples, len(deck))), axis=1)[:, :need]]
    strengths = np.stack([hand_strengths(hands, np.ascontiguousarray(bd)) for bd in boards]).astype(np.int32)
    ones = np.ones(len(hands), dtype=np.bool_)
    out = np.zeros((len(hands), len(hands)))
    K.equity_matrix(hands, hands, strengths, strengths, ones, ones, out)
    # a board misses both hands with probability C(n-4, need) / C(n, need): the boards each pair was played on
    n = len(deck)
    out /= samples * math.comb(n - 2 * game.num_hole_cards, need) / math.comb(n, need)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, out.astype(np.float32))
        os.replace(tmp, path)
    return out


__all__ = ["FlopStartTable", "PreflopTableEvaluator", "PREFLOP_EQUITY_BOARDS", "preflop_equity"]
