"""What a step of the turn controller asks the outside world to do, in order.

The service carries them out one after the other; when an :class:`Append` fails it must
not carry out the rest nor keep the new state (nothing is shown as accepted that the
journal does not hold), and shows the failure instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from engine.game import Tally
from scoreboard.screens.models import Screen
from scoreboard.voice.models import Speech

from .records import Record

__all__ = ["Announce", "Append", "Effect", "GameOver", "HouseWord", "PowerOff", "Show"]


@dataclass(frozen=True)
class Append:
    """Append ``records`` to the journal in one transaction (before anything is shown)."""

    records: tuple[Record, ...]


@dataclass(frozen=True)
class Show:
    """Put ``screen`` on the panels of ``seats`` (0-based), or with ``seats`` None on the
    table's one shared display.

    Every step whose frames changed says so for both kinds of table: a table with one
    display takes the shared frame, a table with a panel per seat takes the seats' frames.
    """

    screen: Screen
    seats: frozenset[int] | None = None


@dataclass(frozen=True)
class HouseWord:
    """A ruling was overridden: put ``word`` on the house accept (or reject) list of ``language``."""

    language: str
    word: str
    accept: bool


@dataclass(frozen=True)
class GameOver:
    """The game ended with ``tally`` (the journal marks it finished)."""

    tally: Tally


@dataclass(frozen=True)
class Announce:
    """Say ``speech`` aloud (``voice``), after the step's frames: it never waits for the voice."""

    speech: Speech


@dataclass(frozen=True)
class PowerOff:
    """Shut down was chosen from the menu."""


Effect: TypeAlias = Append | Show | HouseWord | GameOver | PowerOff | Announce
"""Anything a step asks for."""
