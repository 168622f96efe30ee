"""Typed errors of the rules engine.

Every failure kind has its own class. Each subclasses :class:`ScoreboardError` (the
project's base error) and the builtin that fits, so callers can catch either. Messages
quote the bad input.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (board imports this module)
    from .board import Square


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
    """A number of players the profile does not allow: ``players``, the profile's
    ``least`` and ``most`` (2 under ``challenge=triple``), the ``profile``'s name."""

    def __init__(self, message: str, players: int, least: int, most: int, profile: str) -> None:
        super().__init__(message)
        self.players = players
        self.least = least
        self.most = most
        self.profile = profile


# --- placement ------------------------------------------------------------------------


def _names(squares: Iterable[Square]) -> str:
    return ", ".join(s.name() for s in squares)


class PlacementError(ScoreboardError, ValueError):
    """A placement of tiles that the rules do not allow."""


class NoTilesError(PlacementError):
    """A play that puts no tile on the board."""

    def __init__(self) -> None:
        super().__init__("no tiles placed")


class DuplicateSquareError(PlacementError):
    """The same square given twice in one placement."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"square given twice: {_names(self.squares)}")


class SquareOccupiedError(PlacementError):
    """A new tile on a square that already holds a tile."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"square already occupied: {_names(self.squares)}")


class NotInLineError(PlacementError):
    """New tiles that do not share one row or one column."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"tiles not in one line: {_names(self.squares)}")


class GapError(PlacementError):
    """Empty squares between the new tiles of a play."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"gap in the line at {_names(self.squares)}")


class NotConnectedError(PlacementError):
    """A play that touches no tile already on the board."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"tiles at {_names(self.squares)} do not touch the tiles on the board")


class OpeningPlayError(PlacementError):
    """A first play (board empty) that breaks the opening rules."""


class CentreNotCoveredError(OpeningPlayError):
    """A first play that does not cover the centre star H8."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"the first play must cover H8, not only {_names(self.squares)}")


class OpeningTooShortError(OpeningPlayError):
    """A first play with a single tile."""

    def __init__(self, squares: Iterable[Square]) -> None:
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


class UnnamedBlankError(PlacementError):
    """A blank laid without a letter (the letter is chosen before the play is judged)."""

    def __init__(self, squares: Iterable[Square]) -> None:
        self.squares = tuple(squares)
        super().__init__(f"the blank at {_names(self.squares)} has no letter yet")


class TileCountError(PlacementError):
    """More copies of a letter on the board than the tile set has."""

    def __init__(self, letter: str, count: int, available: int) -> None:
        self.letter = letter
        self.count = count
        self.available = available
        super().__init__(
            f"{count} tiles {letter!r} would be on the board, but the set has only {available}"
        )


class InvalidWordsError(PlacementError):
    """A play refused when laid because ``words`` are not in the lexicon (``challenge=void``)."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = tuple(words)
        super().__init__(f"not in the word list: {', '.join(self.words)} (challenge=void: the play is refused)")


# --- game flow ------------------------------------------------------------------------


class GameError(ScoreboardError, RuntimeError):
    """A game command that is not allowed in the current state."""


class NotYourTurnError(GameError):
    """A move by ``player`` while it is ``turn``'s turn (seat numbers, 0-based)."""

    def __init__(self, player: int, turn: int, names: Sequence[str]) -> None:
        self.player = player
        self.turn = turn
        super().__init__(f"it is {names[turn]}'s turn, not {names[player]}'s")


class NoSuchSeatError(GameError, IndexError):
    """A seat number ``seat`` outside a game of ``players`` seats."""

    def __init__(self, seat: int, players: int, message: str = "") -> None:
        self.seat = seat
        self.players = players
        super().__init__(message or f"there is no seat {seat!r} in a game of {players}")

    def __str__(self) -> str:  # IndexError's str is fine; keep the message as given
        return str(self.args[0])


class GameOverError(GameError):
    """A command after the game has ended (``termination``: why it ended, its value)."""

    def __init__(self, message: str, termination: str | None = None) -> None:
        self.termination = termination
        super().__init__(message)


class ExchangeRefusal(enum.Enum):
    """Why an exchange is refused."""

    NO_TILES = "no-tiles"
    BAG_TOO_SMALL = "bag-too-small"  # fewer tiles in the bag than the profile's minimum
    MORE_THAN_BAG = "more-than-bag"
    NOT_ON_RACK = "not-on-rack"
    DRAWN_COUNT = "drawn-count"  # drew another number of tiles than were put back


class ExchangeNotAllowedError(GameError):
    """An exchange that is refused for ``reason``; ``bag``: tiles in the bag, ``tiles``: the exchange."""

    def __init__(self, reason: ExchangeRefusal, message: str, *, bag: int, tiles: str = "") -> None:
        self.reason = reason
        self.bag = bag
        self.tiles = tiles
        super().__init__(message)


class ChallengeRefusal(enum.Enum):
    """Why a challenge cannot be made."""

    NO_WINDOW = "no-window"  # too late: the last play is final or was taken back
    OWN_PLAY = "own-play"
    NO_PHONY_RULE = "no-phony-rule"  # the phony-extension ruling outside fr, or on a valid play
    VOID = "void"  # challenge=void: plays are checked when laid, there is nothing to challenge


class ChallengeError(GameError):
    """A challenge by ``challenger`` that cannot be made, for ``reason``."""

    def __init__(self, reason: ChallengeRefusal, message: str, challenger: int | None = None) -> None:
        self.reason = reason
        self.challenger = challenger
        super().__init__(message)


class WindowOpenError(GameError):
    """A move that must wait: ``player`` went out and the game ends when the window closes."""

    def __init__(self, player: int, name: str) -> None:
        self.player = player
        super().__init__(f"{name} went out; the game ends when the challenge window closes")


class BagError(GameError):
    """Tiles ``letters`` that are not where they are taken from (the bag, a rack), or no room."""

    def __init__(self, message: str, letters: str = "") -> None:
        self.letters = letters
        super().__init__(message)


class CorrectionRefusal(enum.Enum):
    """Why a correction cannot be applied."""

    NO_PLAY = "no-play"  # nothing to undo
    NOT_LAST = "not-last"  # someone moved since the play
    WITHDRAWN = "withdrawn"  # the play was already taken back
    NO_RULING = "no-ruling"
    MOVED_SINCE = "moved-since"  # someone moved since the ruling
    NEEDS_WORDS = "needs-words"  # overriding a valid ruling needs the words to rule invalid
    NEGATIVE = "negative"  # a time penalty below 0
    NOT_ALLOWED = "not-allowed"  # the profile allows no override (en-tournament)


class CorrectionError(GameError):
    """A correction (undo, override, time penalty) that cannot be applied, for ``reason``."""

    def __init__(self, reason: CorrectionRefusal, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class OverrideNotAllowedError(CorrectionError):
    """An override of a ruling under ``profile``, whose rules allow none (``overrides_allowed``)."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        super().__init__(
            CorrectionRefusal.NOT_ALLOWED, f"profile {profile!r} allows no override of a challenge ruling"
        )


# --- records --------------------------------------------------------------------------


class GcgError(ScoreboardError, ValueError):
    """A GCG file that cannot be read; carries the line number when one applies."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


class GcgEncodingError(GcgError):
    """A GCG file in an encoding we do not read: ``encoding`` is the one declared or found
    (from a byte order mark: ``UTF-16-LE`` ...), else None (bytes that do not decode)."""

    def __init__(self, message: str, line: int | None = None, encoding: str | None = None) -> None:
        self.encoding = encoding
        super().__init__(message, line)


class GcgEmptyError(GcgError):
    """A GCG file with no game in it: empty (``size`` 0), blank, or without players and events
    (``size``: its bytes or characters)."""

    def __init__(self, message: str, size: int) -> None:
        self.size = size
        super().__init__(message)


class GcgLimitError(GcgError):
    """A GCG file past one of the reader's bounds: ``bound`` (``bytes``, ``lines`` or
    ``events``), its ``limit`` and the number ``found``."""

    def __init__(self, message: str, bound: str, limit: int, found: int) -> None:
        self.bound, self.limit, self.found = bound, limit, found
        super().__init__(message)
