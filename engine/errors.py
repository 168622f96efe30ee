"""Typed errors of the rules engine.

Every failure kind has its own class. Each subclasses :class:`ScoreboardError` (the
project's base error) and the builtin that fits, so callers can catch either. Messages
quote the bad input.
"""

from __future__ import annotations

from collections.abc import Iterable


class ScoreboardError(Exception):
    """Base class of every error the scoreboard raises on purpose."""


# --- notation -------------------------------------------------------------------------


class NotationError(ScoreboardError, ValueError):
    """A square, position, tile or word that cannot be parsed."""


class UnknownTileError(NotationError):
    """A letter that is not part of the tile set in use."""


class UnknownProfileError(ScoreboardError, KeyError):
    """A rule profile name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the whole message again
        return str(self.args[0])


class UnknownTileSetError(ScoreboardError, KeyError):
    """A tile set name that is not registered."""

    def __str__(self) -> str:
        return str(self.args[0])


class VariantError(ScoreboardError, ValueError):
    """A rule variant value that is out of range or not allowed for the profile."""


class PlayerCountError(VariantError):
    """A number of players the profile does not allow."""


# --- placement ------------------------------------------------------------------------


def _names(squares: Iterable[object]) -> str:
    return ", ".join(getattr(s, "name")() if hasattr(s, "name") else str(s) for s in squares)


class PlacementError(ScoreboardError, ValueError):
    """A placement of tiles that the rules do not allow."""


class NoTilesError(PlacementError):
    """A play that puts no tile on the board."""

    def __init__(self) -> None:
        super().__init__("no tiles placed")


class DuplicateSquareError(PlacementError):
    """The same square given twice in one placement."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"square given twice: {_names(self.squares)}")


class SquareOccupiedError(PlacementError):
    """A new tile on a square that already holds a tile."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"square already occupied: {_names(self.squares)}")


class NotInLineError(PlacementError):
    """New tiles that do not share one row or one column."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"tiles not in one line: {_names(self.squares)}")


class GapError(PlacementError):
    """Empty squares between the new tiles of a play."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"gap in the line at {_names(self.squares)}")


class NotConnectedError(PlacementError):
    """A play that touches no tile already on the board."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"tiles at {_names(self.squares)} do not touch the tiles on the board")


class OpeningPlayError(PlacementError):
    """A first play (board empty) that breaks the opening rules."""


class CentreNotCoveredError(OpeningPlayError):
    """A first play that does not cover the centre star H8."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"the first play must cover H8, not only {_names(self.squares)}")


class OpeningTooShortError(OpeningPlayError):
    """A first play with a single tile."""

    def __init__(self, squares: Iterable[object]) -> None:
        self.squares = tuple(squares)
        super().__init__(
            f"the first play needs at least 2 tiles, got {len(self.squares)} at {_names(self.squares)}"
        )


class TooManyTilesError(PlacementError):
    """More new tiles than a rack holds."""

    def __init__(self, count: int, rack_size: int) -> None:
        self.count = count
        self.rack_size = rack_size
        super().__init__(f"{count} tiles placed, but a rack holds only {rack_size}")


class NotOnRackError(PlacementError):
    """Played tiles that are not on the player's rack."""

    def __init__(self, missing: Iterable[str], rack: str) -> None:
        self.missing = tuple(missing)
        self.rack = rack
        super().__init__(f"the rack {rack!r} lacks {''.join(self.missing)!r} for this play")


class TileCountError(PlacementError):
    """More copies of a letter on the board than the tile set has."""

    def __init__(self, letter: str, count: int, available: int) -> None:
        self.letter = letter
        self.count = count
        self.available = available
        super().__init__(
            f"{count} tiles {letter!r} would be on the board, but the set has only {available}"
        )


# --- game flow ------------------------------------------------------------------------


class GameError(ScoreboardError, RuntimeError):
    """A game command that is not allowed in the current state."""


class NotYourTurnError(GameError):
    """A move by a player whose turn it is not."""


class NoSuchSeatError(GameError, IndexError):
    """A seat number outside the game's players."""


class GameOverError(GameError):
    """A command after the game has ended."""


class ExchangeNotAllowedError(GameError):
    """An exchange while the bag holds too few tiles, or of tiles not on the rack."""


class ChallengeError(GameError):
    """A challenge that cannot be made: no open window, own play, too late."""


class WindowOpenError(GameError):
    """A command that must wait until the last play's challenge window has closed."""


class BagError(GameError):
    """Drawing tiles that are not in the bag, or returning tiles that are not known."""


class CorrectionError(GameError):
    """A correction (undo, score adjustment) that cannot be applied."""




# --- records --------------------------------------------------------------------------


class GcgError(ScoreboardError, ValueError):
    """A GCG file that cannot be read; carries the line number when one applies."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


class GcgEncodingError(GcgError):
    """A GCG file that declares an encoding other than UTF-8, or whose bytes do not decode."""
