"""The game state machine for 2 to 4 players.

A :class:`Game` holds the board, the racks, the bag and the scoresheet. Commands (see
:mod:`engine.events`) change it: draw, play, pass, exchange, challenge, close the challenge
window, undo the last play, adjust a score, a time penalty, end the game. It never reads a
clock and draws only through the injected random generator; every command it applied is
kept in :attr:`Game.log` with random draws resolved, so ``Game.replay`` rebuilds it.

A play stays provisional while its challenge window is open. The window closes when the
next player acts (every profile), when the player who laid it draws (``fr``), on
:meth:`Game.close_window` (the configured time, or every other seat pressing Done) or with
the ruling of a challenge. Going out and the finish line end the game only then.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .board import Board, Square
from .errors import (
    BagError,
    GameError,
    ChallengeError,
    ChallengeRefusal,
    CorrectionError,
    CorrectionRefusal,
    ExchangeNotAllowedError,
    ExchangeRefusal,
    GameOverError,
    InvalidWordsError,
    NoSuchSeatError,
    NotYourTurnError,
    OverrideNotAllowedError,
    UnnamedBlankError,
    WindowOpenError,
)
from .events import (
    END_ADJUSTMENTS,
    AdjustScore,
    Challenge,
    ChallengeBonus,
    ChallengePenalty,
    CloseWindow,
    Command,
    Draw,
    EndGame,
    Event,
    Exchange,
    Exchanged,
    GameLost,
    OutBonus,
    OverrideRuling,
    Pass,
    Passed,
    PenalizeTime,
    Play,
    PlayMade,
    PlayWithdrawn,
    RackPenalty,
    ScoreAdjusted,
    TimePenalty,
    UndoLastPlay,
)
from .lexicon import Lexicon, invalid_words
from .placement import Placement, validate
from .rules import ChallengeOutcome, PassScope, RuleProfile, TieRule, TurnKind, WindowCloses
from .scoring import ScoredPlay, score
from .tiles import BLANK, Bag, Tile, TileSet, letters_of


class Termination(enum.Enum):
    """Why the game ended."""

    WENT_OUT = "went-out"
    PASSES = "passes"
    FINISH_LINE = "finish-line"
    ENDED_AT_TABLE = "ended-at-table"
    TRIPLE_CHALLENGE = "triple-challenge"  # the loser of a challenge lost the game


@dataclass(frozen=True)
class TallyRow:
    """One player's line of the final tally."""

    player: int
    name: str
    score: int  # before the rack adjustment
    rack_adjustment: int
    final: int


@dataclass(frozen=True)
class Tally:
    """The end-of-game tally: a row per player, the winners, and why the game ended."""

    termination: Termination | None
    rows: tuple[TallyRow, ...]
    winners: tuple[int, ...]

    @property
    def is_tie(self) -> bool:
        """True when more than one player wins."""
        return len(self.winners) > 1


@dataclass(frozen=True)
class ChallengeResult:
    """The ruling on a challenge and what it did."""

    challenger: int
    player: int
    valid: bool
    invalid_words: tuple[str, ...]
    points: int  # challenger's penalty (negative) or the player's bonus (positive), else 0
    lost_turn: bool  # the challenger loses a turn
    plays_again: bool  # fr: the player takes the tiles back and plays again
    lost_game: int | None = None  # challenge=triple: the seat that lost the challenge and the game


@dataclass
class _Window:
    event_index: int
    player: int
    scored: ScoredPlay
    drawn: list[Tile] = field(default_factory=list)


@dataclass(frozen=True)
class _Turn:
    player: int
    kind: TurnKind


class Game:
    """A game of 2 to 4 players under a :class:`RuleProfile`."""

    def __init__(
        self,
        profile: RuleProfile,
        players: Sequence[str],
        *,
        rng: random.Random,
        first: int = 0,
    ) -> None:
        profile.check_players(len(players))
        if not 0 <= first < len(players):
            raise NoSuchSeatError(first, len(players), f"first player {first!r} is not a seat of {len(players)} players")
        self.profile = profile
        self.tile_set: TileSet = profile.tile_set
        self.players: tuple[str, ...] = tuple(players)
        self.first = first
        self.rng = rng
        self.board = Board()
        self.bag = Bag.full(self.tile_set, self.rng)
        self.racks: list[list[Tile]] = [[] for _ in players]
        self.events: list[Event] = []
        self.log: list[Command] = []
        self.turn = first
        self.termination: Termination | None = None
        self._window: _Window | None = None
        self._lose_next: Counter[int] = Counter()  # turns each player still has to lose
        self._turns: list[_Turn] = []
        self._placed_by: dict[Square, int] = {}  # square -> index of its PlayMade event
        self._before_play: Game | None = None  # a copy taken just before the last play (undo)
        self._before_ruling: Game | None = None  # a copy taken just before the last ruling (override)
        self._ruling: Challenge | None = None  # the last ruling while it may be overridden

    # --- state -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self.termination is not None

    @property
    def window_open(self) -> bool:
        """True while the last play can be challenged."""
        return self._window is not None

    @property
    def pending_play(self) -> PlayMade | None:
        """The play whose challenge window is open."""
        if self._window is None:
            return None
        event = self.events[self._window.event_index]
        assert isinstance(event, PlayMade)
        return event

    def score(self, player: int) -> int:
        """``player``'s score: the sum of their scoresheet events."""
        return sum(e.points for e in self.events if e.player == player)

    def scores(self) -> list[int]:
        """Every player's score, in seat order."""
        totals = [0] * len(self.players)
        for e in self.events:
            totals[e.player] += e.points
        return totals

    def rack(self, player: int) -> str:
        """``player``'s rack letters (``?`` for blanks)."""
        return letters_of(self.racks[player])

    def unseen(self, player: int) -> Counter[str]:
        """Tiles ``player`` cannot see: the bag and the other racks."""
        seen = Counter(letters_of(t for _, t in self.board.tiles())) + Counter(self.rack(player))
        return Counter(self.tile_set.counts) - seen

    def tally(self) -> Tally:
        """Scores, rack adjustments, finals and winners (so far, if the game is on)."""
        n = len(self.players)
        adjust = [0] * n
        final = self.scores()
        for e in self.events:
            if isinstance(e, END_ADJUSTMENTS):
                adjust[e.player] += e.points
        rows = tuple(
            TallyRow(p, self.players[p], final[p] - adjust[p], adjust[p], final[p]) for p in range(n)
        )
        best = max(final)
        winners = [p for p in range(n) if final[p] == best]
        lost = [e.player for e in self.events if isinstance(e, GameLost)]
        if lost:  # a triple challenge decided the game, whatever the scores
            return Tally(self.termination, rows, tuple(p for p in range(n) if p not in lost))
        if len(winners) > 1 and self.profile.tie_rule is TieRule.HIGHER_BEFORE_ADJUSTMENT:
            before = max(rows[p].score for p in winners)
            winners = [p for p in winners if rows[p].score == before]
        return Tally(self.termination, rows, tuple(winners))

    # --- commands --------------------------------------------------------------------

    def apply(self, command: Command) -> object:
        """Apply a journaled command; returns what the matching method returns."""
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise TypeError(f"not a game command: {command!r}")
        return handler(self, command)

    @classmethod
    def replay(
        cls,
        profile: RuleProfile,
        players: Sequence[str],
        commands: Iterable[Command],
        *,
        first: int = 0,
        rng: random.Random | None = None,
    ) -> Game:
        """A game rebuilt from its commands (as kept in :attr:`log`).

        The log's draws name their tiles, so ``rng`` only serves later random draws.
        """
        game = cls(profile, players, rng=rng if rng is not None else random.Random(0), first=first)
        for command in commands:
            game.apply(command)
        return game

    def deal(self) -> None:
        """Every player draws a full rack, starting with the first player."""
        n = len(self.players)
        for k in range(n):
            self.draw((self.first + k) % n)

    def draw(self, player: int, tiles: str | None = None) -> list[Tile]:
        """``player`` fills the rack: with ``tiles`` (rack letters seen) or at random.

        In ``fr`` the draw of the player whose play is pending closes its window.
        """
        self._check_player(player)
        if self.over:
            raise GameOverError("the game is over; no more draws", self._ended())
        room = self.profile.rack_size - len(self.racks[player])
        if tiles is None:
            drawn = self.bag.draw(room)
        else:
            if len(tiles) > room:
                raise BagError(f"{self.players[player]} cannot draw {tiles!r}: the rack has room for {room}", tiles)
            drawn = self.bag.take(self.tile_set.parse_rack(tiles))
        self.racks[player].extend(drawn)
        self.log.append(Draw(player, letters_of(drawn)))
        w = self._window
        if w is not None and w.player == player and drawn:
            w.drawn.extend(drawn)
            if self.profile.window_closes is WindowCloses.PLAYER_DRAWS:
                self._close_window()
        if not self.over and drawn and not len(self.bag):
            # The bag ran out: a player who emptied the rack earlier and never drew is out.
            w = self._window
            out = next(
                (p for p in range(len(self.players)) if not self.racks[p] and not (w and w.player == p)),
                None,
            )
            if out is not None:
                self._close_window()  # a pending play of another player is final first
                if not self.over:
                    self._finish(Termination.WENT_OUT, out=out)
        return drawn

    def check_play(self, player: int, placement: Placement, lexicon: Lexicon | None = None) -> ScoredPlay:
        """Validate and score ``placement`` for ``player`` without changing the game.

        Under ``challenge=void`` (``invalid_play_refused``) a play forming a word that
        ``lexicon`` lacks raises :class:`InvalidWordsError`; without a lexicon the words
        are not looked at (a replay of plays accepted before).
        """
        self._check_turn(player)
        rack = self.racks[player]
        validate(
            self.board,
            placement,
            rack=rack,
            rack_size=self.profile.rack_size,
            tile_set=self.tile_set,
        )
        unnamed = [p.square for p in placement.tiles if p.tile.letter == BLANK]
        if unnamed:
            raise UnnamedBlankError(unnamed)
        scored = score(
            self.board,
            placement,
            bingo_tiles=self.profile.bingo_tiles,
            bingo_bonus=self.profile.bingo_bonus,
        )
        if self.profile.invalid_play_refused and lexicon is not None:
            bad = invalid_words(scored.words, lexicon)
            if bad:
                raise InvalidWordsError(bad)
        return scored

    def play(self, player: int, placement: Placement, lexicon: Lexicon | None = None) -> ScoredPlay:
        """``player`` lays ``placement``; it is validated, scored and its window opens.

        Under ``challenge=void`` the words are checked against ``lexicon`` first (see
        :meth:`check_play`) and the play is final at once: there is no window.
        """
        scored = self.check_play(player, placement, lexicon)
        self._next_player_acts()
        self._before_play = self.copy()
        rack_before = self.rack(player)
        position, word = placement.gcg(self.board)
        for sq, tile in placement.tiles:
            self.board.place(sq, tile)
        self._take_from_rack(player, placement.rack_letters())
        index = len(self.events)
        self.events.append(
            PlayMade(
                player,
                rack_before,
                scored.score,
                position=position,
                word=word,
                placement=placement,
                words=scored.words,
                bingo=scored.bingo,
            )
        )
        for sq in placement.squares:
            self._placed_by[sq] = index
        self._turns.append(_Turn(player, TurnKind.PLAY))
        self.log.append(Play(player, placement))
        self._window = _Window(index, player, scored)
        self._advance()
        if self.profile.invalid_play_refused:
            self._close_window()
        return scored

    def pass_turn(self, player: int) -> None:
        """``player`` passes (0 points)."""
        self._check_turn(player)
        self._next_player_acts()
        self.events.append(Passed(player, self.rack(player), 0))
        self.log.append(Pass(player))
        self._end_turn(player, TurnKind.PASS)

    @property
    def bag_after_refills(self) -> int:
        """The bag an exchange is judged by: its tiles less those owed to racks not yet
        refilled (while the bag holds a tile every rack is full, docs/RULES.md)."""
        owed = sum(max(0, self.profile.rack_size - len(rack)) for rack in self.racks)
        return max(0, len(self.bag) - owed)

    def exchange(self, player: int, tiles: str, drawn: str | None = None) -> list[Tile]:
        """``player`` exchanges ``tiles`` (rack letters); ``drawn`` are the new ones, or random.

        Refused while the bag holds fewer tiles than the profile allows, counted once every
        rack is refilled (:attr:`bag_after_refills`).
        """
        self._check_turn(player)
        bag = self.bag_after_refills
        holds = f"{len(self.bag)} tiles, {bag} once every rack is refilled" if bag < len(self.bag) else f"{bag} tiles"

        def refuse(reason: ExchangeRefusal, message: str) -> ExchangeNotAllowedError:
            return ExchangeNotAllowedError(reason, message, bag=bag, tiles=tiles)

        if not tiles:
            raise refuse(ExchangeRefusal.NO_TILES, "no tiles to exchange")
        if bag < self.profile.exchange_min_bag:
            raise refuse(
                ExchangeRefusal.BAG_TOO_SMALL,
                f"the bag holds {holds}; exchanging needs at least {self.profile.exchange_min_bag}",
            )
        if len(tiles) > bag:
            raise refuse(ExchangeRefusal.MORE_THAN_BAG, f"the bag holds {holds}; {len(tiles)} cannot be exchanged")
        missing = Counter(tiles) - Counter(self.rack(player))
        if missing:
            raise refuse(
                ExchangeRefusal.NOT_ON_RACK,
                f"the rack {self.rack(player)!r} lacks {''.join(sorted(missing.elements()))!r} to exchange",
            )
        if drawn is not None:
            if len(drawn) != len(tiles):
                raise refuse(
                    ExchangeRefusal.DRAWN_COUNT, f"exchanged {len(tiles)} tiles but drew {len(drawn)} ({drawn!r})"
                )
            short = "".join(sorted((Counter(drawn) - self.bag.counts()).elements()))
            if short:
                raise BagError(f"drawn tiles {short!r} are not in the bag {self.bag.letters()!r}", short)
        self._next_player_acts()
        rack_before = self.rack(player)
        new = self.bag.draw(len(tiles)) if drawn is None else self.bag.take(self.tile_set.parse_rack(drawn))
        returned = self._take_from_rack(player, tiles)
        self.bag.put_back(returned)
        self.racks[player].extend(new)
        self.events.append(Exchanged(player, rack_before, 0, tiles=tiles))
        self.log.append(Exchange(player, tiles, letters_of(new)))
        self._end_turn(player, TurnKind.EXCHANGE)
        return new

    def challenge(self, challenger: int, lexicon: Lexicon) -> ChallengeResult:
        """``challenger`` challenges the pending play; ``lexicon`` rules on its words."""
        ruling = self.rule(challenger, lexicon)
        return self.rule_challenge(challenger, ruling.invalid_words, ruling.extends_own_phony)

    def rule(self, challenger: int, lexicon: Lexicon) -> Challenge:
        """The ruling ``lexicon`` gives on a challenge of the pending play, not yet applied."""
        w = self._require_window(challenger)
        bad = invalid_words(w.scored.words, lexicon)
        phony = bool(bad) and self.profile.phony_extension_rule and self._extends_phony_of(
            challenger, w, lexicon
        )
        return Challenge(challenger, bad, phony)

    def rule_challenge(
        self, challenger: int, invalid: Sequence[str] = (), extends_own_phony: bool = False
    ) -> ChallengeResult:
        """Apply a ruling on a challenge of the pending play: ``invalid`` words, or none.

        Invalid: the tiles go back to the player's rack (tiles drawn since go back to the
        bag), 0 points, turn over; with ``extends_own_phony`` (``fr``) the player plays
        again instead. Valid: the profile's outcome for the challenger or the player.
        """
        w = self._require_window(challenger)
        invalid = tuple(invalid)
        if extends_own_phony and not (invalid and self.profile.phony_extension_rule):
            raise ChallengeError(
                ChallengeRefusal.NO_PHONY_RULE,
                "the phony-extension rule applies only to an invalid play under fr",
                challenger,
            )
        self._before_ruling = self.copy()
        ruling = Challenge(challenger, invalid, extends_own_phony)
        self.log.append(ruling)
        self._ruling = ruling
        player = w.player
        if invalid:
            play = self.events[w.event_index]
            self._window = None
            for sq in w.scored.placement.squares:
                self.board.remove(sq)
                self._placed_by.pop(sq, None)
            self._take_from_rack(player, letters_of(w.drawn))
            self.bag.put_back(w.drawn)
            self.racks[player].extend(p.tile.unassigned() for p in w.scored.placement.tiles)
            # right after the play on the scoresheet, before any turn lost in between
            self.events.insert(w.event_index + 1, PlayWithdrawn(player, play.rack, -play.points))
            turn_index = max(i for i, t in enumerate(self._turns) if t.player == player and t.kind is TurnKind.PLAY)
            if extends_own_phony:
                del self._turns[turn_index]
                self.turn = player
            else:
                self._turns[turn_index] = _Turn(player, TurnKind.WITHDRAWN)
                if self.profile.challenge_outcome is ChallengeOutcome.LOSER_LOSES_GAME:
                    self._lose_game(player)
                    return ChallengeResult(challenger, player, False, invalid, 0, False, False, lost_game=player)
                self._check_pass_end()
            return ChallengeResult(challenger, player, False, invalid, 0, False, extends_own_phony)
        outcome = self.profile.challenge_outcome
        points = 0
        lost = False
        if outcome is ChallengeOutcome.CHALLENGER_LOSES_POINTS:
            points = -self.profile.challenge_penalty
            self.events.append(ChallengePenalty(challenger, self.rack(challenger), points))
        elif outcome is ChallengeOutcome.PLAYER_GETS_BONUS:
            points = self.profile.challenge_bonus
            self.events.append(ChallengeBonus(player, self.rack(player), points))
        elif outcome is ChallengeOutcome.LOSER_LOSES_GAME:
            self._window = None  # the play is final; the game ends with the challenger's loss
            self._lose_game(challenger)
            return ChallengeResult(challenger, player, True, (), 0, False, False, lost_game=challenger)
        self._close_window()
        if outcome is ChallengeOutcome.CHALLENGER_LOSES_TURN and not self.over:
            lost = True
            if challenger == self.turn:
                self._lose_turn(challenger)
            else:
                self._lose_next[challenger] += 1
        return ChallengeResult(challenger, player, True, (), points, lost, False)

    def close_window(self) -> None:
        """Close the pending play's challenge window: the play is final."""
        self.log.append(CloseWindow())
        self._close_window()

    def undo_last_play(self) -> PlayMade:
        """Take back the last play as if it had not been made, with its draws and challenge.

        Allowed while nobody has moved since and the play was not withdrawn. The player's
        drawn tiles go back to the bag. :attr:`log` afterwards holds the commands that
        rebuild the new state (the undo itself is not in it). The game goes back to the
        copy taken before the play and the corrections and other players' draws made since
        are applied again: the cost does not grow with the game or with earlier undos.
        """
        index = self._last(Play)
        if index is None or self._before_play is None:
            raise CorrectionError(CorrectionRefusal.NO_PLAY, "there is no play to undo")
        play = self.log[index]
        assert isinstance(play, Play)
        later = self.log[index + 1:]
        if any(isinstance(c, (Play, Pass, Exchange, EndGame)) for c in later):
            raise CorrectionError(
                CorrectionRefusal.NOT_LAST, "only the last play can be undone, before anyone else moves"
            )
        if any(isinstance(c, Challenge) and c.invalid_words for c in later):
            raise CorrectionError(CorrectionRefusal.WITHDRAWN, "the last play was already withdrawn after a challenge")
        event = next(e for e in reversed(self.events) if isinstance(e, PlayMade))
        kept = [
            c
            for c in later
            if isinstance(c, (AdjustScore, PenalizeTime))
            or (isinstance(c, Draw) and c.player != play.player)
        ]
        self._become(self._before_play, kept)
        self._ruling = None
        return event

    def override_ruling(self, invalid: Sequence[str] = ()) -> ChallengeResult:
        """Reverse the ruling on the last challenge, as if it had been ruled the other way.

        A play ruled invalid stands (valid); a play ruled valid is withdrawn with
        ``invalid`` words (required then). Allowed until anybody moves after the ruling;
        the player's draws since a valid ruling go back to the bag. :attr:`log` afterwards
        holds the commands that rebuild the new state (the override itself is not in it).
        Like an undo, it starts from the copy taken before the ruling. A profile without
        ``overrides_allowed`` (en-tournament) refuses it: :class:`OverrideNotAllowedError`.
        """
        if not self.profile.overrides_allowed:
            raise OverrideNotAllowedError(self.profile.name)
        index = self._last(Challenge)
        if index is None or self._before_ruling is None:
            raise CorrectionError(CorrectionRefusal.NO_RULING, "there is no ruling to override")
        ruling = self.log[index]
        assert isinstance(ruling, Challenge)
        later = self.log[index + 1:]
        if any(isinstance(c, (Play, Pass, Exchange, EndGame)) for c in later):
            raise CorrectionError(
                CorrectionRefusal.MOVED_SINCE, "a ruling can only be overridden before anyone moves again"
            )
        if self._ruling is None:
            raise CorrectionError(
                CorrectionRefusal.NO_RULING, "the last ruling can no longer be overridden (overridden, or its play undone)"
            )
        play = next(c for c in reversed(self.log[:index]) if isinstance(c, Play))
        if ruling.invalid_words:
            reversed_ruling = Challenge(ruling.challenger)
        else:
            if not invalid:
                raise CorrectionError(
                    CorrectionRefusal.NEEDS_WORDS, "overriding a valid ruling needs the words to rule invalid"
                )
            reversed_ruling = Challenge(ruling.challenger, tuple(invalid))
        kept = [
            c
            for c in later
            if isinstance(c, (AdjustScore, PenalizeTime))
            or (isinstance(c, Draw) and (c.player != play.player or not reversed_ruling.invalid_words))
        ]
        rebuilt = self._before_ruling.copy(self.rng)
        result = rebuilt.rule_challenge(
            reversed_ruling.challenger, reversed_ruling.invalid_words, reversed_ruling.extends_own_phony
        )
        for command in kept:
            try:
                rebuilt.apply(command)
            except GameError:  # a later draw took tiles the ruling had put back in the bag
                raise CorrectionError(
                    CorrectionRefusal.MOVED_SINCE, f"the ruling cannot be overridden: since then {command} was made"
                ) from None
        self.__dict__.update(rebuilt.__dict__)
        self._ruling = None  # once
        return result

    @property
    def overridable_ruling(self) -> Challenge | None:
        """The last ruling on a challenge while it can be overridden: once, before anybody
        moves and before its play is undone."""
        return self._ruling

    def adjust_score(self, player: int, points: int) -> None:
        """Add ``points`` to ``player``'s score (a correction confirmed at the table)."""
        self._check_player(player)
        self.events.append(ScoreAdjusted(player, self.rack(player), points))
        self.log.append(AdjustScore(player, points))

    def penalize_time(self, player: int, points: int) -> None:
        """``player`` loses ``points`` (positive) for overtime; also after the end."""
        self._check_player(player)
        if points < 0:
            raise CorrectionError(
                CorrectionRefusal.NEGATIVE, f"a time penalty is a positive number of points, not {points!r}"
            )
        self.events.append(TimePenalty(player, self.rack(player), -points))
        self.log.append(PenalizeTime(player, points))

    def end_game(self) -> Tally:
        """End the game at the table: each player subtracts their own rack."""
        if self.over:
            raise GameOverError("the game is already over", self._ended())
        self.log.append(EndGame())
        self._ruling = None
        self._close_window()  # a pending play is final: it may go out or reach the target
        if not self.over:
            self._finish(Termination.ENDED_AT_TABLE)
        return self.tally()

    # --- copies --------------------------------------------------------------------------

    def copy(self, rng: random.Random | None = None) -> Game:
        """An independent copy: applying commands to it leaves this game as it is.

        Events, commands and tiles are immutable values and shared; the containers are
        copied, the random generator too (with its state) unless ``rng`` is given. The
        copies kept for undo and override are never changed, so they are shared as well.
        """
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        if rng is None:
            rng = random.Random.__new__(random.Random)  # (not seeded: its state is set next)
            rng.setstate(self.rng.getstate())
        other.rng = rng
        other.board = self.board.copy()
        other.bag = self.bag.copy(rng)
        other.racks = [list(r) for r in self.racks]
        other.events = list(self.events)
        other.log = list(self.log)
        other._window = None if self._window is None else replace(self._window, drawn=list(self._window.drawn))
        other._lose_next = Counter(self._lose_next)
        other._turns = list(self._turns)
        other._placed_by = dict(self._placed_by)
        return other

    def __eq__(self, other: object) -> bool:
        """The same state, the copies kept for undo and override included."""
        if not isinstance(other, Game):
            return NotImplemented
        return _same(self, other, set())

    __hash__ = None  # type: ignore[assignment]  # a game changes

    def _become(self, base: Game, commands: Iterable[Command]) -> None:
        """Take the state of a copy of ``base``, then apply ``commands``."""
        rebuilt = base.copy(self.rng)
        for command in commands:
            rebuilt.apply(command)
        self.__dict__.update(rebuilt.__dict__)

    def _last(self, kind: type[Command]) -> int | None:
        """Index of the last command of ``kind`` in the log."""
        for i in range(len(self.log) - 1, -1, -1):
            if isinstance(self.log[i], kind):
                return i
        return None

    # --- internals ---------------------------------------------------------------------

    def _ended(self) -> str | None:
        return self.termination.value if self.termination else None

    def _check_player(self, player: int) -> None:
        if not 0 <= player < len(self.players):
            raise NoSuchSeatError(player, len(self.players))

    def _check_turn(self, player: int) -> None:
        self._check_player(player)
        if self.over:
            raise GameOverError("the game is over", self._ended())
        w = self._window
        if w is not None and not self.racks[w.player] and not len(self.bag):
            raise WindowOpenError(w.player, self.players[w.player])
        if player != self.turn:
            raise NotYourTurnError(player, self.turn, self.players)

    def _require_window(self, challenger: int) -> _Window:
        self._check_player(challenger)
        if self.profile.invalid_play_refused:
            raise ChallengeError(
                ChallengeRefusal.VOID,
                "challenge=void: every play was checked when it was laid; there is nothing to challenge",
                challenger,
            )
        w = self._window
        if w is None:
            raise ChallengeError(
                ChallengeRefusal.NO_WINDOW,
                "too late: no play can be challenged now (the last one is final or was taken back)",
                challenger,
            )
        if challenger == w.player:
            raise ChallengeError(
                ChallengeRefusal.OWN_PLAY, f"{self.players[challenger]} cannot challenge their own play", challenger
            )
        return w

    def _take_from_rack(self, player: int, letters: str) -> list[Tile]:
        rack = self.racks[player]
        taken: list[Tile] = []
        for ch in letters:
            for i, t in enumerate(rack):
                if t.rack_letter == ch:
                    taken.append(rack.pop(i))
                    break
            else:
                raise BagError(f"tile {ch!r} is not on {self.players[player]}'s rack {self.rack(player)!r}", ch)
        return taken

    def _next_player_acts(self) -> None:
        """The next player's move closes the pending window (logged, so replays agree)."""
        self._ruling = None
        if self._window is not None:
            self.log.append(CloseWindow())
            self._close_window()
            if self.over:
                raise GameOverError(f"the game is over: {self._ended()}", self._ended())

    def _close_window(self) -> None:
        w = self._window
        if w is None:
            return
        self._window = None
        went_out = not self.racks[w.player] and not len(self.bag)
        if went_out and self.profile.going_out_beats_finish_line:
            self._finish(Termination.WENT_OUT, out=w.player)
        elif self._reached_target():
            self._finish(Termination.FINISH_LINE)
        elif went_out:
            self._finish(Termination.WENT_OUT, out=w.player)
        else:
            self._check_pass_end()

    def _reached_target(self) -> bool:
        """The finish line: a score reached the target (challenge bonuses counted if the
        profile says so)."""
        p = self.profile
        if not p.target:
            return False
        scores = self.scores()
        if not p.challenge_bonus_reaches_target:
            for e in self.events:
                if isinstance(e, ChallengeBonus):
                    scores[e.player] -= e.points
        return max(scores) >= p.target

    def _lose_game(self, player: int) -> None:
        """``challenge=triple``: ``player`` lost the challenge and the game."""
        self.events.append(GameLost(player, self.rack(player), 0))
        self._finish(Termination.TRIPLE_CHALLENGE)

    def _advance(self) -> None:
        n = len(self.players)
        self.turn = (self.turn + 1) % n
        if self._lose_next[self.turn] and not self.over:
            self._lose_next[self.turn] -= 1
            self._lose_turn(self.turn)

    def _lose_turn(self, player: int) -> None:
        self.events.append(Passed(player, self.rack(player), 0, reason=TurnKind.LOST_TURN))
        self._end_turn(player, TurnKind.LOST_TURN)

    def _end_turn(self, player: int, kind: TurnKind) -> None:
        self._turns.append(_Turn(player, kind))
        # A turn lost while a play's window is open cannot end the game before that play
        # is final: the pass rule is checked again when the window closes. Once the rule is
        # met the game ends then, whatever the ruling, so no further turn is taken (a turn
        # lost after it would be written after the end).
        if self._window is not None:
            if not self.profile.pass_rule_ends([(t.player, t.kind) for t in self._turns], len(self.players)):
                self._advance()
        elif not self._check_pass_end():
            self._advance()

    def _check_pass_end(self) -> bool:
        ended = self.profile.pass_rule_ends([(t.player, t.kind) for t in self._turns], len(self.players))
        if ended:
            self._window = None
            self._finish(Termination.PASSES)
        return ended

    def _finish(self, termination: Termination, out: int | None = None) -> None:
        self.termination = termination
        n = len(self.players)
        tile_set = self.tile_set
        if termination is Termination.WENT_OUT:
            assert out is not None
            others = [p for p in range(n) if p != out]
            tiles = "".join(self.rack(p) for p in others)
            value = tile_set.rack_value(tiles)
            self.events.append(OutBonus(out, "", value * self.profile.out_bonus_factor, tiles=tiles))
            if self.profile.others_subtract_on_out:
                for p in others:
                    if self.racks[p]:
                        rack = self.rack(p)
                        self.events.append(RackPenalty(p, rack, -tile_set.rack_value(rack)))
        elif (
            termination in (Termination.PASSES, Termination.ENDED_AT_TABLE)
            or (termination is Termination.FINISH_LINE and self.profile.finish_line_rack_adjustment)
            or (termination is Termination.TRIPLE_CHALLENGE and self.profile.triple_rack_adjustment)
        ):
            for p in range(n):
                if self.racks[p]:
                    rack = self.rack(p)
                    self.events.append(RackPenalty(p, rack, -tile_set.rack_value(rack)))

    def _extends_phony_of(self, challenger: int, w: _Window, lexicon: Lexicon) -> bool:
        """fr: does an invalid word of the pending play extend a phony that ``challenger`` laid?"""
        new = set(w.scored.placement.squares)
        for word in w.scored.words:
            if word.text in lexicon:
                continue
            old_plays = {self._placed_by[sq] for sq in word.squares if sq not in new and sq in self._placed_by}
            for index in old_plays:
                earlier = self.events[index]
                if not isinstance(earlier, PlayMade) or earlier.player != challenger:
                    continue
                squares = set(word.squares)
                for old_word in earlier.words:
                    if old_word.text not in lexicon and set(old_word.squares) <= squares:
                        return True
        return False

    def __repr__(self) -> str:
        state = self.termination.value if self.termination else f"turn {self.players[self.turn]}"
        return f"<Game {self.profile.name} {len(self.players)} players, {state}, scores {self.scores()}>"


_STATE = (
    "profile", "players", "first", "board", "bag", "racks", "events", "log", "turn", "termination",
    "_window", "_lose_next", "_turns", "_placed_by", "_before_play", "_before_ruling", "_ruling",
)
"""What makes a game's state (:meth:`Game.__eq__`); ``tile_set`` follows from the profile."""


def _same(a: Game, b: Game, seen: set[tuple[int, int]]) -> bool:
    """``a == b``, each pair of games compared once: the copies kept for undo and override
    share earlier copies, so a plain recursion would walk the same ones again and again."""
    if a is b or (id(a), id(b)) in seen:
        return True
    seen.add((id(a), id(b)))
    for name in _STATE:
        mine, theirs = getattr(a, name), getattr(b, name)
        if isinstance(mine, Game) and isinstance(theirs, Game):
            if not _same(mine, theirs, seen):
                return False
        elif mine is not theirs and mine != theirs:
            return False
    return bool(a.rng.getstate() == b.rng.getstate())


_HANDLERS: dict[type[Command], Callable[[Game, Any], object]] = {
    Draw: lambda g, c: g.draw(c.player, c.tiles),
    Play: lambda g, c: g.play(c.player, c.placement),  # (a void profile's words were checked when laid)
    Pass: lambda g, c: g.pass_turn(c.player),
    Exchange: lambda g, c: g.exchange(c.player, c.tiles, c.drawn),
    Challenge: lambda g, c: g.rule_challenge(c.challenger, c.invalid_words, c.extends_own_phony),
    CloseWindow: lambda g, c: g.close_window(),
    UndoLastPlay: lambda g, c: g.undo_last_play(),
    OverrideRuling: lambda g, c: g.override_ruling(c.invalid_words),
    AdjustScore: lambda g, c: g.adjust_score(c.player, c.points),
    PenalizeTime: lambda g, c: g.penalize_time(c.player, c.points),
    EndGame: lambda g, c: g.end_game(),
}
