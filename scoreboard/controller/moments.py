"""The moment a table is at (:class:`~.records.Moment`): taken from a state, journaled when
it changes, and put back on a restored one.

A restart on the same clock (a scripted run on its virtual clock) gets everything back: the
open menu, a Done waiting for its read, the window's deadline, the clock running since when.
A restart on a new clock (the device after a power cut, whose monotonic time began anew)
gets back what holds no time (the menu, a question, a blank being named, the next game's
settings); a Done being read, a second seat's pending confirmation and the times are left
to the table, which starts paused.
"""

from __future__ import annotations

from dataclasses import replace

from .records import Moment
from .state import Adjusting, Asking, Halt, Idle, Menu, Over, Playing, Reading, TableState

__all__ = ["left_moment", "moment_of", "with_moment"]


def moment_of(s: TableState) -> Moment | None:
    """The moment of ``s``; None before a game is in play (nothing is journaled then)."""
    phase = s.phase
    if not isinstance(phase, (Playing, Over)):
        return None
    paused = s.halt.since if s.halt is not None and s.halt.paused else None
    if isinstance(phase, Over):
        return Moment(s.mode, None, phase.clocks, paused_since=paused, next_profile=s.next_profile, next_seats=s.next_seats)
    return Moment(
        s.mode, phase.window, phase.clocks, phase.challenges, phase.challenge_due, phase.last_play_until,
        paused, s.next_profile, s.next_seats,
    )


def left_moment(old: TableState, new: TableState) -> Moment | None:
    """The last moment of ``old``'s game when ``new`` has left it for a new game (the lobby
    or the draw for the first player), else None."""
    last = moment_of(old)
    if last is None or moment_of(new) is not None:
        return None
    return replace(last, left=True)


def with_moment(s: TableState, m: Moment, *, same_clock: bool) -> TableState:
    """``s`` (restored from the records) at the moment ``m``; all of it on the ``same_clock``,
    else only what holds no time."""
    s = replace(s, next_profile=m.next_profile or s.next_profile, next_seats=m.next_seats or s.next_seats)
    if not same_clock:
        mode = m.mode
        if isinstance(mode, Asking):
            mode = mode.under
        if isinstance(mode, (Menu, Adjusting)) and isinstance(mode.under, Reading):
            mode = replace(mode, under=Idle())
        if isinstance(mode, Reading):
            mode = Idle()
        return replace(s, mode=mode)
    phase = s.phase
    if isinstance(phase, Playing):
        phase = replace(
            phase, window=m.window, clocks=m.clocks, challenges=m.challenges,
            challenge_due=m.challenge_due, last_play_until=m.last_play_until,
        )
    elif isinstance(phase, Over):
        phase = replace(phase, clocks=m.clocks)
    halt = Halt(m.paused_since, paused=True) if m.paused_since is not None else None
    return replace(s, phase=phase, mode=m.mode, halt=halt)
