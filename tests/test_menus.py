"""The one bet-menu type (pokerbot.menus): old names are aliases, presets equal the rules they replaced."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from pokerbot.errors import IllegalActionError, SolverError
from pokerbot.gamedef import load_game
from pokerbot.menus import (
    MenuError,
    PotFractionMenu,
    limit_menu,
    menu_from_spec,
    menu_spec,
    raise_size_for_fraction,
)
from pokerbot.state import CALL, FOLD, RAISE, Action, ActionType, State, raise_to

HUNL = load_game("hunl")


def labels(actions: list[Action]) -> list[str]:
    return [str(a) for a in actions]


def random_states(game_name: str, hands: int, seed: int) -> list[State]:
    """Every state of ``hands`` random hands played with a rich menu (many raise depths)."""
    rng = random.Random(seed)
    game = load_game(game_name)
    rich = PotFractionMenu({0: [[0.5, 1.0, 2.0]]}, name="rich")
    out = []
    for _ in range(hands):
        s = State.initial(game)
        while not s.finished:
            out.append(s)
            s = s.apply(rng.choice(rich(s)))
    return out


def test_old_names_are_the_one_implementation() -> None:
    import abstraction.actions as abstraction_actions
    import blueprint.abstract_game as abstract_game
    import pokerbot.menus as menus
    import pokerbot.solver as solver
    import pokerbot.solver.tree as tree

    assert tree.PotFractionMenu is solver.PotFractionMenu is menus.PotFractionMenu
    assert abstraction_actions.raise_size_for_fraction is menus.raise_size_for_fraction
    assert abstraction_actions.fraction_of_raise is menus.fraction_of_raise
    assert tree.limit_menu is menus.limit_menu
    assert tree.menu_spec is menus.menu_spec and tree.menu_from_spec is menus.menu_from_spec
    assert abstract_game.BetMenuFn is menus.BetMenuFn
    assert tree.SolverError is SolverError
    assert abstract_game.pot_allin_menu == PotFractionMenu.pot_allin()
    # One name, one meaning: the old aliases (BetMenu for the callable type in the solver, for the class
    # in the action abstraction) and the menus' copy of the action codec are gone.
    for module, name in ((abstraction_actions, "BetMenu"), (tree, "BetMenu"), (solver, "BetMenu"),
                         (menus, "action_text"), (tree, "action_text")):
        assert not hasattr(module, name), f"{module.__name__}.{name}"


def _slumbot_pot_allin(state: State) -> list[Action]:
    """slumbot2019's reference tree written out directly: one pot raise per street (two preflop), all-in."""
    out = [FOLD] if state.can_fold() else []
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is None:
        return out
    if not state.game.nolimit:
        return out + [RAISE]
    pot_raise = state.max_spent + state.pot + state.to_call()
    if state.num_raises() < (2 if state.round == 0 else 1) and bounds[0] <= pot_raise < bounds[1]:
        out.append(raise_to(pot_raise))
    return out + [raise_to(bounds[1])]


@pytest.mark.parametrize("game_name", ["hunl", "leduc-nl", "nlfh-small", "leduc"])
def test_pot_allin_preset_is_the_slumbot_tree(game_name: str) -> None:
    menu = PotFractionMenu.pot_allin()
    states = random_states(game_name, 60, seed=1)
    assert all(menu(s) == _slumbot_pot_allin(s) for s in states)
    # negative control: the tiny preset (two pot raises in every round) is another tree
    if game_name != "leduc":
        assert any(PotFractionMenu.tiny()(s) != _slumbot_pot_allin(s) for s in states)


@pytest.mark.parametrize("game_name", ["hunl", "leduc-nl"])
def test_a_flat_list_with_a_cap_is_a_round_schedule(game_name: str) -> None:
    """``(fractions, cap k)`` without all-in = the same list at depths 0..k-1, then nothing."""
    flat = PotFractionMenu((0.5, 1.0), False, 2)
    schedule = PotFractionMenu({0: [[0.5, 1.0], [0.5, 1.0], []]}, allin=False)
    states = random_states(game_name, 40, seed=2)
    assert all(flat(s) == schedule(s) for s in states)
    assert any(len(s.history[s.round]) and s.num_raises() >= 2 and s.raise_bounds() for s in states)
    # with all-in the cap matters: the schedule keeps all-in at every depth, the capped menu drops it
    capped, uncapped = PotFractionMenu((1.0,), True, 1), PotFractionMenu({0: [[1.0], []]})
    deep = [s for s in states if s.num_raises() >= 1 and s.raise_bounds() is not None]
    assert deep and all(uncapped(s)[-1] == raise_to(s.raise_bounds()[1]) for s in deep)  # type: ignore[index]
    assert all(all(a.kind != ActionType.RAISE for a in capped(s)) for s in deep)
    after_cap = PotFractionMenu((1.0,), True, 1, all_in_after_cap=True)
    assert all(after_cap(s) == uncapped(s) for s in states)


def test_sizes_use_the_one_pot_fraction_formula() -> None:
    s = State.initial(HUNL).apply(raise_to(300))  # pot after calling 600: a pot raise goes to 900
    assert raise_size_for_fraction(s, 1.0) == 900 and raise_size_for_fraction(s, 0.5) == 600
    for menu in (PotFractionMenu((0.5, 1.0)), PotFractionMenu({0: [[0.5], [0.5, 1.0]]})):
        assert labels(menu(s)) == ["f", "c", "r600", "r900", "r20000"]
    assert PotFractionMenu.tiny().raise_sizes(s) == [900, 20000]


def test_limit_games_and_finished_hands() -> None:
    for name in ("leduc", "hulhe", "kuhn"):
        s = State.initial(load_game(name))
        for menu in (PotFractionMenu(), PotFractionMenu.default(), PotFractionMenu.pot_allin()):
            assert menu(s) == limit_menu(s) == ([FOLD, CALL, RAISE] if s.can_fold() else [CALL, RAISE])
    done = State.initial(HUNL).apply(FOLD)
    assert PotFractionMenu()(done) == [] == limit_menu(done)


def test_specs_round_trip_and_keep_the_old_lines() -> None:
    menus = [PotFractionMenu(), PotFractionMenu((), True, 1), PotFractionMenu((0.33, 2.5), False, 4),
             PotFractionMenu((1.0,), True, 2, all_in_after_cap=True), PotFractionMenu.tiny(), PotFractionMenu.default(),
             PotFractionMenu.pot_allin(), PotFractionMenu({0: [[1.0]], 2: [[0.5], []]}, False, 3)]
    for m in menus:
        spec = menu_spec(m)
        assert spec is not None and menu_from_spec(spec) == m, spec
    # lines written by strategy files before the menus were one type read back as before
    assert menu_from_spec("pot 0.5,1 all_in=1 max_raises=3 all_in_after_cap=0") == PotFractionMenu((0.5, 1.0), True, 3)
    assert menu_spec(PotFractionMenu()) == "pot 0.5,1 all_in=1 max_raises=3 all_in_after_cap=0"
    assert menu_from_spec("limit") is limit_menu and menu_spec(lambda s: [CALL]) is None
    assert menu_spec(PotFractionMenu.tiny()) == "pot r0=1/1/- all_in=1 max_raises=none all_in_after_cap=0"
    for bad in ("geometric 2", "pot", "pot r0=1 0.5", "pot rx=1"):
        with pytest.raises(MenuError, match="bet menu description"):
            menu_from_spec(bad)


def test_bad_menus_raise_both_old_error_types() -> None:
    for bad in (lambda: PotFractionMenu((0.0,)), lambda: PotFractionMenu({0: [[1.0], [-1.0]]}),
                lambda: PotFractionMenu((1.0,), True, -1)):
        with pytest.raises(MenuError, match="positive|>= 0") as info:
            bad()
        assert isinstance(info.value, SolverError) and isinstance(info.value, IllegalActionError)
    with pytest.raises(MenuError, match="round 0"):
        PotFractionMenu({1: [[1.0]]})
    with pytest.raises(MenuError, match="non-negative int"):
        PotFractionMenu({0: [[1.0]], True: [[1.0]]})
    with pytest.raises(MenuError, match="at least one round"):
        PotFractionMenu({})


def test_menus_compare_by_content_and_hash() -> None:
    assert PotFractionMenu({0: [[1.0], [1.0], []]}) == PotFractionMenu.tiny()  # the name is a label only
    assert PotFractionMenu.tiny() != PotFractionMenu.pot_allin()
    assert PotFractionMenu((0.5, 1)) != PotFractionMenu((0.5, 1), max_raises=None)
    calls = []

    @lru_cache(maxsize=None)
    def built(menu: PotFractionMenu) -> int:
        calls.append(menu)
        return len(calls)

    assert built(PotFractionMenu.default()) == built(PotFractionMenu.default()) == 1
    assert PotFractionMenu.tiny().allin is True and PotFractionMenu.default().fractions_at(1, 3) == ()
