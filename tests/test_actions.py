"""The action codec (pokerbot.actions): the one writer and reader of ACPC action text."""

from __future__ import annotations

import doctest
import random

import pytest

import pokerbot.actions
from pokerbot.actions import (
    CALL,
    FOLD,
    RAISE,
    Action,
    ActionType,
    action_from_text,
    action_text,
    betting_actions,
    betting_text,
    parse_action,
    raise_to,
)
from pokerbot.errors import BettingStringError
from pokerbot.gamedef import SHIPPED_GAMES, load_game
from pokerbot.state import State
from tests.conftest import random_action


def test_doctests_pass() -> None:
    result = doctest.testmod(pokerbot.actions)
    assert result.attempted > 0 and result.failed == 0


def test_the_state_module_offers_the_same_objects() -> None:
    import pokerbot.state as state

    assert (state.Action, state.ActionType, state.raise_to) == (Action, ActionType, raise_to)
    assert (state.FOLD, state.CALL, state.RAISE) == (FOLD, CALL, RAISE)


@pytest.mark.parametrize("name", sorted(SHIPPED_GAMES))
def test_betting_strings_round_trip_byte_for_byte(name: str) -> None:
    """Every betting string of random hands reads back to the same actions and writes back to the same text."""
    game = load_game(name)
    rng = random.Random(7)
    for _ in range(150):
        s = State.initial(game)
        while not s.finished:
            action = random_action(s, rng)
            text = action_text(action, game.nolimit)
            assert action_from_text(text, game.nolimit) == action
            assert text == str(action)
            s = s.apply(action)
            betting = s.betting_string()
            rounds = [[a for _, a in rnd] for rnd in s.history[: s.round + 1]]
            assert betting == betting_text(rounds, game.nolimit)
            assert [a for _, a in betting_actions(betting, game.nolimit)] == s.actions()
            assert State.from_betting(game, betting).betting_string() == betting


def test_the_text_of_each_kind() -> None:
    assert [action_text(a) for a in (FOLD, CALL, RAISE, raise_to(300))] == ["f", "c", "r", "r300"]
    # a limit game writes no size, even for a raise that carries one (the dealer's and the client's rule)
    assert action_text(raise_to(300), nolimit=False) == "r"
    assert betting_text([[raise_to(300), CALL], [CALL, raise_to(900), FOLD]]) == "r300c/cr900f"
    assert betting_text([[]]) == ""


def test_positions_skip_the_round_separators() -> None:
    assert [(i, str(a)) for i, a in betting_actions("r300c/cr900f", True)] == [
        (0, "r300"), (4, "c"), (6, "c"), (7, "r900"), (11, "f")]


@pytest.mark.parametrize("bad", ["", "x", "r", "r/", "rx"])
def test_garbled_text_is_refused(bad: str) -> None:
    with pytest.raises(BettingStringError):
        action_from_text(bad, True)


def test_a_label_is_one_action() -> None:
    assert parse_action("r300c", True) == (raise_to(300), 4)
    with pytest.raises(BettingStringError, match="not one action"):
        action_from_text("r300c", True)
    with pytest.raises(BettingStringError, match="not one action"):
        action_from_text("r300", False)  # a limit raise has no size


def test_betting_is_parsed_lazily() -> None:
    """An action is read only once those before it were taken (a state replay stops at the first illegal one)."""
    gen = betting_actions("cr?", False)
    assert [str(a) for _, a in (next(gen), next(gen))] == ["c", "r"]
    with pytest.raises(BettingStringError, match="unknown action character"):
        next(gen)
