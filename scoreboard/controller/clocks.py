"""Time at the table: the game clock and the move limit, pauses and the board going away.

The clock of the player to move runs while the game is in play and time does not stand
still (:func:`sync_clock`, after every step); its state is journaled when the turn changes
and every :attr:`Settings.clock_save_s` while it runs. A play judged on a Done hands the
clock on at the press (:func:`hand_on`), as a chess clock's button does. While time stands still (the Pause
button, the board link down) the challenge window, the move timer, a waiting correction
and the messages on the display move on by the time that stood still.
"""

from __future__ import annotations

from dataclasses import replace

from engine.clock import GameClock
from engine.errors import ScoreboardError
from engine.events import Draw, Pass
from engine.rules import MoveLimitAction
from scoreboard.screens.models import ErrorKind

from .challenges import close_pending_window
from .commit import Fx, Step, commit, playing
from .context import Context
from .effects import Append
from .messages import error
from .records import ClockState
from .state import Asking, BlankPick, Clocks, Confirming, Halt, Idle, Over, Playing, Reading, TableState

__all__ = ["board_away", "board_back", "hand_on", "move_limit", "new_clocks", "pause", "resume", "sync_clock"]


def new_clocks(minutes: int | None, move_limit: int | None, players: int) -> Clocks | None:
    """The clocks of a game (None when the profile has neither a game clock nor a move limit)."""
    if not (minutes or move_limit):
        return None
    return Clocks(GameClock.for_players(players, minutes * 60.0 if minutes else None))


def sync_clock(ctx: Context, s: TableState) -> Step:
    """Run the clock of the player whose turn it is, unless time stands still or play has
    not begun (the deal); journal the clock when it changes hands and while it runs."""
    phase = s.phase
    if not isinstance(phase, (Playing, Over)) or phase.clocks is None:
        return s, ()
    c, game, now = phase.clocks, phase.game, s.now
    live = (
        c.move.player is not None  # it ran before: play has begun
        or all(len(r) == game.profile.rack_size for r in game.racks)
        or any(not isinstance(cmd, Draw) for cmd in game.log)
    )
    want = None if (s.halt is not None or game.over or not live or isinstance(phase, Over)) else game.turn
    if want == c.game.running:
        if want is None or now - c.saved < ctx.settings.clock_save_s:
            return s, ()
        clocks = replace(c, game=c.game.run(want, now), saved=now)  # a power cut loses little
    else:
        move = c.move.begin(want, now) if want is not None and want != c.move.player else c.move
        clocks = Clocks(c.game.run(want, now), move, now)
    record: Fx = (Append((ClockState(clocks.game.used),)),)
    return replace(s, phase=replace(phase, clocks=clocks)), record


def hand_on(s: TableState, at: float) -> Step:
    """The clock handed to the player whose turn it now is at ``at``, not now: a Done's
    press is the player's clock button, and the board read that judged it comes a sweep or
    more later, which is not the player's time. Time already counted (a save or a pause
    since the press) stays counted. Nothing when the turn did not change."""
    phase = s.phase
    if not isinstance(phase, Playing) or phase.clocks is None or s.halt is not None:
        return s, ()
    c, game = phase.clocks, phase.game
    if c.game.running is None or game.over or game.turn == c.game.running:
        return s, ()
    at = min(s.now, max(at, c.game.since))
    clocks = Clocks(c.game.run(game.turn, at), c.move.begin(game.turn, at), at)
    return replace(s, phase=replace(phase, clocks=clocks)), (Append((ClockState(clocks.game.used),)),)


def move_limit(ctx: Context, s: TableState) -> Step:
    """The move limit ran out: a warning, or (``move_limit_action = pass``) the turn passes."""
    if not isinstance(s.phase, Playing):
        return s, ()
    phase = s.phase
    c, game = phase.clocks, phase.game
    limit = game.profile.move_time_limit
    if c is None or not limit or c.game.running is None or c.move.left(s.now, limit) > 0:
        return s, ()
    name = s.names[c.game.running]
    if game.profile.move_limit_action is MoveLimitAction.PASS:
        s, fx, ok = close_pending_window(ctx, s)
        if not ok:
            return s, fx
        try:
            s, more, _ = commit(ctx, s, Pass(playing(s).game.turn))
        except ScoreboardError:
            return s, fx  # a going-out play's window: the turn cannot pass now
        if isinstance(s.play_mode, (Reading, Confirming, BlankPick)):  # that move is over
            s = s.with_play_mode(Idle())
        return error(ctx, s, ErrorKind.MOVE_TIME_UP, name), fx + more
    if c.move.warned:
        return s, ()
    s = replace(s, phase=replace(phase, clocks=replace(c, move=replace(c.move, warned=True))))
    return error(ctx, s, ErrorKind.MOVE_TIME_UP, name), ()


# --- time standing still --------------------------------------------------------------


def pause(s: TableState) -> TableState:
    """The Pause button (a long Menu press, or Pause in the menu): any button resumes."""
    return _halt(s, True, *_away(s))


def resume(s: TableState) -> TableState:
    """A button pressed while paused."""
    return _halt(s, False, *_away(s))


def _away(s: TableState) -> tuple[str | None, bool]:
    return (s.halt.away, s.halt.refused) if s.halt is not None else (None, False)


def board_away(s: TableState, reason: str, refused: bool = False) -> TableState:
    """The board link is down, or (``refused``) its board cannot be used: nothing can be
    judged, time stands still. The first reason of a link down is kept; a refusal, and a
    link down after one, replace what was shown (the newest news of the board)."""
    was = s.halt
    if was is not None and was.away is not None and not refused and not was.refused:
        reason = was.away
    return _halt(s, s.paused, reason, refused)


def board_back(s: TableState) -> TableState:
    """The board link is up again (with a board that can be used)."""
    return _halt(s, s.paused, None)


def _halt(s: TableState, paused: bool, away: str | None, refused: bool = False) -> TableState:
    was = s.halt
    if paused or away is not None:
        # (a Done waiting for its read waits on: the first settled read once time runs again judges it)
        return replace(s, halt=Halt(was.since if was is not None else s.now, paused, away, refused and away is not None))
    if was is None:
        return s
    return _shifted(replace(s, halt=None), s.now - was.since)


def _shifted(s: TableState, dt: float) -> TableState:
    """``s`` with its deadlines ``dt`` seconds later (time stood still that long)."""
    if isinstance(s.mode, Asking):
        s = replace(s, mode=replace(s.mode, until=s.mode.until + dt))
    waiting = s.play_mode
    if isinstance(waiting, Reading):
        s = s.with_play_mode(Reading(tuple(replace(d, deadline=d.deadline + dt) for d in waiting.dones)))
    if s.notice is not None:
        s = replace(s, notice=replace(s.notice, until=s.notice.until + dt))
    phase = s.phase
    if isinstance(phase, Playing):
        w, c = phase.window, phase.clocks
        s = replace(
            s,
            phase=replace(
                phase,
                window=None if w is None else replace(w, deadline=w.deadline + dt),
                clocks=None if c is None else replace(c, move=c.move.shifted(dt)),
                last_play_until=phase.last_play_until + dt,
                challenge_due=phase.challenge_due + dt,
            ),
        )
    return s
