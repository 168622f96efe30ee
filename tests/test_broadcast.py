"""Boards publishing to a real Mosquitto and the hub collecting: outages, restarts, refusals.

Each table is the real service (its journal, its controller) driven in this process by the
table rig on a virtual clock, with the real publisher; the broker is Debian's mosquitto on a
loopback port with the setup of ``scoreboard hub setup``; the hub's core and broker
connection run here too. Every game must end on the hub exactly as in the board's journal:
the same GCG text as ``scoreboard export`` writes.
"""

from __future__ import annotations

import attrs
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig
from test_service import Clock, mirror_into

from drivers.buttons.logic import Role
from drivers.display.oled import Display
from mqtthelpers import EVENT, Cut, HubRig, board_config, running_broker, running_tls_broker, wait_for
from scoreboard.broadcast.messages import ResendMessage, encode
from scoreboard.broadcast.publisher import Publisher, connect_client
from scoreboard.export_cli import game_to_gcg
from scoreboard.hub.broker import Broker
from scoreboard.journal import Journal
from scoreboard.service import Service


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    with running_broker(tmp_path / "broker") as b:
        yield b


class Table:
    """A table of two through the service, publishing as ``config`` says."""

    def __init__(self, folder: Path, publisher: Publisher | None) -> None:
        self.folder = folder
        self.clock = Clock()
        self.rig: Rig = rig("de", 2, words=("HAUS",))
        self.journal = Journal.open(folder)
        self.publisher = publisher
        self.service = Service(self.rig.table, self.journal, [Display(dummy(width=128, height=64, mode="1"))],
                               clock=self.clock, broadcast=publisher)
        self.service.start("de", 2)
        mirror_into(self.rig, self.service, self.clock)

    def opening(self) -> None:
        r = self.rig
        r.draw_first("AE")
        r.deal({0: "HAUSTEN", 1: "ABENDRO"})
        r.lay(0, "H8:H H9:A H10:U H11:S")
        r.done(1)
        r.challenge(2)  # wrong: -5
        r.tick(6)
        r.draw(0, "RIEN")

    def passes(self, n: int) -> None:
        for i in range(n):
            seat = self.rig.game.turn + 1
            self.rig.press(seat, Role.DONE, long=True)
            self.rig.tick(1)

    def gcg(self) -> str:
        info = self.journal.latest()
        assert info is not None
        return game_to_gcg(info, self.journal.entries(info.id))

    def close(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()
        self.service.close()


def publisher(broker: Broker, folder: Path, table: str = "t1", **kw: object) -> Publisher:
    folder.mkdir(parents=True, exist_ok=True)
    p = Publisher(board_config(broker, table, **kw), folder / "journal.db")  # type: ignore[arg-type]
    return p


def started(p: Publisher) -> Publisher:
    Journal.open(p.db.parent).close()  # (the journal's schema first, as the service opens it before)
    p.start()
    return p


def online(hub: HubRig, name: str) -> bool | None:
    """Whether the hub shows ``name`` online (None: the hub has not heard of it yet)."""
    if name not in hub.hub.tables:
        return None
    return bool(hub.hub.summary(name, time.time())["online"])


def hub_gcg(hub: HubRig, key: str) -> str | None:
    return hub.hub.gcg(key, time.time() + 1)


def test_a_game_ends_on_the_hub_as_in_the_journal_through_a_broker_killed_mid_game(
    tmp_path: Path, broker: Broker
) -> None:
    hub = HubRig(broker, tmp_path / "hub").start()
    table = Table(tmp_path / "t1", started(publisher(broker, tmp_path / "t1")))
    try:
        table.opening()
        wait_for(lambda: (g := hub.hub.tables.get("t1")) and g.games.get("t1-1") and g.games["t1-1"].applied >= 5,
                 why="the opening on the hub")
        broker.kill()  # the venue's broker vanishes (SIGKILL: what it had not delivered is gone)
        table.passes(2)  # the table goes on: journaled, nothing waits for the broker
        wait_for(lambda: not table.publisher.connected, why="the publisher to notice")  # type: ignore[union-attr]
        table.rig.tick(120)
        broker.start()  # back, empty: no session, no retained state
        table.passes(2)  # the game ends on passes
        assert table.rig.state.phase.__class__.__name__ == "Over"
        expected = table.gcg()
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=30, why="the hub's game to equal the journal")
        game = hub.hub.tables["t1"].games["t1-1"]
        assert not game.flags, game.flags
        entries = table.journal.latest().entries  # type: ignore[union-attr]
        # (the GCG can be whole before a last record that writes no line, such as a moment, arrives)
        wait_for(lambda: game.applied == entries, why="every record applied on the hub")
    finally:
        table.close()
        hub.stop()


def test_a_hung_connection_to_the_broker_holds_up_nothing_at_the_table(tmp_path: Path, broker: Broker) -> None:
    """Every publish blocks (a network that swallows packets): the table plays on, every step
    journaled; once the network moves again the hub gets the game whole."""
    hub = HubRig(broker, tmp_path / "hub").start()
    p = started(publisher(broker, tmp_path / "t1"))
    wait_for(lambda: p.connected, why="the publisher connected")
    assert p._client is not None
    real_publish, moving = p._client.publish, threading.Event()
    blocked: list[str] = []

    def stuck(topic: str, *args: object, **kw: object) -> object:
        blocked.append(threading.current_thread().name)
        moving.wait()
        return real_publish(topic, *args, **kw)  # type: ignore[arg-type]

    p._client.publish = stuck  # type: ignore[method-assign]
    table = Table(tmp_path / "t1", p)
    try:
        played = threading.Thread(target=lambda: (table.opening(), table.passes(4)))
        played.start()
        played.join(timeout=60)  # (a hang detector, not a timing: the game is a few steps)
        assert not played.is_alive(), "the table waited for the broker"
        assert blocked and set(blocked) == {"broadcast"}  # only the publisher's thread ever waited
        assert table.rig.state.phase.__class__.__name__ == "Over"
        expected = table.gcg()
        moving.set()
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=30, why="the game once the network moved")
    finally:
        moving.set()
        table.close()
        hub.stop()


def test_a_board_offline_for_minutes_of_virtual_time_catches_up_and_the_hub_sees_it_offline(
    tmp_path: Path, broker: Broker
) -> None:
    cut = Cut(broker.port)  # the board's Wi-Fi
    hub = HubRig(broker, tmp_path / "hub").start()
    table = Table(tmp_path / "t1", started(publisher(broker, tmp_path / "t1", port=cut.port)))
    try:
        table.opening()
        wait_for(lambda: online(hub, "t1") is True, why="t1 online on the hub")
        cut.down()
        wait_for(lambda: online(hub, "t1") is False, why="the broker's last will: offline")
        for _ in range(3):  # four minutes of the table's time with no Wi-Fi
            table.rig.tick(80)
        table.passes(4)
        expected = table.gcg()
        assert hub_gcg(hub, "t1-1") != expected
        cut.up()
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=30, why="the board to catch up")
        wait_for(lambda: online(hub, "t1") is True, why="t1 online again")
        assert not hub.hub.tables["t1"].games["t1-1"].flags
    finally:
        table.close()
        hub.stop()
        cut.close()


def test_a_restarted_board_publishes_from_its_cursor_and_the_hub_drops_doubles(tmp_path: Path, broker: Broker) -> None:
    cut = Cut(broker.port)
    hub = HubRig(broker, tmp_path / "hub").start()
    first = started(publisher(broker, tmp_path / "t1", port=cut.port, flush_s=0))
    table = Table(tmp_path / "t1", first)
    table.opening()
    wait_for(lambda: first.idle(), why="the opening taken by the broker")
    with sqlite3.connect(tmp_path / "t1" / "journal.db") as db:
        cursor = db.execute("SELECT game_id, seq FROM broadcast_cursor WHERE event = ?", (EVENT,)).fetchall()
    assert cursor == [(1, table.journal.latest().entries)]  # type: ignore[union-attr]
    cut.down()
    table.passes(4)  # the game ends while the board cannot publish ...
    expected = table.gcg()
    entries = table.journal.latest().entries  # type: ignore[union-attr]
    table.close()  # ... and the board is switched off with it unpublished
    cut.up()
    second = started(publisher(broker, tmp_path / "t1", port=cut.port))  # switched on again
    try:
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=30, why="the rest after the restart")
        wait_for(second.idle, why="the cursor at the end")
        assert second.acked_count <= entries - cursor[0][1] + 2  # from the cursor on: the rest and the result
        game = hub.hub.tables["t1"].games["t1-1"]
        assert sorted(game.records) == list(range(1, game.applied + 1)) and not game.flags
    finally:
        second.stop()
        hub.stop()
        cut.close()


def test_a_board_without_credentials_or_with_a_wrong_password_is_refused(tmp_path: Path, broker: Broker) -> None:
    for user, password in (("", ""), ("t1", "not-its-password")):
        p = started(publisher(broker, tmp_path / f"anon{len(user)}", user=user, password=password))
        try:
            wait_for(lambda: p.connect_refused is not None, why="the broker's refusal")
            assert p.connect_refused == "Not authorized" and not p.connected
        finally:
            p.stop(0)


def test_a_board_publishing_to_another_boards_topics_is_refused_and_keeps_its_records(
    tmp_path: Path, broker: Broker
) -> None:
    hub = HubRig(broker, tmp_path / "hub").start()
    # t1's credentials, t2's table name: the ACL lets t1 publish only under .../t1/
    impostor = started(publisher(broker, tmp_path / "x", table="t2", user="t1", flush_s=0))
    table = Table(tmp_path / "x", impostor)
    try:
        table.rig.draw_first("AE")
        wait_for(lambda: impostor.refused, why="the broker's refusal of the record")
        message, why = impostor.refused[0]
        assert why == "Not authorized" and message.game == 1 and message.seq == 0
        time.sleep(0.3)
        assert "t2" not in hub.hub.tables or not hub.hub.tables["t2"].games
        with sqlite3.connect(tmp_path / "x" / "journal.db") as db:
            assert db.execute("SELECT COUNT(*) FROM broadcast_cursor WHERE game_id = 1 AND seq >= 0").fetchone() == (0,)  # nothing lost
    finally:
        table.close()
        hub.stop()


def test_a_boards_credentials_cannot_take_over_another_clients_session(tmp_path: Path, broker: Broker) -> None:
    """The broker makes each client's id its user name (``use_username_as_clientid``): t1's
    credentials with the hub's or t2's client id (as they were, or their user names) are
    client t1, and neither the hub nor t2 is hung up on."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    hub = HubRig(broker, tmp_path / "hub").start()
    board = started(publisher(broker, tmp_path / "t2", table="t2"))
    drops: list[str] = []
    for name, client in (("hub", hub.ingest.client), ("t2", board._client)):
        assert client is not None
        inner = client.on_disconnect

        def dropped(*args: object, inner: object = inner, name: str = name) -> None:
            drops.append(name)
            inner(*args)  # type: ignore[operator]

        client.on_disconnect = dropped
    try:
        wait_for(lambda: board.connected, why="t2 to connect")
        for client_id in ("hub", "hub-open", "t2", "board-open-t2"):
            intruder = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
            intruder.username_pw_set("t1", broker.passwords["t1"])
            intruder.connect("127.0.0.1", broker.port, keepalive=5)
            intruder.loop_start()
            try:
                wait_for(intruder.is_connected, why=f"the intruder as {client_id!r} to connect")
                time.sleep(0.3)  # (a takeover hangs up on the other at once)
            finally:
                intruder.disconnect()
                intruder.loop_stop()
        assert drops == [] and hub.ingest.connected.is_set() and board.connected
    finally:
        board.stop(0)
        hub.stop()


def test_malformed_and_forged_messages_are_refused_by_the_hub_and_lose_nothing(tmp_path: Path, broker: Broker) -> None:
    hub = HubRig(broker, tmp_path / "hub").start()
    table = Table(tmp_path / "t1", started(publisher(broker, tmp_path / "t1")))
    # (t2's credentials: t1's would be client t1 too, and the broker would hang up on the table)
    raw = connect_client("raw-t2", "t2", broker.passwords["t2"], "")
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    try:
        table.opening()
        base = f"scoreboard/{EVENT}/t2"
        bad = [
            (f"{base}/records", b"\xff\xfe not utf-8"),
            (f"{base}/records", b"{not json"),
            (f"{base}/records", b'{"v": 9, "game": 1, "seq": 3}'),
            (f"{base}/records", b'{"v": 1, "game": 1, "seq": -2, "kind": "command", "payload": {}, "at": 0}'),
            (f"{base}/records", b'{"v": 1, "game": 1, "seq": 4, "kind": "command", "payload": {}, "at": NaN}'),
            (f"{base}/state", b'{"v": 1, "game": 1, "seq": "x", "view": {}, "sent": 0}'),
            (f"{base}/status", b'{"v": 1, "online": "yes"}'),
            (f"{base}/records", b'{"v": 1, "game": 1, "seq": 5, "kind": "DROP TABLE", "payload": {}, "at": 0}'),
        ]
        for topic, payload in bad:
            raw.publish(topic, payload, qos=1).wait_for_publish(5)
        wait_for(lambda: hub.hub.refused_count >= len(bad), why="every bad message refused")
        reasons = [r.reason for r in hub.hub.refused]
        assert any("not UTF-8 JSON" in r for r in reasons) and any("version 9" in r for r in reasons)
        assert all(r.topic.startswith(base) for r in hub.hub.refused)
        table.passes(4)
        expected = table.gcg()
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, why="the game whole despite them")
    finally:
        raw.disconnect()
        raw.loop_stop()
        table.close()
        hub.stop()


def test_the_hub_asks_again_for_records_the_broker_lost(tmp_path: Path, broker: Broker) -> None:
    """Records the broker took (acknowledged: the cursor moved on) but never delivered: the
    hub sees the board's state name a later record and asks the board for them again."""
    table = Table(tmp_path / "t1", started(publisher(broker, tmp_path / "t1")))
    try:
        table.opening()  # published while no hub listens: a hub that subscribes later never gets them
        wait_for(table.publisher.idle, why="the opening taken")  # type: ignore[union-attr]
        hub = HubRig(broker, tmp_path / "hub").start()
        try:
            table.passes(4)
            expected = table.gcg()
            wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=30, why="the lost records asked for again")
        finally:
            hub.stop()
    finally:
        table.close()




def test_a_board_and_the_hub_over_tls(tmp_path: Path) -> None:
    """The setup's TLS listener (a certificate of a CA made here with openssl): a board checks
    the broker by the CA of its [broadcast] tls_ca, and its game reaches the hub."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl to make a test CA: apt-get install openssl")
    certs = tmp_path / "certs"
    certs.mkdir()

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=certs, check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=venue test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=localhost")
    (certs / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
        "broker.pem", "-days", "2", "-extfile", "san.ext")
    with running_tls_broker(tmp_path / "broker", (certs / "broker.pem", certs / "broker.key", certs / "ca.pem")) as b:
        ca = str(certs / "ca.pem")
        hub = HubRig(b, tmp_path / "hub", tls_ca=ca).start()
        p = Publisher(attrs.evolve(board_config(b, "t1"), tls_ca=ca), (tmp_path / "t1") / "journal.db")
        (tmp_path / "t1").mkdir()
        table = Table(tmp_path / "t1", started(p))
        plain = started(publisher(b, tmp_path / "plain"))  # no CA: the TLS listener is not for it
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.pem", "-days", "2",
            "-subj", "/CN=another CA")
        stranger = Publisher(attrs.evolve(board_config(b, "t2"), tls_ca=str(certs / "other.pem")),
                             (tmp_path / "t2") / "journal.db")
        (tmp_path / "t2").mkdir()
        started(stranger)  # another venue's CA: the broker's certificate is not accepted
        try:
            table.opening()
            table.passes(4)
            expected = table.gcg()
            wait_for(lambda: hub_gcg(hub, "t1-1") == expected, why="the game over TLS")
            assert not plain.connected and not stranger.connected
            assert "closed before the broker answered" in (plain.connect_failure or "")
            assert "the broker's certificate is not accepted" in (stranger.connect_failure or "")
        finally:
            stranger.stop(0)
            plain.stop(0)
            table.close()
            hub.stop()


@pytest.mark.soak
def test_games_through_random_outages_end_equal_on_the_hub(tmp_path: Path) -> None:
    """Round after round, a game played through random faults: the broker killed and started
    again, the board's link cut and restored, the board's publisher stopped and started (a
    power cut of the publishing only), the hub stopped and started; each game must end on the
    hub exactly as in the board's journal. ``BROADCAST_SOAK_ROUNDS`` (20), ``BROADCAST_SOAK_SEED`` (1)."""
    import os
    import random

    rounds = int(os.environ.get("BROADCAST_SOAK_ROUNDS", "20"))
    rng = random.Random(int(os.environ.get("BROADCAST_SOAK_SEED", "1")))
    with running_broker(tmp_path / "broker") as b:
        cut = Cut(b.port)
        faults: dict[str, int] = {}
        try:
            for n in range(rounds):
                hub = HubRig(b, tmp_path / f"hub{n}").start()
                folder = tmp_path / f"t{n}"
                table = Table(folder, started(publisher(b, folder, port=cut.port, flush_s=0)))
                steps = [table.opening, *([lambda: table.passes(1)] * 4)]
                for step in steps:
                    fault = rng.choice(("none", "broker", "cut", "publisher", "hub"))
                    faults[fault] = faults.get(fault, 0) + 1
                    if fault == "broker":
                        b.kill()
                        step()
                        b.start()
                    elif fault == "cut":
                        cut.down()
                        step()
                        table.rig.tick(rng.uniform(1, 300))
                        cut.up()
                    elif fault == "publisher":
                        assert table.publisher is not None
                        table.publisher.stop(0)
                        step()
                        fresh = started(publisher(b, folder, port=cut.port))
                        service = table.service
                        assert service.state is not None  # (a restarted service tells its state at its start)
                        fresh.table(service.state, service.game_id, service.seq)
                        table.publisher = service.broadcast = fresh
                    elif fault == "hub":
                        hub.stop()
                        step()
                        hub = HubRig(b, tmp_path / f"hub{n}").start()
                    else:
                        step()
                expected = table.gcg()
                try:
                    wait_for(lambda: hub_gcg(hub, f"t1-{table.journal.latest().id}") == expected,  # type: ignore[union-attr]
                             timeout=60, why=f"round {n}: the game on the hub")
                except AssertionError:
                    feed = hub.hub.tables.get("t1")
                    games = {k: (g.start is not None, g.applied, sorted(g.records), g.gap_since)
                             for k, g in (feed.games.items() if feed else ())}
                    p = table.publisher
                    raise AssertionError(
                        f"round {n}: the hub has {games}, states {feed.states[-1:] if feed else None}; the journal"
                        f" {table.journal.latest()}; publisher connected {p and p.connected}, acked"
                        f" {p and p._acked}, sent {p and p._sent}, flights {p and len(p._flights)}, refused {p and p.refused},"
                        f" thread alive {p and p._thread and p._thread.is_alive()}; faults {faults}"
                    ) from None
                assert not any(g.flags for g in hub.hub.tables["t1"].games.values())
                table.close()
                hub.stop()
        finally:
            cut.close()
    print(f"\nbroadcast soak: {rounds} games, faults {faults}")


def test_the_setup_included_by_debians_main_configuration_serves_the_boards(tmp_path: Path) -> None:
    """As on a venue's Debian: /etc/mosquitto/mosquitto.conf (persistence on, a log file,
    include_dir conf.d) includes the setup's file; the broker starts, refuses the anonymous
    and takes a board's records (a duplicate setting in the two files would stop it)."""
    import pwd

    from scoreboard.hub.broker import free_port, mosquitto_path
    from scoreboard.hub.setup import Setup, write_setup

    exe = mosquitto_path()
    if exe is None:
        pytest.skip("no mosquitto: apt-get install mosquitto (.ci/run does)")
    etc = tmp_path / "etc"
    (etc / "conf.d").mkdir(parents=True)
    (tmp_path / "var").mkdir()
    port = free_port()
    passwords = write_setup(Setup(EVENT, ("t1",), etc / "scoreboard", listen="127.0.0.1", port=port))
    (etc / "conf.d" / "scoreboard.conf").symlink_to(etc / "scoreboard" / "mosquitto.conf")
    me = pwd.getpwuid(os.getuid()).pw_name
    (etc / "mosquitto.conf").write_text(  # Debian's, with this test's folders (and its user: root would become mosquitto)
        f"user {me}\npersistence true\npersistence_location {tmp_path / 'var'}/\n"
        f"log_dest file {tmp_path / 'var' / 'mosquitto.log'}\ninclude_dir {etc / 'conf.d'}\n"
    )
    proc = subprocess.Popen([exe, "-c", str(etc / "mosquitto.conf")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: _listening(port) or proc.poll() is not None, why="the broker to listen")
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        got: list[bytes] = []
        hub = connect_client("hub-x", "hub", passwords["hub"], "")
        hub.on_message = lambda c, u, m: got.append(m.payload)
        hub.on_connect = lambda c, u, f, rc, p: c.subscribe(f"scoreboard/{EVENT}/+/records", qos=1)
        hub.connect("127.0.0.1", port)
        hub.loop_start()
        board = connect_client("board-x", "t1", passwords["t1"], "")
        board.connect("127.0.0.1", port)
        board.loop_start()
        time.sleep(0.5)
        board.publish(f"scoreboard/{EVENT}/t1/records", b"x", qos=1).wait_for_publish(5)
        wait_for(lambda: got == [b"x"], why="the record through the broker")
        anonymous = connect_client("anon-x", "", "", "")
        refused: list[str] = []
        anonymous.on_connect = lambda c, u, f, rc, p: refused.append(str(rc))
        anonymous.connect("127.0.0.1", port)
        anonymous.loop_start()
        wait_for(lambda: refused, why="the anonymous refused")
        assert refused == ["Not authorized"]
        for client in (hub, board, anonymous):
            client.disconnect()
            client.loop_stop()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _listening(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@pytest.mark.parametrize("content", [None, b"not a certificate\n"])
def test_an_unusable_tls_ca_is_named_and_the_table_plays_on_unpublished(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes | None
) -> None:
    """A missing or garbled ``broadcast.tls_ca``: a TlsSetupError with the key and the file, and
    ``scoreboard run`` goes on without publishing (the journal keeps every record for the cursor)."""
    import contextlib
    import logging

    from scoreboard.broadcast.publisher import TlsSetupError
    from scoreboard.config import load_config
    from scoreboard.journal import Journal
    from scoreboard.run_cli import _publisher

    ca = tmp_path / "ca.pem"
    if content is not None:
        ca.write_bytes(content)
    with pytest.raises(TlsSetupError) as raised:
        connect_client("board-x", "t1", "pw", str(ca))
    assert (raised.value.key, raised.value.path) == ("broadcast.tls_ca", str(ca))
    config = load_config(None, ["broadcast.enabled=true", "broadcast.host=127.0.0.1", f"broadcast.tls_ca={ca}"])
    with Journal.open(tmp_path / "state") as journal, contextlib.ExitStack() as closing, \
            caplog.at_level(logging.ERROR, logger="scoreboard.run_cli"):
        assert _publisher(config, journal.path, closing) is None
    assert any("broadcast.tls_ca" in r.getMessage() and str(ca) in r.getMessage() for r in caplog.records)


def test_a_hub_with_an_unusable_tls_ca_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``scoreboard hub`` with ``hub.tls_ca`` a file that is not there: exit 2 and the key and the
    file on stderr, no traceback."""
    import socket

    from scoreboard.cli import main

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ca = tmp_path / "missing-ca.pem"
    code = main(["hub", "--set", f"hub.tls_ca={ca}", "--set", f"hub.listen_port={port}",
                 "--set", f"hub.data_dir={tmp_path / 'hub'}"])
    err = capsys.readouterr().err
    assert code == 2 and "hub.tls_ca" in err and str(ca) in err and "Traceback" not in err


def test_a_games_tail_the_broker_lost_after_its_pubacks_is_asked_for_once_the_board_moved_on(
    tmp_path: Path, broker: Broker
) -> None:
    """The broker took the end of game 1 (the cursor moved on) and was killed before the hub,
    away, got it; the board has since started game 2, which its retained state names. The
    state lists the event's games with how much of each the broker took: the hub asks for the
    rest of game 1, its result included."""
    hub = HubRig(broker, tmp_path / "hub").start()
    table = Table(tmp_path / "t1", started(publisher(broker, tmp_path / "t1")))
    p = table.publisher
    assert p is not None
    try:
        table.opening()
        wait_for(lambda: (g := hub.hub.tables.get("t1")) and g.games.get("t1-1") and g.games["t1-1"].applied >= 5,
                 why="the opening on the hub")
        hub.stop()  # the hub away: the broker queues the rest for its session ...
        table.passes(4)
        expected = table.gcg()
        wait_for(p.idle, why="game 1 taken by the broker, its result too")
        broker.kill()  # ... and loses it all
        broker.start()
        first = table.journal.latest()
        assert first is not None and first.finished is not None
        entries = table.journal.entries(first.id)  # game 2: the same game again (a table playing on)
        second = table.journal.start_game(first.meta, [(e.kind, e.payload, e.at) for e in entries[:6]])
        p.journaled(second, range(1, 7))
        assert table.service.state is not None
        p.table(table.service.state, second, 6)
        wait_for(lambda: p.idle() and p._state_sent and (p._state_last[1] or {}).get("game") == second,
                 why="game 2 and the state naming it taken")
        hub = HubRig(broker, tmp_path / "hub").start()  # back: its game 1 stopped at the opening
        wait_for(lambda: hub_gcg(hub, "t1-1") == expected, timeout=20, why="the rest of game 1 asked for")
        game = hub.hub.tables["t1"].games["t1-1"]
        wait_for(lambda: game.result is not None and game.applied == first.entries, why="game 1's result")
        assert game.result == {"finished": first.finished, "result": first.result}
        wait_for(lambda: (g := hub.hub.tables["t1"].games.get("t1-2")) is not None and g.applied == 6, why="game 2")
        assert not game.flags
    finally:
        table.close()
        hub.stop()


def test_a_spare_board_at_the_same_table_is_another_journal_on_the_hub(tmp_path: Path, broker: Broker) -> None:
    """Board A plays an opening at t1 and is carried off; a spare board, set up as t1 with a
    journal of its own that numbers its games from 1 too, plays a game there. The hub keeps
    the two apart (t1-1, t1.TAG-1: the spare's journal), each equal to its own journal; a resend naming A's journal is
    ignored by the spare."""
    hub = HubRig(broker, tmp_path / "hub").start()
    a = Table(tmp_path / "a", started(publisher(broker, tmp_path / "a", flush_s=0)))
    a.opening()
    gcg_a, entries_a, journal_a = a.gcg(), a.journal.latest().entries, a.journal.identity()  # type: ignore[union-attr]
    wait_for(lambda: (g := hub.hub.tables.get("t1")) and g.games.get("t1-1") and g.games["t1-1"].applied == entries_a,
             why="board A's opening on the hub")
    a.close()

    def whole_gcg(key: str) -> str:  # (racks too: game 1 is not over, the pages hide them)
        game = hub.hub.tables["t1"].games[key]
        return game.gcg(game.applied, racks=True)

    b = Table(tmp_path / "b", started(publisher(broker, tmp_path / "b")))
    try:
        assert journal_a != b.journal.identity()
        b.opening()
        b.passes(4)
        gcg_b = b.gcg()
        assert gcg_b != gcg_a
        spare = f"t1.{b.journal.identity()[:6]}-1"
        wait_for(lambda: hub_gcg(hub, spare) == gcg_b, why="the spare's game 1 beside the table's")
        assert whole_gcg("t1-1") == gcg_a and whole_gcg(spare) == gcg_b
        games = hub.hub.tables["t1"].games
        assert [(g.journal, g.game) for g in games.values()] == [(journal_a, 1), (b.journal.identity(), 1)]
        assert not any(g.flags for g in games.values())
        p = b.publisher
        assert p is not None
        wait_for(p.idle, why="the spare's game taken")
        acked = p.acked_count
        hub.ingest.client.publish(hub.hub.topics.board("t1", "resend"),
                                  encode(ResendMessage(1, 1, journal_a)), qos=1).wait_for_publish(5)
        hub.ingest.client.publish(hub.hub.topics.board("t1", "resend"),
                                  encode(ResendMessage(1, 5, b.journal.identity())), qos=1).wait_for_publish(5)
        again = b.journal.latest().entries - 4 + 1  # type: ignore[union-attr]  # (from 5 on, and the result)
        wait_for(lambda: p.acked_count - acked >= again, why="the spare's own game sent again")
        time.sleep(0.5)
        assert p.acked_count - acked == again  # (not A's game: the spare's game 1 from 1)
    finally:
        b.close()
        hub.stop()


def test_a_board_that_cannot_reach_its_broker_says_why_once_and_when_it_is_back(
    tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing listening (refused), then a relay that hangs up before the broker answers and
    later lets it through: one error per outage with host, port and reason, then "again"."""
    import logging

    from scoreboard.hub.broker import free_port

    caplog.set_level(logging.INFO, logger="scoreboard.broadcast.publisher")
    port = free_port()
    lone = started(publisher(broker, tmp_path / "lone", port=port, flush_s=0))
    try:
        wait_for(lambda: lone.connect_failures >= 2, why="two attempts")
    finally:
        lone.stop(0)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and f"127.0.0.1:{port}" in errors[0] and "connection refused" in errors[0], errors
    caplog.clear()
    cut = Cut(broker.port)
    cut.down()
    p = started(publisher(broker, tmp_path / "t1", port=cut.port, flush_s=0))
    try:
        wait_for(lambda: p.connect_failures >= 2, why="two attempts through the cut")
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and f"127.0.0.1:{cut.port}" in errors[0] and "closed before the broker answered" in errors[0]
        cut.up()
        wait_for(lambda: p.connected, why="the broker back")
        assert any("connected at last to the broker" in r.getMessage() for r in caplog.records)
        for _ in range(2):  # two short Wi-Fi drops in a row: no takeover (the attempts between failed)
            failures = p.connect_failures
            cut.down()
            wait_for(lambda: p.connect_failures > failures, why="an attempt in the drop")  # noqa: B023
            cut.up()
            wait_for(lambda: p.connected, why="the broker back")
        assert any("connected again to the broker" in r.getMessage() for r in caplog.records)
        assert p.takeovers == 0 and not any("another client" in r.getMessage() for r in caplog.records)
    finally:
        p.stop(0)
        cut.close()


def test_two_boards_on_one_tables_credentials_say_so_and_back_off_losing_nothing(
    tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """A replaced board left on as t1 beside the spare: each connection takes the other's
    over (the broker makes the user name the client id); both say why in the log and reconnect
    ever more slowly (without: about one takeover a second); the spare's records wait in its
    journal and go out once the old board is off."""
    import logging

    caplog.set_level(logging.INFO, logger="scoreboard.broadcast.publisher")
    old = started(publisher(broker, tmp_path / "old", flush_s=0))
    wait_for(lambda: old.connected, why="the old board connected")
    before = broker.log.read_text().count("already connected")
    spare = started(publisher(broker, tmp_path / "spare", flush_s=0))
    try:
        time.sleep(8)
        takeovers = broker.log.read_text().count("already connected") - before
        assert 3 <= takeovers <= 5, takeovers
        said = [r.getMessage() for r in caplog.records if "another client connected as table t1" in r.getMessage()]
        assert len(said) == 2 and old.takeovers and spare.takeovers, said
        with Journal.open(tmp_path / "spare") as journal:
            game = journal.start_game({"rules": "de", "players": ["A", "B"], "first": 0},
                                      [("k", {"n": n}, float(n)) for n in range(3)])
            journal.finish(game, {"termination": "out", "rows": [], "winners": [0]})
        spare.journaled(game, range(1, 4))
        old.stop(0)
        wait_for(spare.idle, timeout=30, why="the spare's game taken once the old board is off")
    finally:
        old.stop(0)
        spare.stop(0)


def test_a_hub_back_from_an_absence_gets_the_retained_state_not_those_queued_and_every_record(
    tmp_path: Path, broker: Broker
) -> None:
    """The hub takes states and presence with QoS 0: away (its session kept), the broker queues
    the board's records for it but none of its states; back, it gets the retained state
    (it subscribes again on every connect) and the records."""
    from scoreboard.broadcast.messages import RecordMessage, StateMessage, StatusMessage

    board = connect_client("t1", "t1", broker.passwords["t1"], "")
    board.connect("127.0.0.1", broker.port, keepalive=5)
    board.loop_start()
    base = f"scoreboard/{EVENT}/t1"

    def state(n: int) -> None:
        board.publish(f"{base}/state", encode(StateMessage(1, n, {"phase": f"p{n}"}, 0.0)), qos=1,
                      retain=True).wait_for_publish(5)

    try:
        board.publish(f"{base}/status", encode(StatusMessage(True)), qos=1, retain=True).wait_for_publish(5)
        state(0)
        hub = HubRig(broker, tmp_path / "hub").start()
        wait_for(lambda: (f := hub.hub.tables.get("t1")) and f.states and f.online, why="the retained state")
        hub.stop()
        for n in (1, 2, 3):
            state(n)
            record = RecordMessage(1, n, "moment", {}, float(n), None)
            board.publish(f"{base}/records", encode(record), qos=1).wait_for_publish(5)
        back = HubRig(broker, tmp_path / "hub").start()
        try:
            wait_for(lambda: (g := back.hub.tables["t1"].find((None, 1))) is not None and len(g.records) == 3,
                     why="the records queued")
            wait_for(lambda: back.hub.tables["t1"].states[-1][1]["phase"] == "p3", why="the retained state")
            time.sleep(0.3)  # (anything queued would be here by now)
            assert [v["phase"] for _, v in back.hub.tables["t1"].states] == ["p0", "p3"]
            assert [on for _, on in back.hub.tables["t1"].online] == [True]
        finally:
            back.stop()
    finally:
        board.disconnect()
        board.loop_stop()
