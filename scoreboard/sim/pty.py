"""The simulated board's cable: a pseudo terminal behind a stable symlink.

The symlink (like a ``/dev/serial/by-id`` name) points at the pty while the cable is in
and is gone while it is out; each plug makes a new pty. The host opens the pty's slave end
through the link; the board holds the master. A host is present while some process has
the slave open (as DTR on a USB serial port). Bytes for the host wait in a buffer of at
most :data:`OUTPUT_LIMIT` bytes (the oldest are dropped), written as the host reads; a
host that holds the port and reads nothing for :data:`HOST_STALL_S` is waited for no more
until it reads again (a hung host never stops the board for good).
"""

from __future__ import annotations

import errno
import os
import select
import termios
import time
import tty
from pathlib import Path

from engine.errors import ScoreboardError

__all__ = ["HOST_STALL_S", "OUTPUT_LIMIT", "LinkPathError", "PtyPort", "point_link", "remove_link"]

OUTPUT_LIMIT = 1 << 16  # bytes held for a slow host before the oldest are dropped
HOST_STALL_S = 10.0  # real seconds a blocking flush waits for a host that reads nothing


class LinkPathError(ScoreboardError, OSError):
    """The link path exists and is not a symlink, or its folder is missing."""


def point_link(link: Path, target: str) -> None:
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


def remove_link(link: Path) -> None:
    """Remove the symlink ``link`` (anything else there is left alone)."""
    if link.is_symlink():
        link.unlink()


class PtyPort:
    """The board's end of the cable: the pty master, the link, the bytes waiting for the host."""

    def __init__(self, link: str | os.PathLike[str]) -> None:
        self.link = Path(link)
        self.master: int | None = None
        self.name: str | None = None  # the pty's device while plugged
        self.written = 0  # bytes written to this pty (the board resets it for a new host)
        self.bytes_dropped = 0  # bytes no host read: nobody there, or too slow
        self._out = bytearray()
        self._stalled_since: float | None = None  # the host's last read, while it reads nothing

    @property
    def plugged(self) -> bool:
        return self.master is not None

    @property
    def pending(self) -> int:
        """Bytes waiting to be written."""
        return len(self._out)

    def plug(self) -> str:
        """Create a new pty and point the link at it (a cable plugged in); its name."""
        master, slave = os.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        os.close(slave)  # the host opens it by the link; a closed slave reads as "no host"
        os.set_blocking(master, False)
        self.master, self.name = master, name
        self.written = 0
        point_link(self.link, name)
        return name

    def unplug(self) -> None:
        """Close the pty and remove the link (a cable pulled out); what waited is gone."""
        if self.master is not None:
            os.close(self.master)
        self.master, self.name = None, None
        self.written = 0
        self._out.clear()
        self._stalled_since = None
        remove_link(self.link)

    def host_present(self) -> bool:
        """True while some process has the pty open."""
        if self.master is None:
            return False
        p = select.poll()
        p.register(self.master, select.POLLIN)
        return not any(ev & select.POLLHUP for _, ev in p.poll(0))

    def read(self) -> bytes:
        """Everything the host has written (nothing while unplugged or without a host)."""
        received = bytearray()
        if self.master is None:
            return b""
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
        return bytes(received)

    def queue(self, data: bytes) -> None:
        """``data`` waits for the host (see :meth:`flush`)."""
        self._out += data

    def clear(self) -> None:
        """Forget the bytes waiting (stale: the host they were for went away)."""
        self._out.clear()

    def discard(self, more: int = 0) -> None:
        """Drop the bytes waiting, counted with ``more`` dropped elsewhere as :attr:`bytes_dropped`."""
        self.bytes_dropped += len(self._out) + more
        self._out.clear()

    def flush_stale(self) -> None:
        """The host went away: no stale bytes for the next one, in either direction.

        A flush on the master empties the pty's buffers but not the slave's line
        discipline (up to 4 KB the host did not read): that one is flushed from a
        moment's open of the slave.
        """
        if self.master is None:
            return
        try:
            termios.tcflush(self.master, termios.TCIOFLUSH)
        except termios.error:
            pass
        if self.name is None:
            return
        try:
            fd = os.open(self.name, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            termios.tcflush(fd, termios.TCIFLUSH)
        except termios.error:
            pass
        finally:
            os.close(fd)

    def flush(self, block: bool) -> None:
        """Write what waits; ``block``: wait for a present host to read it (back-pressure),
        but not past :data:`HOST_STALL_S` of it reading nothing."""
        while self._out and self.master is not None:
            try:
                n = os.write(self.master, self._out)
                del self._out[:n]
                self.written += n
                self._stalled_since = None
            except BlockingIOError:
                if not block or not self.host_present() or self._stalled():
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

    def _stalled(self) -> bool:
        """True once the host has read nothing for :data:`HOST_STALL_S` while bytes wait."""
        now = time.monotonic()
        if self._stalled_since is None:
            self._stalled_since = now
        return now - self._stalled_since >= HOST_STALL_S

    def register(self, poller: select.poll) -> None:
        """Have ``poller`` wake on the host's input (and room for output while bytes wait).

        Without a host the master would always be ready: it is not registered then.
        """
        if self.master is not None and self.host_present():
            poller.register(self.master, select.POLLIN | (select.POLLOUT if self._out else 0))
