"""The turn controller: board reads, buttons and ticks in; journal records and screens out.

Its names load on first use (``scoreboard.controller.records`` comes without the rest).

>>> from scoreboard.controller import Table, Context  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Context as Context
    from .context import Settings as Settings
    from .context import TileLookup as TileLookup
    from .effects import Announce as Announce
    from .effects import Append as Append
    from .effects import Effect as Effect
    from .effects import GameOver as GameOver
    from .effects import HouseWord as HouseWord
    from .effects import PowerOff as PowerOff
    from .effects import Show as Show
    from .inputs import BoardAway as BoardAway
    from .inputs import BoardBack as BoardBack
    from .inputs import BoardRead as BoardRead
    from .inputs import Input as Input
    from .inputs import ReaderState as ReaderState
    from .inputs import Tick as Tick
    from .records import ClockState as ClockState
    from .records import Committed as Committed
    from .records import Moment as Moment
    from .records import Record as Record
    from .records import Started as Started
    from .state import Adjusting as Adjusting
    from .state import Asking as Asking
    from .state import BlankPick as BlankPick
    from .state import Confirming as Confirming
    from .state import FirstDraw as FirstDraw
    from .state import Idle as Idle
    from .state import Lobby as Lobby
    from .state import Menu as Menu
    from .state import Mode as Mode
    from .state import Notice as Notice
    from .state import Over as Over
    from .state import Phase as Phase
    from .state import Playing as Playing
    from .state import PlayMode as PlayMode
    from .state import Reading as Reading
    from .state import Shown as Shown
    from .state import TableState as TableState
    from .table import Table as Table

_MODULES = {
    "context": ("Context", "Settings", "TileLookup"),
    "effects": ("Announce", "Append", "Effect", "GameOver", "HouseWord", "PowerOff", "Show"),
    "inputs": ("BoardAway", "BoardBack", "BoardRead", "Input", "ReaderState", "Tick"),
    "records": ("ClockState", "Committed", "Moment", "Record", "Started"),
    "state": (
        "Adjusting", "Asking", "BlankPick", "Confirming", "FirstDraw", "Idle", "Lobby", "Menu", "Mode", "Notice",
        "Over", "Phase", "PlayMode", "Playing", "Reading", "Shown", "TableState",
    ),
    "table": ("Table",),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
