"""The turn controller's state: frozen values, replaced (never changed) by each step.

A table is in one :data:`Phase` (the lobby, the draw for the first player, playing, over)
and one :data:`Mode` at a time (idle, reading the board after a Done, confirming a pass or
an exchange, naming a blank, the menu, adjusting a score, asking a second seat); the
menu and the corrections remember the play mode they interrupted and go back to it. The engine
:class:`~engine.game.Game` of a game in play belongs to its state: a step that changes the
game works on a copy (:func:`scoreboard.controller.commit.commit`), so no state ever sees
a game change under it. What the board shows, the physical tiles, time standing still and
a message on the display are fields of their own beside the phase and the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TypeAlias

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from engine.board import Square
from engine.clock import GameClock, MoveTimer
from engine.first_player import FirstPlayerDraw
from engine.game import Game
from scoreboard.screens.models import ConfirmKind, MenuItem, Screen

__all__ = [
    "Adjusting",
    "Asking",
    "BlankPick",
    "Clocks",
    "Confirming",
    "FirstDraw",
    "Halt",
    "Idle",
    "LastPlay",
    "Lobby",
    "MENU_ITEMS",
    "Menu",
    "Mode",
    "Notice",
    "Over",
    "Overlay",
    "Phase",
    "PlayMode",
    "Playing",
    "Reading",
    "Reads",
    "SettledRun",
    "Shown",
    "TableState",
    "Tiles",
    "Waiting",
    "Window",
    "play_mode",
]

# --- phases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lobby:
    """A new game waits for the tiles of the last one to come off the board."""


@dataclass(frozen=True)
class FirstDraw:
    """The draw for the first player: each contender puts one tile on the rack; once
    ``draw.first`` is known those tiles go back into the bag before the deal.

    ``letters``: this round's letter per seat as read (``""`` not yet); ``stale``: tags
    drawn in an earlier, tied round (a tied seat draws another tile).
    """

    draw: FirstPlayerDraw
    letters: tuple[str, ...]
    stale: frozenset[bytes] = frozenset()


@dataclass(frozen=True)
class Window:
    """The challenge window of ``player``'s pending play: closes at ``deadline`` (moved on
    while time stands still); ``agreed``: seats that pressed Done after a going-out play."""

    player: int
    deadline: float
    total: float
    going_out: bool = False
    agreed: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Clocks:
    """Thinking time: the game clock, the move timer, and when the clock was last journaled."""

    game: GameClock
    move: MoveTimer = MoveTimer()
    saved: float = 0.0


@dataclass(frozen=True)
class Playing:
    """A game in play. ``challenges``: (press time, seat) waiting for the ruling, due at
    ``challenge_due``; ``last_play_until``: the last play's words stay on the display."""

    game: Game
    window: Window | None = None
    clocks: Clocks | None = None
    challenges: tuple[tuple[float, int], ...] = ()
    challenge_due: float = 0.0
    last_play_until: float = 0.0


@dataclass(frozen=True)
class Over:
    """The game ended (corrections may still change its tally)."""

    game: Game
    clocks: Clocks | None = None


Phase: TypeAlias = Lobby | FirstDraw | Playing | Over
"""Where the table is."""

# --- modes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Idle:
    """Nothing asked of anyone."""


@dataclass(frozen=True)
class Waiting:
    """A Done of ``seat`` pressed at ``pressed``, waiting for a settled read until ``deadline``.

    ``long``: a long press (a pass or exchange needs no further confirmation).
    """

    seat: int
    pressed: float
    deadline: float
    long: bool = False


@dataclass(frozen=True)
class Reading:
    """Done presses waiting for a settled board read, in the order pressed."""

    dones: tuple[Waiting, ...]


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
    """``seat`` names the blanks of a play: ``candidates`` for the next one, ``selected`` shown."""

    seat: int
    laid: tuple[tuple[Square, bytes], ...]
    chosen: tuple[str, ...] = ()  # letters named so far, blanks in reading order
    candidates: tuple[str, ...] = ()
    selected: int = 0


PlayMode: TypeAlias = Idle | Reading | Confirming | BlankPick
"""What the game in play waits for from the player to move."""


MENU_ITEMS: tuple[MenuItem, ...] = tuple(MenuItem)
"""The menu's items in the order the Menu button steps through them."""


@dataclass(frozen=True)
class Menu:
    """The menu is open on its item ``selected`` (of :data:`MENU_ITEMS`); ``under``: what it
    interrupted."""

    selected: int = 0
    under: PlayMode = Idle()


@dataclass(frozen=True)
class Adjusting:
    """``by`` sets a correction of ``player``'s score by ``points``; ``under``: what it interrupted."""

    by: int
    player: int = 0
    points: int = 0
    under: PlayMode = Idle()


@dataclass(frozen=True)
class Asking:
    """``by`` asked for a correction that a second seat confirms (a long press) until ``until``;
    ``under``: what it interrupted."""

    kind: ConfirmKind
    by: int
    until: float
    player: int = 0
    points: int = 0
    under: PlayMode = Idle()


Overlay: TypeAlias = Menu | Adjusting | Asking
"""A mode that interrupts the play mode and goes back to it when it ends."""

Mode: TypeAlias = PlayMode | Overlay
"""What the table waits for from the players: one mode at a time (an overlay remembers the
play mode it interrupted: a pass question or a blank's letter is still there afterwards)."""


def play_mode(mode: Mode) -> PlayMode:
    """The play mode: ``mode`` itself, or the one an overlay interrupted."""
    return mode.under if isinstance(mode, (Menu, Adjusting, Asking)) else mode


# --- the rest of the table ----------------------------------------------------------------


@dataclass(frozen=True)
class LastPlay:
    """The last play's tags: who laid what where, and what the player drew since."""

    player: int
    laid: Mapping[Square, bytes]
    drawn: frozenset[bytes] = frozenset()


@dataclass(frozen=True)
class Tiles:
    """The physical tiles by tag: the committed board and racks, and what must be put right.

    ``to_remove``: squares to clear (a withdrawn play, a restored board, a new game);
    ``to_place``: squares whose committed tile must go back (an overridden ruling, a
    restored board); ``to_return``: tags that must go back into the bag; ``check_board``:
    the first settled read after a restart is compared with the committed board.
    """

    board: Mapping[Square, bytes] = field(default_factory=dict)
    racks: tuple[frozenset[bytes], ...] = ()
    last_play: LastPlay | None = None
    to_remove: frozenset[Square] = frozenset()
    to_place: frozenset[Square] = frozenset()
    to_return: frozenset[bytes] = frozenset()
    check_board: bool = False

    @property
    def to_fix(self) -> bool:
        """True while the board must be put right before a Done is judged."""
        return bool(self.to_remove or self.to_return or self.to_place)


@dataclass(frozen=True)
class SettledRun:
    """Settled reads in a row showing the same board, the last of them at ``last``."""

    last: float
    snapshot: BoardSnapshot


@dataclass(frozen=True)
class Reads:
    """What the board shows: the stable snapshot, whether it is settled, recent settled runs,
    tags read in two places, and the readers that do not answer (with what they read)."""

    observed: BoardSnapshot = field(default_factory=BoardSnapshot)
    settled: bool = False
    runs: tuple[SettledRun, ...] = ()
    duplicates: tuple[tuple[bytes, tuple[Loc, ...]], ...] = ()
    dead: tuple[tuple[int, tuple[Loc, ...]], ...] = ()


@dataclass(frozen=True)
class Halt:
    """Time stands still since ``since``: ``paused`` (any button resumes) and/or the board
    link is down (``away``: why; ``refused``: the board answers but cannot be used, and the
    display shows why)."""

    since: float
    paused: bool = False
    away: str | None = None
    refused: bool = False


@dataclass(frozen=True)
class Notice:
    """A message on the display until ``until``: on ``seat``'s panel only, or on every one."""

    screen: Screen
    until: float
    seat: int | None = None


@dataclass(frozen=True)
class Shown:
    """The frames on the displays: the shared panel's and each seat's."""

    table: Screen | None = None
    seats: tuple[Screen | None, ...] = ()


@dataclass(frozen=True)
class TableState:
    """Everything the controller knows (see the module doc).

    ``profile_name``, ``seats`` and ``names``: the game in play or about to be drawn for;
    ``next_profile`` and ``next_seats``: what the menu set for the next game;
    ``accepted``/``rejected``: house words from overridden rulings this session.
    """

    phase: Phase
    profile_name: str
    seats: int
    names: tuple[str, ...]
    next_profile: str
    next_seats: int
    mode: Mode = Idle()
    tiles: Tiles = Tiles()
    reads: Reads = Reads()
    halt: Halt | None = None
    notice: Notice | None = None
    accepted: frozenset[str] = frozenset()
    rejected: frozenset[str] = frozenset()
    shown: Shown = Shown()
    now: float = 0.0

    @property
    def game(self) -> Game | None:
        """The engine game in play or over (None before the deal); do not change it."""
        return self.phase.game if isinstance(self.phase, (Playing, Over)) else None

    @property
    def play_mode(self) -> PlayMode:
        """What the game in play waits for (under the menu or a correction, if one is open)."""
        return play_mode(self.mode)

    def with_play_mode(self, mode: PlayMode) -> TableState:
        """This state with the play mode ``mode`` (under the open overlay, if there is one)."""
        current = self.mode
        if isinstance(current, (Menu, Adjusting, Asking)):
            return replace(self, mode=replace(current, under=mode))
        return replace(self, mode=mode)

    @property
    def paused(self) -> bool:
        """True while the Pause button holds time."""
        return self.halt is not None and self.halt.paused

    @property
    def away(self) -> bool:
        """True while the board link is down."""
        return self.halt is not None and self.halt.away is not None
