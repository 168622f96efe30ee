"""``scoreboard enroll --set de|fr|en [--config FILE] [--link PATH] [--letter L ...]``.

The command-line face of :class:`~scoreboard.enrollment.Enrollment`: prompts go to stdout,
Enter stores a letter once its count is right, ``q`` quits (every stored letter is kept).
Board snapshots and input lines come from two threads into ONE queue with ONE consumer,
so the state machine sees them in the order they happened.

The board is any ``Iterable[BoardSnapshot]`` made by ``open_board(link_path)``; by default
``drivers.board.serial_link.open_board``, imported only when the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from drivers.board.snapshot import BoardSnapshot
from engine.errors import ScoreboardError
from engine.tiles import BLANK

from .enrollment import Enrollment, Prompt
from .link_path import NoBoardLinkError, link_path
from .registry import (
    IncompleteRegistryError,
    TileRegistry,
    letter_name,
    set_key,
)

BoardOpener = Callable[[str], Iterable[BoardSnapshot]]
"""Opens the board link at a path; iterating the result yields snapshots until the link ends."""

EXIT_COMPLETE = 0
EXIT_STOPPED = 1  # quit, end of input, or a registry still incomplete: progress kept
EXIT_ERROR = 2  # configuration, registry file, board link


def board_opener() -> BoardOpener:
    """``drivers.board.serial_link.open_board`` (imported when the command runs)."""
    from drivers.board.serial_link import open_board

    return open_board


def parse_letter(text: str) -> str:
    """A letter as ``--letter`` takes it: ``a`` → ``A``, ``blank`` or ``?`` → ``?``."""
    return BLANK if text.strip().lower() in ("?", "blank") else text.strip().upper()


def cmd_enroll(
    args: argparse.Namespace,
    *,
    open_board: BoardOpener | None = None,
    lines: Iterable[str] | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the enrollment; ``open_board``, ``lines`` (input) and ``out`` are injectable for tests."""
    from .config import load_config, state_dir

    out = out or sys.stdout
    try:
        config = load_config(args.config)
        registry = TileRegistry.load(state_dir(config), args.tile_set)
        enrollment = Enrollment(registry, args.letter)
        if enrollment.done:
            print(
                f"The {registry.tile_set.name} registry {registry.path} is complete ({len(registry)} tiles); "
                "use --letter L to enroll a letter again.",
                file=out,
            )
            return EXIT_COMPLETE
        link = link_path(args.link, config)
        board = (open_board or board_opener())(link)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:  # the link device cannot be opened
        print(f"scoreboard: cannot open the board link: {e}", file=sys.stderr)
        return EXIT_ERROR
    done, total = enrollment.prompt.enrolled, enrollment.prompt.letters
    print(
        f"Enrolling the {registry.tile_set.name} set into {registry.path}: {done} of {total} letters done; "
        f"to do: {' '.join(letter_name(ch) for ch in enrollment.remaining)}. Enter stores a letter, q quits.",
        file=out,
    )
    return run(enrollment, board, _stdin_lines() if lines is None else lines, out)


def _stdin_lines() -> Iterator[str]:
    while line := sys.stdin.readline():
        yield line


# --- the loop -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Snapshot:
    snapshot: BoardSnapshot


@dataclass(frozen=True)
class _Line:
    text: str


@dataclass(frozen=True)
class _Ended:
    source: str  # "board" or "input"
    error: Exception | None = None


_Event = _Snapshot | _Line | _Ended


def _pump(
    source: Iterable[object],
    wrap: Callable[[object], _Event],
    name: str,
    q: queue.Queue[_Event],
    stop: threading.Event,
) -> None:
    """Put every item of ``source`` into ``q``, then :class:`_Ended` (with the error, if any)."""
    error: Exception | None = None
    try:
        for item in source:
            if stop.is_set():
                break
            q.put(wrap(item))
    except Exception as e:  # noqa: BLE001 - whatever broke the link, the consumer reports it
        error = e
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            with contextlib.suppress(OSError, ScoreboardError):  # a broken link may not close
                close()
    q.put(_Ended(name, error))


def _as_snapshot(item: object) -> _Event:
    if not isinstance(item, BoardSnapshot):
        raise TypeError(f"the board link gave {item!r}, not a BoardSnapshot")
    return _Snapshot(item)


def _as_line(item: object) -> _Event:
    return _Line(str(item))


class _Screen:
    """Prints a prompt's parts when they change, not every snapshot."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.last: Prompt | None = None

    def show(self, prompt: Prompt) -> None:
        """Print what changed since the last prompt shown."""
        last = self.last
        if last is None or (prompt.phase, prompt.message) != (last.phase, last.message):
            print(f"[{prompt.enrolled}/{prompt.letters}] {prompt.message}", file=self.out)
            self._status(prompt)
        elif (prompt.status, prompt.issues) != (last.status, last.issues):
            self._status(prompt)
        self.last = prompt

    def refuse(self, prompt: Prompt) -> None:
        """Enter pressed while nothing can be stored: say why."""
        self._status(prompt, "not yet: ")

    def _status(self, prompt: Prompt, lead: str = "") -> None:
        hint = " [Enter: store, q: quit]" if prompt.can_confirm else ""
        print(f"  {lead}{prompt.status}{hint}", file=self.out)
        for issue in prompt.issues:
            print(f"  ! {issue.message}", file=self.out)


def run(enrollment: Enrollment, board: Iterable[BoardSnapshot], lines: Iterable[str], out: TextIO) -> int:
    """Drive ``enrollment`` from ``board`` snapshots and input ``lines`` until done or quit."""
    events: queue.Queue[_Event] = queue.Queue()
    stop = threading.Event()
    pumps: tuple[tuple[Iterable[object], Callable[[object], _Event], str], ...] = (
        (board, _as_snapshot, "board"),
        (lines, _as_line, "input"),
    )
    for source, wrap, name in pumps:
        threading.Thread(
            target=_pump, args=(source, wrap, name, events, stop), name=f"enroll-{name}", daemon=True
        ).start()
    screen = _Screen(out)
    screen.show(enrollment.prompt)
    path = enrollment.registry.path
    try:
        while True:
            event = events.get()
            if isinstance(event, _Snapshot):
                screen.show(enrollment.feed(event.snapshot))
            elif isinstance(event, _Ended):
                if event.source == "input":
                    return _stopped(enrollment, out, "end of input")
                why = f"failed: {event.error}" if event.error else "closed"
                print(f"scoreboard: the board link {why}; stored letters are kept in {path}", file=sys.stderr)
                return EXIT_ERROR
            else:
                command = event.text.strip().lower()
                if command in ("q", "quit"):
                    return _stopped(enrollment, out, "stopped")
                if command:
                    print("  Enter: store the letter once the count is right; q: quit (stored letters are kept)", file=out)
                    continue
                prompt = enrollment.prompt
                if not prompt.can_confirm:
                    screen.refuse(prompt)
                    continue
                screen.show(enrollment.confirm())
                if enrollment.done:
                    return _finish(enrollment, out)
    except ScoreboardError as e:  # the registry cannot be written
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        stop.set()


def _stopped(enrollment: Enrollment, out: TextIO, why: str) -> int:
    reg = enrollment.registry
    done, total = enrollment.prompt.enrolled, enrollment.prompt.letters
    print(f"{why.capitalize()}: {done} of {total} letters enrolled, kept in {reg.path}; run again to resume.", file=out)
    return EXIT_COMPLETE if reg.complete else EXIT_STOPPED


def _finish(enrollment: Enrollment, out: TextIO) -> int:
    try:
        registry = enrollment.finish()
    except IncompleteRegistryError as e:
        key = set_key(enrollment.registry.tile_set)
        print(f"scoreboard: {e}; run scoreboard enroll --set {key} to enroll them", file=sys.stderr)
        return EXIT_STOPPED
    print(f"Enrollment complete: {len(registry)} tiles of the {registry.tile_set.name} set in {registry.path}", file=out)
    return EXIT_COMPLETE


__all__ = [
    "BoardOpener",
    "NoBoardLinkError",
    "board_opener",
    "cmd_enroll",
    "parse_letter",
    "run",
]
