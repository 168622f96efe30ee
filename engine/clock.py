"""Thinking time, pure: a game clock per player and the per-move limit.

Times are seconds from any monotonic source, passed in by the caller; nothing here reads
a clock. Both are values: every change gives a new one. The overtime penalty is charged
per started minute over the game clock (NASPA: 10 points per minute).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace


def overtime_penalty(seconds_over: float, points_per_minute: int) -> int:
    """Points lost for ``seconds_over`` past the clock: per started minute."""
    if seconds_over <= 0 or points_per_minute <= 0:
        return 0
    return math.ceil(round(seconds_over, 3) / 60) * points_per_minute


@dataclass(frozen=True)
class GameClock:
    """A chess clock for 2 to 4 players: the seconds each has used, whose time runs since when.

    At most one player's time runs. ``limit``: seconds per player for the game (None:
    time is counted, not limited; the per-move limit may still apply).
    """

    used: tuple[float, ...]
    running: int | None = None
    since: float = 0.0
    limit: float | None = None

    @classmethod
    def for_players(cls, players: int, limit: float | None = None) -> GameClock:
        """A clock where nobody has used any time yet."""
        return cls((0.0,) * players, limit=limit)

    def run(self, player: int | None, now: float) -> GameClock:
        """The clock with the running time counted up to ``now`` and ``player``'s running
        from then on (None: nobody's, a pause or the end)."""
        return replace(self, used=self.used_at(now), running=player, since=now)

    def used_at(self, now: float) -> tuple[float, ...]:
        """Seconds each player has used by ``now``."""
        if self.running is None:
            return self.used
        used = list(self.used)
        used[self.running] += max(0.0, now - self.since)
        return tuple(used)

    def used_by(self, player: int, now: float) -> float:
        """Seconds ``player`` has used by ``now``."""
        return self.used_at(now)[player]

    def remaining(self, player: int, now: float) -> float | None:
        """Seconds left for ``player`` (negative in overtime); None without a limit."""
        return None if self.limit is None else self.limit - self.used_by(player, now)

    def penalties(self, now: float, points_per_minute: int) -> tuple[int, ...]:
        """Each player's overtime penalty at ``now`` (all 0 without a limit)."""
        if self.limit is None:
            return (0,) * len(self.used)
        return tuple(overtime_penalty(u - self.limit, points_per_minute) for u in self.used_at(now))


@dataclass(frozen=True)
class MoveTimer:
    """The per-move limit: whose move it times (None: no move yet), since when, and
    whether the player was warned that it ran out."""

    player: int | None = None
    started: float = 0.0
    warned: bool = False

    def begin(self, player: int, now: float) -> MoveTimer:
        """A new move of ``player`` from ``now``."""
        return MoveTimer(player, now)

    def shifted(self, seconds: float) -> MoveTimer:
        """The timer after time stood still for ``seconds`` (a pause)."""
        return replace(self, started=self.started + seconds)

    def left(self, now: float, limit: float) -> float:
        """Seconds left of a ``limit`` per move (negative when over)."""
        return move_time_left(self.started, now, limit)


def move_time_left(started: float, now: float, limit: float) -> float:
    """Seconds left of a per-move ``limit`` for a move begun at ``started`` (negative when over)."""
    return limit - (now - started)
