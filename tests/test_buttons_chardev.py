"""The buttons on the kernel's GPIO character device (libgpiod), against a fake chip that hands
out libgpiod's own types: edges stamped by the kernel, a thread asleep until an edge or a
deadline, lines found by name, busy and missing lines as typed errors."""

from __future__ import annotations

import os
import queue
import select
import threading
import time

import pytest

gpiod = pytest.importorskip("gpiod", reason="libgpiod's Python package (pip install gpiod) is not installed")

from gpiod.line import Bias, Direction, Edge

from drivers.buttons import ButtonEvent, ButtonId, Kind, ManualClock, Role, Timing, pin_map
from drivers.buttons.chardev import CONSUMER, ChardevButtons, LinesNotFoundError, find_lines
from drivers.buttons.chardev_fake import EVENTS_PER_LINE, FakeChip, FakeGpio, pi_line_names

DONE1 = ButtonId(1, Role.DONE)
DONE2 = ButtonId(2, Role.DONE)
CHALLENGE1 = ButtonId(1, Role.CHALLENGE)


def make(
    clock: ManualClock | None = None, timing: Timing | None = None, *chips: FakeChip
) -> tuple[ChardevButtons, FakeChip, ManualClock, list[ButtonEvent]]:
    """Buttons for 2 seats on ``chips`` (default: one Pi chip on ``clock``); their events in a list."""
    clock = clock or ManualClock(100.0)
    timing = timing or Timing(30, 2000, 10000)
    chip = chips[0] if chips else FakeChip(clock=clock)
    seen: list[ButtonEvent] = []
    buttons = ChardevButtons(pin_map(seats=2), seen.append, timing=timing, api=FakeGpio(*(chips or (chip,))), clock=clock)
    return buttons, chip, clock, seen


def test_the_lines_are_requested_as_buttons_need_them() -> None:
    buttons, chip, _, _ = make()
    with buttons:
        request = chip.held[17]
        assert request.consumer == CONSUMER
        assert sorted(request.settings) == sorted(buttons.pins.values())
        s = request.settings[17]
        assert (s.direction, s.edge_detection, s.bias, s.active_low) == (Direction.INPUT, Edge.BOTH, Bias.PULL_UP, True)
    assert chip.held == {}  # released on close


def test_a_press_is_stamped_when_the_kernel_saw_it_not_when_it_was_read() -> None:
    buttons, chip, clock, seen = make()
    with buttons:
        chip.close_contact("GPIO17")  # seat 1 Done, at 100.0
        clock.advance(0.050)
        chip.open_contact("GPIO17")  # at 100.05
        clock.advance(5.0)  # read late
        buttons.tick()
        assert [(e.button, e.kind) for e in seen] == [(DONE1, Kind.PRESS)]
        assert seen[0].at == pytest.approx(100.0)


def test_bounces_and_long_and_stuck_through_the_chip() -> None:
    buttons, chip, clock, seen = make(timing=Timing(30, 600, 3000))
    with buttons:
        for _ in range(7):  # a chattering contact, ending closed
            chip.close_contact(17)
            clock.advance(0.002)
            chip.open_contact(17)
            clock.advance(0.002)
        chip.close_contact(17)
        clock.advance(0.030)
        buttons.tick()
        assert seen == [] and buttons.is_pressed(DONE1)
        assert buttons.next_due() == pytest.approx(100.0 + 0.6, abs=1e-6)  # from the burst's first edge
        clock.advance(0.6)
        buttons.tick()
        assert [e.kind for e in seen] == [Kind.LONG_PRESS]
        clock.advance(3.0)
        buttons.tick()
        assert [e.kind for e in seen] == [Kind.LONG_PRESS, Kind.STUCK] and buttons.is_stuck(DONE1)
        chip.open_contact(17)
        clock.advance(0.031)
        buttons.tick()
        assert seen[-1].kind is Kind.RELEASED_AFTER_STUCK and not buttons.is_pressed(DONE1)


def test_a_button_held_when_the_lines_are_requested_is_no_press() -> None:
    clock = ManualClock(5.0)
    chip = FakeChip(clock=clock)
    chip.close_contact("GPIO22")  # seat 2 Done, already down (a finger, or a jammed contact)
    buttons, _, _, seen = make(clock, Timing(30, 600, 3000), chip)
    with buttons:
        assert buttons.raw_level(DONE2) and not buttons.raw_level(DONE1)
        clock.advance(1.0)
        chip.open_contact("GPIO22")
        clock.advance(0.05)
        buttons.tick()
        assert seen == []


def test_the_lines_are_found_by_name_on_whichever_chip_has_them() -> None:
    """A Pi 5 on an older kernel: the header is gpiochip4 (pinctrl-rp1), gpiochip0 is another chip."""
    clock = ManualClock()
    other = FakeChip("/dev/gpiochip0", {f"line{n}": n for n in range(54)}, clock=clock)
    rp1 = FakeChip("/dev/gpiochip4", {name: n + 0 for name, n in pi_line_names().items()}, clock=clock)
    chip, offsets = find_lines(FakeGpio(other, rp1), [17, 27, 26])
    assert chip == "/dev/gpiochip4" and offsets == {17: 17, 27: 27, 26: 26}
    shifted = FakeChip("/dev/gpiochip1", {f"GPIO{n}": n + 100 for n in range(28)}, clock=clock)
    assert find_lines(FakeGpio(shifted), [5])[1] == {5: 105}


def test_a_pi_whose_device_tree_names_some_header_lines_otherwise_is_found_by_its_chip_label() -> None:
    """A Pi 3's tree names BCM 7-11 SPI_CE1_N .. SPI_SCLK and 4 GPIO_GCLK: buttons on them are
    still found, on the chip labelled pinctrl-bcm2835, at their BCM numbers."""
    pi3 = {f"GPIO{n}": n for n in range(28)}
    for n, name in {4: "GPIO_GCLK", 7: "SPI_CE1_N", 8: "SPI_CE0_N", 9: "SPI_MISO", 10: "SPI_MOSI", 11: "SPI_SCLK"}.items():
        del pi3[f"GPIO{n}"]
        pi3[name] = n
    clock = ManualClock()
    other = FakeChip("/dev/gpiochip0", {"line0": 0}, clock=clock, label="raspberrypi-exp-gpio")
    header = FakeChip("/dev/gpiochip1", pi3, clock=clock, label="pinctrl-bcm2835")
    assert find_lines(FakeGpio(other, header), [4, 17, 26]) == ("/dev/gpiochip1", {4: 4, 17: 17, 26: 26})
    with pytest.raises(LinesNotFoundError):  # no Pi header chip: nothing guessed
        find_lines(FakeGpio(replace_label(header, "gpio-sim")), [4, 17])


def replace_label(chip: FakeChip, label: str) -> FakeChip:
    chip.label = label
    return chip


def test_no_chip_with_the_lines_is_a_typed_error_naming_them() -> None:
    clock = ManualClock()
    with pytest.raises(LinesNotFoundError) as e:
        find_lines(FakeGpio(FakeChip("/dev/gpiochip0", {"GPIO17": 17}, clock=clock)), [17, 27])
    assert e.value.names == ("GPIO17", "GPIO27")
    with pytest.raises(LinesNotFoundError, match="no /dev/gpiochip"):
        find_lines(FakeGpio(), [17])
    with pytest.raises(LinesNotFoundError, match="Permission denied") as e:
        find_lines(FakeGpio(FakeChip(clock=clock, accessible=False)), [17])
    assert e.value.names == ("GPIO17",)


def test_a_line_held_by_another_program_is_a_typed_error() -> None:
    clock = ManualClock()
    chip = FakeChip(clock=clock)
    other = chip.request({26: gpiod.LineSettings()}, "someone-else")  # the Menu pin
    with pytest.raises(LinesNotFoundError, match="busy") as e:
        make(clock, Timing(), chip)
    assert "GPIO26" in e.value.names
    other.release()
    buttons, *_ = make(clock, Timing(), chip)
    buttons.close()


def test_the_kernel_queue_keeps_the_latest_edges_when_nobody_reads() -> None:
    clock = ManualClock()
    chip = FakeChip(clock=clock)
    request = chip.request({(17, 27): gpiod.LineSettings(edge_detection=Edge.BOTH, active_low=True)}, "t")
    for _ in range(EVENTS_PER_LINE * 2):
        chip.close_contact(17)
        clock.advance(0.001)
        chip.open_contact(17)
    events = request.read_edge_events()
    assert len(events) == EVENTS_PER_LINE * 2 and request.dropped == EVENTS_PER_LINE * 2
    assert events[-1].event_type is gpiod.EdgeEvent.Type.FALLING_EDGE  # the last: opened
    assert [e.line_seqno for e in events] == list(range(EVENTS_PER_LINE * 2 + 1, EVENTS_PER_LINE * 4 + 1))
    assert not select.select([request.fd], [], [], 0)[0]  # nothing queued: not readable
    with pytest.raises(BlockingIOError):  # (the kernel's read would block: never read before readable)
        request.read_edge_events()
    request.release()


def test_the_thread_sleeps_until_an_edge_and_wakes_at_the_deadlines() -> None:
    """Real time: no deadline at rest (the thread blocks in poll on the request's file); a press
    wakes it, the long press and stuck come at their deadlines, close() wakes it to stop."""
    events: queue.Queue[ButtonEvent] = queue.Queue()
    chip = FakeChip()
    with ChardevButtons(pin_map(), events.put, timing=Timing(5, 60, 150), api=FakeGpio(chip)) as buttons:
        buttons.start()
        assert buttons.next_due() is None
        chip.close_contact(22)
        long, stuck = events.get(timeout=5), events.get(timeout=5)
        assert (long.button, long.kind, stuck.kind) == (DONE2, Kind.LONG_PRESS, Kind.STUCK)
        chip.open_contact(22)
        assert events.get(timeout=5).kind is Kind.RELEASED_AFTER_STUCK
        chip.close_contact(27)
        time.sleep(0.02)
        chip.open_contact(27)
        press = events.get(timeout=5)
        assert (press.button, press.kind) == (ButtonId(1, Role.CHALLENGE), Kind.PRESS)
        thread = buttons._thread
        assert thread is not None and thread.is_alive()
    assert not thread.is_alive() and chip.held == {}


def test_the_idle_thread_does_not_wake() -> None:
    """At rest the edge thread makes no system call but the one poll it blocks in: its CPU time
    does not grow while nothing happens (Linux: the thread's own clock)."""
    chip = FakeChip()
    with ChardevButtons(pin_map(), lambda e: None, api=FakeGpio(chip)) as buttons:
        buttons.start()
        thread = buttons._thread
        assert thread is not None
        for _ in range(100):
            if thread.native_id is not None:
                break
            time.sleep(0.01)
        stat = f"/proc/self/task/{thread.native_id}/status"
        if not os.path.exists(stat):
            pytest.skip("no /proc task status here")

        def switches() -> int:
            with open(stat) as f:
                return sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)

        time.sleep(0.1)  # settled into its poll
        before = switches()
        time.sleep(1.0)
        assert switches() - before <= 1
        chip.close_contact(17)
        time.sleep(0.1)
        assert switches() > before  # it does wake for an edge


def test_an_event_handler_failing_does_not_stop_the_buttons() -> None:
    clock = ManualClock()
    chip = FakeChip(clock=clock)
    got: list[ButtonEvent] = []

    def handler(e: ButtonEvent) -> None:
        got.append(e)
        if len(got) == 1:
            raise RuntimeError("a bug downstream")

    with ChardevButtons(pin_map(), handler, api=FakeGpio(chip), clock=clock, timing=Timing(30, 2000, 10000)) as b:
        for pin in (17, 27):
            chip.close_contact(pin)
            clock.advance(0.05)
            chip.open_contact(pin)
            clock.advance(0.05)
            b.tick()
    assert [e.button for e in got] == [DONE1, CHALLENGE1]


def test_concurrent_fingers_keep_their_order() -> None:
    """Two Challenges a millisecond apart from two threads: the kernel's stamps decide the order."""
    clock = ManualClock(10.0)
    chip = FakeChip(clock=clock)
    buttons, _, _, seen = make(clock, Timing(30, 2000, 10000), chip)
    with buttons:
        chip.close_contact(23)  # seat 2 Challenge first
        clock.advance(0.001)
        t = threading.Thread(target=chip.close_contact, args=(27,))
        t.start()
        t.join()
        clock.advance(0.1)
        chip.open_contact(23)
        chip.open_contact(27)
        clock.advance(0.05)
        buttons.tick()
    assert [e.seat for e in seen] == [2, 1] and seen[0].at < seen[1].at


# --- which driver the service takes ------------------------------------------------------------


def test_the_service_takes_chardev_where_libgpiod_finds_the_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    from drivers.buttons import chardev
    from drivers.buttons.gpio import Buttons
    from scoreboard.hardware import real_buttons

    chip = FakeChip()
    monkeypatch.setattr(chardev, "Libgpiod", lambda: FakeGpio(chip))
    for how in ("auto", "chardev"):
        buttons = real_buttons(how, pin_map(seats=2), lambda e: None, Timing())
        assert isinstance(buttons, ChardevButtons) and chip.held
        buttons.close()
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    buttons = real_buttons("gpiozero", pin_map(seats=2), lambda e: None, Timing())
    assert isinstance(buttons, Buttons) and not chip.held
    buttons.close()


def test_without_the_pins_auto_falls_back_to_gpiozero_and_chardev_says_why(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from drivers.buttons import chardev
    from drivers.buttons.gpio import Buttons
    from scoreboard.hardware import real_buttons

    monkeypatch.setattr(chardev, "Libgpiod", lambda: FakeGpio())  # a PC: no /dev/gpiochip*
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    with caplog.at_level("INFO", logger="scoreboard.hardware"):
        buttons = real_buttons("auto", pin_map(seats=2), lambda e: None, Timing())
    assert isinstance(buttons, Buttons)
    buttons.close()
    assert "no /dev/gpiochip" in caplog.text and "gpiozero instead" in caplog.text
    with pytest.raises(LinesNotFoundError):
        real_buttons("chardev", pin_map(seats=2), lambda e: None, Timing())


def test_the_config_key_names_the_ways() -> None:
    from scoreboard.config import ConfigError, load_config

    assert load_config(None).buttons.gpio == "auto"
    with pytest.raises(ConfigError, match="chardev"):
        load_config(None, overrides=["buttons.gpio=chardv"])
