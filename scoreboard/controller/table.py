"""The turn controller: the turn lifecycle as ``(state, input) -> (state, effects)``.

One queue, one consumer: the service feeds :meth:`Table.step` every input in arrival order
(board reads from the stabiliser, link state, button events, ticks) and carries out the
effects in order: journal appends first, then house-list words, the game's end, and the
screen. ``step`` never changes the state it is given; the engine game behind a state is
rebuilt from the state's commands, and kept between steps so that this costs nothing in
the usual case (see :meth:`Table.game`).

The turn, as players live it (DESIGN.md): tiles are laid; Done is judged on the first
settled board read at or after the press; the committed and the observed board are diffed
(new tiles must come from the player's rack, an old tile that moved is an error, not a
move); blanks get their letter by lexicon inference or from the player; Done with nothing
laid is an exchange (tiles swapped on the rack) or a pass, each confirmed by holding Done;
the challenge window opens and closes by the profile or the configured time; rack tiles
that appear are draws. Corrections (undo, score adjustment, overriding a ruling, ending
the game) need a second seat's long press.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from drivers.board.snapshot import BoardSnapshot
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import Square
from engine.clock import overtime_penalty
from engine.errors import (
    CentreNotCoveredError,
    ExchangeNotAllowedError,
    GapError,
    NotConnectedError,
    NotInLineError,
    NotOnRackError,
    NotYourTurnError,
    ScoreboardError,
)
from engine.events import (
    AdjustScore,
    Challenge,
    CloseWindow,
    Command,
    Draw,
    EndGame,
    Exchange,
    OverrideRuling,
    Pass,
    PenalizeTime,
    Play,
    PlayMade,
    UndoLastPlay,
)
from engine.game import ChallengeResult, Game
from engine.lexicon import HouseLexicon, Lexicon, infer_blanks
from engine.placement import Placement
from engine.rules import PROFILES, MoveLimitAction, RuleProfile, WindowCloses
from engine.tiles import BLANK, Tile, TileSet, letters_of
from scoreboard.screens.models import (
    ChallengeResultScreen,
    ConfirmKind,
    ErrorKind,
    ErrorScreen,
    Lang,
    MenuItem,
    Screen,
    UnseenScreen,
)

from .effects import Append, Effect, GameOver, HouseWord, PowerOff, Show
from .inputs import BoardAway, BoardBack, BoardRead, Input, ReaderState, Tick
from .lookup import TileLookup
from .records import ClockState, Committed, Record, Started
from .state import (
    Adjusting,
    BlankPick,
    Clock,
    Confirming,
    LastPlay,
    Menu,
    Phase,
    Reading,
    Request,
    SettledRun,
    TableState,
    Window,
)
from .view import MENU_ITEMS, screen_of

__all__ = ["Context", "Settings", "Table", "TileLookup"]

CLOCK_SAVE_S = 15.0  # a running clock is journaled this often
CHALLENGE_GRACE_S = 0.4  # a Challenge waits this long for one pressed earlier and still held
_RUNS_KEPT = 8
_ERRORS: tuple[tuple[type[Exception], ErrorKind], ...] = (
    (NotInLineError, ErrorKind.NOT_IN_LINE),
    (GapError, ErrorKind.GAP),
    (NotConnectedError, ErrorKind.NOT_TOUCHING),
    (CentreNotCoveredError, ErrorKind.NOT_CENTER),
    (NotOnRackError, ErrorKind.NOT_YOUR_TILE),
    (NotYourTurnError, ErrorKind.NOT_YOUR_TURN),
    (ExchangeNotAllowedError, ErrorKind.EXCHANGE_NOT_ALLOWED),
)


@dataclass(frozen=True)
class Settings:
    """Timings and choices of the table (seconds)."""

    language: Lang = "de"
    window_s: float = 20.0  # the challenge window when the profile's deadline comes later
    read_timeout_s: float = 3.0  # Done waits this long for a settled board read
    result_s: float = 5.0  # a challenge ruling stays on the display
    notice_s: float = 4.0  # an error or a hint stays on the display
    last_play_s: float = 4.0  # the words of a play before the window's countdown
    request_s: float = 30.0  # a correction waits this long for the second seat
    refill: Literal["block", "warn"] = "block"  # a Done while a rack is not refilled


@dataclass(frozen=True)
class Context:
    """What the controller reads but never changes: rules, lexicons, tiles, settings.

    ``profiles``: a profile name to the profile with the configured variants;
    ``lexicons``: a language to its lexicon (house lists applied); ``tiles``: a tile set
    to its registry; ``names``: the configured player names in seat order.
    """

    profiles: Callable[[str], RuleProfile]
    lexicons: Callable[[str], Lexicon]
    tiles: Callable[[TileSet], TileLookup]
    names: tuple[str, ...] = ("Player 1", "Player 2")
    settings: Settings = field(default_factory=Settings)
    profile_names: tuple[str, ...] = tuple(PROFILES)


class Table:
    """The controller of one table: :meth:`new` starts, :meth:`step` goes on."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self._cached: tuple[tuple[Command, ...], tuple[str, int, tuple[str, ...]], Game] | None = None

    # --- the function -------------------------------------------------------------------

    def new(
        self, now: float, profile: str | None = None, seats: int | None = None
    ) -> tuple[TableState, list[Effect]]:
        """A table waiting for the draw for the first player."""
        names = self.context.names
        state = TableState(
            phase=Phase.DRAW_FIRST,
            profile_name=profile or self.context.profile_names[0],
            seats=seats or len(names),
            names=(),
            now=now,
        )
        step = _Step(self, state, None)
        step.new_game(state.profile_name, state.seats)
        return step.finish()

    def step(self, state: TableState, event: Input) -> tuple[TableState, list[Effect]]:
        """The state after ``event`` and what to do about it, in order.

        An engine refusal the controller did not foresee leaves the state as it was,
        with the refusal on the display (and the cached game dropped).
        """
        step = _Step(self, state.copy(), self.game(state))
        try:
            step.handle(event)
        except ScoreboardError as e:
            self._cached = None
            step = _Step(self, state.copy(), self.game(state))
            step.s.now = max(state.now, event.at)
            step.error(ErrorKind.BAD_PLAY, str(e))
        return step.finish()

    def restore(
        self, records: Iterable[Record], now: float, *, paused: bool = True
    ) -> tuple[TableState, list[Effect]]:
        """The table rebuilt from a journaled game's records (crash recovery).

        ``paused``: the clocks and the challenge window wait until a button is pressed.
        The first settled board read shows what differs from the restored board.
        """
        records = list(records)
        if not records or not isinstance(records[0], Started):
            raise ValueError("a journaled game starts with its Started record")
        started = records[0]
        profile = RuleProfile.from_rules_line(started.rules)
        state, _ = self.new(now, profile.name, len(started.players))
        step = _Step(self, state, None)
        step.start_game(started, profile, journal=False)
        for record in records[1:]:
            if isinstance(record, Committed):
                step.commit(record.command, record.laid, record.drawn, record.returned, journal=False)
            elif isinstance(record, ClockState) and step.s.clock is not None:
                step.s.clock = replace(step.s.clock, used=record.used, running=None)
        step.s.check_board = True
        if paused:
            step.s.paused_at = now
            step.s.stopped_since = now
        pending = step.game.pending_play if step.game is not None else None
        if pending is not None:
            step.open_window(pending.player, now)  # a full window again: the players lost track
        step.s.last_play_until = 0.0
        return step.finish()

    def game(self, state: TableState) -> Game | None:
        """The engine game of ``state`` (None before it starts); treat it as read-only."""
        if not state.rules:
            return None
        cached = self._cached
        if cached is not None and cached[0] is state.commands and cached[1] == _game_key(state):
            return cached[2]
        profile = RuleProfile.from_rules_line(state.rules)
        game = Game.replay(profile, state.names, state.commands, first=state.first, rng=random.Random(0))
        self._cached = (state.commands, _game_key(state), game)
        return game

    def _keep(self, state: TableState, game: Game | None) -> None:
        if game is not None and state.rules:
            self._cached = (state.commands, _game_key(state), game)


def _game_key(state: TableState) -> tuple[str, int, tuple[str, ...]]:
    """What besides its commands makes a game (the empty tuple of commands is shared)."""
    return (state.rules, state.first, state.names)


class _Step:
    """One step's work on a copy of the state (and the engine game, kept in step)."""

    def __init__(self, table: Table, s: TableState, game: Game | None) -> None:
        self.table = table
        self.ctx = table.context
        self.settings = table.context.settings
        self.s = s
        self.game = game
        self.records: list[Record] = []
        self.extra: list[Effect] = []

    # --- plumbing ------------------------------------------------------------------------

    @property
    def profile(self) -> RuleProfile:
        assert self.game is not None
        return self.game.profile

    def lookup(self) -> TileLookup:
        assert self.game is not None
        return self.ctx.tiles(self.game.tile_set)

    def lexicon(self) -> Lexicon:
        base = self.ctx.lexicons(self.profile.tile_set.language)
        if not (self.s.accepted or self.s.rejected):
            return base
        return HouseLexicon(base, accept=self.s.accepted, reject=self.s.rejected)

    def name(self, seat: int) -> str:
        return self.s.names[seat]

    def notice(self, screen: Screen, seconds: float | None = None) -> None:
        self.s.notice = screen
        self.s.notice_until = self.s.now + (self.settings.notice_s if seconds is None else seconds)

    def error(self, kind: ErrorKind, detail: str = "") -> None:
        self.notice(ErrorScreen(kind, detail))

    def engine_error(self, e: ScoreboardError) -> None:
        for cls, kind in _ERRORS:
            if isinstance(e, cls):
                self.error(kind, _detail(kind, e, self))
                return
        self.error(ErrorKind.BAD_PLAY, str(e))

    def finish(self) -> tuple[TableState, list[Effect]]:
        s = self.s
        self.sync_clock()
        screen = self.view()
        effects: list[Effect] = []
        if self.records:
            effects.append(Append(tuple(self.records)))
        effects += self.extra
        if screen != s.shown:
            s.shown = screen
            effects.append(Show(screen))
        self.table._keep(s, self.game)
        return s, effects

    def commit(
        self,
        command: Command,
        laid: tuple[tuple[str, bytes], ...] = (),
        drawn: tuple[bytes, ...] = (),
        returned: tuple[bytes, ...] = (),
        *,
        journal: bool = True,
    ) -> object:
        """Apply ``command`` to the game, journal it with its tags, track the tiles."""
        g = self.game
        assert g is not None
        try:
            result = g.apply(command)
        except ScoreboardError:
            # The engine refused, perhaps half-way: rebuild the game from the commands.
            self.table._cached = None
            self.game = self.table.game(self.s)
            raise
        s = self.s
        s.commands = (*s.commands, command)
        if journal:
            self.records.append(Committed(command, laid, drawn, returned))
        self.track(command, laid, drawn, returned, result)
        if s.window is not None and not g.window_open:
            s.window = None
        if g.over and s.phase is Phase.PLAYING:
            self.game_over(journal)
        elif journal and s.phase is Phase.OVER and isinstance(command, (AdjustScore, PenalizeTime)):
            self.extra.append(GameOver(g.tally()))  # a correction after the end: the new tally
        return result

    def track(
        self,
        command: Command,
        laid: tuple[tuple[str, bytes], ...],
        drawn: tuple[bytes, ...],
        returned: tuple[bytes, ...],
        result: object,
    ) -> None:
        """Follow the physical tiles: which tag is committed on the board and on each rack."""
        s = self.s
        if isinstance(command, Draw):
            self.set_rack(command.player, s.racks[command.player] | set(drawn))
            s.to_return = s.to_return - set(drawn)
            lp = s.last_play
            if lp is not None and lp.player == command.player:
                s.last_play = replace(lp, drawn=lp.drawn | set(drawn))
        elif isinstance(command, Play):
            tags = {Square.from_name(n): uid for n, uid in laid}
            s.board = {**s.board, **tags}
            s.to_remove = s.to_remove - set(tags)
            self.set_rack(command.player, s.racks[command.player] - set(tags.values()))
            s.last_play = LastPlay(command.player, tags)
        elif isinstance(command, Exchange):
            self.set_rack(command.player, (s.racks[command.player] - set(returned)) | set(drawn))
            s.to_return = s.to_return - set(drawn)
        elif isinstance(command, Challenge) and command.invalid_words or isinstance(command, UndoLastPlay):
            self.withdraw()
            if isinstance(command, UndoLastPlay):
                s.last_play = None
        elif isinstance(command, OverrideRuling):
            assert isinstance(result, ChallengeResult)
            if result.valid:
                self.reinstate()
            else:
                self.withdraw()
            self.house_words(command, result)

    def house_words(self, command: OverrideRuling, result: ChallengeResult) -> None:
        """An overridden ruling teaches the table's lists: the words ruled invalid are
        accepted, the word ruled valid rejected. Also on a restore (the list file may have
        missed them when the service died between the journal and the file)."""
        s, g = self.s, self.game
        assert g is not None
        if result.valid:
            ruling = next(c for c in reversed(s.commands[:-1]) if isinstance(c, Challenge))
            house, accept = set(ruling.invalid_words), True
            s.accepted, s.rejected = s.accepted | house, s.rejected - house
        else:
            house, accept = set(command.invalid_words), False
            s.rejected, s.accepted = s.rejected | house, s.accepted - house
        self.extra += [HouseWord(g.tile_set.language, w, accept) for w in sorted(house)]

    def set_rack(self, seat: int, tags: frozenset[bytes]) -> None:
        racks = list(self.s.racks)
        racks[seat] = frozenset(tags)
        self.s.racks = tuple(racks)

    def withdraw(self) -> None:
        """The last play's tiles go back to the rack, its draws back into the bag."""
        s = self.s
        lp = s.last_play
        assert lp is not None
        s.board = {sq: uid for sq, uid in s.board.items() if sq not in lp.laid}
        self.set_rack(lp.player, (s.racks[lp.player] - lp.drawn) | set(lp.laid.values()))
        s.to_remove = s.to_remove | set(lp.laid)
        s.to_return = s.to_return | lp.drawn
        s.to_place = s.to_place - set(lp.laid)

    def reinstate(self) -> None:
        """A withdrawn play stands after all: its tiles on the board, its draws on the rack."""
        s = self.s
        lp = s.last_play
        assert lp is not None
        s.board = {**s.board, **lp.laid}
        self.set_rack(lp.player, (s.racks[lp.player] - set(lp.laid.values())) | lp.drawn)
        s.to_remove = s.to_remove - set(lp.laid)
        s.to_place = s.to_place | set(lp.laid)
        s.to_return = s.to_return - lp.drawn

    # --- games ---------------------------------------------------------------------------

    def new_game(self, profile_name: str, seats: int) -> None:
        """Back to the draw for the first player (the board must be cleared first)."""
        s = self.s
        names = self.ctx.names
        s.phase = Phase.DRAW_FIRST
        s.profile_name = profile_name
        s.seats = seats
        s.names = tuple(names[i] if i < len(names) else f"Player {i + 1}" for i in range(seats))
        s.rules = ""
        s.commands = ()
        s.board = {}
        s.racks = tuple(frozenset() for _ in range(seats))
        s.last_play = None
        s.to_remove = frozenset(s.observed.cells())
        s.to_return = frozenset()
        s.contenders = tuple(range(seats))
        s.stale = frozenset()
        s.draws = ("",) * seats
        s.rounds = ()
        s.readings = ()
        s.confirming = s.picking = None
        s.challenges = ()
        s.to_place = frozenset()
        s.menu = s.adjusting = s.request = None
        s.window = None
        s.clock = None
        s.notice = None
        s.next_seats = seats
        s.next_profile = profile_name
        self.game = None

    def start_game(self, started: Started, profile: RuleProfile, *, journal: bool = True) -> None:
        s = self.s
        s.phase = Phase.PLAYING
        s.rules = started.rules
        s.first = started.first
        s.names = started.players
        s.seats = len(started.players)
        s.commands = ()
        s.racks = tuple(frozenset() for _ in started.players)
        self.game = Game(profile, started.players, rng=random.Random(0), first=started.first)
        if profile.clock_minutes or profile.move_time_limit:
            s.clock = Clock(used=(0.0,) * s.seats)
        if journal:
            self.records.append(started)

    def game_over(self, journal: bool = True) -> None:
        s, g = self.s, self.game
        assert g is not None
        s.phase = Phase.OVER
        self.sync_clock()
        c = s.clock
        # (a restore takes the penalties from the journal, after this)
        if journal and c is not None and g.profile.clock_minutes and g.profile.overtime_penalty:
            limit = g.profile.clock_minutes * 60.0
            for p in range(s.seats):
                points = overtime_penalty(c.used[p] - limit, g.profile.overtime_penalty)
                if points:
                    self.commit(PenalizeTime(p, points), journal=journal)
        s.window = None
        s.readings = ()
        s.challenges = ()
        s.confirming = s.picking = s.request = s.adjusting = None
        if journal:
            self.extra.append(GameOver(g.tally()))

    # --- inputs --------------------------------------------------------------------------

    def handle(self, event: Input) -> None:
        s = self.s
        s.now = max(s.now, event.at)
        if s.challenges and not isinstance(event, Tick) and not (
            isinstance(event, ButtonEvent) and event.role is Role.CHALLENGE
        ):
            self.rule_challenges()  # anything else may close the window: rule first
        if isinstance(event, BoardRead):
            self.board_read(event)
        elif isinstance(event, ButtonEvent):
            self.button(event)
        elif isinstance(event, BoardAway):
            self.set_stopped(away=True)
        elif isinstance(event, BoardBack):
            self.set_stopped(away=False)
        elif isinstance(event, ReaderState):
            self.reader_state(event)
        self.tick()

    def reader_state(self, event: ReaderState) -> None:
        """A reader failed or works again; while one is dead no Done is judged."""
        s = self.s
        others = tuple((r, locs) for r, locs in s.dead_readers if r != event.reader)
        if event.working:
            s.dead_readers = others
        else:
            if len(others) == len(s.dead_readers):  # newly dead: say so at once
                self.error(ErrorKind.READER_FAULT, _cells_text(event.locs))
            s.dead_readers = (*others, (event.reader, event.locs))

    def set_stopped(self, *, paused: bool | None = None, away: bool | None = None) -> None:
        """Pause or resume; the window, the move timer and requests move on by the stop."""
        s = self.s
        was = s.stopped
        if paused is not None:
            s.paused_at = s.now if paused else None
        if away is not None:
            s.away_since = (s.away_since if s.away_since is not None else s.now) if away else None
        if s.stopped and not was:
            s.stopped_since = s.now
            s.readings = ()  # judged on nothing while time stands still: press again
        elif was and not s.stopped:
            shift = s.now - (s.stopped_since if s.stopped_since is not None else s.now)
            s.stopped_since = None
            if s.window is not None:
                s.window = replace(s.window, deadline=s.window.deadline + shift)
            if s.clock is not None:
                s.clock = replace(s.clock, move_started=s.clock.move_started + shift)
            if s.request is not None:
                s.request = replace(s.request, until=s.request.until + shift)
            s.notice_until += shift
            s.last_play_until += shift
            s.challenge_due += shift

    def tick(self) -> None:
        s, g = self.s, self.game
        now = s.now
        if s.stopped or g is None:
            return
        if s.request is not None and now >= s.request.until:
            s.request = None
        late = [r for r in s.readings if now >= r.deadline]
        if late:
            s.readings = tuple(r for r in s.readings if r not in late)
            self.error(ErrorKind.READ_TIMEOUT)
        w = s.window
        if s.challenges and (now >= s.challenge_due or (w is not None and now >= w.deadline)):
            self.rule_challenges()  # pressed before the deadline: ruled before the window closes
        w = s.window
        if w is not None and now >= w.deadline and s.phase is Phase.PLAYING:
            self.commit(CloseWindow())
        self.move_limit()

    def move_limit(self) -> None:
        s, g = self.s, self.game
        c = s.clock
        limit = g.profile.move_time_limit if g is not None else None
        if g is None or c is None or not limit or c.running is None or s.phase is not Phase.PLAYING:
            return
        if s.now - c.move_started < limit:
            return
        if g.profile.move_limit_action is MoveLimitAction.PASS:
            if not self.close_pending_window():
                return
            try:
                self.commit(Pass(g.turn))
            except ScoreboardError:
                return  # a going-out play's window: the turn cannot pass now
            s.confirming = s.picking = None
            s.readings = ()
            self.error(ErrorKind.MOVE_TIME_UP, self.name(c.running))
        elif not c.warned:
            s.clock = replace(c, warned=True)
            self.error(ErrorKind.MOVE_TIME_UP, self.name(c.running))

    # --- the board ---------------------------------------------------------------------

    def board_read(self, event: BoardRead) -> None:
        s = self.s
        snap = event.snapshot
        was_settled = s.settled
        s.observed = snap
        s.settled = event.settled
        s.duplicates = tuple((uid, tuple(loc.name() for loc in locs)) for uid, locs in event.duplicates)
        if event.settled:
            runs = s.runs
            if runs and runs[-1].snapshot == snap and was_settled:
                runs = (*runs[:-1], replace(runs[-1], last=event.at))
            else:
                runs = (*runs, SettledRun(event.at, snap))
            s.runs = runs[-_RUNS_KEPT:]
        s.to_remove = frozenset(sq for sq in s.to_remove if sq in snap.cells())
        if s.phase is Phase.DRAW_FIRST:
            if event.settled and not s.to_remove:
                self.draw_first(snap)
            return
        if s.phase is Phase.RETURN_FIRST:
            if event.settled and not any(snap.rack(p) for p in range(s.seats)):
                profile = self.ctx.profiles(s.profile_name)
                started = Started(profile.rules_line(), s.names, s.first, s.rounds)
                self.start_game(started, profile)
            return
        if s.phase is not Phase.PLAYING or self.game is None:
            return
        s.to_return = frozenset(uid for uid in s.to_return if snap.locations_of(uid))
        cells = snap.cells()
        if s.check_board and event.settled:
            self.compare_restored(cells)
        s.to_place = frozenset(sq for sq in s.to_place if cells.get(sq) != s.board.get(sq))
        self.take_draws(snap)
        self.next_player_lays(snap)
        c = s.confirming
        if c is not None and (set(cells) - set(s.board) or set(snap.rack(c.seat).values()) != c.rack):
            s.confirming = None  # tiles laid or the rack changed after all: Done judges again
        p = s.picking
        if p is not None and {sq: uid for sq, uid in cells.items() if sq not in s.board} != dict(p.laid):
            s.picking = None  # the tiles the letters were for moved: Done judges again
        if event.settled:
            due = [r for r in s.readings if event.at >= r.pressed]
            s.readings = tuple(r for r in s.readings if r not in due)
            for r in due:
                self.judge(r, snap)

    def compare_restored(self, cells: dict[Square, bytes]) -> None:
        """After a restart: committed tiles that are not where they were go back; tiles
        that are no committed tile and not the current player's go off the board."""
        s, g = self.s, self.game
        assert g is not None
        s.check_board = False
        s.to_place = frozenset(sq for sq, uid in s.board.items() if cells.get(sq) != uid)
        mine = s.racks[g.turn]
        s.to_remove = frozenset(sq for sq, uid in cells.items() if sq not in s.board and uid not in mine)

    def draw_first(self, snap: BoardSnapshot) -> None:
        """Each contender puts one tile on the rack; nearest to A (a blank beats all) begins."""
        s = self.s
        profile = self.ctx.profiles(s.profile_name)
        tiles = self.ctx.tiles(profile.tile_set)
        draws = list(s.draws)
        drawn: dict[int, tuple[bytes, Tile]] = {}
        for p in s.contenders:
            uids = [u for u in snap.rack(p).values() if u not in s.stale]
            tile = tiles.tile_of(uids[0]) if len(uids) == 1 else None
            draws[p] = tile.rack_letter if tile is not None else ""
            if tile is not None:
                drawn[p] = (uids[0], tile)
        s.draws = tuple(draws)
        if len(drawn) < len(s.contenders):
            return
        keys = {p: profile.tile_set.order_key(t) for p, (_, t) in drawn.items()}
        best = min(keys.values())
        winners = tuple(p for p in s.contenders if keys[p] == best)
        s.rounds = (*s.rounds, "".join(draws[p] if p in s.contenders else "-" for p in range(s.seats)))
        if len(winners) == 1:
            s.first = winners[0]
            s.phase = Phase.RETURN_FIRST
        else:
            s.contenders = winners
            s.stale = s.stale | {uid for uid, _ in drawn.values()}

    def take_draws(self, snap: BoardSnapshot) -> None:
        """Tags that came onto a rack from the bag are draws, while the rack has room."""
        s, g = self.s, self.game
        assert g is not None
        if g.over or not len(g.bag):
            return
        known = set(s.board.values()).union(*s.racks) | set(snap.cells().values()) | s.to_return
        tiles = self.lookup()
        for p in range(s.seats):
            room = g.profile.rack_size - len(g.racks[p])
            if room <= 0:
                continue
            new = [uid for _, uid in sorted(snap.rack(p).items()) if uid not in known]
            named = [(uid, t) for uid in new if (t := tiles.tile_of(uid)) is not None]
            if len(named) < len(new):
                self.error(ErrorKind.UNKNOWN_TILE, f"{self.name(p)}")
            take = named[: min(room, len(g.bag))]
            if not take:
                continue
            try:
                self.commit(Draw(p, letters_of(t for _, t in take)), drawn=tuple(uid for uid, _ in take))
            except ScoreboardError as e:
                self.error(ErrorKind.BAD_PLAY, str(e))

    def next_player_lays(self, snap: BoardSnapshot) -> None:
        """de, en: the next player's first tile on the board closes the window."""
        s, g = self.s, self.game
        w = s.window
        if w is None or w.going_out or g is None or g.profile.window_closes is not WindowCloses.NEXT_PLAYER_ACTS:
            return
        mine = s.racks[g.turn]
        if any(uid in mine for sq, uid in snap.cells().items() if sq not in s.board):
            self.commit(CloseWindow())

    # --- judging a Done ----------------------------------------------------------------

    def done(self, seat: int, pressed: float, long: bool) -> None:
        """Judge a Done on the first settled read at or after ``pressed`` (now or later)."""
        s = self.s
        reading = Reading(seat, pressed, s.now + self.settings.read_timeout_s, long)
        for run in s.runs:
            if run.last >= pressed:
                self.judge(reading, run.snapshot)
                return
        s.readings = (*(r for r in s.readings if r.seat != seat), reading)

    def judge(self, r: Reading, snap: BoardSnapshot) -> None:
        s, g = self.s, self.game
        assert g is not None
        seat = r.seat
        if g.over:
            return
        if s.to_remove or s.to_return or s.to_place:
            return  # the board must be put right first; the screen says how
        if s.duplicates:
            self.error(ErrorKind.DUPLICATE_TILE, " ".join(s.duplicates[0][1]))
            return
        if s.dead_readers:  # the board would be judged without what lies on those cells
            self.error(ErrorKind.READER_FAULT, _cells_text(s.dead_readers[0][1]))
            return
        w = s.window
        if w is not None and w.going_out and seat != w.player:
            agreed = w.agreed | {seat}
            s.window = replace(w, agreed=agreed)
            if agreed >= set(range(s.seats)) - {w.player}:
                self.commit(CloseWindow())
            return
        if seat != g.turn:
            self.error(ErrorKind.NOT_YOUR_TURN, self.name(g.turn))
            return
        lacking = [p for p in range(s.seats) if len(g.racks[p]) < g.profile.rack_size and len(g.bag)]
        if lacking:
            p = lacking[0]
            self.error(ErrorKind.REFILL_RACK, f"{self.name(p)}: {min(g.profile.rack_size - len(g.racks[p]), len(g.bag))}")
            if self.settings.refill == "block":
                return
        cells = snap.cells()
        moved = sorted(sq for sq, uid in s.board.items() if cells.get(sq) != uid)
        if moved:
            self.error(ErrorKind.TILE_MOVED, " ".join(sq.name() for sq in moved))
            return
        if w is not None and not w.going_out and g.profile.window_closes is WindowCloses.NEXT_PLAYER_ACTS:
            self.commit(CloseWindow())  # the next player's Done closes the window
            if g.over:
                return
        new = {sq: uid for sq, uid in sorted(cells.items()) if sq not in s.board}
        if new:
            self.lay(seat, tuple(new.items()))
        else:
            self.nothing_laid(seat, snap, r.long)

    def lay(self, seat: int, laid: tuple[tuple[Square, bytes], ...]) -> None:
        s, g = self.s, self.game
        assert g is not None
        tiles = self.lookup()
        unknown = [sq for sq, uid in laid if tiles.tile_of(uid) is None]
        if unknown:
            self.error(ErrorKind.UNKNOWN_TILE, " ".join(sq.name() for sq in unknown))
            return
        foreign = [sq for sq, uid in laid if uid not in s.racks[seat]]
        if foreign:
            self.error(ErrorKind.NOT_YOUR_TILE, " ".join(sq.name() for sq in foreign))
            return
        placement = Placement((sq, tiles.tile_of(uid)) for sq, uid in laid)  # type: ignore[misc]
        blanks = [p.square for p in placement.tiles if p.tile.letter == BLANK]
        if not blanks:
            self.play(seat, laid, placement)
            return
        trial = Placement((p.square, p.tile.assigned("A") if p.tile.letter == BLANK else p.tile) for p in placement.tiles)
        try:
            g.check_play(seat, trial)
        except ScoreboardError as e:
            self.engine_error(e)
            return
        self.pick(BlankPick(seat, laid, (), ()))

    def blank_options(self, pick: BlankPick) -> tuple[Placement, list[Placement], list[Square]]:
        """The play with the letters named so far, its fitting namings, its blank squares."""
        g = self.game
        assert g is not None
        tiles = self.lookup()
        named = iter(pick.chosen)
        placed: list[tuple[Square, Tile]] = []
        blanks: list[Square] = []
        for sq, uid in sorted(pick.laid):
            tile = tiles.tile_of(uid)
            assert tile is not None
            if tile.letter == BLANK:
                blanks.append(sq)
                letter = next(named, None)
                tile = tile.assigned(letter) if letter else tile
            placed.append((sq, tile))
        placement = Placement(placed)
        return placement, infer_blanks(g.board, placement, self.lexicon(), g.tile_set), blanks

    def pick(self, pick: BlankPick) -> None:
        """Name the next blank: by inference when one letter fits, else ask the player."""
        s, g = self.s, self.game
        assert g is not None
        placement, options, blanks = self.blank_options(pick)
        if len(pick.chosen) == len(blanks):
            s.picking = None
            self.play(pick.seat, pick.laid, placement)
            return
        if len(options) == 1:
            s.picking = None
            self.play(pick.seat, pick.laid, options[0])
            return
        square = blanks[len(pick.chosen)]
        fitting = {t.tile.letter for o in options for t in o.tiles if t.square == square}
        letters = tuple(ch for ch in g.tile_set.letters if ch != BLANK and (not fitting or ch in fitting))
        s.picking = replace(pick, candidates=letters, selected=0)

    def close_pending_window(self) -> bool:
        """The next move makes the pending play final; False when that ended the game."""
        g = self.game
        assert g is not None
        if g.window_open:
            self.commit(CloseWindow())
        return not g.over

    def play(self, seat: int, laid: tuple[tuple[Square, bytes], ...], placement: Placement) -> None:
        s, g = self.s, self.game
        assert g is not None
        try:
            g.check_play(seat, placement)
        except ScoreboardError as e:
            self.engine_error(e)
            return
        if not self.close_pending_window():
            return
        self.commit(Play(seat, placement), laid=tuple((sq.name(), uid) for sq, uid in laid))
        s.last_play_until = s.now + self.settings.last_play_s
        if g.window_open:
            self.open_window(seat, s.now)

    def open_window(self, player: int, now: float) -> None:
        g = self.game
        assert g is not None
        going_out = not g.racks[player] and not len(g.bag)
        total = self.settings.window_s
        self.s.window = Window(player, now + total, total, going_out)

    def nothing_laid(self, seat: int, snap: BoardSnapshot, long: bool) -> None:
        s, g = self.s, self.game
        assert g is not None
        on_rack = set(snap.rack(seat).values())
        committed = set(s.board.values()).union(*s.racks)
        returned = tuple(sorted(s.racks[seat] - on_rack))
        drawn = tuple(uid for _, uid in sorted(snap.rack(seat).items()) if uid not in committed and uid not in s.to_return)
        rack = frozenset(on_rack)
        if returned or drawn:
            if len(returned) != len(drawn):  # an exchange half done, or tiles in a hand
                self.error(ErrorKind.BAD_PLAY, f"rack: {len(returned)} out, {len(drawn)} in")
                return
            if len(g.bag) < g.profile.exchange_min_bag:
                self.error(ErrorKind.EXCHANGE_NOT_ALLOWED, str(len(g.bag)))
                return
            s.confirming = Confirming(ConfirmKind.EXCHANGE, seat, returned, drawn, rack)
        else:
            s.confirming = Confirming(ConfirmKind.PASS, seat, rack=rack)
        if long:
            self.confirm()

    def confirm(self) -> None:
        s, g = self.s, self.game
        c = s.confirming
        assert g is not None and c is not None
        s.confirming = None
        tiles = self.lookup()
        if not self.close_pending_window():
            return
        try:
            if c.kind is ConfirmKind.PASS:
                self.commit(Pass(c.seat))
            else:
                out = "".join(t.rack_letter for uid in c.returned if (t := tiles.tile_of(uid)) is not None)
                new = "".join(t.rack_letter for uid in c.drawn if (t := tiles.tile_of(uid)) is not None)
                if len(out) != len(c.returned) or len(new) != len(c.drawn):
                    self.error(ErrorKind.UNKNOWN_TILE, self.name(c.seat))
                    return
                self.commit(Exchange(c.seat, out, new), drawn=c.drawn, returned=c.returned)
        except ScoreboardError as e:
            self.engine_error(e)

    # --- challenges ----------------------------------------------------------------------

    def last_ruling(self) -> Challenge | None:
        """The last ruling, while it can still be overridden (nobody moved since)."""
        for command in reversed(self.s.commands):
            if isinstance(command, Challenge):
                return command
            if isinstance(command, (Play, Pass, Exchange, EndGame, OverrideRuling, UndoLastPlay)):
                return None
        return None

    def challenge(self, seat: int, pressed: float) -> None:
        """A Challenge pressed at ``pressed``: ruled a moment later, the first pressed counting.

        A press is reported when it is released; another seat's press begun earlier may
        still be held. The ruling waits :data:`CHALLENGE_GRACE_S` (or until anything else
        happens) and goes to the challenge pressed first.
        """
        s, g = self.s, self.game
        assert g is not None
        w = s.window
        if w is None or not g.window_open or pressed >= w.deadline:
            if self.last_ruling() is None and not s.challenges:
                self.error(ErrorKind.TOO_LATE)
            return  # (a second challenge of a play already ruled on: the first counted)
        if seat == w.player or any(c == seat for _, c in s.challenges):
            return
        if not s.challenges:
            s.challenge_due = s.now + CHALLENGE_GRACE_S
        s.challenges = (*s.challenges, (pressed, seat))

    def rule_challenges(self) -> None:
        """Rule on the challenge pressed first of those waiting."""
        s, g = self.s, self.game
        assert g is not None
        waiting, s.challenges = s.challenges, ()
        if not waiting or not g.window_open:
            return
        _, seat = min(waiting)
        result = self.commit(g.rule(seat, self.lexicon()))
        assert isinstance(result, ChallengeResult)
        self.show_ruling(result)

    def show_ruling(self, result: ChallengeResult) -> None:
        self.s.last_play_until = 0.0
        self.notice(
            ChallengeResultScreen(
                challenger=self.name(result.challenger),
                player=self.name(result.player),
                valid=result.valid,
                invalid_words=result.invalid_words,
                points=result.points,
                lost_turn=result.lost_turn,
            ),
            self.settings.result_s,
        )

    def override(self) -> None:
        """A second seat confirmed: the last ruling goes the other way; house lists learn it."""
        g = self.game
        assert g is not None
        ruling = self.last_ruling()
        if ruling is None:
            self.error(ErrorKind.TOO_LATE)
            return
        if ruling.invalid_words:
            words: tuple[str, ...] = ()
        else:  # the main word is the one the table disputes
            play = next(e for e in reversed(g.events) if isinstance(e, PlayMade))
            words = (play.words[0].text,)
        result = self.commit(OverrideRuling(words))  # (track() teaches the house lists)
        assert isinstance(result, ChallengeResult)
        self.show_ruling(result)

    def unseen(self, seat: int) -> None:
        g = self.game
        assert g is not None
        counts = g.unseen(seat)
        letters = [ch for ch in g.tile_set.letters if ch != BLANK] + [BLANK]
        self.notice(UnseenScreen(tuple((ch, counts[ch]) for ch in letters if counts[ch] > 0)))

    # --- buttons -------------------------------------------------------------------------

    def button(self, e: ButtonEvent) -> None:
        s = self.s
        if e.kind in (Kind.STUCK, Kind.RELEASED_AFTER_STUCK):
            return  # the driver reports it; the button is ignored until released
        if s.away_since is not None:
            return  # the display says the board is away; nothing can be judged
        if s.paused_at is not None:
            self.set_stopped(paused=False)  # any press only resumes
            return
        long = e.kind is Kind.LONG_PRESS
        seat = e.player
        if e.role is Role.MENU:
            self.menu_button(long)
            return
        assert seat is not None
        if seat >= s.seats:
            return  # a seat that does not play in this game
        if s.menu is not None:
            if e.role is Role.DONE and not long:
                self.choose(MENU_ITEMS[s.menu.selected], seat)
            elif e.role is Role.CHALLENGE:
                s.menu = None
            return
        if s.request is not None:
            self.request_button(e.role, seat, long)
            return
        if s.adjusting is not None:
            self.adjust_button(e.role, seat, long)
            return
        if s.phase is not Phase.PLAYING or self.game is None:
            return
        if s.picking is not None and seat == s.picking.seat:
            self.pick_button(e.role, long)
            return
        c = s.confirming
        if c is not None and seat == c.seat:
            if e.role is Role.DONE and long:
                self.confirm()
            elif e.role is Role.CHALLENGE:
                s.confirming = None
            return
        if e.role is Role.DONE:
            if s.picking is None:
                self.done(seat, e.at, long)
        elif long:
            if self.last_ruling() is not None and self.game.profile.overrides_allowed:
                self.ask(ConfirmKind.OVERRIDE, seat)
            elif s.window is not None:
                self.challenge(seat, e.at)
            else:
                self.unseen(seat)
        else:
            self.challenge(seat, e.at)

    def menu_button(self, long: bool) -> None:
        s = self.s
        if long:
            s.menu = None
            if s.adjusting is not None:
                a = s.adjusting
                s.adjusting = None
                if a.points:
                    self.ask(ConfirmKind.ADJUST, a.by, a.player, a.points)
            elif s.phase is Phase.PLAYING:
                self.set_stopped(paused=True)
            return
        if s.request is not None:
            s.request = None  # Menu cancels a correction waiting for its second seat
            return
        if s.adjusting is not None:
            a = s.adjusting
            s.adjusting = replace(a, player=(a.player + 1) % s.seats, points=0)
            return
        if s.menu is None:
            s.menu = Menu(0)
        else:
            s.menu = Menu((s.menu.selected + 1) % len(MENU_ITEMS))

    def choose(self, item: MenuItem, seat: int) -> None:
        s, g = self.s, self.game
        s.menu = None
        playing = s.phase is Phase.PLAYING and g is not None
        if item is MenuItem.NEW_GAME:
            if playing:
                self.ask(ConfirmKind.NEW_GAME, seat)
            else:
                self.new_game(s.next_profile, s.next_seats)
        elif item is MenuItem.PLAYERS:
            profile = self.ctx.profiles(s.next_profile)
            n = s.next_seats + 1
            s.next_seats = n if n <= profile.max_players else profile.min_players
            s.menu = Menu(MENU_ITEMS.index(item))
        elif item is MenuItem.PROFILE:
            names = self.ctx.profile_names
            s.next_profile = names[(names.index(s.next_profile) + 1) % len(names)] if s.next_profile in names else names[0]
            profile = self.ctx.profiles(s.next_profile)
            s.next_seats = max(profile.min_players, min(profile.max_players, s.next_seats))
            s.menu = Menu(MENU_ITEMS.index(item))
        elif item is MenuItem.PAUSE:
            if playing:
                self.set_stopped(paused=True)
        elif item is MenuItem.UNDO:
            if playing and s.last_play is not None:
                self.ask(ConfirmKind.UNDO, seat)
            else:
                self.error(ErrorKind.BAD_PLAY, "no play to undo")
        elif item is MenuItem.ADJUST_SCORE:
            if g is not None:
                s.adjusting = Adjusting(seat, 0, 0)
        elif item is MenuItem.END_GAME:
            if playing:
                self.ask(ConfirmKind.END_GAME, seat)
        elif item is MenuItem.SHUT_DOWN:
            self.set_stopped(paused=True)
            self.extra.append(PowerOff())

    def ask(self, kind: ConfirmKind, seat: int, player: int = 0, points: int = 0) -> None:
        self.s.request = Request(kind, seat, self.s.now + self.settings.request_s, player, points)

    def request_button(self, role: Role, seat: int, long: bool) -> None:
        s, g = self.s, self.game
        r = s.request
        assert r is not None
        if seat == r.by:
            if role is Role.CHALLENGE and not long:
                s.request = None  # the asking seat takes it back
            return
        if not long:
            return
        s.request = None
        try:
            if r.kind is ConfirmKind.UNDO and g is not None and s.phase is Phase.PLAYING:
                self.commit(UndoLastPlay())
                s.window = None
                s.last_play_until = 0.0
            elif r.kind is ConfirmKind.ADJUST and g is not None:
                self.commit(AdjustScore(r.player, r.points))
            elif r.kind is ConfirmKind.OVERRIDE and g is not None:
                self.override()
            elif r.kind is ConfirmKind.END_GAME and g is not None and s.phase is Phase.PLAYING:
                self.commit(EndGame())
            elif r.kind is ConfirmKind.NEW_GAME:
                self.new_game(s.next_profile, s.next_seats)
        except ScoreboardError as e:
            self.error(ErrorKind.BAD_PLAY, str(e))

    def adjust_button(self, role: Role, seat: int, long: bool) -> None:
        s = self.s
        a = s.adjusting
        assert a is not None
        step = 10 if long else 1
        # the seat that sets the points asks; another seat must confirm
        if role is Role.DONE:
            s.adjusting = replace(a, by=seat, points=a.points + step)
        else:
            s.adjusting = replace(a, by=seat, points=a.points - step)

    def pick_button(self, role: Role, long: bool) -> None:
        s = self.s
        p = s.picking
        assert p is not None
        n = len(p.candidates)
        if role is Role.DONE and long:
            self.pick(replace(p, chosen=(*p.chosen, p.candidates[p.selected])))
        elif role is Role.DONE:
            s.picking = replace(p, selected=(p.selected + 1) % n)
        elif long:
            s.picking = None  # a long press on Challenge: back to laying tiles
        else:
            s.picking = replace(p, selected=(p.selected - 1) % n)

    # --- clocks --------------------------------------------------------------------------

    def sync_clock(self) -> None:
        """Run the clock of the player whose turn it is, unless time stands still."""
        s, g = self.s, self.game
        c = s.clock
        if c is None or g is None:
            return
        live = (
            c.owner is not None  # it ran before: play has begun
            or all(len(r) == g.profile.rack_size for r in g.racks)
            or any(not isinstance(cmd, Draw) for cmd in s.commands)
        )
        want = None if (s.stopped or g.over or not live or s.phase is not Phase.PLAYING) else g.turn
        if want == c.running:
            if want is not None and s.now - c.saved >= CLOCK_SAVE_S:  # a power cut loses little
                used = list(c.used)
                used[want] += max(0.0, s.now - c.since)
                s.clock = replace(c, used=tuple(used), since=s.now, saved=s.now)
                self.records.append(ClockState(tuple(used)))
            return
        used = list(c.used)
        if c.running is not None:
            used[c.running] += max(0.0, s.now - c.since)
        turn_changed = want is not None and want != c.owner
        s.clock = Clock(
            used=tuple(used),
            running=want,
            since=s.now,
            owner=want if want is not None else c.owner,
            move_started=s.now if turn_changed else c.move_started,
            warned=False if turn_changed else c.warned,
            saved=s.now,
        )
        self.records.append(ClockState(tuple(used)))

    # --- the display ---------------------------------------------------------------------

    def view(self) -> Screen:
        return screen_of(self.s, self.game, self.lookup() if self.game is not None else None)

def _detail(kind: ErrorKind, e: Exception, step: _Step) -> str:
    """What an error screen names: the squares in the engine's message, or the turn's player."""
    if kind is ErrorKind.NOT_YOUR_TURN and step.game is not None:
        return step.name(step.game.turn)
    if kind is ErrorKind.EXCHANGE_NOT_ALLOWED and step.game is not None:
        return str(len(step.game.bag))
    squares = re.findall(r"\b([A-O](?:1[0-5]|[1-9]))\b", str(e))
    return " ".join(dict.fromkeys(squares))


def _cells_text(locs: tuple[str, ...]) -> str:
    """Locations for a 21-character display line: ``A11-O11``, ``H8 H9``, ``rack 2``."""
    squares = []
    racks = []
    for name in locs:
        try:
            squares.append(Square.from_name(name))
        except ValueError:
            racks.append(name.split(" slot")[0])
    parts = []
    if squares:
        squares.sort()
        names = [sq.name() for sq in squares]
        parts.append(" ".join(names) if len(names) <= 3 else f"{names[0]}-{names[-1]}")
    parts += sorted(set(racks))
    return " ".join(parts)
