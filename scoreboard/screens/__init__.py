"""Screens for the OLED: display-only models and a pure renderer, laid out for each panel.

>>> from drivers.display.panels import PANELS
>>> from scoreboard.screens import ScoresScreen, PlayerLine, render
>>> scores = ScoresScreen((PlayerLine("Anna", 12, is_turn=True), PlayerLine("Ben", 0)), bag=86)
>>> render(scores, "de").size, render(scores, "de", PANELS["3.12in"]).size, render(scores, "de").mode
((128, 64), (256, 64), '1')
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
    StartingScreen,
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
    "StartingScreen",
    "TallyLine",
    "TallyScreen",
    "UnseenScreen",
    "WordLine",
    "format_clock",
    "render",
    "text",
]
