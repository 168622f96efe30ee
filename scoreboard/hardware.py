"""The table's devices, built from the configuration: real ones, or simulated ones.

:func:`build_hardware` makes the board link, the buttons, the display(s), the clock and the
tile registry in one place, and :class:`Hardware` closes them again (also as a context
manager). Real devices: the board controller on its serial port (``board.link``, else the
first ``/dev/serial/by-id`` match), the buttons on the Pi's GPIO, the OLED(s) on I2C, the
tiles enrolled in the state directory. Simulated (:class:`Simulation`): the simulated board
as its own process on a pty (or a running one at ``link``; one started here stops when this
process ends, however it ends: it watches a pipe whose other end only this process holds),
mock GPIO pins, an emulated display writing PNG frames (one per seat when ``[display]``
gives seat channels, as the table it simulates has), ``screens.txt`` and, on closing,
``screens.gif`` into ``out``, and the simulated tile set's tags; with ``virtual_clock`` the
board runs in lockstep with a clock that moves only when told. With ``voice.enabled`` the
voice (:func:`make_voice`) says the announcements on the ALSA device, or in simulation
writes each as a WAV into ``out/voice``.

Every event (board, buttons) goes to :attr:`Hardware.inbox`, the one queue.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TextIO, TypeAlias

from drivers.board.link import BoardLink
from drivers.board.serial_link import Backoff, SerialBoard, SerialEvent
from drivers.buttons.gpio import Buttons, ManualClock, from_settings
from drivers.buttons.logic import ButtonError, ButtonEvent, ButtonId, Timing
from drivers.display.oled import Display, emulated_displays, make_displays
from drivers.voice.speaker import Speaker
from engine.tiles import TileSet
from scoreboard.config import Config
from scoreboard.controller import TileLookup
from scoreboard.registry import TileRegistry, registry_path, set_key
from scoreboard.sim.client import SimControl
from scoreboard.sim.tags import tile_set_uids
from scoreboard.starting import Starting
from scoreboard.stopping import Wake

if TYPE_CHECKING:
    from drivers.buttons.chardev import ChardevButtons

__all__ = ["Hardware", "InboxItem", "Simulation", "build_hardware", "make_voice", "real_buttons"]

InboxItem: TypeAlias = SerialEvent | ButtonEvent | Wake
"""What the one queue holds: the board link's events and the buttons', and a stop's wake-up."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Simulation:
    """Simulated devices: ``link`` a running simulated board (None: start one), ``out`` where
    the frames go, ``virtual_clock`` the board in lockstep with a manual clock, ``control``
    the table's control socket (:mod:`scoreboard.play.channel`: the seat buttons pressed and
    the frames watched from outside, as ``scoreboard play`` does; None: none)."""

    out: Path
    link: Path | None = None
    virtual_clock: bool = False
    control: Path | None = None


@dataclass
class Hardware:
    """The devices of one table, and how to close them.

    ``clock``: the service's time (a :class:`ManualClock` in ``virtual``); ``pins``: the
    mock pins of a simulated run (button -> pin); ``sim``: the simulated board's control;
    ``voice``: says the announcements (None: ``voice.enabled`` is off).
    """

    inbox: queue.SimpleQueue[InboxItem]
    clock: Callable[[], float]
    board: SerialBoard
    buttons: Buttons | ChardevButtons
    displays: tuple[Display, ...]
    seat_panels: bool
    tiles: Callable[[TileSet], TileLookup]
    simulation: Simulation | None = None
    sim: SimControl | None = None
    virtual: ManualClock | None = None
    pins: dict[ButtonId, Any] = field(default_factory=dict)
    shown: TextIO | None = None
    voice: Speaker | None = None
    _cleanups: list[Callable[[], None]] = field(default_factory=list)

    def start(self) -> None:
        """Start reading the board and (in real time) the buttons."""
        self.board.start()
        if self.virtual is None:
            self.buttons.start()

    def close(self) -> None:
        """Close everything, the last made first; a failing part does not stop the rest."""
        while self._cleanups:
            cleanup = self._cleanups.pop()
            try:
                cleanup()
            except Exception:
                log.exception("closing the hardware failed")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def build_hardware(
    config: Config, state: Path, simulation: Simulation | None = None, starting: Starting | None = None
) -> Hardware:
    """The devices of ``config`` (simulated ones with ``simulation``); close them when done.

    ``starting``: the displays already showing the starting frame (:mod:`scoreboard.starting`),
    taken over when they are the ones ``config`` gives (else closed and opened again).
    What was made before a failure is closed again before the error goes on.
    """
    cleanups: list[Callable[[], None]] = []
    try:
        return _build(config, state, simulation, cleanups, starting)
    except BaseException:
        for cleanup in reversed(cleanups):
            try:
                cleanup()
            except Exception:
                log.exception("closing the hardware failed")
        raise


def _build(
    config: Config, state: Path, simulation: Simulation | None, cleanups: list[Callable[[], None]],
    starting: Starting | None,
) -> Hardware:
    seats = len(config.player_names())
    virtual = ManualClock(0.0) if simulation is not None and simulation.virtual_clock else None
    clock: Callable[[], float] = virtual if virtual is not None else time.monotonic
    inbox: queue.SimpleQueue[InboxItem] = queue.SimpleQueue()  # (its put is safe in a signal handler: a stop)
    sim: SimControl | None = None
    shown: TextIO | None = None
    if simulation is not None:
        out = simulation.out
        (out / "screens").mkdir(parents=True, exist_ok=True)
        cleanups.append(lambda: _gif_of(out))
        link = simulation.link or _start_simulator(config, virtual is not None, cleanups)
        sim = SimControl.connect(f"{link}.control", timeout=20.0)
        cleanups.append(sim.close)
        tiles: Callable[[TileSet], TileLookup] = simulated_tiles(state)
        taken = starting.take(config.display, out / "screens") if starting is not None else None
        if taken is not None:
            displays, shown = taken
        else:
            displays = simulated_displays(config, out / "screens")
        if shown is None:
            shown = open(out / "screens.txt", "a", encoding="utf-8")
        cleanups.append(shown.close)
        board_path: str | None = str(link)
    else:
        tiles = enrolled_tiles(state)
        taken = starting.take(config.display, None) if starting is not None else None
        displays = taken[0] if taken is not None else make_displays(config)
        board_path = config.board.link or None
    for display in displays:
        cleanups.append(display.close)
    board = SerialBoard(
        board_path, pattern=config.board.pattern, baudrate=config.board.baudrate,
        link=BoardLink(timeout=config.board.timeout_ms / 1000), events=inbox,  # type: ignore[arg-type]
        clock=clock, backoff=Backoff(0.05, 0.5) if simulation is not None else Backoff(), lockstep=virtual is not None,
    )
    cleanups.append(board.close)
    pins, timing = from_settings(config.buttons, seats)
    factory: Any = None
    buttons: Buttons | ChardevButtons
    if simulation is not None:
        from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

        factory = MockFactory()
        buttons = Buttons(pins, inbox.put, timing=timing, pin_factory=factory, clock=clock)
    else:
        buttons = real_buttons(config.buttons.gpio, pins, inbox.put, timing)
    cleanups.append(buttons.close)
    voice = make_voice(config, simulation.out / "voice" if simulation is not None else None)
    if voice is not None:
        drain = VOICE_DRAIN_S if simulation is not None else 0.0
        cleanups.append(lambda: voice.close(drain))
    return Hardware(
        inbox, clock, board, buttons, tuple(displays),
        seat_panels=bool(config.display.seat_channels),
        tiles=tiles, simulation=simulation, sim=sim, virtual=virtual,
        pins={b: factory.pin(p) for b, p in pins.items()} if factory is not None else {},
        shown=shown, voice=voice, _cleanups=cleanups,
    )


def real_buttons(
    how: str, pins: dict[ButtonId, int], on_event: Callable[[ButtonEvent], None], timing: Timing
) -> Buttons | ChardevButtons:
    """The buttons on the Pi's GPIO, read as ``buttons.gpio`` says: ``chardev`` (libgpiod:
    asleep until an edge, kernel timestamps), ``gpiozero`` (its pin factory), or ``auto``:
    chardev where libgpiod is installed and finds the pins, else gpiozero (told in the log)."""
    if how in ("auto", "chardev"):
        try:
            from drivers.buttons.chardev import ChardevButtons

            chardev = ChardevButtons(pins, on_event, timing=timing, clock=time.monotonic)
            log.info("buttons: read from %s through libgpiod", chardev.chip)
            return chardev
        except ButtonError as e:
            if how == "chardev":
                raise
            log.warning(
                "buttons: %s; reading them through gpiozero instead (its lgpio factory polls every 0.5 ms:"
                " some 2,000 wake-ups a second at rest)", e,
            )
    return Buttons(pins, on_event, timing=timing, clock=time.monotonic)


VOICE_DRAIN_S = 120.0
"""Seconds a simulated run waits on closing for its announcements' WAVs to be written."""


def make_voice(config: Config, wav_folder: Path | None = None) -> Speaker | None:
    """The voice of ``[voice]`` (None when it is off): espeak-ng into the ALSA device, or with
    ``wav_folder`` a WAV per announcement there (every one kept: none is superseded)."""
    v = config.voice
    if not v.enabled:
        return None
    from drivers.voice.espeak import AlsaSink, Espeak, Sink, WavFolder

    for program, package in (("espeak-ng", "espeak-ng"), ("aplay", "alsa-utils")):
        if shutil.which(program) is None and (program != "aplay" or wav_folder is None):
            log.error(
                "voice.enabled, but %s is not installed (sudo apt install %s): nothing will be said", program, package
            )
    sink: Sink = WavFolder(wav_folder) if wav_folder is not None else AlsaSink(v.device)
    backend = Espeak(v.voices(), sink, speed=v.speed, volume=v.volume)
    if wav_folder is not None:
        return Speaker(backend, capacity=100_000, max_age_s=math.inf, supersede=False)
    return Speaker(backend)


def _start_simulator(config: Config, lockstep: bool, cleanups: list[Callable[[], None]]) -> Path:
    """The simulated board as its own process, in a temporary folder; its link."""
    folder = Path(tempfile.mkdtemp(prefix="scoreboard-"))
    cleanups.append(lambda: shutil.rmtree(folder, ignore_errors=True))
    link = folder / "board"
    command = [
        sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
        "--racks", str(len(config.player_names())), "--slots", str(config.rule_profile().rack_size),
    ]
    if lockstep:
        command.append("--lockstep")
    # the simulator stops when this pipe closes: with us, however we end (SIGKILL too)
    watched, held = os.pipe()
    try:
        process = subprocess.Popen([*command, "--parent-pipe", str(watched), "--own-folder"], stdin=subprocess.DEVNULL,
                                   pass_fds=(watched,))
    except BaseException:
        os.close(held)
        raise
    finally:
        os.close(watched)

    def stop() -> None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        os.close(held)

    cleanups.append(stop)
    return link


def enrolled_tiles(state: Path) -> Callable[[TileSet], TileLookup]:
    """The tile registries enrolled under ``state`` (``scoreboard enroll``)."""
    cache: dict[str, TileRegistry] = {}

    def tiles(tile_set: TileSet) -> TileRegistry:
        if tile_set.name not in cache:
            cache[tile_set.name] = TileRegistry.load(state, set_key(tile_set))
        return cache[tile_set.name]

    return tiles


def simulated_tiles(state: Path) -> Callable[[TileSet], TileLookup]:
    """Registries of the simulated board's tags (every tile of a set, deterministic UIDs)."""
    cache: dict[str, TileRegistry] = {}

    def tiles(tile_set: TileSet) -> TileRegistry:
        if tile_set.name not in cache:
            entries = {uid: tile.letter for tile, uid in tile_set_uids(tile_set)}
            path = registry_path(state, set_key(tile_set)).with_suffix(".simulated.json")
            cache[tile_set.name] = TileRegistry(tile_set, path, entries)
        return cache[tile_set.name]

    return tiles


def simulated_displays(config: Config, folder: Path) -> tuple[Display, ...]:
    """Emulated panels of the configured kind writing PNG frames into ``folder``: one shared,
    or one per seat when ``display.seat_channels`` gives seat displays
    (:func:`~drivers.display.oled.emulated_displays`)."""
    return emulated_displays(config.display, folder)


def _gif_of(out: Path) -> None:
    from scoreboard.gif import write_gif  # only on closing

    write_gif(out / "screens", out / "screens.gif")
