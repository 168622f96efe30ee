"""Telling systemd how the service is doing: readiness, status line, watchdog, stopping.

Under systemd (``Type=notify`` in ``systemd/scoreboard.service``) the service manager passes
the address of its notification socket in ``$NOTIFY_SOCKET`` and, with ``WatchdogSec=``, the
watchdog period in ``$WATCHDOG_USEC`` (and the process it is meant for in ``$WATCHDOG_PID``).
:class:`ServiceNotifier` sends the sd_notify(3) datagrams through the ``sdnotify`` package;
outside systemd (no ``$NOTIFY_SOCKET``: the tests, the demo, a terminal) every call is a
no-op, so the service code calls it unconditionally.

The service loop pings the watchdog at half the period with an injected clock::

    notifier = ServiceNotifier()
    ...                                  # set up board, buttons, display
    notifier.ready("Waiting for the board")
    while running:
        event = events.get(timeout=...)  # wake at least every watchdog_interval() seconds
        notifier.ping_if_due(time.monotonic())
        ...
    notifier.stopping()

``now`` must be real time (``time.monotonic()``) even when the game runs on a virtual clock:
systemd's watchdog counts real seconds.

A ``$WATCHDOG_USEC`` or ``$WATCHDOG_PID`` that is not a positive whole number is an error
(:class:`WatchdogConfigError`, raised by the constructor) rather than ignored: systemd would
enforce the watchdog all the same and kill the service every period, so failing at start
with the bad value named is the clearer report. Failing to *send* (systemd gone, socket
unreachable) only logs a warning: the game must not stop because the service manager did.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping

import sdnotify  # type: ignore[import-untyped]  # no type information shipped

from engine.errors import ScoreboardError

__all__ = ["ServiceNotifier", "WatchdogConfigError"]

log = logging.getLogger(__name__)

_WHOLE_NUMBER = re.compile(r"[0-9]+")
# A newline separates assignments in one datagram (and a NUL ends it): a status text must
# not smuggle in "READY=1" or "STOPPING=1".
_LINE_BREAKS = re.compile(r"[\r\n\x00]+")


class WatchdogConfigError(ScoreboardError, ValueError):
    """``$WATCHDOG_USEC`` or ``$WATCHDOG_PID`` is not a positive whole number (the value is quoted)."""


def _positive_int(name: str, value: str) -> int:
    if not _WHOLE_NUMBER.fullmatch(value) or int(value) == 0:
        raise WatchdogConfigError(f"${name} must be a positive whole number, got {value!r}")
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
        self._notifier: sdnotify.SystemdNotifier | None = None
        if not self._address:
            return
        if self._address[0] not in "/@":
            log.warning("ignoring $NOTIFY_SOCKET %r: not a socket path or @abstract name", self._address)
            return
        try:
            # debug=True: raise instead of sdnotify's silent failure, so it can be logged.
            self._notifier = sdnotify.SystemdNotifier(debug=True)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the address
            log.warning("cannot reach the service manager at $NOTIFY_SOCKET %r: %s", self._address, exc)

    def __repr__(self) -> str:
        return f"<ServiceNotifier socket={self._address or None!r} watchdog_interval={self._interval!r}>"

    @property
    def enabled(self) -> bool:
        """True when notifications go to a service manager."""
        return self._notifier is not None

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
        """Seconds between watchdog pings (half of ``$WATCHDOG_USEC``); None without a watchdog.

        None also when ``$WATCHDOG_PID`` names another process: the watchdog is not ours.
        """
        return self._interval

    def due(self, now: float) -> bool:
        """True when a watchdog ping is due at ``now`` (seconds, ``time.monotonic()``).

        Due at the first call, then ``watchdog_interval()`` after the last ping from
        :meth:`ping_if_due`, or when ``now`` went backwards. Never due without a watchdog or
        without a service manager to ping.
        """
        if self._interval is None or not self.enabled:
            return False
        last = self._last_ping
        return last is None or now < last or now - last >= self._interval

    def ping_if_due(self, now: float) -> bool:
        """Send ``WATCHDOG=1`` if :meth:`due` at ``now``; True when a ping was sent."""
        if not self.due(now):
            return False
        self.watchdog()
        self._last_ping = now
        return True

    def _send(self, message: str) -> None:
        if self._notifier is None:
            return
        try:
            # sdnotify encodes the text as Latin-1, systemd reads UTF-8: hand it a string whose
            # Latin-1 encoding is the UTF-8 bytes, so "Spieler Ä" and "cœur" arrive intact.
            self._notifier.notify(message.encode("utf-8").decode("latin-1"))
        except OSError as exc:
            log.warning("could not notify the service manager (%s): %s", message.split("\n", 1)[0], exc)


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(" ", text)
