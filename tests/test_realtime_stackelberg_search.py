"""Stackelberg MILPs and safe search: the paper's toy numbers exactly, the whole-game MILP
against a brute-force oracle, and the safety invariant with negative controls."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.general_sum_games import (
    figure1,
    figure2,
    figure_subgame,
    label_subgames,
    two_stage,
    two_stage_spec,
    two_stage_subgame,
)
from pokerbot.efg.sequence_form import constraint_matrix, to_sequence
from realtime.stackelberg.bounds import Subgames
from realtime.stackelberg.response import blueprint_rows, follower_response
from realtime.stackelberg.search import full_game_sse, polish, safe_search, sse_program


def fixed_response_value(game: Game, y: np.ndarray) -> float:
    """The LP ``max_x x A0 y`` s.t. the pure ``y`` is a best response to x (``x A1 y >=
    f·v``, ``F^T v >= A1^T x``: LP duality for the follower's best value); -inf if no x
    makes ``y`` a best response."""
    sf = game.sequence_form
    tp0, tp1 = sf.treeplex
    f0, e0 = constraint_matrix(tp0)
    f1, e1 = constraint_matrix(tp1)
    a0, a1 = sf.payoff[0].toarray(), sf.payoff[1].toarray()
    n0, nv = tp0.num_seqs, f1.shape[0]
    # rows: -(x A1 y) + e1·v <= 0 ;  A1^T x - F1^T v <= 0
    a_ub = np.vstack([np.concatenate([-(a1 @ y), e1]), np.hstack([a1.T, -f1.T.toarray()])])
    b_ub = np.zeros(1 + tp1.num_seqs)
    a_eq = np.hstack([f0.toarray(), np.zeros((f0.shape[0], nv))])
    res = linprog(np.concatenate([-(a0 @ y), np.zeros(nv)]), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=e0,
                  bounds=[(0, None)] * n0 + [(None, None)] * nv, method="highs")
    return -res.fun if res.status == 0 else -np.inf


def brute_force_sse(game: Game) -> float:
    """The strong SSE value by enumeration: the best :func:`fixed_response_value` over
    every pure follower strategy."""
    tp1 = game.treeplex(1)
    best = -np.inf
    for choice in itertools.product(*(range(int(k)) for k in tp1.num_actions)):
        beh = np.zeros(tp1.num_seqs)
        beh[0] = 1.0
        beh[tp1.first_seq + np.asarray(choice, dtype=np.int64)] = 1.0
        best = max(best, fixed_response_value(game, to_sequence(tp1, beh)))
    return best


def _figure(build):  # type: ignore[no-untyped-def]
    g = build()
    return g, Subgames(g, label_subgames(g, figure_subgame)), blueprint_rows(g, 0)


def test_figure1_naive_search_is_unsafe_and_safe_search_is_not() -> None:
    g, subs, x = _figure(figure1)
    naive = safe_search(subs, x, naive=True)
    assert naive.blueprint_value == pytest.approx(1.5)  # stay left (1, 1), exit right (2, 2)
    assert naive.leader_value == pytest.approx(0.5)  # A -> (2, -1): exit left; B -> (1, 4): stay right
    safe = safe_search(subs, x)
    # α = 1/2: A's follower value >= 1/2 (conditional) -> leader mixes 1/4 on row 1: 1.25; right: exit, 2
    assert safe.leader_value == pytest.approx(0.5 * 1.25 + 0.5 * 2.0)
    assert safe_search(subs, x, alpha=0.0).leader_value == pytest.approx(0.5 * 1.5 + 0.5 * 2.0)
    assert [r.status for r in safe.reports] == ["optimal", "kept blueprint"]  # B is off the trunk
    assert full_game_sse(g).leader_value == pytest.approx(1.75) == pytest.approx(brute_force_sse(g))


def test_figure2_one_search_helps_both_searches_hurt() -> None:
    g, subs, x = _figure(figure2)
    assert follower_response(g.sequence_form, x).leader_value == pytest.approx(1.0)
    naive = safe_search(subs, x, naive=True)
    assert naive.leader_value == pytest.approx(0.0)  # searching in both: staying is worth -1, the follower exits
    # searching only the left subgame (2, -1): staying is worth (1.5, 0), a tie broken for the leader
    for side in (0, 1):
        one = Subgames(g, np.where(subs.label == side, 0, -1))
        assert safe_search(one, x, naive=True).leader_value == pytest.approx(1.5)
    safe = safe_search(subs, x)  # each subgame's follower value >= 1/2 (half the slack of 1 - 1/2)
    assert safe.leader_value == pytest.approx(1.25)
    assert full_game_sse(g).leader_value == pytest.approx(1.5) == pytest.approx(brute_force_sse(g))


@pytest.mark.parametrize("seed", range(4))
def test_whole_game_milp_matches_the_brute_force_oracle(seed: int) -> None:
    g = two_stage(two_stage_spec(2, 1, 2, 0.5, seed))
    assert full_game_sse(g).leader_value == pytest.approx(brute_force_sse(g), abs=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_polish_solves_the_fixed_response_lp_and_stays_below_the_sse(seed: int) -> None:
    g = two_stage(two_stage_spec(2, 1, 2, 0.5, seed))
    x0 = _random_blueprint(g, np.random.default_rng(seed))
    sf = g.sequence_form
    start = follower_response(sf, x0)
    one, v1, rounds = polish(g, x0, rounds=1)
    assert follower_response(sf, one).leader_value == pytest.approx(v1)
    # one round is the LP for the start's response (leader-favoured ties may only add)
    assert v1 >= fixed_response_value(g, start.strategy) - 1e-7
    assert v1 >= start.leader_value - 1e-12 and rounds in (0, 1)
    _, v, _ = polish(g, x0)
    assert v1 - 1e-12 <= v <= brute_force_sse(g) + 1e-7
    res = full_game_sse(g, 0, warm_start=x0, polish_rounds=10)
    assert res.milp is None and res.leader_value == pytest.approx(v) and res.start_value == pytest.approx(start.leader_value)
    assert full_game_sse(g, warm_start=x0, polish_rounds=3).leader_value == pytest.approx(brute_force_sse(g), abs=1e-7)


def _random_blueprint(game: Game, rng: np.random.Generator) -> np.ndarray:
    tp = game.treeplex(0)
    beh = rng.random(tp.num_seqs)
    beh[0] = 1.0
    for d in range(tp.num_infosets):
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        beh[f:f + n] /= beh[f:f + n].sum()
    return to_sequence(tp, beh)


def _instances(count: int) -> list[tuple[Subgames, np.ndarray]]:
    out = []
    for seed in range(count):
        rng = np.random.default_rng(1000 + seed)
        g = two_stage(two_stage_spec(3, 2, 2, float(rng.random()), seed))
        out.append((Subgames(g, label_subgames(g, two_stage_subgame)), _random_blueprint(g, rng)))
    return out


def test_safety_invariant_on_random_instances_with_negative_controls() -> None:
    """α in [0, 1], β = 1: the combined strategy never does worse than the blueprint.
    The same instances show naive search and a large β can (so the check can fail)."""
    naive_losses = beta_losses = 0
    for subs, x in _instances(8):
        base = follower_response(subs.game.sequence_form, x).leader_value
        for alpha in (0.0, 0.25, 0.5, 1.0):
            res = safe_search(subs, x, alpha=alpha)
            assert res.blueprint_value == pytest.approx(base)
            assert res.leader_value >= base - 1e-7, (alpha, res.leader_value, base)
        naive_losses += safe_search(subs, x, naive=True).leader_value < base - 1e-6
        beta_losses += safe_search(subs, x, beta=64.0).leader_value < base - 1e-6
    assert naive_losses >= 1
    assert beta_losses >= 1


def test_time_limit_is_reported_not_raised() -> None:
    g = two_stage(two_stage_spec(2, 3, 4, 0.5, 3))
    x = _random_blueprint(g, np.random.default_rng(0))
    res = full_game_sse(g, time_limit=1e-6, warm_start=x)
    assert res.milp.status == "time limit"
    assert res.leader_value >= follower_response(g.sequence_form, x).leader_value - 1e-9
    subs = Subgames(g, label_subgames(g, two_stage_subgame))
    with pytest.raises(EfgError, match="out of range"):
        sse_program(g, x, follower_response(g.sequence_form, x), subs, subs.count)


@pytest.mark.slow
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_safety_invariant_on_raked_leduc_with_random_blueprints(alpha: float) -> None:
    """Leduc's subgames open with a leader move before the follower's heads (the paper's
    general case); time-limited MILPs keep at least the blueprint's objective."""
    from pokerbot.efg.general_sum_games import leduc_subgame, raked_leduc

    g = raked_leduc(2, 0.1, "paper")
    subs = Subgames(g, label_subgames(g, leduc_subgame))
    x = _random_blueprint(g, np.random.default_rng(0))
    res = safe_search(subs, x, alpha=alpha, time_limit=2.0)
    assert res.leader_value >= res.blueprint_value - 1e-7
