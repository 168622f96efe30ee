"""The rules of the game, pure: board, tiles, placement, scoring, profiles, game, GCG.

Nothing here does I/O, reads a clock or keeps global state; randomness comes only from
an injected generator. Everything else in the project imports this package. Its names
load on first use, so that a module such as ``engine.rules`` comes without the rest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .board import CENTRE, Board, Direction, PlacedTile, Position, Premium, Square
    from .errors import ScoreboardError
    from .game import Game, Tally, TallyRow, Termination
    from .lexicon import Lexicon, SetLexicon, infer_blanks, invalid_words
    from .placement import Placement, validate
    from .rules import PROFILES, RuleProfile, get_profile, profile_names
    from .scoring import ScoredPlay, Word, score
    from .tiles import ENGLISH, FRENCH, GERMAN, Bag, Tile, TileSet, get_tile_set

_MODULES = {
    "board": ("CENTRE", "Board", "Direction", "PlacedTile", "Position", "Premium", "Square"),
    "errors": ("ScoreboardError",),
    "game": ("Game", "Tally", "TallyRow", "Termination"),
    "lexicon": ("Lexicon", "SetLexicon", "infer_blanks", "invalid_words"),
    "placement": ("Placement", "validate"),
    "rules": ("PROFILES", "RuleProfile", "get_profile", "profile_names"),
    "scoring": ("ScoredPlay", "Word", "score"),
    "tiles": ("ENGLISH", "FRENCH", "GERMAN", "Bag", "Tile", "TileSet", "get_tile_set"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
