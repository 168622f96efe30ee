"""Thinking time, pure: a game clock per player and the per-move limit.

Times are seconds from any monotonic source, passed in by the caller; nothing here reads
a clock. The overtime penalty is charged per started minute over the game clock (NASPA:
10 points per minute).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


def overtime_penalty(seconds_over: float, points_per_minute: int) -> int:
    """Points lost for ``seconds_over`` past the clock: per started minute."""
    if seconds_over <= 0 or points_per_minute <= 0:
        return 0
    return math.ceil(round(seconds_over, 3) / 60) * points_per_minute


@dataclass
class GameClock:
    """A chess clock for 2 to 4 players, each with ``limit`` seconds for the game.

    At most one player's time runs; :meth:`pause` stops it, :meth:`start` starts (or
    switches to) a player. Remaining time goes negative in overtime.
    """

    players: int
    limit: float
    used: list[float] = field(default_factory=list)
    running: int | None = None
    since: float = 0.0

    def __post_init__(self) -> None:
        if not self.used:
            self.used = [0.0] * self.players

    def start(self, player: int, now: float) -> None:
        """Stop the running player's time and start ``player``'s."""
        self.pause(now)
        self.running = player
        self.since = now

    def pause(self, now: float) -> None:
        """Stop the running time (a pause, the end of the game)."""
        if self.running is not None:
            self.used[self.running] += max(0.0, now - self.since)
            self.running = None

    def used_by(self, player: int, now: float) -> float:
        """Seconds ``player`` has used so far."""
        extra = max(0.0, now - self.since) if self.running == player else 0.0
        return self.used[player] + extra

    def remaining(self, player: int, now: float) -> float:
        """Seconds left for ``player`` (negative in overtime)."""
        return self.limit - self.used_by(player, now)

    def penalty(self, player: int, now: float, points_per_minute: int) -> int:
        """``player``'s overtime penalty at ``now``."""
        return overtime_penalty(-self.remaining(player, now), points_per_minute)


def move_time_left(started: float, now: float, limit: float) -> float:
    """Seconds left of a per-move ``limit`` for a move begun at ``started`` (negative when over)."""
    return limit - (now - started)
