"""Faults on the simulated board's output: frames dropped, corrupted, sent twice or swapped.

The commands ``corrupt N``, ``drop N``, ``duplicate N`` and ``reorder N`` arm counters
(:meth:`OutputFaults.arm`); every frame the controller writes then goes through
:meth:`OutputFaults.send`, which spends them. ``garbage N`` takes its bytes from the same
seeded generator, so a seed replays the same faults.
"""

from __future__ import annotations

import random
from typing import assert_never

from firmware import frames as F
from scoreboard.sim.commands import Corrupt, Drop, Duplicate, Reorder

__all__ = ["OutputFaults", "corrupt_frame"]


def corrupt_frame(frame: bytes, rng: random.Random) -> bytes:
    """``frame`` with one bit of its CRC flipped, re-stuffed: a clean CRC error."""
    body = bytearray(F.cobs_decode(frame.strip(b"\x00")))
    body[-1 - rng.randrange(4)] ^= 1 << rng.randrange(8)
    return b"\x00" + bytes(F.cobs_encode(bytes(body))) + b"\x00"


class OutputFaults:
    """The faults armed on the output, and how many frames each one hit."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed ^ 0x5EED)
        self.sent = 0  # frames sent (a duplicated one twice)
        self.dropped = 0
        self.corrupted = 0
        self.duplicated = 0
        self.reordered = 0  # pairs sent swapped
        self._drop = 0
        self._corrupt = 0
        self._duplicate = 0
        self._reorder = 0
        self._held: bytes | None = None  # a reordered pair's first frame, sent after the second

    def arm(self, command: Corrupt | Drop | Duplicate | Reorder) -> None:
        """The next frames get the fault ``command`` asks for (on top of those armed)."""
        match command:
            case Corrupt(n):
                self._corrupt += n
            case Drop(n):
                self._drop += n
            case Duplicate(n):
                self._duplicate += n
            case Reorder(n):
                self._reorder += n
            case _:
                assert_never(command)

    def garbage(self, count: int) -> bytes:
        """``count`` random bytes."""
        return bytes(self.rng.randrange(256) for _ in range(count))

    def send(self, frame: bytes) -> bytes:
        """The bytes that go out for ``frame``: none, a bad copy, two copies, a swapped pair."""
        if self._drop > 0:
            self._drop -= 1
            self.dropped += 1
            return b""
        if self._corrupt > 0:
            self._corrupt -= 1
            self.corrupted += 1
            frame = corrupt_frame(frame, self.rng)
        if self._held is not None:  # the second of a reordered pair goes out first
            held, self._held = self._held, None
            self.reordered += 1
            return self._copies(frame) + self._copies(held)
        if self._reorder > 0:
            self._reorder -= 1
            self._held = frame
            return b""
        return self._copies(frame)

    def forget(self) -> int:
        """Nobody reads the output now: the held frame of a reordered pair is dropped; its bytes."""
        held, self._held = self._held, None
        return len(held or b"")

    def _copies(self, frame: bytes) -> bytes:
        copies = 1
        if self._duplicate > 0:
            self._duplicate -= 1
            self.duplicated += 1
            copies = 2
        self.sent += copies
        return frame * copies
