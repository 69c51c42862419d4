"""State: hand-written exact cases of the ACPC 2.0.0 rules, plus property-based random play.

Every expected number below is worked out by hand from the rules (protocol.pdf and the
reference server's game.c: raiseIsValid, isValidAction, doAction, valueOfState), not
read off this engine's output.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pokerbot.actions import parse_action
from pokerbot.cards import parse_cards
from pokerbot.errors import BettingStringError, IllegalActionError, PokerbotError
from pokerbot.gamedef import SHIPPED_GAMES, load_game, parse_gamedef
from pokerbot.state import (
    CALL,
    FOLD,
    MAX_ACTIONS_PER_ROUND,
    RAISE,
    Action,
    ActionType,
    State,
    raise_to,
)
try:
    from tests.conftest import deal, random_action
except ImportError:  # tests/ is not a package: pytest puts it on sys.path
    from conftest import deal, random_action

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def hunl(betting: str = "") -> State:
    return State.from_betting(load_game("hunl"), betting)


def play(state: State, *actions: Action) -> State:
    for a in actions:
        state = state.apply(a)
    return state


# --------------------------------------------------------------------------- HUNL basics


def test_hunl_initial_state():
    s = hunl()
    assert s.spent == (100, 50)  # reverse blinds: seat 0 posts the big blind
    assert s.pot == 150
    assert s.current_player == 1  # the small blind (seat 1) acts first pre-flop
    assert s.legal_kinds() == [F, C, R]
    assert s.raise_bounds() == (200, 20000)  # call 100 and raise by the big blind
    assert s.to_call() == 50
    assert s.round == 0 and not s.finished
    assert s.betting_string() == ""


@pytest.mark.parametrize(
    "betting,player,bounds",
    [
        ("r200", 0, (300, 20000)),  # raised by 100: re-raise to at least 200 + 100
        ("r300", 0, (500, 20000)),  # 2 * 300 - 100
        ("r300r500", 1, (700, 20000)),  # 2 * 500 - 300
        ("r300r1000", 1, (1700, 20000)),  # raised by 700
        ("r250", 0, (400, 20000)),
        ("r999", 0, (1898, 20000)),
        ("r5000r12000", 1, (19000, 20000)),
        ("r5000r13000", 1, (20000, 20000)),  # 21000 > stack: only all-in
        ("r15000", 0, (20000, 20000)),  # min re-raise 29900 > stack, all-in still allowed
        ("c", 0, (200, 20000)),  # limp: the big blind may raise to 200
        ("cc/", 0, (200, 20000)),  # flop: bet at least big blind + 100 already in
        ("r300c/", 0, (400, 20000)),  # flop: big blind + max spent 300
        ("r300c/r400", 1, (500, 20000)),  # raise-by 100 on the flop
        ("r300c/r1000", 1, (1700, 20000)),
        ("r300c/c", 1, (400, 20000)),
        ("r300c/cc/", 0, (400, 20000)),
        ("r300c/r1000c/", 0, (1100, 20000)),
        ("r300c/r1000c/r5000r9000", 0, (13000, 20000)),
    ],
)
def test_hunl_no_limit_min_raise(betting, player, bounds):
    s = hunl(betting)
    assert s.current_player == player
    assert s.raise_bounds() == bounds
    lo, hi = bounds
    assert s.is_legal(raise_to(lo)) and s.is_legal(raise_to(hi))
    assert not s.is_legal(raise_to(lo - 1))
    assert not s.is_legal(raise_to(hi + 1))
    with pytest.raises(IllegalActionError):
        s.apply(raise_to(lo - 1))


FOUR = """\
GAMEDEF
nolimit
numPlayers = 4
numRounds = 2
stack = 1000 300 1000 1000
blind = 5 10 0 0
firstPlayer = 3 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3
END GAMEDEF
"""


def test_short_all_in_raise_keeps_the_minimum_and_does_not_close_raising():
    g = parse_gamedef(FOUR)
    # Seat 2 raises to 250 (by 240): the next raise must reach 490. Seat 3 calls, seat 0
    # folds, seat 1 (stack 300) may only go all-in: a raise by 50.
    s = State.from_betting(g, "r250cf")
    assert s.current_player == 1 and s.raise_bounds() == (300, 300)
    s = s.apply(raise_to(300))
    # ACPC has no "reopening" rule: seat 2 may raise again, to at least 490 (not 2*300-250).
    assert s.current_player == 2
    assert s.raise_bounds() == (490, 1000)
    assert not s.is_legal(raise_to(489))


def test_all_in_short_raise_ends_reraising_heads_up():
    s = hunl("r15000r20000")
    # Seat 1 faces an all-in: no one would be left to call a raise.
    assert s.current_player == 1
    assert s.raise_bounds() is None
    assert s.legal_kinds() == [F, C]
    assert not s.is_legal(raise_to(20000))


def test_fold_only_when_facing_a_bet():
    s = hunl("c")  # big blind, limped to: may check, cannot fold
    assert s.current_player == 0
    assert not s.can_fold()
    assert s.legal_kinds() == [C, R]
    assert not s.is_legal(FOLD)
    with pytest.raises(IllegalActionError, match="illegal action f"):
        s.apply(FOLD)
    s = hunl("cc/")
    assert not s.can_fold() and not s.is_legal(FOLD)
    s = hunl("cc/r200")
    assert s.can_fold() and s.legal_kinds() == [F, C, R]
    assert hunl().can_fold()  # the small blind faces the big blind


def test_reverse_blinds_order_of_play():
    s = hunl()
    order = []
    for a in [raise_to(300), CALL, CALL, CALL, raise_to(400), CALL, CALL]:
        order.append((s.round, s.current_player))
        s = s.apply(a)
    # pre-flop: seat 1 then seat 0; after it seat 0 acts first in every round.
    assert order == [(0, 1), (0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0)]
    assert s.betting_string() == "r300c/cc/r400c/c"


def test_round_transitions_and_pot():
    s = hunl("r300c")
    assert s.round == 1 and s.betting_string() == "r300c/" and s.pot == 600
    s = hunl("r300c/cc/cc/")
    assert s.round == 3 and not s.finished
    s = s.apply(CALL).apply(CALL)
    assert s.finished and s.round == 3 and s.is_showdown()
    assert s.current_player is None and s.legal_kinds() == []
    assert s.betting_string() == "r300c/cc/cc/cc"


def test_all_in_run_out_jumps_to_last_round():
    s = hunl("r20000c")
    assert s.finished and s.round == 3 and s.is_showdown()
    assert s.betting_string() == "r20000c///"  # as the ACPC dealer prints it
    assert s.spent == (20000, 20000)
    s = hunl("cc/r20000c")
    assert s.finished and s.round == 3 and s.betting_string() == "cc/r20000c//"
    s = hunl("cc/cc/cc/r20000c")
    assert s.finished and s.betting_string() == "cc/cc/cc/r20000c"


def test_fold_ends_the_hand_without_showdown():
    s = hunl("f")
    assert s.finished and not s.is_showdown()
    assert s.payoffs() == [50.0, -50.0]
    s = hunl("r300f")
    assert s.payoffs() == [-100.0, 100.0]
    s = hunl("r300c/r1000f")
    assert s.round == 1 and s.payoffs() == [300.0, -300.0]
    s = hunl("r20000f")
    assert s.payoffs() == [-100.0, 100.0]


def test_call_is_always_legal_and_check():
    s = hunl("cc/")
    assert s.is_legal(CALL) and s.to_call() == 0
    s = hunl("r300")
    assert s.to_call() == 200


def test_max_actions_per_round():
    # game.c raiseIsValid: no raise once numActions + numPlayers > 64 (MAX_NUM_ACTIONS).
    assert MAX_ACTIONS_PER_ROUND == 64
    s = hunl()
    size = 200
    n = 0
    while s.raise_bounds() is not None:
        lo, _ = s.raise_bounds()
        assert lo == size
        s = s.apply(raise_to(lo))
        size += 100
        n += 1
    # 62 raises leave room for one more (62 + 2 = 64); after 63 actions there is none.
    assert n == 63
    assert len(s.history[0]) == 63
    assert s.legal_kinds() == [F, C]
    assert s.apply(CALL).round == 1


# --------------------------------------------------------------------------- limit games


def hulhe(betting: str = "") -> State:
    return State.from_betting(load_game("hulhe"), betting)


def test_limit_hold_em_raise_sizes_and_caps():
    s = hulhe()
    assert s.spent == (10, 5) and s.current_player == 1
    assert s.raise_bounds() == (20, 20)
    s = hulhe("rrr")  # 20, 30, 40: pre-flop cap of 3 raises
    assert s.spent == (30, 40) and s.current_player == 0
    assert s.raise_bounds() is None and s.legal_kinds() == [F, C]
    assert not s.is_legal(RAISE)
    with pytest.raises(IllegalActionError):
        s.apply(RAISE)
    s = hulhe("rrrc/")
    assert s.current_player == 0 and s.raise_bounds() == (50, 50)  # flop raise size 10
    s = hulhe("rrrc/rrrr")  # 50 60 70 80: flop cap 4
    assert s.spent == (70, 80) and s.raise_bounds() is None
    s = hulhe("rrrc/rrrrc/")
    assert s.raise_bounds() == (100, 100)  # turn raise size 20
    s = hulhe("rrrc/rrrrc/rrrrc/rrrr")
    assert s.spent == (220, 240)
    assert s.raise_bounds() is None
    s = s.apply(CALL)
    assert s.finished and s.pot == 480


def test_limit_raise_string_and_sizes():
    s = hulhe().apply(RAISE)
    assert s.betting_string() == "r"
    # In a limit game a raise may be given with its resulting total, but is printed as 'r'.
    assert s.is_legal(Action(R, 30)) and not s.is_legal(Action(R, 40))
    assert s.apply(Action(R, 30)).betting_string() == "rr"
    with pytest.raises(BettingStringError):
        State.from_betting(load_game("hulhe"), "r20")  # '2' is not an action


def test_leduc():
    g = load_game("leduc")
    s = State.initial(g)
    assert s.spent == (1, 1) and s.current_player == 0
    assert s.legal_kinds() == [C, R]  # nobody faces a bet: no fold
    s = State.from_betting(g, "rr")  # to 3, then to 5
    assert s.spent == (3, 5) and s.raise_bounds() is None and s.legal_kinds() == [F, C]
    s = State.from_betting(g, "rrc/")
    assert s.round == 1 and s.current_player == 0 and s.raise_bounds() == (9, 9)
    s = State.from_betting(g, "rrc/rrc")
    assert s.finished and s.spent == (13, 13)
    s = State.from_betting(g, "crf")  # seat 1 bets 2, seat 0 folds
    assert s.payoffs() == [-1.0, 1.0]
    s = State.from_betting(g, "cc/crrf")
    assert s.spent == (9, 5) and s.payoffs() == [5.0, -5.0]


def test_kuhn():
    g = load_game("kuhn")
    s = State.initial(g)
    assert s.current_player == 0 and s.legal_kinds() == [C, R]
    s = State.from_betting(g, "r")
    assert s.legal_kinds() == [F, C]
    assert State.from_betting(g, "rf").payoffs() == [1.0, -1.0]
    assert State.from_betting(g, "crf").payoffs() == [-1.0, 1.0]
    for b in ("cc", "rc", "crc"):
        assert State.from_betting(g, b).is_showdown()
    with pytest.raises(BettingStringError):
        State.from_betting(g, "rr")


# --------------------------------------------------------------------------- three players

THREE = """\
GAMEDEF
nolimit
numPlayers = 3
numRounds = 4
stack = 100 300 1000
blind = 5 10 0
firstPlayer = 3 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""


def three(betting: str = "", holes=(), board=()) -> State:
    return State.from_betting(parse_gamedef(THREE), betting, hole_cards=holes, board_cards=board)


def test_three_player_order_and_short_stacks():
    s = three()
    assert s.current_player == 2  # firstPlayer 3
    assert s.can_fold()  # faces the big blind 10 with 0 in
    s = three("r250")
    assert s.current_player == 0
    # Seat 0 (stack 100) cannot raise: the bet 250 is already over its stack.
    assert s.raise_bounds() is None and s.legal_kinds() == [F, C]
    s = three("r250f")
    assert s.current_player == 1
    # Seat 1 (stack 300): minimum re-raise 490 is over its stack, but all-in 300 raises.
    assert s.raise_bounds() == (300, 300)
    s = three("r250c")  # seat 0 calls all-in for 100
    assert s.spent == (100, 10, 250) and s.current_player == 1
    s = three("r250cr300")
    # Short all-in raise: seat 2 is the only one left able to act, so it may not raise.
    assert s.current_player == 2 and s.raise_bounds() is None and s.legal_kinds() == [F, C]
    s = s.apply(CALL)
    assert s.finished and s.round == 3 and s.spent == (100, 300, 300)
    assert s.betting_string() == "r250cr300c///"


def test_three_player_fold_and_skip():
    s = three("cfc")  # seat 2 calls 10, seat 0 folds its 5, seat 1 checks
    assert s.round == 1 and s.current_player == 1  # seat 0 folded: next around the table
    s = three("cfc/cc/cc/cc")
    assert s.finished and s.is_showdown()


AA, QQ, LOW = parse_cards("AsAh"), parse_cards("QsQh"), parse_cards("3s4h")
BOARD = parse_cards("2c7d9hJsKc")


def test_side_pots():
    # Everyone all-in for 100 / 300 / 1000 pre-flop; AA > QQ > 4-high-with-king.
    s = three("r1000cc", holes=(AA, QQ, LOW), board=BOARD)
    assert s.finished and s.spent == (100, 300, 1000)
    # Main pot 3 x 100 to seat 0; side pot 2 x 200 to seat 1; seat 2 gets back 700.
    assert s.payoffs() == [200.0, 100.0, -300.0]
    # Reverse the ranking: the big stack wins everything it is matched for.
    s = three("r1000cc", holes=(LOW, QQ, AA), board=BOARD)
    assert s.payoffs() == [-100.0, -300.0, 400.0]
    # The short stack has the worst hand: QQ wins both pots.
    s = three("r1000cc", holes=(LOW, AA, QQ), board=BOARD)
    assert s.payoffs() == [-100.0, 400.0, -300.0]


def test_side_pot_with_folded_money():
    # Seat 2 raises to 200, seat 0 calls all-in (100), seat 1 calls 200; on the flop seat 1
    # bets all-in 300 and seat 2 folds its 200.
    s = three("r200cc/r300f", holes=(AA, QQ, LOW), board=BOARD)
    assert s.finished and s.is_showdown() and s.round == 3
    assert s.betting_string() == "r200cc/r300f//"
    assert s.spent == (100, 300, 200)
    # Pots: 100 x 3 -> seat 0; 100 x 2 (seats 1 and 2) -> seat 1; 100 -> seat 1 back.
    assert s.payoffs() == [200.0, 0.0, -200.0]
    s = three("r200cc/r300f", holes=(QQ, AA, LOW), board=BOARD)
    assert s.payoffs() == [-100.0, 300.0, -200.0]


def test_split_pots():
    aks, akc = parse_cards("AsKd"), parse_cards("AhKc")
    board = parse_cards("2c7d9hJsQc")
    # Seats 0 and 1 tie (A K Q J 9) for the main pot; seat 1 wins the side pot.
    s = three("r1000cc", holes=(aks, akc, LOW), board=board)
    assert s.payoffs() == [50.0, 250.0, -300.0]
    # Heads-up split: each gets its money back.
    g = load_game("hunl")
    s = State.from_betting(g, "r300c/cc/cc/cc", hole_cards=(aks, akc), board_cards=board)
    assert s.payoffs() == [0.0, 0.0]
    # Fractional split (valueOfState works in doubles): seat 0 folds its 5, seats 1 and 2
    # split the 5-chip layer they contest with it: 2.5 each.
    s = three("cfc/cc/cc/cc", holes=(LOW, aks, akc), board=board)
    assert s.payoffs() == [-5.0, 2.5, 2.5]


def test_heads_up_showdowns():
    g = load_game("hunl")
    s = State.from_betting(g, "r300c/cc/cc/cc", hole_cards=(AA, QQ), board_cards=BOARD)
    assert s.payoffs() == [300.0, -300.0]
    s = State.from_betting(g, "r20000c///", hole_cards=(QQ, AA), board_cards=BOARD)
    assert s.payoffs() == [-20000.0, 20000.0]
    # Leduc: a pair with the board beats a higher card; Kuhn: higher card wins.
    leduc = load_game("leduc")
    s = State.from_betting(leduc, "rc/rc", hole_cards=(parse_cards("Qh"), parse_cards("Ah")),
                           board_cards=parse_cards("Qs"))
    assert s.payoffs() == [7.0, -7.0]
    s = State.from_betting(leduc, "cc/cc", hole_cards=(parse_cards("Kh"), parse_cards("Ah")),
                           board_cards=parse_cards("Qs"))
    assert s.payoffs() == [-1.0, 1.0]
    kuhn = load_game("kuhn")
    s = State.from_betting(kuhn, "crc", hole_cards=(parse_cards("As"), parse_cards("Ks")))
    assert s.payoffs() == [2.0, -2.0]


def test_payoff_errors():
    with pytest.raises(IllegalActionError, match="unfinished"):
        hunl("r300").payoffs()
    with pytest.raises(IllegalActionError):
        hunl("r300c/cc/cc/cc").payoffs()  # showdown without cards


# --------------------------------------------------------------------------- strings and errors


@pytest.mark.parametrize(
    "betting",
    ["", "c", "r300", "r300c/", "r300c/r400r900c/cc/", "cc/cc/cc/cc", "r20000c///", "r300c/r1000f", "f"],
)
def test_betting_string_round_trip(betting):
    s = hunl(betting)
    assert s.betting_string() == betting
    assert hunl(s.betting_string()) == s


def test_from_betting_equals_applying_actions():
    s = play(State.initial(load_game("hunl")), raise_to(300), CALL, raise_to(400), raise_to(900), CALL)
    assert s == hunl("r300c/r400r900c/")
    assert s.actions() == [raise_to(300), CALL, raise_to(400), raise_to(900), CALL]


@pytest.mark.parametrize(
    "betting,fragment",
    [
        ("x", "'x'"),
        ("r", "size"),
        ("cr", "size"),
        ("rabc", "size"),
        ("r199", "r199"),
        ("r20001", "r20001"),
        ("cc/f", "f"),
        ("c f", "' '"),
        ("r300c/cc/cc/ccc", "c"),
        ("ff", "f"),
        ("r300r400", "r400"),
    ],
)
def test_bad_betting_strings(betting, fragment):
    with pytest.raises(BettingStringError) as info:
        hunl(betting)
    assert fragment in str(info.value)
    assert isinstance(info.value, PokerbotError)


def test_illegal_action_message_names_action_and_legal_range():
    s = hunl("r300")
    with pytest.raises(IllegalActionError) as info:
        s.apply(raise_to(400))
    msg = str(info.value)
    assert "r400" in msg and "r500..r20000" in msg and "r300" in msg
    with pytest.raises(IllegalActionError):
        hunl("f").apply(CALL)  # the hand is over


def test_fix_action_clamps_like_the_dealer():
    s = hunl("r300")
    assert s.fix_action(raise_to(400)) == raise_to(500)
    assert s.fix_action(raise_to(99999)) == raise_to(20000)
    assert s.fix_action(CALL) == CALL
    with pytest.raises(IllegalActionError):
        hunl("cc/").fix_action(FOLD)
    with pytest.raises(IllegalActionError):
        hunl("r15000r20000").fix_action(raise_to(20000))
    assert hulhe().fix_action(Action(R, 999)) == RAISE


def test_parse_action():
    assert parse_action("r300c", True) == (raise_to(300), 4)
    assert parse_action("c", True) == (CALL, 1)
    assert parse_action("rc", False) == (RAISE, 1)
    for bad in ("", "x", "r"):
        with pytest.raises(BettingStringError):
            parse_action(bad, True)


def test_state_is_immutable_and_hashable():
    s = hunl("r300")
    t = s.apply(CALL)
    assert s.betting_string() == "r300" and t.betting_string() == "r300c/"
    assert s != t and len({s, hunl("r300"), t}) == 2


def test_initial_state_card_checks():
    g = load_game("hunl")
    with pytest.raises(PokerbotError):
        State.initial(g, hole_cards=[parse_cards("AsAh"), parse_cards("AsKd")])
    with pytest.raises(IllegalActionError):
        State.initial(g, hole_cards=[parse_cards("AsAhKd"), parse_cards("2c2d")])
    with pytest.raises(IllegalActionError):
        State.initial(g, board_cards=parse_cards("2c3c4c5c6c7c"))


# --------------------------------------------------------------------------- property-based


def check_invariants(s: State) -> None:
    g = s.game
    n = g.num_players
    assert len(s.spent) == n
    assert s.max_spent == max(s.spent)
    assert s.pot == sum(s.spent)
    for p in range(n):
        assert g.blind[p] <= s.spent[p] <= g.stack[p]
    assert 0 <= s.round < g.num_rounds
    assert len(s.history) == s.round + 1
    if s.finished:
        assert s.current_player is None and s.legal_kinds() == []
        for a in (FOLD, CALL, RAISE, raise_to(s.max_spent + 100)):
            assert not s.is_legal(a)
        return
    p = s.current_player
    assert p is not None
    assert not s.folded[p] and s.spent[p] < g.stack[p]
    kinds = s.legal_kinds()
    assert C in kinds and s.is_legal(CALL)
    assert (F in kinds) == s.is_legal(FOLD) == (s.spent[p] < s.max_spent)
    bounds = s.raise_bounds()
    assert (R in kinds) == (bounds is not None)
    if bounds is None:
        assert not s.is_legal(RAISE) and not s.is_legal(raise_to(g.stack[p]))
    else:
        lo, hi = bounds
        assert s.max_spent < lo <= hi <= g.stack[p]
        assert s.num_raises() < g.max_raises[s.round]
        if g.nolimit:
            assert hi == g.stack[p]
            assert lo == hi or lo == s.min_raise_to
            assert s.is_legal(raise_to(lo)) and s.is_legal(raise_to(hi))
            assert not s.is_legal(raise_to(lo - 1)) and not s.is_legal(raise_to(hi + 1))
        else:
            assert lo == hi == min(s.max_spent + g.raise_size[s.round], g.stack[p])
            assert s.is_legal(RAISE)


def playout(game, seed: int, with_cards: bool = True):
    rng = random.Random(seed)
    holes, board = deal(game, rng) if with_cards else ((), ())
    s = State.initial(game, hand_id=seed, hole_cards=holes, board_cards=board)
    states = [s]
    while not s.finished:
        s = s.apply(random_action(s, rng))
        states.append(s)
    return states


@pytest.mark.parametrize("name", sorted(SHIPPED_GAMES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_invariants(name, seed):
    game = load_game(name)
    states = playout(game, seed, with_cards=True)
    for s in states:
        check_invariants(s)
        # the betting string replays to the same state
        again = State.from_betting(game, s.betting_string(), hand_id=s.hand_id,
                                   hole_cards=s.hole_cards, board_cards=s.board_cards)
        assert again == s
        assert again.spent == s.spent and again.current_player == s.current_player
        assert again.finished == s.finished and again.round == s.round
    final = states[-1]
    try:
        import pokerbot.evaluator  # noqa: F401
    except ImportError:
        if final.is_showdown():
            return
    values = final.payoffs()
    assert sum(values) == pytest.approx(0.0, abs=1e-9)
    for p in range(game.num_players):
        assert -final.spent[p] <= values[p] <= final.pot - final.spent[p]
        if final.folded[p]:
            assert values[p] == -final.spent[p]
    if not final.is_showdown():
        winner = final.folded.index(False)
        assert values[winner] == final.pot - final.spent[winner]
