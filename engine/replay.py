"""Re-score a GCG record event by event and report where it disagrees with the rules.

Each failed check is one :class:`Disagreement`; the replay then goes on from the recorded
values, so one error counts once. Game records can be wrong: reporting is the job,
adjusting to them is not. Besides the scores it checks every rule a record shows, under
its profile and variants (docs/RULES.md): the challenge lines (each, and together for one
play), exchanges against the tiles left in the bag, turn order, the end of the game (going
out, the pass rule, the finish line, a triple challenge), who gets the going-out points and
which rack adjustments that end allows, each against the tiles its player holds.

Who holds what: a move's rack field is a part of its player's rack then (GCG lets it be
partial), so what they held at their last move, less what they played since, is a part of
their rack (``_Replayer.held``); with the board and the tile set that bounds the bag and
the other racks. While the bag holds a tile every rack is full (a player
refills after each move), so the bag at an exchange is the set less the board less a full
rack per player.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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
_ON_THE_PLAY = (Kind.WITHDRAW, Kind.CHALLENGE, Kind.GAME_LOST)  # lines about the last play, before it is final

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


@dataclass
class _Rulings:
    """The challenge lines on one play so far."""

    play: GcgEvent
    bonus: int = 0  # challenge bonuses, in all
    penalized: dict[str, int] = field(default_factory=dict)  # a wrong challenger -> the line of their penalty
    valid: int | None = None  # the first line that ruled the play valid (a penalty or a bonus)


def _letters(c: Counter[str]) -> str:
    return "".join(sorted(c.elements())) or "none"


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
        # a player's last play, its tiles, and what was known of the rack before it
        self.plays: dict[str, tuple[GcgEvent, Placement, Counter[str]]] = {}
        self.words: dict[int, int] = {}  # line of a play -> the number of words it formed
        self.last_move: GcgEvent | None = None  # the last play, pass, exchange or withdrawal
        self.last_turn: GcgEvent | None = None  # the last play, pass or exchange
        self.withdrawn_since = False  # a withdrawal since the last turn
        self.turns: list[tuple[int, TurnKind]] = []  # for the pass rule
        self.bonuses = dict.fromkeys(self.totals, 0)  # challenge bonuses, per player
        self.unplaced: dict[int, int] = {}  # line of a play -> its tiles not put on the board
        self.held: dict[str, Counter[str]] = {nick: Counter() for nick in self.totals}  # a part of each rack
        self.out: tuple[str, int] | None = None  # who went out, and the line of the play (or of the racks line)
        self.racks_paid = False  # the going-out line came
        self.counted: dict[str, tuple[Counter[str], int]] = {}  # a rack penalty's tiles and line, per player
        self.rulings: _Rulings | None = None  # the challenge lines on the last play
        # a bonus per challenge (or word) a record without #rules may give, and the line that showed it
        self.units: tuple[tuple[int, int | None], ...] = ((5, None), (10, None))
        self.loss_due: GcgEvent | None = None  # a withdrawal under challenge=triple: its player loses the game
        self.withdrawal: GcgEvent | None = None  # a withdrawal, until the next move shows how it counts (after_withdrawal)
        self.final: GcgEvent | None = None  # the last play judged final (settle)
        self.end: _End | None = None
        self.late = False  # the current line came after the end, and that was reported

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
            self.after_withdrawal(e)
            self.settle(e)
            self.triple_loss_due(e)
            self.late = self.after_end(e)
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

    # --- who holds what -------------------------------------------------------------------

    def track_rack(self, e: GcgEvent) -> None:
        """What ``e``'s player is known to hold after it: the rack fields of their moves so
        far (each a part of the rack then), less the tiles played or exchanged since; drawn
        tiles are unknown. The fields of other lines are not taken: a line written while a
        play waited for its ruling comes after that play's withdrawal in the record."""
        if e.kind not in _TURNS:
            return  # (a withdrawal: the rack before the play again, see withdraw)
        held = self.held[e.nick] = self.with_field(e.nick, e.rack)
        if e.kind is Kind.PLAY and e.word is not None:
            held -= Counter("?" if ch.islower() else ch for ch in e.word if ch != ".")
        elif e.kind is Kind.EXCHANGE:
            if e.tiles is None:
                held.clear()  # which tiles went back is not written
            else:
                held -= Counter(e.tiles)

    def with_field(self, nick: str, rack: str | None) -> Counter[str]:
        """What ``nick`` is known to hold, given the rack field ``rack`` of a line: both are
        parts of the rack, so it holds each letter as often as either says. More than a rack
        holds shows a wrong field in the record: then the line's own field is taken."""
        field = Counter(rack or "")
        merged = self.held[nick] | field
        return field if sum(merged.values()) > self.profile.rack_size else merged

    def on_board(self) -> Counter[str]:
        """The tiles on the board, as rack letters."""
        return +Counter(self.board.letter_counts)

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
        if e.kind is Kind.WITHDRAW:
            self.withdrawal = e  # decided by the next move (after_withdrawal)
            return
        if self.end is None and e.kind in _MOVES and self.profile.pass_rule_ends(self.turns, len(self.seats)):
            self.end = _End(_PASSES, e.line)

    def after_withdrawal(self, e: GcgEvent) -> None:
        """A withdrawal counts for the pass rule as of its own line, as the next move shows:
        under fr's phony-extension rule its player may move again (then the withdrawal is no
        scoreless turn); under challenge=triple its player lost the game first; a pass may
        be a turn lost while the play waited for its ruling,
        which GCG writes after the withdrawal (so whether it came after the end cannot be
        known; the pass rule is then judged at the pass)."""
        w = self.withdrawal
        if w is None or e.kind in (Kind.TIME, Kind.ADJUST):
            return
        self.withdrawal = None
        met = self.end is None and self.profile.pass_rule_ends(self.turns, len(self.seats))
        if self.profile.phony_extension_rule and e.kind in _TURNS and e.nick == w.nick:
            seat = self.seats[w.nick]
            last = max(i for i, t in enumerate(self.turns) if t == (seat, TurnKind.WITHDRAWN))
            del self.turns[last]
        elif self.profile.challenge_outcome is ChallengeOutcome.LOSER_LOSES_GAME:
            pass  # its player lost the game first (triple_loss_due)
        elif e.kind is Kind.PASS and met:
            self.undecided.append(Undecided(
                e.line, "after the end", _what(e),
                f"the pass rule was met on line {w.line}, unless this turn was lost before that withdrawal",
            ))
        elif met:
            self.end = _End(_PASSES, w.line)

    def settle(self, e: GcgEvent) -> None:
        """The last play is final when the line after it is neither its withdrawal nor a
        ruling on it; then a play that went out, or reached the finish line's target, has
        ended the game."""
        p = self.profile
        last = self.last_move
        if self.end is not None or last is None or last.kind is not Kind.PLAY or e.kind in _ON_THE_PLAY:
            return
        if self.final is last:
            return  # judged once, when it became final (a later correction reaches no target)
        self.final = last
        out = self.out is not None and self.out[1] == last.line
        reached = False
        if p.target:
            scores = dict(self.totals)
            if not p.challenge_bonus_reaches_target:
                scores = {nick: total - self.bonuses[nick] for nick, total in scores.items()}
            reached = max(scores.values()) >= p.target
        if out and (not reached or p.going_out_beats_finish_line):
            self.end = _End(_WENT_OUT, last.line)
        elif reached and not (e.kind is Kind.END_RACKS and p.going_out_beats_finish_line):
            self.end = _End(_FINISH, last.line)  # (a racks line: the play went out as well, see end_racks)

    def triple_loss_due(self, e: GcgEvent) -> None:
        """Under challenge=triple a withdrawn play loses its player the game: the next line
        (but a time penalty or a correction) is that loss, or under fr's phony-extension rule
        the same player's move."""
        due = self.loss_due
        if due is None or e.kind in (Kind.TIME, Kind.ADJUST):
            return
        self.loss_due = None
        extends = e.kind in _TURNS and e.nick == due.nick and self.profile.phony_extension_rule
        if e.kind is not Kind.GAME_LOST and not extends:
            self.disagree(
                e, "triple challenge", _what(e),
                f"{due.nick} loses the game: the play was withdrawn on line {due.line} under {_challenge_rule(self.profile)}",
            )

    def after_end(self, e: GcgEvent) -> bool:
        """Events the end of the game allows after it (besides (time) and (adjust)); True
        when ``e`` is not one of them (reported)."""
        end = self.end
        if end is None or e.kind in (Kind.TIME, Kind.ADJUST):
            return False
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
            return not allowed
        if e.kind is Kind.END_RACKS:
            if end.how == _WENT_OUT and not self.racks_paid:
                return False
            self.disagree(e, "rack adjustment", f"({e.tiles}) {e.score:+d}", f"none after {end.how} (line {end.line})")
            return True
        last = self.last_move
        if e.kind is Kind.CHALLENGE and end.how == _WENT_OUT and last is not None and last.kind is Kind.PLAY:
            return False  # a ruling on the going-out play, as Macondo writes a bonus after the rack points
        if e.kind is Kind.PASS and end.how == _WENT_OUT and self.accepting(e):
            return False
        self.disagree(e, "after the end", _what(e), f"the game ended on line {end.line} ({end.how})")
        return True

    def accepting(self, e: GcgEvent) -> bool:
        """True for the opponent's accepting pass: the next seat's pass right after the play
        that went out (docs/RULES.md, GCG), where that play had a challenge window."""
        last = self.last_move
        if last is None or last.kind is not Kind.PLAY or self.profile.invalid_play_refused:
            return False
        return self.seats[e.nick] == (self.seats[last.nick] + 1) % len(self.seats)

    # --- plays ----------------------------------------------------------------------------

    def play(self, e: GcgEvent) -> None:
        assert e.position is not None and e.word is not None
        before = self.with_field(e.nick, e.rack)
        self.plays[e.nick] = (e, Placement(()), before)  # a withdrawal takes back this play, even unread
        self.rulings = _Rulings(e)
        letters = sum(1 for ch in e.word if ch != ".")
        try:
            position = Position.from_gcg(e.position)
        except NotationError as err:
            self.disagree(e, "position", e.position, err)
            self.unplaced[e.line] = letters
            return
        placement = self.parse_word(e, position, e.word)
        if placement is None:
            self.unplaced[e.line] = letters
            return
        if len(placement.tiles) < letters:
            self.unplaced[e.line] = letters - len(placement.tiles)
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
        self.plays[e.nick] = (e, placement, before)
        if e.line not in self.unplaced and self.end is None:
            self.out = self.went_out(e, before - Counter("?" if ch.islower() else ch for ch in e.word if ch != "."))

    def went_out(self, e: GcgEvent, kept: Counter[str]) -> tuple[str, int] | None:
        """Who is out after the play ``e`` (its player keeping ``kept``, as far as known),
        and its line: a player with no tile known whose rack and the bag are empty because
        the others' known tiles are all the tiles not on the board. Usually the player of
        ``e``; a player who emptied the rack earlier and never drew goes out when another's
        draw empties the bag."""
        held = dict(self.held, **{e.nick: kept})
        left = self.tile_set.size - self.board.count
        for nick in sorted(held, key=lambda n: n != e.nick):
            if not held[nick] and left - sum(sum(c.values()) for n, c in held.items() if n != nick) <= 0:
                return nick, e.line
        return None

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
        played, placement, before = self.plays.pop(e.nick)
        if prev is not played:
            self.disagree(e, "withdrawal", f"{e.nick} --", f"no play of {e.nick} just before")
        elif self.rulings is not None and self.rulings.valid is not None:
            self.disagree(
                e, "withdrawal", f"{e.nick} --", f"the play on line {played.line} was ruled valid on line {self.rulings.valid}"
            )
        seat = self.seats[e.nick]
        for i in range(len(self.turns) - 1, -1, -1):
            if self.turns[i] == (seat, TurnKind.PLAY):
                self.turns[i] = (seat, TurnKind.WITHDRAWN)
                break
        self.withdrawn_since = True
        for sq, _ in placement.tiles:
            if self.board[sq] is not None:
                self.board.remove(sq)
        self.unplaced.pop(played.line, None)
        self.held[e.nick] = before  # the tiles are back, the draws back in the bag
        self.held[e.nick] = self.with_field(e.nick, e.rack)
        if self.out is not None and self.out[1] == played.line:
            self.out = None
        self.rulings = None
        if self.profile.challenge_outcome is ChallengeOutcome.LOSER_LOSES_GAME:
            self.loss_due = e
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

        While the bag holds a tile every rack is full (each player refills after a move; a
        withdrawn play's tiles are back on the rack and its draws back in the bag), so the
        bag is the set less the board less a full rack per player, whatever the racks'
        letters. Only tiles of plays that could not be put on the board leave it open: a
        breach is reported when even the largest bag is too small, "cannot be known" when
        those tiles decide.
        """
        p = self.profile
        count = e.count if e.count is not None else len(e.tiles or "")
        on_board = self.board.count
        players = len(self.seats)
        most = self.tile_set.size - on_board - players * p.rack_size
        least = most - sum(self.unplaced.values())
        need = max(p.exchange_min_bag, count)
        written = f"-{e.tiles if e.tiles is not None else e.count}"
        if most < need:
            how = f"{self.tile_set.size} tiles - {on_board} on the board - {players} racks of {p.rack_size}"
            self.disagree(e, "exchange", written, f"the bag holds {max(0, most)} ({how}); exchanging {count} needs {need}")
        elif least < need:
            lines = ", ".join(str(line) for line in sorted(self.unplaced))
            self.undecided.append(Undecided(
                e.line, "exchange", written,
                f"the bag holds {max(0, least)} to {most} (line {lines} not placed); exchanging {count} needs {need}",
            ))

    def rack_value(self, e: GcgEvent, letters: str) -> int | None:
        try:
            return self.tile_set.rack_value(letters)
        except NotationError as err:
            self.disagree(e, "rack", letters, err)
            return None

    def end_racks(self, e: GcgEvent) -> None:
        """``(RACKS) +N``: the player who went out gets the others' racks, those tiles being
        every tile not on the board."""
        assert e.tiles is not None
        if self.end is None:
            self.end = _End(_WENT_OUT, e.line)
        if self.late:
            return
        self.racks_paid = True
        recorded = f"({e.tiles}) {e.score:+d} for {e.nick}"
        if self.out is not None and self.out[0] != e.nick:
            self.disagree(e, "going out", recorded, f"the points go to {self.out[0]}, who went out on line {self.out[1]}")
        elif self.held[e.nick]:
            self.disagree(e, "going out", recorded, f"{e.nick} holds {_letters(self.held[e.nick])}: not out")
        if self.out is None:
            self.out = (e.nick, e.line)
        value = self.rack_value(e, e.tiles)
        if value is None:
            return
        expected = value * self.profile.out_bonus_factor
        if e.score != expected:
            factor = "2x " if self.profile.out_bonus_factor == 2 else ""
            self.disagree(e, f"going out ({factor}{e.tiles})", f"{e.score:+d}", f"{expected:+d}")
        left = Counter(self.tile_set.counts) - self.on_board()
        if Counter(e.tiles) != left:
            self.disagree(e, "tiles left", e.tiles, _letters(left))

    def rack_penalty(self, e: GcgEvent) -> None:
        """``RACK (RACK) -N``: a player's own rack at the end, once, the tiles they hold."""
        assert e.tiles is not None
        if self.end is None:
            self.end = _End(_AT_TABLE, e.line)
        if e.rack and Counter(e.rack) != Counter(e.tiles):
            self.disagree(e, "rack", e.rack, f"the penalised rack {e.tiles}")
        value = self.rack_value(e, e.tiles)
        if value is not None and e.score != -value:
            self.disagree(e, f"rack penalty ({e.tiles})", f"{e.score:+d}", f"{-value:+d}")
        if not self.late:
            self.own_rack(e, e.tiles)

    def own_rack(self, e: GcgEvent, tiles: str) -> None:
        """The tiles of ``e``'s rack penalty are its player's: counted once, holding what the
        record shows that player held, none of the board's or the others' (at a going-out
        end, whose bag is empty, exactly what the others do not hold)."""
        nick, named = e.nick, Counter(tiles)
        recorded = f"({tiles}) for {nick}"
        if nick in self.counted:
            self.disagree(e, "rack penalty", recorded, f"{nick}'s rack was counted on line {self.counted[nick][1]}")
            return
        self.counted[nick] = (named, e.line)
        out = self.out[0] if self.out is not None and self.end is not None and self.end.how == _WENT_OUT else None
        if nick == out:
            self.disagree(e, "rack penalty", recorded, f"{nick} went out: no rack")
            return
        others = Counter[str]()
        for other in self.seats:
            if other != nick:
                others += self.held[other] | (self.counted[other][0] if other in self.counted else Counter())
        room = Counter(self.tile_set.counts) - self.on_board() - others
        known = all(o in self.counted for o in self.seats if o not in (nick, out))
        if out is not None and known and named != room:
            self.disagree(e, "rack penalty", recorded, f"{nick}'s rack {_letters(room)} (the tiles not on the board or another rack)")
        elif self.held[nick] - named:
            self.disagree(e, "rack penalty", recorded, f"{nick} holds {_letters(self.held[nick])}")
        elif named - room:
            self.disagree(e, "rack penalty", recorded, f"{_letters(named - room)} not {nick}'s: on the board or another rack")

    def time_penalty(self, e: GcgEvent) -> None:
        """``(time) -N``: with a game clock in the record's rules, whole started minutes of
        its overtime penalty (a record without #rules does not say its clock)."""
        p = self.profile
        if not self.challenge_known or not p.clock_minutes or not p.overtime_penalty:
            return
        if e.score >= 0 or e.score % p.overtime_penalty:
            self.disagree(e, "time penalty", f"{e.score:+d}", f"-{p.overtime_penalty} per started minute over the clock")

    # --- challenges ----------------------------------------------------------------------

    def challenged(self, e: GcgEvent) -> _Rulings | None:
        """The rulings so far on the play a challenge line is about: the last move, a play
        (None: reported)."""
        last = self.last_move
        if last is None or last.kind is not Kind.PLAY or self.rulings is None or self.rulings.play is not last:
            self.disagree(e, "challenge", f"{_what(e)}", "no play just before to challenge")
            return None
        return self.rulings

    def challenge(self, e: GcgEvent) -> None:
        """``(challenge) +N``: the bonus for a valid challenged play; ``-N``: the wrong
        challenger's penalty. What the profile's challenge rule gives, on the right player,
        and together with the lines before on the same play."""
        if e.score == 0:
            return
        rulings = self.challenged(e)
        if rulings is None:
            return
        play = rulings.play
        p = self.profile
        recorded = f"{e.score:+d} for {e.nick}"
        if e.score > 0:
            if self.challenge_known and p.challenge_outcome is not ChallengeOutcome.PLAYER_GETS_BONUS:
                self.disagree(e, "challenge", recorded, f"no bonus under {_challenge_rule(p)}")
                return
            if e.nick != play.nick:
                self.disagree(e, "challenge", recorded, f"the bonus goes to {play.nick}, whose play on line {play.line} was challenged")
                return
            self.bonuses[e.nick] += e.score
            rulings.bonus += e.score
            rulings.valid = rulings.valid or e.line
            self.bonus_units(e, rulings)
            return
        if p.challenge_outcome is not ChallengeOutcome.CHALLENGER_LOSES_POINTS or not self.challenge_known:
            self.disagree(e, "challenge", recorded, f"no points lost by a wrong challenger under {_challenge_rule(p)}")
            return
        if e.nick == play.nick:
            self.disagree(e, "challenge", recorded, f"the penalty is the challenger's, not {play.nick}'s own")
            return
        if e.nick in rulings.penalized:
            self.disagree(e, "challenge", recorded, f"{e.nick} lost the challenge of line {play.line} on line {rulings.penalized[e.nick]}")
            return
        rulings.penalized[e.nick] = e.line
        rulings.valid = rulings.valid or e.line
        if e.score != -p.challenge_penalty:
            self.disagree(e, "challenge", recorded, f"{-p.challenge_penalty:+d} under {_challenge_rule(p)}")

    def bonus_units(self, e: GcgEvent, rulings: _Rulings) -> None:
        """A bonus is a whole number of the rule's units (per challenge or per challenged
        word), in all at most one per word of the play. A record without #rules shows its
        unit, 5 or 10, by its lines, and keeps to it."""
        units = ((self.profile.challenge_bonus, None),) if self.challenge_known else self.units
        words = self.words.get(rulings.play.line)
        total = rulings.bonus
        fits = [
            u for u, _ in units if e.score % u == 0 and total % u == 0 and (words is None or total // u <= words)
        ]
        if fits:
            if len(fits) < len(units):
                self.units = tuple((u, e.line) for u in fits)  # this line shows the record's unit
            return
        per = " or ".join(f"+{u}" for u, _ in units)
        shown = units[0][1] if len(units) == 1 else None
        since = f", as line {shown} shows" if shown is not None else ""
        upto = f" (up to {words} words)" if words is not None else ""
        self.disagree(e, "challenge", f"{e.score:+d} for {e.nick}", f"{per} per challenge or per challenged word{since}{upto}")

    def game_lost(self, e: GcgEvent) -> None:
        """``(triple) +0``: under challenge=triple the loser of a challenge loses the game:
        the challenger when the play stands, its player when it was withdrawn."""
        p = self.profile
        last = self.last_move
        lost = f"{e.nick} loses the game"
        if e.score != 0:
            self.disagree(e, "triple challenge", f"{e.score:+d}", "+0")
        if p.challenge_outcome is not ChallengeOutcome.LOSER_LOSES_GAME:
            self.disagree(e, "triple challenge", lost, f"no such loss under {_challenge_rule(p)}")
        elif last is None or last.kind not in (Kind.PLAY, Kind.WITHDRAW):
            self.disagree(e, "triple challenge", lost, "no play just before to challenge")
        elif last.kind is Kind.PLAY and e.nick == last.nick:
            self.disagree(e, "triple challenge", lost, f"the challenger loses: {last.nick}'s play on line {last.line} stands")
        elif last.kind is Kind.WITHDRAW and e.nick != last.nick:
            self.disagree(e, "triple challenge", lost, f"{last.nick} loses: the play was withdrawn on line {last.line}")
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
