"""The KLSS paper's games: exact sizes (Zhang & Sandholm, Appendix B, Table 2), and payoffs /
infosets checked against OpenSpiel (NashConv of the uniform strategy) where OpenSpiel has the same game."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg import best_response, games, uniform_strategy
from pokerbot.efg.game import EfgError

SIZES = {
    "matching-pennies": (701, 101),
    "kuhn": (58, 12),
    "leduc": (9457, 936),
    "liars-dice": (51181, 5120),
    "goofspiel-random": (26773, 3608),
    "goofspiel-increasing": (1077, 162),
    "dark-hex": (471, 94),
}


@pytest.mark.parametrize("name", sorted(SIZES))
def test_node_and_infoset_counts(name: str) -> None:
    g = games.load(name)
    assert (g.num_nodes, g.num_infosets) == SIZES[name]
    assert g.is_zero_sum


def test_other_sizes_follow_the_rules() -> None:
    # 1 + N (1 + 2 + 4) nodes; ⌊n/2⌋ in 0..N/2 plus ⌊(n+1)/2⌋ in 1..N/2 infosets
    for n in (4, 10, 30):
        g = games.matching_pennies(n)
        assert (g.num_nodes, g.num_infosets) == (1 + 7 * n, n + 1)
    # without auto-playing Goofspiel's last round the notes count 2229 / 738 (increasing): ours is smaller
    assert games.goofspiel(3).num_nodes == 1 + 3 + 9 + 18 + 36


def _uniform_nash_conv(g) -> float:  # type: ignore[no-untyped-def]
    sf = g.sequence_form
    x, y = uniform_strategy(sf.treeplex[0]), uniform_strategy(sf.treeplex[1])
    return best_response(sf, 0, y).value + best_response(sf, 1, x).value - float(x @ (sf.payoff[0] + sf.payoff[1]) @ y)


@pytest.mark.parametrize(
    "ours,theirs,params",
    [("kuhn", "kuhn_poker", {}), ("leduc", "leduc_poker", {}), ("liars-dice", "liars_dice", {"dice_sides": 5})],
)
def test_uniform_nash_conv_matches_openspiel(ours: str, theirs: str, params: dict) -> None:
    import pyspiel  # a test dependency (open_spiel): missing, the test fails rather than skips
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game(theirs, params)
    expected = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    assert _uniform_nash_conv(games.load(ours)) == pytest.approx(expected, abs=1e-9)


def test_liars_dice_rules() -> None:
    g = games.liars_dice(5)
    # each deal: every increasing bid sequence (2^10 histories) plus a liar call after each non-empty one
    assert g.num_nodes == 1 + 5 + 25 * (1024 + 1023)
    # "2-5" is the top bid: only liar may follow; the highest face is wild
    labels = {g.edge_label[int(c)] for h in np.flatnonzero(g.player == 0)[:1] for c in g.children(int(h))}
    assert "liar" not in labels and "1-1" in labels


def test_poker_infoset_keys_round_trip() -> None:
    g = games.leduc()
    keys = {games.infoset_key(g, 0, d) for d in range(g.treeplex(0).num_infosets)}
    assert len(keys) == 468 and "Ks:" in keys and "Qh/Kh:rrc/rr" in keys and "As/Ah:cc/" in keys


def test_unknown_game_and_bad_sizes_are_typed_errors() -> None:
    with pytest.raises(EfgError, match="unknown game"):
        games.load("chess")
    with pytest.raises(EfgError):
        games.matching_pennies(1)
