"""``pokerbot match`` with an agent whose every decision raises: a failure on stderr, not a nan summary."""

from __future__ import annotations

import pytest

from pokerbot.agent import Agent
from pokerbot.cli import main
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import Action


class Boom(Agent):
    name = "boom"

    def act(self, view: MatchState) -> Action:
        raise RuntimeError("cannot decide")


def raising_agent(game: GameDef, seed: int | None = None) -> Agent:
    return Boom()


@pytest.mark.parametrize("acpc", [[], ["--over-acpc"]])
def test_a_match_with_an_agent_that_raises_fails_on_stderr(acpc: list[str], capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")
    assert main(["match", f"{__name__}:raising_agent", "call", "--game", "kuhn", "--hands", "10", "--no-log",
                 "--no-progress", *acpc]) == 1
    out, err = capsys.readouterr()
    assert "nan" not in out and "mbb/g" not in out
    lines = err.strip().splitlines()
    assert lines[-1].startswith("pokerbot match: error: match stopped after 0 hands: ") and "cannot decide" in lines[-1]
    assert "internal error" not in err and "Traceback" not in err
