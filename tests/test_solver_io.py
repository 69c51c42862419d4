"""Strategy files, policy conversion, and the solve / exploitability commands."""

from __future__ import annotations

import gzip

import pytest

from pokerbot.cli import main
from pokerbot.errors import CheckpointError
from pokerbot.gamedef import load_game
from pokerbot.infoset import infoset_key
from pokerbot.solver import (
    Solver,
    SolverError,
    build_tree,
    canonical_key,
    load_policy,
    policy_exploitability,
    policy_to_strategy,
    read_policy,
    save_policy,
    save_strategy,
    solve,
    strategy_to_policy,
)
from pokerbot.cards import parse_cards
from pokerbot.state import CALL, RAISE, State


@pytest.fixture(scope="module")
def leduc_result():  # type: ignore[no-untyped-def]
    return solve(load_game("leduc"), "cfr+", 300)


def test_keys_are_the_shared_infoset_keys(leduc_result) -> None:  # type: ignore[no-untyped-def]
    game = load_game("leduc")
    s = State.initial(game, hole_cards=[parse_cards("Kh"), parse_cards("Qh")], board_cards=parse_cards("Qs"))
    s = s.apply(RAISE).apply(CALL).apply(RAISE)
    key = infoset_key(s, 1)
    assert key == "Qh/Qs:rc/r"
    assert set(leduc_result.policy[key]) <= {"f", "c", "r"}
    assert len(leduc_result.policy) == 936  # Leduc's information sets with a decision: 2 x 468
    assert canonical_key("KdAs/4c2c3c:r300c/") == "AsKd/2c3c4c:r300c/"
    with pytest.raises(SolverError, match="no ':'"):
        canonical_key("AsKd")
    with pytest.raises(SolverError, match="not a card"):
        canonical_key("AsXx:cc")


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_round_trip_is_exact(tmp_path, leduc_result, suffix: str) -> None:  # type: ignore[no-untyped-def]
    game = load_game("leduc")
    path = tmp_path / f"leduc{suffix}"
    save_policy(path, leduc_result.policy, game, {"algorithm": "cfr+"})
    policy, headers, file_game = read_policy(path)
    assert policy == leduc_result.policy
    assert headers["algorithm"] == "cfr+" and headers["game"] == "leduc"
    assert file_game == game
    assert policy_exploitability(game, load_policy(path)) == pytest.approx(leduc_result.exploitability(), abs=1e-9)
    if suffix.endswith(".gz"):
        assert gzip.open(path, "rt").readline().startswith("#pokerbot-policy")
    streamed = tmp_path / f"streamed{suffix}"
    assert save_strategy(streamed, leduc_result.tree, leduc_result.strategy) == 936
    assert policy_exploitability(game, load_policy(streamed)) == pytest.approx(leduc_result.exploitability(), abs=1e-9)


def test_card_order_in_keys_does_not_matter() -> None:
    game = load_game("nlfh-small")
    root = State.from_betting(game, "r300c/", board_cards=parse_cards("KhTs9d"))
    tree = build_tree(game, None, root)
    import numpy as np

    rng = np.random.default_rng(0)
    strat = policy_to_strategy(tree, {})
    strat[:] = rng.random(tree.num_slots)
    pol = strategy_to_policy(tree, strat)
    shuffled = {}
    for key, dist in pol.items():
        cards, _, betting = key.partition(":")
        hole, board = cards.split("/", 1)
        shuffled[hole[2:] + hole[:2] + "/" + board[4:] + board[:4] + ":" + betting] = dist
    assert np.allclose(policy_to_strategy(tree, shuffled), policy_to_strategy(tree, pol))


def test_missing_infosets_play_uniformly_and_bad_entries_raise() -> None:
    game = load_game("kuhn")
    tree = build_tree(game)
    assert policy_exploitability(game, {"Ks:": {"c": 1.0}}) == pytest.approx(
        policy_exploitability(game, {"Ks:": {"c": 1.0}, "As:": {"c": 0.5, "r": 0.5}}), abs=1e-12
    )
    # Unnormalised entries are renormalised.
    assert policy_exploitability(game, {"Ks:": {"c": 2.0, "r": 2.0}}) == pytest.approx(policy_exploitability(game, {}))
    with pytest.raises(SolverError, match="not in the bet menu"):
        policy_exploitability(game, {"Ks:": {"r500": 1.0}})
    with pytest.raises(SolverError, match="probability"):
        policy_exploitability(game, {"Ks:": {"c": -0.5, "r": 1.5}})
    with pytest.raises(SolverError, match="sum to zero"):
        policy_exploitability(game, {"Ks:": {"c": 0.0}})
    with pytest.raises(SolverError, match="no entry"):
        policy_to_strategy(tree, {}, default="error")


@pytest.mark.parametrize(
    "text,match",
    [
        ("hello\n", "first line"),
        ("#pokerbot-policy 1\nKs\tc=1\n", "no ':'"),
        ("#pokerbot-policy 1\nKs:\tc1\n", "bad action field"),
        ("#pokerbot-policy 1\nKs:\tc=x\n", "bad action field"),
        ("#pokerbot-policy 1\nKs:\tc=1\nKs:\tc=1\n", "twice"),
        ("#pokerbot-policy 1\n#gamedef GAMEDEF\n#gamedef numRounds = 9\n", "gamedef"),
    ],
)
def test_malformed_files_name_the_problem(tmp_path, text: str, match: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(CheckpointError, match=match):
        load_policy(path)
    with pytest.raises(CheckpointError, match="cannot read"):
        load_policy(tmp_path / "missing.txt")


def test_commands(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "kuhn.txt"
    assert main(["solve", "kuhn", "--iterations", "300", "--eval-every", "100", "--out", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    assert "iteration 100: exploitability" in text and "iteration 300" in text
    final = float(text.split("exploitability ")[-1].split(" mbb/g")[0])
    assert main(["exploitability", "kuhn", str(out)]) == 0
    shown = float(capsys.readouterr().out.split("exploitability: ")[1].split(" mbb/g")[0])
    assert shown == pytest.approx(final, rel=1e-5)
    # No-limit: the file records its menu, so the second command rebuilds the same tree.
    out_nl = tmp_path / "lnl.txt.gz"
    assert main(["solve", "leduc-nl", "--algorithm", "dcfr", "--iterations", "50", "--bet-sizes", "1",
                 "--max-raises", "2", "--out", str(out_nl), "-q"]) == 0
    final = float(capsys.readouterr().out.split("exploitability ")[-1].split(" mbb/g")[0])
    assert main(["exploitability", "leduc-nl", str(out_nl)]) == 0
    shown = float(capsys.readouterr().out.split("exploitability: ")[1].split(" mbb/g")[0])
    assert shown == pytest.approx(final, rel=1e-5)
    assert main(["solve", "kuhn", "--algorithm", "cfr", "--iterations", "0", "-q"]) == 1
    assert capsys.readouterr().err == "pokerbot solve: error: --iterations must be in 1..1000000000000, got 0\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("nonsense\n")
    assert main(["exploitability", "kuhn", str(bad)]) == 1


def test_checkpoint_resume_is_exact(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from pokerbot.solver import Solver

    tree = build_tree(load_game("leduc"))
    straight = Solver(tree, "dcfr")
    straight.run(40)
    first = Solver(tree, "dcfr")
    first.run(15)
    first.save_checkpoint(tmp_path / "c.npz")
    resumed = Solver(tree, "dcfr")
    resumed.load_checkpoint(tmp_path / "c.npz")
    resumed.run(25)
    assert resumed.iteration == 40
    assert (resumed.average_strategy() == straight.average_strategy()).all()
    with pytest.raises(CheckpointError, match="another"):
        Solver(tree, "cfr+").load_checkpoint(tmp_path / "c.npz")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(CheckpointError, match="cannot read"):
        Solver(tree, "dcfr").load_checkpoint(tmp_path / "junk.npz")
    # The command resumes where it stopped.
    ck = tmp_path / "cmd.npz"
    assert main(["solve", "kuhn", "--iterations", "100", "--checkpoint", str(ck), "-q"]) == 0
    capsys.readouterr()
    assert main(["solve", "kuhn", "--iterations", "150", "--checkpoint", str(ck), "-q"]) == 0
    text = capsys.readouterr().out
    assert "resumed from" in text and "150 iterations" in text


@pytest.mark.parametrize("content", [b"garbage", b"PK\x03\x04truncated zip", b""])
def test_corrupt_checkpoint_is_refused_with_a_typed_error(tmp_path, content: bytes) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.npz"
    path.write_bytes(content)
    solver = Solver(build_tree(load_game("kuhn")), "cfr+")
    with pytest.raises(CheckpointError, match="cannot read solver checkpoint"):
        solver.load_checkpoint(path)
    assert solver.iteration == 0
