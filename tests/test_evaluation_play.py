"""``pokerbot play`` without a browser: the session (engine, log, resume, bad input) and the web app."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluation.match import play_match
from evaluation.play.server import MAX_WAIT, check_loopback, create_app
from evaluation.play.session import (
    PlayError,
    PlayLogError,
    PlaySession,
    StaleActionError,
    street_base,
)
from evaluation.stats import win_rate
from pokerbot.agent import Agent
from pokerbot.bots import CallAgent, make_agent
from pokerbot.cards import format_card
from pokerbot.cli import main
from pokerbot.gamedef import load_game
from pokerbot.matchstate import MatchState
from pokerbot.protocol.deal import AcpcDeck
from pokerbot.protocol.log import read_log
from pokerbot.solver.tree import PotFractionMenu
from pokerbot.state import CALL, FOLD, Action, ActionType, State, raise_to

ROOT = Path(__file__).resolve().parents[1]
HUNL = load_game("hunl")


def _session(tmp_path: Path, spec: str = "call", seed: int = 11, **kw) -> PlaySession:  # type: ignore[no-untyped-def]
    game = kw.pop("game", HUNL)
    return PlaySession(game, make_agent(spec, game, seed=1), seed, tmp_path / "play.log", spec=spec, **kw)


def _state_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith("STATE:")]


def _human_call(session: PlaySession) -> None:
    """The person checks or calls once (the position is read from the session, as the page does)."""
    h = session.hand
    assert h is not None
    session.act(h.hand_id, len(h.state.actions()), "call")


def _play_out(session: PlaySession, human_move) -> None:  # type: ignore[no-untyped-def]
    """Finish the current hand: the bot acts when it is to, the person plays ``human_move(session)``."""
    while not session.hand.state.finished:  # type: ignore[union-attr]
        if not session.run_bot():
            human_move(session)


def test_session_deals_seats_and_logs_exactly_like_the_match_runner(tmp_path: Path) -> None:
    # The person plays "always call" through the session against the raise bot; play_match plays the same
    # two policies: the logs must agree line for line (same deals, same seat rotation, same engine, same format).
    session = _session(tmp_path, spec="raise", seed=4)
    hands = 12
    for _ in range(hands):
        session.start_hand()
        _play_out(session, _human_call)
    caller = CallAgent(name="you")
    match_log = tmp_path / "match.log"
    play_match(caller, make_agent("raise", HUNL), HUNL, hands, seed=4, log_path=match_log, progress=False)
    assert _state_lines(session.log_path) == _state_lines(match_log)
    log = read_log(HUNL, session.log_path)
    assert [h.value_of("you") for h in log.hands] == session.chips
    assert log.score is None  # an open-ended session has no SCORE line


def _cards_in(data: object) -> set[str]:
    """Every card string anywhere in a JSON-like value."""
    if isinstance(data, str):
        return {data} if len(data) == 2 and data[0] in "23456789TJQKA" and data[1] in "cdhs" else set()
    if isinstance(data, dict):
        return set().union(*map(_cards_in, data.values())) if data else set()
    if isinstance(data, (list, tuple)):
        return set().union(*map(_cards_in, data)) if data else set()
    return set()


def test_snapshot_shows_only_what_the_person_may_see(tmp_path: Path) -> None:
    session = _session(tmp_path, spec="call", seed=2)
    deck = AcpcDeck(HUNL, 2)
    showdowns = 0
    for _ in range(8):
        holes, board = deck.deal()
        session.start_hand()
        human = session.hand.human_player  # type: ignore[union-attr]
        mine = {format_card(c) for c in holes[human]}
        while True:
            state = session.hand.state  # type: ignore[union-attr]
            seen = _cards_in(session.snapshot()["hand"])
            visible = mine | {format_card(c) for c in state.visible_board}
            if state.is_showdown():
                showdowns += 1
                visible |= {format_card(c) for c in holes[1 - human]}
            assert seen == visible
            # Negative control: the same check on the dealer's full view finds the hidden cards.
            if not state.is_showdown():
                assert _cards_in([format_card(c) for h in state.hole_cards for c in h] + [format_card(c) for c in board]) != visible
            if state.finished:
                break
            if not session.run_bot():
                _human_call(session)
    assert showdowns >= 2  # the call bot and a calling person reach showdowns: the bot's cards were shown there


@pytest.mark.parametrize("amount", ["150", "20001", "abc", "", None, "-300", "250.5", "1e3", "２５０", " 3 0 0", 10**30])
def test_illegal_amounts_change_nothing(tmp_path: Path, amount) -> None:  # type: ignore[no-untyped-def]
    session = _session(tmp_path, seed=5)
    session.start_hand()  # hand 0: the person is the big blind; the bot (small blind) acts first
    session.run_bot()
    before_state, before_log = session.hand.state, session.log_path.read_bytes()  # type: ignore[union-attr]
    before_journal = session.journal_path.read_bytes()
    with pytest.raises(PlayError) as err:
        session.act(0, 1, "raise", amount)
    assert "200..20000" in str(err.value)  # the message names the legal range
    assert session.hand.state == before_state  # type: ignore[union-attr]
    assert session.log_path.read_bytes() == before_log and session.journal_path.read_bytes() == before_journal
    session.act(0, 1, "raise", "200")  # a legal amount after the refusals is taken
    assert session.hand.state.betting_string() == "cr200"  # type: ignore[union-attr]


def test_double_clicks_and_stale_positions_are_refused(tmp_path: Path) -> None:
    session = _session(tmp_path, seed=6)
    session.start_hand()
    session.run_bot()
    session.act(0, 1, "call")  # check; the flop comes
    with pytest.raises(StaleActionError):
        session.act(0, 1, "call")  # the same click again
    with pytest.raises(StaleActionError):
        session.act(1, 2, "call")  # a hand that does not exist yet
    session.act(0, 2, "check")
    with pytest.raises(StaleActionError):
        session.act(0, 3, "call")  # the bot's turn, not the person's
    assert session.hand.state.betting_string() == "cc/c"  # type: ignore[union-attr]
    with pytest.raises(StaleActionError):
        session.start_hand(after=0)  # the hand is still being played
    _play_out(session, _human_call)
    session.start_hand(after=0)
    with pytest.raises(StaleActionError):
        session.start_hand(after=0)  # a second "next hand" click deals nothing
    assert session.hand.hand_id == 1 and len(_state_lines(session.log_path)) == 1  # type: ignore[union-attr]
    with pytest.raises(PlayError):
        session.act(1, 0, "dance")
    with pytest.raises(PlayError, match="200..20000"):
        session.act(1, 0, "raise", 5)  # hand 1: the person is the small blind and acts first


def test_typed_amounts_are_street_amounts(tmp_path: Path) -> None:
    session = _session(tmp_path, seed=7)
    session.start_hand()
    session.run_bot()
    session.act(0, 1, "raise", 300)
    session.run_bot()  # the bot calls: flop, the person (big blind) acts first
    legal = session.legal()
    assert legal is not None and legal["raise"]["min"] == 100 and legal["raise"]["max"] == 19700
    assert legal["raise"]["word"] == "bet"
    session.act(0, 3, "bet", 450)
    assert session.hand.state.actions()[-1] == raise_to(750)  # type: ignore[union-attr]
    assert street_base(session.hand.state) == 300  # type: ignore[union-attr]


def test_presets_are_the_engine_pot_fractions(tmp_path: Path) -> None:
    session = _session(tmp_path, spec="raise", seed=8)
    session.start_hand(); session.run_bot()  # the raise bot raises pot preflop: the person faces r300
    state = session.hand.state  # type: ignore[union-attr]
    legal = session.legal()
    assert legal is not None and legal["fold"] and legal["call"] == 200
    lo, hi = state.raise_bounds()  # type: ignore[misc]
    sizes = {a.size for a in PotFractionMenu((1 / 3, 0.5, 0.75, 1.0, 2.0), all_in=False)(state) if a.kind == ActionType.RAISE}
    offered = {p["to"] for p in legal["raise"]["presets"]}
    assert offered == {lo} | {s for s in sizes if lo < s < hi}
    assert 900 in offered  # pot: call 200 to 300, then raise the 600 pot


def test_restart_resumes_finished_hands_and_the_hand_in_progress(tmp_path: Path) -> None:
    session = _session(tmp_path, spec="raise", seed=9)
    for _ in range(3):
        session.start_hand()
        _play_out(session, _human_call)
    session.start_hand()  # hand 3: the person is the small blind and acts first
    session.act(3, 0, "raise", 250)
    session.run_bot()  # the raise bot re-raises
    in_progress = session.hand.state  # type: ignore[union-attr]
    chips = list(session.chips)
    del session  # the server stops (Ctrl-C, a crash)
    again = _session(tmp_path, spec="raise", seed=9)
    assert again.chips == chips and len(again.finished) == 3
    assert in_progress.betting_string() == "r250r750"
    assert again.hand is not None and again.hand.state == in_progress
    assert again.hand.state.board_cards == in_progress.board_cards  # the same cards: no free re-deal
    _play_out(again, _human_call)
    again.start_hand()
    _play_out(again, _human_call)
    log = read_log(HUNL, again.log_path)
    assert [h.hand_id for h in log.hands] == [0, 1, 2, 3, 4]
    assert len(again.chips) == 5


def test_restart_drops_a_cut_last_line_and_refuses_a_foreign_log(tmp_path: Path) -> None:
    session = _session(tmp_path, seed=10)
    for _ in range(2):
        session.start_hand()
        _play_out(session, _human_call)
    good = session.log_path.read_text()
    with open(session.log_path, "a") as f:
        f.write("STATE:2:cc/cc/c")  # a crash in the middle of writing hand 2
    again = _session(tmp_path, seed=10)
    assert len(again.finished) == 2 and again.warnings and session.log_path.read_text() == good
    with pytest.raises(PlayLogError, match="another session"):
        _session(tmp_path, seed=12)
    with pytest.raises(PlayLogError, match="another session"):
        _session(tmp_path, spec="random", seed=10)
    # A tampered hand (other cards than the seed deals) is refused, naming the hand.
    lines = good.splitlines()
    last = lines[-1].split(":")
    holes, _, board = last[3].partition("/")
    last[3] = "|".join(reversed(holes.split("|"))) + "/" + board  # the players' cards swapped
    session.log_path.write_text("\n".join(lines[:-1] + [":".join(last)]) + "\n")
    with pytest.raises(PlayLogError, match=r"hand 1\b|STATE:1:"):  # the hand, by number or by its line
        _session(tmp_path, seed=10)


def test_a_broken_agent_never_breaks_the_hand(tmp_path: Path) -> None:
    class Broken(Agent):
        name = "broken"

        def __init__(self) -> None:
            self.calls = 0

        def act(self, view: MatchState) -> Action:
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("out of memory")
            return raise_to(5)  # illegal: the dealer's repair clamps it to the minimum raise

    session = PlaySession(HUNL, Broken(), 3, tmp_path / "b.log")
    session.start_hand()
    session.run_bot()  # raises: played as a call
    assert session.hand.state.betting_string() == "c"  # type: ignore[union-attr]
    assert "out of memory" in session.snapshot()["bot_status"]["error"]
    session.act(0, 1, "check")
    session.act(0, 2, "check")
    session.run_bot()
    assert session.hand.state.betting_string() == "cc/cr200"  # type: ignore[union-attr]


def test_stats_are_the_projects_win_rate(tmp_path: Path) -> None:
    session = _session(tmp_path, spec="raise", seed=13)
    for _ in range(8):
        session.start_hand()
        _play_out(session, _human_call)
    stats = session.stats()
    rate = win_rate(session.chips, HUNL)
    assert stats["hands"] == 8 and stats["mbb"] == pytest.approx(rate.mbb) and stats["ci95"] == pytest.approx(rate.ci95)
    assert stats["series"][0] == [0, 0.0]
    assert stats["series"][-1] == [8, pytest.approx(sum(session.chips) / 100, abs=0.01)]


def test_limit_games_play_too(tmp_path: Path) -> None:
    game = load_game("leduc")
    session = _session(tmp_path, seed=3, game=game)
    session.start_hand()
    session.run_bot()
    legal = session.legal()
    assert legal is not None and legal["raise"] is not None
    h = session.hand
    session.act(h.hand_id, len(h.state.actions()), "raise")  # type: ignore[union-attr]
    assert h.state.actions()[-1].kind == ActionType.RAISE  # type: ignore[union-attr]
    assert session.snapshot()["hand"]["you"]["stack"] is None  # limit games have no stack


# --- the web app -------------------------------------------------------------------------------------


class _Slow(Agent):
    """Checks or calls after ``seconds``: long enough to see the thinking indicator."""

    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def act(self, view: MatchState) -> Action:
        time.sleep(self.seconds)
        return CALL


@pytest.fixture
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    session = PlaySession(HUNL, _Slow(0.3), 21, tmp_path / "web.log")
    with TestClient(create_app(session), base_url="http://127.0.0.1") as c:
        c.session_ = session  # type: ignore[attr-defined]
        yield c


def _wait_for_turn(client) -> dict:  # type: ignore[no-untyped-def]
    s = client.get("/api/state").json()
    deadline = time.monotonic() + 10
    while s["legal"] is None and not s["hand"]["finished"]:
        assert time.monotonic() < deadline
        s = client.get(f"/api/state?since={s['version']}&wait=5").json()
    return s


def test_app_serves_the_page_and_its_files(client) -> None:  # type: ignore[no-untyped-def]
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/play.js">' in page.text
    for name in ("play.js", "play.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/api/log").text.startswith("# name/game/hands/seed play hunl")


def test_app_shows_the_bot_thinking_and_its_time(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    class Gated(Agent):
        """Thinks until the test lets it answer."""

        name = "gated"

        def __init__(self) -> None:
            self.go = threading.Event()

        def act(self, view: MatchState) -> Action:
            self.go.wait(timeout=30)
            return CALL

    bot = Gated()
    session = PlaySession(HUNL, bot, 21, tmp_path / "gate.log")
    with TestClient(create_app(session), base_url="http://127.0.0.1") as client:
        s = client.get("/api/state").json()  # hand 0: the bot is the small blind and thinks first
        deadline = time.monotonic() + 10
        while not s["bot_status"]["thinking"]:
            assert time.monotonic() < deadline
            s = client.get(f"/api/state?since={s['version']}&wait=5").json()
        time.sleep(0.2)
        thinking = client.get("/api/state").json()  # the page is served while the bot thinks
        assert thinking["bot_status"]["thinking"] and thinking["bot_status"]["thinking_for"] >= 0.2
        assert thinking["legal"] is None and thinking["hand"]["to_act"] == "bot"
        bot.go.set()
        s = _wait_for_turn(client)
        assert not s["bot_status"]["thinking"] and s["bot_status"]["last_seconds"] >= 0.2
        assert s["hand"]["betting"] == "c"


def test_app_refuses_bad_requests_without_touching_the_hand(client) -> None:  # type: ignore[no-untyped-def]
    s = _wait_for_turn(client)
    hand, seq = s["hand"]["id"], s["hand"]["seq"]
    log_before = client.get("/api/log").text
    bad = [
        ({"hand": hand, "seq": seq, "kind": "raise", "amount": "99"}, 400),
        ({"hand": hand, "seq": seq, "kind": "raise", "amount": "lots"}, 400),
        ({"hand": hand, "seq": seq + 1, "kind": "call"}, 409),
        ({"hand": hand + 1, "seq": seq, "kind": "call"}, 409),
        ({"hand": "0", "seq": seq, "kind": "call"}, 400),
        ({"hand": True, "seq": seq, "kind": "call"}, 400),
        ([1, 2], 400),
    ]
    for payload, status in bad:
        r = client.post("/api/action", json=payload)
        assert r.status_code == status, payload
        assert r.json()["error"] and r.json()["state"]["hand"]["seq"] == seq
    r = client.post("/api/action", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    r = client.post("/api/action", content=json.dumps({"hand": hand, "seq": seq, "kind": "call"}),
                    headers={"Content-Type": "text/plain"})  # what a cross-site form could send
    assert r.status_code == 400
    assert client.get("/api/state", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/state?since=x").status_code == 400
    assert client.get("/api/log").text == log_before
    # Two clicks on the same button: the first plays, the second is refused as stale.
    first = client.post("/api/action", json={"hand": hand, "seq": seq, "kind": "call"})
    second = client.post("/api/action", json={"hand": hand, "seq": seq, "kind": "call"})
    assert first.status_code == 200 and second.status_code == 409
    assert first.json()["hand"]["seq"] == seq + 1


def test_app_plays_hands_to_the_end_and_logs_them(client) -> None:  # type: ignore[no-untyped-def]
    for hand in range(2):
        s = _wait_for_turn(client)
        while not s["hand"]["finished"]:
            legal = s["legal"]
            move = {"kind": "raise", "amount": legal["raise"]["max"]} if legal["raise"] else {"kind": "call"}
            r = client.post("/api/action", json={"hand": hand, "seq": s["hand"]["seq"], **move})
            assert r.status_code == 200
            s = _wait_for_turn(client)
        assert s["hand"]["result"]["showdown"] and s["hand"]["bot"]["cards"]  # all-in, called: a showdown
        assert s["stats"]["hands"] == hand + 1
        r = client.post("/api/next", json={"after": hand})
        assert r.status_code == 200
        assert client.post("/api/next", json={"after": hand}).status_code == 409
    log = read_log(HUNL, client.session_.log_path)
    assert len(log.hands) == 2 and all(abs(h.values[0]) in (0.0, 20000.0) for h in log.hands)


def test_long_poll_waits_for_a_change_and_gives_up_after_its_time(client) -> None:  # type: ignore[no-untyped-def]
    s = _wait_for_turn(client)
    start = time.monotonic()
    same = client.get(f"/api/state?since={s['version']}&wait=0.3").json()
    assert same["version"] == s["version"] and time.monotonic() - start >= 0.3
    assert MAX_WAIT <= 30  # a waiting request never outlives a browser's patience


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "10.0.0.1", "example.com", "::"])
def test_only_loopback_addresses_are_served(host: str) -> None:
    with pytest.raises(PlayError, match="loopback"):
        check_loopback(host)
    assert check_loopback("127.0.0.2") == "127.0.0.2"


def test_cli_rejects_bad_arguments_in_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["play", "--host", "0.0.0.0", "--no-browser"]) == 1
    assert main(["play", "--agent", "nosuchbot", "--no-browser"]) == 1
    assert main(["play", "--port", "70000", "--no-browser"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("pokerbot play: error: ") for line in err)
    assert "loopback" in err[0] and "nosuchbot" in err[1] and "--port" in err[2]


def test_cli_serves_a_session_and_resumes_it(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    log = tmp_path / "cli.log"
    cmd = [sys.executable, "-m", "pokerbot", "play", "--agent", "call", "--seed", "3", "--log", str(log),
           "--port", "0", "--no-browser"]

    def serve_once(action: dict | None) -> dict:  # type: ignore[type-arg]
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            assert line.startswith("pokerbot play: http://127.0.0.1:"), line
            url = line.split()[2]
            if action is not None:
                req = urllib.request.Request(url + "api/action", data=json.dumps(action).encode(),
                                             headers={"Content-Type": "application/json"})
                urllib.request.urlopen(req, timeout=10).read()
            deadline = time.monotonic() + 20
            version = -1
            while True:  # until the bot has answered: the person is to act
                with urllib.request.urlopen(url + f"api/state?since={version}&wait=5", timeout=10) as r:
                    state = json.loads(r.read())
                if state["hand"]["to_act"] == "you" or time.monotonic() > deadline:
                    return state
                version = state["version"]
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    first = serve_once({"hand": 0, "seq": 1, "kind": "raise", "amount": 500})
    assert first["hand"]["betting"] == "cr500c/"  # the call bot called; the flop is out
    second = serve_once(None)  # a new server on the same log: the hand goes on where it was
    assert second["hand"]["id"] == 0 and second["hand"]["betting"] == first["hand"]["betting"]
    assert second["hand"]["you"]["cards"] == first["hand"]["you"]["cards"]
    assert second["hand"]["notes"] == ["resumed after a restart"]


def test_thread_safety_one_action_wins_a_race(tmp_path: Path) -> None:
    session = _session(tmp_path, seed=14)
    session.start_hand()
    session.run_bot()
    results: list[str] = []

    def click() -> None:
        try:
            session.act(0, 1, "raise", 400)
            results.append("ok")
        except StaleActionError:
            results.append("stale")

    threads = [threading.Thread(target=click) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok"] + ["stale"] * 7
    assert session.hand.state.betting_string() == "cr400"  # type: ignore[union-attr]
    assert State.from_betting(HUNL, "cr400").pot == session.hand.state.pot  # type: ignore[union-attr]


def test_a_failed_log_write_leaves_hand_and_log_as_they_were(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import evaluation.play.session as session_module

    session = _session(tmp_path, seed=15)
    session.start_hand()
    _play_out(session, _human_call)
    session.start_hand()  # hand 1: the person is the small blind and acts first; a fold ends the hand
    before, log_before = session.hand.state, session.log_path.read_bytes()  # type: ignore[union-attr]
    real_fsync = os.fsync

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(session_module.os, "fsync", full_disk)
    with pytest.raises(PlayLogError, match="No space left"):
        session.act(1, 0, "fold")
    assert session.hand.state == before and session.log_path.read_bytes() == log_before  # type: ignore[union-attr]
    assert len(session.chips) == 1 and session.journal_path.exists()
    monkeypatch.setattr(session_module.os, "fsync", real_fsync)
    session.act(1, 0, "fold")  # the disk has room again: the same click now ends the hand
    assert session.hand.state.finished and len(_state_lines(session.log_path)) == 2  # type: ignore[union-attr]
    assert read_log(HUNL, session.log_path).hands[1].state.betting_string() == "f"


def test_agent_hooks_that_fail_are_shown_not_raised(tmp_path: Path) -> None:
    class Grumpy(CallAgent):
        def begin_hand(self, view: MatchState) -> None:
            raise ValueError("no hands today")

    session = PlaySession(HUNL, Grumpy(name="grumpy"), 1, tmp_path / "g.log")
    session.start_hand()
    assert "begin_hand failed: ValueError: no hands today" in session.snapshot()["bot_status"]["error"]
    assert session.run_bot() and session.hand.state.betting_string() == "c"  # type: ignore[union-attr]


@pytest.mark.parametrize("host, header", [("127.0.0.2", "127.0.0.2:8765"), ("::1", "[::1]:8765")])
def test_app_answers_the_loopback_address_it_serves(tmp_path: Path, host: str, header: str) -> None:
    from starlette.testclient import TestClient

    session = PlaySession(HUNL, make_agent("call", HUNL), 1, tmp_path / "h.log")
    with TestClient(create_app(session, host=host)) as c:
        assert c.get("/api/state", headers={"Host": header}).status_code == 200
        assert c.get("/api/state", headers={"Host": "10.0.0.1:8765"}).status_code == 400


# --- hostile request bodies and a clean stop (issue 30 §6) ---------------------------------------------------


def test_app_refuses_hostile_bodies_with_400_or_413_and_a_json_error(client: Any) -> None:
    from evaluation.play.server import MAX_BODY

    s = _wait_for_turn(client)
    hand, seq = s["hand"]["id"], s["hand"]["seq"]
    log_before = client.get("/api/log").text
    head = f'{{"hand": {hand}, "seq": {seq}, "kind": "raise", '
    huge = "1" + "0" * 5000  # 10**5000, as a JSON integer
    bad = [
        (b"[" * 30000 + b"]" * 30000, 400, "nested too deeply"),  # under the size cap: the parser's recursion
        (b"[" * 100000 + b"]" * 100000, 413, "over"),
        (f'{head}"amount": [[[[[[[[[1]]]]]]]]]}}'.encode(), 400, "nested too deeply"),
        (f'{{"hand": 1e400, "seq": {seq}, "kind": "call"}}'.encode(), 400, "out of range"),
        (f'{head}"amount": 1e400}}'.encode(), 400, "out of range"),
        (f'{head}"amount": {huge}}}'.encode(), 400, "integer too long"),
        (f'{{"hand": {huge}, "seq": {seq}, "kind": "call"}}'.encode(), 400, "integer too long"),
        (f'{head}"amount": NaN}}'.encode(), 400, "not a JSON number"),
        (f'{head}"amount": "{"9" * 5000}"}}'.encode(), 400, "is not legal"),  # digits as a string
        (f'{head}"amount": {10**25}}}'.encode(), 400, "is not legal"),
        (f'{head}"amount": 400, "pad": "{"x" * MAX_BODY}"}}'.encode(), 413, "over"),
        (b'{"hand": "\x80"}', 400, "malformed JSON"),  # not UTF-8
    ]
    for raw, status, words in bad:
        r = client.post("/api/action", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == status, (raw[:60], r.status_code, r.text[:200])
        assert words in r.json()["error"] and len(r.json()["error"]) < 200, r.json()["error"]
        assert r.json()["state"]["hand"]["seq"] == seq
    for path in ("/api/next", "/api/action"):  # a big body without a length (chunked) is cut off too
        chunks = (b"x" * 4096 for _ in range(MAX_BODY // 4096 + 2))
        r = client.post(path, content=chunks, headers={"Content-Type": "application/json"})
        assert r.status_code == 413 and "over" in r.json()["error"]
    assert client.get("/api/log").text == log_before
    ok = client.post("/api/action", json={"hand": hand, "seq": seq, "kind": "call"})
    assert ok.status_code == 200 and ok.json()["hand"]["seq"] == seq + 1


def test_ctrl_c_with_a_page_open_is_one_line_and_exit_130(tmp_path: Path) -> None:
    import signal
    import socket

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "pokerbot", "play", "--agent", "call", "--game", "kuhn", "--port", "0",
           "--no-browser", "--log", str(tmp_path / "stop.log")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    polls: list[socket.socket] = []
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("pokerbot play: http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url + "api/state", timeout=20) as r:
            version = json.loads(r.read())["version"]
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        for _ in range(2):  # what an open page keeps waiting: long polls for a change that does not come
            sock = socket.create_connection(("127.0.0.1", port), timeout=20)
            sock.sendall(f"GET /api/state?since={version} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            polls.append(sock)
        time.sleep(1.0)  # the polls are waiting (were one not yet read, the stop would still be checked)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err) == (130, "pokerbot play: interrupted\n")
    for sock in polls:  # each waiting poll got its answer at the stop, not a 500 from a cancelled task
        answer = sock.recv(65536)
        sock.close()
        assert not answer or answer.startswith(b"HTTP/1.1 200"), answer[:100]


# --- issue 31 §3: what the bot did, luck-adjusted results, the review, honest pots and named hands -------------


class _Mixer(Agent):
    """A mixed policy that depends on its cards (so AIVAT's decision terms and the review have something to show).

    ``action_distribution`` is a function of the view alone; ``act`` draws from it with its own generator.
    """

    name = "mixer"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.last: list[tuple[Action, float]] = []

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        state = view.state
        strength = max(c // 4 for c in state.hole_cards[view.viewer]) / 12
        weights: dict[Action, float] = {CALL: 0.5}
        if state.can_fold():
            weights[FOLD] = 0.3 * (1.0 - strength)
        bounds = state.raise_bounds()
        if bounds is not None:
            lo, hi = bounds
            for size, w in ((lo, 0.15 + 0.3 * strength), (min(hi, 3 * lo), 0.1), (hi, 0.02)):
                weights[raise_to(size)] = weights.get(raise_to(size), 0.0) + w
        total = sum(weights.values())
        return [(a, w / total) for a, w in weights.items()]

    def act(self, view: MatchState) -> Action:
        self.last = self.action_distribution(view)
        return self.last[int(self.rng.choice(len(self.last), p=[q for _, q in self.last]))][0]

    def decision_note(self) -> str:
        return f"mixed over {len(self.last)} actions"


def _app(session: PlaySession):  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    return TestClient(create_app(session), base_url="http://127.0.0.1")


def _play_hands_over_http(client, hands: int, seed: int) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    """The person plays ``hands`` hands through the app (mostly calls, some raises and folds); each end's snapshot."""
    rng = np.random.default_rng(seed)
    ends = []
    for hand in range(hands):
        s = _wait_for_turn(client)
        while not s["hand"]["finished"]:
            legal, u = s["legal"], rng.random()
            if legal["raise"] and u < 0.25:
                move = {"kind": "raise", "amount": legal["raise"]["min"] if u < 0.2 else legal["raise"]["max"]}
            elif legal["fold"] and u > 0.93:
                move = {"kind": "fold"}
            else:
                move = {"kind": "call"}
            r = client.post("/api/action", json={"hand": hand, "seq": s["hand"]["seq"], **move})
            assert r.status_code == 200, r.text
            s = _wait_for_turn(client)
        ends.append(s)
        if hand + 1 < hands:
            assert client.post("/api/next", json={"after": hand}).status_code == 200
    return ends


def _final_states(game, seed: int, bettings: list[str]) -> list[State]:  # type: ignore[no-untyped-def]
    """The finished hands of a session with card seed ``seed``, every card known, from their betting."""
    deck = AcpcDeck(game, seed)
    out = []
    for i, betting in enumerate(bettings):
        holes, board = deck.deal()
        out.append(State.from_betting(game, betting, i, holes, board))
    return out


def test_aivat_review_and_notes_are_evaluation_aivat_and_the_agents_policy(tmp_path: Path) -> None:
    from evaluation.aivat import aivat_hand, replay_policies
    from evaluation.play.session import aivat_value

    seed, hands = 17, 8
    session = PlaySession(HUNL, _Mixer(seed=5), seed, tmp_path / "mix.log", spec="mixer")
    with _app(session) as client:
        ends = _play_hands_over_http(client, hands, seed=3)
        last = client.get("/api/state").json()
    finals = _final_states(HUNL, seed, [e["hand"]["betting"] for e in ends])
    history = {row["id"]: row for row in last["history"]}
    estimates, differs = [], 0
    for i, (end, final) in enumerate(zip(ends, finals)):
        human = 0 if i % 2 == 0 else 1
        bot = 1 - human
        # The bot's policies, asked again of a fresh agent by evaluation.aivat's replay (the person's: unknown).
        dists = replay_policies(final, [_Mixer() if p == bot else None for p in range(2)])
        chips0, est0 = aivat_hand(final, aivat_value(seed, i), dists)
        expected = est0 if human == 0 else -est0
        assert history[i]["aivat"] == expected  # exactly evaluation.aivat's estimate of the same hand
        assert history[i]["chips"] == (chips0 if human == 0 else -chips0) == session.chips[i]
        estimates.append(expected)
        _, chance_only = aivat_hand(final, aivat_value(seed, i), [None] * len(dists))
        differs += chance_only != est0  # negative control: the bot's decision terms count
        # The review: the bot's cards and, at each of its decisions, exactly the policy it reported.
        review = end["review"]
        assert review["id"] == i and review["bot_cards"] == [format_card(c) for c in final.hole_cards[bot]]
        bot_moves = [j for j, d in enumerate(dists) if d is not None]
        assert [d["index"] for d in review["decisions"]] == bot_moves
        for d in review["decisions"]:
            dist = dists[d["index"]]
            assert dist is not None
            merged: dict[str, float] = {}
            for a, q in dist:
                merged[str(a)] = merged.get(str(a), 0.0) + q  # ACPC text: "c", "f", "r300"
            assert {p["action"]: p["p"] for p in d["policy"]} == merged
            assert d["played_action"] in merged and d["unknown"] is None
            assert d["note"] == f"mixed over {len(dist)} actions"
        # The note of each decision, beside the bot's actions and at its seat.
        bot_actions = [a for a in end["hand"]["actions"] if a["who"] == "bot"]
        assert all(a["note"].startswith("mixed over ") and a["seconds"] >= 0 for a in bot_actions)
        if bot_actions:
            assert end["hand"]["bot"]["last_action"]["note"] == bot_actions[-1]["note"]
    assert differs >= 2
    stats = last["stats"]
    assert stats["aivat_chips"] == pytest.approx(sum(estimates))
    assert stats["aivat_mbb"] == pytest.approx(win_rate(estimates, HUNL).mbb)
    assert stats["aivat_ci95"] == pytest.approx(win_rate(estimates, HUNL).ci95)
    assert stats["aivat_series"][-1] == [hands, pytest.approx(sum(estimates) / 100, abs=0.01)]
    assert last["bot_status"]["last_note"].startswith("mixed over ")


def test_the_pot_after_an_uncalled_all_in_leaves_the_bet_out(tmp_path: Path) -> None:
    class Folder(Agent):
        """Checks, or folds to a bet."""

        name = "folder"

        def act(self, view: MatchState) -> Action:
            return FOLD if view.state.can_fold() and view.state.to_call() > 50 else CALL

    session = PlaySession(HUNL, Folder(), 2, tmp_path / "fold.log")
    session.start_hand()
    session.run_bot()  # hand 0: the bot (small blind) completes to 100
    hand = session.snapshot()["hand"]
    assert hand["bot"]["last_action"]["text"] == "calls 50" and hand["pot"] == 200
    session.act(0, 1, "raise", 20000)
    assert session.snapshot()["hand"]["pot"] == 20100  # a bet still to be answered is in the pot, as at any table
    session.run_bot()
    with _app(session) as client:
        hand = client.get("/api/state").json()["hand"]
    assert hand["finished"] and hand["betting"] == "cr20000f"
    assert hand["pot"] == 200  # the uncalled 19,900 went back
    assert hand["you"]["in_pot"] == hand["bot"]["in_pot"] == 100
    assert hand["you"]["stack"] == 20100 and hand["bot"]["stack"] == 19900
    assert hand["result"]["text"] == "You win 1 bb (bot folded)" and hand["result"]["bb"] == 1.0
    assert hand["bot"]["last_action"]["text"] == "folds"


def test_showdowns_name_both_hands(tmp_path: Path) -> None:
    from evaluation.play.hands import describe_hand, showdown_words
    from pokerbot.cards import parse_cards

    session = _session(tmp_path, spec="call", seed=2)
    deck = AcpcDeck(HUNL, 2)
    showdowns = 0
    for _ in range(6):
        holes, board = deck.deal()
        session.start_hand()
        _play_out(session, _human_call)
        hand = session.snapshot()["hand"]
        human = session.hand.human_player  # type: ignore[union-attr]
        mine, theirs = showdown_words(holes[human], holes[1 - human], board)
        assert hand["result"]["showdown"] and hand["result"]["hands"] == {"you": mine, "bot": theirs}
        assert hand["you"]["hand_name"] == mine and hand["bot"]["hand_name"] == theirs
        assert (f"with {mine} against {theirs}" in hand["result"]["text"]) != hand["result"]["text"].startswith("Split")
        showdowns += 1
    assert showdowns == 6
    cases = {
        "KsKh9c9d2s3h7c": "two pair, kings and nines", "As2c3d4h5s9c9d": "a straight, five high",
        "AhKhQhJhTh2c3d": "a royal flush", "9h8h7h6h5h2c3d": "a straight flush, nine high",
        "AsAhAd4c4d2s3h": "a full house, aces full of fours", "7s7h7d7c2d": "four of a kind, sevens",
        "Ah9h7h4h2h": "a flush, ace high", "QsQhQd2c5d": "three of a kind, queens", "AsKd9c7h3s": "ace high",
    }
    for cards, words in cases.items():
        assert describe_hand(parse_cards(cards)) == words
    assert showdown_words(parse_cards("AsKd"), parse_cards("AhQc"), parse_cards("Ac7d8h2s3c")) == (
        "a pair of aces, king kicker", "a pair of aces, queen kicker")
    # An independent oracle for the category: treys, on random seven-card hands.
    from treys import Card, Evaluator

    oracle, rng = Evaluator(), np.random.default_rng(0)
    first = {"High Card": "high", "Pair": "a pair of", "Two Pair": "two pair", "Three of a Kind": "three of a kind",
             "Straight": "a straight,", "Flush": "a flush", "Full House": "a full house", "Four of a Kind": "four of",
             "Straight Flush": "a straight flush"}
    for _ in range(300):
        cards = [int(c) for c in rng.choice(52, 7, replace=False)]
        treys_cards = [Card.new(format_card(c)) for c in cards]
        category = oracle.class_to_string(oracle.get_rank_class(oracle.evaluate(treys_cards[:2], treys_cards[2:])))
        words = describe_hand(cards)
        assert first[category] in words or (category == "Straight Flush" and words == "a royal flush"), (cards, words)


def test_reported_policies_that_do_not_fit_are_unknown_and_the_random_bots_is_summed(tmp_path: Path) -> None:
    from evaluation.play.session import checked_policy

    state = State.from_betting(HUNL, "c")  # the big blind to act: check or raise 200..20000
    good = [(CALL, 0.5), (raise_to(300), 0.5)]
    assert checked_policy(state, good, CALL) == (good, None)
    for bad, words in [(None, "does not report"), ([(CALL, 0.5)], "not a probability"),
                       ([(FOLD, 0.5), (CALL, 0.5)], "illegal"), ([(CALL, 0.5), (raise_to(150), 0.5)], "illegal"),
                       ([(CALL, 1.0)], "no probability"), ([("c", 1.0)], "malformed"), (5, "malformed")]:
        policy, why = checked_policy(state, bad, raise_to(300) if words == "no probability" else CALL)
        assert policy is None and words in str(why), (bad, why)
    session = _session(tmp_path, spec="random", seed=4)
    session.start_hand()
    _play_out(session, _human_call)
    review = session.snapshot()["review"]
    for d in review["decisions"]:
        assert sum(p["p"] for p in d["policy"]) == pytest.approx(1.0)
        many = [p for p in d["policy"] if p["action"] is None]
        assert len(d["policy"]) <= 3 and all(" sizes)" in p["text"] for p in many)


def test_the_realtime_agent_notes_its_mode_and_its_fallbacks(tmp_path: Path) -> None:
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer
    from realtime.agent import RealtimeAgent
    from realtime.config import RealtimeConfig

    game = load_game("leduc-nl")
    trainer = Trainer(BlueprintConfig(name="leduc-nl-tiny", game="leduc-nl", iterations=2_000, actions="tiny",
                                      chunk=2_000), directory=tmp_path / "bp")
    trainer.train(progress=False)
    blueprint = trainer.blueprint()

    counted: dict[float, object] = {}

    def notes(budget: float, min_iterations: int) -> set[str]:
        r1 = {"mode": "solve", "gadget": "unsafe", "iterations": 40, "min_iterations": min_iterations,
              "algorithm": "dcfr", "time_budget": budget}
        cfg = RealtimeConfig.from_dict({"blueprint": "unused", "action_time_limit": 100.0, "round": {"1": r1}})
        session = PlaySession(game, RealtimeAgent(cfg, blueprint, seed=1), 3, tmp_path / f"rt{budget}.log")
        seen: set[str] = set()
        for _ in range(4):
            session.start_hand()
            _play_out(session, _human_call)
            hand = session.snapshot()["hand"]
            for a in hand["actions"]:
                if a["who"] == "bot":
                    street = a["street"]
                    seen.add(f"{street}: {a['note']}")
        counted[budget] = session.stats()["fallbacks"]
        return seen

    solved = notes(100.0, 1)
    assert "round 1: blueprint" in solved
    assert any(n.startswith("round 2: solved (DCFR 40 it, ") for n in solved), solved
    fallback = notes(1e-9, 40)  # no solve reaches 40 iterations in a nanosecond: the blueprint is played
    assert any(n.startswith("round 2: fell back to the blueprint: time budget (") for n in fallback), fallback
    # the page's result panel counts them; none when every solve finished
    assert counted[100.0] is None
    assert isinstance(counted[1e-9], str) and counted[1e-9].startswith("fell back at ") and "time budget" in counted[1e-9]
