"""GT-CFR with an exact value function at the leaves (Schmid et al., Student of Games, "Search via
Growing-Tree CFR" and its regret bound, Theorems 1 and 3, with exact leaf values)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.solver import exploitability
from realtime.sog.search import GTCFR, LeafValues, PublicGame, SoGError
from realtime.sog.values import ExactValue

KUHN_VALUE = -1.0 / 18.0
LEDUC_VALUE = -0.0856


class ZeroValue:
    """A wrong value function (every leaf worth 0): the negative control."""

    def evaluate(self, game, nodes, r0, r1):  # type: ignore[no-untyped-def]
        return LeafValues(np.zeros_like(r0), np.zeros_like(r1))


@pytest.fixture(scope="module")
def kuhn() -> PublicGame:
    return PublicGame.load("kuhn")


@pytest.fixture(scope="module")
def leduc() -> PublicGame:
    return PublicGame.load("leduc")


def test_exact_value_function_solves_the_whole_game(leduc: PublicGame) -> None:
    out = ExactValue(leduc, 300).evaluate(leduc, np.array([0]), *[r[None] for r in leduc.initial_ranges()])
    # 30 deals of distinct cards; the sum of player 0's counterfactual values is 30 x the game value.
    assert out.v0.sum() / 30 == pytest.approx(LEDUC_VALUE, abs=0.002)
    assert (out.v0.sum() + out.v1.sum()) == pytest.approx(0.0, abs=1e-9)


def test_leaves_with_exact_values_give_the_game_value_without_growing(leduc: PublicGame) -> None:
    # c = 0.004: 250 CFR updates and one expansion: the tree stays at depth <= 2.
    search = GTCFR(leduc, 0, leduc.initial_ranges(), ExactValue(leduc, 60), seed=0).run(1, 0.004)
    assert search.stats.cfr_iterations == 250 and search.stats.simulations == 1
    assert search.tree_size < 20 and search.leaves.size > 0
    assert search.root_value() == pytest.approx(LEDUC_VALUE, abs=0.005)
    # Negative control: the same search with wrong leaf values misses the value.
    wrong = GTCFR(leduc, 0, leduc.initial_ranges(), ZeroValue(), seed=0).run(1, 0.004)
    assert abs(wrong.root_value() - LEDUC_VALUE) > 0.05


def test_expansion_counts_follow_s_and_c(kuhn: PublicGame) -> None:
    s = GTCFR(kuhn, 0, kuhn.initial_ranges(), ExactValue(kuhn), seed=1).run(10, 0.1)
    assert (s.stats.cfr_iterations, s.stats.simulations) == (100, 10)
    s = GTCFR(kuhn, 0, kuhn.initial_ranges(), ExactValue(kuhn), seed=1).run(20, 4)
    assert (s.stats.cfr_iterations, s.stats.simulations) == (5, 20)


def test_tree_grows_to_the_whole_kuhn_game_and_exploitability_goes_to_zero(kuhn: PublicGame) -> None:
    figures = []
    for s in (10, 100, 2000):
        search = GTCFR(kuhn, 0, kuhn.initial_ranges(), ExactValue(kuhn), seed=2).run(s, 1)
        figures.append(exploitability(kuhn.tree, search.average_strategy()))
    assert search.tree_size == kuhn.tree.num_nodes
    assert figures[0] > figures[1] > figures[2]
    assert figures[2] < 3.0  # mbb/g; uniform play is 458
    assert search.root_value() == pytest.approx(KUHN_VALUE, abs=0.005)


def test_growing_leduc_search_converges(leduc: PublicGame) -> None:
    small = GTCFR(leduc, 0, leduc.initial_ranges(), ExactValue(leduc, 40), seed=3).run(30, 1)
    big = GTCFR(leduc, 0, leduc.initial_ranges(), ExactValue(leduc, 40), seed=3).run(300, 1)
    assert big.tree_size > small.tree_size
    assert abs(big.root_value() - LEDUC_VALUE) < abs(small.root_value() - LEDUC_VALUE)
    assert abs(big.root_value() - LEDUC_VALUE) < 0.05


@pytest.mark.slow
def test_long_growing_leduc_search_reaches_the_value(leduc: PublicGame) -> None:
    big = GTCFR(leduc, 0, leduc.initial_ranges(), ExactValue(leduc, 50), seed=3).run(1000, 1)
    assert abs(big.root_value() - LEDUC_VALUE) < 0.015


def test_bad_input_raises(kuhn: PublicGame) -> None:
    with pytest.raises(SoGError):
        GTCFR(kuhn, 3, kuhn.initial_ranges(), ExactValue(kuhn))  # a showdown
    with pytest.raises(SoGError):
        GTCFR(kuhn, 0, (np.ones(2), np.ones(3)), ExactValue(kuhn))
    with pytest.raises(SoGError):
        GTCFR(kuhn, 0, kuhn.initial_ranges(), ExactValue(kuhn)).run(10, 0)
    with pytest.raises(SoGError, match="small"):
        PublicGame.load("hunl")  # refused before building a tree that would not fit


@pytest.mark.parametrize("with_gadget", [False, True])
def test_grown_tree_kernel_matches_the_per_update_path(leduc: PublicGame, with_gadget: bool) -> None:
    """Once a search holds its whole subgame, ``run`` does its remaining updates in one kernel call
    (``cfr_iterations_grown``): it must give exactly what the per-update Python path gives."""
    import copy

    from realtime.sog.search import Gadget

    t = leduc.tree
    root = int(t.first_child[0])  # player 1 after player 0 checks: a subgame with both betting rounds
    rng = np.random.default_rng(3)
    gadget = Gadget(1, rng.random(6), rng.normal(size=6), rng.random(6)) if with_gadget else None
    a = GTCFR(leduc, root, (rng.random(6), rng.random(6)), ExactValue(leduc, 10), seed=0, gadget=gadget)
    while a.leaves.size:
        a._expand(int(a.leaves[0]))
    a.cfr_iteration()
    b = copy.deepcopy(a)
    for _ in range(25):
        a.cfr_iteration()
    b.cfr_iterations_grown(25)
    assert a.t == b.t == 26
    for name in ("regret", "ssum", "strat", "Vsum0", "Vsum1", "R0", "R1"):
        assert np.allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-12), name
    if with_gadget:
        assert np.allclose(a.gadget_regret, b.gadget_regret) and np.allclose(a.root_opp_sum, b.root_opp_sum)
        assert a.gadget_regret.any()
    # Negative control: one update fewer is visibly different.
    c = copy.deepcopy(b)
    c.cfr_iterations_grown(1)
    assert not np.allclose(c.ssum, b.ssum)
    with pytest.raises(SoGError):
        GTCFR(leduc, root, (np.ones(6), np.ones(6)), ExactValue(leduc, 10)).cfr_iterations_grown(1)
