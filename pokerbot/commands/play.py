"""``pokerbot play``: play heads-up no-limit hold'em against an agent in the browser (loopback only)."""

from __future__ import annotations

import argparse
import math

HELP = "play heads-up poker against an agent in your browser (a local page on 127.0.0.1)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", default="equity",
                        help="the opponent's agent spec: random, call, raise, equity, blueprint, realtime or "
                             "package.module:factory[?k=v], e.g. blueprint?path=hunl-tiny, or "
                             "realtime?config=realtime-hunl-tiny&timed=0 (timed=0: no time limits, every re-solve "
                             "runs all its iterations) (default equity)")
    parser.add_argument("--game", default="hunl", help="a shipped heads-up game name or .game file (default hunl)")
    parser.add_argument("--seed", type=int, default=0,
                        help="card seed, as the ACPC dealer's; the agent gets seed+1 (default 0)")
    parser.add_argument("--name", default="you", help="your name in the log (default you)")
    parser.add_argument("--log", default=None, metavar="PATH",
                        help="ACPC-format log, appended hand by hand; an existing log of the same "
                             "game, seed, name and agent is resumed (default runs/play_<agent name>.<game>.s<seed>.log)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="loopback address to serve on: 127.0.0.1, ::1 or localhost (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to serve on; 0 picks a free one (default 8765)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page in a browser (default: open it)")


def run(args: argparse.Namespace) -> int:
    import types
    from pathlib import Path

    from evaluation.match import match_names
    from evaluation.play.server import bind, check_loopback, serve, url_of
    from evaluation.play.session import PlayError, PlaySession
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    check_loopback(args.host)
    if not 0 <= args.port < 65536:
        raise PlayError(f"--port must be in 0..65535, got {args.port}")
    if not 0 <= args.seed < 2**32:
        raise PlayError(f"--seed must be in 0..2**32-1 (an ACPC dealer seed), got {args.seed}")
    game = load_game(args.game)
    if game.num_players != 2:
        raise PlayError(f"play is heads-up; {game.name} has {game.num_players} players")
    agent = make_agent(args.agent, game, seed=(args.seed + 1) % 2**32)
    if args.log:
        log_path = Path(args.log)
    else:
        bot_name = match_names(types.SimpleNamespace(name=args.name), agent)[1]
        log_path = Path("runs") / f"play_{bot_name}.{game.name}.s{args.seed}.log"
    session = PlaySession(game, agent, args.seed, log_path, human_name=args.name, spec=args.agent)
    sock = bind(args.host, args.port)
    url = url_of(sock)
    done = len(session.finished)
    resumed = f", resuming after {done} hands" if done or session.hand is not None else ""
    print(f"pokerbot play: {url} against {session.names[1]} ({game.name}, seed {args.seed}{resumed}); "
          f"log {log_path}; Ctrl-C stops", flush=True)
    for warning in session.warnings:
        print(f"pokerbot play: warning: {warning}", flush=True)
    limit = getattr(getattr(agent, "config", None), "action_time_limit", None)
    if isinstance(limit, float) and math.isfinite(limit):
        print(f"pokerbot play: {session.names[1]} keeps its {limit:g} s time limit and falls back to its blueprint "
              "when a solve runs out of time; add timed=0 to its spec to let every solve finish", flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    serve(session, sock)
    return 0
