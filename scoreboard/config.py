"""Configuration: one TOML file with documented defaults, validated, plus the state directory.

The file has one table per section; every key is optional::

    [game]
    rules = "fr"
    players = ["Anna", "Ben", "Cleo"]

    [paths]
    state_dir = "/var/lib/scoreboard"

Each section is one attrs class: its docstring documents the section and each field, made
with :func:`key`, declares one key: name, type, default, what is allowed (a :class:`Check`)
and a one-line doc. :class:`Config` has one field per section, in file order. The rest is
derived from them: the checks and messages of :func:`load_config` (``--set KEY=VALUE``
overrides apply on top of the file), :func:`config_to_dict` and :func:`default_toml`.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import os
import textwrap
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import attr
import attrs
import tomli_w

from engine.errors import ScoreboardError, UnknownProfileError, VariantError
from engine.rules import MoveLimitAction, RuleProfile, get_profile, profile_names

__all__ = [
    "KEYS", "SECTIONS", "BoardConfig", "ButtonsConfig", "Check", "Config", "ConfigError",
    "DisplayConfig", "GameConfig", "LexiconConfig", "PathsConfig", "UiConfig",
    "check_buttons", "check_display", "config_to_dict", "default_toml", "key",
    "load_config", "state_dir", "toml_value",
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


# --- TOML values in messages ---------------------------------------------------------------


def toml_value(value: object) -> str:
    """``value`` as a TOML value on one line (tomli-w writes each scalar and key)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    if isinstance(value, Mapping):
        pairs = (f"{tomli_w.dumps({str(k): 0})[:-5]} = {toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, (datetime.date, datetime.time)):  # tomli-w: a space for the T
        return value.isoformat()
    return tomli_w.dumps({"v": value})[4:-1].replace("\t", "\\t")  # "v = VALUE\n"; \t as before


def _show(value: object, limit: int = 60) -> str:
    """``value`` as TOML, shortened for a message."""
    text = toml_value(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_KINDS = (
    (bool, "a boolean"),  # before int: TOML true is no number
    (int, "a whole number"),
    (float, "a decimal number"),
    (str, "a string"),
    (list, "a list"),
    (dict, "a table"),
)


def _kind(value: object) -> str:
    """What kind of TOML value ``value`` is, for a message."""
    return next((kind for type_, kind in _KINDS if isinstance(value, type_)), "a date/time")


def _one_of(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to ``word`` (ignoring case), if any is close."""
    folded = {c.casefold(): c for c in candidates}
    match = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # TOML true is not 1


# --- what a key allows ---------------------------------------------------------------------


class Check:
    """What a key allows: turns a TOML value into the typed value, or raises
    :class:`ConfigError` (without key: the loader adds it) saying what is allowed."""

    expects = "a value"  # the kind of TOML value wanted, for "is a string, not ..."

    def __init__(self, allowed: str) -> None:
        self.allowed = allowed  # for messages and the generated file: "7 or 9"

    def __call__(self, value: Any) -> Any:
        raise NotImplementedError

    def fail(self, problem: str) -> ConfigError:
        """The error ``problem; use ALLOWED``."""
        return ConfigError(f"{problem}; use {self.allowed}")

    def wrong_type(self, value: object) -> ConfigError:
        """The error for a value of the wrong TOML type."""
        return self.fail(f"{_show(value)} is {_kind(value)}, not {self.expects}")

    def not_allowed(self, value: object, hint: str = "") -> ConfigError:
        """The error for a value of the right type that is not allowed."""
        return self.fail(f"{_show(value)} is not allowed{hint}")


class OneOf(Check):
    """One of a few strings (a near miss is suggested), whole numbers or booleans."""

    def __init__(self, *choices: str | int) -> None:
        super().__init__(_one_of([toml_value(c) for c in choices]))
        self.choices = choices
        self.expects = _kind(choices[0])

    def __call__(self, value: Any) -> Any:
        if type(value) is not type(self.choices[0]):  # bool is no int here
            raise self.wrong_type(value)
        if value not in self.choices:
            guess = (
                _closest(value, [str(c) for c in self.choices]) if isinstance(value, str) else None
            )
            raise self.not_allowed(value, f" (did you mean {toml_value(guess)}?)" if guess else "")
        return value


class Whole(Check):
    """A whole number from ``low`` to ``high`` (None: no limit), or one of ``also``."""

    expects = "a whole number"

    def __init__(
        self, low: int, high: int | None = None, allowed: str = "", also: tuple[int, ...] = ()
    ) -> None:
        super().__init__(allowed or f"a whole number, {low} or more")
        self.low, self.high, self.also = low, high, also

    def __call__(self, value: Any) -> int:
        if not _is_int(value):
            raise self.wrong_type(value)
        if value not in self.also and not (
            self.low <= value and (self.high is None or value <= self.high)
        ):
            raise self.not_allowed(value)
        return cast(int, value)


class AutoOr(Check):
    """``"auto"`` or a whole number, ``low`` or more."""

    expects = '"auto" or a whole number'

    def __init__(self, low: int) -> None:
        super().__init__(f'"auto" or a whole number, {low} or more')
        self.number = Whole(low, allowed=self.allowed)
        self.number.expects = self.expects

    def __call__(self, value: Any) -> int | Literal["auto"]:
        if value == "auto":
            return "auto"
        if isinstance(value, str):
            raise self.not_allowed(value)
        return self.number(value)


class Text(Check):
    """A non-empty string on one line."""

    expects = "a string"

    def __init__(self) -> None:
        super().__init__("a non-empty string")

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if not value.strip() or any(ord(ch) < 32 for ch in value):
            raise self.not_allowed(value)
        return value


class DirPath(Check):
    """``""`` (the default location), an absolute path or a path starting with ``~``."""

    expects = "a string"

    def __init__(self) -> None:
        super().__init__('"" (the default), an absolute path or a path starting with ~')

    def __call__(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.wrong_type(value)
        if "\0" in value:
            raise self.not_allowed(value, " (it contains a NUL character)")
        if value and not (value.startswith("~") or os.path.isabs(value)):
            raise self.not_allowed(value, " (a relative path)")
        return value


class Names(Check):
    """A list of ``low`` to ``high`` distinct, non-empty names (stripped of outer spaces)."""

    expects = "a list of names"

    def __init__(self, low: int, high: int) -> None:
        super().__init__(f'a list of {low} to {high} distinct names, e.g. ["Anna", "Ben"]')
        self.counts = range(low, high + 1)

    def __call__(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        names: list[str] = []
        for number, item in enumerate(value, 1):
            if not isinstance(item, str):
                raise self.fail(f"name {number} ({_show(item)}) is {_kind(item)}, not a string")
            name = item.strip()
            if not name:
                raise self.fail(f"name {number} is empty")
            if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
                raise self.fail(f"name {number} ({_show(item)}) contains a control character")
            names.append(name)
        if len(names) not in self.counts:
            raise self.fail(f"{_show(value)} has {len(names)} name{'' if len(names) == 1 else 's'}")
        seen: dict[str, str] = {}
        for name in names:
            other = seen.get(name.casefold())
            if other is not None:
                same = "is given twice" if other == name else f"and {_show(name)} are the same name"
                raise self.fail(f"{_show(other)} {same}")
            seen[name.casefold()] = name
        return tuple(names)


class Numbers(Check):
    """A list of whole numbers 0 to ``top`` (pins, channels), as many as ``counts`` allows."""

    def __init__(self, item: str, top: int, counts: range, distinct: bool, allowed: str) -> None:
        super().__init__(allowed)
        self.item, self.top, self.counts, self.distinct = item, top, counts, distinct
        self.expects = f"a list of {item}s"

    def __call__(self, value: Any) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise self.wrong_type(value)
        for number, item in enumerate(value, 1):
            if not _is_int(item) or not 0 <= item <= self.top:
                raise self.fail(f"{self.item} {number} ({_show(item)}) is not allowed")
        if len(value) not in self.counts:
            raise self.fail(f"{_show(value)} has {len(value)} {self.item}s")
        if self.distinct and len(set(value)) != len(value):
            raise self.fail(f"{_show(value)} gives a {self.item} twice")
        return tuple(value)


# --- the sections --------------------------------------------------------------------------

_T = TypeVar("_T")


def key(default: _T, allowed: Check, doc: str) -> _T:
    """A field of a section class: one key with its default, what it allows and a one-line doc."""
    return attrs.field(default=default, metadata={"allowed": allowed, "doc": doc})


def _allowed(attribute: attrs.Attribute[Any]) -> Check:
    return cast(Check, attribute.metadata["allowed"])


_COUNT = Whole(0)
_PATH = DirPath()
_PINS = Numbers(
    "pin", 27, range(2, 5), True, "a list of 2 to 4 distinct BCM GPIO numbers (0 to 27), one per seat"
)


@attrs.frozen
class GameConfig:
    """The game: rule profile, players and rule variants."""

    rules: str = key("de", OneOf(*profile_names()), "Rule profile the game is played by.")
    players: tuple[str, ...] = key(
        ("Player 1", "Player 2"),
        Names(2, 4),
        "Player names in turn order (en-tournament is for 2 players).",
    )
    rack: int = key(
        7,
        OneOf(7, 9),
        "Tiles on a rack: 7, or 9 for the 9-tile variant (a bingo is still 7 tiles or more).",
    )
    target: int = key(
        0, _COUNT, "Finish-line target score: the game ends when a play reaches it; 0 = off."
    )
    challenge: str = key(
        "double",
        OneOf("double", "five"),
        "en-tournament only: double (a wrong challenger loses the turn) or five"
        " (the player gets 5 points per wrong challenge).",
    )
    move_limit: int = key(0, _COUNT, "Time limit per move in seconds; 0 = off.")
    move_limit_action: str = key(
        "warn",
        OneOf(*(a.value for a in MoveLimitAction)),
        "When the move limit runs out: warn, or pass the turn.",
    )
    clock: int = key(0, _COUNT, "Game clock in minutes per player; 0 = off.")
    overtime: int | Literal["auto"] = key(
        "auto",
        AutoOr(0),
        'Penalty points per started minute over the game clock; "auto" = the profile\'s'
        " default (10 for en-tournament with a clock, else 0).",
    )
    challenge_seconds: int = key(
        20,
        Whole(1),
        "Seconds a challenge window stays open at most (the profile's deadline may close it"
        " sooner); after a going-out play, until every other seat presses Done.",
    )
    refill: str = key(
        "block",
        OneOf("block", "warn"),
        "A Done while a player has not refilled the rack after a play: block it, or warn.",
    )


@attrs.frozen
class PathsConfig:
    """Where the scoreboard keeps its files."""

    state_dir: str = key(
        "",
        _PATH,
        'Directory for game records and state; "" = $STATE_DIRECTORY (systemd), else'
        " $XDG_STATE_HOME/scoreboard, else ~/.local/state/scoreboard.",
    )


@attrs.frozen
class BoardConfig:
    """The board controller: its serial device and how its readings are settled."""

    link: str = key(
        "",
        _PATH,
        'Serial device of the board controller; "" = the first /dev/serial/by-id entry'
        " matching board.pattern.",
    )
    pattern: str = key(
        "*", Text(), 'Glob for the controller\'s /dev/serial/by-id name, e.g. "usb-*Scoreboard*".'
    )
    baudrate: int = key(115200, Whole(1200), "Baud rate (a UART link; USB CDC ignores it).")
    stable_reports: int = key(
        2,
        Whole(1),
        "Reports a cell's new reading must hold before it counts (the host's own debounce).",
    )
    stable_ms: int = key(
        300, _COUNT, "Milliseconds a cell's new reading must hold before it counts."
    )
    timeout_ms: int = key(
        1500,
        Whole(200),
        "Milliseconds without a valid frame after which the board counts as disconnected.",
    )
    read_timeout_ms: int = key(
        3000,
        Whole(100),
        "Milliseconds a Done waits for a settled board read before it shows an error.",
    )


def _lexicon(language: str) -> str:
    return key(
        "", _PATH, f'Lexicon file for {language} games; "" = the one shipped with the scoreboard.'
    )


@attrs.frozen
class LexiconConfig:
    """Word lists for challenges and blank letters, one per language. Build one from any
    UTF-8 one-word-per-line list with: scoreboard lexicon build LIST --lang LANG -o FILE."""

    de: str = _lexicon("German")
    fr: str = _lexicon("French")
    en: str = _lexicon("English")


@attrs.frozen
class ButtonsConfig:
    """Seat buttons on the Pi's GPIO (BCM numbers; each button closes to GND, internal
    pull-up): per seat a Done and a Challenge button, plus a shared Menu/Pause button.
    Wiring and pin map: hardware/README.md."""

    done: tuple[int, ...] = key(
        (17, 22, 5, 13),
        _PINS,
        "GPIO of each seat's Done button, seat 1 first (2 to 4 seats; extra seats are unused).",
    )
    challenge: tuple[int, ...] = key(
        (27, 23, 6, 19),
        _PINS,
        "GPIO of each seat's Challenge button, seat 1 first; as many as buttons.done.",
    )
    menu: int = key(
        26, Whole(0, 27, "a BCM GPIO number, 0 to 27"), "GPIO of the shared Menu/Pause button."
    )
    allow_reserved: bool = key(
        False,
        OneOf(True, False),
        "Allow GPIO 0/1 (HAT ID EEPROM), 2/3 (I2C, the OLED) and 14/15 (UART link) for buttons.",
    )
    debounce_ms: int = key(
        30, _COUNT, "Milliseconds a button's new level must hold before it counts."
    )
    long_ms: int = key(
        2000,
        Whole(1),
        "Milliseconds held that make a long press (reported at once, no short press follows).",
    )
    stuck_ms: int = key(
        10000,
        Whole(1),
        "Milliseconds held after which a button is reported stuck and ignored until released.",
    )


@attrs.frozen
class DisplayConfig:
    """The 128x64 OLED on the Pi's I2C bus (luma.oled), or an emulated one. With a TCA9548A
    multiplexer each seat can have its own display at the same address."""

    driver: str = key(
        "ssd1306",
        OneOf("ssd1306", "sh1106", "dummy", "capture"),
        "Display controller: ssd1306 or sh1106 (I2C), dummy (keeps the last image, no output)"
        " or capture (writes PNG frames, as --simulate does).",
    )
    address: int = key(
        0x3C,
        Whole(0x03, 0x77, "an I2C address, 0x03 to 0x77"),
        "I2C address of the display (0x3C = 60, 0x3D = 61).",
    )
    port: int = key(1, _COUNT, "I2C bus number: /dev/i2c-PORT.")
    rotate: int = key(
        0,
        OneOf(0, 1, 2, 3),
        "Rotation in quarter turns clockwise: 0, or 2 for a display mounted upside down.",
    )
    mux_address: int = key(
        0,
        Whole(0x03, 0x77, "0 (none) or an I2C address, 0x03 to 0x77", also=(0,)),
        "I2C address of a TCA9548A multiplexer (usually 0x70 = 112); 0 = no multiplexer.",
    )
    seat_channels: tuple[int, ...] = key(
        (),
        Numbers(
            "channel",
            7,
            range(5),
            False,
            "[] or a list of up to 4 multiplexer channels (0 to 7), one per seat",
        ),
        "Multiplexer channel of each seat's display, seat 1 first; [] = one shared display.",
    )


@attrs.frozen
class UiConfig:
    """What the players read on the display."""

    language: str = key("de", OneOf("de", "fr", "en"), "Language of the text on the display.")


# --- checks across keys --------------------------------------------------------------------

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
    for dotted, pins in (
        ("buttons.done", buttons.done),
        ("buttons.challenge", buttons.challenge),
        ("buttons.menu", (buttons.menu,)),
    ):
        for pin in pins:
            if pin in RESERVED_PINS and not buttons.allow_reserved:
                raise ConfigError(
                    f"GPIO{pin} is reserved (0/1 HAT ID EEPROM, 2/3 I2C for the OLED, 14/15"
                    " UART link); choose another pin or set buttons.allow_reserved = true",
                    key=dotted,
                )
            if pin in owner:
                raise ConfigError(f"GPIO{pin} is already used by {owner[pin]}", key=dotted)
            owner[pin] = dotted
    if not buttons.debounce_ms < buttons.long_ms:
        raise ConfigError(
            f"{buttons.long_ms} is not more than buttons.debounce_ms", key="buttons.long_ms"
        )
    if not buttons.long_ms < buttons.stuck_ms:
        raise ConfigError(
            f"{buttons.stuck_ms} is not more than buttons.long_ms", key="buttons.stuck_ms"
        )


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


# --- the whole configuration ---------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    """The whole configuration: one field per section, in file order; ``source`` is the
    file it was read from (None: defaults)."""

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
            "challenge": ("game.challenge", None if base.challenge_kind is None else g.challenge),
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
    for arg, (dotted, value) in variants.items():
        try:
            base.with_variants(**{arg: value})
        except VariantError:
            return dotted
    return "game"


SECTIONS: dict[str, Any] = {
    f.name: f.default_factory for f in dataclasses.fields(Config) if f.name != "source"
}
"""Every section's class by name, in file order (the fields of :class:`Config`)."""

KEYS: dict[str, attrs.Attribute[Any]] = {
    f"{name}.{a.name}": a for name, section in SECTIONS.items() for a in attrs.fields(section)
}
"""Every key's attrs field by dotted key (``game.rules``), in file order."""


# --- loading -------------------------------------------------------------------------------


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


def _unknown(dotted: str, source: str | Path | None) -> ConfigError:
    """The error for a section or key that is not in the schema, with a suggestion."""
    section, _, name = dotted.partition(".")
    if section not in SECTIONS:
        owners = [k for k, a in KEYS.items() if a.name == dotted]  # "rack" outside [game]
        guess = owners[0] if owners else _closest(section, list(SECTIONS))
        hint = f" (did you mean {guess}?)" if guess else ""
        return ConfigError(
            f"unknown section{hint}; known sections: {', '.join(SECTIONS)}",
            key=dotted if owners else section,
            source=source,
        )
    names = [a.name for a in attrs.fields(SECTIONS[section])]
    if not name:
        return ConfigError(
            f"is a section, not a key; use {section}.KEY with KEY one of: {', '.join(names)}",
            key=section,
            source=source,
        )
    owners = [k for k, a in KEYS.items() if a.name == name]  # a key in the wrong section
    guess = owners[0] if owners else _closest(name, names)
    if guess and not owners:
        guess = f"{section}.{guess}"
    hint = f" (did you mean {guess}?)" if guess else ""
    return ConfigError(
        f"unknown key{hint}; known keys in [{section}]: {', '.join(names)}",
        key=dotted,
        source=source,
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
            if f"{section}.{name}" not in KEYS:
                raise _unknown(f"{section}.{name}", source)
            yield f"{section}.{name}", value


def _toml_or_string(text: str) -> Any:
    """``text`` as a TOML value, or ``text`` itself when it is not one."""
    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    return document["value"] if document.keys() == {"value"} else text


def _override_item(item: str) -> tuple[str, Any]:
    """(dotted key, value) of a ``KEY=VALUE`` override; unknown keys raise."""
    dotted, sep, text = item.partition("=")
    dotted = dotted.strip()
    if not sep or not dotted:
        raise ConfigError(
            f'{item!r} is not KEY=VALUE; e.g. game.rack=9 or game.players=["Anna", "Ben"]',
            source=SET_SOURCE,
        )
    if dotted not in KEYS:
        raise _unknown(dotted, SET_SOURCE)
    return dotted, _toml_or_string(text.strip())


def _parse(dotted: str, value: Any, source: str | Path) -> Any:
    try:
        return _allowed(KEYS[dotted])(value)
    except ConfigError as e:
        raise ConfigError(e.message, key=dotted, source=source) from None


def _build(values: Mapping[str, Any], source: Path | None) -> Config:
    """The configuration of ``values`` (dotted key: typed value), defaults for the rest."""
    tables: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    for dotted, value in values.items():
        section, _, name = dotted.partition(".")
        tables[section][name] = value
    return Config(
        **{name: SECTIONS[name](**table) for name, table in tables.items()}, source=source
    )


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
    values: dict[str, Any] = {}
    origin: dict[str, str | Path] = {}
    if file is not None:
        for dotted, value in _file_items(_read_toml(file, how), file):
            values[dotted] = _parse(dotted, value, file)
            origin[dotted] = file
    for item in overrides:
        dotted, value = _override_item(item)
        values[dotted] = _parse(dotted, value, SET_SOURCE)
        origin[dotted] = SET_SOURCE
    config = _build(values, file)
    try:
        check_buttons(config.buttons)
        check_display(config.display)
        config.rule_profile()
    except ConfigError as e:
        raise e.with_source(origin.get(e.key or "", file)) from None
    return config


# --- state directory -----------------------------------------------------------------------


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


# --- output --------------------------------------------------------------------------------


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """The settings as ``{section: {key: value}}`` with TOML-type values (lists, not tuples:
    the classic ``attr.asdict`` turns them into lists, ``attrs.asdict`` keeps them)."""
    return {name: attr.asdict(getattr(config, name)) for name in SECTIONS}


def _comment(text: str) -> list[str]:
    return textwrap.wrap(
        " ".join(text.split()), width=88, initial_indent="# ", subsequent_indent="# "
    )


def default_toml() -> str:
    """A complete config file (written with tomli-w): every key with its default, doc and
    allowed values."""
    lines = [
        "# Scoreboard configuration (TOML). Every key is listed with its default value;",
        "# leave a key out to keep its default. Unknown keys are errors.",
        "# Override a key on the command line with --set KEY=VALUE, e.g. --set game.rack=9.",
    ]
    for name, table in config_to_dict(Config()).items():
        lines += ["", *_comment(SECTIONS[name].__doc__), tomli_w.dumps({name: {}}).rstrip()]
        for key_name, value in table.items():
            attribute = KEYS[f"{name}.{key_name}"]
            lines += [
                "",
                *_comment(attribute.metadata["doc"]),
                *_comment(f"Allowed: {_allowed(attribute).allowed}."),
                tomli_w.dumps({key_name: value}).rstrip(),
            ]
    return "\n".join(lines) + "\n"
