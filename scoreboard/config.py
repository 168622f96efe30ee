"""Configuration: one TOML file with documented defaults, validated, plus the state directory.

The file has one table per section; every key is optional::

    [game]
    rules = "fr"
    players = ["Anna", "Ben", "Cleo"]

    [paths]
    state_dir = "/var/lib/scoreboard"

Every key is declared once in :data:`OPTIONS`: dotted key, default (as a TOML value), a
one-line doc and a parser that turns a TOML value into the typed value or raises
:class:`ValueError` saying what is allowed. A new section adds its entries there, a frozen
dataclass for its values, an entry in :data:`SECTIONS` and a field on :class:`Config`.
:func:`default_toml` writes the whole file, every key with its default and doc.
``--set KEY=VALUE`` overrides (from the command line) apply on top of the file.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import math
import os
import re
import textwrap
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.errors import ScoreboardError, UnknownProfileError, VariantError
from engine.rules import MoveLimitAction, RuleProfile, get_profile, profile_names

__all__ = [
    "OPTIONS",
    "SECTIONS",
    "ButtonsConfig",
    "Config",
    "DisplayConfig",
    "ConfigError",
    "GameConfig",
    "Option",
    "PathsConfig",
    "UiConfig",
    "config_to_dict",
    "default_toml",
    "load_config",
    "check_buttons",
    "check_display",
    "state_dir",
]

SET_SOURCE = "--set"
"""The ``source`` of a :class:`ConfigError` raised by a ``--set`` override."""


class ConfigError(ScoreboardError, ValueError):
    """A configuration file, ``--set`` override or state directory that cannot be used.

    The message reads ``SOURCE: KEY: what is wrong; what is allowed``. ``key`` is the
    dotted key (or section) concerned, None when the file as a whole is bad; ``source``
    is the file or ``--set`` the value came from, when known.
    """

    def __init__(
        self, message: str, *, key: str | None = None, source: str | Path | None = None
    ) -> None:
        self.message = message
        self.key = key
        self.source = str(source) if source is not None else None
        super().__init__(": ".join(p for p in (self.source, key, message) if p))

    def with_source(self, source: str | Path | None) -> ConfigError:
        """The same error, naming ``source`` as where the value came from."""
        return ConfigError(self.message, key=self.key, source=source)


# --- TOML values in messages and in the generated file -----------------------------------

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def toml_value(value: object) -> str:
    """``value`` written as a TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _show(value: object, limit: int = 60) -> str:
    """``value`` as TOML, shortened for a message."""
    text = toml_value(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _kind(value: object) -> str:
    """What kind of TOML value ``value`` is, for a message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "a date/time"


def _one_of(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to ``word`` (ignoring case), if any is close."""
    folded = {c.casefold(): c for c in candidates}
    match = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # TOML true is not 1


# --- parsers ------------------------------------------------------------------------------


class Parser:
    """Turns a TOML value into a typed value; raises ValueError saying what is allowed."""

    expects = "a value"  # the kind of TOML value wanted, for "is a string, not ..."

    def allowed(self) -> str:
        """What is allowed, for messages and the generated file: ``7 or 9``."""
        raise NotImplementedError

    def __call__(self, value: object) -> Any:
        raise NotImplementedError

    def wrong_type(self, value: object) -> ValueError:
        """The error for a value of the wrong TOML type."""
        return ValueError(
            f"{_show(value)} is {_kind(value)}, not {self.expects}; use {self.allowed()}"
        )

    def not_allowed(self, value: object, hint: str = "") -> ValueError:
        """The error for a value of the right type that is not allowed."""
        return ValueError(f"{_show(value)} is not allowed{hint}; use {self.allowed()}")


class Choice(Parser):
    """One of a fixed set of strings (or a set computed when needed)."""

    expects = "a string"

    def __init__(self, choices: Sequence[str] | Callable[[], Sequence[str]]) -> None:
        self._choices = choices

    def choices(self) -> tuple[str, ...]:
        """The allowed strings."""
        return tuple(self._choices() if callable(self._choices) else self._choices)

    def allowed(self) -> str:
        return _one_of([toml_value(c) for c in self.choices()])

    def __call__(self, value: object) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        choices = self.choices()
        if value not in choices:
            guess = _closest(value, choices)
            raise self.not_allowed(value, f" (did you mean {toml_value(guess)}?)" if guess else "")
        return value


class IntChoice(Parser):
    """One of a fixed set of whole numbers."""

    expects = "a whole number"

    def __init__(self, choices: Sequence[int]) -> None:
        self.choices = tuple(choices)

    def allowed(self) -> str:
        return _one_of([str(c) for c in self.choices])

    def __call__(self, value: object) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        assert isinstance(value, int)
        if value not in self.choices:
            raise self.not_allowed(value)
        return value


class Count(Parser):
    """A whole number, ``minimum`` or more."""

    expects = "a whole number"

    def __init__(self, minimum: int = 0) -> None:
        self.minimum = minimum

    def allowed(self) -> str:
        return f"a whole number, {self.minimum} or more"

    def __call__(self, value: object) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        assert isinstance(value, int)
        if value < self.minimum:
            raise self.not_allowed(value)
        return value


class Text(Parser):
    """A non-empty string on one line."""

    expects = "a string"

    def allowed(self) -> str:
        return "a non-empty string"

    def __call__(self, value: object) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if not value.strip() or any(ord(ch) < 32 for ch in value):
            raise self.not_allowed(value)
        return value


class AutoOrCount(Parser):
    """``"auto"`` or a whole number, ``minimum`` or more."""

    expects = '"auto" or a whole number'

    def __init__(self, minimum: int = 0) -> None:
        self.count = Count(minimum)

    def allowed(self) -> str:
        return f'"auto" or {self.count.allowed()}'

    def __call__(self, value: object) -> int | Literal["auto"]:
        if value == "auto":
            return "auto"
        if isinstance(value, str):
            raise self.not_allowed(value)
        if not _is_int(value):
            raise self.wrong_type(value)
        assert isinstance(value, int)
        if value < self.count.minimum:
            raise self.not_allowed(value)
        return value


class Names(Parser):
    """A list of ``low`` to ``high`` distinct, non-empty names (stripped of outer spaces)."""

    expects = "a list of names"

    def __init__(self, low: int, high: int) -> None:
        self.low = low
        self.high = high

    def allowed(self) -> str:
        return f'a list of {self.low} to {self.high} distinct names, e.g. ["Anna", "Ben"]'

    def __call__(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        names: list[str] = []
        for number, item in enumerate(value, 1):
            if not isinstance(item, str):
                raise ValueError(
                    f"name {number} ({_show(item)}) is {_kind(item)}, not a string;"
                    f" use {self.allowed()}"
                )
            name = item.strip()
            if not name:
                raise ValueError(f"name {number} is empty; use {self.allowed()}")
            if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
                raise ValueError(
                    f"name {number} ({_show(item)}) contains a control character;"
                    f" use {self.allowed()}"
                )
            names.append(name)
        if not self.low <= len(names) <= self.high:
            plural = "" if len(names) == 1 else "s"
            raise ValueError(f"{_show(value)} has {len(names)} name{plural}; use {self.allowed()}")
        seen: dict[str, str] = {}
        for name in names:
            other = seen.get(name.casefold())
            if other is not None:
                same = (
                    f"{_show(name)} is given twice"
                    if other == name
                    else f"{_show(other)} and {_show(name)} are the same name"
                )
                raise ValueError(f"{same}; use {self.allowed()}")
            seen[name.casefold()] = name
        return tuple(names)


class Flag(Parser):
    """``true`` or ``false``."""

    expects = "a boolean"

    def allowed(self) -> str:
        return "true or false"

    def __call__(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.wrong_type(value)
        return value


class Pin(Parser):
    """A BCM GPIO number, 0-27 (the range on the 40-pin header)."""

    expects = "a whole number"

    def allowed(self) -> str:
        return "a BCM GPIO number, 0 to 27"

    def __call__(self, value: object) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        assert isinstance(value, int)
        if not 0 <= value <= 27:
            raise self.not_allowed(value)
        return value


class Pins(Parser):
    """A list of ``low`` to ``high`` distinct BCM GPIO numbers, one per seat."""

    expects = "a list of pins"

    def __init__(self, low: int, high: int) -> None:
        self.low = low
        self.high = high
        self.pin = Pin()

    def allowed(self) -> str:
        return f"a list of {self.low} to {self.high} distinct BCM GPIO numbers (0 to 27), one per seat"

    def __call__(self, value: object) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not _is_int(item) or not 0 <= item <= 27:
                raise ValueError(f"pin {number} ({_show(item)}) is not allowed; use {self.allowed()}")
        if not self.low <= len(value) <= self.high:
            raise ValueError(f"{_show(value)} has {len(value)} pins; use {self.allowed()}")
        if len(set(value)) != len(value):
            raise ValueError(f"{_show(value)} gives a pin twice; use {self.allowed()}")
        return tuple(value)


class I2cAddress(Parser):
    """A 7-bit I2C address, 0x03-0x77; with ``optional`` also 0 (none)."""

    expects = "a whole number"

    def __init__(self, optional: bool = False) -> None:
        self.optional = optional

    def allowed(self) -> str:
        return ("0 (none) or " if self.optional else "") + "an I2C address, 0x03 to 0x77"

    def __call__(self, value: object) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        assert isinstance(value, int)
        if not (0x03 <= value <= 0x77 or (self.optional and value == 0)):
            raise self.not_allowed(value)
        return value


class Channels(Parser):
    """A list of up to ``high`` TCA9548A channels (0-7), one per seat; ``[]`` = none."""

    expects = "a list of channels"

    def __init__(self, high: int) -> None:
        self.high = high

    def allowed(self) -> str:
        return f"[] or a list of up to {self.high} multiplexer channels (0 to 7), one per seat"

    def __call__(self, value: object) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not _is_int(item) or not 0 <= item <= 7:
                raise ValueError(
                    f"channel {number} ({_show(item)}) is not allowed; use {self.allowed()}"
                )
        if len(value) > self.high:
            raise ValueError(f"{_show(value)} has {len(value)} channels; use {self.allowed()}")
        return tuple(value)


class DirPath(Parser):
    """``""`` (the default location), an absolute path or a path starting with ``~``."""

    expects = "a string"

    def allowed(self) -> str:
        return '"" (the default), an absolute path or a path starting with ~'

    def __call__(self, value: object) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if "\0" in value:
            raise self.not_allowed(value, " (it contains a NUL character)")
        if value and not (value.startswith("~") or os.path.isabs(value)):
            raise self.not_allowed(value, " (a relative path)")
        return value


# --- the schema ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One configuration key: dotted key, default TOML value, one-line doc, parser."""

    key: str
    default: Any
    doc: str
    parse: Parser

    @property
    def section(self) -> str:
        """The section (TOML table) the key is in: ``game``."""
        return self.key.partition(".")[0]

    @property
    def name(self) -> str:
        """The key inside its section: ``rules``."""
        return self.key.partition(".")[2]


@dataclass(frozen=True)
class GameConfig:
    """The ``[game]`` section: rule profile, players and rule variants."""

    rules: str = "de"
    players: tuple[str, ...] = ("Player 1", "Player 2")
    rack: int = 7
    target: int = 0
    challenge: str = "double"
    move_limit: int = 0
    move_limit_action: str = "warn"
    clock: int = 0
    overtime: int | Literal["auto"] = "auto"
    challenge_seconds: int = 20
    refill: str = "block"


@dataclass(frozen=True)
class PathsConfig:
    """The ``[paths]`` section: where the scoreboard keeps its files."""

    state_dir: str = ""


@dataclass(frozen=True)
class BoardConfig:
    """The ``[board]`` section: how to reach the board controller and how to read it."""

    link: str = ""
    pattern: str = "*"
    baudrate: int = 115200
    stable_reports: int = 2
    stable_ms: int = 300
    timeout_ms: int = 1500
    read_timeout_ms: int = 3000


@dataclass(frozen=True)
class LexiconConfig:
    """The ``[lexicon]`` section: the lexicon file per language ("" = the shipped one)."""

    de: str = ""
    fr: str = ""
    en: str = ""


@dataclass(frozen=True)
class ButtonsConfig:
    """The ``[buttons]`` section: BCM pins of the seat and Menu buttons and their timing."""

    done: tuple[int, ...] = (17, 22, 5, 13)
    challenge: tuple[int, ...] = (27, 23, 6, 19)
    menu: int = 26
    allow_reserved: bool = False
    debounce_ms: int = 30
    long_ms: int = 2000
    stuck_ms: int = 10000


RESERVED_PINS = frozenset({0, 1, 2, 3, 14, 15})
"""GPIO pins buttons may use only with ``buttons.allow_reserved``: ID EEPROM, I2C, UART."""


def check_buttons(buttons: ButtonsConfig) -> None:
    """Raise :class:`ConfigError` naming the key when ``[buttons]`` does not fit together."""
    if len(buttons.challenge) != len(buttons.done):
        raise ConfigError(
            f"{len(buttons.challenge)} pins for {len(buttons.done)} Done pins; give one"
            " Challenge pin per seat",
            key="buttons.challenge",
        )
    owner: dict[int, str] = {}
    for key, pins in (
        ("buttons.done", buttons.done),
        ("buttons.challenge", buttons.challenge),
        ("buttons.menu", (buttons.menu,)),
    ):
        for pin in pins:
            if pin in RESERVED_PINS and not buttons.allow_reserved:
                raise ConfigError(
                    f"GPIO{pin} is reserved (0/1 HAT ID EEPROM, 2/3 I2C for the OLED, 14/15"
                    " UART link); choose another pin or set buttons.allow_reserved = true",
                    key=key,
                )
            if pin in owner:
                raise ConfigError(f"GPIO{pin} is already used by {owner[pin]}", key=key)
            owner[pin] = key
    if not buttons.debounce_ms < buttons.long_ms:
        raise ConfigError(f"{buttons.long_ms} is not more than buttons.debounce_ms", key="buttons.long_ms")
    if not buttons.long_ms < buttons.stuck_ms:
        raise ConfigError(f"{buttons.stuck_ms} is not more than buttons.long_ms", key="buttons.stuck_ms")



def check_display(display: DisplayConfig) -> None:
    """Raise :class:`ConfigError` naming the key when ``[display]`` does not fit together."""
    channels = list(display.seat_channels)
    if channels and not display.mux_address:
        raise ConfigError(
            "seat displays need the multiplexer's address (display.mux_address, e.g. 0x70)",
            key="display.seat_channels",
        )
    if len(set(channels)) != len(channels):
        raise ConfigError(f"a channel is given twice in {channels}", key="display.seat_channels")
    if display.mux_address and display.mux_address == display.address:
        raise ConfigError(
            f"{display.mux_address:#04x} is the display's own address (display.address)",
            key="display.mux_address",
        )

@dataclass(frozen=True)
class DisplayConfig:
    """The ``[display]`` section: the OLED (or an emulated one) and how it is reached."""

    driver: str = "ssd1306"
    address: int = 0x3C
    port: int = 1
    rotate: int = 0
    mux_address: int = 0
    seat_channels: tuple[int, ...] = ()


@dataclass(frozen=True)
class UiConfig:
    """The ``[ui]`` section: what the players read."""

    language: str = "de"


@dataclass(frozen=True)
class Section:
    """A section (TOML table) of the file: its doc and the dataclass holding its values."""

    doc: str
    values: type[Any]


SECTIONS: dict[str, Section] = {
    "game": Section("The game: rule profile, players and rule variants.", GameConfig),
    "paths": Section("Where the scoreboard keeps its files.", PathsConfig),
    "board": Section(
        "The board controller: its serial device and how its readings are settled.",
        BoardConfig,
    ),
    "lexicon": Section(
        "Word lists for challenges and blank letters, one per language. Build one from any"
        " UTF-8 one-word-per-line list with: scoreboard lexicon build LIST --lang LANG -o FILE.",
        LexiconConfig,
    ),
    "buttons": Section(
        "Seat buttons on the Pi's GPIO (BCM numbers; each button closes to GND, internal"
        " pull-up): per seat a Done and a Challenge button, plus a shared Menu/Pause button."
        " Wiring and pin map: hardware/README.md.",
        ButtonsConfig,
    ),
    "display": Section(
        "The 128x64 OLED on the Pi's I2C bus (luma.oled), or an emulated one. With a TCA9548A"
        " multiplexer each seat can have its own display at the same address.",
        DisplayConfig,
    ),
    "ui": Section("What the players read on the display.", UiConfig),
}
"""Every section, in file order; each is a field of :class:`Config` with the same name."""

OPTIONS: tuple[Option, ...] = (
    Option(
        "game.rules",
        "de",
        "Rule profile the game is played by.",
        Choice(profile_names),
    ),
    Option(
        "game.players",
        ["Player 1", "Player 2"],
        "Player names in turn order (en-tournament is for 2 players).",
        Names(2, 4),
    ),
    Option(
        "game.rack",
        7,
        "Tiles on a rack: 7, or 9 for the 9-tile variant (a bingo is still 7 tiles or more).",
        IntChoice((7, 9)),
    ),
    Option(
        "game.target",
        0,
        "Finish-line target score: the game ends when a play reaches it; 0 = off.",
        Count(0),
    ),
    Option(
        "game.challenge",
        "double",
        "en-tournament only: double (a wrong challenger loses the turn) or five"
        " (the player gets 5 points per wrong challenge).",
        Choice(("double", "five")),
    ),
    Option(
        "game.move_limit",
        0,
        "Time limit per move in seconds; 0 = off.",
        Count(0),
    ),
    Option(
        "game.move_limit_action",
        "warn",
        "When the move limit runs out: warn, or pass the turn.",
        Choice(tuple(a.value for a in MoveLimitAction)),
    ),
    Option(
        "game.clock",
        0,
        "Game clock in minutes per player; 0 = off.",
        Count(0),
    ),
    Option(
        "game.overtime",
        "auto",
        'Penalty points per started minute over the game clock; "auto" = the profile\'s'
        " default (10 for en-tournament with a clock, else 0).",
        AutoOrCount(0),
    ),
    Option(
        "game.challenge_seconds",
        20,
        "Seconds a challenge window stays open at most (the profile's deadline may close it"
        " sooner); after a going-out play, until every other seat presses Done.",
        Count(1),
    ),
    Option(
        "game.refill",
        "block",
        "A Done while a player has not refilled the rack after a play: block it, or warn.",
        Choice(("block", "warn")),
    ),
    Option(
        "paths.state_dir",
        "",
        'Directory for game records and state; "" = $STATE_DIRECTORY (systemd), else'
        " $XDG_STATE_HOME/scoreboard, else ~/.local/state/scoreboard.",
        DirPath(),
    ),
    Option(
        "board.link",
        "",
        'Serial device of the board controller; "" = the first /dev/serial/by-id entry'
        " matching board.pattern.",
        DirPath(),
    ),
    Option(
        "board.pattern",
        "*",
        "Glob for the controller's /dev/serial/by-id name, e.g. \"usb-*Scoreboard*\".",
        Text(),
    ),
    Option("board.baudrate", 115200, "Baud rate (a UART link; USB CDC ignores it).", Count(1200)),
    Option(
        "board.stable_reports",
        2,
        "Reports a cell's new reading must hold before it counts (the host's own debounce).",
        Count(1),
    ),
    Option("board.stable_ms", 300, "Milliseconds a cell's new reading must hold before it counts.", Count(0)),
    Option(
        "board.timeout_ms",
        1500,
        "Milliseconds without a valid frame after which the board counts as disconnected.",
        Count(200),
    ),
    Option(
        "board.read_timeout_ms",
        3000,
        "Milliseconds a Done waits for a settled board read before it shows an error.",
        Count(100),
    ),
    *(
        Option(
            f"lexicon.{lang}",
            "",
            f'Lexicon file for {name} games; "" = the one shipped with the scoreboard.',
            DirPath(),
        )
        for lang, name in (("de", "German"), ("fr", "French"), ("en", "English"))
    ),
    Option(
        "buttons.done",
        [17, 22, 5, 13],
        "GPIO of each seat's Done button, seat 1 first (2 to 4 seats; extra seats are unused).",
        Pins(2, 4),
    ),
    Option(
        "buttons.challenge",
        [27, 23, 6, 19],
        "GPIO of each seat's Challenge button, seat 1 first; as many as buttons.done.",
        Pins(2, 4),
    ),
    Option("buttons.menu", 26, "GPIO of the shared Menu/Pause button.", Pin()),
    Option(
        "buttons.allow_reserved",
        False,
        "Allow GPIO 0/1 (HAT ID EEPROM), 2/3 (I2C, the OLED) and 14/15 (UART link) for buttons.",
        Flag(),
    ),
    Option(
        "buttons.debounce_ms",
        30,
        "Milliseconds a button's new level must hold before it counts.",
        Count(0),
    ),
    Option(
        "buttons.long_ms",
        2000,
        "Milliseconds held that make a long press (reported at once, no short press follows).",
        Count(1),
    ),
    Option(
        "buttons.stuck_ms",
        10000,
        "Milliseconds held after which a button is reported stuck and ignored until released.",
        Count(1),
    ),
    Option(
        "display.driver",
        "ssd1306",
        "Display controller: ssd1306 or sh1106 (I2C), dummy (keeps the last image, no output)"
        " or capture (writes PNG frames, as --simulate does).",
        Choice(("ssd1306", "sh1106", "dummy", "capture")),
    ),
    Option("display.address", 0x3C, "I2C address of the display (0x3C = 60, 0x3D = 61).", I2cAddress()),
    Option("display.port", 1, "I2C bus number: /dev/i2c-PORT.", Count(0)),
    Option(
        "display.rotate",
        0,
        "Rotation in quarter turns clockwise: 0, or 2 for a display mounted upside down.",
        IntChoice((0, 1, 2, 3)),
    ),
    Option(
        "display.mux_address",
        0,
        "I2C address of a TCA9548A multiplexer (usually 0x70 = 112); 0 = no multiplexer.",
        I2cAddress(optional=True),
    ),
    Option(
        "display.seat_channels",
        [],
        "Multiplexer channel of each seat's display, seat 1 first; [] = one shared display.",
        Channels(4),
    ),
    Option("ui.language", "de", "Language of the text on the display.", Choice(("de", "fr", "en"))),
)
"""Every configuration key, in file order."""

_BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``source`` is the file it was read from (None: defaults)."""

    game: GameConfig = field(default_factory=GameConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    board: BoardConfig = field(default_factory=BoardConfig)
    lexicon: LexiconConfig = field(default_factory=LexiconConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    ui: UiConfig = field(default_factory=UiConfig)
    source: Path | None = None

    def rule_profile(self) -> RuleProfile:
        """The rule profile ``game.rules`` with the variants of ``[game]`` applied.

        Raises :class:`ConfigError` naming the key when a variant or the number of
        players is not allowed for the profile.
        """
        g = self.game
        try:
            base = get_profile(g.rules)
        except UnknownProfileError as e:
            raise ConfigError(str(e), key="game.rules") from None
        variants: dict[str, tuple[str, Any]] = {  # with_variants argument: (key, value)
            "rack": ("game.rack", g.rack),
            "target": ("game.target", g.target),
            "challenge": ("game.challenge", g.challenge if g.rules == "en-tournament" else None),
            "move_limit": ("game.move_limit", g.move_limit),
            "move_limit_action": ("game.move_limit_action", g.move_limit_action),
            "clock": ("game.clock", g.clock),
            "overtime": ("game.overtime", None if g.overtime == "auto" else g.overtime),
        }
        try:
            profile = base.with_variants(**{arg: value for arg, (_, value) in variants.items()})
        except VariantError as e:
            raise ConfigError(str(e), key=_failing_variant(base, variants)) from None
        try:
            profile.check_players(len(g.players))
        except VariantError as e:
            raise ConfigError(str(e), key="game.players") from None
        return profile


def _failing_variant(base: RuleProfile, variants: Mapping[str, tuple[str, Any]]) -> str:
    """The key of the first variant that ``base`` rejects on its own (else ``game``)."""
    for arg, (key, value) in variants.items():
        try:
            base.with_variants(**{arg: value})
        except VariantError:
            return key
    return "game"


# --- loading ------------------------------------------------------------------------------


def _xdg_dir(variable: str, fallback: str) -> Path:
    """``$variable`` when set to an absolute path (the XDG rule), else ``~/fallback``."""
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path.home() / fallback


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/scoreboard/config.toml`` (default ``~/.config/...``)."""
    return _xdg_dir("XDG_CONFIG_HOME", ".config") / "scoreboard" / "config.toml"


def _config_file(path: str | Path | None) -> tuple[Path | None, str]:
    """The file to read and how it was chosen; (None, "") when there is none."""
    if path is not None:
        return Path(path).expanduser(), ""
    env = os.environ.get("SCOREBOARD_CONFIG", "")
    if env:
        return Path(env).expanduser(), " (from $SCOREBOARD_CONFIG)"
    default = default_config_path()
    return (default, "") if default.exists() else (None, "")


def _read_toml(file: Path, how: str) -> dict[str, Any]:
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"no such config file{how}", source=file) from None
    except IsADirectoryError:
        raise ConfigError(f"is a directory, not a config file{how}", source=file) from None
    except OSError as e:
        raise ConfigError(
            f"cannot read the config file{how}: {e.strerror or e}", source=file
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ConfigError(
            f"not UTF-8 text: byte 0x{raw[e.start]:02x} on line {line}; save the file as UTF-8",
            source=file,
        ) from None
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as e:  # the message ends "(at line L, column C)"
        raise ConfigError(f"not valid TOML: {e}", source=file) from None


def _unknown(key: str, source: str | Path | None) -> ConfigError:
    """The error for a section or key that is not in the schema, with a suggestion."""
    section, _, name = key.partition(".")
    if section not in SECTIONS:
        owners = [o.key for o in OPTIONS if o.name == key]  # "rack" outside [game]
        guess = owners[0] if owners else _closest(section, list(SECTIONS))
        hint = f" (did you mean {guess}?)" if guess else ""
        return ConfigError(
            f"unknown section{hint}; known sections: {', '.join(SECTIONS)}",
            key=key if owners else section,
            source=source,
        )
    names = [o.name for o in OPTIONS if o.section == section]
    if not name:
        return ConfigError(
            f"is a section, not a key; use {section}.KEY with KEY one of: {', '.join(names)}",
            key=section,
            source=source,
        )
    owners = [o.key for o in OPTIONS if o.name == name]  # a key in the wrong section
    guess = owners[0] if owners else _closest(name, names)
    if guess and not owners:
        guess = f"{section}.{guess}"
    hint = f" (did you mean {guess}?)" if guess else ""
    return ConfigError(
        f"unknown key{hint}; known keys in [{section}]: {', '.join(names)}", key=key, source=source
    )


def _file_items(data: Mapping[str, Any], source: Path) -> Iterator[tuple[str, Any]]:
    """(dotted key, TOML value) of every setting in a parsed file; unknown keys raise."""
    for section, table in data.items():
        if section not in SECTIONS:
            raise _unknown(section, source)
        if not isinstance(table, dict):
            raise ConfigError(
                f"{_show(table)} is {_kind(table)}, not a table; write the settings"
                f" under a [{section}] line",
                key=section,
                source=source,
            )
        for name, value in table.items():
            key = f"{section}.{name}"
            if key not in _BY_KEY:
                raise _unknown(key, source)
            yield key, value


def _toml_or_string(text: str) -> Any:
    """``text`` as a TOML value, or ``text`` itself when it is not one."""
    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    return document["value"] if document.keys() == {"value"} else text


def _override_item(item: str) -> tuple[str, Any]:
    """(dotted key, value) of a ``KEY=VALUE`` override; unknown keys raise."""
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(
            f'{item!r} is not KEY=VALUE; e.g. game.rack=9 or game.players=["Anna", "Ben"]',
            source=SET_SOURCE,
        )
    if key not in _BY_KEY:
        raise _unknown(key, SET_SOURCE)
    return key, _toml_or_string(text.strip())


def _parse(key: str, value: Any, source: str | Path) -> Any:
    try:
        return _BY_KEY[key].parse(value)
    except ValueError as e:
        raise ConfigError(str(e), key=key, source=source) from None


def _build(values: Mapping[str, Any], source: Path | None) -> Config:
    sections = {
        name: section.values(**{o.name: values[o.key] for o in OPTIONS if o.section == name})
        for name, section in SECTIONS.items()
    }
    return Config(**sections, source=source)


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> Config:
    """Read and check the configuration; every problem is a :class:`ConfigError`.

    ``path`` None: ``$SCOREBOARD_CONFIG`` when set, else
    ``$XDG_CONFIG_HOME/scoreboard/config.toml`` (default ``~/.config/scoreboard/``) when
    that file exists, else the defaults. A file named explicitly (argument or variable)
    must exist. ``overrides`` are ``KEY=VALUE`` strings applied after the file; VALUE is a
    TOML value, or a plain string when it does not parse as one (``game.rules=fr``).
    The rule profile and player count are checked too (see :meth:`Config.rule_profile`).
    """
    file, how = _config_file(path)
    values: dict[str, Any] = {o.key: o.parse(o.default) for o in OPTIONS}
    origin: dict[str, str | Path] = {}
    if file is not None:
        for key, value in _file_items(_read_toml(file, how), file):
            values[key] = _parse(key, value, file)
            origin[key] = file
    for item in overrides:
        key, value = _override_item(item)
        values[key] = _parse(key, value, SET_SOURCE)
        origin[key] = SET_SOURCE
    config = _build(values, file)
    try:
        check_buttons(config.buttons)
        check_display(config.display)
        config.rule_profile()
    except ConfigError as e:
        raise e.with_source(origin.get(e.key or "", file)) from None
    return config


# --- state directory ----------------------------------------------------------------------


def _state_dir_path(config: Config) -> tuple[Path, str]:
    """The state directory and where it comes from, for messages."""
    if config.paths.state_dir:
        where = f"paths.state_dir in {config.source}" if config.source else "paths.state_dir"
        return Path(config.paths.state_dir).expanduser(), where
    systemd = [p for p in os.environ.get("STATE_DIRECTORY", "").split(":") if p]
    if systemd:
        return Path(systemd[0]), "$STATE_DIRECTORY"
    xdg = os.environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "scoreboard", "$XDG_STATE_HOME"
    return Path.home() / ".local" / "state" / "scoreboard", "the default"


def state_dir(config: Config, create: bool = True) -> Path:
    """The directory for game records and state (see ``paths.state_dir``).

    With ``create`` a missing directory is made (mode 0o700, parents as needed); one that
    cannot be made is a :class:`ConfigError` naming the path.
    """
    try:
        path, where = _state_dir_path(config)
    except RuntimeError as e:  # no home directory to expand ~ with
        raise ConfigError(f"no state directory: {e}", key="paths.state_dir") from None
    if create and not path.is_dir():
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except FileExistsError:
            raise ConfigError(
                f"{path} (from {where}) exists but is not a directory", key="paths.state_dir"
            ) from None
        except OSError as e:
            raise ConfigError(
                f"cannot create the state directory {path} (from {where}): {e.strerror or e}",
                key="paths.state_dir",
            ) from None
    return path


# --- output -------------------------------------------------------------------------------


def _plain(value: object) -> Any:
    return list(value) if isinstance(value, tuple) else value


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """The settings as ``{section: {key: value}}`` with TOML-type values (lists, not tuples)."""
    result: dict[str, dict[str, Any]] = {}
    for name in SECTIONS:
        values = getattr(config, name)
        result[name] = {f.name: _plain(getattr(values, f.name)) for f in dataclasses.fields(values)}
    return result


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, width=88, initial_indent="# ", subsequent_indent="# ")


def default_toml() -> str:
    """A complete config file: every key with its default, doc and allowed values."""
    lines = [
        "# Scoreboard configuration (TOML). Every key is listed with its default value;",
        "# leave a key out to keep its default. Unknown keys are errors.",
        "# Override a key on the command line with --set KEY=VALUE, e.g. --set game.rack=9.",
    ]
    for name, section in SECTIONS.items():
        lines += ["", *_comment(section.doc), f"[{_toml_key(name)}]"]
        for option in OPTIONS:
            if option.section == name:
                lines += [
                    "",
                    *_comment(option.doc),
                    *_comment(f"Allowed: {option.parse.allowed()}."),
                ]
                lines.append(f"{_toml_key(option.name)} = {toml_value(option.default)}")
    return "\n".join(lines) + "\n"
