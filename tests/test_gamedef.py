"""GameDef: parsing ACPC .game files, round trips, and clear errors on bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerbot.errors import GameDefError
from pokerbot.gamedef import (
    SHIPPED_GAMES,
    UNLIMITED_RAISES,
    UNLIMITED_STACK,
    GameDef,
    load_game,
    parse_gamedef,
    shipped_game_path,
)

HUNL_TEXT = """\
GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 20000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

# The ACPC server's own 3-player files (copied field by field from its README format).
HOLDEM_LIMIT_3P = (Path(__file__).parent / "data" / "holdem.limit.3p.game").read_text()


@pytest.mark.parametrize("name", sorted(SHIPPED_GAMES))
def test_every_shipped_game_parses_and_round_trips(name):
    game = load_game(name)
    assert isinstance(game, GameDef)
    assert game.name == name
    again = parse_gamedef(game.to_text())
    assert again == game
    assert again.to_text() == game.to_text()
    # The shipped file and the game are consistent with the deck.
    assert game.num_hole_cards * game.num_players + game.total_board_cards <= game.deck_size
    assert len(game.deck()) == game.deck_size
    assert shipped_game_path(name).is_file()
    # load_game by path gives the same game
    assert load_game(str(shipped_game_path(name))) == game


def test_hunl_fields():
    g = load_game("hunl")
    assert g.nolimit and g.num_players == 2 and g.num_rounds == 4
    assert g.stack == (20000, 20000)
    assert g.blind == (100, 50)  # seat 0 is the big blind (reverse blinds)
    assert g.first_player == (1, 0, 0, 0)  # file is 1-based: 2 1 1 1
    assert g.max_raises == (UNLIMITED_RAISES,) * 4
    assert g.num_board_cards == (0, 3, 1, 1)
    assert g.big_blind == 100
    assert g.board_cards_before(2) == 3 and g.board_cards_through(2) == 4
    assert g.total_board_cards == 5
    assert parse_gamedef(HUNL_TEXT) == g


def test_limit_games_fields():
    hulhe = load_game("hulhe")
    assert not hulhe.nolimit
    assert hulhe.stack == (UNLIMITED_STACK, UNLIMITED_STACK)
    assert hulhe.raise_size == (10, 10, 20, 20)
    assert hulhe.max_raises == (3, 4, 4, 4)
    assert hulhe.first_player == (1, 0, 0, 0)
    kuhn = load_game("kuhn")
    assert (kuhn.num_ranks, kuhn.num_suits, kuhn.num_hole_cards) == (3, 1, 1)
    assert kuhn.blind == (1, 1) and kuhn.max_raises == (1,)
    leduc = load_game("leduc")
    assert leduc.raise_size == (2, 4) and leduc.max_raises == (2, 2)
    assert leduc.num_board_cards == (0, 1) and leduc.deck_size == 6


def test_three_player_acpc_file():
    g = parse_gamedef(HOLDEM_LIMIT_3P)
    assert g.num_players == 3 and g.blind == (5, 10, 0) and g.first_player == (2, 0, 0, 0)
    assert parse_gamedef(g.to_text()) == g


def test_lenient_syntax_like_readgame():
    text = """\
# comment
gamedef

NOLIMIT
NUMPLAYERS 2
numrounds=2
Stack = 100 100
blind = 2   1
firstplayer = 2 1
numSuits = 2
numranks = 3
numholecards = 1
numboardcards = 0 1
end gamedef
this line is after the end and ignored
"""
    g = parse_gamedef(text)
    assert g.nolimit and g.num_rounds == 2 and g.stack == (100, 100) and g.blind == (2, 1)
    assert g.first_player == (1, 0) and g.num_board_cards == (0, 1)


def test_defaults():
    # No betting line: limit. No stack: unlimited. No firstPlayer: player 1. No maxRaises: 255.
    text = HOLDEM_LIMIT_3P.replace("limit\n", "", 1).replace("firstPlayer = 3 1 1 1\n", "")
    text = text.replace("maxRaises = 3 4 4 4\n", "")
    g = parse_gamedef(text)
    assert not g.nolimit
    assert g.stack == (UNLIMITED_STACK,) * 3
    assert g.first_player == (0, 0, 0, 0)
    assert g.max_raises == (255,) * 4


def test_nolimit_game_with_raise_sizes_round_trips():
    # A no-limit file may still carry raiseSize (ACPC reads and ignores it); to_text must keep
    # the definition equal after a round trip.
    text = HUNL_TEXT.replace("blind = 100 50\n", "blind = 100 50\nraiseSize = 100 100 200 200\n")
    g = parse_gamedef(text)
    assert parse_gamedef(g.to_text()) == g


def test_tab_separated_key_without_equals():
    text = HUNL_TEXT.replace("numPlayers = 2", "numPlayers\t2")
    assert parse_gamedef(text).num_players == 2


def _replace(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


BAD_FILES = [
    # (description, text, words the message must contain)
    ("no header", HUNL_TEXT.replace("GAMEDEF\n", "", 1), "GAMEDEF"),
    ("missing numRounds", _replace(HUNL_TEXT, "numRounds = 4\n", ""), "num_rounds"),
    ("missing numPlayers", _replace(HUNL_TEXT, "numPlayers = 2\n", ""), "num_players"),
    ("missing blind", _replace(HUNL_TEXT, "blind = 100 50\n", ""), "blind"),
    ("missing numSuits", _replace(HUNL_TEXT, "numSuits = 4\n", ""), "num_suits"),
    ("missing numRanks", _replace(HUNL_TEXT, "numRanks = 13\n", ""), "num_ranks"),
    ("missing numHoleCards", _replace(HUNL_TEXT, "numHoleCards = 2\n", ""), "num_hole_cards"),
    ("missing numBoardCards", _replace(HUNL_TEXT, "numBoardCards = 0 3 1 1\n", ""), "board card"),
    ("too few board numbers", _replace(HUNL_TEXT, "numBoardCards = 0 3 1 1", "numBoardCards = 0 3"), "board card"),
    ("too few stacks", _replace(HUNL_TEXT, "stack = 20000 20000", "stack = 20000"), "stack"),
    ("too few blinds", _replace(HUNL_TEXT, "blind = 100 50", "blind = 100"), "blind"),
    ("limit without raise sizes", _replace(HOLDEM_LIMIT_3P, "raiseSize = 10 10 20 20\n", ""), "raise size"),
    ("too few raise sizes", _replace(HOLDEM_LIMIT_3P, "raiseSize = 10 10 20 20", "raiseSize = 10 10"), "raise size"),
    ("bad number", _replace(HUNL_TEXT, "numRanks = 13", "numRanks = thirteen"), "numranks"),
    ("bad number in list", _replace(HUNL_TEXT, "blind = 100 50", "blind = 100 5x0"), "blind"),
    ("two numbers for a scalar", _replace(HUNL_TEXT, "numRounds = 4", "numRounds = 4 4"), "numrounds"),
    ("too many cards", _replace(HUNL_TEXT, "numRanks = 13", "numRanks = 2"), "too many"),
    ("too many cards (board)", _replace(HUNL_TEXT, "numSuits = 4\nnumRanks = 13", "numSuits = 1\nnumRanks = 8"), "too many"),
    ("blind > stack", _replace(HUNL_TEXT, "stack = 20000 20000", "stack = 20000 40"), "greater than stack"),
    ("firstPlayer 0", _replace(HUNL_TEXT, "firstPlayer = 2 1 1 1", "firstPlayer = 2 0 1 1"), "first player"),
    ("firstPlayer too big", _replace(HUNL_TEXT, "firstPlayer = 2 1 1 1", "firstPlayer = 3 1 1 1"), "first player"),
    ("firstPlayer too few", _replace(HUNL_TEXT, "firstPlayer = 2 1 1 1", "firstPlayer = 2 1"), "first player"),
    ("unknown line", _replace(HUNL_TEXT, "numSuits = 4\n", "numSuits = 4\nante = 5\n"), "unknown"),
    ("zero rounds", _replace(HUNL_TEXT, "numRounds = 4", "numRounds = 0"), "rounds"),
    ("five rounds", _replace(HUNL_TEXT, "numRounds = 4", "numRounds = 5"), "rounds"),
    ("one player", _replace(HUNL_TEXT, "numPlayers = 2", "numPlayers = 1"), "players"),
    ("eleven players", _replace(HUNL_TEXT, "numPlayers = 2", "numPlayers = 11"), "players"),
    ("five suits", _replace(HUNL_TEXT, "numSuits = 4", "numSuits = 5"), "suits"),
    ("zero ranks", _replace(HUNL_TEXT, "numRanks = 13", "numRanks = 0"), "ranks"),
    ("fourteen ranks", _replace(HUNL_TEXT, "numRanks = 13", "numRanks = 14"), "ranks"),
    ("no hole cards", _replace(HUNL_TEXT, "numHoleCards = 2", "numHoleCards = 0"), "hole cards"),
    ("four hole cards", _replace(HUNL_TEXT, "numHoleCards = 2", "numHoleCards = 4"), "hole cards"),
    ("negative blind", _replace(HUNL_TEXT, "blind = 100 50", "blind = 100 -50"), "blind"),
    ("zero stack", _replace(HUNL_TEXT, "stack = 20000 20000", "stack = 0 20000"), "stack"),
    ("zero raise size", _replace(HOLDEM_LIMIT_3P, "raiseSize = 10 10 20 20", "raiseSize = 10 0 20 20"), "raise size"),
    ("eight board cards", _replace(HUNL_TEXT, "numBoardCards = 0 3 1 1", "numBoardCards = 0 3 1 4"), "board card"),
]


@pytest.mark.parametrize("desc,text,words", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_game_files_raise_named_errors(desc, text, words):
    with pytest.raises(GameDefError) as info:
        parse_gamedef(text)
    assert words.lower() in str(info.value).lower(), f"{desc}: message {info.value!s} should mention {words!r}"


def test_empty_text():
    with pytest.raises(GameDefError):
        parse_gamedef("")


def test_unknown_line_names_the_line_number():
    text = _replace(HUNL_TEXT, "numSuits = 4\n", "numSuits = 4\nfoo bar\n")
    with pytest.raises(GameDefError, match=r"line 9"):
        parse_gamedef(text)


def test_load_game_errors(tmp_path):
    with pytest.raises(GameDefError, match="no game"):
        load_game(str(tmp_path / "missing.game"))
    with pytest.raises(GameDefError, match="unknown game"):
        shipped_game_path("omaha")
    bad = tmp_path / "bad.game"
    bad.write_text(_replace(HUNL_TEXT, "numRanks = 13\n", ""))
    with pytest.raises(GameDefError, match="num_ranks"):
        load_game(str(bad))
    good = tmp_path / "mine.game"
    good.write_text(HUNL_TEXT)
    g = load_game(str(good))
    assert g.name == "mine" and g == load_game("hunl")


def test_gamedef_is_immutable_and_hashable():
    g = load_game("leduc")
    with pytest.raises(AttributeError):
        g.num_players = 3  # type: ignore[misc]
    assert hash(g) == hash(parse_gamedef(g.to_text()))
