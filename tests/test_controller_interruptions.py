"""The menu and corrections interrupt a move and give it back; a finished game shows its tally.

One mode at a time: the menu, a correction waiting for a second seat and a score being
adjusted each remember what they interrupted (a pass question, a blank's letter, a Done
waiting for its read) and return to it when they end.
"""

from __future__ import annotations

from tablehelpers import Rig, rig

from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.events import Pass
from scoreboard.controller import Append, BoardAway, Committed, Confirming, Menu, Reading
from scoreboard.screens.models import (
    BlankPickerScreen,
    ConfirmKind,
    ConfirmScreen,
    ErrorKind,
    ErrorScreen,
    MenuItem,
    ReadingScreen,
    TallyScreen,
)

WORDS = ("HAUS", "HAUSE", "AB", "TEE", "HEUS")


def started(racks: tuple[str, str] = ("HAUSTEN", "ABENDRO")) -> Rig:
    r = rig("de", 2, words=WORDS)
    r.draw_first("AE")
    r.deal({0: racks[0], 1: racks[1]})
    return r


def menu_to(r: Rig, item: MenuItem) -> None:
    for _ in range(list(MenuItem).index(item) + 1):
        r.menu()


def test_a_pass_question_is_there_again_after_a_look_at_the_menu() -> None:
    r = started()
    r.done(1)  # nothing laid: "Pass? hold Done"
    question = r.screen
    assert isinstance(question, ConfirmScreen) and question.kind is ConfirmKind.PASS
    r.menu()
    assert isinstance(r.state.mode, Menu) and isinstance(r.state.mode.under, Confirming)
    r.challenge(2)  # the menu is closed again
    assert r.screen == question
    r.done(1, long=True)
    assert r.game.log[-1] == Pass(0)


def test_a_blank_question_is_there_again_after_the_menu() -> None:
    r = started(("H?USTEN", "ABENDRO"))
    r.lay(0, "H8:H H9:? H10:U H11:S")
    r.done(1)  # HAUS or HEUS: Anna names the blank
    picker = r.screen
    assert isinstance(picker, BlankPickerScreen)
    r.menu()
    r.menu()  # the menu's second item ...
    r.challenge(1)  # ... and closed
    assert r.screen == picker


def test_a_done_waiting_for_its_read_is_judged_when_the_read_comes_after_the_menu() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.press(1, Role.DONE, read=False)
    assert isinstance(r.screen, ReadingScreen)
    r.press(None, Role.MENU, read=False)  # the menu opens before the board settled
    assert isinstance(r.state.mode, Menu) and isinstance(r.state.mode.under, Reading)
    r.press(2, Role.CHALLENGE, read=False)  # and closes
    assert isinstance(r.screen, ReadingScreen)
    r.read()
    assert r.game.scores()[0] > 0  # HAUS was judged and counted


def test_an_adjusted_score_goes_back_to_the_pass_question() -> None:
    r = started()
    r.done(1)  # "Pass?" for Anna
    menu_to(r, MenuItem.ADJUST_SCORE)
    r.done(2)  # Ben adjusts
    r.done(2)  # +1 for Anna
    r.menu(long=True)  # asks for a second seat
    r.done(1, long=True)  # Anna confirms
    assert r.game.scores() == [1, 0]
    assert isinstance(r.screen, ConfirmScreen) and r.screen.kind is ConfirmKind.PASS


def test_a_game_ended_while_drawn_tiles_must_go_back_shows_its_tally() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.draw(0, "EIN")
    menu_to(r, MenuItem.UNDO)
    r.done(2)
    r.done(1, long=True)  # the undo: E I N must go back into the bag
    menu_to(r, MenuItem.END_GAME)
    r.done(1)
    r.done(2, long=True)  # the game ends before they are back
    assert isinstance(r.screen, TallyScreen)
    r.to_bag(0, "EIN")
    r.take_back(0, "H8 H9 H10 H11")
    assert isinstance(r.screen, TallyScreen)


def test_a_finished_game_restored_shows_its_tally() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:T")  # HAUT is no word
    r.done(1)
    before = set(r.racks[0].values())
    r.draw(0, "EIN")
    drawn = set(r.racks[0].values()) - before
    r.challenge(2)  # withdrawn: E I N back into the bag
    r.tick(1)
    for slot, uid in list(r.racks[0].items()):
        if uid in drawn:
            del r.racks[0][slot]
            r.bag.append(uid)
    r.read()
    r.take_back(0, "H8 H9 H10 H11")
    menu_to(r, MenuItem.END_GAME)
    r.done(1)
    r.done(2, long=True)
    assert isinstance(r.screen, TallyScreen)
    records = [rec for e in r.effects if isinstance(e, Append) for rec in e.records]
    r.state, _ = r.table.restore(records, r.now + 5)  # power cut before the result was written
    r.press(1, Role.DONE)
    r.read()
    assert isinstance(r.screen, TallyScreen)


def test_a_refused_undo_says_why() -> None:
    r = started()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.draw(0, "EINE")
    r.done(2, long=True)  # Ben passes: HAUS can no longer be undone
    menu_to(r, MenuItem.UNDO)
    r.done(1)
    r.done(2, long=True)
    assert r.screen == ErrorScreen(ErrorKind.MOVED_SINCE)
    assert r.game.scores() == [10, 0]


# --- a press just before the cable is pulled ------------------------------------------------


def _laid_rig() -> Rig:
    r = rig("de", 2, words=("HAUS",))
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    return r


def _plays(r: Rig) -> list[object]:
    from engine.events import Play

    return [rec.command for rec in r.journal if isinstance(rec, Committed) and isinstance(rec.command, Play)]


def test_a_done_waiting_for_its_read_when_the_cable_is_pulled_is_judged_when_the_board_is_back() -> None:
    r = _laid_rig()
    r.press(1, Role.DONE, read=False)  # released; the read that would judge it never comes
    r.unplug()
    r.tick(5.0)
    assert not _plays(r)
    r.replug()  # the board is back: its first settled read judges the Done
    assert len(_plays(r)) == 1


def test_a_press_released_before_the_link_went_down_but_handled_after_still_counts() -> None:
    r = _laid_rig()
    released = r.now + 0.05
    r.now += 0.1
    r.feed(BoardAway("cable pulled", r.now))  # the link's news came first...
    r.feed(ButtonEvent(1, Role.DONE, Kind.PRESS, released))  # ...the press, released before, after it
    r.tick(3.0)
    r.replug()
    assert len(_plays(r)) == 1


def test_a_press_while_the_board_is_away_is_not_taken() -> None:
    r = _laid_rig()
    r.unplug()
    r.press(1, Role.DONE, read=False)
    r.replug()
    assert not _plays(r)
