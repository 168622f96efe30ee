"""What the display shows: a pure function of the controller's state and its game."""

from __future__ import annotations

from engine.events import PlayMade
from engine.game import Game
from engine.tiles import BLANK
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

from .lookup import TileLookup
from .state import Phase, TableState

__all__ = ["MENU_ITEMS", "last_play_screen", "scores_screen", "screen_of"]

MENU_ITEMS: tuple[MenuItem, ...] = tuple(MenuItem)


def _name(s: TableState, seat: int) -> str:
    return s.names[seat]


def screen_of(s: TableState, g: Game | None, tiles: TileLookup | None) -> Screen:
    """What the display shows for state ``s`` (its game ``g``, its tile registry ``tiles``)."""
    now = s.now
    if s.away_since is not None:
        return ErrorScreen(ErrorKind.BOARD_DISCONNECTED)
    if s.paused_at is not None:
        return PausedScreen(_name(s, g.turn) if g is not None and not g.over else "")
    if s.menu is not None:
        item = MENU_ITEMS[s.menu.selected]
        value = {MenuItem.PLAYERS: str(s.next_seats), MenuItem.PROFILE: s.next_profile}.get(item, "")
        return MenuScreen(MENU_ITEMS, s.menu.selected, value)
    if s.request is not None:
        r = s.request
        return ConfirmScreen(r.kind, player=_name(s, r.player), points=r.points, by=_name(s, r.by))
    if s.adjusting is not None and g is not None:
        a = s.adjusting
        return AdjustScreen(_name(s, a.player), a.points, g.score(a.player))
    if s.picking is not None:
        p = s.picking
        blanks = [
            sq
            for sq, uid in sorted(p.laid)
            if tiles is not None and (t := tiles.tile_of(uid)) is not None and t.letter == BLANK
        ]
        square = blanks[len(p.chosen)].name() if len(p.chosen) < len(blanks) else ""
        return BlankPickerScreen(square, p.candidates, p.selected)
    if s.confirming is not None:
        c = s.confirming
        return ConfirmScreen(c.kind, count=len(c.returned), player=_name(s, c.seat))
    if s.readings:
        return ReadingScreen(_name(s, s.readings[0].seat))
    if s.notice is not None and now < s.notice_until:
        return s.notice
    if s.to_remove:
        return ErrorScreen(ErrorKind.REMOVE_TILES, " ".join(sq.name() for sq in sorted(s.to_remove)))
    if s.to_place:  # an overridden ruling: the play stands, its tiles go back on the board
        return ErrorScreen(ErrorKind.TILE_MOVED, " ".join(sq.name() for sq in sorted(s.to_place)))
    if s.phase is Phase.DRAW_FIRST:
        return DrawForFirstScreen(s.names, s.draws, None, s.contenders if len(s.rounds) else ())
    if s.phase is Phase.RETURN_FIRST:
        return DrawForFirstScreen(s.names, s.draws, s.first)
    if g is None:
        return ScoresScreen((), 0)
    if s.to_return and tiles is not None:
        letters = "".join(sorted(t.rack_letter for uid in s.to_return if (t := tiles.tile_of(uid)) is not None))
        return ErrorScreen(ErrorKind.PUT_BACK_TILES, letters)
    if s.phase is Phase.OVER:
        tally = g.tally()
        return TallyScreen(
            tuple(TallyLine(r.name, r.score, r.rack_adjustment, r.final) for r in tally.rows),
            tally.winners,
        )
    if now < s.last_play_until and (play := last_play_screen(g)) is not None:
        return play
    if s.window is not None:
        left = max(0, int(s.window.deadline - now + 0.999))
        return ChallengeWindowScreen(left, int(s.window.total), _name(s, s.window.player))
    return scores_screen(s, g)

def scores_screen(s: TableState, g: Game) -> ScoresScreen:
    """Every player's score, clock and the bag."""
    c = s.clock
    minutes = g.profile.clock_minutes
    lines = []
    for p in range(s.seats):
        clock_s = None
        if c is not None and minutes:
            used = c.used[p] + (max(0.0, s.now - c.since) if c.running == p else 0.0)
            clock_s = int(minutes * 60 - used)
        lines.append(PlayerLine(_name(s, p), g.score(p), clock_s, p == g.turn and not g.over))
    return ScoresScreen(tuple(lines), len(g.bag))


def last_play_screen(g: Game) -> LastPlayScreen | None:
    """The last play's words, blanks in lower case."""
    play = next((e for e in reversed(g.events) if isinstance(e, PlayMade)), None)
    if play is None:
        return None
    blanks = {p.square for p in play.placement.tiles if p.tile.blank}
    words = []
    for word in play.words:
        text = "".join(
            ch.lower() if sq in blanks or ((t := g.board[sq]) is not None and t.blank) else ch
            for ch, sq in zip(word.text, word.squares)
        )
        words.append(WordLine(text, word.score))
    return LastPlayScreen(
        g.players[play.player], tuple(words), play.points, play.bingo, g.profile.bingo_bonus
    )
