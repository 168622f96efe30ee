"""Judging a Done: the board read after the press, the tiles laid, blanks, pass and exchange.

A Done is judged on the first settled board read at or after the press (:func:`done`).
The committed and the observed board are compared (:func:`judge`): new tiles must come
from the player's rack, an old tile that moved is an error, not a move. Blanks get their
letter by lexicon inference when only one letter fits, otherwise the player picks it.
Nothing laid is an exchange (rack tiles swapped) or a pass, each confirmed by holding Done.
A play opens its challenge window (:mod:`.challenges`); the next move makes a pending play
final first.
"""

from __future__ import annotations

from dataclasses import replace

from drivers.board.protocol import Loc
from drivers.board.reading import cells_text, unknown_locs
from drivers.board.snapshot import BoardSnapshot
from engine.board import Square
from engine.errors import ScoreboardError
from engine.events import CloseWindow, Exchange, Pass, Play
from engine.lexicon import infer_blanks
from engine.placement import Placement
from engine.rules import WindowCloses
from engine.tiles import BLANK, Tile
from scoreboard.screens.models import ConfirmKind, ErrorKind

from .challenges import close_pending_window, open_window
from .clocks import hand_on
from .commit import Fx, Step, commit, lexicon, playing
from .context import Context
from .messages import error, refusal, squares_text
from .state import BlankPick, Confirming, Idle, Playing, Reading, TableState, Waiting

__all__ = ["blank_squares", "confirm", "done", "judge", "pick"]


def done(ctx: Context, s: TableState, seat: int, pressed: float, long: bool) -> Step:
    """A Done pressed at ``pressed``: judged on the first settled read at or after it, now
    (a settled read came in since) or when one comes (:class:`Reading`)."""
    waiting = Waiting(seat, pressed, s.now + ctx.settings.read_timeout_s, long)
    for run in s.reads.runs:
        if run.last >= pressed:
            return judge(ctx, s, waiting, run.snapshot)
    before = s.play_mode
    others = before.dones if isinstance(before, Reading) else ()
    return s.with_play_mode(Reading((*(d for d in others if d.seat != seat), waiting))), ()


def judge(ctx: Context, s: TableState, w: Waiting, snap: BoardSnapshot) -> Step:
    """Judge ``w``'s Done on the settled board ``snap``."""
    phase = playing(s)
    game, seat = phase.game, w.seat
    if game.over or s.tiles.to_fix:
        return s, ()  # (the display says how to put the board right)
    if s.reads.duplicates:
        return error(ctx, s, ErrorKind.DUPLICATE_TILE, " ".join(loc.name() for loc in s.reads.duplicates[0][1])), ()
    if s.reads.dead:  # the board would be judged without what lies on those cells
        return error(ctx, s, ErrorKind.READER_FAULT, cells_text(s.reads.dead[0][1])), ()
    window = phase.window
    if window is not None and window.going_out and seat != window.player:
        agreed = window.agreed | {seat}
        s = replace(s, phase=replace(phase, window=replace(window, agreed=agreed)))
        if agreed >= set(range(s.seats)) - {window.player}:
            s, closed, _ = commit(ctx, s, CloseWindow())
            return s, closed
        return s, ()
    if seat != game.turn:
        return error(ctx, s, ErrorKind.NOT_YOUR_TURN, s.names[game.turn], seat=seat), ()
    rack_size, bag = game.profile.rack_size, len(game.bag)
    lacking = [p for p in range(s.seats) if len(game.racks[p]) < rack_size and bag]
    if lacking:
        p = lacking[0]
        s = error(ctx, s, ErrorKind.REFILL_RACK, f"{s.names[p]}: {min(rack_size - len(game.racks[p]), bag)}")
        if ctx.settings.refill == "block":
            return s, ()
    cells = snap.cells()
    moved = sorted(sq for sq, uid in s.tiles.board.items() if cells.get(sq) != uid)
    if moved:
        return error(ctx, s, ErrorKind.TILE_MOVED, squares_text(moved)), ()
    fx: Fx = ()
    if window is not None and not window.going_out and game.profile.window_closes is WindowCloses.NEXT_PLAYER_ACTS:
        s, fx, _ = commit(ctx, s, CloseWindow())  # the next player's Done closes the window
        if not isinstance(s.phase, Playing):
            return s, fx  # that play ended the game
    new = tuple((sq, uid) for sq, uid in sorted(cells.items()) if sq not in s.tiles.board)
    s, more = _lay(ctx, s, seat, new) if new else _nothing_laid(ctx, s, seat, snap, w.long)
    s, handed = hand_on(s, w.pressed)  # a play taken: the player's time stopped at the press
    return s, fx + more + handed


def _lay(ctx: Context, s: TableState, seat: int, laid: tuple[tuple[Square, bytes], ...]) -> Step:
    game = playing(s).game
    lookup = ctx.tiles(game.tile_set)
    unknown = unknown_locs({Loc.cell(sq): uid for sq, uid in laid}, lambda uid: lookup.tile_of(uid) is not None)
    if unknown:  # named by where it lies, never guessed
        return error(ctx, s, ErrorKind.UNKNOWN_TILE, " ".join(loc.name() for loc in unknown)), ()
    named = [(sq, tile) for sq, uid in laid if (tile := lookup.tile_of(uid)) is not None]
    foreign = [sq for sq, uid in laid if uid not in s.tiles.racks[seat]]
    if foreign:
        return error(ctx, s, ErrorKind.NOT_YOUR_TILE, squares_text(foreign)), ()
    if not any(tile.letter == BLANK for _, tile in named):
        return _play(ctx, s, seat, laid, Placement(named))
    trial = Placement((sq, tile.assigned("A") if tile.letter == BLANK else tile) for sq, tile in named)
    try:
        game.check_play(seat, trial)
    except ScoreboardError as e:
        return refusal(ctx, s, e), ()
    return pick(ctx, s, BlankPick(seat, laid))


def blank_squares(ctx: Context, s: TableState, p: BlankPick) -> list[Square]:
    """The squares of ``p``'s blanks, in reading order."""
    game = s.game
    assert game is not None
    lookup = ctx.tiles(game.tile_set)
    return [sq for sq, uid in sorted(p.laid) if (t := lookup.tile_of(uid)) is not None and t.letter == BLANK]


def pick(ctx: Context, s: TableState, p: BlankPick) -> Step:
    """Name the next blank of ``p``: by inference when one letter fits, else ask the player."""
    game = playing(s).game
    lookup = ctx.tiles(game.tile_set)
    named = iter(p.chosen)
    placed: list[tuple[Square, Tile]] = []
    for sq, uid in sorted(p.laid):
        tile = lookup.tile_of(uid)
        assert tile is not None
        if tile.letter == BLANK:
            letter = next(named, None)
            tile = tile.assigned(letter) if letter else tile
        placed.append((sq, tile))
    placement = Placement(placed)
    blanks = blank_squares(ctx, s, p)
    if len(p.chosen) == len(blanks):
        return _play(ctx, s.with_play_mode(Idle()), p.seat, p.laid, placement)
    options = infer_blanks(game.board, placement, lexicon(ctx, s, game.profile), game.tile_set)
    if len(options) == 1:
        return _play(ctx, s.with_play_mode(Idle()), p.seat, p.laid, options[0])
    square = blanks[len(p.chosen)]
    fitting = {t.tile.letter for o in options for t in o.tiles if t.square == square}
    letters = tuple(ch for ch in game.tile_set.letters if ch != BLANK and (not fitting or ch in fitting))
    return s.with_play_mode(replace(p, candidates=letters, selected=0)), ()


def _play(ctx: Context, s: TableState, seat: int, laid: tuple[tuple[Square, bytes], ...], placement: Placement) -> Step:
    game = playing(s).game
    words = lexicon(ctx, s, game.profile) if game.profile.invalid_play_refused else None  # challenge=void
    try:
        game.check_play(seat, placement, words)
    except ScoreboardError as e:
        return refusal(ctx, s, e), ()
    s, fx, ok = close_pending_window(ctx, s)
    if not ok:
        return s, fx
    s, more, _ = commit(ctx, s, Play(seat, placement), laid=laid)
    phase = playing(s)
    s = replace(s, phase=replace(phase, last_play_until=s.now + ctx.settings.last_play_s))
    if phase.game.window_open:
        s = open_window(ctx, s, seat)
    return s, fx + more


def _nothing_laid(ctx: Context, s: TableState, seat: int, snap: BoardSnapshot, long: bool) -> Step:
    """Done without new tiles: an exchange when rack tiles were swapped, else a pass."""
    game = playing(s).game
    on_rack = set(snap.rack(seat).values())
    racks = s.tiles.racks
    committed = set(s.tiles.board.values()).union(*racks)
    returned = tuple(sorted(racks[seat] - on_rack))
    drawn = tuple(
        uid for _, uid in sorted(snap.rack(seat).items()) if uid not in committed and uid not in s.tiles.to_return
    )
    rack = frozenset(on_rack)
    if returned or drawn:
        if len(returned) != len(drawn):  # an exchange half done, or tiles in a hand
            return error(ctx, s, ErrorKind.BAD_PLAY, f"rack: {len(returned)} out, {len(drawn)} in"), ()
        if game.bag_after_refills < game.profile.exchange_min_bag:
            return error(ctx, s, ErrorKind.EXCHANGE_NOT_ALLOWED, str(game.bag_after_refills)), ()
        asked = Confirming(ConfirmKind.EXCHANGE, seat, returned, drawn, rack)
    else:
        asked = Confirming(ConfirmKind.PASS, seat, rack=rack)
    if long:
        return confirm(ctx, s, asked)
    return s.with_play_mode(asked), ()


def confirm(ctx: Context, s: TableState, c: Confirming) -> Step:
    """The pass or exchange ``c`` is confirmed (a long press of the seat's Done)."""
    s = s.with_play_mode(Idle())
    s, fx, ok = close_pending_window(ctx, s)
    if not ok:
        return s, fx
    lookup = ctx.tiles(playing(s).game.tile_set)
    try:
        if c.kind is ConfirmKind.PASS:
            s, more, _ = commit(ctx, s, Pass(c.seat))
            return s, fx + more
        out = [t.rack_letter for uid in c.returned if (t := lookup.tile_of(uid)) is not None]
        new = [t.rack_letter for uid in c.drawn if (t := lookup.tile_of(uid)) is not None]
        if len(out) != len(c.returned) or len(new) != len(c.drawn):
            return error(ctx, s, ErrorKind.UNKNOWN_TILE, s.names[c.seat]), fx
        s, more, _ = commit(
            ctx, s, Exchange(c.seat, "".join(out), "".join(new)), drawn=c.drawn, returned=c.returned
        )
        return s, fx + more
    except ScoreboardError as e:
        return refusal(ctx, s, e), fx
