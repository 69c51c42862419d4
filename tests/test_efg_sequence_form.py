"""Sequence form: conversions, bilinear payoffs against a direct tree walk, best responses
against brute force over pure strategies, observation-infoset values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerbot.efg import (
    EfgError,
    best_response,
    expected_payoffs,
    games,
    observation_values,
    optimize_linear,
    to_behavioral,
    to_sequence,
    uniform_strategy,
    worst_case_value,
)
from pokerbot.efg.game import CHANCE, TERMINAL
from pokerbot.efg.sequence_form import check_strategy


def _tree_value(g, beh, h=0):  # type: ignore[no-untyped-def]
    """Player 0's expected payoff by walking the tree with behavioural strategies."""
    if g.player[h] == TERMINAL:
        return g.payoff[h, 0]
    total = 0.0
    for c in g.children(h):
        if g.player[h] == CHANCE:
            w = g.edge_prob[c]
        else:
            i = int(g.player[h])
            w = beh[i][int(g.seq[i, c])]
        total += w * _tree_value(g, beh, int(c))
    return total


def _random_beh(tp, rng):  # type: ignore[no-untyped-def]
    beh = np.ones(tp.num_seqs)
    for d in range(tp.num_infosets):
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        beh[f : f + n] = rng.dirichlet(np.ones(n))
    return beh


@pytest.mark.parametrize("name", ["kuhn", "goofspiel-increasing", "dark-hex"])
def test_bilinear_payoff_equals_tree_walk(name: str) -> None:
    g = games.load(name)
    sf = g.sequence_form
    rng = np.random.default_rng(3)
    for _ in range(3):
        beh = [_random_beh(sf.treeplex[i], rng) for i in (0, 1)]
        x, y = to_sequence(sf.treeplex[0], beh[0]), to_sequence(sf.treeplex[1], beh[1])
        u0, u1 = expected_payoffs(sf, x, y)
        assert u0 == pytest.approx(_tree_value(g, beh), abs=1e-12)
        assert u1 == pytest.approx(-u0, abs=1e-12)
        assert np.allclose(to_sequence(sf.treeplex[0], to_behavioral(sf.treeplex[0], x)), x)


def test_best_response_equals_brute_force_over_pure_strategies() -> None:
    sf = games.kuhn().sequence_form
    tp1 = sf.treeplex[1]
    x = to_sequence(sf.treeplex[0], _random_beh(sf.treeplex[0], np.random.default_rng(5)))
    best = -np.inf
    for choice in itertools.product(*[range(int(n)) for n in tp1.num_actions]):
        beh = np.zeros(tp1.num_seqs)
        beh[0] = 1
        beh[tp1.first_seq + np.asarray(choice)] = 1
        best = max(best, expected_payoffs(sf, x, to_sequence(tp1, beh))[1])
    br = best_response(sf, 1, x)
    assert br.value == pytest.approx(best, abs=1e-12)
    assert expected_payoffs(sf, x, br.strategy)[1] == pytest.approx(best, abs=1e-12)
    assert worst_case_value(sf, 0, x) == pytest.approx(-best, abs=1e-12)


def test_optimize_linear_min_and_max() -> None:
    tp = games.kuhn().treeplex(0)
    c = np.arange(tp.num_seqs, dtype=float) - 6
    hi, lo = optimize_linear(tp, c, True), optimize_linear(tp, c, False)
    assert hi.value == pytest.approx(float(c @ hi.strategy)) and lo.value == pytest.approx(float(c @ lo.strategy))
    assert lo.value < hi.value


def test_observation_values_agree_with_the_treeplex_best_response() -> None:
    g = games.leduc()
    sf = g.sequence_form
    x = to_sequence(sf.treeplex[0], _random_beh(sf.treeplex[0], np.random.default_rng(9)))
    ov = observation_values(g, 1, x, payoff_player=0, maximize=False)
    root = int(g.obs[1, 0])
    assert ov.values[root] == pytest.approx(worst_case_value(sf, 0, x), abs=1e-12)
    assert ov.mass[root] == pytest.approx(1.0)
    # a decision infoset's value is its best (minimal) sequence value
    tp = sf.treeplex[1]
    for d in range(0, tp.num_infosets, 37):
        j = int(g.info[1].decision_obs[d])
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        assert ov.values[j] == pytest.approx(ov.seq_values[f : f + n].min(), abs=1e-12)


def test_bad_strategies_are_refused() -> None:
    tp = games.kuhn().treeplex(0)
    x = uniform_strategy(tp)
    check_strategy(tp, x)
    with pytest.raises(EfgError):
        check_strategy(tp, x * 1.1)
    with pytest.raises(EfgError):
        check_strategy(tp, x[:-1])
