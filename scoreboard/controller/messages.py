"""Messages on the display: a notice for a while, an error, an engine refusal told by its data.

An engine refusal becomes the error screen of its kind, named by the squares, the seat or
the reason it carries (:func:`refusal_screen`); nothing is read from the error's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engine.board import CENTRE, Square
from engine.errors import (
    CentreNotCoveredError,
    CorrectionError,
    CorrectionRefusal,
    ExchangeNotAllowedError,
    ExchangeRefusal,
    GapError,
    InvalidWordsError,
    NotConnectedError,
    NotInLineError,
    NotOnRackError,
    NotYourTurnError,
    OpeningTooShortError,
    ScoreboardError,
)
from scoreboard.screens.models import ErrorKind, ErrorScreen, Screen

from .context import Context
from .state import Notice, TableState

__all__ = ["error", "notice", "refusal", "refusal_screen", "squares_text"]


def notice(ctx: Context, s: TableState, screen: Screen, seconds: float | None = None, seat: int | None = None) -> TableState:
    """``s`` showing ``screen`` for ``seconds`` (default: the notice time), on ``seat``'s panel
    only or on every panel."""
    wait = ctx.settings.notice_s if seconds is None else seconds
    return replace(s, notice=Notice(screen, s.now + wait, seat))


def error(ctx: Context, s: TableState, kind: ErrorKind, detail: str = "", seat: int | None = None) -> TableState:
    """``s`` showing the error ``kind`` with ``detail`` (squares, a name, a count)."""
    return notice(ctx, s, ErrorScreen(kind, detail), seat=seat)


def refusal(ctx: Context, s: TableState, e: ScoreboardError, seat: int | None = None) -> TableState:
    """``s`` showing why the engine refused a move, from the error's data."""
    return notice(ctx, s, refusal_screen(e, s.names), seat=seat)


_CORRECTIONS = {
    CorrectionRefusal.NO_PLAY: ErrorKind.NOTHING_TO_UNDO,
    CorrectionRefusal.NOT_LAST: ErrorKind.MOVED_SINCE,
    CorrectionRefusal.MOVED_SINCE: ErrorKind.MOVED_SINCE,
    CorrectionRefusal.WITHDRAWN: ErrorKind.ALREADY_WITHDRAWN,
    CorrectionRefusal.NO_RULING: ErrorKind.TOO_LATE,
}


def refusal_screen(e: ScoreboardError, names: tuple[str, ...]) -> ErrorScreen:
    """The error screen of an engine refusal: its kind and the squares, seat or reason it carries."""
    match e:
        case NotInLineError(squares=squares):
            return ErrorScreen(ErrorKind.NOT_IN_LINE, squares_text(squares))
        case GapError(squares=squares):
            return ErrorScreen(ErrorKind.GAP, squares_text(squares))
        case NotConnectedError(squares=squares):
            return ErrorScreen(ErrorKind.NOT_TOUCHING, squares_text(squares))
        case CentreNotCoveredError(squares=squares):  # the centre to cover, then the play's squares
            return ErrorScreen(ErrorKind.NOT_CENTER, squares_text((CENTRE, *squares)))
        case OpeningTooShortError(squares=squares):
            return ErrorScreen(ErrorKind.OPENING_TOO_SHORT, squares_text(squares))
        case NotOnRackError():
            return ErrorScreen(ErrorKind.NOT_YOUR_TILE)
        case InvalidWordsError(words=words):
            return ErrorScreen(ErrorKind.NOT_A_WORD, ", ".join(words))
        case NotYourTurnError(turn=turn):
            return ErrorScreen(ErrorKind.NOT_YOUR_TURN, names[turn])
        case ExchangeNotAllowedError(reason=ExchangeRefusal.NOT_ON_RACK):
            return ErrorScreen(ErrorKind.NOT_YOUR_TILE)
        case ExchangeNotAllowedError(reason=ExchangeRefusal.BAG_TOO_SMALL | ExchangeRefusal.MORE_THAN_BAG, bag=bag):
            return ErrorScreen(ErrorKind.EXCHANGE_NOT_ALLOWED, str(bag))
        case CorrectionError(reason=reason) if reason in _CORRECTIONS:
            return ErrorScreen(_CORRECTIONS[reason])
        case _:  # a refusal the table cannot lead to (a bug): the engine's own words
            return ErrorScreen(ErrorKind.BAD_PLAY, str(e))


def squares_text(squares: Iterable[Square]) -> str:
    """Squares for a display line, as given: ``H8 H9 H10``."""
    return " ".join(sq.name() for sq in squares)
