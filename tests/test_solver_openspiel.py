"""The solver's exploitability and values agree with OpenSpiel's on Kuhn and Leduc.

OpenSpiel (pyspiel 2.0.2) is a test oracle only. Its ``universal_poker`` game
takes the ACPC parameters of our ``.game`` files but deals from the *lowest*
ranks and *first* suits (Leduc is 2c 2d 3c 3d 4c 4d), where the ACPC server
and this project use the highest ranks and last suits (Qh Qs Kh Ks Ah As).
Shifting ranks and suits up is an isomorphism of these games, so each
OpenSpiel information set maps to one of ours.
"""

from __future__ import annotations

import numpy as np
import pytest

from oracles import os_game, to_openspiel
from pokerbot.gamedef import GameDef, load_game
from pokerbot.solver import (
    build_tree,
    policy_exploitability,
    policy_value,
    solve,
    strategy_to_policy,
)
from pokerbot.solver import kernels as K

from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value as os_policy_value  # noqa: E402


def random_policy(game: GameDef, seed: int) -> dict:
    tree = build_tree(game)
    rng = np.random.default_rng(seed)
    raw = rng.random(tree.num_slots) ** 3
    raw[rng.random(tree.num_slots) < 0.25] = 0.0
    strat = np.empty(tree.num_slots)
    for p in range(2):
        K.normalize(tree.decision_nodes[p], tree.num_children, tree.slot, tree.num_hands[p], raw, strat)
    return strategy_to_policy(tree, strat)


@pytest.fixture(scope="module")
def solved() -> dict:
    return {name: solve(load_game(name), "cfr+", 200).policy for name in ("kuhn", "leduc")}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("which", ["uniform", "random0", "random1", "solved"])
def test_exploitability_and_value_match_openspiel(name: str, which: str, solved: dict) -> None:
    game = load_game(name)
    if which == "uniform":
        pol: dict = {}
    elif which == "solved":
        pol = solved[name]
    else:
        pol = random_policy(game, int(which[-1]))
    tab = to_openspiel(game, pol)
    g = os_game(game)
    theirs = 1000.0 * os_exploitability.nash_conv(g, tab) / 2.0 / game.big_blind
    ours = policy_exploitability(game, pol)
    assert ours == pytest.approx(theirs, abs=1e-6)
    v_theirs = os_policy_value(g.new_initial_state(), [tab, tab])[0]
    assert policy_value(game, pol, pol) == pytest.approx(v_theirs, abs=1e-9)


def test_mixed_pair_value_matches_openspiel() -> None:
    game = load_game("leduc")
    p0, p1 = random_policy(game, 7), random_policy(game, 8)
    g = os_game(game)
    v = os_policy_value(g.new_initial_state(), [to_openspiel(game, p0), to_openspiel(game, p1)])[0]
    assert policy_value(game, p0, p1) == pytest.approx(v, abs=1e-9)
    assert policy_value(game, p1, p0) != pytest.approx(v, abs=1e-3)
