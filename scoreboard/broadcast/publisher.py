"""The board's publisher: the journal's records and the table's state to the venue's broker.

The service calls :meth:`Publisher.journaled` after each journal commit and
:meth:`Publisher.table` with each state; both only note what changed and wake the
publisher's thread, so a broker that is slow, gone or refusing never holds up a press.
The thread reads what is not yet sent from the journal (:class:`~.cursor.PublishLog`),
publishes it in order with QoS 1 (at most :data:`WINDOW` waiting for their PUBACK), and
advances the publish cursor in the journal as the broker acknowledges: after a broker
outage, a lost Wi-Fi or a restart it goes on from where the broker stopped taking. The
hub drops what it already has (by journal, game and seq) and asks for what it lacks
(``resend``): the retained state lists the event's latest games with how much of each the
broker acknowledged, so a hub that lost a game's tail (a broker killed after its PUBACKs,
an expired session) learns it even once the board has moved on to the next game.

paho-mqtt (MQTT 5) runs the connection in its own thread and reconnects by itself; the
broker's last will says the board is offline when the connection drops.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from engine.errors import ScoreboardError
from scoreboard.config import BroadcastConfig
from scoreboard.controller.state import TableState

from .cursor import CursorError, Item, Mark, PublishLog
from .messages import (
    GAMES_LISTED,
    BadMessage,
    Listed,
    RecordMessage,
    StateMessage,
    StatusMessage,
    Topics,
    decode_resend,
    encode,
)
from .state import state_view

__all__ = ["WINDOW", "Publisher", "connect_client"]

log = logging.getLogger(__name__)

WINDOW = 16  # records published and not yet acknowledged, at most
SAVE_EVERY_S = 0.5  # the cursor is written at most this often (and when idle)
REFUSED_RETRY_S = 30.0  # after the broker refused a record (its ACL): try again after this long
STATE_EVERY_S = 1.0  # the table's state is published at most this often ...
CLOCK_EVERY_S = 10.0  # ... and when only the clocks moved, this often (the pages run the clocks between)
AT_ONCE = ("phase", "challenge")  # a change of these is published at once (a challenge waits 0.4 s for its ruling)


class TlsSetupError(ScoreboardError, ValueError):
    """The CA certificate file of ``key`` (``broadcast.tls_ca``, ``hub.tls_ca``) cannot be used:
    ``path`` and the reason."""

    def __init__(self, key: str, path: str, reason: str) -> None:
        self.key, self.path, self.reason = key, path, reason
        super().__init__(f"{key}: the CA certificate {path!r} cannot be used: {reason}")


def connect_client(client_id: str, username: str, password: str, tls_ca: str, key: str = "broadcast.tls_ca") -> mqtt.Client:
    """A paho client (MQTT 5, callbacks of API version 2) with the credentials and TLS (the
    keep-alive is given to ``connect``); :class:`TlsSetupError` naming ``key`` when the CA file
    ``tls_ca`` cannot be read or is no certificate. With a ``username`` the client's id is
    that name, as the venue's broker makes it anyway (``use_username_as_clientid``: no client
    can take over another's session); ``client_id`` serves a broker without users."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=username or client_id, protocol=mqtt.MQTTv5)
    if username:
        client.username_pw_set(username, password or None)
    if tls_ca:
        try:
            client.tls_set(ca_certs=str(Path(tls_ca).expanduser()), tls_version=ssl.PROTOCOL_TLS_CLIENT)
        except (OSError, ssl.SSLError, ValueError) as e:
            raise TlsSetupError(key, tls_ca, getattr(e, "strerror", None) or str(e)) from None
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    client.max_inflight_messages_set(WINDOW + 4)
    return client


@dataclass
class _Flight:
    mid: int
    item: Item
    acked: bool = False


class Publisher:
    """Publishes the journal at ``db`` as ``config`` says; :meth:`start`, then :meth:`stop`."""

    def __init__(self, config: BroadcastConfig, db: Path, *, wall: Callable[[], float] = time.time) -> None:
        self.config = config
        self.db = db
        self.wall = wall
        self.topics = Topics(config.topic_prefix, config.event)
        self._topic = {what: self.topics.board(config.table, what) for what in ("records", "state", "status", "resend")}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._log: PublishLog | None = None
        self._client: mqtt.Client | None = None
        self._connected = False
        self._acked: dict[int, Mark] = {}  # what the broker has (the cursor)
        self._taken: set[int] = set()  # games taken as published when the event started (never sent)
        self._sent: dict[int, Mark] = {}  # what was handed to the connection
        self._dirty: set[int] = set()  # games whose cursor is not yet written
        self._saved_at = 0.0
        self._flights: deque[_Flight] = deque()
        self._committed: dict[tuple[int, int], float] = {}  # (game, seq): wall time of the commit
        self._state: tuple[TableState, int | None, int] | None = None
        self._state_sent = True
        self._state_last: tuple[float, dict[str, Any] | None] = (-1e9, None)  # when, and the view without clocks
        self._refused_until = 0.0
        self._outage_logged = False
        #: what happened, for the bench and the tests: records acknowledged, refused by the broker
        self.acked_count = 0
        self.refused: list[tuple[RecordMessage, str]] = []
        self.connect_refused: str | None = None

    # --- the service's side (never waits) -----------------------------------------------------

    def journaled(self, game: int, seqs: Sequence[int]) -> None:
        """Records ``seqs`` of ``game`` were committed just now."""
        now = self.wall()
        with self._lock:
            for seq in seqs:
                self._committed[(game, seq)] = now
        self._wake.set()

    def table(self, state: TableState, game: int | None, seq: int) -> None:
        """The table is now ``state`` (game ``game``, whose last record is ``seq``)."""
        with self._lock:
            self._state = (state, game, seq)
            self._state_sent = False
        self._wake.set()

    # --- running --------------------------------------------------------------------------

    def start(self) -> None:
        """Open the cursor, connect in the background and start publishing."""
        self._log = PublishLog(self.db, self.config.event)
        self._log.start_here()
        self._acked = self._log.marks()
        self._taken = self._log.taken()
        self._sent = dict(self._acked)
        c = self.config
        try:
            client = connect_client(f"board-{c.event}-{c.table}", c.username, c.password, c.tls_ca)
        except TlsSetupError:
            self._log.close()
            raise
        client.will_set(self._topic["status"], encode(StatusMessage(False)), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        self._client = client
        client.connect_async(c.host, c.port, keepalive=c.keepalive_s)
        client.loop_start()
        self._thread = threading.Thread(target=self._run, name="broadcast", daemon=True)
        self._thread.start()
        log.info("publishing table %s of %s to %s:%d", c.table, c.event, c.host, c.port)

    def stop(self, flush_s: float | None = None) -> None:
        """Wait up to ``flush_s`` (``broadcast.flush_s``) for the broker to take what is
        journaled, say offline, save the cursor and close."""
        deadline = time.monotonic() + (self.config.flush_s if flush_s is None else flush_s)
        with self._lock:
            self._state_last = (-1e9, None)  # the last state goes out at once
        while time.monotonic() < deadline and not self.idle():
            self._wake.set()
            time.sleep(0.02)
        if not self.idle():
            log.warning("stopping with records the broker has not taken; they are published at the next start")
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        client = self._client
        if client is not None:
            if self._connected:
                info = client.publish(self._topic["status"], encode(StatusMessage(False)), qos=1, retain=True)
                with contextlib.suppress(Exception):  # (a goodbye that cannot be said: the will says it)
                    info.wait_for_publish(timeout=1.0)
            client.disconnect()
            client.loop_stop()
        if self._log is not None:
            self._save(force=True)
            self._log.close()

    def idle(self) -> bool:
        """Nothing journaled is waiting to be acknowledged."""
        if self._log is None:
            return True
        with self._lock:
            if self._flights:
                return False
            acked = dict(self._acked)
        try:
            return not self._log.pending(acked, 1)
        except CursorError:
            return False

    @property
    def connected(self) -> bool:
        return self._connected

    # --- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            try:
                self._step()
            except CursorError as e:
                log.error("%s; publishing waits", e)
                time.sleep(1.0)
            except Exception:  # a bug here must never reach the table
                log.exception("the publisher failed; it goes on")
                time.sleep(1.0)

    def _step(self) -> None:
        if self._connected and self.wall() >= self._refused_until:
            self._publish_records()
            self._publish_state()
        self._save()

    def _publish_state(self) -> None:
        """The latest state, at most every :data:`STATE_EVERY_S` (:data:`CLOCK_EVERY_S` when
        only the time moved: every tick is a new state); at once when one of :data:`AT_ONCE`
        changed, so that a challenge in progress shows and its ruling follows."""
        now = self.wall()
        with self._lock:
            if self._state_sent or self._state is None:
                return
            state, game, seq = self._state
            view = state_view(state)
            games = self._listed()
            steady = {k: v for k, v in view.items() if k not in ("now", "clock", "window")}
            steady["seq"], steady["game"], steady["games"] = seq, game, games
            last_at, last = self._state_last
            if last is not None and any(steady.get(k) != last.get(k) for k in AT_ONCE):
                wait = 0.0
            else:
                wait = CLOCK_EVERY_S if steady == last else STATE_EVERY_S
            if now - last_at < wait:
                return  # (kept: sent once the wait is over; the thread wakes at least twice a second)
            self._state_sent = True
            self._state_last = (now, steady)
        assert self._log is not None and self._client is not None
        message = StateMessage(game, seq, view, now, self._log.journal, games)
        self._client.publish(self._topic["state"], encode(message), qos=1, retain=True)

    def _listed(self) -> tuple[Listed, ...]:
        """The event's latest games the broker has taken (some of), newest first (under the lock)."""
        games = sorted((g for g, m in self._acked.items() if m.seq >= 0 and g not in self._taken), reverse=True)
        return tuple(Listed(g, self._acked[g].seq, self._acked[g].finished is not None) for g in games[:GAMES_LISTED])

    def _publish_records(self) -> None:
        assert self._log is not None and self._client is not None
        with self._lock:
            room = WINDOW - len(self._flights)
            sent = dict(self._sent)
        if room <= 0:
            return
        for item in self._log.pending(sent, room):
            message = item.message
            with self._lock:
                committed = self._committed.pop((message.game, message.seq), None) if message.seq is not None else None
            if committed is not None:
                message = dataclasses.replace(message, committed=committed)
            info = self._client.publish(self._topic["records"], encode(message), qos=1)
            if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
                log.warning("could not hand record %s/%s to the connection: %s", message.game, message.seq, info.rc)
                return
            with self._lock:
                self._flights.append(_Flight(info.mid, Item(message, item.mark)))
                self._sent[message.game] = _merge(self._sent.get(message.game), item.mark)

    def _save(self, force: bool = False) -> None:
        now = time.monotonic()
        with self._lock:
            if not self._dirty or (not force and now - self._saved_at < SAVE_EVERY_S and self._flights):
                return
            marks = {g: self._acked[g] for g in self._dirty}
            self._dirty.clear()
            self._saved_at = now
        assert self._log is not None
        try:
            self._log.save(marks)
        except CursorError:
            with self._lock:
                self._dirty.update(marks)
            raise

    # --- paho's callbacks (its thread) ---------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            self.connect_refused = str(reason)
            log.error(
                "the broker %s:%d refused table %s (user %r): %s; check broadcast.username and broadcast.password",
                self.config.host, self.config.port, self.config.table, self.config.username, reason,
            )
            return
        self.connect_refused = None
        log.info("connected to the broker %s:%d", self.config.host, self.config.port)
        with self._lock:
            self._connected = True
            self._outage_logged = False
            self._flights.clear()  # (paho sends those again by itself; the hub drops doubles)
            self._sent = dict(self._acked)
            self._state_sent = self._state is None
            self._state_last = (-1e9, None)
        client.subscribe(self._topic["resend"], qos=1)
        client.publish(self._topic["status"], encode(StatusMessage(True)), qos=1, retain=True)
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Properties | None) -> None:
        with self._lock:
            self._connected = False
            logged, self._outage_logged = self._outage_logged, True
        if not logged and not self._stopping.is_set():
            log.warning("lost the broker (%s); the table goes on, records wait in the journal", reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode,
                    properties: Properties | None) -> None:
        with self._lock:
            flight = next((f for f in self._flights if f.mid == mid), None)
            if flight is None:
                return  # (the state, the status, or a record of an earlier connection)
            if reason.is_failure:
                message = flight.item.message
                self.refused.append((message, str(reason)))
                self._flights.clear()
                self._sent = dict(self._acked)
                self._refused_until = self.wall() + REFUSED_RETRY_S
                why = str(reason)
            else:
                why = ""
                flight.acked = True
                while self._flights and self._flights[0].acked:
                    done = self._flights.popleft()
                    game = done.item.message.game
                    self._acked[game] = _merge(self._acked.get(game), done.item.mark)
                    self._dirty.add(game)
                    self.acked_count += 1
                    self._state_sent = self._state is None  # (its list of games moved: sent again)
        if why:
            log.error(
                "the broker refused record %s/%s of table %s: %s (the broker's ACL lets a board publish only under"
                " %s/%s/%s/); kept in the journal, tried again in %.0f s",
                message.game, message.seq, self.config.table, why, self.config.topic_prefix, self.config.event,
                self.config.table, REFUSED_RETRY_S,
            )
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            resend = decode_resend(message.topic, bytes(message.payload))
        except BadMessage as e:
            log.warning("ignored a resend request: %s", e)
            return
        with self._lock:
            mark = self._sent.get(resend.game)
            if mark is None or resend.game in self._taken:
                return  # (a game not published to this event)
            if resend.journal is not None and self._log is not None and resend.journal != self._log.journal:
                log.info("ignored a resend request for game %s of another journal (%s)", resend.game, resend.journal)
                return
            back = Mark(resend.start - 1, None)
            if back.seq < mark.seq or mark.finished is not None:
                self._sent[resend.game] = Mark(min(back.seq, mark.seq), None)
                log.info("the hub asked for game %s again from %s", resend.game, resend.start)
        self._wake.set()


def _merge(old: Mark | None, new: Mark) -> Mark:
    if old is None:
        return new
    return Mark(max(old.seq, new.seq), new.finished if new.finished is not None else old.finished)
