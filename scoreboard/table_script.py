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
move, slide, flicker, junk, garbage, corrupt, drop, duplicate, reorder, unplug, reboot,
fault, recover), parsed into typed commands here (:attr:`Line.board`; a ``place`` of a
``LETTER.COPY`` tile is resolved once the tile set is known, :meth:`Line.board_command`)
and sent to the simulated board's control socket; they are idempotent where a restarted
service may repeat them (a tag is placed where it already lies: nothing happens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from drivers.buttons.logic import Role
from engine.tiles import get_tile_set
from scoreboard.sim.commands import (
    USAGE,
    Command,
    CommandError,
    Location,
    Place,
    Problem,
    check_arity,
    command_from_words,
    finite,
    location,
    parse_uid,
    seconds,
    words_of,
)
from scoreboard.sim.tags import tile_uid

__all__ = ["End", "Line", "PlaceTile", "Press", "Step", "TableScriptError", "Wait", "parse", "press_target", "resolve_tile"]

LONG_S = 2.1
SHORT_S = 0.15


class TableScriptError(CommandError):
    """A script line that cannot be understood (quoted with its number; the problem as data)."""


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
        if not (args[0].isascii() and args[0].isdigit()) or not 1 <= int(args[0]) <= 4:
            raise CommandError(Problem.NUMBER, f"a seat from 1 to 4, not {args[0]!r}")
        seat, role, rest = int(args[0]), _ROLES[args[1]], args[2:]
    if not rest:
        return seat, role, SHORT_S
    if rest == ("long",):
        return seat, role, LONG_S
    if len(rest) == 1:
        held = finite(rest[0])
        if held <= 0:
            raise CommandError(Problem.NUMBER, f"a hold of more than 0 s, not {rest[0]!r}")
        return seat, role, held
    raise CommandError(Problem.ARITY, f"unexpected {' '.join(rest)!r}")


def resolve_tile(text: str, tile_set: str) -> bytes:
    """A tag UID from hex, or ``LETTER.COPY`` of the simulated tile set (``E.0``, ``?.1``)."""
    if "." in text:
        letter, _, copy = text.rpartition(".")
        ts = get_tile_set(tile_set)
        letter = letter.upper()
        if letter not in ts.counts or not _is_number(copy) or int(copy) >= ts.counts[letter]:
            raise CommandError(Problem.UID, f"no tile {text!r} in the {ts.name} set")
        return tile_uid(letter, int(copy), ts.name)
    return parse_uid(text)


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _board(words: list[str]) -> Command | PlaceTile:
    """The board command ``words`` say (``place LOC LETTER.COPY`` too)."""
    if words[0].lower() == "place" and len(words) == 3 and "." in words[2]:
        loc = location(words[1])
        letter, _, copy = words[2].rpartition(".")
        if not letter or not _is_number(copy):
            raise CommandError(Problem.UID, f"not a tile (LETTER.COPY) or a hex UID: {words[2]!r}")
        return PlaceTile(loc, letter.upper(), int(copy))
    return command_from_words(words)


def parse(text: str) -> list[Line]:
    """The lines of a table script (see the module doc); a bad one raises :class:`TableScriptError`."""
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = words_of(raw)
        if not words:
            continue
        wait, at = 0.0, None
        step: Step
        try:
            if words[0].lower() in ("at", "after"):
                if len(words) < 3:
                    raise CommandError(Problem.ARITY, f"{words[0]} SECONDS COMMAND ...")
                t = seconds(words[1])
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
                raise CommandError(Problem.UNKNOWN, f"unknown command {action!r}")
        except CommandError as e:
            raise TableScriptError(e.problem, e.reason, raw.strip(), number) from None
        lines.append(Line(number, action, args, wait, at, raw.strip(), step))
    return lines
