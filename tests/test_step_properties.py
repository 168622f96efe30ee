"""Properties of the turn controller's step: a pure function of (state, input).

Random sequences of what players and the board do go through ``Table.step``: the state a
step is given is never changed (compared deeply with a copy taken before), and the same
inputs from the same state always give the same states and effects.
"""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tablehelpers import Rig, rig

from drivers.board.protocol import Loc
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import SIZE, Square
from scoreboard.controller import BoardAway, BoardBack, BoardRead, Input, ReaderState, TableState, Tick

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


@SETTINGS
@given(setup=TABLES, seed=st.integers(0, 2**32), steps=st.integers(5, 60))
def test_step_never_changes_its_state_and_always_gives_the_same(setup: tuple[str, int, dict[str, int]], seed: int, steps: int) -> None:
    profile, players, variants = setup
    r = table(profile, players, variants)
    rng = random.Random(seed)
    now = r.now
    inputs: list[Input] = []
    for _ in range(steps):
        now += rng.choice([0.05, 0.3, 0.5, 2.0, 7.0, 25.0])
        inputs.append(next_input(r, rng, now))
    start: TableState = r.state
    runs: list[list[tuple[TableState, list[object]]]] = []
    for _ in range(2):
        state, run = start, []
        for event in inputs:
            before = copy.deepcopy(state)
            after, effects = r.table.step(state, event)
            assert state == before, f"step changed its input state on {event!r}"
            run.append((after, list(effects)))
            state = after
        runs.append(run)
    first, second = runs
    for (a, fx_a), (b, fx_b) in zip(first, second):
        assert a == b and fx_a == fx_b  # the same inputs, the same states and effects


def test_a_game_changed_by_a_step_is_a_copy() -> None:
    """A play commits on a copy of the game: the state before it still holds the game before it."""
    r = table("de", 2, {})
    before = r.state
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert before.game is not None and r.state.game is not None
    assert before.game is not r.state.game and before.game.board.is_empty()
    assert r.game.scores() == [10, 0]
