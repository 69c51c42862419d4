"""The exact engine against independent engines, hand by hand, decision by decision.

Oracles (test dependencies only):

- OpenSpiel 2.0.2 ``universal_poker`` (C++, wraps the ACPC server's game code). With
  ``bettingAbstraction=fullgame`` a no-limit game offers every raise-to size as an action
  (action id = raise-to total; 0 = fold, 1 = call/check), so its legal actions give the
  exact fold legality and raise bounds. Its limit games need ``fcpa`` (0 fold, 1 call,
  2 raise): ``fullgame`` offers no raise in limit games. Its short decks hold the *lowest*
  ranks and the *first* suits (card id = rank * numSuits + suit), where ACPC's dealer keeps
  the highest ranks and last suits; cards are translated by that shift, which preserves
  every hand comparison in the shipped games (no wheel or straight changes: see
  ``_to_spiel_card``).
- pokerkit 0.7.7 ``NoLimitTexasHoldem`` (pure Python, its own rules and hand evaluator):
  bets are per street, so its raise-to amounts are offset by what the player put in on
  earlier streets; heads-up it reverses the blinds itself, so its seat 0 posts the big
  blind exactly like ACPC's seat 0.

For every hand: the same cards, random legal actions (raise sizes weighted to the edges of
the legal range), and at every decision the acting player, the legal kinds and the raise
bounds must agree; at the end the betting string and the payoffs must agree.
"""

from __future__ import annotations

import random
import re
import warnings

import pytest

from pokerbot.gamedef import GameDef, load_game, parse_gamedef
from pokerbot.state import ActionType, State

try:
    from tests.conftest import deal, random_action
except ImportError:  # tests/ is not a package: pytest puts it on sys.path
    from conftest import deal, random_action

import pyspiel  # test oracle (a test extra): a missing oracle must fail, not skip

#: Hands per game in the default run (the issue asks for at least 10,000 HUNL hands).
DEFAULT_HANDS = {
    "hunl": 2_000,
    "hulhe": 3_000,
    "leduc": 2_000,
    "leduc-nl": 2_000,
    "kuhn": 1_000,
    "nlfh": 500,
    "nlfh-small": 2_000,
}


def spiel_game(game: GameDef):
    params = {
        "betting": "nolimit" if game.nolimit else "limit",
        "bettingAbstraction": "fullgame" if game.nolimit else "fcpa",
        "numPlayers": game.num_players,
        "numRounds": game.num_rounds,
        "blind": " ".join(map(str, game.blind)),
        "firstPlayer": " ".join(str(p + 1) for p in game.first_player),
        "numSuits": game.num_suits,
        "numRanks": game.num_ranks,
        "numHoleCards": game.num_hole_cards,
        "numBoardCards": " ".join(map(str, game.num_board_cards)),
    }
    if game.nolimit:
        params["stack"] = " ".join(map(str, game.stack))
    else:
        params["raiseSize"] = " ".join(map(str, game.raise_size))
        params["maxRaises"] = " ".join(map(str, game.max_raises))
        # Limit stacks are unlimited in ACPC; OpenSpiel defaults to 1200. Far above any pot here.
        params["stack"] = " ".join(["1000000"] * game.num_players)
    return pyspiel.load_game("universal_poker", params)


def _to_spiel_card(game: GameDef, card: int) -> int:
    # ACPC deck: ranks 13-numRanks..12, suits 4-numSuits..3. OpenSpiel: ranks 0..numRanks-1,
    # suits 0..numSuits-1, id rank*numSuits+suit. Shifting every rank by the same amount keeps
    # the order of hands; straights map to straights because neither deck can make a wheel
    # unless it is the full deck (where the shift is 0).
    rank = card // 4 - (13 - game.num_ranks)
    suit = card % 4 - (4 - game.num_suits)
    return rank * game.num_suits + suit


def _spiel_betting(spiel_state) -> str:
    match = re.search(r"ACPC State: STATE:\d+:([^:]*):", str(spiel_state))
    assert match, str(spiel_state)
    return match.group(1)


def check_decision(game: GameDef, s: State, o, ctx: str) -> None:
    """Our acting player, legal kinds and raise bounds equal OpenSpiel's."""
    assert not s.finished, ctx
    assert o.current_player() == s.current_player, ctx
    legal = o.legal_actions()  # ascending: [0 (fold)], 1 (call), then raise sizes
    kinds = s.legal_kinds()
    head = legal[:2]
    assert (0 in head) == (ActionType.FOLD in kinds), ctx
    assert 1 in head and ActionType.CALL in kinds, ctx
    bounds = s.raise_bounds()
    first_raise = (0 in head) + 1
    if game.nolimit:
        if len(legal) > first_raise:
            lo, hi = legal[first_raise], legal[-1]
            assert bounds == (lo, hi), ctx
            # every size in between is offered (sorted, distinct ids: the count says it)
            assert len(legal) - first_raise == hi - lo + 1, ctx
        else:
            assert bounds is None, ctx
    else:
        assert legal[first_raise:] == ([2] if bounds is not None else []), ctx


def play_against_spiel(game: GameDef, sgame, rng: random.Random, hand_id: int) -> State:
    """One random hand checked against OpenSpiel; returns our final state."""
    holes, board = deal(game, rng)
    s = State.initial(game, hand_id=hand_id, hole_cards=holes, board_cards=board)
    chance = [_to_spiel_card(game, c) for h in holes for c in h] + [_to_spiel_card(game, c) for c in board]
    o = sgame.new_initial_state()
    k = 0
    decisions = 0
    while True:
        while o.is_chance_node():
            o.apply_action(chance[k])
            k += 1
        if o.is_terminal():
            break
        ctx = f"hand {hand_id} at {s.betting_string()!r}"
        check_decision(game, s, o, ctx)
        action = random_action(s, rng)
        s = s.apply(action)
        if action.kind == ActionType.RAISE:
            o.apply_action(action.size if game.nolimit else 2)
        else:
            o.apply_action(int(action.kind))
        decisions += 1
    assert s.finished, f"hand {hand_id}: OpenSpiel ended the hand at {s.betting_string()!r}"
    assert _spiel_betting(o) == s.betting_string()
    assert s.payoffs() == list(o.returns()), f"hand {hand_id} {s.betting_string()!r}"
    assert decisions >= 1
    return s


def _run_spiel(name: str, hands: int, seed: int) -> None:
    game = load_game(name)
    sgame = spiel_game(game)
    rng = random.Random(seed)
    finals = [play_against_spiel(game, sgame, rng, h) for h in range(hands)]
    # the random play reaches both kinds of ending
    assert any(f.is_showdown() for f in finals) and any(not f.is_showdown() for f in finals)


#: Multi-player games (side pots, short all-in raises, folded money in pots), not shipped.
EXTRA_GAMES = {
    "nolimit-3p-uneven": (
        "GAMEDEF\nnolimit\nnumPlayers = 3\nnumRounds = 4\nstack = 100 300 1000\nblind = 5 10 0\n"
        "firstPlayer = 3 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\n"
        "END GAMEDEF\n",
        3_000,
    ),
    "nolimit-4p-uneven": (
        "GAMEDEF\nnolimit\nnumPlayers = 4\nnumRounds = 2\nstack = 60 250 400 30\nblind = 5 10 0 0\n"
        "firstPlayer = 3 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3\n"
        "END GAMEDEF\n",
        3_000,
    ),
    "holdem-limit-3p": (
        "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 4\nblind = 5 10 0\nraiseSize = 10 10 20 20\n"
        "firstPlayer = 3 1 1 1\nmaxRaises = 3 4 4 4\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\n"
        "numBoardCards = 0 3 1 1\nEND GAMEDEF\n",
        2_000,
    ),
    "kuhn-3p": (
        "GAMEDEF\nlimit\nnumPlayers = 3\nnumRounds = 1\nblind = 1 1 1\nraiseSize = 1\nfirstPlayer = 1\n"
        "maxRaises = 1\nnumSuits = 1\nnumRanks = 4\nnumHoleCards = 1\nnumBoardCards = 0\nEND GAMEDEF\n",
        1_000,
    ),
}


def replay_against_spiel(game: GameDef, betting: str, seed: int = 0) -> State:
    """Replay a fixed betting line in both engines, checking every decision on the way."""
    from pokerbot.actions import parse_action

    holes, board = deal(game, random.Random(seed))
    s = State.initial(game, hole_cards=holes, board_cards=board)
    chance = [_to_spiel_card(game, c) for h in holes for c in h] + [_to_spiel_card(game, c) for c in board]
    o = spiel_game(game).new_initial_state()
    k = i = 0
    while True:
        while o.is_chance_node():
            o.apply_action(chance[k])
            k += 1
        while i < len(betting) and betting[i] == "/":
            i += 1
        if i == len(betting):
            break
        check_decision(game, s, o, f"line {betting!r} at {s.betting_string()!r}")
        action, used = parse_action(betting[i:], game.nolimit)
        i += used
        s = s.apply(action)
        o.apply_action(action.size if action.kind == ActionType.RAISE and game.nolimit
                       else (2 if action.kind == ActionType.RAISE else int(action.kind)))
    if o.is_terminal():
        assert s.finished and s.payoffs() == list(o.returns())
    else:
        check_decision(game, s, o, f"end of line {betting!r}")
    assert _spiel_betting(o) == s.betting_string()
    return s


MIN_RAISES_63 = "".join(f"r{200 + 100 * i}" for i in range(63))


@pytest.mark.parametrize(
    "name,betting",
    [
        ("hunl", MIN_RAISES_63),  # the 64-actions-per-round limit on raising
        ("hunl", MIN_RAISES_63 + "c/" + "".join(f"r{6500 + 100 * i}" for i in range(63))),
        ("hunl", "r15000r20000"),
        ("hunl", "r19999r20000c"),
        ("hunl", "cc/r200r19900r20000"),
        ("hunl", "r300c/r400r900c/cc/r20000c"),
        ("hulhe", "rrrc/rrrrc/rrrrc/rrrrc"),
        ("leduc", "rrc/rrf"),
        ("leduc-nl", "r2r4r8r16r20c"),
        ("leduc-nl", "cc/r19r20c"),
        ("nolimit-4p-uneven", "r250cf"),  # seat 1 (stack 250) can only call the 250
        ("nolimit-4p-uneven", "r40ccc/r50"),
        ("nolimit-3p-uneven", "r250cr300"),
        ("nolimit-3p-uneven", "r200cc/r300f"),
        ("nolimit-3p-uneven", "r1000cc"),
    ],
)
def test_scripted_lines_agree_with_open_spiel(name, betting):
    game = parse_gamedef(EXTRA_GAMES[name][0], name=name) if name in EXTRA_GAMES else load_game(name)
    replay_against_spiel(game, betting)


@pytest.mark.parametrize("name", sorted(EXTRA_GAMES))
def test_multiplayer_agrees_with_open_spiel(name):
    text, hands = EXTRA_GAMES[name]
    game = parse_gamedef(text, name=name)
    sgame = spiel_game(game)
    rng = random.Random(31)
    side_pots = 0
    for h in range(hands):
        final = play_against_spiel(game, sgame, rng, h)
        if final.is_showdown() and len(set(final.spent)) > 1:
            side_pots += 1
    # enough showdowns where players put in different amounts (side pots or folded money)
    assert side_pots >= hands // 50


@pytest.mark.parametrize("name", sorted(DEFAULT_HANDS))
def test_agrees_with_open_spiel(name):
    _run_spiel(name, DEFAULT_HANDS[name], seed=2024)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEFAULT_HANDS))
def test_agrees_with_open_spiel_many(name):
    _run_spiel(name, 50 * DEFAULT_HANDS[name] if name == "hunl" else 10 * DEFAULT_HANDS[name], seed=99)


def test_open_spiel_oracle_is_wired_right():
    # Spot checks of the translation itself, worked out by hand.
    game = load_game("hunl")
    o = spiel_game(game).new_initial_state()
    for c in (51, 50, 0, 1):  # As Ah to seat 0, 2c 2d to seat 1
        o.apply_action(c)
    assert o.current_player() == 1
    legal = o.legal_actions()
    assert legal[:3] == [0, 1, 200] and legal[-1] == 20000
    leduc = load_game("leduc")
    assert sorted(_to_spiel_card(leduc, c) for c in leduc.deck()) == list(range(6))
    small = load_game("nlfh-small")
    assert sorted(_to_spiel_card(small, c) for c in small.deck()) == list(range(18))


# --------------------------------------------------------------------------- pokerkit

PK_HANDS = 1_000


def _pokerkit():
    import pokerkit as pk
    automations = (
        pk.Automation.ANTE_POSTING,
        pk.Automation.BET_COLLECTION,
        pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.CARD_BURNING,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        pk.Automation.HAND_KILLING,
        pk.Automation.CHIPS_PUSHING,
        pk.Automation.CHIPS_PULLING,
    )
    return pk, automations


def play_against_pokerkit(game: GameDef, pk, automations, rng: random.Random, hand_id: int) -> None:
    from pokerbot.cards import format_cards

    holes, board = deal(game, rng)
    s = State.initial(game, hand_id=hand_id, hole_cards=holes, board_cards=board)
    # pokerkit seat 0 posts the big blind heads-up, as ACPC seat 0 does (blind = 100 50).
    p = pk.NoLimitTexasHoldem.create_state(
        automations, True, 0, (game.blind[1], game.blind[0]), game.big_blind, tuple(game.stack), 2
    )
    assert tuple(p.stacks) == tuple(st - b for st, b in zip(game.stack, game.blind))
    for h in holes:
        p.deal_hole(format_cards(h))
    street = 0
    while True:
        if p.can_deal_board():
            street += 1
            start, end = game.board_cards_before(street), game.board_cards_through(street)
            p.deal_board(format_cards(board[start:end]))
            continue
        if not p.status:
            break
        ctx = f"hand {hand_id} at {s.betting_string()!r}"
        assert not s.finished, ctx
        assert p.actor_index == s.current_player, ctx
        actor = p.actor_index
        kinds = s.legal_kinds()
        assert p.can_fold() == (ActionType.FOLD in kinds), ctx
        bounds = s.raise_bounds()
        assert p.can_complete_bet_or_raise_to() == (bounds is not None), ctx
        # chips the actor put in on earlier streets (pokerkit amounts are per street)
        base = s.spent[actor] - p.bets[actor]
        if bounds is not None:
            lo = p.min_completion_betting_or_raising_to_amount + base
            hi = p.max_completion_betting_or_raising_to_amount + base
            assert bounds == (lo, hi), ctx
        assert s.to_call() == p.checking_or_calling_amount, ctx
        action = random_action(s, rng)
        s = s.apply(action)
        if action.kind == ActionType.FOLD:
            p.fold()
        elif action.kind == ActionType.CALL:
            p.check_or_call()
        else:
            p.complete_bet_or_raise_to(action.size - base)
    assert s.finished, f"hand {hand_id}: pokerkit ended the hand at {s.betting_string()!r}"
    assert s.payoffs() == [float(v) for v in p.payoffs], f"hand {hand_id} {s.betting_string()!r}"


def _run_pokerkit(hands: int, seed: int) -> None:
    pk, automations = _pokerkit()
    game = load_game("hunl")
    rng = random.Random(seed)
    with warnings.catch_warnings():
        # pokerkit warns when a chosen card is not what its own deck would deal next
        warnings.simplefilter("ignore", UserWarning)
        for h in range(hands):
            play_against_pokerkit(game, pk, automations, rng, h)


def test_hunl_agrees_with_pokerkit():
    _run_pokerkit(PK_HANDS, seed=7)


@pytest.mark.slow
def test_hunl_agrees_with_pokerkit_many():
    _run_pokerkit(20_000, seed=8)
