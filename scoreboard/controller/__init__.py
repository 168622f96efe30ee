"""The turn controller: board reads, buttons and ticks in; journal records and screens out.

Its names load on first use (``scoreboard.controller.records`` comes without the rest).

>>> from scoreboard.controller import Table, Context  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Context as Context, Settings as Settings, TileLookup as TileLookup
    from .effects import Append as Append, Effect as Effect, GameOver as GameOver, HouseWord as HouseWord, PowerOff as PowerOff, Show as Show
    from .inputs import BoardAway as BoardAway, BoardBack as BoardBack, BoardRead as BoardRead, Input as Input, ReaderState as ReaderState, Tick as Tick
    from .records import ClockState as ClockState, Committed as Committed, Record as Record, Started as Started
    from .state import Adjusting as Adjusting, Asking as Asking, BlankPick as BlankPick, Confirming as Confirming, FirstDraw as FirstDraw, Idle as Idle, Lobby as Lobby, Menu as Menu, Mode as Mode, Notice as Notice, Over as Over, Phase as Phase, PlayMode as PlayMode, Playing as Playing, Reading as Reading, Shown as Shown, TableState as TableState
    from .table import Table as Table

_MODULES = {
    'context': ('Context', 'Settings', 'TileLookup',),
    'effects': ('Append', 'Effect', 'GameOver', 'HouseWord', 'PowerOff', 'Show',),
    'inputs': ('BoardAway', 'BoardBack', 'BoardRead', 'Input', 'ReaderState', 'Tick',),
    'records': ('ClockState', 'Committed', 'Record', 'Started',),
    'state': ('Adjusting', 'Asking', 'BlankPick', 'Confirming', 'FirstDraw', 'Idle', 'Lobby', 'Menu', 'Mode', 'Notice', 'Over', 'Phase', 'PlayMode', 'Playing', 'Reading', 'Shown', 'TableState',),
    'table': ('Table',),
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
