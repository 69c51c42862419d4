"""General Student of Games (realtime/sog/fog*.py): the public-state interface, GT-CFR and
continual re-solving on any explicit game, checked against exact values, against the poker
implementation, and with negative controls."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg.game import CHANCE, Branch, Leaf, Move, build_game
from pokerbot.efg.lp import game_value
from realtime.sog.fog import PublicStates, load
from realtime.sog.fog_resolve import (
    SearchSettings,
    composed_exploitability,
    strategy_exploitability,
    uniform_behavioral,
)
from realtime.sog.fog_search import ExactValue, FogSearch, ZeroValue
from realtime.sog.search import SoGError


@pytest.mark.parametrize("name", ["kuhn", "leduc", "goofspiel-3", "liars-dice-3"])
def test_slots_parents_and_actions_follow_the_game(name: str) -> None:
    ps = load(name)
    g = ps.game
    for h in range(g.num_nodes):
        p = int(ps.node_state[h])
        assert g.player[h] == ps.kind[p]
        kids = g.children(h)
        for a, c in enumerate(kids):
            assert ps.parent[ps.node_state[c]] == p
            for i in (0, 1):
                assert ps.parent_slot[i][ps.node_slot[i, c]] == ps.node_slot[i, h]
            if g.player[h] in (0, 1):
                actor = int(g.player[h])
                assert ps.action[actor][ps.node_slot[actor, c]] == a
                assert ps.num_actions[actor][ps.node_slot[actor, h]] == len(kids)
    # every node of a slot is one observation infoset of its player
    for i in (0, 1):
        assert np.array_equal(ps.slot_obs[i][ps.node_slot[i]], g.obs[i])


def _ending_unobserved() -> object:
    """A game whose move ends it for one branch only, without telling player 1 (refused)."""

    def expand(s: object) -> Branch | Leaf:
        if s is None:
            return Branch(CHANCE, [Move("a", "a", 0.5, ("a", "")), Move("b", "b", 0.5, ("b", ""))])
        if s in ("a", "b"):
            return Branch(0, [Move("x", s + "x")])
        if s == "ax":
            return Leaf((1.0, -1.0))
        if s == "bx":
            return Branch(0, [Move("y", "bxy"), Move("z", "bxz")])
        return Leaf((-1.0, 1.0))

    return build_game("unobserved-end", None, expand)


def test_public_states_refuse_a_move_that_ends_the_game_unseen() -> None:
    with pytest.raises(SoGError, match="mixes node kinds"):
        PublicStates(_ending_unobserved())  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["kuhn", "goofspiel-3", "liars-dice-3"])
def test_exact_value_at_the_first_decision_is_the_game_value(name: str) -> None:
    ps = load(name)
    root = ps.first_decisions()
    vals = ExactValue(ps, 2000).evaluate(ps, root, [np.ones(len(ps.slots(0, r))) for r in root],
                                         [np.ones(len(ps.slots(1, r))) for r in root])
    total = sum(float(v.v0.sum()) for v in vals)
    assert total == pytest.approx(game_value(ps.game.sequence_form), abs=2e-3)


def test_exact_values_match_the_poker_implementation_on_leduc() -> None:
    from realtime.sog.search import PublicGame
    from realtime.sog.values import ExactValue as PokerExactValue

    g = PublicGame.load("leduc")
    r = g.initial_ranges()
    poker = PokerExactValue(g, 100).evaluate(g, np.array([0]), r[0][None], r[1][None])
    ps = load("leduc")
    root = ps.first_decisions()[0]
    mine = ExactValue(ps, 100).evaluate(ps, [root], [np.ones(6)], [np.ones(6)])[0]
    deals = 30.0  # the poker tree's values are per deal of two hole cards; ours carry its 1/30 chance
    np.testing.assert_allclose(np.sort(poker.v0[0] / deals), np.sort(mine.v0), atol=1e-9)
    np.testing.assert_allclose(np.sort(poker.v1[0] / deals), np.sort(mine.v1), atol=1e-9)


def test_search_root_value_approaches_the_game_value() -> None:
    ps = load("goofspiel-3")
    root = ps.first_decisions()[0]
    s = FogSearch(ps, root, ps.initial_ranges(root), ExactValue(ps), seed=0).run(300, 1)
    assert s.root_value() == pytest.approx(game_value(ps.game.sequence_form), abs=0.01)


def test_composed_exploitability_falls_with_search_and_beats_uniform() -> None:
    ps = load("liars-dice-3")
    uniform = strategy_exploitability(ps, uniform_behavioral(ps, 0), uniform_behavioral(ps, 1))
    # over 20 seeds: SoG(10,1) 0.095 .. 0.140, SoG(50,1) 0.011 .. 0.032 (docs/sog.md)
    small = composed_exploitability(ps, lambda: ExactValue(ps), SearchSettings(10, 1.0), 0)
    big = composed_exploitability(ps, lambda: ExactValue(ps), SearchSettings(50, 1.0), 0)
    assert big < small < uniform
    assert big < 0.05


def test_depth_limited_search_needs_good_leaf_values() -> None:
    """Negative control: the same search with knowledge-free leaf values is far more exploitable."""
    ps = load("liars-dice-3")
    exact = composed_exploitability(ps, lambda: ExactValue(ps), SearchSettings(10, 1.0), 0)
    zero = composed_exploitability(ps, lambda: ZeroValue(), SearchSettings(10, 1.0), 0)
    assert exact < 0.5 * zero


def test_search_rejects_bad_input() -> None:
    ps = load("kuhn")
    root = ps.first_decisions()[0]
    with pytest.raises(SoGError, match="not a public decision state"):
        FogSearch(ps, 0, ps.initial_ranges(0), ZeroValue())
    with pytest.raises(SoGError, match="non-negative"):
        FogSearch(ps, root, (np.ones(2), np.ones(3)), ZeroValue())
    with pytest.raises(SoGError, match="unknown game"):
        load("chess")


def test_perfect_information_search_adds_one_action_at_a_time_and_blocks() -> None:
    """k = 1: a tic-tac-toe search leaves actions outside its tree (k = infinity adds them all) and still finds O's only
    move against an open two (X on 0 and 3, O on 4: O must take 6); the minimax match scores it."""
    from pokerbot.efg.tictactoe import minimax_values, tic_tac_toe
    from realtime.sog.fog import GAMES
    from realtime.sog.fog_resolve import play_minimax

    ps = PublicStates(tic_tac_toe(prefix=(0, 4, 3)), GAMES["tic-tac-toe"].public_features, "ttt-043")
    assert ps.perfect_information
    one = FogSearch(ps, 0, ps.initial_ranges(0), ZeroValue(), seed=1).run(200, 1)
    assert one.k == 1
    assert ps.game.edge_label[ps.game.children(0)[int(np.argmax(one.policy()[0]))]] == "6"
    every = FogSearch(ps, 0, ps.initial_ranges(0), ZeroValue(), seed=1, k=0).run(200, 1)
    grown = [p for p in one.states if one.expanded[p] and ps.kind[p] in (0, 1)]
    assert any(not one.allowed[slice(*one._entries(p))].all() for p in grown)  # actions still outside the tree
    assert all(every.allowed[slice(*every._entries(p))].all() for p in every.states if every.expanded[p] and ps.kind[p] in (0, 1))
    # O (player 1) blocks and draws against minimax from here; a search too small to see it loses
    assert play_minimax(ps, ZeroValue(), SearchSettings(200, 1.0), minimax_values(ps.game), 1, seed=0) == 0.0
    assert play_minimax(ps, ZeroValue(), SearchSettings(1, 1.0), minimax_values(ps.game), 1, seed=0) == -1.0


def test_scotland_yard_chain_beats_uniform_play() -> None:
    from pokerbot.efg.scotland_yard import scotland_yard
    from realtime.sog.fog import GAMES

    a = GAMES["scotland-yard"]
    ps = PublicStates(scotland_yard(rounds=2, keep_states=True), a.public_features, "sy-2", a.slot_key, a.num_keys)
    assert ps.num_keys == (11, 1)
    uniform = strategy_exploitability(ps, uniform_behavioral(ps, 0), uniform_behavioral(ps, 1))
    searched = composed_exploitability(ps, lambda: ExactValue(ps), SearchSettings(20, 1.0), 0)
    assert searched < 0.2 * uniform


def test_training_resumes_and_refuses_another_games_run(tmp_path: object) -> None:
    from pathlib import Path

    from realtime.sog.fog_training import FogTrainConfig, load_checkpoint, train

    d = Path(str(tmp_path))
    cfg = FogTrainConfig(steps=2, units_per_round=1, steps_per_round=2, batch=4, hidden=8, layers=1,
                         search=SearchSettings(2, 1.0), checkpoint_every=2)
    ps = load("kuhn")
    assert train(ps, cfg, d, progress=False).step == 2
    longer = FogTrainConfig(**{**cfg.__dict__, "steps": 4})
    result = train(ps, longer, d, progress=False)  # resumes at step 2
    assert result.step == 4 and [p.name for p in result.checkpoints] == ["step-0.pt", "step-2.pt", "step-4.pt"]
    assert load_checkpoint(d / "step-4.pt")[1]["step"] == 4
    with pytest.raises(SoGError, match="checkpoint of game 'kuhn'"):
        train(load("goofspiel-3"), longer, d, progress=False)
    (d / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(SoGError, match="not a general Student of Games checkpoint"):
        load_checkpoint(d / "bad.pt")


def test_cli_general_eval_writes_its_table_and_refuses_bad_input(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from pokerbot.cli import main

    out = Path(str(tmp_path))
    assert main(["sog", "general-eval", "--game", "kuhn", "--search", "5,1", "--seeds", "2", "--out", str(out),
                 "--no-progress"]) == 0
    table = (out / "eval.md").read_text()
    assert "| SoG(5,1) | 2 |" in table and "game units" in table and "paper" not in table
    assert (out / "eval.png").stat().st_size > 0
    assert len((out / "eval.csv").read_text().splitlines()) == 3
    cached = (out / "seeds.csv").read_text()
    assert len(cached.splitlines()) == 3  # every seed kept as computed
    assert main(["sog", "general-eval", "--game", "kuhn", "--search", "5,1", "--seeds", "2", "--out", str(out),
                 "--no-progress"]) == 0

    def figures(text: str) -> list[str]:  # min | mean | max of the SoG(5,1) row
        row = next(line for line in text.splitlines() if line.startswith("| SoG(5,1)"))
        return row.split("|")[3:6]

    assert figures((out / "eval.md").read_text()) == figures(table)  # the same figures, read back
    assert main(["sog", "general-eval", "--game", "kuhn", "--seeds", "0"]) != 0
    assert main(["sog", "general-minimax", "--game", "kuhn"]) != 0
    err = capsys.readouterr().err
    assert "--seeds must be positive" in err and "not a perfect-information game" in err


@pytest.mark.slow
def test_no_limit_leduc_through_the_poker_adapter() -> None:
    """leduc-nl's explicit tree (the solver's default bet menu, all-in run-outs dealt by chance): the
    general engine's exact value at the first decision approaches the sequence-form LP's value."""
    ps = load("leduc-nl")
    root = ps.first_decisions()[0]
    v = ExactValue(ps, 3000).evaluate(ps, [root], [np.ones(6)], [np.ones(6)])[0]
    assert float(v.v0.sum()) == pytest.approx(game_value(ps.game.sequence_form), abs=2e-3)
