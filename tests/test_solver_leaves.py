"""Depth-limited solving in the solver core: leaves, leaf choices, equity leaves, exact leaf tables."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerbot.errors import CheckpointError
from pokerbot.gamedef import load_game
from pokerbot.solver import (
    Solver,
    SolverError,
    build_tree,
    expected_value,
    exploitability,
    pot_fraction_menu,
    solve,
    uniform_strategy,
)
from pokerbot.solver.best_response import best_response_values, counterfactual_values
from pokerbot.solver.leaf_tables import (
    ExactLeafEvaluator,
    PairTableEvaluator,
    embed_strategy,
    leaf_nodes_in_full_tree,
    restrict_strategy,
)
from pokerbot.solver.leaves import LeafEvaluator
from pokerbot.solver.tree import CHANCE, DECISION, LEAF

PUSH = pot_fraction_menu((), True, 1)  # fold / call / all-in, one raise a round
POT = pot_fraction_menu((1.0,), True, 1)


@pytest.fixture(scope="module")
def leduc_pot():
    game = load_game("leduc-nl")
    full = build_tree(game, POT)
    bp = solve(game, "dcfr", 1500, POT).strategy
    return game, full, build_tree(game, POT, depth_limit=0), bp


def test_depth_limit_stops_at_the_end_of_the_round() -> None:
    game = load_game("leduc-nl")
    dl = build_tree(game, POT, depth_limit=0)
    assert int((dl.kind == CHANCE).sum()) == 0 and dl.num_leaves == 5
    assert [s.betting_string() for s in dl.leaf_states] == ["cc/", "cr3c/", "cr20c/", "r3c/", "r20c/"]
    # All-in calls become equity leaves; the others are continuation leaves at the start of round 2.
    assert dl.leaf_equity.tolist() == [False, False, True, False, True]
    assert all(s.round == 1 and not s.finished for s, e in zip(dl.leaf_states, dl.leaf_equity) if not e)
    assert np.all(dl.kind[dl.leaf_nodes] == LEAF)
    # One more round: the whole game, no leaves.
    whole = build_tree(game, POT, depth_limit=1)
    assert whole.num_leaves == 0 and whole.num_nodes == build_tree(game, POT).num_nodes
    with pytest.raises(SolverError, match="depth_limit"):
        build_tree(game, POT, depth_limit=-1)


def test_blueprint_at_the_leaves_reproduces_the_whole_game(leduc_pot) -> None:
    game, full, dl, bp = leduc_pot
    ev = ExactLeafEvaluator(dl, full, ([bp], [bp]))
    strat = restrict_strategy(full, bp, dl, ev)
    assert expected_value(dl, strat, leaves=ev) == pytest.approx(expected_value(full, bp), abs=1e-12)
    for p in range(2):
        np.testing.assert_allclose(counterfactual_values(dl, strat, p, leaves=ev), counterfactual_values(full, bp, p),
                                   atol=1e-12)
    # A best response inside the depth-limited game cannot beat one in the whole game (the rest is fixed).
    dl_br = best_response_values(dl, strat, leaves=ev)
    full_br = best_response_values(full, bp)
    assert all(a <= b + 1e-12 for a, b in zip(dl_br, full_br))


def test_equity_leaves_match_the_expanded_run_outs() -> None:
    game = load_game("nlfh-small")
    full = build_tree(game, PUSH)
    dl = build_tree(game, PUSH, depth_limit=0)
    assert dl.leaf_equity.sum() >= 1 and dl.num_nodes < 20
    rng = np.random.default_rng(3)
    strat = rng.random(full.num_slots)
    for p in range(2):  # normalise per block via the policy round trip
        for n in full.decision_nodes[p]:
            nh = full.num_hands[p]
            blk = strat[full.slot[n] : full.slot[n] + full.num_children[n] * nh].reshape(-1, nh)
            blk /= blk.sum(axis=0)
    ev = ExactLeafEvaluator(dl, full, ([strat], [strat]))
    dstrat = restrict_strategy(full, strat, dl, ev)
    assert expected_value(dl, dstrat, leaves=ev) == pytest.approx(expected_value(full, strat), abs=1e-9)
    np.testing.assert_allclose(counterfactual_values(dl, dstrat, 1, leaves=ev), counterfactual_values(full, strat, 1),
                               atol=1e-9)


def _pure_continuations(full, dl, chooser: int, base: np.ndarray) -> list[np.ndarray]:
    """Every pure strategy of ``chooser`` below the leaves (``base`` elsewhere)."""
    below = []
    for n in leaf_nodes_in_full_tree(dl, full):
        stack = [int(n)]
        while stack:
            m = stack.pop()
            if full.kind[m] == DECISION and full.player[m] == chooser:
                below.append(m)
            if full.kind[m] in (DECISION, CHANCE):
                stack.extend(range(full.first_child[m], full.first_child[m] + full.num_children[m]))
    nh = full.num_hands[chooser]
    out = []
    for combo in itertools.product(*[range(int(full.num_children[m])) for m in below]):
        s = base.copy()
        for m, a in zip(below, combo):
            blk = s[full.slot[m] : full.slot[m] + full.num_children[m] * nh].reshape(-1, nh)
            blk[:] = 0.0
            blk[a] = 1.0
        out.append(s)
    return out


def test_all_pure_continuations_recover_an_equilibrium() -> None:
    """Proposition 1 of the Modicum paper, exactly, on no-limit Leduc (push / fold menu).

    Solving the depth-limited game (end of round 1) for each seat, with the opponent
    choosing among all of its pure continuation strategies per leaf infoset and the
    solver's seat playing the blueprint beyond, gives round-1 strategies that, glued to
    the blueprint, are an equilibrium of the whole game. The negative control: with
    the blueprint as the only continuation (K = 1) the glued strategy is exploitable.
    """
    game = load_game("leduc-nl")
    full = build_tree(game, PUSH)
    dl = build_tree(game, PUSH, depth_limit=0)
    bp = solve(game, "dcfr", 3000, PUSH).strategy
    bp_expl = exploitability(full, bp)
    assert bp_expl < 0.1  # measured 0.039 mbb/g
    glued = {}
    for label in ("pure", "blueprint only"):
        parts = []
        for seat in (0, 1):
            chooser = 1 - seat
            options = _pure_continuations(full, dl, chooser, bp) if label == "pure" else [bp]
            sets: list[list[np.ndarray]] = [[], []]
            sets[seat] = [bp]
            sets[chooser] = options
            ev = ExactLeafEvaluator(dl, full, (sets[0], sets[1]))
            assert ev.num_choices[chooser] == (4096 if label == "pure" else 1)
            s = Solver(dl, "dcfr", leaves=ev)
            s.run(2000)
            assert s.exploitability() < 0.1  # converged inside the depth-limited game
            parts.append(s.average_strategy())
        g = embed_strategy(dl, parts[0], full, bp, players=(0,))
        glued[label] = exploitability(full, embed_strategy(dl, parts[1], full, g, players=(1,)))
    assert glued["pure"] < 3 * bp_expl + 0.02  # measured 0.010 mbb/g
    assert glued["blueprint only"] > 10.0  # measured 32.0 mbb/g


def test_leaf_choices_are_decisions_for_both_variants(leduc_pot) -> None:
    game, full, dl, bp = leduc_pot
    folder = bp.copy()  # a continuation for both seats that folds to every round-2 bet where it can
    for p in range(2):
        nh = full.num_hands[p]
        for n in full.decision_nodes[p]:
            if full.labels[int(full.template[n])][0] == "f" and full.boards[int(full.board[n])][-1]:
                blk = folder[full.slot[n] : full.slot[n] + full.num_children[n] * nh].reshape(-1, nh)
                blk[:] = 0.0
                blk[0] = 1.0
    modicum = ExactLeafEvaluator(dl, full, ([bp], [bp, folder]))
    both = ExactLeafEvaluator(dl, full, ([bp, folder], [bp, folder]))
    assert modicum.num_choices == (1, 2) and both.num_choices == (2, 2)
    for ev in (modicum, both):
        s = Solver(dl, "dcfr", leaves=ev)
        s.run(600)
        assert s.exploitability() < 0.5
        avg = s.average_strategy()
        # The strategy array holds the leaf choices after the tree's decision slots.
        assert avg.shape == (s.num_slots,) and s.num_slots > dl.num_slots
    # A best response may pick a continuation: offering the folding one cannot lower its value.
    strat1 = restrict_strategy(full, bp, dl, ExactLeafEvaluator(dl, full, ([bp], [bp])))
    strat2 = restrict_strategy(full, bp, dl, modicum)
    br1 = best_response_values(dl, strat1, leaves=ExactLeafEvaluator(dl, full, ([bp], [bp])))[1]
    br2 = best_response_values(dl, strat2, leaves=modicum)[1]
    assert br2 >= br1 - 1e-12


def test_bad_leaf_input_is_refused(leduc_pot, tmp_path) -> None:
    game, full, dl, bp = leduc_pot
    with pytest.raises(SolverError, match="needs a LeafEvaluator"):
        Solver(dl, "cfr+")
    with pytest.raises(SolverError, match="K >= 1"):
        ExactLeafEvaluator(dl, full, ([bp], []))

    class Broken(LeafEvaluator):
        num_choices = (1, 1)

        def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
            return np.zeros((1, 1, 1))

    with pytest.raises(SolverError, match="shape"):
        Solver(dl, "cfr+", leaves=Broken()).run(1)
    with pytest.raises(SolverError, match=r"float64 \(or float32, or the uint16 sums of compressed storage\) of shape"):
        exploitability(dl, uniform_strategy(dl, Broken())[:-1], leaves=Broken())


def test_pair_tables_save_and_load_memory_mapped(leduc_pot, tmp_path) -> None:
    game, full, dl, bp = leduc_pot
    ev = ExactLeafEvaluator(dl, full, ([bp], [bp, uniform_strategy(full)]))
    path = tmp_path / "leaves.npy"
    ev.save(path, dl, {"game": "leduc-nl"})
    loaded = PairTableEvaluator.load(path, dl)
    assert isinstance(loaded.tables, np.memmap)
    reach = np.random.default_rng(0).random((len(dl.continuation_leaves), 2, 6))
    np.testing.assert_allclose(loaded.values(0, reach), ev.values(0, reach))
    other = build_tree(game, PUSH, depth_limit=0)
    with pytest.raises(CheckpointError, match="another depth-limited tree"):
        PairTableEvaluator.load(path, other)
    data = bytearray(path.read_bytes())
    data[-8] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        PairTableEvaluator.load(path, dl)
    path.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="not a readable leaf table"):
        PairTableEvaluator.load(path, dl)


def test_equity_products_are_the_matrix_product():
    from pokerbot.solver.leaves import equity_products

    rng = np.random.default_rng(7)
    e, r, stake = rng.standard_normal((37, 41)), rng.random((3, 41)), np.array([2.0, -1.5, 0.25])
    assert np.allclose(equity_products(e, r, stake), (e @ r.T).T * stake[:, None], rtol=1e-12, atol=1e-12)
    assert not np.allclose(equity_products(e, r, stake), (e @ r.T).T)  # the stakes do scale it


def test_equity_tables_are_kept_as_counts_with_the_float_values():
    """A HUNL turn's all-in equity table is kept as int8 counts (44 river cards) with one scale, a flop's as
    int16 (990 run-outs): the same matrix as the float computation to the last bit or one, and the all-in leaves'
    values the same to rounding as from a float table seeded in its place (the control: a different table
    changes them)."""
    from pokerbot.cards import parse_cards
    from pokerbot.solver.leaves import EquityTable, equity_entry, leaf_layout, runout_equity
    from pokerbot.state import CALL, State, raise_to

    class Zero(LeafEvaluator):  # the continuation leaves: not what is tested here
        num_choices = (1, 1)

        def __init__(self, tree):  # type: ignore[no-untyped-def]
            self.tree = tree

        def values(self, player: int, opp_reach: np.ndarray) -> np.ndarray:
            return np.zeros((opp_reach.shape[0], 1, self.tree.num_hands[player]))

    game = load_game("hunl")
    menu = pot_fraction_menu((1.0,), True, 1)
    for board, dtype, most in (("Ks7h2c9d", np.int8, 44), ("Ks7h2c", np.int16, 990)):
        root = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards(board))
        if len(board) == 8:
            root = root.apply(CALL).apply(CALL)
        tree = build_tree(game, menu, root=root, depth_limit=0)
        assert tree.leaf_equity.any()
        b = int(tree.board[tree.leaf_nodes[tree.leaf_equity][0]])
        entry = equity_entry(tree, b)
        assert entry.values.dtype == dtype and np.abs(entry.values).max() <= most
        exact = runout_equity(tree, b)
        np.testing.assert_allclose(entry.dense(), exact, rtol=2.3e-16, atol=0)
        assert np.array_equal(equity_entry(tree, b, 1).values, entry.values.T)
        layout = leaf_layout(tree, Zero(tree))
        rng = np.random.default_rng(3)
        reach = [rng.random((tree.num_leaves, 1, tree.num_hands[1 - p])) for p in range(2)]
        counted = [layout.leaf_values(p, reach[p]) for p in range(2)]
        seeded = build_tree(game, menu, root=root, depth_limit=0)
        seeded.equity_tables[b] = EquityTable.of(exact)
        floats = [leaf_layout(seeded, Zero(seeded)).leaf_values(p, reach[p]) for p in range(2)]
        for c, f in zip(counted, floats):
            assert np.abs(f).max() > 0
            np.testing.assert_allclose(c, f, rtol=1e-12, atol=1e-9 * np.abs(f).max())
        seeded.equity_tables[b] = EquityTable.of(exact * 0.5)
        seeded.equity_tables_t.clear()
        assert not np.allclose(leaf_layout(seeded, Zero(seeded)).leaf_values(0, reach[0]), counted[0])
