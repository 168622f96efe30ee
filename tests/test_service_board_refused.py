"""A board the host refuses, through the service: the display says why, a usable board brings
the game back; a board of another geometry mid-game stops judging until the game's is back."""

from __future__ import annotations

from pathlib import Path

from tablehelpers import Rig, rig
from test_service import Clock, mirror_into, service_for

from drivers.board.link import BoardConnected, LinkLost, SnapshotReceived, UnsupportedBoard, VersionMismatch
from drivers.board.protocol import FrameType, Hello
from drivers.board.snapshot import BoardSnapshot
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.events import Play
from scoreboard.controller import TableState
from scoreboard.screens.models import ErrorKind, ErrorScreen
from scoreboard.service import Service

BOARD_ID = bytes.fromhex("E66118604B2D3A2F")
HELLO = Hello((1, 0, 0), (1, 0), 15, 15, 2, 7, 32, BOARD_ID)
WIDER = Hello((1, 0, 0), (1, 0), 15, 15, 4, 9, 32, BOARD_ID)


def dealt(tmp_path: Path) -> tuple[Rig, Service, Clock]:
    """A German table of two, the racks dealt, driven through ``board_event`` only from here."""
    clock = Clock()
    r = rig("de", 2, words=("HAUS",))
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    service.board_event(BoardConnected(HELLO, 0.0))
    original = r.feed
    mirror_into(r, service, clock)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.feed = original  # type: ignore[method-assign]
    clock.now = r.now
    return r, service, clock


def reads(service: Service, clock: Clock, board: BoardSnapshot, seconds: float = 1.0) -> None:
    """The link's reports of ``board`` every 0.1 s for ``seconds``."""
    for _ in range(round(seconds / 0.1)):
        clock.now += 0.1
        service.board_event(SnapshotReceived(board, FrameType.SNAPSHOT, clock.now))


def done(service: Service, clock: Clock, board: BoardSnapshot) -> None:
    clock.now += 0.1
    service.handle(ButtonEvent(1, Role.DONE, Kind.PRESS, clock.now))
    reads(service, clock, board, 1.5)


def state(service: Service) -> TableState:
    assert service.state is not None
    return service.state


def plays(service: Service) -> int:
    game = state(service).game
    return 0 if game is None else sum(isinstance(c, Play) for c in game.log)


def test_a_refused_hello_is_shown_with_its_reason_and_a_usable_board_brings_the_game_back(tmp_path: Path) -> None:
    r, service, clock = dealt(tmp_path)
    game = state(service).game
    service.board_event(VersionMismatch((2, 0), (2, 1, 0), clock.now))
    assert state(service).away
    assert state(service).shown.table == ErrorScreen(
        ErrorKind.BOARD_REFUSED, "Brett: Protokoll 2.0, Anzeige 1.x: eines aktualisieren"  # the game's language
    )
    assert state(service).game == game
    service.board_event(BoardConnected(HELLO, clock.now + 3.0))
    assert not state(service).away and state(service).game == game
    service.close()


def test_a_refusal_after_a_lost_link_says_why(tmp_path: Path) -> None:
    r, service, clock = dealt(tmp_path)
    service.board_event(LinkLost(1.5, clock.now))
    assert state(service).shown.table == ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    bad = Hello((1, 0, 0), (1, 0), 13, 13, 2, 7, 32, BOARD_ID)
    service.board_event(UnsupportedBoard(bad, "it has 13 x 13 cells, not 15 x 15", clock.now + 0.5))
    assert state(service).shown.table == ErrorScreen(ErrorKind.BOARD_REFUSED, "13 x 13 Felder statt 15 x 15")
    service.board_event(LinkLost(1.5, clock.now + 9.0))  # then the cable: disconnected again
    assert state(service).shown.table == ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    service.board_event(BoardConnected(HELLO, clock.now + 10.0))
    assert not state(service).away
    service.close()


def test_a_board_of_another_geometry_mid_game_is_not_judged_until_the_games_is_back(tmp_path: Path) -> None:
    r, service, clock = dealt(tmp_path)
    game = state(service).game
    before = service.stabiliser.stable
    service.board_event(BoardConnected(WIDER, clock.now))
    assert state(service).away and state(service).game == game
    assert state(service).shown.table == ErrorScreen(ErrorKind.BOARD_REFUSED, "4 Bänkchen mit 9 Plätzen statt 2 mit 7")
    # The wider board's readings never reach the game, and Done is not judged.
    r.lay(0, "H8:H H9:A H10:U H11:S", read=False)
    laid = r.snapshot()
    reads(service, clock, laid)
    assert service.stabiliser.stable == before
    done(service, clock, laid)
    assert plays(service) == 0 and state(service).game == game
    # The game's board is back: its reads count, and Done scores HAUS.
    service.board_event(BoardConnected(HELLO, clock.now))
    assert not state(service).away
    reads(service, clock, laid)
    done(service, clock, laid)
    assert plays(service) == 1
    service.close()


def test_out_of_play_a_board_of_another_geometry_is_taken(tmp_path: Path) -> None:
    clock = Clock()
    r = rig("de", 2)
    service = service_for(r, tmp_path, clock)
    service.start("de", 2)
    service.board_event(BoardConnected(HELLO, 0.0))
    service.board_event(BoardConnected(WIDER, 1.0))  # no game in play: nothing to protect
    assert not state(service).away
    service.close()
