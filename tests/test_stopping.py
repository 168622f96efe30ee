"""The runner's stop: a signal wakes it on its queue, no timer needed to notice it."""

from __future__ import annotations

import os
import queue
import signal
import threading

import pytest

from scoreboard.run_cli import stop_signals
from scoreboard.stopping import WAKE, StopEvent, Wake


def test_a_stop_calls_its_wakers_and_a_late_waker_at_once() -> None:
    stop = StopEvent()
    woken: list[str] = []
    stop.add_waker(lambda: woken.append("a"))
    assert woken == []
    stop.set()
    assert stop.is_set() and woken == ["a"]
    stop.add_waker(lambda: woken.append("b"))  # added after the stop: called at once
    assert woken == ["a", "b"]
    assert isinstance(WAKE, Wake) and repr(WAKE) == "WAKE"


def test_a_signal_stops_without_the_events_lock() -> None:
    """What a signal handler calls takes no lock: it can run while the lock is held (a second
    signal inside the first one's handler) and still stop and wake."""
    stop = StopEvent()
    woken: list[int] = []
    stop.add_waker(lambda: woken.append(1))
    with stop._cond:  # (held, as by a set() that a second signal interrupted)
        stop.signal()
    assert stop.is_set() and woken == [1]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals go to the main thread")
def test_sigterm_wakes_the_main_thread_asleep_on_the_queue_without_a_timeout() -> None:
    """As the runner sleeps at rest: ``get()`` with no time-out; SIGTERM's handler puts WAKE."""
    inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
    before = signal.getsignal(signal.SIGTERM)
    with stop_signals() as stop:
        assert isinstance(stop, StopEvent)
        stop.add_waker(lambda: inbox.put(WAKE))
        timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM))
        timer.start()
        got = inbox.get(timeout=60)  # (a bound, not a timing: were the wake lost, queue.Empty)
        timer.join()
    assert got is WAKE and stop.is_set()
    assert signal.getsignal(signal.SIGTERM) == before  # the handler put back
