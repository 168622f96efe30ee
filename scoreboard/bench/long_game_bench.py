"""Memory over a long game: ``scoreboard run --simulate`` for hours of virtual time, exit included.

A German game of 4 players with a 30-minute game clock (a frame a second for the clock of the
player to move), written by :func:`long_game_script`: the draw for the first player, the
deal, then turns of :data:`TURN_S` seconds. In each, the player to move slides a tile from
the rack onto the board and back every :data:`SLIDE_EVERY_S` seconds, then plays one tile
(the first play two) next to the tiles laid, lets the challenge window run out and draws
one; once the turns are played (at most :data:`MAX_TURNS`: the bag holds no more) the
sliding goes on to the end. Words are not checked (nobody challenges) and blanks are never
drawn (they would need the blank picker).

The service runs through :mod:`scoreboard.bench.service_bench`'s launcher, with PNG capture
and ``screens.gif`` at the exit. Its ``VmRSS`` is read from ``/proc`` every
:data:`SAMPLE_S` seconds; the GIF's assembly shows as ``screens.gif.part``.

- ``long_game_virtual_h``: virtual hours played; ``long_game_plays``: plays journaled (each
  scripted play must be); ``long_game_frames``: frames captured.
- ``long_rss_start_mib``: the service's RSS when its first frame was written.
- ``long_rss_end_mib``: its RSS at the last sample before the GIF's assembly (the game's end).
- ``long_rss_peak_mib``: its peak RSS over the whole run, exit and GIF included (``ru_maxrss``).
- ``long_rss_peak_vs_start``: the peak against the start, a ratio.
- ``long_board_rss_start_mib`` / ``long_board_rss_end_mib``: the simulated board's RSS.
- ``long_game_s``: wall seconds of the whole run (about 10 minutes per virtual hour here).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from engine.rules import get_profile
from scoreboard.bench.service_bench import BenchError, finish, launch, start_board, stop_board
from scoreboard.demo import ScriptWriter
from scoreboard.journal import Journal
from scoreboard.lexicons import open_lexicon
from scoreboard.table_script import Press, parse

__all__ = ["long_game_script", "run"]

PLAYERS = ("Anna", "Ben", "Cleo", "Dirk")
HOURS = 2.0
CLOCK_MINUTES = 30
TURN_S = 90.0
SLIDE_EVERY_S = 3.0
MAX_TURNS = 70  # 71 tiles laid and as many drawn: the bag holds 72 besides the blanks
SAMPLE_S = 0.5
PATIENCE_S_PER_HOUR = 3600.0  # real seconds allowed per virtual hour


def squares() -> list[str]:
    """Where the tiles go, in order: row 8 from the centre out, then every other column away from it."""
    row = [f"{col}8" for col in "HIJKLMNOGFEDCBA"]
    down = [f"{col}{r}" for col in "ACEGIKMO" for r in range(9, 16)]
    up = [f"{col}{r}" for col in "ACEGIKMO" for r in range(7, 0, -1)]
    return row + down + up


def long_game_script(hours: float = HOURS, seed: int = 0) -> str:
    """The table script of the long game, about ``hours`` of virtual time."""
    profile = get_profile("de")
    rng = random.Random(seed)
    w = ScriptWriter(profile, PLAYERS, open_lexicon("de"))
    w.start("ABDE")  # A is nearest the start of the alphabet: seat 1 begins
    game = w.game
    assert game is not None

    def drawable(n: int) -> str:
        letters = [letter for letter in game.bag.letters() if letter != "?"]
        return "".join(rng.sample(letters, min(n, len(letters))))

    w.comment("the deal: seven tiles each")
    for seat in range(len(PLAYERS)):
        w.draw(seat, drawable(profile.rack_size))
    w.line("tick", 1.0)
    targets = iter(squares())
    total, turns, elapsed = hours * 3600, 0, seconds_of(w.lines)
    while elapsed + TURN_S <= total and turns < MAX_TURNS:
        mark = len(w.lines)
        seat = game.turn
        square = next(targets)
        first = turns == 0
        while seconds_of(w.lines[mark:]) < TURN_S - 30:  # the play and its challenge window: the rest
            slot = min(w.racks[seat]) + 1
            w.line(f"slide R{seat + 1}.{slot} {square}", SLIDE_EVERY_S / 2)
            w.line(f"slide {square} R{seat + 1}.{slot}", SLIDE_EVERY_S / 2)
        tiles = [square, "I8"] if first else [square]
        letters = [name.rpartition(".")[0] for _, name in sorted(w.racks[seat].items())][: len(tiles)]
        w.play(seat, " ".join(f"{sq}:{letter}" for sq, letter in zip(tiles, letters, strict=True)))
        if first:
            next(targets)  # I8 is taken
        w.wait_window()
        w.refill(seat, drawable(len(tiles)))
        assert len(game.racks[seat]) == profile.rack_size, "the bag ran out: fewer turns"
        w.line("tick", max(0.1, TURN_S - seconds_of(w.lines[mark:])))
        elapsed += seconds_of(w.lines[mark:])
        turns += 1
    w.comment("the turns are played: the player to move slides a tile until the end")
    seat = game.turn
    slot = min(w.racks[seat]) + 1
    for _ in range(max(0, round((total - elapsed) / SLIDE_EVERY_S))):
        w.line(f"slide R{seat + 1}.{slot} H15", SLIDE_EVERY_S / 2)
        w.line(f"slide H15 R{seat + 1}.{slot}", SLIDE_EVERY_S / 2)
    w.line("end")
    return w.text()


def seconds_of(lines: list[str]) -> float:
    """The virtual seconds script ``lines`` take (waits and presses; no ``at`` lines)."""
    parsed = parse("\n".join(lines))
    return sum(line.wait + (line.step.seconds if isinstance(line.step, Press) else 0.0) for line in parsed)


def _rss_kib(pid: int, field: str = "VmRSS") -> int | None:
    """A ``/proc/PID/status`` figure in KiB, None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _has_frames(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.endswith(".png") for entry in entries)
    except FileNotFoundError:
        return False


def run(hours: float = HOURS) -> dict[str, float]:
    """Play the long game once through the service; its memory at the start, the end and the peak."""
    folder = Path(tempfile.mkdtemp(prefix="long-"))  # short: unix socket paths are <= 107 bytes
    try:
        script = folder / "script.txt"
        script.write_text(long_game_script(hours), encoding="utf-8")
        screens, part = folder / "out" / "screens", folder / "out" / "screens.gif.part"
        link = folder / "board"
        board = start_board(link, racks=len(PLAYERS))
        started = time.monotonic()
        try:
            names = ", ".join(f'"{name}"' for name in PLAYERS)
            settings = ["game.rules=de", f"game.players=[{names}]", "ui.language=de", f"game.clock={CLOCK_MINUTES}"]
            launcher, pid = launch(folder, link, script, settings)
            deadline = time.monotonic() + hours * PATIENCE_S_PER_HOUR + 120
            start = end = board_start = board_end = None
            while launcher.poll() is None and time.monotonic() < deadline:
                time.sleep(SAMPLE_S)
                rss, board_rss = _rss_kib(pid), _rss_kib(board.pid)
                if start is None and rss is not None and _has_frames(screens):
                    start, board_start = rss, board_rss
                if start is not None and rss is not None and not part.exists() and not (folder / "out" / "screens.gif").exists():
                    end, board_end = rss, board_rss
            figures = finish(launcher, max(1.0, deadline - time.monotonic()))
        finally:
            stop_board(board)
        if start is None or end is None or board_start is None or board_end is None:
            raise BenchError("the service was not sampled during the game (it ended too soon)")
        if not (folder / "out" / "screens.gif").exists():
            raise BenchError("the service wrote no screens.gif")
        with os.scandir(screens) as files:
            frames = sum(1 for file in files if file.name.endswith(".png"))
        text = script.read_text(encoding="utf-8")
        scripted = sum(1 for line in parse(text) if isinstance(line.step, Press))  # one Done a play
        with Journal.open(folder / "state") as journal:
            game = journal.latest()
            records = journal.entries(game.id) if game is not None else []
            plays = sum(1 for r in records if r.kind == "command" and r.payload.get("type") == "play")
        if plays != scripted:
            raise BenchError(f"the game did not go as scripted: {plays} of its {scripted} plays journaled")
        mib = 1 / 1024
        peak = figures["max_rss_kib"]
        return {
            "long_game_virtual_h": seconds_of(text.splitlines()) / 3600,
            "long_game_plays": float(plays),
            "long_game_frames": float(frames),
            "long_rss_start_mib": start * mib,
            "long_rss_end_mib": end * mib,
            "long_rss_peak_mib": peak * mib,
            "long_rss_peak_vs_start": peak / start,
            "long_board_rss_start_mib": board_start * mib,
            "long_board_rss_end_mib": board_end * mib,
            "long_game_s": time.monotonic() - started,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    import sys

    for key, value in run(float(sys.argv[1]) if len(sys.argv) > 1 else HOURS).items():
        print(f"{key:26s} {value:12.2f}")
