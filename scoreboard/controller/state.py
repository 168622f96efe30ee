"""The turn controller's state: plain values, replaced (never changed) by each step.

Containers are tuples, frozensets and dicts that no step mutates; a step works on a
shallow copy (:meth:`TableState.copy`) and assigns new values to its fields.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from drivers.board.snapshot import BoardSnapshot
from engine.board import Square
from engine.events import Command
from scoreboard.screens.models import ConfirmKind, Screen

__all__ = [
    "Adjusting",
    "BlankPick",
    "Clock",
    "Confirming",
    "LastPlay",
    "Menu",
    "Phase",
    "Reading",
    "Request",
    "SettledRun",
    "TableState",
    "Window",
]


class Phase(enum.Enum):
    """Where the table is."""

    DRAW_FIRST = "draw-first"  # each seat puts one tile on its rack
    RETURN_FIRST = "return-first"  # those tiles go back into the bag before the deal
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class SettledRun:
    """Settled reads in a row showing the same board, the last of them at ``last``."""

    last: float
    snapshot: BoardSnapshot


@dataclass(frozen=True)
class Reading:
    """A Done of ``seat`` (0-based) pressed at ``pressed``, waiting for a settled read."""

    seat: int
    pressed: float
    deadline: float
    long: bool = False  # a long press: a pass or exchange needs no further confirmation


@dataclass(frozen=True)
class Confirming:
    """A pass or an exchange shown to ``seat``, waiting for a long press of its Done."""

    kind: ConfirmKind
    seat: int
    returned: tuple[bytes, ...] = ()
    drawn: tuple[bytes, ...] = ()
    rack: frozenset[bytes] = frozenset()  # the seat's rack as read when asked


@dataclass(frozen=True)
class BlankPick:
    """``seat`` names the blanks of a play: ``options`` are the fitting placements' letters."""

    seat: int
    laid: tuple[tuple[Square, bytes], ...]
    chosen: tuple[str, ...]  # letters named so far, blanks in reading order
    candidates: tuple[str, ...]
    selected: int = 0


@dataclass(frozen=True)
class Menu:
    """The menu is open on ``items[selected]``."""

    selected: int = 0


@dataclass(frozen=True)
class Adjusting:
    """``by`` is setting a correction of ``player``'s score by ``points``."""

    by: int
    player: int = 0
    points: int = 0


@dataclass(frozen=True)
class Request:
    """``by`` asked for a correction that a second seat must confirm (by a long press)."""

    kind: ConfirmKind
    by: int
    until: float
    player: int = 0
    points: int = 0


@dataclass(frozen=True)
class Window:
    """The challenge window of the pending play: closes at ``deadline`` (paused: moved on)."""

    player: int
    deadline: float
    total: float
    going_out: bool = False
    agreed: frozenset[int] = frozenset()  # seats that pressed Done after a going-out play


@dataclass(frozen=True)
class LastPlay:
    """The last play's tags: who laid what where, and what the player drew since."""

    player: int
    laid: Mapping[Square, bytes]
    drawn: frozenset[bytes] = frozenset()


@dataclass(frozen=True)
class Clock:
    """Thinking time: seconds each player used, who runs since when (None: stopped)."""

    used: tuple[float, ...]
    running: int | None = None
    since: float = 0.0
    owner: int | None = None  # whose move the move timer times
    move_started: float = 0.0
    warned: bool = False  # the move limit was shown for this move
    saved: float = 0.0  # when the used times were last journaled


@dataclass
class TableState:
    """Everything the controller knows; see the module doc for how it changes."""

    phase: Phase
    profile_name: str
    seats: int
    names: tuple[str, ...]
    # the game (Phase.PLAYING / OVER): its start and the engine commands, as journaled
    rules: str = ""
    first: int = 0
    commands: tuple[Command, ...] = ()
    # physical tiles: the committed board and racks, by tag
    board: Mapping[Square, bytes] = field(default_factory=dict)
    racks: tuple[frozenset[bytes], ...] = ()
    last_play: LastPlay | None = None
    to_remove: frozenset[Square] = frozenset()  # squares that must be cleared
    to_place: frozenset[Square] = frozenset()  # squares whose committed tile must go back
    check_board: bool = False  # restored: the first settled read is compared with the board
    to_return: frozenset[bytes] = frozenset()  # tags that must go back into the bag
    # what the board shows
    observed: BoardSnapshot = field(default_factory=BoardSnapshot)
    runs: tuple[SettledRun, ...] = ()
    settled: bool = False
    duplicates: tuple[tuple[bytes, tuple[str, ...]], ...] = ()
    dead_readers: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (reader, what it reads)
    # the draw for the first player
    contenders: tuple[int, ...] = ()
    stale: frozenset[bytes] = frozenset()  # tags drawn in an earlier, tied round
    draws: tuple[str, ...] = ()  # letters per seat of the current round ("" not yet)
    rounds: tuple[str, ...] = ()
    # what the players are doing
    readings: tuple[Reading, ...] = ()  # Done presses waiting for a settled read, in order
    challenges: tuple[tuple[float, int], ...] = ()  # (press time, seat) waiting for the ruling
    challenge_due: float = 0.0  # when the first-pressed of them is ruled on
    confirming: Confirming | None = None
    picking: BlankPick | None = None
    menu: Menu | None = None
    adjusting: Adjusting | None = None
    request: Request | None = None
    window: Window | None = None
    clock: Clock | None = None
    paused_at: float | None = None  # the Pause button
    away_since: float | None = None  # the board link is down
    stopped_since: float | None = None  # time stands still since (pause or board away)
    notice: Screen | None = None  # a message shown until notice_until
    notice_until: float = 0.0
    last_play_until: float = 0.0
    next_seats: int = 0  # the menu's player count for the next game
    next_profile: str = ""
    accepted: frozenset[str] = frozenset()  # house words from overrides this session
    rejected: frozenset[str] = frozenset()
    shown: Screen | None = None
    now: float = 0.0

    def copy(self) -> TableState:
        """A shallow copy to build the next state in."""
        return copy.copy(self)

    @property
    def stopped(self) -> bool:
        """True while time stands still: paused, or the board is away."""
        return self.paused_at is not None or self.away_since is not None
