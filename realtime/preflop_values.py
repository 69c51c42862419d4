"""Leaf values for preflop subgames: a table of flop-start values (Modicum's first-round table).

A HUNL preflop subgame cut at the end of the preflop has its leaves at the start of the
flop, before the flop is dealt. Rollouts there would have to average over 19,600 flops
per leaf, so Modicum (Brown, Sandholm & Amos, Depth-limited solving for imperfect-information
games, section 6.2: "10 values for each state at the end of the first betting round ... in a
table using 240 MB") precomputes
them. :class:`FlopStartTable` does the same for a bucketed blueprint:

* for each seat ``o`` and each of the opponent's ``K`` continuation strategies ``k``,
  seat ``o`` plays continuation ``k`` and the other seat the blueprint from the flop on;
  a backward induction over the blueprint's abstract game
  (:meth:`blueprint.values.BlueprintTables.backward_induction`, with its bucket
  transition tables) gives player 0's expected chips at every flop node per flop bucket
  pair, averaged over the flop, turn and river;
* that induction treats bucket pairs as a Markov chain, which pulls every class toward the mean
  (hunl-tiny, against a Monte Carlo of the same strategies with real cards, ``python -m
  experiments.preflop_check``: limps of the mostly-folded classes rated above folding, A8s ~35 chips too
  low; enough to make the preflop re-solve limp what the blueprint folds); so a
  flop-start value is corrected by the mean, over deals stratified by hand pair, of the deal's exact
  value (its cards fix every bucket and the showdown: one backward pass) minus the Markov value at its
  flop buckets (:func:`sample_deals`, ``deals_per_pair`` boards a pair);
* each flop-start node (a child of a preflop decision in round 1) and each preflop all-in
  showdown then has a value per **preflop bucket pair** (hunl-tiny: the 169 hand classes,
  so the table is per class pair): the round transition table contracted with it, or the
  all-in equity. The table holds ``2 x K x nodes x B x B`` numbers (hunl-tiny: 2 x 4 x 11
  x 169 x 169, 10 MB) and is built on first use (minutes: the exact postflop correction), then cached.

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
import logging
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from blueprint.abstract_game import DECISION, FOLD_NODE, SHOWDOWN, AbstractGame
from pokerbot.files import pokerbot_home
from pokerbot.npz import write_npy
from pokerbot.solver.leaves import check_choices
from pokerbot.solver.tree import PublicTree, SolverError, hand_universe
from realtime.network_leaves import ClassPairLeaves

if TYPE_CHECKING:
    from blueprint.continuation import StrategyArray
    from blueprint.model import Blueprint, PresetCards
    from pokerbot.gamedef import GameDef

#: :func:`tree_arrays`: an abstract game's node arrays, as :func:`_postflop_corrections` takes them.
TreeArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

log = logging.getLogger(__name__)

#: Flops per pair of hands for the preflop-to-flop bucket transitions (812,175 pairs: ~10^8 deals, ~10 s).
FLOPS_PER_PAIR = 128
#: Boards per pair of hands for the table's exact postflop correction (812,175 pairs x 2 seatings; see FlopStartTable):
#: 1 leaves the strongest classes' rows ~35 chips of noise (big pots), 4 about half that (~6 min once on 2 loaded cores).
POSTFLOP_DEALS_PER_PAIR = 4
#: Node kinds as plain ints for the numba kernel.
FOLD = int(FOLD_NODE)
SHOW = int(SHOWDOWN)
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


def flop_transitions(game: GameDef, cards: PresetCards, flops_per_pair: int = 128, seed: int = 0) -> np.ndarray:
    """``T[b0, b1, f0, f1]``: the chance of flop buckets ``(f0, f1)`` given preflop buckets ``(b0, b1)`` for a
    hold'em card preset ``cards``, stratified: every ordered pair of disjoint hands with ``flops_per_pair``
    uniform flops (a class pair of n hand pairs gets n x that many deals, so rare pairs such as AA
    against AA are as well estimated as common ones; uniform deals give them tens)."""
    from abstraction.isomorphism import hand_index_batch
    from blueprint.values import hole_buckets

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


@njit(cache=True)
def _postflop_corrections(kind, player, rnd, nact, first, child, base, spent, strategies, flop_nodes, markov,
                          pre, buckets, result, sums, counts):  # pragma: no cover - numba
    """For each deal (both seatings of its two hands) and each strategy ``s``: player 0's exact expected chips at
    every node ``flop_nodes[i]`` (a flop start or a preflop all-in showdown) given all the deal's cards (a
    backward pass over the postflop tree, each player's buckets fixed by the deal), minus the bucket-Markov
    value ``markov[s, i, f0, f1]`` at the deal's flop buckets; summed in ``sums[s, i, b0, b1]`` per preflop
    bucket pair, deals counted in ``counts``."""
    n_nodes = kind.shape[0]
    value = np.zeros(n_nodes)
    for m in range(result.shape[0]):
        for seating in range(2):
            me, other = (0, 1) if seating == 0 else (1, 0)
            res = result[m] if seating == 0 else -result[m]
            c0 = pre[m, me]
            c1 = pre[m, other]
            counts[c0, c1] += 1.0
            for s in range(strategies.shape[0]):
                for n in range(n_nodes - 1, -1, -1):
                    k = kind[n]
                    if rnd[n] == 0:  # the preflop's own nodes: above every target (all-ins run out to round 3)
                        continue
                    if k == FOLD:
                        value[n] = -spent[n, 0] if player[n] == 0 else spent[n, 1]
                    elif k == SHOW:
                        value[n] = res * min(spent[n, 0], spent[n, 1])
                    else:
                        p = player[n]
                        b = buckets[m, me if p == 0 else other, rnd[n]]
                        na = nact[n]
                        off = base[n] + b * na
                        v = 0.0
                        for a in range(na):
                            v += strategies[s, off + a] * value[child[first[n] + a]]
                        value[n] = v
                f0 = buckets[m, me, 1]
                f1 = buckets[m, other, 1]
                for i in range(flop_nodes.shape[0]):
                    n = flop_nodes[i]
                    sums[s, i, c0, c1] += value[n] - markov[s, i, f0, f1]


def disjoint_pairs(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j``, of every pair of rows of ``hands`` that share no card."""
    i, j = np.triu_indices(len(hands), 1)
    disjoint = ~(hands[i][:, :, None] == hands[j][:, None, :]).any(axis=(1, 2))
    return i[disjoint], j[disjoint]


def sample_deals(game: GameDef, cards: PresetCards, deals_per_pair: int, seed: int, chunk: int = 200_000,
                 ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Deals stratified by hand pair: every unordered pair of disjoint hands with ``deals_per_pair`` uniform
    boards, in chunks of about ``chunk`` deals: ``(cards (M, 9), pre (M, 2), buckets (M, 2, rounds), result (M,))``:
    both hands and the board, the preflop buckets, every round's bucket of both hands and the showdown's sign
    for the first hand."""
    from abstraction.isomorphism import hand_index_batch
    from blueprint.values import hole_buckets
    from pokerbot.evaluator import evaluate_batch

    hands = np.asarray(hand_universe(game), dtype=np.int64)
    pre_all = hole_buckets(cards, hands)
    i, j = (np.repeat(x, deals_per_pair) for x in disjoint_pairs(hands))
    rng = np.random.default_rng(seed)
    deck = np.array(sorted(game.deck()), dtype=np.int64)
    rounds = game.num_rounds
    for lo in range(0, len(i), chunk):
        a, b = hands[i[lo : lo + chunk]], hands[j[lo : lo + chunk]]
        keys = rng.random((len(a), len(deck)))
        held = (deck[None, None, :] == np.concatenate([a, b], axis=1)[:, :, None]).any(axis=1)
        keys[held] = 2.0
        board = deck[np.argpartition(keys, 5, axis=1)[:, :5]]
        buckets = np.empty((len(a), 2, rounds), dtype=np.int64)
        buckets[:, 0, 0] = pre_all[i[lo : lo + chunk]]
        buckets[:, 1, 0] = pre_all[j[lo : lo + chunk]]
        for r in range(1, rounds):
            nb = game.board_cards_through(r)
            for side, hole in enumerate((a, b)):
                rows = np.concatenate([hole, board[:, :nb]], axis=1)
                buckets[:, side, r] = np.asarray(cards.tables[r])[hand_index_batch(r, rows)]
        s0 = evaluate_batch(np.concatenate([a, board], axis=1))
        s1 = evaluate_batch(np.concatenate([b, board], axis=1))
        result = np.sign(s0.astype(np.int64) - s1.astype(np.int64)).astype(np.float64)
        yield np.concatenate([a, b, board], axis=1), buckets[:, :, 0].copy(), buckets, result


def tree_arrays(tree: AbstractGame) -> TreeArrays:
    """The abstract game's node arrays in :func:`_postflop_corrections`'s order and types."""
    kind, player, rnd, nact, first, child, base = (
        np.asarray(a, dtype=np.int64) for a in (tree.kind, tree.player, tree.round, tree.num_actions,
                                                tree.first_child, tree.child, tree.base))
    return kind, player, rnd, nact, first, child, base, np.asarray(tree.spent, dtype=np.float64)


def normalized_rows(tree: AbstractGame, strategies: np.ndarray) -> np.ndarray:
    """``strategies`` (rows over the abstract game's slots) with every information set's row summing to 1
    (uniform where it sums to 0)."""
    norm = np.array(strategies, dtype=np.float64, ndmin=2)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        na = int(tree.num_actions[n])
        lo, width = int(tree.base[n]), int(tree.num_buckets[int(tree.round[n])]) * na
        block = norm[:, lo : lo + width].reshape(len(norm), -1, na)
        total = block.sum(axis=2, keepdims=True)
        norm[:, lo : lo + width] = np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / na).reshape(
            len(norm), width)
    return norm


def _slot_players(tree: AbstractGame) -> np.ndarray:
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
    preflop-to-flop one of a hold'em preset, from ``flops_per_pair`` flops per hand pair (:func:`flop_transitions`); the
    postflop values of a hold'em preset are corrected to exact from ``deals_per_pair`` boards per hand pair (0: the
    bucket-Markov values alone, :meth:`_postflop_correction`); the finished
    table is cached in ``$POKERBOT_HOME/realtime-tables/`` by the blueprint, the continuations and the samples.
    A hold'em preset whose transition tables would not fit (hunl-medium: 200 buckets a round) has every value
    from the deals alone (no Markov part, so no control variate: noisier for the same deals); another card
    abstraction that large raises :class:`~blueprint.values.BlueprintValueError`.
    """

    def __init__(self, blueprint: Blueprint, continuations: Sequence[StrategyArray], samples: int | None = None,
                 table_seed: int = 0, flops_per_pair: int | None = None, cache: bool = True,
                 deals_per_pair: int | None = None) -> None:
        import hashlib

        from blueprint.model import PresetCards, make_cards
        from blueprint.values import DEFAULT_SAMPLES, MAX_TABLE_BYTES, BlueprintTables, transition_bytes

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
        deals_per_pair = POSTFLOP_DEALS_PER_PAIR if deals_per_pair is None else int(deals_per_pair)
        nodes = []
        for n in np.nonzero((tree.kind == DECISION) & (tree.round == 0))[0]:
            first = int(tree.first_child[n])
            for a in range(int(tree.num_actions[n])):
                ch = int(tree.child[first + a])
                if tree.kind[ch] != FOLD_NODE and (tree.kind[ch] != DECISION or tree.round[ch] > 0):
                    nodes.append(ch)
        self.nodes = np.array(sorted(nodes), dtype=np.int64)
        self.index = {int(n): i for i, n in enumerate(self.nodes)}
        digest = hashlib.sha256()
        for c in conts:
            digest.update(np.ascontiguousarray(c).tobytes())
        name = (f"{tree.signature()}-{blueprint.cards_name}-{digest.hexdigest()[:16]}-{samples}-{table_seed}-"
                f"{flops_per_pair}-{deals_per_pair}.npy")
        path = pokerbot_home() / "realtime-tables" / name
        #: Names this table's values (the preflop solution cache of an agent that uses it includes it).
        self.key = hashlib.sha256(name.encode()).hexdigest()[:8]
        b = int(tree.num_buckets[0])
        shape = (2, len(conts), len(self.nodes), b, b)
        if cache and path.is_file():
            self.values = np.load(path)
            if self.values.shape == shape:
                return  # (another shape: a file from other code; rebuilt below)
        cards = make_cards(blueprint.cards_name, blueprint.game)
        seat = _slot_players(tree)
        bp = np.asarray(blueprint.strategy, dtype=np.float64)
        out = np.zeros(shape, dtype=np.float32)
        combos = [(o, k) for o in range(2) for k in range(len(conts)) if k > 0 or o == 0]
        strategies = np.stack([np.where(seat == o, conts[k], bp) for o, k in combos])
        nb1 = int(tree.num_buckets[1])
        # Bucket transitions too large to hold (hunl-medium's 200 buckets a round): every value deal by deal.
        exact_only = (isinstance(cards, PresetCards) and deals_per_pair > 0
                      and transition_bytes([int(x) for x in tree.num_buckets]) > MAX_TABLE_BYTES)
        if exact_only:
            targets = list(range(len(self.nodes)))
            markov = np.zeros((len(combos), len(targets), nb1, nb1))
        else:
            value = BlueprintTables(blueprint, samples=samples, table_seed=table_seed, cache=cache)
            if isinstance(cards, PresetCards):  # the preflop transition stratified by hand pair (see flop_transitions)
                value.T[0] = flop_transitions(blueprint.game, cards, flops_per_pair, table_seed)
            # corrected: the flop-start decision nodes (a preflop all-in showdown's equity is exact already)
            targets = [i for i, n in enumerate(self.nodes) if tree.kind[n] == DECISION and tree.round[n] > 0]
            markov = np.zeros((len(combos), len(targets), nb1, nb1))
            for s, (o, k) in enumerate(combos):
                F, S = value.backward_induction(strategies[s])
                for i, n in enumerate(self.nodes):
                    f, _ = value.child_terms(0, int(n), F, S)
                    out[o, k, i] = np.broadcast_to(f, (b, b))
                for j, i in enumerate(targets):
                    markov[s, j] = F[int(self.nodes[i])]
        if deals_per_pair > 0 and targets and isinstance(cards, PresetCards):
            correction = self._postflop_correction(strategies, markov, self.nodes[targets], cards, deals_per_pair,
                                                   table_seed)
            for s, (o, k) in enumerate(combos):
                out[o, k, targets] += correction[s].astype(np.float32)
        out[1, 0] = out[0, 0]  # the blueprint against itself: the same for both seats
        self.values = out
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_npy(path, out)

    def _postflop_correction(self, strategies: np.ndarray, markov: np.ndarray, flop_nodes: np.ndarray,
                             cards: PresetCards, deals_per_pair: int, seed: int) -> np.ndarray:
        """``E[exact - Markov]`` per strategy, flop-start node and preflop bucket pair, over stratified deals.

        The backward induction treats bucket pairs as a Markov chain: a river bucket pair wins as often
        whatever the preflop hands were, which pulls every hand class toward the mean (see the module).
        Each sampled deal is valued exactly (its cards fix every bucket and the showdown) and the Markov
        value at its flop buckets subtracted (a control variate: the stratified flop transition keeps the
        flop's variance out), so table + correction is the exact expectation up to sampling. With ``markov``
        zero (transitions too large to hold) the result is the exact expectation itself.
        """
        tree = self.tree
        norm = normalized_rows(tree, strategies)
        b = int(tree.num_buckets[0])
        sums = np.zeros((len(norm), len(flop_nodes), b, b))
        counts = np.zeros((b, b))
        log.info("flop-start table: exact postflop values of every pair of hands on %d boards x %d strategies "
                 "(once per blueprint; minutes)", deals_per_pair, len(norm))
        from tqdm import tqdm

        total = len(disjoint_pairs(np.asarray(hand_universe(self.blueprint.game)))[0]) * deals_per_pair
        with tqdm(total=total, unit="deal", unit_scale=True, desc="flop-start table", disable=None) as bar:
            for _, pre, buckets, result in sample_deals(self.blueprint.game, cards, deals_per_pair, seed + 1):
                _postflop_corrections(*tree_arrays(tree), norm, flop_nodes.astype(np.int64), markov, pre, buckets,
                                      result, sums, counts)
                bar.update(len(result))
        return sums / np.where(counts > 0, counts, 1.0)

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
            raise SolverError("a flop-start table needs both players on one hand list (pokerbot.solver.tree.hand_universe)")
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


def preflop_equity(game: GameDef, samples: int = PREFLOP_EQUITY_BOARDS, seed: int = 0, cache: bool = True,
                   ) -> np.ndarray:
    """``E[h0, h1]`` = P(h0 wins) - P(h0 loses) all-in before the flop, over the hands of
    :func:`pokerbot.solver.tree.hand_universe` (0 where they share a card), from ``samples`` uniform boards
    (seeded); cached in ``$POKERBOT_HOME/realtime-tables/``. 4,000 boards: ~5 s once."""
    from pokerbot.solver.payoffs import equity_matrix
    from pokerbot.solver.strength import hand_strengths

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
    equity_matrix(hands, hands, strengths, strengths, ones, ones, out)
    # a board misses both hands with probability C(n-4, need) / C(n, need): the boards each pair was played on
    n = len(deck)
    out /= samples * math.comb(n - 2 * game.num_hole_cards, need) / math.comb(n, need)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_npy(path, out.astype(np.float32))
    return out


__all__ = ["FlopStartTable", "PreflopTableEvaluator", "PREFLOP_EQUITY_BOARDS", "preflop_equity"]
