"""``pokerbot connect``: play an agent against any ACPC 2.0.0 dealer."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokerbot.matchstate import MatchState

HELP = "connect an agent to an ACPC 2.0.0 dealer and play until the match ends"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", metavar="HOST", help="the dealer's address")
    parser.add_argument("port", metavar="PORT", type=int, help="the port of the seat to take")
    parser.add_argument("--agent", default="call",
                        help="agent spec: random, call, raise, equity, or package.module:factory[?k=v&...]")
    parser.add_argument("--game", default="hunl", help="the dealer's game: a .game file or shipped name (hunl)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the agent's own randomness (default: from the operating system)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="give up if the dealer sends nothing for this long (default: wait)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-hand lines (default: one line per hand on stderr)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pokerbot.commands._args import agent_spec, count, number, seed

    count("PORT", args.port, 1, 65535)
    agent_spec("--agent", args.agent)
    seed("--seed", args.seed)
    number("--timeout", args.timeout, 0.0, 10**9, low_open=True)

    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from pokerbot.protocol.client import play_acpc

    game = load_game(args.game)
    agent = make_agent(args.agent, game, seed=args.seed)

    def on_hand(view: MatchState, value: float) -> None:
        if not args.quiet:
            print(f"hand {view.state.hand_id}: {value:+g}", file=sys.stderr)

    result = play_acpc(agent, game, args.host, args.port, idle_timeout=args.timeout, on_hand=on_hand)
    hands = max(result.hands, 1)
    mbb = 1000.0 * result.total / hands / game.big_blind
    print(f"{agent.name}: {result.hands} hands, {result.total:+g} chips, {mbb:+.1f} mbb/g"
          + (f", {result.repaired} illegal actions repaired" if result.repaired else ""))
    return 0
