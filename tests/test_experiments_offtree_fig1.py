"""The Fig. 1 experiment's pieces (translation mixture, subtree matching) and its trend (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.gamedef import load_game
from pokerbot.solver import PotFractionMenu, build_tree, pot_fraction_menu, solve
from pokerbot.solver.best_response import best_response_strategy, counterfactual_values
from pokerbot.solver.gadgets import alternative_values, reach_at
from pokerbot.solver.leaf_tables import ExactLeafEvaluator, leaf_nodes_in_full_tree, restrict_strategy
from pokerbot.solver.tree import DECISION, SolverError
from experiments.offtree_fig1 import (
    RoundMenu,
    fig1,
    match_subtrees,
    resolve_round2,
    round2_tree,
    translation_mixture,
)


def _trees():
    game = load_game("leduc-nl")
    base = RoundMenu((PotFractionMenu((0.5, 2.0), False, 1),))
    extra = RoundMenu(base.rounds, PotFractionMenu((0.5, 1.0, 2.0), False, 1))
    return build_tree(game, base), build_tree(game, extra)


def _child(tree, node, label):
    return int(tree.first_child[node]) + tree.node_labels(node).index(label)


def test_translation_mixture_is_the_reach_weighted_mix_of_the_neighbours() -> None:
    src, dst = _trees()
    mid = next(lab for lab in dst.node_labels(0) if lab not in src.node_labels(0))
    small, big = [lab for lab in src.node_labels(0) if lab.startswith("r")]
    a, b, d = _child(src, 0, small), _child(src, 0, big), _child(dst, 0, mid)
    strat = np.random.default_rng(1).random(src.num_slots)
    pairs = match_subtrees(dst, d, src, a)
    assert len(pairs) > 3 and len(pairs) == len(match_subtrees(dst, d, src, b))
    for w, sources in ((1.0, [(a, 1.0), (b, 0.0)]), (0.0, [(a, 0.0), (b, 1.0)])):
        out = np.zeros(dst.num_slots)
        translation_mixture(src, strat, sources, dst, d, out, player=1)
        for x, y in match_subtrees(dst, d, src, a if w else b):
            if dst.kind[x] == DECISION and dst.player[x] == 1:
                n = int(dst.num_children[x]) * dst.num_hands[1]
                np.testing.assert_allclose(out[dst.slot[x] : dst.slot[x] + n], strat[src.slot[y] : src.slot[y] + n])
    # Mixed: where player 1 first acts below the bet its own reach is 1 under both, so the mix is linear.
    out = np.zeros(dst.num_slots)
    translation_mixture(src, strat, [(a, 0.3), (b, 0.7)], dst, d, out, player=1)
    first = [(x, ya, yb) for (x, ya), (_, yb) in zip(pairs, match_subtrees(dst, d, src, b))
             if dst.kind[x] == DECISION and dst.player[x] == 1][0]
    x, ya, yb = first
    n = int(dst.num_children[x]) * dst.num_hands[1]
    expect = 0.3 * strat[src.slot[ya] : src.slot[ya] + n] + 0.7 * strat[src.slot[yb] : src.slot[yb] + n]
    np.testing.assert_allclose(out[dst.slot[x] : dst.slot[x] + n], expect)


def test_safe_round2_resolving_concedes_no_more_than_the_leaf_values() -> None:
    """Round 2 below a depth-limited leaf, re-solved with the leaf's continuation values as the
    opponent's alternatives (no-limit Leduc, pot-size bets).

    The opponent's leaf values are counterfactual values at the root of the round-2 tree
    (exactly what the gadget compares with); the safe gadgets keep every opponent hand's
    best-response value at or below the best of its continuations; the negative control,
    unsafe re-solving from a wrong guess of the opponent's range, concedes more.
    """
    game = load_game("leduc-nl")
    menu = pot_fraction_menu((1.0,), False, 1)
    full, dl = build_tree(game, menu), build_tree(game, menu, depth_limit=0)
    bp = solve(game, "dcfr", 200, menu).strategy  # a rough blueprint: its round 2 leaves room to improve
    br = best_response_strategy(full, bp, 1)
    ev = ExactLeafEvaluator(dl, full, ([bp], [bp, br]))
    li = int(dl.continuation_leaves[0])  # "cc/": both checked
    chance = int(leaf_nodes_in_full_tree(dl, full)[0])
    ours, theirs = reach_at(full, bp, 0, chance), reach_at(full, bp, 1, chance)
    opp_values = ev.values(1, ours[None, None, :] * np.ones((len(dl.continuation_leaves), 1, 1)))[0]
    t2 = round2_tree(game, menu, dl.leaf_states[li])
    assert t2.hands[1].tolist() == dl.hands[1].tolist()
    for k, cont in enumerate((bp, br)):
        strat = restrict_strategy(full, bp, t2)
        both = restrict_strategy(full, cont, t2)
        for n in t2.decision_nodes[1]:  # player 1's part from the continuation, player 0's from the blueprint
            o, size = int(t2.slot[n]), int(t2.num_children[n]) * t2.num_hands[1]
            strat[o : o + size] = both[o : o + size]
        cfv = counterfactual_values(t2, strat, 1, ranges=(ours, np.ones(t2.num_hands[1])))
        np.testing.assert_allclose(cfv, opp_values[k], atol=1e-9)
    alt = opp_values.max(axis=0)
    excess = {}
    for gadget, guess in (("maxmargin", theirs), ("resolve", theirs), ("unsafe", np.eye(t2.num_hands[1])[0])):
        s2 = resolve_round2(t2, gadget, ours, guess, opp_values, 600)
        excess[gadget] = float(np.max(alternative_values(t2, s2, 0, ours) - alt))
    scale = np.abs(alt).max()  # measured excess: maxmargin -0.017, resolve -0.0001, unsafe +1.67 (scale 2.85)
    assert excess["maxmargin"] < 0.01 * scale
    assert excess["resolve"] < 0.01 * scale
    assert excess["unsafe"] > 0.1 * scale
    with pytest.raises(SolverError, match="round2"):
        fig1((1,), round2=("translation",), log=lambda _: None)


@pytest.mark.slow
def test_fig1_more_values_lower_the_exploitability_of_the_answer() -> None:
    """Modicum Fig. 1 on nlfh-small, round 2 re-solved safely (about 10 minutes on the loaded machine).

    Measured (docs/depth-limited.md): translation 13.6, depth-limited K = 1 3.9, K = 2 1.1,
    K = 4 1.5, K = 8 1.3, K = 16 1.3, the abstraction with 0.75 0.2 mbb/g. Asserted: the
    paper's "K >= 2 is much better than translation and than K = 1, and close to having 0.75
    in the abstraction". Not asserted (it does not reproduce here): K = 1 worse than translation.
    """
    result = fig1((1, 2, 4), log=lambda _: None)
    rows = dict(result.rows)
    translation = rows["(a) pseudo-harmonic translation"]
    k1, k2, k4 = (rows[f"(b) depth-limited, K = {k}, round 2 re-solved (safe, maxmargin)"] for k in (1, 2, 4))
    ideal = rows["(c) abstraction with 0.75"]
    for many in (k2, k4):
        assert many < 0.5 * translation
        assert many < 0.6 * k1
        assert many - ideal < 0.2 * (translation - ideal)
    assert ideal < min(v for name, v in rows.items() if name != "(c) abstraction with 0.75")
