"""MakeSubgame: the worked example's gadget entry by entry, the zero-margin invariant on
every game (with a negative control), resolve <-> maxmargin, reach gifts, transpositions."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg import CHANCE, Branch, EfgError, Leaf, Move, build_game, games, to_sequence, uniform_strategy
from conftest import random_behavioral
from pokerbot.efg.sequence_form import observation_values
from realtime.klss.subgame import (
    RESOLVE,
    make_subgame,
    margins,
    solve_gadget,
    to_maxmargin,
    to_resolve,
)


def _random_x(tp, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    return to_sequence(tp, random_behavioral(tp, seed))


def test_worked_example_gadget_entries() -> None:
    # Zhang & Sandholm, Appendix C.2: A[R1h,C0h]=1, A[R1t,C0t]=4, A[R1h,C2h]=2, A[R1t,C2t]=3, B[∅,C2h]=3/2,
    # B[∅,C2t]=1; alternate values -1/2 (c0') and -5/2 (c2'), the self-consistent ones (C.2's table
    # prints -5 for c2', its text 3)
    g = games.klss_example()
    gad = make_subgame(g, uniform_strategy(g.treeplex(0)), infoset=0)
    m = gad.sf.payoff[0].toarray()
    plus = gad.sf.treeplex[0].labels[0]
    minus = gad.sf.treeplex[1]
    assert plus == ("h", "t") and minus.labels[1:] == (("h", "t"), ("h", "t"))
    h, t = 1, 2  # gadget sequences of R1
    c0, c2 = 1, 2  # root actions: branch c0' and branch c2'
    c0h, c0t, c2h, c2t = 3, 4, 5, 6
    expected = np.zeros_like(m)
    expected[h, c0h], expected[t, c0t], expected[h, c2h], expected[t, c2t] = 1, 4, 2, 3
    expected[0, c2h], expected[0, c2t] = 1.5, 1.0
    expected[0, c0], expected[0, c2] = -0.5, -2.5
    assert np.allclose(m, expected)
    for q in np.linspace(0, 1, 11):
        r = np.array([1.0, q, 1 - q])
        assert np.allclose(margins(gad, r), [min(q, 4 - 4 * q) - 0.5, min(2 * q - 1, 1.5 - 3 * q)])
    sol = solve_gadget(gad)
    assert sol.value == pytest.approx(0.0, abs=1e-9)
    assert sol.strategy[1] == pytest.approx(0.5, abs=1e-7)  # the maxmargin optimum is the blueprint


CASES = [("kuhn", 1), ("kuhn", 3), ("matching-pennies", 1), ("matching-pennies", 3), ("dark-hex", 1),
         ("goofspiel-increasing", 1), ("leduc", 1)]


@pytest.mark.parametrize("name,k", CASES)
def test_blueprint_gives_every_margin_exactly_zero(name: str, k: int) -> None:
    g = games.load(name)
    tp = g.treeplex(0)
    x = _random_x(tp, 11)
    for d in range(0, tp.num_infosets, max(1, tp.num_infosets // 12)):
        gad = make_subgame(g, x, d, k)
        assert np.abs(margins(gad, gad.blueprint)).max() < 1e-12
        assert np.abs(margins(to_resolve(gad), gad.blueprint)).max() < 1e-12


def test_paper_scale_alternate_values_break_the_invariant() -> None:
    # negative control: the pseudocode's -u*(x|I0), normalised by all of I0's mass instead of D,
    # leaves non-zero margins wherever I0 reaches outside I (Appendix E line 21 with section 2's u*)
    g = games.matching_pennies(10)
    x = _random_x(g.treeplex(0), 2)
    gad = make_subgame(g, x, 3)
    vals = observation_values(g, 1, x, payoff_player=0, maximize=False)
    paper_alt = vals.values[gad.branches] / vals.mass[gad.branches]
    shifted = margins(gad, gad.blueprint) + gad.alternate - paper_alt
    assert np.abs(shifted).max() > 1e-3


def test_resolve_and_maxmargin_forms() -> None:
    g = games.leduc()
    x = _random_x(g.treeplex(0), 4)
    gad = make_subgame(g, x, 5)
    res = to_resolve(gad)
    assert res.form == RESOLVE and res.sf.treeplex[1].num_infosets == gad.sf.treeplex[1].num_infosets - 1 + gad.num_branches
    back = to_maxmargin(res)
    assert abs(back.sf.payoff[0] - gad.sf.payoff[0]).max() < 1e-15
    r = _random_x(gad.sf.treeplex[0], 5)
    assert np.allclose(margins(res, r), margins(gad, r))
    # resolve value = mean over branches of min(0, margin) at its solution; maxmargin value = smallest margin
    sol = solve_gadget(res)
    assert sol.value == pytest.approx(np.minimum(0.0, margins(res, sol.strategy)).mean(), abs=1e-7)
    assert sol.value >= -1e-9
    mm = solve_gadget(gad)
    assert mm.value == pytest.approx(margins(gad, mm.strategy).min(), abs=1e-7)
    assert mm.value >= -1e-9


def test_reach_gifts_are_non_negative_and_loosen_margins() -> None:
    g = games.kuhn()
    tp = g.treeplex(0)
    beh = np.full(tp.num_seqs, 0.5)
    for d in range(tp.num_infosets):  # player 0 always calls a bet: bluffing into her is a gift
        if tp.labels[d] == ("f", "c"):
            beh[tp.first_seq[d] : tp.first_seq[d] + 2] = (0.0, 1.0)
    x = to_sequence(tp, beh)
    later = [d for d in range(tp.num_infosets) if tp.parent_seq[d] != 0]  # after "check, bet": ⊖ moved before
    largest = 0.0
    for d in later:
        plain = make_subgame(g, x, d)
        gifted = make_subgame(g, x, d, reach=True)
        assert (gifted.gift >= 0).all()
        largest = max(largest, gifted.gift.max())
        assert np.allclose(margins(gifted, gifted.blueprint), gifted.gift)
        assert solve_gadget(gifted).value >= solve_gadget(plain).value - 1e-9
    assert largest > 0  # betting the lowest card into a sure call gives a gift
    # nothing precedes the root infosets: no gift
    assert (make_subgame(g, x, 0, reach=True).gift == 0).all()


def _twins() -> object:
    """Nature picks 1..4, only player 1 sees it, and nothing below depends on it: every
    node of player 0's infoset is a transposition of the others."""

    def expand(n):  # type: ignore[no-untyped-def]
        if n is None:
            return Branch(CHANCE, [Move(str(k), (k,), 0.25, ("", str(k))) for k in range(4)])
        if len(n) < 3:
            return Branch(len(n) - 1, [Move(a, n + (a,)) for a in "ab"])
        u = 1.0 if n[1] == n[2] else -1.0
        return Leaf((u, -u))

    return build_game("twins", None, expand)


def test_transposition_merging() -> None:
    g = _twins()
    x = to_sequence(g.treeplex(0), np.array([1.0, 0.3, 0.7]))
    plain = make_subgame(g, x, 0)
    merged = make_subgame(g, x, 0, merge_transpositions=True, rng=np.random.default_rng(0))
    assert plain.num_branches == 4 and merged.num_branches == 1
    assert solve_gadget(merged).value == pytest.approx(solve_gadget(plain).value, abs=1e-9)
    # Kuhn: holding the top card, both deals play out identically (always win a showdown): they merge,
    # the over-optimism the paper warns of in poker; holding the middle card they differ
    k = games.kuhn()
    xk = uniform_strategy(k.treeplex(0))
    key = {games.infoset_key(k, 0, d): d for d in range(k.treeplex(0).num_infosets)}
    assert make_subgame(k, xk, key["As:"], merge_transpositions=True, merge_rule="paper").num_branches == 1
    assert make_subgame(k, xk, key["Ks:"], merge_transpositions=True, merge_rule="paper").num_branches == 2
    # the exact rule leaves them: each of the opponent's infosets there holds a deal outside I
    assert make_subgame(k, xk, key["As:"], merge_transpositions=True).num_branches == 2


def test_dominated_merging_loses_no_constraint() -> None:
    g = _twins()
    x = to_sequence(g.treeplex(0), np.array([1.0, 0.3, 0.7]))
    for reach in (False, True):
        plain = make_subgame(g, x, 0, reach=reach)
        merged = make_subgame(g, x, 0, reach=reach, merge_transpositions=True)
        assert merged.num_branches == 1
        sol = solve_gadget(merged)
        # the merged solution keeps every margin of the whole gadget at least at the merged optimum
        assert margins(plain, sol.strategy).min() >= sol.value - 1e-9
        assert sol.value == pytest.approx(solve_gadget(plain).value, abs=1e-9)
    with pytest.raises(EfgError, match="merge_rule"):
        make_subgame(g, x, 0, merge_transpositions=True, merge_rule="random")


def test_bad_arguments_are_typed_errors() -> None:
    g = games.kuhn()
    x = uniform_strategy(g.treeplex(0))
    with pytest.raises(EfgError, match="odd"):
        make_subgame(g, x, 0, k=2)
    with pytest.raises(EfgError, match="no decision infoset"):
        make_subgame(g, x, 99)
    with pytest.raises(EfgError, match="only defined for k = 1"):
        make_subgame(g, x, 0, k=3, merge_transpositions=True)
    with pytest.raises(EfgError):
        make_subgame(g, x[:-1], 0)
