"""CFR, CFR+, Linear CFR and DCFR follow OpenSpiel's Python solvers iteration by iteration on Kuhn.

The exact trajectory is the strongest check these algorithms can get: after every
iteration the average strategy of :class:`pokerbot.solver.Solver` must equal that
of ``open_spiel.python.algorithms.cfr`` / ``discounted_cfr`` (all with alternating
updates; CFR uniform averaging, CFR+ RM+ with linear averaging, LCFR linear
weights, DCFR alpha 3/2, beta 0, gamma 2), and so must the exploitability.
Negative controls show the comparison tells algorithms apart.
"""

from __future__ import annotations

import numpy as np
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr
from open_spiel.python.algorithms import exploitability as os_exploitability

from oracles import os_game, to_openspiel
from pokerbot.gamedef import load_game
from pokerbot.solver import Solver, build_tree, strategy_to_policy

ITERATIONS = 40
OPENSPIEL = {
    "cfr": os_cfr.CFRSolver,
    "cfr+": os_cfr.CFRPlusSolver,
    "lcfr": os_dcfr.LCFRSolver,
    "dcfr": os_dcfr.DCFRSolver,
}


def trajectory_gap(ours_algorithm: str, theirs_algorithm: str, iterations: int = ITERATIONS,
                   alternating: bool = True, their_options: dict[str, float] | None = None,
                   **options: float) -> tuple[float, float]:
    """Largest difference (average-policy probability, exploitability in mbb/g) over the iterations.

    ``options`` (alpha, beta, gamma) go to both DCFR solvers, unless ``their_options`` gives OpenSpiel others.
    """
    game = load_game("kuhn")
    g = os_game(game)
    tree = build_tree(game)
    ours = Solver(tree, ours_algorithm, alternating=alternating, **options)  # type: ignore[arg-type]
    theirs = OPENSPIEL[theirs_algorithm](g, **(options if their_options is None else their_options))
    worst_prob = worst_mbb = 0.0
    for _ in range(iterations):
        ours.iterate(1)
        theirs.evaluate_and_update_policy()
        their_avg = theirs.average_policy()
        our_avg = to_openspiel(game, strategy_to_policy(tree, ours.average_strategy()))
        worst_prob = max(worst_prob, float(np.abs(our_avg.action_probability_array
                                                  - their_avg.action_probability_array).max()))
        their_mbb = 1000.0 * os_exploitability.nash_conv(g, their_avg) / 2.0 / game.big_blind
        worst_mbb = max(worst_mbb, abs(ours.exploitability() - their_mbb))
    return worst_prob, worst_mbb


@pytest.mark.parametrize("algorithm", list(OPENSPIEL))
def test_trajectory_equals_openspiel(algorithm: str) -> None:
    prob, mbb = trajectory_gap(algorithm, algorithm)
    assert prob < 1e-9 and mbb < 1e-7, (prob, mbb)  # measured: below 1e-10 mbb/g (float rounding)


@pytest.mark.parametrize("options", [{"alpha": 2.0}, {"beta": 0.5}, {"gamma": 0.0}, {"alpha": 1.0, "beta": 1.0, "gamma": 1.0}])
def test_dcfr_options_follow_openspiel(options: dict[str, float]) -> None:
    """The DCFR parameters (Brown and Sandholm 2019) do what OpenSpiel's do, not merely something."""
    prob, mbb = trajectory_gap("dcfr", "dcfr", iterations=25, **options)
    assert prob < 1e-9 and mbb < 1e-7, (prob, mbb)
    ignored, _ = trajectory_gap("dcfr", "dcfr", iterations=5, their_options=options)  # ours left at the defaults
    assert ignored > 1e-4  # negative control: a solver ignoring the options would be caught


@pytest.mark.parametrize("ours,theirs", [("cfr", "cfr+"), ("lcfr", "dcfr"), ("cfr+", "lcfr")])
def test_a_different_algorithm_is_told_apart(ours: str, theirs: str) -> None:
    prob, mbb = trajectory_gap(ours, theirs, iterations=5)
    assert prob > 1e-3 and mbb > 1e-3


def test_simultaneous_updates_are_told_apart() -> None:
    prob, _ = trajectory_gap("cfr+", "cfr+", iterations=5, alternating=False)
    assert prob > 1e-3
