"""The web side of ``pokerbot explore``: a small ASGI app (starlette) over a :class:`~.sources.Source`.

Routes (JSON but the page):

- ``GET /``: the page (``static/index.html``; ``static/explore.js`` and ``explore.css`` beside it);
- ``GET /api/info``: what is explored (``kind``, ``title``, ``details``), the players, the
  grid of hand classes (13x13 for hold'em, one row of ranks for a one-card game);
- ``GET /api/node?path=P``: the node at path ``P`` (see :mod:`.sources`), as
  :func:`node_json` writes it; 400 with ``{"error": ...}`` for a path the source does not have.

Like the play page (:mod:`evaluation.play.server`, whose loopback checks it uses), it
answers only requests whose ``Host`` header is a loopback name, so a page elsewhere
cannot read it by DNS tricks; it changes nothing, so it takes no POST at all.

>>> from starlette.testclient import TestClient
>>> from evaluation.explore.sources import SpotSource
>>> data = {"format": "pokerbot-spot/1", "spot": {"board": "Ks9h4c7d2s", "pot": 100, "stack": 100},
...         "hands": [["AsAh"], ["QsQh"]], "range": [[1.0], [0.5]],
...         "nodes": [{"id": 0, "path": "root", "player": 0, "board": "Ks9h4c7d2s", "pot": 100, "to_call": 0,
...                    "actions": ["x", "b100"], "children": [None, 1], "strategy": [[0.25, 0.75]]},
...                   {"id": 1, "path": "b100", "player": 1, "board": "Ks9h4c7d2s", "pot": 200, "to_call": 100,
...                    "actions": ["f", "c"], "children": [None, None], "strategy": [[0.5, 0.5]]}]}
>>> with TestClient(create_app(SpotSource(data)), base_url="http://127.0.0.1") as client:
...     root = client.get("/api/node?path=root").json()
...     bet = client.get("/api/node?path=b100").json()
...     bad = client.get("/api/node?path=r5")
>>> root["actions"][1]["total"], bet["player_name"], bet["ranges"][0]["text"], bad.status_code
(0.75, 'IP', 'AsAh:0.75', 400)
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import Any

import anyio.to_thread
import numpy as np
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from evaluation.explore.sources import ExploreError, NodeView, Source, finite_or_none
from evaluation.play.server import LOOPBACK_HOSTS, check_loopback
from evaluation.play.session import PlayError
from pokerbot.cards import format_card
from pokerbot.errors import PokerbotError

__all__ = ["check_host", "create_app", "info_json", "node_json", "serve", "static_dir"]


def static_dir() -> str:
    """The folder of the page's files (package data of :mod:`evaluation.explore`)."""
    return str(resources.files("evaluation.explore") / "static")


def check_host(host: str) -> str:
    """``host`` if it is a loopback address (the play page's rule); :class:`ExploreError` otherwise.

    >>> check_host("127.0.0.1")
    '127.0.0.1'
    """
    try:
        return check_loopback(host)
    except PlayError:
        raise ExploreError(f"--host {host!r} is not a loopback address: explore serves 127.0.0.1, ::1 or "
                           f"localhost only") from None


def _num(x: float) -> float | None:
    return finite_or_none(float(x))


def info_json(source: Source) -> dict[str, Any]:
    """``GET /api/info``."""
    space = source.space
    return dict(source.info(), players=list(source.players), grid=[list(row) for row in space.grid],
                hole_cards=space.hole_cards)


def node_json(source: Source, view: NodeView) -> dict[str, Any]:
    """``GET /api/node``: the node ``view`` of ``source`` for the page.

    - ``steps``: the path's steps (``token``, ``label``, ``kind``, and ``path``: the path up to it);
    - ``kind``, ``player``, ``player_name``, ``board`` (cards), ``pot``, ``to_call``, ``note``;
    - ``actions`` (decisions): ``token``, ``label``, ``leads`` (``decision``, ``deal`` or ``end``),
      ``path`` (the child's) and ``total``: its frequency over the actor's range (reach-weighted);
    - ``cells``, one per grid class, row by row: ``class``, ``combos`` (off the board), ``weight``
      (per player: the class's range weight, mean reach over its combos), ``freq`` (decisions: the
      actor's action frequencies over the class, reach-weighted; null when the actor never holds it);
    - ``hands``: per class, each combo off the board: ``hand``, ``reach`` (both players), ``freq``
      (the actor's strategy with it, null if it is not in the actor's range) and the source's
      per-hand figures where it has them (``ev``, ``equity``: both players, null where absent);
    - ``ranges``: per player ``name``, ``text`` (the range string of its reach) and ``combos`` (sum of reach);
    - ``deal``: ``count``, ``street``, ``available`` cards, ``note``; ``figures``, ``figures_note``.
    """
    space = source.space
    blocked = space.blocked(view.board)
    p = view.player
    strat = view.strategy
    reach = view.reach
    steps = []
    for i, s in enumerate(view.steps):
        steps.append({"token": s.token, "label": s.label, "kind": s.kind,
                      "path": "-".join(x.token for x in view.steps[: i + 1])})
    base = "-".join(s.token for s in view.steps)
    actions = []
    if p is not None and strat is not None:
        ok = ~np.isnan(strat).any(axis=1) & ~blocked
        w = reach[p] * ok
        totals = (w[ok] @ strat[ok]) / w.sum() if w.sum() > 0 else np.full(len(view.actions), np.nan)
        for a, info in enumerate(view.actions):
            actions.append({"token": info.token, "label": info.label, "leads": info.leads,
                            "path": f"{base}-{info.token}" if base else info.token, "total": _num(totals[a])})
    cells = []
    hands: dict[str, list[dict[str, Any]]] = {}
    for row in space.grid:
        for name in row:
            idx = space.classes[name]
            idx = idx[~blocked[idx]]
            n = len(idx)
            cell: dict[str, Any] = {"class": name, "combos": n,
                                    "weight": [float(reach[q, idx].sum()) / n if n else 0.0 for q in range(2)],
                                    "freq": None}
            if p is not None and strat is not None and n:
                s = strat[idx]
                good = ~np.isnan(s).any(axis=1) & (reach[p, idx] > 0)
                if good.any():
                    w = reach[p, idx][good]
                    cell["freq"] = [float(x) for x in (w @ s[good]) / w.sum()]
            cells.append(cell)
            combos = []
            for h in idx.tolist():
                combo: dict[str, Any] = {"hand": space.names[h], "reach": [float(reach[0, h]), float(reach[1, h])],
                                         "freq": None}
                if p is not None and strat is not None and not np.isnan(strat[h]).any():
                    combo["freq"] = [float(x) for x in strat[h]]
                for key, values in view.figures.items():
                    combo[key] = [_num(values[0, h]), _num(values[1, h])]
                combos.append(combo)
            hands[name] = combos
    ranges = [{"player": q, "name": source.players[q], "text": space.range_text(reach[q]),
               "combos": float(reach[q].sum())} for q in range(2)]
    deal = None
    if view.deal is not None:
        deal = {"count": view.deal.count, "street": view.deal.street,
                "available": [format_card(c) for c in view.deal.available], "note": view.deal.note}
    return {
        "path": view.path, "steps": steps, "kind": view.kind, "player": p,
        "player_name": source.players[p] if p is not None else None,
        "board": [format_card(c) for c in view.board], "pot": _num(view.pot),
        "to_call": _num(view.to_call) if view.to_call is not None else None,
        "actions": actions, "cells": cells, "hands": hands, "ranges": ranges, "deal": deal, "note": view.note,
        "figures": sorted(view.figures), "figures_note": view.figures_note,
    }


def create_app(source: Source, host: str = "127.0.0.1") -> Starlette:
    """The ASGI app serving ``source`` on loopback ``host``."""
    page = static_dir()
    lock = threading.Lock()  # a source caches as it walks: one walk at a time
    headers = {"Cache-Control": "no-store"}

    def walk(path: str) -> dict[str, Any]:
        with lock:
            return node_json(source, source.node(path))

    async def index(request: Request) -> Response:
        return FileResponse(f"{page}/index.html", headers=headers)

    async def info(request: Request) -> Response:
        return JSONResponse(info_json(source), headers=headers)

    async def node(request: Request) -> Response:
        path = request.query_params.get("path", "")
        try:
            data = await anyio.to_thread.run_sync(walk, path)
        except PokerbotError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400, headers=headers)
        return JSONResponse(data, headers=headers)

    routes = [
        Route("/", index),
        Route("/api/info", info),
        Route("/api/node", node),
        Mount("/static", StaticFiles(directory=page), name="static"),
    ]
    hosts = [*LOOPBACK_HOSTS, f"[{host}]" if ":" in host else check_host(host)]
    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])


def serve(app: Starlette, sock: Any) -> None:
    """Serve ``app`` on the listening socket ``sock`` (:func:`evaluation.play.server.bind`) until interrupted."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2)
    uvicorn.Server(config).run(sockets=[sock])
