"""What the turn controller announces: speech effects derived from each step, still pure.

A table plays through the rig (tests/tablehelpers.py) with ``Settings.announce`` set; the
controller's :class:`Announce` effects say the plays, rulings, turns, time and tally.
"""

from __future__ import annotations

from tablehelpers import Rig, rig

from engine.events import PlayMade

from drivers.buttons.logic import Role
from drivers.board.protocol import Loc
from engine.board import Square
from scoreboard.controller import Announce, BoardRead, ReaderState, Settings
from scoreboard.screens.models import ChallengeResultScreen, ErrorKind, ErrorScreen, MenuItem
from scoreboard.voice.models import (
    ExchangeSpeech,
    PassSpeech,
    PlaySpeech,
    RulingSpeech,
    Speech,
    SpeechKind,
    TallySpeech,
    TimeSpeech,
    TurnSpeech,
)

ALL = Settings(announce=frozenset(SpeechKind))


def said(r: Rig) -> list[Speech]:
    """Everything announced so far, and forget it."""
    speeches = [e.speech for e in r.effects if isinstance(e, Announce)]
    r.effects.clear()
    return speeches


def dealt(
    settings: Settings = ALL, words: tuple[str, ...] = ("HAUS", "BOHNE"), anna: str = "HAUSTEN", **kw: object
) -> Rig:
    """A German table of two, Anna to play first with ``anna`` on her rack, Ben with ABENDRO."""
    r = rig("de", 2, words=words, settings=settings, **kw)
    r.draw_first("AE")
    r.deal({0: anna, 1: "ABENDRO"})
    return r


def open_menu_at(r: Rig, item: MenuItem, seat: int) -> None:
    r.menu()
    for _ in range(list(MenuItem).index(item)):
        r.menu()
    r.done(seat)


def test_a_german_game_is_announced_as_it_goes() -> None:
    r = dealt()
    assert said(r) == [TurnSpeech("Anna")]  # the game began
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert said(r) == [PlaySpeech("Anna", "HAUS", 10, "de"), TurnSpeech("Ben")]
    r.challenge(2)
    r.tick(1.0)
    assert said(r) == [RulingSpeech("Ben", "Anna", True, ("HAUS",), "de", -5)]
    r.draw(0, "RIEN")
    r.lay(1, "F8:B G8:O I8:N J8:E")
    r.done(2)
    assert said(r) == [PlaySpeech("Ben", "BOHNE", 9, "de"), TurnSpeech("Anna")]
    r.draw(1, "BOHN")
    # Anna: TEN, a phony (as BOHNEE), challenged and withdrawn
    r.lay(0, "K7:T K8:E K9:N")
    r.done(1)
    assert said(r) == [PlaySpeech("Anna", "TEN", 13, "de"), TurnSpeech("Ben")]
    r.challenge(2)
    r.tick(1.0)
    assert isinstance(r.screen, ChallengeResultScreen) and set(r.screen.invalid_words) == {"TEN", "BOHNEE"}
    assert said(r) == [RulingSpeech("Ben", "Anna", False, r.screen.invalid_words, "de")]
    r.take_back(0, "K7 K8 K9")
    # Ben passes, Anna exchanges
    r.done(2)
    r.done(2, long=True)
    assert said(r) == [PassSpeech("Ben"), TurnSpeech("Anna")]
    r.to_bag(0, "TEN", read=False)
    r.draw(0, "XYZ")
    r.done(1, long=True)
    assert said(r) == [ExchangeSpeech("Anna", 3), TurnSpeech("Ben")]
    open_menu_at(r, MenuItem.END_GAME, 2)
    r.challenge(1, long=True)
    tally = r.game.tally()
    rows = sorted(((row.name, row.final) for row in tally.rows), key=lambda row: -row[1])
    assert said(r) == [TallySpeech(tuple(rows), tuple(tally.rows[i].name for i in tally.winners))]


def test_nothing_is_announced_unless_asked_and_only_the_kinds_asked() -> None:
    quiet = dealt(settings=Settings())
    quiet.lay(0, "H8:H H9:A H10:U H11:S")
    quiet.done(1)
    assert said(quiet) == []
    plays = dealt(settings=Settings(announce=frozenset({SpeechKind.PLAY})))
    plays.lay(0, "H8:H H9:A H10:U H11:S")
    plays.done(1)
    plays.challenge(2)
    plays.tick(1.0)
    assert said(plays) == [PlaySpeech("Anna", "HAUS", 10, "de")]


def test_a_blank_is_lower_case_in_the_word() -> None:
    r = dealt(words=("HAUS",), anna="HAU?TEN")
    said(r)
    r.lay(0, "H8:H H9:A H10:U H11:?")  # only S fits: the lexicon names the blank
    r.done(1)
    assert said(r)[0] == PlaySpeech("Anna", "HAUs", r.game.score(0), "de")


def test_announcing_keeps_the_step_pure() -> None:
    r = dealt()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.press(1, Role.DONE, read=False)
    before = r.state
    read = BoardRead(r.snapshot(), True, r.now + 0.3)
    first, second = r.table.step(before, read), r.table.step(before, read)
    assert first == second and r.state is before
    assert [e.speech for e in first[1] if isinstance(e, Announce)] == [
        PlaySpeech("Anna", "HAUS", 10, "de"), TurnSpeech("Ben")
    ]


def test_an_overridden_ruling_and_an_undo() -> None:
    r = dealt()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    r.tick(1.0)
    said(r)
    r.challenge(2, long=True)  # Ben asks to override the ruling; Anna confirms
    r.done(1, long=True)
    assert isinstance(r.screen, ChallengeResultScreen) and not r.screen.valid
    assert said(r) == [RulingSpeech("Ben", "Anna", False, ("HAUS",), "de", overridden=True)]
    r.take_back(0, "H8 H9 H10 H11")
    r.lay(1, "H8:B H9:O H10:N H11:E")
    r.done(2)
    play = [e for e in r.game.events if isinstance(e, PlayMade)][-1]
    assert said(r) == [PlaySpeech("Ben", "BONE", play.points, "de"), TurnSpeech("Anna")]
    open_menu_at(r, MenuItem.UNDO, 1)
    r.done(2, long=True)
    assert said(r) == [TurnSpeech("Ben")]  # taken back: Ben's turn again, nothing laid is said


def test_a_ruling_covered_by_a_board_error_in_the_same_step_is_still_announced() -> None:
    r = dealt()
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    said(r)
    r.press(2, Role.CHALLENGE, read=False)  # the ruling waits a moment for an earlier press...
    r.feed(ReaderState(3, False, (Loc.cell(Square.from_name("A1")),), r.now + 0.05))  # ...a reader fault rules it
    assert r.state.notice is not None and r.state.notice.screen == ErrorScreen(ErrorKind.READER_FAULT, "A1")
    assert said(r) == [RulingSpeech("Ben", "Anna", True, ("HAUS",), "de", -5)]


def test_the_game_clock_and_the_move_limit_are_announced_once_each() -> None:
    r = dealt(clock=5, move_limit=60)
    said(r)
    r.tick(29.0)
    assert said(r) == []
    r.tick(2.0)
    assert said(r) == [TimeSpeech("Anna", 30, move=True)]
    r.tick(30.0)
    assert said(r) == [TimeSpeech("Anna", 0, move=True)]  # the controller's own warning
    r.tick(1.0)
    assert said(r) == []
    r.tick(180.0)  # under 60 s left on Anna's game clock
    assert said(r) == [TimeSpeech("Anna", 60)]
    r.menu(long=True)  # paused: time stands still, nothing is crossed
    r.tick(120.0)
    assert said(r) == []
    r.done(1)  # any button resumes: whose turn it is
    assert said(r) == [TurnSpeech("Anna")]
    r.tick(61.0)
    assert said(r) == [TimeSpeech("Anna", 0)]
    r.tick(60.0)
    assert said(r) == []  # overtime goes on without a word


def test_five_minutes_left_on_a_longer_clock() -> None:
    r = dealt(clock=10)
    said(r)
    r.tick(4 * 60 + 59)
    assert said(r) == []
    r.tick(2.0)
    assert said(r) == [TimeSpeech("Anna", 300)]
