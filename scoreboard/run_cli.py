"""``scoreboard run``: the service, on real devices or on simulated ones.

``cmd_run`` checks the arguments, builds the devices (:func:`scoreboard.hardware.build_hardware`)
and calls :func:`run`, which starts or resumes the game and serves until stopped. With
``--script FILE`` (see :mod:`scoreboard.table_script`) a whole table plays unattended
(:mod:`scoreboard.scripted`); ``--virtual-clock`` runs it as fast as the events allow, the
board in lockstep with the service's clock. ``--control PATH`` opens the simulated table's
control socket (:mod:`scoreboard.play.channel`: its buttons pressed and its frames watched
by ``scoreboard play``); ``--parent-pipe FD`` stops the service when the process that
started it is gone. ``--window`` (a pygame window) is retired: ``scoreboard play`` shows
the displays in the browser. SIGTERM and SIGINT stop it cleanly (devices and
journal closed); sd_notify READY, STATUS and WATCHDOG go to systemd.
"""

from __future__ import annotations

import argparse
import logging
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from scoreboard import starting as _starting

if TYPE_CHECKING:  # (loaded when they are used: the starting frame is shown first)
    from engine.tiles import TileSet
    from scoreboard.config import Config
    from scoreboard.controller import Table, TileLookup
    from scoreboard.hardware import Hardware
    from scoreboard.service import Broadcast, Watcher
    from scoreboard.table_script import Line

__all__ = ["build_table", "cmd_run", "run"]

log = logging.getLogger(__name__)


def build_table(config: Config, tiles: Callable[[TileSet], TileLookup], state: Path) -> Table:
    """The turn controller of ``config``: profiles with its variants, lexicons with the house lists."""
    from engine.lexicon import Lexicon
    from engine.rules import RuleProfile, get_profile
    from scoreboard.controller import Context, Settings, Table
    from scoreboard.lexicons import open_lexicon
    from scoreboard.voice.models import SpeechKind

    configured = config.rule_profile()
    lexicons: dict[str, Lexicon] = {}

    def profile(name: str) -> RuleProfile:
        return configured if name == configured.name else get_profile(name)

    def lexicon(language: str) -> Lexicon:
        if language not in lexicons:
            lexicons[language] = open_lexicon(language, configured=getattr(config.lexicon, language), state_dir=state)
        return lexicons[language]

    g = config.game
    settings = Settings(
        language=None if config.ui.language == "auto" else config.language(),  # type: ignore[arg-type]
        window_s=float(g.challenge_seconds),
        read_timeout_s=config.board.read_timeout_ms / 1000,
        refill="warn" if g.refill == "warn" else "block",
        announce=frozenset(SpeechKind(e) for e in config.voice.events) if config.voice.enabled else frozenset(),
    )
    names = () if config.game.players == "auto" else config.game.players  # "auto": named in the game's language
    return Table(Context(profile, lexicon, tiles, names, settings))


def run(
    config: Config,
    state: Path,
    hardware: Hardware,
    script: Sequence[Line] | None = None,
    stop: threading.Event | None = None,
) -> bool:
    """Start or resume the game on ``hardware`` and serve until ``stop`` (or, with a
    ``script``, until it ends); the journal is in ``state``. True when Shut down was chosen
    from the menu (the caller switches off once everything is closed)."""
    from dataclasses import replace

    from drivers.board.stabiliser import Stabiliser
    from scoreboard.journal import Journal, JournalOpenError
    from scoreboard.lexicons import HouseList
    from scoreboard.notify import ServiceNotifier
    from scoreboard.runner import Runner
    from scoreboard.screens import ErrorKind, ErrorScreen, render
    from scoreboard.scripted import ScriptedJournal, ScriptPlayer, resume_point
    from scoreboard.service import GameJournal, Service

    stop = stop or threading.Event()
    profile = config.rule_profile()
    notifier = ServiceNotifier()
    try:
        opened = Journal.open(state)
    except JournalOpenError:  # the display says so before the service stops, and goes on saying it
        for display in hardware.displays:
            screen = ErrorScreen(ErrorKind.JOURNAL_UNREADABLE, UNREADABLE_HINT)
            display.show(render(screen, config.language(), display.panel))  # type: ignore[arg-type]
            display.keep_shown()
        raise
    with opened as journal, ExitStack() as closing:
        watcher = _control_channel(config, hardware, closing)
        broadcast = _publisher(config, journal.path, closing)
        if journal.recovery is not None:
            log.error("%s", journal.recovery.note)
        resume = resume_point(journal) if script is not None else None
        if resume is not None and hardware.virtual is not None:
            hardware.virtual.advance(resume.start)  # a resumed script goes on at the time it stopped
        journaled: GameJournal = ScriptedJournal(journal) if script is not None else journal
        service = Service(
            build_table(config, hardware.tiles, state), journaled, hardware.displays,
            clock=hardware.clock, seat_panels=hardware.seat_panels,
            stabiliser=Stabiliser(config.board.stable_reports, config.board.stable_ms / 1000),
            house=lambda language: HouseList.in_state_dir(state, language), shown=hardware.shown,
            voice=hardware.voice, voice_names=config.voice.names, watcher=watcher, broadcast=broadcast,
        )
        runner = Runner(service, hardware, notifier, stop)
        service.start(profile.name, len(config.player_names()), paused=script is None)
        kept = journal.recovery.kept if journal.recovery is not None else service.kept_copy
        if kept is not None:  # the players' helper is told where it is
            service.announce(ErrorScreen(ErrorKind.JOURNAL_DAMAGED, kept.stamp), DAMAGE_NOTICE_S)
        hardware.start()
        notifier.ready("scoreboard running")
        if script is not None:
            assert isinstance(journaled, ScriptedJournal) and resume is not None
            player = ScriptPlayer(runner, journaled, profile.tile_set.name)
            player.play(script, resume if service.game_id == resume.game else replace(resume, line=None))
        else:
            runner.run()
        notifier.stopping()
        if service.power_off:
            notifier.status("shut down from the menu")
        return service.power_off


def _control_channel(config: Config, hardware: Hardware, closing: ExitStack) -> Watcher | None:
    """The simulated table's control socket, when asked for (``--control``); open, closed by ``closing``."""
    simulation = hardware.simulation
    if simulation is None or simulation.control is None:
        return None
    from scoreboard.play.channel import TableChannel
    from scoreboard.play.view import table_view

    # a click's press and release may reach the socket close together on a loaded machine: the pin
    # stays closed past the debounce, so the service sees the press
    shortest = config.buttons.debounce_ms / 1000 + 0.07
    channel = TableChannel(simulation.control, hardware.pins, len(config.player_names()), table_view,
                           min_press_s=shortest)
    channel.open()
    closing.callback(channel.close)
    return channel


def _publisher(config: Config, db: Path, closing: ExitStack) -> Broadcast | None:
    """The publisher to the venue's broker, when ``[broadcast]`` is enabled; started, stopped by
    ``closing`` (after waiting up to ``broadcast.flush_s`` for the broker to take the rest)."""
    if not config.broadcast.enabled:
        return None
    from scoreboard.broadcast.cursor import CursorError
    from scoreboard.broadcast.publisher import Publisher, TlsSetupError

    publisher = Publisher(config.broadcast, db)
    try:
        publisher.start()
    except (TlsSetupError, CursorError) as e:
        # the table plays on unpublished: the journal keeps every record, and the cursor sends
        # them from where it stopped once the setting is put right and the service restarted
        log.error("not publishing this table: %s", e)
        return None
    closing.callback(publisher.stop)
    return publisher


JOURNAL_UNREADABLE = 3  # the exit status when the journal cannot be opened at all
UNREADABLE_HINT = "scoreboard.service"  # whose log says why, on the display
DAMAGE_NOTICE_S = 15.0  # how long the display tells of a damaged journal kept aside, at the start


# --- the command -------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    """``scoreboard run``; exit 0 when stopped, 2 when it cannot start, 3
    (:data:`JOURNAL_UNREADABLE`) when the journal cannot be opened at all."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.window:
        print("scoreboard: --window is retired: `scoreboard play` shows the table, its displays and its buttons in"
              " the browser", file=sys.stderr)
        return 2
    if not args.simulate and (args.link or args.script or args.virtual_clock or args.control):
        print("scoreboard: --link, --script, --virtual-clock and --control need --simulate", file=sys.stderr)
        return 2
    if args.virtual_clock and not args.script:
        print("scoreboard: --virtual-clock needs --script (nothing else would move the time)", file=sys.stderr)
        return 2
    with stop_signals() as stop:
        if args.parent_pipe is not None:
            from scoreboard.sim.cli import watch_parent

            try:
                watch_parent(args.parent_pipe, stop)
            except OSError as e:
                print(f"scoreboard: no parent pipe at file descriptor {args.parent_pipe}: {e.strerror}", file=sys.stderr)
                return 2
        starting = _starting.show_starting(args.config, args.set, simulate=args.simulate, out=args.out,
                                 virtual_clock=args.virtual_clock)  # the first frame, before the rest loads
        try:
            from engine.errors import ScoreboardError
            from scoreboard.config import load_config, state_dir
            from scoreboard.hardware import Simulation, build_hardware
            from scoreboard.journal import JournalOpenError
            from scoreboard.table_script import ScriptTable, load

            try:
                config = load_config(args.config, args.set)
                state = state_dir(config)
                script = load(Path(args.script), ScriptTable.of(config)) if args.script else None  # all, before the game
                simulation = None
                if args.simulate:
                    out = Path(args.out) if args.out else state / "simulate"
                    link = Path(args.link) if args.link else None
                    control = Path(args.control) if args.control else None
                    simulation = Simulation(out, link, args.virtual_clock, control)
                with build_hardware(config, state, simulation, starting) as hardware:
                    shut_down = not stop.is_set() and run(config, state, hardware, script, stop)
            except JournalOpenError as e:  # restarting does not help: the unit does not (systemd/README.md)
                print(f"scoreboard: {e}", file=sys.stderr)
                return JOURNAL_UNREADABLE
            except (ScoreboardError, OSError) as e:
                print(f"scoreboard: {e}", file=sys.stderr)
                return 2
        finally:
            if starting is not None:
                starting.close()  # (what the service did not take over)
    if shut_down and simulation is None:
        power_off()
    return 0


@contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """An event set by SIGTERM or SIGINT, from the first moment (the main thread only); a
    :class:`~scoreboard.stopping.StopEvent`, so that it wakes the runner asleep on its queue."""
    from scoreboard.stopping import StopEvent

    stop = StopEvent()
    old: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for wanted in (signal.SIGTERM, signal.SIGINT):
            old[wanted] = signal.signal(wanted, lambda signum, frame: stop.signal())
    try:
        yield stop
    finally:
        for number, handler in old.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scoreboard.run_cli ...`` (the same as ``scoreboard run``)."""
    from scoreboard.cli import main as scoreboard

    return scoreboard(["run", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
