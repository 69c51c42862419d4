"""The solver's exploitability and values agree with OpenSpiel's on Kuhn and Leduc.

OpenSpiel (pyspiel 2.0.2) is a test oracle only. Its ``universal_poker`` game
takes the ACPC parameters of our ``.game`` files but deals from the *lowest*
ranks and *first* suits (Leduc is 2c 2d 3c 3d 4c 4d), where the ACPC server
and this project use the highest ranks and last suits (Qh Qs Kh Ks Ah As).
Shifting ranks and suits up is an isomorphism of these games, so each
OpenSpiel information set maps to one of ours.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from pokerbot.cards import RANK_CHARS, SUIT_CHARS, format_card, make_card
from pokerbot.gamedef import GameDef, load_game
from pokerbot.solver import (
    build_tree,
    canonical_key,
    policy_exploitability,
    policy_value,
    solve,
    strategy_to_policy,
)
from pokerbot.solver import kernels as K

import pyspiel  # test oracle (a test extra): a missing oracle must fail, not skip
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value as os_policy_value  # noqa: E402

_ACPC = re.compile(r"ACPC State: STATE:\d+:([^:]*):(\S*)")
_LABEL = {0: "f", 1: "c", 2: "r"}


def os_game(game: GameDef):
    params = {
        "betting": "limit",
        "numPlayers": 2,
        "numRounds": game.num_rounds,
        "blind": " ".join(map(str, game.blind)),
        "raiseSize": " ".join(map(str, game.raise_size)),
        "firstPlayer": " ".join(str(p + 1) for p in game.first_player),
        "maxRaises": " ".join(map(str, game.max_raises)),
        "numSuits": game.num_suits,
        "numRanks": game.num_ranks,
        "numHoleCards": game.num_hole_cards,
        "numBoardCards": " ".join(map(str, game.num_board_cards)),
    }
    return pyspiel.load_game("universal_poker", params)


def _map_cards(text: str, game: GameDef) -> str:
    out = []
    for i in range(0, len(text), 2):
        rank = RANK_CHARS.index(text[i]) + 13 - game.num_ranks
        suit = SUIT_CHARS.index(text[i + 1]) + 4 - game.num_suits
        out.append(format_card(make_card(rank, suit)))
    return "".join(out)


def our_key(state, game: GameDef) -> str:
    """Our infoset key of the player to act in an OpenSpiel universal_poker state."""
    m = _ACPC.search(str(state))
    assert m, str(state)
    betting, cards = m.group(1), m.group(2)
    holes, _, board = cards.partition("/")
    hole = holes.split("|")[state.current_player()]
    groups = [_map_cards(hole, game)] + [_map_cards(g, game) for g in board.split("/")] if board else [_map_cards(hole, game)]
    return canonical_key("/".join(groups) + ":" + betting)


def to_openspiel(game: GameDef, policy: dict) -> os_policy.TabularPolicy:
    """OpenSpiel tabular policy playing our ``policy`` (uniform where it has no entry)."""
    g = os_game(game)
    tab = os_policy.TabularPolicy(g)
    seen = set()
    missing = []

    def walk(state) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                walk(state.child(a))
            return
        info = state.information_state_string()
        if info not in seen:
            seen.add(info)
            legal = state.legal_actions()
            key = our_key(state, game)
            dist = policy.get(key)
            if dist is None:
                missing.append(key)
            row = tab.policy_for_key(info)
            row[:] = 0.0
            for a in legal:
                row[a] = 1.0 / len(legal) if dist is None else dist.get(_LABEL[a], 0.0)
            row /= row.sum()
        for a in state.legal_actions():
            walk(state.child(a))

    walk(g.new_initial_state())
    # Every OpenSpiel information set must map to one of ours (else the comparison is vacuous).
    assert not policy or not missing, missing[:5]
    return tab


def random_policy(game: GameDef, seed: int) -> dict:
    tree = build_tree(game)
    rng = np.random.default_rng(seed)
    raw = rng.random(tree.num_slots) ** 3
    raw[rng.random(tree.num_slots) < 0.25] = 0.0
    strat = np.empty(tree.num_slots)
    for p in range(2):
        K.normalize(tree.decision_nodes[p], tree.num_children, tree.slot, tree.num_hands[p], raw, strat)
    return strategy_to_policy(tree, strat)


@pytest.fixture(scope="module")
def solved() -> dict:
    return {name: solve(load_game(name), "cfr+", 200).policy for name in ("kuhn", "leduc")}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("which", ["uniform", "random0", "random1", "solved"])
def test_exploitability_and_value_match_openspiel(name: str, which: str, solved: dict) -> None:
    game = load_game(name)
    if which == "uniform":
        pol: dict = {}
    elif which == "solved":
        pol = solved[name]
    else:
        pol = random_policy(game, int(which[-1]))
    tab = to_openspiel(game, pol)
    g = os_game(game)
    theirs = 1000.0 * os_exploitability.nash_conv(g, tab) / 2.0 / game.big_blind
    ours = policy_exploitability(game, pol)
    assert ours == pytest.approx(theirs, abs=1e-6)
    v_theirs = os_policy_value(g.new_initial_state(), [tab, tab])[0]
    assert policy_value(game, pol, pol) == pytest.approx(v_theirs, abs=1e-9)


def test_mixed_pair_value_matches_openspiel() -> None:
    game = load_game("leduc")
    p0, p1 = random_policy(game, 7), random_policy(game, 8)
    g = os_game(game)
    v = os_policy_value(g.new_initial_state(), [to_openspiel(game, p0), to_openspiel(game, p1)])[0]
    assert policy_value(game, p0, p1) == pytest.approx(v, abs=1e-9)
    assert policy_value(game, p1, p0) != pytest.approx(v, abs=1e-3)
