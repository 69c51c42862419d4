"""Local best response: exact checks against always-fold, always-call and exact best responses on leduc-nl."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evaluation.lbr import LbrError, LbrSettings, LocalBestResponse, add_counts, lbr_hands, run_lbr
from pokerbot.agent import Agent
from pokerbot.bots import make_agent
from pokerbot.evaluator import evaluate_batch
from pokerbot.gamedef import GameDef, load_game
from pokerbot.infoset import infoset_key
from pokerbot.matchstate import MatchState
from pokerbot.solver import game_tree, policy_best_responses, solve
from pokerbot.solver.policy import strategy_to_policy
from pokerbot.actions import parse_action
from pokerbot.state import CALL, FOLD, Action, State

PCA = LbrSettings().menu  # fold, call, pot, all-in: LBR's actions and the best response's


class FoldAgent(Agent):
    """Folds whenever it faces a bet, checks otherwise."""

    name = "fold"

    def act(self, view: MatchState) -> Action:
        return FOLD if view.state.can_fold() else CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        return [(self.act(view), 1.0)]


class PolicyAgent(Agent):
    """Plays a solver policy dict (infoset key -> {label: probability})."""

    name = "policy"

    def __init__(self, game: GameDef, policy: dict[str, dict[str, float]], seed: int = 0) -> None:
        self.game = game
        self.policy = policy
        self.rng = np.random.default_rng(seed)

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        dist = self.policy[infoset_key(view.state, view.viewer)]
        return [(parse_action(label, self.game.nolimit)[0], p) for label, p in dist.items()]

    def act(self, view: MatchState) -> Action:
        dist = self.action_distribution(view)
        i = self.rng.choice(len(dist), p=np.array([p for _, p in dist]) / sum(p for _, p in dist))
        return dist[i][0]


def _agent_policy(game: GameDef, agent: Agent) -> dict[str, dict[str, float]]:
    """The agent's policy at every information set of the fold/call/pot/all-in tree."""
    tree = game_tree(game, PCA)
    uniform = strategy_to_policy(tree, np.full(tree.num_slots, 1.0))
    out = {}
    for key, labels in uniform.items():
        cards, _, betting = key.partition(":")
        groups = cards.split("/")
        from pokerbot.cards import parse_cards

        holes = [parse_cards(groups[0])]
        state = State.from_betting(game, betting)
        p = state.current_player
        hole = [(), ()]
        hole[p] = tuple(holes[0])
        board = tuple(c for g in groups[1:] for c in parse_cards(g))
        view = MatchState(p, state.with_cards(hole, board))
        out[key] = {str(a): q for a, q in agent.action_distribution(view) if q > 0}
    return out


def exact_lbr_value(game: GameDef, agent: Agent, settings: LbrSettings) -> float:
    """LBR's expected chips per hand against ``agent``, both seats averaged, over every deal and agent action."""
    lbr = LocalBestResponse(game, agent, settings)
    deck = game.deck()
    k = game.num_hole_cards
    total = 0.0
    count = 0
    for h0 in itertools.combinations(deck, k):
        for h1 in itertools.combinations([c for c in deck if c not in h0], k):
            rest = [c for c in deck if c not in h0 + h1]
            for board in itertools.combinations(rest, game.total_board_cards):
                for seat in range(2):
                    total += _walk(State.initial(game, 0, (h0, h1), board), seat, lbr, agent, 1.0)
                count += 2
    return total / count


def _walk(state: State, seat: int, lbr: LocalBestResponse, agent: Agent, prob: float) -> float:
    if state.finished:
        return prob * state.payoffs()[seat]
    p = state.current_player
    holes = [h if q == p else () for q, h in enumerate(state.hole_cards)]
    view = MatchState(p, state.with_cards(holes, state.visible_board))
    if p == seat:
        lbr.begin_hand(MatchState(p, State.initial(state.game, 0, holes)))
        return _walk(state.apply(lbr.act(view)), seat, lbr, agent, prob)
    return sum(_walk(state.apply(a), seat, lbr, agent, prob * q) for a, q in agent.action_distribution(view) if q > 0)


def test_always_fold_concedes_the_blinds_exactly():
    game = load_game("hunl")
    lbr = LocalBestResponse(game, FoldAgent())
    from evaluation.match import play_match

    r = play_match(lbr, FoldAgent(), game, 40, seed=3, duplicate=True, progress=False)
    assert r.win_rate.mbb == 750.0 and r.win_rate.ci95 == 0.0


def _wp_brute_force(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Equity against a uniform range by brute force with the batch evaluator (independent of the LBR kernel)."""
    known = set(hole) | set(board)
    rest = [c for c in range(52) if c not in known]
    opps = np.array(list(itertools.combinations(rest, 2)))
    missing = 5 - len(board)
    outs = np.array(list(itertools.combinations(rest, missing)) if missing else [[]], dtype=np.int64)
    outs = outs.reshape(len(outs), missing)
    bit = np.int64(1) << np.arange(52, dtype=np.int64)
    omask = bit[opps].sum(axis=1)
    rmask = bit[outs].sum(axis=1) if missing else np.zeros(1, dtype=np.int64)
    ok = (rmask[:, None] & omask[None, :]) == 0  # runouts x opponent hands that share no card
    mine = evaluate_batch(np.hstack([np.tile(np.array(hole + board), (len(outs), 1)), outs]))
    ri, hi = np.nonzero(ok)
    theirs = evaluate_batch(np.hstack([opps[hi], np.tile(np.array(board), (len(ri), 1)), outs[ri]]))
    score = (mine[ri] > theirs) + 0.5 * (mine[ri] == theirs)
    per_hand = np.bincount(hi, weights=score, minlength=len(opps)) / np.bincount(hi, minlength=len(opps))
    return float(per_hand.mean())


def test_always_call_matches_the_exact_calculation():
    """Against always-call the range stays uniform and no raise is ever folded to, so LBR's rule is:
    all-in at the first decision where its exact equity against a random hand exceeds 1/2, else check.
    Each hand's result equals that rule applied with a brute-force equity."""
    game = load_game("hunl")
    settings = LbrSettings(call_rounds=(0,))  # no preflop sampling: every equity is exact
    from evaluation.match import play_match
    from pokerbot.protocol.deal import AcpcDeck

    hands = 6
    r = play_match(LocalBestResponse(game, make_agent("call", game), settings), make_agent("call", game), game, hands,
                   seed=5, duplicate=True, progress=False)
    deck = AcpcDeck(game, 5)
    for pair in range(hands // 2):
        holes, board = deck.deal()
        for j in range(2):
            hand = 2 * pair + j
            lbr_player = 0 if hand % 2 == 0 else 1  # A (LBR) is player 0 in even hands
            hole = tuple(holes[lbr_player])
            expected = 100.0 * _showdown_sign(holes, board, lbr_player)
            for n_board in (3, 4, 5):
                if _wp_brute_force(hole, tuple(board[:n_board])) > 0.5:
                    expected = 20000.0 * _showdown_sign(holes, board, lbr_player)
                    break
            assert r.chips[hand] == expected, (hand, r.chips[hand], expected)


def _showdown_sign(holes, board, player) -> int:  # type: ignore[no-untyped-def]
    v = evaluate_batch(np.array([list(holes[0]) + list(board), list(holes[1]) + list(board)]))
    return int(np.sign(v[player] - v[1 - player]))


@pytest.fixture(scope="module")
def leduc_nl_solution() -> dict[str, dict[str, float]]:
    game = load_game("leduc-nl")
    return solve(game, "cfr+", iterations=200, bet_menu=PCA).policy


@pytest.mark.parametrize("agent_name", ["call", "raise", "fold", "solved"])
def test_lbr_never_beats_the_exact_best_response(agent_name: str, leduc_nl_solution):
    game = load_game("leduc-nl")
    if agent_name == "solved":
        agent: Agent = PolicyAgent(game, leduc_nl_solution)
    elif agent_name == "fold":
        agent = FoldAgent()
    else:
        agent = make_agent(agent_name, game)
    br0, br1 = policy_best_responses(game, _agent_policy(game, agent), PCA)
    best = (br0 + br1) / 2
    value = exact_lbr_value(game, agent, LbrSettings())
    assert value <= best + 1e-9, (value, best)
    if agent_name in ("call", "fold"):  # simple agents: LBR gets most of the best response's value
        assert value >= 0.75 * best, (value, best)


def _finals(state: State, seat: int, lbr: LocalBestResponse, agent: Agent, from_round: int, prob: float,
            branching: bool = True):  # type: ignore[no-untyped-def]
    """(final state, probability) of every way the hand can go until the agent's first decision in round
    ``from_round`` or later, the rest played out by the agent's last listed action and LBR's choice."""
    if state.finished:
        yield state, prob
        return
    p = state.current_player
    holes = [h if q == p else () for q, h in enumerate(state.hole_cards)]
    view = MatchState(p, state.with_cards(holes, state.visible_board))
    if p == seat:
        lbr.begin_hand(MatchState(p, State.initial(state.game, 0, holes)))
        yield from _finals(state.apply(lbr.act(view)), seat, lbr, agent, from_round, prob, branching)
        return
    dist = [(a, q) for a, q in agent.action_distribution(view) if q > 0]
    if branching and state.round >= from_round:
        branching = False
    if not branching:
        dist = dist[-1:]
    for a, q in dist:
        yield from _finals(state.apply(a), seat, lbr, agent, from_round, prob * (q if branching else 1.0), branching)


@pytest.mark.parametrize("from_round", [0, 1])
def test_expected_lbr_keeps_lbr_s_expectation(from_round: int, leduc_nl_solution):
    """LBR scored by its expectation over the agent's actions from a round on: averaged over how the hand goes
    before that round, it is LBR's exact expected value of the deal (the test's own enumeration, _walk); from
    round 0 every single hand scores exactly that value."""
    game = load_game("leduc-nl")
    agent = PolicyAgent(game, leduc_nl_solution)
    settings = LbrSettings(expected_from=from_round)
    rng = np.random.default_rng(from_round)
    deck = game.deck()
    checked = differ = 0
    for _ in range(12):
        cards = [int(c) for c in rng.permutation(deck)[:3]]
        deal = State.initial(game, 0, ((cards[0],), (cards[1],)), (cards[2],))
        for seat in range(2):
            exact = _walk(deal, seat, LocalBestResponse(game, agent, settings), agent, 1.0)
            scorer = LocalBestResponse(game, agent, settings)
            finals = list(_finals(deal, seat, LocalBestResponse(game, agent, settings), agent, from_round, 1.0))
            estimates = [(scorer.expected_payoff(f, seat, from_round), q) for f, q in finals]
            assert sum(e * q for e, q in estimates) == pytest.approx(exact, abs=1e-9)
            if from_round == 0:
                assert all(e == pytest.approx(exact, abs=1e-9) for e, _ in estimates)
            checked += len(finals)
            differ += sum(abs(e - f.payoffs()[seat]) > 1e-6 for (e, _), (f, _) in zip(estimates, finals))
    assert checked > (24 if from_round else 23)  # round 1: several ways to reach it per deal
    assert differ > 5  # negative control: the expectation is not just the chips won


def test_expected_lbr_in_lbr_hands():
    """lbr_hands with expected_from: the agent's decisions from the round on are expanded; a hand without one
    scores its chips; the label names the scoring."""
    settings = LbrSettings(expected_from=1)
    assert settings.label() == "FCPA-E2"
    plain, _, _ = lbr_hands("random", "leduc-nl", 200, 3, LbrSettings())
    expected, _, _ = lbr_hands("random", "leduc-nl", 200, 3, settings)
    assert expected.shape == plain.shape and np.isfinite(expected).all()
    assert 0 < np.count_nonzero(expected != plain) < expected.size
    with pytest.raises(LbrError):
        lbr_hands("random", "leduc-nl", 2, 3, settings, value="equity")
    with pytest.raises(LbrError):
        LbrSettings(expected_from=-1)


def test_agent_without_policy_is_refused():
    class Silent(Agent):
        def act(self, view: MatchState) -> Action:
            return CALL

    game = load_game("leduc-nl")
    lbr = LocalBestResponse(game, Silent())
    state = State.initial(game, 0, ((0,), (1,)))
    with pytest.raises(LbrError):
        lbr.act(MatchState(1, state.apply(CALL).with_cards([(), (1,)])))
    with pytest.raises(LbrError):
        LbrSettings(fractions=(0.0,))
    with pytest.raises(LbrError):
        run_lbr("call", game, hands=1)


def test_an_lbr_run_in_pieces_is_the_whole_run():
    """lbr_hands(first_hand=...) plays the whole run's hands, so pieces (resumable chunks, workers) concatenate to
    it hand for hand, action counts included."""
    whole, counts, _ = lbr_hands("raise", "leduc-nl", 40, 3, LbrSettings())
    pieces = [lbr_hands("raise", "leduc-nl", n, 3, LbrSettings(), first_hand=lo) for lo, n in ((0, 10), (10, 30))]
    assert np.array_equal(np.concatenate([c for c, _, _ in pieces]), whole)
    assert add_counts(s for _, s, _ in pieces) == counts and counts["decisions"] > 0
    assert np.count_nonzero(whole) > 30 and len(set(whole)) > 3  # varied results: not a comparison of zeros


@pytest.mark.slow
def test_ray_workers_split_the_hands_of_one_run():
    game = load_game("leduc-nl")
    r = run_lbr("raise", game, hands=40, seed=1, workers=2, progress=False)
    one = run_lbr("raise", game, hands=40, seed=1, workers=1, progress=False)
    assert r.hands == 40 and r.workers == 2 and np.array_equal(r.chips, one.chips) and r.stats == one.stats


def _batch_matches_single(agent: Agent, game: GameDef, bettings: list[str], seed: int) -> None:
    from evaluation.equity import all_hands

    rng = np.random.default_rng(seed)
    hands = all_hands(game)
    for betting in bettings:
        state = State.from_betting(game, betting)
        p = state.current_player
        board = tuple(int(c) for c in rng.choice(game.deck(), game.total_board_cards, replace=False))
        state = state.with_cards([()] * 2, board)
        holes = np.array([h for h in hands if not set(h) & set(state.visible_board)])
        holes = holes[rng.permutation(len(holes))[:120]]
        view = MatchState(p, state.with_cards([()] * 2))
        agent.begin_hand(MatchState(p, State.initial(game)))
        singles = [MatchState(p, state.with_cards([tuple(h) if q == p else () for q in range(2)])) for h in holes]
        actions = {a for v in singles for a, q in agent.action_distribution(v) if q > 0}
        for action in actions:
            batch = agent.action_probabilities(view, holes, action)
            single = np.array([agent.action_probability(v, action) for v in singles])
            assert np.allclose(batch, single, atol=1e-12), (betting, action)


def test_blueprint_batch_probabilities_match_its_distribution(tiny_card_abstraction: object, tmp_path):
    """LBR asks the blueprint for a whole range at once; the answer equals the per-hand distribution."""
    from blueprint.agent import BlueprintAgent
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    leduc = load_game("leduc")
    t = Trainer(BlueprintConfig(name="l", game="leduc", iterations=20_000, chunk=20_000), directory=None)
    t.train(progress=False)
    _batch_matches_single(BlueprintAgent(t.blueprint(), seed=1), leduc, ["", "r", "rc/", "rc/r"], 0)
    hunl_cfg = BlueprintConfig(name="h", game="hunl", cards="tiny", actions="tiny", iterations=20_000, chunk=20_000,
                               dtype="float32")
    t = Trainer(hunl_cfg, directory=None)
    t.train(progress=False)
    _batch_matches_single(BlueprintAgent(t.blueprint(), seed=1), load_game("hunl"),
                          ["", "r300", "r300c/", "r300r900", "c", "r300c/r600", "r250c/r1000"], 1)


def test_lbr_scored_with_aivat_too():
    """run_lbr(value=...): the same hands' AIVAT estimates beside the chips (the agent's policy known)."""
    game = load_game("leduc-nl")
    r = run_lbr("random", game, hands=40, seed=2, progress=False, value="equity")
    plain = run_lbr("random", game, hands=40, seed=2, progress=False)
    assert np.array_equal(r.chips, plain.chips) and plain.aivat is None
    assert r.aivat is not None and r.aivat.shape == r.chips.shape and np.isfinite(r.aivat).all()
    assert r.aivat_rate is not None and "AIVAT" in r.summary()


def test_sampled_lbr_runs_estimate_the_exact_value(leduc_nl_solution):
    """LBR's sampled runs (dealt hands, the agent's drawn actions) against a mixed policy estimate LBR's exact
    expected winnings (every deal and agent action enumerated): the exact value lies inside the run's 99% CI,
    and the run is not trivially exact (its interval is wide; the exact value is not the blinds)."""
    from evaluation.match import play_match

    game = load_game("leduc-nl")
    agent = PolicyAgent(game, leduc_nl_solution)
    exact = exact_lbr_value(game, agent, LbrSettings())
    r = play_match(LocalBestResponse(game, agent, LbrSettings(), seed=3), PolicyAgent(game, leduc_nl_solution), game,
                   4000, seed=3, duplicate=True, progress=False)
    rate = r.win_rate
    exact_mbb = 1000.0 * exact / game.big_blind
    assert rate.ci95 > 50.0  # the agent mixes: single hands vary
    assert abs(rate.mbb - exact_mbb) <= rate.ci95 * 2.576 / 1.96, (rate, exact_mbb)


def test_calling_range_lbr_is_still_a_lower_bound_and_plays_differently(leduc_nl_solution):
    """Raises valued against the calling range (``call_range``): LBR's exact value stays at most the exact best
    response's against every agent, and against the mixed CFR+ policy it is another strategy (another value)."""
    game = load_game("leduc-nl")
    cr = LbrSettings(call_range=True)
    assert cr.label() == "FCPA-CR"
    for agent in (PolicyAgent(game, leduc_nl_solution), make_agent("call", game), make_agent("raise", game)):
        br0, br1 = policy_best_responses(game, _agent_policy(game, agent), PCA)
        assert exact_lbr_value(game, agent, cr) <= (br0 + br1) / 2 + 1e-9
    solved = PolicyAgent(game, leduc_nl_solution)
    assert abs(exact_lbr_value(game, solved, cr) - exact_lbr_value(game, solved, LbrSettings())) > 1e-3
