"""Network leaf values: a trained :class:`blueprint.leafnet.LeafNet` as a :class:`LeafEvaluator`.

The network predicts, per continuation leaf and pair of card classes ``(a, b)``, player 0's
average payoff ``V[k0, k1]`` over the hand pairs of the two classes, as a fraction of the
pot (see :mod:`blueprint.leafnet`). At construction every leaf's feature rows go through
the network in one batch (``L x C x C`` rows; an HUNL flop subgame with 29 leaves and 12
flop buckets: 4,176 rows), giving ``W[l, k0, k1, a, b] = V * pot_l`` in chips. Each CFR pass
is then linear in the opponent's reach::

    cfv[l, k, h] = sum_k' sum_b W[l, k, k', c(h), b] * R[l, k', h, b]

with ``R[l, k', h, b]`` the opponent's reach (option ``k'``) over the hands of class ``b``
that share no card with ``h`` (exact card removal by inclusion-exclusion over the cards of
``h``). With one class per hand (small games) this is exactly the pair-table form of
:class:`pokerbot.solver.leaf_tables.PairTableEvaluator`; with card buckets the value
inside a class pair is its average, the same approximation as the rollout evaluator's
bucket classes. Player 1's values are ``-W`` transposed (zero-sum).

Selecting it in the real-time agent::

    ev = make_leaf_evaluator("network", tree, blueprint=bp, continuations=(conts0, conts1),
                             options=([0], [0, 1, 2, 3]), model="hunl-tiny-bias-net")
    ev = make_leaf_evaluator("rollout", tree, blueprint=bp, continuations=(conts0, conts1), rollouts=3)

A model built for another blueprint, continuation set, card classes or feature spec is
refused with :class:`blueprint.leafnet.LeafNetError`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from blueprint.continuation import StrategyArray
from blueprint.leafnet import (
    FEATURE_NAME,
    FEATURE_VERSION,
    BoardFeatures,
    FeatureSpec,
    LeafNet,
    LeafNetError,
    board_features,
    pair_rows,
    public_features,
    strategy_identity,
)
from pokerbot.solver.leaves import LeafEvaluator, check_choices
from pokerbot.solver.tree import PublicTree, SolverError

# --- card classes ----------------------------------------------------------------------------


def class_map(tree: PublicTree, board_id: int, classes: str) -> tuple[np.ndarray, int]:
    """Each hand's class on a board (``-1``: blocked by the board) and the number of classes.

    ``classes`` is ``"hand"`` (one class per hand: exact, small games) or
    ``"buckets:<preset>"`` (the hold'em card abstraction's bucket in the board's round).
    Both players must have the same hand list (true of every tree built from a state).
    """
    if not np.array_equal(tree.hands[0], tree.hands[1]):
        raise SolverError("network leaves need the same hand list for both players")
    hands = tree.hands[0]
    valid = tree.valid[0][board_id] > 0
    if classes == "hand":
        cls = np.where(valid, np.arange(len(hands)), -1).astype(np.int64)
        return cls, len(hands)
    if classes.startswith("buckets:"):
        from abstraction.buckets import load_abstraction
        from abstraction.isomorphism import hand_index_batch

        ab = load_abstraction(preset=classes.split(":", 1)[1], build_if_missing=False)
        board = [c for g in tree.boards[board_id] for c in g]
        game = tree.game
        rnd = next(r for r in range(game.num_rounds) if game.board_cards_through(r) == len(board))
        cards = np.concatenate([hands.astype(np.int64), np.tile(np.array(board, dtype=np.int64), (len(hands), 1))],
                               axis=1)
        cls = np.full(len(hands), -1, dtype=np.int64)
        cls[valid] = ab.tables[rnd][hand_index_batch(rnd, cards[valid])]
        return cls, int(ab.num_buckets(rnd))
    raise SolverError(f"unknown card classes {classes!r} (use 'hand' or 'buckets:<preset>')")


def leaf_rows(tree: PublicTree, classes: str, spec: FeatureSpec) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Feature rows of every continuation leaf ``(L, C * C, F)``, each leaf's class map, and ``C``."""
    cache: dict[int, tuple[np.ndarray, int, BoardFeatures]] = {}
    rows = []
    maps = []
    ncls = 0
    for li in tree.continuation_leaves:
        b = int(tree.board[tree.leaf_nodes[li]])
        if b not in cache:
            cls, ncls = class_map(tree, b, classes)
            board = [c for g in tree.boards[b] for c in g]
            cache[b] = (cls, ncls, board_features(tree.game, board, tree.hands[0], cls, ncls, spec))
        cls, ncls, bf = cache[b]
        rows.append(pair_rows(public_features(tree.leaf_states[int(li)]), bf))
        maps.append(cls)
    if not rows:
        return np.zeros((0, 0, spec.num_features), dtype=np.float32), maps, 0
    return np.stack(rows), maps, ncls


def same_hand_index(tree: PublicTree, player: int = 0) -> np.ndarray:
    """For each of ``player``'s hands, the index of the same cards among the other player's hands (-1: none)."""
    where = {tuple(sorted(int(c) for c in h)): i for i, h in enumerate(tree.hands[1 - player])}
    return np.array([where.get(tuple(sorted(int(c) for c in h)), -1) for h in tree.hands[player]], dtype=np.int64)


# --- kernels ------------------------------------------------------------------------------------


@njit(cache=True)
def class_reach(reach, hands_o, cls_o, hands_p, cls_p, same, ncls, out):
    """``out[k, h, b]``: reach of the other player's class-``b`` hands sharing no card with ``h`` (option ``k``).

    ``reach (K, H_o)``; ``same[h]`` is the other player's index of ``h``'s own cards (-1: none).
    Inclusion-exclusion over ``h``'s cards: exact for one- and two-card hands.
    """
    nk = reach.shape[0]
    k = hands_p.shape[1]
    ncards = 0
    for i in range(hands_o.shape[0]):
        for x in range(hands_o.shape[1]):
            if hands_o[i, x] + 1 > ncards:
                ncards = hands_o[i, x] + 1
    for i in range(hands_p.shape[0]):
        for x in range(k):
            if hands_p[i, x] + 1 > ncards:
                ncards = hands_p[i, x] + 1
    tot = np.zeros(ncls)
    card = np.zeros((ncls, ncards))
    for kk in range(nk):
        tot[:] = 0.0
        card[:, :] = 0.0
        for j in range(hands_o.shape[0]):
            b = cls_o[j]
            if b < 0:
                continue
            r = reach[kk, j]
            tot[b] += r
            for x in range(hands_o.shape[1]):
                card[b, hands_o[j, x]] += r
        for h in range(hands_p.shape[0]):
            if cls_p[h] < 0:
                continue
            for b in range(ncls):
                v = tot[b]
                for x in range(k):
                    v -= card[b, hands_p[h, x]]
                if k == 2:
                    s = same[h]
                    if s >= 0 and cls_o[s] == b:
                        v += reach[kk, s]
                out[kk, h, b] = v


@njit(cache=True)
def _apply(W, R, cls_p, out):
    """out[k, h] = sum_k' sum_b W[k, k', c(h), b] * R[k', h, b] for one leaf."""
    nk, nko = W.shape[0], W.shape[1]
    nb = R.shape[2]
    for h in range(R.shape[1]):
        a = cls_p[h]
        if a < 0:
            continue
        for k in range(nk):
            s = 0.0
            for ko in range(nko):
                for b in range(nb):
                    s += W[k, ko, a, b] * R[ko, h, b]
            out[k, h] = s


# --- the evaluator -------------------------------------------------------------------------------


class ClassPairLeaves(LeafEvaluator):
    """Leaves valued by tables of player 0's chips between card classes, ``W[l, k0, k1, c0, c1]`` (options ``k0``,
    ``k1``), with each hand's class per leaf ``maps[l, h]`` (both players share one hand list): a hand's value is
    its class row against the other player's reach binned by class, hands sharing a card left out
    (:func:`class_reach`, exact card removal). Subclasses call :meth:`set_tables`; :meth:`values` is shared
    (the network's leaves and the preflop table's, :mod:`realtime.preflop_values`)."""

    def set_tables(self, tree: PublicTree, w: np.ndarray, maps: Sequence[np.ndarray] | np.ndarray, ncls: int) -> None:
        self.tree = tree
        self._W = (np.ascontiguousarray(w), np.ascontiguousarray(-w.transpose(0, 2, 1, 4, 3)))
        self._maps = maps
        self._ncls = ncls
        self._same = (same_hand_index(tree, 0), same_hand_index(tree, 1))
        self._hands = (tree.hands[0].astype(np.int64), tree.hands[1].astype(np.int64))

    def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
        o = 1 - player
        nl = opp_reach.shape[0]
        out = np.zeros((nl, self.num_choices[player], self.tree.num_hands[player]))
        W = self._W[player]
        for i in range(nl):
            cls = self._maps[i]
            R = np.zeros((opp_reach.shape[1], self.tree.num_hands[player], self._ncls))
            class_reach(np.ascontiguousarray(opp_reach[i], dtype=np.float64), self._hands[o], cls, self._hands[player],
                        cls, self._same[player], self._ncls, R)
            _apply(W[i], R, cls, out[i])
        return out


class NetworkLeafEvaluator(ClassPairLeaves):
    """Leaf values from a :class:`LeafNet` (see the module docstring).

    ``classes`` / ``blueprint`` / ``continuations`` describe what the caller's subgame uses
    (card classes kind, :func:`blueprint.leafnet.strategy_identity` dicts, e.g. from
    :func:`blueprint_identity`); the model must have been built for those (the continuation
    set may be the first strategies of the model's), else :class:`LeafNetError`. ``options[p]`` picks player ``p``'s
    continuation options among the model's (default: all; Modicum solving for player 0:
    ``([0], [0, 1, 2, 3])``, option 0 being the blueprint).
    """

    def __init__(
        self,
        tree: PublicTree,
        net: LeafNet,
        *,
        classes: str,
        blueprint: dict[str, Any],
        continuations: dict[str, Any],
        options: tuple[Sequence[int], Sequence[int]] | None = None,
    ) -> None:
        k0, k1 = net.choices
        opts = options if options is not None else (range(k0), range(k1))
        sel = [np.array(list(o), dtype=np.int64) for o in opts]
        for p, (s, k) in enumerate(zip(sel, (k0, k1))):
            if len(s) == 0 or s.min() < 0 or s.max() >= k:
                raise LeafNetError(f"options {list(s)} of player {p} are not among the model's {k} continuations")
        # The spec's parameters (bins, run-outs) are the model's; its name and version must be this code's features.
        net.check_built_for(spec=replace(net.spec, name=FEATURE_NAME, version=FEATURE_VERSION), choices=None,
                            classes=classes, blueprint=blueprint, continuations=continuations)
        if net.meta.get("game") not in (None, tree.game.name):
            raise LeafNetError(f"the leaf-value model was built for {net.meta['game']!r}, the subgame is {tree.game.name!r}")
        rounds = sorted({tree.leaf_states[int(li)].round - 1 for li in tree.continuation_leaves})
        if rounds and rounds != [net.leaf_round]:
            raise LeafNetError(f"the leaf-value model values leaves at the end of round {net.leaf_round}, this subgame's "
                               f"leaves are at the end of round {rounds[0]}")
        self.num_choices = check_choices((len(sel[0]), len(sel[1])))
        x, maps, ncls = leaf_rows(tree, classes, net.spec)
        nl = x.shape[0]
        self.num_rows = nl * ncls * ncls
        pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
        if nl:
            v = net.predict(x.reshape(-1, x.shape[-1])).reshape(nl, ncls, ncls, k0, k1)
            w = v.transpose(0, 3, 4, 1, 2) * pots[:, None, None, None, None]  # (L, K0, K1, C, C) chips
            w = w[:, sel[0]][:, :, sel[1]]
        else:
            w = np.zeros((0, len(sel[0]), len(sel[1]), 0, 0))
        self.set_tables(tree, w, maps, ncls)


# --- what a model is built for, and the factory ------------------------------------------------------


def blueprint_identity(blueprint: Any) -> dict[str, Any]:
    """The :func:`strategy_identity` of a :class:`blueprint.model.Blueprint` (tree signature + probed strategy)."""
    return strategy_identity(blueprint.tree.signature(), [blueprint.strategy])


def holdem_classes(blueprint: Any) -> str:
    return f"buckets:{blueprint.cards_name}"


def leafnet_dir(name: str) -> Path:
    """``$POKERBOT_HOME/leafnet/<name>``: a model's data and training run."""
    from pokerbot.files import plain_name, pokerbot_home

    return pokerbot_home() / "leafnet" / plain_name(name, "leaf-net name")


def make_leaf_evaluator(
    kind: str,
    tree: PublicTree,
    *,
    blueprint: Any,
    continuations: tuple[Sequence[StrategyArray], Sequence[StrategyArray]],
    continuation_set: Sequence[StrategyArray] | None = None,
    options: tuple[Sequence[int], Sequence[int]] | None = None,
    model: str | os.PathLike[str] | LeafNet | None = None,
    rollouts: int = 3,
    seed: int = 0,
    shared_runouts: bool = False,
    max_bytes: float | None = None,
    budget_bytes: float | None = None,
) -> LeafEvaluator:
    """A leaf evaluator for a hold'em subgame, as the real-time agent's config names it.

    ``kind="rollout"``: :class:`realtime.leaf_values.RolloutLeafEvaluator` over
    ``continuations`` (per player, strategy arrays of the blueprint). ``kind="network"``:
    :class:`NetworkLeafEvaluator` from ``model`` (a directory, a name under
    ``$POKERBOT_HOME/leafnet/``, or a loaded :class:`LeafNet`), whose continuation set
    (``continuation_set``, default the longer of ``continuations``; it may be the first
    strategies of the model's set, and may have been through the set's one-byte storage) and
    blueprint must be the ones it was trained for; ``options`` picks each player's options
    among the model's (default: the first ``len(continuations[p])``, so a player given
    ``[blueprint]`` plays option 0, the blueprint). ``max_bytes`` caps the rollout evaluator's leaf values, and
    ``budget_bytes`` (a round's ``leaf_mb``) too, quietly.
    """
    if kind == "rollout":
        from realtime.leaf_values import RolloutLeafEvaluator

        return RolloutLeafEvaluator(tree, blueprint, continuations, rollouts=rollouts, seed=seed, shared=shared_runouts,
                                    max_bytes=max_bytes, budget_bytes=budget_bytes)
    if kind != "network":
        raise SolverError(f"unknown leaf evaluator {kind!r} (use 'rollout' or 'network')")
    if model is None:
        raise SolverError("a network leaf evaluator needs a model (directory or name)")
    net = model if isinstance(model, LeafNet) else load_model(model)
    cs = continuation_set
    if cs is None:
        cs = continuations[1] if len(continuations[1]) >= len(continuations[0]) else continuations[0]
    if options is None:
        # Option i of the model is continuation i of its set; a player with one strategy plays the blueprint (option 0).
        options = (range(len(continuations[0])), range(len(continuations[1])))
    return NetworkLeafEvaluator(tree, net, classes=holdem_classes(blueprint), blueprint=blueprint_identity(blueprint),
                                continuations=strategy_identity(blueprint.tree.signature(), cs), options=options)


def load_model(model: str | os.PathLike[str]) -> LeafNet:
    """A model directory, or the model of a run named under ``$POKERBOT_HOME/leafnet/``."""
    path = Path(model)
    from pokerbot.files import is_plain_name

    named = not path.is_dir() and is_plain_name(model)  # the name of a run
    return LeafNet.load(leafnet_dir(str(model)) / "model" if named else path)


def agent_leaf_model(config: Any, blueprint: Any, continuations: Sequence[StrategyArray]) -> LeafNet:
    """The leaf-value model of a real-time agent's config (``[leaves] model``), checked before any hand is played.

    ``config`` is a :class:`realtime.config.RealtimeConfig` whose ``network_rounds()`` are not
    empty, ``continuations`` the opponent's continuation strategies the agent uses. Raises
    :class:`LeafNetError` naming what differs when the model was built for another game,
    blueprint, continuation set (other strategies, order, penalties, or more of them), card
    classes or feature spec, or for leaves at the end of another round than a network round's
    depth limit (``round + depth_limit``).
    """
    net = load_model(config.leaves.model)
    where = f"leaf-value model {config.leaves.model!r}"
    if net.meta.get("game") not in (None, blueprint.game.name):
        raise LeafNetError(f"{where} was built for {net.meta['game']!r}, the blueprint plays {blueprint.game.name!r}")
    try:
        net.check_built_for(spec=replace(net.spec, name=FEATURE_NAME, version=FEATURE_VERSION), choices=None,
                            classes=holdem_classes(blueprint), blueprint=blueprint_identity(blueprint),
                            continuations=strategy_identity(blueprint.tree.signature(), list(continuations)))
    except LeafNetError as exc:
        raise LeafNetError(f"{where}: {exc}") from None
    for r in config.network_rounds():
        end = r + config.round(r).depth_limit
        if end != net.leaf_round:
            raise LeafNetError(f"{where} values leaves at the end of round {net.leaf_round}; round {r} with depth_limit "
                               f"{config.round(r).depth_limit} has its leaves at the end of round {end} (set "
                               f"leaves = \"rollout\" in [round.{r}])")
    return net
