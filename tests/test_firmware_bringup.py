"""``firmware/bringup.py``: the bring-up measurements (hardware/BRINGUP.md) run on the real
``hal_rp2`` over the chip fakes. The fakes model the chips' logic and a tag's power-up time
and weakest powering carrier, not the radio's analog side: the figures here show that each
measurement measures what it says, not what a real strip will give."""

from __future__ import annotations

from typing import Any

from chipfakes import ReferenceBoard
from chipfakes.micropython_env import CpuCosts

from firmware import bringup
from firmware import frames as F
from firmware.hal import SETTLE_US

UID = bytes.fromhex("04A1B2C3D4E5F6")
CELL = F.cell_loc(3, 7)  # reader 3, antenna 7


def boot(**options: Any) -> tuple[ReferenceBoard, Any, list[str]]:
    board = ReferenceBoard(safe_boot=True, **options.pop("board", {}))
    hal = board.boot(**options)
    return board, hal, []


def test_spi_cost_follows_the_clock_and_the_baud_rate() -> None:
    board, hal, lines = boot()
    fast = bringup.spi(hal, 0, n=200, out=lines.append)
    assert lines and "register read" in lines[0]
    slow_board, slow_hal, _ = boot(spi_baud=4_000_000, cpu_hz=125_000_000)
    slow = bringup.spi(slow_hal, 0, n=200, out=lambda s: None)
    assert slow_board.cpu.freq_hz == 125_000_000 and slow_board.cpu.vreg >> 4 == 0xB  # no voltage raised
    for f, s in zip(fast, slow):
        assert 1 < f < s
    # a read is 2 bytes: at 8 MHz they take 2 us of the transaction, at 4 MHz 4 us
    assert slow[0] - fast[0] > 2


def test_powerup_finds_the_tags_power_up_time() -> None:
    board, hal, lines = boot()
    board.place(CELL, UID, powerup_us=700)
    assert bringup.powerup(hal, 3, 7, UID.hex(), n=5, out=lines.append) == 750
    assert hal.settle_us == SETTLE_US  # restored
    assert any(line.startswith("settle  500 us:  0 of 5") for line in lines)
    board.remove(CELL)
    assert bringup.powerup(hal, 3, 7, UID, n=3, out=lines.append) is None


def test_drive_finds_the_weakest_carrier_and_the_margin() -> None:
    board, hal, lines = boot()
    board.place(CELL, UID, min_drive=5)
    weakest, margin = bringup.drive(hal, 3, 7, UID, n=3, out=lines.append)
    assert weakest == 5
    assert margin is not None and abs(margin - 20 * __import__("math").log10(0x14 / 5)) < 1e-9
    assert hal.drive(3) == 0x14 and board.readers[3].regs[0x28] == 0x14  # restored
    board.remove(CELL)
    board.place(CELL, UID, min_drive=40)  # too far for the firmware's drive
    assert bringup.drive(hal, 3, 7, UID, n=3, out=lines.append) == (None, None)


def test_crossreads_pass_for_one_antenna_and_fail_for_two() -> None:
    board, hal, lines = boot()
    board.place(CELL, UID)
    assert bringup.crossreads(hal, board.layout, UID, n=2, out=lines.append) == [(3, 7, 2)]
    assert lines[-1].endswith("PASS")
    board.place(F.cell_loc(4, 7), UID)  # the same tag seen under the next row's antenna
    hits = bringup.crossreads(hal, board.layout, UID, n=2, out=lines.append)
    assert [(r, a) for r, a, _ in hits] == [(3, 7), (4, 7)]
    assert lines[-1].endswith("FAIL")


def test_field_holds_every_carrier_then_leaves_the_readers_quiet() -> None:
    board, hal, lines = boot()
    seen: list[list[tuple[bool, list[int]]]] = []
    real_idle = hal.idle

    def idle(us: int) -> None:
        seen.append([(chip.field_on, board.selected_antennas(r)) for r, chip in enumerate(board.readers)])
        real_idle(us)

    hal.idle = idle
    assert bringup.field(hal, range(19), antenna=0, seconds=1, out=lines.append) == 19
    assert seen and all(state == (True, [0]) for s in seen for state in s)
    for r in range(19):
        assert board.quiet_problems(r) == [], r
        assert board.readers[r].protocol_errors == []
