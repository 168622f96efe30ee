"""Scan model: the firmware's real scanner and controller on the fake HAL's virtual clock.

The boards are real: the first 60 tiles of each shipped GCG game with that many (six
games), plus two full racks of 7, on the reference build (15 row readers, 4 rack readers). Every read costs what ``firmware/TIMING.md`` says (a 7-byte select
6.5-8.5 ms, an empty antenna the WUPA plus the 1.5 ms time-out, the CPU's share of each),
so the figures come from running the scheduler, not from a formula.

- ``scan_sweep_ms_model``: the longest full sweep (every cell and rack slot read at least
  once) seen in steady state, worst over the games; ``scan_sweep_ms_model_mean`` the mean.
- ``scan_adjacent_ms_model``: the longest time from a tile laid on an empty cell next to a
  word (at a random moment) to the first read of it, worst over all trials.
- ``scan_adjacent_report_ms_model``: the same up to the CHANGES frame that reports it,
  with the default debounce (2 reads spanning 150 ms) included.
- ``scan_cpu_load_model``: the share of the controller's CPU time the scan uses.
- ``scan_sweep_ms_one_reader``: the full sweep when one reader reads every antenna in turn.
- ``scan_sweep_ms_model_slow_cpu``: the worst sweep if MicroPython were twice as slow as
  the model assumes (register access 30 us, Python bookkeeping doubled).
- ``scan_sweep_ms_spi<N>us`` / ``scan_adjacent_ms_spi<N>us``: worst sweep and worst first
  read next to a word when one SPI transaction costs N = 15, 20, 30 us of CPU;
  ``scan_sweep_ms_tag<N>us`` / ``scan_adjacent_ms_tag<N>us`` the same for tags that need
  N = 200, 1000, 5000 us in the field before they answer (the settle time set to match);
  ``scan_sweep_ms_clk200`` / ``scan_adjacent_ms_clk200`` at the firmware's 200 MHz and 6.25 MHz
  SPI (9.5 us a transaction, the interpreter's bookkeeping at 125/200 of its time).

``python -m scoreboard.bench.scan_model`` also prints the table of reader counts in
TIMING.md.
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from drivers.board import protocol as P
from engine import gcg
from engine.board import Board, Square
from engine.gcg import Kind
from engine.placement import Placement
from firmware.controller import Controller
from firmware.frames import cell_loc, slot_loc
from firmware.hal_fake import Costs, FakeHal
from firmware.scanner import Layout, Scanner, row_layout, single_reader_layout

TILES = 60
RACKS = 4  # the reference build: four rack readers ...
FULL_RACKS = 2  # ... two of them with a full rack (a two-player game)
SLOTS = 7
WARMUP_MS = 2000
SWEEP_WINDOW_MS = 6000
TRIALS_PER_GAME = 40
MAX_GAMES = 6
LOOK_MS = 2000  # a trial fails when the tile is not reported by then


def game_boards(tiles: int = TILES, limit: int = MAX_GAMES) -> list[tuple[str, list[Square]]]:
    """The first ``tiles`` tiles laid in each shipped game that has that many."""
    folder = resources.files("scoreboard.bench") / "gcg"
    out = []
    for path in sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".gcg")):
        record = gcg.read(path.read_bytes())
        profile = record.profile()
        board = Board()
        laid: list[Square] = []
        last: list[Placement] = []
        for e in record.events:
            if len(laid) >= tiles:
                break
            if e.kind is Kind.PLAY and e.position and e.word:
                placement = Placement.from_gcg(e.position, e.word, board, profile.tile_set)
                for sq, tile in placement.tiles:
                    board.place(sq, tile)
                    laid.append(sq)
                last.append(placement)
            elif e.kind is Kind.WITHDRAW and last:
                for sq in last.pop().squares:
                    board.remove(sq)
                    laid.remove(sq)
        if len(laid) >= tiles:
            out.append((path.stem, laid[:tiles]))
        if len(out) >= limit:
            break
    return out


def _uid(n: int) -> bytes:
    return bytes((0x04, 0x5C, n >> 8 & 0xFF, n & 0xFF, 0x2A, 0x81, 0x90))


def hot_cells(squares: Sequence[Square]) -> list[Square]:
    """Empty squares next to (sharing a side with) a tile."""
    taken = set(squares)
    out = set()
    for sq in squares:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = sq.row + dr, sq.col + dc
            if 0 <= r < 15 and 0 <= c < 15 and Square(r, c) not in taken:
                out.add(Square(r, c))
    return sorted(out)


SPI_US = (15, 20, 30)  # CPU per SPI transaction, the bench's variants
# The firmware's clock and SPI (hal_rp2: 200 MHz, SPI 6.25 MHz, the fastest clock whose read
# round trip over the 19 ribbons fits: hardware/boardcalc.py): the 15 us transaction's 9 us
# of interpreter at 125/200 of the time (5.6 us), its 3 bytes at 6.25 MHz (3.84 us)
# (hardware/DESIGN.md, "Sweep time").
SPI_HZ = 6_250_000
CLK200 = Costs(reg_us=round(9 * 0.625 + 3 * 8e6 / SPI_HZ, 1), python_scale=0.625)
TAG_POWERUP_US = (200, 1000, 5000)  # tag power-up, the settle time set to match


class Rig:
    """A controller on the fake HAL with a board laid out; frames decoded as they go."""

    def __init__(self, squares: Sequence[Square], layout: Layout | None = None, costs: Costs | None = None,
                 full_racks: int = FULL_RACKS, seed: int = 0, settle_us: int | None = None,
                 **scanner_options: int) -> None:
        self.layout = layout or row_layout(RACKS, SLOTS)
        self.hal = FakeHal(self.layout, costs=costs, seed=seed, settle_us=settle_us)
        for n, sq in enumerate(squares):
            self.hal.place(cell_loc(sq.row, sq.col), _uid(n))
        for rack in range(full_racks):
            for slot in range(self.layout.slots):
                self.hal.place(slot_loc(rack, slot), _uid(1000 + rack * 16 + slot))
        self.scanner = Scanner(self.hal, self.layout, **scanner_options)
        self.controller = Controller(self.hal, self.layout, scanner=self.scanner)
        self.sweeps: list[int] = []
        self._sweep = 0

    def step(self) -> None:
        self.controller.step()
        if self.scanner.sweep != self._sweep:
            self._sweep = self.scanner.sweep
            self.sweeps.append(self.scanner.last_sweep_ms)

    def run(self, ms: float) -> None:
        self.hal.run(self.step, self.hal.now_ms + ms)

    def frames(self) -> list[tuple[float, P.Message]]:
        """Frames sent since the last call, with the virtual time (ms) they went out."""
        parser = P.FrameParser()
        out = []
        for t_us, data in self.hal.take_tx_timed():
            for f in parser.feed(data):
                out.append((t_us / 1000, P.decode_payload(f.type, f.payload)))
        return out


def sweep_figures(squares: Sequence[Square], **kw: object) -> tuple[float, float, float]:
    """(worst sweep ms, mean sweep ms, CPU load) in steady state."""
    rig = Rig(squares, **kw)  # type: ignore[arg-type]
    rig.run(WARMUP_MS)
    rig.sweeps.clear()
    cpu0, t0 = rig.hal.cpu_us, rig.hal.now_us
    rig.run(SWEEP_WINDOW_MS)
    load = (rig.hal.cpu_us - cpu0) / max(1, rig.hal.now_us - t0)
    sweeps = rig.sweeps or [rig.scanner.last_sweep_ms]
    return float(max(sweeps)), float(statistics.fmean(sweeps)), load


def adjacent_figures(squares: Sequence[Square], trials: int, seed: int,
                     **kw: object) -> tuple[list[float], list[float]]:
    """Per trial: ms from laying a tile next to a word to its first read, and to its report."""
    rng = random.Random(seed)
    rig = Rig(squares, seed=seed, **kw)  # type: ignore[arg-type]
    detect: list[float] = []
    report: list[float] = []
    reads: list[tuple[int, bytes | None, float]] = []
    rig.scanner.on_read = lambda loc, uid, _t: reads.append((loc, uid, rig.hal.now_ms))
    rig.run(WARMUP_MS)
    candidates = hot_cells(squares)
    for n in range(trials):
        rig.run(rng.uniform(0, 400))  # a random moment in the schedule
        sq = rng.choice(candidates)
        loc, uid = cell_loc(sq.row, sq.col), _uid(5000 + n)
        rig.frames()
        reads.clear()
        t0 = rig.hal.now_ms
        rig.hal.place(loc, uid)
        rig.run(LOOK_MS)
        first_read = next((t for l, u, t in reads if l == loc and u == uid), None)
        reported = next(
            (t for t, m in rig.frames() if isinstance(m, P.Changes)
             and any(c.index == loc & 0xFF and c.area == loc >> 8 and u == uid for c, u in m.changes)),
            None,
        )
        if first_read is None or reported is None:
            raise RuntimeError(f"tile on {sq.name()} not reported within {LOOK_MS} ms")
        detect.append(first_read - t0)
        report.append(reported - t0)
        rig.hal.remove(loc)
        rig.run(600)  # let the removal settle before the next trial
    return detect, report


def run() -> dict[str, float]:
    """The modeled figures (see the module doc)."""
    boards = game_boards()
    sweeps = [sweep_figures(squares) for _, squares in boards]
    detect: list[float] = []
    report: list[float] = []
    for k, (_, squares) in enumerate(boards):
        d, r = adjacent_figures(squares, TRIALS_PER_GAME, seed=k)
        detect += d
        report += r
    one = sweep_figures(boards[0][1], layout=single_reader_layout(RACKS, SLOTS))
    slow = [sweep_figures(squares, costs=Costs(reg_us=30, python_scale=2.0)) for _, squares in boards]
    figures = {
        "scan_sweep_ms_model": max(s[0] for s in sweeps),
        "scan_sweep_ms_model_mean": statistics.fmean(s[1] for s in sweeps),
        "scan_adjacent_ms_model": max(detect),
        "scan_adjacent_ms_model_p50": statistics.median(detect),
        "scan_adjacent_report_ms_model": max(report),
        "scan_cpu_load_model": max(s[2] for s in sweeps),
        "scan_sweep_ms_one_reader": one[0],
        "scan_sweep_ms_model_slow_cpu": max(s[0] for s in slow),
    }
    figures.update(variant_figures(boards))
    return figures


def variant_figures(boards: Sequence[tuple[str, list[Square]]], trials: int = 10) -> dict[str, float]:
    """Worst sweep and worst first read next to a word per SPI cost and per tag power-up."""
    variants: list[tuple[str, dict[str, object]]] = []
    for us in SPI_US:
        variants.append((f"spi{us}us", {"costs": Costs(reg_us=us)}))
    for us in TAG_POWERUP_US:
        variants.append((f"tag{us}us", {"costs": Costs(tag_powerup_us=us), "settle_us": us}))
    variants.append(("clk200", {"costs": CLK200}))
    out: dict[str, float] = {}
    for name, kw in variants:
        sweeps = [sweep_figures(squares, **kw)[0] for _, squares in boards]
        detect: list[float] = []
        for k, (_, squares) in enumerate(boards):
            detect += adjacent_figures(squares, trials, seed=k, **kw)[0]
        out[f"scan_sweep_ms_{name}"] = max(sweeps)
        out[f"scan_adjacent_ms_{name}"] = max(detect)
    return out


def table(out: Callable[[str], object] = print, trials: int = 15) -> None:
    """Sweep and adjacent latency per reader arrangement (the table in TIMING.md)."""
    boards = game_boards()
    one = single_reader_layout(RACKS, SLOTS)
    rows: list[tuple[str, dict[str, object]]] = [
        ("1 reader, 253 antennas", {"layout": one}),
        ("1 reader, no priority", {"layout": one, "hot_ratio": 1, "rack_ratio": 1}),
        ("3 board readers (5 rows each) + 4 rack readers", {"layout": row_layout(RACKS, SLOTS, 5)}),
        ("5 board readers (3 rows each) + 4 rack readers", {"layout": row_layout(RACKS, SLOTS, 3)}),
        ("8 board readers (2 rows each) + 4 rack readers", {"layout": row_layout(RACKS, SLOTS, 2)}),
        ("15 board readers (1 row each) + 4 rack readers", {}),
        ("15 + 4, no presence checks (full select always)", {"full_every": 1}),
        ("15 + 4, no priority (every cell alike)", {"hot_ratio": 1, "rack_ratio": 1}),
        ("15 + 4, MicroPython 2x slower", {"costs": Costs(reg_us=30, python_scale=2.0)}),
    ]
    out("| arrangement | worst sweep | mean sweep | CPU busy | next to a word, worst | median |")
    out("|---|---|---|---|---|---|")
    for name, kw in rows:
        figs = [sweep_figures(squares, **kw) for _, squares in boards]
        detect: list[float] = []
        for k, (_, squares) in enumerate(boards):
            detect += adjacent_figures(squares, trials, seed=k, **kw)[0]
        out(f"| {name} | {max(f[0] for f in figs):.0f} ms | {statistics.fmean(f[1] for f in figs):.0f} ms "
            f"| {max(f[2] for f in figs):.0%} | {max(detect):.0f} ms | {statistics.median(detect):.0f} ms |")


def architectures(out: Callable[[str], object] = print) -> None:
    """Worst and mean sweep per reader architecture (hardware/DESIGN.md, "Sweep time").

    The CPU cost of one SPI transaction is MicroPython's at 125 MHz (15 us modeled: 6 us of
    bytes at 4 MHz, 9 us of interpreter); at 200 MHz with SPI at 6.25 MHz the interpreter
    part shrinks by 125/200 and the bytes take 3.84 us: 9.5 us (12.6 us from 20 us). A strip MCU running C pays about 4 us per
    transaction (3 bytes at 10 MHz and about 1 us of SDK overhead, pico-sdk issue 292) and a
    twentieth of MicroPython's bookkeeping, on its own reader only: the fake HAL's one CPU
    at those costs is an upper bound. "Air time" rows replace the measured 6.5-8.5 ms of a
    7-byte select (Proxmark traces, readers' turnaround included) by the standard's 4.1 ms
    plus 0.1-0.5 ms of turnaround (hardware/rfcalc.py).
    """
    boards = game_boards()
    rows: list[tuple[str, dict[str, object]]] = [
        ("central RP2040 125 MHz, 15 us/transaction", {}),
        ("central RP2040 125 MHz, 20 us/transaction", {"costs": Costs(reg_us=20)}),
        ("central RP2040 125 MHz, 30 us/transaction", {"costs": Costs(reg_us=30)}),
        ("central RP2040 200 MHz, SPI 6.25 MHz (15 -> 9.5 us)", {"costs": CLK200}),
        ("central RP2040 200 MHz, SPI 6.25 MHz (20 -> 12.6 us)", {"costs": Costs(reg_us=12.6, python_scale=0.625)}),
        ("central, 200 MHz, 9.5 us, air time from the standard",
         {"costs": Costs(reg_us=9.5, python_scale=0.625, tag_min_us=4200, tag_max_us=4600)}),
        ("central, 8 readers of 2 rows, 200 MHz, 9.5 us", {"costs": CLK200, "layout": row_layout(RACKS, SLOTS, 2)}),
        ("a C MCU per strip (4 us, bookkeeping / 20), air time from the standard",
         {"costs": Costs(reg_us=4, python_scale=0.05, tag_min_us=4200, tag_max_us=4600)}),
    ]
    out("| architecture | worst sweep | mean sweep | CPU busy |")
    out("|---|---|---|---|")
    for name, kw in rows:
        figs = [sweep_figures(squares, **kw) for _, squares in boards]
        out(f"| {name} | {max(f[0] for f in figs):.0f} ms | {statistics.fmean(f[1] for f in figs):.0f} ms "
            f"| {max(f[2] for f in figs):.0%} |")


if __name__ == "__main__":
    if "--table" in sys.argv[1:]:
        table()
    elif "--architectures" in sys.argv[1:]:
        architectures()
    elif "--variants" in sys.argv[1:]:
        for key, value in variant_figures(game_boards()).items():
            print(f"{key:32s} {value:10.1f}")
    else:
        for key, value in run().items():
            print(f"{key:32s} {value:10.1f}")
