"""The Agent interface: hook order and what an agent sees, the same in-process and over ACPC."""

from __future__ import annotations

import pytest

from evaluation.match import play_match
from pokerbot.agent import Agent, legal_or_call
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, FOLD, State, raise_to


class Recorder(Agent):
    def __init__(self, name: str) -> None:
        self.name = name
        self.events: list[tuple] = []

    def begin_match(self, game: GameDef) -> None:
        self.events.append(("match", game.name))

    def begin_hand(self, view: MatchState) -> None:
        s = view.state
        assert s.betting_string() == "" and not s.finished
        self.events.append(("begin", s.hand_id, view.viewer, s.hole_cards))

    def act(self, view: MatchState):  # type: ignore[no-untyped-def]
        s = view.state
        assert view.is_my_turn
        others = [h for p, h in enumerate(s.hole_cards) if p != view.viewer]
        assert all(h == () for h in others), "hidden cards leaked to an agent"
        self.events.append(("act", s.hand_id, s.betting_string(), s.visible_board))
        return CALL

    def end_hand(self, view: MatchState) -> None:
        s = view.state
        assert s.finished
        if s.is_showdown():
            assert all(len(h) == s.game.num_hole_cards for h in s.hole_cards)
        self.events.append(("end", s.hand_id, s.betting_string(), s.hole_cards, s.visible_board))


@pytest.mark.parametrize("game_name", ["kuhn", "leduc", "hunl"])
def test_hooks_in_order_and_identical_over_acpc(game_name: str) -> None:
    game = load_game(game_name)
    runs = []
    for over_acpc in (False, True):
        a, b = Recorder("a"), Recorder("b")
        play_match(a, b, game, 12, seed=2, progress=False, over_acpc=over_acpc)
        runs.append((a.events, b.events))
        for events in (a.events, b.events):
            assert events[0] == ("match", game.name)
            kinds = [e[0] for e in events[1:]]
            # per hand: begin, acts..., end
            hands = "".join("B" if k == "begin" else "E" if k == "end" else "a" for k in kinds)
            assert hands.count("B") == hands.count("E") == 12
            assert all(part.startswith("B") for part in hands.split("E")[:-1])
        # seat A is player 0 in even hands, player 1 in odd hands
        assert [e[2] for e in a.events if e[0] == "begin"] == [h % 2 for h in range(12)]
    assert runs[0] == runs[1]


def test_default_hooks_are_no_ops() -> None:
    class Minimal(Agent):
        def act(self, view):  # type: ignore[no-untyped-def]
            return CALL

    game = load_game("kuhn")
    result = play_match(Minimal(), Minimal(), game, 10, seed=0, progress=False)
    assert result.hands == 10 and result.names == ("agent-A", "agent-B")
    with pytest.raises(TypeError):
        Agent()  # type: ignore[abstract]


def test_legal_or_call() -> None:
    s = State.initial(load_game("hunl"))
    assert legal_or_call(s, raise_to(50)) == raise_to(200)
    assert legal_or_call(s, raise_to(10**9)) == raise_to(20000)
    assert legal_or_call(s, FOLD) == FOLD
    assert legal_or_call(s.apply(CALL), FOLD) == CALL  # nothing to fold to
