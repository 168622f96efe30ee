"""``scoreboard replay GAME.gcg [--rules PROFILE]``: re-score every event of a game record.

Prints a line per disagreement (and per check the record cannot settle, "cannot be known",
not counted) and last ``replayed N events: M disagreements``; exit 0 when
M is 0, 1 when not, 2 when the file cannot be read (an unsupported or UTF-16/32 encoding, no
game in it) or is past a bound of the reader (``engine.gcg.MAX_BYTES``, ``MAX_LINES``,
``MAX_EVENTS``). What is checked: README, "Replaying a game record"; the rules: docs/RULES.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engine import gcg
from engine.errors import GcgEmptyError, ScoreboardError
from engine.replay import Disagreement, Undecided, replay

__all__ = ["EXIT_DISAGREE", "EXIT_OK", "EXIT_UNREADABLE", "cmd_replay"]

EXIT_OK = 0
EXIT_DISAGREE = 1
EXIT_UNREADABLE = 2


def cmd_replay(args: argparse.Namespace) -> int:
    """``scoreboard replay GAME.gcg [--rules PROFILE]``."""
    path = Path(args.game)
    try:
        with path.open("rb") as f:  # never more than the bound (plus one byte to see it passed)
            data = f.read(gcg.MAX_BYTES + 1)
            size = max(len(data), os.fstat(f.fileno()).st_size)
    except OSError as e:
        print(f"{path}: cannot read: {e.strerror}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        gcg.check_size(size)
        record = gcg.read(data)
        if not record.players:
            raise GcgEmptyError("no #player lines and no events: not a game record", len(data))
        profile = record.profile(args.rules)
        profile.check_players(len(record.players))
    except ScoreboardError as e:  # GcgError with its line, or rules the record cannot have
        print(f"{path}: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    report = replay(record, profile if args.rules else None)
    lines: list[Disagreement | Undecided] = [*report.disagreements, *report.undecided]
    for d in sorted(lines, key=lambda d: d.line):
        print(f"{path}: {d}")
    print(f"replayed {report.events} events: {len(report.disagreements)} disagreements")
    return EXIT_OK if report.ok else EXIT_DISAGREE
