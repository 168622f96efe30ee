"""Properties of the turn controller's step: a pure function of (state, input).

Random sequences of what players and the board do go through ``Table.step``: the state a
step is given is never changed (compared deeply with a copy taken before), and the same
inputs from the same state always give the same states and effects.
"""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablehelpers import Rig, rig

from drivers.board.protocol import Loc
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import SIZE, Square
from scoreboard.controller import Append, BoardAway, BoardBack, BoardRead, Committed, Input, ReaderState, Tick
from scoreboard.screens.models import MenuItem

WORDS = ("HAUS", "BOHNE", "HAUSE", "AB", "OB", "TEE", "NEU", "ZU")


def table(profile: str, players: int, variants: dict[str, int]) -> Rig:
    r = rig(profile, players, words=WORDS, **variants)
    r.draw_first("AEIO"[:players])
    r.deal({seat: letters for seat, letters in enumerate(("HAUSTEN", "ABENDRO", "LTAIMEG", "ZUFRIEK")[:players])})
    return r


def physical(r: Rig, rng: random.Random) -> None:
    """One thing a player does with the tiles (no read yet)."""
    seats = len(r.racks)
    roll = rng.random()
    if roll < 0.45:  # a rack tile onto an empty square near the centre
        seat = rng.randrange(seats)
        if r.racks[seat]:
            slot = rng.choice(sorted(r.racks[seat]))
            free = [Square(row, col) for row in range(4, 11) for col in range(4, 11) if Square(row, col) not in r.cells]
            r.cells[rng.choice(free)] = r.racks[seat].pop(slot)
    elif roll < 0.7 and r.cells:  # a tile off the board onto a rack with room
        square = rng.choice(sorted(r.cells))
        seat = rng.randrange(seats)
        if len(r.racks[seat]) < 9:
            r.put_on_rack(seat, r.cells.pop(square))
    elif roll < 0.9 and r.bag:  # a draw from the bag
        seat = rng.randrange(seats)
        if len(r.racks[seat]) < 9:
            r.put_on_rack(seat, r.bag.pop(rng.randrange(len(r.bag))))
    elif any(r.racks):  # a rack tile back into the bag
        seat = rng.choice([s for s in range(seats) if r.racks[s]])
        slot = rng.choice(sorted(r.racks[seat]))
        r.bag.append(r.racks[seat].pop(slot))


def next_input(r: Rig, rng: random.Random, now: float) -> Input:
    """A random input, the physical table moved on as it says."""
    seats = len(r.racks)
    roll = rng.random()
    if roll < 0.35:
        physical(r, rng)
        return BoardRead(r.snapshot(), rng.random() < 0.8, now)
    if roll < 0.7:
        role = rng.choice([Role.DONE, Role.DONE, Role.CHALLENGE])
        kind = Kind.LONG_PRESS if rng.random() < 0.3 else Kind.PRESS
        return ButtonEvent(rng.randrange(1, seats + 1), role, kind, now - rng.random() * 0.3)
    if roll < 0.75:
        return ButtonEvent(None, Role.MENU, Kind.LONG_PRESS if rng.random() < 0.2 else Kind.PRESS, now)
    if roll < 0.8:
        return ButtonEvent(rng.randrange(1, seats + 1), rng.choice(list(Role)[:2]), Kind.STUCK, now)
    if roll < 0.83:
        return BoardAway("cable pulled", now)
    if roll < 0.87:
        return BoardBack(now)
    if roll < 0.9:
        row = rng.randrange(SIZE)
        locs = tuple(Loc.cell(Square(row, col)) for col in range(SIZE))
        return ReaderState(row, rng.random() < 0.5, locs, now)
    return Tick(now)


def lay_for(r: Rig, rng: random.Random, seat: int) -> None:
    """Lay 1-3 of ``seat``'s rack tiles in a line through the centre or next to a tile."""
    rack = r.racks[seat]
    if not rack:
        return
    k = rng.randint(1, min(3, len(rack)))
    across = rng.random() < 0.5
    if not r.cells:
        row, col = (7, 7 - rng.randrange(k)) if across else (7 - rng.randrange(k), 7)
    else:
        free = sorted(
            Square(sq.row + dr, sq.col + dc)
            for sq in r.cells
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
            if 0 <= sq.row + dr < SIZE and 0 <= sq.col + dc < SIZE and Square(sq.row + dr, sq.col + dc) not in r.cells
        )
        if not free:
            return
        row, col = rng.choice(free)
    slots = sorted(rack)
    rng.shuffle(slots)
    placed = 0
    while placed < k and row < SIZE and col < SIZE:
        if Square(row, col) not in r.cells:
            r.cells[Square(row, col)] = rack.pop(slots[placed])
            placed += 1
        row, col = (row, col + 1) if across else (row + 1, col)


def put_right(r: Rig) -> None:
    """Do what the display asks: tiles off the board, drawn tiles back, committed ones back."""
    tiles = r.state.tiles
    for square in sorted(tiles.to_remove):
        if square in r.cells:
            seat = next((p for p in range(len(r.racks)) if len(r.racks[p]) < 9), 0)
            r.put_on_rack(seat, r.cells.pop(square))
    for uid in tiles.to_return:
        for rack in r.racks:
            for slot, tag in list(rack.items()):
                if tag == uid:
                    del rack[slot]
                    r.bag.append(uid)
    for square in sorted(tiles.to_place):
        uid = tiles.board[square]
        for rack in r.racks:
            for slot, tag in list(rack.items()):
                if tag == uid:
                    del rack[slot]
                    r.cells.pop(square, None)
                    r.cells[square] = uid


def played_inputs(r: Rig, rng: random.Random, now: float) -> list[Input]:
    """What a table does next, as inputs, the physical table moved on: refills, plays and
    Done, challenges, overrides, undo and score corrections from the menu, passes, time."""
    out: list[Input] = []
    game = r.state.game
    seats = len(r.racks)

    def read() -> None:
        out.append(BoardRead(r.snapshot(), True, now + 0.01 * len(out)))

    def press(seat: int | None, role: Role, long: bool = False) -> None:
        kind = Kind.LONG_PRESS if long else Kind.PRESS
        out.append(ButtonEvent(None if seat is None else seat + 1, role, kind, now + 0.01 * len(out)))

    if game is None or game.over:
        out.append(Tick(now))
        return out
    tiles, turn, roll = r.state.tiles, game.turn, rng.random()
    if tiles.to_fix and roll < 0.8:
        put_right(r)
        read()
        return out
    short = [p for p in range(seats) if len(r.racks[p]) < game.profile.rack_size and r.bag]
    if short and roll < 0.35:
        r.put_on_rack(rng.choice(short), r.bag.pop(rng.randrange(len(r.bag))))
        read()
    elif roll < 0.6:
        if all(game.board[sq] is not None for sq in r.cells):
            lay_for(r, rng, turn)
            read()
        press(turn, Role.DONE, long=rng.random() < 0.1)
        read()
    elif roll < 0.7:
        press(rng.choice([p for p in range(seats) if p != turn]), Role.CHALLENGE)
    elif roll < 0.75:  # override the ruling (or see the unseen tiles), a second seat agrees
        asker = rng.randrange(seats)
        press(asker, Role.CHALLENGE, long=True)
        press((asker + 1) % seats, Role.DONE, long=True)
    elif roll < 0.8:  # undo from the menu, a second seat agrees
        for _ in range(list(MenuItem).index(MenuItem.UNDO) + 1):
            press(None, Role.MENU)
        press(turn, Role.DONE)
        press((turn + 1) % seats, Role.DONE, long=True)
    elif roll < 0.83:  # a score correction
        for _ in range(list(MenuItem).index(MenuItem.ADJUST_SCORE) + 1):
            press(None, Role.MENU)
        press(turn, Role.DONE)
        press(turn, Role.DONE)
        press(None, Role.MENU, long=True)
        press((turn + 1) % seats, Role.DONE, long=True)
    elif roll < 0.88:
        press(turn, Role.DONE, long=True)  # a pass (or an exchange)
        read()
    elif roll < 0.9:
        press(None, Role.MENU)  # a look at the menu
        press(rng.randrange(seats), Role.CHALLENGE)
    else:
        out.append(Tick(now + rng.choice([1.0, 6.0, 21.0])))
    return out


def check_steps(r: Rig, inputs: list[Input]) -> list[str]:
    """Step through ``inputs`` from the rig's state: the given state never changes, a second
    step of the same input gives the same; the kinds of commands journaled."""
    kinds = []
    for event in inputs:
        before = copy.deepcopy(r.state)
        after, effects = r.table.step(r.state, event)
        assert r.state == before, f"step changed its input state on {event!r}"
        again, effects_again = r.table.step(r.state, event)
        assert again == after and effects_again == effects, f"the same step gave another result on {event!r}"
        kinds += [type(rec.command).__name__ for e in effects if isinstance(e, Append) for rec in e.records if isinstance(rec, Committed)]
        r.state = after
    return kinds


def play_checked(setup: tuple[str, int, dict[str, int]], seed: int, rounds: int) -> Counter[str]:
    profile, players, variants = setup
    r = table(profile, players, variants)
    rng = random.Random(seed)
    now, kinds = r.now, Counter[str]()
    for _ in range(rounds):
        now += rng.choice([0.3, 0.5, 1.0, 2.0])
        inputs = played_inputs(r, rng, now)
        now = max(now, *(event.at for event in inputs))
        kinds.update(check_steps(r, inputs))
    return kinds


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLES = st.sampled_from(
    [
        ("de", 2, {}),
        ("de", 4, {"clock": 25}),
        ("fr", 3, {"target": 30}),
        ("en", 2, {"move_limit": 20, "move_limit_action": "pass"}),
        ("en-tournament", 2, {"clock": 10, "challenge": "five"}),
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=TABLES, seed=st.integers(0, 2**32))
def test_step_is_pure_through_a_game_played_at_the_table(setup: tuple[str, int, dict[str, int]], seed: int) -> None:
    play_checked(setup, seed, 60)


def test_the_played_games_reach_every_kind_of_command() -> None:
    """The property above is only worth its inputs: they must play, draw, challenge, undo,
    override, adjust, pass and close windows (so that every game-changing path is copied)."""
    kinds: Counter[str] = Counter()
    for seed, setup in enumerate([("de", 2, {}), ("de", 3, {}), ("fr", 2, {}), ("en", 2, {})] * 2):
        kinds += play_checked(setup, seed, 80)
    wanted = {"Draw", "Play", "Challenge", "CloseWindow", "UndoLastPlay", "OverrideRuling", "AdjustScore", "Pass"}
    assert wanted <= set(kinds), (wanted - set(kinds), kinds)


@SETTINGS
@given(setup=TABLES, seed=st.integers(0, 2**32), steps=st.integers(5, 60))
def test_step_never_changes_its_state_on_random_inputs(setup: tuple[str, int, dict[str, int]], seed: int, steps: int) -> None:
    """Anything at all from the board and the buttons, also nonsense."""
    profile, players, variants = setup
    r = table(profile, players, variants)
    rng = random.Random(seed)
    now = r.now
    inputs: list[Input] = []
    for _ in range(steps):
        now += rng.choice([0.05, 0.3, 0.5, 2.0, 7.0, 25.0])
        inputs.append(next_input(r, rng, now))
    check_steps(r, inputs)


def test_a_game_changed_by_a_step_is_a_copy() -> None:
    """A play commits on a copy of the game: the state before it still holds the game before it."""
    r = table("de", 2, {})
    before = r.state
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert before.game is not None and r.state.game is not None
    assert before.game is not r.state.game and before.game.board.is_empty()
    assert r.game.scores() == [10, 0]
