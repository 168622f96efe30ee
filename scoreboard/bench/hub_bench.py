"""``scoreboard hub`` at scale: 50 and 200 boards on one Mosquitto and one hub.

Per size: a Mosquitto (Debian's, on a loopback port, with the configuration of ``scoreboard
hub setup`` for every table), ``scoreboard hub`` as its own process, and the boards:
lightweight publishers (one MQTT connection each, in this process) replaying a recorded
journal (the demo's German game: its 79 commands, a clock entry after each play) at table
speed, one record every :data:`RECORD_EVERY_S` seconds on average (exponentially
distributed), each with the table's state, as a board sends them; plus
:data:`REAL_BOARDS` real board services (``scoreboard run --simulate --script ...
--virtual-clock``, the short demo game) publishing through the real publisher. The venue
page is open in headless Chromium (else a plain WebSocket client): every record that reaches
it is noted with the wall-clock time of its journal commit on the board (the lightweight
boards: when they publish). Figures: end-to-end latency p50 and p99 (ms), the p99 from
:data:`STEADY_AFTER_S` on (every game starts in the first seconds, and the hub makes each a
file), the real boards' p50, the hub's CPU (% of one core over the run) and peak memory
(MiB), the broker's peak memory (MiB), records seen.

With a broadcast delay the hub holds what it will show for that long: :func:`delay_memory`
measures it at a 15-minute delay without a 15-minute run. A process of its own holds the
hub's core (:class:`~scoreboard.hub.core.Hub`) and feeds it, on a virtual clock, what
50 or 200 boards publish in :data:`DELAY_S` plus fifteen minutes (the demo's journal, game after
game, a record every :data:`RECORD_EVERY_S` seconds per board with the table's state after
each, the board's whole state as a real board sends it) while showing each change the delay
after it arrived, as the pages do: the delay window is full and the games over by then are shown whole, the hub in
its steady state.
Figures: its peak memory (MiB) and what the window added to it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["BOARDS", "DELAY_S", "REAL_BOARDS", "RECORD_EVERY_S", "delay_memory", "run"]

BOARDS = (50, 200)
REAL_BOARDS = 2
RECORD_EVERY_S = 4.0  # a busy table: a move every 20-30 s, five or six records each
DURATION_S = float(os.environ.get("SCOREBOARD_HUB_BENCH_S", "45"))
EVENT = "bench"
STEADY_AFTER_S = 5.0  # the first seconds: every game starts at once (the hub makes a file per game)
DELAY_S = 900.0  # a chess-style broadcast delay: the memory figures' window
CHROMIUM = Path(os.environ.get("SCOREBOARD_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]


class HubBenchError(RuntimeError):
    """The broker or the hub did not start, or nothing reached the page."""


def recorded_game() -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """The demo's German game as a journal: its start (meta) and its entries (kind, payload)."""
    from engine.events import Play
    from scoreboard.controller.records import Started
    from scoreboard.demo import demo_script
    from scoreboard.journal_format import encode_command, encode_meta
    from scoreboard.lexicons import open_lexicon

    _, game = demo_script("de", ["Anna", "Ben"], open_lexicon("de"))
    meta = encode_meta(Started(game.profile.rules_line(), tuple(game.players), 0))
    entries: list[tuple[str, dict[str, Any]]] = []
    used = [0.0, 0.0]
    for n, command in enumerate(game.log):
        entries.append(("command", encode_command(command)))
        if isinstance(command, Play):
            used[command.player] += 25.0 + n % 7
            entries.append(("clock", {"used": list(used)}))
    return meta, entries


class Board:
    """A lightweight board: one MQTT connection, the recorded journal replayed at table speed."""

    def __init__(self, table: str, password: str, port: int, meta: dict[str, Any],
                 entries: list[tuple[str, dict[str, Any]]], rng: random.Random) -> None:
        from scoreboard.broadcast.messages import (
            RecordMessage,
            StateMessage,
            StatusMessage,
            Topics,
            encode,
        )
        from scoreboard.broadcast.publisher import connect_client

        self.encode, self.Record, self.State = encode, RecordMessage, StateMessage
        self.topics = Topics("scoreboard", EVENT)
        self.table = table
        self.client = connect_client(f"lw-{table}", table, password, "")
        self.client.will_set(self.topics.board(table, "status"), encode(StatusMessage(False)), qos=1, retain=True)
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        self.client.publish(self.topics.board(table, "status"), encode(StatusMessage(True)), qos=1, retain=True)
        self.meta, self.entries, self.rng = meta, entries, rng
        self.seq = -1
        self.next_at = time.time() + rng.uniform(0, RECORD_EVERY_S)

    def due(self, now: float) -> bool:
        return now >= self.next_at and self.seq < len(self.entries)

    def step(self, now: float) -> None:
        """Commit (here: publish) the next record and the state after it."""
        self.seq += 1
        if self.seq == 0:
            message = self.Record(1, 0, "$start", {"meta": self.meta, "started": "2026-12-02T00:00:00+00:00"}, 0.0)
        else:
            kind, payload = self.entries[self.seq - 1]
            message = self.Record(1, self.seq, kind, payload, float(self.seq), time.time())
        self.client.publish(self.topics.board(self.table, "records"), self.encode(message), qos=1)
        view = {"phase": "playing", "names": ["Anna", "Ben"], "scores": None, "turn": self.seq % 2, "seats": 2,
                "clock": {"used": [self.seq * 12.0, self.seq * 11.0], "running": self.seq % 2, "limit": None},
                "window": None, "challenge": None, "paused": False, "away": None, "mode": "idle",
                "private": {"racks": ["AEINRST", "EEILNRT"]}}
        state = self.State(1, max(self.seq, 0), view, time.time())
        self.client.publish(self.topics.board(self.table, "state"), self.encode(state), qos=1, retain=True)
        self.next_at = now + self.rng.expovariate(1.0 / RECORD_EVERY_S)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _proc_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (MiB) and CPU seconds (user + system) of ``pid``."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    out["cpu"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _watch_memory(pid: int, stop: threading.Event, peak: dict[str, float]) -> None:
    while not stop.wait(0.5):
        try:
            rss = _proc_status(pid)["VmRSS"]
        except (OSError, KeyError):
            return
        peak["rss"] = max(peak.get("rss", 0.0), rss)


def _page(url: str) -> tuple[Callable[[], list[dict[str, Any]]], Callable[[], None]]:
    """The venue page open in Chromium (else a WebSocket client): a reader of its arrivals, a closer."""
    if CHROMIUM.exists():
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            pass
        else:
            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector("#conn.live", timeout=30_000)

            def read() -> list[dict[str, Any]]:
                return list(page.evaluate("window.hubTaken"))

            def close() -> None:
                browser.close()
                pw.stop()

            return read, close
    return _socket_page(url)


def _socket_page(url: str) -> tuple[Callable[[], list[dict[str, Any]]], Callable[[], None]]:
    """A plain WebSocket client doing what the venue page does with each push."""
    import asyncio

    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, Request, TextMessage

    arrivals: list[dict[str, Any]] = []
    stop = threading.Event()
    host, port = url.split("//", 1)[1].rstrip("/").split(":")

    async def main() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        ws = WSConnection(ConnectionType.CLIENT)
        writer.write(ws.send(Request(host=host, target="/ws")))
        buffer = ""
        while not stop.is_set():
            try:
                data = await asyncio.wait_for(reader.read(65536), 0.5)
            except asyncio.TimeoutError:
                continue
            if not data:
                return
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, AcceptConnection):
                    writer.write(ws.send(TextMessage(json.dumps({"page": "venue"}))))
                elif isinstance(event, TextMessage):
                    buffer += event.data
                    if event.message_finished:
                        message = json.loads(buffer)
                        buffer = ""
                        now = time.time()
                        if message.get("type") == "table":
                            name = message["summary"]["table"]
                            arrivals += [{"table": name, "seq": s, "committed": c, "arrived": now}
                                         for s, c in message["taken"]]
            await writer.drain()

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    time.sleep(1.0)

    def close() -> None:
        stop.set()
        thread.join(timeout=5)

    return lambda: list(arrivals), close


def _real_board(folder: Path, script: Path, port: int, table: str, password: str) -> subprocess.Popen[bytes]:
    settings = ["broadcast.enabled=true", "broadcast.host=127.0.0.1", f"broadcast.port={port}",
                f"broadcast.event={EVENT}", f"broadcast.table={table}", f"broadcast.username={table}",
                f"broadcast.password={password}", f"paths.state_dir={folder / 'state'}", "game.rules=de",
                'game.players=["Anna", "Ben"]']
    return subprocess.Popen(
        [sys.executable, "-m", "scoreboard.cli", "run", "--simulate", "--script", str(script), "--virtual-clock",
         "--out", str(folder / "out"), *[x for s in settings for x in ("--set", s)]],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def one_size(boards: int, folder: Path, meta: dict[str, Any], entries: list[tuple[str, dict[str, Any]]],
             script: Path) -> dict[str, float]:
    from scoreboard.hub.broker import Broker, free_port

    real = tuple(f"real-{n + 1}" for n in range(REAL_BOARDS))
    light = tuple(f"table-{n + 1:03d}" for n in range(boards - REAL_BOARDS))  # (the real ones count among them)
    broker = Broker(folder / "broker", EVENT, light + real)
    broker.start()
    hub_port = free_port()
    hub_log = open(folder / "hub.log", "wb")
    hub = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.cli", "hub", "--set", "hub.host=127.0.0.1", "--set", f"hub.port={broker.port}",
         "--set", f"hub.event={EVENT}", "--set", f"hub.password={broker.passwords['hub']}",
         "--set", f"hub.data_dir={folder / 'hub'}", "--set", f"hub.listen_port={hub_port}"],
        stdout=hub_log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{hub_port}"
    stop = threading.Event()
    peaks: dict[str, dict[str, float]] = {"hub": {}, "broker": {}}
    closers: list[Callable[[], None]] = []
    running: list[Board] = []
    reals: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                import urllib.request

                urllib.request.urlopen(f"{url}/feed.json", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or hub.poll() is not None:
                    raise HubBenchError("the hub did not start: " + (folder / "hub.log").read_text()[-500:]) from None
                time.sleep(0.2)
        for name, pid in (("hub", hub.pid), ("broker", broker.pid)):
            assert pid is not None
            threading.Thread(target=_watch_memory, args=(pid, stop, peaks[name]), daemon=True).start()
        rng = random.Random(boards)
        running = [Board(t, broker.passwords[t], broker.port, meta, entries, rng) for t in light]
        read, close_page = _page(url)
        closers.append(close_page)
        time.sleep(1.0)
        cpu0, t0 = _proc_status(hub.pid)["cpu"], time.monotonic()
        reals = [_real_board(folder / t, script, broker.port, t, broker.passwords[t]) for t in real]
        end = time.monotonic() + DURATION_S
        while time.monotonic() < end:
            now = time.time()
            for board in running:
                if board.due(now):
                    board.step(now)
            time.sleep(0.01)
        for proc in reals:
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
        time.sleep(2.0)
        cpu = (_proc_status(hub.pid)["cpu"] - cpu0) / (time.monotonic() - t0) * 100
        arrivals = [a for a in read() if a.get("committed")]
        hub_peak = _proc_status(hub.pid)["VmHWM"]
        broker_peak = _proc_status(broker.pid)["VmHWM"] if broker.pid else 0.0
    finally:
        stop.set()
        for board in running:
            board.close()
        for close in closers:
            close()
        for proc in reals:
            if proc.poll() is None:
                proc.kill()
        if hub.poll() is None:
            hub.send_signal(signal.SIGTERM)
            try:
                hub.wait(timeout=20)
            except subprocess.TimeoutExpired:
                hub.kill()
        hub_log.close()
        broker.stop()
    if not arrivals:
        raise HubBenchError("no record reached the page")
    latency = sorted((a["arrived"] - a["committed"]) * 1000 for a in arrivals)
    if os.environ.get("SCOREBOARD_HUB_BENCH_DEBUG"):
        worst = sorted(arrivals, key=lambda a: a["committed"] - a["arrived"])[:15]
        for a in worst:
            print("  slow:", a["table"], a["seq"], round((a["arrived"] - a["committed"]) * 1000), "ms at",
                  round(a["committed"] - arrivals[0]["committed"], 1), "s")
    begun = min(a["committed"] for a in arrivals)
    steady = sorted((a["arrived"] - a["committed"]) * 1000 for a in arrivals if a["committed"] >= begun + STEADY_AFTER_S)
    from_real = sorted((a["arrived"] - a["committed"]) * 1000 for a in arrivals if a["table"].startswith("real-"))
    p = f"hub{boards}"
    return {
        f"{p}_latency_ms_p50": statistics.median(latency),
        f"{p}_latency_ms_p99": latency[min(len(latency) - 1, int(len(latency) * 0.99))],
        f"{p}_steady_latency_ms_p99": steady[min(len(steady) - 1, int(len(steady) * 0.99))] if steady else float("nan"),
        f"{p}_real_latency_ms_p50": statistics.median(from_real) if from_real else float("nan"),
        f"{p}_records": float(len(latency)),
        f"{p}_real_records": float(len(from_real)),
        f"{p}_cpu_pct": cpu,
        f"{p}_rss_mib": max(hub_peak, peaks["hub"].get("rss", 0.0)),
        f"{p}_broker_rss_mib": max(broker_peak, peaks["broker"].get("rss", 0.0)),
    }


def _states(meta: dict[str, Any], entries: list[tuple[str, dict[str, Any]]]) -> list[bytes]:
    """The table's state after each record of the recorded game, as a board publishes it
    (its board, scores, clocks; the racks under ``private``), encoded."""
    from engine.game import Game
    from scoreboard.broadcast.messages import StateMessage, encode
    from scoreboard.controller.records import Committed
    from scoreboard.journal_format import decode_entry, decode_meta, rules_of

    started = decode_meta(meta)
    game = Game(rules_of(started), started.players, rng=random.Random(0), first=started.first)
    out = []
    for seq in range(len(entries) + 1):
        if seq:
            kind, payload = entries[seq - 1]
            if kind == "command":
                committed = decode_entry(kind, payload, game.tile_set)
                assert isinstance(committed, Committed)
                game.apply(committed.command)
        view = {
            "phase": "over" if game.over else "playing", "profile": "de", "names": list(game.players), "seats": 2,
            "turn": None if game.over else game.turn, "scores": game.scores(), "bag": len(game.bag),
            "racks": [len(game.rack(p)) for p in range(2)],
            "board": {sq.name(): {"letter": t.letter, "blank": t.blank} for sq, t in game.board.tiles()},
            "window": None, "tally": None, "first_draw": None, "paused": False, "away": None, "mode": "idle",
            "now": seq * 20.0, "clock": {"used": [seq * 9.5, seq * 9.0], "running": seq % 2, "limit": 1500.0},
            "challenge": None, "private": {"racks": [game.rack(p) for p in range(2)]},
        }
        out.append(encode(StateMessage(1, seq, view, 0.0)))
    return out


def _delay_child(boards: int, delay: float) -> None:
    """(In a process of its own.) Feed a hub's core ``boards`` boards' records and states for
    ``delay`` + 900 virtual seconds, show each change ``delay`` after it arrived; print JSON:
    the peak and the baseline RSS (MiB), records and states fed."""
    import heapq
    import json as json_

    from scoreboard.broadcast.messages import RecordMessage, Topics, encode
    from scoreboard.hub.core import Hub

    meta, entries = recorded_game()
    states = _states(meta, entries)
    topics = Topics("scoreboard", EVENT)
    folder = Path(tempfile.mkdtemp(prefix="hub-delay-"))
    rng = random.Random(boards)
    try:
        baseline = _proc_status(os.getpid())["VmRSS"]
        hub = Hub(topics, folder, delay=delay)
        end = delay + 900.0
        due: list[tuple[float, int, int, int]] = []  # (virtual time, board, game, seq) of each board's next record
        for b in range(boards):
            heapq.heappush(due, (rng.uniform(0, RECORD_EVERY_S), b, 1, 0))
        shown: list[tuple[float, str]] = []  # (when, table): the pushes due
        fed = [0, 0]
        tick = 0.0
        while due and due[0][0] < end:
            now, b, game, seq = heapq.heappop(due)
            table = f"table-{b + 1:03d}"
            while tick <= now:  # the hub's timer and the pushes, on the virtual clock
                while shown and shown[0][0] <= tick:
                    _, name = heapq.heappop(shown)
                    hub.summary(name, hub.cutoff(tick))
                    hub.taken(name) if _takes_no_cutoff(hub) else hub.taken(name, hub.cutoff(tick))  # type: ignore[call-arg]
                hub.prune(tick)
                tick += 1.0
            if seq == 0:
                message = RecordMessage(game, 0, "$start", {"meta": meta, "started": "2026-12-02T00:00:00+00:00"}, 0.0)
            else:
                kind, payload = entries[seq - 1]
                message = RecordMessage(game, seq, kind, payload, float(seq), now)
            hub.receive(topics.board(table, "records"), encode(message), now)
            state = states[seq].replace(b'"game":1,', f'"game":{game},'.encode(), 1)
            hub.receive(topics.board(table, "state"), state, now)
            fed[0] += 1
            fed[1] += 1
            heapq.heappush(shown, (now + delay, table))
            if seq < len(entries):
                heapq.heappush(due, (now + rng.expovariate(1.0 / RECORD_EVERY_S), b, game, seq + 1))
            else:  # the next game, after a minute
                heapq.heappush(due, (now + 60.0, b, game + 1, 0))
        peak = _proc_status(os.getpid())["VmHWM"]
        hub.writer.stop()
        print(json_.dumps({"peak": peak, "baseline": baseline, "records": fed[0], "states": fed[1]}))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _takes_no_cutoff(hub: Any) -> bool:
    import inspect

    return len(inspect.signature(hub.taken).parameters) == 1


def delay_memory(sizes: tuple[int, ...] = BOARDS, delay: float = DELAY_S) -> dict[str, float]:
    """Per size: the peak memory (MiB) of a hub's core holding ``delay`` seconds of the event
    (a process of its own, on a virtual clock), and what the window added to it."""
    figures: dict[str, float] = {}
    for boards in sizes:
        code = f"from scoreboard.bench.hub_bench import _delay_child; _delay_child({boards}, {delay!r})"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1800, check=False)
        if done.returncode != 0:
            raise HubBenchError(f"the delayed hub's memory run failed: {done.stderr[-800:]}")
        out = json.loads(done.stdout.strip().splitlines()[-1])
        p = f"hub{boards}_delay{delay:.0f}"
        figures[f"{p}_rss_mib"] = out["peak"]
        figures[f"{p}_window_mib"] = out["peak"] - out["baseline"]
        figures[f"{p}_records"] = float(out["records"])
    return figures


def run(sizes: tuple[int, ...] = BOARDS) -> dict[str, float]:
    from scoreboard.demo import short_demo_script
    from scoreboard.hub.broker import mosquitto_path
    from scoreboard.lexicons import open_lexicon

    if mosquitto_path() is None:
        print("  (no mosquitto: apt-get install mosquitto; the hub bench is skipped)")
        return {}
    meta, entries = recorded_game()
    folder = Path(tempfile.mkdtemp(prefix="hub-bench-"))
    try:
        script = folder / "short.txt"
        script.write_text(short_demo_script("de", ["Anna", "Ben"], open_lexicon("de"))[0], encoding="utf-8")
        figures: dict[str, float] = {}
        for boards in sizes:
            (folder / str(boards)).mkdir()
            figures.update(one_size(boards, folder / str(boards), meta, entries, script))
        figures.update(delay_memory(sizes))
        return figures
    finally:
        shutil.rmtree(folder, ignore_errors=True)
