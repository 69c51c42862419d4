"""Subgame partitions and Algorithm 2's bounds."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.game import EfgError
from pokerbot.efg.general_sum_games import (
    figure1,
    figure2,
    figure_subgame,
    label_subgames,
    leduc_subgame,
    raked_leduc,
    two_stage,
    two_stage_spec,
    two_stage_subgame,
)
from pokerbot.efg.sequence_form import to_sequence
from realtime.stackelberg.bounds import Subgames, compute_bounds
from realtime.stackelberg.response import blueprint_rows, follower_response


def _heads(game, subs, x, **kw):  # type: ignore[no-untyped-def]
    b = compute_bounds(subs, follower_response(game.sequence_form, x), **kw)
    tp = game.treeplex(1)
    return {tp.labels[d]: (float(b.value[d]), bool(b.lower[d])) for d in np.flatnonzero(b.is_head)}


def test_figure1_bounds_follow_alpha() -> None:
    g = figure1()
    subs = Subgames(g, label_subgames(g, figure_subgame))
    x = blueprint_rows(g, 0)
    # left: S1 (BRV 0.5) over X1 (0); right: X2 (1.0) over S2 (0); chance-weighted
    for alpha, a_low, b_up in ((0.5, 0.25, 0.5), (0.0, 0.0, 0.0), (1.0, 0.5, 1.0)):
        h = _heads(g, subs, x, alpha=alpha)
        assert h[("Ac0", "Ac1")] == pytest.approx((a_low, True))
        assert h[("Bc0", "Bc1")] == pytest.approx((b_up, False))


def test_figure2_slack_is_split_and_beta_multiplies_it() -> None:
    g = figure2()
    subs = Subgames(g, label_subgames(g, figure_subgame))
    x = blueprint_rows(g, 0)
    # S: BRV 1, X: 0 -> threshold 1/2; slack 1/2 split over two heads of BRV 1/2 each
    for beta, bound in ((1.0, 0.25), (2.0, 0.0)):
        heads = _heads(g, subs, x, beta=beta).values()
        assert [lower for _, lower in heads] == [True, True]
        assert [v for v, _ in heads] == pytest.approx([bound, bound])
    with pytest.raises(EfgError, match="alpha"):
        _heads(g, subs, x, alpha=1.5)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_the_blueprint_satisfies_every_bound(alpha: float) -> None:
    g = raked_leduc(2)
    subs = Subgames(g, label_subgames(g, leduc_subgame))
    tp = g.treeplex(0)
    rng = np.random.default_rng(0)
    beh = rng.random(tp.num_seqs)
    for d in range(tp.num_infosets):
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        beh[f:f + n] /= beh[f:f + n].sum()
    x = to_sequence(tp, beh)
    r = follower_response(g.sequence_form, x)
    b = compute_bounds(subs, r, alpha=alpha)
    heads = np.flatnonzero(b.is_head)
    assert len(heads) == 44 * 3 * 2  # per subgame: 3 own cards x (after check, after raise)
    v = r.infoset_values[heads]
    low = b.lower[heads]
    assert (v[low] >= b.value[heads][low] - 1e-12).all()
    assert (v[~low] <= b.value[heads][~low] + 1e-12).all()
    assert np.array_equal(low, r.trunk[heads])


def test_subgames_must_be_closed_and_hold_whole_infosets() -> None:
    g = two_stage(two_stage_spec(2, 2, 2, 0.5, 0))
    lab = label_subgames(g, two_stage_subgame)
    bad = lab.copy()
    bad[g.terminals[0]] = -1  # a leaf leaves its parent's subgame
    with pytest.raises(EfgError, match="closed under descendants"):
        Subgames(g, bad)
    g = raked_leduc(2)
    split = label_subgames(g, leduc_subgame)
    entry = Subgames(g, split).entry
    root = int(np.flatnonzero(entry == np.arange(g.num_nodes))[0])  # one deal's entry into its subgame
    split[root:g.subtree_end[root]] = split.max() + 1  # closed, but the follower cannot tell the deals apart
    with pytest.raises(EfgError, match="straddles"):
        Subgames(g, split)
