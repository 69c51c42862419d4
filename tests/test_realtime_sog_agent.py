"""The SoG agent plays matches in-process and over the ACPC protocol."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.match import play_match
from pokerbot.bots import make_agent
from pokerbot.gamedef import load_game
from realtime.sog.agent import SoGAgent
from realtime.sog.resolve import SearchSettings, chain_policy, search_seed
from realtime.sog.search import PublicGame, SoGError
from realtime.sog.values import ExactValue

SPEC = "realtime.sog.agent:make_agent?exact=1&simulations=20&exact_iterations=30"


def test_agent_plays_its_composed_policy_at_the_first_decision() -> None:
    """The agent's first search is the chain's first search (same seed): same policy."""
    game = load_game("kuhn")
    agent = make_agent(SPEC, game, seed=0)
    assert isinstance(agent, SoGAgent)
    agent.begin_match(game)
    pg = PublicGame.load(game)
    from pokerbot.matchstate import parse_matchstate

    view = parse_matchstate(game, "MATCHSTATE:0:0::Ks|")
    agent.begin_hand(view)
    agent.act(view)
    got = agent.searches[0].policy()
    out = np.zeros(pg.tree.num_slots)
    # chain_policy seeds its searches with search_seed(seed, own, node); the agent with seed * 1_000_003 + hand.
    chain_policy(pg, 0, ExactValue(pg, 30), SearchSettings(20, 1.0), 1, out)
    assert search_seed(1, 0, 0) == search_seed(0 * 1_000_003 + 1, 0, 0)
    assert np.allclose(out[: got.size], got.reshape(-1))


@pytest.mark.parametrize(
    "name,spec",
    [("kuhn", SPEC), ("leduc", SPEC),
     # no-limit: opponent raises off the menu are translated (a small search keeps this quick)
     ("leduc-nl", "realtime.sog.agent:make_agent?exact=1&simulations=3&exact_iterations=5")],
)
def test_agent_plays_legal_hands(name: str, spec: str) -> None:
    game = load_game(name)
    result = play_match(make_agent(spec, game, seed=1), make_agent("random", game, seed=2), game, hands=12, seed=3,
                        progress=False)
    assert len(result.chips) == 12


def test_agent_over_acpc() -> None:
    game = load_game("kuhn")
    result = play_match(make_agent(SPEC, game, seed=1), make_agent("call", game, seed=2), game, hands=10, seed=4,
                        progress=False, over_acpc=True)
    assert len(result.chips) == 10


def test_agent_needs_a_network_or_exact() -> None:
    with pytest.raises(SoGError):
        make_agent("realtime.sog.agent:make_agent", load_game("kuhn"))


def _network_checkpoint(path, game_name: str) -> str:  # type: ignore[no-untyped-def]
    """An (untrained) CVPN checkpoint of the layout training writes, for agent specs with ``path=``."""
    import torch

    from realtime.sog.network import CVPN

    torch.manual_seed(0)
    net = CVPN.for_game(PublicGame.load(game_name), hidden=16, layers=1)
    torch.save({"spec": net.spec(), "model": net.state_dict(), "step": 0,
                "config": {"game": game_name, "prior_temperature": 1.0}}, path)
    return str(path)


def test_network_agent_plays_leduc_over_acpc_against_the_framework_agents(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The spec `pokerbot match` / `pokerbot connect` take, with a network, over the ACPC dealer."""
    game = load_game("leduc")
    spec = f"realtime.sog.agent:make_agent?path={_network_checkpoint(tmp_path / 'leduc.pt', 'leduc')}&simulations=10"
    for opponent in ("equity", "raise"):
        sog = make_agent(spec, game, seed=1)
        result = play_match(sog, make_agent(opponent, game, seed=2), game, hands=4, seed=5, progress=False,
                            over_acpc=True)
        assert len(result.chips) == 4
        assert isinstance(sog, SoGAgent) and sog.hands_played == 4 and sog.searches


def test_network_agent_refuses_a_checkpoint_of_another_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    spec = f"realtime.sog.agent:make_agent?path={_network_checkpoint(tmp_path / 'kuhn.pt', 'kuhn')}"
    with pytest.raises(SoGError, match="trained on 'kuhn'"):
        make_agent(spec, load_game("leduc"))
