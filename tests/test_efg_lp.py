"""HiGHS programs: Nash equilibria by LP against the project's CFR solver and known values,
least-exploitable strategies under floors, and the (MI)LP wrappers."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from pokerbot.efg import (
    EfgError,
    action_floor,
    exploitability,
    games,
    least_exploitable,
    linear_program,
    maxmin,
    mixed_integer_program,
    nash_equilibrium,
    to_sequence,
    uniform_floor,
    worst_case_value,
)
from pokerbot.efg.games import policy_to_behavioral
from pokerbot.gamedef import load_game
from pokerbot.solver import solve


@pytest.mark.parametrize("name,value", [("kuhn", -1 / 18), ("leduc", -0.0856064)])
def test_lp_equilibrium_value_and_zero_exploitability(name: str, value: float) -> None:
    sf = games.load(name).sequence_form
    ne = nash_equilibrium(sf)
    assert ne.value == pytest.approx(value, abs=1e-6)
    assert exploitability(sf, 0, ne.strategies[0], ne.value) < 1e-9
    assert exploitability(sf, 1, ne.strategies[1], -ne.value) < 1e-9


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_lp_agrees_with_the_cfr_solver(name: str) -> None:
    g = games.load(name)
    sf = g.sequence_form
    lp_value = nash_equilibrium(sf).value
    cfr = solve(load_game(name), "cfr+", 1000)
    assert cfr.value == pytest.approx(lp_value, abs=2e-4)
    # CFR's average strategy measured here: exploitability (chips) = its own report (mbb/g) / 1000
    x = to_sequence(sf.treeplex[0], policy_to_behavioral(g, 0, cfr.policy))
    y = to_sequence(sf.treeplex[1], policy_to_behavioral(g, 1, cfr.policy))
    ours = (exploitability(sf, 0, x, lp_value) + exploitability(sf, 1, y, -lp_value)) / 2
    assert ours == pytest.approx(cfr.exploitability() / 1000, rel=1e-6, abs=1e-9)


def test_kuhn_equilibrium_is_in_the_known_family() -> None:
    g = games.kuhn()
    x = nash_equilibrium(g.sequence_form).strategies[0]
    tp = g.treeplex(0)
    beh = {}
    for d in range(tp.num_infosets):
        key = games.infoset_key(g, 0, d)
        beh[key] = dict(zip(tp.labels[d], x[tp.first_seq[d] : tp.first_seq[d] + tp.num_actions[d]] / x[tp.parent_seq[d]]))
    cards = sorted({k.split(":")[0] for k in beh}, key=lambda c: "QKA".index(c[0]))
    low, mid, high = cards  # Kuhn's J, Q, K
    alpha = beh[f"{low}:"]["r"]
    assert 0 <= alpha <= 1 / 3 + 1e-9
    assert beh[f"{high}:"]["r"] == pytest.approx(3 * alpha, abs=1e-7)
    assert beh[f"{mid}:"]["r"] == pytest.approx(0, abs=1e-7)
    assert beh[f"{mid}:cr"]["c"] == pytest.approx(alpha + 1 / 3, abs=1e-7)


def test_floors_hold_and_cost_exactly_table_1s_kuhn_blueprint() -> None:
    g = games.kuhn()
    sf = g.sequence_form
    tp = sf.treeplex[0]
    floor = uniform_floor(tp, 0.25)
    bp = least_exploitable(sf, 0, floor)
    assert (bp.behavioral >= floor - 1e-9).all()
    expl = exploitability(sf, 0, bp.strategy, -1 / 18) * g.normalizer
    assert round(expl, 4) == 0.0124  # Table 1, Kuhn blueprint
    assert bp.value == pytest.approx(worst_case_value(sf, 0, bp.strategy), abs=1e-9)
    bet = least_exploitable(sf, 0, action_floor(tp, 0.25, ["r"]))
    assert round(exploitability(sf, 0, bet.strategy, -1 / 18) * g.normalizer, 4) == 0.0035  # Kuhn (ε-bet)
    fold = least_exploitable(sf, 0, action_floor(tp, 0.25, ["f"]))
    assert exploitability(sf, 0, fold.strategy, -1 / 18) < 1e-9  # "Kuhn with 0.25-fold has an exact NE"


def test_infeasible_floors_and_non_zero_sum_are_refused() -> None:
    tp = games.kuhn().treeplex(0)
    with pytest.raises(EfgError, match="sum to"):
        maxmin(games.kuhn().sequence_form, 0, np.full(tp.num_seqs, 0.6))
    with pytest.raises(EfgError):
        uniform_floor(tp, 1.5)


def test_program_wrappers() -> None:
    # max x + y s.t. x + 2y <= 4, 3x + y <= 6: LP optimum (1.6, 1.2) = 2.8; integers: 2
    a = sp.csr_matrix([[1.0, 2.0], [3.0, 1.0]])
    b = np.array([4.0, 6.0])
    lp = linear_program(np.ones(2), a_ub=a, b_ub=b, maximize=True)
    assert lp.value == pytest.approx(2.8) and np.allclose(lp.x, [1.6, 1.2])
    ip = mixed_integer_program(np.ones(2), np.ones(2), a_ub=a, b_ub=b, maximize=True)
    assert ip.value == pytest.approx(2.0) and np.allclose(ip.x, np.round(ip.x))
    with pytest.raises(EfgError, match="no optimum"):
        linear_program(np.ones(1), a_ub=sp.csr_matrix([[-1.0]]), b_ub=np.array([-1.0]), upper=0.5)
