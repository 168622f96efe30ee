"""Seat buttons: the pure logic on exact times, the gpiozero shell on MockFactory, config."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from drivers.buttons import (
    DEFAULT_CHALLENGE,
    DEFAULT_DONE,
    DEFAULT_MENU,
    ButtonBank,
    ButtonError,
    ButtonEvent,
    ButtonId,
    ButtonLogic,
    Buttons,
    Kind,
    ManualClock,
    MockButtons,
    PinFactoryError,
    PinMapError,
    Role,
    Timing,
    TimingError,
    UnknownButtonError,
    from_settings,
    pin_map,
)
from engine.errors import ScoreboardError
from scoreboard.config import ButtonsConfig, Config, ConfigError, load_config

DONE2 = ButtonId(2, Role.DONE)
CH1 = ButtonId(1, Role.CHALLENGE)
CH3 = ButtonId(3, Role.CHALLENGE)
MENU = ButtonId(None, Role.MENU)


def feed(logic: ButtonLogic, edges: list[tuple[float, bool]], until: float) -> list[ButtonEvent]:
    """Feed (time, pressed) edges, then tick every 5 ms up to ``until``."""
    events: list[ButtonEvent] = []
    for at, pressed in edges:
        events += logic.edge(pressed, at)
    t = edges[-1][0] if edges else 0.0
    while t < until:
        t = min(t + 0.005, until)
        events += logic.tick(t)
    return events


def chatter(start: float, count: int, over: float, first: bool) -> list[tuple[float, bool]]:
    """``count`` alternating edges from ``first``, evenly over ``over`` seconds."""
    step = over / (count - 1)
    return [(start + i * step, first if i % 2 == 0 else not first) for i in range(count)]


def kinds(events: list[ButtonEvent]) -> list[Kind]:
    return [e.kind for e in events]


# --- names and values -----------------------------------------------------------------


def test_button_names_round_trip() -> None:
    for button in (DONE2, CH1, MENU, ButtonId(4, Role.CHALLENGE)):
        assert ButtonId.from_name(button.name()) == button
        assert eval(repr(button)) == button
    assert DONE2.name() == "seat 2 Done" and MENU.name() == "Menu"
    assert ButtonId.from_name("seat 3 challenge") == CH3


@pytest.mark.parametrize("name", ["seat 2", "Pause", "seat x Done", "Menu Done", ""])
def test_bad_button_names(name: str) -> None:
    with pytest.raises(UnknownButtonError) as info:
        ButtonId.from_name(name)
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, KeyError)


def test_seat_and_role_must_agree() -> None:
    with pytest.raises(UnknownButtonError):
        ButtonId(None, Role.DONE)
    with pytest.raises(UnknownButtonError):
        ButtonId(1, Role.MENU)
    with pytest.raises(UnknownButtonError):
        ButtonId(0, Role.DONE)


def test_event_text_and_player_index() -> None:
    event = ButtonEvent(2, Role.DONE, Kind.STUCK, 12.0)
    assert str(event) == "seat 2 Done stuck"
    assert event.player == 1 and event.button == DONE2
    assert ButtonEvent(None, Role.MENU, Kind.PRESS, 0.0).player is None


@pytest.mark.parametrize("values", [(30, 30, 100), (30, 2000, 2000), (-1, 10, 20)])
def test_timing_must_be_ordered(values: tuple[int, int, int]) -> None:
    with pytest.raises(TimingError):
        Timing(*values)


# --- pure logic, exact times ----------------------------------------------------------


def test_clean_short_press() -> None:
    logic = ButtonLogic(DONE2)
    events = feed(logic, [(1.0, True), (1.2, False)], until=1.5)
    assert events == [ButtonEvent(2, Role.DONE, Kind.PRESS, 1.0)]


def test_bouncing_click_gives_one_press() -> None:
    """20 chatter edges in 30 ms when closing and again when opening: one PRESS."""
    logic = ButtonLogic(DONE2)
    closing = chatter(1.0, 20, 0.030, first=True) + [(1.031, True)]  # settles closed
    opening = chatter(1.5, 20, 0.030, first=False) + [(1.531, False)]  # settles open
    assert closing[-1][1] and not opening[-1][1]
    events = feed(logic, closing + opening, until=2.0)
    assert events == [ButtonEvent(2, Role.DONE, Kind.PRESS, 1.0)]  # dated by the first edge


def test_bounce_alone_gives_nothing() -> None:
    """20 edges in 30 ms that end where they started: no level held 30 ms, no event."""
    logic = ButtonLogic(DONE2)
    assert feed(logic, chatter(1.0, 20, 0.030, first=True), until=5.0) == []
    assert not logic.is_pressed


def test_glitch_shorter_than_debounce_is_ignored() -> None:
    logic = ButtonLogic(DONE2)
    assert feed(logic, [(1.0, True), (1.029, False)], until=2.0) == []
    # and it does not date the next real press
    assert feed(logic, [(3.0, True), (3.1, False)], until=3.5) == [
        ButtonEvent(2, Role.DONE, Kind.PRESS, 3.0)
    ]


def test_press_is_debounced_not_before_30_ms() -> None:
    logic = ButtonLogic(DONE2)
    logic.edge(True, 1.0)
    assert logic.tick(1.029) == [] and not logic.is_pressed
    logic.tick(1.030)
    assert logic.is_pressed


def test_long_press_emitted_at_once_and_no_press_on_release() -> None:
    logic = ButtonLogic(CH1)
    logic.edge(True, 1.0)
    assert logic.tick(2.999) == []
    assert logic.tick(3.0) == [ButtonEvent(1, Role.CHALLENGE, Kind.LONG_PRESS, 1.0)]
    assert logic.tick(3.5) == []
    logic.edge(False, 4.0)
    assert logic.tick(4.1) == [] and not logic.is_pressed


def test_release_just_before_long_is_a_short_press() -> None:
    """A release at 1.99 s that settles after 2 s is still a PRESS, not a LONG_PRESS."""
    logic = ButtonLogic(CH1)
    events = feed(logic, [(0.0, True), (1.99, False)], until=2.5)
    assert kinds(events) == [Kind.PRESS]


def test_glitch_during_long_hold_keeps_it_long() -> None:
    logic = ButtonLogic(CH1)
    events = feed(logic, [(0.0, True), (1.5, False), (1.51, True)], until=2.1)
    assert kinds(events) == [Kind.LONG_PRESS]


def test_long_press_without_ticks_is_reported_on_release() -> None:
    logic = ButtonLogic(CH1)
    events = logic.edge(True, 0.0) + logic.edge(False, 2.5) + logic.tick(2.6)
    assert kinds(events) == [Kind.LONG_PRESS]


def test_stuck_reported_once_then_ignored_until_released() -> None:
    logic = ButtonLogic(DONE2)
    events = feed(logic, [(0.0, True)], until=30.0)
    assert kinds(events) == [Kind.LONG_PRESS, Kind.STUCK]
    assert logic.is_stuck
    assert feed(logic, [(31.0, False), (31.01, True)], until=40.0) == []  # chatter: ignored
    events = feed(logic, [(41.0, False)], until=41.1)
    assert events == [ButtonEvent(2, Role.DONE, Kind.RELEASED_AFTER_STUCK, 41.0)]
    assert not logic.is_stuck
    assert feed(logic, [(42.0, True), (42.1, False)], until=42.5) == [
        ButtonEvent(2, Role.DONE, Kind.PRESS, 42.0)
    ]


def test_stuck_time_is_configurable() -> None:
    logic = ButtonLogic(DONE2, Timing(debounce_ms=10, long_ms=500, stuck_ms=1000))
    logic.edge(True, 0.0)
    assert kinds(logic.tick(0.999)) == [Kind.LONG_PRESS]
    assert kinds(logic.tick(1.0)) == [Kind.STUCK]


def test_button_held_at_start_gives_no_press_but_is_reported_stuck() -> None:
    logic = ButtonLogic(MENU, pressed=True, now=5.0)
    assert logic.is_pressed
    assert kinds(logic.tick(14.0)) == []  # no long press for a hold begun before we looked
    assert kinds(logic.tick(15.0)) == [Kind.STUCK]  # a jammed contact is still reported
    assert kinds(logic.edge(False, 16.0) + logic.tick(16.1)) == [Kind.RELEASED_AFTER_STUCK]
    assert kinds(logic.edge(True, 17.0) + logic.edge(False, 17.2) + logic.tick(17.3)) == [Kind.PRESS]


def test_released_soon_after_start_is_no_press() -> None:
    logic = ButtonLogic(MENU, pressed=True, now=0.0)
    assert kinds(logic.edge(False, 0.5) + logic.tick(0.6)) == []


def test_a_hold_of_exactly_long_ms_is_long_whatever_the_rounding() -> None:
    for start in (0.1, 0.3, 0.7, 1.1):
        logic = ButtonLogic(MENU)
        events = logic.edge(True, start) + logic.tick(start + 0.05) + logic.edge(False, start + 2.0)
        events += logic.tick(start + 2.1)
        assert kinds(events) == [Kind.LONG_PRESS], start


def test_a_failing_event_handler_does_not_stop_the_buttons() -> None:
    seen: list[str] = []

    def handler(event: ButtonEvent) -> None:
        seen.append(str(event))
        raise RuntimeError("consumer bug")

    clock = ManualClock()
    with Buttons(pin_map([17, 22], [27, 23], 26), handler, pin_factory=MockFactory(), clock=clock) as buttons:
        buttons._devices[ButtonId(1, Role.DONE)].pin.drive_low()  # type: ignore[attr-defined]
        clock.advance(2.5)
        buttons.tick()
        buttons._devices[ButtonId(2, Role.DONE)].pin.drive_low()  # type: ignore[attr-defined]
        clock.advance(2.5)
        buttons.tick()
    assert seen == ["seat 1 Done long press", "seat 2 Done long press"]


def test_stuck_button_blocks_nothing_else() -> None:
    bank = ButtonBank([DONE2, CH1, CH3, MENU])
    bank.edge(DONE2, True, 0.0)
    events = bank.tick(10.0)
    assert [str(e) for e in events] == ["seat 2 Done long press", "seat 2 Done stuck"]
    events = bank.edge(CH1, True, 11.0) + bank.edge(CH1, False, 11.2) + bank.tick(11.3)
    events += bank.edge(MENU, True, 12.0) + bank.tick(14.5)
    assert [str(e) for e in events] == ["seat 1 Challenge press", "Menu long press"]
    assert [str(e) for e in bank.tick(60.0)] == ["Menu stuck"]  # seat 2 Done stays quiet


def test_two_challenges_at_nearly_the_same_time_keep_their_order() -> None:
    """Seat 3 presses 5 ms before seat 1 but releases later: ``at`` orders them."""
    bank = ButtonBank([CH1, CH3])
    events = bank.edge(CH3, True, 1.000) + bank.edge(CH1, True, 1.005)
    events += bank.edge(CH1, False, 1.100) + bank.tick(1.200)  # seat 1 reported first
    events += bank.edge(CH3, False, 1.300) + bank.tick(1.400)
    assert events == [
        ButtonEvent(1, Role.CHALLENGE, Kind.PRESS, 1.005),
        ButtonEvent(3, Role.CHALLENGE, Kind.PRESS, 1.000),
    ]
    assert [e.seat for e in sorted(events, key=lambda e: e.at)] == [3, 1]


def test_events_due_in_one_tick_are_sorted_by_time() -> None:
    bank = ButtonBank([CH3, CH1])  # seat 3's logic is asked first
    bank.edge(CH1, True, 1.001)
    bank.edge(CH3, True, 1.002)
    bank.edge(CH1, False, 1.1)
    bank.edge(CH3, False, 1.1)
    assert [(e.seat, e.at) for e in bank.tick(1.2)] == [(1, 1.001), (3, 1.002)]


def test_unknown_button_in_bank() -> None:
    with pytest.raises(UnknownButtonError, match="seat 3 Done"):
        ButtonBank([CH1]).edge(ButtonId(3, Role.DONE), True, 0.0)


# --- pin maps ---------------------------------------------------------------------------


def test_default_pin_map() -> None:
    pins = pin_map()
    assert len(pins) == 9 and len(set(pins.values())) == 9
    assert pins[ButtonId(1, Role.DONE)] == 17 and pins[MENU] == 26
    assert not set(pins.values()) & {0, 1, 2, 3, 14, 15}
    assert len(pin_map(seats=2)) == 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"done": (17, 22), "challenge": (27,)}, "2 Done pins"),
        ({"seats": 1}, "1 seats"),
        ({"seats": 5}, "5 seats"),
        ({"menu": 17}, "GPIO17 is given to both seat 1 Done and Menu"),
        ({"menu": 28}, "Menu: pin 28 is not a BCM GPIO number"),
        ({"menu": 2}, "GPIO2 is reserved"),
        ({"done": (17, 14, 5, 13)}, "seat 2 Done: GPIO14 is reserved"),
    ],
)
def test_bad_pin_maps(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PinMapError, match=message) as info:
        pin_map(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ButtonError) and isinstance(info.value, ValueError)


def test_reserved_pins_when_allowed() -> None:
    assert pin_map(menu=14, allow_reserved=True)[MENU] == 14


# --- through gpiozero's MockFactory ------------------------------------------------------


def test_mock_bounce_gives_one_press() -> None:
    with MockButtons() as panel:
        panel.bounce(2, Role.DONE, edges=20, over_ms=30)
        panel.advance(200)
        panel.bounce(2, Role.DONE, edges=20, over_ms=30, pressed=False)
        panel.advance(100)
        assert panel.take() == [ButtonEvent(2, Role.DONE, Kind.PRESS, 0.0)]


def test_mock_long_press() -> None:
    with MockButtons() as panel:
        panel.press(1, Role.CHALLENGE)
        panel.advance(1990)
        assert panel.take() == []
        panel.advance(10)
        assert [str(e) for e in panel.take()] == ["seat 1 Challenge long press"]
        panel.release(1, Role.CHALLENGE)
        panel.advance(100)
        assert panel.take() == []


def test_mock_stuck_button_reported_once_and_others_work() -> None:
    with MockButtons() as panel:
        panel.press(2, Role.DONE)
        for _ in range(30):
            panel.advance(1000)
        assert [str(e) for e in panel.take()] == ["seat 2 Done long press", "seat 2 Done stuck"]
        assert panel.buttons.is_stuck(DONE2)
        panel.press(3, Role.CHALLENGE)
        panel.advance(100)
        panel.release(3, Role.CHALLENGE)
        panel.advance(100)
        assert [str(e) for e in panel.take()] == ["seat 3 Challenge press"]
        panel.release(2, Role.DONE)
        panel.advance(100)
        assert [str(e) for e in panel.take()] == ["seat 2 Done released after stuck"]
        assert not panel.buttons.is_pressed(DONE2)


def test_mock_two_challenges_carry_their_times() -> None:
    with MockButtons(clock=ManualClock(100.0)) as panel:
        panel.press(3, Role.CHALLENGE)
        panel.clock.advance(0.004)
        panel.press(1, Role.CHALLENGE)
        panel.advance(100)
        panel.release(1, Role.CHALLENGE)
        panel.release(3, Role.CHALLENGE)
        panel.advance(100)
        events = panel.take()
        assert sorted((e.at, e.seat) for e in events) == [(100.0, 3), (pytest.approx(100.004), 1)]


def test_mock_pins_are_pulled_up_and_active_low() -> None:
    """The shell asks gpiozero for a pull-up: the pin idles high, pressing drives it low."""
    with MockButtons() as panel:
        pin = panel.pin(1, Role.DONE)
        assert pin.state == 1 and pin.pull == "up"
        panel.press(1, Role.DONE)
        panel.advance(50)
        assert panel.buttons.is_pressed(ButtonId(1, Role.DONE)) and pin.state == 0


def test_buttons_with_a_factory_and_on_event() -> None:
    factory = MockFactory()
    clock = ManualClock()
    seen: list[ButtonEvent] = []
    pins = pin_map(seats=2)
    with Buttons(pins, seen.append, pin_factory=factory, clock=clock) as buttons:
        factory.pin(DEFAULT_DONE[1]).drive_low()
        clock.advance(0.1)
        factory.pin(DEFAULT_DONE[1]).drive_high()
        clock.advance(0.1)
        buttons.tick()
        assert seen == [ButtonEvent(2, Role.DONE, Kind.PRESS, 0.0)]
    assert buttons.pins == pins


def test_close_frees_the_pins() -> None:
    factory = MockFactory()
    Buttons(pin_map(), lambda e: None, pin_factory=factory).close()
    with Buttons(pin_map(), lambda e: None, pin_factory=factory):  # same pins again
        pass


def test_pin_in_use_is_a_typed_error() -> None:
    factory = MockFactory()
    with Buttons(pin_map(), lambda e: None, pin_factory=factory):
        with pytest.raises(PinFactoryError, match="GPIO17"):
            Buttons(pin_map(), lambda e: None, pin_factory=factory)


def test_pin_factory_by_name_and_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with Buttons(pin_map(), lambda e: None, pin_factory="mock") as buttons:
        assert isinstance(buttons.pin_factory, MockFactory)
    with pytest.raises(PinFactoryError, match="no GPIO pin factory named 'nonesuch'"):
        Buttons(pin_map(), lambda e: None, pin_factory="nonesuch")
    from gpiozero import Device  # type: ignore[import-untyped]

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    with Buttons(pin_map(), lambda e: None) as buttons:
        assert isinstance(buttons.pin_factory, MockFactory)
        assert Device.pin_factory is buttons.pin_factory
    Device.pin_factory.close()


def test_timer_thread_starts_and_stops() -> None:
    clock = ManualClock()
    seen: list[ButtonEvent] = []
    buttons = Buttons(pin_map(), seen.append, pin_factory=MockFactory(), clock=clock)
    buttons.start()
    buttons.close()
    buttons.close()  # twice is fine
    assert seen == []


def test_next_due_follows_the_edges() -> None:
    logic = ButtonLogic(DONE2, Timing(30, 2000, 10000))
    assert logic.next_due() is None  # at rest: nothing until an edge
    logic.edge(True, 1.0)
    assert logic.next_due() == pytest.approx(1.030)  # the level settles
    assert logic.tick(1.030) == [] and logic.is_pressed
    assert logic.next_due() == pytest.approx(3.0, abs=1e-5)  # the long press, from the press's edge
    assert [e.kind for e in logic.tick(3.0)] == [Kind.LONG_PRESS]
    assert logic.next_due() == pytest.approx(11.0, abs=1e-5)  # stuck
    assert [e.kind for e in logic.tick(11.0)] == [Kind.STUCK]
    assert logic.next_due() is None  # stuck: nothing more until released
    logic.edge(False, 12.0)
    assert logic.next_due() == pytest.approx(12.030)
    assert [e.kind for e in logic.tick(12.030)] == [Kind.RELEASED_AFTER_STUCK]
    assert logic.next_due() is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 700), st.booleans()), max_size=12))
def test_ticking_at_the_deadlines_gives_what_polling_gives(gaps: list[tuple[int, bool]]) -> None:
    """A logic ticked only at its next_due() (before each edge and after the last) emits the
    same events as one ticked every millisecond: nothing is due between the deadlines."""
    timing = Timing(30, 500, 1500)
    polled, driven = ButtonLogic(DONE2, timing), ButtonLogic(DONE2, timing)
    got_polled: list[ButtonEvent] = []
    got_driven: list[ButtonEvent] = []
    ms = 0
    edges = []
    for gap, pressed in gaps:
        ms += gap
        edges.append((ms, pressed))
    end = ms + 1600
    it = iter(edges)
    nxt = next(it, None)
    for t in range(0, end + 1):
        while nxt is not None and nxt[0] == t:
            got_polled += polled.edge(nxt[1], t / 1000)
            nxt = next(it, None)
        got_polled += polled.tick(t / 1000)
    for t, pressed in [*edges, (end, None)]:
        while (due := driven.next_due()) is not None and due <= t / 1000:
            got_driven += driven.tick(due)
        if pressed is not None:
            got_driven += driven.edge(pressed, t / 1000)
    got_driven += driven.tick(end / 1000)
    assert got_driven == got_polled


def test_the_timer_thread_gives_long_presses_without_ticks() -> None:
    """Real time, mock pins: the long press and stuck come from the timer thread at their
    deadlines; between touches the thread has no deadline (it sleeps until an edge)."""
    import queue
    import time

    events: queue.Queue[ButtonEvent] = queue.Queue()
    with Buttons(pin_map(), events.put, timing=Timing(5, 60, 150), pin_factory=MockFactory()) as buttons:
        buttons.start()
        assert buttons.next_due() is None
        pin = buttons.pin_factory.pin(buttons.pins[DONE2])
        pin.drive_low()
        assert buttons.next_due() is not None
        long = events.get(timeout=5)
        stuck = events.get(timeout=5)
        assert (long.kind, stuck.kind) == (Kind.LONG_PRESS, Kind.STUCK) and long.button == DONE2
        assert buttons.next_due() is None
        pin.drive_high()
        assert events.get(timeout=5).kind is Kind.RELEASED_AFTER_STUCK
        pin.drive_low()
        time.sleep(0.02)
        pin.drive_high()
        assert events.get(timeout=5).kind is Kind.PRESS
        assert buttons.next_due() is None or buttons.next_due() <= time.monotonic() + 0.01


# --- configuration -----------------------------------------------------------------------


def test_config_defaults_match_the_driver() -> None:
    b = Config().buttons
    assert (b.done, b.challenge, b.menu) == (DEFAULT_DONE, DEFAULT_CHALLENGE, DEFAULT_MENU)
    pins, timing = from_settings(b)
    assert pins == pin_map() and timing == Timing(30, 2000, 10000)
    assert len(from_settings(b, seats=3)[0]) == 7


def test_config_buttons_keys() -> None:
    config = load_config(
        overrides=[
            "buttons.done=[4, 5]",
            "buttons.challenge=[6, 12]",
            "buttons.menu=16",
            "buttons.long_ms=1500",
            "buttons.stuck_ms=8000",
            "buttons.debounce_ms=20",
        ]
    )
    assert config.buttons == ButtonsConfig((4, 5), (6, 12), 16, False, 20, 1500, 8000)
    pins, timing = from_settings(config.buttons)
    assert pins[ButtonId(2, Role.CHALLENGE)] == 12 and timing.long_ms == 1500


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("buttons.done=[17]", "buttons.done: .* has 1 pins"),
        ("buttons.done=[17, 22, 5, 13, 4]", "has 5 pins"),
        ("buttons.done=[17, 17]", "gives a pin twice"),
        ("buttons.done=[17, 28]", r"pin 2 \(28\) is not allowed"),
        ("buttons.menu=-1", "buttons.menu: -1 is not allowed"),
        ("buttons.menu=true", "buttons.menu: true is a boolean"),
        ("buttons.menu=17", "buttons.menu: GPIO17 is already used by buttons.done"),
        ("buttons.challenge=[27, 22, 6, 19]", "buttons.challenge: GPIO22 is already used"),
        ("buttons.menu=3", "buttons.menu: GPIO3 is reserved"),
        ("buttons.done=[17, 15, 5, 13]", "buttons.done: GPIO15 is reserved"),
        ("buttons.challenge=[27, 23]", "buttons.challenge: 2 pins for 4 Done pins"),
        ("buttons.long_ms=20", "buttons.long_ms: 20 is not allowed; use a whole number, 200 to 30000"),
        ("buttons.debounce_ms=500;buttons.long_ms=400", "buttons.long_ms: 400 is not more than buttons.debounce_ms"),
        ("buttons.stuck_ms=2000", "buttons.stuck_ms: 2000 is not more than buttons.long_ms"),
        ("buttons.allow_reserved=1", "buttons.allow_reserved: 1 is a whole number"),
    ],
)
def test_config_buttons_errors(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        load_config(overrides=override.split(";"))
    assert str(info.value).startswith("--set: ")


def test_config_reserved_pins_when_allowed() -> None:
    config = load_config(overrides=["buttons.menu=14", "buttons.allow_reserved=true"])
    assert config.buttons.menu == 14
    assert from_settings(config.buttons)[0][MENU] == 14


def test_config_error_names_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "config.toml"
    path.write_text("[buttons]\nmenu = 2\n")
    with pytest.raises(ConfigError, match=r"config.toml: buttons.menu: GPIO2 is reserved"):
        load_config(path)


def test_a_pin_factory_made_from_its_name_is_closed_with_the_buttons() -> None:
    with Buttons(pin_map([17, 22], [27, 23], 26), lambda e: None, pin_factory="mock") as buttons:
        factory = buttons.pin_factory
        assert factory.pins  # the mock factory made pins for the buttons
    assert not factory.pins  # MockFactory.close releases every pin it made
