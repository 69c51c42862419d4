"""Relevant pairs and the von Stengel–Forges correlation polytope."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerbot.efg.battleship import battleship
from pokerbot.efg.game import CHANCE, Branch, EfgError, Leaf, Move, build_game
from pokerbot.efg.games import kuhn
from realtime.efce.plan import CorrelationSpace, jittered_plan, product_plan, uniform_plan, uniform_strategy


def signalling_game():
    """Reading notes §4.4 (Fig. 1 structure): player 0 picks G/B, then X/Y; player 1 sees
    only the signal X/Y and picks l/r (payoffs are ours: the paper's are lost)."""

    def expand(s: tuple[str, ...]) -> Branch | Leaf:
        if len(s) == 0:
            return Branch(0, [Move(a, (a,)) for a in "GB"])
        if len(s) == 1:
            return Branch(0, [Move(a, s + (a,), obs=("", a)) for a in "XY"])
        if len(s) == 2:
            return Branch(1, [Move(f"{a}{s[1].lower()}", s + (a,)) for a in "lr"])
        t, sig, act = s
        good = (t == "G") == (act == "l")
        return Leaf((2.0 if act == "l" else 1.0, 3.0 if good else 0.0))

    return build_game("signalling", (), expand)


def test_fig1_structure_all_35_pairs_relevant() -> None:
    space = CorrelationSpace.of(signalling_game())
    assert space.num_seqs == (7, 5)
    assert space.num_pairs == 35
    a, b = space.polytope()
    assert a.shape[1] == 35 and b[0] == 1.0


def test_product_plans_are_in_the_polytope() -> None:
    space = CorrelationSpace.of(battleship(3, 1, timesteps=2))
    space.check_plan(uniform_plan(space))
    for seed in range(3):
        space.check_plan(jittered_plan(space, 0.5, seed))
    assert not np.allclose(jittered_plan(space, 0.5, 0), jittered_plan(space, 0.5, 1))
    assert np.allclose(jittered_plan(space, 0.0, 7), uniform_plan(space))


def test_polytope_equals_joint_distributions_in_a_one_shot_game() -> None:
    """With one infoset each, Ξ is the set of joint distributions over action pairs:
    any distribution with the right marginal rows passes, a wrong marginal fails."""

    def expand(s: tuple[str, ...]) -> Branch | Leaf:
        if len(s) < 2:
            return Branch(len(s), [Move(a + str(len(s)), s + (a,)) for a in "abc"])
        return Leaf((0.0, 0.0))

    space = CorrelationSpace.of(build_game("3x3", (), expand))
    assert space.num_pairs == 16  # (1 + 3) x (1 + 3)
    rng = np.random.default_rng(0)
    joint = rng.dirichlet(np.ones(9)).reshape(3, 3)
    xi = np.zeros(16)
    for s0, s1 in itertools.product(range(4), range(4)):
        block = joint[(slice(None) if s0 == 0 else s0 - 1), (slice(None) if s1 == 0 else s1 - 1)]
        xi[space.index(s0, s1)] = np.sum(block)
    space.check_plan(xi)
    xi[space.index(1, 0)] += 0.1
    with pytest.raises(EfgError):
        space.check_plan(xi)


def test_unconnected_infosets_give_no_pairs() -> None:
    """Player 1 acts only after player 0's 'a': her infoset is not connected to player
    0's infoset after 'b', so those pairs are not relevant."""

    def expand(s: tuple[str, ...]) -> Branch | Leaf:
        if len(s) == 0:
            return Branch(0, [Move(a, (a,), obs=(a, a)) for a in "ab"])
        if s == ("a",):
            return Branch(1, [Move(x, s + (x,)) for x in "lr"])
        if s == ("b",):
            return Branch(0, [Move(x, s + (x,)) for x in "uv"])
        return Leaf((1.0, 1.0))

    space = CorrelationSpace.of(build_game("branches", (), expand))
    tp0 = space.treeplex[0]
    u = [s for s in range(tp0.num_seqs) if tp0.seq_label(s).endswith(":u")][0]
    assert space.index(u, 1, strict=False) == -1
    assert space.index(1, 1) >= 0  # 'a' with 'l'
    with pytest.raises(EfgError):
        space.index(u, 1)


def test_games_with_chance_are_rejected() -> None:
    assert (kuhn().player == CHANCE).any()
    with pytest.raises(EfgError):
        CorrelationSpace.of(kuhn())


def test_product_plan_marginals() -> None:
    space = CorrelationSpace.of(signalling_game())
    x = uniform_strategy(space.treeplex[0])
    y = uniform_strategy(space.treeplex[1])
    xi = product_plan(space, x, y)
    assert np.allclose(xi[space.index(np.arange(7), 0)], x)
    assert np.allclose(xi[space.index(0, np.arange(5))], y)
