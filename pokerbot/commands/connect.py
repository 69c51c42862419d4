"""``pokerbot connect``: play an agent against any ACPC 2.0.0 dealer.

The match is a success (exit 0) only when the dealer closes the connection after a finished hand
(and after ``--hands`` hands, when given). A dealer that closes it in the middle of a hand (an aborted
match) or before any hand, a dealer silent for ``--timeout`` seconds and an agent that raises are
failures: one line on stderr, exit 1 (the summary of the hands finished before goes to stdout).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pokerbot.matchstate import MatchState

HELP = "connect an agent to an ACPC 2.0.0 dealer and play until the match ends"

#: Seconds of silence from the dealer after which ``pokerbot connect`` gives up (``--timeout``).
DEFAULT_TIMEOUT = 600.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", metavar="HOST", help="the dealer's address")
    parser.add_argument("port", metavar="PORT", type=int, help="the port of the seat to take")
    parser.add_argument("--agent", default="call",
                        help="agent spec: random, call, raise, equity, or package.module:factory[?k=v&...]")
    parser.add_argument("--game", default="hunl", help="the dealer's game: a .game file or shipped name (hunl)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the agent's own randomness (default: from the operating system)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help="fail if the dealer sends nothing for this long, e.g. while the opponent thinks; "
                             f"0 waits forever (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--hands", type=int, default=None, metavar="N",
                        help="the match's number of hands: fail if the dealer ends it sooner "
                             "(default: not checked; a close in the middle of a hand fails anyway)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no per-hand lines (default: one line per hand on stderr)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pokerbot.commands._args import agent_spec, count, number, optional_count, seed
    from pokerbot.errors import ProtocolError

    count("PORT", args.port, 1, 65535)
    agent_spec("--agent", args.agent)
    seed("--seed", args.seed)
    number("--timeout", args.timeout, 0.0, 10**9)
    optional_count("--hands", args.hands)

    from pokerbot.agent import fallback_note
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from pokerbot.protocol.client import play_acpc, plural

    game = load_game(args.game)
    agent = make_agent(args.agent, game, seed=args.seed)

    def on_hand(view: MatchState, value: float) -> None:
        if not args.quiet:
            print(f"hand {view.state.hand_id}: {value:+g}", file=sys.stderr)

    result = play_acpc(agent, game, args.host, args.port, idle_timeout=args.timeout or None, on_hand=on_hand)
    failure = None
    if result.closed_mid_hand:
        failure = (f"the dealer closed the connection in the middle of hand {result.last_hand_id}, "
                   f"after {plural(result.hands, 'finished hand')} (the match was aborted)")
    elif result.hands == 0:
        failure = "the dealer closed the connection before the first hand ended (after 0 hands)"
    elif args.hands is not None and result.hands < args.hands:
        failure = f"the dealer closed the connection after {result.hands} of {plural(args.hands, 'hand')}"
    if result.hands:
        mbb = 1000.0 * result.total / result.hands / game.big_blind
        fell = fallback_note(agent.decision_counts())
        print(f"{agent.name}: {plural(result.hands, 'hand')}, {result.total:+g} chips, {mbb:+.1f} mbb/g"
              + (f", {result.repaired} illegal actions repaired" if result.repaired else "")
              + (f"; {fell}" if fell else "")
              + (" (stopped early)" if failure else ""), flush=True)
    if failure is not None:
        raise ProtocolError(failure)
    return 0
