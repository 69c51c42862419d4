"""The real-to-abstract mapping (blueprint.mapping): exact on the tree, bracketed translation off it, never off it.

Trees only (no training): HUNL and no-limit Leduc under the tiny, default and
pot/all-in menus, and small-deck flop hold'em.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstraction.actions import fraction_of_raise
from abstraction.translation import pseudo_harmonic
from blueprint.abstract_game import DECISION, AbstractGame, pot_allin_menu
from blueprint.mapping import MappingError, TreeMapper
from pokerbot.gamedef import load_game
from pokerbot.menus import PotFractionMenu
from pokerbot.state import CALL, FOLD, ActionType, State, raise_to
from tests.conftest import random_action

HUNL = load_game("hunl")
MENUS = {"tiny": PotFractionMenu.tiny(), "default": PotFractionMenu.default(), "pot_allin": pot_allin_menu,
         "large": PotFractionMenu.large()}
TREES = [("hunl", "tiny"), ("hunl", "pot_allin"), ("hunl", "large"), ("leduc-nl", "tiny"), ("leduc-nl", "default"),
         ("nlfh-small", "tiny")]


@cache
def tree_of(game: str, menu: str) -> AbstractGame:
    g = load_game(game)
    return AbstractGame.build(g, (1,) * g.num_rounds, MENUS[menu])


def slot_of(tree: AbstractGame, node: int, text: str) -> int:
    return [str(a) for a in tree.actions(node)].index(text)


def stands_for(tree: AbstractGame, node: int, real: State) -> bool:
    """Written here, apart from TreeMapper.fits: a decision node of the real round and player to act."""
    return (tree.kind[node] == DECISION and tree.round[node] == real.round
            and tree.player[node] == real.current_player)


# -- on the tree, the mapping is the identity -------------------------------------------------------


@pytest.mark.parametrize("game,menu", TREES)
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_lines_of_the_tree_map_onto_themselves(game: str, menu: str, seed: int):
    tree = tree_of(game, menu)
    rnd = random.Random(seed)
    me = rnd.choice([None, 0, 1])
    mapper = TreeMapper(tree, rng=seed)
    real, node = State.initial(tree.game), 0
    while tree.kind[node] == DECISION:
        slot = rnd.randrange(int(tree.num_actions[node]))
        real, node = real.apply(tree.actions(node)[slot]), tree.children(node)[slot]
        pos = mapper.follow(real, me=me)
        assert (pos.node, pos.exact, pos.translated, pos.nearest) == (node, True, 0, 0)
        assert pos.state.actions() == real.actions()


# -- translation bracketed by check/call ------------------------------------------------------------


def test_a_raise_below_the_smallest_size_maps_to_call_or_that_size():
    tree = tree_of("hunl", "tiny")
    root = State.initial(HUNL)
    mapper = TreeMapper(tree, rng=7)
    call, pot = slot_of(tree, 0, "c"), slot_of(tree, 0, "r300")
    # an open to 250 is 0.75 of the pot; the smallest menu raise (r300) is 1 pot, check/call is 0
    p = pseudo_harmonic(0.0, 1.0, 0.75)
    assert p == pytest.approx(1 / 7)
    assert mapper.options(root, raise_to(250)) == [(call, pytest.approx(p)), (pot, pytest.approx(1 - p))]
    n = 4000
    as_call = 0
    for _ in range(n):
        mapper.reset()
        pos = mapper.follow(root.apply(raise_to(250)))
        assert pos.translated == 1 and pos.nearest == 0 and not pos.exact
        as_call += pos.node == tree.children(0)[call]
    assert abs(as_call / n - p) < 4 * np.sqrt(p * (1 - p) / n)
    # read as a limp: the big blind's abstract pot raise keeps its pot fraction in the real pot
    mapper.reset()
    real = root.apply(raise_to(250))
    while mapper.follow(real).node != tree.children(0)[call]:
        mapper.reset()
    assert mapper.position.state.betting_string() == "c"
    assert [str(a) for a in mapper.real_actions(real)] == ["c", "r750", "r20000"]  # abstract: c, r300, r20000
    # pot fraction 1 in the abstract state (r300 after a limp) is fraction 1 in the real one (r750 facing r250)
    assert fraction_of_raise(real, 750) == fraction_of_raise(mapper.position.state, 300) == 1.0


def test_a_min_raise_after_two_raises_is_mostly_read_as_a_call():
    """The issue's case: r300 r900 then a min-raise to r1500; the menu offers only all-in there."""
    tree = tree_of("hunl", "tiny")
    before = State.from_betting(HUNL, "r300r900")
    real = before.apply(raise_to(1500))
    opened = tree.children(0)[slot_of(tree, 0, "r300")]
    node = tree.children(opened)[slot_of(tree, opened, "r900")]
    assert [str(a) for a in tree.actions(node)] == ["f", "c", "r20000"]
    mapper = TreeMapper(tree, rng=3)
    mapper.follow(before)
    assert mapper.position.node == node
    x, allin = fraction_of_raise(before, 1500), fraction_of_raise(before, 20000)
    p_call = pseudo_harmonic(0.0, allin, x)
    assert p_call == pytest.approx(0.726, abs=1e-3)
    assert mapper.options(before, raise_to(1500)) == [(1, pytest.approx(p_call)), (2, pytest.approx(1 - p_call))]
    # read as a call, the abstract preflop is over while the real one is not: that child does not fit
    call_child = tree.children(node)[1]
    assert not mapper.fits(call_child, real) and not stands_for(tree, call_child, real)
    # so the position is the facing-all-in node ~27% of the time, else the nearest abstract state
    allin_child = tree.children(node)[2]
    n, to_allin = 2000, 0
    for _ in range(n):
        mapper.reset()
        pos = mapper.follow(real)
        assert stands_for(tree, pos.node, real) and pos.translated == 1
        if pos.node == allin_child:
            to_allin += 1
            assert pos.nearest == 0
        else:
            assert pos.nearest == 1
            assert pos.state.betting_string() == "cr300r900"  # facing a pot raise with a pot raise in: 300 vs 900
    assert abs(to_allin / n - (1 - p_call)) < 4 * np.sqrt(p_call * (1 - p_call) / n)


def test_allin_maps_to_allin_and_overbets_to_the_largest_size():
    tree = tree_of("hunl", "default")
    mapper = TreeMapper(tree, rng=0)
    root = State.initial(HUNL)
    acts = [str(a) for a in tree.actions(0)]
    assert mapper.options(root, raise_to(20000)) == [(acts.index("r20000"), 1.0)]
    big = mapper.options(root, raise_to(15000))  # between 2 pots (r500) and all-in
    assert [s for s, _ in big] == [acts.index("r500"), acts.index("r20000")]
    assert mapper.options(root, FOLD) == [(acts.index("f"), 1.0)]
    assert mapper.options(root, CALL) == [(acts.index("c"), 1.0)]


# -- random real play: always a fitting decision node ------------------------------------------------


def play_random_hand(tree: AbstractGame, seed: int):
    """Yield (mapper, real state, me, actor) after every action of a hand of random play with any raise size.

    Player ``me`` (random seat) plays like a blueprint agent: a random abstract action at its position,
    as the real action :meth:`TreeMapper.to_real` gives.
    """
    rnd = random.Random(seed)
    me = rnd.randrange(2)
    mapper = TreeMapper(tree, rng=seed)
    real = State.initial(tree.game)
    while not real.finished:
        if real.current_player == me:
            mapper.follow(real, me=me)
            action = mapper.to_real(real, rnd.randrange(int(tree.num_actions[mapper.position.node])))
        else:
            action = random_action(real, rnd, p_fold=0.05, p_raise=0.5)
        actor = real.current_player
        real = real.apply(action)
        yield mapper, real, me, actor


@pytest.mark.parametrize("game,menu", TREES)
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_random_play_never_leaves_the_tree(game: str, menu: str, seed: int):
    tree = tree_of(game, menu)
    for mapper, real, me, _ in play_random_hand(tree, seed):
        pos = mapper.follow(real, me=me)
        assert pos.exact == (pos.state.actions() == real.actions())
        assert pos.state.actions() == mapper.state_at(pos.node).actions()
        if real.finished:
            continue
        assert stands_for(tree, pos.node, real), (real.betting_string(), pos.state.betting_string())
        for action in mapper.real_actions(real):
            assert real.is_legal(action)


def test_random_play_needs_both_translation_and_the_nearest_state():
    """The random hands above do reach both rules (so their checks are not vacuous)."""
    translated = nearest = 0
    for seed in range(200):
        for mapper, real, me, _ in play_random_hand(tree_of("hunl", "tiny"), seed):
            pos = mapper.follow(real, me=me)
        translated += pos.translated > 0
        nearest += pos.nearest > 0
    assert translated > 50 and nearest > 10, (translated, nearest)


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_own_actions_map_back_without_translation(seed: int):
    tree = tree_of("hunl", "default")
    before = 0
    for mapper, real, me, actor in play_random_hand(tree, seed):
        pos = mapper.follow(real, me=me)
        if actor == me:  # own actions never add a translation
            assert pos.translated == before
        before = pos.translated
        if pos.translated == 0 and pos.nearest == 0:
            assert pos.exact  # own raises re-derived from the abstract ones keep the real state on the tree


def test_own_raises_keep_their_pot_fraction_off_the_tree():
    tree = tree_of("hunl", "default")
    mapper = TreeMapper(tree, rng=1)
    real = State.initial(HUNL).apply(raise_to(450))  # 1.75 pots: between r400 (1.5) and r500 (2)
    pos = mapper.follow(real, me=0)
    assert not pos.exact and stands_for(tree, pos.node, real)
    bounds = real.raise_bounds()
    assert bounds is not None
    for slot, a in enumerate(tree.actions(pos.node)):
        got = mapper.to_real(real, slot)
        if a.kind != ActionType.RAISE or a.size == 20000:
            continue
        want = fraction_of_raise(pos.state, a.size)
        if bounds[0] < got.size < bounds[1]:  # not clamped: the same pot fraction, to the chip
            assert abs(fraction_of_raise(real, got.size) - want) <= 0.5 / (real.pot + real.to_call())


# -- the nearest abstract state ----------------------------------------------------------------------


@pytest.mark.parametrize("game,menu", [("hunl", "tiny"), ("leduc-nl", "default")])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_nearest_state_is_the_minimum_over_every_betting_line(game: str, menu: str, seed: int):
    """Brute force over the tree's betting strings, replayed with State (not the tree's spent arrays)."""
    tree = tree_of(game, menu)
    lines = [(n, State.from_betting(tree.game, b)) for n, b in tree.decision_nodes()]
    stack = tree.game.stack
    for mapper, real, _, _ in play_random_hand(tree, seed):
        if real.finished:
            continue
        p = real.current_player
        assert p is not None

        def distance(s: State) -> tuple[bool, float]:
            facing = s.spent[1 - p] > s.spent[p]
            return (facing != (real.spent[1 - p] > real.spent[p]),
                    sum(abs(s.spent[q] - real.spent[q]) / stack[q] for q in (0, 1)))

        same = [(n, s) for n, s in lines if s.round == real.round and s.current_player == p]
        best = min(distance(s) for _, s in same)
        got = mapper.nearest(real)
        assert stands_for(tree, got, real)
        assert distance(mapper.state_at(got)) == pytest.approx(best)


# -- seeds and bad input -------------------------------------------------------------------------------


def test_translations_are_seeded():
    tree = tree_of("hunl", "tiny")
    lines = [State.from_betting(HUNL, b) for b in ("r250", "r300r1500", "r300r900r1500", "cr250", "r300c/r450")]

    def nodes(seed: int) -> list[int]:
        mapper = TreeMapper(tree, rng=seed)
        out = []
        for _ in range(20):
            for real in lines:
                mapper.reset()
                out.append(mapper.follow(real).node)
        return out

    assert nodes(5) == nodes(5)
    assert nodes(5) != nodes(6)


def test_bad_input_is_refused():
    tree = tree_of("hunl", "tiny")
    mapper = TreeMapper(tree, rng=0)
    with pytest.raises(MappingError, match="is for hunl"):
        mapper.follow(State.initial(load_game("leduc-nl")))
    mapper.follow(State.from_betting(HUNL, "r300c/"))
    with pytest.raises(MappingError, match="does not continue"):
        mapper.follow(State.from_betting(HUNL, "cr300"))
    with pytest.raises(MappingError, match="does not continue"):
        mapper.to_real(State.from_betting(HUNL, "r300c/r600"), 0)  # not followed yet
    with pytest.raises(MappingError, match="finished"):
        mapper.nearest(State.from_betting(HUNL, "f"))
