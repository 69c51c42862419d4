"""Rollout leaf values for HUNL subgames from the hunl-tiny blueprint (built by ``pokerbot demo``)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.cards import parse_cards
from pokerbot.gamedef import load_game
from pokerbot.solver import PotFractionMenu, Solver, SolverError, build_tree
from pokerbot.state import CALL, State, raise_to


@pytest.fixture(scope="module")
def setup(hunl_tiny_home):
    from blueprint.continuation import bias_strategies
    from blueprint.model import Blueprint

    bp = Blueprint.load(hunl_tiny_home / "blueprints" / "hunl-tiny" / "blueprint.npz")
    game = load_game("hunl")
    root = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c"))
    tree = build_tree(game, PotFractionMenu((1.0,), True, 1), root=root, depth_limit=0)
    sets = bias_strategies(bp.tree, bp.strategy, 10.0, 4)
    return bp, tree, sets


def test_leaf_mapping_follows_the_action_sequence(setup) -> None:
    from realtime.leaf_values import map_to_abstract

    bp, tree, _ = setup
    game = tree.game
    s = State.initial(game).apply(raise_to(300)).apply(CALL)
    s = s.with_cards(board_cards=parse_cards("Ks7h2c")).apply(CALL).apply(CALL)
    node, abs_state = map_to_abstract(bp.tree, s)
    assert abs_state.betting_string() == "r300c/cc/" and bp.tree.kind[node] == 0 and bp.tree.round[node] == 2
    # A 0.75-pot open (r250) maps to the nearest abstract raise by pot fraction (pot, not all-in).
    s2 = State.initial(game).apply(raise_to(250)).apply(CALL)
    node2, abs2 = map_to_abstract(bp.tree, s2)
    assert abs2.betting_string() == "r300c/"


def test_rollout_values_are_zero_sum_linear_and_seeded(setup) -> None:
    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    ev = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets), rollouts=2, seed=7)
    assert ev.num_choices == (1, 4)
    nl = len(tree.continuation_leaves)
    rng = np.random.default_rng(0)
    r0 = rng.random((nl, 1, tree.num_hands[0]))
    r1 = rng.random((nl, 4, tree.num_hands[1]))
    v0 = ev.values(0, r1)  # (L, 1, H)
    v1 = ev.values(1, r0)  # (L, 4, H)
    assert v0.shape == (nl, 1, tree.num_hands[0]) and v1.shape == (nl, 4, tree.num_hands[1])
    # Zero-sum: both sides' reach-weighted values of each leaf cancel.
    lhs = np.einsum("lkh,lkh->l", r0, v0)
    rhs = np.einsum("lkh,lkh->l", r1, v1)
    np.testing.assert_allclose(lhs, -rhs, rtol=1e-9, atol=1e-6)
    assert np.abs(lhs).max() > 0
    # Linear in the opponent's reach.
    np.testing.assert_allclose(ev.values(0, 2.0 * r1 + r1[:, ::-1]), 2.0 * v0 + ev.values(0, r1[:, ::-1]), rtol=1e-9, atol=1e-9)
    # The options differ (a fold-biased opponent is worth something else than the blueprint).
    assert not np.allclose(v1[:, 0], v1[:, 1])
    # Seeded: the same seed gives the same values, another seed other run-outs.
    again = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets), rollouts=2, seed=7)
    np.testing.assert_array_equal(again.values(0, r1), v0)
    other = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets), rollouts=2, seed=8)
    assert not np.allclose(other.values(0, r1), v0)


def test_depth_limited_hunl_flop_solve_converges_with_rollout_leaves(setup) -> None:
    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    ev = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets), rollouts=1, seed=0)
    s = Solver(tree, "dcfr", leaves=ev)
    s.run(10)
    early = s.exploitability()
    s.run(70)
    late = s.exploitability()
    assert late < 0.5 * early
    pot_mbb = 600 / 100 * 1000
    assert late < 0.02 * pot_mbb  # below 2% of the pot inside the depth-limited game


def test_bad_rollout_input_is_refused(setup) -> None:
    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    with pytest.raises(SolverError, match="rollouts"):
        RolloutLeafEvaluator(tree, bp, ([sets[0]], sets), rollouts=-1)
    with pytest.raises(SolverError, match="K >= 1"):
        RolloutLeafEvaluator(tree, bp, ([sets[0]], []))
    with pytest.raises(SolverError, match="does not fit the blueprint"):
        RolloutLeafEvaluator(tree, bp, ([sets[0][:-1]], sets))
    leduc = build_tree(load_game("leduc-nl"), PotFractionMenu((1.0,), True, 1), depth_limit=0)
    with pytest.raises(SolverError, match="another game"):
        RolloutLeafEvaluator(leduc, bp, ([sets[0]], sets))


@pytest.fixture(scope="module")
def leduc_exact_and_rollouts():
    """A no-limit Leduc blueprint (lossless cards), its depth-limited tree (leaves at the end of round 1), the exact
    leaf values of the blueprint played to the end on the whole-game tree, and a rollout evaluator's over every run-out."""
    from blueprint.config import BlueprintConfig
    from blueprint.model import make_menu
    from blueprint.policy import BlueprintPolicy
    from blueprint.trainer import Trainer
    from pokerbot.solver import uniform_strategy
    from pokerbot.solver.leaf_tables import ExactLeafEvaluator
    from realtime.leaf_values import RolloutLeafEvaluator
    from realtime.subgame import blueprint_on_tree

    trainer = Trainer(BlueprintConfig(name="leaves", game="leduc-nl", iterations=2000, cards="lossless",
                                      actions="pot_allin", seed=1), directory=None)
    trainer.train(progress=False)
    bp = trainer.blueprint()
    game = bp.game
    menu = make_menu("pot_allin", game)
    full, dl = build_tree(game, menu), build_tree(game, menu, depth_limit=0)
    on_full = uniform_strategy(full)
    policy = BlueprintPolicy(bp)
    for p in range(2):
        blueprint_on_tree(full, policy, p, on_full)
    exact = ExactLeafEvaluator(dl, full, ([on_full], [on_full]))
    rollouts = RolloutLeafEvaluator(dl, bp, ([bp.strategy], [bp.strategy]), rollouts=0)
    return bp, dl, exact, rollouts


def _disjoint_reach(dl, player: int, cards: set[int], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Opponent reach on the hands that hold none of ``cards``, and the mask of ``player``'s hands inside ``cards``."""
    own = np.array([set(map(int, h)) <= cards for h in dl.hands[player]])
    free = np.array([not set(map(int, h)) & cards for h in dl.hands[1 - player]])
    reach = rng.random((len(dl.continuation_leaves), 1, dl.num_hands[1 - player])) * free[None, None, :]
    return reach, own


def test_every_runout_rollouts_are_the_exact_continuation_values(leduc_exact_and_rollouts) -> None:
    """``rollouts=0`` (every run-out) with lossless cards gives the exact values of the continuation played to the
    end, wherever the class sums' one approximation (card removal between the two hands) has nothing to remove;
    negative controls: with overlapping hands in the opponent's reach, with one sampled run-out, and with another
    continuation strategy, the values differ."""
    from realtime.leaf_values import RolloutLeafEvaluator

    bp, dl, exact, rollouts = leduc_exact_and_rollouts
    assert rollouts.rollouts == 6  # the six cards of the deck: every round-2 board
    rng = np.random.default_rng(0)
    deck = list(dl.game.deck())
    one_runout = RolloutLeafEvaluator(dl, bp, ([bp.strategy], [bp.strategy]), rollouts=1, seed=3)
    uniform_bp = np.full_like(bp.strategy, 0.0)
    for node in np.flatnonzero(bp.tree.kind == 0):
        a_n, base = int(bp.tree.num_actions[node]), int(bp.tree.base[node])
        uniform_bp[base : base + a_n * bp.tree.num_buckets[int(bp.tree.round[node])]] = 1.0 / a_n
    other = RolloutLeafEvaluator(dl, bp, ([uniform_bp], [uniform_bp]), rollouts=0)
    for player in range(2):
        for held in (deck[:2], deck[2:4], deck[4:]):  # the pair of cards of one rank: the player's two hands
            reach, own = _disjoint_reach(dl, player, set(held), rng)
            want = exact.values(player, reach)[:, :, own]
            scale = np.abs(want).max()
            assert scale > 1.0
            np.testing.assert_allclose(rollouts.values(player, reach)[:, :, own], want, rtol=0, atol=1e-6 * scale)
            assert np.abs(one_runout.values(player, reach)[:, :, own] - want).max() > 1e-3 * scale
            assert np.abs(other.values(player, reach)[:, :, own] - want).max() > 1e-3 * scale
        everyone = rng.random((len(dl.continuation_leaves), 1, dl.num_hands[1 - player]))
        assert np.abs(rollouts.values(player, everyone) - exact.values(player, everyone)).max() > 1e-2 * scale


def _class_values_per_terminal(atree, terminals, strats, buckets, eq):
    """Player 0's payoff between card classes, one terminal and one path edge at a time (the reference)."""
    n = (buckets[0].shape[1], buckets[1].shape[1])
    fold = np.zeros(n)
    show = np.zeros(n)
    for t in terminals:
        reach = [np.ones(n[0]), np.ones(n[1])]
        for node, a, p, rnd in t.path:
            na = int(atree.num_actions[node])
            reach[p] = reach[p] * np.asarray(strats[p])[int(atree.base[node]) + buckets[p][rnd] * na + a]
        outer = np.outer(reach[0], reach[1])
        if t.fold_by < 0:
            show += t.stake * outer
        else:
            fold += (t.stake if t.fold_by == 1 else -t.stake) * outer
    return fold + show * eq


def test_batched_path_reaches_match_the_per_terminal_sum(setup) -> None:
    from blueprint.continuation import bias_views
    from realtime.leaf_values import RolloutLeafEvaluator, _TerminalPaths, map_to_abstract

    bp, tree, sets = setup
    atree = bp.tree
    views = bias_views(atree, np.asarray(bp.strategy, dtype=np.float32), 10.0, 4)
    rng = np.random.default_rng(3)
    checked = 0
    leaves = tree.continuation_leaves[:6]
    assert len(leaves) >= 3
    for li in leaves:
        node, _ = map_to_abstract(atree, tree.leaf_states[int(li)])
        terminals = RolloutLeafEvaluator._terminals(atree, int(node))
        paths = _TerminalPaths.build(terminals)
        rnd0 = int(atree.round[node]) if atree.kind[node] == 0 else 3
        buckets = [np.zeros((4, n), dtype=np.int64) for n in (7, 5)]
        for p in range(2):
            for r in range(rnd0, 4):
                buckets[p][r] = rng.integers(0, atree.num_buckets[r], size=buckets[p].shape[1])
        eq = rng.uniform(-1, 1, size=(7, 5))
        reach = [[paths.reach(atree, p, v, buckets[p]) for v in views] for p in range(2)]
        got = paths.class_values(reach[0][:3], reach[1], eq)  # (3, 4, 7, 5)
        assert got.shape == (3, 4, 7, 5)
        for a, b in ((0, 0), (0, 3), (2, 1)):
            want = _class_values_per_terminal(atree, terminals, (sets[a], sets[b]), buckets, eq)
            np.testing.assert_allclose(got[a, b], want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
            checked += 1
        # Negative control: other strategies give other values.
        other = _class_values_per_terminal(atree, terminals, (sets[0], sets[1]), buckets, eq)
        if len(terminals) > 2:
            assert not np.allclose(other, _class_values_per_terminal(atree, terminals, (sets[0], sets[3]), buckets, eq))
    assert checked == 3 * len(leaves)


def test_class_equity_is_the_mean_sign_over_disjoint_hand_pairs() -> None:
    import itertools

    from realtime.leaf_values import _class_equity

    rng = np.random.default_rng(5)
    hands = np.array(list(itertools.combinations(range(10), 2)), dtype=np.int64)  # 45 hands of a 10-card deck
    cls0 = np.where(rng.random(45) < 0.8, rng.integers(0, 6, 45), -1)
    cls1 = np.where(rng.random(45) < 0.8, rng.integers(0, 4, 45), -1)
    s0, s1 = rng.integers(0, 5, 45), rng.integers(0, 5, 45)
    want = np.zeros((6, 4))
    for a, b in itertools.product(range(6), range(4)):
        signs = [np.sign(s0[i] - s1[j]) for i in range(45) for j in range(45)
                 if cls0[i] == a and cls1[j] == b and not set(hands[i]) & set(hands[j])]
        want[a, b] = np.mean(signs) if signs else 0.0
    got = _class_equity(s0, s1, cls0, cls1, hands, hands, 6, 4)
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.abs(want).max() > 0.1  # not all ties


def test_shared_runouts_value_every_leaf_of_a_board_over_the_same_cards(setup) -> None:
    """``shared=True``: the leaves of a flop subgame (one board) see the same sampled run-outs, so each hand
    falls in the same card class at every leaf; drawn per leaf (the negative control) they do not."""
    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    assert len(tree.continuation_leaves) > 1
    shared = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets[:1]), rollouts=3, seed=5, shared=True)
    own = RolloutLeafEvaluator(tree, bp, ([sets[0]], sets[:1]), rollouts=3, seed=5)
    for p in range(2):
        assert (shared.leaf_classes(p) == shared.leaf_classes(p)[:1]).all()
        assert not (own.leaf_classes(p) == own.leaf_classes(p)[:1]).all()
    # Same cards, same classes: leaves with the same betting line at the same pot would get the same values.
    assert (shared._rows == shared._rows[:1]).all()


def test_a_memory_cap_keeps_the_run_outs_that_fit(setup, caplog) -> None:
    """``max_bytes``: with the planned run-outs over the cap, the first that fit are kept (shared run-outs: the
    evaluator is then the one built with that many), every run-out becomes a sample of them, and a cap below one
    run-out is refused; a cap that does not bind changes nothing."""
    import logging

    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    conts = ([sets[0]], sets[:2])
    full = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True)
    assert full.rollouts == 6 and full.planned_bytes > 0
    rng = np.random.default_rng(1)
    r1 = rng.random((len(tree.continuation_leaves), 2, tree.num_hands[1]))
    unbound = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=full.planned_bytes)
    np.testing.assert_array_equal(unbound.values(0, r1), full.values(0, r1))
    with caplog.at_level(logging.WARNING, logger="realtime"):
        capped = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=full.planned_bytes / 2)
    assert 1 <= capped.rollouts < 6 and "over the" in caplog.text
    fewer = RolloutLeafEvaluator(tree, bp, conts, rollouts=capped.rollouts, seed=3, shared=True)
    assert fewer.planned_bytes <= full.planned_bytes / 2
    np.testing.assert_allclose(capped.values(0, r1), fewer.values(0, r1), rtol=1e-12)
    assert not np.allclose(capped.values(0, r1), full.values(0, r1))
    with pytest.raises(SolverError, match="cap"):
        RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=1.0)
    # The turn's every river card: over the cap, a sample of them, weighted as a sample.
    game = tree.game
    turn = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c9d"))
    turn = turn.apply(CALL).apply(CALL)  # flop checked through: the turn
    ttree = build_tree(game, PotFractionMenu((1.0,), True, 1), root=turn, depth_limit=0)
    every = RolloutLeafEvaluator(ttree, bp, conts, rollouts=0, seed=3)
    assert every.rollouts == 48  # the deck less the board (hands block the rest by their classes)
    sampled = RolloutLeafEvaluator(ttree, bp, conts, rollouts=0, seed=3, max_bytes=every.planned_bytes / 4)
    assert 1 <= sampled.rollouts <= 12
    r1t = rng.random((len(ttree.continuation_leaves), 2, ttree.num_hands[1]))
    v_every, v_sampled = every.values(0, r1t), sampled.values(0, r1t)
    assert not np.allclose(v_every, v_sampled)
    # a sample's weight is the whole's: the values are of the same size, not a quarter of them
    assert 0.5 < np.abs(v_sampled).sum() / np.abs(v_every).sum() < 2.0


def test_a_leaf_budget_is_the_cap_chosen_quietly(setup, caplog) -> None:
    """``budget_bytes`` (a round's ``leaf_mb``) cuts the run-outs as the memory cap does, to the same evaluator,
    but logs at info level (a chosen budget, not a lack of memory); the tighter of the two binds."""
    import logging

    from realtime.leaf_values import RolloutLeafEvaluator

    bp, tree, sets = setup
    conts = ([sets[0]], sets[:2])
    full = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True)
    r1 = np.random.default_rng(2).random((len(tree.continuation_leaves), 2, tree.num_hands[1]))
    with caplog.at_level(logging.INFO, logger="realtime"):
        budget = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True,
                                      max_bytes=full.planned_bytes * 10, budget_bytes=full.planned_bytes / 2)
    infos = [r for r in caplog.records if "budget" in r.getMessage()]
    assert infos and all(r.levelno == logging.INFO for r in infos)
    capped = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=full.planned_bytes / 2)
    assert 1 <= budget.rollouts == capped.rollouts < 6
    np.testing.assert_array_equal(budget.values(0, r1), capped.values(0, r1))
    # an unbinding budget changes nothing; under a tighter memory cap the cap binds, with its warning
    loose = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, budget_bytes=full.planned_bytes)
    np.testing.assert_array_equal(loose.values(0, r1), full.values(0, r1))
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="realtime"):
        RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=full.planned_bytes / 2,
                             budget_bytes=full.planned_bytes)
    assert [r.levelno for r in caplog.records if "over the" in r.getMessage()] == [logging.WARNING]
    assert "MiB cap" in caplog.text
    # a budget under one run-out keeps one (a time aim), where a memory cap under one is refused
    one = RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, budget_bytes=1.0)
    assert one.rollouts == 1
    with pytest.raises(SolverError, match="cap"):
        RolloutLeafEvaluator(tree, bp, conts, rollouts=6, seed=3, shared=True, max_bytes=1.0, budget_bytes=1.0)
