"""The web side of ``pokerbot play``: a small ASGI app (starlette) over a :class:`PlaySession`.

Routes (all JSON but the page and the log):

- ``GET /``: the page (``static/index.html``; ``static/play.js`` and ``play.css`` beside it);
- ``GET /api/state?since=V``: the session's snapshot; with ``since``, waits (up to
  ``wait`` seconds, default 20) until the snapshot's ``version`` differs from ``V``,
  so the page learns of the bot's moves at once without polling hard;
- ``POST /api/action`` ``{"hand", "seq", "kind", "amount"}``: the person's action;
  409 when ``hand``/``seq`` is not the current position (a double click, a stale
  tab), 400 for an illegal action or amount; the answer always carries the snapshot;
- ``POST /api/next`` ``{"after"}``: deal the next hand after hand ``after`` (a repeated
  click deals once);
- ``GET /api/log``: the ACPC log as text.

The agent thinks in a worker thread (:meth:`PlaySession.run_bot`), so the page
is served, and shows the thinking time, while it does. Requests must come with a
loopback ``Host`` header and JSON bodies with ``Content-Type: application/json``,
so a web page elsewhere cannot play for the person (a cross-site form cannot send
that type without a CORS preflight, which this app never grants).

>>> from starlette.testclient import TestClient
>>> from pokerbot.bots import make_agent
>>> from pokerbot.gamedef import load_game
>>> import tempfile, os
>>> game = load_game("hunl")
>>> session = PlaySession(game, make_agent("call", game), 3, os.path.join(tempfile.mkdtemp(), "p.log"))
>>> with TestClient(create_app(session), base_url="http://127.0.0.1") as client:
...     state = client.get("/api/state?since=-1").json()
...     answer = client.post("/api/action", json={"hand": 0, "seq": 0, "kind": "call"})
>>> state["hand"]["id"], answer.status_code
(0, 409)
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from evaluation.play.session import PlayError, PlaySession, StaleActionError

#: Longest a ``GET /api/state?since=V`` waits for a change, in seconds.
MAX_WAIT = 20.0
#: How often a waiting request looks at the session's version, in seconds.
POLL = 0.03
#: ``Host`` headers the app answers (plus the address it serves on): a page elsewhere cannot reach it by DNS tricks.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def static_dir() -> str:
    """The folder of the page's files (package data of :mod:`evaluation.play`)."""
    return str(resources.files("evaluation.play") / "static")


def check_loopback(host: str) -> str:
    """``host`` if it is a loopback address (or ``localhost``); PlayError otherwise.

    >>> check_loopback("127.0.0.1"), check_loopback("::1")
    ('127.0.0.1', '::1')
    """
    if host == "localhost":
        return host
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise PlayError(f"--host {host!r} is not a loopback address: play serves 127.0.0.1, ::1 or localhost only")


class _Driver:
    """Runs the agent whenever it is to act, one decision at a time, in a worker thread."""

    def __init__(self, session: PlaySession) -> None:
        self.session = session
        self.task: asyncio.Task[None] | None = None

    def kick(self) -> None:
        if (self.task is None or self.task.done()) and self.session.bot_to_act():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self.session.bot_to_act():
            try:
                await anyio.to_thread.run_sync(self.session.run_bot)
            except PlayError:
                return  # the page shows it (bot_status.error); the next request tries again

    async def stop(self) -> None:
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task


def create_app(session: PlaySession, deal_first: bool = True, host: str = "127.0.0.1") -> Starlette:
    """The ASGI app serving ``session`` on loopback ``host``; deals the first hand at start-up if none is in progress."""
    driver = _Driver(session)
    page = static_dir()

    async def index(request: Request) -> Response:
        return FileResponse(f"{page}/index.html", headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Response:
        driver.kick()  # after a failed write (say, a full disk) a reload asks the agent again
        since = request.query_params.get("since")
        if since is not None:
            try:
                wait = min(float(request.query_params.get("wait", MAX_WAIT)), MAX_WAIT)
                version = int(since)
            except ValueError:
                return JSONResponse({"error": "since and wait must be numbers"}, status_code=400)
            deadline = time.monotonic() + wait
            while session.version == version and time.monotonic() < deadline:
                await asyncio.sleep(POLL)
        return _snapshot_response(session)

    async def body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise PlayError("send JSON with Content-Type: application/json")
        try:
            data = json.loads(await request.body())
        except ValueError as exc:
            raise PlayError(f"malformed JSON: {exc}") from None
        if not isinstance(data, dict):
            raise PlayError("send a JSON object")
        return data

    def _int(data: dict[str, Any], key: str) -> int:
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlayError(f"{key!r} must be an integer, got {value!r}")
        return value

    async def action(request: Request) -> Response:
        try:
            data = await body(request)
            hand, seq = _int(data, "hand"), _int(data, "seq")
            kind, amount = str(data.get("kind", "")), data.get("amount")
            await anyio.to_thread.run_sync(lambda: session.act(hand, seq, kind, amount))
        except PlayError as exc:
            return _error(session, exc)
        driver.kick()
        return _snapshot_response(session)

    async def next_hand(request: Request) -> Response:
        try:
            data = await body(request)
            after = _int(data, "after")
            await anyio.to_thread.run_sync(lambda: session.start_hand(after))
        except PlayError as exc:
            return _error(session, exc)
        driver.kick()
        return _snapshot_response(session)

    async def log(request: Request) -> Response:
        text = await anyio.to_thread.run_sync(session.log_path.read_text)
        return PlainTextResponse(text, headers={"Cache-Control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if deal_first and session.hand is None:
            await anyio.to_thread.run_sync(session.start_hand)
        driver.kick()
        yield
        await driver.stop()

    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/action", action, methods=["POST"]),
        Route("/api/next", next_hand, methods=["POST"]),
        Route("/api/log", log),
        Mount("/static", StaticFiles(directory=page), name="static"),
    ]
    hosts = [*LOOPBACK_HOSTS, f"[{host}]" if ":" in host else check_loopback(host)]
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])


def _snapshot_response(session: PlaySession) -> JSONResponse:
    return JSONResponse(session.snapshot(), headers={"Cache-Control": "no-store"})


def _error(session: PlaySession, exc: PlayError) -> JSONResponse:
    status = 409 if isinstance(exc, StaleActionError) else 400
    return JSONResponse({"error": str(exc), "state": session.snapshot()}, status_code=status)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on loopback ``host``:``port`` (port 0: any free port); PlayError if taken."""
    check_loopback(host)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise PlayError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
    return sock


def url_of(sock: socket.socket) -> str:
    """The page's address for a socket made by :func:`bind`."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(session: PlaySession, sock: socket.socket) -> None:
    """Serve ``session`` on ``sock`` until interrupted (uvicorn, one process)."""
    import uvicorn

    host = sock.getsockname()[0]
    config = uvicorn.Config(create_app(session, host=host), log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2)  # long-polls would hold a stop for MAX_WAIT
    uvicorn.Server(config).run(sockets=[sock])
