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

A table's games are told apart by the journal they come from (its identity, carried by every
record and state; a board that sends none is the table's anonymous journal) and the board's
game number: a spare board set up with the table's name, or a board whose journal was set
aside, numbers its games from 1 again. A game's key (the address of its GCG) is the board's
own game number (the one ``scoreboard export`` uses): ``TABLE-N`` for the first journal the
hub heard of at the table, ``TABLE.TAG-N`` for any other (``TAG``: the first 6 hex digits
of its identity, more if two journals share them; ``anon`` for the anonymous journal; a
``.`` because a table's name cannot hold one). Keys do not depend on the order the hub
hears of the games, and each game's file keeps its key and where it came from: a restarted
hub has the same keys. A table shows the game its board's latest state names (the game in
play), or without such a state the game started last. Each table's presence and states are
kept too (as far back as the pages may still be shown): a restarted hub shows them as it
would have.
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
    Listed,
    Topics,
    decode_record,
    decode_state,
    decode_status,
)

from .game import HubGame, stored_origin
from .store import GameStore, StoreError, TableStore, Writer

__all__ = ["STATE_SHOWN", "Hub", "Origin", "Refusal", "Resend", "TableFeed"]

log = logging.getLogger(__name__)

GAP_WAIT_S = 3.0  # a record after a gap waits this long for the missing ones before they are asked for
RESEND_EVERY_S = 5.0  # and asked for again at most this often
REFUSALS_KEPT = 50
STATE_SHOWN = (
    "phase", "profile", "names", "seats", "turn", "scores", "bag", "racks", "window", "tally", "first_draw", "paused",
    "away", "mode", "now", "clock", "challenge",
)
"""What of a board's state the hub keeps and shows (``racks`` there is the number of tiles on each)."""

Origin = tuple[str | None, int]
"""A board's game: the journal's identity (None: a board that sends none) and its game number."""


@dataclass(frozen=True)
class Resend:
    """Ask ``table`` for game ``game`` of ``journal`` from record ``start`` on."""

    table: str
    journal: str | None
    game: int
    start: int


@dataclass(frozen=True)
class Refusal:
    """A message the hub refused: when, its topic, why (the bytes are in the log)."""

    received: float
    topic: str
    reason: str


@dataclass
class TableFeed:
    """One table: its presence and states over time (kept in ``store``), its games (by key and by origin)."""

    name: str
    store: TableStore | None = None
    heard: float | None = None  # when the hub first heard of it
    online: list[tuple[float, bool]] = field(default_factory=list)
    states: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    games: dict[str, HubGame] = field(default_factory=dict)  # by key
    origins: dict[Origin, HubGame] = field(default_factory=dict)
    tags: dict[str | None, str] = field(default_factory=dict)  # a journal's tag in its games' keys ("": the first)
    listed: tuple[Listed, ...] = ()  # the games the latest state lists (of its journal)
    asked: dict[Origin, float] = field(default_factory=dict)  # when a game's records were last asked for
    behind: dict[Origin, float] = field(default_factory=dict)  # since when the board's state names more than the hub has

    def shown(self, cutoff: float, state: dict[str, Any] | None) -> HubGame | None:
        """The game shown at ``cutoff``: the one ``state`` (the latest by then) names if it
        names one (None if it had not started by then), else the game started last."""
        if state is not None and isinstance(state.get("game"), int):
            game = self.origins.get((state.get("journal"), state["game"]))
            return game if game is not None and game.at(cutoff) is not None else None
        started = [g for g in self.games.values() if g.at(cutoff) is not None]
        return max(started, key=lambda g: (g.start_at, g.game), default=None)

    def add(self, game: HubGame) -> HubGame:
        self.games[game.key] = game
        self.origins[game.origin] = game
        return game

    def find(self, origin: Origin) -> HubGame | None:
        return self.origins.get(origin)

    def key_for(self, origin: Origin) -> tuple[str, str]:
        """The key of the board's game ``origin`` and its file's name (a new journal gets its tag)."""
        journal, number = origin
        tag = self.tags.get(journal)
        if tag is None:
            tag = "" if not self.tags else "anon" if journal is None else next(
                journal[:n] for n in range(6, 33, 2) if journal[:n] not in self.tags.values())
            self.tags[journal] = tag
        if tag:
            return f"{self.name}.{tag}-{number}", f"game-{tag}-{number}"
        return f"{self.name}-{number}", f"game-{number}"

    def tag_of(self, key: str, origin: Origin) -> None:
        """Take the tag of the journal of ``origin`` from its game's ``key``."""
        journal, number = origin
        if key == f"{self.name}-{number}":
            self.tags.setdefault(journal, "")
        elif key.startswith(f"{self.name}.") and key.endswith(f"-{number}"):
            self.tags.setdefault(journal, key[len(self.name) + 1:-len(f"-{number}")])

    def order(self, game: HubGame) -> tuple[bool, str, int]:
        """Where ``game`` goes in a list: the first journal's games, then the others', each by number."""
        tag = self.tags.get(game.journal, "")
        return bool(tag), tag, game.game


def _lacks(game: HubGame | None, want: Listed) -> int | None:
    """From which seq the hub lacks ``want`` (its records up to ``want.seq``, its result if
    ``want.over``) of ``game`` (None: the hub has nothing of it); None if it lacks nothing."""
    if game is None or game.start is None:
        return 0
    if game.applied < want.seq or (want.over and game.result is None):
        return game.applied + 1
    return None


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


def _prune(timeline: list[tuple[float, Any]], cutoff: float) -> bool:
    """Forget what is older than the entry at ``cutoff``; whether anything was."""
    keep = 0
    for i, (when, _) in enumerate(timeline):
        if when <= cutoff:
            keep = i
    if keep:
        del timeline[:keep]
    return keep > 0


class Hub:
    """The event ``topics.event``, its games kept in ``folder``; ``delay`` seconds behind
    (``clock``: the time the games kept are read at, for what the pages were already told);
    ``tables``: the event's tables, listed before they are heard of ("never connected")."""

    def __init__(self, topics: Topics, folder: Path, *, delay: float = 0.0, racks: str = "end",
                 clock: Callable[[], float] = time.time, tables: tuple[str, ...] = ()) -> None:
        self.topics = topics
        self.configured = tables  # the event's tables (shown before they are heard of: "never connected")
        self.folder = folder / topics.event
        self.delay = delay
        self.racks = racks
        self.lock = threading.RLock()
        self.tables: dict[str, TableFeed] = {}
        self.keys: dict[str, HubGame] = {}  # every game by its key
        self.refused: deque[Refusal] = deque(maxlen=REFUSALS_KEPT)
        self.refused_count = 0
        self._refusals: deque[float] = deque()  # when, those the pages may not count yet
        self._refused_shown = 0  # those they may
        self.doubles = 0
        self.writer = Writer()
        self._load(self.cutoff(clock()))

    def _load(self, cutoff: float) -> None:
        """The games, presence and states kept before the hub last stopped (the pages were
        told of them up to ``cutoff``). Files of a hub that numbered games as it heard of
        them (no key kept) get this hub's keys, the journal of its first game taken as the first."""
        if not self.folder.is_dir():
            return
        for table_dir in sorted(p for p in self.folder.iterdir() if p.is_dir()):
            feed = self._table(table_dir.name)
            assert feed.store is not None
            feed.heard, online, states = feed.store.load()
            feed.online = online
            for when, view in states:
                before = feed.states[-1][1] if feed.states else {}
                feed.states.append((when, {k: _shared(before, k, v) for k, v in view.items()}))
            kept: list[Path] = []
            legacy: list[tuple[int, Path, Origin]] = []
            for path in sorted(table_dir.glob("game-*.sqlite")):
                try:
                    store = GameStore(path)
                    try:
                        key, origin = store.get("key"), stored_origin(store, path)
                    finally:
                        store.close()
                except StoreError as e:
                    log.error("%s; left aside", e)
                    continue
                kept.append(path)
                if isinstance(key, str):
                    feed.tag_of(key, origin)
                else:
                    number = path.stem.removeprefix("game-")
                    legacy.append((int(number) if number.isdigit() else 0, path, origin))
            for _, path, origin in sorted(legacy, key=lambda item: item[0]):
                store = GameStore(path)
                store.put("key", feed.key_for(origin)[0])
                store.put("origin", {"journal": origin[0], "game": origin[1]})
                store.close()
            for path in kept:
                try:
                    game = HubGame.open(path, table_dir.name, self.writer)
                except StoreError as e:
                    log.error("%s; left aside", e)
                    continue
                if game.key in self.keys or game.origin in feed.origins:
                    log.error("the hub's file %s holds game %s of %s again; left aside", path, game.key, game.origin)
                    game.close()
                    continue
                game.pushed = game.shown_seq(cutoff) or 0
                self.keys[game.key] = feed.add(game)
            if feed.heard is None and feed.games:  # (a hub of before presence was kept)
                feed.heard = min(g.start_at for g in feed.games.values())

    def _game(self, feed: TableFeed, origin: Origin) -> HubGame:
        """The table's game ``origin``; a new one gets its key."""
        game = feed.find(origin)
        if game is None:
            key, name = feed.key_for(origin)
            path = self.folder / feed.name / f"{name}.sqlite"
            n = 1
            while path.exists():  # (a file of an earlier hub that kept another key under this name)
                n += 1
                path = path.with_name(f"{name}~{n}.sqlite")
            game = feed.add(HubGame.open(path, feed.name, self.writer, (key, origin)))
            self.keys[key] = game
        return game

    def _table(self, name: str) -> TableFeed:
        if name not in self.tables:
            self.tables[name] = TableFeed(name, TableStore(self.folder / name / "table.sqlite", self.writer))
        return self.tables[name]

    def close(self) -> None:
        with self.lock:
            for feed in self.tables.values():
                for game in feed.games.values():
                    game.close()
                if feed.store is not None:
                    feed.store.close()
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
                changed = self._take(table, what, topic, payload, now)
                feed = self.tables.get(table)
                if changed is not None and feed is not None and feed.heard is None:
                    feed.heard = now
                    assert feed.store is not None
                    feed.store.put_heard(now)
                return changed
        except BadMessage as e:
            self._refuse(topic, e.payload, now, e.reason)
            return None

    def _take(self, table: str, what: str, topic: str, payload: bytes, now: float) -> str | None:
        if what == "records":
            record = decode_record(topic, payload)
            game = self._game(self._table(table), (record.journal, record.game))
            if not game.receive(record, now):
                self.doubles += 1
                return None
            return table
        if what == "state":
            state = decode_state(topic, payload)
            feed = self._table(table)
            before = feed.states[-1][1] if feed.states else {}
            view = {key: _shared(before, key, state.view[key]) for key in STATE_SHOWN if key in state.view}
            view.update(game=state.game, seq=state.seq, journal=state.journal)
            feed.listed = state.games  # (a game gets its key with its first record: a stale state makes none)
            named = feed.find((state.journal, state.game)) if state.game is not None else None
            if named is not None:
                named.check_scores(state.seq, state.view.get("scores"), now)
            if view == before:  # (the retained copy again, as after a restart: it is as old as the first)
                return None
            feed.states.append((now, view))
            assert feed.store is not None
            feed.store.add_state(now, view)
            return table
        if what == "status":
            status = decode_status(topic, payload)
            feed = self._table(table)
            if feed.online and feed.online[-1][1] == status.online:
                return None
            feed.online.append((now, status.online))
            assert feed.store is not None
            feed.store.add_online(now, status.online)
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

    def resends(self, now: float) -> list[Resend]:
        """What to ask the boards for: each game whose records after a gap waited
        :data:`GAP_WAIT_S`, or of which the board's latest state names more than the hub has
        for as long (the game in play up to its last record; each game it lists up to the
        last record and the result the broker took: a game the hub has nothing of is asked
        for whole); asked again every :data:`RESEND_EVERY_S` while it lacks."""
        out = []
        with self.lock:
            for feed in self.tables.values():
                state = feed.states[-1][1] if feed.states else None
                lacking: dict[Origin, int] = {}  # game: from which seq
                if state is not None:
                    journal, named, seq = state.get("journal"), state.get("game"), state.get("seq")
                    wanted = [Listed(g.game, g.seq, g.over) for g in feed.listed]
                    if isinstance(named, int) and isinstance(seq, int):
                        wanted.append(Listed(named, seq, False))
                    for want in wanted:
                        start = _lacks(feed.find((journal, want.game)), want)
                        if start is not None:
                            origin = (journal, want.game)
                            lacking[origin] = min(start, lacking.get(origin, start))
                for origin in list(feed.behind):
                    if origin not in lacking:
                        del feed.behind[origin]
                for origin in list(lacking):
                    if now - feed.behind.setdefault(origin, now) < GAP_WAIT_S:
                        del lacking[origin]
                for game in feed.games.values():
                    if game.gap_since is not None and now - game.gap_since >= GAP_WAIT_S:
                        lacking.setdefault(game.origin, 0 if game.start is None else game.applied + 1)
                for origin, start in sorted(lacking.items(), key=lambda o: (o[0][0] or "", o[0][1])):
                    if now - feed.asked.get(origin, -1e9) >= RESEND_EVERY_S:
                        feed.asked[origin] = now
                        out.append(Resend(feed.name, origin[0], origin[1], start))
        return out

    def taken(self, table: str, cutoff: float) -> list[tuple[int, float | None]]:
        """``(seq, committed)`` of the records of ``table`` shown at ``cutoff`` that the pages
        were not told of by an earlier call (for the pages' timing)."""
        with self.lock:
            feed = self.tables.get(table)
            if feed is None:
                return []
            out: list[tuple[int, float | None]] = []
            for game in feed.games.values():
                out += game.taken(cutoff)
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
                states, online = _prune(feed.states, cutoff), _prune(feed.online, cutoff)
                if (states or online) and feed.store is not None:
                    feed.store.prune(feed.online[0][0] if online else None, feed.states[0][0] if states else None)
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
            feed = self._table(name)
            online = _at(feed.online, cutoff)
            state_at = _at_when(feed.states, cutoff)
            game = feed.shown(cutoff, None if state_at is None else state_at[1])
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
            never = feed.heard is None or feed.heard > cutoff
            return {"table": name, "online": online, "never": never, "game": view, "state": state}

    def listed(self, cutoff: float) -> list[str]:
        """The tables the venue shows at ``cutoff``: those heard of by then and the event's own."""
        with self.lock:
            heard = (name for name, feed in self.tables.items() if feed.heard is not None and feed.heard <= cutoff)
            return sorted({*heard, *self.configured})

    def venue(self, cutoff: float) -> dict[str, Any]:
        with self.lock:
            return {
                "event": self.topics.event,
                "delay": self.delay,
                "tables": [self.summary(name, cutoff) for name in self.listed(cutoff)],
                "refused": self.refused_at(cutoff),
            }

    def games(self, cutoff: float) -> list[dict[str, Any]]:
        """Every game started by ``cutoff``: its key, table, players, scores, whether over."""
        out = []
        with self.lock:
            for feed in self.tables.values():
                for game in sorted(feed.games.values(), key=feed.order):
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
        """The GCG of game ``key`` as it was at ``cutoff``; None if there is none by then."""
        with self.lock:
            game = self.keys.get(key)
            snap = game.at(cutoff) if game is not None else None
            if game is None or snap is None:
                return None
            return game.gcg(snap.seq, racks=self.racks_shown(snap.over))
