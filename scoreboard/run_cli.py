"""``scoreboard run``: the service, on real devices or on simulated ones.

Real devices: the board controller on its serial port (``board.link``, else the first
``/dev/serial/by-id`` match), the buttons on the Pi's GPIO, the OLED(s) on I2C. With
``--simulate``: the simulated board process (``scoreboard simulate-board``, started here
unless ``--link`` names a running one; its control socket is ``LINK.control``), mock GPIO
and an emulated display writing PNG frames (and ``screens.gif`` at the end) into ``--out``;
``--window`` also opens a pygame window. ``--script FILE`` (see
:mod:`scoreboard.table_script`) plays a whole table unattended; ``--virtual-clock`` runs it
as fast as the events allow, the board in lockstep with the service's clock.

One queue, one consumer: the board reader thread, the button callbacks and the tick all put
their events on one queue; this loop alone steps the controller. SIGTERM and SIGINT stop it
cleanly (devices and journal closed); sd_notify READY, STATUS and WATCHDOG go to systemd.

A scripted run journals the script line of every step that wrote records, so a service
killed half-way and started again with the same script goes on where its journal ends.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drivers.board.link import BoardEvent, BoardLink
from drivers.board.serial_link import Backoff, SerialBoard
from drivers.board.stabiliser import Stabiliser
from drivers.buttons.gpio import Buttons, ManualClock, from_settings
from drivers.buttons.logic import ButtonEvent, ButtonId
from drivers.display.oled import Display, make_displays
from engine.errors import ScoreboardError
from engine.lexicon import Lexicon
from engine.rules import RuleProfile, get_profile
from engine.tiles import TileSet
from scoreboard.config import Config, load_config, state_dir
from scoreboard.controller import Context, Settings, Table, Tick
from scoreboard.journal import Journal
from scoreboard.lexicons import HouseList, open_lexicon
from scoreboard.notify import ServiceNotifier
from scoreboard.registry import TileRegistry, registry_path, set_key
from scoreboard.screens.models import Lang
from scoreboard.service import SCRIPT_KIND, Service
from scoreboard.sim.tags import tile_set_uids
from scoreboard.table_script import Line, parse, press_target

if TYPE_CHECKING:
    from scoreboard.sim.client import Reply, SimControl

__all__ = ["Runner", "add_parser", "build_table", "cmd_run"]

log = logging.getLogger(__name__)

TICK_S = 0.25  # a Tick this often (real time)
QUANTUM_S = 0.05  # virtual clock: the board and the service advance in steps this long
BARRIER_S = 15.0  # real seconds to wait for the board's bytes of one step


class RunError(ScoreboardError, RuntimeError):
    """The service cannot start or go on (the reason is said)."""


# --- building ------------------------------------------------------------------------------


def build_table(config: Config, tiles: Callable[[TileSet], Any], state: Path) -> Table:
    """The turn controller of ``config``: profiles with its variants, lexicons with the house lists."""
    configured = config.rule_profile()
    lexicons: dict[str, Lexicon] = {}

    def profile(name: str) -> RuleProfile:
        return configured if name == configured.name else get_profile(name)

    def lexicon(language: str) -> Lexicon:
        if language not in lexicons:
            lexicons[language] = open_lexicon(
                language, configured=getattr(config.lexicon, language), state_dir=state
            )
        return lexicons[language]

    g = config.game
    settings = Settings(
        language=config.ui.language,  # type: ignore[arg-type]
        window_s=float(g.challenge_seconds),
        read_timeout_s=config.board.read_timeout_ms / 1000,
        refill="warn" if g.refill == "warn" else "block",
    )
    context = Context(profile, lexicon, tiles, tuple(g.players), settings)
    return Table(context)


def enrolled_tiles(state: Path) -> Callable[[TileSet], TileRegistry]:
    """The tile registries enrolled under ``state`` (``scoreboard enroll``)."""
    cache: dict[str, TileRegistry] = {}

    def tiles(tile_set: TileSet) -> TileRegistry:
        if tile_set.name not in cache:
            cache[tile_set.name] = TileRegistry.load(state, set_key(tile_set))
        return cache[tile_set.name]

    return tiles


def simulated_tiles(state: Path) -> Callable[[TileSet], TileRegistry]:
    """Registries of the simulated board's tags (every tile of a set, deterministic UIDs)."""
    cache: dict[str, TileRegistry] = {}

    def tiles(tile_set: TileSet) -> TileRegistry:
        if tile_set.name not in cache:
            entries = {uid: tile.letter for tile, uid in tile_set_uids(tile_set)}
            path = registry_path(state, set_key(tile_set)).with_suffix(".simulated.json")
            cache[tile_set.name] = TileRegistry(tile_set, path, entries)
        return cache[tile_set.name]

    return tiles


def start_simulator(link: Path, *, lockstep: bool, racks: int, slots: int) -> subprocess.Popen[bytes]:
    """The simulated board as its own process, serving at ``link`` (control: ``LINK.control``)."""
    command = [
        sys.executable, "-m", "scoreboard.sim", "--link", str(link),
        "--control", f"{link}.control", "--racks", str(racks), "--slots", str(slots),
    ]
    if lockstep:
        command.append("--lockstep")
    return subprocess.Popen(command, stdin=subprocess.DEVNULL)


def pygame_display() -> Display:
    """A pygame window showing the OLED (``--window``)."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from luma.emulator.device import pygame

    return Display(pygame(width=128, height=64, mode="1", scale=4, transform="none"))


# --- the loop --------------------------------------------------------------------------------


@dataclass
class Runner:
    """The one consumer: moves events from ``inbox`` into the service, drives a script.

    ``clock`` is the service's time (a :class:`ManualClock` with ``sim`` in lockstep);
    ``pins``: the mock pins of a simulated run (button -> MockPin).
    """

    service: Service
    board: SerialBoard
    buttons: Buttons
    inbox: queue.Queue[object]
    clock: Callable[[], float]
    notifier: ServiceNotifier = field(default_factory=ServiceNotifier)
    sim: SimControl | None = None
    virtual: ManualClock | None = None
    pins: dict[ButtonId, Any] = field(default_factory=dict)
    tile_set: str = "german"
    stop: threading.Event = field(default_factory=threading.Event)
    next_tick: float = 0.0
    line_done: int | None = None  # the last script line carried out to its end
    line_now: int | None = None  # the script line being carried out

    # --- events ---

    def dispatch(self, item: object) -> None:
        if isinstance(item, BoardEvent):
            self.service.script_line = self.line_done
            self.service.board_event(item)
        elif isinstance(item, ButtonEvent):
            log.info("%s", item)
            # a press's records carry its own line: a resumed script does not press again
            self.service.script_line = self.line_now
            self.service.handle(item)

    def drain(self) -> None:
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                return
            self.dispatch(item)

    def loop_once(self, timeout: float) -> None:
        """Real time: wait up to ``timeout`` for an event, step, tick when due."""
        try:
            item = self.inbox.get(timeout=max(0.0, timeout))
        except queue.Empty:
            item = None
        if item is not None:
            self.dispatch(item)
            self.drain()
        now = self.clock()
        if now >= self.next_tick:
            self.next_tick = now + TICK_S
            self.service.script_line = self.line_done
            self.service.handle(Tick(now))
        self.notifier.ping_if_due(time.monotonic())

    # --- time ---

    def advance_to(self, t: float) -> None:
        """Let time pass until ``t``: in real time, or the board and clock in lockstep."""
        if self.virtual is None:
            while not self.stop.is_set() and not self.service.power_off and self.clock() < t:
                self.loop_once(min(0.05, t - self.clock()))
            return
        assert self.sim is not None
        while not self.stop.is_set() and not self.service.power_off and self.virtual() < t - 1e-9:
            dt = min(QUANTUM_S, t - self.virtual())
            reply = self.sim.advance(dt)
            self.virtual.advance(dt)
            self.barrier(reply)
            self.drain()
            self.buttons.tick()
            self.drain()
            self.service.script_line = self.line_done
            self.service.handle(Tick(self.virtual()))
            self.notifier.ping_if_due(time.monotonic())

    def barrier(self, reply: Reply) -> None:
        """Wait until the board reader has read every byte the board wrote (lockstep)."""
        if reply.pty is None:
            return  # unplugged: nothing to read
        want = os.path.realpath(reply.pty)
        deadline = time.monotonic() + BARRIER_S
        while time.monotonic() < deadline and not self.stop.is_set():
            device, count = self.board.position()
            if device == want and count >= reply.written:
                return
            time.sleep(0.0002)
            self.notifier.ping_if_due(time.monotonic())
        log.warning("the board reader is behind: %s of %s bytes", self.board.position(), reply.written)

    # --- a script ---

    def run_script(self, lines: Sequence[Line], resume_after: int | None = None) -> None:
        """Carry out ``lines``, those up to ``resume_after`` (done before a restart) skipped.

        Records are journaled with the script line they complete: a press's own records
        with its line, everything else with the last line carried out to its end. Lines
        after that are carried out again on a restart (board commands are idempotent).
        """
        self.line_done = resume_after
        for line in lines:
            if self.stop.is_set() or self.service.power_off:
                return
            if resume_after is not None and line.number <= resume_after:
                continue
            start = line.at if line.at is not None else self.clock() + line.wait
            self.advance_to(start)
            if line.action == "end":
                return
            self.line_now = line.number
            self.do(line)
            self.line_done = line.number
        self.advance_to(self.clock() + 1.0)

    def do(self, line: Line) -> None:
        if line.action in ("press", "hold"):
            seat, role, seconds = press_target(line.args)
            pin = self.pins.get(ButtonId(seat, role))
            if pin is None:
                raise RunError(f"line {line.number}: no simulated button {ButtonId(seat, role).name()}")
            pin.drive_low()
            self.advance_to(self.clock() + seconds)
            pin.drive_high()
            if self.virtual is None:
                self.loop_once(0.0)
            else:
                self.drain()
        elif line.action == "tick":
            return
        else:
            if self.sim is None:
                raise RunError(f"line {line.number}: board commands need the simulated board")
            self.sim.send(line.board_command(self.tile_set))


# --- the command -------------------------------------------------------------------------------


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``run`` to the ``scoreboard`` command line."""
    p = subparsers.add_parser(
        "run",
        help="run the scoreboard service",
        description="Run the scoreboard: the board, the buttons and the display(s) from the "
        "configuration, or simulated ones with --simulate.",
    )
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], help="override a key")
    p.add_argument("--simulate", action="store_true", help="simulated board, mock GPIO, emulated display")
    p.add_argument("--link", metavar="PATH", help="with --simulate: a running simulated board's link")
    p.add_argument("--script", metavar="FILE", help="with --simulate: a table script to play")
    p.add_argument("--virtual-clock", action="store_true", help="with --script: as fast as events allow")
    p.add_argument("--window", action="store_true", help="with --simulate: show the display in a window")
    p.add_argument("--out", metavar="DIR", help="with --simulate: where screens go (default STATE/simulate)")
    p.set_defaults(func=cmd_run)
    return p


def cmd_run(args: argparse.Namespace) -> int:
    """``scoreboard run``; exit 0 when stopped, 2 when it cannot start."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if not args.simulate and (args.link or args.script or args.virtual_clock or args.window):
        print("scoreboard: --link, --script, --virtual-clock and --window need --simulate", file=sys.stderr)
        return 2
    if args.virtual_clock and not args.script:
        print("scoreboard: --virtual-clock needs --script (nothing else would move the time)", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config, args.set)
        state = state_dir(config)
        return run(config, state, args)
    except (ScoreboardError, OSError) as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return 2


def run(config: Config, state: Path, args: argparse.Namespace) -> int:
    """Build everything, start or resume the game, loop until stopped."""
    from scoreboard.sim.client import SimControl

    lines: list[Line] = []
    if args.script:
        lines = parse(Path(args.script).read_text(encoding="utf-8"))
    profile = config.rule_profile()
    seats = len(config.game.players)
    profile.check_players(seats)
    virtual = ManualClock(0.0) if args.virtual_clock else None
    clock: Callable[[], float] = virtual if virtual is not None else time.monotonic
    notifier = ServiceNotifier()
    inbox: queue.Queue[object] = queue.Queue()
    stop = threading.Event()
    cleanups: list[Callable[[], None]] = []
    old_handlers: dict[int, Any] = {}
    powering_off = False
    simulator: subprocess.Popen[bytes] | None = None
    sim: SimControl | None = None
    shown = None
    out: Path | None = None
    link_dir: Path | None = None

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    try:
        if threading.current_thread() is threading.main_thread():
            for wanted in (signal.SIGTERM, signal.SIGINT):
                old_handlers[wanted] = signal.signal(wanted, on_signal)
        journal = Journal.open(state)
        cleanups.append(journal.close)
        if journal.recovery_note:
            log.error("%s", journal.recovery_note)
        if lines:
            latest = journal.latest()
            if latest is not None and latest.finished and any(
                e.kind == SCRIPT_KIND for e in journal.entries(latest.id)
            ):
                log.info("the scripted game %s is over; nothing to do", latest.id)
                return 0
            unfinished = journal.unfinished()
            if virtual is not None and unfinished is not None:  # resume on the clock it stopped at
                virtual.advance(max((e.at for e in journal.entries(unfinished.id)), default=0.0))
        if args.simulate:
            out = Path(args.out) if args.out else state / "simulate"
            (out / "screens").mkdir(parents=True, exist_ok=True)
            if args.link:
                link = Path(args.link)
            else:
                link_dir = Path(tempfile.mkdtemp(prefix="scoreboard-"))
                link = link_dir / "board"
                simulator = start_simulator(
                    link, lockstep=virtual is not None, racks=seats, slots=profile.rack_size
                )
            sim = SimControl.connect(f"{link}.control", timeout=20.0)
            tiles = simulated_tiles(state)
            display_config = _capture_config(config)
            displays: tuple[Display, ...] = make_displays(display_config, out / "screens")
            if args.window:
                displays = (*displays, pygame_display())
            cleanups.append(functools.partial(_close_all, displays))
            shown = open(out / "screens.txt", "a", encoding="utf-8")
            board_path: str | None = str(link)
        else:
            tiles = enrolled_tiles(state)
            displays = make_displays(config)
            cleanups.append(functools.partial(_close_all, displays))
            board_path = config.board.link or None
        if stop.is_set():
            return 0
        table = build_table(config, tiles, state)
        lang: Lang = config.ui.language  # type: ignore[assignment]
        service = Service(
            table, journal, displays, language=lang, clock=clock,
            stabiliser=Stabiliser(config.board.stable_reports, config.board.stable_ms / 1000),
            house=lambda language: HouseList.in_state_dir(state, language), shown=shown,
        )
        cleanups = [service.close]  # it closes the displays and the journal
        link_engine = BoardLink(timeout=config.board.timeout_ms / 1000)
        board = SerialBoard(
            board_path, pattern=config.board.pattern, baudrate=config.board.baudrate,
            link=link_engine, events=inbox,  # type: ignore[arg-type]
            clock=clock, backoff=Backoff(0.05, 0.5) if args.simulate else Backoff(),
        )
        pins, timing = from_settings(config.buttons, seats)
        factory: Any = None
        if args.simulate:
            from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

            factory = MockFactory()
        buttons = Buttons(pins, inbox.put, timing=timing, pin_factory=factory, clock=clock)
        cleanups.insert(0, buttons.close)
        runner = Runner(
            service, board, buttons, inbox, clock, notifier, sim, virtual,
            {b: factory.pin(p) for b, p in pins.items()} if factory is not None else {},
            profile.tile_set.name, stop,
        )
        service.start(profile.name, seats, paused=not lines)
        resume = service.resumed_script_line
        board.start()
        cleanups.insert(0, board.close)
        if virtual is None:
            buttons.start()
        notifier.ready("scoreboard running")
        if lines:
            runner.run_script(lines, resume)
        else:
            runner.advance_to(float("inf"))
        notifier.stopping()
        if service.power_off:
            notifier.status("shut down from the menu")
            powering_off = not args.simulate
        return 0
    finally:
        for number, handler in old_handlers.items():
            signal.signal(number, handler)
        for cleanup in cleanups:
            try:
                cleanup()
            except Exception:
                log.exception("cleanup failed")
        if sim is not None:
            sim.close()
        if simulator is not None:
            simulator.terminate()
            try:
                simulator.wait(timeout=5)
            except subprocess.TimeoutExpired:
                simulator.kill()
        if link_dir is not None:
            shutil.rmtree(link_dir, ignore_errors=True)
        if shown is not None:
            shown.close()
        if out is not None:
            write_gif(out / "screens", out / "screens.gif")
        if powering_off:
            power_off()


def power_off(command: Sequence[str] = ("systemctl", "poweroff")) -> bool:
    """Switch the Pi off (Shut down in the menu), after the journal and devices are closed.

    The service's user needs the right (systemd/50-scoreboard-poweroff.rules, a polkit
    rule that install.sh puts in place); without it the service just stops.
    """
    try:
        done = subprocess.run(list(command), check=False, timeout=30, capture_output=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        log.error("cannot switch off: %s", e)
        return False
    if done.returncode:
        log.error("cannot switch off: %s", done.stderr.decode(errors="replace").strip())
    return done.returncode == 0


def _close_all(displays: Sequence[Display]) -> None:
    for display in displays:
        display.close()


def _capture_config(config: Config) -> Any:
    """``config`` with its display emulated: PNG capture, one shared display."""
    from dataclasses import replace

    import attrs

    display = attrs.evolve(config.display, driver="capture", mux_address=0, seat_channels=())
    return replace(config, display=display)


def write_gif(frames: Path, gif: Path, frame_ms: int = 700) -> bool:
    """An animated GIF of the captured PNG frames (in name order); False when there are none."""
    from PIL import Image

    files = sorted(frames.glob("*.png"))
    if not files:
        return False
    images = [Image.open(f).convert("L").resize((256, 128), Image.Resampling.NEAREST) for f in files]
    images[0].save(gif, save_all=True, append_images=images[1:], duration=frame_ms, loop=0)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scoreboard.run_cli ...`` (the same as ``scoreboard run``)."""
    parser = argparse.ArgumentParser(prog="scoreboard")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["run", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
