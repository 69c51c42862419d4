"""The general-sum games of the safe Stackelberg search paper: sizes, rules, subgames."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.general_sum_games import (
    figure1,
    figure2,
    figure_subgame,
    goofspiel,
    goofspiel_subgame,
    label_subgames,
    leduc_sizes,
    leduc_subgame,
    raked_leduc,
    two_stage,
    two_stage_spec,
    two_stage_subgame,
)


def _leaf(game: Game, path: list[str]) -> tuple[float, float]:
    """The payoffs at the terminal reached by following edge labels from the root."""
    h = 0
    for lab in path:
        h = next(int(c) for c in game.children(h) if game.edge_label[c] == lab)
    assert game.player[h] == 3, f"{path} is not terminal"
    return float(game.payoff[h, 0]), float(game.payoff[h, 1])


@pytest.mark.parametrize("ranks", [2, 3])
def test_raked_leduc_sizes_match_the_closed_forms(ranks: int) -> None:
    g = raked_leduc(ranks)
    for i in (0, 1):
        assert (g.treeplex(i).num_infosets, g.treeplex(i).num_seqs) == leduc_sizes(ranks)
    assert leduc_sizes(3) == (2016, 5377) and leduc_sizes(4) == (3744, 9985)  # Table 3's columns
    # subgames: 11 ways round 1 continues x 2n board cards
    assert label_subgames(g, leduc_subgame).max() + 1 == 11 * 2 * ranks


def test_raked_leduc_payoffs_under_both_rake_rules() -> None:
    code, paper, plain = raked_leduc(2, 0.1, "code"), raked_leduc(2, 0.1, "paper"), raked_leduc(2, 0.0)
    # cards: ranks 0a 0b 1a 1b; player 0 holds 1a, player 1 0a
    fold = ["1a", "0a", "r", "f"]  # player 1 folds her ante of 1
    assert _leaf(code, fold) == pytest.approx((0.8, -1.0))
    assert _leaf(paper, fold) == pytest.approx((0.9, -1.0))
    assert _leaf(plain, fold) == pytest.approx((1.0, -1.0))
    show = ["1a", "0a", "r", "c", "1b", "r", "c"]  # board 1b pairs player 0; pots 1+2+4 = 7 each
    assert _leaf(code, show) == pytest.approx((0.8 * 7, -7.0))
    assert _leaf(paper, show) == pytest.approx((0.9 * 7, -7.0))
    tie = ["0a", "0b", "c", "c", "1a", "c", "c"]  # equal ranks, no pair: a tie
    assert _leaf(code, tie) == pytest.approx((-0.1, -0.1))
    assert _leaf(paper, tie) == pytest.approx((0.0, 0.0))
    assert plain.is_zero_sum and not code.is_zero_sum
    assert np.array_equal(plain.treeplex(1).parent_seq, code.treeplex(1).parent_seq)
    with pytest.raises(EfgError, match="rake rule"):
        raked_leduc(2, 0.1, "house")


def test_generator_rule_names_the_round_two_folder_by_round_one_parity() -> None:
    gen, code = raked_leduc(2, 0.1, "generator"), raked_leduc(2, 0.1, "code")
    # round 1 "cc" (even), round 2: player 1 raises and player 0 folds her 1 chip.
    p0_folds = ["1a", "0a", "c", "c", "1b", "c", "r", "f"]
    assert _leaf(code, p0_folds) == pytest.approx((-1.0, 0.8))
    # the generator pays the folder: player 1's 5 chips less the rake of 2ρ·min(pot) = 0.2
    assert _leaf(gen, p0_folds) == pytest.approx((4.8, -5.0))
    # round 1 "crc" (odd): player 1 folding in round 2 is scored as player 0 folding
    p1_folds = ["1a", "0a", "c", "r", "c", "1b", "r", "f"]
    assert _leaf(code, p1_folds) == pytest.approx((0.8 * 3, -3.0))
    assert _leaf(gen, p1_folds) == pytest.approx((-7.0, 7.0 - 0.6))  # player 0 raised to 7
    # round-1 folds and showdowns are the code rule's
    for path in (["1a", "0a", "r", "f"], ["1a", "0a", "r", "c", "1b", "r", "c"], ["0a", "0b", "c", "c", "1a", "c", "c"]):
        assert _leaf(gen, path) == pytest.approx(_leaf(code, path))
    assert raked_leduc(2, 0.0, "generator").is_zero_sum


def test_five_raises_cap_and_fold_only_facing_a_raise() -> None:
    g = raked_leduc(2)
    labels = {g.treeplex(0).labels[d] for d in range(g.treeplex(0).num_infosets)}
    assert labels == {("c", "r"), ("f", "c", "r"), ("f", "c")}
    assert _leaf(g, ["1a", "0a"] + ["r"] * 5 + ["f"])[0] == pytest.approx(0.8 * 9)  # player 1 put in 1+2*4 = 9


def test_goofspiel_sizes_subgame_counts_and_tie_rule() -> None:
    g = goofspiel(4)
    assert all((g.treeplex(i).num_infosets, g.treeplex(i).num_seqs) == (17476, 21329) for i in (0, 1))
    assert [label_subgames(g, goofspiel_subgame(4, m)).max() + 1 for m in (2, 3, 4)] == [1728, 64, 1]
    z = goofspiel(4, zero_sum=True)
    assert z.is_zero_sum and not g.is_zero_sum
    assert np.array_equal(z.treeplex(0).parent_seq, g.treeplex(0).parent_seq)
    # prizes 3,2,1,0 in order; bids equal in the first round (tie: nobody), then player 0 wins 2 and 0
    path = ["p3", "b4", "b4", "p2", "b3", "b1", "p1", "b1", "b2", "p0", "b2", "b3"]
    assert _leaf(g, path) == (2.0, 1.0)
    assert _leaf(z, path) == (0.5, -0.5)
    with pytest.raises(EfgError, match="depth"):
        goofspiel_subgame(4, 5)


def test_two_stage_games_are_seeded_and_transitions_follow_kappa() -> None:
    a, b = two_stage_spec(2, 3, 2, 0.5, seed=7), two_stage_spec(2, 3, 2, 0.5, seed=7)
    assert np.array_equal(a.main, b.main) and np.array_equal(a.transition, b.transition)
    assert np.allclose(a.transition.sum(axis=0), 1.0)
    assert np.allclose(two_stage_spec(2, 3, 2, 0.0, seed=1).transition, 1 / 3)
    g = two_stage(a)
    assert label_subgames(g, two_stage_subgame).max() + 1 == 2 * 2 * 3
    assert _leaf(g, ["a1", "c0", "g2", "r1", "s0"]) == pytest.approx(
        (a.main[0, 1, 0] + a.secondary[2, 0, 1, 0], a.main[1, 1, 0] + a.secondary[2, 1, 1, 0]))


def test_figure_games_have_their_two_subgames() -> None:
    for g, follower_infosets in ((figure1(), 4), (figure2(), 3)):
        lab = label_subgames(g, figure_subgame)
        assert lab.max() == 1 and (lab == 0).sum() == (lab == 1).sum() == 7
        assert g.treeplex(1).num_infosets == follower_infosets
