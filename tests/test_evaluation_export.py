"""Hand-history export (evaluation/export.py, ``pokerbot convert``): PHH read back by pokerkit, PokerStars text
read back by a small regex reader (and by pokerkit's PokerStars parser), bad input as one-line typed errors.

The logs: a no-limit (HUNL) and a limit (HULHE) match played by our match runner, and hand-written lines in
the reference dealer's style (an all-in bet left uncalled, an all-in called and run out, a showdown won and
one split, a short stack's all-in call with the uncalled rest returned, in a ``.game`` file named by the header,
and three-player hands).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest
from pokerkit import HandHistory

from evaluation.export import (
    ExportError,
    game_of_log,
    phh_hand,
    phhs_text,
    pokerkit_variant,
    pokerstars_hand,
    pokerstars_text,
    read_log_file,
)
from evaluation.match import play_match
from pokerbot.bots import make_agent
from pokerbot.cards import format_cards
from pokerbot.cli import main
from pokerbot.gamedef import GameDef, load_game
from pokerbot.protocol.log import HandRecord, MatchLog, parse_log

SHORT_GAME = """GAMEDEF
nolimit
numPlayers = 2
numRounds = 4
stack = 20000 10000
blind = 100 50
firstPlayer = 2 1 1 1
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""

#: Reference-dealer lines (HUNL): player 0 posts the big blind, player 1 the small one and acts first preflop.
REFERENCE_LINES = [
    "# name/game/hands/seed ref holdem.nolimit.2p.reverse_blinds.game 5 0",
    "#--t_response 600000",
    # Bob shoves 20000, Alice folds her big blind: 19900 of the bet comes back to Bob.
    "STATE:0:r20000f:7c2d|AsKs:-100|100:Alice|Bob",
    # A showdown: Bob's wheel (A-2-3-4-5) beats Alice's kings.
    "STATE:1:r300c/cc/cc/cc:AsAd|KsKd/2c3c4c/5h/9s:300|-300:Bob|Alice",
    # All-in preflop, called and run out: Alice's sevens hold.
    "STATE:2:r20000c///:7h7c|AhKd/2d8s9c/Jh/3s:20000|-20000:Alice|Bob",
    # Both play the board (kings full of queens): the pot is split.
    "STATE:3:r250c/r500c/cc/r1000c:Ah2c|Ad3c/KsKhKd/Qc/Qs:0|0:Bob|Alice",
    # The small blind folds at once.
    "STATE:4:f:9c8c|Td4h:50|-50:Alice|Bob",
    "SCORE:19650|-19650:Alice|Bob",
]

#: A short stack (10000) calls an all-in of 20000: the 10000 nobody matched goes back, AA's wheel wins.
SHORT_LINES = [
    "# name/game/hands/seed ref short.game 1 0",
    "STATE:0:cr20000c///:AsAd|KsKd/2c3c4c/5h/9s:10000|-10000:Alice|Bob",
    "SCORE:10000|-10000:Alice|Bob",
]


#: Three players (blinds 50/100, the button opens): pokerkit's multi-way seating is ACPC's.
THREE_GAME = SHORT_GAME.replace("numPlayers = 2", "numPlayers = 3").replace(
    "stack = 20000 10000", "stack = 20000 20000 20000").replace("blind = 100 50", "blind = 50 100 0").replace(
    "firstPlayer = 2 1 1 1", "firstPlayer = 3 1 1 1")
THREE_LINES = [
    "# name/game/hands/seed three three.game 3 0",
    "STATE:0:r300ff:AsAd|KsKd|QsQd:-50|-100|150:A|B|C",
    "STATE:1:ccc/ccc/ccc/ccc:AsAd|KsKd|QsQd/2c3c4c/5h/9s:200|-100|-100:B|C|A",
    "STATE:2:r300r900fc/r2000c/cc/cc:AsAd|KsKd|QsQd/2c7c8c/Jh/9s:2100|-100|-2000:C|A|B",
    "SCORE:-250|-1900|2150:A|B|C",
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("export")
    out = {}
    for name, game_name, a, b, hands in (("hunl", "hunl", "random", "equity?samples=30", 80),
                                         ("hunl-call", "hunl", "random", "call", 40),
                                         ("hulhe", "hulhe", "random", "equity?samples=30", 80)):
        game = load_game(game_name)
        path = d / f"{name}.log"
        play_match(make_agent(a, game, 1), make_agent(b, game, 2), game, hands, seed=3, log_path=path,
                   progress=False)
        out[name] = path
    out["reference"] = _write(d / "reference.log", REFERENCE_LINES)
    (d / "short.game").write_text(SHORT_GAME)
    out["short"] = _write(d / "short.log", SHORT_LINES)
    (d / "three.game").write_text(THREE_GAME)
    out["three"] = _write(d / "three.log", THREE_LINES)
    return out


LOG_NAMES = ["hunl", "hunl-call", "hulhe", "reference", "short", "three"]


def _read(path: Path) -> tuple[GameDef, MatchLog]:
    game = game_of_log(path)
    return game, read_log_file(game, path)


def test_the_logs_cover_what_the_formats_must_show(logs: dict[str, Path]) -> None:
    """Not vacuous: folds, showdowns, all-ins, uncalled bets, a split pot, run-outs, both seat orders, and the
    hand-written values are the engine's."""
    hands = [rec for name in LOG_NAMES for rec in _read(logs[name])[1].hands]
    assert sum(rec.state.is_showdown() for rec in hands) >= 10
    assert sum(any(rec.state.folded) for rec in hands) >= 20
    assert any(max(rec.state.spent) == rec.state.game.stack[0] for rec in hands)
    assert any(rec.state.is_showdown() and rec.values[0] == 0 for rec in hands)
    assert any(rec.state.betting_string().endswith("///") for rec in hands)
    for name in ("reference", "short", "three"):
        for rec in _read(logs[name])[1].hands:
            assert list(rec.values) == rec.state.payoffs()


# --- PHH ------------------------------------------------------------------------------------------------------


def _phh_betting(hh: HandHistory) -> str:
    """The ACPC betting string pokerkit itself writes for a PHH hand (its own ACPC converter, not ours)."""
    last = list(hh.to_acpc_protocol(0, hh.hand))[-1][1]
    return last.strip().split(":")[3]


@pytest.mark.parametrize("name", LOG_NAMES)
def test_pokerkit_reads_every_phh_hand_back_with_the_logs_actions_and_payoffs(logs: dict[str, Path],
                                                                              name: str) -> None:
    game, log = _read(logs[name])
    text = phhs_text(game, log)
    hhs = list(HandHistory.loads_all(text))
    assert len(hhs) == len(log.hands)
    for hh, rec in zip(hhs, log.hands):
        assert hh.variant == ("NT" if game.nolimit else "FT")
        assert hh.hand == rec.hand_id and hh.players == list(rec.names)
        assert hh.starting_stacks == list(game.stack)
        final = list(hh)[-1]  # pokerkit replays the actions
        assert not final.status
        assert list(final.payoffs) == list(rec.values), (rec.state, final.payoffs)
        assert hh.finishing_stacks == [s + v for s, v in zip(game.stack, rec.values)]
        assert _phh_betting(hh) == rec.state.betting_string()
        dealt = [a.split()[-1] for a in hh.actions if a.startswith("d dh")]
        assert dealt == [format_cards(h) for h in rec.state.hole_cards]
        board = "".join(a.split()[-1] for a in hh.actions if a.startswith("d db"))
        assert board == format_cards(rec.state.board_cards)
        if rec.state.is_showdown():
            assert sum(" sm " in a for a in hh.actions) == rec.state.folded.count(False)


def test_one_phh_file_per_hand(logs: dict[str, Path]) -> None:
    game, log = _read(logs["reference"])
    for rec in log.hands:
        hh = HandHistory.loads(phh_hand(game, rec).dumps())
        assert list(list(hh)[-1].payoffs) == list(rec.values)


def test_phh_seats_follow_the_score_line(logs: dict[str, Path]) -> None:
    game, log = _read(logs["reference"])
    hhs = list(HandHistory.loads_all(phhs_text(game, log)))
    for hh in hhs:
        assert dict(zip(hh.players, hh.seats)) == {"Alice": 1, "Bob": 2}
        assert hh.event == "ref"


def test_a_log_whose_values_are_wrong_is_refused(tmp_path: Path) -> None:
    """Negative control: pokerkit's payoffs are really compared with the log's."""
    lines = list(REFERENCE_LINES)
    lines[3] = lines[3].replace(":300|-300:", ":200|-200:")
    game = load_game("hunl")
    log = parse_log(game, lines)
    with pytest.raises(ExportError, match="hand 1: pokerkit's chips won"):
        phhs_text(game, log)
    with pytest.raises(ExportError, match="hand 1: the engine's chips won"):
        pokerstars_text(game, log)
    lines[3] = lines[3].replace(":200|-200:", ":nan|nan:")
    with pytest.raises(ExportError, match="hand 1: pokerkit's chips won"):
        phhs_text(game, parse_log(game, lines))


# --- PokerStars ---------------------------------------------------------------------------------------------


_ACTION = re.compile(r"^(?P<name>\S+): (?P<what>folds|checks|calls (?P<call>\d+)|bets (?P<bet>\d+)"
                     r"|raises (?P<by>\d+) to (?P<to>\d+))(?P<allin> and is all-in)?$")
_STREET = re.compile(r"^\*\*\* (FLOP|TURN|RIVER) \*\*\* (?:\[[^]]*\] )?\[(?P<cards>[^]]*)\]$")


def read_pokerstars(text: str) -> list[dict[str, object]]:
    """A small independent reader: per hand its number, seats, cards, ACPC betting string and chips won."""
    hands = []
    for block in text.strip().split("\n\n\n"):
        lines = block.strip().splitlines()
        head = re.match(r"^PokerStars Hand #(\d+): Hold'em (No Limit|Limit) \((\d+)/(\d+)\) - "
                        r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d UTC$", lines[0])
        assert head, lines[0]
        nolimit = head[2] == "No Limit"
        assert re.match(r"^Table '[^']+' \d+-max Seat #\d+ is the button$", lines[1])
        seats = {m[2]: int(m[1]) for m in (re.match(r"^Seat (\d+): (\S+) \((\d+) in chips\)$", x) for x in lines)
                 if m}
        put: dict[str, int] = dict.fromkeys(seats, 0)  # chips in over the hand
        street: dict[str, int] = dict.fromkeys(seats, 0)  # chips in this street
        back: dict[str, int] = dict.fromkeys(seats, 0)
        collected: dict[str, int] = dict.fromkeys(seats, 0)
        dealt, board, betting = {}, [], ""
        summary = False
        for line in lines[2:]:
            if line == "*** SUMMARY ***":
                summary = True
            if summary:
                if m := re.match(r"^Total pot (\d+) \| Rake 0$", line):
                    total = int(m[1])
                continue
            if m := re.match(r"^(\S+): posts (small|big) blind (\d+)$", line):
                put[m[1]] += int(m[3])
                street[m[1]] = int(m[3])
            elif m := re.match(r"^Dealt to (\S+) \[(.+)\]$", line):
                dealt[m[1]] = m[2].replace(" ", "")
            elif m := _STREET.match(line):
                board.append(m["cards"].replace(" ", ""))
                street = dict.fromkeys(seats, 0)
                betting += "/"
            elif m := _ACTION.match(line):
                who = m["name"]
                if m["what"] == "folds":
                    betting += "f"
                elif m["what"] == "checks":
                    betting += "c"
                elif m["call"]:
                    put[who] += int(m["call"])
                    street[who] += int(m["call"])
                    betting += "c"
                else:
                    to = int(m["bet"] or m["to"])
                    if m["by"]:
                        assert int(m["by"]) == to - max(street.values())
                    put[who] += to - street[who]
                    street[who] = to
                    betting += f"r{put[who]}" if nolimit else "r"
            elif m := re.match(r"^Uncalled bet \((\d+)\) returned to (\S+)$", line):
                back[m[2]] += int(m[1])
            elif m := re.match(r"^(\S+) collected (\d+) from pot$", line):
                collected[m[1]] += int(m[2])
            else:
                assert (line in ("*** HOLE CARDS ***", "*** SHOW DOWN ***") or ": shows [" in line
                        or line.startswith("Seat ")), line
        won = {name: collected[name] + back[name] - put[name] for name in seats}
        assert total == sum(collected.values())
        hands.append({"hand": int(head[1]), "seats": seats, "dealt": dealt, "board": "".join(board),
                      "betting": betting, "won": won})
    return hands


@pytest.mark.parametrize("name", LOG_NAMES)
def test_pokerstars_text_reads_back_to_the_logs_actions_and_chips(logs: dict[str, Path], name: str) -> None:
    game, log = _read(logs[name])
    hands = read_pokerstars(pokerstars_text(game, log))
    assert len(hands) == len(log.hands)
    for hand, rec in zip(hands, log.hands):
        assert hand["hand"] == rec.hand_id
        assert hand["betting"] == rec.state.betting_string(), rec.state
        assert hand["won"] == {n: rec.value_of(n) for n in rec.names}, rec.state
        assert hand["dealt"] == {n: format_cards(h) for n, h in zip(rec.names, rec.state.hole_cards)}
        assert hand["board"] == format_cards(rec.state.board_cards)
        assert hand["seats"] == {n: i + 1 for i, n in enumerate(log.score or rec.names)}


@pytest.mark.parametrize("name", ["hunl", "reference", "short", "three"])
def test_pokerkits_pokerstars_parser_agrees_on_no_limit_hands(logs: dict[str, Path], name: str) -> None:
    """A second, independent reader: pokerkit's own PokerStars parser replays each hand to the log's chips."""
    game, log = _read(logs[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pokerkit warns about a field of its own ("time_zone_abbreviation")
        hhs = list(HandHistory.from_pokerstars(pokerstars_text(game, log), error_status=True))
    assert len(hhs) == len(log.hands)
    for hh, rec in zip(hhs, log.hands):
        won = dict(zip(hh.players, list(hh)[-1].payoffs))
        assert [won[n] for n in rec.names] == list(rec.values)


def test_the_reader_catches_a_wrong_amount(logs: dict[str, Path]) -> None:
    """Negative control for the regex reader: one changed call amount changes what it reads."""
    game, log = _read(logs["reference"])
    original = pokerstars_text(game, log)
    assert "Bob: calls 200\n" in original
    text = original.replace("Bob: calls 200\n", "Bob: calls 100\n", 1)
    won = [h["won"] for h in read_pokerstars(text)]
    assert won != [{n: rec.value_of(n) for n in rec.names} for rec in log.hands]


# --- bad input ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game_name", ["kuhn", "leduc", "leduc-nl", "nlfh", "nlfh-small"])
def test_games_pokerkit_cannot_hold_are_refused_by_name(game_name: str) -> None:
    with pytest.raises(ExportError, match=f"game '{game_name}' cannot be written"):
        pokerkit_variant(load_game(game_name))


def test_a_log_without_a_header_needs_game(tmp_path: Path) -> None:
    path = _write(tmp_path / "bare.log", REFERENCE_LINES[2:])
    with pytest.raises(ExportError, match="give it with --game"):
        game_of_log(path)
    assert game_of_log(path, "hunl") == load_game("hunl")


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> str:
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pokerbot convert: error: "), err
    for text in expected:
        assert text in err[0], err[0]
    return err[0]


def test_convert_command(logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "reference.log"
    log.write_text(logs["reference"].read_text())
    assert main(["convert", str(log), "--to", "phh"]) == 0
    out = tmp_path / "reference.phhs"
    assert "wrote 5 hands of hunl as phh" in capsys.readouterr().out
    assert len(list(HandHistory.loads_all(out.read_text()))) == 5
    _one_line_error(capsys, ["convert", str(log), "--to", "phh"], "exists; pass --force")
    out.write_text("old")
    assert main(["convert", str(log), "--to", "phh", "--force"]) == 0
    assert out.read_text().startswith("[1]")
    assert main(["convert", str(log), "--to", "pokerstars"]) == 0
    assert len(read_pokerstars((tmp_path / "reference.txt").read_text())) == 5
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_convert_refuses_bad_input_in_one_line(logs: dict[str, Path], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    notlog = tmp_path / "notes.log"
    notlog.write_text("# name/game/hands/seed x hunl 1 0\nthis is not a hand\n")
    _one_line_error(capsys, ["convert", str(notlog), "--to", "phh"], "not an ACPC log", "line 2")
    binary = tmp_path / "binary.log"
    binary.write_bytes(bytes(range(256)))
    _one_line_error(capsys, ["convert", str(binary), "--to", "phh", "--game", "hunl"], "not an ACPC log")
    kuhn = tmp_path / "kuhn.log"
    kuhn.write_text("# name/game/hands/seed m kuhn 1 0\nSTATE:0:cc:Ks|Qs:1|-1:A|B\n")
    _one_line_error(capsys, ["convert", str(kuhn), "--to", "pokerstars"], "game 'kuhn' cannot be written")
    _one_line_error(capsys, ["convert", str(logs["hunl"]), "--to", "phh", "--game", "leduc",
                             "--out", str(tmp_path / "x.phhs")], "game 'leduc'")
    _one_line_error(capsys, ["convert", str(logs["hunl"]), "--to", "phh", "--out", str(tmp_path)], "directory")
    _one_line_error(capsys, ["convert", str(tmp_path / "missing.log"), "--to", "phh"], "no such file")
    fifo = tmp_path / "fifo.phhs"
    os.mkfifo(fifo)
    _one_line_error(capsys, ["convert", str(logs["reference"]), "--to", "phh", "--out", str(fifo), "--force"],
                    "not a regular file")
    assert not (tmp_path / "x.phhs").exists()


def test_a_showdown_without_the_cards_is_refused() -> None:
    game = load_game("hunl")
    rec = parse_log(game, ["STATE:1:r300c/cc/cc/cc:AsAd|KsKd/2c3c4c/5h/9s:300|-300:Bob|Alice"]).hands[0]
    blind = HandRecord(rec.hand_id, rec.state.with_cards([rec.state.hole_cards[0], ()]), rec.values, rec.names)
    with pytest.raises(ExportError, match="does not show player 1's cards"):
        phh_hand(game, blind)
    with pytest.raises(ExportError, match="does not show player 1's cards"):
        pokerstars_hand(game, blind)
