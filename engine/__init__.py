"""The rules of the game, pure: board, tiles, placement, scoring, profiles, game, GCG.

Nothing here does I/O, reads a clock or keeps global state; randomness comes only from
an injected generator. Everything else in the project imports this package.
"""

from .board import CENTRE, Board, Direction, PlacedTile, Position, Premium, Square
from .errors import ScoreboardError
from .game import Game, Tally, TallyRow, Termination
from .lexicon import Lexicon, SetLexicon, infer_blanks, invalid_words
from .placement import Placement, validate
from .rules import PROFILES, RuleProfile, get_profile, profile_names
from .scoring import ScoredPlay, Word, score
from .tiles import ENGLISH, FRENCH, GERMAN, Bag, Tile, TileSet, get_tile_set

__all__ = [
    "CENTRE",
    "ENGLISH",
    "FRENCH",
    "GERMAN",
    "PROFILES",
    "Bag",
    "Board",
    "Direction",
    "Game",
    "Lexicon",
    "PlacedTile",
    "Placement",
    "Position",
    "Premium",
    "RuleProfile",
    "ScoreboardError",
    "ScoredPlay",
    "SetLexicon",
    "Square",
    "Tally",
    "TallyRow",
    "Termination",
    "Tile",
    "TileSet",
    "Word",
    "get_profile",
    "get_tile_set",
    "infer_blanks",
    "invalid_words",
    "profile_names",
    "score",
    "validate",
]
