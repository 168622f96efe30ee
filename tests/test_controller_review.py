"""Review of the turn controller: each test shows one defect and fails on the code as reviewed.

Minimal reproductions on the table rig (tests/tablehelpers.py): board reads, button events and
ticks only, as at a real table.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablehelpers import Rig, rig

from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import Square
from engine.events import Challenge, Pass, Play
from engine.game import Game
from engine.rules import RuleProfile
from scoreboard.controller import Committed, Settings, Started, Tick
from scoreboard.screens.models import ErrorKind, ErrorScreen, MenuItem


def commands(r: Rig) -> list[object]:
    return [rec.command for rec in r.journal if isinstance(rec, Committed)]


def started(
    profile: str = "de", words: tuple[str, ...] = ("HAUS", "BOHNE"), **kw: object
) -> Rig:
    """Anna (seat 1) begins with HAUSTEN, Ben holds ABENDRO."""
    r = rig(profile, 2, words=words, **kw)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r


def restored(r: Rig, words: tuple[str, ...]) -> Rig:
    """A second rig on the same physical table, its controller rebuilt from r's journal."""
    last = max(i for i, rec in enumerate(r.journal) if isinstance(rec, Started))
    fresh = Rig(r.profile, r.names, words, r.settings)
    fresh.state, _ = fresh.table.restore(r.journal[last:], now=r.now + 1)
    fresh.now = r.now + 1
    fresh.racks, fresh.cells, fresh.bag = r.racks, r.cells, r.bag
    return fresh


def replayed_game(r: Rig) -> Game:
    """The game as its journal replays it: the table's commands since the last start."""
    last = max(i for i, rec in enumerate(r.journal) if isinstance(rec, Started))
    started = r.journal[last]
    assert isinstance(started, Started)
    commands = [rec.command for rec in r.journal[last:] if isinstance(rec, Committed)]
    return Game.replay(RuleProfile.from_rules_line(started.rules), started.players, commands, first=started.first)


def menu_choose(r: Rig, item: MenuItem, seat: int) -> None:
    r.menu()
    for _ in range(list(MenuItem).index(item)):
        r.menu()
    r.done(seat)


# --- crash restore ------------------------------------------------------------------------


def test_restore_does_not_demand_removing_a_later_play_on_a_withdrawn_square() -> None:
    """A withdrawn play's squares stay in to_remove after restore, even when a later play covers them."""
    words = ("BAND",)
    r = started(words=words)
    r.lay(0, "H8:H H9:A H10:U H11:S")  # HAUS is not in this lexicon
    r.done(1)
    r.challenge(2)  # withdrawn
    r.take_back(0, "H8 H9 H10 H11")
    r.lay(1, "H8:B H9:A H10:N H11:D")  # Ben plays on the same squares
    r.done(2)
    r.tick(21)
    r.draw(1, "LMNR")
    assert r.state.tiles.to_remove == frozenset()
    fresh = restored(r, words)
    fresh.read()
    assert (
        fresh.state.tiles.to_remove == frozenset()
    )  # fails: {H8, H9, H10, H11}: the table is stuck
    assert fresh.screen != ErrorScreen(ErrorKind.REMOVE_TILES, "H8 H9 H10 H11")


def test_restore_does_not_ask_to_put_back_a_tile_drawn_again_later() -> None:
    """A withdrawn play's drawn tile, put back and later drawn by Ben, is 'to return' after restore."""
    words = ("BAND",)
    r = started(words=words)
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.draw(0, "Q")  # Anna drew during the window
    r.challenge(2)  # withdrawn: Q goes back into the bag
    r.take_back(0, "H8 H9 H10 H11")
    r.to_bag(0, "Q")
    r.lay(1, "H8:B H9:A H10:N H11:D")
    r.done(2)
    r.tick(21)
    r.draw(1, "QLMN")  # Ben happens to draw that Q
    assert r.state.tiles.to_return == frozenset()
    fresh = restored(r, words)
    fresh.read()
    assert fresh.state.tiles.to_return == frozenset()  # fails: {Q}; every Done is refused
    assert fresh.screen != ErrorScreen(ErrorKind.PUT_BACK_TILES, "Q")


def test_restore_counts_an_overtime_penalty_once() -> None:
    """Restoring a finished game applies the overtime penalty twice (game_over recomputes it)."""
    words = ("HAUS",)
    r = started("en-tournament", words=words, clock=1)
    r.tick(150)
    r.done(
        1, long=True
    )  # Anna passes after 150 s: a ClockState with 150 s is journaled
    menu_choose(r, MenuItem.END_GAME, 2)
    r.done(1, long=True)
    live = r.game.scores()
    fresh = restored(r, words)
    game = fresh.state.game
    assert game is not None
    assert game.scores() == live  # fails: [-50, -10] against [-30, -10]


# --- each state's own game -----------------------------------------------------------------


def test_an_engine_refusal_half_way_leaves_the_game_as_its_journal_says() -> None:
    """de, finish line 10, move limit 15 s (pass): Ben's move-limit Pass closes the window in the
    engine, which then raises GameOverError; the state must hold the game its journal replays
    to (once, a cached game mutated half-way was served instead)."""
    r = started(target=10, move_limit=15, move_limit_action="pass")
    r.lay(0, "H8:H H9:A H10:U H11:S")  # 10 points: the finish line, window open
    r.done(1)
    r.draw(0, "IRDE")
    r.tick(14)
    r.tick(1.5)  # Ben's move limit runs out while Anna's window is open
    served = r.state.game
    fresh = replayed_game(r)
    assert served is not None
    assert (served.over, served.window_open) == (
        fresh.over,
        fresh.window_open,
    )  # fails: (True, False) vs (False, True)


def test_a_state_of_an_earlier_game_keeps_its_own_game() -> None:
    """Once, games were cached by their commands, and every new game has none yet: a state of
    an earlier game (first player Anna) was served the later game (first player Ben)."""
    r = rig("de", 2, words=("HAUS",))
    r.draw_first("AE")  # Anna begins
    first_game = r.state
    assert first_game.game is not None and first_game.game.turn == 0
    menu_choose(r, MenuItem.NEW_GAME, 1)
    r.done(2, long=True)  # Ben confirms the new game
    r.draw_first("EA")  # now Ben begins
    assert r.game.log == [] and r.game.first == 1
    assert first_game.game.turn == 0 and first_game.game.first == 0


# --- exceptions escaping step ---------------------------------------------------------------


def test_fr_play_while_a_finish_line_play_is_pending_does_not_raise() -> None:
    """fr (window closes on the player's draw), target 10, refill=warn: Ben plays before Anna drew.
    The engine closes the window inside Play, the game ends, and GameOverError escapes step."""
    r = started("fr", words=("HAUS", "OH"), target=10, settings=Settings(refill="warn"))
    r.lay(0, "H8:H H9:A H10:U H11:S")  # 14 points in fr
    r.done(1)
    assert r.game.window_open and not r.game.over
    r.lay(1, "G8:O")
    r.done(2)  # fails: GameOverError('the game is over: finish-line') out of Table.step


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    profile=st.sampled_from(["de", "fr", "en", "en-tournament"]),
    seq=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "lay",
                    "draw",
                    "done1",
                    "done2",
                    "long1",
                    "long2",
                    "chal1",
                    "chal2",
                    "tick",
                ]
            ),
            st.integers(0, 6),
        ),
        max_size=12,
    ),
)
def test_step_never_raises_on_random_presses_after_a_finish_line_play(
    profile: str, seq: list[tuple[str, int]]
) -> None:
    """Random inputs after a play that reaches the finish line: no input may make step raise."""
    r = started(profile, words=("HAUS",), target=10, settings=Settings(refill="warn"))
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    spots = ["G8", "I8", "H7", "H12", "G9", "I9", "G11"]
    for action, k in seq:
        if action == "lay":
            square = Square.from_name(spots[k])
            slots = sorted(r.racks[1])
            if slots and square not in r.cells:
                r.cells[square] = r.racks[1].pop(slots[k % len(slots)])
                r.read()
        elif action == "draw":
            if r.bag and len(r.racks[0]) < 7:
                r.put_on_rack(0, r.bag.pop(k))  # Anna draws
                r.read()
        elif action == "tick":
            r.tick(0.5 + k)
        else:
            seat = int(action[-1])
            role = Role.CHALLENGE if action.startswith("chal") else Role.DONE
            r.press(seat, role, long=action.startswith("long"))


# --- board reads and presses that change the game wrongly -----------------------------------


def test_blank_picker_does_not_commit_tiles_taken_off_the_board() -> None:
    """The picker keeps the tiles read at Done; taking them back and holding Done commits them."""
    r = rig("de", 2, words=("HAUS", "HAUT"))
    r.draw_first("AE")
    r.deal({0: "HAU?TEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:?")
    r.done(1)  # HAUS or HAUT: the picker
    r.take_back(0, "H8 H9 H10 H11")  # Anna changes her mind
    r.done(1, long=True)
    assert not any(
        isinstance(c, Play) for c in commands(r)
    )  # fails: a play of tiles not on the board


def test_done_with_tiles_missing_from_the_rack_is_not_a_pass() -> None:
    """Two tiles put into the bag, none drawn yet, Done held: neither a swap nor 'nothing changed'."""
    r = started()
    r.to_bag(0, "HA")
    r.done(1, long=True)
    assert not any(
        isinstance(c, Pass) for c in commands(r)
    )  # fails: Pass(0); the rack tracking is now wrong


def test_the_pass_question_is_judged_again_when_the_rack_changed() -> None:
    """Done (nothing changed: 'Pass?'), then the player swaps two tiles and holds Done: a Pass."""
    r = started()
    r.done(1)
    r.to_bag(0, "HA", read=False)
    r.draw(0, "XY")
    r.done(1, long=True)
    assert not isinstance(
        commands(r)[-1], Pass
    )  # fails: the stale question is confirmed as a Pass


def test_a_second_done_while_a_done_is_being_read_does_not_drop_the_first() -> None:
    """Going-out window, 3 seats: Ben and Cleo press Done while the board is unsettled. The
    second press replaces the pending reading: only Cleo agrees and the window stays open."""
    r = rig("de", 3, words=("HAUS",))
    r.draw_first("AEO")
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG"})
    r.bag.clear()
    r.with_bag(0)
    r.lay(0, "H8:H H9:A H10:U H11:S H12:T H13:E H14:N")
    r.done(1)
    assert r.phase.window is not None and r.phase.window.going_out
    r.read(settled=False)
    r.press(2, Role.DONE, read=False)
    r.press(3, Role.DONE, read=False)
    r.read()
    assert r.game.over  # fails: agreed == {2}; Ben's Done was lost


def test_two_challenges_at_once_the_first_pressed_counts() -> None:
    """Ben presses first, Cleo second but releases first (a PRESS is emitted on release, dated
    by its start: drivers/buttons/logic.py). The ruling goes to Cleo."""
    r = rig("de", 3, words=("HAUS",))
    r.draw_first("AEO")
    r.deal({0: "HAUSTEN", 1: "ABENDRO", 2: "LTAIMEG"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    t = r.now
    r.feed(ButtonEvent(3, Role.CHALLENGE, Kind.PRESS, t + 0.2))  # Cleo: emitted first
    r.feed(ButtonEvent(2, Role.CHALLENGE, Kind.PRESS, t + 0.1))  # Ben: pressed first
    r.tick(1)  # the ruling waits a moment for a challenge pressed earlier
    rulings = [c for c in commands(r) if isinstance(c, Challenge)]
    assert [c.challenger for c in rulings] == [1]  # fails: [2]; Cleo pays the -5


def test_a_challenge_pressed_after_the_deadline_is_too_late_even_before_the_next_tick() -> (
    None
):
    """The deadline is only checked on ticks, after the input: a press begun after the
    deadline is ruled when no tick came in between."""
    r = started(words=("BOHNE",))
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert r.phase.window is not None
    deadline = r.phase.window.deadline
    r.now = deadline - 0.1
    r.feed(Tick(r.now))
    r.feed(ButtonEvent(2, Role.CHALLENGE, Kind.PRESS, deadline + 0.2))
    assert not any(
        isinstance(c, Challenge) for c in commands(r)
    )  # fails: HAUS withdrawn after the deadline
