"""Match runner and statistics: in-process equals over ACPC, duplicate mode, CIs, aborts, CLI."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from evaluation.match import MatchAborted, baseline_demo, play_match
from evaluation.stats import mean_ci, to_mbb, win_rate
from pokerbot.agent import Agent
from pokerbot.bots import make_agent
from pokerbot.cli import main
from pokerbot.gamedef import load_game
from pokerbot.protocol.log import read_log
from pokerbot.state import CALL


def _lines(path) -> list[str]:  # type: ignore[no-untyped-def]
    with open(path) as f:
        return [line for line in f if not line.startswith("#")]


@pytest.mark.parametrize("game_name", ["hunl", "leduc", "hulhe"])
def test_in_process_and_over_acpc_play_the_same_hands(game_name: str, tmp_path) -> None:
    game = load_game(game_name)
    results = []
    for over in (False, True):
        log = tmp_path / f"{over}.log"
        r = play_match(make_agent("random", game, 1), make_agent("equity?samples=40", game, 2), game, 60, seed=8,
                       log_path=log, progress=False, over_acpc=over)
        results.append((r, _lines(log)))
    (local, local_log), (acpc, acpc_log) = results
    assert local_log == acpc_log
    assert np.array_equal(local.chips, acpc.chips)
    parsed = read_log(game, tmp_path / "False.log")
    assert [h.value_of("random") for h in parsed.hands] == list(local.chips)
    assert parsed.score["random"] == local.chips.sum()


def test_duplicate_mode_replays_each_deal_with_seats_swapped(tmp_path) -> None:
    game = load_game("hunl")
    r = play_match(make_agent("call", game), make_agent("call", game), game, 40, seed=1, duplicate=True,
                   log_path=tmp_path / "d.log", progress=False)
    log = read_log(game, tmp_path / "d.log")
    for a, b in zip(log.hands[::2], log.hands[1::2]):
        assert a.state.hole_cards == b.state.hole_cards and a.state.board_cards == b.state.board_cards
    # Two identical deterministic bots: every pair cancels exactly, so the CI over pairs is 0.
    pairs = r.chips.reshape(-1, 2).sum(axis=1)
    assert np.all(pairs == 0) and r.mbb == 0 and r.ci95 == 0
    assert r.win_rate.hands == 40
    with pytest.raises(Exception, match="even number"):
        play_match(make_agent("call", game), make_agent("call", game), game, 41, seed=1, duplicate=True,
                   progress=False)


class _PerHandRandom(Agent):
    """Picks a legal action kind at random from a generator drawn per hand (``hand_rng``), and logs its hand ids."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.hand_ids: list[int] = []

    def act(self, view):  # type: ignore[no-untyped-def]
        from pokerbot.agent import hand_rng
        from pokerbot.state import Action, ActionType

        self.hand_ids.append(view.state.hand_id)
        rng = hand_rng(self.seed, view)
        for _ in range(len(view.state.actions())):
            rng.random()  # a different draw at each decision of the hand
        kinds = view.state.legal_kinds()
        kind = kinds[int(rng.integers(len(kinds)))]
        bounds = view.state.raise_bounds()
        return Action(kind, bounds[0] if kind == ActionType.RAISE and bounds else 0)


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_match_played_in_pieces_is_the_long_match(duplicate: bool, tmp_path) -> None:
    """first_hand: pieces of a match have the long match's cards, seats and hand ids, so their chips concatenate
    to the long match's, hand for hand; a per-hand-random agent plays them identically."""
    game = load_game("leduc-nl")
    whole = play_match(_PerHandRandom(1), _PerHandRandom(2), game, 60, seed=5, duplicate=duplicate, progress=False)
    pieces = [play_match(_PerHandRandom(1), _PerHandRandom(2), game, n, seed=5, duplicate=duplicate, progress=False,
                         first_hand=lo, log_path=tmp_path / f"{lo}.log") for lo, n in ((0, 20), (20, 30), (50, 10))]
    assert np.array_equal(np.concatenate([p.chips for p in pieces]), whole.chips)
    assert np.count_nonzero(whole.chips) > 30  # the agents do play: not a run of zeros that would pass anyway
    log = read_log(game, tmp_path / "20.log")
    assert [h.hand_id for h in log.hands] == list(range(20, 50))
    shifted = play_match(_PerHandRandom(1), _PerHandRandom(2), game, 20, seed=5, duplicate=duplicate,
                         progress=False, first_hand=2)
    assert not np.array_equal(shifted.chips, whole.chips[:20])  # negative control: the offset matters
    with pytest.raises(Exception, match="first_hand"):
        play_match(_PerHandRandom(1), _PerHandRandom(2), game, 10, seed=5, duplicate=True, progress=False,
                   first_hand=3 if duplicate else -1)


def test_duplicate_reduces_variance() -> None:
    game = load_game("leduc")
    plain = play_match(make_agent("equity?samples=50", game, 1), make_agent("call", game), game, 600, 3, progress=False)
    dup = play_match(make_agent("equity?samples=50", game, 1), make_agent("call", game), game, 600, 3,
                     duplicate=True, progress=False)
    assert dup.ci95 < plain.ci95


def test_stats_against_a_direct_computation() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 10.0, size=500)
    mean, half = mean_ci(x)
    n = len(x)
    sd = math.sqrt(sum((v - sum(x) / n) ** 2 for v in x) / (n - 1))
    assert mean == pytest.approx(sum(x) / n)
    assert half == pytest.approx(1.959964 * sd / math.sqrt(n), rel=1e-6)
    game = load_game("hunl")
    assert to_mbb(1.0, game) == 10.0 and to_mbb(1.0, load_game("kuhn")) == 1000.0
    wr = win_rate(x, game)
    assert wr.mbb == pytest.approx(10 * mean) and wr.ci95 == pytest.approx(10 * half)
    assert mean_ci([5.0])[1] == math.inf
    # Coverage: the 95% interval holds the true mean about 95% of the time.
    covered = 0
    for _ in range(400):
        m, h = mean_ci(rng.normal(1.0, 2.0, 100))
        covered += abs(m - 1.0) <= h
    assert 0.91 <= covered / 400 <= 0.99


class Crasher(Agent):
    name = "crasher"

    def __init__(self, after: int) -> None:
        self.after = after
        self.seen = 0

    def act(self, view):  # type: ignore[no-untyped-def]
        self.seen += 1
        if self.seen > self.after:
            raise RuntimeError("boom")
        return CALL


@pytest.mark.parametrize("over_acpc", [False, True])
def test_aborted_match_keeps_finished_hands(over_acpc: bool, tmp_path) -> None:
    game = load_game("kuhn")
    log = tmp_path / "a.log"
    with pytest.raises(MatchAborted) as info:
        play_match(Crasher(15), make_agent("call", game), game, 100, seed=0, log_path=log, progress=False,
                   over_acpc=over_acpc, t_response_ms=2000)
    partial = info.value.result
    assert 5 <= partial.hands < 100
    parsed = read_log(game, log)
    assert len(parsed.hands) == partial.hands
    assert [h.value_of("crasher") for h in parsed.hands] == list(partial.chips)
    assert "ERROR" in parsed.comments[-1]


def test_match_and_demo_commands(tmp_path, capsys) -> None:
    log = tmp_path / "cli.log"
    assert main(["match", "equity?samples=30", "random", "--game", "leduc", "--hands", "50", "--seed", "2",
                 "--log", str(log), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "equity vs random" in out and "mbb/g" in out
    assert len(read_log(load_game("leduc"), log).hands) == 50
    assert main(["match", "call", "raise", "--game", "kuhn", "--hands", "20", "--over-acpc", "--duplicate",
                 "--no-log", "--no-progress"]) == 0
    assert "over ACPC duplicate" in capsys.readouterr().out
    buf = io.StringIO()
    r = baseline_demo("equity?samples=30", "random", game="hunl", hands=200, progress=False, out=buf)
    assert r.hands == 200 and buf.getvalue().count("mbb/g (95% CI)") == 2
    assert main(["match", "nobody", "call", "--no-log", "--no-progress"]) == 1


def test_hand_history_scores_a_log_like_the_match_result(tmp_path) -> None:
    from evaluation.hand_history import chips_of, load_history, log_win_rate

    game = load_game("leduc")
    log_path = tmp_path / "h.log"
    r = play_match(make_agent("raise", game), make_agent("random", game, 3), game, 100, seed=4,
                   duplicate=True, log_path=log_path, progress=False)
    history = load_history(game, log_path)
    assert np.array_equal(chips_of(history, "raise"), r.chips)
    assert log_win_rate(history, game, "raise", duplicate=True) == r.win_rate


def test_illegal_agent_actions_are_repaired_and_counted() -> None:
    from pokerbot.state import FOLD

    class Folder(Agent):
        name = "folder"

        def act(self, view):  # type: ignore[no-untyped-def]
            return FOLD  # illegal whenever there is nothing to call

    game = load_game("leduc")
    r = play_match(Folder(), make_agent("call", game), game, 20, seed=0, progress=False)
    assert r.hands == 20 and r.extra["repaired"][0] > 0 and r.extra["repaired"][1] == 0
