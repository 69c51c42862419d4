"""No-limit games under bet menus: no-limit Leduc and small-deck no-limit flop hold'em."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.gamedef import load_game
from pokerbot.solver import (
    DEFAULT_NOLIMIT_MENU,
    PotFractionMenu,
    Solver,
    SolverError,
    build_tree,
    menu_from_spec,
    menu_spec,
    policy_exploitability,
    pot_fraction_menu,
    solve,
)
from pokerbot.solver.tree import CHANCE, SHOWDOWN, PublicTree
from pokerbot.state import CALL, FOLD, State, raise_to


def test_no_limit_leduc_solves_to_low_exploitability() -> None:
    game = load_game("leduc-nl")
    result = solve(game, "dcfr", 500, pot_fraction_menu((0.5, 1.0), True, 2))
    assert result.exploitability() < 3.0  # measured 1.28 mbb/g
    # The menu's own exploitability measure agrees with the policy route.
    menu = pot_fraction_menu((0.5, 1.0), True, 2)
    assert policy_exploitability(game, result.policy, menu) == pytest.approx(result.exploitability(), abs=1e-6)


def test_small_deck_flop_holdem_solves_under_a_push_or_check_menu() -> None:
    game = load_game("nlfh-small")
    menu = pot_fraction_menu((), True, 1)  # fold / call / all-in, one raise a round
    tree = build_tree(game, menu)
    assert tree.num_hands == (153, 153)
    assert int((tree.kind == CHANCE).sum()) > 1  # flops after calls and after preflop all-ins
    s = Solver(tree, "dcfr")
    s.run(25)
    early = s.exploitability()
    s.run(75)
    late = s.exploitability()
    assert late < 5.0 < early  # measured 65 then 2.7 mbb/g


def test_all_in_preflop_runs_out_the_board() -> None:
    game = load_game("nlfh-small")
    tree = build_tree(game, pot_fraction_menu((), True, 1))
    # r2000c/: both all-in preflop -> deal the flop -> showdown for the whole stack.
    idx = [i for i, b in enumerate(tree.betting) if b == "r2000c/"]
    assert idx
    nodes = np.nonzero(np.isin(tree.template, idx))[0]
    kinds = set(tree.kind[nodes].tolist())
    assert kinds == {CHANCE, SHOWDOWN}
    sd = nodes[tree.kind[nodes] == SHOWDOWN]
    assert len(sd) == 816 and np.all(tree.amount[sd] == 2000)


def test_pot_fraction_menu() -> None:
    game = load_game("hunl")
    s = State.initial(game)
    assert [str(a) for a in pot_fraction_menu((0.5, 1.0))(s)] == ["f", "c", "r200", "r300", "r20000"]
    s = s.apply(raise_to(300)).apply(CALL)  # flop, pot 600
    assert [str(a) for a in pot_fraction_menu((0.5, 1.0), False)(s)] == ["c", "r600", "r900"]
    capped = s.apply(raise_to(600)).apply(raise_to(1800))
    assert [str(a) for a in pot_fraction_menu((1.0,), True, 2)(capped)] == ["f", "c"]
    assert [str(a) for a in PotFractionMenu((1.0,), True, 2, all_in_after_cap=True)(capped)] == ["f", "c", "r20000"]
    for m in (DEFAULT_NOLIMIT_MENU, pot_fraction_menu((), True, 1), pot_fraction_menu((0.33, 2.5), False, 4)):
        assert menu_from_spec(menu_spec(m)) == m
    with pytest.raises(SolverError, match="bet menu description"):
        menu_from_spec("geometric 2")
    with pytest.raises(SolverError, match="positive"):
        pot_fraction_menu((0.0,))


def test_bad_menus_are_refused() -> None:
    game = load_game("leduc-nl")
    with pytest.raises(SolverError, match="illegal action r1"):
        build_tree(game, lambda s: [CALL, raise_to(1)])
    with pytest.raises(SolverError, match="no action"):
        build_tree(game, lambda s: [])
    with pytest.raises(SolverError, match="twice"):
        build_tree(game, lambda s: [CALL, CALL])
    with pytest.raises(SolverError, match="illegal action f"):
        build_tree(game, lambda s: [FOLD, CALL])  # nobody faces a bet at the root
    with pytest.raises(SolverError, match="two-player"):
        from pokerbot.gamedef import parse_gamedef

        three = parse_gamedef(load_game("kuhn").to_text().replace("numPlayers = 2", "numPlayers = 3").replace("blind = 1 1", "blind = 1 1 1"))
        build_tree(three)


def test_trees_restricted_to_some_deals_add_up_to_the_whole_tree() -> None:
    """``build_tree(deals=...)``: the values of trees holding a partition of the river cards, weighted by their
    shares of the cards, add up to the whole tree's (card removal at showdowns and folds included); one part
    alone does not."""
    from pokerbot.solver import expected_value
    from pokerbot.solver.tree import hand_universe

    game = load_game("hunl")
    root = State.initial(game, board_cards=[0, 17, 30, 45, 9])
    for _ in range(4):  # a limp and a check preflop, two checks on the flop: the turn
        root = root.apply(CALL)
    root = root.with_cards(hole_cards=((), ()), board_cards=root.visible_board)
    assert root.round == 2 and len(root.visible_board) == 4
    uni = hand_universe(game)
    menu = pot_fraction_menu((1.0,), True, 1)
    full = build_tree(game, menu, root=root, hands=(uni, uni))
    rng = np.random.default_rng(3)
    ranges = (rng.random(len(uni)), rng.random(len(uni)))
    river = [c for c in range(52) if c not in root.visible_board]
    parts = [river[i::3] for i in range(3)]
    trees = [build_tree(game, menu, root=root, hands=(uni, uni), deals={3: [(c,) for c in part]}) for part in parts]
    assert sum(int(t.num_children[t.kind == CHANCE].sum()) for t in trees) == int(full.num_children[full.kind == CHANCE].sum())

    def strategy(t: PublicTree) -> np.ndarray:  # one random strategy, the same at a betting and board in every tree
        import zlib

        out = np.zeros(t.num_slots)
        for n in np.nonzero(t.slot >= 0)[0]:
            k, h = int(t.num_children[n]), t.num_hands[int(t.player[n])]
            key = f"{t.betting[int(t.template[n])]}|{t.board_text(int(t.board[n]))}"
            g = np.random.default_rng(zlib.crc32(key.encode()))
            x = g.random((k, h))
            out[t.slot[n]: t.slot[n] + k * h] = (x / x.sum(axis=0)).ravel()
        return out

    whole = expected_value(full, strategy(full), ranges)
    part_values = [expected_value(t, strategy(t), ranges) for t in trees]
    shares = [len(part) / len(river) for part in parts]
    assert sum(s * v for s, v in zip(shares, part_values, strict=True)) == pytest.approx(whole, rel=1e-9, abs=1e-9)
    assert abs(part_values[0] - whole) > 1e-3  # negative control: one part is not the whole
    with pytest.raises(SolverError, match="deals"):
        build_tree(game, menu, root=root, hands=(uni, uni), deals={3: [(root.visible_board[0],)]})
