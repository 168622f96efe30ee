"""The one consumer: events from the one queue into the service, and time passing.

The board reader thread and the button callbacks put their events on the hardware's inbox;
:class:`Runner` alone takes them out and steps the service. In real time it sleeps on the
queue until the next event or the table's next deadline (:meth:`Table.next_due`: a notice
ending, the challenge window's seconds, a clock's seconds...; a :class:`Tick` then) or the
next watchdog ping, and with none of these for as long as nothing comes: a stop
(:class:`StopEvent`, set by a signal) puts :data:`WAKE` on the queue. A plain
:class:`threading.Event` for a stop is looked at every :data:`IDLE_WAIT_S` instead. At rest
the board's unchanged readings are held back by the board reader (:meth:`SerialBoard.quiet`)
and taken before the next input or tick.
On a virtual clock (a lockstep board) it moves the board and the clock together in small
steps, a tick each, waiting after each until the board reader has read every byte the
board wrote, so a scripted game always plays the same.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import threading
import time
from collections.abc import Callable

from drivers.buttons.logic import ButtonEvent
from scoreboard.controller import Input, Tick
from scoreboard.hardware import Hardware, InboxItem
from scoreboard.notify import ServiceNotifier
from scoreboard.service import Service
from scoreboard.sim.client import Reply
from scoreboard.stopping import WAKE, StopEvent, Wake

__all__ = ["WAKE", "Runner", "StopEvent"]

log = logging.getLogger(__name__)

IDLE_WAIT_S = 1.0  # real time: the longest sleep on the queue when a stop cannot wake it (a plain Event)

QUANTUM_S = 0.05  # virtual clock: the board and the service advance in steps this long
BARRIER_S = 15.0  # real seconds to wait for the board's bytes of one step


class Runner:
    """Moves events from ``hardware.inbox`` into ``service`` until ``stop`` is set.

    ``on_input`` sees every event just before the service does (the scripted path uses it).
    """

    def __init__(
        self,
        service: Service,
        hardware: Hardware,
        notifier: ServiceNotifier,
        stop: threading.Event,
        on_input: Callable[[object], None] | None = None,
    ) -> None:
        self.service = service
        self.hardware = hardware
        self.notifier = notifier
        self.stop = stop
        self.on_input = on_input or (lambda item: None)
        self.next_tick = 0.0  # real time: when the table next changes by itself (a Tick then)
        self._stepped = False  # lockstep: the first step was taken (after the board reader opened the port)
        self._cap = IDLE_WAIT_S  # the longest sleep: none when a stop wakes the runner
        if isinstance(stop, StopEvent):
            inbox = hardware.inbox
            stop.add_waker(lambda: inbox.put(WAKE))
            self._cap = math.inf

    @property
    def done(self) -> bool:
        """True once stopped (a signal) or switched off from the menu."""
        return self.stop.is_set() or self.service.power_off

    def clock(self) -> float:
        """The service's time."""
        return self.hardware.clock()

    # --- events ---

    def dispatch(self, item: InboxItem) -> None:
        """One event from the queue into the service."""
        if isinstance(item, Wake):
            return  # (a stop: the loop looks at it)
        if isinstance(item, ButtonEvent):
            self._take_held()
        self.on_input(item)
        match item:
            case ButtonEvent():
                log.info("%s", item)
                self.service.handle(item)
            case _:
                self.service.board_event(item)

    def drain(self) -> None:
        """Every event waiting in the queue."""
        while True:
            try:
                item = self.hardware.inbox.get_nowait()
            except queue.Empty:
                return
            self.dispatch(item)

    def _take_held(self) -> None:
        """The board's reading held back while it rested, if any, before another input: the
        table then knows the board as of that reading, as if it had come at once."""
        held = self.hardware.board.take_held()
        if held is not None:
            self.dispatch(held)

    def tick(self, now: float) -> None:
        """Time passed."""
        self._take_held()
        tick: Input = Tick(now)
        self.on_input(tick)
        self.service.handle(tick)

    def due(self) -> float:
        """When the table next changes by itself (inf: not before an input)."""
        state = self.service.state
        due = None if state is None else self.service.table.next_due(state)
        return math.inf if due is None else due

    def loop_once(self, timeout: float) -> None:
        """Real time: wait up to ``timeout`` for an event or the table's next deadline, step,
        tick when due."""
        ping = self.notifier.next_ping_in(time.monotonic())  # (not the interval: an input just before a ping is due must not put it off)
        wait = min(timeout, self.next_tick - self.clock(), self._cap, math.inf if ping is None else ping)
        try:
            item = self.hardware.inbox.get(timeout=None if math.isinf(wait) else max(0.0, wait))
        except queue.Empty:
            item = None
        if item is not None:
            self.dispatch(item)
            self.drain()
            self.next_tick = self.due()
        now = self.clock()
        if now >= self.next_tick:
            self.tick(now)
            self.next_tick = self.due()
        self._rest_board()
        self.notifier.ping_if_due(time.monotonic())

    def _rest_board(self) -> None:
        """At rest, the board's unchanged readings wait for the next input instead of waking
        this thread; when the table needs reads again, one held back meanwhile comes at once."""
        board = self.hardware.board
        while True:
            rest = self.service.board_may_rest()
            board.quiet(rest)
            held = None if rest else board.take_held()
            if held is None:
                return
            self.dispatch(held)
            self.next_tick = self.due()  # (a Done it judged, say: the table's deadlines moved)

    # --- time ---

    def advance_to(self, t: float) -> None:
        """Let time pass until ``t``: in real time, or the board and the clock in lockstep."""
        virtual, sim = self.hardware.virtual, self.hardware.sim
        if virtual is None:
            while not self.done and self.clock() < t:
                self.loop_once(t - self.clock())
            return
        assert sim is not None
        if not self._stepped:
            self._opened()
            self._stepped = True
        while not self.done and virtual() < t - 1e-9:
            dt = min(QUANTUM_S, t - virtual())
            virtual.advance(dt)  # first: what the board writes meanwhile is read at the quantum's end, whenever
            reply = sim.advance(dt)  # the reader's thread gets to it (lockstep runs are the same every time)
            self._barrier(reply)
            self.hardware.board.tick(virtual())  # the link's timers, before the board's next step
            self.drain()
            self.hardware.buttons.tick()
            self.drain()
            self.tick(virtual())
            self.notifier.ping_if_due(time.monotonic())

    def run(self) -> None:
        """Serve until stopped."""
        self.advance_to(float("inf"))

    def _opened(self) -> None:
        """Lockstep, before the first step: wait until the board reader has opened the port and
        written its IDENTIFY, so that the board's first step hears it in every run."""
        board = self.hardware.board
        deadline = time.monotonic() + BARRIER_S
        while board.position()[0] is None and time.monotonic() < deadline and not self.stop.is_set():
            time.sleep(0.0002)

    def _barrier(self, reply: Reply) -> None:
        """Wait until the board reader has read every byte the board wrote (lockstep)."""
        if reply.pty is None:
            return  # unplugged: nothing to read
        want = os.path.realpath(reply.pty)
        deadline = time.monotonic() + BARRIER_S
        board = self.hardware.board
        while time.monotonic() < deadline and not self.stop.is_set():
            device, count = board.position()
            if device == want and count >= reply.written:
                return
            time.sleep(0.0002)
            self.notifier.ping_if_due(time.monotonic())
        if not self.stop.is_set():  # (stopped: nothing is behind, the service ends)
            log.warning("the board reader is behind: %s of %s bytes", board.position(), reply.written)
