"""Battleship (Farina et al. 2019a): sizes, rules, payoffs, the first-shot subgame key."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.battleship import battleship, first_shot_subgame_key, placements
from pokerbot.efg.game import CHANCE, TERMINAL, EfgError


def test_sizes_of_table1_games() -> None:
    g = battleship(3, 1, timesteps=2)
    assert (g.num_nodes, g.num_infosets) == (238, 47)
    assert (g.treeplex(0).num_seqs, g.treeplex(1).num_seqs) == (49, 58)
    g4 = battleship(4, 1, timesteps=3)
    assert (g4.num_nodes, g4.num_infosets) == (3877, 738)


def test_placements() -> None:
    assert placements(3, 1, 1) == [frozenset({0}), frozenset({1}), frozenset({2})]
    assert len(placements(3, 2, 2)) == 7  # 2 rows x 2 horizontal + 3 columns x 1 vertical
    assert placements(2, 2, 3) == []
    with pytest.raises(EfgError):
        battleship(2, 2, timesteps=1, ship=3)
    with pytest.raises(EfgError):
        battleship(3, 1, timesteps=4)


def test_rules_and_payoffs() -> None:
    gamma = 5.0
    g = battleship(3, 1, timesteps=2, gamma=gamma)
    assert not (g.player == CHANCE).any()
    z = g.terminals
    outcomes = {tuple(p) for p in g.payoff[z]}
    assert outcomes == {(1.0, -gamma), (-gamma, 1.0), (0.0, 0.0)}
    for h in z:
        labels = g.path_labels(int(h))
        ships = [int(labels[0][1:]), int(labels[1][1:])]
        shots = [[int(s[1:]) for s in labels[2::2]], [int(s[1:]) for s in labels[3::2]]]
        for i in (0, 1):
            assert len(set(shots[i])) == len(shots[i])  # never fires twice at a cell
        hit = [ships[1] in shots[0], ships[0] in shots[1]]
        if g.payoff[h, 0] == 1.0:
            assert shots[0][-1] == ships[1] and labels[-1] == f"s{ships[1]}"
        elif g.payoff[h, 1] == 1.0:
            assert shots[1][-1] == ships[0]
        else:
            assert not any(hit) and len(shots[1]) == 2


def test_players_see_only_their_own_ship() -> None:
    g = battleship(3, 1, timesteps=1)
    # player 1's placement infoset holds all three of player 0's placements
    d1 = g.info[1].obs_decision[g.obs[1, np.flatnonzero(g.player == 1)]]
    assert g.treeplex(1).num_actions[0] == 3
    assert (np.bincount(d1)[0]) == 3


def test_first_shot_subgames() -> None:
    g = battleship(3, 1, timesteps=2)
    keys = {first_shot_subgame_key(g, h) for h in range(g.num_nodes)}
    keys.discard(None)
    assert len(keys) == 9  # J = n^2 first-shot pairs (both missed)
    for h in range(g.num_nodes):
        k = first_shot_subgame_key(g, h)
        if g.player[h] == TERMINAL and g.depth[h] <= 4:
            assert k is None
        if k is not None and g.parent[h] >= 0 and first_shot_subgame_key(g, int(g.parent[h])) is not None:
            assert first_shot_subgame_key(g, int(g.parent[h])) == k
