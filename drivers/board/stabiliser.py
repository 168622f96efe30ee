"""The host's stabiliser: raw board readings in, stable board snapshots out (pure, time injected).

The controller only reports a location's reading once it is stable, but a tile slid across
cells, a tag read by a neighbouring reader or a junk read can still reach the host. Here a
location's change counts only after the new reading held for ``reports`` consecutive
reports *and* ``seconds`` seconds. A UID that would end up at two locations is held back:
where it was stable it stays, where it arrives it waits, until only one location remains;
while the raw readings show it at both, a :class:`DuplicateTile` says so.

Each reading the link delivers (SNAPSHOT, CHANGES, HEARTBEAT) is one report. A report after
which nothing is pending is *settled*; :meth:`Stabiliser.first_stable` finds the first
settled report at or after a moment (the Done press the controller judges).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from engine.errors import ScoreboardError

from .protocol import Loc
from .snapshot import BoardSnapshot

DEFAULT_REPORTS = 2
DEFAULT_SECONDS = 0.3
DEFAULT_HISTORY = 30.0  # seconds of settled reports kept for first_stable()
_EPSILON = 1e-9  # report times are floats: 1.3 - 1.0 must count as 0.3 s


class StabiliserConfigError(ScoreboardError, ValueError):
    """A stabiliser setting out of range (the value is quoted)."""


# --- events ---------------------------------------------------------------------------------


class StabiliserEvent:
    """Something the stabiliser reports; ``at`` is the report's time."""

    at: float


@dataclass(frozen=True)
class StableBoard(StabiliserEvent):
    """The stable board changed; ``snapshot`` is the new one."""

    snapshot: BoardSnapshot
    at: float


@dataclass(frozen=True)
class DuplicateTile(StabiliserEvent):
    """Tag ``uid`` is read at every location in ``locs``; it stays where it was stable."""

    uid: bytes
    locs: tuple[Loc, ...]
    at: float


@dataclass(frozen=True)
class DuplicateResolved(StabiliserEvent):
    """Tag ``uid`` is read at one location again (or nowhere)."""

    uid: bytes
    at: float


@dataclass(frozen=True)
class Settled:
    """A report after which nothing was pending: the board read ``snapshot`` at ``at``."""

    snapshot: BoardSnapshot
    at: float


@dataclass
class _Candidate:
    uid: bytes | None  # None: the location is becoming empty
    since: float
    reports: int


class Stabiliser:
    """Stable board snapshots from raw ones: a change counts after ``reports`` and ``seconds``.

    ``history``: how many seconds of settled reports :meth:`first_stable` can look back.
    """

    def __init__(
        self,
        reports: int = DEFAULT_REPORTS,
        seconds: float = DEFAULT_SECONDS,
        history: float = DEFAULT_HISTORY,
    ) -> None:
        if isinstance(reports, bool) or not isinstance(reports, int) or reports < 1:
            raise StabiliserConfigError(f"stable reports must be a whole number of at least 1, got {reports!r}")
        if not seconds >= 0:
            raise StabiliserConfigError(f"stable time must be 0 s or more, got {seconds!r}")
        if not history > 0:
            raise StabiliserConfigError(f"history must be above 0 s, got {history!r}")
        self.reports = reports
        self.seconds = seconds
        self.history = history
        self._stable = BoardSnapshot()
        self._pending: dict[Loc, _Candidate] = {}
        self._duplicates: dict[bytes, tuple[Loc, ...]] = {}
        self._settled: deque[Settled] = deque()
        self._last: float | None = None
        self._warm = False

    # --- state ---

    @property
    def warm(self) -> bool:
        """True once the stable board is built from readings: the first reports after a
        start leave every tile pending, and the empty stable board then is not the board."""
        return self._warm

    @property
    def stable(self) -> BoardSnapshot:
        """The stable board: no UID in two places, every reading held long enough."""
        return self._stable

    @property
    def pending(self) -> dict[Loc, bytes | None]:
        """Locations whose reading is changing, and to what (None: becoming empty)."""
        return {loc: c.uid for loc, c in sorted(self._pending.items())}

    @property
    def duplicates(self) -> dict[bytes, tuple[Loc, ...]]:
        """UIDs held back because they are read at several locations, with those locations."""
        return dict(self._duplicates)

    @property
    def is_settled(self) -> bool:
        """True when the last report left nothing pending."""
        return not self._pending

    def first_stable(self, after: float) -> Settled | None:
        """The first settled report at or after ``after``; None while there is none yet."""
        for s in self._settled:
            if s.at >= after:
                return s
        return None

    # --- input ---

    def update(self, raw: BoardSnapshot, now: float) -> list[StabiliserEvent]:
        """Take one report, read at ``now``; returns what changed."""
        if self._last is not None and now < self._last:
            now = self._last  # a clock that went back must not make readings older
        self._last = now
        self._track(raw, now)
        events: list[StabiliserEvent] = []
        ripe = {
            loc: c.uid
            for loc, c in self._pending.items()
            if c.reports >= self.reports and now - c.since >= self.seconds - _EPSILON
        }
        held: set[Loc] = set()
        while True:
            tags = self._apply(ripe, held)
            doubled = _doubled(tags)
            newly = {loc for loc, uid in ripe.items() if uid in doubled and loc not in held}
            if not newly:
                break
            held |= newly
        if tags != dict(self._stable.tags):
            self._stable = BoardSnapshot(tags, raw.sweep)
            events.append(StableBoard(self._stable, now))
        for loc in ripe.keys() - held:
            del self._pending[loc]
        self._warm = self._warm or bool(ripe) or not self._pending
        held_uids = {uid for loc in held if (uid := ripe[loc]) is not None}
        events += self._report_duplicates(raw, held_uids, now)
        if not self._pending:
            self._settled.append(Settled(self._stable, now))
        while self._settled and self._settled[0].at < now - self.history:
            self._settled.popleft()
        return events

    def _track(self, raw: BoardSnapshot, now: float) -> None:
        stable = self._stable.tags
        for loc in set(stable) | set(raw.tags) | set(self._pending):
            reading = raw.tags.get(loc)
            if reading == stable.get(loc):
                self._pending.pop(loc, None)
                continue
            c = self._pending.get(loc)
            if c is not None and c.uid == reading:
                c.reports += 1
            else:
                self._pending[loc] = _Candidate(reading, now, 1)

    def _apply(self, ripe: dict[Loc, bytes | None], held: set[Loc]) -> dict[Loc, bytes]:
        tags = dict(self._stable.tags)
        for loc, uid in ripe.items():
            if loc in held:
                continue
            if uid is None:
                tags.pop(loc, None)
            else:
                tags[loc] = uid
        return tags

    def _report_duplicates(self, raw: BoardSnapshot, held_uids: set[bytes], now: float) -> list[StabiliserEvent]:
        # Reported only while the raw readings show the UID twice: a tile slid off a cell
        # that has not been read empty long enough is held back too, but is no duplicate.
        current: dict[bytes, tuple[Loc, ...]] = {}
        for uid in held_uids:
            locs = tuple(raw.locations_of(uid))
            if len(locs) > 1:
                current[uid] = locs
        events: list[StabiliserEvent] = []
        for uid, locs in sorted(current.items()):
            if self._duplicates.get(uid) != locs:
                events.append(DuplicateTile(uid, locs, now))
        for uid in sorted(self._duplicates.keys() - current.keys()):
            events.append(DuplicateResolved(uid, now))
        self._duplicates = current
        return events

    def __repr__(self) -> str:
        return f"<Stabiliser reports={self.reports} seconds={self.seconds} stable={self._stable!r} pending={len(self._pending)}>"


def _doubled(tags: dict[Loc, bytes]) -> set[bytes]:
    seen: set[bytes] = set()
    doubled: set[bytes] = set()
    for uid in tags.values():
        (doubled if uid in seen else seen).add(uid)
    return doubled
