"""Fault injection: every fault the table can meet, its specific outcome, and a tally.

One place for the faults of issue 7 (item 2). Each test injects faults, asserts what must
come of them (the message shown, the game unchanged, nothing lost) and records every fault
with :func:`faultlog.record` (or :func:`faultlog.injected`, settled by the test's outcome);
``tests/conftest.py`` prints the totals at the end of the run and fails the run if a
recorded fault was not survived. SIGKILL at random points is counted from
``tests/test_crash_recovery.py``.

- Through the real service (``scoreboard run --simulate --virtual-clock``, in this process,
  the simulated board its own process in lockstep): one scripted German game with a game
  clock, played clean and again with garbage bytes, corrupted, dropped, duplicated and
  reordered frames, a full disk when the first play is saved, the cable pulled during a
  play and during two challenge windows, and a dead reader. It must end with the same
  moves, draws and tally as the clean game (each run costs some 10 s).
- The board link alone (the simulated board in this process, the host's protocol engine):
  each frame fault on its own, three times, each time with a move.
- The service core with an injected full disk, and a real one (RLIMIT_FSIZE, a child process).
- Buttons through gpiozero's MockFactory into the turn controller: bouncing and stuck.
- Every placement error, unknown and duplicated tiles: the specific error screen, the game
  unchanged, and the right play accepted afterwards.
- A corrupt journal file: set aside, a new game, a clear log message.
- A play laid over a dead reader: marked xfail, a known gap (see the test's reason).
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import faultlog
import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig

from drivers.board.link import BoardLink, LinkStats, ReaderFault, SnapshotReceived
from drivers.board.protocol import FaultCode, Loc
from drivers.board.snapshot import BoardSnapshot
from drivers.buttons import ButtonEvent, Kind, ManualClock, MockButtons, Role, pin_map
from drivers.display.oled import Display
from engine.board import PlacedTile, Square
from engine.events import Challenge, CloseWindow, Command, Draw, Pass, Play
from engine.game import Game
from engine.placement import Placement
from engine.rules import RuleProfile, get_profile
from scoreboard import hardware
from scoreboard.config import load_config
from scoreboard.controller import BoardRead, ClockState, Committed, Record, TableState
from scoreboard.demo import SETTLE, ScriptWriter
from scoreboard.journal import JOURNAL_NAME, Journal, JournalWriteError, WriteFailure
from scoreboard.run_cli import DAMAGE_NOTICE_S, run
from scoreboard.table_script import parse
from scoreboard.journal_format import COMMAND_KIND
from scoreboard.lexicons import open_lexicon
from scoreboard.journal_format import decode_entry, decode_meta
from scoreboard.screens.models import ErrorKind, ErrorScreen, LastPlayScreen
from scoreboard.scripted import SCRIPT_KIND
from scoreboard.service import Service
from scoreboard.sim.board import SimulatedBoard
from scoreboard.sim.script import parse_script
from scoreboard.table_script import SHORT_S

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("Anna", "Ben")
SETTINGS = ("game.rules=de", 'game.players=["Anna", "Ben"]', "ui.language=de", "game.clock=25")
WINDOW_S = 20.0  # the challenge window (the configuration's default)
WINDOW_UNPLUG = 10.0  # seconds out during a challenge window: longer than what is left of it
PLAY_UNPLUG = 4.0  # seconds out while a play's tiles are being laid
FULL_DISK = 3  # the journal refuses this many tries to save ROSE (the disk full), then has room
DEAD_READER = 7  # row 8, under ROSE: its cells must keep their tiles while it is dead

FRAME_KINDS = {
    "garbage": "frames: garbage bytes",
    "corrupt": "frames: corrupted (CRC)",
    "drop": "frames: dropped",
    "duplicate": "frames: duplicated",
    "reorder": "frames: reordered",
}
DISCONNECTED = "ErrorScreen(kind=<ErrorKind.BOARD_DISCONNECTED"
JOURNAL_FAILED = "ErrorScreen(kind=<ErrorKind.JOURNAL_FAILED"
READER_FAULT = "ErrorScreen(kind=<ErrorKind.READER_FAULT"


# --- the scripted game ----------------------------------------------------------------------


@dataclass
class FaultGame:
    """A table script, the game it must give, and the faults it injects (kind -> count)."""

    script: str
    game: Game
    faults: Counter[str] = field(default_factory=Counter)
    full_disk: int = 0  # tries to journal the first play that fail with a full disk


def fault_game(faults: bool) -> FaultGame:
    """The German game of the demo (ROSE challenged in vain, NOTE, the phony ROSEX taken back,
    passes to the end), with the faults sprinkled in when ``faults``; without them, the same
    game on the same timeline."""
    w = ScriptWriter(get_profile("de"), PLAYERS, open_lexicon("de"))
    injected: Counter[str] = Counter()

    def inject(text: str, after: float = 0.0) -> None:
        if faults:
            w.line(text, after)
            words = text.split()
            if words[0] == "garbage":
                injected["garbage"] += 1  # one burst of bytes
            elif words[0] in FRAME_KINDS:
                injected[words[0]] += int(words[1])
            elif words[0] == "fault":
                injected["reader"] += 1

    def lay(seat: int, *parts: str, between: Callable[[int], None] = lambda i: None) -> Placement:
        tiles: list[PlacedTile] = []
        for i, part in enumerate(parts):
            if i:
                between(i)
            tiles += w.lay(seat, part).tiles
        return Placement(tiles)

    w.start("AE")  # A before E: Anna begins
    g = w.game
    assert g is not None
    inject("garbage 64")
    w.comment("the deal; two pairs of frames swapped in the middle of it")
    w.draw(0, "ROSETAX")
    inject("reorder 2")
    w.draw(1, "NTEMRAI")
    w.line("tick", 1.0)

    w.comment("ROSE: a corrupted frame, a dropped frame, then two duplicated ones before Done")
    frame_faults = {1: "corrupt 1", 2: "drop 1"}
    g.play(0, lay(0, "G8:R H8:O", "I8:S", "J8:E", between=lambda i: inject(frame_faults[i])))
    inject("duplicate 2")
    w.press(0, "done")
    for _ in range(FULL_DISK):  # the disk is full for the first tries to save ROSE: Done again
        inject("press 1 done", SETTLE)
    w.line("tick", 1.0)
    w.line("tick", 12.0)
    w.comment("the cable out for longer than the window has left; Ben challenges after the replug")
    inject(f"unplug {WINDOW_UNPLUG:g}")
    inject("tick", WINDOW_UNPLUG + 1)
    w.challenge(1)  # ROSE is good: Ben loses 5 points
    w.refill(0, "DIEUNOS")

    w.comment("NOTE: the cable pulled after two tiles, the third laid while it is out")
    g.play(1, lay(1, "H7:N H9:T", "H10:E", between=lambda i: inject(f"unplug {PLAY_UNPLUG:g}")))
    inject("tick", PLAY_UNPLUG + 0.5)
    w.press(1, "done")
    w.line("tick", 1.0)
    w.line("tick", 12.0)
    w.comment("the cable out again in NOTE's window; then reader 7 (row 8, under ROSE) dies and recovers")
    inject(f"unplug {WINDOW_UNPLUG:g}")
    inject("tick", WINDOW_UNPLUG + 1)
    inject(f"fault reader {DEAD_READER}")
    w.line("tick", 4.0)
    inject(f"recover reader {DEAD_READER}")
    w.line("tick", 6.0)  # the window has run out by now (and only now with the cable out)
    g.close_window()
    w.refill(1, "SEUL")

    w.comment("the phony ROSEX on row 8, the reader back: challenged and taken back")
    w.play(0, "K8:X")
    assert w.challenge(1)
    w.line("tick", 1.0)
    while not g.over:
        w.pass_turn(g.turn)
    w.line("tick", 3.0)
    w.line("end")
    return FaultGame(w.text(), g, injected, FULL_DISK if faults else 0)


# --- a run of the real service ---------------------------------------------------------------------


@dataclass
class ServiceRun:
    """What a scripted run of the service left: exit code, link counters, screens, journal."""

    code: int
    stats: LinkStats
    screens: list[tuple[float, str]]  # (time, repr) per screen shown
    started: Any
    records: list[tuple[float, Record]]  # journaled records with their time
    result: dict[str, Any] | None
    log: list[logging.LogRecord]
    refused: list[float]  # when a save was refused (a full disk), in the service's time

    def commands(self) -> list[tuple[float, Command]]:
        return [(at, r.command) for at, r in self.records if isinstance(r, Committed)]

    def moves(self) -> list[tuple[Command, tuple[tuple[str, bytes], ...]]]:
        """Every committed command but draws, with the tags it laid, in order."""
        return [(r.command, r.laid) for _, r in self.records if isinstance(r, Committed) and not isinstance(r.command, Draw)]

    def draws(self) -> dict[int, tuple[Counter[str], frozenset[bytes]]]:
        """Each player's drawn letters and tags (however the draws were grouped)."""
        out: dict[int, tuple[Counter[str], frozenset[bytes]]] = {}
        for _, r in self.records:
            if isinstance(r, Committed) and isinstance(r.command, Draw):
                letters, tags = out.get(r.command.player, (Counter(), frozenset()))
                out[r.command.player] = (letters + Counter(r.command.tiles or ""), tags | set(r.drawn))
        return out

    def clock_states(self) -> list[tuple[float, tuple[float, ...]]]:
        return [(at, r.used) for at, r in self.records if isinstance(r, ClockState)]

    def game(self) -> Game:
        profile = RuleProfile.from_rules_line(self.started.rules)
        return Game.replay(profile, self.started.players, [c for _, c in self.commands()], first=self.started.first)

    def shown(self, prefix: str) -> list[tuple[float, str]]:
        return [(t, s) for t, s in self.screens if s.startswith(prefix)]

    def away(self) -> list[tuple[float, float]]:
        """(time the board-disconnected screen came, time the next other screen came) per spell."""
        spells = []
        start: float | None = None
        for t, s in self.screens:
            if s.startswith(DISCONNECTED):
                start = t if start is None else start
            elif start is not None:
                spells.append((start, t))
                start = None
        assert start is None, "the board-disconnected screen was still shown at the end"
        return spells


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def read_journal(state: Path) -> tuple[Any, list[tuple[float, Record]], dict[str, Any] | None]:
    """The journal's one game: its start, its records with their times, its result."""
    with Journal.open(state) as journal:
        games = journal.games()
        assert len(games) == 1, f"one game in the journal, not {len(games)}"
        info = games[0]
        started = decode_meta(info.meta)
        tile_set = RuleProfile.from_rules_line(started.rules).tile_set
        records = []
        for entry in journal.entries(info.id):
            if entry.kind == SCRIPT_KIND:
                continue
            record = decode_entry(entry.kind, entry.payload, tile_set)
            if record is not None:
                records.append((entry.at, record))
        return started, records, info.result


def run_service(folder: Path, script: str, settings: tuple[str, ...] = SETTINGS, full_disk: int = 0) -> ServiceRun:
    """Play ``script`` through ``scoreboard run --simulate --virtual-clock`` (in this process);
    the first ``full_disk`` tries to journal a play fail as on a full disk."""
    state, out = folder / "state", folder / "out"
    state.mkdir(parents=True, exist_ok=True)
    (folder / "script.txt").write_text(script, encoding="utf-8")
    config = load_config(None, [*settings, f"paths.state_dir={state}"])
    links: list[BoardLink] = []

    def board_link(*args: Any, **kw: Any) -> BoardLink:
        link = BoardLink(*args, **kw)
        links.append(link)
        return link

    refused: list[float] = []
    append_many = Journal.append_many

    def disk(journal: Journal, game_id: int, items: Any) -> list[int]:
        items = list(items)
        if len(refused) < full_disk and any(k == COMMAND_KIND and p.get("type") == "play" for k, p, _ in items):
            refused.append(items[0][2])
            raise JournalWriteError(f"could not save the game record: disk full ({state / JOURNAL_NAME})",
                                    WriteFailure.DISK_FULL)
        return append_many(journal, game_id, items)

    collect = _Collect()
    root = logging.getLogger()
    root.addHandler(collect)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(hardware, "BoardLink", board_link)
        m.setattr(Journal, "append_many", disk)
        try:
            with hardware.build_hardware(config, state, hardware.Simulation(out, virtual_clock=True)) as devices:
                run(config, state, devices, parse(script))
            code = 0
        finally:
            root.removeHandler(collect)
    screens = []
    for line in (out / "screens.txt").read_text(encoding="utf-8").splitlines():
        at, _, text = line.partition("\t")
        screens.append((float(at), text))
    started, records, result = read_journal(state)
    assert len(links) == 1
    return ServiceRun(code, links[0].stats, screens, started, records, result, collect.records, refused)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> tuple[ServiceRun, ServiceRun, FaultGame]:
    """The clean game and the faulted one, each played once through the service."""
    clean, faulted = fault_game(False), fault_game(True)
    assert not clean.faults and faulted.faults
    folder = tmp_path_factory.mktemp("faults")
    return (run_service(folder / "clean", clean.script),
            run_service(folder / "faulted", faulted.script, full_disk=faulted.full_disk), faulted)


def unique(items: list[str]) -> list[str]:
    """``items`` without repeats next to each other (a screen shown again after a replug)."""
    return [s for i, s in enumerate(items) if i == 0 or items[i - 1] != s]


def outcome(run: ServiceRun) -> list[str]:
    """The plays, rulings, errors and the tally the players saw (but the messages of the
    faults themselves: the board away, the journal full)."""
    kinds = ("LastPlayScreen", "ChallengeResultScreen", "TallyScreen", "ErrorScreen")
    return unique([s for _, s in run.screens if s.startswith(kinds) and not s.startswith((DISCONNECTED, JOURNAL_FAILED, READER_FAULT))])


def same_game(clean: ServiceRun, faulted: ServiceRun) -> list[str]:
    """How the faulted game differs from the clean one (nothing: an empty list)."""
    problems = []
    if faulted.code != 0:
        problems.append(f"the service exited with {faulted.code}")
    if faulted.moves() != clean.moves():
        problems.append(f"other moves: {faulted.moves()} instead of {clean.moves()}")
    if faulted.draws() != clean.draws():
        problems.append(f"other draws: {faulted.draws()} instead of {clean.draws()}")
    if faulted.result != clean.result:
        problems.append(f"another result: {faulted.result} instead of {clean.result}")
    if outcome(faulted) != outcome(clean):
        problems.append(f"other plays, rulings or errors shown: {outcome(faulted)} instead of {outcome(clean)}")
    return problems


def test_the_clean_game_is_the_scripted_one(games: tuple[ServiceRun, ServiceRun, FaultGame]) -> None:
    clean, _, faulted = games
    assert clean.code == 0 and clean.result is not None
    game = clean.game()
    assert game.over and game.tally() == faulted.game.tally()  # the mirror of the script: same tally
    assert [r["final"] for r in clean.result["rows"]] == [r.final for r in game.tally().rows]
    s = clean.stats
    assert (s.crc_errors, s.malformed, s.sequence_errors) == (0, 0, 0)  # the faults below are the injected ones
    assert not clean.shown(DISCONNECTED)


def test_frame_faults_through_the_service_change_nothing(games: tuple[ServiceRun, ServiceRun, FaultGame]) -> None:
    """Garbage, corrupted, dropped, duplicated and reordered frames: seen by the host, and the
    game, its moves, draws, rulings and tally are those of the clean game."""
    clean, faulted, script = games
    n = script.faults
    s = faulted.stats
    lost = same_game(clean, faulted)
    seen = {
        "garbage": s.malformed + s.crc_errors - n["corrupt"] >= 1,
        "corrupt": s.crc_errors >= n["corrupt"],
        # each dropped, corrupted or duplicated frame breaks the sequence once, a swapped pair twice
        "drop": s.sequence_errors >= n["drop"] + n["corrupt"] + n["duplicate"] + 2 * n["reorder"],
        "duplicate": s.sequence_errors >= n["drop"] + n["corrupt"] + n["duplicate"] + 2 * n["reorder"],
        "reorder": s.sequence_errors >= n["drop"] + n["corrupt"] + n["duplicate"] + 2 * n["reorder"],
    }
    for kind, label in FRAME_KINDS.items():
        assert n[kind] > 0
        faultlog.record(label, seen[kind] and not lost, n[kind])
    assert all(seen.values()), f"a fault did not reach the host: {seen}, {s}"
    assert s.snapshot_requests >= 1  # the host asked for the board again after a broken sequence
    assert not lost, lost


def test_unplug_during_a_play_loses_no_tile(games: tuple[ServiceRun, ServiceRun, FaultGame]) -> None:
    """The cable out after two of NOTE's tiles, the third laid meanwhile: the display says the
    board is away, the clock stands still, and Done after the replug scores all three."""
    clean, faulted, _ = games
    spells = faulted.away()
    problems = []
    if len(spells) != 3:
        problems.append(f"three spells away expected, got {spells}")
    else:
        away, back = spells[1]
        note = [(at, c) for at, c in faulted.commands() if isinstance(c, Play) and c.player == 1]
        clean_note = [c for _, c in clean.commands() if isinstance(c, Play) and c.player == 1]
        if back - away < PLAY_UNPLUG - 0.5:
            problems.append(f"the board-disconnected screen went after {back - away:.2f} s of {PLAY_UNPLUG} s out")
        if not note or note[0][0] < back or note[0][1] != clean_note[0]:
            problems.append(f"NOTE should be played after the replug at {back} as in the clean game: {note}")
        elif len(note[0][1].placement.tiles) != 3:
            problems.append(f"a tile laid while the cable was out is missing: {note[0][1]}")
        problems += clock_stood_still(faulted, away, back)
    problems += same_game(clean, faulted)
    faultlog.record("unplug during a play", not problems)
    assert not problems, problems


def clock_stood_still(run: ServiceRun, away: float, back: float) -> list[str]:
    """The game clocks did not move while the board was away (journaled as it went and came)."""
    during = [used for at, used in run.clock_states() if away - 1e-6 <= at <= back + 1e-6]
    if len(during) < 2:
        return [f"no clock states journaled when the board went ({away}) and came back ({back})"]
    if len(set(during)) != 1:
        return [f"the clocks ran while the board was away from {away} to {back}: {during}"]
    return []


def test_unplug_during_a_challenge_window_pauses_it_and_the_clocks(
    games: tuple[ServiceRun, ServiceRun, FaultGame],
) -> None:
    """The cable out for longer than either window had left: the windows and clocks pause; ROSE
    stays pending until Ben challenges after the replug, NOTE until its window runs out after it."""
    clean, faulted, script = games
    spells = faulted.away()
    problems = []
    if len(spells) != 3:
        problems.append(f"three spells away expected, got {spells}")
    else:
        commands = faulted.commands()
        plays = [i for i, (_, c) in enumerate(commands) if isinstance(c, Play)]
        for (away, back), play in zip((spells[0], spells[2]), plays[:2]):
            if back - away < WINDOW_UNPLUG - 0.5:
                problems.append(f"the board-disconnected screen went after {back - away:.2f} s of {WINDOW_UNPLUG} s")
            left = WINDOW_S - (away - commands[play][0])
            if not 0 < left < back - away:
                problems.append(f"the cable should be out longer than the window had left ({left:.2f} s): {away}-{back}")
            # the play's window: nothing between the play and its ruling or closing, which come after the replug
            at, ruling = commands[play + 1]
            if not isinstance(ruling, (Challenge, CloseWindow)) or at < back:
                problems.append(f"the window of {commands[play][1]} closed at {at} while the board was away"
                                f" ({away}-{back}): {ruling}")
            problems += clock_stood_still(faulted, away, back)
        rose_ruling, note_ruling = commands[plays[0] + 1][1], commands[plays[1] + 1][1]
        if not (isinstance(rose_ruling, Challenge) and rose_ruling.challenger == 1):
            problems.append(f"ROSE should have stayed pending until Ben's challenge: {rose_ruling}")
        if not isinstance(note_ruling, CloseWindow):
            problems.append(f"NOTE should have stayed pending until its window ran out: {note_ruling}")
        # after the second replug the window was shown counting down again
        countdown = [s for t, s in faulted.shown("ChallengeWindowScreen") if t >= spells[2][1]]
        if not countdown or "seconds_left=0," in countdown[0]:
            problems.append(f"no window counting down after the replug: {countdown[:1]}")
    # the game clocks: the 24 s out did not count (a second or so for the reconnections may);
    # Anna's presses of Done again while the disk was full did
    used, clean_used = faulted.clock_states()[-1][1], clean.clock_states()[-1][1]
    extra = (script.full_disk * (SETTLE + SHORT_S), 0.0)
    if any(abs(a - b - more) > 2.0 for a, b, more in zip(used, clean_used, extra)):
        problems.append(f"time used {used} differs from the clean game's {clean_used} (+{extra})")
    problems += same_game(clean, faulted)
    faultlog.record("unplug during a challenge window", not problems, 2)
    assert not problems, problems


def test_a_dead_reader_keeps_its_tiles_and_comes_back(games: tuple[ServiceRun, ServiceRun, FaultGame]) -> None:
    """Reader 7 (row 8, under ROSE) dies and is revived: the controller reports it, ROSE's tiles
    are not lost meanwhile, and once it is back the X laid on its row is read."""
    clean, faulted, _ = games
    reports = [r.args[:2] for r in faulted.log if r.getMessage().startswith("board reader")]  # type: ignore[index]
    codes = [code for reader, code in reports if reader == DEAD_READER]
    problems = []
    if FaultCode.NO_RESPONSE not in codes or codes[-1] != FaultCode.RECOVERED:
        problems.append(f"reader {DEAD_READER} should be reported dead, then recovered: {reports}")
    if not faulted.shown(READER_FAULT):
        problems.append("the display did not say that the board cannot read there")
    rosex = [s for _, s in faulted.shown("LastPlayScreen") if "ROSEX" in s]
    if not rosex:
        problems.append("the X laid on the revived reader's row was not read")
    problems += same_game(clean, faulted)
    faultlog.record("reader fault", not problems)
    assert not problems, problems


def test_a_full_disk_in_the_service_shows_why_and_takes_the_play_when_there_is_room(
    games: tuple[ServiceRun, ServiceRun, FaultGame],
) -> None:
    """The first tries to journal ROSE fail (a full disk): the display says so each time, ROSE
    is shown only once it is journaled, and the game is the clean one."""
    clean, faulted, script = games
    problems = []
    if len(faulted.refused) != script.full_disk:
        problems.append(f"{script.full_disk} refused saves expected: {faulted.refused}")
    failed = [t for t, s in faulted.shown(JOURNAL_FAILED) if "disk full" in s]
    for t in faulted.refused:
        if not any(abs(t - shown) < 0.001 for shown in failed):
            problems.append(f"nothing said why the play was refused at {t}: {failed}")
    first_play = next(at for at, c in faulted.commands() if isinstance(c, Play))
    if faulted.refused and first_play <= faulted.refused[-1]:
        problems.append(f"ROSE journaled at {first_play}, before the last refusal {faulted.refused}")
    early = [(t, s) for t, s in faulted.shown("LastPlayScreen") if t < first_play]
    if early:
        problems.append(f"a play shown before the journal had it: {early}")
    if not any("disk full" in r.getMessage() for r in faulted.log if r.levelno >= logging.ERROR):
        problems.append("the refusals are not in the log")
    problems += same_game(clean, faulted)
    faultlog.record("full disk (in the service, its board and heartbeats)", not problems, max(1, len(faulted.refused)))
    assert not problems, problems


# --- each frame fault on the board link alone -------------------------------------------------------

UIDS = {name: bytes.fromhex(f"045C00{i:02X}0000{i:02X}") for i, name in enumerate("ABC", 0x41)}
LINK_SCRIPT = """
place R1.1 {A}
place R1.2 {B}
place R1.3 {C}
at 1.0 {fault}
move R1.1 H8
at 1.8 {fault}
move R1.2 I8
at 2.6 {fault}
remove R1.3
"""


def loc_of(name: str) -> Loc:
    if name.startswith("R"):
        rack, slot = name[1:].split(".")
        return Loc.slot(int(rack) - 1, int(slot) - 1)
    return Loc.cell(name)


@pytest.mark.parametrize("fault", ["garbage 64", "corrupt 2", "drop 2", "duplicate 2", "reorder 2"])
def test_each_frame_fault_alone_is_survived_by_the_link(tmp_path: Path, fault: str) -> None:
    """Each fault three times, each time with a move, so that the frames hit are most likely
    its CHANGES: the host sees every fault, asks for the board again where needed, and ends
    with the physical board; no tile ever appears where none lay."""
    kind = fault.split()[0]
    script = LINK_SCRIPT.format(fault=fault, **{k: v.hex() for k, v in UIDS.items()})
    board = SimulatedBoard(tmp_path / "link", parse_script(script), virtual=True, racks=2, slots=7)
    board.start()
    host = os.open(tmp_path / "link", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    link = BoardLink()
    link.reset(board.now)
    pictures: list[BoardSnapshot] = []
    try:
        while board.now < 4.0:
            out = link.outgoing()
            if out:
                os.write(host, out)
            board.advance(0.02)
            data = b""
            while True:
                try:
                    chunk = os.read(host, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                data += chunk
            pictures += [e.snapshot for e in link.feed(data, board.now) if isinstance(e, SnapshotReceived)]
            link.tick(board.now)
        physical = BoardSnapshot.of((loc_of(name), uid) for name, uid in board.tag_names().items())
    finally:
        os.close(host)
        board.close()
    s = link.stats
    seen = {
        "garbage": s.malformed + s.crc_errors >= 3,
        "corrupt": s.crc_errors == board.faults.corrupted == 6,
        "drop": board.faults.dropped == 6 and s.sequence_errors >= 3,
        "duplicate": board.faults.duplicated == 6 and s.sequence_errors >= 6,
        "reorder": board.faults.reordered == 6 and s.sequence_errors >= 12,
    }[kind]
    been = {(Loc.slot(0, 0), UIDS["A"]), (Loc.slot(0, 1), UIDS["B"]), (Loc.slot(0, 2), UIDS["C"]),
            (Loc.cell("H8"), UIDS["A"]), (Loc.cell("I8"), UIDS["B"])}
    phantoms = {item for p in pictures for item in p.tags.items()} - been
    resynced = kind == "garbage" or s.snapshot_requests >= 1
    survived = seen and resynced and link.board == physical and not phantoms and s.link_losses == 0
    faultlog.record(FRAME_KINDS[kind] + " (link alone)", survived, 3)
    assert seen, f"the {kind} faults did not reach the host as expected: {s}"
    assert resynced, s
    assert link.board == physical == BoardSnapshot.of([(Loc.cell("H8"), UIDS["A"]), (Loc.cell("I8"), UIDS["B"])])
    assert not phantoms, f"tiles where none lay: {phantoms}"
    assert s.link_losses == 0


# --- a full disk -------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def service_rig(state: Path) -> tuple[Rig, Service, Clock, io.StringIO]:
    """A rig whose inputs all go to a :class:`Service` (journal under ``state``, screens logged)."""
    clock = Clock()
    r = rig("de", 2, words=("HAUS", "BOHNE"))
    shown = io.StringIO()
    service = Service(r.table, Journal.open(state), [Display(dummy(width=128, height=64, mode="1"))],
                      clock=clock, shown=shown)
    service.start("de", 2)

    def feed(event: object) -> None:
        clock.now = getattr(event, "at", clock.now)
        service.handle(event)  # type: ignore[arg-type]

    r.feed = feed  # type: ignore[method-assign]
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r, service, clock, shown


def state_of(service: Service) -> TableState:
    assert service.state is not None, "the service has not started"
    return service.state


def plays(service: Service) -> list[Command]:
    game = state_of(service).game
    return [c for c in game.log if isinstance(c, Play)] if game is not None else []


def journaled_plays(state: Path) -> list[Command]:
    _, records, _ = read_journal(state)
    return [r.command for _, r in records if isinstance(r, Committed) and isinstance(r.command, Play)]


def test_a_full_disk_refuses_the_move_says_why_and_the_game_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal cannot be written when Anna presses Done: the play is not taken nor shown,
    the display says the disk is full, and the Done is used up, whether it was judged at its
    press or on the read after it (the board's next reads do not try it again by themselves,
    README: "press Done again"); once there is room, Done again takes the play and the game
    goes on."""
    r, service, clock, shown = service_rig(tmp_path)
    r.lay(0, "H8:H H9:A H10:U H11:S")
    before = state_of(service)
    assert service.game_id is not None
    entries = len(service.journal.entries(service.game_id))
    mark = len(shown.getvalue())
    tries: list[float] = []

    def full(game: int, items: Any) -> None:
        if any(kind == COMMAND_KIND for kind, *_ in items):  # a try to save the play (not a moment alone)
            tries.append(clock.now)
        raise JournalWriteError(f"could not save the game record: disk full ({tmp_path / JOURNAL_NAME})",
                                WriteFailure.DISK_FULL)

    monkeypatch.setattr(service.journal, "append_many", full)
    r.done(1)
    problems = []
    for _ in range(3):  # the disk stays full over three more reads
        if state_of(service).shown.table != ErrorScreen(ErrorKind.JOURNAL_FAILED, "disk full"):
            problems.append(f"the display should say the record could not be saved: {state_of(service).shown}")
        r.read(0.5)
    while_full = shown.getvalue()[mark:]
    if plays(service) or state_of(service).game != before.game:
        problems.append(f"the move was taken without being journaled: {state_of(service).game}")
    if "LastPlayScreen" in while_full or "JOURNAL_FAILED" not in while_full:
        problems.append(f"the refused move was shown as accepted, or the reason not shown: {while_full}")
    if len(tries) != 1:
        problems.append(f"the refused Done should be tried once, not again by the next reads: {tries}")
    monkeypatch.undo()
    if len(service.journal.entries(service.game_id)) != entries:
        problems.append("the journal changed although the disk was full")
    r.read(0.5)  # room again: a read alone takes nothing
    if plays(service):
        problems.append(f"a read took the refused Done by itself: {plays(service)}")
    # Done again takes the play; then Ben's move goes through as well
    r.done(1)
    if len(journaled_plays(tmp_path)) != 1 or len(plays(service)) != 1:
        problems.append(f"with room again, Done again should take the play: {journaled_plays(tmp_path)}")
    r.tick(21)
    r.draw(0, "HAUS")
    r.lay(1, "F8:B G8:O I8:N J8:E")
    r.done(2)
    played = journaled_plays(tmp_path)
    if len(played) != 2 or played != plays(service):
        problems.append(f"both plays should be journaled: {played}")
    last = state_of(service).shown.table
    if not isinstance(last, LastPlayScreen) or last.player != "Ben":
        problems.append(f"Ben's play should be shown: {last}")
    service.close()
    faultlog.record("full disk (injected OSError)", not problems)
    assert not problems, problems


_FSIZE_CHILD = textwrap.dedent(
    """
    import json, resource, signal, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from test_faults import journaled_plays, plays, service_rig

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    state = Path(sys.argv[1])
    r, service, clock, shown = service_rig(state)
    r.lay(0, "H8:H H9:A H10:U H11:S")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))  # no byte more may be written to any file
    r.done(1)
    r.read(0.5)
    result = {"shown": repr(service.state.shown.table), "plays": len(plays(service))}
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # room again
    result["journaled"] = len(journaled_plays(state))
    r.read(0.5)
    r.done(1)  # Done again, with room
    r.tick(0.1)
    result["plays_after"] = len(plays(service))
    service.close()
    result["journaled_after"] = len(journaled_plays(state))
    print(json.dumps(result))
    """
)


def test_a_real_full_disk_through_the_file_size_limit(tmp_path: Path) -> None:
    """The kernel refuses the write (RLIMIT_FSIZE, in a child process): the same outcome."""
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "RLIMIT_FSIZE") or not hasattr(__import__("signal"), "SIGXFSZ"):
        pytest.skip("no RLIMIT_FSIZE/SIGXFSZ here to fill the disk with")
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tests), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _FSIZE_CHILD, str(tmp_path), str(tests)], capture_output=True,
                          text=True, env=env, timeout=120, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    refused = result["plays"] == 0 and result["journaled"] == 0
    said = result["shown"].startswith("ErrorScreen(kind=<ErrorKind.JOURNAL_FAILED") and (
        "disk full" in result["shown"] or "storage error" in result["shown"]
    )
    went_on = result["plays_after"] == result["journaled_after"] == 1
    faultlog.record("full disk (RLIMIT_FSIZE)", refused and said and went_on)
    assert refused and said and went_on, json.dumps(result)


# --- buttons ---------------------------------------------------------------------------------------


def started_rig() -> Rig:
    r = rig("de", 2, words=("HAUS", "BOHNE"))
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r


def committed(r: Rig) -> list[Command]:
    return [rec.command for rec in r.journal if isinstance(rec, Committed)]


@pytest.fixture()
def panel() -> Iterator[tuple[Rig, MockButtons]]:
    """A started game whose buttons are gpiozero mock pins; their events go into the table,
    each followed by a settled board read (as the board would send one)."""
    r = started_rig()
    clock = ManualClock(r.now)

    def into_table(event: ButtonEvent) -> None:
        r.now = event.at
        r.feed(event)

    with MockButtons(pin_map(seats=2), on_event=into_table, clock=clock) as buttons:
        yield r, buttons


def settle(r: Rig, buttons: MockButtons, ms: float = 300) -> None:
    buttons.advance(ms)
    r.now = buttons.clock()
    r.read(0.0)


def test_a_bouncing_button_is_one_press(panel: tuple[Rig, MockButtons]) -> None:
    """20 edges in 30 ms when Done closes and again when it opens: one press, one play."""
    r, buttons = panel
    r.lay(0, "H8:H H9:A H10:U H11:S")
    buttons.clock.advance(r.now - buttons.clock())
    buttons.bounce(1, Role.DONE, edges=20, over_ms=30)
    buttons.advance(200)
    buttons.bounce(1, Role.DONE, edges=20, over_ms=30, pressed=False)
    settle(r, buttons)
    events = buttons.take()
    one = [(e.seat, e.role, e.kind) for e in events] == [(1, Role.DONE, Kind.PRESS)]
    played = [c for c in committed(r) if isinstance(c, Play)]
    faultlog.record("bouncing button", one and len(played) == 1 and isinstance(r.screen, LastPlayScreen))
    assert one, events
    assert len(played) == 1 and r.game.turn == 1
    assert isinstance(r.screen, LastPlayScreen) and r.screen.player == "Anna"


def test_a_stuck_button_is_reported_once_and_blocks_nothing_else(panel: tuple[Rig, MockButtons]) -> None:
    """Ben's Done stuck down for 30 s from Anna's turn: one stuck report; Anna's Done and Ben's
    Challenge work meanwhile; the stuck button changes nothing; released, it works again."""
    r, buttons = panel
    r.lay(0, "H8:H H9:A H10:U H11:S")
    buttons.clock.advance(r.now - buttons.clock())
    before = committed(r)
    buttons.press(2, Role.DONE)
    for _ in range(12):  # 12 s: past the stuck time (10 s)
        buttons.advance(1000)
    stuck = [e for e in buttons.events if e.kind is Kind.STUCK]
    problems = []
    if committed(r) != before:
        problems.append(f"the stuck button changed the game: {committed(r)[len(before):]}")
    # Anna's Done works while Ben's is stuck
    buttons.press(1, Role.DONE)
    buttons.advance(100)
    buttons.release(1, Role.DONE)
    settle(r, buttons)
    if not (isinstance(r.screen, LastPlayScreen) and r.screen.player == "Anna"):
        problems.append(f"Anna's Done did not work while Ben's was stuck: {r.screen}")
    # and Ben's Challenge too
    buttons.press(2, Role.CHALLENGE)
    buttons.advance(100)
    buttons.release(2, Role.CHALLENGE)
    settle(r, buttons)
    r.tick(1.0)
    buttons.clock.advance(r.now - buttons.clock())
    for _ in range(18):  # 30 s stuck in all
        buttons.advance(1000)
    r.now = buttons.clock()
    stuck = [e for e in buttons.events if e.kind is Kind.STUCK]
    if len(stuck) != 1 or stuck[0].seat != 2 or stuck[0].role is not Role.DONE:
        problems.append(f"the stuck button should be reported exactly once: {stuck}")
    rulings = [c for c in committed(r) if isinstance(c, Challenge)]
    if len(rulings) != 1 or rulings[0].challenger != 1:
        problems.append(f"Ben's challenge did not work while his Done was stuck: {committed(r)}")
    if any(isinstance(c, Pass) for c in committed(r)):
        problems.append(f"the stuck Done passed Ben's turn: {committed(r)}")
    # released, it is a button again: Anna has drawn, and a short Done asks Ben whether he passes
    r.draw(0, "IRDE")
    buttons.clock.advance(r.now - buttons.clock())
    buttons.release(2, Role.DONE)
    buttons.advance(100)
    buttons.press(2, Role.DONE)
    buttons.advance(100)
    buttons.release(2, Role.DONE)
    settle(r, buttons)
    kinds = [e.kind for e in buttons.events if e.seat == 2 and e.role is Role.DONE]
    if kinds[-2:] != [Kind.RELEASED_AFTER_STUCK, Kind.PRESS]:
        problems.append(f"released, Ben's Done should work again: {kinds}")
    if type(r.screen).__name__ != "ConfirmScreen":
        problems.append(f"Ben's Done after the release should ask whether he passes: {r.screen}")
    faultlog.record("stuck button", not problems)
    assert not problems, problems


# --- placement errors, unknown and duplicated tiles -------------------------------------------------


def bens_turn() -> Rig:
    """HAUS stands, its window is over, Anna has drawn: Ben (ABENDRO) is to play."""
    r = started_rig()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.tick(21)
    r.draw(0, "IRDE")
    return r


def lay_wrong(r: Rig, tiles: str) -> Callable[[], None]:
    r.lay(1, tiles)
    return lambda: r.take_back(1, " ".join(item.split(":")[0] for item in tiles.split()))


def move_old_tile(r: Rig) -> Callable[[], None]:
    r.cells[Square.from_name("H12")] = r.cells.pop(Square.from_name("H11"))
    r.read()

    def back() -> None:
        r.cells[Square.from_name("H11")] = r.cells.pop(Square.from_name("H12"))
        r.read()

    return back


def foreign_tile(r: Rig) -> Callable[[], None]:
    r.lay(0, "I8:I")  # from Anna's rack at Ben's turn
    return lambda: r.take_back(0, "I8")


def unknown_tile(r: Rig) -> Callable[[], None]:
    r.cells[Square.from_name("I8")] = b"\x04\x99\x99\x99\x99\x99\x99"
    r.read()

    def back() -> None:
        del r.cells[Square.from_name("I8")]
        r.read()

    return back


def duplicated_tile(r: Rig) -> Callable[[], None]:
    """Ben lays BOHNE; the board reads his B on F8 and on F9 at once."""
    r.lay(1, "F8:B G8:O I8:N J8:E")
    uid = r.cells[Square.from_name("F8")]
    original = r.feed

    def feed(event: object) -> None:
        if isinstance(event, BoardRead):
            event = BoardRead(event.snapshot, event.settled, event.at, ((uid, (Loc.cell("F8"), Loc.cell("F9"))),))
        original(event)

    r.feed = feed  # type: ignore[method-assign]

    def back() -> None:
        r.feed = original  # type: ignore[method-assign]
        r.take_back(1, "F8 G8 I8 J8")

    return back


PLACEMENT_FAULTS: dict[str, tuple[Callable[[Rig], Callable[[], None]], ErrorScreen]] = {
    "not in line": (lambda r: lay_wrong(r, "I9:B J10:O"), ErrorScreen(ErrorKind.NOT_IN_LINE, "I9 J10")),
    "gap": (lambda r: lay_wrong(r, "I8:B I10:O"), ErrorScreen(ErrorKind.GAP, "I9")),
    "not touching": (lambda r: lay_wrong(r, "A1:B A2:O"), ErrorScreen(ErrorKind.NOT_TOUCHING, "A1 A2")),
    "a tile moved": (move_old_tile, ErrorScreen(ErrorKind.TILE_MOVED, "H11")),
    "a tile from another rack": (foreign_tile, ErrorScreen(ErrorKind.NOT_YOUR_TILE, "I8")),
    "unknown tile": (unknown_tile, ErrorScreen(ErrorKind.UNKNOWN_TILE, "I8")),
    "duplicated tile": (duplicated_tile, ErrorScreen(ErrorKind.DUPLICATE_TILE, "F8 F9")),
}


@pytest.mark.parametrize("name", list(PLACEMENT_FAULTS))
def test_a_placement_error_is_named_and_changes_nothing(name: str) -> None:
    """The specific error screen on Done, the game unchanged; the board put right, Ben's
    BOHNE counts."""
    make, expected = PLACEMENT_FAULTS[name]
    r = bens_turn()
    before, scores = committed(r), r.game.scores()
    put_right = make(r)
    r.done(2)
    shown = r.screen
    unchanged = committed(r) == before and r.game.scores() == scores and r.game.turn == 1
    put_right()
    r.lay(1, "F8:B G8:O I8:N J8:E")
    r.done(2)
    went_on = isinstance(committed(r)[-1], Play) and r.game.scores() == [10, 9]
    faultlog.record(f"placement: {name}", shown == expected and unchanged and went_on)
    assert shown == expected
    assert unchanged, committed(r)[len(before):]
    assert went_on, (r.screen, committed(r)[len(before):])


def test_a_first_play_off_the_centre_is_named_and_changes_nothing() -> None:
    r = started_rig()
    before = committed(r)
    r.lay(0, "A1:H A2:A A3:U A4:S")
    r.done(1)
    shown, unchanged = r.screen, committed(r) == before and r.game.turn == 0
    r.take_back(0, "A1 A2 A3 A4")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    went_on = isinstance(committed(r)[-1], Play) and r.game.scores() == [10, 0]
    faultlog.record("placement: centre not covered", shown == ErrorScreen(ErrorKind.NOT_CENTER, "H8 A1 A2 A3 A4")
                    and unchanged and went_on)
    assert shown == ErrorScreen(ErrorKind.NOT_CENTER, "H8 A1 A2 A3 A4")
    assert unchanged and went_on


# --- a reader dead under a play (a known gap) ---------------------------------------------------------


def test_a_play_over_a_dead_reader_is_not_judged_without_its_tiles(tmp_path: Path) -> None:
    """Anna lays HAUS; the reader of row 11 is dead, so the board keeps H11 empty (its last
    stable reading). Done must not score HAU: the display must say the board cannot read there."""
    faultlog.injected("reader fault under a play")
    r, service, clock, _ = service_rig(tmp_path)
    row11 = tuple(Loc.cell(f"{col}11") for col in "ABCDEFGHIJKLMNO")
    clock.now = r.now
    service.board_event(ReaderFault(10, FaultCode.NO_RESPONSE, row11, r.now))
    r.lay(0, "H8:H H9:A H10:U H11:S", read=False)
    blind = BoardSnapshot({loc: uid for loc, uid in r.snapshot().tags.items() if loc not in row11})

    def read_blind(dt: float) -> None:
        r.now += dt
        r.feed(BoardRead(blind, True, r.now))

    read_blind(0.4)
    r.press(1, Role.DONE, read=False)
    read_blind(0.3)
    r.tick(1.0)
    assert not plays(service), f"scored without the tile on the dead reader's row: {plays(service)}"
    assert isinstance(state_of(service).shown.table, ErrorScreen)
    # the reader is back: the same Done scores HAUS
    service.board_event(ReaderFault(10, FaultCode.RECOVERED, row11, r.now))
    r.read()
    r.done(1)
    assert [len(p.placement.tiles) for p in plays(service)] == [4]  # type: ignore[attr-defined]


# --- a corrupt journal -------------------------------------------------------------------------------


def test_a_corrupt_journal_is_set_aside_and_a_new_game_starts(tmp_path: Path) -> None:
    """Garbage at journal.db: the service starts, keeps the file under a new name, says so in
    its log and on the display, and journals the new game's draws."""
    garbage = b"\x00this is no journal\xff" * 500
    state = tmp_path / "state"
    state.mkdir()
    (state / JOURNAL_NAME).write_bytes(garbage)
    w = ScriptWriter(get_profile("de"), PLAYERS, open_lexicon("de"))
    w.start("AE")
    w.draw(0, "ROSETAX")
    w.draw(1, "NTEMRAI")
    w.line("tick", DAMAGE_NOTICE_S + 1.0)
    w.line("end")
    run = run_service(tmp_path, w.text())
    kept = sorted(state.glob(JOURNAL_NAME + ".corrupt-*"))
    told = [s for _, s in run.screens if "JOURNAL_DAMAGED" in s]
    notes = [r.getMessage() for r in run.log if r.levelno >= logging.ERROR]
    problems = []
    if run.code != 0:
        problems.append(f"the service exited with {run.code}")
    if len(kept) != 1 or kept[0].read_bytes() != garbage:
        problems.append(f"the corrupt file should be kept as it was under a new name: {kept}")
    elif not any(str(kept[0]) in n and "new journal" in n for n in notes):
        problems.append(f"the log should say where the old file went and that a new journal began: {notes}")
    elif not told or kept[0].name.split("-", 1)[1] not in told[0]:
        problems.append(f"the display should say the journal was damaged and how the kept file is marked: {told}")
    draws = run.draws()
    if run.started.players != PLAYERS or sorted(draws[0][0].elements()) != sorted("ROSETAX") or (
        sorted(draws[1][0].elements()) != sorted("NTEMRAI")
    ):
        problems.append(f"the new game and its deal should be journaled: {run.started}, {draws}")
    bag = sum(get_profile("de").tile_set.counts.values()) - 14
    if not re.search(rf"ScoresScreen\(.*bag={bag}\)", run.screens[-1][1]):
        problems.append(f"the new game's scores should be shown after the deal: {run.screens[-1:]}")
    faultlog.record("corrupt journal", not problems)
    assert not problems, problems
