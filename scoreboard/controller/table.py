"""The turn controller: the turn lifecycle as ``(state, input) -> (state, effects)``.

One queue, one consumer: the service feeds :meth:`Table.step` every input in arrival order
(board reads from the stabiliser, link state, button events, ticks) and carries out the
effects in order: journal appends first, then house-list words, the game's end, the
screens and what is said aloud (:mod:`.speech`). ``step`` is a pure function: it never
changes the state it is given (states are frozen and each owns its engine game, which a
step only ever copies), and the same state and input always give the same result.

The concerns live in their own modules: judging a Done (:mod:`.judging`), challenges and
the window (:mod:`.challenges`), the menu and corrections (:mod:`.corrections`), clocks
and pauses (:mod:`.clocks`), what the board reads and draws (:mod:`.board`), the draw for
the first player (:mod:`.first_draw`), what a button means (:mod:`.buttons`) and what the
displays show (:mod:`.view`); :mod:`.commit` is where a game changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import assert_never

from drivers.buttons.logic import ButtonEvent, Role
from engine.errors import ScoreboardError
from engine.rules import RuleProfile
from scoreboard.screens.models import ErrorKind, Screen

from .board import board_read, reader_state, reads_matter
from .buttons import press
from .challenges import deadlines, open_window, rule_challenges
from .clocks import board_away, board_back, move_limit, pause, sync_clock
from .commit import Fx, Step, commit, playing
from .context import Context
from .due import next_due
from .effects import Announce, Append, Effect, Show
from .first_draw import new_game, start_game
from .inputs import BoardAway, BoardBack, BoardRead, Input, ReaderState, Tick
from .messages import error
from .moments import left_moment, moment_of, with_moment
from .records import ClockState, Committed, Moment, Record, Started
from .speech import announcements
from .state import Asking, Idle, Lobby, Over, Playing, Reading, Shown, TableState
from .view import frames

__all__ = ["Table"]


class Table:
    """The controller of one table: :meth:`new` starts, :meth:`step` goes on, :meth:`restore`
    comes back from the journal. It keeps nothing between steps but its context."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def new(self, now: float, profile: str | None = None, seats: int | None = None) -> tuple[TableState, list[Effect]]:
        """A table waiting for the draw for the first player."""
        ctx = self.context
        name = profile or ctx.profile_names[0]
        count = seats or max(len(ctx.names), 2)
        s = TableState(Lobby(), name, count, (), name, count, now=now)
        return finish(ctx, new_game(ctx, s, name, count), ())

    def step(self, state: TableState, event: Input) -> tuple[TableState, list[Effect]]:
        """The state after ``event`` and what to do about it, in order.

        An engine refusal the controller did not foresee leaves the state as it was, with
        the refusal on the display.
        """
        ctx = self.context
        s = replace(state, now=max(state.now, event.at))
        try:
            s, fx = _handle(ctx, s, event)
        except ScoreboardError as e:
            s, fx = error(ctx, replace(state, now=s.now), ErrorKind.BAD_PLAY, str(e)), ()
        s, effects = finish(ctx, s, fx)
        effects += [Announce(speech) for speech in announcements(ctx, state, s)]
        return s, _with_moment(state, s, effects)

    def next_due(self, state: TableState) -> float | None:
        """The earliest time a :class:`Tick` can change ``state`` (None: not before an
        input); earlier ticks change nothing (:func:`.due.next_due`)."""
        return next_due(self.context, state)

    def reads_matter(self, state: TableState) -> bool:
        """Whether a read with the last one's tags can change ``state`` beyond the latest
        settled run's time (:func:`.board.reads_matter`); when not, such reads may wait."""
        return reads_matter(state)

    def refused(self, state: TableState, event: Input) -> TableState:
        """The state to keep when the journal refused the step ``event`` caused (a full
        disk): ``state``, but for the Done presses that step judged. They are used up, as a
        Done judged at its press is: the display says why nothing was taken and the player
        presses again once there is room (kept, a read would judge them again by itself)."""
        waiting = state.play_mode
        if not isinstance(event, BoardRead) or not event.settled or not isinstance(waiting, Reading):
            return state
        rest = tuple(d for d in waiting.dones if event.at < d.pressed)
        return state.with_play_mode(Reading(rest) if rest else Idle())

    def restore(self, records: Iterable[Record], now: float, *, paused: bool = True) -> tuple[TableState, list[Effect]]:
        """The table rebuilt from a journaled game's records (crash recovery), at its last
        journaled :class:`Moment` (:func:`~.moments.with_moment`).

        ``paused``: a restart on a new clock; the clocks and a full challenge window wait
        until a button is pressed. Else the same clock goes on (a scripted run).
        The first settled board read shows what differs from the restored board.
        """
        ctx = self.context
        records = list(records)
        if not records or not isinstance(records[0], Started):
            raise ValueError("a journaled game starts with its Started record")
        started = records[0]
        profile = RuleProfile.from_rules_line(started.rules)
        s, _ = self.new(now, profile.name, len(started.players))
        s, fx = start_game(ctx, s, started, profile, journal=False)
        moment: Moment | None = None  # the last one: where the table was
        for record in records[1:]:
            match record:
                case Committed(command=command, laid=laid, drawn=drawn, returned=returned):
                    s, more, _ = commit(ctx, s, command, laid=laid, drawn=drawn, returned=returned, journal=False)
                    fx += more
                case ClockState(used=used):
                    s = _clock_used(s, used)
                case Moment():
                    moment = record
                case Started():
                    raise ValueError("a journaled game has one Started record, at its start")
                case _:
                    assert_never(record)
        s = replace(s, tiles=replace(s.tiles, check_board=True))
        if moment is not None:
            s = with_moment(s, moment, same_clock=not paused)
        if paused and not isinstance(s.phase, Over):  # (a tally has no time to hold)
            s = pause(s)
        if (paused or moment is None) and isinstance(s.phase, Playing):  # times of another clock
            pending = s.phase.game.pending_play
            if pending is not None:
                s = open_window(ctx, s, pending.player)  # a full window again: the players lost track
            s = replace(s, phase=replace(playing(s), last_play_until=0.0))
        return finish(ctx, s, fx)


def _with_moment(old: TableState, new: TableState, effects: list[Effect]) -> list[Effect]:
    """``effects`` with the new state's moment journaled (in the step's one append, last)
    when it is not the old one's; a step that leaves a game for a new one journals that
    game's last moment, marked left."""
    moment = moment_of(new) or left_moment(old, new)
    if moment is None or moment == moment_of(old):
        return effects
    if effects and isinstance(effects[0], Append):
        return [Append((*effects[0].records, moment)), *effects[1:]]
    return [Append((moment,)), *effects]


def _clock_used(s: TableState, used: tuple[float, ...]) -> TableState:
    """``s`` with the clock's used times as journaled (stopped: a restore starts paused)."""
    phase = s.phase
    if not isinstance(phase, (Playing, Over)) or phase.clocks is None:
        return s
    c = phase.clocks
    return replace(s, phase=replace(phase, clocks=replace(c, game=replace(c.game, used=used, running=None))))


def _handle(ctx: Context, s: TableState, event: Input) -> Step:
    fx: Fx = ()
    phase = s.phase
    if isinstance(phase, Playing) and phase.challenges and not (
        isinstance(event, Tick) or (isinstance(event, ButtonEvent) and event.role is Role.CHALLENGE)
    ):
        s, fx = rule_challenges(ctx, s)  # anything else may close the window: rule first
    match event:
        case BoardRead():
            s, more = board_read(ctx, s, event)
            fx += more
        case ButtonEvent():
            s, more = press(ctx, s, event)
            fx += more
        case BoardAway(reason=reason, refused=refused):
            s = board_away(s, reason, refused)
        case BoardBack():
            s = board_back(s)
        case ReaderState():
            s = reader_state(ctx, s, event)
        case Tick():
            pass
        case _:
            assert_never(event)
    s, more = _tick(ctx, s)
    return s, fx + more


def _tick(ctx: Context, s: TableState) -> Step:
    """Deadlines that passed: a correction's request, a Done's read, the window, the move limit."""
    if s.halt is not None or s.game is None:
        return s, ()
    now = s.now
    if isinstance(s.mode, Asking) and now >= s.mode.until:
        s = replace(s, mode=s.mode.under)  # the request lapsed
    waiting = s.play_mode
    if isinstance(waiting, Reading):
        late = [d for d in waiting.dones if now >= d.deadline]
        if late:
            rest = tuple(d for d in waiting.dones if d not in late)
            s = error(ctx, s.with_play_mode(Reading(rest) if rest else Idle()), ErrorKind.READ_TIMEOUT)
    s, fx = deadlines(ctx, s)
    s, more = move_limit(ctx, s)
    return s, fx + more


def finish(ctx: Context, s: TableState, fx: Fx) -> tuple[TableState, list[Effect]]:
    """The step's effects in order: one journal append, the others, then the changed frames
    (the seats' panels, then the shared display)."""
    s, clock = sync_clock(ctx, s)
    fx += clock
    records = tuple(r for e in fx if isinstance(e, Append) for r in e.records)
    effects: list[Effect] = [Append(records)] if records else []
    effects += [e for e in fx if not isinstance(e, Append)]
    now = frames(ctx, s)
    shown = s.shown
    changed: dict[Screen, list[int]] = {}
    for seat, screen in enumerate(now.seats):
        if seat >= len(shown.seats) or shown.seats[seat] != screen:
            changed.setdefault(screen, []).append(seat)
    effects += [Show(screen, frozenset(seats)) for screen, seats in changed.items()]
    if now.table != shown.table:  # (last: the shared display's frame is the step's final word)
        effects.append(Show(now.table))
    return replace(s, shown=Shown(now.table, now.seats)), effects
