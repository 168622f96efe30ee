"""One game at the hub: its records as they arrive, re-scored with the engine, and what viewers see of it.

Records are kept by seq (doubles dropped); the engine replays them in order as soon as they
are contiguous, a second check of the board's own scoring: a command the engine refuses, or
scores that differ from the board's state at the same seq, are flagged (:attr:`HubGame.flags`).
A record after a gap waits, stored, for the missing ones (:attr:`HubGame.gap_since`: the hub
asks the board for them again). After each step a :class:`Snap` of the game (what the pages
show, the racks apart) is kept with the time it arrived, so the pages can show the game as
it was the broadcast delay ago (:meth:`HubGame.at`).

A game is the board's game ``game`` of the journal ``journal`` (its identity; None: a board
that sends none); the hub numbers a table's games in the order it first hears of them
(:attr:`HubGame.number`, the ``N`` of ``TABLE-N``), and its file keeps where it came from.
"""

from __future__ import annotations

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

from .store import GameStore, StoredRecord, Writer

__all__ = ["Flag", "HubGame", "Snap"]


@dataclass(frozen=True)
class Flag:
    """A disagreement between the board and the hub's engine (or a record that cannot be read)."""

    seq: int | None
    what: str


@dataclass(frozen=True)
class Snap:
    """The game after record ``seq``, as received at ``received``: ``view`` (JSON data, racks
    under ``racks``), whether it is over."""

    received: float
    seq: int
    view: dict[str, Any]
    over: bool


@dataclass
class HubGame:
    """Game ``game`` of the journal ``journal`` at ``table``, the table's game ``number`` at the
    hub, kept in ``store``."""

    table: str
    game: int
    store: GameStore
    journal: str | None = None
    number: int = 0
    start: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    records: dict[int, StoredRecord] = field(default_factory=dict)
    applied: int = 0  # the last seq the engine has taken (records are contiguous up to it)
    engine: Game | None = None
    flags: list[Flag] = field(default_factory=list)
    snaps: list[Snap] = field(default_factory=list)
    gap_since: float | None = None  # since when a record after a gap waits
    doubles: int = 0
    new: list[tuple[int, float | None]] = field(default_factory=list)  # applied, not yet pushed: (seq, committed)

    @property
    def key(self) -> str:
        """The game's name at the hub (``/games/KEY.gcg``): the table and the hub's number."""
        return f"{self.table}-{self.number}"

    @property
    def origin(self) -> tuple[str | None, int]:
        """Where the game comes from: the journal's identity and the board's game number."""
        return self.journal, self.game

    @classmethod
    def open(cls, folder: Path, table: str, number: int, writer: Writer | None = None,
             origin: tuple[str | None, int] | None = None) -> HubGame:
        """The table's game ``number`` in ``folder``, replayed as far as it goes; a new one (its
        file made through ``writer``) is game ``origin`` (journal, board's game). A file
        written before journals had identities is the board's game ``number`` of none."""
        store = GameStore(folder / table / f"game-{number}.sqlite", writer)
        kept = store.get("origin")
        if isinstance(kept, dict) and isinstance(kept.get("game"), int):
            journal = kept.get("journal")
            origin = (journal if isinstance(journal, str) else None, kept["game"])
        elif origin is None or store.existed:
            origin = (None, number)
        else:
            store.put("origin", {"journal": origin[0], "game": origin[1]})
        hub = cls(table, origin[1], store, origin[0], number)
        hub.start = hub.store.get("start")
        hub.result = hub.store.get("result")
        for record in hub.store.records():
            hub.records[record.seq] = record
        if hub.start is not None:
            hub._begin(0.0)
            hub._advance()
        return hub

    # --- arriving -------------------------------------------------------------------------

    def receive(self, message: RecordMessage, received: float) -> bool:
        """Take a record; False when it was a double (dropped)."""
        if message.kind == START_KIND:
            if self.start is not None:
                self.doubles += 1
                return False
            self.start = message.payload
            self.store.put("start", message.payload)
            self.gap_since = None
            self._begin(received)
        elif message.kind == RESULT_KIND:
            if self.result == message.payload:
                self.doubles += 1
                return False
            self.result = message.payload
            self.store.put("result", message.payload)
            self._check_result()
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

    def _begin(self, received: float) -> None:
        assert self.start is not None
        try:
            started = decode_meta(self.start["meta"])
            self.engine = Game(rules_of(started), started.players, rng=random.Random(0), first=started.first)
        except (ScoreboardError, KeyError, TypeError) as e:
            self.flags.append(Flag(0, f"the game's start cannot be read: {e}"))
            return
        self._snap(received)

    def _advance(self, received: float | None = None) -> None:
        """Apply the records that are now contiguous; note a gap (records without the game's start too)."""
        if self.engine is None:
            if self.start is None and self.records and self.gap_since is None:
                self.gap_since = received if received is not None else 0.0
            return
        moved = False
        while self.applied + 1 in self.records:
            record = self.records[self.applied + 1]
            self.applied += 1
            moved = True
            self.new.append((record.seq, record.committed))
            if record.kind != COMMAND_KIND:
                continue
            try:
                committed = decode_entry(record.kind, record.payload, self.engine.tile_set)
                assert isinstance(committed, Committed)
                self.engine.apply(committed.command)
            except (ScoreboardError, AssertionError, KeyError, TypeError, ValueError) as e:
                self.flags.append(Flag(record.seq, f"the hub's engine refuses record {record.seq}: {e}"))
        waiting = any(seq > self.applied for seq in self.records)
        if not waiting:
            self.gap_since = None
        elif self.gap_since is None:
            self.gap_since = received if received is not None else 0.0
        if moved:
            self._snap(received if received is not None else record.received)
            if self.result is not None:
                self._check_result()

    def check_scores(self, seq: int, scores: list[int] | None) -> None:
        """The board's state says the scores after record ``seq`` are ``scores``: flag a difference."""
        if self.engine is None or scores is None or seq != self.applied:
            return
        mine = self.engine.scores()
        if mine != scores and not any(f.seq == seq and "scores" in f.what for f in self.flags):
            self.flags.append(Flag(seq, f"scores after record {seq}: the board says {scores}, the hub's engine {mine}"))

    def _check_result(self) -> None:
        if self.engine is None or self.result is None or not self.engine.over:
            return
        rows = self.result.get("result", {}).get("rows")
        if not isinstance(rows, list):
            return
        board = [r.get("final") for r in rows if isinstance(r, dict)]
        mine = [r.final for r in self.engine.tally().rows]
        if board != mine and not any(f.seq is None for f in self.flags):
            self.flags.append(Flag(None, f"final scores: the board says {board}, the hub's engine {mine}"))

    # --- what is shown ----------------------------------------------------------------------

    def _snap(self, received: float) -> None:
        self.snaps.append(Snap(received, self.applied, self._view(), bool(self.engine and self.engine.over)))

    def at(self, cutoff: float) -> Snap | None:
        """The game as it was at ``cutoff`` (the latest snap received by then)."""
        found = None
        for snap in self.snaps:
            if snap.received > cutoff:
                break
            found = snap
        return found

    def prune(self, cutoff: float) -> None:
        """Forget the snaps nobody will be shown again (older than the one at ``cutoff``)."""
        keep = 0
        for i, snap in enumerate(self.snaps):
            if snap.received <= cutoff:
                keep = i
        if keep:
            del self.snaps[:keep]

    def _view(self) -> dict[str, Any]:
        game = self.engine
        assert game is not None
        last = last_standing_play(game.events)
        unseen = Counter(game.tile_set.counts) - Counter(
            ("?" if tile.blank else tile.letter) for _, tile in game.board.tiles()
        )
        return {
            "key": self.key,
            "table": self.table,
            "game": self.number,
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
            "seq": self.applied,
            "racks": [game.rack(p) for p in range(len(game.players))],
        }

    def gcg(self, upto: int, *, racks: bool) -> str:
        """The GCG text of the game up to record ``upto`` (racks shown or not)."""
        assert self.start is not None
        started = decode_meta(self.start["meta"])
        replayed = Game(rules_of(started), started.players, rng=random.Random(0), first=started.first)
        for seq in range(1, upto + 1):
            record = self.records.get(seq)
            if record is None or record.kind != COMMAND_KIND:
                continue
            try:
                committed = decode_entry(record.kind, record.payload, replayed.tile_set)
                assert isinstance(committed, Committed)
                replayed.apply(committed.command)
            except (ScoreboardError, AssertionError, KeyError, TypeError, ValueError):
                continue  # (flagged when it arrived)
        return gcg_text(replayed, self.start["meta"], racks=racks)

    def close(self) -> None:
        self.store.close()


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
