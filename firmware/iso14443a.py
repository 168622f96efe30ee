"""ISO/IEC 14443-3 type A activation, independent of the reader chip.

:class:`Select` is the anticollision and select sequence of one reader as a state
machine: the caller sends each frame it hands out and feeds back the answer (or None
after a time-out), so one CPU can drive many readers at once. NTAG213 stickers have
7-byte UIDs: cascade level 1 answers ``88 UID0 UID1 UID2 BCC`` (0x88 is the cascade tag,
not part of the UID) and SAK with the cascade bit, level 2 answers ``UID3..UID6 BCC``.
A reader that stopped at level 1 would report ``88 04 ..``; this one goes on to level 2
(and 3 for 10-byte UIDs) and returns only the real UID.
"""

WUPA = 0x52  # wakes IDLE and HALT tags (REQA, 0x26, would miss a halted one)
REQA = 0x26
SEL_CL = (0x93, 0x95, 0x97)
NVB_ANTICOLL = 0x20
NVB_SELECT = 0x70
CASCADE_TAG = 0x88
SAK_CASCADE = 0x04

_WUPA = 0
_ANTICOLL = 1
_SELECT = 2


class BadRead(Exception):
    """An answer that makes no sense: wrong length, BCC or CRC_A, a collision.

    A tag half on the antenna, a neighbouring reader's field or two tags on one cell
    give these. The read tells nothing about the cell; it is neither a tag nor empty.
    """


def crc_a(data):
    """CRC_A of ISO/IEC 14443-3 (initial 0x6363, reflected polynomial 0x8408)."""
    crc = 0x6363
    for b in data:
        b = (b ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return crc & 0xFFFF


def with_crc(data):
    """``data`` followed by its CRC_A, low byte first."""
    crc = crc_a(data)
    return bytes(data) + bytes((crc & 0xFF, crc >> 8))


def crc_ok(frame):
    """True when the last two bytes of ``frame`` are the CRC_A of the others."""
    if len(frame) < 3:
        return False
    crc = crc_a(frame[:-2])
    return frame[-2] == crc & 0xFF and frame[-1] == crc >> 8


def cascade1(uid):
    """What cascade level 1 anticollision returns for ``uid`` (without the BCC)."""
    if len(uid) == 4:
        return bytes(uid)
    return bytes((CASCADE_TAG,)) + bytes(uid[:3])


class Select:
    """One tag activation: WUPA, then anticollision and select per cascade level.

    With ``known`` (the UID last read there), a tag whose level-1 answer matches it is
    taken as that tag without the remaining exchanges: a cheap presence check that
    verifies the first three UID bytes (all four of a 4-byte UID). The scanner still
    does a full select every few visits and whenever the reading changes.

    ``first()`` gives the first frame as ``(bytes, tx_last_bits)`` (7 bits for the short
    WUPA frame, 0 for whole bytes). ``answer(response)`` takes the tag's answer (None
    after a time-out) and returns the next frame, or None when done: then ``uid`` holds
    the UID, or None when no tag answered the WUPA (an empty cell). A nonsensical
    answer raises :class:`BadRead`.
    """

    def __init__(self, known=None):
        self.known = known
        self.confirmed = False
        self.stage = _WUPA
        self.level = 0
        self.uid = None
        self._uid = bytearray()
        self._clevel = b""

    def first(self):
        """The first frame to send: WUPA, 7 bits."""
        self.stage = _WUPA
        self.level = 0
        self.uid = None
        self.confirmed = False
        self._uid = bytearray()
        return bytes((WUPA,)), 7

    def answer(self, response):
        """The next frame to send, or None when finished (see the class doc)."""
        if self.stage == _WUPA:
            if response is None:
                return None  # nobody home: an empty cell
            if len(response) != 2:
                raise BadRead("ATQA of %d bytes" % len(response))
            return self._anticoll()
        if response is None:
            raise BadRead("no answer at cascade level %d" % (self.level + 1))
        if self.stage == _ANTICOLL:
            if len(response) != 5:
                raise BadRead("anticollision answer of %d bytes" % len(response))
            if response[0] ^ response[1] ^ response[2] ^ response[3] != response[4]:
                raise BadRead("BCC mismatch at cascade level %d" % (self.level + 1))
            self._clevel = bytes(response)
            known = self.known
            if self.level == 0 and known is not None and self._clevel[:4] == cascade1(known):
                self.uid = bytes(known)
                self.confirmed = True
                return None
            self.stage = _SELECT
            return with_crc(bytes((SEL_CL[self.level], NVB_SELECT)) + self._clevel), 0
        # _SELECT: SAK and its CRC_A
        if len(response) != 3 or not crc_ok(response):
            raise BadRead("bad SAK at cascade level %d" % (self.level + 1))
        sak = response[0]
        clevel = self._clevel
        if sak & SAK_CASCADE:
            if clevel[0] != CASCADE_TAG:
                raise BadRead("SAK asks for another level without a cascade tag")
            self._uid.extend(clevel[1:4])
            self.level += 1
            if self.level >= len(SEL_CL):
                raise BadRead("more than three cascade levels")
            return self._anticoll()
        if clevel[0] == CASCADE_TAG:
            raise BadRead("cascade tag in the last level")
        self._uid.extend(clevel[0:4])
        self.uid = bytes(self._uid)
        return None

    def _anticoll(self):
        self.stage = _ANTICOLL
        return bytes((SEL_CL[self.level], NVB_ANTICOLL)), 0
