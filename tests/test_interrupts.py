"""Stop signals (:mod:`pokerbot.interrupts`): SIGINT, SIGTERM and SIGHUP stop a job alike, held where a write
must finish, and set the exit status to 128 + the signal."""

from __future__ import annotations

import os
import signal
import time

import pytest

from pokerbot import interrupts
from pokerbot.interrupts import Interrupted, held, on_stop, stop_signals_raise

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _deliver(sig: int) -> None:
    os.kill(os.getpid(), sig)
    time.sleep(0.05)  # Python runs the handler at the next bytecode boundary in the main thread
    for _ in range(1000):
        pass


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_stop_signal_raises_a_keyboard_interrupt_naming_it(sig: int) -> None:
    interrupts.reset()
    with pytest.raises(KeyboardInterrupt) as caught, stop_signals_raise():
        _deliver(sig)
    assert isinstance(caught.value, Interrupted) and caught.value.signum == sig
    assert interrupts.received() == sig
    assert interrupts.exit_status(sig) == 128 + sig


@pytest.mark.parametrize("sig", SIGNALS)
def test_held_finishes_the_block_then_raises(sig: int) -> None:
    done = []
    with pytest.raises(Interrupted) as caught, stop_signals_raise():
        with held():
            _deliver(sig)
            done.append("after the signal")  # not cut short
    assert done == ["after the signal"] and caught.value.signum == sig


def test_without_held_the_block_is_cut_short() -> None:
    """Negative control: the same block unguarded stops at the signal."""
    done = []
    with pytest.raises(Interrupted), stop_signals_raise():
        _deliver(signal.SIGTERM)
        done.append("after the signal")
    assert done == []


def test_on_stop_calls_back_once_and_a_second_signal_raises() -> None:
    calls: list[int] = []
    with stop_signals_raise():
        with on_stop(calls.append):
            _deliver(signal.SIGTERM)
            assert calls == [signal.SIGTERM]
            with pytest.raises(Interrupted):
                _deliver(signal.SIGINT)


def test_a_signal_held_inside_on_stop_reaches_its_callback_not_a_raise() -> None:
    """The trainer holds signals while it checkpoints inside its on_stop loop: the first one must only stop it."""
    calls: list[int] = []
    with stop_signals_raise(), on_stop(calls.append):
        with held():
            _deliver(signal.SIGHUP)
            assert calls == []  # held: not yet delivered
        assert calls == [signal.SIGHUP]


def test_handlers_are_restored() -> None:
    before = {s: signal.getsignal(s) for s in SIGNALS}
    with stop_signals_raise(), on_stop(lambda s: None), held():
        pass
    assert {s: signal.getsignal(s) for s in SIGNALS} == before


def test_sighup_ignored_by_nohup_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop_signals_raise():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            _deliver(signal.SIGHUP)  # ignored: nothing raised
    finally:
        signal.signal(signal.SIGHUP, previous)
