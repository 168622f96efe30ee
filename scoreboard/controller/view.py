"""What the displays show: a pure function of the controller's state, decided here alone.

A table with one display shows the most pressing screen (:func:`frames`' ``table``). A table
with a panel per seat shows a seat's own screens only on that seat's panel (its question,
its blank, its score correction, what it has not seen, its "not your turn"), the same
shared screen on the others, and "your turn" on the panel of the player to move.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import assert_never

from engine.events import PlayMade
from engine.game import Game
from scoreboard.screens.models import (
    AdjustScreen,
    BlankPickerScreen,
    ChallengeWindowScreen,
    ConfirmScreen,
    DrawForFirstScreen,
    ErrorKind,
    ErrorScreen,
    LastPlayScreen,
    MenuItem,
    MenuScreen,
    PausedScreen,
    PlayerLine,
    ReadingScreen,
    ScoresScreen,
    Screen,
    TallyLine,
    TallyScreen,
    WordLine,
)

from .context import Context
from .judging import blank_squares
from .messages import squares_text
from .state import (
    MENU_ITEMS,
    Adjusting,
    Asking,
    BlankPick,
    Confirming,
    FirstDraw,
    Idle,
    Lobby,
    Menu,
    Over,
    Playing,
    Reading,
    TableState,
)

__all__ = ["Frames", "frames", "last_play_screen", "scores_screen"]


@dataclass(frozen=True)
class Frames:
    """The shared display's screen and each seat's."""

    table: Screen
    seats: tuple[Screen, ...]


PANELS = 4
COUNTDOWN_ROUNDING = 0.999
"""The challenge window's countdown shows the seconds left rounded up (0.001 s left is 1)."""
"""Seat panels a table may have: one per seat of the largest game; a panel whose seat has
no player in this game shows the shared screen."""


def frames(ctx: Context, s: TableState) -> Frames:
    """The screens of state ``s``: for a shared display and for each seat's panel."""
    layers = list(_layers(ctx, s))  # (screen, the seat it is for or None), most pressing first
    table = layers[0][0] if layers else _base(s, None)
    seats = []
    for seat in range(max(PANELS, s.seats)):
        mine = next((screen for screen, owner in layers if owner is None or owner == seat), None)
        seats.append(mine if mine is not None else _base(s, seat if seat < s.seats else None))
    return Frames(table, tuple(seats))


def _layers(ctx: Context, s: TableState) -> Iterator[tuple[Screen, int | None]]:
    """The screens of ``s`` in the order they cover each other, each for one seat or all;
    an all-seat screen ends them (the scores below are :func:`_base`'s)."""
    game, names = s.game, s.names
    if s.away:
        halt = s.halt
        refused = halt is not None and halt.refused and halt.away is not None
        why = halt.away if halt is not None and halt.away is not None else ""
        yield (ErrorScreen(ErrorKind.BOARD_REFUSED, why) if refused else ErrorScreen(ErrorKind.BOARD_DISCONNECTED)), None
        return
    if s.paused:
        yield PausedScreen(names[game.turn] if game is not None and not game.over else ""), None
        return
    match s.mode:  # the menu and corrections cover what they interrupted
        case Menu(selected=selected):
            item = MENU_ITEMS[selected]
            value = {MenuItem.PLAYERS: str(s.next_seats), MenuItem.PROFILE: s.next_profile}.get(item, "")
            yield MenuScreen(MENU_ITEMS, selected, value), None
            return
        case Asking(kind=kind, by=by, player=player, points=points):
            yield ConfirmScreen(kind, player=names[player], points=points, by=names[by]), None
            return
        case Adjusting(by=by, player=player, points=points):
            if game is not None:
                yield AdjustScreen(names[player], points, game.score(player)), by
        case Idle() | Reading() | Confirming() | BlankPick():
            pass
        case _:
            assert_never(s.mode)
    match s.play_mode:
        case BlankPick(seat=seat) as p:
            yield _blank_picker(ctx, s, p), seat
        case Confirming(kind=kind, seat=seat, returned=returned):
            yield ConfirmScreen(kind, count=len(returned), player=names[seat]), seat
        case Reading(dones=dones):
            yield ReadingScreen(names[dones[0].seat]), None
            return
        case Idle():
            pass
        case _:
            assert_never(s.play_mode)
    notice = s.notice
    if notice is not None and s.now < notice.until:
        yield notice.screen, notice.seat
        if notice.seat is None:
            return
    yield from _board_and_game(ctx, s)


def _board_and_game(ctx: Context, s: TableState) -> Iterator[tuple[Screen, int | None]]:
    """What the board and the game show when nobody is asked anything."""
    tiles, now, phase = s.tiles, s.now, s.phase
    if isinstance(phase, Over):  # the tally, whatever tiles are still lying about
        tally = phase.game.tally()
        rows = tuple(TallyLine(r.name, r.score, r.rack_adjustment, r.final) for r in tally.rows)
        yield TallyScreen(rows, tally.winners), None
        return
    if tiles.to_remove:
        yield ErrorScreen(ErrorKind.REMOVE_TILES, squares_text(sorted(tiles.to_remove))), None
        return
    if tiles.to_place:  # an overridden ruling or a restored board: the committed tiles go back
        yield ErrorScreen(ErrorKind.TILE_MOVED, squares_text(sorted(tiles.to_place))), None
        return
    match phase:
        case Lobby():
            return  # (the board is clear: the draw begins with the next read)
        case FirstDraw(draw=draw, letters=letters):
            redraw = draw.contenders if draw.rounds and draw.first is None else ()
            yield DrawForFirstScreen(s.names, letters, draw.first, redraw), None
            return
        case Playing():
            pass
        case _:
            assert_never(phase)
    game = phase.game
    if tiles.to_return:
        lookup = ctx.tiles(game.tile_set)
        back = "".join(sorted(t.rack_letter for uid in tiles.to_return if (t := lookup.tile_of(uid)) is not None))
        yield ErrorScreen(ErrorKind.PUT_BACK_TILES, back), None
        return
    if now < phase.last_play_until and (play := last_play_screen(game)) is not None:
        yield play, None
        return
    w = phase.window
    if w is not None:
        left = max(0, int(w.deadline - now + COUNTDOWN_ROUNDING))
        yield ChallengeWindowScreen(left, int(w.total), s.names[w.player]), None


def _base(s: TableState, seat: int | None) -> Screen:
    """The scores, "your turn" on the panel of the player to move."""
    game = s.game
    if game is None:
        return ScoresScreen((), 0)
    return scores_screen(s, game, yours=seat is not None and seat == game.turn and not game.over)


def _blank_picker(ctx: Context, s: TableState, p: BlankPick) -> BlankPickerScreen:
    blanks = blank_squares(ctx, s, p)
    square = blanks[len(p.chosen)].name() if len(p.chosen) < len(blanks) else ""
    return BlankPickerScreen(square, p.candidates, p.selected)


def scores_screen(s: TableState, game: Game, yours: bool = False) -> ScoresScreen:
    """Every player's score, clock and the bag; ``yours``: on the panel of the player to move."""
    clocks = s.phase.clocks if isinstance(s.phase, (Playing, Over)) else None
    minutes = game.profile.clock_minutes
    lines = []
    for p in range(s.seats):
        clock_s = None
        if clocks is not None and minutes:
            clock_s = int(minutes * 60 - clocks.game.used_by(p, s.now))
        lines.append(PlayerLine(s.names[p], game.score(p), clock_s, p == game.turn and not game.over))
    return ScoresScreen(tuple(lines), len(game.bag), yours)


def last_play_screen(game: Game) -> LastPlayScreen | None:
    """The last play's words, blanks in lower case."""
    play = next((e for e in reversed(game.events) if isinstance(e, PlayMade)), None)
    if play is None:
        return None
    blanks = {p.square for p in play.placement.tiles if p.tile.blank}
    words = []
    for word in play.words:
        text = "".join(
            ch.lower() if sq in blanks or ((t := game.board[sq]) is not None and t.blank) else ch
            for ch, sq in zip(word.text, word.squares)
        )
        words.append(WordLine(text, word.score))
    return LastPlayScreen(game.players[play.player], tuple(words), play.points, play.bingo, game.profile.bingo_bonus)

