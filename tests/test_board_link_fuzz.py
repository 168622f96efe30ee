"""A seeded, bounded fuzz of the host link against a simulated controller and forged frames.

The controller holds a board of 2 racks of 7 slots, moves tiles, and sends CHANGES, HEARTBEAT
and SNAPSHOT frames as the spec says; it answers REQUEST_SNAPSHOT and IDENTIFY, and now and then
restarts (its HELLO lost). Between its frames come CRC-valid forgeries numbered as the
controller's next frame (the worst case): SNAPSHOT and CHANGES naming locations outside the
geometry (with phantom tiles besides), unknown frame types, length fields that lie or exceed
4096, mid-stream HELLOs of another geometry, protocol or size; also honest frames with bytes
appended, forged HEARTBEATs of another boot, and raw noise. Every board the link reports
must be exactly the controller's board at that sweep (no phantom tile, no tile lost); the
stabiliser's stable board holds no tile the controller never had there; the link always comes
back in sync, and every restart of the controller is followed by the host's scan settings.
Played twice: with a 1.0 controller (restarts seen by its uptime) and a 1.1 one (by its boot
id, drawn anew at each boot).
"""

from __future__ import annotations

import random
import struct
from dataclasses import replace
import zlib
from dataclasses import dataclass, field

import pytest

from drivers.board.link import BoardLink, LinkState, SnapshotReceived
from drivers.board.protocol import (
    Ack,
    AckStatus,
    Changes,
    FrameParser,
    FrameType,
    Heartbeat,
    Hello,
    Identify,
    Loc,
    Message,
    RequestSnapshot,
    SetScan,
    Snapshot,
    cobs_encode,
    decode_payload,
    encode,
    encode_payload,
)
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import Stabiliser

SEED = 13
STEPS = 6000  # 0.05 s each: five minutes of play
DT = 0.05
BOARD_ID = bytes.fromhex("E66118604B2D3A2F")
HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 19, BOARD_ID)
SCAN = SetScan(stable_sweeps=3, stable_ms=150)
INSIDE = [Loc.cell_index(i) for i in range(225)] + [Loc.slot(r, s) for r in range(2) for s in range(7)]
OUTSIDE = [Loc.slot(r, s) for r in range(2) for s in (7, 8)] + [Loc.slot(r, s) for r in (2, 3) for s in range(9)]
OTHER_HELLOS = [
    Hello((1, 0, 0), (1, 0), 15, 15, 4, 9, 19, BOARD_ID),  # another valid geometry: held
    Hello((1, 0, 0), (1, 0), 15, 15, 1, 7, 19, BOARD_ID),
    Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 19, bytes(8)),  # the same geometry, another id
    Hello((1, 0, 0), (1, 0), 13, 13, 2, 7, 19, BOARD_ID),  # refused
    Hello((2, 0, 0), (2, 0), 15, 15, 2, 7, 19, BOARD_ID),  # refused
]


def raw(kind: int, seq: int, payload: bytes, length: int | None = None) -> bytes:
    body = struct.pack("<BBHH", kind, 0, seq & 0xFFFF, len(payload) if length is None else length) + payload
    return b"\x00" + cobs_encode(body + struct.pack("<I", zlib.crc32(body))) + b"\x00"


def tag_payload(sweep: int, tags: list[tuple[Loc, bytes]]) -> bytes:
    return struct.pack("<IH", sweep, len(tags)) + b"".join(bytes((l.area, l.index, len(u))) + u for l, u in tags)


@dataclass
class Controller:
    """The board controller as the spec describes it (no corruption of its own)."""

    rng: random.Random
    boot_ids: bool = False  # a 1.1 controller: a boot id in HELLO and HEARTBEAT, drawn at each boot
    boot_id: int | None = None
    board: dict[Loc, bytes] = field(default_factory=dict)
    seq: int = 0
    sweep: int = 0
    uptime_ms: int = 0
    scan: SetScan | None = None  # what the host last set since boot
    history: dict[int, dict[Loc, bytes]] = field(default_factory=dict)
    ever: set[tuple[Loc, bytes]] = field(default_factory=set)
    next_uid: int = 1
    parser: FrameParser = field(default_factory=FrameParser)

    def frame(self, msg: Message) -> bytes:
        out = encode(msg, self.seq)
        self.seq = (self.seq + 1) & 0xFFFF
        return out

    def note(self) -> None:
        self.history[self.sweep] = dict(self.board)
        self.ever.update(self.board.items())

    def snapshot(self) -> bytes:
        return self.frame(Snapshot(self.sweep, tuple(sorted(self.board.items()))))

    def __post_init__(self) -> None:
        self.draw_boot_id()

    def draw_boot_id(self) -> None:
        self.boot_id = self.rng.getrandbits(32) if self.boot_ids else None

    def hello(self) -> bytes:
        return self.frame(replace(HELLO, protocol=(1, 1), boot_id=self.boot_id) if self.boot_ids else HELLO)

    def move(self) -> bytes:
        """One sweep in which a tile arrives, leaves or moves: its CHANGES frame."""
        self.sweep += 1
        free = [loc for loc in INSIDE if loc not in self.board]
        changes: dict[Loc, bytes] = {}
        what = self.rng.random()
        if not self.board or (what < 0.45 and len(self.board) < 60):
            uid = bytes((4,)) + self.next_uid.to_bytes(6, "big")
            self.next_uid += 1
            changes[self.rng.choice(free)] = uid
        elif what < 0.75 or len(self.board) >= 60:
            changes[self.rng.choice(sorted(self.board))] = b""
        else:
            src = self.rng.choice(sorted(self.board))
            changes[src] = b""
            changes[self.rng.choice(free)] = self.board[src]
        for loc, uid in changes.items():
            if uid:
                self.board[loc] = uid
            else:
                self.board.pop(loc, None)
        self.note()
        return self.frame(Changes(self.sweep, tuple(sorted(changes.items()))))

    def heartbeat(self) -> bytes:
        return self.frame(Heartbeat(self.sweep, self.uptime_ms, 180, 0, self.boot_id))

    def reboot(self) -> bytes:
        """A restart: seq from 0, uptime from 0, scan settings back to defaults; the HELLO is
        lost on the way, the warm-up SNAPSHOT is sent."""
        self.seq, self.uptime_ms, self.scan = 0, 0, None
        self.draw_boot_id()
        self.hello()  # (lost)
        return self.snapshot()

    def answer(self, data: bytes) -> bytes:
        out = b""
        for f in self.parser.feed(data):
            msg = decode_payload(f.type, f.payload)
            out += self.frame(Ack(f.seq, AckStatus.OK))
            if isinstance(msg, RequestSnapshot):
                out += self.snapshot()
            elif isinstance(msg, Identify):
                out += self.hello() + self.snapshot()
            elif isinstance(msg, SetScan):
                self.scan = msg
        return out


@dataclass
class Figures:
    frames: int = 0
    forged: int = 0
    phantoms: int = 0  # tiles in a reported board that the controller did not hold there
    lost: int = 0  # tiles the controller held that a reported board lacks
    stable_phantoms: int = 0
    desyncs: int = 0
    recoveries: int = 0
    longest_recovery: float = 0.0
    reboots: int = 0
    rescanned: int = 0  # restarts after which the scan settings came back
    longest_rescan: float = 0.0  # from a restart to the host's SET_SCAN


def forgery(rng: random.Random, ctl: Controller) -> bytes:
    seq = ctl.seq  # numbered as the controller's next frame: the worst case
    phantom = [(rng.choice(INSIDE), bytes((4, 0xEE)) + rng.randbytes(5)) for _ in range(rng.randint(0, 3))]
    outside = [(loc, bytes((4, 0xEF)) + rng.randbytes(5)) for loc in rng.sample(OUTSIDE, rng.randint(1, 2))]
    tags = list({loc: uid for loc, uid in phantom + outside}.items())
    rng.shuffle(tags)
    kind = rng.randrange(8)
    if kind == 0:
        return raw(FrameType.SNAPSHOT, seq, tag_payload(ctl.sweep, tags))
    if kind == 1:
        return raw(FrameType.CHANGES, seq, tag_payload(ctl.sweep, tags))
    if kind == 2:  # a type this host does not know
        return raw(rng.randrange(0x08, 0x80), seq, rng.randbytes(rng.randrange(0, 40)))
    if kind == 3:  # a length field that lies
        payload = tag_payload(ctl.sweep, phantom)
        return raw(FrameType.SNAPSHOT, seq, payload, length=len(payload) + rng.choice((-2, -1, 1, 3)))
    if kind == 4:  # a length over 4096, the CRC right
        size = rng.randint(4097, 4115)
        payload = tag_payload(ctl.sweep, phantom)
        return raw(FrameType.SNAPSHOT, seq, payload + bytes(size - len(payload)))
    if kind == 5:  # a mid-stream HELLO
        return raw(FrameType.HELLO, seq, encode_payload(rng.choice(OTHER_HELLOS)))
    if kind == 6:  # a HEARTBEAT of another boot (or, from a 1.0 controller, an uptime gone back)
        boot = rng.getrandbits(32) if ctl.boot_ids else None
        return raw(FrameType.HEARTBEAT, seq, encode_payload(Heartbeat(ctl.sweep, rng.randrange(1000), 180, 0, boot)))
    return rng.randbytes(rng.randrange(1, 60))  # noise, zeros included


@pytest.mark.parametrize("boot_ids", [False, True], ids=["controller-1.0", "controller-1.1"])
def test_forged_frames_never_make_a_phantom_tile_and_the_link_always_resyncs(boot_ids: bool) -> None:
    rng = random.Random(SEED)
    ctl = Controller(rng, boot_ids)
    link = BoardLink(scan=SCAN)
    stab = Stabiliser()
    figures = Figures()
    now = 0.0
    link.reset(now)
    pending = ctl.answer(link.outgoing())
    ctl.note()
    out_of_sync_since: float | None = now
    rebooted_at: float | None = None

    def check(events: list[object]) -> None:
        nonlocal out_of_sync_since
        for e in events:
            if not isinstance(e, SnapshotReceived):
                continue
            truth = set(ctl.history.get(e.snapshot.sweep, {}).items())
            seen = set(e.snapshot.tags.items())
            figures.phantoms += len(seen - truth)
            figures.lost += len(truth - seen)
            stab.update(e.snapshot, now)
            figures.stable_phantoms += len(set(stab.stable.tags.items()) - ctl.ever)

    quiet_from = STEPS - 200  # the last 10 s: no forgery, no restart
    for step in range(STEPS):
        now = step * DT
        ctl.uptime_ms = ctl.uptime_ms + int(DT * 1000)
        data = pending
        forging = step < quiet_from
        if forging and rng.random() < 0.002:
            figures.reboots += 1
            if rebooted_at is not None:
                figures.reboots -= 1  # (one not yet followed by the scan settings: restarting again proves nothing)
            rebooted_at = now
            data += ctl.reboot()
        if rng.random() < 0.3:
            data += ctl.move()
        if step % 10 == 0:
            data += ctl.heartbeat()
        if step % 20 == 0:
            data += ctl.snapshot()
        if forging and rng.random() < 0.35:
            figures.forged += 1
            data += forgery(rng, ctl)
        if forging and rng.random() < 0.05:  # an honest frame with bytes appended (ignored)
            payload = tag_payload(ctl.sweep, sorted(ctl.board.items())) + rng.randbytes(rng.randint(1, 8))
            data += raw(FrameType.SNAPSHOT, ctl.seq, payload)
            ctl.seq = (ctl.seq + 1) & 0xFFFF
        before = link.state
        events = link.feed(data, now) + link.tick(now)
        check(events)
        after = link.state
        if before is LinkState.SYNCED and after is not LinkState.SYNCED:
            figures.desyncs += 1
            out_of_sync_since = now
        if after is LinkState.SYNCED and out_of_sync_since is not None:
            figures.recoveries += 1
            figures.longest_recovery = max(figures.longest_recovery, now - out_of_sync_since)
            out_of_sync_since = None
        pending = ctl.answer(link.outgoing())
        if rebooted_at is not None and ctl.scan == SCAN:
            figures.rescanned += 1
            figures.longest_rescan = max(figures.longest_rescan, now - rebooted_at)
            rebooted_at = None
    figures.frames = link.stats.frames
    print(f"\nboard link fuzz (seed {SEED}, boot ids {boot_ids}): {figures}\n{link.stats}")  # (pytest -s shows it)

    assert figures.frames >= 3000 and figures.forged >= 1000
    assert figures.phantoms == 0 and figures.lost == 0 and figures.stable_phantoms == 0
    assert figures.recoveries >= figures.desyncs >= 100
    # A refused HELLO costs its 3 s retry; forged ones come every ~2.5 s here, so a few chain.
    assert figures.longest_recovery <= 15.0
    # In the end: in sync, the host's board the controller's, the scan settings re-sent after restarts.
    assert link.state is LinkState.SYNCED and link.board == BoardSnapshot(ctl.board)
    assert figures.reboots > 0 and ctl.scan == SCAN
    assert figures.rescanned == figures.reboots and rebooted_at is None  # every restart was seen and set up again
    assert link.stats.reboots >= figures.reboots
    stats = link.stats
    assert stats.outside_geometry > 0 and stats.unknown_types > 0 and stats.malformed > 0 and stats.refusals > 0
    assert stats.geometry_changes > 0
