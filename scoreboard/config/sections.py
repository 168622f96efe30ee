"""The configuration's sections: each one attrs class declaring each of its keys once.

A key is a field made with :func:`key`: its name, type, default, what it allows (a
:class:`~scoreboard.config.checks.Check`) and a one-line doc; the class's docstring
documents the section. :class:`Config` has one field per section, in file order.
Checks across keys (:func:`check_board`, :func:`check_buttons`, :func:`check_display`) and the rule profile the
``[game]`` keys make (:meth:`Config.rule_profile`) are here too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import attrs

from drivers.display.panels import PANELS, RECOMMENDED, Panel, panel_of_controller
from engine.errors import UnknownProfileError, VariantError
from engine.rules import (
    ChallengeRule,
    MoveLimitAction,
    RuleProfile,
    get_profile,
    profile_names,
)

from .checks import (
    AutoOr,
    Check,
    ConfigError,
    ConfigPinClashError,
    DirPath,
    Names,
    Numbers,
    OneOf,
    Pattern,
    Patterns,
    Sayings,
    Subset,
    Text,
    Whole,
)

__all__ = [
    "CONTROLLERS",
    "KEYS",
    "RESERVED_PINS",
    "SECTIONS",
    "SPI_PINS",
    "BoardConfig",
    "BroadcastConfig",
    "ButtonsConfig",
    "Config",
    "DisplayConfig",
    "GameConfig",
    "HubConfig",
    "LexiconConfig",
    "PathsConfig",
    "UiConfig",
    "VoiceConfig",
    "allowed",
    "check_board",
    "check_broadcast",
    "check_buttons",
    "check_display",
    "key",
    "profile_language",
    "spi_lines",
]

# --- the sections --------------------------------------------------------------------------

_T = TypeVar("_T")


def key(default: _T, allowed: Check, doc: str) -> _T:
    """A field of a section class: one key with its default, what it allows and a one-line doc."""
    return attrs.field(default=default, metadata={"allowed": allowed, "doc": doc})


def allowed(attribute: attrs.Attribute[Any]) -> Check:
    return cast(Check, attribute.metadata["allowed"])


CONTROLLERS = tuple(dict.fromkeys(p.controller for p in PANELS.values()))
"""The luma.oled controllers of the known panels."""

_PATH = DirPath()
_PINS = Numbers(
    "pin", 27, range(2, 5), True, "a list of 2 to 4 distinct BCM GPIO numbers (0 to 27), one per seat"
)


@attrs.frozen
class GameConfig:
    """The game: rule profile, players and rule variants."""

    rules: str = key("de", OneOf(*profile_names()), "Rule profile the game is played by.")
    players: tuple[str, ...] | Literal["auto"] = key(
        "auto",
        Names(2, 4, auto=True),
        'Player names in turn order (en-tournament is for 2 players); "auto" = two players'
        ' named in the display language ("Spieler 1", "Joueur 1", "Player 1", ...).',
    )
    rack: int = key(
        7,
        OneOf(7, 9),
        "Tiles on a rack: 7, or 9 for the 9-tile variant (a bingo is still 7 tiles or more).",
    )
    target: int = key(
        0, Whole(0, 2000), "Finish-line target score: the game ends when a play reaches it; 0 = off."
    )
    challenge: str = key(
        "auto",
        OneOf("auto", *(r.value for r in ChallengeRule)),
        'Challenge rule; "auto" = the profile\'s own (de: a wrong challenger -5, fr: -10, en: loses'
        " a turn, en-tournament: double). void: an invalid play is refused when laid; single: a"
        " wrong challenge costs nothing; double: the wrong challenger loses the turn; five/ten:"
        " the player gets 5/10 points per wrong challenge; triple: the loser of a challenge"
        " loses the game (2 players). See docs/RULES.md.",
    )
    move_limit: int = key(0, Whole(0, 3600), "Time limit per move in seconds; 0 = off.")
    move_limit_action: str = key(
        "warn",
        OneOf(*(a.value for a in MoveLimitAction)),
        "When the move limit runs out: warn, or pass the turn.",
    )
    clock: int = key(0, Whole(0, 300), "Game clock in minutes per player; 0 = off.")
    overtime: int | Literal["auto"] = key(
        "auto",
        AutoOr(0, 100),
        'Penalty points per started minute over the game clock; "auto" = the profile\'s'
        " default (10 for en-tournament with a clock, else 0).",
    )
    challenge_seconds: int = key(
        20,
        Whole(1, 600),
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
    baudrate: int = key(
        115200, Whole(1200, 4_000_000), "Baud rate (a UART link; USB CDC ignores it)."
    )
    stable_reports: int = key(
        2,
        Whole(1, 10),
        "Reports a cell's new reading must hold before it counts (the host's own debounce;"
        " an idle board reports about 3 times a second).",
    )
    stable_ms: int = key(
        300,
        Whole(0, 5000),
        "Milliseconds a cell's new reading must hold before it counts (less than"
        " board.read_timeout_ms).",
    )
    timeout_ms: int = key(
        1500,
        Whole(1000, 60_000),
        "Milliseconds without a valid frame after which the board counts as disconnected"
        " (the controller sends a heartbeat every 500 ms).",
    )
    read_timeout_ms: int = key(
        3000,
        Whole(1000, 60_000),
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
        30, Whole(0, 500), "Milliseconds a button's new level must hold before it counts."
    )
    long_ms: int = key(
        2000,
        Whole(200, 30_000),
        "Milliseconds held that make a long press (reported at once, no short press follows).",
    )
    stuck_ms: int = key(
        10000,
        Whole(1000, 600_000),
        "Milliseconds held after which a button is reported stuck and ignored until released.",
    )
    gpio: str = key(
        "auto",
        OneOf("auto", "chardev", "gpiozero"),
        "How the buttons are read: chardev (the kernel's GPIO device through libgpiod, asleep"
        " until an edge), gpiozero (its pin factory: lgpio, RPi.GPIO; lgpio polls every 0.5 ms),"
        " auto (chardev where libgpiod finds the pins, else gpiozero).",
    )


@attrs.frozen
class DisplayConfig:
    """The OLED: one of the known panels (hardware/README.md) on I2C or SPI (luma.oled), or an
    emulated one. With a TCA9548A multiplexer each seat can have its own I2C display."""

    driver: str = key(
        PANELS[RECOMMENDED].controller,
        OneOf(*CONTROLLERS, "dummy", "capture"),
        "Display controller: ssd1306 (0.96in; also some 1.3in modules, e.g. Adafruit 938: set"
        ' display.panel = "1.3in"), sh1106 (1.3in), ssd1309 (2.42in), ssd1322'
        " (3.12in, greyscale, SPI); dummy (keeps the last image, no output) or capture (writes"
        " PNG frames, as --simulate does).",
    )
    panel: str = key(
        "auto",
        OneOf("auto", *PANELS),
        'The panel, by its diagonal (hardware/README.md); the screens are laid out for its pixels'
        ' and size in mm;'
        ' "auto" = the one display.driver drives (the 3.12in one for dummy and capture).',
    )
    interface: str = key(
        "auto",
        OneOf("auto", "i2c", "spi"),
        'The bus to the panel; "auto" = the panel\'s usual one (SPI for the 3.12in, else I2C).',
    )
    address: int = key(
        0x3C,
        Whole(0x03, 0x77, "an I2C address, 0x03 to 0x77"),
        "I2C address of the display (0x3C = 60, 0x3D = 61).",
    )
    port: int = key(1, Whole(0, 255), "I2C bus number: /dev/i2c-PORT.")
    spi_port: int = key(
        0, OneOf(0, 1), "SPI bus: 0 (GPIO 8-11, /dev/spidev0.*) or 1 (GPIO 16-21, /dev/spidev1.*)."
    )
    spi_device: int = key(0, Whole(0, 2), "SPI chip select: 0 (CE0), 1 (CE1) or 2 (CE2, SPI 1 only).")
    spi_hz: int = key(
        8_000_000,
        OneOf(1_000_000, 2_000_000, 4_000_000, 8_000_000),
        "SPI clock in Hz (the SSD1322 and SSD1309 are specified up to 10 MHz).",
    )
    gpio_dc: int = key(
        24, Whole(0, 27, "a BCM GPIO number, 0 to 27"), "GPIO of the SPI panel's D/C (data/command) line."
    )
    gpio_rst: int = key(
        25, Whole(0, 27, "a BCM GPIO number, 0 to 27"), "GPIO of the SPI panel's RES (reset) line."
    )
    rotate: int = key(
        0,
        OneOf(0, 2),
        "Rotation: 0, or 2 (half a turn) for a display mounted upside down; the screens are laid"
        " out for the panel's landscape pixels, so a quarter turn (1 or 3) is not offered.",
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

    def chosen_panel(self) -> Panel:
        """The panel: ``panel``, or the one ``driver`` drives when "auto"."""
        return PANELS[self.panel] if self.panel != "auto" else panel_of_controller(self.driver)

    def chosen_interface(self) -> str:
        """``interface``, or the chosen panel's usual bus when "auto"."""
        return self.interface if self.interface != "auto" else self.chosen_panel().interfaces[0]


@attrs.frozen
class UiConfig:
    """What the players read on the display."""

    language: str = key(
        "auto",
        OneOf("auto", "de", "fr", "en"),
        'Language of the text on the display; "auto" = the rule profile\'s (de: German, fr:'
        " French, en and en-tournament: English).",
    )


ANNOUNCEMENTS = ("play", "challenge", "turn", "time", "tally")
"""What ``voice.events`` may name (:class:`scoreboard.voice.models.SpeechKind`'s values; the
configuration does not load the voice)."""

_VOICE = Pattern(
    r"[A-Za-z0-9][A-Za-z0-9_+/-]*", "an espeak-ng voice name such as \"de\", \"en-us\" or \"fr+f3\""
)


def _voice(language: str, default: str) -> str:
    return key(
        default,
        _VOICE,
        f"espeak-ng voice that speaks {language}: the announcements when the display is in it,"
        f" and the words of {language} games (espeak-ng --voices lists them; +f1..+f5 give a"
        " female variant).",
    )


@attrs.frozen
class VoiceConfig:
    """Spoken announcements through espeak-ng, in the display's language (off by default):
    the play and its score, challenges and their ruling, whose turn it is, the time
    warnings and the final tally. Audio goes to the Pi's output through ALSA (aplay); with
    --simulate each announcement is a WAV in OUT/voice/. Needs: sudo apt install espeak-ng
    alsa-utils."""

    enabled: bool = key(False, OneOf(True, False), "Say the announcements aloud.")
    events: tuple[str, ...] = key(
        ANNOUNCEMENTS,
        Subset(*ANNOUNCEMENTS),
        "What is announced: play (a play and its score, a pass, an exchange), challenge (a"
        " challenge and its ruling), turn (whose turn it is), time (5 and 1 minutes left on the"
        " game clock, its end, 30 s left of the move limit and its end), tally (the final scores).",
    )
    de: str = _voice("German", "de")
    fr: str = _voice("French", "fr")
    en: str = _voice("English", "en")
    names: dict[str, str | dict[str, str]] = key(
        {},
        Sayings("de", "fr", "en"),
        "How players' names are said, where the display's voice says them wrongly: a name to its"
        ' language ("Françoise" = "fr": the French voice says it in a German or English'
        ' announcement), to a respelling every voice reads ("Siobhan" = "Shivawn"), or to'
        ' respellings by the display\'s language ("Jürgen" = {en = "Yuergen"}); espeak-ng\'s'
        " [[...]] phonemes may be used (espeak-ng -x -v de NAME shows how a voice says it).",
    )
    speed: int = key(150, Whole(80, 450), "Speaking rate in words per minute (espeak-ng's default is 175).")
    volume: int = key(100, Whole(0, 200), "Loudness, 0 to 200; 100 is espeak-ng's normal amplitude.")
    device: str = key(
        "default",
        Pattern(r"[^\s\x00-\x1f]+", 'an ALSA device name without spaces, e.g. "default" or "plughw:CARD=Headphones"'),
        "ALSA device the voice plays on, as aplay -D takes it (aplay -L lists them).",
    )

    def voices(self) -> dict[str, str]:
        """Each language's espeak-ng voice."""
        return {"de": self.de, "fr": self.fr, "en": self.en}


_NAME = Pattern(
    r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}",
    "a name of 1 to 32 letters, digits, - and _ (a topic level: no /, + or #), starting with a letter or digit",
)
_HOST = Pattern(r"|[A-Za-z0-9][A-Za-z0-9.:-]{0,252}", '"" or a host name or IP address')
_SECRET = Pattern(r"[^\s\x00-\x1f]{0,128}", "a string without spaces or control characters, at most 128 long")
_OPTIONAL_NAME = Pattern(r"|[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", '"" or a user name of letters, digits, ., - and _')


@attrs.frozen
class BroadcastConfig:
    """Live coverage: every journal record and the table's state go to the venue's MQTT broker
    (Mosquitto), where the hub (scoreboard hub) collects the event's games (off by default).
    Publishing never waits on the broker: a dead one does not slow the table; what it missed
    is sent when it is back (a publish cursor kept in the journal). scoreboard hub setup
    writes each table's section."""

    enabled: bool = key(False, OneOf(True, False), "Publish this table's games to the broker.")
    host: str = key("", _HOST, 'The broker\'s host name or address ("" = not set; needed when enabled).')
    port: int = key(1883, Whole(1, 65535), "The broker's port (1883; 8883 with TLS).")
    event: str = key("event", _NAME, "The event's name: the topic level the hub subscribes to.")
    table: str = key("table-1", _NAME, "This table's name at the event (its topics; the broker's ACL allows only its own).")
    username: str = key("", _OPTIONAL_NAME, 'The board\'s user at the broker ("" = none: a broker of scoreboard hub setup refuses it).')
    password: str = key("", _SECRET, "The board's password at the broker.")
    tls_ca: str = key("", _PATH, '""= plain MQTT; else the CA certificate file that signed the broker\'s (TLS).')
    topic_prefix: str = key("scoreboard", _NAME, "The first topic level (the same on the boards and the hub).")
    keepalive_s: int = key(20, Whole(5, 600), "Seconds between keep-alives; the broker says offline after 1.5 times as long without one.")
    flush_s: int = key(5, Whole(0, 120), "Seconds a stopping service waits for the broker to take what is not yet published.")


@attrs.frozen
class HubConfig:
    """The venue hub (scoreboard hub): subscribes to every board of the event at the broker,
    keeps each game in its own SQLite file, re-scores it with the engine and serves the
    venue, table, standings and overlay pages, each game's GCG and a JSON feed."""

    host: str = key("127.0.0.1", _HOST, "The broker's host name or address.")
    port: int = key(1883, Whole(1, 65535), "The broker's port.")
    event: str = key("event", _NAME, "The event whose boards are collected.")
    username: str = key("hub", _OPTIONAL_NAME, "The hub's user at the broker.")
    password: str = key("", _SECRET, "The hub's password at the broker.")
    tls_ca: str = key("", _PATH, '"" = plain MQTT; else the CA certificate file that signed the broker\'s.')
    topic_prefix: str = key("scoreboard", _NAME, "The first topic level (as on the boards).")
    data_dir: str = key("", _PATH, 'Where the games are kept; "" = STATE/hub (paths.state_dir).')
    listen_host: str = key("127.0.0.1", _HOST, "Address the pages are served on (0.0.0.0: every interface).")
    listen_port: int = key(8717, Whole(1, 65535), "Port of the pages.")
    delay_s: int = key(0, Whole(0, 86_400), "Broadcast delay: seconds everything shown (pages, GCG, feed) lags behind the boards.")
    racks: str = key(
        "end",
        OneOf("end", "delayed"),
        "When viewers see the racks: end (once the game is over) or delayed (as soon as the broadcast delay allows).",
    )
    tables: tuple[str, ...] = key(
        (),
        Patterns(_NAME.pattern.pattern, "table", 1000, "a list of up to 1000 distinct table names (as --tables)"),
        'The event\'s tables (scoreboard hub setup writes them): the venue shows those never heard of as "never'
        ' connected"; [] = only the tables heard of.',
    )


# --- checks across keys --------------------------------------------------------------------

RESERVED_PINS = frozenset({0, 1, 2, 3, 14, 15})
"""GPIO pins buttons may use only with ``buttons.allow_reserved``: ID EEPROM, I2C, UART."""


def check_broadcast(broadcast: BroadcastConfig) -> None:
    """Publishing needs a broker: ``broadcast.host`` when ``broadcast.enabled``."""
    if broadcast.enabled and not broadcast.host:
        raise ConfigError(
            "publishing (broadcast.enabled = true) needs the broker's address; set broadcast.host",
            key="broadcast.host",
        )


def check_board(board: BoardConfig) -> None:
    """Raise :class:`ConfigError` naming the key when ``[board]`` does not fit together."""
    if not board.stable_ms < board.read_timeout_ms:
        raise ConfigError(
            f"{board.read_timeout_ms} is not more than board.stable_ms ({board.stable_ms}):"
            " a Done right after the last tile would never find the board settled",
            key="board.read_timeout_ms",
        )


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


SPI_PINS = {0: {"SCLK": 11, "MOSI": 10, "MISO": 9, "CE0": 8, "CE1": 7}, 1: {"SCLK": 21, "MOSI": 20, "MISO": 19, "CE0": 18, "CE1": 17, "CE2": 16}}
"""The BCM GPIOs of the Pi's SPI buses by ``display.spi_port``."""

HAT_EEPROM_PINS = (0, 1)
"""The HAT ID EEPROM's I2C pins; luma also never drives a D/C or reset line on GPIO0 (it
tests the pin number for truth)."""


def spi_lines(port: int, device: int) -> dict[str, int]:
    """The GPIOs the display's SPI bus takes: clock, MOSI and MISO (the bus's function is on
    all three), and the chip selects its overlay claims: both of SPI0's (``dtparam=spi=on``),
    SPI1's up to ``device`` (``dtoverlay=spi1-Ncs``, N = ``device`` + 1)."""
    bus = SPI_PINS[port]
    selects = ("CE0", "CE1") if port == 0 else tuple(f"CE{n}" for n in range(device + 1))
    return {line: pin for line, pin in bus.items() if not line.startswith("CE") or line in selects}


def check_display(display: DisplayConfig, buttons: ButtonsConfig | None = None) -> None:
    """Raise :class:`ConfigError` naming the key when ``[display]`` does not fit together (or,
    with ``buttons``, when an SPI panel's lines are a button's pin)."""
    panel = display.chosen_panel()
    if display.driver in CONTROLLERS and display.driver not in panel.controllers:
        raise ConfigError(
            f"the {panel.name} panel has an {' or '.join(panel.controllers)} controller, not {display.driver};"
            f' set display.driver = "{panel.controller}" or the panel it drives',
            key="display.panel",
        )
    interface = display.chosen_interface()
    if interface not in panel.interfaces:
        raise ConfigError(
            f"the {panel.name} panel ({panel.controller}) has no {interface.upper()} bus; use"
            f" {' or '.join(panel.interfaces)}",
            key="display.interface",
        )
    channels = list(display.seat_channels)
    if channels and interface != "i2c":
        raise ConfigError(
            "seat displays behind a multiplexer are I2C panels; this one is on SPI",
            key="display.seat_channels",
        )
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
    if interface == "spi" and display.driver not in ("dummy", "capture"):
        _check_spi_pins(display, buttons)


def _check_spi_pins(display: DisplayConfig, buttons: ButtonsConfig | None) -> None:
    bus = SPI_PINS[display.spi_port]
    if f"CE{display.spi_device}" not in bus:
        raise ConfigError(
            f"SPI bus {display.spi_port} has no chip select CE{display.spi_device}", key="display.spi_device"
        )
    lines = {pin: f"SPI {display.spi_port} {line}" for line, pin in spi_lines(display.spi_port, display.spi_device).items()}
    taken = lines | {pin: "I2C" for pin in (2, 3)} | {pin: "the UART link" for pin in (14, 15)}
    taken |= {pin: "the HAT ID EEPROM" for pin in HAT_EEPROM_PINS}
    if display.gpio_dc == display.gpio_rst:
        raise ConfigPinClashError(
            f"GPIO{display.gpio_dc} is both display.gpio_dc and display.gpio_rst; give each its own pin",
            pin=display.gpio_dc, keys=("display.gpio_dc", "display.gpio_rst"),
        )
    for dotted, pin in (("display.gpio_dc", display.gpio_dc), ("display.gpio_rst", display.gpio_rst)):
        if pin in taken:
            raise ConfigError(f"GPIO{pin} is {taken[pin]}'s; choose another pin", key=dotted)
        taken[pin] = dotted
    if buttons is None:
        return
    for dotted, pins in (("buttons.done", buttons.done), ("buttons.challenge", buttons.challenge), ("buttons.menu", (buttons.menu,))):
        for pin in pins:
            if pin in taken and not taken[pin].startswith(("I2C", "the UART", "the HAT")):
                owner = taken[pin] if pin not in lines else "display.spi_port"
                raise ConfigPinClashError(
                    f"GPIO{pin} is both the display's ({taken[pin]}) and a button's ({dotted}); choose another pin",
                    pin=pin, keys=(owner, dotted),
                )


def profile_language(profile: str) -> str:
    """The display language of a rule profile: ``de``, ``fr``, else (``en*``) ``en``."""
    language = profile.partition("-")[0]
    return language if language in ("de", "fr") else "en"


DEFAULT_PLAYER = {"de": "Spieler {n}", "fr": "Joueur {n}", "en": "Player {n}"}
"""Player ``n``'s name when ``game.players`` is "auto", per display language (the table's
text "player.default"; the configuration does not load the screens)."""


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
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    broadcast: BroadcastConfig = field(default_factory=BroadcastConfig)
    hub: HubConfig = field(default_factory=HubConfig)
    source: Path | None = None

    def language(self) -> str:
        """The display's language: ``ui.language``, or the rule profile's when "auto"."""
        if self.ui.language != "auto":
            return self.ui.language
        return profile_language(self.game.rules)

    def player_names(self) -> tuple[str, ...]:
        """``game.players``, or two default names in the display's language when "auto"."""
        if self.game.players != "auto":
            return self.game.players
        return tuple(DEFAULT_PLAYER[self.language()].format(n=n) for n in (1, 2))

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
            "challenge": ("game.challenge", None if g.challenge == "auto" else g.challenge),
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
            profile.check_players(len(self.player_names()))
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
