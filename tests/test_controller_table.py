"""The turn controller's rules at the table: mistakes, corrections, clocks, the board away."""

from __future__ import annotations

import copy

import pytest

from tablehelpers import Rig, rig

from drivers.board.protocol import Loc
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import Square
from engine.events import (
    AdjustScore,
    CloseWindow,
    OverrideRuling,
    Pass,
    PenalizeTime,
    Play,
)
from engine.game import Termination
from scoreboard.controller import (
    Append,
    Asking,
    Idle,
    Playing,
    HouseWord,
    BoardRead,
    ClockState,
    Committed,
    Settings,
    Tick,
)
from scoreboard.controller.state import Halt
from scoreboard.screens.models import (
    AdjustScreen,
    BlankPickerScreen,
    ChallengeResultScreen,
    ChallengeWindowScreen,
    ConfirmKind,
    ConfirmScreen,
    ErrorKind,
    ErrorScreen,
    LastPlayScreen,
    MenuItem,
    MenuScreen,
    PausedScreen,
    ReadingScreen,
    ScoresScreen,
    TallyScreen,
    UnseenScreen,
)


def commands(r: Rig) -> list[object]:
    return [rec.command for rec in r.journal if isinstance(rec, Committed)]


def started(profile: str = "de", words: tuple[str, ...] = ("HAUS", "BOHNE"), **kw: object) -> Rig:
    """Anna (seat 1) begins with HAUSTEN, Ben holds ABENDRO."""
    r = rig(profile, 2, words=words, **kw)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r


def with_haus(profile: str = "de", **kw: object) -> Rig:
    r = started(profile, **kw)
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    return r


def test_a_short_done_with_nothing_laid_asks_and_never_passes() -> None:
    r = started()
    r.done(1)
    assert r.screen == ConfirmScreen(ConfirmKind.PASS, 0, "Anna")
    r.done(1)
    r.tick(30)
    assert not any(isinstance(c, Pass) for c in commands(r))
    r.challenge(1)  # the player's own Challenge takes the question back
    assert isinstance(r.screen, ScoresScreen) and isinstance(r.state.mode, Idle)
    r.done(1)
    r.done(1, long=True)
    assert commands(r)[-1] == Pass(0) and r.game.turn == 1


def test_two_challenges_at_once_the_first_counts() -> None:
    r = rig("de", 3, words=("HAUS",))
    r.draw_first("AEO")
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    r.challenge(3)
    rulings = [c for c in commands(r) if type(c).__name__ == "Challenge"]
    assert len(rulings) == 1 and rulings[0].challenger == 1  # type: ignore[attr-defined]
    assert r.screen == ChallengeResultScreen("Ben", "Anna", True, (), -5, False)
    assert r.game.scores() == [10, -5, 0]


def test_a_challenge_after_the_deadline_is_too_late() -> None:
    r = with_haus()
    r.tick(4.7)
    assert r.screen == ChallengeWindowScreen(16, 20, "Anna")
    r.tick(16)
    assert commands(r)[-1] == CloseWindow() and not r.game.window_open
    r.challenge(2)
    assert r.screen == ErrorScreen(ErrorKind.TOO_LATE)
    assert r.game.scores() == [10, 0]


def test_presses_during_a_pause_only_resume_and_the_window_waits() -> None:
    r = with_haus()
    r.tick(5)
    left = r.phase.window.deadline - r.now  # type: ignore[union-attr]
    r.menu(long=True)
    assert isinstance(r.screen, PausedScreen)
    r.tick(100)
    assert r.game.window_open
    r.challenge(2)  # resumes, challenges nothing
    assert not any(type(c).__name__ == "Challenge" for c in commands(r))
    assert not r.state.paused
    # only the moments around the two presses counted (0.05 s before, 0.45 s after)
    assert abs((r.phase.window.deadline - r.now) - (left - 0.5)) < 0.01  # type: ignore[union-attr]
    r.challenge(2)
    assert isinstance(r.screen, ChallengeResultScreen)


def test_the_board_away_pauses_window_and_clocks_and_keeps_the_game() -> None:
    r = with_haus("en-tournament", clock=25)
    used_before = r.phase.clocks.game.used  # type: ignore[union-attr]
    r.unplug()
    assert r.screen == ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    r.tick(300)
    r.done(2)  # nothing can be judged while the board is away
    assert r.screen == ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    assert r.game.window_open and r.phase.clocks.game.running is None  # type: ignore[union-attr]
    r.replug()
    assert r.game.window_open and r.phase.clocks.game.running == 1  # type: ignore[union-attr]
    clock = r.phase.clocks
    assert clock is not None and clock.game.used[1] - used_before[1] < 1.0  # the 300 s did not count
    assert r.phase.window is not None and r.phase.window.deadline - r.now > 19  # the 300 s did not count
    assert isinstance(r.screen, LastPlayScreen)  # the play's words, shown on (their time stood still too)
    r.challenge(2)
    assert isinstance(r.screen, ChallengeResultScreen)


def test_refill_warns_or_blocks() -> None:
    r = with_haus(settings=Settings(refill="warn"))
    r.lay(1, "F8:B G8:O I8:N J8:E")
    r.done(2)  # Anna has not drawn: a warning, and the play counts
    assert isinstance(commands(r)[-1], Play)
    assert any(s == ErrorScreen(ErrorKind.REFILL_RACK, "Anna: 4") for s in r.screens)


def test_blank_by_inference_and_by_the_picker() -> None:
    r = rig("de", 2, words=("HAUS", "HAUT", "BOHNE"))
    r.draw_first("AE")
    r.deal({0: "HAU?TEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:?")  # HAUS or HAUT: the player picks
    r.done(1)
    assert r.screen == BlankPickerScreen("H11", ("S", "T"), 0)
    r.done(1)  # next letter
    assert r.screen == BlankPickerScreen("H11", ("S", "T"), 1)
    r.done(1, long=True)  # this one
    play = commands(r)[-1]
    assert isinstance(play, Play) and play.placement.tiles[-1].tile.letter == "T"
    r.draw(0, "S")
    # a blank that only one letter fits is named by itself
    r2 = rig("de", 2, words=("HAUS", "BOHNE"))
    r2.draw_first("AE")
    r2.deal({0: "HA?STEN", 1: "ABENDRO"})
    r2.lay(0, "H8:H H9:A H10:? H11:S")
    r2.done(1)
    play = commands(r2)[-1]
    assert isinstance(play, Play) and [t.tile.letter for t in play.placement.tiles] == list("HAUS")
    assert r2.screen is not None and type(r2.screen).__name__ == "LastPlayScreen"
    assert r2.screen.words[0].text == "HAuS"  # type: ignore[union-attr]


def test_old_tiles_moved_foreign_and_unknown_tiles_are_errors_not_moves() -> None:
    r = with_haus()
    r.tick(21)
    r.draw(0, "IRDE")
    # an old tile slid off its square
    uid = r.cells.pop(Square.from_name("H11"))
    r.cells[Square.from_name("H12")] = uid
    r.read()
    r.done(2)
    assert r.screen == ErrorScreen(ErrorKind.TILE_MOVED, "H11")
    r.cells[Square.from_name("H11")] = r.cells.pop(Square.from_name("H12"))
    # a tile from Anna's rack at Ben's turn
    r.lay(0, "I8:I")
    r.done(2)
    assert r.screen == ErrorScreen(ErrorKind.NOT_YOUR_TILE, "I8")
    r.take_back(0, "I8")
    # a tag the registry does not know
    r.cells[Square.from_name("I8")] = b"\x04\x99\x99\x99\x99\x99\x99"
    r.read()
    r.done(2)
    assert r.screen == ErrorScreen(ErrorKind.UNKNOWN_TILE, "I8")
    del r.cells[Square.from_name("I8")]
    r.read()
    # a play off the line
    r.lay(1, "I9:B J10:O")
    r.done(2)
    assert r.screen == ErrorScreen(ErrorKind.NOT_IN_LINE, "I9 J10")
    assert r.game.turn == 1
    assert sum(isinstance(c, Play) for c in commands(r)) == 1


def test_a_tile_read_in_two_places_is_reported_on_done() -> None:
    r = started()
    r.lay(0, "H8:H H9:A")
    uid = r.cells[Square.from_name("H9")]
    r.press(1, Role.DONE, read=False)
    r.now += 0.3
    r.feed(BoardRead(r.snapshot(), True, r.now, ((uid, (Loc.cell("H9"), Loc.cell("H10"))),)))
    assert r.screen == ErrorScreen(ErrorKind.DUPLICATE_TILE, "H9 H10")
    assert not any(isinstance(c, Play) for c in commands(r))
    r.done(1)  # the duplicate is gone: the play counts
    assert isinstance(commands(r)[-1], Play)


def test_done_waits_for_a_settled_read_and_times_out() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.now += 0.1
    r.feed(BoardRead(r.snapshot(), False, r.now))  # the board is still changing
    r.press(1, Role.DONE, read=False)
    assert r.screen == ReadingScreen("Anna")
    r.tick(1)
    r.feed(BoardRead(r.snapshot(), True, r.now + 0.1))  # settled: judged now
    assert isinstance(commands(r)[-1], Play)
    r.tick(25)
    r.draw(1, "", read=False)
    r.feed(BoardRead(r.snapshot(), False, r.now))
    r.press(2, Role.DONE, read=False)
    r.tick(3.5)
    assert r.screen == ErrorScreen(ErrorKind.READ_TIMEOUT)


def test_override_needs_a_second_seat_and_teaches_the_house_list() -> None:
    r = started(words=("BOHNE",))  # HAUS is missing from this lexicon
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    assert r.screen == ChallengeResultScreen("Ben", "Anna", False, ("HAUS",), 0, False)
    r.challenge(1, long=True)  # Anna asks to override
    assert r.screen == ConfirmScreen(ConfirmKind.OVERRIDE, player="Anna", by="Anna")
    r.done(1, long=True)  # the same seat cannot confirm
    assert isinstance(r.state.mode, Asking)
    r.done(2, long=True)  # Ben agrees: HAUS stands
    assert commands(r)[-1] == OverrideRuling(())
    assert r.game.scores() == [10, -5]
    assert [(h.word, h.accept) for h in r.house()] == [("HAUS", True)]
    assert r.state.tiles.to_remove == frozenset()
    # the same word is now valid at this table
    r.draw(0, "IRDE")
    r.lay(1, "H12:E")  # HAUSE: not in the lexicon
    r.done(2)
    r.challenge(1)
    assert isinstance(r.screen, ChallengeResultScreen) and r.screen.invalid_words == ("HAUSE",)


def test_no_overrides_in_en_tournament() -> None:
    r = started("en-tournament", words=("BOHNE",))
    r.lay(0, "H8:H H9:A H10:T H11:E")
    r.done(1)
    r.challenge(2)
    r.challenge(1, long=True)
    assert not isinstance(r.state.mode, Asking) and r.house() == []
    assert isinstance(r.screen, UnseenScreen)


def test_adjust_a_score_with_a_second_seat() -> None:
    r = with_haus()
    r.menu()
    for _ in range(list(MenuItem).index(MenuItem.ADJUST_SCORE)):
        r.menu()
    assert r.screen == MenuScreen(tuple(MenuItem), list(MenuItem).index(MenuItem.ADJUST_SCORE))
    r.done(2)
    r.menu()  # next player: Ben
    r.done(2, long=True)
    r.done(2)
    r.challenge(2)
    r.challenge(2)
    assert r.screen == AdjustScreen("Ben", 9, 0)
    r.menu(long=True)
    assert r.screen == ConfirmScreen(ConfirmKind.ADJUST, player="Ben", points=9, by="Ben")
    r.challenge(1, long=True)
    assert commands(r)[-1] == AdjustScore(1, 9) and r.game.scores() == [10, 9]


def test_going_out_window_closes_when_every_other_seat_agrees() -> None:
    r = rig("de", 3, words=("HAUS",))
    r.draw_first("AEO")
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG"})
    game = r.game
    # empty the bag into Ben's and Cleo's hands (not on racks: they hold them)
    r.bag.clear()
    game.bag._tiles.clear()  # type: ignore[attr-defined]
    r.lay(0, "H8:H H9:A H10:U H11:S H12:T H13:E H14:N")
    r.done(1)
    assert r.phase.window is not None and r.phase.window.going_out
    r.done(2)
    assert r.game.window_open
    r.done(3)
    assert r.game.termination is Termination.WENT_OUT and isinstance(r.screen, TallyScreen)


def test_overtime_costs_points_at_the_end() -> None:
    r = started("en-tournament", words=("HAUS",), clock=1)
    r.tick(150)  # Anna thinks 2.5 minutes: 90 s over, two started minutes
    menu_end = list(MenuItem).index(MenuItem.END_GAME)
    r.menu()
    for _ in range(menu_end):
        r.menu()
    r.done(1)
    r.done(2, long=True)
    penalties = [c for c in commands(r) if isinstance(c, PenalizeTime)]
    assert penalties == [PenalizeTime(0, 20)]
    assert any(isinstance(rec, ClockState) for rec in r.journal)


def test_move_limit_pass() -> None:
    r = started(move_limit=30, move_limit_action="pass")
    r.tick(31)
    assert commands(r)[-1] == Pass(0) and r.screen == ErrorScreen(ErrorKind.MOVE_TIME_UP, "Anna")


def test_restore_from_the_journal_resumes_paused() -> None:
    r = with_haus()
    r.draw(0, "IRDE")
    fresh = rig("de", 2, words=("HAUS",))
    state, effects = fresh.table.restore(r.journal, now=1000.0)
    assert not any(isinstance(e, Append) for e in effects)  # nothing journaled twice
    game = state.game
    assert game is not None and game.scores() == r.game.scores() and game.window_open
    assert state.halt == Halt(1000.0, paused=True) and isinstance(state.shown.table, PausedScreen)
    assert state.tiles.board == r.state.tiles.board and state.tiles.racks == r.state.tiles.racks
    fresh.state = state
    fresh.now = 1000.0
    fresh.racks, fresh.cells, fresh.bag = r.racks, r.cells, r.bag
    fresh.challenge(2)  # resumes
    fresh.challenge(2)
    assert isinstance(fresh.screen, ChallengeResultScreen)


def test_step_never_changes_the_state_it_is_given() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    before = r.state
    snapshot = copy.deepcopy(before)
    event = ButtonEvent(1, Role.DONE, Kind.PRESS, r.now)
    after, effects = r.table.step(before, event)
    assert before == snapshot
    again, effects_again = r.table.step(before, event)  # the same step twice: the same result
    assert again == after and effects_again == effects
    assert after.game is not None and isinstance(after.game.log[-1], Play)
    assert before.game is not None and before.game.board.is_empty()


def test_exchange_refused_with_few_tiles_in_the_bag() -> None:
    r = started()
    r.with_bag(5)  # a late game
    r.to_bag(0, "HA", read=False)
    r.draw(0, "LL")
    r.done(1)
    assert r.screen == ErrorScreen(ErrorKind.EXCHANGE_NOT_ALLOWED, "5")
    assert isinstance(r.state.mode, Idle) and r.game.turn == 0


def test_tick_updates_the_countdown() -> None:
    r = with_haus()
    r.tick(4.5)
    r.feed(Tick(r.now + 1))
    assert isinstance(r.screen, ChallengeWindowScreen)


def test_an_overridden_withdrawal_asks_for_the_tiles_back_on_the_board() -> None:
    r = started(words=("BOHNE",))  # HAUS is missing from this lexicon
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    r.tick(6)
    r.take_back(0, "H8 H9 H10 H11")  # Anna takes the play back, as the ruling said
    r.challenge(1, long=True)
    r.done(2, long=True)  # Ben agrees that HAUS stands
    assert r.game.scores() == [10, -5]
    r.tick(6)
    assert r.screen == ErrorScreen(ErrorKind.TILE_MOVED, "H8 H9 H10 H11")
    r.lay(1, "I8:B")
    r.done(2)  # refused until the board is right
    assert not any(isinstance(c, Play) and c.player == 1 for c in commands(r))
    r.take_back(1, "I8")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    assert isinstance(r.screen, ScoresScreen)  # the board is right again
    r.draw(0, "IRDE")
    r.lay(1, "F8:B G8:O I8:N J8:E")
    r.done(2)
    assert isinstance(commands(r)[-1], Play)


def test_after_a_restart_the_board_is_compared_with_the_restored_one() -> None:
    r = with_haus()
    r.tick(21)
    r.draw(0, "IRDE")
    fresh = rig("de", 2, words=("HAUS",))
    fresh.state, _ = fresh.table.restore(r.journal, now=r.now, paused=False)
    fresh.now = r.now
    fresh.racks, fresh.cells, fresh.bag = r.racks, r.cells, r.bag
    # while the service was down: a committed tile was knocked off, and a stray tile of
    # Anna's (not the player at turn) landed on the board
    fresh.cells.pop(Square.from_name("H11"))
    fresh.lay(0, "I8:I")
    assert fresh.state.tiles.to_place == {Square.from_name("H11")}
    assert fresh.state.tiles.to_remove == {Square.from_name("I8")}
    assert fresh.screen == ErrorScreen(ErrorKind.REMOVE_TILES, "I8")
    fresh.take_back(0, "I8")
    assert fresh.screen == ErrorScreen(ErrorKind.TILE_MOVED, "H11")
    uid = next(u for u in r.state.tiles.board.values() if u not in fresh.cells.values())
    fresh.cells[Square.from_name("H11")] = uid
    fresh.read()
    assert isinstance(fresh.screen, ScoresScreen)
    fresh.lay(1, "F8:B G8:O I8:N J8:E")  # Ben's move in progress is his own: no error
    assert fresh.state.tiles.to_remove == frozenset()


def test_shut_down_from_the_menu_pauses_and_asks_to_power_off() -> None:
    r = with_haus()
    r.menu()
    for _ in range(list(MenuItem).index(MenuItem.SHUT_DOWN)):
        r.menu()
    assert not r.powered_off()
    r.done(2)
    assert r.powered_off() and r.state.paused


def test_a_running_clock_is_journaled_now_and_then_and_restored() -> None:
    r = started("en-tournament", words=("HAUS",), clock=25)
    r.tick(40)  # Anna thinks; her clock runs
    states = [rec for rec in r.journal if isinstance(rec, ClockState)]
    assert states and states[-1].used[0] >= 30  # saved while running, not only at the turn's end
    fresh = rig("en-tournament", 2, words=("HAUS",), clock=25)
    state, _ = fresh.table.restore(r.journal, now=r.now)
    assert isinstance(state.phase, Playing) and state.phase.clocks is not None
    assert state.phase.clocks.game.used[0] == states[-1].used[0]


def test_the_clock_stops_at_the_done_press_not_at_the_board_read_that_judges_it() -> None:
    """Done is the player's clock button: the sweep or two the board takes to read the play
    is not the player's time (nor does a restart that reads the board at another moment
    change whose time it was)."""
    r = started("en-tournament", words=("HAUS",), clock=25)
    clocks = r.phase.clocks
    assert clocks is not None and clocks.game.running == 0
    since, used = clocks.game.since, clocks.game.used[0]
    r.lay(0, "H8:H H9:A H10:U H11:S", read=False)
    r.press(1, Role.DONE, read=False)
    pressed = r.now - 0.15  # (the rig's press: down 0.05 s after now, up 0.15 s later)
    r.read(0.4, settled=False)  # the board is still settling ...
    r.read(0.9)  # ... and reads the play 1.3 s after the press
    assert [type(c) for c in commands(r)][-1] is Play
    clocks = r.phase.clocks
    assert clocks is not None and clocks.game.running == 1
    assert clocks.game.used[0] == pytest.approx(used + pressed - since)
    assert clocks.game.since == pytest.approx(pressed)  # Ben's time runs from the press
    assert [rec for rec in r.journal if isinstance(rec, ClockState)][-1].used[0] == pytest.approx(used + pressed - since)


def test_a_pass_confirmed_by_a_held_done_stops_the_clock_when_the_press_began() -> None:
    r = started("en-tournament", words=("HAUS",), clock=25)
    clocks = r.phase.clocks
    assert clocks is not None
    since, used = clocks.game.since, clocks.game.used[0]
    r.done(1)  # nothing laid: a pass? (asked)
    r.done(1, long=True)
    held_from = r.now - 0.3 - 2.0  # (the rig's long press: down 0.05 s after now, up 2 s later; a read after)
    assert isinstance(commands(r)[-1], Pass)
    clocks = r.phase.clocks
    assert clocks is not None and clocks.game.running == 1
    assert clocks.game.used[0] == pytest.approx(used + held_from - since)


def test_a_refused_done_leaves_the_players_clock_running() -> None:
    r = started("en-tournament", words=("HAUS",), clock=25)
    r.lay(0, "H8:H H10:U")  # a gap between the tiles: refused
    r.done(1)
    assert not [c for c in commands(r) if isinstance(c, Play)]
    clocks = r.phase.clocks
    assert clocks is not None and clocks.game.running == 0 and r.game.turn == 0
    r.tick(5)
    assert r.phase.clocks is not None and r.phase.clocks.game.used_by(0, r.now) >= 5


def test_a_restore_teaches_the_house_list_an_overridden_ruling_again() -> None:
    r = started(words=("BOHNE",))  # HAUS is missing from this lexicon
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    r.challenge(1, long=True)
    r.done(2, long=True)  # HAUS stands, and goes on the accept list
    fresh = rig("de", 2, words=("BOHNE",))
    state, effects = fresh.table.restore(r.journal, now=r.now)
    assert state.accepted == {"HAUS"}
    assert [(e.word, e.accept) for e in effects if isinstance(e, HouseWord)] == [("HAUS", True)]
