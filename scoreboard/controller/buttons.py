"""What a button press means: decided here, from the table's mode, in one place.

Before any mode: a stuck button is ignored (the driver reports it), nothing counts while
the board is away, and any press while paused only resumes. The shared Menu button has
its own meaning (:func:`~scoreboard.controller.corrections.menu_button`). A seat's Done and
Challenge then mean what the mode says; in play (idle or reading) Done ends the move and
Challenge challenges, and a long Challenge asks to override the last ruling, challenges
while a window is open, or shows the tiles the seat has not seen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from drivers.buttons.logic import ButtonEvent, Kind, Role
from scoreboard.screens.models import ConfirmKind, ErrorKind

from .challenges import challenge, unseen
from .clocks import hand_on, resume
from .commit import Step, playing
from .context import Context
from .corrections import adjust_button, ask, asking_button, choose, menu_button
from .judging import confirm, done, pick
from .messages import error
from .state import MENU_ITEMS, Adjusting, Asking, BlankPick, Confirming, Idle, Menu, Playing, Reading, TableState

__all__ = ["press"]


def press(ctx: Context, s: TableState, e: ButtonEvent) -> Step:
    """The state after the button event ``e``."""
    if e.kind in (Kind.STUCK, Kind.RELEASED_AFTER_STUCK):
        return s, ()
    if s.away and not (s.halt is not None and e.at < s.halt.since and not s.paused):
        return s, ()  # (a press released before the link went down still counts: its Done waits for the board)
    if s.paused:
        return resume(s), ()  # any press only resumes
    long = e.kind is Kind.LONG_PRESS
    if e.role is Role.MENU:
        return menu_button(ctx, s, long)
    seat = e.player
    assert seat is not None
    if seat >= s.seats:
        return s, ()  # a seat that does not play in this game
    match s.mode:
        case Menu(selected=selected, under=under):
            if e.role is Role.DONE and not long:
                return choose(ctx, s, MENU_ITEMS[selected], seat)
            if e.role is Role.CHALLENGE:
                return replace(s, mode=under), ()  # the menu closes: back to what it interrupted
            return s, ()
        case Asking() as asking:
            return asking_button(ctx, s, asking, e.role, seat, long)
        case Adjusting() as adjusting:
            return adjust_button(s, adjusting, e.role, seat, long), ()
        case BlankPick() as p if seat == p.seat:
            picked, fx = _pick_button(ctx, s, p, e.role, long)
            picked, handed = hand_on(picked, e.at)  # the letter taken, the play made: the clock stopped at the press
            return picked, fx + handed
        case Confirming() as c if seat == c.seat:
            if e.role is Role.DONE and long:
                confirmed, fx = confirm(ctx, s, c)
                confirmed, handed = hand_on(confirmed, e.at)
                return confirmed, fx + handed
            if e.role is Role.CHALLENGE:
                return replace(s, mode=Idle()), ()
            return s, ()
        case Idle() | Reading() | BlankPick() | Confirming():
            if not isinstance(s.phase, Playing):
                return s, ()
            return _play_button(ctx, s, e.role, seat, e.at, long)
        case _:
            assert_never(s.mode)


def _play_button(ctx: Context, s: TableState, role: Role, seat: int, at: float, long: bool) -> Step:
    """A seat's Done or Challenge while the game is in play."""
    if role is Role.DONE:
        if isinstance(s.mode, (BlankPick, Confirming)):  # another seat's question is open
            return error(ctx, s, ErrorKind.NOT_YOUR_TURN, s.names[playing(s).game.turn], seat=seat), ()
        return done(ctx, s, seat, at, long)
    phase = playing(s)
    if not long:
        return challenge(ctx, s, seat, at), ()
    if phase.game.overridable_ruling is not None and phase.game.profile.overrides_allowed:
        return ask(ctx, s, ConfirmKind.OVERRIDE, seat), ()
    if phase.window is not None:
        return challenge(ctx, s, seat, at), ()
    return unseen(ctx, s, seat), ()


def _pick_button(ctx: Context, s: TableState, p: BlankPick, role: Role, long: bool) -> Step:
    """The blank picker: Done next letter (long: take it), Challenge previous (long: back)."""
    n = len(p.candidates)
    if role is Role.DONE and long:
        return pick(ctx, s, replace(p, chosen=(*p.chosen, p.candidates[p.selected])))
    if role is Role.DONE:
        return replace(s, mode=replace(p, selected=(p.selected + 1) % n)), ()
    if long:
        return replace(s, mode=Idle()), ()  # back to laying tiles
    return replace(s, mode=replace(p, selected=(p.selected - 1) % n)), ()
