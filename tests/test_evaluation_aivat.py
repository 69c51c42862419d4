"""AIVAT: exact unbiasedness by enumeration on Kuhn and Leduc, variance cuts, log replay, bad input."""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path

import numpy as np
import pytest

from blueprint.agent import BlueprintAgent
from blueprint.config import BlueprintConfig
from blueprint.trainer import Trainer
from evaluation.aivat import (
    AivatError,
    EquityValue,
    FittedValue,
    ValueFunction,
    aivat_from_log,
    aivat_hand,
    play_match_aivat,
)
from evaluation.equity import hand_equities
from pokerbot.agent import Agent
from pokerbot.bots import make_agent
from pokerbot.cards import parse_cards
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, Action, State


class HashValue(ValueFunction):
    """A poor value function: deterministic noise of +-50 chips per (cards, betting), unrelated to the game."""

    def value(self, state: State) -> float:
        key = f"{state.hole_cards}{state.board_cards}{state.betting_string()}{state.finished}".encode()
        return (zlib.crc32(key) % 10_001) / 100.0 - 50.0


class Unknown(Agent):
    """Plays like ``inner`` but does not report its policy."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name

    def act(self, view: MatchState) -> Action:
        return self.inner.act(view)


class Liar(Agent):
    """Plays like ``inner`` but reports the uniform policy (a wrong policy: AIVAT must become biased)."""

    def __init__(self, inner: Agent, game: GameDef) -> None:
        self.inner = inner
        self.random = make_agent("random", game)
        self.name = inner.name

    def act(self, view: MatchState) -> Action:
        return self.inner.act(view)

    def action_distribution(self, view: MatchState):  # type: ignore[no-untyped-def]
        return self.random.action_distribution(view)


def _view(state: State, p: int) -> MatchState:
    holes = [h if q == p else () for q, h in enumerate(state.hole_cards)]
    return MatchState(p, state.with_cards(holes, state.visible_board))


def _true_dist(agent: Agent, view: MatchState):  # type: ignore[no-untyped-def]
    inner = getattr(agent, "inner", agent)
    return inner.action_distribution(view)


def enumerate_expectations(game: GameDef, agents: tuple[Agent, Agent], value_fn: ValueFunction) -> tuple[float, float, float, float]:
    """(E[chips], E[AIVAT], Var[chips], Var[AIVAT]) of player 0 over every deal and every action path."""
    deck = game.deck()
    k = game.num_hole_cards
    totals = np.zeros(4)
    deals = []
    for h0 in itertools.combinations(deck, k):
        for h1 in itertools.combinations([c for c in deck if c not in h0], k):
            rest = [c for c in deck if c not in h0 + h1]
            for board in itertools.combinations(rest, game.total_board_cards):
                deals.append((h0, h1, board))
    weight = 1.0 / len(deals)

    def walk(state: State, prob: float, dists: list) -> None:  # type: ignore[type-arg]
        if state.finished:
            u, est = aivat_hand(state, value_fn, dists)
            totals[:] += prob * np.array([u, est, u * u, est * est])
            return
        p = state.current_player
        view = _view(state, p)
        agent = agents[p]
        if isinstance(agent, BlueprintAgent):
            agent.begin_hand(_view(State.initial(game, state.hand_id, state.hole_cards), p))
        true = _true_dist(agent, view)
        reported = agent.action_distribution(view)
        for action, q in true:
            if q > 0:
                walk(state.apply(action), prob * q, dists + [reported])

    for h0, h1, board in deals:
        walk(State.initial(game, 0, (h0, h1), board), weight, [])
    e_u, e_a, s_u, s_a = totals
    return e_u, e_a, s_u - e_u**2, s_a - e_a**2


@pytest.fixture(scope="module")
def leduc_bp() -> BlueprintAgent:
    t = Trainer(BlueprintConfig(name="leduc", game="leduc", iterations=50_000, chunk=50_000), directory=None)
    t.train(progress=False)
    return BlueprintAgent(t.blueprint(), seed=3)


def _fitted(game: GameDef, a: str, b: str) -> FittedValue:
    """A FittedValue whose weights were fitted on a sampled match, then frozen."""
    v = FittedValue(refit_every=10**9)
    play_match_aivat(make_agent(a, game, 5), make_agent(b, game, 6), game, 300, seed=9, value_fn=v, progress=False)
    v.refit()
    v.refit_every = 10**9
    v.learn = lambda final: None  # type: ignore[method-assign]
    return v


CASES = [(g, a, b, v) for g, a, b in [("kuhn", "random", "raise"), ("kuhn", "call", "random"),
                                       ("kuhn", "random", "random")]
         for v in ("equity", "fitted", "hash")]
CASES += [("leduc", "random", "raise", "equity"), ("leduc", "random", "raise", "hash"),
          ("leduc", "equity", "random", "equity")]
SLOW_CASES = [("leduc", "random", "random", v) for v in ("equity", "fitted", "hash")] + [
    ("leduc", "equity", "random", v) for v in ("fitted", "hash")] + [("leduc", "random", "raise", "fitted")]


@pytest.mark.parametrize("game_name,a,b,value", CASES + [pytest.param(*c, marks=pytest.mark.slow) for c in SLOW_CASES])
def test_aivat_is_exactly_unbiased(game_name: str, a: str, b: str, value: str):
    game = load_game(game_name)
    agents = (make_agent(a, game, 1), make_agent(b, game, 2))
    if a == "equity":  # fill its equity cache: its policy is then a fixed function of the view
        play_match_aivat(agents[0], make_agent("random", game, 3), game, 400, seed=4, progress=False)
    v = {"equity": EquityValue(), "fitted": _fitted(game, a, b), "hash": HashValue()}[value]
    e_u, e_a, var_u, var_a = enumerate_expectations(game, agents, v)
    assert abs(e_a - e_u) < 1e-9, (e_u, e_a)
    if value == "equity":
        assert var_a < var_u  # the check-down value does help on these games
    # An unknown opponent gets chance and own-action corrections only: still exact.
    e_u2, e_a2, _, _ = enumerate_expectations(game, (agents[0], Unknown(agents[1])), v)
    assert abs(e_u2 - e_u) < 1e-12 and abs(e_a2 - e_u) < 1e-9


def test_aivat_true_value_matches_the_solver():
    """The enumerated EV of random vs raise in Kuhn agrees with the solver's exact policy value."""
    from pokerbot.solver import game_tree, policy_value
    from pokerbot.solver.policy import strategy_to_policy
    from pokerbot.solver.best_response import uniform_strategy

    game = load_game("kuhn")
    e_u, _, _, _ = enumerate_expectations(game, (make_agent("random", game), make_agent("raise", game)), EquityValue())
    tree = game_tree(game)
    uniform = strategy_to_policy(tree, uniform_strategy(tree))
    raise_pol = {key: ({"r": 1.0} if "r" in dist else {"c": 1.0}) for key, dist in uniform.items()}
    assert abs(policy_value(game, uniform, raise_pol) - e_u) < 1e-9


def test_blueprint_policy_in_the_enumeration(leduc_bp: BlueprintAgent):
    game = load_game("leduc")
    e_u, e_a, var_u, var_a = enumerate_expectations(game, (leduc_bp, make_agent("random", game, 1)), EquityValue())
    assert abs(e_a - e_u) < 1e-9
    assert var_a < var_u


def test_a_wrong_policy_makes_aivat_biased():
    """Negative control: the same check with a player reporting uniform while always raising fails."""
    game = load_game("leduc")
    raiser = make_agent("raise", game)
    e_u, e_a, _, _ = enumerate_expectations(game, (make_agent("random", game), Liar(raiser, game)), EquityValue())
    assert abs(e_a - e_u) > 1e-2


def test_sampled_preflop_equity_is_unbiased_on_average():
    """HUNL preflop equities are sampled; the estimate's mean matches the exact equity of a known matchup."""
    game = load_game("hunl")
    aa, kk = parse_cards("AsAh"), parse_cards("KsKh")
    estimates = [hand_equities(game, aa, [], np.array([kk]), samples=2000, rng=np.random.default_rng(s))[0][0]
                 for s in range(20)]
    assert abs(np.mean(estimates) - 0.8236) < 0.01  # AA vs KK, both suits shared: 82.4%


def test_hunl_match_and_log_replay_agree(tmp_path: Path):
    game = load_game("hunl")
    log = tmp_path / "m.log"
    r = play_match_aivat(make_agent("equity", game, 1), make_agent("raise", game, 2), game, 60, seed=3,
                         progress=False, log_path=log)
    assert r.aivat.shape == (60,) and np.isfinite(r.aivat).all()
    # Stateless agents: the log replay reports the same policies, so the same estimates.
    replay = aivat_from_log(game, log, "raise", {"raise": make_agent("raise", game, 2)}, seed=3)
    assert np.allclose(replay.chips, -r.chips)
    assert replay.known == (True, False)
    # Both agents known, replayed from the log: same hands, finite estimates, unbiased by construction.
    both = aivat_from_log(game, log, "equity", {"equity": make_agent("equity", game, 1),
                                                 "raise": make_agent("raise", game, 2)}, seed=3)
    assert np.allclose(both.chips, r.chips) and np.isfinite(both.aivat).all()


def test_bad_input():
    game = load_game("kuhn")
    s = State.from_betting(game, "cc", hole_cards=[parse_cards("Ks"), ()])
    with pytest.raises(AivatError):
        aivat_hand(s, EquityValue(), [None, None])
    s = State.from_betting(game, "cc", hole_cards=[parse_cards("Ks"), parse_cards("Qs")])
    with pytest.raises(AivatError):
        aivat_hand(s, EquityValue(), [None])
    assert aivat_hand(s, EquityValue(), [[(CALL, 1.0)], [(CALL, 1.0)]])[0] == 1.0
