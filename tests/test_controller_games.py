"""Whole games through the turn controller: every input an event, every outcome checked.

The rig (tests/tablehelpers.py) holds the physical tiles; the controller sees only board
reads, button events and ticks, as on a real table.
"""

from __future__ import annotations

from tablehelpers import Rig, rig

from engine.events import Challenge, Exchange, Pass, Play, UndoLastPlay
from engine.game import Game, Termination
from engine.rules import RuleProfile
from scoreboard.controller import Asking, Committed, FirstDraw, Over, Playing, Started
from scoreboard.screens.models import (
    ChallengeResultScreen,
    ConfirmKind,
    ConfirmScreen,
    DrawForFirstScreen,
    ErrorKind,
    ErrorScreen,
    LastPlayScreen,
    MenuItem,
    ScoresScreen,
    TallyScreen,
)


def commands(r: Rig) -> list[object]:
    return [rec.command for rec in r.journal if isinstance(rec, Committed)]


def replayed(r: Rig) -> Game:
    """The game rebuilt from nothing but the journal, as the service will after a crash."""
    started = r.journal[0]
    assert isinstance(started, Started)
    return Game.replay(
        RuleProfile.from_rules_line(started.rules), started.players, commands(r), first=started.first  # type: ignore[arg-type]
    )


def open_menu_at(r: Rig, item: MenuItem, seat: int) -> None:
    r.menu()
    for _ in range(list(MenuItem).index(item)):
        r.menu()
    r.done(seat)


def test_german_four_players_challenges_exchange_and_undo() -> None:
    r = rig("de", 4, words=["HAUS", "BOHNE"])
    # the draw for the first player: Anna and Cleo tie on A and draw again
    for seat, letter in enumerate("AEAO"):
        r.draw(seat, letter, read=False)
    r.read()
    assert r.screen == DrawForFirstScreen(("Anna", "Ben", "Cleo", "Dirk"), ("A", "E", "A", "O"), None, (0, 2))
    r.to_bag(0, "A", read=False)
    r.to_bag(2, "A", read=False)
    r.draw(0, "D", read=False)
    r.draw(2, "C")
    assert isinstance(r.screen, DrawForFirstScreen) and r.screen.first == 2  # C beats D: Cleo begins
    assert isinstance(r.state.phase, FirstDraw) and r.state.phase.draw.first == 2
    r.return_racks()
    assert isinstance(r.state.phase, Playing) and r.journal[0] == Started("de", ("Anna", "Ben", "Cleo", "Dirk"), 2, ("AEAO", "D-C-"))
    r.deal({2: "HAUSTEN", 3: "ABENDRO", 0: "LTAIMEG", 1: "EEIRSTU"})
    assert r.game.turn == 2 and r.game.rack(3) == "ABENDRO"

    # Cleo: HAUS down from H8; Dirk challenges and is wrong: -5
    r.lay(2, "H8:H H9:A H10:U H11:S")
    r.done(3)
    assert r.screen == LastPlayScreen("Cleo", (r.screen.words[0],), 10)  # type: ignore[union-attr]
    r.challenge(4)
    assert r.screen == ChallengeResultScreen("Dirk", "Cleo", True, (), -5, False)
    r.draw(2, "RIEN")
    assert r.game.scores() == [0, 0, 10, -5]

    # Dirk: BOHNE across the H; nobody challenges, Anna's first tile closes the window
    r.lay(3, "F8:B G8:O I8:N J8:E")
    r.done(4)
    assert r.game.window_open
    r.draw(3, "KLMS")
    r.lay(0, "K9:T")  # Anna starts her move: the window is closed
    assert not r.game.window_open
    r.take_back(0, "K9")
    # Anna: OTAL down the G column, beside HAUS (TA, AU, LS): Ben challenges and is right;
    # the tile she drew meanwhile goes back into the bag
    r.lay(0, "G9:T G10:A G11:L")
    r.done(1)
    assert not isinstance(r.screen, ErrorScreen), r.screen
    played = r.game.events[-1]
    r.draw(0, "Q")
    r.challenge(2)
    result = r.screen
    assert isinstance(result, ChallengeResultScreen) and result.challenger == "Ben" and not result.valid
    r.tick(6)
    assert r.screen == ErrorScreen(ErrorKind.REMOVE_TILES, "G9 G10 G11")
    r.done(2)  # refused while the board is wrong
    assert r.game.turn == 1 and r.screen == ErrorScreen(ErrorKind.REMOVE_TILES, "G9 G10 G11")
    r.take_back(0, "G9 G10 G11")
    assert r.screen == ErrorScreen(ErrorKind.PUT_BACK_TILES, "Q")
    r.to_bag(0, "Q")
    assert isinstance(r.screen, ScoresScreen)
    assert r.game.scores()[0] == 0 and played.points > 0

    # Ben exchanges three tiles: Done, the exchange is shown, holding Done confirms
    r.to_bag(1, "EEI", read=False)
    r.draw(1, "XYZ")
    r.done(2)
    assert r.screen == ConfirmScreen(ConfirmKind.EXCHANGE, 3, "Ben")
    r.done(2, long=True)
    assert isinstance(commands(r)[-1], Exchange) and commands(r)[-1] == Exchange(1, "EEI", "XYZ")  # type: ignore[comparison-overlap]
    assert r.game.turn == 2 and sorted(r.game.rack(1)) == sorted("RSTUXYZ")

    # Cleo lays HAUSE; the table undoes it (a correction, not a challenge)
    r.lay(2, "H12:E")
    r.done(3)
    assert isinstance(commands(r)[-1], Play)
    r.draw(2, "F")
    open_menu_at(r, MenuItem.UNDO, 3)
    assert r.screen == ConfirmScreen(ConfirmKind.UNDO, player="Anna", by="Cleo")
    r.done(3, long=True)  # the asking seat cannot confirm alone
    assert isinstance(r.state.mode, Asking)
    r.done(1, long=True)  # a second seat confirms
    assert isinstance(commands(r)[-1], UndoLastPlay)
    assert r.screen == ErrorScreen(ErrorKind.REMOVE_TILES, "H12")
    r.take_back(2, "H12")
    assert r.screen == ErrorScreen(ErrorKind.PUT_BACK_TILES, "F")
    r.to_bag(2, "F")
    assert r.game.turn == 2 and r.game.scores()[:3] == [0, 0, 10]

    # the journal alone rebuilds the same game
    again = replayed(r)
    assert again.scores() == r.game.scores() and again.turn == r.game.turn
    assert again.board.letter_counts == r.game.board.letter_counts

    # end the game from the menu, confirmed by a second seat: the tally
    open_menu_at(r, MenuItem.END_GAME, 4)
    r.challenge(1, long=True)
    assert isinstance(r.screen, TallyScreen) and isinstance(r.state.phase, Over)
    assert r.game.termination is Termination.ENDED_AT_TABLE
    assert len(r.over()) == 1
    tally = r.over()[0].tally
    assert [row.final for row in tally.rows] == [line.final for line in r.screen.rows]


def test_english_tournament_two_players_ends_on_six_scoreless_turns() -> None:
    r = rig("en-tournament", 2, words=["QUIT", "QUITE"])
    r.draw_first("BA")  # A is nearer to A: Ben begins
    assert r.game.turn == 1
    r.deal({1: "QUITEAR", 0: "LOSTNED"})
    r.lay(1, "H8:Q H9:U H10:I H11:T")
    r.done(2)
    r.draw(1, "OLOO")
    r.challenge(1)  # wrong: in "double" a wrong challenger loses the turn
    assert r.screen == ChallengeResultScreen("Anna", "Ben", True, (), 0, True)
    r.challenge(1, long=True)  # no overrides in en-tournament: this shows the unseen tiles
    assert not isinstance(r.state.mode, Asking)
    assert r.game.turn == 1 and r.game.scores()[0] == 0
    # the lost turn was the first scoreless turn; Ben passes (a short press shows the
    # question, a second short press never passes, holding Done does), Anna exchanges...
    r.done(2)
    assert r.screen == ConfirmScreen(ConfirmKind.PASS, 0, "Ben")
    r.done(2)
    assert r.screen == ConfirmScreen(ConfirmKind.PASS, 0, "Ben")
    r.done(2, long=True)
    r.to_bag(0, "LOS", read=False)
    r.draw(0, "AAE")
    r.done(1, long=True)  # holding Done at once: the exchange needs no second press
    assert commands(r)[-1] == Exchange(0, "LOS", "AAE")
    r.done(2, long=True)
    r.done(1, long=True)
    assert isinstance(r.state.phase, Playing)  # five scoreless turns so far
    r.done(2, long=True)  # the sixth
    assert sum(isinstance(c, Pass) for c in commands(r)) == 4
    assert r.game.termination is Termination.PASSES and isinstance(r.state.phase, Over)
    assert isinstance(r.screen, TallyScreen)
    tally = r.over()[0].tally
    assert [row.rack_adjustment for row in tally.rows] == [
        -r.game.tile_set.rack_value(r.game.rack(0)),
        -r.game.tile_set.rack_value(r.game.rack(1)),
    ]
    assert replayed(r).tally() == tally


def test_french_phony_extension_and_the_draw_deadline() -> None:
    r = rig("fr", 2, words=["ZUT"])
    r.draw_first("AB")
    r.deal({0: "ZUAAEEI", 1: "XTOOIIE"})
    r.lay(0, "G8:Z H8:U")  # ZU: a phony nobody challenges
    r.done(1)
    assert r.game.window_open
    r.draw(0, "N")  # the draw deadline: Anna takes a tile, the window closes
    assert not r.game.window_open
    r.challenge(2)
    assert r.screen == ErrorScreen(ErrorKind.TOO_LATE)
    r.draw(0, "S")
    r.lay(1, "I8:X")  # ZUX: the phony extended into another phony
    r.done(2)
    r.challenge(1)  # Anna laid ZU: Ben takes X back and plays again
    assert r.screen == ChallengeResultScreen("Anna", "Ben", False, ("ZUX",), 0, False)
    assert commands(r)[-1] == Challenge(0, ("ZUX",), True)
    r.tick(6)
    assert r.screen == ErrorScreen(ErrorKind.REMOVE_TILES, "I8")
    r.take_back(1, "I8")
    assert r.game.turn == 1 and isinstance(r.screen, ScoresScreen)
    r.lay(1, "I8:T")  # ZUT
    r.done(2)
    r.challenge(1)  # valid: the challenger loses 10 in fr
    assert r.screen == ChallengeResultScreen("Anna", "Ben", True, (), -10, False)
    assert r.game.scores()[0] == r.game.events[0].points - 10  # ZU, then the penalty
    assert replayed(r).scores() == r.game.scores()


def test_nine_tile_finish_line_game() -> None:
    r = rig("de", 2, words=["HAUS", "BOHNE", "HAUSE"], rack=9, target=18)
    r.draw_first("EA")
    assert r.game.turn == 1
    r.deal({1: "HAUSTENIK", 0: "ABENDROTE"})
    assert len(r.game.rack(1)) == 9
    r.lay(1, "H8:H H9:A H10:U H11:S")
    r.done(2)  # HAUS: 10
    r.done(1)  # Anna's Done before Ben refilled: blocked
    assert r.screen == ErrorScreen(ErrorKind.REFILL_RACK, "Ben: 4")
    assert isinstance(commands(r)[-1], Play)
    r.draw(1, "LLMM")
    r.lay(0, "F8:B G8:O I8:N J8:E")
    r.done(1)  # BOHNE
    bohne = r.game.events[-1].points
    r.draw(0, "PRRI")
    r.lay(1, "H12:E")  # HAUSE: 7 (H12 doubles the E); 17 is short of the target, 18
    r.done(2)
    r.tick(21)
    assert not r.game.over and r.game.scores() == [bohne, 17]
    r.draw(1, "R")
    r.lay(0, "K8:R")  # BOHNER is no word, but nobody challenges
    r.done(1)
    assert r.game.window_open
    assert r.game.scores() == [19, 17] and not r.game.over  # final only when the window closes
    r.tick(21)  # the window closes at the configured time: 19 reached the finish line
    assert r.game.termination is Termination.FINISH_LINE and isinstance(r.state.phase, Over)
    tally = r.over()[0].tally
    assert [row.rack_adjustment for row in tally.rows] == [0, 0]  # no rack adjustment
    assert tally.winners == (0,) and isinstance(r.screen, TallyScreen)
