"""The simulated board: the real firmware controller on the fake HAL, served on a pty.

:class:`SimulatedBoard` runs ``firmware.controller`` on ``firmware.hal_fake`` and serves
the board link protocol on a :class:`~scoreboard.sim.pty.PtyPort`; the frames it writes
pass the armed output faults (:mod:`scoreboard.sim.faults`). Commands
(:mod:`scoreboard.sim.commands`) come from a script, each at its time, or from the control
socket (:mod:`scoreboard.sim.control`), at once. ``place`` is physical (a tag already
there: nothing; a tag elsewhere: lifted from there first), ``remove`` of an empty location
does nothing, ``move`` and ``slide`` from one warn on stderr.

The clock: real time by default; with ``virtual=True`` the board runs as fast as the
host reads (pty back-pressure) and stands still while no host has the port open, except
during an unplug; with ``lockstep=True`` it moves only on :meth:`SimulatedBoard.run_for`
(the control socket's ``advance``). Tests drive it directly with
:meth:`SimulatedBoard.advance`. A host that closes the port loses what it did not read:
the next one starts clean (HELLO, SNAPSHOT).
"""

from __future__ import annotations

import heapq
import math
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, assert_never

from firmware import frames as F
from firmware.controller import Controller
from firmware.hal_fake import FakeHal
from firmware.scanner import Scanner, row_layout
from scoreboard.sim.commands import (
    Command, Corrupt, Drop, Duplicate, Exit, Fault, Flicker, Garbage, Geometry, Junk, Move, Place, Plug, Reboot, Recover,
    Remove, Reorder, Slide, Unplug,
)
from scoreboard.sim.faults import OutputFaults
from scoreboard.sim.pty import PtyPort
from scoreboard.sim.script import Step

if TYPE_CHECKING:
    from scoreboard.sim.control import ControlServer

__all__ = ["SLICE_US", "SimulatedBoard"]

SLICE_US = 2000  # the controller runs this long between two looks at the pty


class SimulatedBoard:
    """The firmware on a virtual board, served on a pty behind the symlink ``link``.

    ``script``: steps carried out when the clock reaches them; ``tags``: what lies on the
    board at the start. ``lockstep=True``: the clock moves only when :meth:`run_for` is
    called, and output then waits for a connected host like ``virtual``.
    """

    def __init__(self, link: str | os.PathLike[str], script: Iterable[Step] = (), *, racks: int = 4,
                 slots: int = 7, seed: int = 0, virtual: bool = False, lockstep: bool = False,
                 tags: Mapping[str | int, bytes] | None = None,
                 wall: Callable[[], float] = time.monotonic) -> None:
        self.port = PtyPort(link)
        self.virtual = virtual
        self.lockstep = lockstep
        self.wall = wall
        self.layout = row_layout(racks, slots)
        self.geometry = Geometry(racks, slots, len(self.layout.readers))
        self.hal = FakeHal(self.layout, seed=seed)
        self.hal.connected = False
        self.faults = OutputFaults(seed)
        for loc, uid in (tags or {}).items():
            self.hal.place(loc, uid)
        self.controller = self._new_controller()
        self.stopped = False
        self.replugs = 0
        self._host_spoke = False
        self._events: list[tuple[int, int, Callable[[], None]]] = []  # (virtual us, seq, action)
        self._seq = 0
        self._clock_us = 0  # the time the board was last run to (the controller may be a step ahead)
        self._unplugs = 0  # the latest unplug's number: an earlier one's replug is void
        self._unplug_reboots = False  # the latest unplug restarts the controller when plugged back
        for step in script:
            self._at(step.at, self._applier(step))

    # --- time and events ---------------------------------------------------------------

    @property
    def now(self) -> float:
        """Seconds of (virtual) board time since the start, as the controller's clock has it."""
        return self.hal.now_us / 1e6

    @property
    def clock(self) -> float:
        """Seconds since the start the board was run to (``NOW`` on the control socket).

        The controller finishes the step it is in, so :attr:`now` may be a few milliseconds
        ahead; this one moves by exactly the time asked for.
        """
        return self._clock_us / 1e6

    def _at(self, t: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._events, (round(t * 1e6), self._seq, fn))

    def _applier(self, step: Step) -> Callable[[], None]:
        return lambda: self.apply(step)

    def _new_controller(self) -> Controller:
        return Controller(self.hal, self.layout, scanner=Scanner(self.hal, self.layout))

    # --- the cable -------------------------------------------------------------------------

    def plug(self) -> str:
        """A new pty behind the link (a cable plugged in); its name."""
        return self.port.plug()

    def unplug(self) -> None:
        """Close the pty and remove the link (a cable pulled out)."""
        self.port.unplug()
        self.hal.connected = False
        self.faults.forget()

    def start(self) -> str:
        """Plug in and boot the controller; the pty's name."""
        name = self.plug()
        self.controller.boot()
        return name

    def close(self) -> None:
        """Stop: close the pty and remove the link."""
        self.stopped = True
        self.unplug()

    def __enter__(self) -> SimulatedBoard:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pump(self, block: bool = False) -> None:
        """Exchange bytes with the host: its input to the controller, the frames out.

        Everything the host has written is read (it waits for the controller's next poll).
        Without a host nothing is written: the bytes are dropped, as the controller's own
        writes are, so the next host never reads stale ones.
        """
        port = self.port
        present = port.host_present()
        received = port.read()
        # In lockstep a host counts once it has spoken: opening a port (pyserial) flushes
        # its input after the open, so frames written before the host's first bytes could
        # be lost, and WRITTEN would count bytes the host never reads.
        self._host_spoke = present and (self._host_spoke or bool(received))
        connected = present and (self._host_spoke or not self.lockstep)
        if connected != self.hal.connected:
            self.hal.connected = connected
            if connected:
                port.written = 0  # WRITTEN counts what this host can read
            elif port.plugged:
                port.clear()
                self.faults.forget()
                port.flush_stale()
        if not port.plugged:
            return
        if received:
            self.hal.host_send(received)
        for frame in self.hal.take_tx():
            port.queue(self.faults.send(frame))
        if not connected:
            port.discard(self.faults.forget())
        port.flush(block)

    # --- commands ----------------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        """Carry out one step's command now (an unplug's time counts from ``step.at``)."""
        hal, command = self.hal, step.command
        where = f"line {step.line}" if step.line else "control"
        match command:
            case Place(loc, uid):
                hal.place(loc, uid)
            case Remove(loc):
                hal.remove(loc)
            case Move(src, dst):
                lifted = hal.remove(src)
                if lifted is None:
                    _warn(f"{where}: no tile on {src} to move")
                else:
                    hal.place(dst, lifted)
            case Slide(src, dst):
                late_ms = (hal.now_us - round(step.at * 1e6)) / 1000  # the controller finished its step
                try:
                    hal.slide(src, dst, max(0.0, 1000 * command.overlap_s - late_ms))
                except ValueError as e:
                    _warn(f"{where}: {e}")
            case Flicker(loc, chance):
                if isinstance(chance, str):
                    hal.board.flicker(loc, alternate=True)
                else:
                    hal.board.flicker(loc, chance)
            case Junk(loc, chance):
                hal.board.junk(loc, chance)
            case Garbage(count):
                self.port.queue(self.faults.garbage(count))
            case Corrupt() | Drop() | Duplicate() | Reorder():
                self.faults.arm(command)
            case Unplug(seconds, reboot):
                self.unplug()
                self._unplugs += 1
                self._unplug_reboots = reboot
                number = self._unplugs
                self._at(step.at + seconds, lambda: self._replug(number, reboot))
            case Plug():
                if not self.port.plugged:
                    self._unplugs += 1  # the unplug's own replug is void
                    self._replug(self._unplugs, self._unplug_reboots)
            case Reboot():
                self.reboot()
            case Fault(reader, kind):
                if kind == "garbage":
                    hal.garble_reader(reader)
                else:
                    hal.kill_reader(reader)
            case Recover(reader):
                hal.revive_reader(reader)
            case Exit():
                self.stopped = True
            case _:
                assert_never(command)

    def act(self, command: Command) -> None:
        """Carry out ``command`` at :attr:`clock`, then the steps it makes due; write the output."""
        self.apply(Step(self.clock, command))
        self._due_events(self._clock_us)
        self.pump()

    def reboot(self) -> None:
        """The controller restarts: HELLO with seq 0, the board read afresh."""
        self.hal.power_cycle()
        self.controller = self._new_controller()
        self.controller.boot()

    def _replug(self, number: int, reboot: bool) -> None:
        if number != self._unplugs:  # pulled out again meanwhile: that unplug's time counts
            return
        self.replugs += 1
        if reboot:
            self.reboot()
        self.plug()

    def tag_names(self) -> dict[str, bytes]:
        """Every location holding a tag now (``H8``, ``R1.3``) with its UID: the physical board."""
        return {F.loc_name(loc): uid for loc, uid in sorted(self.hal.board.tags.items())}

    # --- running ---------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Run the board for ``seconds`` of virtual time (script steps, controller, pty)."""
        self.run_until(self.now + seconds)

    def run_until(self, t: float) -> None:
        """Run the board until virtual time ``t`` (seconds since start)."""
        self._run_until_us(round(t * 1e6))

    def run_for(self, seconds: float) -> None:
        """Lockstep: run ``seconds`` past :attr:`clock`, then write out every frame.

        The output waits for a connected host to read it (back-pressure); a host that
        goes away ends the waiting, and the rest of the time runs without one.
        """
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"a time of 0 or more, not {seconds!r}")
        self._run_until_us(self._clock_us + round(seconds * 1e6))
        if not self.stopped:
            self.pump(block=True)

    def _run_until_us(self, end: int) -> None:
        hal = self.hal
        block = self.virtual or self.lockstep
        while hal.now_us < end and not self.stopped:
            self._due_events(hal.now_us)
            if self.stopped:
                break
            target = min(end, hal.now_us + SLICE_US)
            if self._events:
                target = min(target, max(self._events[0][0], hal.now_us + 1))
            hal.run(self.controller.step, target / 1000)
            self.pump(block=block)
        if self.stopped:
            self._clock_us = max(self._clock_us, min(end, hal.now_us))
            return
        self._clock_us = max(self._clock_us, end)
        self._due_events(end)

    def _due_events(self, until_us: int) -> None:
        while self._events and self._events[0][0] <= until_us and not self.stopped:
            _, _, fn = heapq.heappop(self._events)
            fn()

    def serve(self, stop: threading.Event | None = None, control: ControlServer | None = None) -> None:
        """Serve until ``stop`` is set or the script says ``exit`` (paced by the clock).

        ``control`` is served in the same loop, between two slices of the board's time.
        """
        stop = stop or threading.Event()
        if self.lockstep and control is None:
            raise ValueError("a lockstep board needs a control socket: its clock moves on 'advance'")
        start_wall = self.wall()
        start_now = self.now
        while not stop.is_set() and not self.stopped:
            if self.lockstep:
                self._due_events(self._clock_us)  # steps at 0 (or at an 'unplug 0' replug)
                self.pump()  # the host's bytes are read and wait for the controller
                self._wait(control, 0.1)
            elif self.virtual:
                # nobody listens: the virtual clock stands still (but not while unplugged,
                # or the replug never comes)
                if self.port.plugged and not self.port.host_present():
                    self._wait(control, 0.01)
                    self.pump()
                    continue
                self.advance(SLICE_US / 1e6 * 10)
                if control is not None:
                    self._wait(control, 0)
            else:
                target = start_now + (self.wall() - start_wall)
                if target > self.now:
                    self.run_until(target)
                self._wait(control, SLICE_US / 1e6)

    def _wait(self, control: ControlServer | None, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the host's input or the control socket; serve the latter."""
        poller = select.poll()
        self.port.register(poller)
        if control is not None:
            control.register(poller)
        if timeout <= 0 and control is None:
            return
        events = poller.poll(timeout * 1000)
        if control is not None:
            control.handle(events)


def _warn(message: str) -> None:
    print(f"simulate-board: {message}", file=sys.stderr)
