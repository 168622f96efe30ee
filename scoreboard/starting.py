"""The first frame of ``scoreboard run``: "Starting…" on the table's display(s) before the rest loads.

:func:`show_starting` runs first in ``scoreboard run``: it reads the ``[display]`` keys and
the display's language from the configuration file and the ``--set`` values
(:mod:`scoreboard.config_files`: the same file and the same values the configuration is
loaded from, without its schema), opens the display(s) as the service does (the real panels,
or with ``--simulate`` the emulated ones writing PNG frames and a line of ``screens.txt``) and
shows :class:`~scoreboard.drawing.starting.StartingScreen` there. Only then does the service
load its configuration, the journal, the controller, the board link and the buttons; the
game's own screen replaces this one once the journal is read. The frame claims nothing
about the game.

The configuration loaded afterwards decides: :meth:`Starting.take` hands the displays over
to the service when its ``[display]`` is the one read here, else closes them (the service
opens its own). When anything here fails (a file that does not parse, a value of the wrong
kind, a panel that does not answer) there is no starting frame and the start goes on as
without it: the configuration, loaded next, reports what is wrong.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from drivers.display.panels import PANELS, RECOMMENDED, Panel, panel_of_controller
from engine.errors import ScoreboardError
from scoreboard.config_files import (
    CONFIG_MAX_BYTES,
    config_file,
    set_value,
    state_dir_path,
)

if TYPE_CHECKING:
    from drivers.display.oled import Display

__all__ = [
    "DISPLAY_DEFAULTS",
    "PROFILE_LANGUAGES",
    "EarlyDisplay",
    "EarlySettingError",
    "Settings",
    "Starting",
    "read_settings",
    "show_starting",
]

log = logging.getLogger(__name__)

DISPLAY_DEFAULTS: Mapping[str, Any] = {
    "driver": PANELS[RECOMMENDED].controller,
    "panel": "auto",
    "interface": "auto",
    "address": 0x3C,
    "port": 1,
    "spi_port": 0,
    "spi_device": 0,
    "spi_hz": 8_000_000,
    "gpio_dc": 24,
    "gpio_rst": 25,
    "rotate": 0,
    "mux_address": 0,
    "seat_channels": (),
}
"""The ``[display]`` keys and their defaults (a test checks them against
:class:`scoreboard.config.DisplayConfig`)."""

PROFILE_LANGUAGES: Mapping[str, str] = {"de": "de", "fr": "fr", "en": "en", "en-tournament": "en"}
"""The language of each rule profile (a test checks it against the configuration's)."""

_DRIVERS = frozenset(p.controller for p in PANELS.values()) | {"dummy", "capture"}
_WORDS: Mapping[str, frozenset[str]] = {
    "driver": _DRIVERS,
    "panel": frozenset({"auto", *PANELS}),
    "interface": frozenset({"auto", "i2c", "spi"}),
}


class EarlySettingError(ScoreboardError, ValueError):
    """A setting the starting frame does not take as it is: ``key`` (dotted) and its ``value``
    (the configuration, loaded next, judges it and says what is wrong)."""

    def __init__(self, key: str, value: object) -> None:
        self.key, self.value = key, value
        super().__init__(f"{key} = {value!r}: not taken for the starting frame")


class EarlyDisplay:
    """The ``[display]`` keys read early: the attributes :func:`~drivers.display.oled.make_device`
    and :func:`~drivers.display.oled.make_displays` read of a
    :class:`~scoreboard.config.DisplayConfig`, and its two choices."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = {key: values.get(key, default) for key, default in DISPLAY_DEFAULTS.items()}
        for key, value in self.values.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        return f"EarlyDisplay({self.values!r})"

    def chosen_panel(self) -> Panel:
        """The panel: ``panel``, or the one ``driver`` drives when "auto" (as the configuration's)."""
        return PANELS[self.values["panel"]] if self.values["panel"] != "auto" else panel_of_controller(self.values["driver"])

    def chosen_interface(self) -> str:
        """``interface``, or the chosen panel's usual bus when "auto" (as the configuration's)."""
        interface: str = self.values["interface"]
        return interface if interface != "auto" else self.chosen_panel().interfaces[0]

    def same_as(self, display: Any) -> bool:
        """True when ``display`` (a :class:`~scoreboard.config.DisplayConfig`) has every key as here."""
        return all(getattr(display, key, None) == value for key, value in self.values.items())


def _display_value(key: str, value: Any) -> Any:
    """``value`` of ``display.KEY`` when it is of the kind the key takes; else :class:`EarlySettingError`."""
    if key in _WORDS:
        if isinstance(value, str) and value in _WORDS[key]:
            return value
    elif key == "seat_channels":
        if isinstance(value, (list, tuple)) and all(type(v) is int for v in value):
            return tuple(value)
    elif type(value) is int:
        return value
    raise EarlySettingError(f"display.{key}", value)


class Settings:
    """What the starting frame needs of the configuration: the display, its language, the
    state directory's setting (read when asked: a path is a TOML string, whose parser is
    loaded only then) and the file the configuration comes from."""

    def __init__(self, display: EarlyDisplay, language: str, state_dir: Callable[[], Any], source: Path | None) -> None:
        self.display, self.language, self.source = display, language, source
        self._state_dir = state_dir

    def state_path(self) -> Path:
        """The state directory (made as :func:`scoreboard.config.state_dir` makes it)."""
        configured = self._state_dir()
        if not isinstance(configured, str):
            raise EarlySettingError("paths.state_dir", configured)
        path, _ = state_dir_path(configured, self.source)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path


def _file_values(path: Path) -> dict[str, Any]:
    """The dotted keys of the configuration file ``path`` this module reads."""
    with open(path, "rb") as f:
        raw = f.read(CONFIG_MAX_BYTES + 1)
    if len(raw) > CONFIG_MAX_BYTES:
        raise EarlySettingError("--config", str(path))
    import tomllib

    data = tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))
    out: dict[str, Any] = {}
    for section in ("display", "ui", "game", "paths"):
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise EarlySettingError(section, table)
        out.update((f"{section}.{name}", value) for name, value in table.items())
    return out


def read_settings(path: str | None, overrides: Sequence[str]) -> Settings:
    """The settings of the configuration file (``--config`` ``path``, else as the
    configuration finds it) with the ``overrides`` (``KEY=VALUE``) applied. Raises
    :class:`EarlySettingError` for a value of a kind its key does not take, and the errors of
    reading the file (OSError, UnicodeDecodeError, ``tomllib.TOMLDecodeError``)."""
    file, _ = config_file(path)
    in_file = _file_values(file) if file is not None else {}
    texts: dict[str, str] = {}  # the overrides' values, parsed only when read
    for item in overrides:
        dotted, sep, text = item.partition("=")
        if sep:
            texts[dotted.strip()] = text.strip()

    def value(dotted: str, default: Any) -> Any:
        if dotted in texts:
            return set_value(texts[dotted])
        return in_file.get(dotted, default)

    display = EarlyDisplay({
        key: _display_value(key, value(f"display.{key}", default)) for key, default in DISPLAY_DEFAULTS.items()
    })
    language = value("ui.language", "auto")
    if language == "auto":
        language = PROFILE_LANGUAGES.get(value("game.rules", "de"), "en")
    if not isinstance(language, str):
        raise EarlySettingError("ui.language", language)
    return Settings(display, language, lambda: value("paths.state_dir", ""), file)


class Starting:
    """The displays showing the starting frame, until the service takes them (or they are closed).

    ``display`` is the ``[display]`` they were opened for, ``frames`` the emulated panels'
    folder (None: real panels), ``shown`` the simulation's ``screens.txt`` (its first line
    written).
    """

    def __init__(self, displays: tuple[Display, ...], display: EarlyDisplay, frames: Path | None,
                 shown: TextIO | None) -> None:
        self.displays, self.display, self.frames, self.shown = displays, display, frames, shown

    def take(self, display: Any, frames: Path | None) -> tuple[tuple[Display, ...], TextIO | None] | None:
        """The displays and ``screens.txt`` for the service when its ``display`` (a
        :class:`~scoreboard.config.DisplayConfig`) and ``frames`` folder are the ones opened
        here: they are then the service's to close. Else None, and they are closed."""
        if self.displays and self.display.same_as(display) and self.frames == frames:
            handed = self.displays, self.shown
            self.displays, self.shown = (), None
            return handed
        log.info("the display is opened again: the configuration's [display] is not the one read at the start")
        self.close()
        return None

    def close(self) -> None:
        """Close what was not handed over (the panels are cleared and switched off)."""
        displays, self.displays = self.displays, ()
        for display in displays:
            try:
                display.close()
            except Exception:  # (closing the rest matters more)
                log.exception("closing a display failed")
        if self.shown is not None:
            self.shown.close()
            self.shown = None


def show_starting(
    config: str | None, overrides: Sequence[str], *, simulate: bool = False, out: str | None = None,
    virtual_clock: bool = False,
) -> Starting | None:
    """Open the display(s) of the configuration (``--config``, ``--set``) and show the starting
    frame; with ``simulate`` the emulated panels in ``out`` (default: the state directory's
    ``simulate``) as ``scoreboard run --simulate`` makes them, and a line in ``screens.txt``
    (at time 0 with ``virtual_clock``, the virtual clock's start). None when it cannot be
    shown: the start goes on without it (the configuration, loaded next, says what is wrong)."""
    opened: tuple[Display, ...] = ()
    shown: TextIO | None = None
    try:
        settings = read_settings(config, overrides)
        from drivers.display.oled import emulated_displays, make_displays
        from scoreboard.drawing.starting import StartingScreen, render_starting

        frames: Path | None = None
        if simulate:
            folder = Path(out) if out else settings.state_path() / "simulate"
            frames = folder / "screens"
            frames.mkdir(parents=True, exist_ok=True)
            opened = emulated_displays(settings.display, frames)
        else:
            opened = make_displays(_Sections(settings.display))
        screen = StartingScreen()
        images: dict[Panel, Any] = {}
        for display in opened:
            if display.panel not in images:
                images[display.panel] = render_starting(screen, settings.language, display.panel).image
            display.show(images[display.panel])
        if simulate:
            at = 0.0 if virtual_clock else time.monotonic()
            shown = open(folder / "screens.txt", "a", encoding="utf-8")  # noqa: SIM115 (the service's, then)
            shown.write(f"{at:.3f}\t{screen!r}\n")
            shown.flush()
        return Starting(opened, settings.display, frames, shown)
    except (ScoreboardError, OSError, ValueError, RuntimeError, ImportError) as e:
        # (an extra: what stops it stops the start no more than before; the configuration,
        # the display's bus or the missing library are reported by the start that follows)
        log.info("no starting frame: %s: %s", type(e).__name__, e)
        Starting(opened, EarlyDisplay({}), None, shown).close()
        return None


class _Sections:
    """A configuration as :func:`~drivers.display.oled.make_displays` reads one: its ``display``."""

    def __init__(self, display: EarlyDisplay) -> None:
        self.display = display

