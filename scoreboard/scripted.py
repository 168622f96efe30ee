"""A table played by a script (``scoreboard run --simulate --script``), and its bookkeeping.

:class:`ScriptPlayer` carries out a table script (:mod:`scoreboard.table_script`) on the
simulated hardware: presses on the mock pins, board commands to the simulated board, the
time in between. So that a service killed half-way and started again with the same script
goes on where it stopped, :class:`ScriptedJournal` writes, with the records of every step,
the script line that step completes and the virtual time that line ends: the records of a
press's own button event and of what follows a board command carry its own line, everything
else (a tick during a hold, too) the last line carried out to its end. A restarted run puts
the simulated board back as the script had it after that line (the tiles the later lines
moved before the cut are put back: the board is the table's, and the table goes back to
where its journal stands), sets the virtual clock to the time that line ended (not to a
later entry's: a clock saved during the next line's hold) and goes on with the next line,
as the uninterrupted run did. The game it goes on with is the one the service resumes, a
finished game's tally included (a score corrected after the end). Only the scripted path
does this; the service and the journal know nothing of scripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.buttons.logic import ButtonEvent, ButtonId
from engine.errors import ScoreboardError
from scoreboard.journal import Damage, Entry, GameInfo, Journal, Kept
from scoreboard.journal_format import game_to_resume
from scoreboard.runner import Runner
from scoreboard.sim.commands import Command, Location, Move, Place, Remove, Slide
from scoreboard.table_script import End, Line, Press, Wait

__all__ = ["SCRIPT_KIND", "ResumePoint", "ScriptError", "ScriptPlayer", "ScriptedJournal", "board_model", "resume_point"]

SCRIPT_KIND = "script"  # (one of journal_format.OTHER_KINDS)
"""Journal entries of a scripted run: ``{"line": N, "until": T}``, the script line of the
step's records and the virtual time that line ends."""


class ScriptError(ScoreboardError, RuntimeError):
    """A script line that cannot be carried out on this hardware (quoted with its number)."""


Items = Iterable[tuple[str, Mapping[str, Any], float]]


class ScriptedJournal:
    """A journal whose every append also records the script line being carried out
    (:attr:`line`) and the virtual time it ends (:attr:`until`)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.line: int | None = None
        self.until = 0.0

    def _marked(self, items: Items, at: float | None = None) -> list[tuple[str, Mapping[str, Any], float]]:
        items = list(items)
        if self.line is not None and (items or at is not None):
            when = items[-1][2] if items else at
            assert when is not None
            items.append((SCRIPT_KIND, {"line": self.line, "until": round(self.until, 6)}, when))
        return items

    def append_many(self, game_id: int, items: Items) -> list[int]:
        """The entries, with a ``script`` entry of :attr:`line` after them."""
        return self.journal.append_many(game_id, self._marked(items))

    def unfinished(self) -> GameInfo | None:
        return self.journal.unfinished()

    def latest(self) -> GameInfo | None:
        return self.journal.latest()

    def entries(self, game_id: int) -> list[Entry]:
        return self.journal.entries(game_id)

    def start_game(self, meta: Mapping[str, Any], items: Items = ()) -> int:
        """The new game, its first entries and a ``script`` entry in one transaction."""
        items = list(items)
        return self.journal.start_game(meta, self._marked(items, at=items[-1][2] if items else 0.0))

    def finish(self, game_id: int, result: Mapping[str, Any]) -> None:
        self.journal.finish(game_id, result)

    def game(self, game_id: int) -> GameInfo:
        return self.journal.game(game_id)

    def keep_copy(self, damage: Damage) -> Kept:
        return self.journal.keep_copy(damage)

    def close(self) -> None:
        self.journal.close()


@dataclass(frozen=True)
class ResumePoint:
    """Where a scripted run stands in its journal: the game the service comes back to
    (None: a new one), the last script line journaled (None: none yet), the time that line
    ended (``until``) and the last entry's time (``at``)."""

    game: int | None = None
    line: int | None = None
    at: float = 0.0
    until: float = 0.0

    @property
    def start(self) -> float:
        """The time the resumed script goes on from: where its last journaled line ended.
        Entries made after that by time alone (a clock saved while the next line's button
        was held) come again at their time: the journal already holds them, and the
        clock's state makes them the same. Without a line: the last entry's time."""
        return self.until if self.line is not None else self.at


def resume_point(journal: Journal) -> ResumePoint:
    """What a scripted run finds in ``journal``: the game a start resumes
    (:func:`~scoreboard.journal_format.game_to_resume`, a finished one's tally included,
    since a script may correct it), or the latest game's marks when the script left it
    for a new one."""
    found = game_to_resume(journal)
    if found is not None:
        info, entries, left = found
        game = None if left else info.id
    else:
        latest = journal.latest()
        if latest is None:
            return ResumePoint()
        entries, game = journal.entries(latest.id), None
    marks = [e.payload for e in entries if e.kind == SCRIPT_KIND]
    if not marks and game is None:
        return ResumePoint()  # (not a scripted game's)
    line, until = (marks[-1].get("line"), marks[-1].get("until")) if marks else (None, None)
    at = max((e.at for e in entries), default=0.0)
    if not isinstance(line, int) or isinstance(line, bool):
        return ResumePoint(game, None, at, at)
    return ResumePoint(game, line, at, float(until) if isinstance(until, (int, float)) else at)


class ScriptPlayer:
    """Plays ``lines`` through ``runner`` on its (simulated) hardware, journaling the lines."""

    def __init__(self, runner: Runner, journal: ScriptedJournal, tile_set: str) -> None:
        self.runner = runner
        self.journal = journal
        self.tile_set = tile_set
        self.line_done: int | None = None  # the last line carried out to its end
        self.done_at = 0.0  # the time it ended
        self.line_now: int | None = None  # the line being carried out
        self.now_until = 0.0  # the time it ends
        self.now_owns = False  # whether the inputs meanwhile are its own (a board command's)
        runner.on_input = self._on_input

    def _on_input(self, item: object) -> None:
        # a press's records (its button event's, not those of a tick during the hold) and
        # those after a board command carry its own line: not done again
        if isinstance(item, ButtonEvent) or self.now_owns:
            self.journal.line, self.journal.until = self.line_now, self.now_until
        else:
            self.journal.line, self.journal.until = self.line_done, self.done_at

    def play(self, lines: Sequence[Line], resume: ResumePoint | None = None) -> None:
        """Carry out ``lines``; after a restart (``resume``), from the line after the last
        one journaled, on the board as the script had it then, from the time it ended."""
        runner = self.runner
        after = resume.line if resume is not None else None
        self.line_done, self.done_at = after, (resume.until if resume is not None and after is not None else runner.clock())
        if resume is not None:
            self._rewind(lines, after)
        for line in lines:
            if runner.done:
                return
            if after is not None and line.number <= after:
                continue
            start = line.at if line.at is not None else self.done_at + line.wait
            runner.advance_to(start)
            if isinstance(line.step, End):
                return
            start = max(start, runner.clock())
            self.line_now = line.number
            self.now_owns = line.board is not None
            self.now_until = start + line.step.seconds if isinstance(line.step, Press) else start
            self._do(line)
            self.line_done, self.done_at, self.now_owns = line.number, runner.clock(), False
        runner.advance_to(runner.clock() + 1.0)

    def _rewind(self, lines: Sequence[Line], after: int | None) -> None:
        """The simulated board's tags as the script left them after line ``after`` (none:
        before the first line): the tags lines after it moved before a cut are put back."""
        sim = self.runner.hardware.sim
        if sim is None:
            return
        target: dict[str, bytes] = {}
        for line in lines:
            if after is None or line.number > after:
                break
            if line.board is not None:
                board_model(target, line.board_command(self.tile_set))
        found = sim.tags()
        for name, uid in found.items():
            if target.get(name) != uid:
                sim.send(Remove(Location(name)))
        for name, uid in target.items():
            if found.get(name) != uid:
                sim.send(Place(Location(name), uid))
        self.runner.drain()

    def _do(self, line: Line) -> None:
        runner, hardware = self.runner, self.runner.hardware
        match line.step:
            case Press(seat=seat, role=role, seconds=seconds):
                pin = hardware.pins.get(ButtonId(seat, role))
                if pin is None:
                    raise ScriptError(f"line {line.number}: no simulated button {ButtonId(seat, role).name()}")
                pin.drive_low()
                runner.advance_to(runner.clock() + seconds)
                pin.drive_high()
                if hardware.virtual is None:
                    runner.loop_once(0.0)
                else:
                    runner.drain()
            case Wait() | End():
                return
            case _:  # a board command
                if hardware.sim is None:
                    raise ScriptError(f"line {line.number}: board commands need the simulated board")
                hardware.sim.send(line.board_command(self.tile_set))


def board_model(tags: dict[str, bytes], command: Command) -> None:
    """``tags`` (location name -> UID) changed as ``command`` changes the simulated board's
    tags (link faults change none)."""
    match command:
        case Place(loc=loc, uid=uid):
            for name in [n for n, u in tags.items() if u == uid]:
                del tags[name]
            tags[loc] = uid
        case Remove(loc=loc):
            tags.pop(loc, None)
        case Move(src=src, dst=dst) | Slide(src=src, dst=dst):
            if src in tags:
                tags[dst] = tags.pop(src)
        case _:
            pass
