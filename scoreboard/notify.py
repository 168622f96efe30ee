"""Telling systemd how the service is doing (sd_notify(3)): ready, status, watchdog, stopping.

Under systemd (``Type=notify`` in ``systemd/scoreboard.service``) ``$NOTIFY_SOCKET`` names the
service manager's datagram socket (a path, or ``@name`` for an abstract socket), and
``WatchdogSec=`` sets ``$WATCHDOG_USEC`` (and ``$WATCHDOG_PID``, the process it is meant for).
A notification is one datagram of UTF-8 text, assignments separated by newlines. Outside
systemd (no ``$NOTIFY_SOCKET``) every call is a no-op, so the service calls it unconditionally::

    notifier = ServiceNotifier()
    notifier.ready("Waiting for the board")
    while running:
        event = events.get(timeout=notifier.next_ping_in(time.monotonic()))  # wake when a ping is due
        notifier.ping_if_due(time.monotonic())  # real time, even when the game's clock is virtual
    notifier.stopping()

A bad ``$WATCHDOG_USEC`` or ``$WATCHDOG_PID`` raises :class:`WatchdogConfigError` at creation
(systemd would enforce the watchdog anyway); a failed send only logs a warning, the game goes on.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Mapping

from engine.errors import ScoreboardError

__all__ = ["ServiceNotifier", "WatchdogConfigError"]

log = logging.getLogger(__name__)

_WHOLE_NUMBER = re.compile(r"[0-9]+")
# A newline separates assignments: a status must not smuggle in "READY=1" or "STOPPING=1".
_LINE_BREAKS = re.compile(r"[\r\n\x00]+")


class WatchdogConfigError(ScoreboardError, ValueError):
    """``$WATCHDOG_USEC`` or ``$WATCHDOG_PID`` (``name``) is not a positive whole number (``value``)."""

    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value
        super().__init__(f"${name} must be a positive whole number, got {value!r}")


def _positive_int(name: str, value: str) -> int:
    if not _WHOLE_NUMBER.fullmatch(value) or int(value) == 0:
        raise WatchdogConfigError(name, value)
    return int(value)


def _watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    """Half the watchdog period in seconds, or None when no watchdog is set for ``pid``."""
    usec = environ.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    watchdog_pid = environ.get("WATCHDOG_PID", "")
    if watchdog_pid and _positive_int("WATCHDOG_PID", watchdog_pid) != pid:
        return None  # the watchdog is another process's (we were started by it)
    return _positive_int("WATCHDOG_USEC", usec) / 1_000_000 / 2


class ServiceNotifier:
    """sd_notify for the service: ``ready``, ``status``, ``watchdog``, ``stopping``.

    Reads ``$NOTIFY_SOCKET``, ``$WATCHDOG_USEC`` and ``$WATCHDOG_PID`` once, when created.
    """

    def __init__(self) -> None:
        self._address = os.environ.get("NOTIFY_SOCKET", "")
        self._interval = _watchdog_interval(os.environ, os.getpid())
        self._last_ping: float | None = None
        self._target: str | None = None  # the socket address, "\0name" for "@name"
        if not self._address:
            return
        if self._address[0] not in "/@":
            log.warning("ignoring $NOTIFY_SOCKET %r: not a socket path or @abstract name", self._address)
            return
        target = "\0" + self._address[1:] if self._address[0] == "@" else self._address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as probe:
                probe.connect(target)
        except OSError as exc:
            log.warning("cannot reach the service manager at $NOTIFY_SOCKET %r: %s", self._address, exc)
            return
        self._target = target

    def __repr__(self) -> str:
        return f"<ServiceNotifier socket={self._address or None!r} watchdog_interval={self._interval!r}>"

    @property
    def enabled(self) -> bool:
        """True when notifications go to a service manager."""
        return self._target is not None

    def ready(self, status: str | None = None) -> None:
        """Start-up is complete (``READY=1``), with the status line in the same datagram."""
        self._send("READY=1" if status is None else f"READY=1\nSTATUS={_one_line(status)}")

    def status(self, text: str) -> None:
        """The status line ``systemctl status`` shows (``STATUS=...``); line breaks become spaces."""
        self._send(f"STATUS={_one_line(text)}")

    def stopping(self) -> None:
        """The service is shutting down (``STOPPING=1``)."""
        self._send("STOPPING=1")

    def watchdog(self) -> None:
        """Still alive (``WATCHDOG=1``): resets systemd's watchdog timer."""
        self._send("WATCHDOG=1")

    def watchdog_interval(self) -> float | None:
        """Half of ``$WATCHDOG_USEC`` in seconds; None without a watchdog or when it is another PID's."""
        return self._interval

    def due(self, now: float) -> bool:
        """True when a ping is due at ``now`` (``time.monotonic()``): first, then an interval after
        the last :meth:`ping_if_due` or when time went back; never without watchdog or manager."""
        if self._interval is None or not self.enabled:
            return False
        last = self._last_ping
        return last is None or now < last or now - last >= self._interval

    def next_ping_in(self, now: float) -> float | None:
        """Seconds from ``now`` until a ping is due (0: now); None without a watchdog: how long
        the runner may sleep without leaving systemd's watchdog short."""
        if self._interval is None or not self.enabled:
            return None
        last = self._last_ping
        if last is None or now < last:
            return 0.0
        return max(0.0, self._interval - (now - last))

    def ping_if_due(self, now: float) -> bool:
        """Send ``WATCHDOG=1`` if :meth:`due` at ``now``; True when a ping was sent."""
        if not self.due(now):
            return False
        self.watchdog()
        self._last_ping = now
        return True

    def _send(self, message: str) -> None:
        if self._target is None:
            return
        try:  # a fresh socket per datagram, as sd_notify(3) does: nothing held open in between
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.setblocking(False)  # a service manager that stopped reading never stalls the game
                # "replace": a stray surrogate (from a file name, say) must not raise either.
                sock.sendto(message.encode("utf-8", "replace"), self._target)
        except OSError as exc:
            log.warning("could not notify the service manager (%s): %s", message.split("\n", 1)[0], exc)


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(" ", text)
