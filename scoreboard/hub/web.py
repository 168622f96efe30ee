"""The hub's pages: the venue, a table, the standings, an overlay; each game's GCG and a JSON feed.

Starlette on uvicorn with wsproto (the ``play`` extra), the pages plain files of this package
(``static/``). A page opens ``/ws`` and says what it shows (``{"page": "table", "table":
"table-03"}``); it gets that at once and then, pushed as it changes, each table's summary
(``{"type": "table", "summary": {...}, "taken": [[seq, committed], ...]}``) or the standings.
Nothing polls. Everything is shown as it was the broadcast delay ago: a change received at
``t`` is pushed at ``t + delay`` (:class:`Pusher`), with the table as it was at ``t`` (a
later change is pushed later), and ``taken`` names the records shown from then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .core import Hub

__all__ = ["STATIC", "Pusher", "make_app"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
PAGE_QUEUE = 1024  # messages waiting for a page that reads slowly; more and it is hung up on
PAGES = ("venue", "table", "standings", "overlay")


@dataclass(eq=False)
class Page:
    kind: str
    table: str | None
    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(PAGE_QUEUE))
    gone: asyncio.Event = field(default_factory=asyncio.Event)

    def send(self, message: str) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.gone.set()


class Pusher:
    """Pushes each change to the pages that show it, the broadcast delay after it arrived."""

    def __init__(self, hub: Hub, clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.clock = clock
        self.pages: set[Page] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._standings_due = False

    def changed(self, table: str, received: float) -> None:
        """``table`` changed at ``received`` (any thread)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
            loop.call_soon_threadsafe(self._push, table, received)

    def _push(self, table: str, received: float) -> None:
        """Push ``table`` once the change it had at ``received`` is shown (the delay after it)."""
        cutoff = self.hub.cutoff(self.clock())
        if cutoff < received:
            assert self.loop is not None
            self.loop.call_later(received - cutoff, self._push, table, received)
            return
        taken = self.hub.taken(table, cutoff)
        summary = self.hub.summary(table, cutoff)
        message = json.dumps({"type": "table", "summary": summary, "taken": taken})
        for page in list(self.pages):
            if page.kind == "venue" or (page.kind in ("table", "overlay") and page.table == table):
                page.send(message)
        if any(p.kind == "standings" for p in self.pages) and not self._standings_due and self.loop is not None:
            self._standings_due = True
            self.loop.call_later(0.5, self._push_standings)

    def _push_standings(self) -> None:
        self._standings_due = False
        message = json.dumps(self.standings_message())
        for page in list(self.pages):
            if page.kind == "standings":
                page.send(message)

    def standings_message(self) -> dict[str, Any]:
        cutoff = self.hub.cutoff(self.clock())
        return {"type": "standings", "standings": self.hub.standings(cutoff), "games": self.hub.games(cutoff)}

    def welcome(self, page: Page) -> None:
        cutoff = self.hub.cutoff(self.clock())
        hello = {"type": "hello", "event": self.hub.topics.event, "delay": self.hub.delay, "racks": self.hub.racks}
        page.send(json.dumps(hello))
        if page.kind == "standings":
            page.send(json.dumps(self.standings_message()))
            return
        with self.hub.lock:
            listed = self.hub.listed(cutoff)  # (a table heard of only after the cutoff is not shown yet)
            names = listed if page.kind == "venue" else [n for n in listed if n == page.table]
            for name in names:
                summary = self.hub.summary(name, cutoff)
                page.send(json.dumps({"type": "table", "summary": summary, "taken": []}))


def make_app(pusher: Pusher) -> Starlette:
    hub = pusher.hub

    def page(name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            return FileResponse(STATIC / f"{name}.html", headers={"Cache-Control": "no-store"})
        return serve

    async def gcg(request: Request) -> Response:
        key = request.path_params["key"]
        text = hub.gcg(key, hub.cutoff(pusher.clock()))
        if text is None:
            return PlainTextResponse(f"no game {key} (yet)\n", status_code=404)
        return PlainTextResponse(text, media_type="text/plain; charset=utf-8")

    async def feed(request: Request) -> Response:
        cutoff = hub.cutoff(pusher.clock())
        return JSONResponse({
            **hub.venue(cutoff), "games": hub.games(cutoff), "standings": hub.standings(cutoff),
            "as_of": cutoff,
        })

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            asked = json.loads(await asyncio.wait_for(websocket.receive_text(), 10))
        except (TimeoutError, ValueError, WebSocketDisconnect, RuntimeError):
            await websocket.close(code=4400)
            return
        kind = asked.get("page") if isinstance(asked, dict) else None
        table = asked.get("table") if isinstance(asked, dict) else None
        if kind not in PAGES or (kind in ("table", "overlay") and not isinstance(table, str)):
            await websocket.close(code=4400)
            return
        viewer = Page(kind, table)
        pusher.welcome(viewer)
        pusher.pages.add(viewer)
        try:
            await _send(websocket, viewer)
        finally:
            pusher.pages.discard(viewer)

    routes = [
        Route("/", page("venue")),
        Route("/tables/{table}", page("table")),
        Route("/overlay/{table}", page("overlay")),
        Route("/standings", page("standings")),
        Route("/games/{key}.gcg", gcg),
        Route("/feed.json", feed),
        WebSocketRoute("/ws", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


async def _send(websocket: WebSocket, page: Page) -> None:
    """Send ``page`` its messages until it or the socket is gone (a page reading too slowly: 1013)."""
    gone = asyncio.ensure_future(page.gone.wait())
    closed = asyncio.ensure_future(websocket.receive())
    getter: asyncio.Future[str] | None = None
    try:
        while not page.gone.is_set():
            getter = asyncio.ensure_future(page.queue.get())
            await asyncio.wait({getter, gone, closed}, return_when=asyncio.FIRST_COMPLETED)
            if closed.done() or not getter.done():
                break
            await websocket.send_text(getter.result())
        if not closed.done():
            await websocket.close(code=1013)
    except (WebSocketDisconnect, RuntimeError, ConnectionError):
        pass
    finally:
        for task in (gone, getter, closed):
            if task is not None and not task.done():
                task.cancel()
