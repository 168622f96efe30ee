"""The web server of ``scoreboard play``: the page, its WebSocket, and the hub between them.

Starlette on uvicorn (pure-Python wheels: Starlette, uvicorn, h11, wsproto, anyio; they
install on 32- and 64-bit Raspberry Pi OS as on a laptop). The page and its script and style
are files of this package (``static/``): nothing comes from the network, nothing is built.

:class:`Hub` is the table's one connection to both processes: to the simulated board's
control socket (tiles moved, faults; :mod:`scoreboard.play.table` plans each gesture) and to
the service's (:mod:`scoreboard.play.channel`: seat buttons pressed, frames and the table's
summary pushed). Whatever the service shows reaches every page at once over its WebSocket;
nothing is polled. The page says what a player does (``{"type": "move", "from": "R1.3",
"to": "H8"}``) and gets an answer for each message (``{"type": "answer", "id": 7, "ok":
false, "problem": "occupied", "message": "H8 is taken (E.2 lies there)"}``).

Messages to the page: ``hello`` (the table's shape, names, keys), ``frame`` (a display's
frame, PNG in base64, with the wall-clock time the service showed it), ``view`` (the
service's summary, :mod:`scoreboard.play.view`), ``tags`` (where the tiles lie and the bag),
``status`` (the service: starting, running, off (its power pulled), stopping (it said so before
it hung up), ended, failed; the cable), ``answer``, ``refused``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from drivers.buttons.logic import ButtonId
from scoreboard.play.channel import ChannelClient
from scoreboard.play.stack import TableStack
from scoreboard.play.table import (
    Action, ActionError, ActionProblem, ButtonAction, DrawAction, FaultAction, FaultKind, LayBackAction, MoveAction,
    PhysicalTable, fault_commands, parse_action,
)
from scoreboard.sim.client import Reply, SimControl, SimControlError
from scoreboard.sim.commands import Command

__all__ = ["KEYS", "LOOPBACK_NAMES", "STATIC", "Hub", "Server", "TableInfo", "allowed_hosts", "host_name", "host_ok",
           "make_app"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
BOARD_S = 10.0  # seconds the simulated board may take to answer (a loaded machine)
PAGE_QUEUE = 512  # messages waiting for a page that reads slowly; more and it is hung up on
KEYS: Mapping[int, tuple[str, str]] = {1: ("a", "z"), 2: ("s", "x"), 3: ("d", "c"), 4: ("f", "v")}
"""Each seat's keys for Done and Challenge (held: a long press); Menu is ``m``."""
MENU_KEY = "m"


LOOPBACK_NAMES: frozenset[str] = frozenset({"127.0.0.1", "localhost", "::1"})
"""The names of this machine a page on 127.0.0.1 may use (any other: DNS rebinding)."""


def allowed_hosts(host: str, more: Iterable[str] = ()) -> frozenset[str] | None:
    """The ``Host`` names a server listening on ``host`` answers: this machine's loopback
    names, ``host`` itself and ``more``; None (any) for a wildcard address (0.0.0.0, ::)."""
    bare = host.strip("[]").lower()
    if bare in ("0.0.0.0", "::", ""):
        return None
    return LOOPBACK_NAMES | {bare} | {name.strip("[]").lower() for name in more}


def host_name(header: str | None) -> str:
    """The name in a ``Host`` header, without its port or an IPv6 address's brackets."""
    value = (header or "").strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_ok(info: TableInfo, header: str | None) -> bool:
    """True when a request's ``Host`` header names this table (a page reached by another
    name may be a site that rebound its name to this machine's address)."""
    return info.hosts is None or host_name(header) in info.hosts


@dataclass(frozen=True)
class TableInfo:
    """What the page is told of the table before anything else."""

    profile: str
    language: str
    names: tuple[str, ...]
    panel: tuple[int, int]
    seat_panels: bool
    readers: tuple[tuple[int, tuple[str, ...]], ...]
    watch: bool = False
    token: str | None = None
    long_s: float = 2.0
    hosts: frozenset[str] | None = LOOPBACK_NAMES
    """The names the page may be reached by (its ``Host`` header, without the port); None:
    any (a wildcard address, which needs the token anyway)."""


SERVICE_STATES: Mapping[str, str] = {
    "starting": "the service is starting", "off": "the service has no power", "stopping": "the service is stopping",
    "ended": "the service has stopped", "failed": "the service has failed", "running": "the service is running",
}


@dataclass(eq=False)
class Page:
    """One connected page: its queue of messages and the buttons it holds."""

    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(PAGE_QUEUE))
    held: set[ButtonId] = field(default_factory=set)
    gone: asyncio.Event = field(default_factory=asyncio.Event)


class Hub:
    """Between the pages, the simulated board and the service (see the module doc)."""

    def __init__(self, info: TableInfo, table: PhysicalTable, stack: TableStack, sim: SimControl) -> None:
        self.info = info
        self.table = table
        self.stack = stack
        self.sim = sim
        self.pages: set[Page] = set()
        self.channel: ChannelClient | None = None
        self.view: dict[str, Any] | None = None
        self.frames: dict[int | None, dict[str, Any]] = {}  # each display's last frame message
        self.service = "starting"
        self.detail = ""
        self.plugged = True
        self.dead: set[int] = set()
        self._sim_lock = asyncio.Lock()
        self._hands = asyncio.Lock()  # one gesture at a time on the table
        self._started = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._reads: Any = None
        self.lay_back_at_start = False
        """Lay the committed tiles back once the service tells them (``play --state`` of an earlier session)."""

    # --- the service -------------------------------------------------------------------------

    def on_service(self, what: str, code: int | None) -> None:
        """The stack's news of the service: ``started``, ``off`` (power pulled), ``ended``."""
        if what == "started":
            self.service, self.detail = "starting", ""
            self._started.set()
        elif what == "off":
            self.service, self.detail = "off", "power pulled"
            self.frames.clear()
        else:
            self.service = "ended" if code == 0 else "failed"
            self.detail = f"the service ended (exit status {code})" + (
                "" if code == 0 else f"; its log: {self.stack.settings.out / 'service.log'}; pull its power"
                " (Faults) to start it again")
        self.broadcast(self.status())

    async def follow_service(self) -> None:
        """Connect to each start of the service, watch it until it hangs up; forever."""
        while True:
            await self._started.wait()
            self._started.clear()
            try:
                client = await ChannelClient.connect(self.stack.service_control, self._service_event,
                                                     alive=self.stack.service_alive)
                answer = await client.request("watch")
            except (ConnectionError, OSError, asyncio.TimeoutError) as e:
                log.warning("cannot watch the service: %s", e)
                continue
            if answer.get("kind") != "ok":
                log.warning("the service refused to be watched: %s", answer)
                continue
            self.channel = client
            self.service = "running"
            self.broadcast(self.status())
            await client.closed.wait()
            self.channel = None
            if self.service == "running":
                self.service = "off"
                self.broadcast(self.status())

    def _service_event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind == "frame":
            frame = {"type": "frame", **{k: event.get(k) for k in ("panel", "at", "seq", "width", "height", "png")}}
            self.frames[event.get("panel")] = frame
            self.broadcast(json.dumps(frame))
        elif kind == "bye":  # a stop (the game's script done, or a Ctrl-C), not a power cut
            self.service, self.detail = "stopping", "the service is stopping"
            self.broadcast(self.status())
        elif kind == "table":
            view = event.get("view")
            if isinstance(view, dict):
                reads = view.get("reads")
                self.view = view
                self.table.expect(view)
                if self.lay_back_at_start and (view.get("committed_tags") or any(view.get("rack_tags") or ())):
                    self.lay_back_at_start = False  # once: the table of an earlier session, as it was left
                    self._spawn(self._lay_back_at_start())
                self.broadcast(json.dumps({"type": "view", "view": view}))
                if reads != self._reads:  # the board was read otherwise: the tiles may have moved (a script)
                    self._reads = reads
                    self._spawn(self.refresh_tags())

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _lay_back_at_start(self) -> None:
        """The tiles of the resumed game back where they were (the tiles of a real table stay
        on it when the laptop, and with it the simulated board, starts again)."""
        try:
            async with self._hands:
                await self._lay_back()
        except (ActionError, SimControlError) as e:
            log.warning("the tiles could not be laid back: %s", e)
            return
        self.broadcast(json.dumps({"type": "note", "message": "the tiles of the resumed game lie where they were"}))

    async def _lay_back(self) -> None:
        await self.refresh_tags()
        for step in self.table.lay_back():
            if not isinstance(step, float):
                await self.sim_send(step)
        await self.refresh_tags()

    # --- the board -------------------------------------------------------------------------------

    def _board(self) -> SimControl:
        """The simulated board's client; connected again when a request timed out or the
        board hung up (the client then closes: a slow moment must not end the table)."""
        if getattr(self.sim, "closed", False):
            log.warning("the connection to the simulated board was lost: connecting again")
            self.sim = SimControl.connect(self.stack.board_control, timeout=BOARD_S)
        return self.sim

    async def sim_send(self, command: Command | str) -> Reply:
        """One request to the simulated board (its client blocks: in a thread, one at a time)."""
        async with self._sim_lock:
            reply = await asyncio.to_thread(lambda: self._board().request(str(command)))
        plugged = reply.pty is not None
        if plugged != self.plugged:
            self.plugged = plugged
            self.broadcast(self.status())
        return reply

    async def refresh_tags(self) -> None:
        """Where the tags lie now, to every page."""
        try:
            async with self._sim_lock:
                tags = await asyncio.to_thread(lambda: self._board().tags())
        except SimControlError as e:
            log.error("the simulated board does not answer: %s", e)
            return
        self.table.update(tags)
        self.broadcast(self.tags_message())

    # --- the pages -------------------------------------------------------------------------------

    def hello(self) -> str:
        info = self.info
        keys = {str(seat): {"done": done, "challenge": challenge} for seat, (done, challenge) in KEYS.items()
                if seat <= len(info.names)}
        return json.dumps({
            "type": "hello", **self.table.hello(), "profile": info.profile, "language": info.language,
            "names": list(info.names), "seats": len(info.names),
            "panel": {"width": info.panel[0], "height": info.panel[1], "seat_panels": info.seat_panels},
            "readers": [{"reader": r, "at": list(at)} for r, at in info.readers],
            "keys": {"seats": keys, "menu": MENU_KEY}, "watch": info.watch, "long_s": info.long_s,
        })

    def status(self) -> str:
        return json.dumps({"type": "status", "service": self.service, "detail": self.detail, "plugged": self.plugged,
                           "dead": sorted(self.dead), "starts": self.stack.starts, "power_pulls": self.stack.power_pulls})

    def tags_message(self) -> str:
        return json.dumps({"type": "tags", "tags": self.table.tags_view(), "bag": self.table.bag_counts()})

    def welcome(self, page: Page) -> None:
        """A new page gets the table as it stands."""
        replayed = [json.dumps({**frame, "replay": True}) for frame in self.frames.values()]  # (no latency)
        messages = [self.hello(), self.status(), self.tags_message(), *replayed]
        if self.view is not None:
            messages.append(json.dumps({"type": "view", "view": self.view}))
        for message in messages:
            page.queue.put_nowait(message)
        self.pages.add(page)

    def broadcast(self, message: str) -> None:
        for page in list(self.pages):
            try:
                page.queue.put_nowait(message)
            except asyncio.QueueFull:  # a page that does not read: hung up on, it reconnects
                log.warning("a page fell %d messages behind: hung up on", PAGE_QUEUE)
                self.pages.discard(page)
                page.gone.set()

    async def leave(self, page: Page) -> None:
        """A page went away: the buttons it held are let go."""
        self.pages.discard(page)
        page.gone.set()
        for button in list(page.held):
            await self._button(page, ButtonAction(button, False))

    # --- what the players do ------------------------------------------------------------------

    async def act(self, page: Page, text: str) -> dict[str, Any]:
        """Carry out one message of a page; its answer."""
        ident: Any = None
        try:
            action, ident = parse_action(text, len(self.info.names), len(self.info.readers))
            await self.carry_out(page, action)
        except ActionError as e:
            return {"type": "answer", "id": ident if ident is not None else e.ident, "ok": False, "problem": e.problem.value, "message": e.reason}
        except SimControlError as e:
            return {"type": "answer", "id": ident, "ok": False, "problem": "board", "message": f"the board: {e}"}
        except Exception as e:  # a bug must not end the page's connection: said, and logged
            log.exception("the page's message %r failed", text[:200])
            return {"type": "answer", "id": ident, "ok": False, "problem": "internal", "message": f"{type(e).__name__}: {e}"}
        return {"type": "answer", "id": ident, "ok": True}

    async def carry_out(self, page: Page, action: Action) -> None:
        if self.info.watch:
            raise ActionError(ActionProblem.WATCHING, "this table plays a script (--watch): hands off")
        match action:
            case ButtonAction():
                await self._button(page, action)
            case DrawAction() | MoveAction():
                async with self._hands:
                    await self._gesture(action)
            case FaultAction():
                await self._fault(action)
            case LayBackAction():
                async with self._hands:
                    await self._lay_back()

    async def _button(self, page: Page, action: ButtonAction) -> None:
        channel = self.channel
        if action.down:
            page.held.add(action.button)
        else:
            page.held.discard(action.button)
        if channel is None:
            if action.down:
                raise ActionError(ActionProblem.SERVICE, f"{SERVICE_STATES.get(self.service, self.service)}: its buttons"
                                  " do nothing")
            return
        try:
            answer = await channel.request(action.request())
        except (ConnectionError, asyncio.TimeoutError) as e:
            raise ActionError(ActionProblem.SERVICE, f"the service did not take the press: {e}") from None
        if answer.get("kind") != "ok":
            raise ActionError(ActionProblem.SERVICE, str(answer.get("message")))

    async def _gesture(self, action: DrawAction | MoveAction) -> None:
        await self.refresh_tags()  # where the tiles lie now (the table is the board's, not the page's)
        plan = self.table.plan(action)
        for step in plan:
            if isinstance(step, float):
                await asyncio.sleep(step)
            else:
                await self.sim_send(step)
        await self.refresh_tags()

    async def _fault(self, action: FaultAction) -> None:
        if action.kind is FaultKind.POWER:
            if self.service == "off":
                raise ActionError(ActionProblem.SERVICE, "the power is out already; it comes back by itself")
            await self.stack.pull_power()
            return
        for command in fault_commands(action):
            await self.sim_send(command)
        if action.kind is FaultKind.KILL_READER and action.reader is not None:
            self.dead.add(action.reader)
        elif action.kind is FaultKind.REVIVE_READER and action.reader is not None:
            self.dead.discard(action.reader)
        self.broadcast(self.status())
        if action.kind is FaultKind.REBOOT or action.kind is FaultKind.PLUG:
            await self.refresh_tags()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.channel is not None:
            await self.channel.close()


# --- the web application --------------------------------------------------------------------------


def _token_ok(info: TableInfo, given: str | None) -> bool:
    return info.token is None or (given is not None and hmac.compare_digest(given.encode(), info.token.encode()))


def _same_origin(origin: str | None, host: str | None) -> bool:
    """A page of this server (or no Origin header: not a browser's cross-site request)."""
    if not origin:
        return True
    return urlsplit(origin).netloc == (host or "")


REFUSED_TOKEN = ("this table needs its token: open the address `scoreboard play` printed, with ?token=..."
                 " (a token that is missing or wrong)")
REFUSED_ORIGIN = "a page from another site may not play at this table"
REFUSED_HOST = ("this table answers only by the address `scoreboard play` printed (or localhost), not by another"
                " name (--allow-host NAME adds one)")


def make_app(hub_of: Callable[[], Hub | None], info: TableInfo) -> Starlette:
    """The application: the page (``/``), its files (``/static``), its WebSocket (``/ws``)."""

    async def index(request: Request) -> Response:
        if not host_ok(info, request.headers.get("host")):
            return PlainTextResponse(REFUSED_HOST + "\n", status_code=403)
        if not _token_ok(info, request.query_params.get("token")):
            return PlainTextResponse(REFUSED_TOKEN + "\n", status_code=401)
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        refusal = None
        if not host_ok(info, websocket.headers.get("host")):
            refusal = ("host", REFUSED_HOST)
        elif not _token_ok(info, websocket.query_params.get("token")):
            refusal = ("token", REFUSED_TOKEN)
        elif not _same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            refusal = ("origin", REFUSED_ORIGIN)
        hub = hub_of()
        if refusal is None and hub is None:
            refusal = ("starting", "the table is not ready yet; try again in a moment")
        if refusal is not None or hub is None:
            problem, message = refusal or ("starting", "")
            await websocket.send_text(json.dumps({"type": "refused", "problem": problem, "message": message}))
            await websocket.close(code=4401 if problem in ("token", "origin", "host") else 1013)
            return
        page = Page()
        hub.welcome(page)
        sender = asyncio.get_running_loop().create_task(_send(websocket, page))
        try:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                text = received.get("text")
                if text is None:
                    answer: dict[str, Any] = {"type": "answer", "id": None, "ok": False, "problem": "malformed",
                                              "message": "a message is JSON text, not binary"}
                else:
                    answer = await hub.act(page, text)
                try:
                    page.queue.put_nowait(json.dumps(answer))
                except asyncio.QueueFull:
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass  # (gone)
        finally:
            await hub.leave(page)
            sender.cancel()

    async def static(scope: Scope, receive: Receive, send: Send) -> None:
        if not host_ok(info, Headers(scope=scope).get("host")):
            await PlainTextResponse(REFUSED_HOST + "\n", status_code=403)(scope, receive, send)
            return
        await files(scope, receive, send)

    files = StaticFiles(directory=STATIC)
    routes = [
        Route("/", index),
        WebSocketRoute("/ws", socket),
        Mount("/static", static, name="static"),
    ]
    return Starlette(routes=routes)


async def _send(websocket: WebSocket, page: Page) -> None:
    """Send ``page`` its messages in order until it is gone (hung up on: closed, 1013)."""
    gone = asyncio.ensure_future(page.gone.wait())
    getter: asyncio.Future[str] | None = None
    try:
        while not page.gone.is_set():
            getter = asyncio.ensure_future(page.queue.get())
            await asyncio.wait({getter, gone}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                break
            await websocket.send_text(getter.result())
        await websocket.close(code=1013)
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        pass
    finally:
        for task in (gone, getter):
            if task is not None and not task.done():
                task.cancel()



class Server(uvicorn.Server):
    """uvicorn serving ``app`` (WebSockets by wsproto, pure Python), without uvicorn's own
    signal handling (it raises a signal again once stopped): the caller's handlers call
    :meth:`stop`, so that a stop ends the table cleanly."""

    def __init__(self, app: Starlette) -> None:
        super().__init__(uvicorn.Config(app, log_level="warning", ws="wsproto", ws_max_size=1 << 16, lifespan="off",
                                        access_log=False))

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    def stop(self) -> None:
        """End :meth:`serve` (the connections are closed first)."""
        self.should_exit = True
