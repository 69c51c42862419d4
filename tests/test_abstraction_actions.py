"""Bet menus (pot fractions, raise depth, min-raise and stack limits) and pseudo-harmonic translation."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abstraction.actions import fraction_of_raise, raise_size_for_fraction
from abstraction.translation import pseudo_harmonic, translate, translation_probabilities
from pokerbot.errors import IllegalActionError
from pokerbot.gamedef import load_game
from pokerbot.menus import PotFractionMenu
from pokerbot.state import CALL, FOLD, RAISE, ActionType, State, raise_to

HUNL = load_game("hunl")


def labels(actions):
    return [str(a) for a in actions]


def test_pot_fraction_convention():
    s = State.initial(HUNL)  # SB 50 / BB 100, small blind to act: pot after calling = 200
    assert raise_size_for_fraction(s, 1.0) == 300
    assert raise_size_for_fraction(s, 0.5) == 200
    s = s.apply(raise_to(300))  # BB faces 300: pot after calling = 600, pot raise to 900
    assert raise_size_for_fraction(s, 1.0) == 900
    assert fraction_of_raise(s, 900) == pytest.approx(1.0)


def test_tiny_menu_on_hunl():
    menu = PotFractionMenu.tiny()
    s = State.initial(HUNL)
    assert labels(menu(s)) == ["f", "c", "r300", "r20000"]
    s = s.apply(raise_to(300))
    assert labels(menu(s)) == ["f", "c", "r900", "r20000"]
    s = s.apply(raise_to(900))
    assert labels(menu(s)) == ["f", "c", "r20000"]  # depth 2: all-in only
    s = s.apply(CALL)  # flop, nobody has bet: no fold
    assert labels(menu(s)) == ["c", "r2700", "r20000"]


def test_min_raise_clamp_and_dedup():
    menu = PotFractionMenu({0: [[0.1, 0.2, 1.0]]})
    s = State.initial(HUNL)
    # 0.1 and 0.2 of 200 are below the minimum raise-to of 200: both clamp to 200, once
    assert labels(menu(s)) == ["f", "c", "r200", "r300", "r20000"]
    # stack limit: a big raise becomes all-in, merged with the all-in entry
    s = State.from_betting(HUNL, "r8000")
    assert labels(PotFractionMenu({0: [[1.0, 3.0]]})(s)) == ["f", "c", "r20000"]
    # no raise left when the opponent is all-in
    s = State.from_betting(HUNL, "r20000")
    assert labels(menu(s)) == ["f", "c"]
    # without all-in
    assert labels(PotFractionMenu({0: [[1.0]]}, allin=False)(State.initial(HUNL))) == ["f", "c", "r300"]


def test_depth_and_round_fallback():
    menu = PotFractionMenu({0: [[1.0], [2.0]], 2: [[0.5]]})
    assert menu.fractions_at(0, 0) == (1.0,)
    assert menu.fractions_at(0, 5) == (2.0,)  # deeper than listed: the last list
    assert menu.fractions_at(1, 0) == (1.0,)  # round 1 falls back to round 0
    assert menu.fractions_at(3, 0) == (0.5,)
    d = PotFractionMenu.default()
    assert len(d.fractions_at(1, 0)) == 4 and d.fractions_at(1, 3) == ()


def _check_limit_menus(menu) -> None:  # type: ignore[no-untyped-def]
    for name in ("leduc", "hulhe", "kuhn"):
        s = State.initial(load_game(name))
        expected = [FOLD, CALL, RAISE] if s.can_fold() else [CALL, RAISE]  # hulhe: the small blind may fold
        assert menu(s) == expected, name


def test_limit_games_get_every_legal_kind():
    _check_limit_menus(PotFractionMenu.default())
    with pytest.raises(AssertionError, match="hulhe"):  # negative control: a menu that never folds fails
        _check_limit_menus(lambda s: [CALL, RAISE])
    s = State.initial(load_game("kuhn"))
    assert PotFractionMenu.tiny()(s) == [CALL, RAISE]


def test_bad_menus_are_rejected():
    with pytest.raises(IllegalActionError, match="positive"):
        PotFractionMenu({0: [[0.0]]})
    with pytest.raises(IllegalActionError, match="round 0"):
        PotFractionMenu({1: [[1.0]]})


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(["hunl", "leduc-nl", "nlfh-small"]))
def test_menu_actions_are_always_legal_along_random_play(rnd, game_name):
    game = load_game(game_name)
    for menu in (PotFractionMenu.tiny(), PotFractionMenu.default(), PotFractionMenu.large()):
        s = State.initial(game)
        while not s.finished:
            acts = menu(s)
            assert acts and all(s.is_legal(a) for a in acts)
            assert len(set(acts)) == len(acts)
            sizes = [a.size for a in acts if a.kind == ActionType.RAISE]
            assert sizes == sorted(sizes)
            b = s.raise_bounds()
            if b is not None:
                assert sizes[-1] == b[1]  # all-in is always offered
            assert (FOLD in acts) == s.can_fold()
            s = s.apply(rnd.choice(acts))


# --- pseudo-harmonic mapping -------------------------------------------------------------


def test_pseudo_harmonic_boundaries_and_known_values():
    assert pseudo_harmonic(0.5, 1.0, 0.5) == 1.0
    assert pseudo_harmonic(0.5, 1.0, 1.0) == 0.0
    assert pseudo_harmonic(1.0, 3.0, 2.0) == pytest.approx(1 / 3)  # (3-2)(1+1)/((3-1)(1+2))
    assert pseudo_harmonic(0.0, 1.0, 0.5) == pytest.approx(1 / 3)
    assert pseudo_harmonic(2.0, 2.0, 2.0) == 1.0
    with pytest.raises(IllegalActionError, match="outside"):
        pseudo_harmonic(0.5, 1.0, 1.5)
    with pytest.raises(IllegalActionError, match="a <= b"):
        pseudo_harmonic(1.0, 0.5, 0.7)


@settings(max_examples=200, deadline=None)
@given(
    st.floats(0.0, 10.0),
    st.floats(0.01, 10.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_pseudo_harmonic_axioms(a, width, t1, t2):
    b = a + width
    x1, x2 = a + t1 * width, a + t2 * width
    x1, x2 = min(max(x1, a), b), min(max(x2, a), b)
    p1, p2 = pseudo_harmonic(a, b, x1), pseudo_harmonic(a, b, x2)
    assert 0.0 <= p1 <= 1.0
    if x1 < x2:
        assert p1 >= p2  # monotonically decreasing in x
    # robustness: small changes of x change the probability little (Lipschitz on [a, b])
    assert abs(p1 - p2) <= abs(x1 - x2) * (1 + a) * (1 + b) / ((b - a) * (1 + a) ** 2) + 1e-9
    # it is the harmonic-type formula, not linear: (1+a)/(1+x) times the linear mapping, so at most it
    if a < x1 < b:
        assert p1 <= (b - x1) / (b - a) + 1e-12


def test_translation_is_scale_invariant():
    """The same bet in pot fractions maps the same way whatever the chip scale."""
    small = load_game("hunl")
    big = small.__class__(**{**small.__dict__, "stack": (40000, 40000), "blind": (200, 100)})
    menu = PotFractionMenu({0: [[0.5, 2.0]]})
    p_small = translation_probabilities(State.initial(small), raise_to(400), menu)
    p_big = translation_probabilities(State.initial(big), raise_to(800), menu)
    assert [a.size * 2 for a, _ in p_small] == [a.size for a, _ in p_big]
    assert [p for _, p in p_small] == pytest.approx([p for _, p in p_big])


def test_translate_maps_onto_menu_with_the_right_frequencies():
    menu = PotFractionMenu.tiny()
    s = State.initial(HUNL)  # menu raises: r300 (fraction 1) and r20000 (fraction 99.5)
    opts = translation_probabilities(s, raise_to(1000), menu)
    p = pseudo_harmonic(1.0, fraction_of_raise(s, 20000), fraction_of_raise(s, 1000))
    assert [str(a) for a, _ in opts] == ["r300", "r20000"] and opts[0][1] == pytest.approx(p)
    rng = np.random.default_rng(5)
    counts = Counter(str(translate(s, raise_to(1000), menu, rng)) for _ in range(4000))
    assert abs(counts["r300"] / 4000 - p) < 0.03
    # same seed, same mapping
    a = [str(translate(s, raise_to(1000), menu, random.Random(9))) for _ in range(5)]
    b = [str(translate(s, raise_to(1000), menu, random.Random(9))) for _ in range(5)]
    assert a == b
    # menu sizes and non-raises map to themselves; below the smallest raise, bracketed by call
    # (r200 is half a pot: call with f(0, 1, 0.5) = 1/3); above the largest, to the largest
    assert translate(s, raise_to(300), menu, rng) == raise_to(300)
    opts = translation_probabilities(s, raise_to(200), menu)
    assert [str(a) for a, _ in opts] == ["c", "r300"] and opts[0][1] == pytest.approx(1 / 3)
    assert translate(s, CALL, menu, rng) == CALL and translate(s, FOLD, menu, rng) == FOLD
    leduc = State.initial(load_game("leduc"))
    assert translate(leduc, RAISE, menu, rng) == RAISE
    with pytest.raises(IllegalActionError, match="not legal"):
        translate(s, raise_to(20001), menu, rng)
