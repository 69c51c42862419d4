"""Faults on an ACPC connection: each gets a clear error or the reference dealer's treatment, never a hang,
and the hands finished before it stay in the log and the result."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Callable

import pytest

from pokerbot.agent import Agent
from pokerbot.bots import make_agent
from pokerbot.errors import ProtocolError
from pokerbot.gamedef import load_game
from pokerbot.matchstate import parse_matchstate
from pokerbot.protocol.client import play_connection
from pokerbot.protocol.dealer import Dealer, DealerConfig, parse_version
from pokerbot.protocol.log import read_log
from pokerbot.protocol.net import LineConnection, LineTimeout
from pokerbot.state import CALL

#: A scripted player's answer to a state: text to send, None to stay silent, CLOSE to hang up.
CLOSE = object()
Script = Callable[[int, str, bool], object]


def scripted_player(port: int, game_name: str, script: Script, version: str = "VERSION:2.0.0") -> threading.Thread:
    """A raw player: sends ``version``, then for each state calls ``script(count, line, my_turn)``."""
    game = load_game(game_name)

    def run() -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        conn = LineConnection(sock)
        try:
            conn.send_line(version)
            count = 0
            while True:
                try:
                    line = conn.read_line(deadline=time.monotonic() + 20)
                except ProtocolError:
                    return
                if line is None:
                    return
                view = parse_matchstate(game, line)
                answer = script(count, line, view.is_my_turn and not view.state.finished)
                count += 1
                if answer is CLOSE:
                    return
                if isinstance(answer, list):  # [(delay, text), ...]
                    for delay, text in answer:
                        time.sleep(delay)
                        try:
                            sock.sendall(text.encode())
                        except OSError:
                            return
                elif answer is not None:
                    sock.sendall(str(answer).encode())
        finally:
            conn.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def good_player(port: int, game_name: str) -> threading.Thread:
    game = load_game(game_name)

    def run() -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.settimeout(None)
        conn = LineConnection(sock)
        try:
            play_connection(make_agent("call", game), game, conn, idle_timeout=20, err=io.StringIO())
        except ProtocolError:
            pass
        finally:
            conn.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def run_dealer(tmp_path, game_name: str, hands: int, seat0: Callable[[int], threading.Thread], **options):  # type: ignore[no-untyped-def]
    """Seat 0 is the player under test, seat 1 a well-behaved caller. Returns (result, stderr, log)."""
    game = load_game(game_name)
    cfg = DealerConfig(str(tmp_path / "m"), game, hands, 3, ["Test", "Good"], quiet=True, **options)
    err = io.StringIO()
    dealer = Dealer(cfg, out=io.StringIO(), err=err)
    ports = dealer.listen()
    players = [seat0(ports[0]), good_player(ports[1], game_name)]
    start = time.monotonic()
    result = dealer.play()
    elapsed = time.monotonic() - start
    for p in players:
        p.join(10)
    assert elapsed < 15, "the dealer must not hang"
    return result, err.getvalue(), read_log(game, cfg.log_path)


def respond_call(count: int, line: str, my_turn: bool) -> object:
    return f"{line}:c\r\n" if my_turn else None


def test_well_behaved_scripted_player_plays_the_match(tmp_path) -> None:
    result, err, log = run_dealer(tmp_path, "kuhn", 20, lambda port: scripted_player(port, "kuhn", respond_call))
    assert result.error is None and len(log.hands) == 20 and "WARNING" not in err


@pytest.mark.parametrize("version", ["VERSION:3.0.0", "HELLO", "VERSION:2.0"])
def test_wrong_version_is_refused_with_a_clear_error(tmp_path, version: str) -> None:
    result, err, log = run_dealer(
        tmp_path, "kuhn", 5, lambda port: scripted_player(port, "kuhn", respond_call, version=version)
    )
    assert result.error is not None and "seat 1" in result.error
    assert "version" in result.error.lower()
    assert result.hands_played == 0 and log.hands == [] and log.score is None


def test_newer_minor_version_is_accepted_with_a_warning(tmp_path) -> None:
    result, err, _ = run_dealer(
        tmp_path, "kuhn", 4, lambda port: scripted_player(port, "kuhn", respond_call, version="VERSION:2.1.0")
    )
    assert result.error is None and "WARNING" in err


def test_garbled_message_and_comments_are_ignored(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        if not my_turn:
            return None
        return f"# thinking\r\n;also a comment\r\nthis is garbage\r\nMATCHSTATE:9:garbled:c\r\n{line}:c\r\n"

    result, err, log = run_dealer(tmp_path, "kuhn", 10, lambda port: scripted_player(port, "kuhn", script))
    assert result.error is None and len(log.hands) == 10
    assert "bad state format" in err


def test_out_of_turn_response_is_ignored(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        if my_turn:
            return f"{line}:c\r\n"
        return f"{line}:r\r\n"  # answering a state where it is not to act

    result, err, log = run_dealer(tmp_path, "kuhn", 10, lambda port: scripted_player(port, "kuhn", script))
    assert result.error is None and len(log.hands) == 10
    assert "un-requested" in err
    # Only calls were taken from the tester: none of the out-of-turn raises.
    for hand in log.hands:
        tester = hand.names.index("Test")
        assert all(a.kind != 2 for rnd in hand.state.history for p, a in rnd if p == tester)


def test_impossible_raise_sizes_are_clamped_as_the_reference_does(tmp_path) -> None:
    sizes = iter(["r50", "r99999999", "r50", "r99999999"] * 10)

    def script(count: int, line: str, my_turn: bool) -> object:
        return f"{line}:{next(sizes)}\r\n" if my_turn else None

    result, err, log = run_dealer(tmp_path, "hunl", 4, lambda port: scripted_player(port, "hunl", script))
    assert result.error is None
    assert "raise of 50 increased to" in err and "raise of 99999999 decreased to 20000" in err
    assert any("r20000" in h.state.betting_string() for h in log.hands)


def test_invalid_actions_become_calls_then_end_the_match(tmp_path) -> None:
    # Folding when a check is possible is invalid: the dealer calls instead, until the count runs out.
    def script(count: int, line: str, my_turn: bool) -> object:
        return f"{line}:f\r\n" if my_turn else None

    result, err, log = run_dealer(
        tmp_path, "leduc", 50, lambda port: scripted_player(port, "leduc", script), max_invalid=3
    )
    assert result.error is not None and "more than 3 invalid actions" in result.error
    assert "changed to call" in err
    finished = result.hands_played
    assert finished >= 1 and len(log.hands) == finished == len(result.hand_values)
    assert log.score is None and "ERROR" in log.comments[-1]


def test_silent_player_times_out(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        if my_turn and count >= 12:
            return None  # goes silent after a few hands
        return f"{line}:c\r\n" if my_turn else None

    start = time.monotonic()
    result, err, log = run_dealer(
        tmp_path, "kuhn", 100, lambda port: scripted_player(port, "kuhn", script), t_response_ms=300
    )
    assert time.monotonic() - start < 5
    assert result.error is not None and "ran out of time" in result.error
    assert 1 <= result.hands_played < 100 and len(log.hands) == result.hands_played


def test_babbling_player_cannot_reset_the_clock(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        # A comment every 50 ms for a second, never an answer: the response deadline still holds
        # (the reference dealer restarts its clock after each line and would wait all along).
        return [(0.05, "# still thinking\r\n")] * 20 if my_turn else None

    result, _, _ = run_dealer(tmp_path, "kuhn", 5, lambda port: scripted_player(port, "kuhn", script), t_response_ms=300)
    assert result.error is not None and "ran out of time" in result.error


def test_slow_player_over_the_hand_budget(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        if my_turn:
            time.sleep(0.12)
            return f"{line}:c\r\n"
        return None

    result, _, _ = run_dealer(
        tmp_path, "leduc", 5, lambda port: scripted_player(port, "leduc", script), t_hand_ms=200
    )
    assert result.error is not None and "t_hand" in result.error


def test_disconnected_player_ends_the_match_and_keeps_finished_hands(tmp_path) -> None:
    def script(count: int, line: str, my_turn: bool) -> object:
        if count >= 15:
            return CLOSE
        return f"{line}:c\r\n" if my_turn else None

    result, err, log = run_dealer(tmp_path, "kuhn", 100, lambda port: scripted_player(port, "kuhn", script))
    assert result.error is not None and ("disconnected" in result.error or "could not" in result.error)
    assert result.hands_played >= 1 and len(log.hands) == result.hands_played
    assert sum(result.totals) == 0


def test_player_that_never_connects(tmp_path) -> None:
    game = load_game("kuhn")
    cfg = DealerConfig(str(tmp_path / "m"), game, 5, 3, ["A", "B"], quiet=True, start_timeout_ms=200)
    dealer = Dealer(cfg, out=io.StringIO(), err=io.StringIO())
    dealer.listen()
    result = dealer.play()
    assert result.error is not None and "timed out waiting for seat 1" in result.error


# --- the client side ---------------------------------------------------------------


@pytest.fixture
def fake_dealer():  # type: ignore[no-untyped-def]
    """A factory of (client connection, dealer side) socket pairs preloaded with dealer lines; closed after the test."""
    made: list[tuple[LineConnection, socket.socket]] = []

    def make(lines: list[str]) -> tuple[LineConnection, socket.socket]:
        ours, theirs = socket.socketpair()
        theirs.sendall("".join(line + "\r\n" for line in lines).encode())
        made.append((LineConnection(ours), theirs))
        return made[-1]

    yield make
    for conn, theirs in made:
        conn.close()
        theirs.close()


class Recorder(Agent):
    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_hand(self, view) -> None:  # type: ignore[no-untyped-def]
        self.calls.append(f"begin {view.state.hand_id}")

    def act(self, view):  # type: ignore[no-untyped-def]
        self.calls.append(f"act {view.state.betting_string()}")
        return CALL

    def end_hand(self, view) -> None:  # type: ignore[no-untyped-def]
        self.calls.append(f"end {view.state.hand_id}")


def test_client_answers_only_on_its_turn_and_skips_comments(fake_dealer) -> None:
    game = load_game("kuhn")
    conn, dealer_side = fake_dealer([
        "# hello from the dealer",
        "MATCHSTATE:0:0::Ks|",
        "MATCHSTATE:0:0:c:Ks|",
        "MATCHSTATE:0:0:cc:Ks|Qs",
        "MATCHSTATE:1:1::|As",
        "MATCHSTATE:1:1:r:|As",
        "MATCHSTATE:1:1:rc:Ks|As",
    ])
    dealer_side.shutdown(socket.SHUT_WR)
    agent = Recorder()
    result = play_connection(agent, game, conn, idle_timeout=5)
    sent = dealer_side.recv(4096).decode()
    assert sent == "VERSION:2.0.0\r\nMATCHSTATE:0:0::Ks|:c\r\nMATCHSTATE:1:1:r:|As:c\r\n"
    assert agent.calls == ["begin 0", "act ", "end 0", "begin 1", "act r", "end 1"]
    assert result.hand_values == [1.0, 2.0]


def test_client_reports_a_garbled_dealer_message(fake_dealer) -> None:
    conn, dealer_side = fake_dealer(["MATCHSTATE:0:0::Ks|", "MATCHSTATE:0:0:x:Ks|"])
    with pytest.raises(ProtocolError, match="garbled message from the dealer"):
        play_connection(make_agent("call", load_game("kuhn")), load_game("kuhn"), conn, idle_timeout=5)
    dealer_side.close()


def test_client_gives_up_on_a_silent_dealer(fake_dealer) -> None:
    conn, dealer_side = fake_dealer([])
    with pytest.raises(LineTimeout):
        play_connection(make_agent("call", load_game("kuhn")), load_game("kuhn"), conn, idle_timeout=0.2)
    dealer_side.close()


def test_client_repairs_an_illegal_agent_action(fake_dealer) -> None:
    from pokerbot.state import FOLD

    class Folder(Agent):
        def act(self, view):  # type: ignore[no-untyped-def]
            return FOLD

    conn, dealer_side = fake_dealer(["MATCHSTATE:0:0::Ks|"])
    dealer_side.shutdown(socket.SHUT_WR)
    result = play_connection(Folder(), load_game("kuhn"), conn, idle_timeout=5, err=io.StringIO())
    assert result.repaired == 1
    assert dealer_side.recv(4096).decode().endswith("MATCHSTATE:0:0::Ks|:c\r\n")


def test_play_without_listen_is_a_clear_error() -> None:
    from pokerbot.errors import PokerbotError

    dealer = Dealer(DealerConfig("m", load_game("kuhn"), 5, 3, ["A", "B"], log=False), out=io.StringIO(),
                    err=io.StringIO())
    with pytest.raises(PokerbotError, match="listen"):
        dealer.play()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"hands": 0}, "number of hands"),
        ({"names": ["A"]}, "2 players"),
        ({"names": ["A", "B|C"]}, "names"),
    ],
)
def test_bad_dealer_configs(kwargs, match: str) -> None:  # type: ignore[no-untyped-def]
    from pokerbot.errors import PokerbotError

    args = {"match_name": "m", "game": load_game("kuhn"), "hands": 5, "seed": 1, "names": ["A", "B"]}
    args.update(kwargs)
    with pytest.raises(PokerbotError, match=match):
        DealerConfig(**args)


@pytest.mark.parametrize("line", ["VERSION:\u00b2.0.0", "VERSION:2.0.\u0661", "VERSION:2.0.x"])
def test_version_numbers_must_be_ascii_digits(line: str) -> None:
    with pytest.raises(ProtocolError, match="invalid version string"):
        parse_version(line)
