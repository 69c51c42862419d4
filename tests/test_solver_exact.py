"""Exact answers for the solver: known game values, exploitability thresholds, and
brute-force oracles (hand pair by hand pair, payoffs from pokerbot.state) for
subgames with two-card hands, root ranges, card removal and board deals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerbot.cards import cards_to_mask, parse_cards
from pokerbot.gamedef import load_game
from pokerbot.solver import (
    Solver,
    SolverError,
    best_response_values,
    build_tree,
    expected_value,
    exploitability,
    policy_exploitability,
    pot_fraction_menu,
    solve,
    uniform_strategy,
)
from pokerbot.solver import kernels as K
from pokerbot.solver import payoffs
from pokerbot.solver.tree import CHANCE, DECISION, FOLD_NODE, SHOWDOWN
from pokerbot.state import State

# --- known values ------------------------------------------------------------------


def test_kuhn_value_is_minus_one_eighteenth() -> None:
    result = solve(load_game("kuhn"), "cfr+", 1000)
    assert result.value == pytest.approx(-1 / 18, abs=1e-4)
    assert result.exploitability() < 1.0


def test_leduc_value_and_cfr_plus_below_half_mbb() -> None:
    result = solve(load_game("leduc"), "cfr+", 1000)
    assert result.value == pytest.approx(-0.0856, abs=1e-3)
    assert result.exploitability() < 0.5


def test_leduc_uniform_exploitability() -> None:
    # NashConv of the uniform strategy is 4.747222 chips (OpenSpiel); exploitability = NashConv / 2.
    assert policy_exploitability(load_game("leduc"), {}) == pytest.approx(2373.6111, abs=1e-3)
    tree = build_tree(load_game("kuhn"))
    assert exploitability(tree, uniform_strategy(tree)) == pytest.approx(1000 * 0.9166666 / 2, abs=1e-3)


# mbb/g after 500 iterations (measured: alternating 21.5 / 0.92 / 9.1 / 0.54; simultaneous 56 / 12 / 68 / 16).
@pytest.mark.parametrize(
    "algorithm,alternating,limit",
    [("cfr", True, 40.0), ("cfr+", True, 3.0), ("lcfr", True, 15.0), ("dcfr", True, 3.0),
     ("cfr", False, 150.0), ("cfr+", False, 30.0), ("lcfr", False, 150.0), ("dcfr", False, 30.0)],
)
def test_every_algorithm_converges_on_leduc(algorithm: str, alternating: bool, limit: float) -> None:
    tree = build_tree(load_game("leduc"))
    s = Solver(tree, algorithm, alternating=alternating)
    s.run(30)
    early = s.exploitability()
    s.run(470)
    late = s.exploitability()
    assert late < early
    assert late < limit
    assert s.value() == pytest.approx(-0.0856, abs=0.02)


def test_options_change_the_run() -> None:
    tree = build_tree(load_game("leduc"))
    runs = {}
    for name, kw in {
        "dcfr": {},
        "dcfr-a2": {"alpha": 2.0},
        "dcfr-b.5": {"beta": 0.5},
        "dcfr-uniform": {"averaging": "uniform"},
    }.items():
        s = Solver(tree, "dcfr", **kw)
        s.run(50)
        runs[name] = s.average_strategy()
    base = runs.pop("dcfr")
    for name, strat in runs.items():
        assert not np.allclose(strat, base), name
    with pytest.raises(SolverError, match="algorithm"):
        Solver(tree, "cfr++")
    with pytest.raises(SolverError, match="averaging"):
        Solver(tree, "cfr", averaging="cubic")


def test_step_by_step_equals_one_call() -> None:
    tree = build_tree(load_game("leduc"))
    a, b = Solver(tree, "dcfr"), Solver(tree, "dcfr")
    for _ in range(20):
        a.step()
    b.iterate(20)
    assert np.array_equal(a.average_strategy(), b.average_strategy())


# --- brute-force oracles -------------------------------------------------------------


def _board_of(tree, n: int) -> list[int]:
    return [c for g in tree.boards[int(tree.board[n])] for c in g]


def _payoff0(tree, n: int, h0, h1) -> float:
    state = State.from_betting(tree.game, tree.betting[int(tree.template[n])],
                               hole_cards=[list(h0), list(h1)], board_cards=_board_of(tree, n))
    assert state.finished
    return state.payoffs()[0]


def _sigma(tree, strat, n: int, p: int, h: int) -> np.ndarray:
    nh = tree.num_hands[p]
    nc = int(tree.num_children[n])
    off = int(tree.slot[n])
    return strat[off : off + nc * nh].reshape(nc, nh)[:, h]


def brute_pair_value(tree, strat, n: int, i0: int, i1: int) -> float:
    """Player 0's expected chips for the hand pair (i0, i1) from node n, walking the tree."""
    h0, h1 = tree.hands[0][i0], tree.hands[1][i1]
    kind = int(tree.kind[n])
    if kind in (FOLD_NODE, SHOWDOWN):
        return _payoff0(tree, n, h0, h1)
    first, nc = int(tree.first_child[n]), int(tree.num_children[n])
    if kind == CHANCE:
        held = cards_to_mask(list(h0) + list(h1))
        ok = [first + c for c in range(nc) if not cards_to_mask(_board_of(tree, first + c)) & held]
        return sum(brute_pair_value(tree, strat, c, i0, i1) for c in ok) / len(ok)
    p = int(tree.player[n])
    sig = _sigma(tree, strat, n, p, i0 if p == 0 else i1)
    return sum(sig[a] * brute_pair_value(tree, strat, first + a, i0, i1) for a in range(nc) if sig[a] > 0)


def brute_br(tree, strat, n: int, p: int, i: int, w: dict[int, float]) -> float:
    """Best-response value (unnormalised) of hand i of player p at node n against opponent weights w."""
    kind = int(tree.kind[n])
    mine = tree.hands[p][i]
    if kind in (FOLD_NODE, SHOWDOWN):
        total = 0.0
        for j, x in w.items():
            other = tree.hands[1 - p][j]
            pair = (mine, other) if p == 0 else (other, mine)
            v = _payoff0(tree, n, *pair)
            total += x * (v if p == 0 else -v)
        return total
    first, nc = int(tree.first_child[n]), int(tree.num_children[n])
    if kind == CHANCE:
        total = 0.0
        for c in range(nc):
            bmask = cards_to_mask(_board_of(tree, first + c))
            if bmask & cards_to_mask(list(mine)):
                continue
            w2 = {j: x for j, x in w.items() if not bmask & cards_to_mask(list(tree.hands[1 - p][j]))}
            total += brute_br(tree, strat, first + c, p, i, w2)
        return total * float(tree.chance_weight[n])
    if int(tree.player[n]) == p:
        return max(brute_br(tree, strat, first + a, p, i, w) for a in range(nc))
    out = 0.0
    for a in range(nc):
        w2 = {j: x * _sigma(tree, strat, n, 1 - p, j)[a] for j, x in w.items()}
        w2 = {j: x for j, x in w2.items() if x > 0}
        if w2:
            out += brute_br(tree, strat, first + a, p, i, w2)
    return out


def _random_strategy(tree, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.random(tree.num_slots) ** 2
    raw[rng.random(tree.num_slots) < 0.2] = 0.0
    out = np.empty(tree.num_slots)
    for p in range(2):
        K.normalize(tree.decision_nodes[p], tree.num_children, tree.slot, tree.num_hands[p], raw, out)
    return out


def _check_against_brute_force(tree, ranges, seed: int) -> None:
    strat = _random_strategy(tree, seed)
    r0, r1 = ranges
    pairs = [
        (i, j)
        for i in range(tree.num_hands[0])
        for j in range(tree.num_hands[1])
        if not cards_to_mask(tree.hands[0][i].tolist()) & cards_to_mask(tree.hands[1][j].tolist())
    ]
    norm = sum(r0[i] * r1[j] for i, j in pairs)
    ev = sum(r0[i] * r1[j] * brute_pair_value(tree, strat, 0, i, j) for i, j in pairs) / norm
    assert expected_value(tree, strat, ranges) == pytest.approx(ev, abs=1e-9)
    br = []
    for p in range(2):
        rp, ro = (r0, r1) if p == 0 else (r1, r0)
        total = 0.0
        for i in range(tree.num_hands[p]):
            mine = cards_to_mask(tree.hands[p][i].tolist())
            w = {j: ro[j] for j in range(tree.num_hands[1 - p]) if ro[j] > 0 and not mine & cards_to_mask(tree.hands[1 - p][j].tolist())}
            if rp[i] > 0:
                total += rp[i] * brute_br(tree, strat, 0, p, i, w)
        br.append(total / norm)
    assert best_response_values(tree, strat, ranges) == pytest.approx(tuple(br), abs=1e-9)


def test_flop_subgame_with_ranges_matches_brute_force() -> None:
    """Small-deck NL flop hold'em from the flop: two-card hands, overlapping hand lists, ranges."""
    game = load_game("nlfh-small")
    root = State.from_betting(game, "r300c/", board_cards=parse_cards("KhTs9d"))
    deck = [c for c in game.deck() if c not in parse_cards("KhTs9d")]
    combos = list(itertools.combinations(sorted(deck, reverse=True), 2))
    rng = np.random.default_rng(3)
    hands0 = [combos[i] for i in rng.choice(len(combos), 9, replace=False)]
    hands1 = [combos[i] for i in rng.choice(len(combos), 8, replace=False)] + [hands0[0]]
    tree = build_tree(game, pot_fraction_menu((1.0,), True, 2), root, hands=(np.array(hands0), np.array(hands1)))
    assert (tree.same[0] >= 0).sum() >= 1
    ranges = (rng.random(9) + 0.1, rng.random(9) + 0.1)
    _check_against_brute_force(tree, ranges, seed=1)


def test_turn_subgame_with_river_deals_matches_brute_force() -> None:
    """A HUNL turn subgame: a chance node deals the river; hands share cards with each other."""
    game = load_game("hunl")
    root = State.from_betting(game, "r300c/cc/", board_cards=parse_cards("Ks9h4c7d"))
    hands = np.array([parse_cards(h) for h in ("AsKd", "Ah9c", "7s7h", "QcJc", "AdQd", "KcQs")])
    tree = build_tree(game, pot_fraction_menu((1.0,), False, 1), root, hands=(hands, hands))
    assert (tree.kind == CHANCE).any()
    _check_against_brute_force(tree, (np.ones(6), np.linspace(0.5, 1.5, 6)), seed=2)


def test_showdown_kernel_against_state_payoffs() -> None:
    game = load_game("nlfh-small")
    board = parse_cards("AsKsQs9hTd")  # flush and straight boards give many ties
    root = State.from_betting(game, "cc/", board_cards=board[:3])
    tree = build_tree(game, pot_fraction_menu((), False, 0), root)
    # The river here is the whole flop: no chance; use the check-check showdown.
    sd = [n for n in range(tree.num_nodes) if tree.kind[n] == SHOWDOWN][0]
    rng = np.random.default_rng(0)
    reach = rng.random(tree.num_hands[1]) * tree.valid[1][tree.board[sd]]
    row = int(tree.sd_row[sd])
    vals = payoffs.showdown_values(reach, tree.sd_cards[0][row], tree.sd_cards[1][row], tree.sd_order[0][row],
                             tree.sd_strength[0][row], tree.sd_order[1][row], tree.sd_strength[1][row], float(tree.amount[sd]))
    fold = payoffs.fold_values(reach, tree.hands[0], tree.hands[1], tree.same[0], 1.0)
    for i in range(0, tree.num_hands[0], 7):
        mine = tree.hands[0][i].tolist()
        expect = compat = 0.0
        for j in range(tree.num_hands[1]):
            theirs = tree.hands[1][j].tolist()
            if set(mine) & set(theirs) or reach[j] == 0:
                continue
            compat += reach[j]
            expect += reach[j] * _payoff0(tree, sd, mine, theirs)
        assert vals[i] == pytest.approx(expect, abs=1e-9)
        assert fold[i] == pytest.approx(compat, abs=1e-9)


def test_root_ranges_validation_and_effect() -> None:
    tree = build_tree(load_game("leduc"))
    strat = uniform_strategy(tree)
    ones = (np.ones(6), np.ones(6))
    assert expected_value(tree, strat, ones) == pytest.approx(expected_value(tree, strat))
    skew = (np.array([1.0, 1, 0, 0, 0, 0]), np.ones(6))  # player 0 holds an ace
    assert expected_value(tree, strat, skew) > expected_value(tree, strat) + 0.1
    with pytest.raises(SolverError, match="shape"):
        expected_value(tree, strat, (np.ones(5), np.ones(6)))
    with pytest.raises(SolverError, match="negative"):
        expected_value(tree, strat, (-np.ones(6), np.ones(6)))
    with pytest.raises(SolverError, match="strategy array"):
        exploitability(tree, strat[:-1])


def test_solver_from_root_ranges_converges() -> None:
    """A Leduc subgame after 'rc/' on a queen board, from skewed ranges."""
    game = load_game("leduc")
    root = State.from_betting(game, "rc/", board_cards=parse_cards("Qh"))
    tree = build_tree(game, None, root)
    assert tree.num_hands == (5, 5)
    ranges = (np.linspace(1, 2, 5), np.linspace(2, 1, 5))
    s = Solver(tree, "cfr+", ranges=ranges)
    s.run(500)
    assert s.exploitability() < 1.0
    assert set(tree.infoset_key(0, 0, h) for h in range(5)) == {"Ks/Qh:rc/", "Kh/Qh:rc/", "As/Qh:rc/", "Ah/Qh:rc/", "Qs/Qh:rc/"}


def test_tree_shape_and_errors() -> None:
    tree = build_tree(load_game("leduc"))
    kinds = {DECISION, CHANCE, FOLD_NODE, SHOWDOWN}
    assert set(np.unique(tree.kind).tolist()) == kinds
    assert tree.num_hands == (6, 6)
    # Each chance child deals one of the 6 cards; both players' hands must miss it.
    assert float(tree.chance_weight[tree.kind == CHANCE][0]) == pytest.approx(1 / 4)
    with pytest.raises(SolverError, match="finished"):
        build_tree(load_game("kuhn"), root=State.from_betting(load_game("kuhn"), "rf"))
    with pytest.raises(SolverError, match="illegal"):
        build_tree(load_game("leduc-nl"), lambda s: [s.legal_kinds() and __import__("pokerbot.state").state.raise_to(1)])
    with pytest.raises(SolverError, match="board"):
        build_tree(load_game("leduc"), root=State.from_betting(load_game("leduc"), "cc/"))
