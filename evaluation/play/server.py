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

Request bodies are small JSON objects: one over :data:`MAX_BODY` bytes gets 413, one
nested deeper than :data:`MAX_DEPTH`, with an integer of more than :data:`MAX_DIGITS`
digits, a number out of float range (``1e400``) or ``NaN``/``Infinity`` gets 400,
each with a JSON ``{"error": ...}`` naming what was wrong (and the snapshot, as every refusal).

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
import math
import socket
import time
from collections.abc import AsyncIterator, Callable
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
#: Largest request body read, in bytes (the page sends a few dozen); a larger one is answered 413.
MAX_BODY = 64 * 1024
#: Deepest nesting of arrays and objects in a request body (the page sends one flat object).
MAX_DEPTH = 8
#: Most digits of an integer in a request body (chip counts have a handful).
MAX_DIGITS = 30


class BodyTooLargeError(PlayError):
    """A request body over :data:`MAX_BODY` bytes (answered 413)."""


def parse_body(raw: bytes) -> Any:
    """The JSON value of a request body; PlayError naming what is wrong with hostile or broken input.

    Refused: malformed JSON, nesting deeper than :data:`MAX_DEPTH`, integers longer than
    :data:`MAX_DIGITS` digits, numbers beyond float range and the non-standard ``NaN``/``Infinity``.

    >>> parse_body(b'{"hand": 3, "amount": "400"}')
    {'hand': 3, 'amount': '400'}
    >>> for bad in (b"[" * 100000 + b"]" * 100000, b'{"hand": 1e400}', b'{"hand": ' + b"9" * 5000 + b"}",
    ...             b'{"hand": NaN}', b'{"hand"'):
    ...     try:
    ...         parse_body(bad)
    ...     except PlayError as exc:
    ...         print(exc)
    JSON nested too deeply (at most 8 levels)
    number out of range: 1e400
    integer too long: 5000 digits (at most 30)
    not a JSON number: NaN
    malformed JSON: Expecting ':' delimiter: line 1 column 8 (char 7)
    """

    def integer(text: str) -> int:
        digits = len(text.lstrip("-"))
        if digits > MAX_DIGITS:
            raise PlayError(f"integer too long: {digits} digits (at most {MAX_DIGITS})")
        return int(text)

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise PlayError(f"number out of range: {text[:24]}")
        return value

    def constant(text: str) -> Any:
        raise PlayError(f"not a JSON number: {text}")

    try:
        value = json.loads(raw, parse_int=integer, parse_float=finite, parse_constant=constant)
    except PlayError:
        raise
    except RecursionError:  # deeper than the interpreter's recursion limit
        raise PlayError(f"JSON nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # also bytes that are not UTF-8
        raise PlayError(f"malformed JSON: {exc}") from None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:  # iteratively: a deep value would overflow the recursion of str() or of a recursive walk
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise PlayError(f"JSON nested too deeply (at most {MAX_DEPTH} levels)")
            stack.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict) else item))
    return value


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


def create_app(session: PlaySession, deal_first: bool = True, host: str = "127.0.0.1",
               stopping: Callable[[], bool] | None = None) -> Starlette:
    """The ASGI app serving ``session`` on loopback ``host``; deals the first hand at start-up if none is in progress.

    ``stopping()`` true (the server is shutting down) makes waiting ``/api/state`` requests answer at once,
    so that a stop need not cancel them.
    """
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
            while session.version == version and time.monotonic() < deadline and not (stopping and stopping()):
                await asyncio.sleep(POLL)
        return _snapshot_response(session)

    async def body(request: Request) -> dict[str, Any]:
        length = request.headers.get("content-length", "")
        too_large = BodyTooLargeError(f"request body over {MAX_BODY} bytes")
        if length.isdigit() and (len(length) > 12 or int(length) > MAX_BODY):
            raise too_large
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise PlayError("send JSON with Content-Type: application/json")
        raw = bytearray()
        async for chunk in request.stream():  # a chunked body has no length to check first
            raw += chunk
            if len(raw) > MAX_BODY:
                raise too_large
        data = parse_body(bytes(raw))
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
    status = 409 if isinstance(exc, StaleActionError) else 413 if isinstance(exc, BodyTooLargeError) else 400
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
    """Serve ``session`` on ``sock`` until a stop signal (uvicorn, one process); then raise it as
    :class:`~pokerbot.interrupts.Interrupted`, so that the ``pokerbot`` command says ``interrupted`` in
    one line and exits 128 + the signal (130 after Ctrl-C).

    The stop is graceful and quiet: waiting ``/api/state`` requests answer at once (the app's ``stopping``),
    so none is left for uvicorn to cancel (each cancelled one printed a ``CancelledError`` traceback).
    uvicorn takes SIGINT and SIGTERM while it runs (a second Ctrl-C forces the exit) and raises them again
    from inside its event loop once stopped; the handler here takes those and SIGHUP, and never raises
    (an exception raised in the loop would be printed with the tasks it cancels).
    """
    import signal
    import threading

    import uvicorn

    from pokerbot import interrupts

    host = sock.getsockname()[0]
    config = uvicorn.Config(create_app(session, host=host, stopping=lambda: server.should_exit),
                            log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=5)  # a request still running after this is cancelled
    server = uvicorn.Server(config)
    stopped: list[int] = []

    def stop(signum: int, frame: object) -> None:
        stopped.append(signum)
        if server.should_exit:
            server.force_exit = True  # a second signal: stop waiting for requests
        server.should_exit = True

    old: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        hup = getattr(signal, "SIGHUP", None)
        old = {sig: signal.signal(sig, stop) for sig in interrupts.STOP_SIGNALS
               if not (sig == hup and signal.getsignal(sig) is signal.SIG_IGN)}  # nohup: SIGHUP stays ignored
    try:
        server.run(sockets=[sock])
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if stopped:
        raise interrupts.Interrupted(stopped[0])
