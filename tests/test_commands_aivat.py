"""``pokerbot aivat LOG --agent NAME=SPEC``: the figure :func:`evaluation.aivat.aivat_from_log` gives, and one-line
errors for a player missing from the log, an agent without a policy and malformed arguments."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evaluation.aivat import EquityValue, aivat_from_log
from evaluation.match import play_match
from pokerbot import bots
from pokerbot.agent import Agent
from pokerbot.bots import make_agent
from pokerbot.cli import build_parser, main
from pokerbot.gamedef import load_game
from pokerbot.state import CALL

SEED = 4


@pytest.fixture(scope="module")
def leduc_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A match played as ``pokerbot match random raise --game leduc --seed 4`` plays it (same agent seeds)."""
    game = load_game("leduc")
    path = tmp_path_factory.mktemp("aivat") / "leduc.log"
    play_match(make_agent("random", game, 2 * SEED + 1), make_agent("raise", game, 2 * SEED + 2), game, 300,
               seed=SEED, log_path=path, progress=False)
    return path


def _score(argv: list[str]):  # type: ignore[no-untyped-def]
    from pokerbot.commands.aivat import score

    return score(build_parser().parse_args(["aivat", *argv]))


def test_the_command_gives_aivat_from_logs_figure(leduc_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = load_game("leduc")
    argv = [str(leduc_log), "--agent", "random=random", "--agent", "raise=raise", "--seed", str(SEED)]
    direct = aivat_from_log(game, leduc_log, "random", {"random": make_agent("random", game, 2 * SEED + 1),
                                                        "raise": make_agent("raise", game, 2 * SEED + 2)},
                            seed=SEED)
    cli = _score(argv)
    assert np.array_equal(cli.chips, direct.chips) and np.array_equal(cli.aivat, direct.aivat)
    assert cli.names == direct.names == ("random", "raise") and cli.known == (True, True)
    assert main(["aivat", *argv]) == 0
    out = capsys.readouterr().out
    assert f"plain {direct.plain_rate}; AIVAT {direct.aivat_rate}" in out
    assert "300 hands of leduc" in out and "random known, raise known" in out
    # Control: the figure depends on what the command is told (an unknown policy drops the decision terms).
    unknown = _score([str(leduc_log), "--agent", "raise=raise", "--player", "random", "--seed", str(SEED)])
    assert cli.known != unknown.known and not np.array_equal(cli.aivat, unknown.aivat)
    assert np.array_equal(cli.chips, unknown.chips)


def test_the_other_player_equity_value_and_duplicate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = load_game("hunl")
    path = tmp_path / "hunl.log"
    play_match(make_agent("call", game, 1), make_agent("raise", game, 2), game, 20, seed=1, duplicate=True,
               log_path=path, progress=False)
    direct = aivat_from_log(game, path, "raise", {"raise": make_agent("raise", game, 3),
                                                   "call": make_agent("call", game, 4)},
                            value_fn=EquityValue(seed=1), duplicate=True)
    argv = [str(path), "--agent", "raise=raise", "--agent", "call=call", "--value", "equity", "--duplicate",
            "--seed", "1"]
    cli = _score(argv)
    assert np.array_equal(cli.aivat, direct.aivat) and cli.duplicate
    assert main(["aivat", *argv]) == 0
    assert f"raise vs call: plain {direct.plain_rate}; AIVAT {direct.aivat_rate}" in capsys.readouterr().out


class _Silent(Agent):
    """Plays, and does not say how (``action_distribution`` is Agent's)."""

    name = "silent"

    def act(self, view):  # type: ignore[no-untyped-def]
        return CALL


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> None:
    assert main(["aivat", *argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pokerbot aivat: error: "), err
    for text in expected:
        assert text in err[0], err[0]


def test_errors_are_one_line(leduc_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    log = str(leduc_log)
    _one_line_error(capsys, [log, "--agent", "bob=random"], "no player 'bob'", "its players: raise, random")
    _one_line_error(capsys, [log, "--agent", "random=random", "--player", "carol"], "no player 'carol'")
    monkeypatch.setitem(bots.BUILTIN, "silent", lambda game=None, seed=None: _Silent())
    _one_line_error(capsys, [log, "--agent", "raise=silent"], "--agent raise=silent", "reports no policy")
    _one_line_error(capsys, [log, "--agent", "random"], "NAME=SPEC")
    _one_line_error(capsys, [log, "--agent", "random=nosuchbot"], "unknown agent 'nosuchbot'")
    _one_line_error(capsys, [log, "--agent", "random=random", "--agent", "random=call"], "given twice")
    _one_line_error(capsys, [log], "--player NAME")
    _one_line_error(capsys, [log, "--agent", "random=random", "--value", "exact"], "--value")
    _one_line_error(capsys, [log, "--agent", "random=random", "--seed", "-1"], "--seed")
    notlog = tmp_path / "notes.log"
    notlog.write_text("# name/game/hands/seed x leduc 1 0\nhello\n")
    _one_line_error(capsys, [str(notlog), "--agent", "random=random"], "not an ACPC log")
    _one_line_error(capsys, [str(tmp_path / "missing.log"), "--agent", "random=random"], "no such file")
    _one_line_error(capsys, [log, "--agent", "random=random", "--game", "hunl"], "not an ACPC log of hunl")
