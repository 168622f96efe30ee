"""A table played by a script (``scoreboard run --simulate --script``), and its bookkeeping.

:class:`ScriptPlayer` carries out a table script (:mod:`scoreboard.table_script`) on the
simulated hardware: presses on the mock pins, board commands to the simulated board, the
time in between. So that a service killed half-way and started again with the same script
goes on where it stopped, :class:`ScriptedJournal` writes, with the records of every step,
the script line that step completes: a press's records carry its own line, everything else
the last line carried out to its end. Only the scripted path does this; the service and
the journal know nothing of scripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drivers.buttons.logic import ButtonEvent, ButtonId
from engine.errors import ScoreboardError
from scoreboard.journal import Entry, GameInfo, Journal
from scoreboard.runner import Runner
from scoreboard.table_script import End, Line, Press, Wait

__all__ = ["SCRIPT_KIND", "ResumePoint", "ScriptError", "ScriptPlayer", "ScriptedJournal", "resume_point"]

SCRIPT_KIND = "script"
"""Journal entries of a scripted run: ``{"line": N}``, the script line of the step's records."""


class ScriptError(ScoreboardError, RuntimeError):
    """A script line that cannot be carried out on this hardware (quoted with its number)."""


class ScriptedJournal:
    """A journal whose every append also records the script line being carried out."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.line: int | None = None

    def append_many(self, game_id: int, items: Iterable[tuple[str, Mapping[str, Any], float]]) -> list[int]:
        """The entries, with a ``script`` entry of :attr:`line` after them."""
        items = list(items)
        if self.line is not None and items:
            items.append((SCRIPT_KIND, {"line": self.line}, items[-1][2]))
        return self.journal.append_many(game_id, items)

    def unfinished(self) -> GameInfo | None:
        return self.journal.unfinished()

    def entries(self, game_id: int) -> list[Entry]:
        return self.journal.entries(game_id)

    def start_game(self, meta: Mapping[str, Any]) -> int:
        return self.journal.start_game(meta)

    def finish(self, game_id: int, result: Mapping[str, Any]) -> None:
        self.journal.finish(game_id, result)

    def game(self, game_id: int) -> GameInfo:
        return self.journal.game(game_id)

    def close(self) -> None:
        self.journal.close()


@dataclass(frozen=True)
class ResumePoint:
    """Where a scripted run stands in its journal: ``over`` (the scripted game finished),
    else the unfinished game, the last script line it journaled and its last entry's time."""

    over: bool
    game: int | None = None
    line: int | None = None
    at: float = 0.0


def resume_point(journal: Journal) -> ResumePoint:
    """What a scripted run finds in ``journal``."""
    latest = journal.latest()
    if latest is not None and latest.finished and any(e.kind == SCRIPT_KIND for e in journal.entries(latest.id)):
        return ResumePoint(over=True)
    unfinished = journal.unfinished()
    if unfinished is None:
        return ResumePoint(over=False)
    entries = journal.entries(unfinished.id)
    lines = [e.payload.get("line") for e in entries if e.kind == SCRIPT_KIND]
    line = lines[-1] if lines and isinstance(lines[-1], int) else None
    return ResumePoint(False, unfinished.id, line, max((e.at for e in entries), default=0.0))


class ScriptPlayer:
    """Plays ``lines`` through ``runner`` on its (simulated) hardware, journaling the lines."""

    def __init__(self, runner: Runner, journal: ScriptedJournal, tile_set: str) -> None:
        self.runner = runner
        self.journal = journal
        self.tile_set = tile_set
        self.line_done: int | None = None  # the last line carried out to its end
        self.line_now: int | None = None  # the line being carried out
        runner.on_input = self._on_input

    def _on_input(self, item: object) -> None:
        # a press's records carry its own line: a resumed script does not press again
        self.journal.line = self.line_now if isinstance(item, ButtonEvent) else self.line_done

    def play(self, lines: Sequence[Line], resume_after: int | None = None) -> None:
        """Carry out ``lines``, those up to ``resume_after`` (done before a restart) skipped.

        Lines after it are carried out again on a restart (board commands are idempotent).
        """
        runner = self.runner
        self.line_done = resume_after
        for line in lines:
            if runner.done:
                return
            if resume_after is not None and line.number <= resume_after:
                continue
            runner.advance_to(line.at if line.at is not None else runner.clock() + line.wait)
            if isinstance(line.step, End):
                return
            self.line_now = line.number
            self._do(line)
            self.line_done = line.number
        runner.advance_to(runner.clock() + 1.0)

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
