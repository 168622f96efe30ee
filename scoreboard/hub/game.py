"""One game at the hub: its records as they arrive, re-scored with the engine, and what viewers see of it.

Records are kept by seq (doubles dropped); the engine replays them in order as soon as they
are contiguous, a second check of the board's own scoring: a command the engine refuses, or
scores that differ from the board's state at the same seq, are flagged (:attr:`HubGame.flags`,
each with the time it was found). A record after a gap waits, stored, for the missing ones
(:attr:`HubGame.gap_since`: the hub asks the board for them again).

What viewers see is the game as it was at a cutoff (the broadcast delay ago): :attr:`HubGame.steps`
says from when on the records up to which seq are shown (a record is shown from the time the
hub had it and every one before it). The view at a cutoff is made from an engine of its own
that follows the cutoff record by record (:meth:`HubGame.at`): nothing is kept per record but
a time, however long the delay. A game over and shown whole lets its engines go (an engine
keeps a copy of the game per play, for undo) and keeps its last view; one is made again
from the records if something needs it. The steps come from the times the records arrived, kept in
the game's file: a restarted hub shows what it would have shown without the restart.

A game is the board's game ``game`` of the journal ``journal`` (its identity; None: a board
that sends none); its :attr:`HubGame.key` (``TABLE-N``: see :mod:`scoreboard.hub.core`) and
where it came from are kept in its file.
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import ScoreboardError
from engine.events import Event, PlayMade, PlayWithdrawn
from engine.game import Game
from scoreboard.broadcast.messages import RESULT_KIND, START_KIND, RecordMessage
from scoreboard.controller.records import Committed
from scoreboard.export_cli import gcg_text
from scoreboard.journal_format import COMMAND_KIND, decode_entry, decode_meta, rules_of

from .store import GameStore, StoredRecord, StoreError, Writer

__all__ = ["Flag", "HubGame", "Snap", "stored_origin"]


@dataclass(frozen=True)
class Flag:
    """A disagreement between the board and the hub's engine (or a record that cannot be read),
    found at ``at`` (shown from then on, the delay later)."""

    seq: int | None
    what: str
    at: float


@dataclass(frozen=True)
class Snap:
    """The game after record ``seq``: ``view`` (JSON data, racks under ``racks``), whether it is over."""

    seq: int
    view: dict[str, Any]
    over: bool


@dataclass
class HubGame:
    """Game ``game`` of the journal ``journal`` at ``table``, ``key`` at the hub, kept in ``store``."""

    table: str
    game: int
    store: GameStore
    journal: str | None = None
    key: str = ""
    start: dict[str, Any] | None = None
    start_at: float = 0.0  # when the start arrived
    result: dict[str, Any] | None = None
    records: dict[int, StoredRecord] = field(default_factory=dict)
    applied: int = 0  # the last seq the engine has taken (records are contiguous up to it)
    engine: Game | None = None  # (None: not begun, its start unreadable, or let go: see _engine)
    released: bool = False  # the engine was let go (over and shown whole)
    flags: list[Flag] = field(default_factory=list)
    steps: list[tuple[float, int]] = field(default_factory=list)  # (when, seq): from then on shown up to seq
    gap_since: float | None = None  # since when a record after a gap waits
    doubles: int = 0
    pushed: int = 0  # the last seq the pages were told of (their ``taken``)
    _head: Snap | None = None  # the view at ``applied`` (made when asked for)
    _shown: tuple[Game, Snap] | None = None  # the engine following the cutoff, and its view

    @property
    def origin(self) -> tuple[str | None, int]:
        """Where the game comes from: the journal's identity and the board's game number."""
        return self.journal, self.game

    @classmethod
    def open(cls, path: Path, table: str, writer: Writer | None = None,
             new: tuple[str, tuple[str | None, int]] | None = None) -> HubGame:
        """The game of ``table`` kept in ``path``, replayed as far as it goes, with the times its
        records arrived (files of an earlier hub without them: shown whole); a new one (its
        file made through ``writer``) is ``new``: its key and origin (journal, board's game).
        (A file without its key: :func:`stored_origin` and the hub's ``_load``.)"""
        store = GameStore(path, writer)
        if store.existed:
            key, origin = store.get("key"), stored_origin(store, path)
            if not isinstance(key, str):
                raise StoreError(path, "the game's file has no key")
        else:
            assert new is not None
            key, origin = new
            store.put("key", key)
            store.put("origin", {"journal": origin[0], "game": origin[1]})
        hub = cls(table, origin[1], store, origin[0], key)
        hub.start = hub.store.get("start")
        hub.start_at = float(hub.store.get("start_at") or 0.0)
        hub.result = hub.store.get("result")
        for record in hub.store.records():
            hub.records[record.seq] = record
        if hub.start is not None:
            hub._begin(hub.start_at)
            hub._advance(None)
            hub._check_result(max(float(hub.store.get("result_at") or 0.0), hub.steps[-1][0] if hub.steps else 0.0))
        return hub

    # --- arriving -------------------------------------------------------------------------

    def receive(self, message: RecordMessage, received: float) -> bool:
        """Take a record; False when it was a double (dropped)."""
        if message.kind == START_KIND:
            if self.start is not None:
                self.doubles += 1
                return False
            self.start, self.start_at = message.payload, received
            self.store.put("start", message.payload)
            self.store.put("start_at", received)
            self.gap_since = None
            self._begin(received)
        elif message.kind == RESULT_KIND:
            if self.result == message.payload:
                self.doubles += 1
                return False
            self.result = message.payload
            self.store.put("result", message.payload)
            self.store.put("result_at", received)
            self._check_result(received)
        else:
            assert message.seq is not None
            if message.seq in self.records:
                self.doubles += 1
                return False
            stored = StoredRecord(message.seq, message.kind, message.payload, message.at, received, message.committed)
            self.store.add(stored.seq, stored.kind, stored.payload, stored.at, received, stored.committed)
            self.records[stored.seq] = stored
        self._advance(received)
        return True

    def _new_engine(self) -> Game:
        assert self.start is not None
        started = decode_meta(self.start["meta"])
        return Game(rules_of(started), started.players, rng=random.Random(0), first=started.first)

    def _begin(self, received: float) -> None:
        try:
            self.engine = self._new_engine()
        except (ScoreboardError, KeyError, TypeError) as e:
            self.flags.append(Flag(0, f"the game's start cannot be read: {e}", received))
            return
        self._step(received, 0)

    def _step(self, when: float, seq: int) -> None:
        """From ``when`` on, the records up to ``seq`` are shown."""
        if self.steps:
            when = max(when, self.steps[-1][0])  # (a clock set back: never earlier than what is shown)
            if self.steps[-1][0] == when:
                self.steps[-1] = (when, seq)
                return
        self.steps.append((when, seq))

    def _advance(self, received: float | None) -> None:
        """Apply the records that are now contiguous, which arrived by ``received`` (None: the
        game's file is being read: each record's own time); note a gap (records without the
        game's start too)."""
        engine = self._engine()
        if engine is None:
            if self.start is None and self.records and self.gap_since is None:
                self.gap_since = received if received is not None else 0.0
            return
        moved = False
        when = self.steps[-1][0] if self.steps else 0.0
        while self.applied + 1 in self.records:
            record = self.records[self.applied + 1]
            self.applied += 1
            moved = True
            when = max(when, record.received if received is None else received)
            error = _apply(engine, record)
            if error is not None:
                self.flags.append(Flag(record.seq, f"the hub's engine refuses record {record.seq}: {error}", when))
            self._step(when, self.applied)
        waiting = any(seq > self.applied for seq in self.records)
        if not waiting:
            self.gap_since = None
        elif self.gap_since is None:
            self.gap_since = received if received is not None else 0.0
        if moved and self.result is not None and received is not None:
            self._check_result(when)

    def check_scores(self, seq: int, scores: list[int] | None, at: float) -> None:
        """The board's state (arrived at ``at``) says the scores after record ``seq`` are
        ``scores``: flag a difference."""
        engine = self._engine()
        if engine is None or scores is None or seq != self.applied:
            return
        mine = engine.scores()
        if mine != scores and not any(f.seq == seq and "scores" in f.what for f in self.flags):
            self.flags.append(Flag(seq, f"scores after record {seq}: the board says {scores}, the hub's engine {mine}",
                                   at))

    def _check_result(self, at: float) -> None:
        engine = self._engine()
        if engine is None or self.result is None or not engine.over:
            return
        rows = self.result.get("result", {}).get("rows")
        if not isinstance(rows, list):
            return
        board = [r.get("final") for r in rows if isinstance(r, dict)]
        mine = [r.final for r in engine.tally().rows]
        if board != mine and not any(f.seq is None for f in self.flags):
            self.flags.append(Flag(None, f"final scores: the board says {board}, the hub's engine {mine}", at))

    # --- what is shown ----------------------------------------------------------------------

    def shown_seq(self, cutoff: float) -> int | None:
        """The last record shown at ``cutoff`` (0: the game's start; None: not started by then)."""
        i = bisect.bisect_right(self.steps, cutoff, key=lambda step: step[0])
        return self.steps[i - 1][1] if i else None

    def at(self, cutoff: float) -> Snap | None:
        """The game as it was at ``cutoff``."""
        seq = self.shown_seq(cutoff)
        return None if seq is None else self.snap(seq)

    def snap(self, seq: int) -> Snap:
        """The game after record ``seq`` (at most :attr:`applied`)."""
        assert self.steps and 0 <= seq <= self.applied
        if seq == self.applied:
            if self._head is None or self._head.seq != seq:
                engine = self._engine()
                assert engine is not None
                self._head = self._snap_of(engine, seq)
            return self._head
        if self._shown is not None and self._shown[1].seq == seq:
            return self._shown[1]
        if self._shown is not None and self._shown[1].seq < seq:
            engine, done = self._shown[0], self._shown[1].seq
        else:  # (an earlier cutoff than the last one shown: replayed from the start)
            engine, done = self._new_engine(), 0
        for n in range(done + 1, seq + 1):
            _apply(engine, self.records[n])
        snap = self._snap_of(engine, seq)
        self._shown = (engine, snap)
        return snap

    def flags_at(self, cutoff: float) -> list[str]:
        """The flags found by ``cutoff``."""
        return [f.what for f in self.flags if f.at <= cutoff]

    def taken(self, cutoff: float) -> list[tuple[int, float | None]]:
        """``(seq, committed)`` of the records shown at ``cutoff`` that the pages were not told of yet."""
        seq = self.shown_seq(cutoff)
        if seq is None or seq <= self.pushed:
            return []
        out = [(n, self.records[n].committed) for n in range(self.pushed + 1, seq + 1)]
        self.pushed = seq
        return out

    def prune(self, cutoff: float) -> None:
        """Forget the steps nobody will be shown again (older than the one at ``cutoff``), and
        the engine following the cutoff once it has caught up."""
        i = bisect.bisect_right(self.steps, cutoff, key=lambda step: step[0])
        if i > 1:
            del self.steps[: i - 1]
        if len(self.steps) == 1 and self.steps[0][1] == self.applied:
            self._shown = None
            if self.engine is not None and self.engine.over and not self.released:
                self.snap(self.applied)
                self.engine, self.released = None, True

    def _engine(self) -> Game | None:
        """The engine at :attr:`applied` (one let go is made again from the records)."""
        if self.engine is None and self.released:
            engine = self._new_engine()
            for n in range(1, self.applied + 1):
                _apply(engine, self.records[n])
            self.engine, self.released = engine, False
        return self.engine

    def _snap_of(self, game: Game, seq: int) -> Snap:
        return Snap(seq, self._view(game, seq), game.over)

    def _view(self, game: Game, seq: int) -> dict[str, Any]:
        last = last_standing_play(game.events)
        unseen = Counter(game.tile_set.counts) - Counter(
            ("?" if tile.blank else tile.letter) for _, tile in game.board.tiles()
        )
        return {
            "key": self.key,
            "table": self.table,
            "game": self.game,
            "origin": {"journal": self.journal, "game": self.game},
            "names": list(game.players),
            "scores": game.scores(),
            "turn": None if game.over else game.turn,
            "over": game.over,
            "tally": _tally(game) if game.over else None,
            "board": {sq.name(): {"letter": t.letter, "blank": t.blank} for sq, t in game.board.tiles()},
            "bag": len(game.bag),
            "unseen": "".join(sorted(unseen.elements())),
            "last": None if last is None else {
                "player": last.player, "position": last.position.gcg(), "word": last.word, "score": last.points,
                "words": [w.text for w in last.words], "bingo": last.bingo,
            },
            "moves": len(game.events),
            "seq": seq,
            "racks": [game.rack(p) for p in range(len(game.players))],
        }

    def gcg(self, upto: int, *, racks: bool) -> str:
        """The GCG text of the game up to record ``upto`` (racks shown or not)."""
        assert self.start is not None
        replayed = self._new_engine()
        for seq in range(1, upto + 1):
            record = self.records.get(seq)
            if record is not None:
                _apply(replayed, record)  # (a record refused was flagged when it arrived)
        return gcg_text(replayed, self.start["meta"], racks=racks)

    def close(self) -> None:
        self.store.close()


def stored_origin(store: GameStore, path: Path) -> tuple[str | None, int]:
    """The origin kept in a game's file; a file written before journals had identities
    (``game-N.sqlite``, no origin) is the board's game ``N`` of none."""
    kept = store.get("origin")
    if isinstance(kept, dict) and isinstance(kept.get("game"), int):
        journal = kept.get("journal")
        return journal if isinstance(journal, str) else None, kept["game"]
    number = path.stem.removeprefix("game-")
    if not number.isdigit():
        raise StoreError(path, "the game's file has no origin")
    return None, int(number)


def _apply(game: Game, record: StoredRecord) -> str | None:
    """Apply ``record`` to ``game`` if it is a command; why the engine refuses it, or None."""
    if record.kind != COMMAND_KIND:
        return None
    try:
        committed = decode_entry(record.kind, record.payload, game.tile_set)
        assert isinstance(committed, Committed)
        game.apply(committed.command)
    except (ScoreboardError, AssertionError, KeyError, TypeError, ValueError) as e:
        return str(e)
    return None


def _tally(game: Game) -> dict[str, Any]:
    tally = game.tally()
    return {
        "termination": tally.termination.value if tally.termination else None,
        "rows": [{"name": r.name, "final": r.final, "rack_adjustment": r.rack_adjustment} for r in tally.rows],
        "winners": list(tally.winners),
    }


def last_standing_play(events: Sequence[Event]) -> PlayMade | None:
    """The latest play still on the board: a play challenged off (``PlayWithdrawn`` after it)
    is not the last play."""
    withdrawn = 0
    for event in reversed(events):
        if isinstance(event, PlayWithdrawn):
            withdrawn += 1
        elif isinstance(event, PlayMade):
            if not withdrawn:
                return event
            withdrawn -= 1
    return None
