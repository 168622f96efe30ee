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

Board commands go to the simulated board's control socket (place, remove, move, slide,
flicker, junk, garbage, corrupt, drop, duplicate, reorder, unplug, reboot, fault,
recover); they are
idempotent where a restarted service may repeat them (a tag is placed where it already
lies: nothing happens).
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers.buttons.logic import Role
from engine.errors import ScoreboardError
from engine.tiles import get_tile_set
from firmware import frames as F
from scoreboard.simulator import _ARITY as BOARD_ARITY
from scoreboard.simulator import _positive as seconds
from scoreboard.simulator import parse_uid, tile_uid

__all__ = ["Line", "TableScriptError", "parse", "resolve_tile"]

LONG_S = 2.1
SHORT_S = 0.15


class TableScriptError(ScoreboardError, ValueError):
    """A script line that cannot be understood (quoted with its number)."""


@dataclass(frozen=True)
class Line:
    """One command: ``wait`` seconds after the previous line (``at``: absolute instead)."""

    number: int
    action: str
    args: tuple[str, ...]
    wait: float = 0.0
    at: float | None = None
    text: str = ""


_ROLES = {"done": Role.DONE, "challenge": Role.CHALLENGE, "menu": Role.MENU}


def press_target(args: tuple[str, ...]) -> tuple[int | None, Role, float]:
    """(seat, role, seconds held) of a ``press`` or ``hold`` line's arguments."""
    if args and args[0] == "menu":
        seat, role, rest = None, Role.MENU, args[1:]
    else:
        if len(args) < 2 or args[1] not in ("done", "challenge"):
            raise ValueError("press SEAT done|challenge [long], or press menu [long]")
        if not args[0].isdigit() or not 1 <= int(args[0]) <= 4:
            raise ValueError(f"a seat from 1 to 4, not {args[0]!r}")
        seat, role, rest = int(args[0]), _ROLES[args[1]], args[2:]
    if not rest:
        return seat, role, SHORT_S
    if rest == ("long",):
        return seat, role, LONG_S
    if len(rest) == 1:
        seconds = float(rest[0])
        if seconds <= 0:
            raise ValueError(f"a hold of more than 0 s, not {rest[0]!r}")
        return seat, role, seconds
    raise ValueError(f"unexpected {' '.join(rest)!r}")


def resolve_tile(text: str, tile_set: str) -> bytes:
    """A tag UID from hex, or ``LETTER.COPY`` of the simulated tile set (``E.0``, ``?.1``)."""
    if "." in text:
        letter, _, copy = text.rpartition(".")
        ts = get_tile_set(tile_set)
        letter = letter.upper()
        if letter not in ts.counts or not copy.isdigit() or int(copy) >= ts.counts[letter]:
            raise ValueError(f"no tile {text!r} in the {ts.name} set")
        return tile_uid(letter, int(copy), ts.name)
    return parse_uid(text)


def parse(text: str) -> list[Line]:
    """The lines of a table script (see the module doc)."""
    lines: list[Line] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        wait, at = 0.0, None
        try:
            if words[0] in ("at", "after"):
                if len(words) < 3:
                    raise ValueError(f"{words[0]} SECONDS COMMAND ...")
                t = seconds(words[1])
                if words[0] == "at":
                    at = t
                else:
                    wait = t
                words = words[2:]
            action, args = words[0].lower(), tuple(words[1:])
            if action in ("press", "hold"):
                if action == "hold" and len(args) not in (2, 3):
                    raise ValueError("hold SEAT done|challenge SECONDS, or hold menu SECONDS")
                press_target(args)
            elif action in ("tick", "end"):
                if args:
                    raise ValueError(f"{action} takes no arguments")
            elif action in BOARD_ARITY and action != "exit":
                low, high = BOARD_ARITY[action]
                if not low <= len(args) <= high:
                    raise ValueError(f"{action} takes {low}-{high} arguments, got {len(args)}")
                if action in ("place", "remove", "move"):
                    for loc in args[: 1 if action != "move" else 2]:
                        F.parse_loc(loc)
            else:
                raise ValueError(f"unknown command {action!r}")
        except (ValueError, F.FrameError) as e:
            raise TableScriptError(f"line {number}: {raw.strip()!r}: {e}") from None
        lines.append(Line(number, action, args, wait, at, raw.strip()))
    return lines
