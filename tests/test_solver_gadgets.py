"""Root gadgets (unsafe, resolve, maxmargin, reach) on no-limit Leduc, exactly.

The safety claim is checked on the whole game: every round-2 subgame is re-solved
with each gadget from a weak blueprint and spliced back, and the exact
exploitability of the result is compared with the blueprint's. Unsafe re-solving
is the negative control: from the same blueprint it makes the strategy more
exploitable, so the comparison can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.gamedef import load_game
from pokerbot.solver import Solver, SolverError, build_tree, pot_fraction_menu
from pokerbot.solver.best_response import best_response_strategy, exploitability
from pokerbot.solver.gadgets import (
    GADGETS,
    SubgameSolver,
    alternative_values,
    gifts,
    margins,
    reach_at,
    splice,
)
from pokerbot.solver.leaf_tables import ExactLeafEvaluator, restrict_strategy
from pokerbot.solver.navigate import node_state, parents
from pokerbot.solver.tree import CHANCE, DECISION


@pytest.fixture(scope="module")
def leduc():
    tree = build_tree(load_game("leduc-nl"), pot_fraction_menu((0.5, 1.0), True, 2))
    weak = Solver(tree, "cfr+")
    weak.run(20)
    medium = Solver(tree, "cfr+")
    medium.run(100)
    return tree, weak.average_strategy(), medium.average_strategy()


def opponent_nodes(tree, round_: int) -> list[int]:
    return [int(n) for n in np.nonzero(tree.kind == DECISION)[0]
            if int(node_state(tree, int(n)).round) == round_][:: 7]


def test_previous_strategy_has_zero_margins_on_an_extracted_subgame(leduc):
    full, bp, _ = leduc
    checked = 0
    for rnd in (0, 1):
        for n in opponent_nodes(full, rnd):
            us = 1 - int(full.player[n])
            mine = reach_at(full, bp, us, n)
            if mine.sum() == 0:
                continue
            alt = alternative_values(full, bp, us, mine, n)
            sub = build_tree(full.game, pot_fraction_menu((0.5, 1.0), True, 2), root=node_state(full, n), hands=full.hands)
            prev = restrict_strategy(full, bp, sub)
            m = margins(sub, prev, us, mine, alt)
            assert np.abs(m).max() < 1e-12, (n, m)
            checked += 1
    assert checked >= 10


def test_margins_are_exact_with_depth_limited_leaves(leduc):
    """A round-1 subgame cut at the end of the round, opponent continuations {blueprint, its best response}:
    the opponent's best response inside it is worth exactly its whole-game best response."""
    full, bp, _ = leduc
    menu = pot_fraction_menu((0.5, 1.0), True, 2)
    brs = [best_response_strategy(full, bp, p) for p in range(2)]
    held = 0.0
    for n in opponent_nodes(full, 0):
        us, opp = 1 - int(full.player[n]), int(full.player[n])
        br = brs[opp]
        dl = build_tree(full.game, menu, root=node_state(full, n), hands=full.hands, depth_limit=0)
        conts = [[bp], [bp]]
        conts[opp] = [bp, br]
        ev = ExactLeafEvaluator(dl, full, (conts[0], conts[1]))
        mine = reach_at(full, bp, us, n)
        alt = alternative_values(full, bp, us, mine, n)
        m = margins(dl, restrict_strategy(full, bp, dl, ev), us, mine, alt, leaves=ev)
        assert np.abs(m).max() < 1e-9
        # without the best response among the continuations the opponent is held below its true value
        ev1 = ExactLeafEvaluator(dl, full, ([bp], [bp]))
        m1 = margins(dl, restrict_strategy(full, bp, dl, ev1), us, mine, alt, leaves=ev1)
        assert m1.min() > -1e-9
        held = max(held, float(m1.max()))
    assert held > 0.1


@pytest.mark.parametrize("gadget", ["resolve", "maxmargin", "reach"])
def test_safe_gadgets_keep_margins_with_depth_limited_leaves(leduc, gadget):
    full, bp, _ = leduc
    n = 0  # the whole first round, cut before the board card
    us, opp = 1 - int(full.player[n]), int(full.player[n])
    br = best_response_strategy(full, bp, opp)
    dl = build_tree(full.game, pot_fraction_menu((0.5, 1.0), True, 2), root=node_state(full, n), hands=full.hands,
                    depth_limit=0)
    conts = [[bp], [bp]]
    conts[opp] = [bp, br]
    ev = ExactLeafEvaluator(dl, full, (conts[0], conts[1]))
    mine = reach_at(full, bp, us, n)
    alt = alternative_values(full, bp, us, mine, n)
    gift = gifts(full, bp, us, n)
    sub = SubgameSolver(dl, us, gadget, mine, alt=alt, gift=gift, algorithm="dcfr", leaves=ev)
    sub.run(600)
    m = sub.margins()
    assert m.min() > -0.02 * np.abs(alt).max()
    if gadget == "maxmargin":
        # the smallest margin is at least that of the previous strategy (0), and here strictly more
        assert m[sub.mask > 0].min() > 0.0


def round2_roots(tree) -> list[int]:
    par = parents(tree)
    return [int(n) for n in np.nonzero(tree.kind == DECISION)[0] if par[n] >= 0 and tree.kind[par[n]] == CHANCE]


def resolve_everywhere(tree, bp, gadget: str, iterations: int) -> np.ndarray:
    """The blueprint with every round-2 subgame re-solved by ``gadget`` for the player who acts second there."""
    out = bp.copy()
    for n in round2_roots(tree):
        us = 1 - int(tree.player[n])
        mine = reach_at(tree, bp, us, n)
        if mine.sum() == 0:
            continue
        sub = SubgameSolver(
            tree, us, gadget, mine, root=n, opp_range=reach_at(tree, bp, 1 - us, n),
            alt=alternative_values(tree, bp, us, mine, n),
            gift=gifts(tree, bp, us, n) if gadget == "reach" else None, warm_start=bp,
        )
        sub.run(iterations)
        out = splice(tree, out, sub.strategy(), n, us)
    return out


def test_safe_gadgets_never_raise_exploitability_unsafe_does(leduc):
    tree, _, bp = leduc
    base = exploitability(tree, bp)
    figures = {g: exploitability(tree, resolve_everywhere(tree, bp, g, 300)) for g in GADGETS}
    tolerance = 0.5  # mbb/g: the subgames are solved to about this
    for g in ("resolve", "maxmargin", "reach"):
        assert figures[g] <= base + tolerance, (g, figures, base)
    # the negative control: Bayes ranges from a blueprint the opponent need not follow
    assert figures["unsafe"] > base + 10.0, (figures, base)


def test_gifts_are_what_the_opponent_gave_up(leduc):
    tree, bp, _ = leduc
    roots = round2_roots(tree)
    seen_positive = False
    for n in roots[:20]:
        us = 1 - int(tree.player[n])
        g = gifts(tree, bp, us, n)
        assert np.all(g >= 0)
        seen_positive |= bool(g.max() > 0)
    assert seen_positive
    assert np.all(gifts(tree, bp, 1, 0) == 0)  # nothing happened before the root


def test_bad_gadget_input_is_refused(leduc):
    tree, bp, _ = leduc
    mine = reach_at(tree, bp, 0, 1)
    with pytest.raises(SolverError, match="unknown gadget"):
        SubgameSolver(tree, 0, "magic", mine, root=1)
    with pytest.raises(SolverError, match="alternative values"):
        SubgameSolver(tree, 0, "resolve", mine, root=1)
    with pytest.raises(SolverError, match="opp_range"):
        SubgameSolver(tree, 0, "unsafe", mine, root=1)
    with pytest.raises(SolverError, match="gifts"):
        SubgameSolver(tree, 0, "reach", mine, root=1, alt=np.zeros(tree.num_hands[1]))
    with pytest.raises(SolverError, match="negative"):
        SubgameSolver(tree, 0, "unsafe", -mine, root=1, opp_range=np.ones(tree.num_hands[1]))
    with pytest.raises(SolverError, match="root"):
        SubgameSolver(tree, 0, "resolve", mine, root=int(np.nonzero(tree.kind == 2)[0][0]), alt=np.zeros(6))


def test_compressed_storage_starts_from_the_warm_start_and_keeps_the_margins(leduc):
    tree, bp, _ = leduc
    n = round2_roots(tree)[0]
    us = 1 - int(tree.player[n])
    mine = reach_at(tree, bp, us, n)
    alt = alternative_values(tree, bp, us, mine, n)
    sub = SubgameSolver(tree, us, "resolve", mine, root=n, opp_range=reach_at(tree, bp, 1 - us, n), alt=alt,
                        warm_start=bp, dtype="compressed")
    assert sub.solver.compressed and sub.solver.regret.dtype == np.int16
    # The first iteration plays the warm start: regret matching of its 16-bit codes.
    assert np.abs(sub.solver.current_strategy() - bp).max() < 1e-4
    sub.run(300)
    assert sub.margins().min() > -0.02 * np.abs(alt).max()
