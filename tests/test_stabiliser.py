"""The host's stabiliser: slides, flicker, junk reads, duplicate UIDs, K and T, first stable reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.board.protocol import Area, Loc
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import (
    DuplicateResolved,
    DuplicateTile,
    Settled,
    Stabiliser,
    StabiliserConfigError,
    StabiliserEvent,
    StableBoard,
)
from engine.errors import ScoreboardError

X = bytes.fromhex("04A1B2C3D4E5F6")
Y = bytes.fromhex("04112233445566")
Z = bytes.fromhex("0477889900AABB")
H8, I8, J8, K8 = (Loc.cell(n) for n in ("H8", "I8", "J8", "K8"))
SLOT = Loc.slot(0, 2)


def board(**cells: bytes) -> BoardSnapshot:
    """A raw reading: ``board(H8=X)``; ``slot=`` puts a tag in rack 1 slot 3."""
    return BoardSnapshot({SLOT if name == "slot" else Loc.cell(name): uid for name, uid in cells.items()})


def run(stab: Stabiliser, *reports: tuple[float, BoardSnapshot]) -> list[StabiliserEvent]:
    """Feed timed reports; every stable board seen along the way must hold no UID twice."""
    events: list[StabiliserEvent] = []
    for now, raw in reports:
        events += stab.update(raw, now)
        assert stab.stable.duplicates() == {}
    return events


def stable_boards(events: list[StabiliserEvent]) -> list[dict[Loc, bytes]]:
    return [dict(e.snapshot.tags) for e in events if isinstance(e, StableBoard)]


def settled(stab: Stabiliser, raw: BoardSnapshot, start: float = 0.0) -> Stabiliser:
    """``stab`` after ``raw`` was read long enough to be stable."""
    run(stab, (start, raw), (start + 0.1, raw), (start + 0.4, raw))
    assert stab.stable == raw and stab.is_settled
    return stab


# --- K reports and T seconds ------------------------------------------------------------------


def test_a_new_tile_counts_after_k_reports_and_t_seconds() -> None:
    stab = Stabiliser(reports=2, seconds=0.3)
    assert run(stab, (0.0, board(H8=X))) == []
    assert stab.pending == {H8: X} and not stab.is_settled
    assert run(stab, (0.1, board(H8=X))) == []  # 2 reports, 0.1 s
    events = run(stab, (0.3, board(H8=X)))
    assert events == [StableBoard(board(H8=X), 0.3)]
    assert stab.stable == board(H8=X) and stab.pending == {} and stab.is_settled


def test_time_alone_is_not_enough() -> None:
    stab = Stabiliser(reports=3, seconds=0.1)
    assert run(stab, (0.0, board(H8=X)), (5.0, board(H8=X))) == []
    assert stable_boards(run(stab, (5.1, board(H8=X)))) == [{H8: X}]


def test_reports_alone_are_not_enough() -> None:
    stab = Stabiliser(reports=2, seconds=1.0)
    assert run(stab, *[(i / 10, board(H8=X)) for i in range(10)]) == []
    assert stable_boards(run(stab, (1.0, board(H8=X)))) == [{H8: X}]


def test_one_report_is_enough_when_configured() -> None:
    stab = Stabiliser(reports=1, seconds=0.0)
    assert stable_boards(run(stab, (0.0, board(H8=X)))) == [{H8: X}]


def test_a_removed_tile_counts_after_k_reports_and_t_seconds() -> None:
    stab = settled(Stabiliser(), board(H8=X, I8=Y))
    assert run(stab, (1.0, board(I8=Y)), (1.1, board(I8=Y))) == []
    assert stab.pending == {H8: None}
    assert stable_boards(run(stab, (1.3, board(I8=Y)))) == [{I8: Y}]


@pytest.mark.parametrize(("kwargs", "quoted"), [
    ({"reports": 0}, "0"), ({"reports": 1.5}, "1.5"), ({"seconds": -0.1}, "-0.1"), ({"history": 0}, "0"),
])
def test_settings_out_of_range(kwargs: dict[str, float], quoted: str) -> None:
    with pytest.raises(StabiliserConfigError, match=quoted) as info:
        Stabiliser(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, ValueError)


# --- slides, flicker, junk --------------------------------------------------------------------


def test_a_slid_tile_counts_only_where_it_stops() -> None:
    stab = settled(Stabiliser(), board(slot=X))
    # off the rack onto H8, slid over I8 and J8 (read on two cells at once on the way), stops at K8
    path = [board(H8=X), board(H8=X), board(H8=X, I8=X), board(I8=X), board(I8=X, J8=X), board(J8=X)]
    path += [board(K8=X)] * 5
    events = run(stab, *[(1.0 + i * 0.1, raw) for i, raw in enumerate(path)])
    assert stable_boards(events) == [{}, {K8: X}]  # off the rack (in the hand), then on K8
    assert not any(isinstance(e, DuplicateTile) for e in events)


def test_a_tile_moved_while_its_old_place_still_reads_it_waits() -> None:
    # the new cell settles before the old one has read empty long enough: held back, not doubled
    stab = settled(Stabiliser(reports=2, seconds=0.3), board(H8=X))
    events = run(stab, (1.0, board(H8=X, I8=X)), (1.1, board(I8=X)), (1.3, board(I8=X)))
    assert stable_boards(events) == [] and stab.stable == board(H8=X)
    assert stab.pending == {H8: None, I8: X} and stab.duplicates == {}
    assert stable_boards(run(stab, (1.4, board(I8=X)))) == [{I8: X}]
    assert stab.is_settled


def test_flicker_never_removes_a_tile() -> None:
    stab = settled(Stabiliser(), board(H8=X, I8=Y))
    reports = [(1.0 + i * 0.1, board(H8=X, I8=Y) if i % 2 else board(I8=Y)) for i in range(40)]
    assert run(stab, *reports) == []
    assert stab.stable == board(H8=X, I8=Y)


def test_flicker_never_adds_a_tile() -> None:
    stab = Stabiliser()
    reports = [(i * 0.1, board(H8=X) if i % 2 else board()) for i in range(40)]
    assert run(stab, *reports) == [] and stab.stable == board()


reading = st.dictionaries(st.integers(0, 224).map(lambda i: Loc(Area.BOARD, i)), st.binary(min_size=7, max_size=7), max_size=3)


@settings(max_examples=100, deadline=None)
@given(base=reading, junk=st.lists(reading, min_size=1, max_size=30), gap=st.floats(0.0, 1.0))
def test_junk_read_once_never_passes(base: dict[Loc, bytes], junk: list[dict[Loc, bytes]], gap: float) -> None:
    stab = settled(Stabiliser(), BoardSnapshot(base))
    seen: set[bytes] = set()
    events = []
    for i, extra in enumerate(junk):
        # each junk UID shows once, between clean reports, at any time spacing
        fresh = {loc: uid for loc, uid in extra.items() if uid not in seen and uid not in base.values()}
        seen |= set(fresh.values())
        events += run(stab, (1 + 2 * i * gap, BoardSnapshot({**base, **fresh})), (1 + (2 * i + 1) * gap, BoardSnapshot(base)))
    assert events == [] and stab.stable == BoardSnapshot(base)


# --- one UID at two locations -----------------------------------------------------------------


def test_a_uid_read_twice_stays_where_it_was_and_is_reported() -> None:
    stab = settled(Stabiliser(), board(H8=X))
    events = run(stab, *[(1.0 + i * 0.1, board(H8=X, I8=X)) for i in range(10)])
    assert events == [DuplicateTile(X, (H8, I8), 1.0 + 3 * 0.1)]  # once, when I8 would have counted
    assert stab.stable == board(H8=X) and stab.duplicates == {X: (H8, I8)} and not stab.is_settled
    # the tile really lies on I8; H8 reads empty at last
    events = run(stab, (2.0, board(I8=X)), (2.1, board(I8=X)), (2.3, board(I8=X)))
    assert stable_boards(events) == [{I8: X}]
    assert DuplicateResolved(X, 2.0) in events and stab.duplicates == {}


def test_a_new_uid_read_twice_goes_nowhere_until_one_remains() -> None:
    stab = Stabiliser()
    events = run(stab, *[(i * 0.1, board(H8=X, I8=X, J8=Y)) for i in range(6)])
    assert stable_boards(events) == [{J8: Y}]
    assert [e for e in events if isinstance(e, DuplicateTile)] == [DuplicateTile(X, (H8, I8), 3 * 0.1)]
    events = run(stab, *[(1.0 + i * 0.1, board(I8=X, J8=Y)) for i in range(4)])
    assert stable_boards(events) == [{I8: X, J8: Y}]


def test_the_report_follows_the_locations() -> None:
    stab = settled(Stabiliser(), board(H8=X))
    events = run(stab, *[(1.0 + i * 0.1, board(H8=X, I8=X)) for i in range(4)])
    events += run(stab, *[(2.0 + i * 0.1, board(H8=X, I8=X, slot=X)) for i in range(4)])
    dups = [e for e in events if isinstance(e, DuplicateTile)]
    assert [d.locs for d in dups] == [(H8, I8), (H8, I8, SLOT)]
    assert stab.stable == board(H8=X)


def test_two_tiles_swapped_change_together() -> None:
    stab = settled(Stabiliser(), board(H8=X, I8=Y))
    events = run(stab, *[(1.0 + i * 0.1, board(H8=Y, I8=X)) for i in range(4)])
    assert stable_boards(events) == [{H8: Y, I8: X}]


def test_a_swap_seen_cell_by_cell_is_never_doubled() -> None:
    stab = settled(Stabiliser(reports=2, seconds=0.3), board(H8=X, I8=Y))
    # H8 is read with Y first; I8 still reads Y for a while
    reports = [(1.0, board(H8=Y, I8=Y)), (1.1, board(H8=Y, I8=Y)), (1.2, board(H8=Y, I8=X))]
    reports += [(1.3 + i * 0.1, board(H8=Y, I8=X)) for i in range(4)]
    events = run(stab, *reports)
    assert stable_boards(events) == [{H8: Y, I8: X}]


# --- the first stable reading after a moment --------------------------------------------------


def test_first_stable_at_or_after_a_moment() -> None:
    stab = Stabiliser(reports=2, seconds=0.3)
    run(stab, (0.0, board()))
    run(stab, (0.9, board(H8=X)), (1.1, board(H8=X)))  # Done pressed at 1.0, tile still settling
    assert stab.first_stable(after=1.0) is None
    run(stab, (1.3, board(H8=X, I8=Y)))
    assert stab.first_stable(after=1.0) is None  # I8 still pending
    run(stab, (1.5, board(H8=X, I8=Y)), (1.7, board(H8=X, I8=Y)))
    assert stab.first_stable(after=1.0) == Settled(board(H8=X, I8=Y), 1.7)
    assert stab.first_stable(after=0.0) == Settled(board(), 0.0)
    assert stab.first_stable(after=1.7) == Settled(board(H8=X, I8=Y), 1.7)
    assert stab.first_stable(after=1.71) is None


def test_history_is_bounded() -> None:
    stab = Stabiliser(history=5.0)
    run(stab, *[(float(t), board()) for t in range(20)])
    assert stab.first_stable(after=0.0) == Settled(board(), 14.0)


def test_a_clock_going_back_does_not_age_readings() -> None:
    stab = Stabiliser(reports=2, seconds=0.3)
    run(stab, (10.0, board(H8=X)), (9.0, board(H8=X)))
    assert stab.stable == board()
    assert stable_boards(run(stab, (10.3, board(H8=X)))) == [{H8: X}]
