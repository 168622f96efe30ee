"""The host's side of the board self-test (hardware/PROTOCOL.md, "Self-test"), pure.

:class:`SelfTestTally` takes the controller's SELFTEST_REPORTs and keeps, per reader, its
latest health and, per antenna, what its reads gave: the test tile's reads with their times,
other tags, and the empty, no-response and bad-data reads summed up. Each report gives the
events a person watching wants to see (:data:`TallyEvent`): an antenna reading the test tile
for the first time, a reader all of whose antennas have, a tag that is not a test tile, a
reader's health, a reader going bad. :meth:`SelfTestTally.verdict` judges a reader,
:attr:`SelfTestTally.complete` says whether every antenna has read the test tile, and
:meth:`SelfTestTally.as_dict` is the whole result for machines.

Which UIDs are test tiles is the caller's: ``is_test_tile``. No I/O, no clock.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .protocol import (
    CLONE_VERSIONS,
    MFRC522_VERSIONS,
    NO_ANSWER_VERSIONS,
    Area,
    HealthFlag,
    Loc,
    ReaderHealth,
    ReadResult,
    SelfTestReport,
    uid_hex,
)

FAILED_SHARE = 0.05
"""A reader more than this share of whose reads fail (no answer, or bad data) is faulty.

A good reader has next to none: a tile half over an antenna gives the odd bad read.
"""
MIN_READS = 20
"""Reads of a reader before its share of failed reads is judged."""


@dataclass
class Times:
    """Reads of one kind summed up: how many, the shortest and the longest (us)."""

    count: int = 0
    min_us: int = 0
    max_us: int = 0

    def add(self, count: int, min_us: int, max_us: int) -> None:
        """``count`` more reads, from ``min_us`` to ``max_us``."""
        if self.count == 0:
            self.min_us, self.max_us = min_us, max_us
        else:
            self.min_us, self.max_us = min(self.min_us, min_us), max(self.max_us, max_us)
        self.count += count

    def as_dict(self) -> dict[str, Any]:
        """``{"count": n, "min_ms": .., "max_ms": ..}`` (no times without reads)."""
        if not self.count:
            return {"count": 0}
        return {"count": self.count, "min_ms": ms(self.min_us), "max_ms": ms(self.max_us)}


@dataclass
class AntennaTally:
    """What the reads of one antenna gave; ``loc`` is where it lies (from its reader's health)."""

    reader: int
    antenna: int
    loc: Loc
    tile_us: list[int] = field(default_factory=list)  # each read of a test tile: its time
    others: dict[bytes, int] = field(default_factory=dict)  # other tags read here: UID -> reads
    empty: Times = field(default_factory=Times)
    no_response: Times = field(default_factory=Times)
    bad_data: Times = field(default_factory=Times)

    @property
    def read(self) -> bool:
        """True once the antenna has read a test tile."""
        return bool(self.tile_us)

    @property
    def reads(self) -> int:
        """Every read of the antenna so far."""
        tags = len(self.tile_us) + sum(self.others.values())
        return tags + self.empty.count + self.no_response.count + self.bad_data.count

    def tile_ms(self) -> tuple[float, float, float] | None:
        """The test tile's read time here: shortest, median, longest, in ms (None: never read)."""
        if not self.tile_us:
            return None
        return ms(min(self.tile_us)), ms(statistics.median(self.tile_us)), ms(max(self.tile_us))

    def as_dict(self) -> dict[str, Any]:
        """The antenna for machines."""
        times = self.tile_ms()
        return {
            "location": self.loc.name(),
            "reader": self.reader,
            "antenna": self.antenna,
            "read": self.read,
            "tile_reads": len(self.tile_us),
            "tile_ms": None if times is None else dict(zip(("min", "median", "max"), times)),
            "empty": self.empty.as_dict(),
            "no_response": self.no_response.as_dict(),
            "bad_data": self.bad_data.as_dict(),
            "other_tags": {uid_hex(uid): n for uid, n in sorted(self.others.items())},
        }


@dataclass(frozen=True)
class ReaderVerdict:
    """A reader judged: ``ok``, and why not (``problems``), with ``notes`` that do not fail it."""

    reader: int
    ok: bool
    problems: tuple[str, ...]
    notes: tuple[str, ...]


# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HealthSeen:
    """A reader's health, the first time (``first``) or changed since (a reset by the self-test)."""

    health: ReaderHealth
    first: bool
    verdict: ReaderVerdict


@dataclass(frozen=True)
class TileRead:
    """An antenna read a test tile for the first time; ``done`` of ``total`` antennas have."""

    antenna: AntennaTally
    uid: bytes
    time_us: int
    done: int
    total: int


@dataclass(frozen=True)
class ReaderDone:
    """Every antenna of ``reader`` has read a test tile."""

    reader: int
    locs: tuple[Loc, ...]


@dataclass(frozen=True)
class OtherTag:
    """A tag that is not a test tile, read on an antenna for the first time."""

    uid: bytes
    antenna: AntennaTally


@dataclass(frozen=True)
class ReaderFailing:
    """The reads of ``reader`` now fail too often: ``problems`` say how."""

    reader: int
    problems: tuple[str, ...]


@dataclass(frozen=True)
class StrayRead:
    """A read naming an antenna its reader's health does not list (or a reader without one)."""

    reader: int
    antenna: int


TallyEvent: TypeAlias = HealthSeen | TileRead | ReaderDone | OtherTag | ReaderFailing | StrayRead


def times(n: int) -> str:
    """``once``, ``2 times``."""
    return "once" if n == 1 else f"{n} times"


def ms(us: float) -> float:
    """Microseconds as milliseconds, to 0.1 ms."""
    return round(us / 1000, 1)


def chip(version: int) -> str:
    """What a VersionReg value says: ``MFRC522 2.0``, ``FM17522 clone``, ``nothing answers``."""
    if version in MFRC522_VERSIONS:
        return MFRC522_VERSIONS[version]
    if version in CLONE_VERSIONS:
        return CLONE_VERSIONS[version]
    if version in NO_ANSWER_VERSIONS:
        return "nothing answers"
    return "unknown chip"


def where(locs: tuple[Loc, ...]) -> str:
    """A reader's place from its locations: ``row 4``, ``rack 2``, else ``A4-O5``."""
    if not locs:
        return "no antennas"
    if all(loc.area is Area.BOARD for loc in locs):
        rows = {loc.square.row for loc in locs}
        if len(rows) == 1:
            return f"row {rows.pop() + 1}"
        return f"{locs[0].name()}-{locs[-1].name()}"
    if all(loc.area is Area.RACK for loc in locs) and len({loc.rack for loc in locs}) == 1:
        return f"rack {locs[0].rack + 1}"
    return f"{locs[0].name()}-{locs[-1].name()}"


# --- the tally ---------------------------------------------------------------------------------


class SelfTestTally:
    """Every report of a self-test run on a board of ``readers`` readers, added up.

    ``is_test_tile(uid)``: True for a UID that counts as the test tile.
    """

    def __init__(self, readers: int, is_test_tile: Callable[[bytes], bool]) -> None:
        self.readers = readers
        self.is_test_tile = is_test_tile
        self.health: dict[int, ReaderHealth] = {}
        self.antennas: dict[tuple[int, int], AntennaTally] = {}
        self.stray: dict[tuple[int, int], int] = {}  # reads of antennas no health lists
        self.reports = 0
        self.elapsed_ms = 0
        self._failing: set[int] = set()

    # --- input ---

    def feed(self, report: SelfTestReport) -> list[TallyEvent]:
        """Add ``report`` up; the events it gives, in order."""
        self.reports += 1
        self.elapsed_ms = max(self.elapsed_ms, report.elapsed_ms)
        events: list[TallyEvent] = []
        for h in report.health:
            events += self._health(h)
        touched: set[int] = set()
        for r in report.reads:
            tally = self.antennas.get((r.reader, r.antenna))
            if tally is None:
                key = (r.reader, r.antenna)
                if key not in self.stray:
                    events.append(StrayRead(r.reader, r.antenna))
                self.stray[key] = self.stray.get(key, 0) + r.count
                continue
            touched.add(r.reader)
            if r.result is ReadResult.TAG:
                events += self._tag(tally, r.uid, r.min_us)
            elif r.result is ReadResult.EMPTY:
                tally.empty.add(r.count, r.min_us, r.max_us)
            elif r.result is ReadResult.NO_RESPONSE:
                tally.no_response.add(r.count, r.min_us, r.max_us)
            else:
                tally.bad_data.add(r.count, r.min_us, r.max_us)
        for reader in sorted(touched - self._failing):
            problems = self._read_problems(reader)
            if problems:
                self._failing.add(reader)
                events.append(ReaderFailing(reader, tuple(problems)))
        return events

    def _health(self, h: ReaderHealth) -> list[TallyEvent]:
        before = self.health.get(h.reader)
        self.health[h.reader] = h
        if before is None:
            for a, loc in enumerate(h.locs):
                self.antennas.setdefault((h.reader, a), AntennaTally(h.reader, a, loc))
        if before == h:
            return []
        return [HealthSeen(h, before is None, self.verdict(h.reader))]

    def _tag(self, tally: AntennaTally, uid: bytes, time_us: int) -> list[TallyEvent]:
        if not self.is_test_tile(uid):
            first = uid not in tally.others
            tally.others[uid] = tally.others.get(uid, 0) + 1
            return [OtherTag(uid, tally)] if first else []
        first = not tally.tile_us
        tally.tile_us.append(time_us)
        if not first:
            return []
        events: list[TallyEvent] = [TileRead(tally, uid, time_us, self.done, self.total)]
        mine = self.of_reader(tally.reader)
        if all(a.read for a in mine):
            events.append(ReaderDone(tally.reader, tuple(a.loc for a in mine)))
        return events

    # --- what it says ---

    def of_reader(self, reader: int) -> list[AntennaTally]:
        """The antennas of ``reader``, in order (none while its health is not known)."""
        h = self.health.get(reader)
        return [] if h is None else [self.antennas[(reader, a)] for a in range(len(h.locs))]

    @property
    def total(self) -> int:
        """Antennas known (those of the readers whose health came)."""
        return len(self.antennas)

    @property
    def done(self) -> int:
        """Antennas that have read a test tile."""
        return sum(1 for a in self.antennas.values() if a.read)

    @property
    def complete(self) -> bool:
        """True when every reader's health came and every antenna has read a test tile."""
        return len(self.health) == self.readers and all(a.read for a in self.antennas.values())

    def never_read(self) -> list[AntennaTally]:
        """The antennas that have not read a test tile, by reader and antenna."""
        return [a for _, a in sorted(self.antennas.items()) if not a.read]

    def never_read_by_reader(self) -> list[str]:
        """The antennas that have not read a test tile, a phrase per reader: ``row 4: all 15``,
        ``row 8: A8 B8 J8``, ``rack 1: slots 2 3 7``."""
        out = []
        for reader in sorted(self.health):
            mine = self.of_reader(reader)
            left = [a for a in mine if not a.read]
            if not left:
                continue
            place = where(self.health[reader].locs)
            if len(left) == len(mine):
                out.append(f"{place}: all {len(mine)}")
            elif all(a.loc.area is Area.RACK for a in left):
                out.append(f"{place}: slots " + " ".join(str(a.loc.rack_slot + 1) for a in left))
            else:
                out.append(f"{place}: " + " ".join(a.loc.name() for a in left))
        return out

    def others(self) -> dict[bytes, list[AntennaTally]]:
        """Tags that are not test tiles, each with the antennas that read it."""
        out: dict[bytes, list[AntennaTally]] = {}
        for _, tally in sorted(self.antennas.items()):
            for uid in tally.others:
                out.setdefault(uid, []).append(tally)
        return dict(sorted(out.items()))

    def verdict(self, reader: int, final: bool = False) -> ReaderVerdict:
        """Judge ``reader``: its health, then (after :data:`MIN_READS` reads) its failed reads.

        ``final``: at the end of the run, a reader that read nothing is faulty too.
        """
        h = self.health.get(reader)
        if h is None:
            return ReaderVerdict(reader, False, ("no health report came from it",), ())
        problems: list[str] = []
        notes: list[str] = []
        if h.flags & HealthFlag.EXPANDER_FAILED:
            problems.append(
                "its MCP23S17 does not answer at its address (the HAEN check at boot failed), so its antennas "
                "cannot be switched: check the expander's A0-A2 pins, its chip select and its supply")
        v = h.version
        if v in NO_ANSWER_VERSIONS:
            problems.append(
                f"no answer on SPI: VersionReg reads 0x{v:02X}; check its chip select, MISO (the 74LVC1G125), "
                "3.3 V and RST")
        elif v in CLONE_VERSIONS:
            notes.append(f"a clone chip (VersionReg 0x{v:02X}): it works, but it is not the NXP MFRC522 of the build")
        elif v not in MFRC522_VERSIONS:
            problems.append(f"unknown chip: VersionReg reads 0x{v:02X} (0x91 or 0x92 expected)")
        problems += self._read_problems(reader)
        reads = sum(a.reads for a in self.of_reader(reader))
        if final and not reads and not h.flags & HealthFlag.EXPANDER_FAILED:
            problems.append("it read nothing during the self-test")
        if h.flags & HealthFlag.OUT_OF_SCAN:
            notes.append("the normal scan had taken it out before the self-test")
        if h.faults:
            notes.append(f"taken out of the normal scan {times(h.faults)} since the controller started")
        if h.resets:
            notes.append(f"reset {times(h.resets)} by the self-test")
        return ReaderVerdict(reader, not problems, tuple(problems), tuple(notes))

    def _read_problems(self, reader: int) -> list[str]:
        mine = self.of_reader(reader)
        reads = sum(a.reads for a in mine)
        if reads < MIN_READS:
            return []
        problems = []
        silent = sum(a.no_response.count for a in mine)
        if silent > FAILED_SHARE * reads:
            problems.append(
                f"{silent} of {reads} reads got no answer in time: check its IRQ line to GP12 and its 27.12 MHz crystal")
        bad = sum(a.bad_data.count for a in mine)
        if bad > FAILED_SHARE * reads:
            problems.append(
                f"{bad} of {reads} reads gave bad data: check the antennas' matching and PIN diodes, and the "
                "fields of the readers next to it")
        return problems

    def passed(self) -> bool:
        """True when every reader is healthy and every antenna has read a test tile."""
        return self.complete and all(self.verdict(r, final=True).ok for r in range(self.readers))

    def as_dict(self) -> dict[str, Any]:
        """Readers, antennas, what never read the tile and the other tags, for machines."""
        readers = []
        for r in range(self.readers):
            v = self.verdict(r, final=True)
            h = self.health.get(r)
            mine = self.of_reader(r)
            entry: dict[str, Any] = {"reader": r, "ok": v.ok, "problems": list(v.problems), "notes": list(v.notes)}
            if h is not None:
                entry.update({
                    "where": where(h.locs),
                    "version": f"0x{h.version:02X}",
                    "chip": chip(h.version),
                    "expander_ok": not h.flags & HealthFlag.EXPANDER_FAILED,
                    "out_of_scan": bool(h.flags & HealthFlag.OUT_OF_SCAN),
                    "faults_since_boot": h.faults,
                    "resets": h.resets,
                    "antennas": len(mine),
                    "antennas_read": sum(1 for a in mine if a.read),
                    "reads": {
                        "tile": sum(len(a.tile_us) for a in mine),
                        "other_tags": sum(sum(a.others.values()) for a in mine),
                        "empty": sum(a.empty.count for a in mine),
                        "no_response": sum(a.no_response.count for a in mine),
                        "bad_data": sum(a.bad_data.count for a in mine),
                    },
                })
            readers.append(entry)
        return {
            "passed": self.passed(),
            "complete": self.complete,
            "elapsed_ms": self.elapsed_ms,
            "reports": self.reports,
            "readers": readers,
            "antennas": [a.as_dict() for _, a in sorted(self.antennas.items())],
            "never_read": [a.loc.name() for a in self.never_read()],
            "other_tags": [
                {"uid": uid_hex(uid), "locations": [a.loc.name() for a in tallies],
                 "reads": sum(a.others[uid] for a in tallies)}
                for uid, tallies in self.others().items()
            ],
            "stray_reads": [{"reader": r, "antenna": a, "reads": n} for (r, a), n in sorted(self.stray.items())],
        }
