"""Challenges and the challenge window: presses, the ruling, deadlines, overriding a ruling.

A Challenge is reported when it is released, so another seat's press begun earlier may
still be held: the ruling waits :attr:`Settings.challenge_grace_s` (or until anything else
happens) and goes to the challenge pressed first. The window closes at the profile's
deadline (the next player's first tile or Done; ``fr``: the player's draw), at the
configured time, or after a going-out play when every other seat pressed Done.
"""

from __future__ import annotations

from dataclasses import replace

from engine.events import CloseWindow, OverrideRuling, PlayMade
from engine.game import ChallengeResult
from engine.tiles import BLANK
from scoreboard.screens.models import ChallengeResultScreen, ErrorKind, UnseenScreen

from .commit import Fx, Step, commit, lexicon, playing
from .context import Context
from .messages import error, notice
from .state import Playing, TableState, Window

__all__ = ["challenge", "close_pending_window", "deadlines", "open_window", "override", "rule_challenges", "unseen"]


def close_pending_window(ctx: Context, s: TableState) -> tuple[TableState, Fx, bool]:
    """The next move makes the pending play final; False when that ended the game."""
    if playing(s).game.window_open:
        s, fx, _ = commit(ctx, s, CloseWindow())
        return s, fx, isinstance(s.phase, Playing)
    return s, (), True


def open_window(ctx: Context, s: TableState, player: int) -> TableState:
    """The challenge window of ``player``'s play opens for the configured time."""
    phase = playing(s)
    game = phase.game
    going_out = not game.racks[player] and not len(game.bag)
    total = ctx.settings.window_s
    return replace(s, phase=replace(phase, window=Window(player, s.now + total, total, going_out)))


def challenge(ctx: Context, s: TableState, seat: int, pressed: float) -> TableState:
    """A Challenge of ``seat`` pressed at ``pressed``: waits a moment for its ruling."""
    phase = playing(s)
    game, w = phase.game, phase.window
    if game.profile.invalid_play_refused:  # challenge=void: every play was checked when laid
        return error(ctx, s, ErrorKind.NO_CHALLENGE, seat=seat)
    if w is None or not game.window_open or pressed >= w.deadline:
        if game.overridable_ruling is None and not phase.challenges:
            return error(ctx, s, ErrorKind.TOO_LATE, seat=seat)
        return s  # (a second challenge of a play already ruled on: the first counted)
    if seat == w.player or any(c == seat for _, c in phase.challenges):
        return s
    due = phase.challenge_due if phase.challenges else s.now + ctx.settings.challenge_grace_s
    return replace(s, phase=replace(phase, challenges=(*phase.challenges, (pressed, seat)), challenge_due=due))


def rule_challenges(ctx: Context, s: TableState) -> Step:
    """Rule on the challenge pressed first of those waiting."""
    phase = playing(s)
    waiting = phase.challenges
    s = replace(s, phase=replace(phase, challenges=()))
    if not waiting or not phase.game.window_open:
        return s, ()
    _, seat = min(waiting)
    game = phase.game
    s, fx, result = commit(ctx, s, game.rule(seat, lexicon(ctx, s, game.profile)))
    assert isinstance(result, ChallengeResult)
    return _show_ruling(ctx, s, result), fx


def _show_ruling(ctx: Context, s: TableState, result: ChallengeResult) -> TableState:
    if isinstance(s.phase, Playing):
        s = replace(s, phase=replace(s.phase, last_play_until=0.0))
    screen = ChallengeResultScreen(
        challenger=s.names[result.challenger],
        player=s.names[result.player],
        valid=result.valid,
        invalid_words=result.invalid_words,
        points=result.points,
        lost_turn=result.lost_turn,
        lost_game="" if result.lost_game is None else s.names[result.lost_game],
    )
    return notice(ctx, s, screen, ctx.settings.result_s)


def override(ctx: Context, s: TableState) -> Step:
    """A second seat confirmed: the last ruling goes the other way; the house lists learn it."""
    game = s.game
    assert game is not None
    ruling = game.overridable_ruling
    if ruling is None:
        return error(ctx, s, ErrorKind.TOO_LATE), ()
    if ruling.invalid_words:
        words: tuple[str, ...] = ()
    else:  # the main word is the one the table disputes
        play = next(e for e in reversed(game.events) if isinstance(e, PlayMade))
        words = (play.words[0].text,)
    s, fx, result = commit(ctx, s, OverrideRuling(words))
    assert isinstance(result, ChallengeResult)
    return _show_ruling(ctx, s, result), fx


def deadlines(ctx: Context, s: TableState) -> Step:
    """Time passed: challenges pressed before the deadline are ruled, then the window closes."""
    if not isinstance(s.phase, Playing):
        return s, ()
    phase, now = s.phase, s.now
    w = phase.window
    fx: Fx = ()
    if phase.challenges and (now >= phase.challenge_due or (w is not None and now >= w.deadline)):
        s, ruled = rule_challenges(ctx, s)  # pressed before the deadline: ruled before the window closes
        fx += ruled
    if isinstance(s.phase, Playing) and s.phase.window is not None and now >= s.phase.window.deadline:
        s, closed, _ = commit(ctx, s, CloseWindow())
        fx += closed
    return s, fx


def unseen(ctx: Context, s: TableState, seat: int) -> TableState:
    """The tiles ``seat`` has not seen (the bag and the other racks), on its own panel."""
    game = s.game
    assert game is not None
    counts = game.unseen(seat)
    letters = [ch for ch in game.tile_set.letters if ch != BLANK] + [BLANK]
    return notice(ctx, s, UnseenScreen(tuple((ch, counts[ch]) for ch in letters if counts[ch] > 0)), seat=seat)
