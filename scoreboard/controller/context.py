"""What the controller reads but never changes: rules, lexicons, tiles, names and timings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from engine.lexicon import Lexicon
from engine.rules import PROFILES, RuleProfile
from engine.tiles import Tile, TileSet
from scoreboard.screens.models import Lang
from scoreboard.voice.models import SpeechKind

__all__ = ["Context", "Settings", "TileLookup"]


class TileLookup(Protocol):
    """Which tile a tag carries (the tile registry); None: an unknown tag."""

    def tile_of(self, uid: bytes) -> Tile | None: ...


@dataclass(frozen=True)
class Settings:
    """Timings (seconds) and choices of the table."""

    language: Lang | None = "de"  # None: the language of the game's profile (docs: ui.language "auto")
    window_s: float = 20.0  # the challenge window when the profile's deadline comes later
    read_timeout_s: float = 3.0  # Done waits this long for a settled board read
    result_s: float = 5.0  # a challenge ruling stays on the display
    notice_s: float = 4.0  # an error or a hint stays on the display
    last_play_s: float = 4.0  # the words of a play before the window's countdown
    request_s: float = 30.0  # a correction waits this long for the second seat
    refill: Literal["block", "warn"] = "block"  # a Done while a rack is not refilled
    clock_save_s: float = 15.0  # a running clock is journaled this often
    challenge_grace_s: float = 0.4  # a Challenge waits this long for one pressed earlier
    announce: frozenset[SpeechKind] = frozenset()  # what is announced aloud (none: voice off)


@dataclass(frozen=True)
class Context:
    """``profiles``: a profile name to the profile with the configured variants;
    ``lexicons``: a language to its lexicon (house lists applied); ``tiles``: a tile set to
    its registry; ``names``: the configured player names in seat order (seats beyond them
    get default names in the game's language)."""

    profiles: Callable[[str], RuleProfile]
    lexicons: Callable[[str], Lexicon]
    tiles: Callable[[TileSet], TileLookup]
    names: tuple[str, ...] = ("Player 1", "Player 2")
    settings: Settings = field(default_factory=Settings)
    profile_names: tuple[str, ...] = tuple(PROFILES)

    def language(self, profile: str) -> Lang:
        """The display's language in a game under the profile ``profile``: the configured
        one, else the profile's own (its tile set's: de, fr, else en)."""
        if self.settings.language is not None:
            return self.settings.language
        language = self.profiles(profile).tile_set.language
        return language if language in ("de", "fr") else "en"  # type: ignore[return-value]
