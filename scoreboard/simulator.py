"""The simulated board controller: the real firmware on a virtual board, behind a pty.

``scoreboard simulate-board --link PATH`` runs ``firmware.controller`` on
``firmware.hal_fake`` in its own process and serves the board link protocol on a pseudo
terminal reached through the symlink PATH (like a ``/dev/serial/by-id`` name), so the
service can be killed and restarted while the "board" keeps its tiles. A script drives
it; one command a line, ``#`` starts a comment::

    at 1.5 place H8 04A1B2C3D4E5F6    # absolute time in seconds since start
    after 0.5 remove H8               # relative to the previous line
    place R1.3 04112233445566         # no time: same moment as the previous line
    move R1.3 I8                      # lift a tile and put it down elsewhere
    slide H8 I8 0.1                   # the tile answers on both for 0.1 s, then on I8
    flicker H8 0.5                    # missed on half the reads (0 stops; 'alternate')
    junk H8 0.2                       # a garbled UID on a fifth of the reads (0 stops)
    garbage 20                        # 20 random bytes on the link
    corrupt 1                         # the next frame goes out with a wrong CRC
    drop 1                            # the next frame is not sent
    duplicate 2                       # the next 2 frames are each sent twice
    reorder 1                         # the next 2 frames go out swapped (N: pairs)
    unplug 2.0                        # cable out for 2 s, then a new pty (board powered)
    unplug 2.0 reboot                 # the same, the controller restarting (USB powered)
    reboot                            # the controller restarts (HELLO with seq 0)
    fault reader 3                    # reader 3 stops answering ('garbage': bad data)
    recover reader 3                  # its next reset brings it back
    exit                              # stop the simulator

Locations: ``A1``-``O15``, rack slots ``R1.1``-``R4.9`` (rack and slot 1-based). UIDs are
hex (4, 7 or 10 bytes); :func:`tile_uid` makes deterministic ones for a tile set.

The clock: real time by default; with ``virtual=True`` the board runs as fast as the
host reads (pty back-pressure) and stands still while no host has the port open, except
during an unplug. Tests drive it directly with :meth:`SimulatedBoard.advance`. A host that
closes the port loses what it did not read: the next one starts clean (HELLO, SNAPSHOT).

The control socket (``--control PATH``): a unix stream socket at PATH (a stale socket file
there is replaced, anything else is refused; it is made after the link and removed on
exit). One client at a time; a new connection takes over from the current one. UTF-8, one
request line in, one answer line out::

    ok PTY WRITTEN NOW [JSON]    # PTY: the pty's device, '-' while unplugged; WRITTEN: bytes
                                 # written to that pty since its host opened it (0 while
                                 # out or while no host has it open);
                                 # NOW: the board's time in seconds, 6 decimals
    error MESSAGE                # the message quotes the bad line; the simulator goes on

Requests: any script command without a time (``place H8 04A1B2C3D4E5F6``, ``unplug 2``,
``exit`` ...), checked like a script line and carried out at NOW, its output then written;
``place`` is physical (a tag already there: nothing; a tag elsewhere: lifted from there
first), ``remove`` of an empty location does nothing, ``move`` from one warns on stderr
(the answer is ``ok``). ``advance SECONDS`` runs the board that long (``--lockstep`` only):
the scripted steps it reaches, the controller, and every frame written, waiting for a
host that has the port open to read them (so a host must read while it waits for the
answer); a host that closes the port ends the waiting. ``tags`` answers with the
locations holding a tag now, physically (``{"H8":"045C...","R1.3":"..."}``); ``ping``
just answers. Before each request the host's bytes are read: what the host wrote before
asking reaches the controller before the clock moves. :mod:`scoreboard.sim_control` is a
client.

``--lockstep`` (needs ``--control``; implies a virtual clock): the clock moves only on
``advance``, by exactly the time asked (the controller may run a few milliseconds past it
to finish its step; NOW does not show that). Between requests the host's bytes are read
and wait for the controller; steps at time 0 are applied before the first request. A host
that has read WRITTEN bytes since it opened the port has every frame written so far
(nothing is written to a port nobody has open; a new host starts the count at 0, as seen
at the simulator's next look at the port). ``unplug S`` shows PTY
``-`` until an ``advance`` reaches NOW + S; the new pty (WRITTEN 0 again) may get the old
one's device name. Without ``--lockstep`` the board keeps its own clock (real or
``--virtual-clock``) and requests apply at its NOW; ``advance`` is an error.
"""

from __future__ import annotations

import argparse
import errno
import heapq
import json
import math
import os
import random
import select
import signal
import socket
import stat
import sys
import termios
import threading
import time
import traceback
import tty
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import ScoreboardError
from engine.tiles import Tile, TileSet
from firmware import frames as F
from firmware.controller import Controller
from firmware.hal_fake import FakeHal
from firmware.scanner import Scanner, row_layout

SLICE_US = 2000  # the controller runs this long between two looks at the pty
OUTPUT_LIMIT = 1 << 16  # bytes held for a slow host before the oldest are dropped

TILE_SET_INDEX = {"english": 1, "german": 2, "french": 3}


class ScriptError(ScoreboardError, ValueError):
    """A line of a board script that cannot be understood (quoted with its number)."""


class LinkPathError(ScoreboardError, OSError):
    """The link path exists and is not a symlink, or its folder is missing."""


class ControlPathError(ScoreboardError, OSError):
    """The control socket path is taken by something that is not a socket, or cannot be bound."""


# --- UIDs for tile sets ------------------------------------------------------------------


def tile_uid(letter: str, copy: int, tile_set: str = "english") -> bytes:
    """A deterministic NTAG213-like 7-byte UID for copy ``copy`` (0-based) of ``letter``.

    ``04`` (NXP), ``5C`` (our mark), the letter's code point (2 bytes), the copy, the tile
    set's number and an XOR check byte: ``tile_uid('E', 2)`` is ``045C004502011E``.
    """
    if len(letter) != 1:
        raise ValueError(f"one letter or '?', not {letter!r}")
    code = ord(letter)
    index = TILE_SET_INDEX.get(tile_set.lower(), 0)
    body = bytes((0x04, 0x5C, code >> 8 & 0xFF, code & 0xFF, copy & 0xFF, index))
    check = 0
    for b in body:
        check ^= b
    return body + bytes((check,))


def tile_set_uids(tile_set: TileSet) -> list[tuple[Tile, bytes]]:
    """Every tile of ``tile_set`` with its UID, in the set's order (copies numbered from 0)."""
    out = []
    for letter, count in tile_set.counts.items():
        tile = tile_set.tile(letter)
        for copy in range(count):
            out.append((tile, tile_uid(letter, copy, tile_set.name)))
    return out


# --- the script ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One script command at ``at`` seconds since the start."""

    at: float
    action: str
    args: tuple[str, ...]
    line: int = 0

    def __str__(self) -> str:
        return f"at {self.at:g} {self.action} {' '.join(self.args)}".rstrip()


# action -> (minimum, maximum) number of arguments
_ARITY = {
    "place": (2, 2), "remove": (1, 1), "move": (2, 2), "slide": (2, 3), "flicker": (2, 2),
    "junk": (2, 2), "garbage": (1, 1), "corrupt": (1, 1), "drop": (1, 1), "duplicate": (1, 1),
    "reorder": (1, 1), "unplug": (1, 2),
    "reboot": (0, 0), "fault": (2, 3), "recover": (2, 2), "exit": (0, 0),
}


def parse_uid(text: str) -> bytes:
    """A UID from hex (``04A1B2C3D4E5F6``); 4, 7 or 10 bytes."""
    try:
        uid = bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"not a hex UID: {text!r}") from None
    if len(uid) not in (4, 7, 10):
        raise ValueError(f"a UID has 4, 7 or 10 bytes, {text!r} has {len(uid)}")
    return uid


def _check(action: str, args: Sequence[str]) -> None:
    low, high = _ARITY[action]
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low}-{high}"
        raise ValueError(f"{action} takes {want} arguments, got {len(args)}")
    if action in ("place", "remove", "move", "slide", "flicker", "junk"):
        for a in args[: 1 if action in ("remove", "flicker", "junk", "place") else 2]:
            F.parse_loc(a)
    if action == "place":
        parse_uid(args[1])
    elif action == "slide" and len(args) == 3:
        _positive(args[2])
    elif action in ("flicker", "junk"):
        if not (action == "flicker" and args[1] == "alternate"):
            p = float(args[1])
            if not 0 <= p <= 1:
                raise ValueError(f"a probability from 0 to 1, not {args[1]!r}")
    elif action in ("garbage", "corrupt", "drop", "duplicate", "reorder"):
        if int(args[0]) < 0:
            raise ValueError(f"a count of 0 or more, not {args[0]!r}")
    elif action == "unplug":
        _positive(args[0])
        if len(args) == 2 and args[1] != "reboot":
            raise ValueError(f"unplug SECONDS [reboot], not {args[1]!r}")
    elif action in ("fault", "recover"):
        if args[0] != "reader":
            raise ValueError(f"{action} reader N, not {action} {args[0]!r}")
        int(args[1])
        if action == "fault" and len(args) == 3 and args[2] not in ("dead", "garbage"):
            raise ValueError(f"fault reader N [dead|garbage], not {args[2]!r}")


def _positive(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"a time of 0 or more, not {text!r}")
    return value


def parse_script(text: str) -> list[Step]:
    """The steps of a board script (see the module doc), in time order."""
    steps: list[Step] = []
    now = 0.0
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        try:
            if words[0] in ("at", "after"):
                if len(words) < 3:
                    raise ValueError(f"{words[0]} TIME COMMAND ...")
                t = _positive(words[1])
                now = t if words[0] == "at" else now + t
                words = words[2:]
            action, args = words[0].lower(), tuple(words[1:])
            if action not in _ARITY:
                raise ValueError(f"unknown command {action!r} (known: {', '.join(sorted(_ARITY))})")
            _check(action, args)
        except (ValueError, F.FrameError) as e:
            raise ScriptError(f"line {number}: {raw.strip()!r}: {e}") from None
        steps.append(Step(now, action, args, number))
    steps.sort(key=lambda s: s.at)  # stable: lines at the same time keep their order
    return steps


# --- the simulated board ----------------------------------------------------------------


class SimulatedBoard:
    """The firmware on a virtual board, served on a pty behind the symlink ``link``.

    ``lockstep=True``: the clock moves only when :meth:`run_for` is called (the control
    socket's ``advance``), and output then waits for a connected host like ``virtual``.
    """

    def __init__(self, link: str | os.PathLike[str], script: Iterable[Step] = (), *, racks: int = 4,
                 slots: int = 7, seed: int = 0, virtual: bool = False, lockstep: bool = False,
                 tags: Mapping[str | int, bytes] | None = None,
                 wall: Callable[[], float] = time.monotonic) -> None:
        self.link = Path(link)
        self.virtual = virtual
        self.lockstep = lockstep
        self.wall = wall
        self.layout = row_layout(racks, slots)
        self.hal = FakeHal(self.layout, seed=seed)
        self.hal.connected = False
        self.rng = random.Random(seed ^ 0x5EED)
        for loc, uid in (tags or {}).items():
            self.hal.place(loc, uid)
        self.controller = self._new_controller()
        self.master: int | None = None
        self.pty_name: str | None = None
        self.plugged = False
        self.stopped = False
        self.written = 0  # bytes written to the current pty master since its host spoke
        self._host_spoke = False
        self.frames_sent = 0
        self.frames_dropped = 0
        self.frames_corrupted = 0
        self.frames_duplicated = 0
        self.frames_reordered = 0  # pairs sent swapped
        self.bytes_dropped = 0
        self.replugs = 0
        self._out = bytearray()
        self._corrupt = 0
        self._drop = 0
        self._duplicate = 0
        self._reorder = 0
        self._held: bytes | None = None  # a reordered pair's first frame, sent after the second
        self._events: list[tuple[int, int, Callable[[], None]]] = []  # (virtual us, seq, action)
        self._seq = 0
        self._clock_us = 0  # the time the board was last run to (the controller may be a step ahead)
        self._unplugs = 0  # the latest unplug's number: an earlier one's replug is void
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

    # --- the pty -------------------------------------------------------------------------

    def plug(self) -> str:
        """Create a new pty and point the link at it (a cable plugged in); its name."""
        master, slave = os.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        os.close(slave)  # the host opens it by the link; a closed slave reads as "no host"
        os.set_blocking(master, False)
        self.master, self.pty_name, self.plugged = master, name, True
        self.written = 0
        _point_link(self.link, name)
        return name

    def unplug(self) -> None:
        """Close the pty and remove the link (a cable pulled out)."""
        if self.master is not None:
            os.close(self.master)
        self.master, self.pty_name, self.plugged = None, None, False
        self.written = 0
        self.hal.connected = False
        self._out.clear()
        self._held = None
        _remove_link(self.link)

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

    def host_connected(self) -> bool:
        """True while some process has the pty open (as DTR on a USB serial port)."""
        if self.master is None:
            return False
        p = select.poll()
        p.register(self.master, select.POLLIN)
        return not any(ev & select.POLLHUP for _, ev in p.poll(0))

    def pump(self, block: bool = False) -> None:
        """Exchange bytes with the host: its input to the controller, the frames out.

        Everything the host has written is read (it waits for the controller's next poll).
        Without a host nothing is written: the bytes are dropped, as the controller's own
        writes are, so the next host never reads stale ones.
        """
        present = self.host_connected()
        received = bytearray()
        if self.master is not None:
            for _ in range(64):
                try:
                    data = os.read(self.master, 4096)
                except BlockingIOError:
                    break
                except OSError as e:
                    if e.errno != errno.EIO:  # EIO: nobody has the slave open
                        raise
                    break
                if not data:
                    break
                received += data
        # In lockstep a host counts once it has spoken: opening a port (pyserial) flushes
        # its input after the open, so frames written before the host's first bytes could
        # be lost, and WRITTEN would count bytes the host never reads.
        self._host_spoke = present and (self._host_spoke or bool(received))
        connected = present and (self._host_spoke or not self.lockstep)
        if connected != self.hal.connected:
            self.hal.connected = connected
            if connected:
                self.written = 0  # WRITTEN counts what this host can read
            if not connected and self.master is not None:
                self._out.clear()
                self._held = None
                self._flush_stale()
        if self.master is None:
            return
        if received:
            self.hal.host_send(bytes(received))
        for frame in self.hal.take_tx():
            self._queue_frame(frame)
        if not connected:
            self.bytes_dropped += len(self._out) + len(self._held or b"")
            self._out.clear()
            self._held = None
        self._flush(block)

    def _flush_stale(self) -> None:
        """The host went away: no stale bytes for the next one, in either direction.

        A flush on the master empties the pty's buffers but not the slave's line
        discipline (up to 4 KB the host did not read): that one is flushed from a
        moment's open of the slave.
        """
        assert self.master is not None
        try:
            termios.tcflush(self.master, termios.TCIOFLUSH)
        except termios.error:
            pass
        if self.pty_name is None:
            return
        try:
            fd = os.open(self.pty_name, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            termios.tcflush(fd, termios.TCIFLUSH)
        except termios.error:
            pass
        finally:
            os.close(fd)

    def _queue_frame(self, frame: bytes) -> None:
        if self._drop > 0:
            self._drop -= 1
            self.frames_dropped += 1
            return
        if self._corrupt > 0:
            self._corrupt -= 1
            self.frames_corrupted += 1
            frame = corrupt_frame(frame, self.rng)
        if self._held is not None:  # the second of a reordered pair goes out first
            held, self._held = self._held, None
            self.frames_reordered += 1
            self._send_frame(frame)
            self._send_frame(held)
            return
        if self._reorder > 0:
            self._reorder -= 1
            self._held = frame
            return
        self._send_frame(frame)

    def _send_frame(self, frame: bytes) -> None:
        copies = 1
        if self._duplicate > 0:
            self._duplicate -= 1
            self.frames_duplicated += 1
            copies = 2
        self.frames_sent += copies
        self._out += frame * copies

    def _flush(self, block: bool) -> None:
        while self._out and self.master is not None:
            try:
                n = os.write(self.master, self._out)
                del self._out[:n]
                self.written += n
            except BlockingIOError:
                if not block or not self.host_connected():
                    break
                select.select([], [self.master], [], 0.05)  # back-pressure from the host
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                break
        if len(self._out) > OUTPUT_LIMIT:
            excess = len(self._out) - OUTPUT_LIMIT
            del self._out[:excess]
            self.bytes_dropped += excess

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
                if self.plugged and not self.host_connected() and not self._events_due_soon():
                    self._wait(control, 0.01)  # nobody listens: the virtual clock stands still
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
        if self.master is not None and self.host_connected():  # no host: the master would always be ready
            poller.register(self.master, select.POLLIN | (select.POLLOUT if self._out else 0))
        if control is not None:
            control.register(poller)
        if timeout <= 0 and control is None:
            return
        events = poller.poll(timeout * 1000)
        if control is not None:
            control.handle(events)

    def _events_due_soon(self) -> bool:
        """While unplugged time must pass, or the replug never comes."""
        return not self.plugged

    # --- the control socket's requests --------------------------------------------------------

    def status(self, data: object = None) -> str:
        """``ok PTY WRITTEN NOW`` (and `` JSON`` when ``data`` is not None)."""
        line = f"ok {self.pty_name or '-'} {self.written} {self.clock:.6f}"
        if data is not None:
            line += " " + json.dumps(data, separators=(",", ":"))
        return line

    def tag_names(self) -> dict[str, bytes]:
        """Every location holding a tag now (``H8``, ``R1.3``) with its UID: the physical board."""
        return {F.loc_name(loc): uid for loc, uid in sorted(self.hal.board.tags.items())}

    def request(self, line: str) -> str:
        """Answer one control request (see the module doc): ``ok ...`` or ``error ...``."""
        words = line.split("#", 1)[0].split()
        data: object = None
        try:
            if not words:
                raise ValueError("an empty request")
            action, args = words[0].lower(), tuple(words[1:])
            self.pump()  # what the host wrote before asking comes first
            if action in ("ping", "tags", "advance"):
                want = 1 if action == "advance" else 0
                if len(args) != want:
                    raise ValueError(f"{action} takes {want} arguments, got {len(args)}")
                if action == "tags":
                    data = {name: uid.hex().upper() for name, uid in self.tag_names().items()}
                elif action == "advance":
                    if not self.lockstep:
                        raise ValueError("advance needs --lockstep (this board runs on its own clock)")
                    self.run_for(_positive(args[0]))
            elif action in ("at", "after"):
                raise ValueError(f"no {action!r} here: an action applies at once (then 'advance')")
            elif action in _ARITY:
                _check(action, args)
                self.apply(Step(self.clock, action, args))
                self._due_events(self._clock_us)
                self.pump()
            else:
                known = ", ".join(sorted([*_ARITY, "advance", "ping", "tags"]))
                raise ValueError(f"unknown request {action!r} (known: {known})")
        except (ValueError, F.FrameError) as e:
            return f"error {line.strip()!r}: {e}"
        return self.status(data)

    # --- script actions ----------------------------------------------------------------------

    def apply(self, step: Step) -> None:
        """Carry out one script step now (an unplug's time counts from ``step.at``).

        ``place`` is physical: the tag leaves wherever it was (nothing happens if it is
        already there). ``remove`` of an empty location does nothing; ``move`` and
        ``slide`` from one warn on stderr.
        """
        hal, a = self.hal, step.args
        action = step.action
        where = f"line {step.line}" if step.line else "control"
        if action == "place":
            hal.place(a[0], parse_uid(a[1]))
        elif action == "remove":
            hal.remove(a[0])
        elif action == "move":
            uid = hal.remove(a[0])
            if uid is None:
                _warn(f"{where}: no tile on {a[0]} to move")
            else:
                hal.place(a[1], uid)
        elif action == "slide":
            overlap_ms = 1000 * float(a[2]) if len(a) == 3 else 100
            late_ms = (hal.now_us - round(step.at * 1e6)) / 1000  # the controller finished its step
            try:
                hal.slide(a[0], a[1], max(0.0, overlap_ms - late_ms))
            except ValueError as e:
                _warn(f"{where}: {e}")
        elif action == "flicker":
            if a[1] == "alternate":
                hal.board.flicker(a[0], alternate=True)
            else:
                hal.board.flicker(a[0], float(a[1]))
        elif action == "junk":
            hal.board.junk(a[0], float(a[1]))
        elif action == "garbage":
            self._out += bytes(self.rng.randrange(256) for _ in range(int(a[0])))
        elif action == "corrupt":
            self._corrupt += int(a[0])
        elif action == "drop":
            self._drop += int(a[0])
        elif action == "duplicate":
            self._duplicate += int(a[0])
        elif action == "reorder":
            self._reorder += int(a[0])
        elif action == "unplug":
            self.unplug()
            self._unplugs += 1
            number, reboot = self._unplugs, len(a) == 2
            self._at(step.at + float(a[0]), lambda: self._replug(number, reboot))
        elif action == "reboot":
            self.reboot()
        elif action == "fault":
            reader = int(a[1])
            if len(a) == 3 and a[2] == "garbage":
                hal.garble_reader(reader)
            else:
                hal.kill_reader(reader)
        elif action == "recover":
            hal.revive_reader(int(a[1]))
        elif action == "exit":
            self.stopped = True

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


class ControlServer:
    """The control socket of a :class:`SimulatedBoard`: one request line, one answer line.

    One client at a time; a new connection takes over from the current one (which is
    closed), so a restarted service never waits behind its killed predecessor.
    """

    MAX_LINE = 1 << 16

    def __init__(self, board: SimulatedBoard, path: str | os.PathLike[str]) -> None:
        self.board = board
        self.path = Path(path)
        self.listener: socket.socket | None = None
        self.client: socket.socket | None = None
        self.clients = 0
        self.requests = 0
        self._buf = bytearray()
        self._inode = -1

    def open(self) -> None:
        """Listen on :attr:`path` (a stale socket file there is removed first)."""
        try:
            mode = self.path.lstat().st_mode
        except FileNotFoundError:
            pass
        except OSError as e:
            raise ControlPathError(f"cannot use {self.path} for the control socket: {e.strerror}") from None
        else:
            if not stat.S_ISSOCK(mode):
                raise ControlPathError(f"{self.path} exists and is not a socket: not replacing it")
            self.path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
            sock.listen(8)
        except OSError as e:
            sock.close()
            raise ControlPathError(f"cannot listen on {self.path}: {e.strerror or e}") from None
        sock.setblocking(False)
        self.listener = sock
        self._inode = self.path.lstat().st_ino

    def close(self) -> None:
        """Stop listening, hang up on the client and remove the socket file."""
        self._drop_client()
        if self.listener is not None:
            self.listener.close()
            self.listener = None
            try:
                st = self.path.lstat()
                if stat.S_ISSOCK(st.st_mode) and st.st_ino == self._inode:  # not a newer simulator's
                    self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> ControlServer:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def register(self, poller: select.poll) -> None:
        """Have ``poller`` watch the listening socket and the client."""
        if self.listener is not None:
            poller.register(self.listener, select.POLLIN)
        if self.client is not None:
            poller.register(self.client, select.POLLIN)

    def handle(self, events: Iterable[tuple[int, int]]) -> None:
        """Serve what ``events`` (from the poller) say is ready: requests, then new clients."""
        ready = {fd for fd, _ in events}
        if self.client is not None and self.client.fileno() in ready:
            self._receive()
        if self.listener is not None and self.listener.fileno() in ready:
            self._accept()

    def _accept(self) -> None:
        assert self.listener is not None
        try:
            sock, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        self._drop_client()
        sock.settimeout(10.0)  # for sending; it is read only when the poller says so
        self.client = sock
        self.clients += 1

    def _drop_client(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self._buf.clear()

    def _receive(self) -> None:
        assert self.client is not None
        try:
            data = self.client.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop_client()
            return
        self._buf += data
        while self.client is not None and not self.board.stopped:
            end = self._buf.find(b"\n")
            if end < 0:
                if len(self._buf) > self.MAX_LINE:
                    self._send(f"error a request line of more than {self.MAX_LINE} bytes")
                    self._drop_client()
                break
            raw = bytes(self._buf[:end])
            del self._buf[: end + 1]
            self._send(self.answer(raw))

    def answer(self, raw: bytes) -> str:
        """The answer line to one request line (without its newline)."""
        self.requests += 1
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return f"error {raw!r}: not UTF-8"
        try:
            return self.board.request(line.rstrip("\r"))
        except Exception as e:  # noqa: BLE001 - a bad line never stops the simulator
            traceback.print_exc()
            return f"error {line.strip()!r}: {type(e).__name__}: {e}"

    def _send(self, answer: str) -> None:
        if self.client is None:
            return
        try:
            self.client.sendall(answer.encode("utf-8") + b"\n")
        except OSError:  # gone, or not reading for 10 s
            self._drop_client()


def corrupt_frame(frame: bytes, rng: random.Random) -> bytes:
    """``frame`` with one bit of its CRC flipped, re-stuffed: a clean CRC error."""
    body = bytearray(F.cobs_decode(frame.strip(b"\x00")))
    body[-1 - rng.randrange(4)] ^= 1 << rng.randrange(8)
    return b"\x00" + bytes(F.cobs_encode(bytes(body))) + b"\x00"


def _point_link(link: Path, target: str) -> None:
    """Point the symlink ``link`` at ``target`` atomically (never a missing link between)."""
    if link.exists() and not link.is_symlink():
        raise LinkPathError(f"{link} exists and is not a symlink: not replacing it")
    if not link.parent.is_dir():
        raise LinkPathError(f"no folder {link.parent} for the link {link}")
    tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    os.symlink(target, tmp)
    os.replace(tmp, link)


def _remove_link(link: Path) -> None:
    if link.is_symlink():
        link.unlink()


def _warn(message: str) -> None:
    print(f"simulate-board: {message}", file=sys.stderr)


# --- command line -----------------------------------------------------------------------


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``simulate-board`` to the ``scoreboard`` command line."""
    p = subparsers.add_parser(
        "simulate-board",
        help="run a simulated board controller on a pty",
        description="Serve the board link protocol from a simulated controller on a pty "
        "reachable through the symlink PATH, driven by an optional script.",
    )
    p.add_argument("--link", required=True, metavar="PATH", help="symlink to create for the pty")
    p.add_argument("--script", metavar="FILE", help="placements, removals and faults (see the docs)")
    p.add_argument("--virtual-clock", action="store_true",
                   help="run as fast as the host reads instead of in real time")
    p.add_argument("--control", metavar="PATH",
                   help="unix socket for control requests (one line each; see the docs)")
    p.add_argument("--lockstep", action="store_true",
                   help="the clock moves only on 'advance' requests (needs --control)")
    p.add_argument("--racks", type=int, default=4, choices=range(1, 5), help="racks (default 4)")
    p.add_argument("--slots", type=int, default=7, choices=range(1, 10), help="slots per rack (default 7)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated faults")
    p.set_defaults(func=cmd_simulate_board)
    return p


def cmd_simulate_board(args: argparse.Namespace) -> int:
    """``scoreboard simulate-board --link PATH [--script FILE] [--virtual-clock] [--control PATH [--lockstep]]``."""
    control_path = getattr(args, "control", None)
    lockstep = bool(getattr(args, "lockstep", False))
    if lockstep and not control_path:
        print("scoreboard: --lockstep needs --control PATH: the clock moves only on 'advance' requests",
              file=sys.stderr)
        return 2
    steps: list[Step] = []
    if args.script:
        try:
            steps = parse_script(Path(args.script).read_text(encoding="utf-8"))
        except OSError as e:
            print(f"scoreboard: cannot read {args.script}: {e.strerror}", file=sys.stderr)
            return 2
        except ScriptError as e:
            print(f"scoreboard: {args.script}: {e}", file=sys.stderr)
            return 2
    board = SimulatedBoard(args.link, steps, racks=args.racks, slots=args.slots, seed=args.seed,
                           virtual=args.virtual_clock, lockstep=lockstep)
    control = ControlServer(board, control_path) if control_path else None
    stop = threading.Event()

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            name = board.start()
            if control is not None:
                control.open()  # after the link: once the socket is there, so is the pty
        except (LinkPathError, ControlPathError) as e:
            print(f"scoreboard: {e}", file=sys.stderr)
            return 2
        where = f", control at {control_path}" + (" (lockstep)" if lockstep else "") if control else ""
        print(f"simulated board on {name}, linked at {args.link}{where}", file=sys.stderr, flush=True)
        board.serve(stop, control)
    finally:
        if control is not None:
            control.close()
        board.close()
        for s, handler in old.items():
            signal.signal(s, handler)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scoreboard.simulator --link PATH ...`` (the same as simulate-board)."""
    parser = argparse.ArgumentParser(prog="scoreboard")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["simulate-board", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
