"""The hub's picture of the event: every table's games, state and presence, and what viewers see.

:meth:`Hub.receive` takes one MQTT message (topic and bytes, from any thread) and tells which
table changed; a message that is not what its topic carries is refused with a
:class:`~scoreboard.broadcast.messages.BadMessage`, logged and counted, and changes nothing.
Everything shown goes through a cutoff (the time now less the broadcast delay): the venue,
a table, the standings, the feed and each game's GCG are the event as it was then, the
engine's flags and the count of refused messages too. Racks are shown once the game is over
at the cutoff, or with ``racks = "delayed"`` at once (the delay applies to them as to the
rest). Of a board's state the hub keeps what the pages show (:data:`STATE_SHOWN`: not its
board, which the hub's own game shows, nor its racks).
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoreboard.broadcast.messages import (
    BadMessage,
    Topics,
    decode_record,
    decode_state,
    decode_status,
)

from .game import HubGame
from .store import Writer

__all__ = ["STATE_SHOWN", "Hub", "Refusal", "TableFeed"]

log = logging.getLogger(__name__)

GAP_WAIT_S = 3.0  # a record after a gap waits this long for the missing ones before they are asked for
RESEND_EVERY_S = 5.0  # and asked for again at most this often
REFUSALS_KEPT = 50
STATE_SHOWN = (
    "phase", "profile", "names", "seats", "turn", "scores", "bag", "racks", "window", "tally", "first_draw", "paused",
    "away", "mode", "now", "clock", "challenge",
)
"""What of a board's state the hub keeps and shows (``racks`` there is the number of tiles on each)."""


@dataclass(frozen=True)
class Refusal:
    """A message the hub refused: when, its topic, why (the bytes are in the log)."""

    received: float
    topic: str
    reason: str


@dataclass
class TableFeed:
    """One table: its presence and states over time, its games."""

    name: str
    online: list[tuple[float, bool]] = field(default_factory=list)
    states: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    games: dict[int, HubGame] = field(default_factory=dict)
    asked: dict[int, float] = field(default_factory=dict)  # game: when its records were last asked for
    behind: dict[int, float] = field(default_factory=dict)  # game: since when the board's state names more than the hub has

    def latest(self, cutoff: float) -> HubGame | None:
        """The table's latest game that had started by ``cutoff``."""
        best = None
        for game in self.games.values():
            if game.at(cutoff) is not None and (best is None or game.game > best.game):
                best = game
        return best


def _at_when(timeline: list[tuple[float, Any]], cutoff: float) -> tuple[float, Any] | None:
    """The latest ``(when, value)`` of ``timeline`` (in order of time) by ``cutoff``."""
    i = bisect.bisect_right(timeline, cutoff, key=lambda item: item[0])
    return timeline[i - 1] if i else None


def _at(timeline: list[tuple[float, Any]], cutoff: float) -> Any:
    found = _at_when(timeline, cutoff)
    return None if found is None else found[1]


def _shared(before: dict[str, Any], key: str, value: Any) -> Any:
    """``value``, or the equal value of ``before`` (held once: the states of a delay are many)."""
    old = before.get(key)
    return old if old is not None and old == value else value


def _prune(timeline: list[tuple[float, Any]], cutoff: float) -> None:
    keep = 0
    for i, (when, _) in enumerate(timeline):
        if when <= cutoff:
            keep = i
    if keep:
        del timeline[:keep]


class Hub:
    """The event ``topics.event``, its games kept in ``folder``; ``delay`` seconds behind
    (``clock``: the time the games kept are read at, for what the pages were already told)."""

    def __init__(self, topics: Topics, folder: Path, *, delay: float = 0.0, racks: str = "end",
                 clock: Callable[[], float] = time.time) -> None:
        self.topics = topics
        self.folder = folder / topics.event
        self.delay = delay
        self.racks = racks
        self.lock = threading.RLock()
        self.tables: dict[str, TableFeed] = {}
        self.refused: deque[Refusal] = deque(maxlen=REFUSALS_KEPT)
        self.refused_count = 0
        self._refusals: deque[float] = deque()  # when, those the pages may not count yet
        self._refused_shown = 0  # those they may
        self.doubles = 0
        self.writer = Writer()
        self._load(self.cutoff(clock()))

    def _load(self, cutoff: float) -> None:
        """The games kept before the hub last stopped (the pages were told of them up to ``cutoff``)."""
        if not self.folder.is_dir():
            return
        for table_dir in sorted(p for p in self.folder.iterdir() if p.is_dir()):
            feed = self._table(table_dir.name)
            for path in sorted(table_dir.glob("game-*.sqlite")):
                number = path.stem.removeprefix("game-")
                if number.isdigit():
                    game = HubGame.open(self.folder, table_dir.name, int(number), self.writer)
                    game.pushed = game.shown_seq(cutoff) or 0
                    feed.games[int(number)] = game

    def _table(self, name: str) -> TableFeed:
        if name not in self.tables:
            self.tables[name] = TableFeed(name)
        return self.tables[name]

    def close(self) -> None:
        with self.lock:
            for feed in self.tables.values():
                for game in feed.games.values():
                    game.close()
        self.writer.stop()

    # --- arriving ---------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes, now: float) -> str | None:
        """Take one message; the table it changed, or None (refused, a double, not ours)."""
        where = self.topics.split(topic)
        if where is None:
            self._refuse(topic, payload, now, "not a board's topic of this event")
            return None
        table, what = where
        try:
            with self.lock:
                return self._take(table, what, topic, payload, now)
        except BadMessage as e:
            self._refuse(topic, e.payload, now, e.reason)
            return None

    def _take(self, table: str, what: str, topic: str, payload: bytes, now: float) -> str | None:
        if what == "records":
            record = decode_record(topic, payload)
            feed = self._table(table)
            game = feed.games.get(record.game)
            if game is None:
                game = feed.games[record.game] = HubGame.open(self.folder, table, record.game, self.writer)
            if not game.receive(record, now):
                self.doubles += 1
                return None
            return table
        if what == "state":
            state = decode_state(topic, payload)
            feed = self._table(table)
            before = feed.states[-1][1] if feed.states else {}
            view = {key: _shared(before, key, state.view[key]) for key in STATE_SHOWN if key in state.view}
            view.update(game=state.game, seq=state.seq)
            feed.states.append((now, view))
            game = feed.games.get(state.game) if state.game is not None else None
            if game is not None:
                game.check_scores(state.seq, state.view.get("scores"), now)
            return table
        if what == "status":
            status = decode_status(topic, payload)
            self._table(table).online.append((now, status.online))
            return table
        if what == "resend":
            return None  # (the hub's own requests)
        raise BadMessage(topic, payload, f"no such board topic {what!r}")

    def _refuse(self, topic: str, payload: bytes, now: float, reason: str) -> None:
        with self.lock:
            self.refused_count += 1
            self._refusals.append(now)
            self.refused.append(Refusal(now, topic, reason))
        log.warning("refused a message on %s: %s: %r", topic, reason, payload[:120])

    def resends(self, now: float) -> list[tuple[str, int, int]]:
        """``(table, game, from_seq)`` for each game whose records after a gap waited
        :data:`GAP_WAIT_S`, or whose board's state has named records (or a whole game) the hub
        lacks for as long; asked again every :data:`RESEND_EVERY_S` while they lack."""
        out = []
        with self.lock:
            for feed in self.tables.values():
                state = feed.states[-1][1] if feed.states else None
                named, seq = (state.get("game"), state.get("seq")) if state is not None else (None, None)
                lacking: dict[int, int] = {}  # game: from which seq
                if isinstance(named, int) and isinstance(seq, int):
                    game = feed.games.get(named)
                    if game is None:
                        lacking[named] = 0  # a game the hub has nothing of (it started later): all of it
                    elif seq > game.applied:
                        lacking[named] = 0 if game.start is None else game.applied + 1
                for number in list(feed.behind):
                    if number not in lacking:
                        del feed.behind[number]
                for number in list(lacking):
                    if now - feed.behind.setdefault(number, now) < GAP_WAIT_S:
                        del lacking[number]
                for game in feed.games.values():
                    if game.gap_since is not None and now - game.gap_since >= GAP_WAIT_S:
                        lacking.setdefault(game.game, 0 if game.start is None else game.applied + 1)
                for number, start in sorted(lacking.items()):
                    if now - feed.asked.get(number, -1e9) >= RESEND_EVERY_S:
                        feed.asked[number] = now
                        out.append((feed.name, number, start))
        return out

    def taken(self, table: str, cutoff: float) -> list[tuple[int, float | None]]:
        """``(seq, committed)`` of the records of ``table`` shown at ``cutoff`` that the pages
        were not told of by an earlier call (for the pages' timing)."""
        with self.lock:
            feed = self.tables.get(table)
            if feed is None:
                return []
            out: list[tuple[int, float | None]] = []
            for number in sorted(feed.games):
                out += feed.games[number].taken(cutoff)
            return out

    def refused_at(self, cutoff: float) -> int:
        """How many messages were refused by ``cutoff``."""
        with self.lock:
            return self._refused_shown + sum(1 for when in self._refusals if when <= cutoff)

    def prune(self, now: float) -> None:
        cutoff = now - self.delay - 1.0
        with self.lock:
            while self._refusals and self._refusals[0] <= cutoff:
                self._refusals.popleft()
                self._refused_shown += 1
            for feed in self.tables.values():
                _prune(feed.states, cutoff)
                _prune(feed.online, cutoff)
                for game in feed.games.values():
                    game.prune(cutoff)

    # --- what is shown -----------------------------------------------------------------------

    def cutoff(self, now: float) -> float:
        return now - self.delay

    def racks_shown(self, over: bool) -> bool:
        return over or self.racks == "delayed"

    def summary(self, name: str, cutoff: float) -> dict[str, Any]:
        """A table on the venue page (and the head of its own page)."""
        with self.lock:
            feed = self.tables[name]
            online = _at(feed.online, cutoff)
            state_at = _at_when(feed.states, cutoff)
            game = feed.latest(cutoff)
            snap = game.at(cutoff) if game is not None else None
            view = dict(snap.view) if snap is not None else None
            if view is not None:
                assert game is not None
                racks = view.pop("racks")
                view["racks"] = racks if self.racks_shown(snap is not None and snap.over) else None
                view["flags"] = game.flags_at(cutoff)
            state = None
            if state_at is not None:  # (age: how long before the cutoff it came, for the running clock)
                state = dict(state_at[1], age=round(max(0.0, cutoff - state_at[0]), 3))
            return {"table": name, "online": online, "game": view, "state": state}

    def venue(self, cutoff: float) -> dict[str, Any]:
        with self.lock:
            return {
                "event": self.topics.event,
                "delay": self.delay,
                "tables": [self.summary(name, cutoff) for name in sorted(self.tables)],
                "refused": self.refused_at(cutoff),
            }

    def games(self, cutoff: float) -> list[dict[str, Any]]:
        """Every game started by ``cutoff``: its key, table, players, scores, whether over."""
        out = []
        with self.lock:
            for feed in self.tables.values():
                for game in sorted(feed.games.values(), key=lambda g: g.game):
                    snap = game.at(cutoff)
                    if snap is None:
                        continue
                    out.append({
                        "key": game.key, "table": feed.name, "game": game.game, "names": snap.view["names"],
                        "scores": snap.view["scores"], "over": snap.over, "tally": snap.view["tally"],
                        "flags": game.flags_at(cutoff), "gcg": f"/games/{game.key}.gcg",
                    })
        return out

    def standings(self, cutoff: float) -> list[dict[str, Any]]:
        """Per player over the finished games: games, wins (a tie counts half), spread."""
        rows: dict[str, dict[str, Any]] = {}
        for game in self.games(cutoff):
            tally = game["tally"]
            if not game["over"] or tally is None:
                continue
            finals = [r["final"] for r in tally["rows"]]
            winners = tally["winners"]
            for i, row in enumerate(tally["rows"]):
                others = [f for j, f in enumerate(finals) if j != i]
                entry = rows.setdefault(row["name"], {"name": row["name"], "games": 0, "wins": 0.0, "spread": 0})
                entry["games"] += 1
                if i in winners:
                    entry["wins"] += 1.0 / len(winners)
                entry["spread"] += row["final"] - round(sum(others) / len(others)) if others else 0
        return sorted(rows.values(), key=lambda r: (-r["wins"], -r["spread"], r["name"]))

    def gcg(self, key: str, cutoff: float) -> str | None:
        """The GCG of game ``key`` (``TABLE-N``) as it was at ``cutoff``; None if there is none by then."""
        table, _, number = key.rpartition("-")
        with self.lock:
            feed = self.tables.get(table)
            game = feed.games.get(int(number)) if feed is not None and number.isdigit() else None
            snap = game.at(cutoff) if game is not None else None
            if game is None or snap is None:
                return None
            return game.gcg(snap.seq, racks=self.racks_shown(snap.over))
