"""The journal's start and append: what a start costs with 10 finished games and with 1,000.

Each journal holds ``N`` finished games of :func:`~scoreboard.bench.core_bench.game_records`
(a 60-move 4-player game: 177 entries) and an unfinished one (30 entries), closed cleanly;
it is built on a memory file system where there is one (``/dev/shm``: no fsync to wait
for), then copied to the disk (``/var/tmp``) where it is opened.

- ``journal_open_ms_10games`` / ``journal_open_ms_1000games``: :meth:`Journal.open`, the
  game a start resumes read (:func:`~scoreboard.journal_format.game_to_resume`), closed;
  median of runs alternating between the two journals (the machine's load hits both).
- ``journal_open_1000_vs_10_ratio``: their ratio (1: the start's cost is flat in the
  number of finished games).
- ``journal_open_ms_1000games_unclean``, ``journal_open_unclean_1000_vs_10_ratio``: the same
  journals as a power cut leaves them (a process killed after one more append: its ``-wal``
  and ``-shm`` beside the file), opened from that state again each round: the start after an
  unclean stop checks the whole file (``PRAGMA quick_check``, every game's checksums, counts
  and chains), so it grows with the journal; ``scoreboard export --archive`` keeps it small.
- ``journal_append_ms_p50``: :meth:`Journal.append_many` of a Done's three entries to the
  unfinished game of the 1,000-game journal, committed with its fsync, median.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from scoreboard.journal import JOURNAL_NAME, Journal
from scoreboard.journal_format import encode_meta, encode_record, game_to_resume

__all__ = ["build", "run"]

SIZES = (10, 1000)
ROUNDS = 15
APPENDS = 100
_BUILD_PARENT = "/dev/shm"  # a tmpfs: the journal is built without waiting for fsyncs
_OPEN_PARENT = "/var/tmp"  # on the disk, as a Pi's journal is


def _parent(path: str) -> str | None:
    return path if os.path.isdir(path) and os.access(path, os.W_OK) else None


def build(folder: Path, finished: int) -> None:
    """A journal in ``folder``: ``finished`` finished games and an unfinished one, closed."""
    from scoreboard.bench.core_bench import game_records

    records = game_records(60)
    meta = encode_meta(records[0])  # type: ignore[arg-type]
    items = [(*encode_record(r), float(i)) for i, r in enumerate(records[1:])]
    with Journal.open(folder) as journal:
        for _ in range(finished):
            journal.finish(journal.start_game(meta, items), {"scores": [120, 98, 143, 87]})
        journal.start_game(meta, items[:30])


def _open_ms(folder: Path) -> float:
    t0 = time.perf_counter()
    with Journal.open(folder) as journal:
        if game_to_resume(journal) is None:
            raise RuntimeError(f"no game to resume in {folder}")
    return (time.perf_counter() - t0) * 1000


def power_cut(folder: Path) -> dict[str, bytes]:
    """The journal in ``folder`` after a process appended one entry and died (``os._exit``, no
    close): the file and its side files, as bytes to put back before each open."""
    import subprocess
    import sys

    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from scoreboard.journal import Journal\n"
        "j = Journal.open(Path(sys.argv[1]))\n"
        "j.append(j.unfinished().id, 'command', {'n': 1}, 1.0)\n"
        "os._exit(9)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(folder)], check=False)
    files = {s: folder / (JOURNAL_NAME + s) for s in ("", "-wal", "-shm")}
    if not all(f.exists() for f in files.values()):
        raise RuntimeError(f"the killed process left no side files in {folder}")
    return {s: f.read_bytes() for s, f in files.items()}


def _unclean_open_ms(folder: Path, left: dict[str, bytes]) -> float:
    for suffix, data in left.items():
        (folder / (JOURNAL_NAME + suffix)).write_bytes(data)
    return _open_ms(folder)


def _append_ms(folder: Path, rounds: int) -> float:
    with Journal.open(folder) as journal:
        info = journal.unfinished()
        assert info is not None
        times = []
        for n in range(rounds):
            items: list[tuple[str, dict[str, object], float]] = [
                ("command", {"n": n, "pad": "x" * 120}, float(n)), ("command", {"draw": n}, float(n)),
                ("moment", {"n": n, "pad": "y" * 200}, float(n)),
            ]
            t0 = time.perf_counter()
            journal.append_many(info.id, items)
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def run(rounds: int = ROUNDS, sizes: tuple[int, int] = SIZES) -> dict[str, float]:
    """The figures."""
    built = Path(tempfile.mkdtemp(prefix="journal-bench-", dir=_parent(_BUILD_PARENT)))
    there = Path(tempfile.mkdtemp(prefix="journal-bench-", dir=_parent(_OPEN_PARENT)))
    try:
        folders = {}
        for n in sizes:
            build(built / str(n), n)
            folders[n] = there / str(n)
            folders[n].mkdir()
            shutil.copyfile(built / str(n) / JOURNAL_NAME, folders[n] / JOURNAL_NAME)
        shutil.rmtree(built, ignore_errors=True)
        cut: dict[int, tuple[Path, dict[str, bytes]]] = {}
        for n in sizes:
            cut[n] = (there / f"{n}-cut", {})
            shutil.copytree(folders[n], cut[n][0])
            cut[n] = (cut[n][0], power_cut(cut[n][0]))
        times: dict[int, list[float]] = {n: [] for n in sizes}
        unclean: dict[int, list[float]] = {n: [] for n in sizes}
        for n in sizes:
            _open_ms(folders[n])  # (the file in the page cache, the modules imported)
            _unclean_open_ms(*cut[n])
        for _ in range(rounds):
            for n in sizes:
                times[n].append(_open_ms(folders[n]))
                unclean[n].append(_unclean_open_ms(*cut[n]))
        small, large = (statistics.median(times[n]) for n in sizes)
        small_cut, large_cut = (statistics.median(unclean[n]) for n in sizes)
        return {
            f"journal_open_ms_{sizes[0]}games": small,
            f"journal_open_ms_{sizes[1]}games": large,
            f"journal_open_{sizes[1]}_vs_{sizes[0]}_ratio": large / small,
            f"journal_open_ms_{sizes[1]}games_unclean": large_cut,
            f"journal_open_unclean_{sizes[1]}_vs_{sizes[0]}_ratio": large_cut / small_cut,
            "journal_append_ms_p50": _append_ms(folders[sizes[1]], APPENDS),
        }
    finally:
        shutil.rmtree(built, ignore_errors=True)
        shutil.rmtree(there, ignore_errors=True)
