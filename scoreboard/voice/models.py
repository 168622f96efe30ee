"""Announcement models: what the table says aloud, one frozen dataclass per kind of news.

Like the screen models, a speech holds only what is said (names, words as played, numbers),
never engine objects, so :func:`scoreboard.voice.text.announcement` is a pure function of the
speech and the display's language. Words are written as played, a lower-case letter standing
for a blank (the GCG convention); ``lang`` on a word is the game's language, whose voice says it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeAlias, assert_never

from scoreboard.screens.models import Lang

__all__ = [
    "ExchangeSpeech",
    "PassSpeech",
    "PlaySpeech",
    "RulingSpeech",
    "Speech",
    "SpeechKind",
    "TallySpeech",
    "TimeSpeech",
    "TurnSpeech",
    "kind_of",
]


class SpeechKind(enum.Enum):
    """What an announcement is about, as ``voice.events`` names it."""

    PLAY = "play"  # a play and its score, a pass, an exchange
    CHALLENGE = "challenge"  # a challenge and its ruling (or an overridden ruling)
    TURN = "turn"  # whose turn it is
    TIME = "time"  # the game clock's warnings, the move limit
    TALLY = "tally"  # the final tally


@dataclass(frozen=True)
class PlaySpeech:
    """``player`` laid ``word`` (the main word; blanks lower case) for ``points``."""

    player: str
    word: str
    points: int
    lang: Lang
    bingo: bool = False


@dataclass(frozen=True)
class PassSpeech:
    """``player`` passed."""

    player: str


@dataclass(frozen=True)
class ExchangeSpeech:
    """``player`` exchanged ``count`` tiles."""

    player: str
    count: int


@dataclass(frozen=True)
class RulingSpeech:
    """``challenger`` challenged ``player``'s play: ``valid`` or not.

    ``words``: the play's main word when valid, else the words ruled invalid (in ``lang``);
    ``points``: the challenger's penalty (negative) or the player's bonus (positive);
    ``lost_turn``: the challenger loses a turn; ``lost_game``: who lost the game (triple);
    ``overridden``: a second seat reversed the ruling.
    """

    challenger: str
    player: str
    valid: bool
    words: tuple[str, ...]
    lang: Lang
    points: int = 0
    lost_turn: bool = False
    lost_game: str = ""
    overridden: bool = False


@dataclass(frozen=True)
class TurnSpeech:
    """It is ``player``'s turn."""

    player: str


@dataclass(frozen=True)
class TimeSpeech:
    """``player`` has ``left_s`` seconds left (0: time is up) on the game clock, or with
    ``move`` for the move."""

    player: str
    left_s: int
    move: bool = False


@dataclass(frozen=True)
class TallySpeech:
    """The final tally: ``(name, final score)`` best first; ``winners`` (more than one: a tie)."""

    rows: tuple[tuple[str, int], ...]
    winners: tuple[str, ...]


Speech: TypeAlias = PlaySpeech | PassSpeech | ExchangeSpeech | RulingSpeech | TurnSpeech | TimeSpeech | TallySpeech
"""Anything the table announces."""


def kind_of(speech: Speech) -> SpeechKind:
    """The kind of ``speech``, as ``voice.events`` names it."""
    match speech:
        case PlaySpeech() | PassSpeech() | ExchangeSpeech():
            return SpeechKind.PLAY
        case RulingSpeech():
            return SpeechKind.CHALLENGE
        case TurnSpeech():
            return SpeechKind.TURN
        case TimeSpeech():
            return SpeechKind.TIME
        case TallySpeech():
            return SpeechKind.TALLY
        case _:
            assert_never(speech)
