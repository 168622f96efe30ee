"""Scoresheet events (what a game records, one per GCG line) and game commands.

Commands go into :meth:`engine.game.Game.apply`; a game keeps the commands it applied,
with random draws resolved to the tiles drawn, so that replaying them rebuilds it.
Events are the scoresheet: every point a player gets or loses is one event.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board import Position
from .placement import Placement
from .rules import TurnKind
from .scoring import Word

# --- scoresheet events ------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A scoresheet line: who, their rack at that moment (``?`` for blanks), points."""

    player: int
    rack: str
    points: int


@dataclass(frozen=True, kw_only=True)
class PlayMade(Event):
    """Tiles laid and scored. ``position`` and ``word`` are the GCG notation."""

    position: Position
    word: str
    placement: Placement
    words: tuple[Word, ...]
    bingo: bool


@dataclass(frozen=True)
class PlayWithdrawn(Event):
    """The last play taken back after a successful challenge (minus its score)."""


@dataclass(frozen=True)
class Passed(Event):
    """A pass, or a turn lost to a failed challenge (written as a pass in GCG)."""

    reason: TurnKind = TurnKind.PASS


@dataclass(frozen=True, kw_only=True)
class Exchanged(Event):
    """Tiles exchanged (rack letters)."""

    tiles: str


@dataclass(frozen=True)
class ChallengeBonus(Event):
    """Points for the player whose valid play was challenged (five-point rule)."""


@dataclass(frozen=True)
class ChallengePenalty(Event):
    """Points a wrong challenger loses (``player`` is the challenger)."""


@dataclass(frozen=True)
class GameLost(Event):
    """``challenge=triple``: ``player`` lost a challenge and with it the game (0 points)."""


@dataclass(frozen=True)
class ScoreAdjusted(Event):
    """A correction of a player's score made at the table."""


@dataclass(frozen=True)
class TimePenalty(Event):
    """Points lost for overtime on the game clock."""


@dataclass(frozen=True, kw_only=True)
class OutBonus(Event):
    """Points for going out: the value of the other racks (``tiles``), times the profile's factor."""

    tiles: str


@dataclass(frozen=True)
class RackPenalty(Event):
    """A player's own rack value subtracted at the end (``rack`` is that rack)."""


END_ADJUSTMENTS = (OutBonus, RackPenalty)

# --- commands ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """A change to the game, as journaled."""


@dataclass(frozen=True)
class Draw(Command):
    """``player`` draws: ``tiles`` as seen on the rack, or None to draw at random."""

    player: int
    tiles: str | None = None


@dataclass(frozen=True)
class Play(Command):
    """``player`` lays ``placement`` (blanks carry their letters)."""

    player: int
    placement: Placement


@dataclass(frozen=True)
class Pass(Command):
    """``player`` passes."""

    player: int


@dataclass(frozen=True)
class Exchange(Command):
    """``player`` exchanges ``tiles``; ``drawn`` are the new tiles, or None to draw at random."""

    player: int
    tiles: str
    drawn: str | None = None


@dataclass(frozen=True)
class Challenge(Command):
    """``challenger`` challenges the last play; the ruling lists its invalid words.

    ``extends_own_phony`` (``fr`` only): an invalid word extends an unchallenged phony that
    the challenger laid, so the player takes the tiles back and plays again.
    """

    challenger: int
    invalid_words: tuple[str, ...] = ()
    extends_own_phony: bool = False


@dataclass(frozen=True)
class CloseWindow(Command):
    """The challenge window of the last play closes (time out, or all seats agreed)."""


@dataclass(frozen=True)
class UndoLastPlay(Command):
    """Take back the last play as if it had not been made (a correction at the table)."""


@dataclass(frozen=True)
class OverrideRuling(Command):
    """Reverse the ruling on the last challenge (a correction confirmed at the table).

    A play ruled invalid stands; a play ruled valid is withdrawn with ``invalid_words``.
    """

    invalid_words: tuple[str, ...] = ()


@dataclass(frozen=True)
class AdjustScore(Command):
    """Add ``points`` (may be negative) to ``player``'s score (a correction at the table)."""

    player: int
    points: int


@dataclass(frozen=True)
class PenalizeTime(Command):
    """``player`` loses ``points`` for overtime."""

    player: int
    points: int


@dataclass(frozen=True)
class EndGame(Command):
    """End the game at the table (from the menu): each player subtracts their own rack."""
