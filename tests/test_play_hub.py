"""The hub of ``scoreboard play`` between the pages and the service's control socket, without
processes: a real :class:`TableChannel` on mock pins, a stack that only says where it is.

A page that goes away lets go of the buttons it held; a service that stops says so before it
hangs up (the page shows a stop, not a power cut); a power cut says nothing (the page shows
"no power"); frames shown again to a new page are marked so (no latency is taken from them).
"""

from __future__ import annotations

import asyncio
import os
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from drivers.buttons.logic import ButtonId, Role
from engine.rules import get_profile
from scoreboard.play.channel import TableChannel
from scoreboard.play.table import PhysicalTable

pytest.importorskip("starlette", reason="starlette is missing: pip install 'scoreboard[play]'")

from scoreboard.play.web import Hub, Page, TableInfo  # noqa: E402

PATIENCE = 10.0


class FakePin:
    def __init__(self) -> None:
        self.edges: list[str] = []

    def drive_low(self) -> None:
        self.edges.append("low")

    def drive_high(self) -> None:
        self.edges.append("high")


class Stack:
    """Where the service's control socket is; the service 'runs' until told otherwise."""

    starts = 1
    power_pulls = 0

    def __init__(self, control: Path) -> None:
        self.service_control = control
        self.board_control = control.with_name("board.control")
        self.alive = True

    class settings:  # noqa: N801
        out = Path("/nonexistent")

    def service_alive(self) -> bool:
        return self.alive


class Board:
    def tags(self) -> dict[str, bytes]:
        return {}

    def request(self, line: str) -> Any:
        raise AssertionError(f"no command should reach the board here: {line!r}")


@pytest.fixture()
def where(short_dir: Path) -> Path:
    return short_dir / "control"


def pins() -> dict[ButtonId, FakePin]:
    out = {ButtonId(None, Role.MENU): FakePin()}
    for seat in (1, 2):
        out[ButtonId(seat, Role.DONE)] = FakePin()
        out[ButtonId(seat, Role.CHALLENGE)] = FakePin()
    return out


def hub_on(where: Path) -> tuple[Hub, Stack]:
    info = TableInfo("de", "de", ("Anna", "Ben"), (256, 64), False, ((0, ("A1",)),))
    stack = Stack(where)
    return Hub(info, PhysicalTable(get_profile("de").tile_set, 2, 7), stack, Board()), stack  # type: ignore[arg-type]


async def until(predicate: Any, what: str) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(poll(), PATIENCE)
    except asyncio.TimeoutError:
        raise AssertionError(f"not in time: {what}") from None


def statuses(page: Page) -> list[str]:
    """The services states the page was told, in order (its queue emptied)."""
    out = []
    while not page.queue.empty():
        message = json.loads(page.queue.get_nowait())
        if message["type"] == "status":
            out.append(message["service"])
    return out


def test_a_page_that_goes_away_lets_go_of_the_buttons_it_held(where: Path) -> None:
    held = pins()

    async def session() -> None:
        hub, _ = hub_on(where)
        with TableChannel(where, held, 2, lambda state: {}):
            hub._started.set()
            follower = asyncio.get_running_loop().create_task(hub.follow_service())
            await until(lambda: hub.service == "running", "the service watched")
            page, other = Page(), Page()
            hub.welcome(page)
            hub.welcome(other)
            down = {"type": "button", "seat": 1, "button": "done", "down": True}
            assert (await hub.act(page, json.dumps({**down, "id": 1})))["ok"]
            assert (await hub.act(page, json.dumps({"type": "button", "button": "menu", "down": True})))["ok"]
            assert (await hub.act(other, json.dumps({**down, "seat": 2})))["ok"]
            await until(lambda: held[ButtonId(None, Role.MENU)].edges == ["low"], "Menu held")
            await hub.leave(page)  # the page closed while its Done and Menu were down
            # (each let go once closed the shortest press, MIN_PRESS_S: a deadline of its own)
            await until(lambda: held[ButtonId(1, Role.DONE)].edges == ["low", "high"], "seat 1's Done let go")
            await until(lambda: held[ButtonId(None, Role.MENU)].edges == ["low", "high"], "Menu let go")
            assert held[ButtonId(2, Role.DONE)].edges == ["low"]  # the other page's finger stays
            assert page not in hub.pages and other in hub.pages and page.gone.is_set()
            follower.cancel()
            await hub.close()

    asyncio.run(session())


def test_a_stopping_service_is_no_power_cut_and_a_power_cut_is(where: Path) -> None:
    async def session() -> tuple[list[str], list[str]]:
        hub, stack = hub_on(where)
        page = Page()
        hub.welcome(page)
        follower = asyncio.get_running_loop().create_task(hub.follow_service())
        seen = []
        for how in ("stop", "power cut"):
            channel = TableChannel(where, pins(), 2, lambda state: {})
            channel.open()
            statuses(page)
            hub._started.set()
            await until(lambda: hub.service == "running", "the service watched")
            if how == "stop":
                channel.close()  # the service closes its channel as it stops (its script done, a Ctrl-C)
            else:  # SIGKILL: the socket just goes away, nothing is said
                for client in list(channel.clients):
                    client.sock.close()
                channel._stop.set()
                channel._wake()
            await until(lambda: hub.channel is None, "the service gone")
            seen.append(statuses(page))
            if how != "stop":
                channel.close()
        follower.cancel()
        await hub.close()
        return seen[0], seen[1]

    stopped, cut = asyncio.run(session())
    assert stopped[-1] == "stopping" and "off" not in stopped
    assert cut[-1] == "off"


def test_frames_shown_again_to_a_new_page_are_marked_so(where: Path) -> None:
    async def session() -> list[dict[str, Any]]:
        hub, _ = hub_on(where)
        with TableChannel(where, pins(), 2, lambda state: {}) as channel:
            hub._started.set()
            follower = asyncio.get_running_loop().create_task(hub.follow_service())
            await until(lambda: hub.service == "running", "the service watched")
            live = Page()
            hub.welcome(live)
            channel.frame(None, Image.new("1", (256, 64)))
            await until(lambda: None in hub.frames, "the frame")
            late = Page()
            hub.welcome(late)
            follower.cancel()
            await hub.close()
        out = []
        for page in (live, late):
            while not page.queue.empty():
                message = json.loads(page.queue.get_nowait())
                if message["type"] == "frame":
                    out.append(message)
        return out

    live, late = asyncio.run(session())
    assert "replay" not in live and late["replay"] is True and late["seq"] == live["seq"]


def test_the_folders_of_killed_tables_are_removed(short_dir: Path) -> None:
    import subprocess
    import sys

    from scoreboard.play.stack import FOLDER_PREFIX, OWNER, remove_stale_folders

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          timeout=30)
    stale, live, making = (short_dir / f"{FOLDER_PREFIX}{n}" for n in ("stale", "live", "making"))
    for folder in (stale, live, making):
        folder.mkdir()
        (folder / "board.control").write_text("")
    (stale / OWNER).write_text(gone.stdout.strip())  # a play killed with -9: its pid is no more
    (live / OWNER).write_text(str(os.getpid()))
    assert remove_stale_folders(short_dir) == [stale]
    assert not stale.exists() and live.exists() and making.exists()


def test_a_lost_connection_to_the_board_is_made_again(where: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request that timed out closes the board's client; the next gesture connects again."""
    from scoreboard.sim.client import SimControl

    class Lost(Board):
        closed = True

    class Again(Board):
        closed = False

        def tags(self) -> dict[str, bytes]:
            return {"H8": b"\x01\x02\x03\x04\x05\x06\x07"}

    connected: list[Path] = []

    def connect(path: Path, timeout: float) -> Again:
        connected.append(path)
        return Again()

    monkeypatch.setattr(SimControl, "connect", connect)
    hub, stack = hub_on(where)
    hub.sim = Lost()  # type: ignore[assignment]
    asyncio.run(hub.refresh_tags())
    assert connected == [stack.board_control] and isinstance(hub.sim, Again)
    assert hub.table.where == {"H8": b"\x01\x02\x03\x04\x05\x06\x07"}
