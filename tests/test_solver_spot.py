"""The spot solver: Pio-style spots solved, checked against exact answers, written as JSON, run from the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerbot.cli import main
from pokerbot.ranges import HANDS, parse_range
from pokerbot.solver.spot import SPOT_FORMAT, Spot, SpotError, parse_sizes

RIVER = dict(board="Ks9h4c7d2s", pot=100, stack=200)


def test_sizes_read_the_usual_notation() -> None:
    assert [s.text() for s in parse_sizes("33%, 75%,2.5x, a")] == ["33%", "75%", "2.5x", "a"]
    assert parse_sizes("") == ()
    for bad in ("75", "-10%", "1x", "pot", "2.5y"):
        with pytest.raises(SpotError, match="is not a size"):
            parse_sizes(bad)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(board="Ks9h4c7dKs"), "appears twice"),
        (dict(board="Ks9h"), "flop \\(3\\), turn \\(4\\) or river \\(5\\)"),
        (dict(board="Kx9h4c"), "board 'Kx9h4c'"),
        (dict(oop="AA,KQx"), "oop range: .*KQx"),
        (dict(ip="KsKh"), "ip range is empty on board"),
        (dict(bets="50%,big"), "bets.*'big' is not a size"),
        (dict(pot=0), "pot must be positive"),
        (dict(stack="lots"), "stack 'lots' is not a number"),
        (dict(bets={"preflop": "50%"}), "unknown street 'preflop'"),
        (dict(allin_threshold=1.5), "allin_threshold"),
    ],
)
def test_bad_input_names_the_problem(kwargs, message) -> None:  # type: ignore[no-untyped-def]
    spec = dict(RIVER, oop="AA,QQ", ip="JJ")
    spec.update(kwargs)
    with pytest.raises(SpotError, match=message) as info:
        Spot(**spec)
    assert "\n" not in str(info.value)


def test_sizes_become_the_right_chips() -> None:
    spot = Spot(board="Ks9h4c", pot=10, stack=95, oop="AA", ip="QQ", bets="50%,a", raises="2.5x,100%", max_raises=1)
    sol_tree = spot.tree()
    from pokerbot.solver.cfr import Solver
    from pokerbot.solver.spot import SpotSolution

    sol = SpotSolution(spot, sol_tree, Solver(sol_tree, "dcfr"), (spot.hands(0), spot.hands(1)))
    assert sol.root_actions() == ["x", "b5", "a95"]
    # Facing a bet of 5 into 10: a 2.5x raise goes to 12.5 -> rounded to whole chips of the game (scale 1: 12 or 13),
    # a pot raise to 5 + (10 + 5 + 5) = 25.
    after = sol.action_labels(sol.find("b5"))
    assert after[:2] == ["f", "c"] and after[-1] == "r25"
    assert any(lab.startswith("r1") and lab != "r25" for lab in after)
    # One raise after the bet: the raise can be called or folded only (no re-raise).
    assert sol.action_labels(sol.find("b5-r25")) == ["f", "c"]


def test_a_river_spot_reaches_its_target_and_reports_ev_and_equity() -> None:
    spot = Spot(**RIVER, oop="AA,KK,72o", ip="AKs,QQ", bets="100%", raises="a")
    sol = spot.solve(target=0.05, iterations=3000, progress=False)
    assert sol.exploitability_pct <= 0.05
    assert sol.ev[0] + sol.ev[1] == pytest.approx(0.0, abs=1e-3)
    hands = [HANDS[i] for i in sol.hands[0]]
    from pokerbot.cards import format_cards

    names = [format_cards(h) for h in hands]
    # On Ks9h4c7d2s: AA beats AKs and QQ, KK (a set) beats both, 72o (two pair) beats both: equity 1.
    assert np.allclose(sol.hand_equity[0], 1.0)
    assert len(names) == 6 + 3 + 7  # Ks, 7d and 2s on the board: 3 kings, 7 offsuit 72 combos
    # IP always loses at showdown: OOP's EV is at least the whole pot share IP can be made to pay... at least 0.
    assert sol.ev[0] > 0 and np.all(sol.hand_ev[0] >= -1e-6)


def test_a_lock_fixes_the_node_and_the_json_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spot = Spot(**RIVER, oop="AA,KK,QQ,JJ,T9s", ip="AKo,KQs,QJs,88", bets="50%,100%", raises="a")
    sol = spot.solve(target=0.2, iterations=2000, locks={"root": "x:0.25,b50:0.75"}, progress=False)
    root = sol.strategy(0)
    assert np.allclose(root[0], 0.25) and np.allclose(root[1], 0.75) and np.allclose(root[2], 0.0)
    out = tmp_path / "spot.json"
    sol.save(out)
    data = json.loads(out.read_text())
    assert data["format"] == SPOT_FORMAT and data["spot"]["street"] == "river"
    assert data["nodes"][0]["path"] == "root" and data["nodes"][0]["actions"] == ["x", "b50", "b100"]
    for node in data["nodes"]:
        probs = np.array(node["strategy"])
        assert probs.shape == (len(data["hands"][node["player"]]), len(node["actions"]))
        assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert np.allclose(np.array(data["nodes"][0]["strategy"])[:, 1], 0.75)
    with pytest.raises(SpotError, match="no action 'b70'"):
        spot.solve(iterations=10, locks={"root": "b70:1"}, progress=False)
    with pytest.raises(SpotError, match="no action 'r9'"):
        spot.solve(iterations=10, locks={"b50-r9": "c:1"}, progress=False)


def test_zero_weight_hands_never_enter_the_solve() -> None:
    spot = Spot(**RIVER, oop="AA:0.5,KK:0,QQ", ip="JJ,TT", bets="50%", raises="")
    assert len(spot.hands(0)) == 6 + 6 and len(spot.hands(1)) == 12
    tree = spot.tree()
    assert tree.num_hands == (12, 12)
    w = parse_range("AA:0.5,QQ")
    assert np.array_equal(spot.weights[0][spot.hands(0)], w[spot.hands(0)])


def test_the_command_solves_and_writes(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "s.json"
    args = ["spot", "--board", "Ks9h4c7d2s", "--pot", "100", "--stack", "200", "--oop", "AA,72o", "--ip", "QQ,AKs",
            "--bets", "100%", "--raises", "a", "--target", "0.5", "--out", str(out), "-q"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "exploitability" in text and "OOP at the root" in text and out.is_file()
    assert main(args) == 1  # the file exists now
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["spot", "--board", "Ks9h4c7d2s", "--pot", "100", "--stack", "200", "--oop", "AA,", "--ip", "ZZ"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("pokerbot spot: error: ip range") and "\n" not in err


def test_the_command_solves_in_compressed_storage(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    out = tmp_path / "c.json"
    args = ["spot", "--board", "Ks9h4c7d2s", "--pot", "100", "--stack", "200", "--oop", "AA,72o,KQs", "--ip", "QQ,AKs",
            "--bets", "100%", "--raises", "a", "--target", "0.5", "--compress", "--out", str(out), "-q"]
    assert main(args) == 0
    data = json.loads(out.read_text())
    assert data["solve"]["dtype"] == "compressed" and data["solve"]["exploitability_pct"] <= 0.5
    assert abs(data["ev"][0] + data["ev"][1]) < 1e-3


def test_suit_isomorphism_merges_twin_deals_and_changes_no_value() -> None:
    """Ks9s4c7c: hearts and diamonds are interchangeable, so 13 river cards stand for 26 (35 deals where there were 48)."""
    from pokerbot.solver.best_response import best_response_values, counterfactual_values, uniform_strategy
    from pokerbot.solver.kernels import CHANCE

    spec = dict(board="Ks9s4c7c", pot=100, stack=150, oop="AA,KQs,T9s,87s,A5s", ip="QQ,AKs,JTs,65s",
                bets="75%", raises="a", max_raises=1)
    iso, full = Spot(**spec), Spot(**spec, isomorphism=False)
    assert iso.suit_symmetry() == [(0, 2, 1, 3)] and full.suit_symmetry() == []
    t_iso, t_full = iso.tree(), full.tree()
    deals = lambda t: int(t.num_children[t.kind == CHANCE].sum())  # noqa: E731
    assert deals(t_full) == 48 * int((t_full.kind == CHANCE).sum()) and deals(t_iso) * 48 == deals(t_full) * 35
    r_iso = (iso.weights[0][iso.hands(0)], iso.weights[1][iso.hands(1)])
    for p in range(2):
        a = counterfactual_values(t_iso, uniform_strategy(t_iso), p, r_iso)
        b = counterfactual_values(t_full, uniform_strategy(t_full), p, r_iso)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-6)
    assert best_response_values(t_iso, uniform_strategy(t_iso), r_iso) == pytest.approx(
        best_response_values(t_full, uniform_strategy(t_full), r_iso), rel=1e-10)
    s_iso = iso.solve(target=0.05, iterations=400, progress=False, dtype=np.float64)
    s_full = full.solve(target=0.05, iterations=400, progress=False, dtype=np.float64)
    assert s_iso.exploitability_pct <= 0.05 and s_full.exploitability_pct <= 0.05
    assert s_iso.ev[0] == pytest.approx(s_full.ev[0], abs=2 * 0.05 / 100 * 100)
    # Negative control: a range that tells hearts from diamonds breaks the symmetry.
    assert Spot(**dict(spec, oop="AA,KhQh")).suit_symmetry() == []
