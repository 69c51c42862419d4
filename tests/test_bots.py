"""Baseline bots: legal play in every shipped game, their rules, equity against an exact count, specs."""

from __future__ import annotations

import itertools

import pytest

from evaluation.match import play_match
from pokerbot.agent import Agent
from pokerbot.bots import (AgentSpecError, EquityAgent, RandomAgent, make_agent, parse_spec, pot_raise,
                          registered_agents)
from pokerbot.cards import parse_cards
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import SHIPPED_GAMES, load_game
from pokerbot.matchstate import MatchState, parse_matchstate
from pokerbot.state import CALL, FOLD, ActionType, State, raise_to

BUILTINS = ["random", "call", "raise", "equity?samples=60"]


class Strict(Agent):
    """Wraps an agent and fails the test on any illegal action or a peek at hidden cards."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.actions = 0

    def act(self, view: MatchState):  # type: ignore[no-untyped-def]
        state = view.state
        assert view.is_my_turn
        for p, hole in enumerate(state.hole_cards):
            assert (len(hole) > 0) == (p == view.viewer), "an agent must see only its own cards"
        assert len(state.board_cards) == state.game.board_cards_through(state.round)
        action = self.inner.act(view)
        assert state.is_legal(action), f"{self.name} chose illegal {action} at {state.betting_string()!r}"
        self.actions += 1
        return action


@pytest.mark.parametrize("game_name", sorted(SHIPPED_GAMES))
def test_every_baseline_plays_every_shipped_game_legally(game_name: str) -> None:
    game = load_game(game_name)
    for a, b in itertools.combinations_with_replacement(BUILTINS, 2):
        sa, sb = Strict(make_agent(a, game, seed=1)), Strict(make_agent(b, game, seed=2))
        result = play_match(sa, sb, game, 30, seed=4, progress=False)
        assert result.hands == 30 and sa.actions + sb.actions > 0


def test_random_bot_uses_every_kind_and_uniform_sizes() -> None:
    game = load_game("hunl")
    bot = RandomAgent(game, seed=0)
    view = parse_matchstate(game, "MATCHSTATE:1:0::|AsKd")  # small blind facing the big blind
    picks = [bot.act(view) for _ in range(3000)]
    kinds = [sum(a.kind == k for a in picks) for k in ActionType]
    assert all(900 < k < 1100 for k in kinds), kinds  # a third each
    sizes = [a.size for a in picks if a.kind == ActionType.RAISE]
    assert min(sizes) >= 200 and max(sizes) <= 20000
    assert 9000 < sum(sizes) / len(sizes) < 11200  # uniform on 200..20000 has mean 10100


def test_random_bot_is_reproducible() -> None:
    game = load_game("leduc-nl")
    view = parse_matchstate(game, "MATCHSTATE:0:0::Ks|")
    a = [RandomAgent(game, seed=5).act(view) for _ in range(3)]
    b, c = RandomAgent(game, seed=5), RandomAgent(game, seed=5)
    assert [b.act(view) for _ in range(20)] == [c.act(view) for _ in range(20)]
    assert len(set(a)) == 1


def test_pot_size_raises() -> None:
    game = load_game("hunl")
    s = State.initial(game)
    assert pot_raise(s) == raise_to(300)  # call 50 to 100, raise the 200 pot
    s = s.apply(raise_to(300))
    assert pot_raise(s) == raise_to(900)  # call 200 to 300, pot 600
    s = s.apply(CALL)  # flop, pot 600
    assert pot_raise(s) == raise_to(900)
    s = State.from_betting(game, "r19000")
    assert pot_raise(s) == raise_to(20000)  # clamped to the stack
    assert pot_raise(State.from_betting(game, "r20000")) is None
    limit = load_game("hulhe")
    assert pot_raise(State.initial(limit)).kind == ActionType.RAISE
    assert pot_raise(State.from_betting(limit, "rrr")) is None  # cap reached


def _exact_river_equity(hole: str, board: str) -> float:
    """Equity against every opponent hand, counted with treys (an independent evaluator)."""
    from treys import Card, Evaluator

    ev = Evaluator()
    h = [Card.new(hole[i : i + 2]) for i in range(0, len(hole), 2)]
    b = [Card.new(board[i : i + 2]) for i in range(0, len(board), 2)]
    used = set(hole[i : i + 2] for i in range(0, 4, 2)) | set(board[i : i + 2] for i in range(0, len(board), 2))
    rest = [r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in used]
    mine = ev.evaluate(b, h)  # treys: lower is better
    score = 0.0
    pairs = list(itertools.combinations(rest, 2))
    for x, y in pairs:
        theirs = ev.evaluate(b, [Card.new(x), Card.new(y)])
        score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return score / len(pairs)


@pytest.mark.parametrize("hole,board", [("AsKd", "2c7hTdJs3c"), ("7c2d", "AhKhQh9s4c"), ("QsQc", "Qd2h2s8c9c")])
def test_equity_matches_an_exact_count_on_the_river(hole: str, board: str) -> None:
    bot = EquityAgent(load_game("hunl"), seed=0, samples=20000)
    estimate = bot.equity(tuple(parse_cards(hole)), tuple(parse_cards(board)))
    assert estimate == pytest.approx(_exact_river_equity(hole, board), abs=0.012)


def test_equity_in_kuhn_and_preflop_hold_em() -> None:
    kuhn = EquityAgent(load_game("kuhn"), seed=0, samples=2000)
    # Kuhn deck Q K A (one suit): the king beats the queen only.
    assert [kuhn.equity((c,), ()) for c in parse_cards("QsKsAs")] == [0.0, pytest.approx(0.5, abs=0.04), 1.0]
    hunl = EquityAgent(load_game("hunl"), seed=0, samples=20000)
    assert hunl.equity(tuple(parse_cards("AsAh")), ()) == pytest.approx(0.852, abs=0.012)  # known figure


def test_equity_bot_rules() -> None:
    game = load_game("hunl")
    bot = EquityAgent(game, seed=0, samples=2000)
    assert bot.act(parse_matchstate(game, "MATCHSTATE:1:0::|AsAh")) == raise_to(300)
    # 7-2 offsuit facing an all-in: far below the pot odds (19900 to win 20100 needs ~50%).
    assert bot.act(parse_matchstate(game, "MATCHSTATE:0:0:r20000:7c2d|")) == FOLD
    # A middling hand facing a tiny bet calls; checking is free.
    assert bot.act(parse_matchstate(game, "MATCHSTATE:0:0:r300c/r400:Ts9s|/2c7h4d")) == CALL
    assert bot.act(parse_matchstate(game, "MATCHSTATE:0:0:cc/:7c2d|/AhKhQh")) == CALL


def test_equity_bot_is_reproducible_and_caches() -> None:
    game = load_game("hunl")
    a, b = EquityAgent(game, seed=3, samples=100), EquityAgent(game, seed=3, samples=100)
    hands = [tuple(parse_cards(h)) for h in ("AsKd", "7c2d", "9h9s")]
    assert [a.equity(h, ()) for h in hands] == [b.equity(h, ()) for h in hands]
    first = a.equity(hands[0], ())
    assert a.equity(hands[0], ()) == first  # cached


def test_make_agent_specs() -> None:
    game = load_game("leduc")
    assert parse_spec("equity?samples=10&raise=0.8") == ("equity", {"samples": "10", "raise": "0.8"})
    eq = make_agent("equity?samples=10&raise=0.8", game, seed=1)
    assert isinstance(eq, EquityAgent) and eq.samples == 10 and eq.raise_at == 0.8 and eq.name == "equity"
    assert make_agent("always-call", game).name == "always-call"


def test_only_registered_factories_run_without_the_opt_in(tmp_path, monkeypatch) -> None:
    """A spec from a shared file must not call arbitrary code: ``logging:basicConfig?filename=X&filemode=w``
    truncated X. Unregistered factories are refused, registered ones (by name or module:factory) run, and the
    opt-in lets any factory run."""
    game = load_game("leduc")
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    monkeypatch.delenv("POKERBOT_ALLOW_ANY_AGENT", raising=False)
    for spec in (f"logging:basicConfig?filename={victim}&filemode=w", "pokerbot.bots:RandomAgent?name=mine"):
        with pytest.raises(AgentSpecError, match="not a registered agent factory.*--allow-any-agent"):
            make_agent(spec, game, seed=2)
    assert victim.read_text() == "keep me"
    assert "blueprint" in registered_agents() and "sog" in registered_agents()
    with pytest.raises(PokerbotError, match="path"):  # registered: imported and called (it needs a path)
        make_agent("blueprint.agent:make_agent", game)
    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")  # the opt-in (negative control: the same spec now runs)
    ext = make_agent("pokerbot.bots:RandomAgent?name=mine", game, seed=2)
    assert isinstance(ext, RandomAgent) and ext.name == "mine"


def test_equity_agent_cache_size_from_a_spec_plays() -> None:
    """Spec values arrive as text: ``cache_size`` is read as a number (it once crashed on the first action)."""
    from evaluation.match import play_match

    game = load_game("leduc")
    agent = make_agent("equity?samples=5&cache_size=3", game, seed=1)
    result = play_match(agent, make_agent("random", game, seed=2), game, 20, 0, progress=False)
    assert len(result.chips) == 20


@pytest.mark.parametrize(
    "spec,match",
    [
        ("nobody", "unknown agent"),
        ("no.such.module:f", "cannot import"),
        ("pokerbot.bots:nothing", "no callable"),
        ("pokerbot.bots:pot_raise", "not an Agent|pot_raise"),
        ("equity?bogus=1", "bogus"),
        ("equity?samples=0", "samples"),
        ("", "empty"),
    ],
)
def test_bad_specs_raise_named_errors(spec: str, match: str, monkeypatch) -> None:
    monkeypatch.setenv("POKERBOT_ALLOW_ANY_AGENT", "1")  # import errors are named even where imports are allowed
    with pytest.raises(AgentSpecError, match=match):
        make_agent(spec, load_game("kuhn"))


@pytest.mark.parametrize("spec", [":", ":make_agent", ".relative:make"])
def test_a_spec_with_an_empty_or_relative_module_is_a_spec_error(spec: str) -> None:
    with pytest.raises(AgentSpecError):
        make_agent(spec, load_game("kuhn"))
