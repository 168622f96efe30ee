"""The turn controller: board reads, buttons and ticks in; journal records and screens out.

>>> from scoreboard.controller import Table, Context  # doctest: +SKIP
"""

from .effects import Append, Effect, GameOver, HouseWord, PowerOff, Show
from .inputs import BoardAway, BoardBack, BoardRead, Input, ReaderState, Tick
from .records import ClockState, Committed, Record, Started
from .state import Phase, TableState
from .table import Context, Settings, Table, TileLookup

__all__ = [
    "Append",
    "BoardAway",
    "BoardBack",
    "BoardRead",
    "ClockState",
    "Committed",
    "Context",
    "Effect",
    "GameOver",
    "HouseWord",
    "Input",
    "Phase",
    "PowerOff",
    "ReaderState",
    "Record",
    "Settings",
    "Show",
    "Started",
    "Table",
    "TableState",
    "Tick",
    "TileLookup",
]
