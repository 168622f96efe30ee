"""Screens for the 128x64 OLED: display-only models and a pure renderer.

>>> from scoreboard.screens import ScoresScreen, PlayerLine, render
>>> image = render(ScoresScreen((PlayerLine("Anna", 12, is_turn=True), PlayerLine("Ben", 0)), bag=86), "de")
>>> image.size, image.mode
((128, 64), '1')
"""

from .models import (
    LANGUAGES,
    AdjustScreen,
    BlankPickerScreen,
    ChallengeResultScreen,
    ChallengeWindowScreen,
    ConfirmKind,
    ConfirmScreen,
    DrawForFirstScreen,
    EnrollIssue,
    EnrollScreen,
    EnrollStep,
    ErrorKind,
    ErrorScreen,
    Lang,
    LastPlayScreen,
    MenuItem,
    MenuScreen,
    PausedScreen,
    PlayerLine,
    ReadingScreen,
    ScoresScreen,
    Screen,
    TallyLine,
    TallyScreen,
    UnseenScreen,
    WordLine,
)
from .render import format_clock, render
from .text import TEXT, text

__all__ = [
    "LANGUAGES",
    "TEXT",
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
    "TallyLine",
    "TallyScreen",
    "UnseenScreen",
    "WordLine",
    "format_clock",
    "render",
    "text",
]
