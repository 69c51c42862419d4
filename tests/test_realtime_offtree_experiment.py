"""The Fig. 1 experiment's pieces (translation mixture, subtree matching) and its trend (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.gamedef import load_game
from pokerbot.solver import PotFractionMenu, build_tree
from pokerbot.solver.tree import DECISION
from realtime.offtree_experiment import RoundMenu, fig1, match_subtrees, translation_mixture


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


@pytest.mark.slow
def test_fig1_more_values_lower_the_exploitability_of_the_answer() -> None:
    """Modicum Fig. 1 on nlfh-small (about 15 minutes on the loaded 2-core machine).

    Measured (docs/depth-limited.md): translation 13.6, depth-limited with the blueprint beyond
    K=1 31.0 ... K=16 34.1, with round 2 re-solved K=1 157.0, K=2 119.7, K=4 76.5, K=8 63.6,
    K=16 59.8, the abstraction with 0.75 0.2 mbb/g. The paper's "K >= 2 beats translation" does
    NOT reproduce here; what is asserted is what did: more values make the re-solved answer
    much less exploitable, and the abstraction containing 0.75 is best.
    """
    result = fig1((1, 16), resolve_round2=True, log=lambda _: None)
    rows = dict(result.rows)
    k1 = rows["(b') depth-limited, K = 1, round 2 re-solved (unsafe)"]
    k16 = rows["(b') depth-limited, K = 16, round 2 re-solved (unsafe)"]
    ideal = rows["(c) abstraction with 0.75"]
    assert k16 < 0.6 * k1
    assert ideal < min(v for name, v in rows.items() if name != "(c) abstraction with 0.75")
