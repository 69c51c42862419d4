"""Stop signals: SIGINT (Ctrl-C), SIGTERM and SIGHUP all stop a job the same way, and say so in its exit status.

A long job (training, solving, a match) must save its work when it is asked to
stop, whether by Ctrl-C, by ``kill`` (SIGTERM, as a batch system or ``timeout``
sends) or by a closed terminal (SIGHUP). Python only turns SIGINT into
:class:`KeyboardInterrupt`; :func:`stop_signals_raise` makes the other two do
the same (raising :class:`Interrupted`, a ``KeyboardInterrupt`` that remembers
its signal), so every ``except KeyboardInterrupt`` / ``finally`` that saves work
serves all three. The ``pokerbot`` command installs it for every command and
exits with ``128 + signal`` (130 after SIGINT, 143 after SIGTERM, 129 after
SIGHUP), whether the command let the interrupt propagate or stopped gracefully.

Two tools for code that must not be cut:

- :func:`held`: a block during which stop signals are queued, and delivered
  (raised) as it ends: a checkpoint write, a hand's log line and its count.
- :func:`on_stop`: a block during which a stop signal calls a function (the
  trainer sets a flag and finishes its chunk) instead of raising; a second
  signal raises.

Handlers are Python-level, not signal masks: a mask is per thread, and numba's or
torch's worker threads would take the signal instead.

>>> with held():  # no signal arrives: the block runs as usual
...     x = 1
>>> received() is None
True
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["STOP_SIGNALS", "Interrupted", "exit_status", "held", "on_stop", "received", "reset",
           "signum_of", "stop_signals_raise"]

#: The signals that ask a job to stop and save: Ctrl-C, ``kill``, a closed terminal.
STOP_SIGNALS: tuple[int, ...] = tuple(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
    if s is not None
)

_received: list[int] = []  # stop signals received since the last reset(), in order


class Interrupted(KeyboardInterrupt):
    """A stop signal, raised where Python raises KeyboardInterrupt for Ctrl-C; ``signum`` says which."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def signum_of(exc: BaseException) -> int:
    """The signal behind a KeyboardInterrupt (SIGINT unless it is an :class:`Interrupted`)."""
    return getattr(exc, "signum", signal.SIGINT)


def exit_status(signum: int) -> int:
    """The shell's exit status for a job stopped by ``signum``: 128 + its number (130 for SIGINT).

    >>> exit_status(signal.SIGINT), exit_status(signal.SIGTERM)
    (130, 143)
    """
    return 128 + int(signum)


def received() -> int | None:
    """The first stop signal received since :func:`reset` (None if none): a job that stopped gracefully
    still reports it in its exit status."""
    return _received[0] if _received else None


def reset() -> None:
    """Forget the stop signals received so far (the ``pokerbot`` command calls it before each command)."""
    _received.clear()


def _record(signum: int) -> None:
    _received.append(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install(handler: Callable[[int, FrameType | None], Any]) -> dict[int, Any]:
    """Set ``handler`` for each stop signal; the previous handlers.

    SIGHUP stays ignored where the parent set it so (``nohup``); SIGINT and SIGTERM
    are always taken: a shell starts background jobs ignoring SIGINT, and a
    ``kill -INT`` sent to one means stop.
    """
    hup = getattr(signal, "SIGHUP", None)
    return {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS
            if not (sig == hup and signal.getsignal(sig) is signal.SIG_IGN)}


def _restore(old: dict[int, Any]) -> None:
    for sig, handler in old.items():
        signal.signal(sig, handler)


def _raise(signum: int, frame: FrameType | None) -> None:
    _record(signum)
    raise Interrupted(signum)


@contextmanager
def stop_signals_raise() -> Iterator[None]:
    """Within the block, each stop signal raises :class:`Interrupted` (a KeyboardInterrupt), as Ctrl-C does.

    SIGHUP stays ignored under ``nohup``. Outside the main thread this does nothing.
    """
    if not _main_thread():
        yield
        return
    old = _install(_raise)
    try:
        yield
    finally:
        _restore(old)


@contextmanager
def held(hold: bool = True) -> Iterator[None]:
    """Queue stop signals until the block ends, then deliver them to the handlers the block found.

    A signal held inside :func:`on_stop` calls its callback; elsewhere it raises :class:`Interrupted`.

    For a few statements that must happen together (a file written whole, a log
    line and the count it updates). ``hold=False``, or outside the main thread, the
    block runs unguarded.
    """
    if not hold or not _main_thread():
        yield
        return
    pending: list[int] = []

    def queue(signum: int, frame: FrameType | None) -> None:
        _record(signum)
        pending.append(signum)

    old = _install(queue)
    try:
        yield
    finally:
        _restore(old)
    for signum in pending:  # delivered now to what handled it before the block: within on_stop, its callback
        previous = old.get(signum)
        if callable(previous) and previous is not signal.default_int_handler:
            previous(signum, None)
        else:
            raise Interrupted(signum)


@contextmanager
def on_stop(callback: Callable[[int], None]) -> Iterator[None]:
    """Within the block, the first stop signal calls ``callback(signum)`` instead of raising; a second one raises.

    For a loop that checks a flag and stops at a safe point (the trainer finishes
    its chunk and saves). Outside the main thread the block runs unguarded.
    """
    if not _main_thread():
        yield
        return
    calls: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        _record(signum)
        if calls:
            raise Interrupted(signum)
        calls.append(signum)
        callback(signum)

    old = _install(stop)
    try:
        yield
    finally:
        _restore(old)
