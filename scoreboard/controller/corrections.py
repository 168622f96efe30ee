"""The menu and the corrections it leads to: each asked at one seat and confirmed at another.

Menu (short) opens the menu and moves to the next item, a seat's Done picks it, Challenge
closes it; a long Menu press pauses. New game (during a game), Undo, End game and Adjust a
score wait for a second seat's long press (:class:`Asking`); the asking seat's short
Challenge or a Menu press withdraws the request, and it lapses after a while. Overriding a
ruling is asked from the seat buttons (:mod:`scoreboard.controller.buttons`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from drivers.buttons.logic import Role
from engine.errors import ScoreboardError
from engine.events import AdjustScore, EndGame, UndoLastPlay
from scoreboard.screens.models import ConfirmKind, ErrorKind, MenuItem

from .challenges import override
from .clocks import pause
from .commit import Step, commit
from .context import Context
from .effects import PowerOff
from .first_draw import new_game
from .messages import error, refusal
from .state import MENU_ITEMS, Adjusting, Asking, BlankPick, Confirming, Idle, Menu, Playing, Reading, TableState

__all__ = ["ask", "asking_button", "adjust_button", "choose", "menu_button"]


def ask(ctx: Context, s: TableState, kind: ConfirmKind, seat: int, player: int = 0, points: int = 0) -> TableState:
    """``seat`` asks for a correction that another seat must confirm."""
    return replace(s, mode=Asking(kind, seat, s.now + ctx.settings.request_s, player, points, s.play_mode))


def menu_button(ctx: Context, s: TableState, long: bool) -> Step:
    """The shared Menu button: a short press opens the menu or moves on, a long one pauses.

    What the menu or a correction interrupted (a pass question, a blank's letter, a Done
    waiting for its read) is there again when it ends.
    """
    playing = isinstance(s.phase, Playing)
    match s.mode:
        case Adjusting(by=by, player=player, points=points, under=under) as adjusting:
            if long:  # done: a second seat confirms the correction
                return (ask(ctx, s, ConfirmKind.ADJUST, by, player, points) if points else replace(s, mode=under)), ()
            return replace(s, mode=replace(adjusting, player=(player + 1) % s.seats, points=0)), ()
        case Asking(under=under):
            if long:
                return (pause(s) if playing else s), ()
            return replace(s, mode=under), ()  # Menu withdraws a correction waiting for its second seat
        case Menu(selected=selected, under=under) as menu:
            if long:
                s = replace(s, mode=under)
                return (pause(s) if playing else s), ()
            return replace(s, mode=replace(menu, selected=(selected + 1) % len(MENU_ITEMS))), ()
        case Idle() | Reading() | Confirming() | BlankPick() as interrupted:
            if long:
                return (pause(s) if playing else s), ()
            return replace(s, mode=Menu(0, interrupted)), ()
        case _:
            assert_never(s.mode)


def choose(ctx: Context, s: TableState, item: MenuItem, seat: int) -> Step:
    """``seat``'s Done picked ``item`` of the menu (which closes, back to what it interrupted)."""
    under = s.play_mode
    s = replace(s, mode=under)
    playing = isinstance(s.phase, Playing)
    match item:
        case MenuItem.NEW_GAME:
            if playing:
                return ask(ctx, s, ConfirmKind.NEW_GAME, seat), ()
            return new_game(ctx, s, s.next_profile, s.next_seats), ()
        case MenuItem.PLAYERS:
            profile = ctx.profiles(s.next_profile)
            n = s.next_seats + 1
            seats = n if n <= profile.most_players else profile.min_players
            return replace(s, next_seats=seats, mode=Menu(MENU_ITEMS.index(item), under)), ()
        case MenuItem.PROFILE:
            names = ctx.profile_names
            name = names[(names.index(s.next_profile) + 1) % len(names)] if s.next_profile in names else names[0]
            profile = ctx.profiles(name)
            seats = max(profile.min_players, min(profile.most_players, s.next_seats))
            return replace(s, next_profile=name, next_seats=seats, mode=Menu(MENU_ITEMS.index(item), under)), ()
        case MenuItem.PAUSE:
            return (pause(s) if playing else s), ()
        case MenuItem.UNDO:
            if playing and s.tiles.last_play is not None:
                return ask(ctx, s, ConfirmKind.UNDO, seat), ()
            return error(ctx, s, ErrorKind.NOTHING_TO_UNDO), ()
        case MenuItem.ADJUST_SCORE:
            return (replace(s, mode=Adjusting(seat, under=under)) if s.game is not None else s), ()
        case MenuItem.END_GAME:
            return (ask(ctx, s, ConfirmKind.END_GAME, seat) if playing else s), ()
        case MenuItem.SHUT_DOWN:
            return pause(s), (PowerOff(),)
        case _:
            assert_never(item)


def asking_button(ctx: Context, s: TableState, a: Asking, role: Role, seat: int, long: bool) -> Step:
    """A seat button while ``a`` waits: another seat's long press confirms it.

    A correction of the game (undo, override, end) drops what it interrupted, which was
    about the game before it; a score adjustment and a refused correction go back to it.
    """
    if seat == a.by:
        if role is Role.CHALLENGE and not long:
            return replace(s, mode=a.under), ()  # the asking seat takes it back
        return s, ()
    if not long:
        return s, ()
    back = replace(s, mode=a.under)
    changed = replace(s, mode=Idle())
    playing = isinstance(s.phase, Playing)
    try:
        match a.kind:
            case ConfirmKind.UNDO:
                if not playing:
                    return error(ctx, back, ErrorKind.NOTHING_TO_UNDO), ()
                s, fx, _ = commit(ctx, changed, UndoLastPlay())
                if isinstance(s.phase, Playing):
                    s = replace(s, phase=replace(s.phase, window=None, last_play_until=0.0))
                return s, fx
            case ConfirmKind.ADJUST:
                s, fx, _ = commit(ctx, back, AdjustScore(a.player, a.points))
                return s, fx
            case ConfirmKind.OVERRIDE:
                return override(ctx, changed)
            case ConfirmKind.END_GAME:
                if not playing:
                    return back, ()  # it ended meanwhile
                s, fx, _ = commit(ctx, changed, EndGame())
                return s, fx
            case ConfirmKind.NEW_GAME:
                return new_game(ctx, changed, s.next_profile, s.next_seats), ()
            case ConfirmKind.PASS | ConfirmKind.EXCHANGE:  # (the player's own, never asked of a second seat)
                return back, ()
            case _:
                assert_never(a.kind)
    except ScoreboardError as e:
        return refusal(ctx, back, e), ()


def adjust_button(s: TableState, a: Adjusting, role: Role, seat: int, long: bool) -> TableState:
    """Done adds to the correction, Challenge takes off (a long press: 10); the seat that
    sets the points is the one that asks."""
    step = 10 if long else 1
    return replace(s, mode=replace(a, by=seat, points=a.points + (step if role is Role.DONE else -step)))
