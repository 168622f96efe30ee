"""When the table next changes by itself: the earliest time a :class:`Tick` can do anything.

A real-time service sleeps until :func:`next_due` (or the next input) instead of ticking on
a period: a notice or a correction's request running out, a Done's read timing out, the
challenge window (each second of its countdown, its end, a ruling due), the last play's
words leaving the display, and while a clock runs each second of its display, its
warnings and its periodic save, the move timer's warning and limit. Earlier ticks change
nothing (``tests/test_controller_due.py`` checks that on whole games); a tick at the
deadline may find nothing to do either (a deadline moved by a pause), which costs one step.
"""

from __future__ import annotations

import math

from .context import Context
from .speech import MOVE_WARNINGS
from .state import Asking, Over, Playing, Reading, TableState
from .view import COUNTDOWN_ROUNDING

__all__ = ["next_due"]


def next_due(ctx: Context, s: TableState) -> float | None:
    """The earliest time after ``s.now`` at which a tick can change ``s`` (None: nothing
    changes until an input comes)."""
    now = s.now
    due: list[float] = []
    if s.notice is not None:
        due.append(s.notice.until)
    if isinstance(s.mode, Asking):
        due.append(s.mode.until)
    waiting = s.play_mode
    if isinstance(waiting, Reading):
        due += [d.deadline for d in waiting.dones]
    phase = s.phase
    if isinstance(phase, Playing):
        due.append(phase.last_play_until)
        if phase.challenges:
            due.append(phase.challenge_due)
        w = phase.window
        if w is not None:
            due.append(w.deadline)
            due.append(_next_change(w.deadline - now + COUNTDOWN_ROUNDING, now))  # the countdown's seconds
    if isinstance(phase, (Playing, Over)) and phase.clocks is not None and s.halt is None:
        c = phase.clocks
        player = c.game.running
        if player is not None:
            due.append(c.saved + ctx.settings.clock_save_s)
            minutes = phase.game.profile.clock_minutes
            if minutes:  # the display's seconds, the warnings, the overtime's minutes
                due.append(_next_change(minutes * 60 - c.game.used_by(player, now), now))
            limit = phase.game.profile.move_time_limit
            if limit and isinstance(phase, Playing):
                left = c.move.left(now, limit)
                due += [now + left - mark for mark in (*MOVE_WARNINGS, 0) if left > mark]
                due.append(_next_change(left, now))
    later = [t for t in due if t > now]
    return min(later) if later else None


def _next_change(value: float, now: float) -> float:
    """When ``int()`` of a quantity that is ``value`` at ``now`` and falls by one a second
    next shows another number (the displays' seconds: truncated toward zero)."""
    if value > 0:  # n.5 shows n until it falls below n; n itself shows n - 1 at once after
        return now + (value - math.floor(value)) + EPSILON_S
    return now + 1.0 - (math.ceil(value) - value)  # -0.5 shows 0 until -1 exactly


EPSILON_S = 1e-6
"""A tick just after a display's number turns (a number is shown until the instant after)."""
