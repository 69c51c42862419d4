"""``pokerbot connect`` fails as a failure: a dealer that aborts or goes silent, an agent that raises.

Each is exit 1 with one ``pokerbot connect: error:`` line (the last on stderr), never exit 0 nor a
``+nan ± inf`` summary; a whole match is exit 0 (the negative control). The dealers are a scripted fake
on 127.0.0.1 (exact control of when it closes) and the real :class:`~pokerbot.protocol.dealer.Dealer`.
"""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from evaluation.match import MatchResult
from pokerbot.agent import Agent
from pokerbot.cli import build_parser, main
from pokerbot.commands.connect import DEFAULT_TIMEOUT
from pokerbot.errors import ProtocolError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState, parse_matchstate
from pokerbot.protocol.dealer import Dealer, DealerConfig
from pokerbot.protocol.net import LineConnection
from pokerbot.state import Action

KUHN = load_game("kuhn")
#: Generous: what should happen on a loaded 2-core machine happens well within it.
PATIENCE = 20.0

#: Hand 0 of a Kuhn match seen by seat 0 (it acts first, checks, the other checks: +1).
HAND0 = ["MATCHSTATE:0:0::Ks|", "MATCHSTATE:0:0:c:Ks|", "MATCHSTATE:0:0:cc:Ks|Qs"]
#: The start of hand 1 (seat 0 is now player 1; player 0 is to act).
HAND1_START = ["MATCHSTATE:1:1::|As"]


class Boom(Agent):
    """An agent whose every decision raises."""

    name = "boom"

    def act(self, view: MatchState) -> Action:
        raise RuntimeError("cannot decide")


def raising_agent(game: GameDef, seed: int | None = None) -> Agent:
    """The factory of the agent spec ``test_connect_errors:raising_agent``."""
    return Boom()


class FakeDealer:
    """A one-seat dealer on 127.0.0.1: reads the VERSION line, sends ``lines`` (reading the seat's answer
    after each state where the seat is to act), then closes the connection or, if ``silent``, holds it
    open without a word until :meth:`stop`."""

    def __init__(self, lines: list[str], silent: bool = False) -> None:
        self.lines, self.silent = lines, silent
        self.answers: list[str] = []
        self.error: BaseException | None = None
        self._release = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(PATIENCE)
        self.port: int = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._run, daemon=True, name="fake-dealer")
        self._thread.start()

    def _run(self) -> None:
        try:
            sock, _ = self._listener.accept()
            sock.settimeout(None)
            conn = LineConnection(sock, peer="the player")
            try:
                deadline = time.monotonic() + PATIENCE
                assert conn.read_line(deadline) == "VERSION:2.0.0"
                for line in self.lines:
                    conn.send_line(line)
                    view = parse_matchstate(KUHN, line)
                    if view.is_my_turn and not view.state.finished:
                        answer = conn.read_line(time.monotonic() + PATIENCE)
                        assert answer is not None and answer.startswith(line + ":"), answer
                        self.answers.append(answer)
                if self.silent:
                    self._release.wait(PATIENCE)
            finally:
                conn.close()
        except BaseException as exc:  # reported by stop()
            self.error = exc
        finally:
            self._listener.close()

    def stop(self) -> None:
        self._release.set()
        self._thread.join(PATIENCE)
        assert not self._thread.is_alive()
        if self.error is not None:
            raise self.error


MakeDealer = Callable[..., FakeDealer]
Capture = pytest.CaptureFixture[str]


@pytest.fixture
def fake_dealer() -> Iterator[MakeDealer]:
    made: list[FakeDealer] = []

    def make(lines: list[str], silent: bool = False) -> FakeDealer:
        made.append(FakeDealer(lines, silent))
        return made[-1]

    yield make
    for dealer in made:
        dealer.stop()


def connect(port: int, *options: str) -> int:
    return main(["connect", "127.0.0.1", str(port), "--game", "kuhn", *options])


def error_line(err: str) -> str:
    """The last line of stderr, which must be the one error line."""
    lines = err.strip().splitlines()
    assert lines, "nothing on stderr"
    assert "Traceback" not in err and "internal error" not in err, err
    assert lines[-1].startswith("pokerbot connect: error: "), err
    assert sum(line.startswith("pokerbot connect: error:") for line in lines) == 1, err
    return lines[-1]


# --- a fake dealer: exactly where it stops ------------------------------------------------------------------


def test_a_dealer_closing_in_the_middle_of_a_hand_is_a_failure(fake_dealer: MakeDealer, capsys: Capture) -> None:
    dealer = fake_dealer(HAND0 + HAND1_START)
    assert connect(dealer.port, "--timeout", str(PATIENCE)) == 1
    out, err = capsys.readouterr()
    line = error_line(err)
    assert "the dealer closed the connection in the middle of hand 1, after 1 finished hand" in line
    assert "aborted" in line
    assert "1 hand, +1 chips" in out and "stopped early" in out and "nan" not in out


def test_a_dealer_closing_before_the_first_hand_ends_is_a_failure(fake_dealer: MakeDealer, capsys: Capture) -> None:
    for lines, expected in [([], "before the first hand"), (HAND0[:1], "in the middle of hand 0, after 0")]:
        dealer = fake_dealer(lines)
        assert connect(dealer.port, "--timeout", str(PATIENCE)) == 1
        out, err = capsys.readouterr()
        assert expected in error_line(err)
        assert "nan" not in out and "mbb/g" not in out  # no summary of nothing


def test_a_silent_dealer_is_a_failure_after_the_timeout(fake_dealer: MakeDealer, capsys: Capture) -> None:
    dealer = fake_dealer(HAND0, silent=True)  # one hand, then not a word, the connection open
    start = time.monotonic()
    assert connect(dealer.port, "--timeout", "0.5") == 1
    assert time.monotonic() - start < PATIENCE
    line = error_line(capsys.readouterr().err)
    assert "no message from the dealer for 0.5 s" in line and "after 1 finished hand" in line


def test_a_dealer_closing_after_a_whole_hand_is_a_success(fake_dealer: MakeDealer, capsys: Capture) -> None:
    dealer = fake_dealer(HAND0)
    assert connect(dealer.port, "--timeout", str(PATIENCE)) == 0
    out, err = capsys.readouterr()
    assert "error" not in err and "call: 1 hand, +1 chips" in out
    assert dealer.answers == ["MATCHSTATE:0:0::Ks|:c"]
    # ... unless the match was to be longer
    dealer = fake_dealer(HAND0)
    assert connect(dealer.port, "--timeout", str(PATIENCE), "--hands", "3") == 1
    assert "the dealer closed the connection after 1 of 3 hands" in error_line(capsys.readouterr().err)


def test_the_timeout_is_finite_by_default_and_0_waits(monkeypatch: pytest.MonkeyPatch, capsys: Capture) -> None:
    args = build_parser().parse_args(["connect", "127.0.0.1", "1"])
    assert args.timeout == DEFAULT_TIMEOUT and 0 < DEFAULT_TIMEOUT < float("inf")
    import pokerbot.protocol.client as client

    seen: list[float | None] = []

    def fake_play(*args: object, idle_timeout: float | None = None, **kwargs: object) -> None:
        seen.append(idle_timeout)
        raise ProtocolError("stub")

    monkeypatch.setattr(client, "play_acpc", fake_play)
    assert connect(1) == 1 and connect(1, "--timeout", "0") == 1 and connect(1, "--timeout", "2.5") == 1
    assert seen == [DEFAULT_TIMEOUT, None, 2.5]
    assert connect(1, "--timeout", "-1") == 1
    assert "--timeout must be in [0, " in capsys.readouterr().err


# --- the real dealer ----------------------------------------------------------------------------------------


def raw_opponent(port: int, close_after: int | None) -> threading.Thread:
    """Seat 2: calls, or hangs up on its ``close_after``-th turn (None: never)."""

    def run() -> None:
        conn = LineConnection(socket.create_connection(("127.0.0.1", port), timeout=PATIENCE))
        turns = 0
        try:
            conn.send_line("VERSION:2.0.0")
            while (line := conn.read_line(time.monotonic() + PATIENCE)) is not None:
                view = parse_matchstate(KUHN, line)
                if view.is_my_turn and not view.state.finished:
                    turns += 1
                    if close_after is not None and turns >= close_after:
                        return
                    conn.send_line(f"{line}:c")
        except ProtocolError:
            pass
        finally:
            conn.close()

    t = threading.Thread(target=run, daemon=True, name="opponent")
    t.start()
    return t


def with_dealer(tmp_path: Path, hands: int, close_after: int | None, argv: list[str]) -> tuple[int, str | None]:
    """``pokerbot connect`` on seat 1 of a real dealer; (its exit status, the dealer's error)."""
    cfg = DealerConfig(str(tmp_path / "m"), KUHN, hands, 5, ["Us", "Them"], quiet=True, log=False,
                       start_timeout_ms=int(PATIENCE * 1000))
    dealer = Dealer(cfg, out=io.StringIO(), err=io.StringIO())
    ports = dealer.listen()
    box: dict[str, str | None] = {}
    thread = threading.Thread(target=lambda: box.update(error=dealer.play().error), daemon=True, name="dealer")
    thread.start()
    opponent = raw_opponent(ports[1], close_after)
    status = connect(ports[0], "--timeout", str(PATIENCE), "-q", *argv)
    thread.join(PATIENCE)
    opponent.join(PATIENCE)
    assert not thread.is_alive() and not opponent.is_alive()
    return status, box["error"]


def test_a_whole_match_with_the_real_dealer_is_a_success(tmp_path: Path, capsys: Capture) -> None:
    status, dealer_error = with_dealer(tmp_path, 20, None, ["--hands", "20"])
    out, err = capsys.readouterr()
    assert (status, dealer_error, err) == (0, None, "")
    assert out.startswith("call: 20 hands, ") and "mbb/g" in out and "stopped" not in out


def test_the_real_dealer_aborting_the_match_is_a_failure(tmp_path: Path, capsys: Capture) -> None:
    status, dealer_error = with_dealer(tmp_path, 50, 8, [])  # the opponent hangs up on its 8th turn
    assert dealer_error is not None and "disconnected" in dealer_error
    out, err = capsys.readouterr()
    assert status == 1
    assert "the dealer closed the connection in the middle of hand" in error_line(err)
    assert "stopped early" in out and "nan" not in out


def test_an_agent_that_raises_is_a_failure_on_stderr(tmp_path: Path, capsys: Capture,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")  # a factory of this test module, not a registered one
    status, dealer_error = with_dealer(tmp_path, 10, None, ["--agent", f"{__name__}:raising_agent"])
    out, err = capsys.readouterr()
    assert status == 1 and dealer_error is not None  # the dealer lost us: its match ends too
    line = error_line(err)
    assert "the agent boom failed in hand 0" in line and "RuntimeError: cannot decide" in line
    assert out == ""  # no summary of 0 hands (no "+nan ± inf mbb/g")


def test_a_summary_of_no_hands_is_not_nan() -> None:
    result = MatchResult(("boom", "call"), KUHN, np.zeros(0))
    text = result.summary()
    assert "no hands finished" in text and "nan" not in text and "inf" not in text
