"""The simulated board's commands, typed: parsed once from their text, written back the same.

One command a line, its words separated by blanks, ``#`` starts a comment. The same
language serves the board scripts (:mod:`scoreboard.sim.script`, a time in front), the
control socket's requests (:mod:`scoreboard.sim.control`) and the board lines of the table
scripts (:mod:`scoreboard.table_script`)::

    place H8 04A1B2C3D4E5F6      Place: the tag put on H8 (lifted from wherever it lay)
    remove H8                    Remove: the tag lifted off H8
    move R1.3 I8                 Move: lifted and put down elsewhere
    slide H8 I8 0.1              Slide: on both for 0.1 s (the default), then on I8
    flicker H8 0.5               Flicker: missed on half the reads (0 stops; 'alternate')
    junk H8 0.2                  Junk: a garbled UID on a fifth of the reads (0 stops)
    garbage 20                   Garbage: 20 random bytes on the link
    corrupt 1                    Corrupt: the next frame goes out with a wrong CRC
    drop 1                       Drop: the next frame is not sent
    duplicate 2                  Duplicate: the next 2 frames are each sent twice
    reorder 1                    Reorder: the next 2 frames go out swapped (N: pairs)
    unplug 2.0                   Unplug: cable out for 2 s, then a new pty (board powered)
    unplug 2.0 reboot            the same, the controller restarting (USB powered)
    plug                         Plug: the cable back in now (an unplug cut short)
    reboot                       Reboot: the controller restarts (HELLO with seq 0)
    fault reader 3               Fault: reader 3 stops answering ('garbage': bad data)
    recover reader 3             Recover: its next reset brings it back
    exit                         Exit: stop the simulator

Locations: ``A1``-``O15``, rack slots ``R1.1``-``R4.9`` (rack and slot 1-based), held by
their names (:data:`Location`); UIDs are hex, 4, 7 or 10 bytes. :func:`parse_command`
gives the command, ``str(command)`` its text (names and hex in upper case, numbers as
short as they parse back): ``parse_command(str(c)) == c``. A line that is no command
raises :class:`CommandError`, which holds the line, its number and the :class:`Problem`.

Every number is bounded, so that no command can stop a simulator for good: a slide's
overlap at most :data:`MAX_SLIDE_S` (10 s), an unplug at most :data:`MAX_UNPLUG_S` (an
hour), ``garbage`` at most :data:`MAX_GARBAGE` bytes (128 KiB, twice what the board holds
for a slow host), the frame faults at most :data:`MAX_FRAMES` (10,000) frames, a script's
times at most :data:`MAX_SCRIPT_S` (6 hours). NaN and infinities are no numbers. Which
rack slots and readers a board has is its :class:`Geometry`'s to say (:meth:`Geometry.check`).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, NewType

from engine.errors import ScoreboardError
from firmware import frames as F
from firmware.scanner import row_layout

__all__ = [
    "MAX_FRAMES", "MAX_GARBAGE", "MAX_SCRIPT_S", "MAX_SLIDE_S", "MAX_UNPLUG_S",
    "Command", "CommandError", "Corrupt", "Drop", "Duplicate", "Exit", "Fault", "Flicker", "Garbage",
    "Geometry", "Junk", "Location", "Move", "Place", "Plug", "Problem", "Reboot", "Recover", "Remove", "Reorder", "Slide",
    "USAGE", "Unplug", "chance", "check_arity", "command_from_words", "count", "finite", "location",
    "number_text", "parse_command", "parse_uid", "seconds", "shown", "words_of",
]

Location = NewType("Location", str)
"""A location's name as the firmware writes it: ``H8``, ``R1.3`` (see :func:`location`)."""

FaultKind = Literal["dead", "garbage"]
ALTERNATE: Final = "alternate"
SLIDE_S = 0.1  # a slide's overlap when the command gives none

MAX_SLIDE_S: Final = 10.0
"""A slide's overlap: at most 10 s (a tile pushed across takes a fraction of a second)."""
MAX_UNPLUG_S: Final = 3600.0
"""An unplug: the cable out for at most an hour of the board's time."""
MAX_GARBAGE: Final = 1 << 17
"""``garbage``: at most 128 KiB, twice the bytes the board holds for a slow host (more are dropped)."""
MAX_FRAMES: Final = 10_000
"""``corrupt``, ``drop``, ``duplicate``, ``reorder``: at most 10,000 frames (or pairs) at once."""
MAX_SCRIPT_S: Final = 6 * 3600.0
"""A script's times (``at``, ``after``, its whole length): at most 6 hours since its start."""


class Problem(enum.Enum):
    """What is wrong with a line."""

    EMPTY = "empty"  # no command on it
    UNKNOWN = "unknown"  # no such command
    MISPLACED = "misplaced"  # a command that has no place here (a time on a control request)
    ARITY = "arity"  # too few or too many words
    LOCATION = "location"  # not A1-O15 or R1.1-R4.9
    UID = "uid"  # not hex, or not 4, 7 or 10 bytes
    NUMBER = "number"  # not a number, or out of its range
    WORD = "word"  # not the word expected there ('reader', 'reboot', 'dead|garbage' ...)
    TABLE = "table"  # not at this table: a rack slot, a reader, a button or a tile it lacks
    TILES = "tiles"  # not where the tiles are (a table script): a move from an empty location, a tile placed twice
    TOO_LONG = "too long"  # a line, a request or a script longer than its bound
    ENCODING = "encoding"  # not UTF-8


class CommandError(ScoreboardError, ValueError):
    """A line that is not a command: the :class:`Problem`, the reason, the line and its number.

    ``str()``: ``line 3: 'remove': remove takes 1 arguments, got 0`` (without ``line N: ``
    when the line has no number, only the reason while the line is not known yet).
    """

    def __init__(self, problem: Problem, reason: str, text: str | None = None, number: int | None = None) -> None:
        self.problem = problem
        self.reason = reason
        self.text = text
        self.number = number
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{shown(self.text)!r}: " if self.text is not None else ""
        if self.number is not None:
            where = f"line {self.number}: {where}"
        return where + self.reason

    def on(self, text: str, number: int | None = None) -> CommandError:
        """The same error, naming the line ``text`` (number ``number``)."""
        return type(self)(self.problem, self.reason, text, number)


def shown(text: str, most: int = 100) -> str:
    """``text``, or its start and its length when longer than ``most`` characters."""
    return text if len(text) <= most else f"{text[:most]}... ({len(text)} characters)"


# --- the commands --------------------------------------------------------------------------


def number_text(value: float) -> str:
    """``value`` as short as it parses back exactly (``2``, ``0.5``, ``0.30000000000000004``)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(value)


@dataclass(frozen=True)
class Place:
    """The tag ``uid`` put on ``loc``; it leaves wherever it was (already there: nothing)."""

    loc: Location
    uid: bytes

    def __str__(self) -> str:
        return f"place {self.loc} {self.uid.hex().upper()}"


@dataclass(frozen=True)
class Remove:
    """The tag on ``loc`` lifted off (none there: nothing)."""

    loc: Location

    def __str__(self) -> str:
        return f"remove {self.loc}"


@dataclass(frozen=True)
class Move:
    """The tag on ``src`` lifted and put down on ``dst`` (none there: a warning)."""

    src: Location
    dst: Location

    def __str__(self) -> str:
        return f"move {self.src} {self.dst}"


@dataclass(frozen=True)
class Slide:
    """The tag on ``src`` answers on ``src`` and ``dst`` for ``seconds`` (None: 0.1), then on ``dst``."""

    src: Location
    dst: Location
    seconds: float | None = None

    @property
    def overlap_s(self) -> float:
        return SLIDE_S if self.seconds is None else self.seconds

    def __str__(self) -> str:
        tail = "" if self.seconds is None else f" {number_text(self.seconds)}"
        return f"slide {self.src} {self.dst}{tail}"


@dataclass(frozen=True)
class Flicker:
    """The tag on ``loc`` missed with probability ``chance`` (0 stops), or on every other read."""

    loc: Location
    chance: float | Literal["alternate"]

    def __str__(self) -> str:
        chance = self.chance if isinstance(self.chance, str) else number_text(self.chance)
        return f"flicker {self.loc} {chance}"


@dataclass(frozen=True)
class Junk:
    """A garbled UID read on ``loc`` with probability ``chance`` (0 stops)."""

    loc: Location
    chance: float

    def __str__(self) -> str:
        return f"junk {self.loc} {number_text(self.chance)}"


@dataclass(frozen=True)
class Garbage:
    """``count`` random bytes on the link."""

    count: int

    def __str__(self) -> str:
        return f"garbage {self.count}"


@dataclass(frozen=True)
class Corrupt:
    """The next ``count`` frames go out with a wrong CRC."""

    count: int

    def __str__(self) -> str:
        return f"corrupt {self.count}"


@dataclass(frozen=True)
class Drop:
    """The next ``count`` frames are not sent."""

    count: int

    def __str__(self) -> str:
        return f"drop {self.count}"


@dataclass(frozen=True)
class Duplicate:
    """The next ``count`` frames are each sent twice."""

    count: int

    def __str__(self) -> str:
        return f"duplicate {self.count}"


@dataclass(frozen=True)
class Reorder:
    """The next ``count`` pairs of frames go out swapped."""

    count: int

    def __str__(self) -> str:
        return f"reorder {self.count}"


@dataclass(frozen=True)
class Unplug:
    """The cable out for ``seconds``, then a new pty; ``reboot``: the controller restarts."""

    seconds: float
    reboot: bool = False

    def __str__(self) -> str:
        return f"unplug {number_text(self.seconds)}" + (" reboot" if self.reboot else "")


@dataclass(frozen=True)
class Plug:
    """The cable back in now, ending an unplug before its time (plugged in already: nothing);
    the controller restarts if that unplug said ``reboot``."""

    def __str__(self) -> str:
        return "plug"


@dataclass(frozen=True)
class Reboot:
    """The controller restarts: HELLO with seq 0, the board read afresh."""

    def __str__(self) -> str:
        return "reboot"


@dataclass(frozen=True)
class Fault:
    """Reader ``reader`` stops answering (``kind`` None or 'dead'), or answers garbage."""

    reader: int
    kind: FaultKind | None = None

    def __str__(self) -> str:
        return f"fault reader {self.reader}" + (f" {self.kind}" if self.kind else "")


@dataclass(frozen=True)
class Recover:
    """The next reset of reader ``reader`` brings it back."""

    reader: int

    def __str__(self) -> str:
        return f"recover reader {self.reader}"


@dataclass(frozen=True)
class Exit:
    """Stop the simulator."""

    def __str__(self) -> str:
        return "exit"


Command = (Place | Remove | Move | Slide | Flicker | Junk | Garbage | Corrupt | Drop | Duplicate | Reorder
           | Unplug | Plug | Reboot | Fault | Recover | Exit)


@dataclass(frozen=True)
class Geometry:
    """A simulated board's shape: ``racks`` racks of ``slots`` slots, readers 0 to ``readers - 1``."""

    racks: int = 4
    slots: int = 7
    readers: int = 19

    @classmethod
    def of(cls, racks: int, slots: int) -> Geometry:
        """The shape of the simulated board (its reference layout) with these racks."""
        return cls(racks, slots, len(row_layout(racks, slots).readers))

    def check(self, command: Command) -> None:
        """Raise :class:`CommandError` (``TABLE``) when ``command`` names a slot or reader not here."""
        for loc in _locations(command):
            if loc.startswith("R"):
                rack, _, slot = loc[1:].partition(".")
                if int(rack) > self.racks or int(slot) > self.slots:
                    raise CommandError(
                        Problem.TABLE, f"no {loc} on this board: racks R1-R{self.racks} of slots 1-{self.slots}")
        if isinstance(command, (Fault, Recover)) and command.reader >= self.readers:
            raise CommandError(
                Problem.TABLE, f"no reader {command.reader} on this board: readers 0-{self.readers - 1}")


def _locations(command: Command) -> tuple[Location, ...]:
    match command:
        case Place(loc) | Remove(loc) | Flicker(loc) | Junk(loc):
            return (loc,)
        case Move(src, dst) | Slide(src, dst):
            return (src, dst)
        case _:
            return ()


# --- the words -------------------------------------------------------------------------------


def location(text: str) -> Location:
    """The location ``text`` names (``h8``, ``r1.3``), by its canonical name (``H8``, ``R1.3``)."""
    try:
        return Location(str(F.loc_name(F.parse_loc(text))))
    except F.FrameError as e:
        reason = str(e) if len(text) <= 100 else f"not a location: {shown(text)!r}"
        raise CommandError(Problem.LOCATION, reason) from None


def parse_uid(text: str) -> bytes:
    """A UID from hex (``04A1B2C3D4E5F6``); 4, 7 or 10 bytes."""
    try:
        uid = bytes.fromhex(text)
    except ValueError:
        raise CommandError(Problem.UID, f"not a hex UID: {shown(text)!r}") from None
    if len(uid) not in (4, 7, 10):
        raise CommandError(Problem.UID, f"a UID has 4, 7 or 10 bytes, {shown(text)!r} has {len(uid)}")
    return uid


def finite(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        raise CommandError(Problem.NUMBER, f"not a number: {shown(text)!r}") from None
    if not math.isfinite(value):
        raise CommandError(Problem.NUMBER, f"a finite number, not {shown(text)!r}")
    return value


def seconds(text: str, most: float | None = None) -> float:
    """A time in seconds, 0 or more (and ``most`` at the most)."""
    value = finite(text)
    if value < 0:
        raise CommandError(Problem.NUMBER, f"a time of 0 or more, not {shown(text)!r}")
    if most is not None and value > most:
        raise CommandError(Problem.NUMBER, f"a time of at most {most:g} s, not {shown(text)!r}")
    return value


def chance(text: str) -> float:
    """A probability from 0 to 1."""
    value = finite(text)
    if not 0 <= value <= 1:
        raise CommandError(Problem.NUMBER, f"a probability from 0 to 1, not {shown(text)!r}")
    return value


def count(text: str, most: int | None = None) -> int:
    """A whole number, 0 or more (and ``most`` at the most)."""
    value = _whole(text)
    if value < 0:
        raise CommandError(Problem.NUMBER, f"a count of 0 or more, not {shown(text)!r}")
    if most is not None and value > most:
        raise CommandError(Problem.NUMBER, f"a count of at most {most}, not {shown(text)!r}")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        if text.lstrip("+-").isdigit():  # more digits than int() takes
            raise CommandError(Problem.NUMBER, f"a number of {len(text)} characters: too large") from None
        raise CommandError(Problem.NUMBER, f"not a whole number: {shown(text)!r}") from None


def _word(text: str, *choices: str, usage: str) -> str:
    if text.lower() not in choices:
        raise CommandError(Problem.WORD, f"{usage}, not {shown(text)!r}")
    return text.lower()


def check_arity(name: str, args: Sequence[str], low: int, high: int) -> None:
    """``name`` takes ``low`` to ``high`` arguments: raise the ARITY error otherwise."""
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low}-{high}"
        raise CommandError(Problem.ARITY, f"{name} takes {want} arguments, got {len(args)}")


def _reader(a: Sequence[str], name: str) -> int:
    _word(a[0], "reader", usage=f"{name} reader N")
    return count(a[1])


def _flicker(a: Sequence[str]) -> Flicker:
    loc = location(a[0])
    return Flicker(loc, ALTERNATE) if a[1].lower() == ALTERNATE else Flicker(loc, chance(a[1]))


def _fault(a: Sequence[str]) -> Fault:
    reader = _reader(a, "fault")
    if len(a) == 2:
        return Fault(reader)
    kind = _word(a[2], "dead", "garbage", usage="fault reader N [dead|garbage]")
    return Fault(reader, "garbage" if kind == "garbage" else "dead")


def _unplug(a: Sequence[str]) -> Unplug:
    time = seconds(a[0], MAX_UNPLUG_S)
    if len(a) == 2:
        _word(a[1], "reboot", usage="unplug SECONDS [reboot]")
    return Unplug(time, reboot=len(a) == 2)


_SYNTAX: dict[str, tuple[str, Callable[[Sequence[str]], Command]]] = {
    "place": ("place LOC UID", lambda a: Place(location(a[0]), parse_uid(a[1]))),
    "remove": ("remove LOC", lambda a: Remove(location(a[0]))),
    "move": ("move SRC DST", lambda a: Move(location(a[0]), location(a[1]))),
    "slide": ("slide SRC DST [SECONDS]",
              lambda a: Slide(location(a[0]), location(a[1]), seconds(a[2], MAX_SLIDE_S) if len(a) == 3 else None)),
    "flicker": ("flicker LOC CHANCE|alternate", _flicker),
    "junk": ("junk LOC CHANCE", lambda a: Junk(location(a[0]), chance(a[1]))),
    "garbage": ("garbage BYTES", lambda a: Garbage(count(a[0], MAX_GARBAGE))),
    "corrupt": ("corrupt FRAMES", lambda a: Corrupt(count(a[0], MAX_FRAMES))),
    "drop": ("drop FRAMES", lambda a: Drop(count(a[0], MAX_FRAMES))),
    "duplicate": ("duplicate FRAMES", lambda a: Duplicate(count(a[0], MAX_FRAMES))),
    "reorder": ("reorder PAIRS", lambda a: Reorder(count(a[0], MAX_FRAMES))),
    "unplug": ("unplug SECONDS [reboot]", _unplug),
    "plug": ("plug", lambda a: Plug()),
    "reboot": ("reboot", lambda a: Reboot()),
    "fault": ("fault reader N [dead|garbage]", _fault),
    "recover": ("recover reader N", lambda a: Recover(_reader(a, "recover"))),
    "exit": ("exit", lambda a: Exit()),
}

USAGE: Mapping[str, str] = {name: usage for name, (usage, _) in _SYNTAX.items()}
"""Every command's name and its usage line (``"slide": "slide SRC DST [SECONDS]"``)."""


def _arity(usage: str) -> tuple[int, int]:
    words = usage.split()[1:]
    return sum(not w.startswith("[") for w in words), len(words)


_ARITY = {name: _arity(usage) for name, usage in USAGE.items()}


def words_of(text: str) -> list[str]:
    """The words of a line, its comment left out."""
    return text.split("#", 1)[0].split()


def command_from_words(words: Sequence[str]) -> Command:
    """The command ``words`` say, the first its name (any case); :class:`CommandError` without the line."""
    if not words:
        raise CommandError(Problem.EMPTY, "no command")
    name, args = words[0].lower(), words[1:]
    if name not in _SYNTAX:
        raise CommandError(Problem.UNKNOWN, f"unknown command {shown(name)!r} (known: {', '.join(sorted(_SYNTAX))})")
    check_arity(name, args, *_ARITY[name])
    return _SYNTAX[name][1](args)


def parse_command(text: str, number: int | None = None) -> Command:
    """The command on the line ``text`` (a comment allowed); :class:`CommandError` names the line."""
    try:
        return command_from_words(words_of(text))
    except CommandError as e:
        raise e.on(text.strip(), number) from None
