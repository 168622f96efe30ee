"""Screen models: plain, frozen display data, one dataclass per kind of screen.

A model holds only what the screen shows (names, numbers, letters, an enum for the
message), never engine objects, so :func:`scoreboard.screens.render.render` is a pure
function of the model and the UI language. Player names are strings; words are written
as played, a lower-case letter standing for a blank (the GCG convention).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from scoreboard.drawing.starting import StartingScreen
from scoreboard.enrollment import IssueKind, Phase

__all__ = [
    "LANGUAGES",
    "AdjustScreen",
    "BlankPickerScreen",
    "ChallengeResultScreen",
    "ChallengeWindowScreen",
    "ConfirmKind",
    "ConfirmScreen",
    "DrawForFirstScreen",
    "EnrollIssue",
    "EnrollScreen",
    "EnrollStep",
    "ErrorKind",
    "ErrorScreen",
    "Lang",
    "LastPlayScreen",
    "MenuItem",
    "MenuScreen",
    "PausedScreen",
    "PlayerLine",
    "ReadingScreen",
    "ScoresScreen",
    "Screen",
    "StartingScreen",
    "TallyLine",
    "TallyScreen",
    "UnseenScreen",
    "WordLine",
]

Lang = Literal["de", "fr", "en"]
LANGUAGES: tuple[Lang, ...] = ("de", "fr", "en")
"""The UI languages, as in ``ui.language``."""


@dataclass(frozen=True)
class PlayerLine:
    """One player on the scores screen; ``clock_s``: seconds left (negative: overtime)."""

    name: str
    score: int
    clock_s: int | None = None
    is_turn: bool = False


@dataclass(frozen=True)
class ScoresScreen:
    """Every player's score in turn order, whose turn it is, and the tiles in the bag.

    ``yours``: on the own panel of the player whose turn it is ("your turn"; left out of
    the ``repr``, which the shared display's log keeps as it always was).
    """

    players: tuple[PlayerLine, ...]
    bag: int
    yours: bool = field(default=False, repr=False)


@dataclass(frozen=True)
class WordLine:
    """A word formed by a play; lower-case letters in ``text`` are blanks."""

    text: str
    score: int


@dataclass(frozen=True)
class LastPlayScreen:
    """The words of the last play (main word first), their scores and the total."""

    player: str
    words: tuple[WordLine, ...]
    total: int
    bingo: bool = False
    bingo_bonus: int = 50


@dataclass(frozen=True)
class ChallengeWindowScreen:
    """The challenge window is open: seconds left of ``total_s``, whose play it is."""

    seconds_left: int
    total_s: int = 20
    player: str = ""


@dataclass(frozen=True)
class ChallengeResultScreen:
    """The ruling: ``valid`` (the play stands) or not, and what it cost.

    ``points``: the challenger's penalty (negative) or the player's bonus (positive);
    ``lost_turn``: the challenger loses a turn; ``invalid_words`` when not valid;
    ``lost_game``: under challenge=triple, the name of who lost the challenge and the game.
    """

    challenger: str
    player: str
    valid: bool
    invalid_words: tuple[str, ...] = ()
    points: int = 0
    lost_turn: bool = False
    lost_game: str = ""


class ErrorKind(enum.Enum):
    """What is wrong, as the players are told."""

    NOT_IN_LINE = "not-in-line"
    GAP = "gap"
    NOT_TOUCHING = "not-touching"
    NOT_CENTER = "not-center"
    TILE_MOVED = "tile-moved"
    UNKNOWN_TILE = "unknown-tile"
    BOARD_DISCONNECTED = "board-disconnected"
    BOARD_REFUSED = "board-refused"  # the controller answers, its board cannot be used; detail: why, wrapped
    READ_TIMEOUT = "read-timeout"
    REMOVE_TILES = "remove-tiles"  # a withdrawn play: take these tiles off the board
    PUT_BACK_TILES = "put-back-tiles"  # tiles drawn after a withdrawn play: back in the bag
    NOT_YOUR_TILE = "not-your-tile"  # new tiles not from the player's rack; detail: squares
    NOT_YOUR_TURN = "not-your-turn"  # Done at another seat; detail: whose turn it is
    REFILL_RACK = "refill-rack"  # draw first; detail: name and count, "Anna: 3"
    TOO_LATE = "too-late"  # a challenge after the challenge window closed
    EXCHANGE_NOT_ALLOWED = "exchange-not-allowed"  # too few in the bag; detail: tiles in bag
    DUPLICATE_TILE = "duplicate-tile"  # one tile read in two places; detail: the places
    MOVE_TIME_UP = "move-time-up"  # the time for a move ran out; detail: player name
    JOURNAL_FAILED = "journal-failed"  # game record not saved, move not accepted; detail: why
    JOURNAL_DAMAGED = "journal-damaged"  # a damaged journal was kept aside; detail: its time stamp
    JOURNAL_UNREADABLE = "journal-unreadable"  # the journal cannot be opened, the service stops; detail: where to look
    BAD_PLAY = "bad-play"  # any other invalid play; detail: the engine's reason, wrapped
    READER_FAULT = "reader-fault"  # a board reader does not answer: its cells cannot be read
    OPENING_TOO_SHORT = "opening-too-short"  # the first play has one tile; detail: its square
    NOTHING_TO_UNDO = "nothing-to-undo"  # Undo with no play that can still be taken back
    MOVED_SINCE = "moved-since"  # a correction of a play or ruling after somebody moved
    ALREADY_WITHDRAWN = "already-withdrawn"  # Undo of a play a challenge already took back
    NOT_A_WORD = "not-a-word"  # challenge=void: the play is refused; detail: the words
    NO_CHALLENGE = "no-challenge"  # challenge=void: plays are checked when laid, none to challenge


@dataclass(frozen=True)
class ErrorScreen:
    """An error or an instruction to fix the board; ``detail``: squares or tiles concerned.

    ``detail`` is one line under the text, except for :attr:`ErrorKind.BAD_PLAY`, whose
    detail (the engine's reason) is word-wrapped on the lines left.
    """

    kind: ErrorKind
    detail: str = ""


@dataclass(frozen=True)
class BlankPickerScreen:
    """Choose the letter of the blank on ``square`` among ``letters``."""

    square: str
    letters: tuple[str, ...]
    selected: int = 0


class ConfirmKind(enum.Enum):
    """What a confirmation screen asks.

    ``PASS`` and ``EXCHANGE`` are confirmed by the player; the others are requests that
    a second seat confirms.
    """

    PASS = "pass"
    EXCHANGE = "exchange"
    UNDO = "undo"
    ADJUST = "adjust"
    OVERRIDE = "override"
    END_GAME = "end-game"
    NEW_GAME = "new-game"


@dataclass(frozen=True)
class ConfirmScreen:
    """A question that holding Done confirms.

    ``PASS``/``EXCHANGE``: ``player`` passes or exchanges ``count`` tiles. The other kinds
    are asked by the seat ``by`` and confirmed at another seat; ``ADJUST`` adds the signed
    ``points`` to ``player``'s score.
    """

    kind: ConfirmKind
    count: int = 0
    player: str = ""
    points: int = 0
    by: str = ""


@dataclass(frozen=True)
class UnseenScreen:
    """Tiles not on the board nor on the asking player's rack: ``(letter, count)`` pairs.

    The blank is ``"?"``; letters with a count of 0 are left out when drawing.
    """

    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class TallyLine:
    """One player's line of the end-of-game tally."""

    name: str
    score: int
    rack_adjustment: int
    final: int


@dataclass(frozen=True)
class TallyScreen:
    """The end-of-game tally; ``winners``: indexes into ``rows`` (more than one: a tie)."""

    rows: tuple[TallyLine, ...]
    winners: tuple[int, ...]


# The enrollment's own phases and issue kinds, under the names the screens use.
EnrollStep = Phase
EnrollIssue = IssueKind


@dataclass(frozen=True)
class EnrollScreen:
    """An enrollment prompt: put every ``letter`` tile down (``placed`` of ``expected``).

    ``letter`` ``"?"`` is the blank. ``issue`` and ``detail`` (where, which letter) tell
    what must be fixed first.
    """

    step: EnrollStep
    letter: str = ""
    placed: int = 0
    expected: int = 0
    issue: EnrollIssue | None = None
    detail: str = ""


class MenuItem(enum.Enum):
    """An entry of the menu."""

    NEW_GAME = "new-game"
    PLAYERS = "players"
    PROFILE = "profile"
    PAUSE = "pause"
    UNDO = "undo"
    ADJUST_SCORE = "adjust-score"
    END_GAME = "end-game"
    SHUT_DOWN = "shut-down"


@dataclass(frozen=True)
class MenuScreen:
    """The menu with ``items[selected]`` highlighted; ``value``: its setting, shown with it.

    ``value`` is e.g. ``"3"`` for ``PLAYERS`` or ``"en-tournament"`` for ``PROFILE``.
    """

    items: tuple[MenuItem, ...] = tuple(MenuItem)
    selected: int = 0
    value: str = ""


@dataclass(frozen=True)
class ReadingScreen:
    """The board is being read after ``player`` pressed Done."""

    player: str = ""


@dataclass(frozen=True)
class PausedScreen:
    """The game is paused, the clocks stopped; any button resumes. ``player``: whose turn."""

    player: str = ""


@dataclass(frozen=True)
class DrawForFirstScreen:
    """The draw for the first player: every seat puts one tile on its rack.

    ``letters[i]``: the letter seat ``i`` drew (``""`` not yet, ``"?"`` the blank).
    ``first``: the seat that begins, once known (the tiles go back, then everyone draws);
    ``redraw``: seats that tied and draw again.
    """

    names: tuple[str, ...]
    letters: tuple[str, ...]
    first: int | None = None
    redraw: tuple[int, ...] = ()


@dataclass(frozen=True)
class AdjustScreen:
    """Adjusting ``player``'s ``score`` (before the adjustment) by the signed ``points``."""

    player: str
    points: int
    score: int


Screen: TypeAlias = (
    ScoresScreen
    | LastPlayScreen
    | ChallengeWindowScreen
    | ChallengeResultScreen
    | ErrorScreen
    | BlankPickerScreen
    | ConfirmScreen
    | UnseenScreen
    | TallyScreen
    | EnrollScreen
    | MenuScreen
    | ReadingScreen
    | PausedScreen
    | DrawForFirstScreen
    | AdjustScreen
    | StartingScreen
)
"""Any screen model."""
