"""What the turn controller journals: the game's start, committed commands, clock states,
and the moment the table is at.

A game is the fold of its records (:meth:`scoreboard.controller.table.Table.restore`):
engine commands rebuild the rules state, the tag UIDs beside them rebuild which physical
tile lies where, and clock states the time used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from engine.board import Square
from engine.events import Command

if TYPE_CHECKING:  # (the state's types; the state module imports this one)
    from .state import Clocks, Mode, Window

__all__ = ["ClockState", "Committed", "Moment", "Record", "Started"]


@dataclass(frozen=True)
class Started:
    """A game began: its ``#rules`` line, the players in seat order, the first player.

    ``draws``: the letters each seat drew for the first player, a string per round.
    """

    rules: str
    players: tuple[str, ...]
    first: int
    draws: tuple[str, ...] = ()


@dataclass(frozen=True)
class Committed:
    """An engine command the table agreed on, with the tags it moved.

    ``laid``: (square, UID) of a play's new tiles; ``drawn``: UIDs that came onto the rack
    (a draw or an exchange); ``returned``: UIDs an exchange put into the bag.
    """

    command: Command
    laid: tuple[tuple[Square, bytes], ...] = ()
    drawn: tuple[bytes, ...] = ()
    returned: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class ClockState:
    """Seconds of thinking time each player has used (written when the turn changes)."""

    used: tuple[float, ...]


@dataclass(frozen=True)
class Moment:
    """What the table is waiting for and when, which the game's records do not hold: the
    mode (a Done being read, a question, the menu...), the challenge window and the
    challenges waiting for their ruling, the clocks as they run, a pause, the settings made
    for the next game. Journaled with a step whenever it changes, so that a restart comes
    back to the very moment of the cut (:mod:`scoreboard.controller.moments`).

    ``left``: the table left this game for a new one (the last moment a game gets); a
    restart does not come back to it, even to a finished game's tally."""

    mode: Mode
    window: Window | None = None
    clocks: Clocks | None = None
    challenges: tuple[tuple[float, int], ...] = ()
    challenge_due: float = 0.0
    last_play_until: float = 0.0
    paused_since: float | None = None
    next_profile: str = ""
    next_seats: int = 0
    left: bool = False


Record: TypeAlias = Started | Committed | ClockState | Moment
"""Anything the controller asks the journal to append."""
