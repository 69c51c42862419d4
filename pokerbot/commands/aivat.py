"""``pokerbot aivat LOG --agent NAME=SPEC ...``: AIVAT-score the hands of any heads-up ACPC match log.

Each ``--agent NAME=SPEC`` names a player of the log and the agent it played (a spec of
:func:`pokerbot.bots.make_agent`); the agent is built afresh and asked for its policy at each of that
player's decisions (:func:`evaluation.aivat.aivat_from_log`). A player without an ``--agent`` is of unknown
policy: its decisions get no correction, the chance events still do. The result is printed as
:meth:`evaluation.aivat.AivatResult.summary` prints it (``pokerbot eval`` reports the same figures).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evaluation.aivat import AivatResult

HELP = ("AIVAT-score an ACPC match log: plain and AIVAT mbb/g with 95-percent confidence intervals for one player, "
        "the known players' policies replayed from their agent specs")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="a heads-up ACPC match log (ours or the reference dealer's)")
    parser.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                        help="a player of the log and the agent it played: random, call, raise, equity or "
                             "package.module:factory[?k=v]; repeat for each player whose policy is known "
                             "(default: none, every policy unknown)")
    parser.add_argument("--player", default=None, metavar="NAME",
                        help="the player whose win rate is printed (default: the first --agent's)")
    parser.add_argument("--game", default=None,
                        help="a shipped game name or .game file (default: the game the log's header names)")
    parser.add_argument("--value", default="fitted", metavar="KIND",
                        help="AIVAT's value function: fitted, equity or blueprint:<file or run name> (default fitted)")
    parser.add_argument("--duplicate", action="store_true",
                        help="hands 2k and 2k+1 share their cards (a duplicate match): confidence intervals over pairs "
                             "(default: over single hands)")
    parser.add_argument("--seed", type=int, default=0,
                        help="the match's seed: the k-th --agent gets the seed 2*seed+k, as `pokerbot match` seeds "
                             "A and B, and the value function's sampled equities use it (default 0)")


def parse_agents(items: list[str]) -> dict[str, str]:
    """``NAME=SPEC`` items as {name: spec}, in order; ArgumentError on a bad or repeated item.

    >>> parse_agents(["alice=random", "bob=equity?samples=400"])
    {'alice': 'random', 'bob': 'equity?samples=400'}
    """
    from pokerbot.commands._args import ArgumentError, agent_spec

    agents: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        name = name.strip()
        if not sep or not name or not spec.strip():
            raise ArgumentError(f"--agent {item!r}: write NAME=SPEC, e.g. random=random (NAME as in the log)")
        if name in agents:
            raise ArgumentError(f"--agent: player {name!r} is given twice")
        agents[name] = agent_spec(f"--agent {name}", spec.strip())
    return agents


def score(args: argparse.Namespace) -> AivatResult:
    """The AIVAT result the command prints (checked arguments, the log read, the agents built)."""
    import os

    from pokerbot.commands._args import ArgumentError, input_file, seed

    specs = parse_agents(args.agent)
    seed("--seed", args.seed)
    player = args.player if args.player is not None else next(iter(specs), None)
    if not player:
        raise ArgumentError("name the player to score: --player NAME, or at least one --agent NAME=SPEC")
    kind, _, blueprint = args.value.partition(":")
    if kind not in ("fitted", "equity", "blueprint") or (kind == "blueprint") != bool(blueprint):
        raise ArgumentError(f"--value must be fitted, equity or blueprint:<file or run name>, got {args.value!r}")
    log_path = input_file("LOG", args.log)

    from evaluation.aivat import AivatError, _reports_policy, aivat_from_log
    from evaluation.blueprint_value import make_value
    from evaluation.export import game_of_log, read_log_file
    from pokerbot.bots import make_agent

    game = game_of_log(log_path, args.game)
    if game.num_players != 2:
        raise AivatError(f"AIVAT scores heads-up logs; {game.name} has {game.num_players} players")
    log = read_log_file(game, log_path)
    in_log = sorted({name for hand in log.hands for name in hand.names})
    for name in [player, *specs]:
        if name not in in_log:
            raise ArgumentError(f"no player {name!r} in {os.fspath(log_path)} (its players: {', '.join(in_log)})")
    agents = {}
    for k, (name, spec) in enumerate(specs.items()):
        agent = make_agent(spec, game, seed=(2 * args.seed + k + 1) % 2**32)
        if not _reports_policy(agent):
            raise AivatError(f"--agent {name}={spec}: the agent reports no policy (its action_distribution is "
                             f"Agent's, which answers None): leave it out to score {name} as a player of "
                             f"unknown policy")
        agents[name] = agent
    value_fn = make_value(kind, game, args.seed, blueprint=blueprint)
    return aivat_from_log(game, log, player, agents, value_fn=value_fn, duplicate=args.duplicate, seed=args.seed)


def run(args: argparse.Namespace) -> int:
    result = score(args)
    known = ", ".join(f"{name} {'known' if k else 'unknown'}" for name, k in zip(result.names, result.known))
    print(f"{args.log}: {result.chips.size} hands of {result.game.name}, value {args.value}; policies: {known}")
    print(result.summary())
    return 0
