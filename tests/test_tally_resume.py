"""A power cut at the tally: the restart shows it again, corrections after the end still
work, and a game the players left for a new one is not come back to."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from luma.core.device import dummy
from tablehelpers import Rig, rig
from test_service_review import Clock

from drivers.display.oled import Display
from scoreboard.controller import FirstDraw, Lobby, Over, Playing
from scoreboard.journal import Journal
from scoreboard.journal_format import MOMENT_KIND
from scoreboard.screens.models import MenuItem, TallyScreen
from scoreboard.service import Service


@pytest.fixture
def state() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="tally-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Killed(BaseException):
    """The power cut, where a test puts it."""


def on_service(r: Rig, state: Path, clock: Clock) -> Service:
    """A service started on ``state`` that takes the rig's inputs; the rig follows its state."""
    clock.now = r.now = max(r.now, clock.now) + 30  # (a restart takes a while)
    service = Service(r.table, Journal.open(state), [Display(dummy(width=128, height=64, mode="1"))],
                      clock=clock)
    service.start(r.profile.name, len(r.names))
    assert service.state is not None
    r.state = service.state

    def feed(event: object) -> None:
        clock.now = getattr(event, "at", clock.now)
        service.handle(event)  # type: ignore[arg-type]
        assert service.state is not None
        r.state = service.state

    r.feed = feed  # type: ignore[method-assign]
    return service


def cut(service: Service) -> None:
    """The power goes: nothing more is written (the journal's file stays as it is)."""
    service.journal.close()


def power_goes_at_the_next_result(service: Service) -> None:
    """The next result the journal is to write (a tally, an abandoned game) is cut off."""

    def killed(*args: object, **kw: object) -> None:
        raise Killed

    service.journal.finish = killed  # type: ignore[method-assign]


def menu_choose(r: Rig, item: MenuItem, seat: int) -> None:
    for _ in range(list(MenuItem).index(item) + 1):
        r.menu()
    r.done(seat)


def one_play(state: Path, clock: Clock) -> tuple[Rig, Service]:
    """A service on ``state`` with Anna's HAUS played."""
    r = rig("de", 2, words=("HAUS",))
    service = on_service(r, state, clock)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    return r, service


def played_to_the_end(state: Path, clock: Clock) -> tuple[Rig, Service]:
    r, service = one_play(state, clock)
    menu_choose(r, MenuItem.END_GAME, 2)
    r.done(1, long=True)
    assert isinstance(r.state.phase, Over)
    return r, service


def adjust_anna(r: Rig, points: int) -> None:
    """Ben takes ``points`` (< 10) off Anna's score after the end; Anna confirms."""
    menu_choose(r, MenuItem.ADJUST_SCORE, 2)
    for _ in range(points):
        r.challenge(2)
    r.menu(long=True)  # done: Anna is asked
    r.done(1, long=True)


def finals(service: Service, game: int) -> list[int]:
    result = service.journal.game(game).result
    assert result is not None and "rows" in result, result
    return [row["final"] for row in result["rows"]]


def test_a_restart_at_the_tally_shows_it_again_and_it_can_still_be_corrected(state: Path) -> None:
    clock = Clock(0.0)
    r, service = played_to_the_end(state, clock)
    game = service.game_id
    assert game is not None
    before = finals(service, game)
    cut(service)

    again = on_service(r, state, clock)
    assert again.game_id == game
    assert isinstance(r.state.phase, Over)
    assert isinstance(r.screen, TallyScreen), r.screen  # at once: a tally holds no time to pause
    adjust_anna(r, 3)
    assert finals(again, game) == [before[0] - 3, before[1]]
    again.close()


def test_a_correction_journaled_just_before_the_cut_is_in_the_result_after_the_restart(state: Path) -> None:
    clock = Clock(0.0)
    r, service = played_to_the_end(state, clock)
    game = service.game_id
    assert game is not None
    before = finals(service, game)

    power_goes_at_the_next_result(service)
    with pytest.raises(Killed):
        adjust_anna(r, 4)  # the correction is journaled, the power goes before the result is
    assert finals(service, game) == before
    cut(service)

    again = on_service(r, state, clock)
    assert again.game_id == game and isinstance(r.state.phase, Over)
    assert finals(again, game) == [before[0] - 4, before[1]]
    again.close()


def test_a_restart_after_a_new_game_was_chosen_does_not_go_back_to_the_tally(state: Path) -> None:
    clock = Clock(0.0)
    r, service = played_to_the_end(state, clock)
    game = service.game_id
    assert game is not None
    result = service.journal.game(game).result
    menu_choose(r, MenuItem.NEW_GAME, 1)  # the tiles are still on the board: clear them first
    assert isinstance(r.state.phase, Lobby)
    last = [e for e in service.journal.entries(game) if e.kind == MOMENT_KIND][-1]
    assert last.payload.get("left") is True
    cut(service)

    again = on_service(r, state, clock)
    assert isinstance(r.state.phase, (Lobby, FirstDraw)), r.state.phase
    assert again.game_id is None
    assert again.journal.game(game).result == result  # the tally is kept as it was
    again.close()


def test_a_game_left_for_a_new_one_just_before_the_cut_is_abandoned_at_the_restart(state: Path) -> None:
    clock = Clock(0.0)
    r, service = one_play(state, clock)
    assert isinstance(r.state.phase, Playing)
    game = service.game_id
    assert game is not None

    power_goes_at_the_next_result(service)
    menu_choose(r, MenuItem.NEW_GAME, 1)
    with pytest.raises(Killed):
        r.done(2, long=True)  # Ben confirms: the game is left (journaled), the cut comes before it is marked abandoned
    cut(service)

    again = on_service(r, state, clock)
    assert isinstance(r.state.phase, (Lobby, FirstDraw)), r.state.phase
    info = again.journal.game(game)
    assert info.finished is not None and info.result is not None and "abandoned" in info.result
    again.close()
