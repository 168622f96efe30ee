"""What the turn controller journals: the game's start, committed commands, clock states.

A game is the fold of its records (:meth:`scoreboard.controller.table.Table.restore`):
engine commands rebuild the rules state, the tag UIDs beside them rebuild which physical
tile lies where, and clock states the time used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from engine.board import Square
from engine.events import Command

__all__ = ["ClockState", "Committed", "Record", "Started"]


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


Record: TypeAlias = Started | Committed | ClockState
"""Anything the controller asks the journal to append."""
