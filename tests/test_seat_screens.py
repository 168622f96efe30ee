"""Screens per seat: a seat's own business on its own panel, the shared screen on the others."""

from __future__ import annotations

from pathlib import Path

from luma.core.device import dummy
from tablehelpers import Rig, rig

from drivers.display.oled import Display
from scoreboard.controller import Show
from scoreboard.journal import Journal
from scoreboard.screens import render
from scoreboard.screens.models import (
    ConfirmKind,
    ConfirmScreen,
    ErrorKind,
    ErrorScreen,
    LastPlayScreen,
    MenuScreen,
    ScoresScreen,
    UnseenScreen,
)
from scoreboard.service import Service


def started(players: int = 3) -> Rig:
    r = rig("de", players, words=("HAUS",))
    r.draw_first("AEO"[:players])
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG"})
    return r


def shows(r: Rig, since: int) -> list[Show]:
    return [e for e in r.effects[since:] if isinstance(e, Show)]


def test_the_player_to_move_sees_your_turn_the_others_the_scores() -> None:
    r = started()
    anna, ben, cleo = (r.panel(seat) for seat in range(3))
    assert isinstance(anna, ScoresScreen) and anna.yours
    assert isinstance(ben, ScoresScreen) and not ben.yours and ben == cleo
    table = r.screen
    assert isinstance(table, ScoresScreen) and not table.yours  # the shared display: no "your turn"
    assert anna.players == ben.players == table.players


def test_the_tiles_a_seat_has_not_seen_show_on_its_own_panel_only() -> None:
    r = started()
    mark = len(r.effects)
    r.challenge(3, long=True)  # Cleo: no window, no ruling: her unseen tiles
    assert isinstance(r.panel(2), UnseenScreen)
    assert isinstance(r.panel(0), ScoresScreen) and isinstance(r.panel(1), ScoresScreen)
    assert isinstance(r.screen, UnseenScreen)  # a table with one display shows it to all
    seat_shows = [s for s in shows(r, mark) if s.seats is not None]
    assert [s.seats for s in seat_shows] == [frozenset({2})]  # the other panels are not re-sent


def test_a_pass_question_and_a_not_your_turn_are_the_seats_own() -> None:
    r = started()
    r.done(1)  # Anna, nothing laid: "Pass?" on her panel
    assert r.panel(0) == ConfirmScreen(ConfirmKind.PASS, 0, "Anna")
    assert isinstance(r.panel(1), ScoresScreen) and isinstance(r.panel(2), ScoresScreen)
    r.done(2)  # Ben is not to move: told on his panel, Anna's question stays on hers
    assert r.panel(1) == ErrorScreen(ErrorKind.NOT_YOUR_TURN, "Anna")
    assert r.panel(0) == ConfirmScreen(ConfirmKind.PASS, 0, "Anna")
    assert isinstance(r.panel(2), ScoresScreen)


def test_shared_screens_show_on_every_panel() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert all(isinstance(r.panel(seat), LastPlayScreen) for seat in range(3))
    r.menu()
    assert all(isinstance(r.panel(seat), MenuScreen) for seat in range(3))


def service_panels(tmp_path: Path, players: int) -> tuple[Rig, Service, list[Display]]:
    """A rig whose presses go through a real Service with one dummy panel per seat."""
    r = rig("de", players, words=("HAUS",))
    panels = [Display(dummy(width=128, height=64, mode="1")) for _ in range(players)]
    service = Service(r.table, Journal.open(tmp_path), panels, clock=lambda: r.now, seat_panels=True)
    service.start("de", players)

    def feed(event: object) -> None:
        service.handle(event)  # type: ignore[arg-type]
        assert service.state is not None
        r.state = service.state

    r.feed = feed  # type: ignore[method-assign]
    return r, service, panels


def test_a_service_with_a_panel_per_seat_puts_each_seats_frame_on_its_display(tmp_path: Path) -> None:
    r, service, panels = service_panels(tmp_path, 2)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.challenge(2, long=True)  # Ben's unseen tiles
    assert service.state is not None
    for seat, panel in enumerate(panels):
        screen = service.state.shown.seats[seat]
        assert screen is not None and panel.image is not None
        assert panel.image.tobytes() == render(screen, "de").convert("1").tobytes()
    assert isinstance(service.state.shown.seats[1], UnseenScreen)
    assert isinstance(service.state.shown.seats[0], ScoresScreen) and service.state.shown.seats[0].yours
    service.close()


def test_panels_of_seats_without_a_player_show_the_shared_screen_and_follow_a_new_player_count(tmp_path: Path) -> None:
    r, service, panels = service_panels(tmp_path, 4)
    r.draw_first("AEIO")
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG", 3: "ZUFRIEK"})
    r.menu(); r.menu(); r.done(1)  # Players: 4 -> 2 for the next game
    for _ in range(7):
        r.menu()  # on to New game
    r.done(1)
    r.done(2, long=True)  # confirmed: a two-player draw begins
    assert service.state is not None and service.state.seats == 2
    for seat in (2, 3):  # no player there now: the shared screen, not the last question
        assert service.state.shown.seats[seat] == service.state.shown.seats[1]
        image, shared = panels[seat].image, service.state.shown.seats[1]
        assert image is not None and shared is not None
        assert image.tobytes() == render(shared, "de").convert("1").tobytes()
    service.close()
