"""``scoreboard board selftest``: the board's self-test, the first thing to run on a new board.

``scoreboard board selftest [--link PATH] [--set de|fr|en] [--tile UID] [--seconds N] [--json]
[--config FILE]`` opens the board link (``--link``, else ``board.link``, else the first by-id
port), waits for the controller's HELLO and starts its self-test (hardware/PROTOCOL.md,
"Self-test"). Then it guides the builder:

1. every reader, OK or faulty with the reason (does its MFRC522 answer on SPI, did its
   MCP23S17 pass the address check at boot, had the scan taken it out);
2. "slide the test tile across every cell and rack slot", with a line for each antenna that
   reads it for the first time, one for each reader all of whose antennas have, a line for
   any tag that is not a test tile, and every 15 s without news what is left;
3. at the end (every antenna has read the tile, ``--seconds`` have passed, or Ctrl-C) a
   report per reader and per antenna: read or not, how often, the read time (shortest,
   median, longest), and the antennas that never saw the tile, by cell and rack slot.

The test tile: ``--tile UID``, else any tile enrolled for ``--set`` (else for any set) in
the state directory's tile registries; a tag that is not one is reported, never used. With
no test tile at all the self-test still runs: it lists every tag it reads, whose UID can be
given to ``--tile``.

Exit status: 0 when every reader is healthy and every antenna read the test tile; 1 when
not (or stopped before); 2 when the self-test could not run (no board, a board that refuses
the link, a firmware without the self-test, a bad argument or registry). ``--json``: the
guidance goes to stderr and stdout gets one JSON object at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from drivers.board.link import (
    BoardConnected,
    BoardEvent,
    BoardLink,
    CommandRefused,
    SelfTestReported,
    UnsupportedBoard,
    VersionMismatch,
)
from drivers.board.protocol import AckStatus, FrameType, Hello, Message, SelfTest, SelfTestState, uid_hex
from drivers.board.selftest import (
    AntennaTally,
    HealthSeen,
    OtherTag,
    ReaderDone,
    ReaderFailing,
    ReaderVerdict,
    SelfTestTally,
    StrayRead,
    TallyEvent,
    TileRead,
    chip,
    where,
)
from drivers.board.serial_link import BoardDisconnected, BoardReconnected, Port, SerialBoard
from engine.errors import ScoreboardError

from .registry import SET_KEYS, TileRegistry, check_uid, letter_name

__all__ = [
    "BoardRefusedError", "BoardSilentError", "NoSelfTestError", "SelfTestRefusedError", "SelfTestRun",
    "TestTiles", "cmd_board_selftest", "parse_tile",
]

LEASE_S = 30
"""The controller's time limit in each SELFTEST: a host that vanished leaves the board scanning."""
RENEW_S = 5.0
"""Wall seconds between two SELFTESTs that keep the self-test going ..."""
RENEW_ELAPSED_MS = 10_000
"""... or this much of the reports' own time, whichever comes first (a board on a fast clock)."""
REPORT_MS = 500
CONNECT_S = 10.0
"""No HELLO from the board by then: it is not there (or not flashed)."""
ANSWER_S = 3.0
"""A SELFTEST neither acknowledged with a report nor refused by then is sent again ..."""
ANSWER_TRIES = 3
"""... this many times in all, then the board is called silent."""
FINAL_S = 2.0
"""How long the last report is waited for after SELFTEST 0."""
REMIND_S = 15.0
"""Without an antenna newly read for this long, say what is left."""
POLL_S = 0.2

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_ERROR = 2


class NoSelfTestError(ScoreboardError, RuntimeError):
    """The controller answered SELFTEST "unknown type": its firmware has no self-test.

    ``firmware``: the version its HELLO gave (None when no HELLO was seen).
    """

    def __init__(self, firmware: tuple[int, int, int] | None) -> None:
        shown = "" if firmware is None else " " + ".".join(map(str, firmware))
        super().__init__(
            f"this board's firmware{shown} has no self-test: update it (firmware 1.2.0 or later; "
            "hardware/README.md, \"Flashing the controller\")"
        )
        self.firmware = firmware


class SelfTestRefusedError(ScoreboardError, ValueError):
    """The controller refused the SELFTEST's values (``status``: its ACK)."""

    def __init__(self, status: AckStatus, command: SelfTest) -> None:
        super().__init__(f"the board refused {command!r}: {status.name.lower().replace('_', ' ')}")
        self.status = status
        self.command = command


class BoardSilentError(ScoreboardError, TimeoutError):
    """No answer from the board in time: ``what`` was awaited at ``path`` for ``seconds``."""

    def __init__(self, path: str, what: str, seconds: float) -> None:
        super().__init__(f"{what} from the board at {path} within {seconds:g} s")
        self.path = path
        self.what = what
        self.seconds = seconds


class BoardRefusedError(ScoreboardError, RuntimeError):
    """The host refused the controller (another protocol major, a board it cannot use)."""

    def __init__(self, event: VersionMismatch | UnsupportedBoard) -> None:
        super().__init__(event.message())
        self.event = event


# --- the test tile ------------------------------------------------------------------------------


def parse_tile(text: str) -> bytes:
    """A UID as ``--tile`` takes it: hex, 4, 7 or 10 bytes (``registry.BadUidError`` else)."""
    from .registry import BadUidError

    try:
        uid = bytes.fromhex(text.strip())
    except ValueError:
        raise BadUidError(f"not a hex UID: {text!r}") from None
    return check_uid(uid)


@dataclass(frozen=True)
class TestTiles:
    """The UIDs that count as the test tile, the letters of the enrolled ones, and whence."""

    uids: frozenset[bytes]
    letters: Mapping[bytes, str]
    source: str

    def __contains__(self, uid: object) -> bool:
        return uid in self.uids

    def name(self, uid: bytes) -> str:
        """``04A1B2C3D4E5F6`` and, when enrolled, its letter: ``04A1B2C3D4E5F6 (E)``."""
        letter = self.letters.get(uid)
        return uid_hex(uid) if letter is None else f"{uid_hex(uid)} ({letter_name(letter)})"

    @classmethod
    def load(cls, tile: bytes | None, sets: Iterable[str], state_dir: Path) -> TestTiles:
        """``tile`` alone when given, else every tile enrolled for ``sets`` under ``state_dir``;
        the letters of every enrolled tile either way."""
        letters: dict[bytes, str] = {}
        names = []
        for key in sets:
            registry = TileRegistry.load(state_dir, key)
            letters.update(registry.items())
            if len(registry):
                names.append(f"{len(registry)} {registry.tile_set.name} tiles ({registry.path})")
        if tile is not None:
            return cls(frozenset((tile,)), letters, f"{uid_hex(tile)} (--tile)")
        if not letters:
            where_ = ", ".join(sets)
            return cls(frozenset(), letters, f"none: no tile is enrolled for {where_} in {state_dir}")
        return cls(frozenset(letters), letters, "any enrolled tile: " + ", ".join(names))


# --- the run ------------------------------------------------------------------------------------


class Board(Protocol):
    """What the run needs of the board link (:class:`~drivers.board.serial_link.SerialBoard`)."""

    link: BoardLink

    def send(self, msg: Message) -> None: ...

    def read_events(self, timeout: float) -> list[BoardEvent]: ...


@dataclass
class Outcome:
    """How a run ended: ``ended`` (``complete``, ``time limit``, ``interrupted``), after ``seconds``
    of the self-test; the board's HELLO and the tally of its reports."""

    hello: Hello
    tally: SelfTestTally
    ended: str
    seconds: float
    restarts: int


class SelfTestRun:
    """One ``board selftest``: start the self-test on ``board``, follow it, end it.

    ``tiles``: the test tiles; ``seconds``: the time limit of the sliding; ``say``: one line
    for the builder; ``clock``: wall time (injectable).
    """

    def __init__(self, board: Board, path: str, tiles: TestTiles, seconds: float, say: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.board = board
        self.path = path
        self.tiles = tiles
        self.seconds = seconds
        self.say = say
        self.clock = clock
        self.hello: Hello | None = None
        self.tally: SelfTestTally | None = None
        self.running = False  # the controller's self-test runs (a report came, no last one since)
        self.asked_at: float | None = None  # when our last SELFTEST went out
        self.awaiting = False  # a start was asked for and neither a report nor a refusal came
        self.tries = 0
        self.renewed_elapsed = 0  # the report time of our last SELFTEST while running
        self.started_at: float | None = None  # the first report: the sliding's time starts
        self.news_at = 0.0  # the last antenna newly read (or the start)
        self.restarts = 0
        self.guided = False
        self.away = False
        self.seen_version: dict[int, int] = {}
        self.again = False  # the self-test is being started again: say so when it runs

    # --- the loop ---

    def run(self) -> Outcome:
        """Follow the self-test until it is complete, its time is up or Ctrl-C; then end it."""
        begun = self.clock()
        ended = "interrupted"
        try:
            while True:
                for event in self.board.read_events(POLL_S):
                    self._event(event)
                now = self.clock()
                if self.hello is None and now - begun > CONNECT_S:
                    raise BoardSilentError(self.path, "no HELLO", CONNECT_S)
                if self.awaiting and self.asked_at is not None and now - self.asked_at > ANSWER_S:
                    if self.tries >= ANSWER_TRIES:
                        raise BoardSilentError(self.path, "no answer to SELFTEST", ANSWER_S * ANSWER_TRIES)
                    self._ask(now)
                if self.running and self.asked_at is not None and now - self.asked_at >= RENEW_S:
                    self._ask(now)
                if self.started_at is None:
                    continue
                assert self.tally is not None
                if self.tally.complete:
                    ended = "complete"
                    break
                if now - self.started_at >= self.seconds:
                    ended = "time limit"
                    break
                if now - self.news_at >= REMIND_S:
                    self._remind()
                    self.news_at = now
        except KeyboardInterrupt:
            ended = "interrupted"
        finally:
            self._stop()
        if self.hello is None or self.tally is None:  # (stopped before the board said HELLO)
            raise BoardSilentError(self.path, "no HELLO", round(self.clock() - begun, 1))
        spent = 0.0 if self.started_at is None else self.clock() - self.started_at
        return Outcome(self.hello, self.tally, ended, spent, self.restarts)

    def _ask(self, now: float) -> None:
        """SELFTEST: start the self-test, or keep it going."""
        self.board.send(SelfTest(LEASE_S, REPORT_MS))
        self.asked_at = now
        if not self.running:
            self.awaiting = True
            self.tries += 1

    def _stop(self) -> None:
        """SELFTEST 0, and the last report waited for (``FINAL_S`` at most; Ctrl-C skips it)."""
        if self.asked_at is None:
            return
        self.board.send(SelfTest(0, 0))
        if not self.running:
            return
        deadline = self.clock() + FINAL_S
        try:
            while self.running and self.clock() < deadline:
                for event in self.board.read_events(min(POLL_S, max(0.0, deadline - self.clock()))):
                    if isinstance(event, SelfTestReported):
                        self._report(event)
        except KeyboardInterrupt:
            pass

    # --- events ---

    def _event(self, event: BoardEvent) -> None:
        if isinstance(event, BoardConnected):
            self._connected(event.hello)
        elif isinstance(event, SelfTestReported):
            self._report(event)
        elif isinstance(event, CommandRefused) and event.command is FrameType.SELFTEST:
            if event.status is AckStatus.UNKNOWN_TYPE:
                raise NoSelfTestError(None if self.hello is None else self.hello.firmware)
            raise SelfTestRefusedError(event.status, SelfTest(LEASE_S, REPORT_MS))
        elif isinstance(event, (VersionMismatch, UnsupportedBoard)):
            raise BoardRefusedError(event)
        elif isinstance(event, BoardDisconnected):
            if not self.away:
                gone = "away" if self.hello is not None else "not there"
                self.say(f"The board is {gone} ({event.reason}); waiting for it.")
            self.away = True
            self.running = False
            self.awaiting = False  # (asked again when the board is back: BoardConnected)
        elif isinstance(event, BoardReconnected) and self.away:
            self.say(f"The board link is open again at {event.path}.")

    def _connected(self, hello: Hello) -> None:
        before = self.hello
        self.hello = hello
        self.away = False
        if before is None:
            self.tally = SelfTestTally(hello.readers, self.tiles.__contains__)
            fw = ".".join(map(str, hello.firmware))
            self.say(f"Board: firmware {fw}, protocol {hello.protocol[0]}.{hello.protocol[1]}, {hello.readers} readers, "
                     f"{hello.cols} x {hello.rows} cells, {hello.racks} racks of {hello.slots} slots, "
                     f"board id {hello.board_id.hex().upper()}")
            self.say(f"Test tile: {self.tiles.source}")
        elif hello.boot_id != before.boot_id:
            self.restarts += 1
            self.again = True
            self.say("The board's controller restarted: starting the self-test again (what was read is kept).")
        self.running = False
        self._ask(self.clock())

    def _report(self, event: SelfTestReported) -> None:
        tally = self.tally
        if tally is None:
            return
        report = event.report
        self.awaiting = False
        self.tries = 0
        if not self.running and report.state is SelfTestState.RUNNING:
            self.running = True
            self.renewed_elapsed = report.elapsed_ms
            if self.again:
                self.again = False
                self.say("The self-test runs again.")
        for e in tally.feed(report):
            self._tell(e)
        if report.state is not SelfTestState.RUNNING:
            self.running = False
            if report.state is not SelfTestState.STOPPED:
                why = "its time limit passed" if report.state is SelfTestState.TIMED_OUT else "a new host spoke"
                self.say(f"The board ended the self-test ({why}): starting it again.")
                self.restarts += 1
                self.again = True
                self._ask(self.clock())
            return
        if not self.guided and len(tally.health) == tally.readers:
            self._guide()
        if report.elapsed_ms - self.renewed_elapsed >= RENEW_ELAPSED_MS:
            self.renewed_elapsed = report.elapsed_ms
            self._ask(self.clock())

    def _guide(self) -> None:
        assert self.tally is not None
        self.guided = True
        self.started_at = self.news_at = self.clock()
        total = self.tally.total
        if self.tiles.uids:
            self.say(f"Slide the test tile slowly across every cell and rack slot, about half a second on each: "
                     f"{total} antennas to go. Ctrl-C ends the test.")
        else:
            self.say("No test tile: every tag read is listed below; run again with --tile UID. Ctrl-C ends the test.")

    def _tell(self, e: TallyEvent) -> None:
        assert self.tally is not None
        if isinstance(e, HealthSeen):
            h = e.health
            lead = f"  reader {h.reader:2} {where(h.locs):<8}"
            if e.first:
                v = e.verdict
                said = "; ".join(v.problems) if v.problems else f"{chip(h.version)} (VersionReg 0x{h.version:02X})"
                self.say(f"{lead} {'OK' if v.ok else 'FAULTY':<7} {said}" + "".join(f"; {n}" for n in v.notes))
            elif h.version != self.seen_version.get(h.reader):
                self.say(f"{lead} after a reset by the self-test: VersionReg 0x{h.version:02X}, {chip(h.version)}")
            self.seen_version[h.reader] = h.version
        elif isinstance(e, TileRead):
            a = e.antenna
            self.news_at = self.clock()
            self.say(f"  {a.loc.name():<15} reader {a.reader} antenna {a.antenna:<3} {e.time_us / 1000:5.1f} ms"
                     f"   ({e.done} of {e.total})")
        elif isinstance(e, ReaderDone):
            h = self.tally.health[e.reader]
            self.say(f"  reader {e.reader} ({where(h.locs)}): every antenna has read the test tile")
        elif isinstance(e, OtherTag):
            a = e.antenna
            kind = "another enrolled tile" if e.uid in self.tiles.letters else "a tag that is not enrolled"
            self.say(f"  {self.tiles.name(e.uid)} on {a.loc.name()} (reader {a.reader} antenna {a.antenna}): "
                     f"{kind}, not a test tile: ignored")
        elif isinstance(e, ReaderFailing):
            h = self.tally.health[e.reader]
            self.say(f"  reader {e.reader} ({where(h.locs)}): FAULTY: " + "; ".join(e.problems))
        elif isinstance(e, StrayRead):
            self.say(f"  reads of reader {e.reader} antenna {e.antenna}, which its health report does not list: ignored")

    def _remind(self) -> None:
        assert self.tally is not None
        left = self.tally.never_read()
        if left:
            self.say(f"Still to read the test tile ({len(left)}): " + "; ".join(self.tally.never_read_by_reader()))


# --- the report ---------------------------------------------------------------------------------

_ENDED = {
    "complete": "every antenna has read the test tile",
    "time limit": "the time limit",
    "interrupted": "stopped (Ctrl-C)",
}


def _ms(times: tuple[float, float, float] | None) -> str:
    return "" if times is None else f"{times[0]:.1f} / {times[1]:.1f} / {times[2]:.1f} ms"


def report_lines(outcome: Outcome, seconds: float, tiles: TestTiles, link: BoardLink | None = None) -> list[str]:
    """The final report for people (with what ``link`` dropped as unreadable)."""
    tally = outcome.tally
    ended = _ENDED[outcome.ended] + (f" of {seconds:g} s" if outcome.ended == "time limit" else "")
    lines = [f"Self-test ended: {ended}, after {outcome.seconds:.0f} s.", "Readers:"]
    verdicts: list[ReaderVerdict] = []
    for r in range(tally.readers):
        v = tally.verdict(r, final=True)
        verdicts.append(v)
        h = tally.health.get(r)
        mine = tally.of_reader(r)
        place = "" if h is None else where(h.locs)
        read = sum(1 for a in mine if a.read)
        tile = [t for a in mine for t in a.tile_us]
        empty = sum(a.empty.count for a in mine)
        line = f"  reader {r:2} {place:<10} {'OK' if v.ok else 'FAULTY':<7} {read}/{len(mine)} antennas read the tile"
        if tile:
            line += f", {len(tile)} tile reads"
        line += f", {empty} empty reads"
        lines.append(line)
        lines += [f"      ! {p}" for p in v.problems] + [f"      - {n}" for n in v.notes]
    lines.append("Antennas (reads of the test tile: shortest / median / longest):")
    for _, a in sorted(tally.antennas.items()):
        state = f"read {len(a.tile_us):3}  {_ms(a.tile_ms())}" if a.read else "NOT READ"
        extra = []
        if a.no_response.count:
            extra.append(f"{a.no_response.count} without answer")
        if a.bad_data.count:
            extra.append(f"{a.bad_data.count} bad data")
        if a.others:
            extra.append("other tags " + ", ".join(tiles.name(u) for u in a.others))
        empties = f"empty {a.empty.count} ({a.empty.min_us / 1000:.1f}-{a.empty.max_us / 1000:.1f} ms)" \
            if a.empty.count else "empty 0"
        tail = "; ".join([empties, *extra])
        lines.append(f"  {a.loc.name():<15} reader {a.reader:2} antenna {a.antenna:2}  {state:<36} {tail}")
    never = tally.never_read()
    if never:
        lines.append(f"Never read the test tile ({len(never)}):")
        lines += [f"  {phrase}" for phrase in tally.never_read_by_reader()]
    for uid, where_ in tally.others().items():
        lines.append(f"Not a test tile: {tiles.name(uid)} read on " + ", ".join(a.loc.name() for a in where_))
    if tally.stray:
        lines.append("Reads of antennas no health report lists: "
                     + ", ".join(f"reader {r} antenna {a}" for r, a in sorted(tally.stray)))
    if link is not None and link.stats.bad_payloads:
        n = link.stats.bad_payloads
        lines.append(f"The board sent {n} frame{'s' if n != 1 else ''} that could not be read (dropped: what they "
                     f"held is missing here), the last: {link.last_error}")
    faulty = [v for v in verdicts if not v.ok]
    if tally.passed():
        lines.append(f"Result: PASS: {tally.readers} readers healthy, all {tally.total} antennas read the test tile.")
    else:
        why = []
        if faulty:
            why.append(f"{len(faulty)} of {tally.readers} readers faulty ({', '.join(str(v.reader) for v in faulty)})")
        if never or not tally.complete:
            why.append(f"{len(never)} of {tally.total} antennas never read the test tile")
        lines.append("Result: FAIL: " + "; ".join(why) + ".")
    return lines


def report_json(outcome: Outcome, seconds: float, tiles: TestTiles, link: BoardLink) -> dict[str, Any]:
    """The whole result for machines."""
    hello = outcome.hello
    data = outcome.tally.as_dict()
    data.update({
        "ended": outcome.ended,
        "seconds": round(outcome.seconds, 1),
        "time_limit_s": seconds,
        "restarts": outcome.restarts,
        "board": {
            "firmware": ".".join(map(str, hello.firmware)),
            "protocol": f"{hello.protocol[0]}.{hello.protocol[1]}",
            "readers": hello.readers,
            "racks": hello.racks,
            "slots": hello.slots,
            "board_id": hello.board_id.hex().upper(),
        },
        "test_tiles": {"source": tiles.source, "uids": sorted(uid_hex(u) for u in tiles.uids)},
        "link": {"bad_payloads": link.stats.bad_payloads, "sequence_errors": link.stats.sequence_errors,
                 "last_error": None if link.last_error is None else str(link.last_error)},
    })
    for entry in data["other_tags"]:
        letter = tiles.letters.get(bytes.fromhex(entry["uid"]))
        entry["letter"] = None if letter is None else letter_name(letter)
    return data


# --- the command --------------------------------------------------------------------------------


def cmd_board_selftest(
    args: argparse.Namespace,
    *,
    opener: Callable[[str], Port] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Run the self-test; ``opener`` (the port), ``out``, ``err`` and ``clock`` are injectable."""
    from .config import load_config, state_dir
    from .link_path import link_path

    out = out or sys.stdout
    err = err or sys.stderr
    human = err if args.json else out

    def say(line: str) -> None:
        print(line, file=human, flush=True)

    try:
        config = load_config(args.config)
        sets = [args.tile_set] if args.tile_set else list(SET_KEYS)
        tile = parse_tile(args.tile) if args.tile else None
        tiles = TestTiles.load(tile, sets, state_dir(config))
        path = link_path(args.link, config)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=err)
        return EXIT_ERROR
    say(f"Board self-test on {path}")
    link = BoardLink()
    board = SerialBoard(path, link=link, opener=opener, clock=clock)
    try:
        with board:
            outcome = SelfTestRun(board, path, tiles, args.seconds, say, clock).run()
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=err)
        return EXIT_ERROR
    for line in report_lines(outcome, args.seconds, tiles, link):
        say(line)
    if args.json:
        print(json.dumps(report_json(outcome, args.seconds, tiles, link)), file=out, flush=True)
    return EXIT_PASS if outcome.tally.passed() else EXIT_FAIL
