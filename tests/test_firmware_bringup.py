"""``firmware/bringup.py``: the bring-up measurements (hardware/BRINGUP.md) run on the real
``hal_rp2`` over the chip fakes. The fakes model the chips' logic and a tag's power-up time
and weakest powering carrier, not the radio's analog side: the figures here show that each
measurement measures what it says, not what a real strip will give."""

from __future__ import annotations

import math
from typing import Any

from chipfakes import ReferenceBoard
from chipfakes.board import coil_current_ma
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
    # a read is 2 bytes: at 6.25 MHz they take 2.6 us of the transaction, at 3.9 MHz (what
    # the PL022 makes of 4 MHz at 125 MHz) 4.1 us, and the interpreter is 1.6 times slower
    assert slow[0] - fast[0] > 1.5
    assert slow_board.cpu.spi_real_baud == 125_000_000 / 32


def test_the_expanders_boot_check_runs_slowly_then_the_bus_speeds_up() -> None:
    board, hal, _ = boot()
    assert board.cpu.spi_baud == 6_250_000
    seen: list[int] = []
    board2 = ReferenceBoard(safe_boot=True)
    real = board2.spi_byte

    def spy(mosi: int) -> int:
        seen.append(board2.cpu.spi_baud)
        return real(mosi)

    board2.spi_byte = spy  # type: ignore[method-assign]
    board2.boot()
    assert seen[0] == 1_000_000 and seen[-1] == 6_250_000


def test_powerup_finds_the_tags_power_up_time() -> None:
    board, hal, lines = boot()
    board.place(CELL, UID, powerup_us=700)
    assert bringup.powerup(hal, 3, 7, UID.hex(), n=5, out=lines.append) == 750
    assert hal.settle_us == SETTLE_US  # restored
    assert any(line.startswith("settle  500 us:  0 of 5") for line in lines)
    board.remove(CELL)
    assert bringup.powerup(hal, 3, 7, UID, n=3, out=lines.append) is None


def test_drive_finds_the_weakest_carrier_and_the_field_margin() -> None:
    board, hal, lines = boot()
    at = {g: coil_current_ma(g, 8) for g in range(1, 6)}
    assert 13 < at[5] < 15  # the firmware's 0x05: 14 mA rms (DESIGN.md "Drive level")
    board.place(CELL, UID, min_coil_ma=(at[2] + at[3]) / 2)  # read at 3, not at 2
    weakest, margin = bringup.drive(hal, 3, 7, UID, n=3, out=lines.append)
    assert weakest == 3
    real = 20 * math.log10(at[5] / at[3])  # the field's ratio, as the fake's analog side has it
    assert margin is not None and abs(margin - real) < 1e-6
    assert real < 20 * math.log10(5 / 3) - 1.5  # the conductance ratio overstates it (4.4 dB against 2.7)
    assert hal.drive(3) == 0x05 and board.readers[3].regs[0x28] == 0x05  # restored
    board.remove(CELL)
    board.place(CELL, UID, min_coil_ma=at[5] * 1.01)  # too far for the firmware's drive
    assert bringup.drive(hal, 3, 7, UID, n=3, out=lines.append) == (None, None)


def test_crossreads_with_the_field_raised_by_6_db() -> None:
    board, hal, lines = boot()
    board.place(CELL, UID)
    # a neighbour's tag that the 6 dB stronger field reaches and the firmware's does not
    board.place(F.cell_loc(4, 7), bytes.fromhex("04112233445566"), min_coil_ma=coil_current_ma(5, 8) * 1.5)
    assert [(r, a) for r, a, _ in bringup.crossreads(hal, board.layout, UID, n=2, out=lines.append)] == [(3, 7)]
    other = bytes.fromhex("04112233445566")
    assert [(r, a) for r, a, _ in bringup.crossreads(hal, board.layout, other, n=2, out=lines.append)] == []
    hits = bringup.crossreads(hal, board.layout, other, n=2, out=lines.append, boost_db=6.0)
    assert [(r, a) for r, a, _ in hits] == [(4, 7)]
    g = bringup.drive_for(6.0, 0x05)
    assert g is not None and 20 * math.log10(coil_current_ma(g, 8) / coil_current_ma(5, 8)) >= 6.0
    assert any("6.0 dB over" in line or "6.1 dB over" in line for line in lines)
    assert all(chip.regs[0x28] == 0x05 for chip in board.readers)  # restored


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
