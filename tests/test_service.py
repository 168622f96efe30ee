"""The service core: journal before display, resume after a crash, a full disk, link events."""

from __future__ import annotations

from pathlib import Path

import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig

from drivers.board.link import BoardConnected
from drivers.board.protocol import Hello
from drivers.board.serial_link import BoardDisconnected
from drivers.buttons.logic import ButtonEvent, Kind, Role
from drivers.display.oled import Display
from engine.events import Play
from scoreboard.controller import BoardRead, Committed, Tick
from scoreboard.journal import Journal, JournalWriteError, WriteFailure
from scoreboard.journal_format import COMMAND_KIND
from scoreboard.journal_format import decode_meta
from scoreboard.screens.models import ErrorKind, ErrorScreen, PausedScreen
from scoreboard.scripted import SCRIPT_KIND, ScriptedJournal
from scoreboard.service import Service


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def service_for(r: Rig, state: Path, clock: Clock) -> Service:
    display = Display(dummy(width=128, height=64, mode="1"))
    return Service(r.table, Journal.open(state), [display], clock=clock)


def mirror_into(r: Rig, service: Service, clock: Clock) -> None:
    """Every input the rig feeds its own table also goes to ``service`` (same controller)."""
    original = r.feed

    def feed(event: object) -> None:
        clock.now = getattr(event, "at", clock.now)
        service.handle(event)  # type: ignore[arg-type]
        original(event)

    r.feed = feed  # type: ignore[method-assign]


def dealt(tmp_path: Path) -> tuple[Rig, Service, Clock]:
    """A German table of two through the service, the first player drawn and the racks dealt."""
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    mirror_into(r, service, clock)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r, service, clock


def test_records_are_journaled_before_the_screen_and_a_restart_resumes(tmp_path: Path) -> None:
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    mirror_into(r, service, clock)  # the rig drives its own table and the service alike
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert service.state is not None and service.state.game == r.state.game
    journal = service.journal
    info = journal.unfinished()
    assert info is not None and decode_meta(info.meta).players == ("Anna", "Ben")
    kinds = [e.kind for e in journal.entries(info.id)]
    assert kinds.count(COMMAND_KIND) == sum(isinstance(rec, Committed) for rec in r.journal)
    service.close()

    # a restart: the same game, paused until a button is pressed
    clock.now += 100
    again = Service(r.table, Journal.open(tmp_path), [Display(dummy(width=128, height=64, mode="1"))],
                    clock=clock)
    again.start("de", 2)
    assert again.game_id == info.id and again.state is not None
    assert again.state.game is not None and again.state.game.log == r.game.log
    assert isinstance(again.state.shown.table, PausedScreen)
    game = again.state.game
    assert game is not None and game.scores() == [10, 0] and game.window_open
    again.handle(ButtonEvent(2, Role.CHALLENGE, Kind.PRESS, clock.now))  # resumes only
    again.handle(ButtonEvent(2, Role.CHALLENGE, Kind.PRESS, clock.now + 0.5))
    again.handle(Tick(clock.now + 1.0))  # the ruling waits a moment for an earlier press
    assert again.state.game is not None and again.state.game.scores() == [10, -5]
    again.close()


def test_a_full_disk_refuses_the_step_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r, service, clock = dealt(tmp_path)
    r.lay(0, "H8:H H9:A H10:U H11:S")
    before = service.state
    assert before is not None

    def full(*args: object, **kw: object) -> None:
        raise JournalWriteError(f"could not save the game record: disk full ({tmp_path})", WriteFailure.DISK_FULL)

    monkeypatch.setattr(service.journal, "append_many", full)
    r.done(1)  # the rig's own table takes the play; the service must not
    assert service.state is not None
    assert service.state.game is not None and not any(isinstance(c, Play) for c in service.state.game.log)
    assert service.state.shown.table == ErrorScreen(ErrorKind.JOURNAL_FAILED, "disk full")
    monkeypatch.undo()
    # space again: the next Done goes through
    clock.now += 5
    service.handle(Tick(clock.now))
    service.handle(ButtonEvent(1, Role.DONE, Kind.PRESS, clock.now))
    service.handle(BoardRead(r.snapshot(), True, clock.now + 0.4))
    assert any(isinstance(c, Play) for c in service.state.game.log)
    service.close()


def test_link_events_become_away_and_back(tmp_path: Path) -> None:
    clock = Clock()
    r = rig("de", 2)
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    service.board_event(BoardDisconnected("cable pulled", 1.0))
    assert service.state is not None and service.state.shown.table == ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    hello = Hello(protocol=(1, 0), firmware=(1, 0, 0), rows=15, cols=15, racks=2, slots=7, readers=4, board_id=b"\x01")
    service.board_event(BoardConnected(hello, 2.0))
    assert not service.state.away
    service.close()


def test_script_lines_are_journaled_with_the_records(tmp_path: Path) -> None:
    """The scripted path wraps the journal; the service knows nothing of scripts."""
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    journal = ScriptedJournal(Journal.open(tmp_path))
    service = Service(r.table, journal, [Display(dummy(width=128, height=64, mode="1"))], clock=clock)
    service.start("de", 2)
    mirror_into(r, service, clock)
    journal.line, journal.until = 7, 12.5
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    info = service.journal.unfinished()
    assert info is not None
    entries = service.journal.entries(info.id)
    script = [e for e in entries if e.kind == SCRIPT_KIND]
    assert script and all(e.payload == {"line": 7, "until": 12.5} for e in script)
    assert [e.kind for e in entries[:2]] == ["moment", SCRIPT_KIND]  # the start is marked too, in its transaction
    service.close()


def test_the_log_names_unknown_tiles_and_tiles_read_twice_once_each_time_they_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from drivers.board.link import SnapshotReceived
    from drivers.board.protocol import FrameType, Loc
    from drivers.board.snapshot import BoardSnapshot

    clock = Clock()
    r = rig("de", 2)
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    stranger = bytes.fromhex("04DEADBEEF0001")
    known = next(iter(r.registry.tiles))
    board = BoardSnapshot({Loc.cell("H8"): stranger, Loc.cell("I8"): known, Loc.cell("J8"): known})
    with caplog.at_level("WARNING"):
        for k in range(4):  # the same board several times: said once
            clock.now = 1.0 + k * 0.4
            service.board_event(SnapshotReceived(board, FrameType.SNAPSHOT, clock.now))
    said = [m for m in caplog.messages if m.startswith("board: ")]
    assert said == [f"board: tile {known.hex().upper()} read at I8 and J8", "board: unknown tile at H8"]
    service.close()


def test_a_moment_alone_that_a_full_disk_refuses_does_not_undo_its_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the menu changes no game record, only the table's moment: a full disk does not
    keep the menu shut; the moment is journaled with the next records that can be written."""
    from scoreboard.controller import Menu
    from scoreboard.controller.moments import moment_of
    from scoreboard.journal import JournalWriteError, WriteFailure
    from scoreboard.journal_format import MOMENT_KIND, decode_entry

    r, service, clock = dealt(tmp_path)
    assert service.game_id is not None
    written = service.journal.append_many

    def full(game: int, items: object) -> list[int]:
        raise JournalWriteError("disk full", WriteFailure.DISK_FULL)

    monkeypatch.setattr(service.journal, "append_many", full)
    r.menu()
    assert service.state is not None and isinstance(service.state.mode, Menu)
    monkeypatch.setattr(service.journal, "append_many", written)
    r.menu()  # the next item: journaled now
    last = [e for e in service.journal.entries(service.game_id) if e.kind == MOMENT_KIND][-1]
    assert decode_entry(last.kind, last.payload, r.tile_set) == moment_of(service.state)
    service.close()


def test_the_display_follows_the_profile_chosen_at_the_table(tmp_path: Path) -> None:
    """ui.language and game.players "auto": the screens and the default names are in the
    language of the game's profile, also of one chosen from the menu for the next game; an
    explicit language or names still win."""
    from scoreboard.controller import Context, Settings, Table
    from scoreboard.screens import render
    from scoreboard.screens.models import DrawForFirstScreen, MenuItem
    from engine.rules import get_profile

    def table(language: str | None, names: tuple[str, ...] = ()) -> tuple[Service, Clock]:
        ctx = Context(get_profile, lambda _: None, lambda _: None, names, Settings(language=language))  # type: ignore[arg-type,return-value]
        clock = Clock()
        display = Display(dummy(width=128, height=64, mode="1"))
        service = Service(Table(ctx), Journal.open(tmp_path / (language or "auto") / str(len(names))), [display], clock=clock)
        service.start("de", 2, paused=False)
        return service, clock

    def to_french(service: Service, clock: Clock) -> None:
        """Menu -> Profile (de -> fr), then New game."""
        def press(role: Role, seat: int | None = None) -> None:
            clock.now += 0.5
            service.handle(ButtonEvent(seat, role, Kind.PRESS, clock.now))

        for item in (MenuItem.PROFILE, MenuItem.NEW_GAME):
            press(Role.MENU)
            for _ in range(list(MenuItem).index(item)):
                press(Role.MENU)
            press(Role.DONE, 0)
            if item is MenuItem.PROFILE:
                press(Role.CHALLENGE, 0)  # the menu stays on a setting until closed

    service, clock = table(None)
    assert service.state is not None and service.state.names == ("Spieler 1", "Spieler 2")
    to_french(service, clock)
    state = service.state
    assert state is not None and state.profile_name == "fr"
    assert state.names == ("Joueur 1", "Joueur 2")
    shown = state.shown.table
    assert isinstance(shown, DrawForFirstScreen)
    assert service.displays[0].image is not None
    assert service.displays[0].image.tobytes() == render(shown, "fr").tobytes() != render(shown, "de").tobytes()
    fixed, clock = table("de", ("Anna",))
    to_french(fixed, clock)
    assert fixed.state is not None and fixed.state.names == ("Anna", "Spieler 2")
    assert fixed.displays[0].image is not None
    assert fixed.displays[0].image.tobytes() == render(fixed.state.shown.table, "de").tobytes()  # type: ignore[arg-type]
