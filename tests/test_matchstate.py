"""MATCHSTATE / STATE strings against the ACPC protocol document and real dealer output.

Data (tests/data):
- acpc_protocol_examples.txt: every example message of protocol.pdf ("Examples"), in
  three games: heads-up limit, heads-up no-limit, three-player limit hold'em.
- acpc_dealer_hunl.log: the log of a 1000-hand HUNL match played by the reference ACPC
  dealer (shipped with its source as matchName.log): final STATE, values, names.
- acpc_dealer_hunl_matchstates.txt.gz: the MATCHSTATE messages that dealer sent to both
  players during that match (from its matchName.err), in order.
"""

from __future__ import annotations

import gzip
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerbot.cards import parse_cards
from pokerbot.errors import MatchStateError
from pokerbot.gamedef import SHIPPED_GAMES, load_game, parse_gamedef
from pokerbot.matchstate import (
    MatchState,
    format_matchstate,
    format_state,
    parse_matchstate,
    parse_state,
)
from pokerbot.actions import parse_action
from pokerbot.state import State

try:
    from tests.conftest import DATA, deal, random_action
except ImportError:  # tests/ is not a package: pytest puts it on sys.path
    from conftest import DATA, deal, random_action

HOLDEM_LIMIT_3P = (DATA / "holdem.limit.3p.game").read_text()

GAMES = {
    "hulhe": load_game("hulhe"),
    "hunl": load_game("hunl"),
    "holdem-limit-3p": parse_gamedef(HOLDEM_LIMIT_3P),
}


def protocol_examples():
    section = None
    out = []
    for line in (DATA / "acpc_protocol_examples.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        who, text = line.split(" ", 1)
        out.append((section, who, text))
    return out


EXAMPLES = protocol_examples()


def test_protocol_examples_were_read():
    assert len(EXAMPLES) == 100
    assert {s for s, _, _ in EXAMPLES} == set(GAMES)


@pytest.mark.parametrize("section,text", [(s, t) for s, w, t in EXAMPLES if w == "S"])
def test_protocol_server_messages_round_trip(section, text):
    game = GAMES[section]
    ms = parse_matchstate(game, text)
    assert isinstance(ms, MatchState)
    assert format_matchstate(ms.state, ms.viewer) == text
    viewer, hand, betting, _ = text.split(":", 4)[1:]
    assert ms.viewer == int(viewer) and ms.state.hand_id == int(hand)
    assert ms.state.betting_string() == betting


def test_protocol_client_responses_are_legal_and_lead_to_the_next_message():
    for i, (section, who, text) in enumerate(EXAMPLES):
        if who != "C":
            continue
        game = GAMES[section]
        state_text, action_text = text.rsplit(":", 1)
        # the client echoes the message it answers
        assert EXAMPLES[i - 1][2] == state_text
        ms = parse_matchstate(game, state_text)
        assert ms.is_my_turn, text
        action, used = parse_action(action_text, game.nolimit)
        assert used == len(action_text)
        assert ms.state.is_legal(action), text
        after = ms.state.apply(action)
        # the server's next message carries the betting with the action appended
        nxt_section, nxt_who, nxt = EXAMPLES[i + 1]
        assert nxt_who == "S" and nxt_section == section
        assert nxt.split(":")[3] == after.betting_string()


def test_protocol_examples_turns_and_showdowns():
    hunl = GAMES["hunl"]
    ms = parse_matchstate(hunl, "MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000c/:KsJs|JdTc/6dJc9c/Kh/Qc")
    # all-in on the turn: run out to the river; both hands shown.
    assert ms.state.finished and ms.state.round == 3 and ms.state.is_showdown()
    assert ms.state.hole_cards == (tuple(parse_cards("KsJs")), tuple(parse_cards("JdTc")))
    assert ms.state.spent == (20000, 20000)
    ms = parse_matchstate(hunl, "MATCHSTATE:0:30:cc/r250c/r500c/r1250:9s8h|/8c8d5c/6s/2d")
    # seat 0 bet the river; seat 1 is to act
    assert not ms.is_my_turn and ms.state.current_player == 1 and ms.state.spent == (1250, 500)
    ms = parse_matchstate(GAMES["hulhe"], "MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th")
    assert ms.state.finished and not ms.state.is_showdown()
    three = GAMES["holdem-limit-3p"]
    ms = parse_matchstate(three, "MATCHSTATE:0:90:crfc/rc/rc/rc:Ad6h||Td2h/TsKd7h/Kh/6d")
    assert ms.state.folded == (False, True, False)
    assert ms.state.hole_cards[1] == ()  # the folder's cards stay hidden
    assert ms.state.is_showdown()
    ms = parse_matchstate(three, "MATCHSTATE:2:55::||AsTs")
    assert ms.is_my_turn  # firstPlayer 3: seat 2 acts first pre-flop


def test_protocol_limit_payoffs():
    ms = parse_matchstate(GAMES["hulhe"], "MATCHSTATE:1:1:rrc/rc/rf:|Qd7c/2h8h5c/Th")
    # Pre-flop rr c: 30 each; flop r c: 40 each; turn: seat 0 bets 20 (to 60), seat 1 folds.
    assert ms.state.spent == (60, 40)
    assert ms.state.payoffs() == [40.0, -40.0]


# --------------------------------------------------------------------------- real dealer output


def dealer_log():
    hands = []
    for line in (DATA / "acpc_dealer_hunl.log").read_text().splitlines():
        if not line.startswith("STATE:"):
            continue
        fields = line.split(":")
        state_text = ":".join(fields[:4])
        values = [float(v) for v in fields[4].split("|")]
        hands.append((state_text, values))
    return hands


def test_dealer_log_states_parse_format_and_pay():
    game = load_game("hunl")
    hands = dealer_log()
    assert len(hands) == 1000
    have_evaluator = True
    try:
        import pokerbot.evaluator  # noqa: F401
    except ImportError:
        have_evaluator = False
    for text, values in hands:
        s = parse_state(game, text)
        assert s.finished, text
        assert format_state(s) == text
        assert sum(values) == 0
        if not s.is_showdown() or have_evaluator:
            assert s.payoffs() == values, text


def test_dealer_matchstates_round_trip_and_agree_with_the_log():
    game = load_game("hunl")
    finals = {}
    for text, _ in dealer_log():
        s = parse_state(game, text)
        finals[s.hand_id] = s
    lines = gzip.decompress((DATA / "acpc_dealer_hunl_matchstates.txt.gz").read_bytes()).decode().splitlines()
    assert len(lines) > 10000
    count = 0
    for line in lines:
        _, text = line.split(" ", 1)
        ms = parse_matchstate(game, text)
        assert format_matchstate(ms.state, ms.viewer) == text
        final = finals[ms.state.hand_id]
        s = ms.state
        # the viewer's cards and the board so far are those of the hand's final STATE
        assert s.hole_cards[ms.viewer] == final.hole_cards[ms.viewer]
        assert final.betting_string().startswith(s.betting_string().rstrip("/"))
        assert s.visible_board == final.board_cards[: len(s.visible_board)]
        other = 1 - ms.viewer
        if s.finished and s.is_showdown():
            assert s.hole_cards[other] == final.hole_cards[other]
        else:
            assert s.hole_cards[other] == ()
        count += 1
    assert count == len(lines)


# --------------------------------------------------------------------------- formatting rules


def test_viewer_sees_only_own_cards_until_showdown():
    game = load_game("hunl")
    holes = [parse_cards("AsAh"), parse_cards("KdKc")]
    board = parse_cards("2c3d4h5s6c")
    s = State.initial(game, hand_id=5, hole_cards=holes, board_cards=board)
    assert format_matchstate(s, 0) == "MATCHSTATE:0:5::AsAh|"
    assert format_matchstate(s, 1) == "MATCHSTATE:1:5::|KdKc"
    assert format_state(s) == "STATE:5::AsAh|KdKc"
    s = State.from_betting(game, "r300c/", hand_id=5, hole_cards=holes, board_cards=board)
    assert format_matchstate(s, 1) == "MATCHSTATE:1:5:r300c/:|KdKc/2c3d4h"
    s = State.from_betting(game, "r300c/cc/cc/cc", hand_id=5, hole_cards=holes, board_cards=board)
    for viewer in (0, 1):
        assert format_matchstate(s, viewer) == f"MATCHSTATE:{viewer}:5:r300c/cc/cc/cc:AsAh|KdKc/2c3d4h/5s/6c"
    s = State.from_betting(game, "r300c/cc/cc/r500f", hand_id=5, hole_cards=holes, board_cards=board)
    assert format_matchstate(s, 0) == "MATCHSTATE:0:5:r300c/cc/cc/r500f:AsAh|/2c3d4h/5s/6c"
    assert format_matchstate(s, 1) == "MATCHSTATE:1:5:r300c/cc/cc/r500f:|KdKc/2c3d4h/5s/6c"
    s = State.from_betting(game, "r20000c", hand_id=5, hole_cards=holes, board_cards=board)
    assert format_matchstate(s, 0) == "MATCHSTATE:0:5:r20000c///:AsAh|KdKc/2c3d4h/5s/6c"


def test_leduc_and_kuhn_strings():
    leduc = load_game("leduc")
    ms = parse_matchstate(leduc, "MATCHSTATE:1:3:rc/:|Ks/Qh")
    assert ms.state.round == 1 and ms.state.visible_board == tuple(parse_cards("Qh"))
    assert ms.is_my_turn is False  # seat 0 acts first in Leduc
    assert format_matchstate(ms.state, 1) == "MATCHSTATE:1:3:rc/:|Ks/Qh"
    kuhn = load_game("kuhn")
    ms = parse_matchstate(kuhn, "MATCHSTATE:0:0:cc:Ks|As")
    assert ms.state.is_showdown() and format_matchstate(ms.state, 0) == "MATCHSTATE:0:0:cc:Ks|As"


GARBLED = [
    "",
    "MATCHSTATE",
    "MATCHSTATE:0",
    "MATCHSTATE:0:0",
    "MATCHSTATE:0:0:",
    "STATE:0::AsKs|",
    "matchstate:0:0::AsKs|",
    "MATCHSTATE:2:0::AsKs|",
    "MATCHSTATE:-1:0::AsKs|",
    "MATCHSTATE:x:0::AsKs|",
    "MATCHSTATE:0:x::AsKs|",
    "MATCHSTATE:0:-3::AsKs|",
    "MATCHSTATE:0:²::AsKs|",
    "MATCHSTATE:²:0::AsKs|",
    "MATCHSTATE:0:0:r³:AsKs|",
    "MATCHSTATE:0:0:q:AsKs|",
    "MATCHSTATE:0:0:r100:AsKs|",
    "MATCHSTATE:0:0:r:AsKs|",
    "MATCHSTATE:0:0:cc/f:AsKs|/2c3c4c",
    "MATCHSTATE:0:0::AsAs|",
    "MATCHSTATE:0:0::As|",
    "MATCHSTATE:0:0::AsKs|Qd",
    "MATCHSTATE:0:0::AsKs|QdJdTd",
    "MATCHSTATE:0:0::AsKx|",
    "MATCHSTATE:0:0::AsKs|junk",
    "MATCHSTATE:0:0:cc/:AsKs|/2c3c",
    "MATCHSTATE:0:0:cc/:AsKs|",
    "MATCHSTATE:0:0:cc/:AsKs|/2c3cAs",
    "MATCHSTATE:0:0::AsKs|/2c3c4c",
    "MATCHSTATE:0:0:cc/cc/:AsKs|/2c3c4c",
    "MATCHSTATE:0:0:cc/cc/cc/cc:AsKs|QdQh/2c3c4c/5c/6c/7c",
]


@pytest.mark.parametrize("text", GARBLED)
def test_garbled_matchstates_raise(text):
    game = load_game("hunl")
    with pytest.raises(MatchStateError):
        parse_matchstate(game, text)


@pytest.mark.parametrize("text", ["", "STATE", "STATE:", "STATE:0", "MATCHSTATE:0:0::AsKs|", "STATE:0::AsKs|Ks2c",
                                  "STATE:0:cc:AsKs|QdQh"])
def test_garbled_states_raise(text):
    with pytest.raises(MatchStateError):
        parse_state(load_game("hunl"), text)


ALPHABET = "MATCHSTATE:0123456789|/crfAKQJT98765432shdcx ²"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=40))
def test_fuzz_garbled_text_raises_only_matchstate_error(text):
    game = load_game("hunl")
    for candidate in (text, "MATCHSTATE:" + text, "MATCHSTATE:0:" + text):
        try:
            ms = parse_matchstate(game, candidate)
        except MatchStateError:
            continue
        assert_reads_back(game, ms)


def assert_reads_back(game, ms) -> None:
    """What parsed is a real state: it prints to a message that reads back to the same state and betting."""
    again = format_matchstate(ms.state, ms.viewer)
    back = parse_matchstate(game, again)
    assert format_matchstate(back.state, ms.viewer) == again
    assert back.state.betting_string() == ms.state.betting_string()
    assert back.state.hole_cards[ms.viewer] == ms.state.hole_cards[ms.viewer]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 200), junk=st.sampled_from(list("|/:rcfAs9x ")))
def test_fuzz_mutated_valid_strings(seed, cut, junk):
    game = load_game("hunl")
    rng = random.Random(seed)
    holes, board = deal(game, rng)
    s = State.initial(game, hand_id=seed % 1000, hole_cards=holes, board_cards=board)
    while not s.finished and rng.random() < 0.8:
        s = s.apply(random_action(s, rng))
    text = format_matchstate(s, seed % 2)
    k = cut % (len(text) + 1)
    assert_reads_back(game, parse_matchstate(game, text))  # the unmutated message parses
    for mutated in (text[:k], text[:k] + junk + text[k:], text[:k] + text[k + 1 :]):
        try:
            ms = parse_matchstate(game, mutated)
        except MatchStateError:
            continue
        assert_reads_back(game, ms)


NOLIMIT_3P = HOLDEM_LIMIT_3P.replace("limit\n", "nolimit\nstack = 100 300 1000\n", 1).replace(
    "raiseSize = 10 10 20 20\n", ""
).replace("maxRaises = 3 4 4 4\n", "")


def _game(name):
    if name == "holdem-limit-3p":
        return GAMES[name]
    if name == "nolimit-3p":
        return parse_gamedef(NOLIMIT_3P)
    return load_game(name)


@pytest.mark.parametrize("name", sorted(SHIPPED_GAMES) + ["holdem-limit-3p", "nolimit-3p"])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_matchstate_round_trip_in_random_play(name, seed):
    game = _game(name)
    rng = random.Random(seed)
    holes, board = deal(game, rng)
    s = State.initial(game, hand_id=seed, hole_cards=holes, board_cards=board)
    while True:
        full = format_state(s)
        assert parse_state(game, full) == s
        assert format_state(parse_state(game, full)) == full
        for viewer in range(game.num_players):
            text = format_matchstate(s, viewer)
            ms = parse_matchstate(game, text)
            assert ms.viewer == viewer and format_matchstate(ms.state, viewer) == text
            assert ms.state.betting_string() == s.betting_string()
            assert ms.state.hole_cards[viewer] == s.hole_cards[viewer]
            assert ms.state.visible_board == s.visible_board
            assert ms.is_my_turn == (s.current_player == viewer)
            shown = [p for p in range(game.num_players) if ms.state.hole_cards[p]]
            if s.is_showdown():
                assert shown == [p for p in range(game.num_players) if not s.folded[p] or p == viewer]
            else:
                assert shown == [viewer]
            # the text has one '|' between players and one '/' per round after the first
            cards = text.split(":")[4]
            assert cards.count("|") == game.num_players - 1
            assert cards.count("/") == s.round
            assert re.fullmatch(r"[0-9]+", text.split(":")[2])
        if s.finished:
            break
        s = s.apply(random_action(s, rng))
