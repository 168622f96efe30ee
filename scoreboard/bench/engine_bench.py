"""Engine benchmark over the GCG games shipped in ``scoreboard/bench/gcg/``.

- ``engine_move_us_p50`` / ``engine_move_us_p99``: time to validate, score and apply one
  play (placement parsed beforehand), over every play of every game, several rounds.
- ``replay_games_per_s``: whole records read (bytes to events) and replayed with every
  check of ``scoreboard replay``.
- ``replay_at_bounds_ms``: the largest record the reader accepts (``MAX_EVENTS`` events, a
  note filling the rest of ``MAX_LINES`` lines) read and replayed, best of 3.
"""

from __future__ import annotations

import statistics
import time
from importlib import resources
from pathlib import Path

from engine import gcg
from engine.board import Board
from engine.gcg import GcgRecord, Kind
from engine.placement import Placement, validate
from engine.replay import replay
from engine.rules import RuleProfile
from engine.scoring import score

ROUNDS = 20
REPLAY_SECONDS = 1.0


def game_files() -> list[Path]:
    """The benchmark's GCG files."""
    folder = resources.files("scoreboard.bench") / "gcg"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".gcg"))


def _plays(record: GcgRecord, profile: RuleProfile) -> list[tuple[str, Placement | None]]:
    """The game as a list of steps: ('play', placement) or ('undo', None) for a withdrawal."""
    board = Board()
    steps: list[tuple[str, Placement | None]] = []
    last: list[Placement] = []
    for e in record.events:
        if e.kind is Kind.PLAY and e.position and e.word:
            p = Placement.from_gcg(e.position, e.word, board, profile.tile_set)
            for sq, tile in p.tiles:
                board.place(sq, tile)
            steps.append(("play", p))
            last.append(p)
        elif e.kind is Kind.WITHDRAW and last:
            for sq in last.pop().squares:
                board.remove(sq)
            steps.append(("undo", None))
    return steps


def record_at_bounds(data: bytes) -> bytes:
    """A record of game ``data``'s events repeated to :data:`gcg.MAX_EVENTS`, then a note
    whose lines fill it to :data:`gcg.MAX_LINES`."""
    lines = data.decode("iso-8859-1").replace("\r", "").splitlines()
    head = [line for line in lines if line.startswith("#") and not line.startswith("#note")]
    events = [line for line in lines if line.startswith(">")]
    body = [events[i % len(events)] for i in range(gcg.MAX_EVENTS)]
    note = ["#note at the bounds"] + ["a line of the note"] * (gcg.MAX_LINES - len(head) - len(body) - 1)
    return "\n".join(head + body + note).encode("iso-8859-1")


def run() -> dict[str, float]:
    """Run the engine benchmark and return its figures."""
    datas = [f.read_bytes() for f in game_files()]
    records = [gcg.read(d) for d in datas]
    games = []
    for r in records:
        profile = r.profile()
        games.append((profile, _plays(r, profile)))
    samples: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(ROUNDS):
        for profile, steps in games:
            board = Board()
            tile_set, rack_size = profile.tile_set, profile.rack_size
            bingo_tiles, bingo_bonus = profile.bingo_tiles, profile.bingo_bonus
            history: list[Placement] = []
            for kind, placement in steps:
                if placement is None:
                    for sq in history.pop().squares:
                        board.remove(sq)
                    continue
                t0 = clock()
                validate(board, placement, rack_size=rack_size, tile_set=tile_set)
                score(board, placement, bingo_tiles=bingo_tiles, bingo_bonus=bingo_bonus)
                for sq, tile in placement.tiles:
                    board.place(sq, tile)
                samples.append((clock() - t0) / 1000)
                history.append(placement)
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < REPLAY_SECONDS:
        for d in datas:
            replay(gcg.read(d))
            count += 1
    elapsed = time.perf_counter() - start
    biggest = record_at_bounds(max(datas, key=len))
    at_bounds = []
    for _ in range(3):
        began = time.perf_counter()
        replay(gcg.read(biggest))
        at_bounds.append((time.perf_counter() - began) * 1000)
    return {
        "engine_move_us_p50": statistics.median(samples),
        "engine_move_us_p99": p99,
        "engine_plays_timed": float(len(samples)),
        "replay_games_per_s": count / elapsed,
        "replay_at_bounds_ms": min(at_bounds),
    }
