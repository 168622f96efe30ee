"""Scripts of a whole table for ``scoreboard run --simulate --script FILE``.

One command a line, ``#`` starts a comment. A line happens right after the one before it
(a press takes its time), or ``after SECONDS`` later, or ``at SECONDS`` since the start::

    place H8 E.0            # the board: a tile (LETTER.COPY of the simulated set, or a hex UID)
    place R1.3 H.0          # rack slots R<rack>.<slot>
    remove H8
    move R1.3 H8
    after 0.6 press 1 done  # seat 1's Done, a short press
    press 2 challenge long  # a long press (2.1 s)
    hold 1 done 0.8         # held 0.8 s
    press menu              # the shared Menu/Pause button
    after 21 tick           # let time pass
    unplug 2.0              # board faults, as in the simulate-board script language
    end                     # stop

Board commands are those of :mod:`scoreboard.sim.commands` but ``exit`` (place, remove,
move, slide, flicker, junk, garbage, corrupt, drop, duplicate, reorder, unplug, plug, reboot,
fault, recover), parsed into typed commands here (:attr:`Line.board`; a ``place`` of a
``LETTER.COPY`` tile is resolved once the tile set is known, :meth:`Line.board_command`)
and sent to the simulated board's control socket; they are idempotent where a restarted
service may repeat them (a tag is placed where it already lies: nothing happens).

The whole script is checked before the game starts (:func:`check`, :func:`load`), against
the table (:class:`ScriptTable`: the configured tile set, seats and racks), where the tiles
lie (:class:`Positions`: no move or slide from an empty location, no tile placed where
another lies or while it lies elsewhere) and the bounds,
so that no line fails or hangs mid-game: a press or hold at most :data:`MAX_HOLD_S` (a
minute, past any stuck-button time), ``at``/``after`` and the whole script at most
:data:`~scoreboard.sim.commands.MAX_SCRIPT_S` (6 hours of table time), at most
:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes, UTF-8; the board commands' own bounds
are those of :mod:`scoreboard.sim.commands`, and their sum over the script is bounded too
(:data:`MAX_SCRIPT_GARBAGE` bytes of garbage, :data:`MAX_SCRIPT_FRAMES` faulted frames). A refused script names every bad line
(:class:`ScriptRefused`). Hex UIDs the tile set does not know are allowed: the service
reports them as unknown tiles, as it would at a real table.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeAlias

from drivers.buttons.logic import ButtonId, Role
from engine.errors import ScoreboardError
from engine.tiles import get_tile_set
from scoreboard.config import Config
from scoreboard.sim.commands import (
    MAX_SCRIPT_S,
    USAGE,
    Command,
    CommandError,
    Corrupt,
    Drop,
    Duplicate,
    Garbage,
    Geometry,
    Location,
    Move,
    Place,
    Problem,
    Remove,
    Reorder,
    Slide,
    check_arity,
    command_from_words,
    finite,
    location,
    parse_uid,
    seconds,
    shown,
    words_of,
)
from scoreboard.sim.tags import tile_uid

__all__ = [
    "MAX_BYTES", "MAX_HOLD_S", "MAX_LINES", "MAX_SCRIPT_FRAMES", "MAX_SCRIPT_GARBAGE", "End", "Line", "PlaceTile", "Press", "ScriptRefused", "ScriptTable",
    "Step", "TableScriptError", "Wait", "check", "load", "parse", "press_target", "resolve_tile",
]

LONG_S = 2.1
SHORT_S = 0.15
MAX_HOLD_S: Final = 60.0
"""A press or hold: at most a minute (a stuck button is reported after 10 s by default)."""
MAX_LINES: Final = 100_000
"""Lines in a table script (a long game takes a few thousand)."""
MAX_BYTES: Final = 4 << 20
"""Bytes in a table script file (4 MiB; more is not read)."""
MAX_SCRIPT_GARBAGE: Final = 4 << 20
"""``garbage`` bytes in a whole script (4 MiB: thirty-two of the largest bursts)."""
MAX_SCRIPT_FRAMES: Final = 100_000
"""Frames (or pairs) the frame faults of a whole script touch (ten of the largest)."""
MAX_SHOWN: Final = 20
"""Bad lines a refusal's message lists (:attr:`ScriptRefused.errors` has them all)."""


class TableScriptError(CommandError):
    """A script line that cannot be understood or played at this table (quoted with its
    number; the problem as data)."""


class ScriptRefused(ScoreboardError, ValueError):
    """A table script refused before the game: every bad line (:attr:`errors`, in line order)."""

    def __init__(self, errors: Sequence[TableScriptError], source: str | None = None) -> None:
        self.errors = tuple(errors)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        count = len(self.errors)
        head = f"{self.source}: " if self.source else ""
        shown = [str(e) for e in self.errors[:MAX_SHOWN]]
        if count > MAX_SHOWN:
            shown.append(f"... and {count - MAX_SHOWN} more")
        return f"{head}the script is refused, {count} bad line{'s' * (count != 1)}:\n  " + "\n  ".join(shown)


@dataclass(frozen=True)
class ScriptTable:
    """What a script is checked against: the tile set's name, the seats (each with its Done
    and Challenge, and the one Menu) and the simulated board's shape (a rack a seat)."""

    tile_set: str
    seats: int
    geometry: Geometry

    @classmethod
    def of(cls, config: Config) -> ScriptTable:
        """The table ``config`` sets up (its rules profile, its players)."""
        profile = config.rule_profile()
        seats = len(config.player_names())
        return cls(profile.tile_set.name, seats, Geometry.of(seats, profile.rack_size))

    def check(self, step: Step) -> None:
        """Raise :class:`CommandError` (``TABLE``) when ``step`` needs what this table lacks."""
        match step:
            case Press(seat=seat) if seat is not None and seat > self.seats:
                button = ButtonId(seat, step.role).name()
                raise CommandError(Problem.TABLE, f"no {button} at this table of {self.seats} seats")
            case PlaceTile():
                self.geometry.check(step.resolve(self.tile_set))
            case Press() | Wait() | End():
                pass
            case _:
                self.geometry.check(step)


class Positions:
    """Where a script's tiles lie, its board lines played in order on a board of the checker's
    own: a ``place`` puts a tile that lies nowhere on an empty location (or where it already
    lies: nothing, as a restarted service may repeat a line), ``move`` and ``slide`` take the
    tile from a location that holds one to an empty one, ``remove`` lifts whatever is there."""

    def __init__(self, tile_set: str) -> None:
        self.tile_set = tile_set
        self.on: dict[Location, tuple[bytes, str, int]] = {}  # location -> (tag, its name, line placed)
        self.at: dict[bytes, Location] = {}  # tag -> location

    def play(self, step: Step, number: int) -> None:
        """Apply ``step`` (line ``number``); :class:`CommandError` (``TILES``) when it does not
        fit where the tiles are."""
        match step:
            case PlaceTile():
                self.place(step.loc, step.resolve(self.tile_set).uid, f"{step.letter}.{step.copy}", number)
            case Place(loc, uid):
                self.place(loc, uid, uid.hex().upper(), number)
            case Remove(loc):
                tile = self.on.pop(loc, None)
                if tile is not None:
                    del self.at[tile[0]]
            case Move(src, dst) | Slide(src, dst):
                tile = self.on.get(src)
                if tile is None:
                    raise CommandError(Problem.TILES, f"no tile on {src} to {'move' if isinstance(step, Move) else 'slide'}")
                if src != dst:
                    self.free(dst)
                    del self.on[src]
                    self.on[dst] = tile
                    self.at[tile[0]] = dst
            case _:
                pass

    def place(self, loc: Location, uid: bytes, name: str, number: int) -> None:
        where = self.at.get(uid)
        if where == loc:
            return
        if where is not None:
            line = self.on[where][2]
            raise CommandError(Problem.TILES, f"{name} lies on {where} (line {line}): move it there, or remove it first")
        self.free(loc)
        self.on[loc] = (uid, name, number)
        self.at[uid] = loc

    def free(self, loc: Location) -> None:
        """Raise ``TILES`` when a tile lies on ``loc``."""
        tile = self.on.get(loc)
        if tile is not None:
            raise CommandError(Problem.TILES, f"{loc} holds {tile[1]} (line {tile[2]})")


@dataclass(frozen=True)
class PlaceTile:
    """``place LOC LETTER.COPY``: a tile of the simulated set, its tag known once the set is."""

    loc: Location
    letter: str
    copy: int

    def resolve(self, tile_set: str) -> Place:
        """The :class:`~scoreboard.sim.commands.Place` of this tile's tag in ``tile_set``."""
        return Place(self.loc, resolve_tile(f"{self.letter}.{self.copy}", tile_set))

    def __str__(self) -> str:
        return f"place {self.loc} {self.letter}.{self.copy}"


@dataclass(frozen=True)
class Press:
    """``press``/``hold``: a button held ``seconds`` (``seat`` 1-4, None for the shared Menu)."""

    seat: int | None
    role: Role
    seconds: float


@dataclass(frozen=True)
class Wait:
    """``tick``: nothing but the time before the line passes."""


@dataclass(frozen=True)
class End:
    """``end``: the script stops."""


Step: TypeAlias = Press | Wait | End | Command | PlaceTile
"""What a line does, parsed once."""


@dataclass(frozen=True)
class Line:
    """One command, ``step``: ``wait`` seconds after the previous line (``at``: absolute instead).

    ``action`` and ``args`` are its words as written, ``text`` the whole line.
    """

    number: int
    action: str
    args: tuple[str, ...]
    wait: float = 0.0
    at: float | None = None
    text: str = ""
    step: Step = Wait()

    @property
    def board(self) -> Command | PlaceTile | None:
        """The board command of a board line (None for a press, a hold, a tick, the end)."""
        return None if isinstance(self.step, (Press, Wait, End)) else self.step

    def board_command(self, tile_set: str) -> Command:
        """The board command of this line, a ``LETTER.COPY`` tile taken from ``tile_set``."""
        try:
            if self.board is None:
                raise CommandError(Problem.UNKNOWN, f"{self.action!r} is not a board command")
            if isinstance(self.board, PlaceTile):
                return self.board.resolve(tile_set)
            return self.board
        except CommandError as e:
            raise TableScriptError(e.problem, e.reason, self.text, self.number) from None


_ROLES = {"done": Role.DONE, "challenge": Role.CHALLENGE, "menu": Role.MENU}


def press_target(args: tuple[str, ...]) -> tuple[int | None, Role, float]:
    """(seat, role, seconds held) of a ``press`` or ``hold`` line's arguments."""
    if args and args[0] == "menu":
        seat, role, rest = None, Role.MENU, args[1:]
    else:
        if len(args) < 2 or args[1] not in ("done", "challenge"):
            raise CommandError(Problem.WORD, "press SEAT done|challenge [long], or press menu [long]")
        if not _is_number(args[0]) or not 1 <= int(args[0]) <= 4:
            raise CommandError(Problem.NUMBER, f"a seat from 1 to 4, not {shown(args[0])!r}")
        seat, role, rest = int(args[0]), _ROLES[args[1]], args[2:]
    if not rest:
        return seat, role, SHORT_S
    if rest == ("long",):
        return seat, role, LONG_S
    if len(rest) == 1:
        held = finite(rest[0])
        if not 0 < held <= MAX_HOLD_S:
            reason = f"a hold of more than 0 s and at most {MAX_HOLD_S:g} s, not {shown(rest[0])!r}"
            raise CommandError(Problem.NUMBER, reason)
        return seat, role, held
    raise CommandError(Problem.ARITY, f"unexpected {' '.join(rest)!r}")


def resolve_tile(text: str, tile_set: str) -> bytes:
    """A tag UID from hex, or ``LETTER.COPY`` of the simulated tile set (``E.0``, ``?.1``)."""
    if "." in text:
        letter, _, copy = text.rpartition(".")
        ts = get_tile_set(tile_set)
        letter = letter.upper()
        if letter not in ts.counts or not _is_number(copy) or int(copy) >= ts.counts[letter]:
            n = ts.counts.get(letter, 0)
            has = f"it has {letter}.0 to {letter}.{n - 1}" if n else f"it has no {letter!r}"
            raise CommandError(Problem.UID, f"no tile {shown(text)!r} in the {ts.name} set: {has}")
        return tile_uid(letter, int(copy), ts.name)
    return parse_uid(text)


def _is_number(text: str) -> bool:
    """Digits, few enough for ``int`` (a tile's copy, a seat)."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def _board(words: list[str]) -> Command | PlaceTile:
    """The board command ``words`` say (``place LOC LETTER.COPY`` too)."""
    if words[0].lower() == "place" and len(words) == 3 and "." in words[2]:
        loc = location(words[1])
        letter, _, copy = words[2].rpartition(".")
        if not letter or not _is_number(copy):
            raise CommandError(Problem.UID, f"not a tile (LETTER.COPY) or a hex UID: {shown(words[2])!r}")
        return PlaceTile(loc, letter.upper(), int(copy))
    return command_from_words(words)


def parse(text: str) -> list[Line]:
    """The lines of a table script (see the module doc); the first bad one raises
    :class:`TableScriptError` (:func:`check` finds them all, and what the table lacks)."""
    lines: list[Line] = []
    for number, raw in _numbered(text):
        line = _line(number, raw)
        if line is not None:
            lines.append(line)
    return lines


def check(text: str | bytes, table: ScriptTable, source: str | None = None) -> list[Line]:
    """The lines of a table script, every one checked against ``table``, where the tiles
    lie (:class:`Positions`) and the bounds.

    :class:`ScriptRefused` (naming ``source``) lists every bad line: one not understood,
    not at this table, not where the tiles are, not UTF-8 (``text`` as bytes), past the
    script's time or its length.
    """
    errors: list[TableScriptError] = []
    lines: list[Line] = []
    numbered = _decoded(text, errors) if isinstance(text, bytes) else _numbered(text)
    end: float | None = 0.0  # when the line before ends (a press takes its time); None: no more time
    garbage = frames = 0  # what the faults of the lines so far ask of the board (bounded as a whole too)
    positions = Positions(table.tile_set)
    for number, raw in numbered:
        if number > MAX_LINES:
            errors.append(TableScriptError(Problem.TOO_LONG, f"more than {MAX_LINES} lines", None, number))
            break
        try:
            line = _line(number, raw)
            if line is None:
                continue
            try:
                table.check(line.step)
                positions.play(line.step, number)
            except CommandError as e:
                raise TableScriptError(e.problem, e.reason, line.text, number) from None
        except TableScriptError as e:
            errors.append(e)
            continue
        lines.append(line)
        step = line.step
        if isinstance(step, Garbage):
            garbage += step.count
            if garbage > MAX_SCRIPT_GARBAGE >= garbage - step.count:  # (said at the line that goes past)
                reason = f"the script's garbage adds up to more than {MAX_SCRIPT_GARBAGE} bytes ({garbage} here)"
                errors.append(TableScriptError(Problem.NUMBER, reason, line.text, number))
        elif isinstance(step, (Corrupt, Drop, Duplicate, Reorder)):
            frames += step.count
            if frames > MAX_SCRIPT_FRAMES >= frames - step.count:
                reason = f"the script's frame faults add up to more than {MAX_SCRIPT_FRAMES} frames ({frames} here)"
                errors.append(TableScriptError(Problem.NUMBER, reason, line.text, number))
        if end is not None:
            end = _ends(line, end)
            if end is not None and end > MAX_SCRIPT_S:
                reason = f"the script goes on past {MAX_SCRIPT_S:g} s of table time (to {end:g} s here)"
                errors.append(TableScriptError(Problem.NUMBER, reason, line.text, number))
                end = None
    if errors:
        raise ScriptRefused(sorted(errors, key=lambda e: e.number or 0), source)
    return lines


def _ends(line: Line, start: float) -> float | None:
    """When ``line`` ends, the line before having ended at ``start`` (None: the script ends)."""
    if isinstance(line.step, End):
        return None
    begin = max(start, line.at) if line.at is not None else start + line.wait
    return begin + (line.step.seconds if isinstance(line.step, Press) else 0.0)


def load(path: Path, table: ScriptTable) -> list[Line]:
    """The checked lines of the script file ``path`` (:func:`check`); ``OSError`` when it
    cannot be read, :class:`ScriptRefused` for a bad one (and one of more than :data:`MAX_BYTES`)."""
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        number = data.count(b"\n", 0, MAX_BYTES) + 1
        reason = f"a script of more than {MAX_BYTES} bytes (the limit is reached on this line)"
        raise ScriptRefused([TableScriptError(Problem.TOO_LONG, reason, None, number)], str(path))
    return check(data, table, str(path))


def _numbered(text: str) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` with their numbers, split at newlines only (as an editor counts;
    a byte order mark before them dropped)."""
    for number, raw in enumerate(text.removeprefix("\ufeff").removesuffix("\n").split("\n"), 1):
        yield number, raw.removesuffix("\r")


def _decoded(data: bytes, errors: list[TableScriptError]) -> Iterator[tuple[int, str]]:
    """The lines of ``data`` decoded (as :func:`_numbered` gives them); a line that is not
    UTF-8 goes to ``errors`` instead."""
    for number, raw in enumerate(data.removeprefix(b"\xef\xbb\xbf").removesuffix(b"\n").split(b"\n"), 1):
        try:
            yield number, raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as e:
            text = raw.decode("utf-8", "replace").strip()
            reason = f"not UTF-8 (byte {e.start + 1} of the line)"
            errors.append(TableScriptError(Problem.ENCODING, reason, text, number))


def _line(number: int, raw: str) -> Line | None:
    """The line ``raw`` (None for an empty one or a comment); :class:`TableScriptError` when bad."""
    words = words_of(raw)
    if not words:
        return None
    wait, at = 0.0, None
    step: Step
    try:
        if words[0].lower() in ("at", "after"):
            if len(words) < 3:
                raise CommandError(Problem.ARITY, f"{words[0]} SECONDS COMMAND ...")
            t = seconds(words[1], MAX_SCRIPT_S)
            if words[0].lower() == "at":
                at = t
            else:
                wait = t
            words = words[2:]
        action, args = words[0].lower(), tuple(words[1:])
        if action in ("press", "hold"):
            if action == "hold" and len(args) not in (2, 3):
                raise CommandError(Problem.ARITY, "hold SEAT done|challenge SECONDS, or hold menu SECONDS")
            step = Press(*press_target(args))
        elif action in ("tick", "end"):
            check_arity(action, args, 0, 0)
            step = Wait() if action == "tick" else End()
        elif action in USAGE and action != "exit":
            step = _board(words)
        else:
            raise CommandError(Problem.UNKNOWN, f"unknown command {shown(action)!r}")
    except CommandError as e:
        raise TableScriptError(e.problem, e.reason, raw.strip(), number) from None
    return Line(number, action, args, wait, at, raw.strip(), step)
