"""The hub's connection to the broker: every board of the event in, resend requests out.

A persistent MQTT 5 session (the broker keeps the hub's records for an hour while it
restarts), subscribed with QoS 1 to every board's records and with QoS 0 to its state and
status: the broker queues no state for a hub away (a board sends one a second), and hands
it the retained ones each time it subscribes again, on every connect. Each message
goes to :meth:`Hub.receive` and the table it changed to ``changed``. Once a second the hub
asks boards for records it lacks (a gap that waited, or a state naming records or a result
it has not got, of the game in play or of one the state lists: a broker that lost them)
and forgets what nobody will be shown again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from scoreboard.broadcast.messages import ResendMessage, encode
from scoreboard.broadcast.publisher import connect_client
from scoreboard.config import HubConfig

from .core import Hub

__all__ = ["Ingest"]

log = logging.getLogger(__name__)

SESSION_S = 3600  # how long the broker keeps the hub's session (and its messages) while it is away


class Ingest:
    """Feeds ``hub`` from the broker of ``config``; ``changed(table, received)`` after each change."""

    def __init__(self, hub: Hub, config: HubConfig, changed: Callable[[str, float], None],
                 *, clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.config = config
        self.changed = changed
        self.clock = clock
        self.connected = threading.Event()
        self.refused: str | None = None
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        client = connect_client(f"hub-{config.event}", config.username, config.password, config.tls_ca, "hub.tls_ca")
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client

    def start(self) -> None:
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = SESSION_S
        self.client.connect_async(self.config.host, self.config.port, keepalive=20, clean_start=False,
                                  properties=props)
        self.client.loop_start()
        self._timer = threading.Thread(target=self._tick, name="hub-timer", daemon=True)
        self._timer.start()

    def stop(self) -> None:
        self._stop.set()
        self.client.disconnect()
        self.client.loop_stop()
        if self._timer is not None:
            self._timer.join(timeout=5)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                    properties: Properties | None) -> None:
        if reason.is_failure:
            self.refused = str(reason)
            log.error("the broker %s:%d refused the hub (user %r): %s; check hub.username and hub.password",
                      self.config.host, self.config.port, self.config.username, reason)
            return
        self.refused = None
        topics = self.hub.topics
        client.subscribe([(topics.all("records"), 1), (topics.all("state"), 0), (topics.all("status"), 0)])
        log.info("connected to the broker %s:%d, collecting %s", self.config.host, self.config.port, topics.event)
        self.connected.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Properties | None) -> None:
        if self.connected.is_set() and not self._stop.is_set():
            log.warning("lost the broker (%s); reconnecting", reason)
        self.connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        now = self.clock()
        try:
            table = self.hub.receive(message.topic, bytes(message.payload), now)
        except Exception:  # one bad message must not stop the hub
            log.exception("the hub failed on a message on %s", message.topic)
            return
        if table is not None:
            self.changed(table, now)

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            now = self.clock()
            try:
                for ask in self.hub.resends(now):
                    log.info("asking table %s for game %s from record %s", ask.table, ask.game, ask.start)
                    topic = self.hub.topics.board(ask.table, "resend")
                    self.client.publish(topic, encode(ResendMessage(ask.game, ask.start, ask.journal)), qos=1)
                self.hub.prune(now)
            except Exception:
                log.exception("the hub's timer failed; it goes on")
