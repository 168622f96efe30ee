"""The service's control socket in simulation (``scoreboard run --simulate --control``): presses
on the mock pins, frames and the table's summary out, every bad line answered."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from drivers.buttons.logic import ButtonId, Role
from scoreboard.play.channel import (
    MAX_HOLD_S, MAX_REQUEST, ChannelClient, ChannelError, ChannelPathError, ChannelProblem, Ping, Press,
    TableChannel, Watch, parse_request,
)

PATIENCE = 10.0


class FakePin:
    def __init__(self) -> None:
        self.low = False
        self.edges: list[str] = []

    def drive_low(self) -> None:
        self.low = True
        self.edges.append("low")

    def drive_high(self) -> None:
        self.low = False
        self.edges.append("high")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def buttons(seats: int) -> dict[ButtonId, FakePin]:
    pins = {ButtonId(None, Role.MENU): FakePin()}
    for seat in range(1, seats + 1):
        pins[ButtonId(seat, Role.DONE)] = FakePin()
        pins[ButtonId(seat, Role.CHALLENGE)] = FakePin()
    return pins


class Conn:
    """A client on a plain socket: lines out, JSON lines in."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(PATIENCE)
        self.sock.connect(str(path))
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def line(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            assert chunk, "the channel hung up"
            self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\n")
        message = json.loads(raw)
        assert isinstance(message, dict)
        return message

    def ask(self, request: str) -> dict[str, Any]:
        self.send(request.encode() + b"\n")
        return self.line()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture()
def where(short_dir: Path) -> Path:
    return short_dir / "control"


def views(state: object) -> dict[str, Any]:
    assert isinstance(state, dict)
    return state


def wait_for(predicate: Any) -> None:
    deadline = time.monotonic() + PATIENCE
    while not predicate():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.005)


@pytest.mark.parametrize(("line", "wanted"), [
    ("press 1 done", Press(ButtonId(1, Role.DONE), True)),
    ("release 2 challenge", Press(ButtonId(2, Role.CHALLENGE), False)),
    ("PRESS menu", Press(ButtonId(None, Role.MENU), True)),
    ("release menu", Press(ButtonId(None, Role.MENU), False)),
    ("watch", Watch()),
    ("ping", Ping()),
])
def test_requests_parse_and_write_back(line: str, wanted: object) -> None:
    assert parse_request(line, 2) == wanted
    assert parse_request(str(wanted), 2) == wanted


@pytest.mark.parametrize(("line", "problem", "says"), [
    ("", ChannelProblem.EMPTY, "empty"),
    ("hold 1 done", ChannelProblem.UNKNOWN, "unknown request 'hold'"),
    ("press 3 done", ChannelProblem.SEAT, "no seat '3' at this table: seats 1-2"),
    ("press 0 done", ChannelProblem.SEAT, "no seat '0'"),
    ("press x done", ChannelProblem.SEAT, "no seat 'x'"),
    ("press 1 pass", ChannelProblem.BUTTON, "no button 'pass' at a seat"),
    ("press 1", ChannelProblem.ARITY, "press SEAT done|challenge"),
    ("watch now", ChannelProblem.ARITY, "watch takes no arguments"),
])
def test_a_bad_request_is_an_error_with_its_problem(line: str, problem: ChannelProblem, says: str) -> None:
    with pytest.raises(ChannelError) as caught:
        parse_request(line, 2)
    assert caught.value.problem is problem and says in str(caught.value)


def test_presses_drive_the_pins_and_a_hangup_releases_them(where: Path) -> None:
    pins = buttons(2)
    with TableChannel(where, pins, 2, views, min_press_s=0.0) as channel:
        assert stat.S_IMODE(os.stat(where).st_mode) == 0o600  # its owner's only
        a, b = Conn(where), Conn(where)
        assert a.ask("press 1 done") == {"kind": "ok", "request": "press 1 done"}
        assert pins[ButtonId(1, Role.DONE)].low
        assert a.ask("release 1 done")["kind"] == "ok" and not pins[ButtonId(1, Role.DONE)].low
        assert b.ask("release 2 done")["kind"] == "ok"  # nothing held: nothing happens
        assert pins[ButtonId(2, Role.DONE)].edges == []
        assert a.ask("press menu")["kind"] == "ok" and b.ask("press menu")["kind"] == "ok"  # two fingers
        assert a.ask("release menu")["kind"] == "ok"
        assert pins[ButtonId(None, Role.MENU)].low  # b still holds it
        assert a.ask("press 2 challenge")["kind"] == "ok"
        a.close()  # a's buttons are let go
        wait_for(lambda: not pins[ButtonId(2, Role.CHALLENGE)].low)
        assert pins[ButtonId(None, Role.MENU)].low
        b.close()
        wait_for(lambda: not pins[ButtonId(None, Role.MENU)].low)
        assert pins[ButtonId(None, Role.MENU)].edges == ["low", "high"]
        assert channel.requests == 7


def test_every_bad_line_is_answered_and_the_connection_goes_on(where: Path) -> None:
    with TableChannel(where, buttons(2), 2, views):
        c = Conn(where)
        answer = c.ask("press 3 done")
        assert answer == {"kind": "error", "request": "press 3 done", "problem": "seat",
                          "message": "no seat '3' at this table: seats 1-2"}
        c.send(b"\xff\xfe\n")
        assert c.line()["problem"] == "encoding"
        c.send(b"#" * (MAX_REQUEST + 100) + b"\n")
        too_long = c.line()
        assert too_long["problem"] == "too long" and f"more than {MAX_REQUEST} bytes" in too_long["message"]
        c.send(b"x" * (3 * MAX_REQUEST))  # no newline yet: answered once, skipped to its end
        assert c.line()["problem"] == "too long"
        c.send(b"yyy\nping\n")
        assert c.line() == {"kind": "ok", "request": "ping"}
        assert c.ask("nonsense")["problem"] == "unknown"
        c.close()


def test_a_button_held_too_long_is_released(where: Path) -> None:
    pins, clock = buttons(2), Clock()
    with TableChannel(where, pins, 2, views, clock=clock) as channel:
        c = Conn(where)
        assert c.ask("press 1 done")["kind"] == "ok"
        clock.now += MAX_HOLD_S + 1
        channel.table({"wake": 1})  # anything wakes the channel; its next look releases the button
        wait_for(lambda: not pins[ButtonId(1, Role.DONE)].low)
        c.close()


def test_a_release_close_behind_its_press_keeps_the_pin_closed_past_the_debounce(where: Path) -> None:
    """A click whose press was held up reaches the socket just before its release: the pin stays
    closed ``min_press_s`` from when it closed, so the service sees a press, not a bounce."""
    pins, clock = buttons(2), Clock()
    done = pins[ButtonId(1, Role.DONE)]
    with TableChannel(where, pins, 2, views, clock=clock, min_press_s=0.1) as channel:
        c = Conn(where)
        assert c.ask("press 1 done")["kind"] == "ok"
        clock.now += 0.03
        assert c.ask("release 1 done")["kind"] == "ok"
        assert done.low  # held back until 0.1 s after it closed
        clock.now += 0.069
        channel.table({"wake": 1})
        assert c.ask("ping")["kind"] == "ok" and done.low
        clock.now += 0.002
        channel.table({"wake": 2})
        wait_for(lambda: not done.low)
        assert done.edges == ["low", "high"]
        # a press again before the held-back release is carried out: one longer press
        assert c.ask("press 1 done")["kind"] == "ok" and c.ask("release 1 done")["kind"] == "ok"
        assert c.ask("press 1 done")["kind"] == "ok"
        clock.now += 1.0
        channel.table({"wake": 3})
        assert c.ask("ping")["kind"] == "ok" and done.low
        clock.now += 0.5
        assert c.ask("release 1 done")["kind"] == "ok"  # held long enough: released at once
        assert not done.low and done.edges == ["low", "high", "low", "high"]
        c.close()


def test_watchers_get_the_current_frames_and_table_then_every_change(where: Path) -> None:
    with TableChannel(where, buttons(2), 2, views) as channel:
        image = Image.new("1", (256, 64))
        image.putpixel((3, 4), 1)
        channel.frame(None, image)
        channel.table({"scores": [0, 0]})
        early = Conn(where)
        assert early.ask("ping")["kind"] == "ok"  # not watching: gets no events
        wait_for(lambda: channel._last_table is not None)
        c = Conn(where)
        assert c.ask("watch") == {"kind": "ok", "request": "watch"}
        first, table = c.line(), c.line()
        assert first["kind"] == "frame" and first["panel"] is None and (first["width"], first["height"]) == (256, 64)
        with Image.open(io.BytesIO(base64.b64decode(first["png"]))) as png:
            assert png.size == (256, 64) and png.convert("1").tobytes() == image.tobytes()  # pixel for pixel
        assert abs(first["at"] - time.time()) < PATIENCE
        assert table == {"kind": "table", "view": {"scores": [0, 0]}}
        channel.table({"scores": [0, 0]})  # the same summary: nothing sent
        channel.frame(1, Image.new("1", (128, 64)))
        second = c.line()
        assert second["kind"] == "frame" and second["panel"] == 1 and second["seq"] == first["seq"] + 1
        channel.table({"scores": [10, 0]})
        assert c.line() == {"kind": "table", "view": {"scores": [10, 0]}}
        assert early.ask("ping") == {"kind": "ok", "request": "ping"}  # and no event before the answer
        c.close()
        early.close()


def test_the_path_must_be_a_socket_or_free(where: Path) -> None:
    where.write_text("not a socket")
    with pytest.raises(ChannelPathError, match="exists and is not a socket"):
        TableChannel(where, buttons(2), 2, views).open()
    where.unlink()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(where))  # a socket file left by a killed service
    stale.close()
    with TableChannel(where, buttons(2), 2, views):
        assert Conn(where).ask("ping")["kind"] == "ok"
    assert not where.exists()  # removed on closing


def test_the_asyncio_client_gets_answers_in_order_and_events_besides(where: Path) -> None:
    pins = buttons(2)

    async def session() -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        with pytest.raises(ConnectionError, match="no service control socket"):
            await ChannelClient.connect(where, events.append, timeout=0.1)
        with TableChannel(where, pins, 2, views) as channel:
            client = await ChannelClient.connect(where, events.append, timeout=PATIENCE)
            assert (await client.request("watch"))["kind"] == "ok"
            channel.table({"turn": 0})
            answers = [await client.request(line) for line in ("press 1 done", "press 9 done", "release 1 done")]
            assert [a["kind"] for a in answers] == ["ok", "error", "ok"]
            assert answers[1]["problem"] == "seat"
            deadline = time.monotonic() + PATIENCE
            while not events and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await client.close()
            with pytest.raises(ConnectionError):
                await client.request("ping")
        return events

    events = asyncio.run(session())
    assert events == [{"kind": "table", "view": {"turn": 0}}]
    assert pins[ButtonId(1, Role.DONE)].edges == ["low", "high"]


def test_a_watcher_is_told_the_service_stops_before_it_hangs_up(where: Path) -> None:
    channel = TableChannel(where, buttons(2), 2, views)
    channel.open()
    watcher, other = Conn(where), Conn(where)
    assert watcher.ask("watch")["kind"] == "ok" and other.ask("ping")["kind"] == "ok"
    channel.close()
    assert watcher.line() == {"kind": "bye", "why": "the service is stopping"}
    assert watcher.sock.recv(1) == b"" and other.sock.recv(1) == b""  # then hung up on; the other only hung up on
    watcher.close()
    other.close()
