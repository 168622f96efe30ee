"""What the turn controller takes in: board readings, link state, button events and ticks.

Button events are :class:`drivers.buttons.ButtonEvent` as the button driver emits them; the
rest are defined here. Every input carries ``at``, seconds from the service's monotonic
clock (a virtual one in tests and the demo).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from drivers.buttons.logic import ButtonEvent

__all__ = ["BoardAway", "BoardBack", "BoardRead", "Input", "ReaderState", "Tick"]


@dataclass(frozen=True)
class BoardRead:
    """One report of the stabiliser: the stable board and racks, and whether it is settled.

    ``settled``: nothing was changing (a Done is judged on the first settled read at or
    after the press). ``duplicates``: tags read at more than one location just now.
    """

    snapshot: BoardSnapshot
    settled: bool
    at: float
    duplicates: tuple[tuple[bytes, tuple[Loc, ...]], ...] = ()


@dataclass(frozen=True)
class BoardAway:
    """The board link is down (cable pulled, controller silent); ``reason`` says how.

    ``refused``: the controller answers but its board cannot be used (another protocol
    major version, a geometry this scoreboard or the game cannot play on); the display
    shows ``reason``, and nothing is judged until a usable board is back.
    """

    reason: str
    at: float
    refused: bool = False


@dataclass(frozen=True)
class BoardBack:
    """The board link is up again."""

    at: float


@dataclass(frozen=True)
class ReaderState:
    """Board reader ``reader`` stopped answering (``working`` False) or works again.

    ``locs``: the cells and rack slots it reads.
    """

    reader: int
    working: bool
    locs: tuple[Loc, ...]
    at: float


@dataclass(frozen=True)
class Tick:
    """Time passed (the service sends one a few times a second)."""

    at: float


Input: TypeAlias = BoardRead | BoardAway | BoardBack | ReaderState | Tick | ButtonEvent
"""Anything the controller's queue holds."""
