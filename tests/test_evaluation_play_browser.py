"""``pokerbot play`` in a real browser: headless Chromium plays five hands through the page.

It folds, calls, raises a typed amount, goes all-in (with the confirming second
click) and reaches showdowns, and on the way types an illegal amount,
double-clicks, reloads mid-hand, narrows the window to 800 px, closes the tab and
restarts the server under the open page (the "lost the server" notice must come
and go); it checks what the page shows (the bot's last action and decision note
at its seat, the hands named at showdown, the review of the bot's probabilities,
plain and luck-adjusted results) and the ACPC log, and saves screenshots. A
JavaScript error in the browser's console fails the test.

Needs Debian's Chromium and its driver (``apt-get install -y chromium
chromium-driver``) and selenium (a test extra). ``make test`` installs neither
browser nor driver, so the test carries the ``browser`` marker, left out by
default; run it with::

    python -m pytest -q -m browser tests/test_evaluation_play_browser.py

It FAILS (it does not skip) when Chromium is missing. With
``POKERBOT_PLAY_SCREENSHOT=docs/play.png`` the screenshot is written there (the
one in the docs comes from this test, taken on the flop of the last hand, just
before the restart); otherwise it goes to pytest's tmp dir, beside the others
(``narrow.png`` at 800 px, ``showdown.png`` at the end).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pokerbot.agent import Agent
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState
from pokerbot.protocol.log import read_log
from pokerbot.state import CALL, Action

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
#: The browser and its driver (Debian's paths; POKERBOT_CHROMIUM / POKERBOT_CHROMEDRIVER override them).
CHROMIUM = os.environ.get("POKERBOT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("POKERBOT_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
THINK_SECONDS = 0.4


class SlowCaller(Agent):
    """Checks or calls after thinking ``seconds``: a predictable opponent whose thinking can be seen."""

    def __init__(self, seconds: float, name: str = "slowcaller") -> None:
        self.seconds = seconds
        self.name = name

    def act(self, view: MatchState) -> Action:
        time.sleep(self.seconds)
        return CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        return [(CALL, 1.0)]

    def decision_note(self) -> str:
        return "by rule: always check or call"


def slow_caller(game: GameDef, seed: int | None = None, seconds: str = "0.4") -> Agent:
    """Factory for the spec ``test_evaluation_play_browser:slow_caller?seconds=0.4``."""
    return SlowCaller(float(seconds))


class Server:
    """``pokerbot play`` in a subprocess, as a person starts it."""

    def __init__(self, log: Path, port: int) -> None:
        self.log = log
        self.port = port
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
                   POKERBOT_ALLOW_ANY_AGENT="1")  # the agent is a factory of this test module, not a registered one
        cmd = [sys.executable, "-m", "pokerbot", "play", "--agent",
               f"test_evaluation_play_browser:slow_caller?seconds={THINK_SECONDS}", "--seed", "42",
               "--log", str(self.log), "--port", str(self.port), "--no-browser"]
        self.proc = subprocess.Popen(cmd, cwd=self.log.parent, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("pokerbot play: http://127.0.0.1:"), line + self.proc.stdout.read()  # type: ignore[union-attr]
        self.url = line.split()[2]
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=15)
            self.proc = None


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """Headless Chromium under selenium; the test FAILS (not skips, not errors) when either is missing."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("headless Chromium is needed: apt-get update && apt-get install -y chromium chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is needed: pip install -e '.[test]'")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, to fail on JavaScript errors
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_a_person_plays_five_hands_in_chromium(tmp_path: Path) -> None:
    with chromium() as d:
        _play_five_hands(d, tmp_path)


def _play_five_hands(d, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    log = tmp_path / "session.log"
    server = Server(log, 0)
    server.start()
    wait = WebDriverWait(d, 20, poll_frequency=0.05)

    def el(id_: str):  # type: ignore[no-untyped-def]
        return d.find_element(By.ID, id_)

    def page_state() -> dict:  # type: ignore[type-arg]
        return d.execute_script("return state;")

    def betting() -> str:
        return page_state()["hand"]["betting"]

    def my_turn() -> None:
        wait.until(lambda _: page_state() and page_state()["legal"] is not None and el("call").is_enabled()
                   and "off" not in el("actions").get_attribute("class"))

    def hand_over() -> None:
        wait.until(lambda _: page_state()["hand"]["finished"] and el("next").is_displayed())

    def next_hand(expected: int) -> None:
        el("next").click()
        wait.until(lambda _: page_state()["hand"]["id"] == expected)

    def cards(id_: str) -> list[str]:
        return [c.get_attribute("data-card") for c in el(id_).find_elements(By.CSS_SELECTOR, ".card[data-card]")]

    thinking_seen: list[str] = []

    def watch_thinking() -> None:
        """Note every "thinking… N s" the page shows (the bot may decide before a page is loaded)."""
        d.execute_script("""
            window.thinkingSeen = [];
            setInterval(() => {
              if (!document.getElementById("thinking").hidden)
                window.thinkingSeen.push(document.getElementById("thinking-text").textContent);
            }, 20);""")

    def collect_thinking() -> None:
        thinking_seen.extend(d.execute_script("return window.thinkingSeen || [];"))

    js_errors: list[str] = []

    def check_console() -> None:
        """JavaScript errors in the console fail the test (refused requests, 400/409, are network entries)."""
        for entry in d.get_log("browser"):
            if entry.get("source") == "javascript" or "Uncaught" in entry.get("message", ""):
                js_errors.append(entry["message"])
        assert not js_errors, js_errors

    def in_viewport(id_: str) -> bool:
        return d.execute_script("""
            const r = document.getElementById(arguments[0]).getBoundingClientRect();
            return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth
                && r.bottom <= window.innerHeight;""", id_)

    def check_down() -> None:
        while True:
            wait.until(lambda _: page_state()["hand"]["finished"] or page_state()["legal"] is not None)
            if page_state()["hand"]["finished"]:
                return
            my_turn()
            seq = page_state()["hand"]["seq"]
            el("call").click()
            wait.until(lambda _: page_state()["hand"]["seq"] != seq)

    try:
        d.get(server.url)
        # --- hand 0: the person is the big blind; the bot (small blind) thinks, then calls ------------
        wait.until(lambda _: page_state() is not None)
        watch_thinking()
        my_turn()
        assert "last decision 0." in el("bot-timing").text  # e.g. "last decision 0.40 s"
        assert len(cards("your-cards")) == 2 and cards("bot-cards") == [] and cards("board") == []
        assert el("call").text == "Check" and not el("fold").is_enabled()
        # The bot's last action is shown at its seat, with how it decided; and in "This hand" with its time.
        assert el("bot-last").text == "calls 50" and el("bot-last-note").text == "by rule: always check or call"
        assert "by rule: always check or call · 0." in el("hand-actions").text
        assert "by rule" in el("bot-note").text
        assert el("bot-stack").text == "19,900 chips"
        # An 800-pixel window: one column, the raise box and the actions stay on screen.
        d.set_window_size(800, 1000)
        wait.until(lambda _: in_viewport("raise-box") and in_viewport("raise") and in_viewport("fold"))
        assert d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth;")
        assert d.save_screenshot(str(tmp_path / "narrow.png"))
        d.set_window_size(1280, 1000)
        # A preset fills the raise box and plays nothing (pot: to 300 after the call).
        pot = next(b for b in el("presets").find_elements(By.TAG_NAME, "button") if b.text.startswith("pot · "))
        pot.click()
        assert el("raise-amount").get_attribute("value") == pot.get_attribute("data-to") == "300"
        time.sleep(0.3)
        assert betting() == "c"
        # An illegal typed amount: refused with the legal range, the hand untouched.
        box = el("raise-amount")
        box.clear()
        box.send_keys("150")
        el("raise").click()
        wait.until(lambda _: "not legal" in el("message").text)
        assert "200..20000" in el("message").text and betting() == "c"
        box = el("raise-amount")
        box.clear()
        box.send_keys("abc")
        el("raise").click()
        wait.until(lambda _: "whole number" in el("message").text)
        assert betting() == "c"
        # A typed legal raise, sent with Enter.
        box = el("raise-amount")
        box.clear()
        box.send_keys("350", Keys.ENTER)
        wait.until(lambda _: page_state()["hand"]["street"] == "flop")
        assert betting() == "cr350c/" and len(cards("board")) == 3
        assert el("pot").text == "700"
        # A reload mid-hand: the same hand, cards and betting come back.
        mine, board = cards("your-cards"), cards("board")
        collect_thinking()
        d.refresh()
        my_turn()
        watch_thinking()
        assert cards("your-cards") == mine and cards("board") == board and betting() == "cr350c/"
        # A double click on Check plays one check; two requests racing with one position: one wins.
        ActionChains(d).double_click(el("call")).perform()
        wait.until(lambda _: page_state()["hand"]["street"] == "turn")
        assert betting() == "cr350c/cc/"
        my_turn()
        statuses = d.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const body = JSON.stringify({hand: state.hand.id, seq: state.hand.seq, kind: "call"});
            const post = () => fetch("/api/action", {method: "POST", headers: {"Content-Type": "application/json"}, body});
            Promise.all([post(), post()]).then((rs) => done(rs.map((r) => r.status).sort()));
        """)
        assert statuses == [200, 409]
        wait.until(lambda _: page_state()["hand"]["street"] == "river")
        assert betting() == "cr350c/cc/cc/"
        check_down()
        hand_over()
        collect_thinking()
        assert thinking_seen and all(t.startswith("thinking… ") and t.endswith(" s") for t in thinking_seen)
        assert len(cards("bot-cards")) == 2, "the bot's cards are shown at showdown"
        assert el("result").is_displayed() and "at showdown with " in el("result").text
        # The showdown names both hands, at the seats and in the banner (e.g. "two pair, kings and nines").
        named = page_state()["hand"]
        category = re.compile(r"high|a pair of|two pair|three of a kind|straight|flush|full house|four of a kind")
        assert category.search(el("bot-hand-name").text) and category.search(el("your-hand-name").text)
        assert el("bot-hand-name").text == named["bot"]["hand_name"]
        assert named["you"]["hand_name"] in el("result").text and named["bot"]["hand_name"] in el("result").text
        # The review: the bot's cards and its probabilities at each of its five decisions.
        review = el("review-panel")
        assert review.is_displayed() and "hand #0" in review.text.lower()
        review_cards = el("review-cards").text
        assert all(c[0] in review_cards for c in cards("bot-cards"))
        assert len(el("review").find_elements(By.CSS_SELECTOR, ".decision")) == 5
        assert review.text.count("100%") == 5
        assert "bb/100" in el("stats-rate").text and "bb/100" in el("stats-aivat").text
        assert log.read_text().count("\nSTATE:") == 1  # logged as soon as it ended

        # --- hand 1: the person is the small blind and folds ------------------------------------------
        next_hand(1)
        my_turn()
        assert el("fold").is_enabled() and el("call").text == "Call 50"
        el("fold").click()
        hand_over()
        assert "You lose 0.5 bb (you folded)" in el("result").text and cards("bot-cards") == []
        assert "review" in el("review-panel").text.lower() and "made no decision" in el("review").text

        # --- hand 2: big blind again; all-in with the preset button, the bot calls: showdown ----------
        el("next").click()  # a second click on "Next hand" deals nothing more
        try:
            el("next").click()
        except WebDriverException:
            pass  # the button is already gone or hidden: the check below is that no second hand was dealt
        wait.until(lambda _: page_state()["hand"]["id"] == 2)
        my_turn()
        el("allin").click()  # the first click asks for confirmation and plays nothing
        wait.until(lambda _: "confirm" in el("allin").text)
        assert el("raise-amount").get_attribute("value") == "20000"
        time.sleep(0.3)
        assert betting() == "c" and "All-in for 20,000 chips?" in el("message").text
        el("allin").click()  # the confirmation
        hand_over()
        assert betting() == "cr20000c///" and len(cards("board")) == 5 and len(cards("bot-cards")) == 2
        assert el("pot").text == "40,000"

        # --- hand 3: small blind; call, then check it down. The tab is closed and a new one opened ----
        next_hand(3)
        my_turn()
        el("call").click()
        wait.until(lambda _: page_state()["hand"]["street"] == "flop")
        old = d.current_window_handle
        d.switch_to.new_window("tab")
        d.switch_to.window(old)
        d.close()
        d.switch_to.window(d.window_handles[0])
        d.get(server.url)
        wait.until(lambda _: page_state() is not None and page_state()["hand"]["id"] == 3)
        assert betting().startswith("cc/")
        check_down()
        hand_over()

        # --- hand 4: the server is restarted mid-hand; the page picks the hand up again ---------------
        next_hand(4)
        my_turn()
        box = el("raise-amount")
        box.clear()
        box.send_keys("400", Keys.ENTER)
        wait.until(lambda _: page_state()["hand"]["street"] == "flop")
        my_turn()
        # The docs' screenshot: the person to act on the flop, with the bot's last action and how it decided,
        # the buttons, both results and the chart, and the review of hand 3.
        shot = Path(os.environ.get("POKERBOT_PLAY_SCREENSHOT") or tmp_path / "play.png")
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert d.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        before = (betting(), cards("your-cards"), cards("board"))
        run = page_state()["run"]
        server.stop()  # the page stays open: its long poll loses the server and says so
        wait.until(lambda _: "lost the server" in el("message").text)
        server.start()  # same log, same port
        wait.until(lambda _: page_state()["run"] != run and page_state()["hand"]["id"] == 4)
        wait.until(lambda _: el("message").text == "")  # the notice goes once the server answers again
        assert (betting(), cards("your-cards"), cards("board")) == before
        assert page_state()["stats"]["hands"] == 4
        my_turn()
        assert "resumed after a restart" in el("hand-actions").text
        check_console()
        check_down()
        hand_over()

        # --- the page ---------------------------------------------------------------------------------
        wait.until(lambda _: el("stats-hands").text == "5 hands")
        for rate in ("stats-rate", "stats-aivat"):
            assert "bb/100" in el(rate).text and "±" in el(rate).text
        assert len(d.find_elements(By.CSS_SELECTOR, "#history tr")) == 5
        for line in ("polyline.plain", "polyline.aivat"):
            points = el("chart").find_element(By.CSS_SELECTOR, line).get_attribute("points").split()
            assert len(points) == 6  # 0, 1, ..., 5 hands
        assert d.save_screenshot(str(tmp_path / "showdown.png"))
        check_console()
    finally:
        server.stop()

    # --- the log: five hands on the exact engine, in ACPC format ----------------------------------------
    game = load_game("hunl")
    parsed = read_log(game, log)
    assert [h.hand_id for h in parsed.hands] == [0, 1, 2, 3, 4]
    bettings = [h.state.betting_string() for h in parsed.hands]
    assert bettings[0] == "cr350c/cc/cc/cc" and bettings[1] == "f" and bettings[2] == "cr20000c///"
    assert bettings[3] == "cc/cc/cc/cc" and bettings[4] == "cr400c/cc/cc/cc"
    assert [h.value_of("you") for h in parsed.hands][1] == -50
    assert all(h.state.finished for h in parsed.hands)
    assert not (tmp_path / "session.log.hand").exists()  # no hand in progress is left behind
