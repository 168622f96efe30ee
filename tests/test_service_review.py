"""Review: bugs in the service core (journal / finish / resume) and ``scoreboard run``."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig

from drivers.display.oled import Display
from scoreboard.controller import Over
from scoreboard.journal import WriteFailure, Journal, JournalWriteError
from scoreboard.screens.models import ErrorKind, ErrorScreen, MenuItem
from scoreboard.service import Service


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short temp dir (unix socket paths), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="rv-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Clock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _display() -> Display:
    return Display(dummy(width=128, height=64, mode="1"))


def wired(r: Rig, state: Path, clock: Clock) -> Service:
    """A service on ``state`` that takes every input the rig feeds its own table."""
    service = Service(r.table, Journal.open(state), [_display()], clock=clock)
    service.start(r.profile.name, len(r.names))
    original = r.feed

    def feed(event: object) -> None:
        clock.now = getattr(event, "at", clock.now)
        service.handle(event)  # type: ignore[arg-type]
        original(event)

    r.feed = feed  # type: ignore[method-assign]
    return service


def menu_choose(r: Rig, item: MenuItem, seat: int) -> None:
    r.menu()
    for _ in range(list(MenuItem).index(item)):
        r.menu()
    r.done(seat)


def one_play_then_end(r: Rig) -> None:
    """Anna lays HAUS, then the game is ended from the menu (Ben asks, Anna confirms)."""
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    menu_choose(r, MenuItem.END_GAME, 2)
    r.done(1, long=True)


def test_a_new_game_after_the_tally_keeps_the_finished_games_result(folder: Path) -> None:
    """Service._append finishes ``game_id`` as "abandoned" on every Started record, also when
    that game is already over: the next game's start overwrites the tally in the journal."""
    state = folder
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = wired(r, state, clock)
    one_play_then_end(r)
    assert service.state is not None and isinstance(service.state.phase, Over)
    first = service.game_id
    assert first is not None
    result = service.journal.game(first).result
    assert result is not None and "rows" in result
    # a new game from the menu (no confirmation needed after the end), the tiles off the board
    menu_choose(r, MenuItem.NEW_GAME, 1)
    r.cells.clear()
    r.racks = [{} for _ in r.names]
    r.read()
    r.draw_first("EA")
    assert service.game_id != first  # the new game is journaled
    kept = service.journal.game(first).result
    service.close()
    assert kept == result, f"the finished game's tally was replaced by {kept}"


def test_a_crash_between_the_last_move_and_finish_still_records_the_result(folder: Path) -> None:
    """The final command is appended, then GameOver calls journal.finish. Killed in between,
    the restart restores a game that is over but never emits GameOver: the journal's game
    stays unfinished (no result, resumed again on every start, "abandoned" later)."""
    state = folder
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = wired(r, state, clock)

    class Killed(BaseException):
        pass

    def killed(*args: object, **kw: object) -> None:
        raise Killed

    service.journal.finish = killed  # type: ignore[method-assign]
    with pytest.raises(Killed):
        one_play_then_end(r)
    game_id = service.game_id
    assert game_id is not None
    service.journal.close()

    clock.now += 50
    again = Service(r.table, Journal.open(state), [_display()], clock=clock)
    again.start("de", 2)
    assert again.state is not None and isinstance(again.state.phase, Over)  # the game is over ...
    info = again.journal.game(game_id)
    again.close()
    assert info.finished is not None and info.result is not None, "... but the journal never says so"


def test_a_full_disk_when_the_result_is_written_does_not_stop_the_service(folder: Path) -> None:
    """Service._carry catches JournalWriteError only around Append; journal.finish in
    _game_over raises out of handle(), which stops ``scoreboard run`` (and the Append of the
    final move is already committed while self.state is still the old one)."""
    state = folder
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = wired(r, state, clock)

    def full(*args: object, **kw: object) -> None:
        raise JournalWriteError(f"could not save the game record: disk full ({state})", WriteFailure.DISK_FULL)

    service.journal.finish = full  # type: ignore[method-assign]
    try:
        one_play_then_end(r)
    except JournalWriteError as e:
        pytest.fail(f"the service raised {e!r} out of handle()")
    finally:
        service.journal.close()
    assert service.state is not None
    assert service.state.shown.table == ErrorScreen(ErrorKind.JOURNAL_FAILED, "disk full")


# --- a scripted run resumed on the virtual clock ------------------------------------------------


def _script_lines() -> list[str]:
    from scoreboard.demo import short_demo_script
    from scoreboard.lexicons import open_lexicon

    text, _ = short_demo_script("de", ["Anna", "Ben"], open_lexicon("de"))
    return text.splitlines()


def _run(state: Path, out: Path, link: Path, script: Path) -> int:
    from scoreboard.config import load_config
    from scoreboard.hardware import Simulation, build_hardware
    from scoreboard.run_cli import run
    from scoreboard.table_script import parse

    config = load_config(None, [
        "game.rules=de", 'game.players=["Anna", "Ben"]', "ui.language=de", "game.clock=25",
        f"paths.state_dir={state}",
    ])
    with build_hardware(config, state, Simulation(out, link, virtual_clock=True)) as hardware:
        run(config, state, hardware, parse(script.read_text(encoding="utf-8")))
    return 0


@pytest.fixture(scope="module")
def resumed_run() -> Iterator[Path]:
    """The demo's German game with a 25-minute clock: stopped right after Anna's ROSE (Ben's
    clock running, the challenge window open), started again with the same script, which
    then has Ben challenge 14 s later (well inside the 20 s window) and lets 20 s pass."""
    import subprocess
    import sys

    from scoreboard.sim.client import SimControl

    root = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="rv-"))
    lines = _script_lines()
    done = next(i for i, line in enumerate(lines) if line.endswith("press 1 done"))
    head = lines[: done + 2]  # the Done and the tick after it
    (folder / "a.txt").write_text("\n".join([*head, "end"]) + "\n", encoding="utf-8")
    (folder / "b.txt").write_text(
        "\n".join([*head, "after 14 press 2 challenge", "after 20 tick", "end"]) + "\n", encoding="utf-8"
    )
    link = folder / "board"
    board = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
         "--lockstep", "--racks", "2", "--slots", "7"],
        cwd=root, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        SimControl.connect(f"{link}.control", timeout=30).close()
        state = folder / "state"
        assert _run(state, folder / "out", link, folder / "a.txt") == 0
        assert _run(state, folder / "out", link, folder / "b.txt") == 0
        yield state
    finally:
        board.terminate()
        board.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def _journal(state: Path) -> list[tuple[float, object]]:
    from engine.rules import RuleProfile
    from scoreboard.journal_format import decode_entry, decode_meta

    with Journal.open(state) as journal:
        (info,) = journal.games()
        tile_set = RuleProfile.from_rules_line(decode_meta(info.meta).rules).tile_set
        return [(e.at, decode_entry(e.kind, e.payload, tile_set)) for e in journal.entries(info.id)
                if e.kind != "script"]


SLACK = 1.0


def test_a_resumed_scripted_run_does_not_charge_the_restart_to_the_clock(resumed_run: Path) -> None:
    """run() calls service.start() while the ManualClock is still at 0 and only then advances
    it to the journal's last time: the restored clock starts running at 0, so the first
    ClockState after the restart charges the whole time already played to the player."""
    from scoreboard.controller import ClockState

    clocks = [(at, rec.used) for at, rec in _journal(resumed_run) if isinstance(rec, ClockState)]
    assert len(clocks) >= 2
    # (a resumed script goes on where its last line ended, which may be before the last entry
    # (a clock saved by time alone): time then runs over a stretch again, so entries may go
    # back in time; one clock runs at a time, so the clocks never run faster than time)
    first_at, first_used = clocks[0]
    for at, used in clocks:
        # (SLACK: an entry's time is when it was written, and a clock is handed on at the
        # Done's press, a board read before the step that journals it)
        assert sum(used) - sum(first_used) <= at - first_at + SLACK, (
            f"the clocks ran {sum(used) - sum(first_used):.2f} s in {at - first_at:.2f} s: {clocks}"
        )
    for (at0, used0), (at1, used1) in itertools.pairwise(clocks):
        if at1 >= at0:
            assert sum(used1) - sum(used0) <= at1 - at0 + SLACK, (
                f"the clocks ran {sum(used1) - sum(used0):.2f} s in {at1 - at0:.2f} s: {clocks}"
            )


def test_a_resumed_scripted_run_keeps_the_challenge_window_open(resumed_run: Path) -> None:
    """The restored window is opened at the service's time 0 (before the clock is advanced):
    its deadline lies in the past, so it closes on the first tick and Ben's challenge,
    14 s after the play, is refused: the resumed game differs from an uninterrupted one."""
    from engine.events import Challenge
    from scoreboard.controller import Committed

    commands = [rec.command for _, rec in _journal(resumed_run) if isinstance(rec, Committed)]
    assert any(isinstance(c, Challenge) for c in commands), f"Ben's challenge was not taken: {commands}"


# --- SIGTERM while the service starts -----------------------------------------------------------


def _simulators_under(folder: Path) -> list[int]:
    """Pids of simulated-board processes whose link lies under ``folder``."""
    import os

    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"scoreboard.sim" in cmd and any(str(folder).encode() in c for c in cmd):
            pids.append(int(entry))
    return pids


def test_sigterm_while_starting_closes_the_simulated_board_cleanly() -> None:
    """The SIGTERM/SIGINT handlers are installed only after the simulator is started, the
    control socket connected, the journal opened and the game resumed (up to 20 s of
    SimControl.connect): a SIGTERM in that time kills ``scoreboard run`` with the default
    action (exit -15), the finally never runs, the simulator child is orphaned and its
    temp dir left behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="rv-"))
    tmp = folder / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.run_cli", "--simulate", "--out", str(folder / "out"),
         "--set", f"paths.state_dir={folder / 'state'}"],
        cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 8
        while not any(tmp.glob("scoreboard-*")) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert any(tmp.glob("scoreboard-*")), "the simulated board was not started"
        proc.send_signal(signal.SIGTERM)  # the simulator is starting: run() waits for its socket
        code = proc.wait(timeout=8)
        time.sleep(0.5)
        orphans = _simulators_under(tmp)
        left = list(tmp.glob("scoreboard-*"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _simulators_under(tmp):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)
    assert code == 0, f"scoreboard run died of the signal (exit {code})"
    assert not orphans and not left, f"simulator {orphans} and {left} left behind"
