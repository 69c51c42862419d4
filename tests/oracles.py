"""The OpenSpiel oracle adapter shared by the tests (and the benchmarks): one home for it.

OpenSpiel (pyspiel) is a test oracle only. Its ``universal_poker`` game takes the
ACPC parameters of our ``.game`` files but deals from the *lowest* ranks and
*first* suits (Leduc is 2c 2d 3c 3d 4c 4d), where the ACPC server and this
project use the highest ranks and last suits (Qh Qs Kh Ks Ah As). Shifting ranks
and suits up is an isomorphism of these games, so each OpenSpiel information set
maps to one of ours (:func:`our_key`), and :func:`to_openspiel` turns one of our
infoset-keyed policies into an OpenSpiel ``TabularPolicy``.

    >>> from pokerbot.gamedef import load_game
    >>> round(spiel_nash_conv("kuhn", {}), 6)  # uniform Kuhn: NashConv 11/12 chips
    0.916667
"""

from __future__ import annotations

import re

import pyspiel  # a test extra: a missing oracle must fail, not skip
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability as os_exploitability

from pokerbot.cards import RANK_CHARS, SUIT_CHARS, format_card, make_card
from pokerbot.gamedef import GameDef, load_game
from pokerbot.solver import canonical_key

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


def spiel_nash_conv(game_name: str, policy: dict) -> float:
    """OpenSpiel's exact NashConv (chips, summed over both players) of our infoset-keyed ``policy``."""
    game = load_game(game_name)
    return float(os_exploitability.nash_conv(os_game(game), to_openspiel(game, policy)))
