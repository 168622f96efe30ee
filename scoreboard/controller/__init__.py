"""The turn controller: board reads, buttons and ticks in; journal records and screens out.

>>> from scoreboard.controller import Table, Context  # doctest: +SKIP
"""

from .context import Context, Settings, TileLookup
from .effects import Append, Effect, GameOver, HouseWord, PowerOff, Show
from .inputs import BoardAway, BoardBack, BoardRead, Input, ReaderState, Tick
from .records import ClockState, Committed, Record, Started
from .state import (
    Adjusting,
    Asking,
    BlankPick,
    Confirming,
    FirstDraw,
    Idle,
    Lobby,
    Menu,
    Mode,
    Notice,
    Over,
    Phase,
    Playing,
    Reading,
    Shown,
    TableState,
)
from .table import Table

__all__ = [
    "Adjusting",
    "Append",
    "Asking",
    "BlankPick",
    "BoardAway",
    "BoardBack",
    "BoardRead",
    "ClockState",
    "Committed",
    "Confirming",
    "Context",
    "Effect",
    "FirstDraw",
    "GameOver",
    "HouseWord",
    "Idle",
    "Input",
    "Lobby",
    "Menu",
    "Mode",
    "Notice",
    "Over",
    "Phase",
    "Playing",
    "PowerOff",
    "ReaderState",
    "Reading",
    "Record",
    "Settings",
    "Show",
    "Shown",
    "Started",
    "Table",
    "TableState",
    "Tick",
    "TileLookup",
]
