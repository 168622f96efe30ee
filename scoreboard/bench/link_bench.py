"""Board link benchmark: frames parsed and decoded per second on a fixed mix.

The mix: 10% full snapshots of a late-game board (60 tiles and two full racks of 7, 7-byte
UIDs), 70% change events (one or two locations), 20% heartbeats; 5% of all frames have one
bit flipped. The stream is fed in 4 KiB reads, as from a serial port; every good frame is
also decoded into its message.

- ``frames_per_s``: the best of 5 rounds (moves with the machine's load).
- ``frame_vs_crc32_ratio``: a frame parsed and decoded against ``zlib.crc32`` of its bytes
  (one call per frame), the median of the rounds' ratios: the load cancels out.
"""

from __future__ import annotations

import random
import statistics
import time
import zlib

from drivers.board.protocol import Changes, FrameParser, Heartbeat, Loc, Snapshot, decode_payload, encode

FRAMES = 20_000
CORRUPT = 0.05


def _uid(rng: random.Random) -> bytes:
    return b"\x04" + bytes(rng.randrange(1, 256) for _ in range(6))


def make_stream(seed: int = 1) -> tuple[bytes, int]:
    """The benchmark's byte stream and its number of frames."""
    frames = make_frames(seed)
    return b"".join(frames), len(frames)


def make_frames(seed: int = 1) -> list[bytes]:
    """The benchmark's frames as sent, one ``bytes`` each."""
    rng = random.Random(seed)
    cells = rng.sample(range(225), 60)
    board = tuple((Loc.cell_index(c), _uid(rng)) for c in sorted(cells))
    racks = tuple((Loc.slot(r, s), _uid(rng)) for r in range(2) for s in range(7))
    snapshot_tags = board + racks
    out: list[bytes] = []
    for seq in range(FRAMES):
        roll = rng.random()
        if roll < 0.10:
            msg: object = Snapshot(seq, snapshot_tags)
        elif roll < 0.80:
            n = rng.choice((1, 1, 2))
            msg = Changes(seq, tuple((Loc.cell_index(c), _uid(rng)) for c in rng.sample(range(225), n)))
        else:
            msg = Heartbeat(seq, seq * 50, 180, 0)
        wire = bytearray(encode(msg, seq))  # type: ignore[arg-type]
        if rng.random() < CORRUPT:
            i = rng.randrange(1, len(wire) - 1)
            wire[i] ^= 1 << rng.randrange(8)
        out.append(bytes(wire))
    return out


def run() -> dict[str, float]:
    """Frames per second through FrameParser and decode_payload, and against the bare
    CRC-32 of each frame's bytes (``zlib.crc32``), rounds alternating."""
    frames = make_frames()
    stream, count = b"".join(frames), len(frames)
    best = 0.0
    ratios = []
    for _ in range(5):
        parser = FrameParser()
        t0 = time.perf_counter()
        for i in range(0, len(stream), 4096):
            for frame in parser.feed(stream[i:i + 4096]):
                decode_payload(frame.type, frame.payload)
        elapsed = time.perf_counter() - t0
        t1 = time.perf_counter()
        for wire in frames:
            zlib.crc32(wire)
        crc = time.perf_counter() - t1
        best = max(best, count / elapsed)
        ratios.append(elapsed / crc)
    return {
        "frames_per_s": best,
        "frames_dropped_pct": 100.0 * (count - parser.stats.frames) / count,
        "frame_vs_crc32_ratio": statistics.median(ratios),
    }
