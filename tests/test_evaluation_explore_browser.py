"""``pokerbot explore`` in a real browser: headless Chromium walks a solved turn spot and a blueprint.

On the spot it opens the root, clicks an action, checks the grid (every cell's
colours are the server's frequencies) and the breadcrumbs, hovers a class and reads
its combos, deals a river card with the picker, goes back through a breadcrumb,
types a bad path, and saves screenshots; on a HUNL blueprint it plays to the flop and
picks its three cards. Any JavaScript error or console error (but the 400 of the bad
path it asks for) fails them.

Needs Debian's Chromium and its driver and selenium, like
``tests/test_evaluation_play_browser.py`` (whose browser helper it uses); carries
the ``browser`` marker, left out by default::

    python -m pytest -q -m browser tests/test_evaluation_explore_browser.py

With ``POKERBOT_EXPLORE_SCREENSHOT=docs/img/explore.png`` the docs' screenshot is
written there (IP facing a bet, a class hovered); otherwise it goes to pytest's tmp dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pokerbot.solver.spot import Spot
from test_evaluation_play_browser import chromium

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def spot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs' turn spot (``docs/explore.md``), solved briefly, with its river decisions."""
    spot = Spot(board="Ks9h4c7d", pot=1200, stack=19400, oop="AA,KK,99,AKs,AKo:0.5,K9s,QJs,T8s,65s",
                ip="KK,99,44,KQ:0.75,KJs,AQs,JTs,86s", bets="50%,100%", raises="a")
    path = tmp_path_factory.mktemp("explore") / "turn.json"
    spot.solve(target=0.5, iterations=60, progress=False).save(path, streets=2)
    return path


class Server:
    """``pokerbot explore FILE`` in a subprocess, as a person starts it."""

    def __init__(self, source: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "pokerbot", "explore", str(source), "--port", "0", "--no-browser"]
        self.proc = subprocess.Popen(cmd, cwd=source.parent, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("pokerbot explore: http://127.0.0.1:"), line + self.proc.stdout.read()  # type: ignore[union-attr]
        self.url = line.split()[2]

    def api(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/node?path=" + path, timeout=10) as r:
            return json.loads(r.read())  # type: ignore[no-any-return]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=15)


def test_a_person_walks_a_spot_in_chromium(spot_file: Path, tmp_path: Path) -> None:
    server = Server(spot_file)
    try:
        with chromium() as d:
            _walk(d, server, tmp_path)
    finally:
        server.stop()


def _walk(d, server: Server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(d, 20, poll_frequency=0.05)

    def page_node() -> dict[str, Any] | None:
        return d.execute_script("return node;")  # type: ignore[no-any-return]

    def at(path: str) -> None:
        wait.until(lambda _: (page_node() or {}).get("path") == path)

    def crumbs() -> list[str]:
        return [e.text for e in d.find_elements(By.CSS_SELECTOR, "#crumbs a, #crumbs span.here")]

    def grid() -> dict[str, str | None]:
        return {e.get_attribute("data-class"): e.get_attribute("data-freq")
                for e in d.find_elements(By.CSS_SELECTOR, "#grid .cell")}

    def expected_grid(node: dict[str, Any]) -> dict[str, str | None]:
        p = node["player"]
        return {c["class"]: ",".join(f"{f:.4f}" for f in c["freq"]) if c["freq"] and c["weight"][p] > 0 else None
                for c in node["cells"]}

    def shot(name: str) -> Path:
        path = tmp_path / name
        assert d.save_screenshot(str(path)) and path.stat().st_size > 10_000
        return path

    d.get(server.url)
    at("root")
    # --- the root: OOP to act, the grid is the server's frequencies, one breadcrumb ------------------------
    root = server.api("root")
    cells = grid()
    assert len(cells) == 169 and cells == expected_grid(root)
    assert sum(v is not None for v in cells.values()) == 9  # OOP's nine classes: AA KK 99 AKs AKo K9s QJs T8s 65s
    assert crumbs() == ["root"] and d.find_element(By.ID, "actor").text == "OOP to act"
    assert [c.get_attribute("data-card") for c in d.find_elements(By.CSS_SELECTOR, "#board .card")] == \
        ["Ks", "9h", "4c", "7d"]
    buttons = d.find_elements(By.CSS_SELECTOR, "#actions button")
    assert [b.get_attribute("data-token") for b in buttons] == ["x", "b600", "b1200"]
    shot("root.png")

    # --- click a bet: IP to act, the grid and breadcrumbs follow ---------------------------------------------
    d.find_element(By.CSS_SELECTOR, '#actions button[data-token="b600"]').click()
    at("b600")
    facing = server.api("b600")
    assert grid() == expected_grid(facing) and grid() != cells
    assert crumbs() == ["root", "b600"] and d.find_element(By.ID, "actor").text == "IP to act"
    assert grid()["AA"] is None and grid()["AQs"] is not None  # IP holds AQs, never AA
    # --- hover a class: its combos with their frequencies -----------------------------------------------------
    ActionChains(d).move_to_element(d.find_element(By.CSS_SELECTOR, '#grid .cell[data-class="KQo"]')).perform()
    wait.until(lambda _: d.find_element(By.ID, "detail-title").text == "KQo · IP")
    rows = d.find_elements(By.CSS_SELECTOR, "#detail-table tr[data-hand]")
    served = {c["hand"]: c for c in facing["hands"]["KQo"]}
    assert sorted(r.get_attribute("data-hand") for r in rows) == sorted(served) and len(rows) == 9  # the Ks is on the board
    first = rows[0]
    hand = first.get_attribute("data-hand")
    tds = [td.text for td in first.find_elements(By.TAG_NAME, "td")]
    assert tds[1] == f"{served[hand]['reach'][1]:.3f}"
    assert tds[3:6] == [f"{100 * f:.1f}%" for f in served[hand]["freq"]]
    docs_shot = os.environ.get("POKERBOT_EXPLORE_SCREENSHOT")
    if docs_shot:
        Path(docs_shot).parent.mkdir(parents=True, exist_ok=True)
        assert d.save_screenshot(docs_shot)
    shot("facing-bet.png")

    # --- call: the river is dealt with the picker, then back through a breadcrumb ------------------------------
    d.find_element(By.CSS_SELECTOR, '#actions button[data-token="c"]').click()
    at("b600-c")
    assert d.find_element(By.ID, "deal").is_displayed() and not d.find_element(By.ID, "grid").is_displayed()
    assert not d.find_element(By.CSS_SELECTOR, '#deck button[data-card="Ks"]').is_enabled()
    d.find_element(By.CSS_SELECTOR, '#deck button[data-card="2h"]').click()
    at("b600-c-2h")
    assert crumbs() == ["root", "b600", "c", "2h"]
    assert [c.get_attribute("data-card") for c in d.find_elements(By.CSS_SELECTOR, "#board .card")][-1] == "2h"
    assert grid() == expected_grid(server.api("b600-c-2h"))
    shot("river.png")
    d.find_element(By.CSS_SELECTOR, '#crumbs a[data-path="b600"]').click()
    at("b600")
    assert grid() == expected_grid(facing) and crumbs() == ["root", "b600"]
    # --- a bad path: the message says why, the node shown stays -------------------------------------------------
    d.execute_script("location.hash = '#/b600-zz';")
    wait.until(lambda _: "no action 'zz'" in d.find_element(By.ID, "message").text)
    assert page_node()["path"] == "b600"  # type: ignore[index]
    d.back()
    d.back()  # the browser's history: past the bad path and the breadcrumb's b600, the river node again
    at("b600-c-2h")

    # --- no JavaScript errors, no console errors but the bad path's 400 ----------------------------------------
    errors = [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")
              and not ("api/node?path=b600-zz" in e["message"] and "400" in e["message"])]
    assert errors == [], errors


def test_a_blueprint_flop_is_picked_in_chromium(tiny_card_abstraction: object, tmp_path: Path) -> None:
    """A HUNL blueprint (the real tiny abstraction, a random strategy): preflop, then a flop of three picked cards."""
    import numpy as np

    from blueprint.abstract_game import AbstractGame
    from blueprint.model import Blueprint, make_menu
    from pokerbot.gamedef import load_game

    game = load_game("hunl")
    tree = AbstractGame.build(game, (169, 12, 12, 12), make_menu("tiny", game))
    strategy = np.random.default_rng(3).random(tree.num_slots).astype(np.float32)
    Blueprint(tree, strategy, "tiny", "tiny", {"game": "hunl"}).save(tmp_path / "blueprint.npz")
    server = Server(tmp_path / "blueprint.npz")
    try:
        with chromium() as d:
            from selenium.webdriver.common.by import By
            from selenium.webdriver.support.ui import WebDriverWait

            wait = WebDriverWait(d, 30, poll_frequency=0.05)

            def at(path: str) -> None:
                wait.until(lambda _: (d.execute_script("return node;") or {}).get("path") == path)

            def grid() -> dict[str, str | None]:
                return {e.get_attribute("data-class"): e.get_attribute("data-freq")
                        for e in d.find_elements(By.CSS_SELECTOR, "#grid .cell")}

            d.get(server.url)
            at("root")
            assert d.find_element(By.ID, "actor").text == "SB to act"
            assert sum(v is not None for v in grid().values()) == 169  # every class, full range
            d.find_element(By.CSS_SELECTOR, '#actions button[data-token="c"]').click()
            at("c")
            d.find_element(By.CSS_SELECTOR, '#actions button[data-token="c"]').click()
            at("c-c")
            go = d.find_element(By.ID, "deal-go")
            for card in ("Ah", "7c", "2d"):
                assert not go.is_enabled()
                d.find_element(By.CSS_SELECTOR, f'#deck button[data-card="{card}"]').click()
            assert "Deal Ah7c2d" in d.find_element(By.ID, "deal-text").text
            go.click()
            at("c-c-Ah7c2d")
            assert [c.get_attribute("data-card") for c in d.find_elements(By.CSS_SELECTOR, "#board .card")] == \
                ["Ah", "7c", "2d"]
            flop = server.api("c-c-Ah7c2d")
            p = flop["player"]
            assert flop["player_name"] == "BB" and d.find_element(By.ID, "actor").text == "BB to act"
            assert grid() == {c["class"]: ",".join(f"{f:.4f}" for f in c["freq"]) if c["freq"] and c["weight"][p] > 0
                              else None for c in flop["cells"]}
            assert [e.text for e in d.find_elements(By.CSS_SELECTOR, "#crumbs a, #crumbs span.here")] == \
                ["root", "c", "c", "Ah7c2d"]
            assert d.save_screenshot(str(tmp_path / "flop.png"))
            errors = [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
            assert errors == [], errors
    finally:
        server.stop()
