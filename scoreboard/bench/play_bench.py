"""``scoreboard play``: from a frame the service shows to that frame on the page.

Starts ``scoreboard play`` (the simulated board, the service, the web server; real time)
and opens its page in Chromium through Playwright where both are installed (Debian's
``/usr/bin/chromium``; nothing is downloaded), else connects a plain WebSocket client.
Then the Menu button is pressed :data:`PRESSES` times from the page (its ``m`` key): each
press shows the next menu item, a new frame. The service stamps each frame with the wall
clock when its display took it; the page notes when the frame, decoded, is on it (the
client: when its message is read). Figures: the median and 99th percentile in ms, and
whether a browser measured them (``play_browser`` 1) or the plain client (0).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["PRESSES", "run"]

PRESSES = 120
CHROMIUM = Path(os.environ.get("SCOREBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]


class PlayBenchError(RuntimeError):
    """``scoreboard play`` did not start, or the page got no frames."""


def _start(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.cli", "play", "--no-browser", "--port", "0", "--state", str(folder),
         "--players", "Anna,Ben", "--rules", "de"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline().decode()
    if not first.startswith("the table: "):
        proc.kill()
        raise PlayBenchError(f"scoreboard play did not start: {first!r}")
    return proc, first.split(": ", 1)[1].strip()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _in_browser(url: str, presses: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(url)
            page.wait_for_function('() => window.play && play.status && play.status.service === "running"'
                                   ' && play.frames > 0', timeout=60_000)
            page.evaluate("play.latencies.length = 0")
            for n in range(presses):
                page.keyboard.down("m")
                time.sleep(0.16)
                page.keyboard.up("m")
                page.wait_for_function(f"() => play.latencies.length >= {n + 1}", timeout=30_000)
            return [float(x) for x in page.evaluate("play.latencies")]
        finally:
            browser.close()


def _with_client(url: str, presses: int) -> list[float]:
    """A plain WebSocket client (wsproto): the frame's message read, not decoded or drawn."""
    from urllib.parse import urlsplit

    from wsproto import WSConnection
    from wsproto.connection import ConnectionType
    from wsproto.events import Request, TextMessage

    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    ws = WSConnection(ConnectionType.CLIENT)
    sock.sendall(ws.send(Request(host=parts.netloc, target="/ws" + (f"?{parts.query}" if parts.query else ""))))
    buffer = ""
    latencies: list[float] = []

    def messages() -> list[dict[str, Any]]:
        nonlocal buffer
        data = sock.recv(1 << 20)
        if not data:
            raise PlayBenchError("the table hung up")
        ws.receive_data(data)
        out = []
        for event in ws.events():
            if isinstance(event, TextMessage):
                buffer += event.data
                if event.message_finished:
                    out.append(json.loads(buffer))
                    buffer = ""
        return out

    def until(done: Callable[[dict[str, Any]], bool]) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for message in messages():
                if message.get("type") == "frame" and message.get("at"):
                    latencies.append(time.time() - float(message["at"]))
                if done(message):
                    return
        raise PlayBenchError("no answer from the table in time")

    until(lambda m: m.get("type") == "status" and m.get("service") == "running")
    latencies.clear()
    for n in range(presses):
        for down in (True, False):
            sock.sendall(ws.send(TextMessage(json.dumps({"type": "button", "button": "menu", "down": down, "id": n}))))
            if down:
                time.sleep(0.16)
        until(lambda m: m.get("type") == "frame")
    sock.close()
    return latencies


def run(presses: int = PRESSES) -> dict[str, float]:
    """Frame-to-page latency of ``scoreboard play``, ``presses`` frames."""
    browser = CHROMIUM.exists()
    try:
        import playwright  # noqa: F401
    except ImportError:
        browser = False
    folder = Path(tempfile.mkdtemp(prefix="playbench-"))
    proc, url = _start(folder)
    try:
        latencies = _in_browser(url, presses) if browser else _with_client(url, presses)
    finally:
        _stop(proc)
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    if not latencies:
        raise PlayBenchError("the page got no frames")
    ms = sorted(1000 * x for x in latencies)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {
        "play_frame_to_page_ms_p50": statistics.median(ms),
        "play_frame_to_page_ms_p99": p99,
        "play_frames": float(len(ms)),
        "play_browser": 1.0 if browser else 0.0,
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:28s} {value:12.2f}")
