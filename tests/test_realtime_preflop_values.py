"""Preflop re-solving in HUNL: the flop-start value table, its leaf evaluator, the preflop equity table.

The table's bucket-Markov part is checked against an independent computation of the same quantity: the AIVAT
blueprint value (:class:`evaluation.blueprint_value.BlueprintValue`) of every hand pair of a class pair at the
flop start, each the exact mean over its 17,296 flops; its exact postflop correction's kernel against a
recursive evaluation of the abstract tree, deal by deal; the evaluator against a brute-force sum over hand
pairs.
"""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.cards import parse_cards
from pokerbot.gamedef import load_game
from pokerbot.solver import PotFractionMenu, SolverError, build_tree
from pokerbot.state import CALL, State, raise_to


@pytest.fixture(scope="module")
def table(hunl_tiny_home, tmp_path_factory):
    import os

    from blueprint.continuation import bias_strategies
    from blueprint.model import Blueprint
    from realtime.preflop_values import FlopStartTable

    old = os.environ.get("POKERBOT_HOME")
    os.environ["POKERBOT_HOME"] = str(hunl_tiny_home)
    try:
        bp = Blueprint.load(hunl_tiny_home / "blueprints" / "hunl-tiny" / "blueprint.npz")
        conts = bias_strategies(bp.tree, bp.strategy, 10.0, 4)
        # deals_per_pair=0: the bucket-Markov table alone (the exact correction is tested on its own, below)
        yield bp, FlopStartTable(bp, conts, flops_per_pair=64, deals_per_pair=0)
    finally:
        if old is None:
            os.environ.pop("POKERBOT_HOME")
        else:
            os.environ["POKERBOT_HOME"] = old


def _classes(bp, hands: np.ndarray) -> np.ndarray:
    from blueprint.model import make_cards
    from blueprint.values import hole_buckets

    return hole_buckets(make_cards(bp.cards_name, bp.game), hands.astype(np.int64))


def test_markov_table_is_the_blueprint_value_averaged_over_each_class_pair(table) -> None:
    from evaluation.blueprint_value import BlueprintValue
    from pokerbot.solver.tree import hand_universe

    bp, tab = table
    value = BlueprintValue(bp)
    game = bp.game
    hands = hand_universe(game)
    cls = _classes(bp, hands)
    start = State.initial(game).apply(raise_to(300)).apply(CALL)  # open pot, called: the flop starts
    node = value._node(start)
    assert start.round == 1 and node in tab.index
    mat = tab.matrix(node, 1, 0)
    assert np.array_equal(mat, tab.matrix(node, 0, 0))  # the blueprint against itself: either seat
    F, _ = value.backward_induction()
    index = {frozenset(h.tolist()): i for i, h in enumerate(hands)}
    for a, b in (("AsAh", "KsKh"), ("7c6c", "Ad9h"), ("Qh2d", "JsTs")):
        ca, cb = cls[index[frozenset(parse_cards(a))]], cls[index[frozenset(parse_cards(b))]]
        exact, per_flop = [], []
        for h0 in hands[cls == ca]:
            for h1 in hands[cls == cb]:
                if set(h0.tolist()) & set(h1.tolist()):
                    continue
                state = start.with_cards(hole_cards=(tuple(int(c) for c in h0), tuple(int(c) for c in h1)))
                exact.append(value.value(state))  # the exact mean over the pair's 17,296 flops
                b0, b1, _ = value.deals(state)
                per_flop.append(F[node][b0, b1])
        # The table samples 64 flops a pair: its error is that of a mean of 64 x pairs flop values.
        sigma = float(np.concatenate(per_flop).std()) / np.sqrt(64 * len(exact))
        assert abs(float(np.mean(exact)) - float(mat[ca, cb])) < 4 * sigma + 0.5, (a, b, np.mean(exact), mat[ca, cb],
                                                                                   sigma)
    # the opponent's continuations move the values (fold-biased: the opponent gives up pots)
    assert not np.allclose(tab.matrix(node, 1, 1), mat, atol=1.0)


def _exact_value(tree, strategy: np.ndarray, node: int, b: np.ndarray, res: float) -> float:
    """Player 0's chips below abstract ``node`` when both follow ``strategy`` with round buckets ``b[p, r]`` and
    the showdown's sign ``res`` for player 0: a plain recursion, the kernel's reference."""
    from blueprint.abstract_game import DECISION, FOLD_NODE

    kind = tree.kind[node]
    s0, s1 = float(tree.spent[node, 0]), float(tree.spent[node, 1])
    if kind == FOLD_NODE:
        return -s0 if tree.player[node] == 0 else s1
    if kind != DECISION:
        return res * min(s0, s1)
    na, r = int(tree.num_actions[node]), int(tree.round[node])
    row = strategy[int(tree.base[node]) + int(b[int(tree.player[node]), r]) * na:][:na]
    row = row / row.sum() if row.sum() > 0 else np.full(na, 1.0 / na)
    first = int(tree.first_child[node])
    return sum(float(row[a]) * _exact_value(tree, strategy, int(tree.child[first + a]), b, res) for a in range(na)
               if row[a] > 0)


def test_postflop_correction_is_the_exact_value_minus_the_markov_one(table) -> None:
    from blueprint.model import make_cards
    from pokerbot.evaluator import evaluate
    from realtime.preflop_values import _postflop_corrections, normalized_rows, sample_deals, tree_arrays

    bp, tab = table
    tree, game = bp.tree, bp.game
    cards = make_cards(bp.cards_name, game)
    dealt, pre, buckets, result = next(sample_deals(game, cards, 1, seed=3, chunk=40))
    assert len(result) == 40
    from blueprint.abstract_game import DECISION, SHOWDOWN

    flop_nodes = [n for n in tab.nodes if tree.kind[n] == DECISION and tree.round[n] > 0][:3]
    flop_nodes += [n for n in tab.nodes if tree.kind[n] == SHOWDOWN]  # preflop all-ins (run out to the river)
    assert len(flop_nodes) > 3
    flop_nodes = np.array(flop_nodes, dtype=np.int64)
    strategies = np.stack([np.asarray(bp.strategy, dtype=np.float64), np.ones(tree.num_slots)])
    nb0, nb1 = int(tree.num_buckets[0]), int(tree.num_buckets[1])
    markov = np.random.default_rng(0).normal(size=(2, len(flop_nodes), nb1, nb1)) * 50
    sums = np.zeros((2, len(flop_nodes), nb0, nb0))
    counts = np.zeros((nb0, nb0))
    _postflop_corrections(*tree_arrays(tree), normalized_rows(tree, strategies), flop_nodes, markov, pre, buckets, result,
                          sums, counts)
    want_sums = np.zeros_like(sums)
    want_counts = np.zeros_like(counts)
    for m in range(len(result)):
        for seating in (0, 1):
            b = buckets[m] if seating == 0 else buckets[m, ::-1]
            res = float(result[m]) * (1 if seating == 0 else -1)
            want_counts[b[0, 0], b[1, 0]] += 1
            for s in range(2):
                for i, n in enumerate(flop_nodes):
                    want_sums[s, i, b[0, 0], b[1, 0]] += (_exact_value(tree, strategies[s], int(n), b, res)
                                                          - markov[s, i, b[0, 1], b[1, 1]])
    np.testing.assert_allclose(sums, want_sums, rtol=1e-9, atol=1e-6)
    np.testing.assert_array_equal(counts, want_counts)
    assert counts.sum() == 80 and np.abs(sums).max() > 1.0  # 40 deals, both seatings; real values, not zeros
    # the deals themselves: two disjoint hands and a board; buckets and showdowns are those of their cards
    from blueprint.values import bucket_rows, hole_buckets

    assert all(len(set(row.tolist())) == 9 for row in dealt)
    np.testing.assert_array_equal(pre, buckets[:, :, 0])
    np.testing.assert_array_equal(pre[:, 0], hole_buckets(cards, dealt[:, :2]))
    for m in range(5):
        for side in (0, 1):
            hole = dealt[m, 2 * side : 2 * side + 2].tolist()
            for r, nb in ((1, 3), (2, 4), (3, 5)):
                assert buckets[m, side, r] == bucket_rows(cards, r, hole, dealt[m, 4 : 4 + nb][None])[0]
        sign = np.sign(evaluate(dealt[m, [0, 1, 4, 5, 6, 7, 8]].tolist()) - evaluate(dealt[m, 2:].tolist()))
        assert result[m] == sign


def test_table_leaves_are_the_brute_force_sums(table) -> None:
    from realtime.preflop_values import PreflopTableEvaluator

    bp, tab = table
    game = bp.game
    tree = build_tree(game, PotFractionMenu((1.0,), True, 1), depth_limit=0)
    hands = tree.hands[0]
    assert np.array_equal(tree.hands[1], hands) and len(hands) == 1326
    cls = _classes(bp, hands)
    disjoint = ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    rng = np.random.default_rng(0)
    nl = len(tree.continuation_leaves)
    assert nl > 0
    for us in (0, 1):
        ev = PreflopTableEvaluator(tree, tab, us)
        assert ev.num_choices[us] == 1 and ev.num_choices[1 - us] == 4
        assert all(tab.index.get(n) is not None for n, _ in ev.mapped)
        for player in (0, 1):
            o = 1 - player
            reach = rng.random((nl, ev.num_choices[o], len(hands)))
            got = ev.values(player, reach)
            for i, li in enumerate(tree.continuation_leaves):
                state = tree.leaf_states[int(li)]
                node = ev.mapped[i][0]
                scale = sum(state.spent) / sum(tab.tree.spent[node])
                for k in range(ev.num_choices[player]):
                    want = np.zeros(len(hands))
                    for ko in range(ev.num_choices[o]):
                        opp_k = k if player != us else ko
                        m = tab.matrix(node, 1 - us, opp_k) * scale  # player 0's chips
                        # pair[h, o]: this player's chips holding h against o
                        pair = m[cls[:, None], cls[None, :]] if player == 0 else -m[cls[None, :], cls[:, None]]
                        want += (pair * disjoint) @ reach[i, ko]
                    np.testing.assert_allclose(got[i, k], want, rtol=1e-6, atol=1e-6)


def test_evaluator_refuses_what_it_cannot_value(table) -> None:
    from realtime.preflop_values import PreflopTableEvaluator

    bp, tab = table
    game = bp.game
    flop = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c"))
    with pytest.raises(SolverError, match="preflop subgames"):
        PreflopTableEvaluator(build_tree(game, PotFractionMenu((1.0,), True, 1), root=flop, depth_limit=0), tab, 0)
    with pytest.raises(SolverError, match="not where a preflop ends"):
        tab.matrix(0, 1, 0)


def test_preflop_equity_table() -> None:
    from realtime.preflop_values import preflop_equity
    from pokerbot.solver.tree import hand_universe

    game = load_game("hunl")
    hands = hand_universe(game)
    e = preflop_equity(game, samples=2000, cache=False)
    index = {frozenset(h.tolist()): i for i, h in enumerate(hands)}

    def eq(a: str, b: str) -> float:
        return float(e[index[frozenset(parse_cards(a))], index[frozenset(parse_cards(b))]])

    assert abs(eq("AsAh", "KsKh") - 0.64) < 0.04  # AA wins ~82%, loses ~18% (ties rare)
    assert abs(eq("AsKs", "2c2d") - 0.0) < 0.06   # the classic coin flip
    assert eq("AsAh", "AdKd") > 0.7 and eq("AsAh", "AhKd") == 0.0  # a shared card: they never meet
    np.testing.assert_allclose(e, -e.T, atol=1e-9)


def test_table_leaves_need_the_preflop_cut_at_its_end() -> None:
    from realtime.config import RealtimeConfig, RealtimeConfigError

    r = {"mode": "solve", "depth_limit": 0, "leaves": "table"}
    assert RealtimeConfig.from_dict({"blueprint": "x", "round": {"0": r}}).uses_table()
    with pytest.raises(RealtimeConfigError, match="depth_limit = 0"):
        RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": r}})
    with pytest.raises(RealtimeConfigError, match="depth_limit = 0"):
        RealtimeConfig.from_dict({"blueprint": "x", "round": {"0": dict(r, depth_limit=-1)}})
    with pytest.raises(RealtimeConfigError, match="round.0"):
        RealtimeConfig.from_dict({"blueprint": "x", "leaves": {"evaluator": "table"}})


def test_hunl_agent_solves_the_preflop_and_caches_it(table, hunl_tiny_home, monkeypatch) -> None:
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig

    bp, _ = table
    monkeypatch.setenv("POKERBOT_HOME", str(hunl_tiny_home))
    monkeypatch.setattr("realtime.preflop_values.FLOPS_PER_PAIR", 64)  # the table the fixture cached
    monkeypatch.setattr("realtime.preflop_values.POSTFLOP_DEALS_PER_PAIR", 0)
    r0 = {"mode": "solve", "gadget": "reach", "iterations": 40, "min_iterations": 1, "time_budget": 1e9,
          "depth_limit": 0, "leaves": "table", "cache": True}
    cfg = RealtimeConfig.from_dict({"blueprint": "-", "name": "preflop-test", "action_time_limit": 1e9,
                                    "round": {"0": r0}})
    game = bp.game
    root = State.initial(game)
    first = Resolver(cfg, bp).decide(root)
    assert first.source == "solve" and first.gadget == "unsafe"  # the root of the game: no previous solve
    np.testing.assert_allclose(first.probs.sum(axis=0), 1.0, atol=1e-9)
    resolver = Resolver(cfg, bp)
    again = resolver.decide(root)
    assert again.source == "cache" and np.array_equal(again.probs, first.probs)
    # the opponent 3-bets an off-menu size: a nested, safe re-solve with the real size as a branch
    s = root.apply(raise_to(300)).apply(raise_to(1100))
    d = resolver.decide(s)
    assert d.source == "solve" and d.gadget == "reach" and CALL in d.actions
    np.testing.assert_allclose(d.probs.sum(axis=0), 1.0, atol=1e-9)


def test_preflop_check_folds_cost_the_small_blind_both_ways(table, hunl_tiny_home, monkeypatch) -> None:
    """``python -m experiments.preflop_check``: the table's and the Monte Carlo's values of the small blind's opening
    actions; folding costs exactly the small blind both ways, and the other actions are finite and differ."""
    from experiments.preflop_check import monte_carlo_action_values, table_action_values

    bp, tab = table
    monkeypatch.setenv("POKERBOT_HOME", str(hunl_tiny_home))
    monkeypatch.setattr("realtime.preflop_values.FLOPS_PER_PAIR", 64)  # the fixture's table, cached
    monkeypatch.setattr("realtime.preflop_values.POSTFLOP_DEALS_PER_PAIR", 0)
    classes = [3, 168]  # 42o, AA
    from_table = table_action_values(bp, tab, classes)
    assert set(from_table) >= {"f", "c"}
    np.testing.assert_allclose(from_table["f"], -min(bp.game.blind), atol=1e-9)
    mc = monte_carlo_action_values(bp, classes, ["f", "c"], hands=200, seed=1)
    np.testing.assert_allclose(mc["f"][0], from_table["f"], atol=1e-9)
    assert np.all(mc["f"][1] == 0.0) and np.all(np.isfinite(mc["c"][0]))
    assert from_table["c"][1] > from_table["c"][0] + 50 and mc["c"][0][1] > mc["c"][0][0]  # AA limps better
