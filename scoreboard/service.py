"""The service core: the turn controller wired to the journal, the displays and house lists.

:class:`Service` holds the table's state and carries out each step's effects in order.
Journal records are appended (one transaction, fsync) before anything is shown; when the
append fails (a full disk) the step is discarded, so nothing is shown as accepted that the
journal does not hold, and the display says why. A step that fails for any other reason (a
bug) is dropped the same way: the state it started from is kept, and every state owns its
game, so what the displays show is always what the journal holds. On start the journal's
game is resumed (an unfinished one, or a finished one's tally until the players choose a
new game): its records are folded back into the controller (paused until a button is
pressed), and the first settled board read shows what differs.

Board-link events are turned into controller inputs here (the stabiliser runs in the
consumer), so the loops of :mod:`scoreboard.run_cli` only move events from the one queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TextIO, assert_never

from drivers.board.link import (
    BoardConnected,
    CommandRefused,
    LinkLost,
    ReaderFault,
    SelfTestReported,
    SnapshotReceived,
    UnsupportedBoard,
    VersionMismatch,
    geometry,
)
from drivers.board.protocol import FaultCode, Hello, Loc
from drivers.board.reading import describe_duplicates, describe_fault, describe_unknown
from drivers.board.serial_link import BoardDisconnected, BoardReconnected, SerialEvent
from drivers.board.snapshot import BoardSnapshot
from drivers.board.stabiliser import Stabiliser
from PIL import Image

from drivers.display.oled import Display
from drivers.display.panels import Panel
from engine.errors import ScoreboardError
from engine.game import Tally
from scoreboard.controller import (
    Announce,
    Append,
    Moment,
    BoardAway,
    BoardBack,
    BoardRead,
    Effect,
    FirstDraw,
    GameOver,
    HouseWord,
    Input,
    Lobby,
    Notice,
    Over,
    Playing,
    PowerOff,
    ReaderState,
    Record,
    Show,
    Shown,
    Started,
    Table,
    TableState,
)
from scoreboard.controller.moments import moment_of
from scoreboard.journal import Damage, Entry, GameInfo, JournalWriteError, Kept, WriteFailure
from scoreboard.journal_format import ABANDONED_KEY, encode_meta, encode_record, game_to_resume, read_game
from scoreboard.lexicons import HouseList
from scoreboard.screens import ErrorKind, ErrorScreen, Lang, Screen, render
from scoreboard.screens.text import text
from scoreboard.voice.models import Speech, SpeechKind, TimeSpeech, kind_of

if TYPE_CHECKING:
    from drivers.voice.speaker import Utterance
    from scoreboard.voice.text import Sayings

__all__ = ["Broadcast", "GameJournal", "Service", "Voice", "Watcher", "transient"]

log = logging.getLogger(__name__)


class GameJournal(Protocol):
    """What the service needs of the journal (:class:`~scoreboard.journal.Journal` or a wrapper)."""

    def unfinished(self) -> GameInfo | None: ...

    def latest(self) -> GameInfo | None: ...

    def entries(self, game_id: int) -> list[Entry]: ...

    def start_game(self, meta: Mapping[str, Any], items: Iterable[tuple[str, Mapping[str, Any], float]] = ()) -> int: ...

    def append_many(self, game_id: int, items: Iterable[tuple[str, Mapping[str, Any], float]]) -> list[int]: ...

    def finish(self, game_id: int, result: Mapping[str, Any]) -> None: ...

    def game(self, game_id: int) -> GameInfo: ...

    def keep_copy(self, damage: Damage) -> Kept: ...

    def close(self) -> None: ...


class Broadcast(Protocol):
    """Who publishes the table to the venue's broker (:class:`scoreboard.broadcast.Publisher`):
    told of each journal commit and each state, from the service's thread; each call returns
    at once (the network is never waited on)."""

    def journaled(self, game: int, seqs: Sequence[int]) -> None: ...

    def table(self, state: TableState, game: int | None, seq: int) -> None: ...


class Voice(Protocol):
    """What the service needs of the voice (:class:`drivers.voice.Speaker`): a call that
    queues and returns at once."""

    def say(self, utterance: Utterance) -> None: ...


class Watcher(Protocol):
    """Who watches the table from outside (``scoreboard play``'s control socket,
    :class:`scoreboard.play.channel.TableChannel`): told every frame a display shows and every
    state the table takes, from the service's thread; each call returns at once."""

    def frame(self, panel: int | None, image: Image.Image) -> None: ...

    def table(self, state: TableState) -> None: ...


TRANSIENT = frozenset({SpeechKind.TURN, SpeechKind.TIME})
"""Announcements a newer one makes stale while they wait to be said (but see :func:`transient`)."""


def transient(speech: Speech) -> bool:
    """True when a newer announcement makes ``speech`` stale: whose turn it is and a time
    warning, but not the news that time is up (it stays true, and may cost the player)."""
    if isinstance(speech, TimeSpeech) and speech.left_s <= 0:
        return False
    return kind_of(speech) in TRANSIENT


class Service:
    """The table's state and the outside world it changes (journal, displays, house lists).

    ``displays``: one shared display, or with ``seat_panels`` one per seat (seat 1 first);
    ``house``: the house list of a language (None: overrides are not written down);
    ``shown``: a text file that gets a line per screen shown (``--simulate``); ``clock``:
    seconds, as the inputs' ``at``; ``voice``: says the announcements (None: silent), the
    players' names as ``voice_names`` tells (``voice.names``);
    ``watcher``: told each frame shown and each state taken (None: nobody watches);
    ``broadcast``: told each commit and each state (None: the table is not published).
    """

    def __init__(
        self,
        table: Table,
        journal: GameJournal,
        displays: Sequence[Display],
        *,
        clock: Callable[[], float],
        seat_panels: bool = False,
        stabiliser: Stabiliser | None = None,
        house: Callable[[str], HouseList] | None = None,
        shown: TextIO | None = None,
        voice: Voice | None = None,
        voice_names: Sayings | None = None,
        watcher: Watcher | None = None,
        broadcast: Broadcast | None = None,
    ) -> None:
        self.watcher = watcher
        self.broadcast = broadcast
        self.seq = 0  # the last entry of the game in play
        self.table = table
        self.journal = journal
        self.displays = tuple(displays)
        self.seat_panels = seat_panels
        self.clock = clock
        self.stabiliser = stabiliser or Stabiliser()
        self.house = house
        self.shown_log = shown
        self.voice = voice
        self.voice_names = voice_names
        self._state: TableState | None = None
        self.game_id: int | None = None
        self.power_off = False
        self._pending_result: tuple[int, dict[str, Any]] | None = None
        self._failed: ErrorScreen | None = None
        self._unsaved: Moment | None = None  # the table's moment, when a full disk refused it alone
        self.kept_copy: Kept | None = None  # the journal's files copied aside: a game in it could not be read
        self._reading: tuple[str, ...] = ()  # what the log last said was wrong with the board
        self._read_seen: tuple[BoardSnapshot, tuple[tuple[bytes, tuple[Loc, ...]], ...], str] | None = None
        self._geometry: tuple[int, int, int, int] | None = None  # of the board last taken (cols, rows, racks, slots)
        self._foreign = False  # a board of another geometry than the game's is connected
        self._last_raw: BoardSnapshot | None = None  # the board's last reading, as read (before the stabiliser)

    @property
    def state(self) -> TableState | None:
        """The table's state (None before :meth:`start`)."""
        return self._state

    @state.setter
    def state(self, state: TableState | None) -> None:
        self._state = state
        if state is not None and self.watcher is not None:
            self.watcher.table(state)
        if state is not None and self.broadcast is not None:
            self.broadcast.table(state, self.game_id, self.seq)

    # --- start ---------------------------------------------------------------------------

    def start(self, profile: str, seats: int, *, paused: bool = True) -> None:
        """Resume the journal's game (:func:`game_to_resume`: an unfinished one, or a
        finished one's tally, which may still be corrected), ``paused`` until a button is
        pressed; or wait for the draw of a new one under ``profile`` with ``seats`` players."""
        now = self.clock()
        found = game_to_resume(self.journal)
        if found is not None and found[2]:  # the table had left it for a new game
            info = found[0]
            if info.finished is None:
                self._mark_abandoned(info.id, "a new game was started")
        elif found is not None:
            info, entries, _ = found
            try:
                read = read_game(info.meta, entries)
                records = read.records
                state, effects = self.table.restore(records, now, paused=paused)
            except (ScoreboardError, ValueError) as e:
                self._unreadable(info, e)
            else:
                for why in read.dropped:
                    log.warning("game %s: a moment could not be read (%s); the table comes back to an earlier one", info.id, why)
                self.game_id = info.id
                self.seq = entries[-1].seq if entries else 0
                log.info("resumed game %s (%d records)", info.id, len(records))
                self._carry(state, effects, fresh=True)
                if isinstance(state.phase, Over) and info.result != _result(state.phase.game.tally()):
                    self._game_over(GameOver(state.phase.game.tally()))  # ended or corrected, not yet written
                return
        state, effects = self.table.new(now, profile, seats)
        self._carry(state, effects, fresh=True)

    def _unreadable(self, info: GameInfo, error: Exception) -> None:
        """Game ``info`` cannot be rebuilt from its records (damage): a new game starts. An
        unfinished one is marked so, once the journal's files are copied aside byte for
        byte (:attr:`kept_copy`, which the display is to tell); when no copy can be made,
        nothing is written (a later start tries again). A finished one keeps its result as
        it is (nothing is written: its tally is only not shown again)."""
        if info.finished is not None:
            log.error("cannot show the tally of game %s again: %s; its result stays in the journal", info.id, error)
            return
        try:
            self.kept_copy = self.journal.keep_copy(Damage.GAME_UNREADABLE)
        except JournalWriteError as e:
            log.error(
                "cannot resume game %s: %s; %s, so the game is left unfinished as it is (nothing is written to the"
                " journal before a copy of it is kept), the next start tries again (once no newer game is unfinished);"
                " a new game starts",
                info.id, error, e,
            )
            return
        log.error(
            "cannot resume game %s: %s; the journal's files as they were are kept as %s; a new game starts",
            info.id, error, self.kept_copy.path,
        )
        self._mark_abandoned(info.id, f"could not be resumed: {error}")

    def _mark_abandoned(self, game_id: int, why: str) -> None:
        """Bookkeeping at the start: a refused write (a full disk) is logged, the table goes on."""
        try:
            self.journal.finish(game_id, {ABANDONED_KEY: why})
        except JournalWriteError as e:
            log.error("game %s stays unfinished: %s", game_id, e)

    # --- inputs --------------------------------------------------------------------------

    def handle(self, event: Input) -> None:
        """One step of the controller for ``event``, its effects carried out."""
        assert self.state is not None, "start() first"
        try:
            state, effects = self.table.step(self.state, event)
            kept = self.table.refused(self.state, event)
        except Exception:  # a bug must not stop the table: the input is dropped, the game kept
            log.exception("the controller failed on %r; the input is ignored", event)
            return
        self._carry(state, effects, kept=kept)

    def board_event(self, event: SerialEvent) -> None:
        """A board-link event: readings through the stabiliser, link state as away/back."""
        match event:
            case SnapshotReceived(snapshot=snapshot, at=at):
                if self._foreign:
                    return  # (another geometry than the game's: its readings are not the game's board)
                stab = self.stabiliser
                stab.update(snapshot, at)
                self._last_raw = snapshot
                if not stab.warm:
                    return  # (just started: nothing is known of the board yet, not even that it is empty)
                dups = tuple((uid, tuple(locs)) for uid, locs in sorted(stab.duplicates.items()))
                self.handle(BoardRead(stab.stable, stab.is_settled, at, dups))
                self._log_reading(dups)
            case BoardConnected(hello=hello, at=at):
                if not self._foreign_board(hello, at):
                    self.handle(BoardBack(at))
            case BoardDisconnected(reason=reason, at=at):
                self.handle(BoardAway(reason, at))
            case LinkLost(silent_for=silent, at=at):
                self.handle(BoardAway(f"no frame for {silent:.1f} s", at))
            case VersionMismatch() | UnsupportedBoard():
                log.error("%s", event.message())
                self.handle(BoardAway(self._refusal(event), event.at, refused=True))
            case ReaderFault(reader=reader, code=code, locs=locs, at=at):
                log.warning("board reader %s: %r: %s", reader, code, describe_fault(event))
                self.handle(ReaderState(reader, code is FaultCode.RECOVERED, locs, at))
            case BoardReconnected(device=device):
                log.info("board port open at %s", device)
            case CommandRefused(command=command, status=status):
                log.warning("the board controller refused %s: %s", command.name, status.name)
            case SelfTestReported():
                # (the service never starts one, and its IDENTIFY on opening the port ends any)
                log.warning("a self-test report from the board, ignored")
            case _:
                assert_never(event)

    def board_may_rest(self) -> bool:
        """Whether the board's unchanged readings may be held back until the next input: the
        stabiliser settled on what was read last (nothing pending, no tag held back as read
        twice) and the table needing no read (:meth:`Table.reads_matter`)."""
        stab, state = self.stabiliser, self.state
        if state is None or not stab.warm or not stab.is_settled or stab.duplicates or self._foreign:
            return False
        if self._last_raw is None or dict(self._last_raw.tags) != dict(stab.stable.tags):
            return False
        return not self.table.reads_matter(state)

    def _refusal(self, event: VersionMismatch | UnsupportedBoard) -> str:
        """Why the board is refused, in the display's language."""
        lang = self.language
        if isinstance(event, VersionMismatch):
            board = f"{event.board[0]}.{event.board[1]}"
            return text("refused.protocol", lang, board=board, host=event.host[0])
        hello = event.hello
        return text(f"refused.{event.problem.value}", lang, cols=hello.cols, rows=hello.rows, racks=hello.racks,
                    slots=hello.slots)

    def _foreign_board(self, hello: Hello, at: float) -> bool:
        """True when ``hello`` describes a board of another geometry than the one the game in
        play started on: the game is untouched and nothing is judged (away, refused) until a
        board of its geometry is back. Out of play, a board's geometry is taken as it is."""
        shape = geometry(hello)
        playing = self.state is not None and isinstance(self.state.phase, Playing)
        if self._geometry is None or not playing or shape == self._geometry:
            self._geometry = shape
            self._foreign = False
            return False
        self._foreign = True
        _, _, racks, slots = self._geometry
        why = f"{hello.racks} racks of {hello.slots} slots, not {racks} of {slots}"
        log.error("the board's geometry changed mid-game: %s as the game's; waiting for the game's board", why)
        shown = text("refused.other_board", self.language, racks=hello.racks, slots=hello.slots, game_racks=racks,
                     game_slots=slots)
        self.handle(BoardAway(shown, at, refused=True))
        return True

    def _log_reading(self, dups: tuple[tuple[bytes, tuple[Loc, ...]], ...]) -> None:
        """Log unknown tiles and tiles read twice (their tags), when what is wrong changes.

        Only a changed stable board (a new snapshot object), new duplicates or another
        game's tile set is looked at again: most reports (heartbeats) change nothing.
        """
        state = self.state
        if state is None:
            return
        stab = self.stabiliser
        seen = self._read_seen
        if seen is not None and seen[0] is stab.stable and seen[1:] == (dups, state.profile_name):
            return
        self._read_seen = (stab.stable, dups, state.profile_name)
        try:
            lookup = self.table.context.tiles(self.table.context.profiles(state.profile_name).tile_set)
        except ScoreboardError:  # (a registry that cannot be read: the controller says so)
            return
        known = lookup.tile_of
        lines = tuple(describe_duplicates(stab.duplicates) + describe_unknown(stab.stable, lambda uid: known(uid) is not None))
        if lines != self._reading:
            for line in lines:
                log.warning("board: %s", line)
            self._reading = lines

    # --- effects -------------------------------------------------------------------------

    def _carry(
        self, state: TableState, effects: list[Effect], *, fresh: bool = False, kept: TableState | None = None
    ) -> None:
        """Journal the step's records, then make its state the table's and carry out the rest.

        A refused append keeps the old state, or ``kept`` (:meth:`Table.refused`): nothing
        shown that the journal lacks; once the journal holds the records the new state is
        kept, whatever else fails (logged).
        """
        if self._pending_result is not None:
            self._finish(*self._pending_result)  # a result a full disk refused before
        old = self.state
        for effect in effects:
            if isinstance(effect, Append):
                try:
                    self._append(effect.records)
                except JournalWriteError as e:
                    if all(isinstance(r, Moment) for r in effect.records):  # no game record: the step stands
                        log.warning("the table's moment is not saved yet: %s", e)
                        last = next(r for r in reversed(effect.records) if isinstance(r, Moment))
                        self._unsaved = None if last.left else last  # (a game left: the start shows its tally again)
                        continue
                    self._refuse(e, fresh, kept)
                    return
                except Exception:
                    log.exception("the journal failed on %r; the step is dropped", effect)
                    return
        if old is not None and old.game is not None and isinstance(state.phase, (Lobby, FirstDraw)):
            self._abandon("a new game was started")  # the players left it for a new one (journaled so, above)
        self.state = state
        for effect in effects:
            try:
                self._effect(effect)
            except Exception:  # a display or a house list that fails must not undo a journaled step
                log.exception("carrying out %r failed", effect)
        if self._failed is not None:  # the result could not be written: the display says so
            self.state = self._with_notice(state, self._failed)
            self._failed = None

    def _effect(self, effect: Effect) -> None:
        match effect:
            case Append():
                pass  # (journaled first, above)
            case Show():
                self._show(effect)
            case HouseWord():
                self._house(effect)
            case GameOver():
                self._game_over(effect)
            case PowerOff():
                self.power_off = True
            case Announce():
                self._say(effect)
            case _:
                assert_never(effect)

    def _append(self, records: Sequence[Record]) -> None:
        """Journal a step's records in one transaction (a game's start with its first ones)."""
        rest = list(records)
        started = rest[0] if rest and isinstance(rest[0], Started) else None
        rest = rest[1:] if started is not None else rest
        if self._unsaved is not None and started is None and not any(isinstance(r, Moment) for r in rest):
            rest.append(self._unsaved)  # the moment a full disk refused, with the next records
        at = self.clock()
        items = [(*encode_record(record), at) for record in rest]
        if started is not None:
            self._abandon("a new game was started")
            self.game_id = self.journal.start_game(encode_meta(started), items)
            self.seq = 0
            if self.broadcast is not None:
                self.seq = self.journal.game(self.game_id).entries
                self.broadcast.journaled(self.game_id, range(1, self.seq + 1))
        elif items:
            assert self.game_id is not None, "records before the game's start"
            seqs = self.journal.append_many(self.game_id, items)
            self.seq = seqs[-1] if seqs else self.seq
            if self.broadcast is not None:
                self.broadcast.journaled(self.game_id, seqs)
        self._unsaved = None

    def _refuse(self, error: JournalWriteError, fresh: bool, kept: TableState | None = None) -> None:
        """The step is not taken: the old state (or ``kept``) stays, the display says why."""
        screen = self._save_failed(error)
        if self.state is not None and not fresh:
            if kept is not None and (moment := moment_of(kept)) != moment_of(self.state):
                self._unsaved = moment  # (journaled with the next records)
            self.state = self._with_notice(kept or self.state, screen)

    def _save_failed(self, error: JournalWriteError) -> ErrorScreen:
        """Log a failed save and show why; the screen shown."""
        log.error("%s", error)
        why = {WriteFailure.DISK_FULL: "disk full", WriteFailure.DAMAGED: "journal damaged: restart to repair"}.get(
            error.failure, "storage error"
        )
        screen = ErrorScreen(ErrorKind.JOURNAL_FAILED, why)
        self._put_everywhere(screen)
        return screen

    def _put_everywhere(self, screen: Screen) -> None:
        self._put(screen, None)
        for seat in range(len(self.displays) if self.seat_panels else 0):
            self._put(screen, seat)

    def announce(self, screen: ErrorScreen, seconds: float) -> None:
        """``screen`` on every display for ``seconds`` from now (news of the start, such as a
        damaged journal kept aside); :meth:`start` first."""
        assert self.state is not None, "start() first"
        self._put_everywhere(screen)
        self.state = self._with_notice(self.state, screen, seconds)

    def _with_notice(self, state: TableState, screen: ErrorScreen, seconds: float | None = None) -> TableState:
        """``state`` showing ``screen`` on every display for ``seconds`` (the notice time by
        default; the next steps keep it up)."""
        until = state.now + (self.table.context.settings.notice_s if seconds is None else seconds)
        return replace(state, notice=Notice(screen, until), shown=Shown(screen, (screen,) * state.seats))

    def _show(self, effect: Show) -> None:
        if effect.seats is None:
            self._put(effect.screen, None)
        else:
            for seat in sorted(effect.seats):
                self._put(effect.screen, seat)

    def _put(self, screen: Screen, seat: int | None) -> None:
        """``screen`` on the shared display (``seat`` None) or on ``seat``'s panel, if this
        table has that display."""
        if (seat is None) == self.seat_panels:
            return
        if seat is None:
            targets: Sequence[Display] = self.displays
        elif seat < len(self.displays):
            targets = (self.displays[seat],)
        else:
            return
        images: dict[Panel, Image.Image] = {}
        for display in targets:
            if display.panel not in images:
                images[display.panel] = render(screen, self.language, display.panel)
            if display.show(images[display.panel]) and self.watcher is not None and display.image is not None:
                self.watcher.frame(seat, display.image)
        if self.shown_log is not None:
            where = "" if seat is None else f"seat {seat + 1}\t"
            self.shown_log.write(f"{self.clock():.3f}\t{where}{screen!r}\n")
            self.shown_log.flush()

    def _say(self, effect: Announce) -> None:
        """Hand the announcement in the display's language to the voice (queued, never waited for)."""
        if self.voice is None:
            return
        from drivers.voice.speaker import Utterance  # the voice's modules only when it is on
        from scoreboard.voice.text import announcement

        said = announcement(effect.speech, self.language, self.voice_names)
        log.info("say: %s", said.text)
        parts = tuple((p.say, p.lang) for p in said.parts)
        self.voice.say(Utterance(said.text, parts, said.kind.value, transient(effect.speech)))

    @property
    def language(self) -> Lang:
        """The display's language: the game's (:meth:`Context.language`, following a profile
        chosen at the table), before the start the first profile's."""
        ctx = self.table.context
        return ctx.language(self.state.profile_name if self.state is not None else ctx.profile_names[0])

    def _house(self, effect: HouseWord) -> None:
        if self.house is None:
            return
        try:
            self.house(effect.language).add([effect.word], accept=effect.accept)
        except ScoreboardError as e:
            log.error("house list: %s", e)

    def _abandon(self, why: str) -> None:
        """Mark the game in play as abandoned (a finished game keeps its result)."""
        if self.game_id is None:
            return
        try:
            if self.journal.game(self.game_id).finished is None:
                self.journal.finish(self.game_id, {ABANDONED_KEY: why})
        except JournalWriteError as e:
            log.error("%s", e)  # it stays unfinished; the next start resumes it
        self.game_id = None
        self._unsaved = None  # (that game's moment)

    def _finish(self, game_id: int, result: dict[str, Any]) -> None:
        """Write a game's result; a full disk keeps it for the next step and says so."""
        try:
            self.journal.finish(game_id, result)
        except JournalWriteError as e:
            self._pending_result = (game_id, result)
            self._failed = self._save_failed(e)
        else:
            self._pending_result = None
            if self.broadcast is not None:
                self.broadcast.journaled(game_id, ())

    def _game_over(self, effect: GameOver) -> None:
        if self.game_id is None:
            return
        self._finish(self.game_id, _result(effect.tally))

    def close(self) -> None:
        """Close the displays and the journal."""
        for display in self.displays:
            try:
                display.close()
            except Exception:  # a display that fails on the way out must not keep the journal open
                log.exception("closing a display failed")
        self.journal.close()


def _result(tally: Tally) -> dict[str, Any]:
    """A game's result as the journal keeps it."""
    return {
        "termination": tally.termination.value if tally.termination else None,
        "rows": [
            {"name": r.name, "score": r.score, "rack_adjustment": r.rack_adjustment, "final": r.final}
            for r in tally.rows
        ],
        "winners": list(tally.winners),
    }
