"""Hand features against brute-force enumeration (our evaluator) and treys on sampled hands."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from abstraction.features import (
    HALF_WINS,
    _flop_chunk,
    _river_chunk,
    _turn_chunk,
    canonical_boards,
    ehs_bruteforce,
    equity_bruteforce,
)
from abstraction.isomorphism import hand_index, num_classes
from pokerbot.cards import format_cards, parse_cards
from pokerbot.errors import CardError


@pytest.mark.parametrize("n, count", [(3, 1755), (4, 16432), (5, 134459)])
def test_canonical_boards_cover_every_board_once(n, count):
    boards, weights = canonical_boards(n)
    assert len(boards) == count
    assert int(weights.sum()) == comb(52, n)
    assert set(weights.tolist()) <= {1, 2, 3, 4, 6, 12, 24}


def treys_equity(hole, board):
    """Independent oracle: treys over every opponent hand."""
    from treys import Card, Evaluator

    ev = Evaluator()
    tc = lambda cs: [Card.new(format_cards([c])) for c in cs]  # noqa: E731
    b = tc(board)
    me = ev.evaluate(b, tc(hole))
    used = set(hole) | set(board)
    live = [c for c in range(52) if c not in used]
    score = 0.0
    n = 0
    for i in range(len(live)):
        for j in range(i + 1, len(live)):
            v = ev.evaluate(b, tc([live[i], live[j]]))
            n += 1
            score += 1.0 if me < v else 0.5 if me == v else 0.0  # treys: lower is better
    return score / n


def test_equity_bruteforce_known_value_and_treys():
    hole, board = parse_cards("AsAh"), parse_cards("2c7d9hJsKc")
    e = equity_bruteforce(hole, board)
    assert e == pytest.approx(treys_equity(hole, board), abs=1e-12)
    # the nuts on a paired board with no flush or straight possible: only quads-free, full house max
    assert equity_bruteforce(parse_cards("KhKd"), parse_cards("KsKc2h7d9s")) == pytest.approx(1.0)
    with pytest.raises(CardError):
        equity_bruteforce(parse_cards("AsAs"), board)


@pytest.mark.parametrize("random_boards", [2, pytest.param(20, marks=pytest.mark.slow)])
def test_river_sweep_matches_brute_force_and_treys(random_boards: int):
    boards, weights = canonical_boards(5)
    rng = np.random.default_rng(0)
    pick = np.concatenate([[0, len(boards) - 1], rng.integers(0, len(boards), random_boards)])
    eq = np.zeros(num_classes(3), np.uint16)  # lazily allocated zero pages
    for bi in pick:
        part = np.zeros((1, HALF_WINS + 1))
        _river_chunk(boards, weights.astype(np.int64), int(bi), int(bi) + 1, eq, np.zeros(0, np.int32), part)
        assert part.sum() == 1081 * weights[bi]
        board = boards[bi].astype(np.int64).tolist()
        live = [c for c in range(52) if c not in board]
        for _ in range(6):
            hole = rng.choice(live, 2, replace=False).tolist()
            got = eq[hand_index(3, np.array(hole + board))] / HALF_WINS
            assert got == pytest.approx(equity_bruteforce(hole, board), abs=1e-12)
        hole = live[:2]
        assert eq[hand_index(3, np.array(hole + board))] / HALF_WINS == pytest.approx(treys_equity(hole, board))


def test_turn_features_match_brute_force():
    boards, weights = canonical_boards(4)
    n = num_classes(2)
    bins = 10
    ehs = np.zeros(n, np.float32)
    ehs2 = np.zeros(n, np.float32)
    hist = np.zeros((n, bins), np.uint8)
    wt = np.zeros(n, np.int32)
    rivers = np.tile(np.arange(48, dtype=np.int64), (len(boards), 1))
    rng = np.random.default_rng(1)
    for bi in [0, int(rng.integers(len(boards))), len(boards) - 1]:
        _turn_chunk(boards, weights.astype(np.int64), bi, bi + 1, bins, rivers, ehs, ehs2, hist, wt)
        board = boards[bi].astype(np.int64).tolist()
        live = [c for c in range(52) if c not in board]
        for _ in range(4):
            hole = rng.choice(live, 2, replace=False).tolist()
            ix = hand_index(2, np.array(hole + board))
            e1, e2 = ehs_bruteforce(hole, board)
            assert ehs[ix] == pytest.approx(e1, abs=1e-6) and ehs2[ix] == pytest.approx(e2, abs=1e-6)
            # histogram of river equities, by plain enumeration
            want = np.zeros(bins, int)
            for r in live:
                if r in hole:
                    continue
                e = equity_bruteforce(hole, board + [r])
                want[min(int(round(e * HALF_WINS)) * bins // (HALF_WINS + 1), bins - 1)] += 1
            assert hist[ix].tolist() == want.tolist() and want.sum() == 46


def test_flop_ehs_matches_brute_force():
    """Flop EHS chained through exact turn EHS equals the full run-out enumeration."""
    flop = parse_cards("2d9hKs")
    live = [c for c in range(52) if c not in flop]
    n2 = num_classes(2)
    bins = 5
    tehs = np.zeros(n2, np.float32)
    tehs2 = np.zeros(n2, np.float32)
    thist = np.zeros((n2, bins), np.uint8)
    twt = np.zeros(n2, np.int32)
    turn_boards = np.array([sorted(flop + [t]) for t in live], np.int8)
    rivers = np.tile(np.arange(48, dtype=np.int64), (len(turn_boards), 1))
    _turn_chunk(turn_boards, np.ones(len(turn_boards), np.int64), 0, len(turn_boards), bins, rivers, tehs, tehs2, thist, twt)
    n1 = num_classes(1)
    fehs = np.zeros(n1, np.float32)
    fehs2 = np.zeros(n1, np.float32)
    fhist = np.zeros((n1, bins), np.uint8)
    fpot = np.zeros((n1, 1), np.uint8)
    fwt = np.zeros(n1, np.int32)
    _flop_chunk(np.array([flop], np.int8), np.ones(1, np.int64), 0, 1, tehs, tehs2, np.zeros(1, np.int32), 0, bins,
                fehs, fehs2, fhist, fpot, fwt)
    for hole in (parse_cards("AsKd"), parse_cards("9s9c")):
        ix = hand_index(1, np.array(hole + flop))
        e1, e2 = ehs_bruteforce(hole, flop)
        assert fehs[ix] == pytest.approx(e1, abs=2e-6) and fehs2[ix] == pytest.approx(e2, abs=2e-6)
        assert fhist[ix].sum() == 47


def test_ochs_groups_split_the_hands_evenly_by_preflop_equity():
    from abstraction.features import ochs_groups, preflop_equity

    eq = preflop_equity(samples=20_000)
    assert eq[hand_index(0, np.array(parse_cards("AsAh")))] == pytest.approx(0.852, abs=0.01)  # AA vs random
    assert eq[hand_index(0, np.array(parse_cards("7h2c")))] == pytest.approx(0.346, abs=0.01)  # 72o
    g = ochs_groups(8, samples=20_000)
    combos = np.zeros(8)
    for a in range(52):
        for b in range(a + 1, 52):
            combos[g[hand_index(0, np.array([a, b]))]] += 1
    assert combos.sum() == 1326 and combos.min() > 1326 / 8 - 40 and combos.max() < 1326 / 8 + 40
    # stronger hands sit in higher groups
    assert g[hand_index(0, np.array(parse_cards("AsAh")))] == 7 and g[hand_index(0, np.array(parse_cards("7h2c")))] == 0


@pytest.mark.parametrize("board", ["2c7d9hJsKc", "AhKhQhJhTh", "2s2h2d5c5h"])
def test_river_ochs_matches_brute_force(board: str):
    import itertools

    from abstraction.features import ochs_groups, river_ochs_board
    from pokerbot.evaluator import eval7

    groups = ochs_groups(8, samples=20_000)
    b = parse_cards(board)
    pairs, feat, hw = river_ochs_board(b, groups)
    live = [c for c in range(52) if c not in b]
    rng = np.random.default_rng(1)
    for k in rng.choice(len(pairs), 12, replace=False):
        x, y = (int(c) for c in pairs[k])
        mine = eval7(x, y, *b)
        half = np.zeros(8)
        count = np.zeros(8)
        for u, v in itertools.combinations(live, 2):
            if u in (x, y) or v in (x, y):
                continue
            theirs = eval7(u, v, *b)
            grp = groups[hand_index(0, np.array([u, v]))]
            half[grp] += 2 * (mine > theirs) + (mine == theirs)
            count[grp] += 1
        assert hw[k] == half.sum()  # the groups' half-wins add up to the equity's
        assert hw[k] / HALF_WINS == pytest.approx(equity_bruteforce([x, y], b), abs=1e-12)
        np.testing.assert_array_equal(feat[k], np.floor(255 * half / (2 * count) + 0.5).astype(np.uint8))
    with pytest.raises(CardError):
        river_ochs_board(b[:4] + b[:1], groups)
