"""Re-score a GCG record event by event and report where it disagrees with the rules.

Each failed check is one :class:`Disagreement`; the replay then goes on from the recorded
values, so one error counts once. Game records can be wrong: reporting is the job,
adjusting to them is not. Besides the scores it checks every rule a record shows, under
its profile and variants (docs/RULES.md): the challenge lines, exchanges against the tiles
left in the bag, turn order, the end of the game (going out, the pass rule, the finish
line, a triple challenge) and which rack adjustments that end allows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .board import SIZE, Board, PlacedTile, Position, Square
from .errors import NotationError, PlacementError
from .gcg import GcgEvent, GcgRecord, Kind
from .placement import Placement, validate
from .rules import ChallengeOutcome, RuleProfile, TurnKind
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
class Undecided:
    """A check the record cannot settle on one line (racks it does not give): not counted."""

    line: int
    check: str
    recorded: str
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.check}: recorded {self.recorded}, cannot be known: {self.why}"


@dataclass(frozen=True)
class ReplayReport:
    """The outcome of a replay: the disagreements, and the checks the record cannot settle."""

    profile: RuleProfile
    events: int
    disagreements: tuple[Disagreement, ...]
    board: Board
    totals: dict[str, int]
    undecided: tuple[Undecided, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing disagreed."""
        return not self.disagreements


_MOVES = (Kind.PLAY, Kind.PASS, Kind.EXCHANGE, Kind.WITHDRAW)
_TURNS = (Kind.PLAY, Kind.PASS, Kind.EXCHANGE)  # a withdrawal is no turn of its own

# What may follow each end of the game besides (time) and (adjust) lines.
_WENT_OUT = "went out"
_PASSES = "the pass rule"
_FINISH = "the finish line"
_TRIPLE = "a triple challenge"
_AT_TABLE = "ended at the table"


@dataclass(frozen=True)
class _End:
    how: str
    line: int  # the line that ended it


class _Replayer:
    def __init__(self, record: GcgRecord, profile: RuleProfile, challenge_known: bool) -> None:
        self.record = record
        self.profile = profile
        self.challenge_known = challenge_known  # False: a standard record, its rule not written
        self.tile_set: TileSet = profile.tile_set
        self.board = Board()
        self.totals = {p.nick: 0 for p in record.players}
        self.seats = {p.nick: i for i, p in enumerate(record.players)}
        self.found: list[Disagreement] = []
        self.undecided: list[Undecided] = []
        self.plays: dict[str, tuple[GcgEvent, Placement]] = {}
        self.words: dict[int, int] = {}  # line of a play -> the number of words it formed
        self.last_move: GcgEvent | None = None  # the last play, pass, exchange or withdrawal
        self.last_turn: GcgEvent | None = None  # the last play, pass or exchange
        self.withdrawn_since = False  # a withdrawal since the last turn
        self.turns: list[tuple[int, TurnKind]] = []  # for the pass rule
        self.bonuses = dict.fromkeys(self.totals, 0)  # challenge bonuses, per player
        self.unplaced: list[tuple[int, int]] = []  # (line, tiles) of plays not put on the board
        self.rack_after: dict[str, int] = {}  # the fewest tiles a rack held after its player's last move
        self.end: _End | None = None

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
            Kind.CHALLENGE: self.challenge,
            Kind.GAME_LOST: self.game_lost,
            Kind.TIME: self.time_penalty,
        }
        for e in self.record.events:
            self.finish_line(e)
            self.after_end(e)
            if e.kind in _TURNS:
                self.turn_order(e)
            handler = handlers.get(e.kind)
            if handler is not None:
                handler(e)
            # (adjust) is taken as recorded
            expected = self.totals[e.nick] + e.score
            if expected != e.total:
                self.disagree(e, f"total of {e.nick}", e.total, expected)
            self.totals[e.nick] = e.total
            if e.kind in _MOVES:
                self.last_move = e
            self.track_rack(e)
            if e.kind in _TURNS:
                self.last_turn, self.withdrawn_since = e, False
                kind = {Kind.PLAY: TurnKind.PLAY, Kind.PASS: TurnKind.PASS, Kind.EXCHANGE: TurnKind.EXCHANGE}[e.kind]
                self.turns.append((self.seats[e.nick], kind))
            self.pass_rule(e)
        return ReplayReport(
            self.profile, len(self.record.events), tuple(self.found), self.board, self.totals, tuple(self.undecided)
        )

    def track_rack(self, e: GcgEvent) -> None:
        """The fewest tiles ``e``'s player holds after it, as far as the record says."""
        held = len(e.rack or "")
        if e.kind is Kind.PLAY and e.word is not None:
            self.rack_after[e.nick] = max(0, held - sum(1 for ch in e.word if ch != "."))
        elif e.kind in (Kind.PASS, Kind.EXCHANGE):
            self.rack_after[e.nick] = held
        elif e.kind is Kind.WITHDRAW:
            self.rack_after[e.nick] = held  # the play's tiles are back on the rack

    # --- order and the end ---------------------------------------------------------------

    def turn_order(self, e: GcgEvent) -> None:
        """Seats take turns in order; after a withdrawal (fr's phony-extension rule) the
        same player may play again."""
        prev = self.last_turn
        if prev is None:
            return
        n = len(self.seats)
        expected = (self.seats[prev.nick] + 1) % n
        seat = self.seats[e.nick]
        again = seat == self.seats[prev.nick] and self.withdrawn_since and self.profile.phony_extension_rule
        if seat != expected and not again:
            nick = self.record.players[expected].nick
            self.disagree(e, "turn order", f"{e.nick} moves", f"{nick}'s turn after {prev.nick} on line {prev.line}")

    def pass_rule(self, e: GcgEvent) -> None:
        if self.end is None and e.kind in _MOVES and self.profile.pass_rule_ends(self.turns, len(self.seats)):
            self.end = _End(_PASSES, e.line)

    def finish_line(self, e: GcgEvent) -> None:
        """A play that reached the target ends the game once it is final: when the line
        after it is neither its withdrawal nor a ruling on it."""
        p = self.profile
        last = self.last_move
        if self.end is not None or not p.target or last is None or last.kind is not Kind.PLAY:
            return
        if e.kind in (Kind.WITHDRAW, Kind.CHALLENGE, Kind.GAME_LOST):
            return
        scores = dict(self.totals)
        if not p.challenge_bonus_reaches_target:
            scores = {nick: total - self.bonuses[nick] for nick, total in scores.items()}
        if max(scores.values()) < p.target:
            return
        if e.kind is Kind.END_RACKS and p.going_out_beats_finish_line:
            return  # the play went out as well: a going-out end (end_racks)
        self.end = _End(_FINISH, last.line)

    def after_end(self, e: GcgEvent) -> None:
        """Events the end of the game allows after it (besides (time) and (adjust))."""
        end = self.end
        if end is None or e.kind in (Kind.TIME, Kind.ADJUST):
            return
        p = self.profile
        if e.kind is Kind.RACK_PENALTY:
            allowed = (
                (end.how == _WENT_OUT and p.others_subtract_on_out)
                or end.how in (_PASSES, _AT_TABLE)
                or (end.how == _FINISH and p.finish_line_rack_adjustment)
                or (end.how == _TRIPLE and p.triple_rack_adjustment)
            )
            if not allowed:
                self.disagree(e, "rack adjustment", f"({e.tiles}) {e.score:+d}", f"none after {end.how} (line {end.line})")
            return
        if e.kind is Kind.END_RACKS:
            self.disagree(e, "rack adjustment", f"({e.tiles}) {e.score:+d}", f"none after {end.how} (line {end.line})")
            return
        if e.kind is Kind.CHALLENGE and end.how == _WENT_OUT and self.last_move is not None:
            return  # a bonus for the going-out play, as Macondo writes it after the rack points
        self.disagree(e, "after the end", _what(e), f"the game ended on line {end.line} ({end.how})")

    # --- plays ----------------------------------------------------------------------------

    def play(self, e: GcgEvent) -> None:
        assert e.position is not None and e.word is not None
        self.plays[e.nick] = (e, Placement(()))  # a withdrawal takes back this play, even unread
        letters = sum(1 for ch in e.word if ch != ".")
        try:
            position = Position.from_gcg(e.position)
        except NotationError as err:
            self.disagree(e, "position", e.position, err)
            self.unplaced.append((e.line, letters))
            return
        placement = self.parse_word(e, position, e.word)
        if placement is None:
            self.unplaced.append((e.line, letters))
            return
        if len(placement.tiles) < letters:
            self.unplaced.append((e.line, letters - len(placement.tiles)))
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
            scored = score(
                self.board,
                placement,
                bingo_tiles=self.profile.bingo_tiles,
                bingo_bonus=self.profile.bingo_bonus,
            )
            computed = scored.score
            self.words[e.line] = len(scored.words)
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
        seat = self.seats[e.nick]
        for i in range(len(self.turns) - 1, -1, -1):
            if self.turns[i] == (seat, TurnKind.PLAY):
                self.turns[i] = (seat, TurnKind.WITHDRAWN)
                break
        self.withdrawn_since = True
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
        self.exchange_bag(e)

    def exchange_bag(self, e: GcgEvent) -> None:
        """Exchanging needs ``exchange_min_bag`` tiles in the bag (and as many as exchanged).

        The bag is the set less the board less the racks. The record gives the racks only in
        part: the exchanging player's own (its rack field: at least the exchanged tiles), the
        others' as they stood after their last move (they may have drawn since, up to a full
        rack). That bounds the bag; a breach is reported when even the largest bag is too
        small, and "cannot be known" when the bounds straddle the minimum (partial or
        unrecorded racks, plays that could not be put on the board).
        """
        p = self.profile
        count = e.count if e.count is not None else len(e.tiles or "")
        on_board = sum(1 for t in self.board.cells if t is not None)
        own = max(len(e.rack or ""), count)
        others = [nick for nick in self.seats if nick != e.nick]
        most = self.tile_set.size - on_board - own - sum(self.rack_after.get(n, 0) for n in others)
        own_most = own if len(e.rack or "") == p.rack_size else p.rack_size
        open_tiles = sum(n for _, n in self.unplaced)
        least = self.tile_set.size - on_board - open_tiles - own_most - len(others) * p.rack_size
        need = max(p.exchange_min_bag, count)
        written = f"-{e.tiles if e.tiles is not None else e.count}"
        if most < need:
            how = f"{self.tile_set.size} tiles - {on_board} on the board - {own} on the rack - the others' racks"
            self.disagree(e, "exchange", written, f"the bag holds at most {max(0, most)} ({how}); exchanging {count} needs {need}")
        elif least < need:
            why = [f"line {', '.join(str(line) for line, _ in self.unplaced)} not placed"] if self.unplaced else []
            why.append("racks not all known")
            self.undecided.append(Undecided(
                e.line, "exchange", written,
                f"the bag holds {max(0, least)} to {most} ({'; '.join(why)}); exchanging {count} needs {need}",
            ))

    def rack_value(self, e: GcgEvent, letters: str) -> int | None:
        try:
            return self.tile_set.rack_value(letters)
        except NotationError as err:
            self.disagree(e, "rack", letters, err)
            return None

    def end_racks(self, e: GcgEvent) -> None:
        assert e.tiles is not None
        if self.end is None:
            self.end = _End(_WENT_OUT, e.line)
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
        if self.end is None:
            self.end = _End(_AT_TABLE, e.line)
        if e.rack and Counter(e.rack) != Counter(e.tiles):
            self.disagree(e, "rack", e.rack, f"the penalised rack {e.tiles}")
        value = self.rack_value(e, e.tiles)
        if value is not None and e.score != -value:
            self.disagree(e, f"rack penalty ({e.tiles})", f"{e.score:+d}", f"{-value:+d}")


    def time_penalty(self, e: GcgEvent) -> None:
        """``(time) -N``: with a game clock in the record's rules, whole started minutes of
        its overtime penalty (a record without #rules does not say its clock)."""
        p = self.profile
        if not self.challenge_known or not p.clock_minutes or not p.overtime_penalty:
            return
        if e.score >= 0 or e.score % p.overtime_penalty:
            self.disagree(e, "time penalty", f"{e.score:+d}", f"-{p.overtime_penalty} per started minute over the clock")

    # --- challenges ----------------------------------------------------------------------

    def challenged(self, e: GcgEvent) -> GcgEvent | None:
        """The play a challenge line is about: the last move, a play (None: reported)."""
        last = self.last_move
        if last is None or last.kind is not Kind.PLAY:
            self.disagree(e, "challenge", f"{_what(e)}", "no play just before to challenge")
            return None
        return last

    def challenge(self, e: GcgEvent) -> None:
        """``(challenge) +N``: the bonus for a valid challenged play; ``-N``: the wrong
        challenger's penalty. What the profile's challenge rule gives, on the right player."""
        if e.score == 0:
            return
        play = self.challenged(e)
        if play is None:
            return
        p = self.profile
        recorded = f"{e.score:+d} for {e.nick}"
        if e.score > 0:
            units = (5, 10) if not self.challenge_known else (p.challenge_bonus,)
            if self.challenge_known and p.challenge_outcome is not ChallengeOutcome.PLAYER_GETS_BONUS:
                self.disagree(e, "challenge", recorded, f"no bonus under {_challenge_rule(p)}")
                return
            if e.nick != play.nick:
                self.disagree(e, "challenge", recorded, f"the bonus goes to {play.nick}, whose play on line {play.line} was challenged")
                return
            self.bonuses[e.nick] += e.score
            words = self.words.get(play.line)
            fits = any(e.score % u == 0 and (words is None or e.score // u <= words) for u in units)
            if not fits:
                per = " or ".join(f"+{u}" for u in units)
                upto = f" (up to {words} words)" if words is not None else ""
                self.disagree(e, "challenge", recorded, f"{per} per challenge or per challenged word{upto}")
            return
        if p.challenge_outcome is not ChallengeOutcome.CHALLENGER_LOSES_POINTS or not self.challenge_known:
            self.disagree(e, "challenge", recorded, f"no points lost by a wrong challenger under {_challenge_rule(p)}")
            return
        if e.nick == play.nick:
            self.disagree(e, "challenge", recorded, f"the penalty is the challenger's, not {play.nick}'s own")
        elif e.score != -p.challenge_penalty:
            self.disagree(e, "challenge", recorded, f"{-p.challenge_penalty:+d} under {_challenge_rule(p)}")

    def game_lost(self, e: GcgEvent) -> None:
        """``(triple) +0``: under challenge=triple the loser of a challenge loses the game."""
        p = self.profile
        if e.score != 0:
            self.disagree(e, "triple challenge", f"{e.score:+d}", "+0")
        if p.challenge_outcome is not ChallengeOutcome.LOSER_LOSES_GAME:
            self.disagree(e, "triple challenge", f"{e.nick} loses the game", f"no such loss under {_challenge_rule(p)}")
        elif self.last_move is None or self.last_move.kind not in (Kind.PLAY, Kind.WITHDRAW):
            self.disagree(e, "triple challenge", f"{e.nick} loses the game", "no play just before to challenge")
        if self.end is None:
            self.end = _End(_TRIPLE, e.line)


def _what(e: GcgEvent) -> str:
    """A line's event in a few words, for a message."""
    return f"{e.kind.value} of {e.nick}"


def _challenge_rule(p: RuleProfile) -> str:
    """The challenge rule of ``p`` in words: ``challenge=five``, or the profile's own."""
    if p.challenge_rule is not None:
        return f"{p.name} challenge={p.challenge_rule.value}"
    return p.name


def replay(record: GcgRecord, profile: RuleProfile | None = None) -> ReplayReport:
    """Re-score every event of ``record`` under ``profile`` (default: the record's own rules).

    Without ``profile`` and without ``#rules`` the record is a standard one whose challenge
    rule is not written: a challenge bonus may then be 5 or 10 points per challenge or per
    challenged word, as the record's lines show.
    """
    known = profile is not None or record.rules is not None
    return _Replayer(record, profile or record.profile(), known).run()
