"""Re-score a GCG record event by event and report where it disagrees with the rules.

Each failed check is one :class:`Disagreement`; the replay then goes on from the recorded
values, so one error counts once. Game records can be wrong: reporting is the job,
adjusting to them is not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .board import SIZE, Board, PlacedTile, Position, Square
from .errors import NotationError, PlacementError
from .gcg import GcgEvent, GcgRecord, Kind
from .placement import Placement, validate
from .rules import RuleProfile
from .scoring import score
from .tiles import TileSet


@dataclass(frozen=True)
class Disagreement:
    """A check that failed on one line: what was recorded and what the rules give."""

    line: int
    check: str
    recorded: str
    computed: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.check}: recorded {self.recorded}, rules give {self.computed}"


@dataclass(frozen=True)
class ReplayReport:
    """The outcome of a replay."""

    profile: RuleProfile
    events: int
    disagreements: tuple[Disagreement, ...]
    board: Board
    totals: dict[str, int]

    @property
    def ok(self) -> bool:
        """True when nothing disagreed."""
        return not self.disagreements


_MOVES = (Kind.PLAY, Kind.PASS, Kind.EXCHANGE, Kind.WITHDRAW)


class _Replayer:
    def __init__(self, record: GcgRecord, profile: RuleProfile) -> None:
        self.record = record
        self.profile = profile
        self.tile_set: TileSet = profile.tile_set
        self.board = Board()
        self.totals = {p.nick: 0 for p in record.players}
        self.found: list[Disagreement] = []
        self.plays: dict[str, tuple[GcgEvent, Placement]] = {}
        self.last_move: GcgEvent | None = None  # the last play, pass, exchange or withdrawal

    def disagree(self, e: GcgEvent, check: str, recorded: object, computed: object) -> None:
        self.found.append(Disagreement(e.line, check, str(recorded), str(computed)))

    def run(self) -> ReplayReport:
        handlers = {
            Kind.PLAY: self.play,
            Kind.WITHDRAW: self.withdraw,
            Kind.PASS: self.zero,
            Kind.EXCHANGE: self.exchange,
            Kind.END_RACKS: self.end_racks,
            Kind.RACK_PENALTY: self.rack_penalty,
        }
        for e in self.record.events:
            handler = handlers.get(e.kind)
            if handler is not None:
                handler(e)
            # (challenge), (time) and (adjust) are taken as recorded
            expected = self.totals[e.nick] + e.score
            if expected != e.total:
                self.disagree(e, f"total of {e.nick}", e.total, expected)
            self.totals[e.nick] = e.total
            if e.kind in _MOVES:
                self.last_move = e
        return ReplayReport(self.profile, len(self.record.events), tuple(self.found), self.board, self.totals)

    def play(self, e: GcgEvent) -> None:
        assert e.position is not None and e.word is not None
        self.plays[e.nick] = (e, Placement(()))  # a withdrawal takes back this play, even unread
        try:
            position = Position.from_gcg(e.position)
        except NotationError as err:
            self.disagree(e, "position", e.position, err)
            return
        placement = self.parse_word(e, position, e.word)
        if placement is None:
            return
        legal = True
        try:
            validate(self.board, placement, rack_size=self.profile.rack_size, tile_set=self.tile_set)
        except PlacementError as err:
            self.disagree(e, "placement", f"{e.position} {e.word}", f"illegal: {err}")
            legal = False
        if e.rack:
            missing = Counter(placement.rack_letters()) - Counter(e.rack)
            if missing:
                self.disagree(e, "rack", e.rack, f"no {''.join(sorted(missing.elements()))} for {e.word}")
        if legal:
            computed = score(
                self.board,
                placement,
                bingo_tiles=self.profile.bingo_tiles,
                bingo_bonus=self.profile.bingo_bonus,
            ).score
            if computed != e.score:
                self.disagree(e, f"score of {e.position} {e.word}", f"{e.score:+d}", f"{computed:+d}")
        for sq, tile in placement.tiles:
            if self.board[sq] is None:
                self.board.place(sq, tile)
        self.plays[e.nick] = (e, placement)

    def parse_word(self, e: GcgEvent, position: Position, word: str) -> Placement | None:
        """The new tiles of a play; squares that disagree are reported and left out."""
        dr, dc = position.direction.drow, position.direction.dcol
        row, col = position.square
        if row + dr * (len(word) - 1) >= SIZE or col + dc * (len(word) - 1) >= SIZE:
            self.disagree(e, "placement", f"{e.position} {word}", "runs off the board")
            return None
        tiles: list[PlacedTile] = []
        for i, ch in enumerate(word):
            sq = Square(row + dr * i, col + dc * i)
            if ch == ".":
                if self.board[sq] is None:
                    self.disagree(e, "placement", f"'.' at {sq.name()}", "an empty square")
                continue
            if self.board[sq] is not None:
                self.disagree(e, "placement", f"{ch!r} at {sq.name()}", "an occupied square")
                continue
            if ch == "?":
                self.disagree(e, "tile", f"'?' at {sq.name()}", "a blank must be written as its letter")
                continue
            try:
                tiles.append(PlacedTile(sq, self.tile_set.from_gcg(ch)))
            except NotationError as err:
                self.disagree(e, "tile", ch, err)
        return Placement(tiles)

    def withdraw(self, e: GcgEvent) -> None:
        prev = self.last_move
        if e.nick not in self.plays:
            self.disagree(e, "withdrawal", f"{e.nick} --", f"{e.nick} has no play to withdraw")
            return
        played, placement = self.plays.pop(e.nick)
        if prev is not played:
            self.disagree(e, "withdrawal", f"{e.nick} --", f"no play of {e.nick} just before")
        for sq, _ in placement.tiles:
            if self.board[sq] is not None:
                self.board.remove(sq)
        if e.score != -played.score:
            self.disagree(e, "withdrawal", f"{e.score:+d}", f"{-played.score:+d}")

    def zero(self, e: GcgEvent) -> None:
        if e.score != 0:
            self.disagree(e, f"{e.kind.value} score", f"{e.score:+d}", "+0")

    def exchange(self, e: GcgEvent) -> None:
        self.zero(e)
        if e.tiles and e.rack:
            missing = Counter(e.tiles) - Counter(e.rack)
            if missing:
                self.disagree(e, "exchange", e.tiles, f"not on the rack {e.rack}")

    def rack_value(self, e: GcgEvent, letters: str) -> int | None:
        try:
            return self.tile_set.rack_value(letters)
        except NotationError as err:
            self.disagree(e, "rack", letters, err)
            return None

    def end_racks(self, e: GcgEvent) -> None:
        assert e.tiles is not None
        value = self.rack_value(e, e.tiles)
        if value is None:
            return
        expected = value * self.profile.out_bonus_factor
        if e.score != expected:
            factor = "2x " if self.profile.out_bonus_factor == 2 else ""
            self.disagree(e, f"going out ({factor}{e.tiles})", f"{e.score:+d}", f"{expected:+d}")
        on_board = Counter(t.rack_letter for t in self.board.cells if t is not None)
        left = Counter(self.tile_set.counts) - on_board
        if Counter(e.tiles) != left:
            self.disagree(
                e,
                "tiles left",
                e.tiles,
                "".join(sorted(left.elements())) or "none",
            )

    def rack_penalty(self, e: GcgEvent) -> None:
        assert e.tiles is not None
        if e.rack and Counter(e.rack) != Counter(e.tiles):
            self.disagree(e, "rack", e.rack, f"the penalised rack {e.tiles}")
        value = self.rack_value(e, e.tiles)
        if value is not None and e.score != -value:
            self.disagree(e, f"rack penalty ({e.tiles})", f"{e.score:+d}", f"{-value:+d}")


def replay(record: GcgRecord, profile: RuleProfile | None = None) -> ReplayReport:
    """Re-score every event of ``record`` under ``profile`` (default: the record's own rules)."""
    return _Replayer(record, profile or record.profile()).run()
