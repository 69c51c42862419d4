"""Explore a strategy in the browser: ``pokerbot explore PATH|SPEC``.

:mod:`.sources` reads what is explored (a solved spot file, a blueprint) into one
walkable shape: a node is a path of actions and dealt cards, and at each node the
strategy and both players' reach-weighted ranges per hand; :mod:`.server` serves it
to a page (``static/``: plain HTML, CSS and JavaScript, no build step, nothing loaded
from elsewhere) over loopback, with the play page's loopback checks
(:mod:`evaluation.play.server`).
"""
