"""Ranges: PioSOLVER range strings to 1,326 weights in the solver's hand order, and back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerbot.cards import format_cards, parse_cards
from pokerbot.errors import CardError, PokerbotError, SolverError
from pokerbot.gamedef import load_game
from pokerbot.ranges import (
    HANDS,
    RangeError,
    class_combos,
    format_range,
    grid_classes,
    hand_class,
    parse_range,
    range_on_board,
)
from pokerbot.solver.tree import hand_list

CLASSES = [name for row in grid_classes() for name in row]
WEIGHTS = [0.0, 0.1, 0.25, 0.5, 0.75, 0.3333, 0.0001, 1.0]


def combos(text: str) -> set[str]:
    """The nonzero combos of a range string, as card strings."""
    w = parse_range(text)
    return {format_cards(HANDS[i]) for i in np.flatnonzero(w)}


def test_hands_are_the_solvers_hand_order():
    expected = hand_list(load_game("hunl"))
    assert HANDS.dtype == np.int32 and HANDS.shape == (1326, 2)
    assert np.array_equal(HANDS, expected)
    assert not HANDS.flags.writeable


@pytest.mark.parametrize("text,count", [
    ("AA", 6), ("AKs", 4), ("AKo", 12), ("AK", 16), ("QQ+", 18), ("A5s-A2s", 16), ("KTo+", 36),
    ("22+", 78), ("99-66", 24), ("66-99", 24), ("A2s+", 48), ("AKs+", 4), ("32o+", 12), ("AA+", 6),
    ("KT+", 48), ("A5-A2", 64), ("AcKd", 1), ("KdAc", 1), ("random", 1326), ("all", 1326),
    (",".join(CLASSES), 1326), ("", 0), ("  ", 0), ("AA,,KK,", 12), ("aks", 4), ("AKS", 4),
])
def test_counts(text: str, count: int):
    w = parse_range(text)
    assert w.dtype == np.float64 and w.shape == (1326,)
    assert set(np.unique(w).tolist()) <= {0.0, 1.0}
    assert int(w.sum()) == count


def test_runs_name_the_expected_classes():
    assert combos("KTo+") == combos("KTo, KJo, KQo")
    assert combos("A5s-A2s") == combos("A5s, A4s, A3s, A2s") == combos("A2s-A5s")
    assert combos("QQ+") == combos("QQ, KK, AA")
    assert combos("99-66") == combos("66-99") == combos("99,88,77,66")
    assert combos("AK") == combos("AKs") | combos("AKo")
    assert combos("AKs") == {"AsKs", "AhKh", "AdKd", "AcKc"}
    assert combos("A5-A2") == combos("A5s-A2s") | combos("A5o-A2o")


def test_a_combo_in_either_order():
    for text in ("AcKd", "KdAc", "acKD", " AcKd : 1 "):
        w = parse_range(text)
        (i,) = np.flatnonzero(w)
        assert sorted(HANDS[i].tolist()) == sorted(parse_cards("AcKd"))
    assert combos("AsAh") == {"AsAh"} == combos("AhAs")


def test_weights_and_later_items_override():
    w = parse_range("QQ+:0.75, AA:0.5, AsAh, 99 : .25, AKs:0")
    for i in class_combos("QQ") + class_combos("KK"):
        assert w[i] == 0.75
    aa = {format_cards(HANDS[i]): w[i] for i in class_combos("AA")}
    assert aa == {"AsAh": 1.0, "AsAd": 0.5, "AsAc": 0.5, "AhAd": 0.5, "AhAc": 0.5, "AdAc": 0.5}
    assert all(w[i] == 0.25 for i in class_combos("99"))
    assert w.sum() == pytest.approx(12 * 0.75 + 1 + 5 * 0.5 + 6 * 0.25)
    # Overriding with 0 removes combos; an earlier combo is overridden by a later class.
    assert parse_range("AKs, AKs:0").sum() == 0
    assert parse_range("AcKd:0.5, AKo")[class_combos("AKo")].tolist() == [1.0] * 12
    assert parse_range("AA:1e-3")[class_combos("AA")[0]] == 0.001
    assert parse_range("AA:1")[class_combos("AA")[0]] == 1.0
    assert parse_range("random:0.5, AA").sum() == pytest.approx(1320 * 0.5 + 6)


@pytest.mark.parametrize("item", [
    "AX", "XA", "AKx", "AKsuited", "A", "AKQ", "hello", "AA KK", "100%",  # unknown tokens, rank typos
    "AcKx", "AxKd", "1cKd", "AcKdQh",  # combo typos
    "AcAc", "kHKh",  # repeated card
    "QQs", "QQo", "QQs+", "22o-55o",  # a pair with s/o
    "KAs", "KA", "2A+",  # low rank first
    "AA-KQs", "A5s-K2s", "A5s-A2o", "A5s-A2", "QQ-AKs", "QQ+-99", "AKs-AQs+", "AA-", "-AA",  # run shapes
    "AcKd+", "AcKd-AcQd", "++", "AK++",
    "AA:1.5", "AA:-0.1", "AA:x", "AA:", "AA:nan", "AA:inf", "AA:75%", "AA:0.5:0.5", "AA:1_0", ":0.5",
])
def test_errors_name_the_item(item: str):
    text = f"KK, {item}, 22"
    with pytest.raises(RangeError) as info:
        parse_range(text)
    message = str(info.value)
    assert repr(item.strip()) in message
    assert "\n" not in message
    assert isinstance(info.value, SolverError) and isinstance(info.value, ValueError)
    assert isinstance(info.value, PokerbotError)


def test_format_known_strings():
    for text in [
        "QQ+,99-66,A5s-A2s,KTo+", "22+", "AA", "AA,QQ", "KK-JJ:0.5", "AKs", "AKs,AKo", "A2s+,K2o+",
        "AA:0.3333,KK:0.0001,QQ:0.1234,JJ:1e-05", "AQs-A8s,AQo-A8o:0.25", "32s,32o", "AsAh", "AcKd:0.5",
        "QQ+,AKs,KhKd:0", "",
    ]:
        w = parse_range(text)
        formatted = format_range(w)
        assert np.array_equal(parse_range(formatted), w), text
    assert format_range(parse_range("AK")) == "AKs,AKo"
    assert format_range(parse_range("AA-KK, 66-99")) == "KK+,99-66"
    assert format_range(parse_range("AA,QQ")) == "AA,QQ"
    assert format_range(parse_range("AKs, AQs, AJs:0.5")) == "AQs+,AJs:0.5"
    assert format_range(parse_range("A5s-A2s:0.5, A3s:0.4")) == "A5s-A4s:0.5,A3s:0.4,A2s:0.5"
    assert format_range(parse_range("KK:0.5, KsKh")) == "KsKh,KsKd:0.5,KsKc:0.5,KhKd:0.5,KhKc:0.5,KdKc:0.5"
    assert format_range(parse_range("KK, KsKh:0")) == "KsKd,KsKc,KhKd,KhKc,KdKc"
    assert format_range(parse_range("random")) == "22+,A2s+,K2s+,Q2s+,J2s+,T2s+,92s+,82s+,72s+,62s+,52s+,42s+,32s," \
        "A2o+,K2o+,Q2o+,J2o+,T2o+,92o+,82o+,72o+,62o+,52o+,42o+,32o"
    assert format_range(parse_range("AA:0.12345")) == "AA:0.1235"
    assert format_range(parse_range("AA:0.99999")) == "AA"


def test_format_rejects_bad_arrays():
    for bad in (np.zeros(1325), np.zeros((2, 1326)), np.full(1326, 1.5), np.full(1326, -0.5), np.full(1326, np.nan)):
        with pytest.raises(RangeError):
            format_range(bad)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(CLASSES), st.sampled_from(WEIGHTS)))
def test_round_trip_by_class(by_class: dict[str, float]):
    w = np.zeros(1326)
    for name, weight in by_class.items():
        w[class_combos(name)] = weight
    text = format_range(w)
    assert np.array_equal(parse_range(text), w)
    assert format_range(parse_range(text)) == text
    # No item of a class-level range is a single combo.
    assert all(item[1] not in "cdhs" for item in text.split(",") if item)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 1.0), st.sampled_from([10, 10_000, 1_000_000]))
def test_round_trip_by_combo(seed: int, density: float, scale: int):
    """Weights of at most 4 significant digits come back exactly; others come back rounded to 4."""
    rng = np.random.default_rng(seed)
    w = np.where(rng.random(1326) < density, rng.integers(0, scale + 1, 1326) / scale, 0.0)
    text = format_range(w)
    expected = np.array([float(f"{x:.4g}") for x in w])
    assert np.array_equal(parse_range(text), expected)
    if scale <= 10_000:
        assert np.array_equal(expected, w)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1325), st.sampled_from(WEIGHTS)), max_size=60), st.dictionaries(
    st.sampled_from(CLASSES), st.sampled_from(WEIGHTS)))
def test_round_trip_mixed(combo_weights: list[tuple[int, float]], by_class: dict[str, float]):
    w = np.zeros(1326)
    for name, weight in by_class.items():
        w[class_combos(name)] = weight
    for i, weight in combo_weights:
        w[i] = weight
    assert np.array_equal(parse_range(format_range(w)), w)


def test_hand_class_and_class_combos():
    assert hand_class(parse_cards("AsKs")) == "AKs"
    assert hand_class(parse_cards("KsAd")) == "AKo"
    assert hand_class(parse_cards("QhQd")) == "QQ"
    assert hand_class(parse_cards("9dTc")) == "T9o"
    assert hand_class(HANDS[0]) == "AA"
    seen: list[int] = []
    for name in CLASSES:
        idx = class_combos(name)
        assert len(idx) == (6 if len(name) == 2 else 4 if name.endswith("s") else 12), name
        assert idx == sorted(idx)
        assert all(hand_class(HANDS[i]) == name for i in idx)
        seen += idx
    assert sorted(seen) == list(range(1326))
    for bad in ("AKx", "KAs", "AK", "QQs", "aks", ""):
        with pytest.raises(RangeError):
            class_combos(bad)
    for cards in ([51], [51, 51], [51, 52], [1, 2, 3]):
        with pytest.raises(CardError):
            hand_class(cards)


def test_grid_classes():
    grid = grid_classes()
    assert len(grid) == 13 and all(len(row) == 13 for row in grid)
    assert len(set(CLASSES)) == 169
    ranks = "AKQJT98765432"
    for i in range(13):
        for j in range(13):
            name = grid[i][j]
            if i == j:
                assert name == ranks[i] * 2
            elif i < j:
                assert name == ranks[i] + ranks[j] + "s"
            else:
                assert name == ranks[j] + ranks[i] + "o"
    grid[0][0] = "changed"
    assert grid_classes()[0][0] == "AA"


def test_range_on_board():
    w = parse_range("random:0.5, AA")
    board = parse_cards("AsKd2c")
    out = range_on_board(w, board)
    assert np.array_equal(w, parse_range("random:0.5, AA"))  # a copy
    blocked = np.isin(HANDS, board).any(axis=1)
    assert blocked.sum() == 1326 - 1176
    assert (out[blocked] == 0).all() and np.array_equal(out[~blocked], w[~blocked])
    assert format_range(range_on_board(parse_range("AA"), board)) == "AhAd,AhAc,AdAc"
    assert np.array_equal(range_on_board(w, []), w)
    with pytest.raises(CardError):
        range_on_board(w, [51, 51])
    with pytest.raises(CardError):
        range_on_board(w, [52])
    with pytest.raises(RangeError):
        range_on_board(np.zeros(10), [])
