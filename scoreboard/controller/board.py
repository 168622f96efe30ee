"""What the board reads: settled snapshots, draws from the bag, corrections, dead readers.

Every board read updates what the table sees. While playing, tags that come onto a rack
from the bag are draws (while the rack has room); the next player's first tile closes the
window (``de``, ``en``); tiles that must come off the board or go back are checked off; a
question (pass, exchange, a blank's letter) is dropped when the tiles it was about moved;
and the Done presses waiting for a settled read are judged. After a restart the first
settled read is compared with the restored board.
"""

from __future__ import annotations

from dataclasses import replace

from drivers.board.reading import cells_text
from drivers.board.snapshot import BoardSnapshot
from engine.board import Square
from engine.errors import ScoreboardError
from engine.events import CloseWindow, Draw
from engine.rules import WindowCloses
from engine.tiles import Tile, letters_of
from scoreboard.screens.models import ErrorKind

from .commit import Fx, Step, commit, playing
from .context import Context
from .first_draw import draw_read
from .inputs import BoardRead, ReaderState
from .judging import judge
from .messages import error, refusal
from .state import BlankPick, Confirming, FirstDraw, Idle, Lobby, Playing, Reading, SettledRun, TableState

__all__ = ["board_read", "reader_state", "reads_matter"]

RUNS_KEPT = 8  # settled runs remembered for Done presses that come in late


def board_read(ctx: Context, s: TableState, event: BoardRead) -> Step:
    """A report of the stabiliser: the stable board and whether it is settled."""
    snap, old = event.snapshot, s.reads
    runs = old.runs
    if event.settled:
        if runs and runs[-1].snapshot == snap and old.settled:
            runs = (*runs[:-1], replace(runs[-1], last=event.at))
        else:
            runs = (*runs, SettledRun(event.at, snap))
    cells = snap.cells()
    s = replace(
        s,
        reads=replace(old, observed=snap, settled=event.settled, runs=runs[-RUNS_KEPT:], duplicates=event.duplicates),
        tiles=replace(s.tiles, to_remove=frozenset(sq for sq in s.tiles.to_remove if sq in cells)),
    )
    if isinstance(s.phase, (Lobby, FirstDraw)):
        return draw_read(ctx, s, snap, event.settled)
    tiles = s.tiles
    tiles = replace(tiles, to_return=frozenset(uid for uid in tiles.to_return if snap.locations_of(uid)))
    s = replace(s, tiles=tiles)
    if tiles.check_board and event.settled and isinstance(s.phase, Playing):
        s = _compare_restored(s, cells)
    tiles = s.tiles
    s = replace(s, tiles=replace(tiles, to_place=frozenset(sq for sq in tiles.to_place if cells.get(sq) != tiles.board.get(sq))))
    if not isinstance(s.phase, Playing):
        return s, ()  # over: the tiles are checked off, nothing else is read
    s, fx = _take_draws(ctx, s, snap)
    s, more = _next_player_lays(ctx, s, cells)
    fx += more
    s = _drop_stale_question(s, snap, cells)
    waiting = s.play_mode
    if event.settled and isinstance(waiting, Reading):
        due = [d for d in waiting.dones if event.at >= d.pressed]
        rest = tuple(d for d in waiting.dones if event.at < d.pressed)
        s = s.with_play_mode(Idle())
        for press in due:
            if not isinstance(s.phase, Playing):
                break
            s, more = judge(ctx, s, press, snap)
            fx += more
        if rest and isinstance(s.play_mode, Idle):  # pressed after this read: the next one judges them
            s = s.with_play_mode(Reading(rest))
    return s, fx


def reads_matter(s: TableState) -> bool:
    """Whether a board read with the tags of the last one could change more than the time of
    the latest settled run: a Done waiting for a read, a board not settled, the lobby (its
    next read starts the draw for the first player), a tie in that draw (its repeat blanks
    the tied letters), a restored board not compared yet, tiles to put right (a read checks
    them off), challenges waiting to be ruled (any input but a tick rules them). While not,
    the service may have such reads held back and take only the latest before its next input."""
    if not s.reads.settled or isinstance(s.phase, Lobby) or s.tiles.check_board or s.tiles.to_fix:
        return True
    if isinstance(s.phase, FirstDraw) and s.phase.stale:
        return True
    if isinstance(s.phase, Playing) and s.phase.challenges:
        return True  # (any input but a tick rules them: a read would, before their grace ends)
    return isinstance(s.play_mode, Reading)


def _compare_restored(s: TableState, cells: dict[Square, bytes]) -> TableState:
    """After a restart: committed tiles that are not where they were go back; tiles that
    are no committed tile and not the current player's go off the board."""
    tiles, game = s.tiles, playing(s).game
    mine = tiles.racks[game.turn]
    return replace(
        s,
        tiles=replace(
            tiles,
            check_board=False,
            to_place=frozenset(sq for sq, uid in tiles.board.items() if cells.get(sq) != uid),
            to_remove=frozenset(sq for sq, uid in cells.items() if sq not in tiles.board and uid not in mine),
        ),
    )


def _take_draws(ctx: Context, s: TableState, snap: BoardSnapshot) -> Step:
    """Tags that came onto a rack from the bag are draws, while the rack has room."""
    game = playing(s).game
    if game.over or not len(game.bag):
        return s, ()
    tiles = s.tiles
    known = set(tiles.board.values()).union(*tiles.racks) | set(snap.cells().values()) | tiles.to_return
    lookup = ctx.tiles(game.tile_set)
    fx: Fx = ()
    for p in range(s.seats):
        if not isinstance(s.phase, Playing):
            break
        game = s.phase.game
        room = min(game.profile.rack_size - len(game.racks[p]), len(game.bag))
        if room <= 0:
            continue
        new = [uid for _, uid in sorted(snap.rack(p).items()) if uid not in known]
        named: list[tuple[bytes, Tile]] = [(uid, t) for uid in new if (t := lookup.tile_of(uid)) is not None]
        if len(named) < len(new):
            s = error(ctx, s, ErrorKind.UNKNOWN_TILE, s.names[p])
        take = named[:room]
        if not take:
            continue
        try:
            s, more, _ = commit(ctx, s, Draw(p, letters_of(t for _, t in take)), drawn=tuple(uid for uid, _ in take))
        except ScoreboardError as e:
            s = refusal(ctx, s, e)
            continue
        fx += more
    return s, fx


def _next_player_lays(ctx: Context, s: TableState, cells: dict[Square, bytes]) -> Step:
    """``de``, ``en``: the next player's first tile on the board closes the window."""
    if not isinstance(s.phase, Playing):
        return s, ()
    phase = s.phase
    w, game = phase.window, phase.game
    if w is None or w.going_out or game.profile.window_closes is not WindowCloses.NEXT_PLAYER_ACTS:
        return s, ()
    mine = s.tiles.racks[game.turn]
    if any(uid in mine for sq, uid in cells.items() if sq not in s.tiles.board):
        s, fx, _ = commit(ctx, s, CloseWindow())
        return s, fx
    return s, ()


def _drop_stale_question(s: TableState, snap: BoardSnapshot, cells: dict[Square, bytes]) -> TableState:
    """A pass, exchange or blank question is judged again when its tiles changed."""
    board = s.tiles.board
    match s.play_mode:
        case Confirming(seat=seat, rack=rack):
            if set(cells) - set(board) or set(snap.rack(seat).values()) != rack:
                return s.with_play_mode(Idle())  # tiles laid or the rack changed after all
        case BlankPick(laid=laid):
            if {sq: uid for sq, uid in cells.items() if sq not in board} != dict(laid):
                return s.with_play_mode(Idle())  # the tiles the letters were for moved
        case _:
            pass
    return s


def reader_state(ctx: Context, s: TableState, event: ReaderState) -> TableState:
    """A reader failed or works again; while one is dead no Done is judged."""
    dead = s.reads.dead
    others = tuple((r, locs) for r, locs in dead if r != event.reader)
    if event.working:
        return replace(s, reads=replace(s.reads, dead=others))
    s = replace(s, reads=replace(s.reads, dead=(*others, (event.reader, event.locs))))
    if len(others) == len(dead):  # newly dead: say so at once
        s = error(ctx, s, ErrorKind.READER_FAULT, cells_text(event.locs))
    return s
