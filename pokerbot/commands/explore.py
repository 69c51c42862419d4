"""``pokerbot explore``: a strategy explorer in the browser (loopback only): spot solutions and blueprints."""

from __future__ import annotations

import argparse

HELP = ("explore a solved spot, a blueprint or a real-time agent's solve in your browser: grids of action "
        "frequencies and ranges (127.0.0.1)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="PATH|SPEC",
                        help="a spot solution (pokerbot spot --out FILE.json), a blueprint .npz, or the name of a "
                             "trained blueprint run under $POKERBOT_HOME/blueprints (e.g. hunl-tiny); with --state, "
                             "a real-time agent's config (configs/realtime-NAME.toml name, e.g. hunl-tiny, or a "
                             "TOML path)")
    parser.add_argument("--state", default=None, metavar="MATCHSTATE",
                        help="show the real-time agent's solve at this hand state, an ACPC line such as "
                             "'MATCHSTATE:0:0:cr300c/:|9s8h/KdTs6c' (default: none; SPEC is then a spot or blueprint)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="loopback address to serve on: 127.0.0.1, ::1 or localhost (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8766, help="port to serve on; 0 picks a free one (default 8766)")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page in a browser (default: open it)")


def run(args: argparse.Namespace) -> int:
    from evaluation.explore.server import check_host, create_app, serve
    from evaluation.explore.sources import ExploreError, Source, load_solve, open_source
    from evaluation.play.server import bind, url_of

    check_host(args.host)
    if not 0 <= args.port < 65536:
        raise ExploreError(f"--port must be in 0..65535, got {args.port}")
    source: Source
    if args.state is not None:
        print(f"pokerbot explore: solving at {args.state} with the real-time agent {args.source} ...", flush=True)
        source = load_solve(args.source, args.state)
    else:
        source = open_source(args.source)
    app = create_app(source, host=args.host)
    sock = bind(args.host, args.port)
    url = url_of(sock)
    print(f"pokerbot explore: {url} {source.info()['title']}; Ctrl-C stops", flush=True)
    if not args.no_browser:
        import webbrowser

        webbrowser.open(url)
    serve(app, sock)
    return 0
