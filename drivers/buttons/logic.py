"""Button logic, pure: debounce, short/long press and stuck detection on injected time.

Each :class:`ButtonLogic` is fed raw edges ``edge(pressed, at)`` and ``tick(now)`` and
returns the :class:`ButtonEvent` s that became due; ``next_due()`` says when the next
``tick`` can give anything (a level settling, a long press, stuck), so nothing polls. Times are seconds from any monotonic
source; nothing here reads a clock or touches GPIO.

- Debounce: a level counts once it has held ``debounce_ms``. A burst of bounces is one
  change, dated by its first edge (the moment the contact first moved).
- A press released before ``long_ms`` is a :attr:`Kind.PRESS` (emitted on release).
- A press reaching ``long_ms`` emits :attr:`Kind.LONG_PRESS` at once; its release emits
  nothing.
- A press reaching ``stuck_ms`` emits one :attr:`Kind.STUCK` (after the LONG_PRESS, which
  came first); the button is then ignored until it is released, which emits
  :attr:`Kind.RELEASED_AFTER_STUCK`.

``ButtonEvent.at`` is when the press began (first edge of the burst) for PRESS,
LONG_PRESS and STUCK, so two seats' presses can be ordered by who pressed first whatever
their length or emission order; for RELEASED_AFTER_STUCK it is when the release began.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.errors import ScoreboardError

__all__ = [
    "ButtonBank",
    "ButtonError",
    "ButtonEvent",
    "ButtonId",
    "ButtonLogic",
    "Kind",
    "Role",
    "Timing",
    "TimingError",
    "UnknownButtonError",
]


class ButtonError(ScoreboardError):
    """Base class of the button driver's errors."""


class TimingError(ButtonError, ValueError):
    """Debounce, long-press and stuck times that do not make sense together."""


class UnknownButtonError(ButtonError, KeyError):
    """A button (seat and role) that is not configured, or a name that is not a button."""

    def __str__(self) -> str:  # KeyError would quote the whole message again
        return str(self.args[0])


class Role(enum.Enum):
    """What a button is for."""

    DONE = "Done"
    CHALLENGE = "Challenge"
    MENU = "Menu"


class Kind(enum.Enum):
    """What a button did."""

    PRESS = "press"
    LONG_PRESS = "long press"
    STUCK = "stuck"
    RELEASED_AFTER_STUCK = "released after stuck"


_NAME = re.compile(r"(?:seat (\d+) )?(\w+)")


@dataclass(frozen=True, order=True)
class ButtonId:
    """One physical button: a seat's Done or Challenge (seat 1-4), or the shared Menu.

    ``seat`` is 1-based, as labelled on the table (seat 1 is the first entry of the
    configured pin lists; the engine's player index is ``seat - 1``); None for Menu.
    """

    seat: int | None
    role: Role

    def __post_init__(self) -> None:
        if (self.seat is None) != (self.role is Role.MENU) or (
            self.seat is not None and self.seat < 1
        ):
            raise UnknownButtonError(f"no button {self.seat!r}, {self.role!r}: seats are 1-4, Menu has none")

    def name(self) -> str:
        """``"seat 2 Done"``, ``"Menu"``."""
        return self.role.value if self.seat is None else f"seat {self.seat} {self.role.value}"

    @classmethod
    def from_name(cls, name: str) -> ButtonId:
        """The button named ``name`` (the inverse of :meth:`name`)."""
        match = _NAME.fullmatch(name.strip())
        roles = {r.value.casefold(): r for r in Role}
        if not match or match.group(2).casefold() not in roles:
            raise UnknownButtonError(f"{name!r} is not a button; e.g. 'seat 2 Done' or 'Menu'")
        seat = int(match.group(1)) if match.group(1) else None
        return cls(seat, roles[match.group(2).casefold()])

    def __repr__(self) -> str:
        return f"ButtonId.from_name({self.name()!r})"


@dataclass(frozen=True)
class ButtonEvent:
    """What a button did and when (see the module doc for what ``at`` means)."""

    seat: int | None
    role: Role
    kind: Kind
    at: float

    @property
    def button(self) -> ButtonId:
        """The button as a :class:`ButtonId`."""
        return ButtonId(self.seat, self.role)

    @property
    def player(self) -> int | None:
        """The engine's 0-based player index of the seat; None for Menu."""
        return None if self.seat is None else self.seat - 1

    def __str__(self) -> str:
        """``"seat 2 Done stuck"``."""
        return f"{self.button.name()} {self.kind.value}"


@dataclass(frozen=True)
class Timing:
    """The time limits, in milliseconds."""

    debounce_ms: int = 30
    long_ms: int = 2000
    stuck_ms: int = 10000

    def __post_init__(self) -> None:
        if not 0 <= self.debounce_ms < self.long_ms < self.stuck_ms:
            raise TimingError(
                f"need 0 <= debounce_ms < long_ms < stuck_ms, got {self.debounce_ms!r},"
                f" {self.long_ms!r}, {self.stuck_ms!r}"
            )


_TOLERANCE = 1e-6  # seconds: 2.3 - 0.3 is a hold of 2 s, float rounding aside


class ButtonLogic:
    """The state machine of one button; ``pressed`` is its level when created at ``now``.

    A button already held when created (a finger on it while the service restarts, or a
    jammed contact) gives no press or long press for that hold; it is still reported stuck
    when it stays down.
    """

    def __init__(
        self, button: ButtonId, timing: Timing = Timing(), *, pressed: bool = False, now: float = 0.0
    ) -> None:
        self.button = button
        self.timing = timing
        self._debounce = timing.debounce_ms / 1000
        self._long = timing.long_ms / 1000
        self._stuck = timing.stuck_ms / 1000
        self._stable = pressed  # the debounced level
        self._raw = pressed  # the last edge's level
        self._raw_since = now
        self._burst: float | None = None  # first edge away from the stable level
        self._press_start = now
        self._long_sent = pressed  # a hold begun before we looked is no press of any kind
        self._stuck_sent = False
        self._now = now

    @property
    def is_pressed(self) -> bool:
        """The debounced level: held down (whether long or stuck or not)."""
        return self._stable

    @property
    def is_stuck(self) -> bool:
        """Reported stuck and not released since."""
        return self._stable and self._stuck_sent

    def edge(self, pressed: bool, at: float) -> list[ButtonEvent]:
        """A raw edge to ``pressed`` at ``at``; returns the events due up to ``at``.

        Edges out of time order are taken as happening at the latest time seen.
        """
        events = self.tick(at)
        at = self._now
        if pressed == self._raw:
            return events
        self._raw = pressed
        self._raw_since = at
        if pressed != self._stable and self._burst is None:
            self._burst = at
        return events

    def tick(self, now: float) -> list[ButtonEvent]:
        """The events due by ``now`` (hold timers, settled levels)."""
        now = max(now, self._now)
        self._now = now
        events: list[ButtonEvent] = []
        settled = now - self._raw_since >= self._debounce - _TOLERANCE
        if self._raw == self._stable and settled:
            self._burst = None  # a glitch that went back: forget it
        if self._stable:
            # A pending release stops the hold at its first edge, so a release just
            # before long_ms is not mistaken for a long press while it settles.
            held_until = self._burst if self._burst is not None else now
            events += self._hold_events(held_until - self._press_start)
        if self._raw != self._stable and settled:
            start = self._burst if self._burst is not None else self._raw_since
            self._burst = None
            self._stable = self._raw
            if self._stable:
                self._press_start = start
                self._long_sent = self._stuck_sent = False
                events += self._hold_events(now - start)
            else:
                events += self._release(start)
        return events

    def next_due(self) -> float | None:
        """The earliest time at which :meth:`tick` can give an event or settle a level (None:
        nothing until the next edge). Computed from the edges' times: a caller sleeps until
        then instead of ticking on a period."""
        if self._raw != self._stable or self._burst is not None:
            # the level settles, or a glitch is forgotten (the hold's events up to the burst's
            # first edge came with that edge; the rest are due once it settled)
            return self._raw_since + self._debounce
        if self._stable and not self._long_sent:
            return self._press_start + self._long
        if self._stable and not self._stuck_sent:
            return self._press_start + self._stuck
        return None

    def _hold_events(self, held: float) -> list[ButtonEvent]:
        events = []
        if held >= self._long - _TOLERANCE and not self._long_sent:
            self._long_sent = True
            events.append(self._event(Kind.LONG_PRESS, self._press_start))
        if held >= self._stuck - _TOLERANCE and not self._stuck_sent:
            self._stuck_sent = True
            events.append(self._event(Kind.STUCK, self._press_start))
        return events

    def _release(self, at: float) -> list[ButtonEvent]:
        if self._stuck_sent:
            return [self._event(Kind.RELEASED_AFTER_STUCK, at)]
        if self._long_sent:
            return []
        return [self._event(Kind.PRESS, self._press_start)]

    def _event(self, kind: Kind, at: float) -> ButtonEvent:
        return ButtonEvent(self.button.seat, self.button.role, kind, at)

    def __repr__(self) -> str:
        return f"<ButtonLogic {self.button.name()} pressed={self._stable} stuck={self.is_stuck}>"


class ButtonBank:
    """The logic of several buttons, fed and ticked together.

    ``pressed`` gives the level of each button when created (default: all released).
    """

    def __init__(
        self,
        buttons: Iterable[ButtonId],
        timing: Timing = Timing(),
        *,
        now: float = 0.0,
        pressed: Mapping[ButtonId, bool] | None = None,
    ) -> None:
        levels = pressed or {}
        self.timing = timing
        self._logic = {
            b: ButtonLogic(b, timing, pressed=levels.get(b, False), now=now) for b in buttons
        }

    @property
    def buttons(self) -> tuple[ButtonId, ...]:
        """The buttons, in the order given."""
        return tuple(self._logic)

    def logic(self, button: ButtonId) -> ButtonLogic:
        """The state machine of ``button``."""
        try:
            return self._logic[button]
        except KeyError:
            raise UnknownButtonError(f"{button.name()!r} is not configured") from None

    def edge(self, button: ButtonId, pressed: bool, at: float) -> list[ButtonEvent]:
        """A raw edge of one button; returns every button's events due by ``at``."""
        self.logic(button)  # unknown buttons raise before anything changes
        events = self.tick(at)
        return events + self._logic[button].edge(pressed, at)

    def next_due(self) -> float | None:
        """The earliest :meth:`ButtonLogic.next_due` of the buttons (None: none is due)."""
        due = [d for logic in self._logic.values() if (d := logic.next_due()) is not None]
        return min(due) if due else None

    def tick(self, now: float) -> list[ButtonEvent]:
        """Every button's events due by ``now``, ordered by their ``at``."""
        events = [e for logic in self._logic.values() for e in logic.tick(now)]
        return sorted(events, key=lambda e: e.at)  # stable: one button's order is kept
