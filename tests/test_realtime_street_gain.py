"""Each street's exact gain over the blueprint (``realtime.street_gain``, ``pokerbot street-gain``).

On no-limit Leduc the gains at every public state of round 1, weighted by each state's exact probability
under blueprint self-play (enumerated deal by deal, independently of the solver's normalisation), add up to
the agent's exact head-to-head winnings over the whole game (``realtime.exact.head_to_head``). On HUNL the
command measures, resumes without redoing work, and refuses another design's results file.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from blueprint.policy import BlueprintPolicy
from pokerbot.errors import PokerbotError
from pokerbot.state import State
from realtime.agent import Resolver
from realtime.config import RealtimeConfig
from realtime.exact import head_to_head
from realtime.street_gain import Design, Variant, blueprint_ranges, gain_at, load_results, override, street_only, table


@pytest.fixture(scope="module")
def blueprint(leduc_nl_tiny_blueprint):
    return leduc_nl_tiny_blueprint


def round1_agent(blueprint, gadget: str = "resolve") -> Resolver:
    r1 = {"mode": "solve", "gadget": gadget, "alt": "blueprint", "iterations": 100, "min_iterations": 1,
          "algorithm": "dcfr", "time_budget": 1000.0, "depth_limit": -1}
    return Resolver(RealtimeConfig.from_dict({"blueprint": "unused", "action_time_limit": 1000.0,
                                              "round": {"0": {"mode": "blueprint"}, "1": r1}}), blueprint)


def round1_states(policy: BlueprintPolicy) -> list[State]:
    """Every public betting history that reaches round 1 (no board card yet)."""
    out, todo = [], [State.initial(policy.game)]
    while todo:
        s = todo.pop()
        if s.finished:
            continue
        if s.round == 1:
            out.append(s)
            continue
        todo.extend(s.apply(a) for a in policy.actions(s))
    return out


def state_probability(policy: BlueprintPolicy, state: State) -> float:
    """P(public state) under blueprint self-play: the sum over every deal consistent with its board."""
    game = policy.game
    r0, r1 = blueprint_ranges(policy, state)
    cards = [int(row[0]) for row in policy.hands]  # one hole card a player: hand i is card cards[i]
    (b,) = state.visible_board
    deals = game.deck_size * (game.deck_size - 1) * (game.deck_size - 2)
    total = 0.0
    for i, j in itertools.permutations(range(len(cards)), 2):
        if b not in (cards[i], cards[j]):
            total += r0[i] * r1[j] / deals
    return total


def test_street_gains_weighted_by_state_probability_are_the_exact_head_to_head(blueprint, monkeypatch):
    """The two sums read one set of the agent's decisions: solving a subgame twice agrees only to rounding (the
    order of vectorised sums follows the arrays' alignment), and DCFR can amplify that where a hand is
    indifferent, while the identity is about the weights and baselines of the street-gain measure."""
    import realtime.exact
    import realtime.street_gain
    from realtime.subgame import public_key

    made: dict[tuple[int | None, str], tuple] = {}
    once = realtime.exact.decisions

    def shared(resolver):
        decide = once(resolver)

        def cached(state):
            key = (state.current_player, public_key(state))
            if key not in made:
                made[key] = decide(state)
            return made[key]

        return cached

    monkeypatch.setattr(realtime.exact, "decisions", shared)
    monkeypatch.setattr(realtime.street_gain, "decisions", shared)
    agent = round1_agent(blueprint)
    policy = agent.policy
    total, weight = 0.0, 0.0
    for s in round1_states(policy):
        for b in (int(row[0]) for row in policy.hands):
            state = s.with_cards(board_cards=(b,))
            p = state_probability(policy, state)
            if p == 0.0:
                continue
            g = [gain_at(agent, state, seat) for seat in (0, 1)]
            total += p * (g[0].gain + g[1].gain) / 2.0
            weight += p
    assert 0.3 < weight < 1.0  # the hands that reach round 1
    solved = set(made)
    h2h_chips = head_to_head(round1_agent(blueprint)) * policy.game.big_blind / 1000.0
    # the head-to-head's round-1 decisions are all ones the gains made (it adds only the blueprint's preflop)
    assert len(solved) > 100 and all("/" not in k[1].split("|")[0] for k in set(made) - solved)
    assert abs(h2h_chips) > 1e-3  # the agent does win something: the identity below is not 0 = 0
    assert total == pytest.approx(h2h_chips, rel=1e-9, abs=1e-12)


def test_the_blueprint_through_the_agent_gains_nothing_at_any_state(blueprint):
    """Negative control: an agent that plays the blueprint on every round has gain 0 to the last bit, its
    decisions at every node of the tree the blueprint's own (which lets ``gain_at`` ask the agent only in
    the rounds it re-solves); the re-solving agent at the same state does not."""
    from realtime.exact import compose, decisions
    from realtime.street_gain import baseline

    plain = Resolver(RealtimeConfig.from_dict({"blueprint": "unused"}), blueprint)
    state = next(s for s in round1_states(plain.policy)).with_cards(board_cards=(int(plain.policy.hands[0][0]),))
    for seat in (0, 1):
        g = gain_at(plain, state, seat)
        assert g.gain == 0.0 and g.solves == 0
        base = baseline(plain, State.initial(plain.policy.game), seat)  # the whole game
        through = compose(base.tree, seat, decisions(plain), into=base.strategy.copy())
        assert np.array_equal(through, base.strategy)
    assert any(abs(gain_at(round1_agent(blueprint, "unsafe"), state, seat).gain) > 1e-6 for seat in (0, 1))


def test_overrides_and_street_only():
    data = override({"blueprint": "x", "round": {"2": {"mode": "solve"}}},
                    ["leaves.rollouts=0", "round.2.gadget=unsafe", "round.2.iterations=50"])
    assert data["leaves"] == {"rollouts": 0} and data["round"]["2"] == {"mode": "solve", "gadget": "unsafe",
                                                                        "iterations": 50}
    only = street_only(data, 2, 4)
    assert [only["round"][str(r)]["mode"] for r in range(4)] == ["blueprint", "blueprint", "solve", "blueprint"]
    with pytest.raises(PokerbotError, match="does not re-solve round 1"):
        street_only({"blueprint": "x"}, 1, 4)
    with pytest.raises(PokerbotError, match="KEY=VALUE"):
        override({}, ["leaves.rollouts"])
    with pytest.raises(PokerbotError, match="not a table"):
        override({"leaves": 3}, ["leaves.k=1"])


def test_the_table_pairs_variants_on_the_states_both_measured():
    design = Design("hunl-tiny", 2, 3, 0, (Variant("a"), Variant("b", ("leaves.k=1",))))
    rows = [{"variant": v, "index": i, "seat": s, "agent": a, "blueprint": 0.0, "seconds": 1.0, "solves": 2}
            for v, i, s, a in [("a", 0, 0, 1.0), ("a", 0, 1, 3.0), ("b", 0, 0, 2.0), ("b", 0, 1, 4.0),
                               ("a", 1, 0, 0.0), ("a", 1, 1, 0.0), ("b", 1, 0, 0.0), ("b", 1, 1, 2.0),
                               ("a", 2, 0, 5.0)]]  # state 2: only one seat of one variant so far
    a, b = table(design, rows, 0.5, 100)
    assert a.states == b.states == 2
    assert a.gain == pytest.approx(10.0 * (2.0 + 0.0) / 2)  # chips 2 and 0 a state -> mbb
    assert b.gain == pytest.approx(10.0 * (3.0 + 1.0) / 2) and b.share == pytest.approx(b.gain / 2)
    assert b.diff == pytest.approx(10.0) and b.diff_ci == pytest.approx(0.0)


def test_command_measures_resumes_and_refuses_another_design(hunl_tiny_home, monkeypatch, tmp_path, capsys):
    from pokerbot.cli import main

    monkeypatch.setenv("POKERBOT_HOME", str(hunl_tiny_home))
    out = tmp_path / "gain.jsonl"
    argv = ["street-gain", "--street", "river", "--states", "1", "--seed", "3", "--no-progress", "--out", str(out),
            "--variant", "shipped", "--variant", "unsafe: round.3.gadget=unsafe"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "| shipped |" in text and "| unsafe |" in text
    lines = out.read_text().splitlines()
    assert len(lines) == 1 + 2 * 2 and json.loads(lines[0])["design"]["street"] == 3
    design = Design("hunl-tiny", 3, 1, 3, (Variant("shipped"), Variant("unsafe", ("round.3.gadget=unsafe",))))
    got = load_results(str(out), design)
    assert {(r["variant"], r["seat"]) for r in got} == {(v, s) for v in ("shipped", "unsafe") for s in (0, 1)}
    assert all(np.isfinite(r["agent"]) and r["solves"] >= 1 for r in got)
    assert main(argv) == 0  # resumed: nothing left to measure
    assert out.read_text().splitlines() == lines
    assert main(argv[:5] + ["--seed", "4"] + argv[7:]) != 0  # another design: refused, file untouched
    assert "another design" in capsys.readouterr().err
    assert out.read_text().splitlines() == lines


def test_a_round_sets_its_own_rollouts():
    cfg = RealtimeConfig.from_dict({"blueprint": "x", "leaves": {"rollouts": 3},
                                    "round": {"1": {"mode": "solve"}, "2": {"mode": "solve", "rollouts": 0}}})
    assert (cfg.rollouts(1), cfg.rollouts(2)) == (3, 0)
    plain = RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": {"mode": "solve"}}})
    same = RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": {"mode": "solve", "rollouts": -1}}})
    assert plain.identity() == same.identity()  # the default leaves existing cache digests alone
    with pytest.raises(PokerbotError, match="rollouts must be -1"):
        RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": {"mode": "solve", "rollouts": -2}}})


def test_gains_over_sampled_next_cards_add_up_to_the_gain_over_every_card(blueprint):
    """``gain_at(cards=...)`` (the flop's turn cards on HUNL): on no-limit Leduc, the agent re-solving round 0
    gains at the first state, measured over a partition of the board cards and weighted by each part's share,
    exactly what it gains over every card; one part alone does not give it."""
    r0 = {"mode": "solve", "gadget": "unsafe", "alt": "blueprint", "iterations": 60, "min_iterations": 1,
          "algorithm": "dcfr", "time_budget": 1000.0, "depth_limit": -1}
    agent = Resolver(RealtimeConfig.from_dict({"blueprint": "unused", "action_time_limit": 1000.0,
                                               "round": {"0": r0, "1": {"mode": "blueprint"}}}), blueprint)
    state = State.initial(agent.policy.game)
    deck = sorted(agent.policy.game.deck())
    parts = [deck[:2], deck[2:]]
    for seat in (0, 1):
        whole = gain_at(agent, state, seat)
        assert abs(whole.gain) > 1e-4  # the identity below is not 0 = 0
        got = [gain_at(agent, state, seat, part) for part in parts]
        shares = [len(part) / len(deck) for part in parts]
        assert sum(s * g.agent for s, g in zip(shares, got, strict=True)) == pytest.approx(whole.agent, rel=1e-9, abs=1e-12)
        assert sum(s * g.gain for s, g in zip(shares, got, strict=True)) == pytest.approx(whole.gain, rel=1e-9, abs=1e-12)
        assert abs(got[0].gain - whole.gain) > 1e-6  # one part is not the whole


def test_the_flop_is_measured_over_sampled_turn_cards(hunl_tiny_home, monkeypatch, tmp_path, capsys):
    from pokerbot.cli import main

    monkeypatch.setenv("POKERBOT_HOME", str(hunl_tiny_home))
    out = tmp_path / "flop.jsonl"
    argv = ["street-gain", "--street", "flop", "--states", "1", "--turn-cards", "1", "--no-progress", "--out",
            str(out), "--variant", "quick: round.1.iterations=10, round.1.min_iterations=1"]
    assert main(argv) == 0
    head, *rows = (json.loads(line) for line in out.read_text().splitlines())
    assert head["design"]["turn_cards"] == 1 and len(rows) == 2
    turn = [int(c) for c in rows[0]["state"].split("|")[2].split()]  # the state names the turn card it holds
    board = [int(c) for c in rows[0]["state"].split("|")[1].split()]
    assert len(turn) == 1 and turn[0] not in board and all(r["solves"] >= 1 for r in rows)
    capsys.readouterr()
    assert main(["street-gain", "--street", "turn", "--turn-cards", "2", "--out", str(tmp_path / "x.jsonl")]) != 0
    assert "--turn-cards is for --street flop" in capsys.readouterr().err
