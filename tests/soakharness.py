"""The soak's harness: one scripted game, run through the real service, killed again and again.

For a game (:class:`soakgames.SoakGame`) :func:`reference` plays it once uninterrupted
(the simulated board its own process, in lockstep, the service on a virtual clock) and reads
its journal. :func:`soak` then plays it in rounds, each a fresh journal: the service is
SIGKILLed and started again with the same script until the game ends. Kill moments:

* ``random``: after a random real-time delay (from outside);
* ``txn``: inside the journal's transaction, before it commits (``tests/killpoint.py``);
* ``commit``: right after a commit, before anything of it is shown;
* ``screen``: just before a screen is shown.

Meanwhile a thread takes torn copies of the journal's files (``journal.db``, ``-wal``,
``-shm``, then ``journal.db`` again: a copy counts as a power-cut image only if the database
file did not change during it). Every kill is checked: whatever the killed service showed
(score lines, plays) is in the journal, and the journal is still on the reference's path.
At the end of a round the journaled game is compared with the reference's: the same moves
in the same order, the same draws per player, the same tally and result. The torn copies
are opened with :meth:`Journal.open` in a folder of their own: nothing but
:class:`JournalOpenError` may escape, and what a copy holds of the game is a prefix of the
final journal's entries.

After every run the journal is also compared with the reference's path (its moves a
beginning of the reference's, each seat's drawn tiles among the reference's, and no
reference move more than :data:`LATE_LINES` script lines overdue): the first time a round
leaves it is described with the kills before it, as the likely place the round went
another way.

Counted (:class:`Figures`): kills (by kind), DIVERGENCES (a round's game differs from the
reference, or never ends), LOST records (shown but not journaled; in the reference but
missing at the end; not a prefix in a torn copy), DOUBLED records (a committed command more
often than in the reference), torn copies checked; each problem is described with the
script lines around the kill (:attr:`Figures.problems`).

Services run through ``tests/killpoint.py``: by default its fork server (one interpreter
with the imports done, a child per start; ``SOAK_FORK=0``: a fresh interpreter each time).
After every run the lockstep board is made to look at its port (:func:`board_looks`); a
run whose lockstep stalls anyway (the runner's "board reader is behind", 15 s a step) is
killed and started again, counted as a stall, not as a kill.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import tempfile
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self, TypeVar

from soakgames import SoakGame

from engine.events import Draw, PlayMade
from engine.game import Game
from scoreboard.bench.service_bench import stop_board
from scoreboard.controller import ClockState, Committed
from scoreboard.journal import Journal, JournalOpenError
from scoreboard.journal_format import decode_entry, read_game
from scoreboard.scripted import SCRIPT_KIND
from scoreboard.sim.client import SimControl

ROOT = Path(__file__).resolve().parent.parent
KILLPOINT = Path(__file__).resolve().parent / "killpoint.py"
PATIENCE = 240.0  # real seconds a run left alone may take (a shared, busy machine)
FILES = ("journal.db", "journal.db-wal", "journal.db-shm")

# --- the services ---------------------------------------------------------------------------


class Launcher(Protocol):
    """Starts services through ``tests/killpoint.py`` and waits for them or kills them."""

    def start(self, argv: Sequence[str], env: dict[str, str], stderr: Path) -> int: ...

    def wait(self, pid: int, timeout: float) -> int | None: ...

    def kill(self, pid: int) -> None: ...

    def close(self) -> None: ...


class ForkServer:
    """``tests/killpoint.py --serve``: one interpreter with the imports done, a child per start."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(KILLPOINT), "--serve"], cwd=ROOT, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        self.started: queue.Queue[int] = queue.Queue()
        self.exits: dict[int, int] = {}
        self.changed = threading.Condition()
        self.lock = threading.Lock()  # a start's request and its answer, one thread at a time
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        if first.strip() != b"ready":
            raise RuntimeError(f"the fork server did not start: {first!r}")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            words = raw.decode().split()
            if words[:1] == ["started"]:
                self.started.put(int(words[1]))
            elif words[:1] == ["exit"]:
                with self.changed:
                    self.exits[int(words[1])] = int(words[2])
                    self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def _send(self, request: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()

    def start(self, argv: Sequence[str], env: dict[str, str], stderr: Path) -> int:
        with self.lock:
            self._send({"argv": list(argv), "env": env, "stderr": str(stderr)})
            return self.started.get(timeout=60)

    def wait(self, pid: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while pid not in self.exits:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.changed.wait(min(left, 0.5))
            return self.exits.pop(pid)

    def kill(self, pid: int) -> None:
        """SIGKILL ``pid``: the server sends it, only to a child it has not yet reaped."""
        with self.lock:
            self._send({"kill": pid})

    def close(self) -> None:
        with suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class FreshProcesses:
    """``python tests/killpoint.py ARGS``: a fresh interpreter for every start."""

    def __init__(self) -> None:
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, argv: Sequence[str], env: dict[str, str], stderr: Path) -> int:
        with open(stderr, "ab") as log:
            proc = subprocess.Popen(
                [sys.executable, str(KILLPOINT), *argv], cwd=ROOT, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            )
        self.procs[proc.pid] = proc
        return proc.pid

    def wait(self, pid: int, timeout: float) -> int | None:
        try:
            code = self.procs[pid].wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        del self.procs[pid]
        return code

    def kill(self, pid: int) -> None:
        self.procs[pid].send_signal(signal.SIGKILL)  # (not if it has been reaped already)

    def close(self) -> None:
        for proc in self.procs.values():
            proc.kill()
            proc.wait()


def launcher() -> Launcher:
    """The fork server, or fresh interpreters with ``SOAK_FORK=0``."""
    return FreshProcesses() if os.environ.get("SOAK_FORK", "1") == "0" else ForkServer()


@contextmanager
def board(folder: Path, racks: int) -> Iterator[Path]:
    """The simulated board as its own process in lockstep (it keeps its tiles while the
    service dies); its link."""
    folder.mkdir(parents=True, exist_ok=True)
    # the link and its control socket in a short folder of their own: a unix socket's path is
    # limited to 107 bytes, which a test's folder under pytest-xdist can pass
    short = Path(tempfile.mkdtemp(prefix="sb-", dir="/tmp"))
    link = short / "board"
    (folder / "board-link.txt").write_text(f"{link}\n", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.sim", "--link", str(link), "--control", f"{link}.control",
         "--lockstep", "--racks", str(racks), "--slots", "7"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        SimControl.connect(f"{link}.control", timeout=60).close()
        yield link
    finally:
        stop_board(proc)
        shutil.rmtree(short, ignore_errors=True)


def board_looks(link: Path) -> None:
    """Make the lockstep board look at its port now that its host is gone (``ping``): it only
    looks between requests and every 0.1 s, and a service started again before that would
    count as the dead one (the bytes written for that one counted as the new one's)."""
    with SimControl.connect(f"{link}.control", timeout=30) as control:
        control.ping()


STALL = "the board reader is behind"  # the runner's lockstep barrier gave up waiting (15 s)


def wait_or_stall(launch: Launcher, pid: int, timeout: float, log: Path, since: int) -> tuple[int | None, bool]:
    """Wait for ``pid`` up to ``timeout``; (its exit code or None, True when its log says that the
    lockstep stalled: then it is not waited for any longer)."""
    deadline = time.monotonic() + timeout
    while True:
        code = launch.wait(pid, max(0.0, min(1.0, deadline - time.monotonic())))
        if code is not None or time.monotonic() >= deadline:
            return code, False
        with open(log, "rb") as f:
            f.seek(since)
            if STALL.encode() in f.read():
                return None, True


def service_args(game: SoakGame, link: Path, script: Path, state: Path, out: Path) -> list[str]:
    return ["--simulate", "--link", str(link), "--script", str(script), "--virtual-clock", "--out", str(out),
            *game.options(str(state))]


def log_tail(path: Path, lines: int = 12) -> str:
    if not path.exists():
        return "(no log)"
    return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


# --- reading a journal ----------------------------------------------------------------------


@dataclass
class Journaled:
    """A journal's one game as the soak compares it.

    ``entries``: (kind, payload as JSON) of every entry; ``committed``: the commands with the
    script line journaled with each (the ``script`` entry after it).
    """

    entries: list[tuple[str, str]] = field(default_factory=list)
    committed: list[Committed] = field(default_factory=list)
    lines: list[int | None] = field(default_factory=list)
    game: Game | None = None
    result: dict[str, Any] | None = None
    finished: bool = False
    clock: tuple[float, ...] | None = None
    games: int = 0
    last_line: int | None = None

    @property
    def moves(self) -> list[str]:
        """The commands but draws, in order (as text)."""
        return [repr(c.command) for c in self.committed if not isinstance(c.command, Draw)]

    @property
    def move_lines(self) -> list[int | None]:
        return [line for c, line in zip(self.committed, self.lines) if not isinstance(c.command, Draw)]

    def draws(self) -> dict[int, Counter[str]]:
        """Every player's drawn tiles, by name (``E.2``: however the draws were grouped)."""
        out: dict[int, Counter[str]] = {}
        for c in self.committed:
            if isinstance(c.command, Draw):
                out.setdefault(c.command.player, Counter()).update(tile_name(uid) for uid in c.drawn)
        return out


def tile_name(uid: bytes) -> str:
    """``LETTER.COPY`` of a simulated tile's tag (see :func:`scoreboard.sim.tags.tile_uid`)."""
    if len(uid) == 7 and uid[:2] == b"\x04\x5c":
        return f"{chr(uid[2] << 8 | uid[3])}.{uid[4]}"
    return uid.hex().upper()


def copy_journal(state: Path, to: Path) -> Path:
    """The journal's files copied into ``to`` (the original is not opened: reading it would
    checkpoint its WAL, and the next start would find another journal than the kill left)."""
    to.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        with suppress(FileNotFoundError):
            shutil.copyfile(state / name, to / name)
    return to


def read_journal(folder: Path) -> Journaled:
    """The one game of the journal in ``folder`` (a copy: opening it may change it)."""
    if not (folder / "journal.db").exists():
        return Journaled()
    with Journal.open(folder) as journal:
        games = journal.games()
        if not games:
            return Journaled()
        info = games[-1]
        entries = journal.entries(info.id)
    done = read_game(info.meta, [])
    profile, started = done.profile, done.started
    out = Journaled(games=len(games), result=info.result, finished=info.finished is not None)
    pending: list[Committed] = []
    for e in entries:
        out.entries.append((e.kind, json.dumps(e.payload, sort_keys=True)))
        if e.kind == SCRIPT_KIND:
            line = e.payload.get("line")
            out.last_line = line if isinstance(line, int) else out.last_line
            out.lines += [out.last_line] * len(pending)
            pending = []
            continue
        record = decode_entry(e.kind, e.payload, profile.tile_set)
        if isinstance(record, Committed):
            out.committed.append(record)
            pending.append(record)
        elif isinstance(record, ClockState):
            out.clock = record.used
    out.lines += [None] * len(pending)
    out.game = Game.replay(profile, started.players, [c.command for c in out.committed], first=started.first,
                           rng=random.Random(0))
    return out


# --- what the displays showed ---------------------------------------------------------------

SCORES = re.compile(r"^[\d.]+\t(?:seat \d+\t)?ScoresScreen\(players=\((.*)\), bag=")
LINE = re.compile(r"PlayerLine\(name='([^']*)', score=(-?\d+)")
PLAY = re.compile(r"^[\d.]+\t(?:seat \d+\t)?LastPlayScreen\(player='([^']*)', words=\((.*)\), total=(-?\d+)")
WORD = re.compile(r"WordLine\(text='([^']*)'")


def score_history(j: Journaled) -> set[tuple[int, ...]]:
    """Every score line the journal's game went through."""
    game = j.game
    assert game is not None
    seen = {(0,) * len(game.players)}
    replay = Game(game.profile, game.players, rng=random.Random(0), first=game.first)
    for record in j.committed:
        replay.apply(record.command)
        seen.add(tuple(replay.scores()))
    return seen


def unjournaled(lines: Sequence[str], j: Journaled, players: int) -> tuple[int, list[str]]:
    """(screens checked, those showing what the journal lacks) of a killed service's lines."""
    history = score_history(j) if j.game is not None else {(0,) * players}
    plays = {
        (j.game.players[e.player], tuple(w.text for w in e.words), e.points)
        for e in (j.game.events if j.game is not None else [])
        if isinstance(e, PlayMade)
    }
    # a play that was withdrawn or undone is no event any more: every play the journal ever had
    if j.game is not None:
        replay = Game(j.game.profile, j.game.players, rng=random.Random(0), first=j.game.first)
        for record in j.committed:
            replay.apply(record.command)
            plays |= {(replay.players[e.player], tuple(w.text for w in e.words), e.points)
                      for e in replay.events if isinstance(e, PlayMade)}
    checked, lacking = 0, []
    for line in lines:
        if m := SCORES.match(line):
            shown = tuple(int(s) for _, s in LINE.findall(m.group(1)))
            checked += 1
            if shown not in history:
                lacking.append(f"scores {shown} shown at {line.split(chr(9))[0]}, never in the journal")
        elif m := PLAY.match(line):
            shown_play = (m.group(1), tuple(w.upper() for w in WORD.findall(m.group(2))), int(m.group(3)))
            checked += 1
            if shown_play not in plays:
                lacking.append(f"play {shown_play} shown at {line.split(chr(9))[0]}, not in the journal")
    return checked, lacking


# --- the reference --------------------------------------------------------------------------


@dataclass
class Reference:
    game: SoakGame
    journal: Journaled
    seconds: float
    script_lines: list[str]

    def line_text(self, number: int | None) -> str:
        if number is None or not 1 <= number <= len(self.script_lines):
            return "?"
        return self.script_lines[number - 1].strip()

    def at(self, number: int | None) -> str:
        """A script line's number and text: ``57 [after 0.3 press 2 done]``."""
        return f"{number} [{self.line_text(number)}]"

    def placed(self, tile: str) -> int | None:
        """The first script line that puts ``tile`` on a rack."""
        for i, text in enumerate(self.script_lines, 1):
            words = text.split()
            if len(words) >= 3 and words[-3] == "place" and words[-1] == tile:
                return i
        return None


def reference(game: SoakGame, folder: Path, launch: Launcher) -> Reference:
    """Play ``game`` once, uninterrupted; its journal. Raises AssertionError when it fails."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "script.txt"
    script.write_text(game.script, encoding="utf-8")
    state, out, log = folder / "state", folder / "out", folder / "service.log"
    started = time.monotonic()
    with board(folder / "board", len(game.players)) as link:
        pid = launch.start(service_args(game, link, script, state, out), {}, log)
        code = launch.wait(pid, PATIENCE)
        if code is None:
            launch.kill(pid)
            launch.wait(pid, 30)
            raise AssertionError(f"{game.name}: the uninterrupted run did not end in {PATIENCE:g} s:\n{log_tail(log)}")
    seconds = time.monotonic() - started
    assert code == 0, f"{game.name}: the uninterrupted run exited {code}:\n{log_tail(log)}"
    j = read_journal(copy_journal(state, folder / "read"))
    assert j.game is not None and j.game.over and j.finished, f"{game.name}: the uninterrupted run did not end the game"
    return Reference(game, j, seconds, game.script.splitlines())


def tally(game: Game) -> list[tuple[str, int, int, int]]:
    return [(r.name, r.score, r.rack_adjustment, r.final) for r in game.tally().rows]


# --- the soak -------------------------------------------------------------------------------

KIND_WEIGHTS = {"random": 4, "txn": 2, "commit": 2, "screen": 2}  # (and "line", to spare the start)
LATE_LINES = 8  # a move journaled this many script lines later than in the reference is missing
CLOCK_SLACK_S = 1.0  # uninterrupted runs end with clocks some 0.05 s apart (board reads in lockstep)


@dataclass
class Figures:
    """What a soak found (one game, or the sum of several)."""

    kills: Counter[str] = field(default_factory=Counter)
    rounds: int = 0
    divergences: int = 0
    lost: int = 0
    doubled: int = 0
    missing: int = 0  # reference records a diverged round's game lacks (not counted as lost)
    extra: int = 0  # records a diverged round's game has beyond the reference (not doubled)
    shown: int = 0
    torn: int = 0
    torn_damaged: int = 0
    torn_unopenable: int = 0
    torn_retried: int = 0
    stalls: int = 0  # runs killed because the simulation's lockstep stalled (not counted as kills)
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def total_kills(self) -> int:
        return sum(self.kills.values())

    @property
    def failed(self) -> bool:
        return bool(self.divergences or self.lost or self.doubled)

    def add(self, other: Figures) -> None:
        self.kills.update(other.kills)
        for name in ("rounds", "divergences", "lost", "doubled", "missing", "extra", "shown", "torn", "torn_damaged",
                     "torn_unopenable", "torn_retried", "stalls", "seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems

    def line(self, name: str) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.kills.items()) if n)
        return (f"{name:10s} kills {self.total_kills:5d} ({kinds}); rounds {self.rounds}; divergences {self.divergences};"
                f" lost {self.lost}; doubled {self.doubled} (diverged games: {self.missing} records missing,"
                f" {self.extra} extra); shown checked {self.shown}; torn copies {self.torn}"
                f" (damaged {self.torn_damaged}, unopenable {self.torn_unopenable}); lockstep stalls {self.stalls};"
                f" {self.seconds:.0f} s")


@dataclass
class Kill:
    """One start of the service in a round, and how it ended."""

    run: int
    kind: str  # random, txn, commit, screen, or "" (left alone)
    detail: str  # the delay or N
    resumed_after: int | None  # the script line the journal held at the start
    line: int | None = None  # the script line being carried out when it ended
    code: int | None = None

    def describe(self, ref: Reference) -> str:
        how = f"{self.kind} kill ({self.detail})" if self.kind else "an unkilled run"
        return (f"run {self.run}: resumed after line {self.resumed_after}, {how} at line {self.line}"
                f" [{ref.line_text(self.line)}]")


def _on_path(j: Journaled, ref: Reference) -> str | None:
    """None while ``j`` is a beginning of the reference's game, else what differs first."""
    r = ref.journal
    moves, ref_moves = j.moves, r.moves
    lines, ref_lines = j.move_lines, r.move_lines
    for i, move in enumerate(moves):
        if i >= len(ref_moves):
            return f"journaled {move} at line {ref.at(lines[i])} after the reference's last move"
        if move != ref_moves[i]:
            return (f"journaled {move} at line {ref.at(lines[i])} where the reference has {ref_moves[i]}"
                    f" at line {ref.at(ref_lines[i])}")
    if len(moves) < len(ref_moves) and j.last_line is not None and ref_lines[len(moves)] is not None:
        due = ref_lines[len(moves)]
        if j.last_line > due + LATE_LINES:  # (a move is journaled within a few lines of the reference's)
            return (f"the reference's {ref_moves[len(moves)]} at line {ref.at(due)} is missing: the journal is at"
                    f" line {ref.at(j.last_line)}")
    ref_draws = r.draws()
    drawn: dict[int, Counter[str]] = {}
    for c, line in zip(j.committed, j.lines):
        if isinstance(c.command, Draw):
            seat = c.command.player
            drawn.setdefault(seat, Counter()).update(tile_name(uid) for uid in c.drawn)
            extra = drawn[seat] - ref_draws.get(seat, Counter())
            if extra:
                tile = min(extra)
                twice = ref_draws.get(seat, Counter())[tile]
                how = f"{tile} a {twice + 1}. time" if twice else f"{tile}, which the reference never draws for that seat"
                return (f"journaled {c.command!r} at line {ref.at(line)}: seat {seat + 1} drew {how}"
                        f" (the script puts {tile} on a rack first at line {ref.at(ref.placed(tile))})")
    return None


def _counts(j: Journaled) -> Counter[str]:
    c = Counter(j.moves)
    for seat, drawn in j.draws().items():
        for tile, n in drawn.items():
            c[f"Draw(seat {seat + 1}, {tile})"] += n
    return c


class TornCopier:
    """Takes copies of the journal's files at random moments while the round runs."""

    def __init__(self, state: Path, folder: Path, rng: random.Random, every: tuple[float, float], most: int) -> None:
        self.state, self.folder, self.rng, self.every, self.most = state, folder, rng, every, most
        self.copies: list[Path] = []
        self.retried = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)

    def _run(self) -> None:
        while not self.stop.wait(self.rng.uniform(*self.every)) and len(self.copies) < self.most:
            if (self.state / "journal.db").exists():
                self._copy()

    def _copy(self) -> None:
        to = self.folder / f"torn-{len(self.copies) + 1:03d}"
        for _ in range(20):
            shutil.rmtree(to, ignore_errors=True)
            to.mkdir(parents=True)
            try:
                first = (self.state / "journal.db").read_bytes()
            except FileNotFoundError:
                return
            (to / "journal.db").write_bytes(first)
            for name in FILES[1:]:
                with suppress(FileNotFoundError):
                    (to / name).write_bytes((self.state / name).read_bytes())
            try:
                again = (self.state / "journal.db").read_bytes()
            except FileNotFoundError:
                return
            if again == first:
                self.copies.append(to)
                return
            self.retried += 1  # the database file changed meanwhile (a checkpoint): not a power-cut image
        shutil.rmtree(to, ignore_errors=True)


def check_torn(copies: Sequence[Path], final: Journaled, name: str, f: Figures) -> None:
    """Each torn copy opens (or refuses with JournalOpenError) and holds a prefix of ``final``."""
    for copy in copies:
        try:
            with Journal.open(copy) as journal:
                damaged = journal.recovered_from is not None
                note = journal.recovery.note if journal.recovery is not None else None
                games = journal.games()
                entries = [
                    (e.kind, json.dumps(e.payload, sort_keys=True)) for e in journal.entries(games[-1].id)
                ] if games else []
        except JournalOpenError as e:
            f.torn += 1
            f.torn_unopenable += 1
            f.problems.append(f"{name}: torn copy {copy.name} cannot be opened (JournalOpenError: {e}); kept at {copy}")
            continue
        except Exception as e:  # noqa: BLE001 - anything else escaping Journal.open is a bug, counted
            f.torn += 1
            f.lost += 1
            f.problems.append(f"{name}: LOST torn copy {copy.name}: {type(e).__name__} escaped Journal.open: {e}; kept at {copy}")
            continue
        f.torn += 1
        if damaged:
            f.torn_damaged += 1
            f.problems.append(f"{name}: torn copy {copy.name} was taken for a damaged journal: {note}")
        if entries != final.entries[: len(entries)]:
            at = next(i for i, e in enumerate(entries) if i >= len(final.entries) or final.entries[i] != e)
            f.lost += 1
            f.problems.append(
                f"{name}: LOST torn copy {copy.name}: its {len(entries)} entries are no prefix of the final"
                f" journal's {len(final.entries)}: entry {at + 1} is {entries[at]}, finally"
                f" {final.entries[at] if at < len(final.entries) else 'nothing'}; kept at {copy}"
            )
        elif not damaged:
            shutil.rmtree(copy, ignore_errors=True)


def soak_round(
    ref: Reference, folder: Path, launch: Launcher, rng: random.Random, *, kills: int,
    weights: dict[str, int] = KIND_WEIGHTS, delay: tuple[float, float] = (0.05, 1.0), most_n: int = 2,
    torn: int = 4, name: str = "", spare_start: bool = False,
) -> Figures:
    """One round: the game from a fresh journal, ``kills`` times killed, then left to end.

    ``spare_start``: no kill before the game's first entry (the first run is killed two
    lines after the line where the reference journaled its first entry, and the kills
    begin from there): the soak then looks past the draw for the first player.
    """
    game = ref.game
    name = name or game.name
    f = Figures(rounds=1)
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "script.txt"
    script.write_text(game.script, encoding="utf-8")
    state, out, log, line_file = folder / "state", folder / "out", folder / "service.log", folder / "line"
    shown_log = out / "screens.txt"
    history: list[Kill] = []
    diverged: str | None = None
    ended_badly = False
    kinds = [k for k, w in weights.items() for _ in range(w)]
    with board(folder / "board", len(game.players)) as link, \
            TornCopier(state, folder, random.Random(rng.random()), (0.3, 4.0), torn) as copier:
        args = service_args(game, link, script, state, out)
        run = 0
        at_start: int | None = None  # the script line the journal holds (none yet)
        while True:
            run += 1
            before = len(shown_log.read_text(encoding="utf-8").splitlines()) if shown_log.exists() else 0
            env = {"SOAK_LINE_FILE": str(line_file)}
            kind = rng.choice(kinds) if f.total_kills < kills else ""
            detail = ""
            if spare_start and run == 1 and kind:
                first = next((ln for ln in ref.journal.lines if ln is not None), None)
                kind = "line" if first is not None else kind
            if kind == "line":
                env["SOAK_KILL"] = f"line:{first + 2}"
                detail = f"line {first + 2}, sparing the start"
            elif kind == "random":
                wait = rng.uniform(*delay)
                detail = f"{wait:.2f} s"
            elif kind:
                n = rng.randint(1, most_n * (2 if kind == "screen" else 1))
                env["SOAK_KILL"] = f"{kind}:{n}"
                detail = f"N={n}"
            line_file.unlink(missing_ok=True)
            since = log.stat().st_size if log.exists() else 0
            pid = launch.start(args, env, log)
            code, stalled = wait_or_stall(launch, pid, wait if kind == "random" else PATIENCE, log, since)
            if code is None:
                launch.kill(pid)
                code = launch.wait(pid, 60)
                if stalled:  # (the simulation's lockstep, not the service: the run is started again)
                    kind, detail = "stall", "the board reader is behind"
                elif kind != "random":
                    f.divergences += 1
                    f.problems.append(f"{name}: DIVERGENCE: run {run} did not end within {PATIENCE:g} s (a hang):\n"
                                      + log_tail(log))
                    ended_badly = True
            board_looks(link)
            try:
                stopped_at: int | None = int(line_file.read_text().strip())
            except (FileNotFoundError, ValueError):
                stopped_at = None
            this = Kill(run, kind if code == -signal.SIGKILL else "", detail, at_start, stopped_at, code)
            history.append(this)
            if ended_badly:
                break
            if kind == "stall":
                f.stalls += 1
                if f.stalls > 20:
                    f.divergences += 1
                    f.problems.append(f"{name}: DIVERGENCE: the lockstep stalled {f.stalls} times; the round ends")
                    ended_badly = True
                    break
                f.problems.append(f"{name}: note: the lockstep stalled ({this.describe(ref)}, after "
                                  + "; ".join(k.describe(ref) for k in history[-3:-1]) + "); the run was killed")
            j = read_journal(copy_journal(state, folder / "read"))
            at_start = j.last_line
            if code == -signal.SIGKILL:
                if kind != "stall":
                    f.kills[kind] += 1
                lines = shown_log.read_text(encoding="utf-8").splitlines()[before:] if shown_log.exists() else []
                checked, lacking = unjournaled(lines, j, len(game.players))
                f.shown += checked
                for what in lacking:
                    f.lost += 1
                    f.problems.append(f"{name}: LOST: {what}; {this.describe(ref)}")
            if diverged is None and (why := _on_path(j, ref)) is not None:
                diverged = why
                _count_doubled(j, ref, name, this, f)
                f.problems.append(f"{name}: off the reference's path after run {run}: {why}; kills before it: "
                                  + "; ".join(k.describe(ref) for k in history[-3:]))
            if code == -signal.SIGKILL:
                continue
            if code != 0:
                f.divergences += 1
                f.problems.append(f"{name}: DIVERGENCE: run {run} exited {code} ({this.describe(ref)}); the"
                                  f" kills before it: {'; '.join(k.describe(ref) for k in history[-4:-1])}; its log:\n"
                                  + log_tail(log))
                ended_badly = True
                break
            if not j.finished:  # exit 0 with the game unfinished: the script ran out first
                f.divergences += 1
                f.problems.append(f"{name}: DIVERGENCE: the script ended (run {run}, exit 0) but the game did not;"
                                  f" the journal's last line {j.last_line}, kills before it: "
                                  + "; ".join(k.describe(ref) for k in history[-4:-1]))
                ended_badly = True
            break
    final = read_journal(copy_journal(state, folder / "read"))
    f.torn_retried += copier.retried
    check_torn(copier.copies, final, name, f)
    if not ended_badly:
        went_off = diverged
        diverged = _compare_end(final, ref, name, diverged, f)
        if went_off is not None and diverged is None:
            f.problems.append(f"{name}: note: back on the reference's path at the end (a difference of timing only)")
        if diverged is not None and f.problems and f.problems[-1].startswith(f"{name}: DIVERGENCE: the game differs"):
            f.problems[-1] += f" ({len(history)} runs; the last kills: " + "; ".join(
                k.describe(ref) for k in history[-4:-1]) + ")"
    _count_records(final, ref, name, f, diverged is not None or ended_badly)
    f.seconds = time.monotonic() - started
    if not f.failed and not f.problems:
        shutil.rmtree(folder, ignore_errors=True)
    return f


def _compare_end(final: Journaled, ref: Reference, name: str, diverged: str | None, f: Figures) -> str | None:
    """Count a divergence when the final game differs from the reference's; what differs."""
    r = ref.journal
    differs = []
    if final.games != 1:
        differs.append(f"{final.games} games in the journal")
    if final.moves != r.moves:
        differs.append("the moves")
    if final.draws() != r.draws():
        differs.append("the draws")
    if final.game is None or r.game is None or tally(final.game) != tally(r.game):
        differs.append(f"the tally ({tally(final.game) if final.game else None} against {tally(r.game) if r.game else None})")
    if final.result != r.result:
        differs.append("the result")
    if final.clock != r.clock and (
        final.clock is None or r.clock is None or max(abs(a - b) for a, b in zip(final.clock, r.clock)) > CLOCK_SLACK_S
    ):
        differs.append(f"the clocks ({final.clock} against {r.clock})")
    if not differs:
        return None
    f.divergences += 1
    f.problems.append(f"{name}: DIVERGENCE: the game differs from the reference in {', '.join(differs)};"
                      f" first: {diverged or _first_difference(final, ref)}")
    return ", ".join(differs)


def _first_difference(a: Journaled, ref: Reference) -> str:
    """What differs in games whose moves are a beginning of the reference's."""
    r = ref.journal
    if len(a.moves) < len(r.moves):
        return (f"the reference's moves from {r.moves[len(a.moves)]} at line {ref.at(r.move_lines[len(a.moves)])}"
                f" on are missing")
    return "the moves and draws are the reference's"


def _count_doubled(j: Journaled, ref: Reference, name: str, run: Kill, f: Figures) -> None:
    """Commands of the reference committed more often than there (a replayed step), so far."""
    got, want = _counts(j), _counts(ref.journal)
    for key, n in sorted(got.items()):
        if want[key] and n > want[key]:
            f.doubled += n - want[key]
            f.problems.append(f"{name}: DOUBLED: {key} {n} times, {want[key]} in the reference; {run.describe(ref)}")


def _count_records(final: Journaled, ref: Reference, name: str, f: Figures, diverged: bool) -> None:
    """Reference records missing at the end (LOST) and records beyond it (DOUBLED); in a
    game that went another way they only tell how far (``missing``, ``extra``)."""
    got, want = _counts(final), _counts(ref.journal)
    missing = {key: n - got[key] for key, n in want.items() if got[key] < n}
    extra = {key: n - want[key] for key, n in got.items() if n > want[key]}
    if diverged:
        f.missing += sum(missing.values())
        f.extra += sum(extra.values())
        if missing or extra:
            f.problems.append(f"{name}: (the diverged game lacks {sum(missing.values())} of the reference's records"
                              f" and has {sum(extra.values())} more)")
        return
    for key, n in sorted(missing.items()):
        f.lost += n
        f.problems.append(f"{name}: LOST at the end: {key} {n} of {want[key]} missing")
    for key, n in sorted(extra.items()):
        if want[key]:
            f.doubled += n
            f.problems.append(f"{name}: DOUBLED: {key} {got[key]} times, {want[key]} in the reference")


def soak(
    ref: Reference, folder: Path, launch: Launcher, rng: random.Random, *, kills: int, per_round: int = 60,
    **options: Any,
) -> Figures:
    """Rounds of :func:`soak_round` until ``kills`` kills in all (``per_round`` at most each)."""
    total = Figures()
    r = 0
    while total.total_kills < kills:
        r += 1
        f = soak_round(ref, folder / f"round-{r}", launch, rng, kills=min(per_round, kills - total.total_kills),
                       name=f"{ref.game.name}#{r}", **options)
        total.add(f)
        if f.total_kills == 0:
            break  # (a round that cannot be killed: nothing more to learn)
    return total


T = TypeVar("T")


def jobs() -> int:
    """How many games run at once (``SOAK_JOBS``, default 2: one per core)."""
    return max(1, int(os.environ.get("SOAK_JOBS", "2")))


def in_parallel(tasks: Sequence[Callable[[], T]], at_once: int) -> list[T]:
    """The tasks' results in order, ``at_once`` of them running at a time (threads: each
    drives its own processes)."""
    if at_once <= 1 or len(tasks) <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(min(at_once, len(tasks))) as pool:
        return list(pool.map(lambda task: task(), tasks))
