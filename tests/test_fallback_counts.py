"""Fallbacks are never silent: a match's summary, a ``pokerbot eval`` report and ``pokerbot connect`` count the
decisions an agent made by its fallback (the realtime agent's: the play page test, tests/test_evaluation_play.py)."""

from __future__ import annotations

import csv
import threading
from pathlib import Path
from typing import Any

import pytest

from evaluation.aivat import play_match_aivat
from evaluation.match import play_match
from pokerbot.agent import Agent, add_counts, count_changes, fallback_note
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, Action


class Hurried(Agent):
    """Calls; its every third decision counts as a fallback (a solve out of time), the rest as solved."""

    def __init__(self, game: GameDef | None = None, seed: int | None = None, name: str = "hurried") -> None:
        self.name = name
        self.decisions = 0

    def act(self, view: MatchState) -> Action:
        self.decisions += 1
        return CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        return [(CALL, 1.0)]

    def decision_counts(self) -> dict[str, int]:
        late = self.decisions // 3
        return {"solved": self.decisions - late, "fell back: time budget": late}


def test_counts_in_words() -> None:
    assert fallback_note(None) is None and fallback_note({"solved": 3, "fell back: x": 0}) is None
    assert fallback_note({"solved": 2, "fell back": 1}) == "fell back at 1 of 3 decisions (other 1)"
    assert count_changes({"a": 5, "b": 2}, {"a": 5, "b": 1}) == {"b": 1}
    assert count_changes(None, {"a": 1}) is None
    assert add_counts(None, {"a": 1}, {"a": 2, "b": 1}) == {"a": 3, "b": 1} and add_counts(None, None) is None


def test_a_match_counts_each_agents_fallbacks_for_this_match_only() -> None:
    game = load_game("kuhn")
    hurried = Hurried()
    hurried.decisions = 30  # an earlier match's decisions: not this match's
    other = Hurried(name="other")
    result = play_match(hurried, other, game, 40, seed=1, progress=False)
    made = hurried.decisions - 30
    late = (hurried.decisions // 3) - 10
    assert result.decisions[0] == {"solved": made - late, "fell back: time budget": late}
    assert f"hurried fell back at {late} of {made} decisions (time budget {late})" in result.summary()
    assert "other fell back at" in result.summary() and "fell back at" in result._repr_html_()
    plain = play_match(Hurried(), load_agent_free(game), game, 4, seed=1, progress=False)
    assert plain.decisions[1] is None  # an agent with one way of deciding
    aivat = play_match_aivat(Hurried(), Hurried(name="b"), game, 40, seed=2, progress=False)
    assert "hurried fell back at" in aivat.summary()  # AIVAT's policy recorder passes the counts on


def load_agent_free(game: GameDef) -> Agent:
    from pokerbot.bots import make_agent

    return make_agent("call", game, seed=0)


def test_the_eval_report_counts_fallbacks_and_a_clean_run_says_nothing(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from pokerbot.cli import main

    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")
    cfg = tmp_path / "e.toml"
    cfg.write_text('name = "fb"\ngame = "kuhn"\nhands = 60\nchunk = 30\nseed = 1\naivat = false\nround_robin = true\n[agents]\n'
                   'hurried = "test_fallback_counts:Hurried"\ncall = "call"\n')
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    md = (out / "results.md").read_text()
    assert "**Fallbacks**" in md and "- hurried vs call: hurried fell back at " in md
    row = next(r for r in csv.DictReader(open(out / "results.csv")) if r["kind"] == "match")
    assert row["fallbacks"].startswith("hurried fell back at ") and "time budget" in row["fallbacks"]
    # summed over the two saved pieces: read back, the rerun's report is the same
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    assert (out / "results.md").read_text() == md
    clean = tmp_path / "clean.toml"
    clean.write_text('name = "clean"\ngame = "kuhn"\nhands = 20\nseed = 1\naivat = false\nround_robin = true\n[agents]\n'
                     'call = "call"\nraise = "raise"\n')
    assert main(["eval", str(clean), "--out", str(tmp_path / "c"), "--no-progress"]) == 0
    assert "Fallbacks" not in (tmp_path / "c" / "results.md").read_text()


def test_connect_says_how_many_decisions_fell_back(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from pokerbot.bots import make_agent
    from pokerbot.cli import main
    from pokerbot.protocol.client import play_acpc
    from pokerbot.protocol.dealer import Dealer, DealerConfig

    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")
    game = load_game("kuhn")
    dealer = Dealer(DealerConfig("m", game, 30, 3, ["hurried", "call"], log=False, quiet=True), out=io.StringIO(),
                    err=io.StringIO())
    ports = dealer.listen()
    other = threading.Thread(target=play_acpc, args=(make_agent("call", game, seed=1), game, "127.0.0.1", ports[1]),
                             kwargs={"idle_timeout": 30}, daemon=True)
    other.start()
    box: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: box.setdefault("r", dealer.play()), daemon=True)
    runner.start()
    assert main(["connect", "127.0.0.1", str(ports[0]), "--game", "kuhn", "--agent",
                 "test_fallback_counts:Hurried", "--quiet"]) == 0
    runner.join(30)
    other.join(30)
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("hurried: 30 hands") and "; fell back at " in line and "time budget" in line


def test_a_piece_with_bad_decision_counts_is_refused(tmp_path: Path) -> None:
    import numpy as np

    from evaluation.experiment import ExperimentError, _load_piece, _piece_decisions, _save_piece

    identity = {"agents": ["a", "b"], "hands": 2, "aivat": False}
    arrays = {"chips": np.array([1.0, -1.0]), "aivat": np.full(2, np.nan), "seconds": np.asarray(0.1)}
    path = tmp_path / "p.npz"
    _save_piece(path, identity, arrays, [{"solved": 2}, None])
    assert _piece_decisions(path, _load_piece(path, identity)[1]) == [{"solved": 2}, None]
    for bad in ([{"solved": -1}, None], [{"solved": 1.5}, None], [{"solved": 1}], "x"):
        _save_piece(path, identity, arrays, bad)  # type: ignore[arg-type]
        with pytest.raises(ExperimentError, match="decision counts"):
            _piece_decisions(path, _load_piece(path, identity)[1])
