"""How right the flop-start table is: its values against a Monte Carlo of the same strategies with real cards.

``python -m experiments.preflop_check [--hands N] [--classes 3,1,...]`` prints, for some small-blind hand classes
of the hunl-tiny blueprint, the value in chips of each opening action (limp, open to 300) when the blueprint
plays both seats afterwards, three ways:

* from the preflop subgame's table leaves with the bucket-Markov values alone (``deals_per_pair=0``);
* from the corrected table (:class:`realtime.preflop_values.FlopStartTable`, the default);
* by Monte Carlo: deal a hand of the class, the other hand and a board; walk the blueprint's abstract tree
  from the action, each player choosing by the bucket of its real cards on each street; score the real
  showdown. It shares nothing with the table but the blueprint and its card abstraction.

docs/realtime.md has the figures (20,000 hands a class and action, about 10 minutes on one core).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from blueprint.abstract_game import DECISION, FOLD_NODE
from blueprint.model import Blueprint, make_cards
from pokerbot.actions import action_text
from pokerbot.solver.tree import hand_universe
from pokerbot.state import State

if TYPE_CHECKING:
    from realtime.preflop_values import FlopStartTable

#: Small-blind classes of hunl-tiny's preflop buckets: 42o, 32o, 72s, T2o, 62o (mostly folded by the blueprint),
#: Q2o and A8s (mostly played).
DEFAULT_CLASSES = (3, 1, 101, 36, 10, 55, 163)


def table_action_values(blueprint: Blueprint, table: FlopStartTable, classes: Sequence[int]) -> dict[str, np.ndarray]:
    """The small blind's chips for each opening action label and class, from ``table``'s leaves (the blueprint
    playing the rest of the preflop)."""
    from blueprint.values import hole_buckets
    from pokerbot.solver.best_response import counterfactual_values, uniform_strategy
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig
    from realtime.preflop_values import PreflopTableEvaluator
    from realtime.subgame import blueprint_on_tree

    game = blueprint.game
    # the agent's own preflop subgame at the root (its menu, its preflop all-in equities), valued by `table`
    round0 = {"mode": "solve", "depth_limit": 0, "leaves": "table", "iterations": 1, "min_iterations": 1,
              "time_budget": 1e9}
    cfg = RealtimeConfig.from_dict({"blueprint": "-", "name": "preflop-check", "action_time_limit": 1e9,
                                    "leaves": {"k": table.num_choices}, "round": {"0": round0}})
    resolver = Resolver(cfg, blueprint)
    resolver.leaf_source = lambda tree, us, state: PreflopTableEvaluator(tree, table, us)
    root = State.initial(game)
    sb = root.current_player
    assert sb is not None  # the hand's first player to act
    solution = resolver.decide(root).solution
    assert solution is not None
    tree, leaves, policy = solution.tree, solution.leaves, resolver.policy
    uni = hand_universe(game)
    strategy = uniform_strategy(tree, leaves)
    for p in (0, 1):
        blueprint_on_tree(tree, policy, p, strategy)
    cls = hole_buckets(make_cards(blueprint.cards_name, game), uni.astype(np.int64))
    labels = tree.node_labels(0)
    nh, lo = tree.num_hands[sb], int(tree.slot[0])
    others = len(uni) - 1 - 2 * (len(game.deck()) - 2)  # hands sharing no card with a given one
    out = {}
    for i, label in enumerate(labels):
        pure = strategy.copy()
        block = np.zeros((len(labels), nh))
        block[i] = 1.0
        pure[lo : lo + len(labels) * nh] = block.ravel()
        cv = counterfactual_values(tree, pure, sb, leaves=leaves) / others
        out[label] = np.array([cv[cls == c].mean() for c in classes])
    return out


def monte_carlo_action_values(blueprint: Blueprint, classes: Sequence[int], labels: Sequence[str], hands: int,
                              seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(mean, 95% half-width) of the small blind's chips per class after each opening action ``labels``,
    the blueprint playing both seats on its abstract tree with real cards (see the module)."""
    from blueprint.values import bucket_rows, hole_buckets
    from pokerbot.evaluator import evaluate_batch

    game, tree = blueprint.game, blueprint.tree
    cards = make_cards(blueprint.cards_name, game)
    uni = hand_universe(game)
    cls = hole_buckets(cards, uni.astype(np.int64))
    sb = State.initial(game).current_player
    assert sb is not None  # the hand's first player to act
    strategy = np.asarray(blueprint.strategy, dtype=np.float64)
    kids = {action_text(a, game.nolimit): int(c) for a, c in zip(tree.actions(0), tree.children(0))}
    deck = np.array(sorted(game.deck()), dtype=np.int64)
    rng = np.random.default_rng(seed)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for label in labels:
        means, halves = [], []
        for c in classes:
            mine = uni[cls == c]
            chips = np.empty(hands)
            for i in range(hands):
                hole = mine[rng.integers(len(mine))].astype(np.int64)
                rest = rng.choice(deck[~np.isin(deck, hole)], 7, replace=False)
                other, board = rest[:2], rest[2:]
                buckets = np.zeros((2, 4), dtype=np.int64)
                buckets[sb, 0] = c
                buckets[1 - sb, 0] = hole_buckets(cards, other[None])[0]
                for r, nb in ((1, 3), (2, 4), (3, 5)):
                    buckets[sb, r] = bucket_rows(cards, r, hole, board[None, :nb])[0]
                    buckets[1 - sb, r] = bucket_rows(cards, r, other, board[None, :nb])[0]
                ranks = evaluate_batch(np.stack([np.concatenate([hole, board]), np.concatenate([other, board])]))
                sign = float(np.sign(int(ranks[0]) - int(ranks[1])))
                node = kids[label]
                while tree.kind[node] == DECISION:
                    p, na = int(tree.player[node]), int(tree.num_actions[node])
                    at = int(tree.base[node]) + int(buckets[p, int(tree.round[node])]) * na
                    row = strategy[at : at + na]
                    row = row / row.sum() if row.sum() > 0 else np.full(na, 1.0 / na)
                    node = int(tree.child[int(tree.first_child[node]) + rng.choice(na, p=row)])
                if tree.kind[node] == FOLD_NODE:
                    loser = int(tree.player[node])
                    chips[i] = -tree.spent[node, sb] if loser == sb else tree.spent[node, 1 - sb]
                else:
                    chips[i] = sign * min(tree.spent[node, 0], tree.spent[node, 1])
            means.append(chips.mean())
            halves.append(1.96 * chips.std(ddof=1) / np.sqrt(hands))
        out[label] = (np.array(means), np.array(halves))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    from blueprint.agent import resolve_path
    from blueprint.continuation import bias_strategies
    from pokerbot.cards import format_cards
    from realtime.preflop_values import FlopStartTable

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blueprint", default="hunl-tiny")
    ap.add_argument("--hands", type=int, default=20_000, help="Monte Carlo hands per class and action")
    ap.add_argument("--classes", default=",".join(map(str, DEFAULT_CLASSES)))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    bp = Blueprint.load(resolve_path(args.blueprint))
    classes = [int(c) for c in args.classes.split(",")]
    blueprint_only = bias_strategies(bp.tree, bp.strategy, 10.0, 1)  # K = 1: the blueprint after the flop too
    markov = table_action_values(bp, FlopStartTable(bp, blueprint_only, deals_per_pair=0), classes)
    exact = table_action_values(bp, FlopStartTable(bp, blueprint_only), classes)
    labels = [label for label in ("c", "r300") if label in markov]
    mc = monte_carlo_action_values(bp, classes, labels, args.hands, args.seed)
    from blueprint.values import hole_buckets

    uni = hand_universe(bp.game)
    cls = hole_buckets(make_cards(bp.cards_name, bp.game), uni.astype(np.int64))
    print(f"small blind's chips after each opening action, the blueprint playing on ({args.hands:,} Monte Carlo hands)")
    print("class  hand  action  Markov table  corrected table  Monte Carlo")
    for label in labels:
        for j, c in enumerate(classes):
            print(f"{c:5d}  {format_cards(uni[cls == c][0].tolist()):4s}  {label:6s}  {markov[label][j]:+12.1f}  "
                  f"{exact[label][j]:+15.1f}  {mc[label][0][j]:+7.1f} ± {mc[label][1][j]:.1f}")


if __name__ == "__main__":
    main()
