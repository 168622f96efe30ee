"""ISO/IEC 14443 type A tags (NTAG213-like) and the air timing at 106 kbit/s.

Written from ISO/IEC 14443-3 and the NTAG213 datasheet, not from the firmware: the CRC_A,
the cascade levels and the state machine are implemented here on their own, so the
firmware's ``iso14443a`` is checked against them, not against itself.

A tag is powered only while a reader's transmitter is on and the antenna under it is
selected (the board decides that); it answers only once it has been in the field for its
``powerup_us``, counted to the start of the reader's frame, and it loses its state
whenever the field goes away.
"""

from __future__ import annotations

FC_MHZ = 13.56
BIT_US = 128 / FC_MHZ  # one bit at 106 kbit/s: 9.44 us
FDT_US = 1236 / FC_MHZ  # frame delay time, the end of the reader's frame to the tag's answer: 91 us

REQA = 0x26
WUPA = 0x52
SEL = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88

IDLE = "IDLE"
READY = "READY"
ACTIVE = "ACTIVE"
HALT = "HALT"


def crc_a(data: bytes) -> bytes:
    """CRC_A (ISO/IEC 14443-3 annex B), bit by bit: initial 0x6363, polynomial x^16+x^12+x^5+1
    reflected; the two bytes low first."""
    crc = 0x6363
    for byte in data:
        for bit in range(8):
            mix = (crc ^ (byte >> bit)) & 1
            crc >>= 1
            if mix:
                crc ^= 0x8408
    return bytes((crc & 0xFF, crc >> 8))


def reader_frame_us(nbytes: int, last_bits: int) -> float:
    """A reader frame on air: the short frame (7 bits) or standard frames with parity."""
    if nbytes == 1 and last_bits == 7:
        return (1 + 7 + 1) * BIT_US  # SOF, 7 bits, EOF
    bits = 9 * nbytes if last_bits == 0 else 9 * (nbytes - 1) + last_bits
    return (1 + bits + 1) * BIT_US


def tag_frame_us(nbytes: int) -> float:
    """A tag's answer on air: SOF, 9 bits a byte, EOF."""
    return (1 + 9 * nbytes + 1) * BIT_US


class Tag:
    """One tag: its UID (4, 7 or 10 bytes), ATQA, final SAK and power-up time.

    ``min_coil_ma``: the weakest coil current (mA rms) that powers it where it lies: its
    coupling to the coil under it, higher for a tag further away (the board turns the
    reader's conductance registers into a coil current: ``board.coil_current_ma``)."""

    def __init__(self, uid: bytes, powerup_us: int = 200, sak: int = 0x00, min_coil_ma: float = 0.0) -> None:
        if len(uid) not in (4, 7, 10):
            raise ValueError("a UID has 4, 7 or 10 bytes")
        self.uid = bytes(uid)
        self.powerup_us = powerup_us
        self.min_coil_ma = min_coil_ma
        self.sak = sak
        size = {4: 0, 7: 1, 10: 2}[len(uid)]
        self.atqa = bytes((0x04 | size << 6, 0x00))  # NTAG213: 0x0044
        self.levels = self._levels()
        self.state = IDLE
        self.level = 0
        self.powered_since: int | None = None
        self.answers = 0  # frames answered since placed
        self.early = 0  # frames that came before the tag had powered up

    def _levels(self) -> list[bytes]:
        uid = self.uid
        if len(uid) == 4:
            parts = [uid]
        elif len(uid) == 7:
            parts = [bytes((CASCADE_TAG,)) + uid[:3], uid[3:]]
        else:
            parts = [bytes((CASCADE_TAG,)) + uid[:3], bytes((CASCADE_TAG,)) + uid[3:6], uid[6:]]
        return [p + bytes((p[0] ^ p[1] ^ p[2] ^ p[3],)) for p in parts]  # with the BCC

    def power(self, on: bool, now: int) -> None:
        """The field reaches the tag (``on``) or leaves it: every state is lost without it."""
        if on and self.powered_since is None:
            self.powered_since = now
            self.state = IDLE
            self.level = 0
        elif not on:
            self.powered_since = None
            self.state = IDLE
            self.level = 0

    def hears(self, start_us: int) -> bool:
        """True when the tag is powered up at ``start_us`` (the start of a reader frame)."""
        if self.powered_since is None:
            return False
        if start_us - self.powered_since < self.powerup_us:
            self.early += 1
            return False
        return True

    def receive(self, frame: bytes, last_bits: int) -> bytes | None:
        """The tag's answer to one reader frame (None: silence), per ISO 14443-3's states."""
        answer = self._receive(frame, last_bits)
        if answer is not None:
            self.answers += 1
        return answer

    def _receive(self, frame: bytes, last_bits: int) -> bytes | None:
        if len(frame) == 1 and last_bits == 7:  # a short frame: REQA or WUPA
            cmd = frame[0] & 0x7F
            if cmd == WUPA and self.state in (IDLE, HALT) or cmd == REQA and self.state == IDLE:
                self.state, self.level = READY, 0
                return self.atqa
            self._error()
            return None
        if self.state != READY or last_bits not in (0, 8) or len(frame) < 2:
            self._error()
            return None
        if frame[0] != SEL[self.level]:
            self._error()
            return None
        nvb = frame[1]
        cl = self.levels[self.level]
        if nvb == 0x20 and len(frame) == 2:  # anticollision, nothing known yet: the whole level
            return cl
        if nvb == 0x70 and len(frame) == 9 and crc_a(frame[:7]) == frame[7:9] and frame[2:7] == cl:
            if self.level + 1 < len(self.levels):
                self.level += 1
                sak = 0x04  # cascade bit: the UID is not complete
            else:
                self.state = ACTIVE
                sak = self.sak
            return bytes((sak,)) + crc_a(bytes((sak,)))
        self._error()
        return None

    def _error(self) -> None:
        """Any frame a state does not expect sends the tag back to IDLE (HALT stays HALT)."""
        if self.state != HALT:
            self.state = IDLE
            self.level = 0
