"""Tiny limit flop hold'em (``lfh-tiny``): the shipped game definition and its explicit tree
from :func:`pokerbot.efg.games.poker_game` (two hole cards, a three-card flop dealt at once)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from pokerbot.efg import game_value, games
from pokerbot.efg.game import CHANCE, Game
from pokerbot.gamedef import SHIPPED_GAMES, load_game


@pytest.fixture(scope="module")
def tree() -> Game:
    return games.load("lfh-tiny")  # about 8 s


def test_game_definition() -> None:
    assert SHIPPED_GAMES["lfh-tiny"] == "holdem.limit.2p.flop.tiny.game"
    g = load_game("lfh-tiny")
    assert (g.nolimit, g.num_players, g.num_rounds, g.deck_size) == (False, 2, 2, 8)
    assert (g.num_hole_cards, g.num_board_cards, g.max_raises, g.raise_size) == (2, (0, 3), (2, 2), (2, 4))


def test_tree_size_and_deals(tree: Game) -> None:
    assert (tree.num_nodes, tree.num_infosets) == (132749, 16968)
    assert tree.treeplex(0).num_infosets == tree.treeplex(1).num_infosets == 8484
    assert tree.is_zero_sum
    # chance deals player 0's hand, then player 1's from the rest, then a flop of 3 of the 4 left
    assert tree.player[0] == CHANCE and len(tree.children(0)) == comb(8, 2)
    assert len(tree.children(int(tree.children(0)[0]))) == comb(6, 2)
    flops = np.flatnonzero((tree.player == CHANCE) & (tree.depth > 2))
    assert all(len(tree.children(int(h))) == comb(4, 3) for h in flops[:50])
    assert tree.edge_label[int(tree.children(int(flops[0]))[0])] == "KhKsAh"  # after JhJs and QhQs
    # every deal of the two hands is equally likely, and every chance node's moves sum to 1
    assert tree.chance_reach[tree.depth == 2].sum() == pytest.approx(1.0)
    assert np.allclose(tree.chance_reach[tree.depth == 2], 1 / (comb(8, 2) * comb(6, 2)))
    kids = np.flatnonzero(tree.player[np.maximum(tree.parent, 0)] == CHANCE)
    kids = kids[tree.parent[kids] >= 0]
    sums = np.bincount(tree.parent[kids], weights=tree.edge_prob[kids], minlength=tree.num_nodes)
    assert np.allclose(sums[tree.player == CHANCE], 1.0)

def test_infoset_keys(tree: Game) -> None:
    keys = {games.infoset_key(tree, p, d) for p in (0, 1) for d in range(tree.treeplex(p).num_infosets)}
    assert len(keys) == tree.num_infosets  # one key per infoset, as the solver names them
    assert "JhJs:c" in keys and "AhAs/JhJsQh:rrc/r" in keys


@pytest.mark.slow
def test_game_value(tree: Game) -> None:  # the LP takes about 45 s
    assert game_value(tree.sequence_form) == pytest.approx(-0.058057, abs=1e-5)
