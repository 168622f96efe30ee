"""``firmware/hal_rp2.py`` run unchanged on register-level fakes of the reference build's chips.

``tests/chipfakes`` models the MFRC522s (registers, FIFO, timer, IRQ pin, the radio), the
ISO 14443-3 tags, the MCP23S17s (the A2/HAEN erratum included), the chip-select decoders,
MicroPython's ``machine``/``time``/``select``/``sys`` and its USB CDC per release. The real
``Rp2Hal``, ``Scanner`` and ``Controller`` run on them; the host decodes what comes out of
the USB cable. Everything is checked from the chips' own state, not from what the HAL
believes. Virtual time only; ``time.ticks_us`` wraps 2 s into every run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from chipfakes import KeyboardInterruptOnBoard, ReferenceBoard, WatchdogReset, snapshot_tags
from chipfakes import mfrc522 as M
from chipfakes.mcp23s17 import HAEN, IOCON

import firmware.mcp23s17
from drivers.board import protocol as P
from firmware import frames as F
from firmware.controller import Controller
from firmware.hal import SETTLE_US, exchange_deadline_us
from firmware.scanner import Scanner

UID_A = bytes.fromhex("04A1B2C3D4E5F6")


def uid(n: int) -> bytes:
    return bytes((0x04, n >> 8, n & 0xFF, 0x5A, 0x11, 0x22, 0x33))


def rig(board: ReferenceBoard | None = None, hal_options: dict[str, Any] | None = None,
        **scanner_options: Any) -> tuple[ReferenceBoard, Any, Scanner, Controller]:
    board = board or ReferenceBoard()
    hal = board.boot(**(hal_options or {}))
    scanner = Scanner(hal, board.layout, **scanner_options)
    return board, hal, scanner, Controller(hal, board.layout, scanner=scanner)


def late_game(board: ReferenceBoard, seed: int = 1, tiles: int = 60) -> dict[int, bytes]:
    """``tiles`` tags on random cells and two full racks; loc -> UID."""
    rng = random.Random(seed)
    cells = rng.sample([F.cell_loc(r, c) for r in range(15) for c in range(15)], tiles)
    placed = {loc: uid(n) for n, loc in enumerate(cells)}
    for rack in range(2):
        for slot in range(7):
            placed[F.slot_loc(rack, slot)] = uid(1000 + 16 * rack + slot)
    for loc, value in placed.items():
        board.place(loc, value)
    return placed


def faults(messages: list[tuple[int, P.Message]]) -> list[tuple[int, int, P.FaultCode]]:
    return [(t, m.reader, m.code) for t, m in messages if isinstance(m, P.Fault)]


# --- boot -----------------------------------------------------------------------------------


def test_rp2hal_boots_on_the_chips_as_the_datasheets_want() -> None:
    board = ReferenceBoard()
    hal = board.boot()
    assert hal._error == [None] * 19 and hal._unaddressed == []
    assert [hal.reader_version(r) for r in range(19)] == [0x92] * 19
    assert board.watchdog_started == 2000 and board.cpu.kbd_intr == [-1]
    assert board.cpu.spi_baud == 6_250_000 and board.cpu.freq_hz == 200_000_000
    assert board.cpu.spi_real_baud == 6_250_000  # the PL022 divides 200 MHz by 32 exactly
    for pin in (2, 3, 6, 7, 8, 9, 10, 11):  # SCK, MOSI, the chip-select address and strobes
        assert board.cpu.pads[pin] & 0x31 == 0x31, pin  # 12 mA, fast slew (hardware/DESIGN.md)
    assert 4 not in board.cpu.pads and 12 not in board.cpu.pads  # inputs left alone
    assert board.cpu.vreg >> 4 == 0xC  # the core at 1.15 V before the clock went to 200 MHz
    for r, chip in enumerate(board.readers):
        assert chip.power == "on" and chip.resets >= 1, r  # RST pulsed through the expander
        assert chip.protocol_errors == [] and chip.unsupported == []
        assert board.quiet_problems(r) == []  # no field, no antenna, IRQ released
    for exp in board.expanders:
        assert exp.regs[IOCON] & HAEN and exp.regs[0x00] == exp.regs[0x01] == 0x00  # outputs
        assert exp.latch() == 0x8000  # RST high, no antenna
    assert board.cs_glitches == [] and board.bus_conflicts == 0 and board.spi_unselected == 0
    assert board.irq_line() == 1


def test_the_conductance_and_radio_registers_are_written_at_every_reset() -> None:
    board = ReferenceBoard()
    hal = board.boot()
    mod = board.hal_module

    def check(chip: M.Mfrc522) -> None:
        regs = chip.regs
        assert regs[M.CWGsPReg] == mod.CW_GSP == 0x05  # reset value 0x20; DESIGN.md "Drive level"
        assert regs[M.GsNReg] == mod.GSN == 0x88
        assert regs[M.ModGsPReg] == 0x20  # left at reset: no effect with Force100ASK
        assert regs[M.TxASKReg] == 0x40  # Force100ASK: ModGsP has no effect
        assert regs[M.TModeReg] == 0x80 and regs[M.TPrescalerReg] == 0xA9
        assert regs[M.TReloadRegH] << 8 | regs[M.TReloadRegL] == 60
        assert abs(chip.timer_us() - 1525) < 1  # (2 x 169 + 1) x 61 ticks of 13.56 MHz
        assert regs[M.RFCfgReg] == 0x48 and regs[M.ModeReg] == 0x3D
        assert regs[M.ComIEnReg] == 0xA3 and regs[M.DivIEnReg] == 0x00  # inverted, open drain
        assert regs[M.TxModeReg] & 0x80 == regs[M.RxModeReg] & 0x80 == 0  # CRC_A in software
        assert regs[M.TxControlReg] == 0x80  # drivers off

    for chip in board.readers:
        check(chip)
    chip = board.readers[5]
    before = chip.resets
    assert hal.reset_reader(5)
    assert chip.resets == before + 1
    check(chip)
    assert chip.writes[M.CWGsPReg][-1] == 0x05  # written again after the hard reset cleared it


def test_force100ask_is_what_lets_the_tags_hear_the_reader() -> None:
    board = ReferenceBoard()
    hal = board.boot()
    board.place(F.cell_loc(2, 2), UID_A)
    assert hal.read_uid(2, 2) == UID_A
    hal._write(2, M.TxASKReg, 0x00)  # ModGsP (0x20) then decides the pauses: above CWGsP, none
    assert hal.read_uid(2, 2) is None


# --- reading ---------------------------------------------------------------------------------


def test_a_full_sweep_reads_every_uid_at_its_own_location() -> None:
    board, hal, scanner, ctl = rig()
    placed = late_game(board)
    board.run(ctl.step, 800)
    messages = board.host_messages()
    hello = next(m for _, m in messages if isinstance(m, P.Hello))
    assert (hello.readers, hello.racks, hello.slots) == (19, 4, 7)
    assert hello.board_id == board.unique_id
    assert snapshot_tags(messages) == placed
    assert scanner.sweep >= 2 and scanner.faulty_readers() == []
    # a tile moves: CHANGES says so, from the chips
    src = next(loc for loc in placed if loc >> 8 == F.AREA_BOARD)
    dst = next(F.cell_loc(r, c) for r in range(15) for c in range(15) if F.cell_loc(r, c) not in placed)
    board.place(dst, board.remove(src).uid)  # type: ignore[union-attr]
    board.run(ctl.step, 600)
    changes = {(loc.area << 8) | loc.index: value for _, m in board.host_messages() if isinstance(m, P.Changes)
               for loc, value in m.changes}
    assert changes == {src: b"", dst: placed[src]}
    assert board.keepout_violations == [] and board.multi_antenna == []


def test_a_presence_check_and_a_full_select_agree_with_the_tag() -> None:
    board = ReferenceBoard()
    hal = board.boot()
    tag = board.place(F.cell_loc(3, 9), UID_A)
    assert hal.read_uid(3, 9) == UID_A
    assert tag.answers == 5  # ATQA, level 1 anticollision + SAK, level 2 anticollision + SAK
    hal.start_read(3, 9, known=UID_A)  # cascade level 1 matches: stop there
    while hal.ready() != 3:
        hal.idle(1000)
    assert hal.result(3) == UID_A and tag.answers == 7
    other = bytes.fromhex("04A1B2FFFFFFFF")  # same level 1, another tag: only a full select tells
    board.place(F.cell_loc(3, 9), other)
    assert hal.read_uid(3, 9) == other


def test_the_shared_irq_line_falls_when_a_reader_finishes_an_exchange() -> None:
    board = ReferenceBoard()
    hal = board.boot()
    machine: Any = board.modules["machine"]
    edges: list[int] = []
    machine.Pin(12, machine.Pin.IN).irq(lambda pin: edges.append(board.clock.now), machine.Pin.IRQ_FALLING)
    board.place(F.cell_loc(0, 0), UID_A)
    assert hal.read_uid(0, 0) == UID_A
    assert len(edges) == 5  # one per exchange: ATQA, two anticollisions, two SAKs
    assert board.irq_line() == 1  # released at the end of the read


# --- the MCP23S17 erratum --------------------------------------------------------------------


def old_enable_addresses(bus: Any, device: int, addresses: Any) -> list[int]:
    """The firmware before issue 13: HAEN written to address 0 only, nothing checked."""
    bus.mcp_write(device, 0, firmware.mcp23s17.IOCON, bytes((HAEN, HAEN)))
    return []


def test_the_haen_erratum_is_handled() -> None:
    board, hal, _, ctl = rig(ReferenceBoard(erratum=True))
    placed = late_game(board, seed=4)
    assert all(exp.regs[IOCON] & HAEN for exp in board.expanders)
    assert [exp.address() for exp in board.expanders] == [r % 8 for r in range(19)]
    board.run(ctl.step, 800)
    assert snapshot_tags(board.host_messages()) == placed


@pytest.mark.parametrize("erratum", [True, False])
def test_without_the_fix_the_erratum_breaks_the_board(erratum: bool) -> None:
    board = ReferenceBoard(erratum=erratum)
    board.hal_module.enable_addresses = old_enable_addresses
    board, hal, _, ctl = rig(board)
    placed = late_game(board, seed=4)
    board.run(ctl.step, 800)
    got = snapshot_tags(board.host_messages())
    if erratum:  # the A2-high expanders of each group take each other's writes
        assert [exp.address() for exp in board.expanders] == [0, 1, 2, 3, 4, 4, 4, 4] * 2 + [0, 1, 2]
        assert got != placed
    else:
        assert got == placed


def test_the_address_check_finds_the_expanders_that_missed_haen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(firmware.mcp23s17, "A2_ADDRESS", 0)  # the workaround's second write undone
    hal = ReferenceBoard(erratum=True).boot()
    assert [r for r in range(19) if not hal.expander_ok(r)] == [4, 5, 6, 7, 12, 13, 14, 15]


# --- keep-out, the end of every read, settle ---------------------------------------------------


def test_keep_out_holds_for_every_reader_at_every_exchange() -> None:
    board, hal, scanner, ctl = rig()
    for r in range(15):
        for c in range(0, 15, 2):
            board.place(F.cell_loc(r, c), uid(16 * r + c))
    board.run(ctl.step, 1200)
    assert board.exchanges > 4000
    assert board.keepout_violations == []
    assert board.multi_antenna == []


def test_the_keep_out_monitor_sees_neighbouring_fields() -> None:
    board, hal, scanner, ctl = rig(keepout=0)  # the scanner's keep-out off: the chips show it
    for r in range(15):
        for c in range(0, 15, 2):
            board.place(F.cell_loc(r, c), uid(16 * r + c))
    board.run(ctl.step, 400)
    assert len(board.keepout_violations) > 50
    assert scanner.bad_reads > 0  # and the neighbours' carriers garble answers


def watch_reads(board: ReferenceBoard, hal: Any) -> list[tuple[int, list[str]]]:
    """Every reader ``hal.ready`` hands back, with what is wrong with its chip then."""
    seen: list[tuple[int, list[str]]] = []
    ready = hal.ready

    def checked() -> int:
        r: int = ready()
        if r >= 0:
            seen.append((r, board.quiet_problems(r)))
        return r

    hal.ready = checked
    return seen


def field_problems(board: ReferenceBoard, r: int) -> list[str]:
    """What keeps reader ``r``'s field or antenna live, or its IRQ low (a wedged command aside)."""
    return [p for p in board.quiet_problems(r) if not p.startswith("command")]


def test_every_read_ends_with_cmd_idle_the_transmitter_off_and_no_antenna() -> None:
    board, hal, scanner, ctl = rig()
    late_game(board)
    seen = watch_reads(board, hal)
    board.run(ctl.step, 600)
    assert len(seen) > 1000
    assert [s for s in seen if s[1]] == []


@pytest.mark.parametrize(("powerup_us", "settle_us", "read"),
                         [(1000, 1000, True), (1000, 200, False), (200, 200, True), (4800, 5000, True)])
def test_the_settle_time_is_honoured(powerup_us: int, settle_us: int, read: bool) -> None:
    board = ReferenceBoard()
    hal = board.boot(settle_us=settle_us)
    tag = board.place(F.cell_loc(6, 4), UID_A, powerup_us=powerup_us)
    assert hal.read_uid(6, 4) == (UID_A if read else None)
    assert (tag.early > 0) is not read  # a WUPA that came too soon went unanswered
    assert board.wupa_settles and min(us for _, _, us in board.wupa_settles) >= settle_us


@pytest.mark.parametrize("settle_us", [SETTLE_US, 200])
def test_a_tag_needing_1_ms_is_read_by_the_scan_only_with_a_1_ms_settle(settle_us: int) -> None:
    board, hal, scanner, ctl = rig(hal_options={"settle_us": settle_us})
    placed = late_game(board, seed=2, tiles=20)
    slow = F.cell_loc(7, 7)
    board.place(slow, UID_A, powerup_us=1000)
    board.run(ctl.step, 800)
    got = snapshot_tags(board.host_messages())
    assert got is not None
    assert (got.get(slow) == UID_A) is (settle_us >= 1000)
    assert {k: v for k, v in got.items() if k != slow} == {k: v for k, v in placed.items() if k != slow}
    assert min(us for _, _, us in board.wupa_settles) >= settle_us


# --- faults ---------------------------------------------------------------------------------------


def test_a_hung_reader_is_caught_by_its_exchange_deadline_and_reset() -> None:
    board, hal, scanner, ctl = rig()
    placed = late_game(board)
    board.run(ctl.step, 600)
    board.host_messages()
    seen = watch_reads(board, hal)
    hung_at = board.clock.now
    board.readers[3].hang()
    quiet_while_out: list[list[str]] = []

    def step() -> None:
        ctl.step()
        if scanner.state[3] == 1:  # FAULTY: out of the scan until its reset
            quiet_while_out.append(field_problems(board, 3))

    board.run(step, 2600)
    messages = board.host_messages()
    codes = [(r, code) for _, r, code in faults(messages)]
    assert codes[:3] == [(3, P.FaultCode.NO_RESPONSE), (3, P.FaultCode.RESET), (3, P.FaultCode.RECOVERED)]
    reported = faults(messages)[0][0]
    # the launch of the exchange that never ended (one in flight at the hang may still have
    # had its timer run out: then the next one)
    wedged = max(t for r, t in board.wedged if r == 3 and t <= reported)
    assert {r for r, _ in board.wedged} == {3} and hung_at - 5000 <= wedged < hung_at + 20_000
    # its exchange's deadline, counted from that launch, looked at every 1 ms; the loop's other
    # work and the FAULT's bytes (the old fixed deadline was 20 ms a read)
    assert reported - wedged <= exchange_deadline_us(60 * 25) + 1000 + 3000
    assert quiet_while_out and all(p == [] for p in quiet_while_out)  # no field, no antenna while it is out
    # every read ended clean; the hung reader's command logic ignores CMD_IDLE, its drivers do not
    assert [(r, p) for r, p in seen if (p if r != 3 else [x for x in p if not x.startswith("command")])] == []
    assert scanner.faulty_readers() == []
    assert snapshot_tags(messages) == placed  # its row read again after the reset
    assert board.readers[3].resets >= 2


def test_a_reader_that_stays_hung_is_reset_every_2_s_and_its_field_stays_off() -> None:
    board, hal, scanner, ctl = rig()
    late_game(board)
    board.hang_survives_reset = True
    board.run(ctl.step, 500)
    board.readers[3].hang()
    board.run(ctl.step, 4500)
    codes = [code for _, r, code in faults(board.host_messages()) if r == 3]
    assert codes[0] == P.FaultCode.NO_RESPONSE and codes.count(P.FaultCode.RESET) == 2
    assert P.FaultCode.RECOVERED not in codes
    assert field_problems(board, 3) == []
    assert [r for r in range(19) if r != 3 and scanner.state[r] != 0] == []


def test_a_reader_whose_irq_line_is_open_still_reads_through_the_second_look() -> None:
    board, hal, scanner, ctl = rig()
    placed = late_game(board)
    board.readers[2].irq_open = True  # its reads end, but the shared line never says so
    board.run(ctl.step, 1000)
    messages = board.host_messages()
    assert faults(messages) == []
    assert snapshot_tags(messages) == placed


# --- safe boot, watchdog, Ctrl-C ---------------------------------------------------------------------


def test_the_safe_boot_pin_leaves_the_watchdog_off_and_ctrl_c_working() -> None:
    board, hal, scanner, ctl = rig(ReferenceBoard(safe_boot=True))
    assert hal.safe_boot and hal.wdt is None and board.watchdog_started is None
    assert -1 not in board.cpu.kbd_intr
    board.run(ctl.step, 100)
    board.clock.advance(10_000_000)  # stopped for 10 s: nothing resets it
    board.usb.send(b"\x03")
    with pytest.raises(KeyboardInterruptOnBoard):
        board.run(ctl.step, 10)


def test_without_the_jumper_the_watchdog_runs_and_ctrl_c_is_only_a_byte() -> None:
    board, hal, scanner, ctl = rig()
    assert not hal.safe_boot and board.watchdog_started == 2000 and board.cpu.kbd_intr == [-1]
    board.run(ctl.step, 300)
    board.usb.send(P.encode(P.SetScan(0, 0, 0, 0, 0), 3) + b"\x03")  # seq 3: an 0x03 in the frame
    board.run(ctl.step, 300)
    acks = [m for _, m in board.host_messages() if isinstance(m, P.Ack)]
    assert acks == [P.Ack(3, P.AckStatus.OK)]
    assert board.cpu.wdt_feeds > 100
    with pytest.raises(WatchdogReset):
        board.clock.advance(2_100_000)  # the loop stops: the watchdog resets the controller


# --- the USB link --------------------------------------------------------------------------------------

VERSIONS = [(1, 22), (1, 24), (1, 27)]


def frames_of(sizes: list[int]) -> Iterator[bytes]:
    for n, size in enumerate(sizes):
        yield F.encode_frame(F.SNAPSHOT, n, bytes((n + k) & 0xFF for k in range(size)))


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: "%d.%d" % v)
def test_the_fake_cdc_stalls_a_write_that_does_not_fit(version: tuple[int, int]) -> None:
    board = ReferenceBoard(usb_version=version, usb_reading=False)
    out = board.modules["sys"].stdout.buffer  # type: ignore[attr-defined]
    out.write(bytes(250))
    start = board.clock.now
    out.write(bytes(64))  # 6 bytes free, the host reads nothing
    assert board.clock.now - start >= 500_000  # MICROPY_HW_USB_CDC_TX_TIMEOUT


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: "%d.%d" % v)
@pytest.mark.parametrize("host", ["reading", "open, not reading", "closed"])
def test_usb_writes_never_wait(version: tuple[int, int], host: str) -> None:
    board = ReferenceBoard(usb_version=version, usb_dtr=host != "closed", usb_reading=host == "reading")
    hal = board.boot()
    mod = board.hal_module
    byte_us = 10  # a generous bound for one byte's poll and write on the fakes' CPU costs
    rng = random.Random(5)
    sent = list(frames_of([rng.choice((20, 31, 120, 700, 2000)) for _ in range(60)]))
    calls: list[int] = []

    def timed(call: Any, *args: Any) -> None:
        start = board.clock.now
        call(*args)
        calls.append(board.clock.now - start)

    for frame in sent:
        timed(hal.serial_write, frame)
        assert calls[-1] <= mod.USB_PUMP_WRITE * byte_us
        for _ in range(200):  # the main loop meanwhile: each ready() sends a few bytes
            timed(hal.ready)
            assert calls[-1] <= mod.USB_PUMP_READY * byte_us + 100
            board.clock.advance(20)
    while hal._txq and board.clock.now < 60_000_000:
        timed(hal.idle, 2000)
        assert calls[-1] <= 4 * mod.USB_PUMP_READY * byte_us + 100
    assert board.usb.longest_write_us == 0  # no single write ever waited inside MicroPython
    board.usb.drain()
    received = [f.payload for f in board.host.feed(bytes(board.usb.host_rx))]
    if host == "reading":
        assert hal.dropped_writes == 0 and len(received) == len(sent)
    elif host == "open, not reading":
        assert hal.dropped_writes > 50 and len(board.usb.fifo) == 256 and not hal._txq


def old_serial_write(hal: Any, data: bytes) -> None:
    """``Rp2Hal.serial_write`` before this fix: 64-byte pieces, the budget looked at only
    while poll says "not writable"."""
    time = board_time(hal)
    view = memoryview(data)
    start = time.ticks_us()
    while view:
        if not hal._wpoll.poll(0):
            if time.ticks_diff(time.ticks_us(), start) > 3000:
                hal.dropped_writes += 1
                return
            continue
        n = hal._out.write(view[:64])
        if n:
            view = view[n:]


def board_time(hal: Any) -> Any:
    return hal.serial_write.__globals__["time"]


@pytest.mark.parametrize("version", [(1, 22), (1, 27)], ids=lambda v: "%d.%d" % v)
def test_the_old_write_loop_stalls_on_a_host_that_holds_the_port_without_reading(version: tuple[int, int]) -> None:
    board = ReferenceBoard(usb_version=version, usb_reading=False)
    hal = board.boot()
    frames = list(frames_of([31] * 20))
    if version < (1, 27):  # the piece that does not fit is never written: poll keeps saying "writable"
        with pytest.raises(WatchdogReset):
            for frame in frames:
                old_serial_write(hal, frame)
                hal.feed_watchdog()
    else:  # the write takes what fits, then waits 500 ms twice (mp_stream_rw calls it again)
        start = board.clock.now
        for frame in frames:
            old_serial_write(hal, frame)
        assert board.usb.longest_write_us >= 500_000 and board.clock.now - start >= 1_000_000


@pytest.mark.parametrize("version", [(1, 22), (1, 27)], ids=lambda v: "%d.%d" % v)  # 1.24-1.26 as 1.22 here
def test_the_scan_goes_on_while_the_host_holds_the_port_without_reading(version: tuple[int, int]) -> None:
    board, hal, scanner, ctl = rig(ReferenceBoard(usb_version=version))
    placed = late_game(board)
    board.run(ctl.step, 500)
    board.host_messages()
    board.usb.reading = False  # the service hangs with the port open
    sweeps = scanner.sweep
    board.run(ctl.step, 2500)  # the watchdog (2 s) would fire on a stall
    assert scanner.sweep - sweeps > 10 and hal.dropped_writes > 0
    assert board.usb.longest_write_us == 0
    board.usb.reading = True  # the host comes back: the stale bytes, then IDENTIFY
    board.usb.send(P.encode(P.Identify(), 1))
    board.run(ctl.step, 300)
    assert snapshot_tags(board.host_messages()) == placed


def test_the_fake_hal_pumps_the_usb_queue_as_hal_rp2_does() -> None:
    from firmware import hal_fake

    mod = ReferenceBoard().hal_module
    assert (hal_fake.PUMP_WRITE, hal_fake.PUMP_READY, hal_fake.PUMP_IDLE) == (
        mod.USB_PUMP_WRITE, mod.USB_PUMP_READY, 4 * mod.USB_PUMP_READY)


# --- the self-test on the real HAL ----------------------------------------------------------------


def test_the_selftest_reports_every_readers_chip_and_the_tile_on_its_antenna() -> None:
    board, hal, scanner, ctl = rig(ReferenceBoard(versions={4: 0x91}))
    board.place(F.cell_loc(7, 7), UID_A)  # H8: reader 7, antenna 7
    board.run(ctl.step, 800)
    board.host_messages()
    board.usb.send(P.encode(P.SelfTest(10, 500), 7))
    board.run(ctl.step, 1200)
    reports = [m for _, m in board.host_messages() if isinstance(m, P.SelfTestReport)]
    assert reports and reports[0].state is P.SelfTestState.RUNNING
    health = {h.reader: h for h in reports[0].health}
    assert sorted(health) == list(range(19))
    assert {r: h.version for r, h in health.items()} == {r: 0x91 if r == 4 else 0x92 for r in range(19)}
    assert all(h.flags == P.HealthFlag.NONE for h in health.values())
    tags = [r for rep in reports for r in rep.reads if r.result is P.ReadResult.TAG]
    assert tags and {(t.reader, t.antenna, t.uid) for t in tags} == {(7, 7, UID_A)}
    assert all(SETTLE_US < t.min_us < 30_000 for t in tags)
    assert board.keepout_violations == []
