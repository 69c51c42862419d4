"""``pokerbot explore`` without a browser: the sources (spot files, blueprints), the JSON API and the command.

The served frequencies are compared with the sources' own numbers (the spot file's
strategy rows, the blueprint's strategy array at each hand's bucket), and the
ranges with a reach product computed here from those numbers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from blueprint.abstract_game import DECISION, AbstractGame
from blueprint.lossless import LosslessAbstraction
from blueprint.model import Blueprint, make_menu
from evaluation.explore.server import create_app
from evaluation.explore.sources import BlueprintSource, ExploreError, HandSpace, SpotSource, open_source
from pokerbot.actions import action_text
from pokerbot.cards import format_cards, parse_cards
from pokerbot.cli import main
from pokerbot.gamedef import load_game
from pokerbot.ranges import HANDS, format_range, grid_classes, parse_range
from pokerbot.solver.spot import Spot

ROOT = Path(__file__).resolve().parents[1]
#: Index into pokerbot.ranges.HANDS of each combo's text ("AsKs").
_HAND_INDEX = {format_cards(h): i for i, h in enumerate(HANDS)}


# --- fixtures ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def river_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small river spot, solved a little (mixed strategies), written as ``pokerbot spot --out`` writes it."""
    spot = Spot(board="Ks9h4c7d2s", pot=100, stack=200, oop="AA,KK,K9s,72o:0.5,QJs", ip="AKs,QQ,99:0.25,JTs",
                bets="50%,100%", raises="a")
    path = tmp_path_factory.mktemp("spot") / "river.json"
    spot.solve(target=0.0, iterations=30, progress=False).save(path)
    return path


@pytest.fixture(scope="module")
def turn_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A turn spot with its river decisions (``--streets 2``)."""
    spot = Spot(board="Ks9h4c7d", pot=100, stack=200, oop="AA,KK,72o", ip="AKs,QQ", bets="100%", raises="a")
    path = tmp_path_factory.mktemp("spot") / "turn.json"
    spot.solve(target=0.0, iterations=20, progress=False).save(path, streets=2)
    return path


def _client(source: Any) -> TestClient:
    return TestClient(create_app(source), base_url="http://127.0.0.1")


def _combos(node: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every combo the node lists, by hand text."""
    return {c["hand"]: c for combos in node["hands"].values() for c in combos}


def _random_blueprint(game_name: str, cards: str, menu: str, num_buckets: tuple[int, ...], seed: int = 1) -> Blueprint:
    """A blueprint over the real abstract tree with a random strategy (some rows all zero: played uniformly)."""
    game = load_game(game_name)
    tree = AbstractGame.build(game, num_buckets, make_menu(menu, game))
    rng = np.random.default_rng(seed)
    strategy = rng.random(tree.num_slots).astype(np.float32)
    strategy[rng.random(tree.num_slots) < 0.1] = 0.0
    for n in np.flatnonzero(tree.kind == DECISION).tolist():  # one all-zero row per node: played uniformly
        a_n = int(tree.num_actions[n])
        b = n % tree.num_buckets[int(tree.round[n])]
        strategy[int(tree.base[n]) + b * a_n : int(tree.base[n]) + (b + 1) * a_n] = 0.0
    return Blueprint(tree, strategy, cards, menu, {"game": game_name, "iterations": 7})


def _abstract_node(tree: AbstractGame, tokens: list[str]) -> int:
    """The abstract node reached by the action tokens (cards skipped), walked with the tree's own arrays."""
    node = 0
    for t in tokens:
        labels = [action_text(a, tree.game.nolimit) for a in tree.actions(node)]
        if t in labels:
            node = tree.children(node)[labels.index(t)]
    return node


def _normalised(row: np.ndarray) -> np.ndarray:
    row = np.asarray(row, dtype=np.float64)
    return row / row.sum() if row.sum() > 0 else np.full(len(row), 1.0 / len(row))


# --- spot files ----------------------------------------------------------------------------------------------


def test_spot_frequencies_at_every_node_are_the_files(river_file: Path) -> None:
    data = json.loads(river_file.read_text())
    client = _client(SpotSource.load(river_file))
    assert len(data["nodes"]) > 4
    for raw in data["nodes"]:
        node = client.get("/api/node", params={"path": raw["path"]}).json()
        p = raw["player"]
        assert node["kind"] == "decision" and node["player"] == p and [a["token"] for a in node["actions"]] == raw["actions"]
        assert node["pot"] == raw["pot"] and node["to_call"] == raw["to_call"]
        combos = _combos(node)
        listed = [h for h, c in combos.items() if c["freq"] is not None]
        assert sorted(listed) == sorted(data["hands"][p])  # exactly the actor's hands carry a strategy
        for hand, row in zip(data["hands"][p], raw["strategy"]):
            assert combos[hand]["freq"] == row  # exact: the file's numbers, unchanged
        # A cell is its combos' frequencies weighted by the actor's reach; the totals the same over the range.
        reach = np.array([combos[h]["reach"][p] for h in data["hands"][p]])
        strat = np.array(raw["strategy"])
        for cell in node["cells"]:
            members = [i for i, h in enumerate(data["hands"][p]) if h in {c["hand"] for c in node["hands"][cell["class"]]}]
            w = reach[members]
            if w.sum() > 0:
                assert cell["freq"] == pytest.approx((w @ strat[members]) / w.sum(), abs=1e-12)
            else:
                assert cell["freq"] is None
        totals = [a["total"] for a in node["actions"]]
        assert totals == pytest.approx((reach @ strat) / reach.sum(), abs=1e-12)


def test_spot_ranges_are_reach_weighted(river_file: Path) -> None:
    data = json.loads(river_file.read_text())
    nodes = {n["path"]: n for n in data["nodes"]}
    client = _client(SpotSource.load(river_file))
    # Walk x, then IP's first bet, then OOP's first raise or call: the product of each player's own actions.
    ip_node = nodes["x"]
    bet = ip_node["actions"][1]
    facing = nodes[f"x-{bet}"]
    answer = facing["actions"][1]  # call
    path = f"x-{bet}-{answer}"
    reach = [dict(zip(data["hands"][p], data["range"][p])) for p in range(2)]
    for h, row in zip(data["hands"][0], nodes["root"]["strategy"]):
        reach[0][h] *= row[0]  # OOP checked
    for h, row in zip(data["hands"][1], ip_node["strategy"]):
        reach[1][h] *= row[1]  # IP bet
    for h, row in zip(data["hands"][0], facing["strategy"]):
        reach[0][h] *= row[1]  # OOP called
    node = client.get("/api/node", params={"path": path}).json()
    assert node["kind"] == "end" and node["note"] == "showdown"
    assert [s["token"] for s in node["steps"]] == ["x", bet, answer]
    combos = _combos(node)
    for p in range(2):
        for h, w in reach[p].items():
            assert combos[h]["reach"][p] == pytest.approx(w, rel=1e-12, abs=1e-15)
        others = [c["reach"][p] for h, c in combos.items() if h not in reach[p]]
        assert not any(others)
        weights = parse_range("")
        for h, w in reach[p].items():
            weights[_HAND_INDEX[h]] = w
        assert node["ranges"][p]["text"] == format_range(weights)
        assert node["ranges"][p]["combos"] == pytest.approx(sum(reach[p].values()))
    # The cell weight is the class's mean reach over its combos off the board.
    cells = {c["class"]: c for c in node["cells"]}
    aa = [h for h in data["hands"][0] if h[0] == "A" and h[2] == "A"]
    assert cells["AA"]["combos"] == 6 and cells["AA"]["weight"][0] == pytest.approx(sum(reach[0][h] for h in aa) / 6)


def test_spot_deals_remove_the_card_and_follow_the_file(turn_file: Path) -> None:
    data = json.loads(turn_file.read_text())
    nodes = {n["path"]: n for n in data["nodes"]}
    client = _client(SpotSource.load(turn_file))
    deal = client.get("/api/node", params={"path": "x-x"}).json()
    assert deal["kind"] == "deal" and deal["deal"]["count"] == 1 and deal["deal"]["street"] == "river"
    cards = sorted(p.rsplit("-", 1)[1] for p in nodes if p.startswith("x-x-") and p.count("-") == 2)
    assert sorted(deal["deal"]["available"]) == cards and "Ks" not in cards
    root = client.get("/api/node", params={"path": "x"}).json()
    assert [a["leads"] for a in root["actions"]] == ["deal", "decision"]
    # After the Qh: the combos holding it are gone from both ranges; the river node's strategy is the file's.
    river = client.get("/api/node", params={"path": "x-x-Qh"}).json()
    assert river["board"][-1] == "Qh" and river["steps"][-1] == {"token": "Qh", "label": "river Qh", "kind": "deal",
                                                                 "path": "x-x-Qh"}
    combos = _combos(river)
    assert "QsQh" not in combos and "QsQd" in combos
    raw = nodes["x-x-Qh"]
    for hand, row in zip(data["hands"][raw["player"]], raw["strategy"]):
        if "Qh" not in hand:
            assert combos[hand]["freq"] == row
    before = _combos(client.get("/api/node", params={"path": "x-x"}).json())
    assert before["QsQh"]["reach"][1] > 0 and before["QsQd"]["reach"][1] == combos["QsQd"]["reach"][1]
    for p in range(2):
        served = parse_range(river["ranges"][p]["text"])
        assert not any(served[_HAND_INDEX[h]] for h in before if "Qh" in h)
        assert any(served[_HAND_INDEX[h]] for h in combos)


@pytest.mark.parametrize("path, words", [
    ("q", "no action 'q' at 'root'"),
    ("x-x-Ks", "'Ks' cannot be dealt at 'x-x'"),
    ("x-x-zz", "'zz' cannot be dealt"),
    ("b100-f-x", "the hand is over at 'b100-f'"),
    ("x--x", "empty step"),
])
def test_bad_paths_are_400_with_a_message(turn_file: Path, path: str, words: str) -> None:
    r = _client(SpotSource.load(turn_file)).get("/api/node", params={"path": path})
    assert r.status_code == 400 and words in r.json()["error"]


def test_spot_root_shows_ev_and_equity(river_file: Path) -> None:
    data = json.loads(river_file.read_text())
    client = _client(SpotSource.load(river_file))
    root = client.get("/api/node", params={"path": "root"}).json()
    assert root["figures"] == ["equity", "ev"] and "root" in root["figures_note"]
    combos = _combos(root)
    for p in range(2):
        for h, ev, eq in zip(data["hands"][p], data["hand_ev"][p], data["hand_equity"][p]):
            assert combos[h]["ev"][p] == ev and combos[h]["equity"][p] == eq
    assert client.get("/api/node", params={"path": "x"}).json()["figures"] == []


def test_app_serves_the_page_info_and_refuses_foreign_hosts(river_file: Path) -> None:
    client = _client(SpotSource.load(river_file))
    page = client.get("/")
    assert page.status_code == 200 and "/static/explore.js" in page.text
    for name in ("explore.js", "explore.css"):
        assert client.get(f"/static/{name}").status_code == 200
    info = client.get("/api/info").json()
    assert info["kind"] == "spot" and info["title"] == "river spot Ks9h4c7d2s" and info["players"] == ["OOP", "IP"]
    assert info["grid"] == grid_classes()
    assert client.get("/api/info", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/node", headers={"Host": "10.0.0.1:8766"}).status_code == 400
    assert client.post("/api/node").status_code == 405  # it changes nothing: no POST
    # nothing in the page is loaded from elsewhere
    for name in ("index.html", "explore.js", "explore.css"):
        text = (ROOT / "evaluation" / "explore" / "static" / name).read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text


def test_damaged_spot_files_are_one_clear_error(river_file: Path, tmp_path: Path) -> None:
    data = json.loads(river_file.read_text())
    bad = tmp_path / "bad.json"
    for broken, words in [
        ({**data, "format": "other/1"}, "not a spot solution file"),
        ({k: v for k, v in data.items() if k != "nodes"}, "not a valid spot solution file"),
        ({**data, "hands": [["AsAs"], data["hands"][1]]}, "not a valid spot solution file"),
        ({**data, "range": [[2.0] * len(data["hands"][0]), data["range"][1]]}, "one weight in [0, 1]"),
        ({**data, "nodes": [dict(data["nodes"][0], strategy=[[0.5]])]}, "not a valid spot solution file"),
    ]:
        bad.write_text(json.dumps(broken))
        with pytest.raises(ExploreError, match=words.replace("[", r"\[").replace("]", r"\]")):
            open_source(str(bad))
    bad.write_text("{not json")
    with pytest.raises(ExploreError, match="neither a spot solution"):
        open_source(str(bad))
    with pytest.raises(ExploreError, match="neither a file"):
        open_source(str(tmp_path / "missing.json"))


# --- blueprints ----------------------------------------------------------------------------------------------


def test_leduc_blueprint_frequencies_and_ranges_are_its_strategy(tmp_path: Path) -> None:
    game = load_game("leduc")
    cards = LosslessAbstraction(game)
    bp = _random_blueprint("leduc", "lossless", "legal", cards.num_buckets)
    bp.save(tmp_path / "leduc.npz")
    source = open_source(str(tmp_path / "leduc.npz"))
    assert isinstance(source, BlueprintSource) and source.players == ("P1", "P2")
    client = _client(source)
    space = HandSpace.of_game(game)
    assert client.get("/api/info").json()["grid"] == [["A", "K", "Q"]]
    # P1 raises, P2 calls, the board card Kh, P1 bets: check every hand.
    tokens = ["r", "c", "Kh", "r"]
    path = "-".join(tokens)
    node = client.get("/api/node", params={"path": path}).json()
    abstract = _abstract_node(bp.tree, tokens)
    assert bp.tree.kind[abstract] == DECISION and node["player"] == int(bp.tree.player[abstract])
    combos = _combos(node)
    assert "Kh" not in combos and len(combos) == 5
    # the reach product by hand, walking the tree with the scalar bucket lookups
    reach = {name: [1.0, 1.0] for name in space.names if name != "Kh"}
    n, board = 0, []
    for t in tokens:
        if t == "Kh":
            board = parse_cards("Kh")
            continue
        labels = [action_text(a, False) for a in bp.tree.actions(n)]
        p, r = int(bp.tree.player[n]), int(bp.tree.round[n])
        for name in reach:
            b = cards.bucket(r, parse_cards(name), board)
            reach[name][p] *= _normalised(bp.probabilities(n, b))[labels.index(t)]
        n = bp.tree.children(n)[labels.index(t)]
    for name, (r0, r1) in reach.items():
        b = cards.bucket(1, parse_cards(name), board)
        assert combos[name]["freq"] == _normalised(bp.probabilities(n, b)).tolist()
        assert combos[name]["reach"] == pytest.approx([r0, r1], rel=1e-12)
    for p in range(2):  # the board card's hand is out of both ranges
        assert node["ranges"][p]["text"] == ",".join(f"{h}:{reach[h][p]:.4g}" if reach[h][p] != 1 else h
                                                     for h in space.names if h in reach and reach[h][p] > 0)
    # Deals: one card, any off the board; a blueprint's fold ends the hand.
    deal = client.get("/api/node", params={"path": "r-c"}).json()
    assert deal["kind"] == "deal" and deal["deal"]["count"] == 1 and len(deal["deal"]["available"]) == 6
    assert client.get("/api/node", params={"path": "r-f"}).json()["kind"] == "end"
    for bad, words in [("r-c-Kh-Kh", "no action 'Kh'"), ("r-c-KhKs", "deal 1 distinct card"),
                       ("r-c-2c", "not in the deck"), ("x", "no action 'x' at 'root': the actions are c, r")]:
        r = client.get("/api/node", params={"path": bad})
        assert r.status_code == 400 and words in r.json()["error"], r.json()


def test_hunl_blueprint_preflop_classes_and_a_flop(tiny_card_abstraction: object, tmp_path: Path) -> None:
    from blueprint.model import PresetCards

    game = load_game("hunl")
    cards = PresetCards(game, "tiny")
    bp = _random_blueprint("hunl", "tiny", "tiny", cards.num_buckets, seed=5)
    source = BlueprintSource(bp, "synthetic", cards=cards)
    assert source.players == ("BB", "SB")
    client = _client(source)
    root = client.get("/api/node", params={"path": "root"}).json()
    assert root["player_name"] == "SB" and len(_combos(root)) == 1326 and len(root["cells"]) == 169
    assert [a["token"] for a in root["actions"]] == [action_text(a) for a in bp.tree.actions(0)]
    assert root["actions"][1]["label"] == "Call 50"
    # Preflop: every combo plays its bucket's row; a class's cell is the mean of its combos (full reach).
    combos = _combos(root)
    for cell in root["cells"][::7]:
        members = root["hands"][cell["class"]]
        rows = []
        for c in members:
            expected = _normalised(bp.probabilities(0, cards.bucket(0, parse_cards(c["hand"]), [])))
            assert c["freq"] == expected.tolist()
            rows.append(expected)
        assert cell["weight"] == [1.0, 1.0] and cell["freq"] == pytest.approx(np.mean(rows, axis=0).tolist(), abs=1e-12)
    assert combos["AsAh"]["reach"] == [1.0, 1.0]
    # A flop the user picks: SB calls, BB checks, flop As Kd 2c: each hand its flop bucket's row there.
    call, check = root["actions"][1]["token"], "c"
    limped = bp.tree.children(0)[1]
    check_slot = [action_text(a) for a in bp.tree.actions(limped)].index(check)
    deal = client.get("/api/node", params={"path": f"{call}-{check}"}).json()
    assert deal["kind"] == "deal" and deal["deal"] == {"count": 3, "street": "flop",
                                                       "available": deal["deal"]["available"], "note": ""}
    flop = client.get("/api/node", params={"path": f"{call}-{check}-AsKd2c"}).json()
    assert flop["board"] == ["As", "Kd", "2c"] and flop["kind"] == "decision" and flop["player"] == 0
    n = _abstract_node(bp.tree, [call, check])
    combos = _combos(flop)
    assert len(combos) == 1176 and "AsAh" not in combos
    board = parse_cards("AsKd2c")
    for hand in ["AhAd", "KsKh", "7c2d", "QhJh", "9s8s"]:
        cards_ = parse_cards(hand)
        assert combos[hand]["freq"] == _normalised(bp.probabilities(n, cards.bucket(1, cards_, board))).tolist()
        # SB's reach: its preflop call with that hand; BB's: its check
        sb = _normalised(bp.probabilities(0, cards.bucket(0, cards_, [])))[1]
        bb = _normalised(bp.probabilities(limped, cards.bucket(0, cards_, [])))[check_slot]
        assert combos[hand]["reach"] == pytest.approx([bb, sb], rel=1e-12)
    # Both ranges: the preflop reach of every combo off the board, as a Pio string.
    for p, (node_p, slot) in enumerate([(limped, check_slot), (0, 1)]):
        weights = np.zeros(len(HANDS))
        for i, hand in enumerate(HANDS.tolist()):
            if not set(hand) & set(board):
                weights[i] = _normalised(bp.probabilities(node_p, cards.bucket(0, hand, [])))[slot]
        assert flop["ranges"][p]["text"] == format_range(weights)
    r = client.get("/api/node", params={"path": f"{call}-{check}-AsKd"})
    assert r.status_code == 400 and "deal 3 distinct cards" in r.json()["error"]


def test_blueprints_open_by_run_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bp = _random_blueprint("kuhn", "lossless", "legal", LosslessAbstraction(load_game("kuhn")).num_buckets)
    run = tmp_path / "home" / "blueprints" / "kuhn-run"
    run.mkdir(parents=True)
    bp.save(run / "blueprint.npz")
    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    source = open_source("kuhn-run")
    assert isinstance(source, BlueprintSource) and source.info()["title"] == "blueprint kuhn-run"
    assert isinstance(open_source(str(run)), BlueprintSource)  # the run's folder too
    with pytest.raises(ExploreError, match="nor a blueprint run"):
        open_source("no-such-run")


# --- the command ---------------------------------------------------------------------------------------------


def test_cli_rejects_bad_arguments_in_one_line(river_file: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "b.npz"
    broken.write_bytes(b"PK\x03\x04garbage")
    assert main(["explore", str(river_file), "--host", "0.0.0.0", "--no-browser"]) == 1
    assert main(["explore", str(tmp_path / "missing.json"), "--no-browser"]) == 1
    assert main(["explore", str(river_file), "--port", "70000", "--no-browser"]) == 1
    assert main(["explore", str(broken), "--no-browser"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("pokerbot explore: error: ") for line in err), err
    assert "loopback" in err[0] and "missing.json" in err[1] and "--port" in err[2] and "b.npz" in err[3]


def test_cli_serves_the_explorer(river_file: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "pokerbot", "explore", str(river_file), "--port", "0", "--no-browser"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("pokerbot explore: http://127.0.0.1:") and "river spot Ks9h4c7d2s" in line, line
        url = line.split()[2]
        with urllib.request.urlopen(url + "api/node?path=x", timeout=10) as r:
            node = json.loads(r.read())
        assert node["path"] == "x" and node["player_name"] == "IP"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --- a real-time agent's solve ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def leduc_agent(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Blueprint]:
    """A no-limit Leduc blueprint (trained for a second) and a real-time config that re-solves round 1."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    d = tmp_path_factory.mktemp("realtime")
    trainer = Trainer(BlueprintConfig(name="leduc-nl-tiny", game="leduc-nl", iterations=20_000, actions="tiny",
                                      chunk=10_000), directory=d / "run")
    trainer.train(progress=False)
    config = d / "realtime.toml"
    config.write_text(
        f'name = "explore-test"\nblueprint = "{d / "run" / "blueprint.npz"}"\nseed = 0\naction_time_limit = 1000.0\n'
        '[round.0]\nmode = "blueprint"\n'
        '[round.1]\nmode = "solve"\ngadget = "resolve"\nalt = "blueprint"\nalgorithm = "dcfr"\niterations = 60\n'
        'min_iterations = 1\ntime_budget = 1000.0\ndepth_limit = -1\n')
    return config, trainer.blueprint()


def _leduc_state(bp: Blueprint, betting: str) -> str:
    """A MATCHSTATE line of player 0 (Qh, board Kh) after ``betting``."""
    from pokerbot.matchstate import format_matchstate
    from pokerbot.state import State

    game = bp.game
    state = State.from_betting(game, betting).with_cards(hole_cards=((game.deck()[0],), (game.deck()[1],)),
                                                        board_cards=(game.deck()[2],))
    return format_matchstate(state, 0)


def test_realtime_solve_frequencies_are_the_agents(leduc_agent: tuple[Path, Blueprint]) -> None:
    from evaluation.explore.sources import SolveSource, load_solve
    from pokerbot.solver.tree import hand_universe, universe_rows

    config, bp = leduc_agent
    raise_token = action_text(bp.tree.actions(0)[1])  # the blueprint's preflop raise, r3
    source = load_solve(str(config), _leduc_state(bp, f"{raise_token}c/"))
    assert isinstance(source, SolveSource) and source.info()["start"] == "root"
    client = _client(source)
    root = client.get("/api/node", params={"path": "root"}).json()
    decision = source.decision
    universe = [format_cards(h) for h in hand_universe(bp.game)]
    combos = _combos(root)
    assert root["board"] == ["Kh"] and root["player"] == 0 and "Kh" not in combos
    assert [a["token"] for a in root["actions"]] == [action_text(a) for a in decision.actions]
    sol = decision.solution
    assert sol is not None and "Kh" not in [format_cards(h) for h in sol.tree.hands[0]]  # the board's card: not listed
    row = {u: i for i, u in enumerate(universe_rows(sol.tree, 0).tolist())}  # the tree's row of a universe hand
    for h, hand in enumerate(universe):
        if hand != "Kh":
            assert combos[hand]["freq"] == decision.probs[:, h].tolist()  # exactly what the agent plays
            assert combos[hand]["reach"][0] == sol.reach_us[row[h]]
    # One step down: P1 bets; its reach is multiplied by the bet's probability, P2's unchanged.
    bet = root["actions"][1]["token"]
    after = _combos(client.get("/api/node", params={"path": bet}).json())
    for hand in combos:
        assert after[hand]["reach"][0] == pytest.approx(combos[hand]["reach"][0] * combos[hand]["freq"][1], rel=1e-12)
        assert after[hand]["reach"][1] == combos[hand]["reach"][1]
    r = client.get("/api/node", params={"path": "q"})
    assert r.status_code == 400 and "no action 'q' at 'root'" in r.json()["error"]


def test_realtime_solve_rooted_before_the_opponents_action(leduc_agent: tuple[Path, Blueprint]) -> None:
    from blueprint.policy import BlueprintPolicy
    from evaluation.explore.sources import load_solve
    from pokerbot.solver.tree import hand_universe
    from pokerbot.state import State

    config, bp = leduc_agent
    raise_token = action_text(bp.tree.actions(0)[1])
    # P1 checked on the flop; P2 (to act) re-solves from before that check: the page opens one step down.
    source = load_solve(str(config), _leduc_state(bp, f"{raise_token}c/c"))
    assert source.info()["start"] == "c"
    root = _client(source).get("/api/node", params={"path": "root"}).json()
    assert root["player"] == 0 and [s["token"] for s in root["steps"]] == []
    # P1's range at the subgame's root is the agent's model of it: the blueprint's preflop raise, off the Kh.
    game = bp.game
    raised = BlueprintPolicy(bp).action_probabilities(State.initial(game), bp.tree.actions(0)[1])
    combos = _combos(root)
    for h, hand in enumerate(format_cards(c) for c in hand_universe(game)):
        if hand != "Kh":
            assert combos[hand]["reach"][0] == pytest.approx(raised[h], rel=1e-12)
    with pytest.raises(ExploreError, match="plays its blueprint there"):
        load_solve(str(config), _leduc_state(bp, ""))  # round 0: the config plays the blueprint
    with pytest.raises(ExploreError, match="the hand is over"):
        load_solve(str(config), _leduc_state(bp, f"{raise_token}f"))


def test_cli_serves_a_realtime_solve(leduc_agent: tuple[Path, Blueprint], tmp_path: Path) -> None:
    config, bp = leduc_agent
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    state = _leduc_state(bp, f"{action_text(bp.tree.actions(0)[1])}c/")
    cmd = [sys.executable, "-m", "pokerbot", "explore", str(config), "--state", state, "--port", "0", "--no-browser"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()  # type: ignore[union-attr]
        assert first.startswith("pokerbot explore: solving at MATCHSTATE:0:0:"), first
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("pokerbot explore: http://127.0.0.1:") and "real-time solve at" in line, line
        with urllib.request.urlopen(line.split()[2] + "api/info", timeout=10) as r:
            info = json.loads(r.read())
        assert info["kind"] == "solve" and info["start"] == "root" and info["grid"] == [["A", "K", "Q"]]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert main(["explore", str(config), "--state", "MATCHSTATE:9:0::Qh|", "--no-browser"]) == 1
