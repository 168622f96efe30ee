"""The browser table's pieces without a browser: the page's messages parsed (every bad one
answered with its problem), gestures planned into the simulated board's commands, the
table's summary of a controller state, the web server's refusals (no token, another site,
binary or malformed messages) over a real WebSocket, and the command's bind rules."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from drivers.buttons.logic import ButtonId, Role
from engine.board import Square
from engine.rules import get_profile
from scoreboard.play.table import (
    BAG, MAX_MESSAGE, SLIDE_STEP_S, ActionError, ActionProblem, ButtonAction, DrawAction, FaultAction, FaultKind,
    LayBackAction, MoveAction, PhysicalTable, fault_commands, parse_action,
)
from scoreboard.sim.commands import Fault, Location, Move, Place, Plug, Reboot, Recover, Remove, Slide, Unplug
from scoreboard.sim.tags import tile_uid

PATIENCE = 10.0  # seconds a wait may take before it counts as a hang

GERMAN = get_profile("de").tile_set


def uid(name: str) -> bytes:
    letter, _, copy = name.rpartition(".")
    return tile_uid(letter, int(copy), "german")


def table(**where: str) -> PhysicalTable:
    t = PhysicalTable(GERMAN, 2, 7, random.Random(1))
    t.update({loc.replace("_", "."): uid(name) for loc, name in where.items()})
    return t


# --- the page's messages --------------------------------------------------------------------------------


@pytest.mark.parametrize(("message", "action"), [
    ({"type": "button", "seat": 2, "button": "done", "down": True}, ButtonAction(ButtonId(2, Role.DONE), True)),
    ({"type": "button", "button": "menu", "down": False}, ButtonAction(ButtonId(None, Role.MENU), False)),
    ({"type": "draw", "to": "R1.3", "letter": "e"}, DrawAction("R1.3", "e")),
    ({"type": "draw", "to": "R1.3", "letter": None}, DrawAction("R1.3", None)),
    ({"type": "move", "from": "R1.3", "to": "H8"}, MoveAction("R1.3", "H8")),
    ({"type": "fault", "fault": "kill-reader", "reader": 18}, FaultAction(FaultKind.KILL_READER, 18)),
    ({"type": "fault", "fault": "power"}, FaultAction(FaultKind.POWER)),
])
def test_the_pages_messages_parse(message: dict[str, Any], action: object) -> None:
    assert parse_action(json.dumps({**message, "id": 7}), 2, 19) == (action, 7)


@pytest.mark.parametrize(("text", "problem", "says"), [
    ("{", ActionProblem.MALFORMED, "not JSON"),
    ("[1, 2]", ActionProblem.MALFORMED, "a JSON object with a 'type'"),
    ('{"type": "jump"}', ActionProblem.UNKNOWN, 'no action "jump"'),
    ('{"type": "button", "seat": 3, "button": "done", "down": true}', ActionProblem.SEAT, "no seat 3 at this table: seats 1-2"),
    ('{"type": "button", "seat": true, "button": "done", "down": true}', ActionProblem.MALFORMED, "'seat' must be a seat"),
    ('{"type": "button", "seat": 1, "button": "pass", "down": true}', ActionProblem.BUTTON, "no button 'pass'"),
    ('{"type": "button", "seat": 1, "button": "done"}', ActionProblem.MALFORMED, "'down' must be true"),
    ('{"type": "move", "from": 8, "to": "H8"}', ActionProblem.MALFORMED, "'from' must be a cell or rack slot"),
    ('{"type": "draw", "to": "R1.1", "letter": "XYZ"}', ActionProblem.MALFORMED, "'letter' must be a letter"),
    ('{"type": "fault", "fault": "flood"}', ActionProblem.UNKNOWN, "no fault 'flood'"),
    ('{"type": "fault", "fault": "kill-reader", "reader": 19}', ActionProblem.READER, "no reader 19 on this board: readers 0-18"),
    ('{"type": "fault", "fault": "kill-reader"}', ActionProblem.MALFORMED, "'reader' must be a reader"),
    ('{"type": "move", "id": "x", "from": "H8", "to": "H9"}', ActionProblem.MALFORMED, "'id' must be a whole number"),
    ("x" * (MAX_MESSAGE + 1), ActionProblem.TOO_LONG, f"a message of {MAX_MESSAGE + 1} bytes; at most {MAX_MESSAGE}"),
    ("ü" * (MAX_MESSAGE // 2 + 1), ActionProblem.TOO_LONG, f"a message of {MAX_MESSAGE + 2} bytes"),  # bytes, not characters
])
def test_every_bad_message_is_refused_with_its_problem(text: str, problem: ActionProblem, says: str) -> None:
    with pytest.raises(ActionError) as caught:
        parse_action(text, 2, 19)
    assert caught.value.problem is problem and says in str(caught.value)


# --- gestures into the board's commands --------------------------------------------------------------------


def test_a_draw_puts_a_tile_of_the_bag_on_a_rack_slot() -> None:
    t = table(H8="A.0", R1_1="E.0")
    [place] = t.plan(DrawAction("r1.2", "y"))
    assert place == Place(Location("R1.2"), uid("Y.0"))  # the one Y
    [blind] = t.plan(DrawAction("R1.2"))
    assert isinstance(blind, Place) and blind.uid in {r.uid for r in t.bag()}
    assert t.bag_counts()["A"] == GERMAN.counts["A"] - 1 and t.bag_counts()["E"] == GERMAN.counts["E"] - 1


@pytest.mark.parametrize(("action", "problem", "says"), [
    (DrawAction("R1.1", "A"), ActionProblem.OCCUPIED, "R1.1 is taken (E.0 lies there)"),
    (DrawAction("H9", "A"), ActionProblem.LOCATION, "goes onto a rack slot first"),
    (DrawAction("R3.1", "A"), ActionProblem.LOCATION, "no rack slot 'R3.1' at this table: R1.1-R2.7"),
    (DrawAction("R1.8", "A"), ActionProblem.LOCATION, "no rack slot"),
    (DrawAction("R1.2", "Y"), ActionProblem.BAG, "no Y left in the bag"),
    (DrawAction("R1.2", "Å"), ActionProblem.BAG, "no letter 'Å' in the german tile set"),
    (MoveAction("H9", "H10"), ActionProblem.EMPTY, "no tile on H9 to take"),
    (MoveAction("R1.1", "H8"), ActionProblem.OCCUPIED, "H8 is taken (A.0 lies there)"),
    (MoveAction("H8", "H8"), ActionProblem.OCCUPIED, "on H8 already"),
    (MoveAction("Z99", "H8"), ActionProblem.LOCATION, "no cell or rack slot 'Z99'"),
    (MoveAction("H8", "P1"), ActionProblem.LOCATION, "no cell or rack slot 'P1'"),
])
def test_a_gesture_that_cannot_be_done_is_refused(action: DrawAction | MoveAction, problem: ActionProblem, says: str) -> None:
    t = table(H8="A.0", R1_1="E.0", R2_1="Y.0")
    with pytest.raises(ActionError) as caught:
        t.plan(action)
    assert caught.value.problem is problem and says in str(caught.value)


def test_a_letter_of_the_set_is_taken_as_it_is() -> None:
    """ß is no letter of the German set (it is played as SS): refused by its own name, not upper-cased into 'SS'."""
    with pytest.raises(ActionError, match="no letter 'ß' in the german tile set"):
        table().plan(DrawAction("R1.1", "ß"))


def test_an_empty_bag_says_so() -> None:
    t = PhysicalTable(GERMAN, 2, 7)
    every = [ref.uid for ref in t.bag()]
    t.update({Square.from_cell(i).name(): u for i, u in enumerate(every)})  # every tile on the board
    with pytest.raises(ActionError, match="the bag is empty"):
        t.plan(DrawAction("R1.1"))


def test_racks_and_the_bag_are_lifts_and_cells_slide_through_the_cells_between() -> None:
    t = table(H8="A.0", R1_1="E.0", K8="S.0", H12="N.0")
    assert t.plan(MoveAction("R1.1", "I8")) == [Move(Location("R1.1"), Location("I8"))]
    assert t.plan(MoveAction("H8", "R1.2")) == [Move(Location("H8"), Location("R1.2"))]
    assert t.plan(MoveAction("R1.1", BAG)) == [Remove(Location("R1.1"))]
    # along the column: H8 -> H9 -> H10 -> H11, each step a slide
    assert t.plan(MoveAction("H8", "H11")) == [
        Slide(Location("H8"), Location("H9")), SLIDE_STEP_S, Slide(Location("H9"), Location("H10")), SLIDE_STEP_S,
        Slide(Location("H10"), Location("H11")),
    ]
    # K8 is in the way along the row: round the corner (down, then across)
    assert t.slide_path("H8", "L9") == ["H8", "H9", "I9", "J9", "K9", "L9"]
    assert t.slide_path("H8", "M8") is None or "K8" not in t.slide_path("H8", "M8")  # type: ignore[operator]
    # boxed in along both ways: lifted over and put down
    boxed = table(H8="A.0", I8="B.0", H9="C.0")
    assert boxed.slide_path("H8", "I9") is None
    assert boxed.plan(MoveAction("H8", "I9")) == [Move(Location("H8"), Location("I9"))]


def test_faults_are_the_boards_commands() -> None:
    assert fault_commands(FaultAction(FaultKind.UNPLUG)) == [Unplug(3600.0)]
    assert fault_commands(FaultAction(FaultKind.PLUG)) == [Plug()]
    assert fault_commands(FaultAction(FaultKind.REBOOT)) == [Reboot()]
    assert fault_commands(FaultAction(FaultKind.KILL_READER, 4)) == [Fault(4)]
    assert fault_commands(FaultAction(FaultKind.REVIVE_READER, 4)) == [Recover(4)]
    assert fault_commands(FaultAction(FaultKind.POWER)) == []  # the service's, not the board's


def test_the_page_is_told_the_tables_shape() -> None:
    hello = table().hello()
    assert hello["size"] == 15 and len(hello["premiums"]) == 225 and hello["premiums"][0] == "="
    assert hello["tiles"][uid("?.1").hex().upper()] == {"name": "?.1", "letter": "?", "value": 0}
    assert sum(v["count"] for v in hello["letters"].values()) == sum(GERMAN.counts.values())


# --- the table's summary ------------------------------------------------------------------------------------


def test_the_summary_of_a_game_in_play() -> None:
    from tablehelpers import rig

    from scoreboard.play.view import table_view

    r = rig("de", 2, words=["HAUS"])
    r.draw(0, "A", read=False)
    r.draw(1, "E")
    assert table_view(r.state)["first_draw"] == {"letters": ["A", "E"]}
    r.return_racks()
    r.deal({0: "HAUSTEN", 1: "?NDEIRT"})
    r.lay(0, "H8:H I8:A J8:U K8:S")
    r.done(1)  # (seats from 1)
    view = table_view(r.state)
    assert view["phase"] == "playing" and view["names"] == ["Anna", "Ben"] and view["scores"] == [10, 0]
    assert view["turn"] == 1 and view["board"]["H8"] == {"letter": "H", "blank": False}
    assert view["window"] is not None and view["window"]["player"] == 0
    assert view["reads"]["H8"] == r.cells[Square.from_name("H8")].hex().upper()
    assert view["reads"]["R2.1"] == r.racks[1][0].hex().upper()  # rack slots as the board's commands name them
    assert all(loc.startswith("R") or loc[0] in "ABCDEFGHIJKLMNO" for loc in view["reads"])
    assert view["mode"] == "idle" and not view["paused"] and view["away"] is None
    assert view["committed_tags"]["H8"] == view["reads"]["H8"] and len(view["committed_tags"]) == 4
    assert view["rack_tags"][1] == sorted(view["reads"][f"R2.{n}"] for n in range(1, 8))  # Ben's rack, by tag
    assert view["asked"] == {}
    json.dumps(view)  # plain JSON data


# --- the web server's refusals, over a real WebSocket ----------------------------------------------------------


class WsClient:
    """A WebSocket client on a plain socket (wsproto, which uvicorn uses too)."""

    def __init__(self, port: int, path: str, origin: str | None = None, host: str | None = None) -> None:
        from wsproto import WSConnection
        from wsproto.connection import ConnectionType
        from wsproto.events import Request

        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.ws = WSConnection(ConnectionType.CLIENT)
        headers = [(b"origin", origin.encode())] if origin else []
        self.sock.sendall(self.ws.send(Request(host=host or f"127.0.0.1:{port}", target=path, extra_headers=headers)))
        self.pending: list[Any] = []

    def _events(self) -> Iterator[Any]:
        while True:
            while self.pending:
                yield self.pending.pop(0)
            data = self.sock.recv(65536)
            self.ws.receive_data(data or None)
            self.pending.extend(self.ws.events())
            if not data and not self.pending:
                return

    def answers(self, count: int) -> list[dict[str, Any]]:
        """The next ``count`` answers (other messages, such as where the tiles lie, left out)."""
        out: list[dict[str, Any]] = []
        while len(out) < count:
            got = [m for m in self.messages(1) if m.get("type") == "answer" or "closed" in m]
            assert not any("closed" in m for m in got), got
            out += got
        return out

    def messages(self, count: int) -> list[dict[str, Any]]:
        from wsproto.events import CloseConnection, TextMessage

        out: list[dict[str, Any]] = []
        text = ""
        for event in self._events():
            if isinstance(event, TextMessage):
                text += event.data
                if event.message_finished:
                    out.append(json.loads(text))
                    text = ""
                    if len(out) == count:
                        return out
            elif isinstance(event, CloseConnection):
                out.append({"closed": event.code})
                return out
        return out

    def send(self, text: str | bytes) -> None:
        from wsproto.events import BytesMessage, TextMessage

        event = TextMessage(data=text) if isinstance(text, str) else BytesMessage(data=text)
        self.sock.sendall(self.ws.send(event))

    def close(self) -> None:
        self.sock.close()


class FakeSim:
    """A simulated board with nothing on it that takes no command."""

    def tags(self) -> dict[str, bytes]:
        return {}

    def request(self, line: str) -> Any:
        raise AssertionError(f"no command should reach the board here: {line!r}")


class FakeStack:
    starts = 1
    power_pulls = 0
    service_control = Path("/nonexistent")

    class settings:  # noqa: N801
        out = Path("/nonexistent")


@contextmanager
def serving(token: str | None) -> Iterator[tuple[int, Any]]:
    """The web application on a free port of 127.0.0.1 with a hub over no board and no service."""
    pytest.importorskip("uvicorn", reason="uvicorn is missing: pip install 'scoreboard[play]'")
    from scoreboard.play.web import Hub, Server, TableInfo, make_app

    info = TableInfo("de", "de", ("Anna", "Ben"), (256, 64), False, ((0, ("A1",)),), token=token)
    hub = Hub(info, table(), FakeStack(), FakeSim())  # type: ignore[arg-type]
    server = Server(make_app(lambda: hub, info))
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(sockets=[sock]),), daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE
    while not server.started:
        assert time.monotonic() < deadline, "the web server did not start"
        threading.Event().wait(0.01)
    try:
        yield port, hub
    finally:
        server.stop()
        thread.join(timeout=PATIENCE)
        assert not thread.is_alive(), "the web server did not stop"


@pytest.fixture()
def server() -> Iterator[tuple[int, Any]]:
    """The web application (with a token) on a free port, over no board and no service."""
    with serving("s3cret-token-0123456789") as served:
        yield served


@pytest.fixture()
def open_server() -> Iterator[tuple[int, Any]]:
    """The web application on 127.0.0.1 without a token (the default), over no board and no service."""
    with serving(None) as served:
        yield served


def test_a_page_without_the_token_is_refused(server: tuple[int, Any]) -> None:
    port, _ = server
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=PATIENCE)
    assert caught.value.code == 401 and b"needs its token" in caught.value.read()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token=s3cret-token-0123456789", timeout=PATIENCE) as page:
        assert b"<title>Scoreboard" in page.read()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/play.js", timeout=PATIENCE) as script:
        assert b"new WebSocket" in script.read()  # the page's own files, from the package
    for path in ("/ws", "/ws?token=wrong"):
        ws = WsClient(port, path)
        refused, closed = ws.messages(2)
        assert refused["type"] == "refused" and refused["problem"] == "token" and "needs its token" in refused["message"]
        assert closed == {"closed": 4401}
        ws.close()


def fetch_page(port: int, path: str, host: str) -> tuple[int, bytes]:
    """``GET path`` from the server on 127.0.0.1:``port`` with the ``Host`` header ``host``."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_a_page_reached_by_another_name_is_refused_without_a_token_too(open_server: tuple[int, Any]) -> None:
    """DNS rebinding: a site whose name now points at 127.0.0.1 gets neither the page nor the WebSocket."""
    port, hub = open_server
    evil = f"evil.example:{port}"
    for path in ("/", "/static/play.js"):
        status, body = fetch_page(port, path, evil)
        assert status == 403 and b"answers only by the address" in body
    ws = WsClient(port, "/ws", origin=f"http://{evil}", host=evil)
    refused, closed = ws.messages(2)
    assert refused["type"] == "refused" and refused["problem"] == "host" and closed == {"closed": 4401}
    ws.close()
    assert not hub.pages
    for name in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        status, body = fetch_page(port, "/", name)
        assert status == 200 and b"<title>Scoreboard" in body
        ws = WsClient(port, "/ws", origin=f"http://{name}", host=name)
        assert [m["type"] for m in ws.messages(3)] == ["hello", "status", "tags"]
        ws.close()


def test_the_names_a_table_answers_by() -> None:
    pytest.importorskip("starlette", reason="starlette is missing: pip install 'scoreboard[play]'")
    from scoreboard.play.web import LOOPBACK_NAMES, allowed_hosts, host_name

    assert allowed_hosts("127.0.0.1") == LOOPBACK_NAMES
    assert allowed_hosts("192.0.2.7", ["Table.local"]) == LOOPBACK_NAMES | {"192.0.2.7", "table.local"}
    assert allowed_hosts("::1") == LOOPBACK_NAMES and allowed_hosts("[fe80::1]") == LOOPBACK_NAMES | {"fe80::1"}
    assert allowed_hosts("0.0.0.0") is None and allowed_hosts("::") is None  # any name: the token guards it
    assert host_name("LocalHost:8716") == "localhost" and host_name("[::1]:8716") == "::1"
    assert host_name("127.0.0.1") == "127.0.0.1" and host_name("::1") == "::1" and host_name(None) == ""


def test_a_page_of_another_site_is_refused(server: tuple[int, Any]) -> None:
    port, _ = server
    ws = WsClient(port, "/ws?token=s3cret-token-0123456789", origin="http://evil.example")
    refused, closed = ws.messages(2)
    assert refused["problem"] == "origin" and closed == {"closed": 4401}
    ws.close()


def test_bad_messages_get_answers_and_the_connection_goes_on(server: tuple[int, Any]) -> None:
    port, hub = server
    ws = WsClient(port, "/ws?token=s3cret-token-0123456789", origin=f"http://127.0.0.1:{port}")
    hello = ws.messages(3)
    assert [m["type"] for m in hello] == ["hello", "status", "tags"]
    assert hello[0]["names"] == ["Anna", "Ben"] and hello[0]["keys"]["seats"]["1"] == {"done": "a", "challenge": "z"}
    ws.send("not json")
    ws.send(b"\x00\x01")
    ws.send(json.dumps({"type": "move", "id": 3, "from": "H8", "to": "Q20"}))
    ws.send(json.dumps({"type": "button", "id": 4, "seat": 9, "button": "done", "down": True}))
    ws.send(json.dumps({"type": "button", "id": 5, "seat": 1, "button": "done", "down": True}))
    answers = ws.answers(5)
    assert [a.get("problem") for a in answers] == ["malformed", "malformed", "empty", "seat", "service"]
    assert answers[1]["message"] == "a message is JSON text, not binary"
    assert [a["id"] for a in answers[2:]] == [3, 4, 5] and not any(a["ok"] for a in answers)
    assert "the service is starting: its buttons do nothing" in answers[4]["message"]
    ws.close()


# --- the command's rules for where it listens ------------------------------------------------------------------


@pytest.mark.parametrize(("args", "says"), [
    (["--host", "0.0.0.0"], "opens the table to the network: give it a token too"),
    (["--host", "192.0.2.1", "--token", "short"], "a token of at least 16 characters, not 5"),
    (["--watch", "--players", "Anna,Ben,Cleo"], "--watch plays the demo's game of two players"),
    (["--rules", "de", "--set", "game.rack=8"], "game.rack"),
    (["--players", "Anna"], "--players 'Anna': [\"Anna\"] has 1 name"),
    (["--players", "A,B,C,D,E"], "--players 'A,B,C,D,E': [\"A\", \"B\", \"C\", \"D\", \"E\"] has 5 names"),
    (["--host", "no such host!", "--token", "a-token-of-sixteen-chars"], "scoreboard: "),
])
def test_play_refuses_to_start_so(args: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import scoreboard.play.cli as play_cli
    from scoreboard.cli import main

    async def started(*args: object) -> int:  # a refusal that let the table start fails at once, not by hanging
        raise AssertionError("the table started")

    monkeypatch.setattr(play_cli, "_serve", started)
    monkeypatch.delenv("SCOREBOARD_PLAY_TOKEN", raising=False)
    assert main(["play", "--no-browser", "--port", "0", "--state", str(tmp_path), *args]) == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(("args", "says"), [
    (["--port", "99999"], "argument --port: a port is a whole number from 0 to 65535, not 99999"),
    (["--port", "-1"], "not -1"),
    (["--port", "eighty"], "not 'eighty'"),
    (["--seed", "x"], "argument --seed: invalid int value"),
])
def test_bad_options_of_play_are_usage_errors_without_a_traceback(args: list[str], says: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "scoreboard.cli", "play", "--no-browser", "--state", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_player_names_are_taken_as_they_are(tmp_path: Path) -> None:
    from scoreboard.config import load_config
    from scoreboard.play.cli import players_override

    names = ['An"na', "B\\u0041en", "Zoë"]
    config = load_config(None, [players_override(names)])
    assert config.player_names() == tuple(names)


def test_loopback_needs_no_token_and_the_address_carries_one() -> None:
    from scoreboard.play.cli import address, check_binding, is_loopback

    check_binding("127.0.0.1", None)
    check_binding("::1", None)
    check_binding("192.0.2.1", "a-token-of-sixteen-chars")
    assert is_loopback("localhost") and is_loopback("127.0.0.2") and not is_loopback("0.0.0.0")
    sock = socket.create_server(("127.0.0.1", 0))
    try:
        port = sock.getsockname()[1]
        assert address(sock, None) == f"http://127.0.0.1:{port}/"
        assert address(sock, "t0ken") == f"http://127.0.0.1:{port}/?token=t0ken"
    finally:
        sock.close()


# --- a game resumed on a table whose tiles are in the bag ---------------------------------------------------


def resumed(**where: str) -> PhysicalTable:
    """A table whose service has HAUS committed on H8-K8 and asks it back, with Ben's rack E.1 T.0."""
    t = table(**where)
    t.expect({"asked": {"H8": uid("H.0").hex(), "I8": uid("A.2").hex()},
              "committed_tags": {"H8": uid("H.0").hex(), "I8": uid("A.2").hex(), "J8": uid("U.1").hex()},
              "rack_tags": [[], [uid("E.1").hex(), uid("T.0").hex()]]})
    return t


def test_a_letter_dropped_on_an_asked_cell_is_the_very_tile_asked_for() -> None:
    t = resumed()
    assert t.plan(DrawAction("H8", "h")) == [Place(Location("H8"), uid("H.0"))]
    assert t.plan(DrawAction("I8", None)) == [Place(Location("I8"), uid("A.2"))]
    with pytest.raises(ActionError, match=r"I8 asks for A.2 \(a A\), not a E") as caught:
        t.plan(DrawAction("I8", "E"))
    assert caught.value.problem is ActionProblem.BAG
    with pytest.raises(ActionError, match="goes onto a rack slot first"):
        t.plan(DrawAction("J9", "U"))  # not asked for
    assert t.plan(DrawAction("R2.3", "e")) == [Place(Location("R2.3"), uid("E.1"))]  # Ben's own E, as committed


def test_the_tiles_are_laid_back_as_they_were() -> None:
    t = resumed(R2_7="H.0")
    assert t.lay_back() == [
        Move(Location("R2.7"), Location("H8")),  # from a rack onto its cell
        Place(Location("I8"), uid("A.2")),
        Place(Location("J8"), uid("U.1")),
        Place(Location("R2.1"), uid("E.1")),
        Place(Location("R2.2"), uid("T.0")),
    ]
    t.update({"H8": uid("H.0"), "I8": uid("A.2"), "J8": uid("U.1"), "R2.1": uid("E.1"), "R2.4": uid("T.0")})
    with pytest.raises(ActionError, match="every committed tile lies where it was already"):
        t.lay_back()
    t.update({"H8": uid("E.0"), "I8": uid("A.2"), "J8": uid("U.1"), "R2.1": uid("E.1"), "R2.4": uid("T.0")})
    with pytest.raises(ActionError, match="other tiles lie on H8") as caught:
        t.lay_back()
    assert caught.value.problem is ActionProblem.OCCUPIED
    assert parse_action('{"type": "lay-back", "id": 4}', 2, 19) == (LayBackAction(), 4)
