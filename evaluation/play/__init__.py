"""Play heads-up poker against any agent in a browser: ``pokerbot play --agent SPEC``.

:mod:`.session` holds the game (exact engine, ACPC dealing, a durable ACPC log,
resume after a restart); :mod:`.server` serves it to a page (``static/``: plain
HTML, CSS and JavaScript, no build step) over loopback.
"""
