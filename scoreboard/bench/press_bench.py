"""Done press to rendered frame: the turn controller judging a play, then the screen drawn.

A self-contained table (tagged tiles of the German set, a physical board and two racks)
plays the same German game (:data:`PLAYS`, 17 plays crossing each other, 58 tiles on the
board at the end) again and again through :class:`~scoreboard.controller.Table`, with the
shipped German lexicon, as the service would: every board change is a settled board read.
For each play, once its tiles lie on the board (untimed), one step is timed: the Done press
of the player, whose settled read is already in, so the play is judged and committed in
that step; the ``Show`` effect's screen is then rendered and turned into the display's
1-bit bytes (``image.tobytes()``). After it, a tick closes the challenge window and the
player refills the rack (untimed).

- ``press_to_frame_ms_p50`` / ``press_to_frame_ms_p99``: with the journal: the step's
  records are appended (:meth:`Journal.append_many`: one SQLite transaction, WAL,
  ``synchronous=FULL``, so an fsync) before the frame is rendered, as the service does.
  The journal lives in a temporary directory on the disk (``/var/tmp``), not in memory.
- ``press_to_frame_nojournal_ms_p50`` / ``press_to_frame_nojournal_ms_p99``: the same
  without the journal (controller and render alone).

Games with and without the journal alternate, so both see the same machine.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from drivers.buttons.logic import ButtonEvent, Kind, Role
from drivers.display.panels import PANELS, RECOMMENDED
from engine.board import Board, Square
from engine.events import CloseWindow, Play
from engine.lexicon import Lexicon
from engine.placement import Placement
from engine.rules import RuleProfile, get_profile
from engine.scoring import score
from engine.tiles import Tile, TileSet
from scoreboard import lexicons
from scoreboard.controller import (
    Append,
    BoardRead,
    Committed,
    Context,
    Effect,
    Input,
    FirstDraw,
    Playing,
    Settings,
    Show,
    Started,
    Table,
    TableState,
    Tick,
)
from scoreboard.journal import Journal
from scoreboard.journal_format import encode_meta, encode_record
from scoreboard.screens.models import LastPlayScreen
from scoreboard.screens.render import render

PANEL = PANELS[RECOMMENDED]
"""The frames are the reference build's panel's (hardware/README.md)."""

SAMPLES = 200
"""Timed Done presses per variant (with and without the journal)."""

PROFILE = "de"
SEATS = 2
NAMES = ("Anna", "Ben")
JOURNAL_PARENT = "/var/tmp"  # on the disk (``/tmp`` may be a tmpfs); the fsync is the point

PLAYS: tuple[str, ...] = (
    "F8:B G8:A H8:U I8:E J8:N",  # BAUEN
    "I7:T I9:E",  # TEE
    "G7:H G9:L G10:L G11:E",  # HALLE
    "C11:M D11:Ü E11:T F11:Z",  # MÜTZE
    "F12:A F13:U F14:N",  # ZAUN
    "D14:S E14:I G14:G H14:E I14:N",  # SINGEN
    "C9:H C10:E C12:D",  # HEMD
    "D13:A D15:T",  # AST
    "H13:N H15:U",  # NEU
    "A9:G B9:E D9:E E9:N",  # GEHEN
    "D6:A D7:F D8:F",  # AFFE
    "A6:B A7:U A8:R",  # BURG
    "C6:J E6:H F6:R",  # JAHR
    "J7:A K7:S L7:S M7:E",  # TASSE, AN
    "M4:H M5:O M6:S",  # HOSE
    "J5:K K5:I L5:N",  # KINO
    "L8:T L9:U L10:N L11:D L12:E",  # STUNDE
)
"""One German game, seats 0 and 1 taking turns (seat 0 begins): ``square:letter`` tiles.

Every word each play forms (main word and cross words) is in the shipped German lexicon
(:func:`check_words`); the board ends with 58 tiles:

    ...............
    ...............
    ...............
    ............H..
    .........KINO..
    B.JAHR......S..
    U..F..H.TASSE..
    R..F.BAUEN.T...
    GEHEN.L.E..U...
    ..E...L....N...
    ..MÜTZE....D...
    ..D..A.....E...
    ...A.U.N.......
    ...SINGEN......
    ...T...U.......
"""


def _parse(play: str) -> tuple[tuple[Square, str], ...]:
    return tuple((Square.from_name(sq), letter) for sq, letter in (item.split(":") for item in play.split()))


class BenchError(RuntimeError):
    """The scripted game did not go as planned (the figures would time something else)."""


class Registry:
    """UID -> tile for the whole tile set: one 7-byte tag per physical tile."""

    def __init__(self, tile_set: TileSet) -> None:
        self.tiles: dict[bytes, Tile] = {
            bytes([0x04, 0, 0, 0, 0, i // 256, i % 256]): tile for i, tile in enumerate(tile_set.all_tiles())
        }

    def tile_of(self, uid: bytes) -> Tile | None:
        return self.tiles.get(uid)


class Driver:
    """One table playing :data:`PLAYS`: the controller, the physical tiles, the journal.

    Each seat's rack always holds the next letters it will play (its plays' letters in
    order, as many as fit); when none are left to plan for, tiles nobody needs fill it.
    """

    def __init__(
        self, profile: RuleProfile, registry: Registry, lexicon: Lexicon, journal: Journal | None = None
    ) -> None:
        self.profile = profile
        self.registry = registry
        self.journal = journal
        self.game_id: int | None = None
        context = Context(
            profiles=lambda name: profile if name == profile.name else get_profile(name),
            lexicons=lambda lang: lexicon,
            tiles=lambda ts: registry,
            names=NAMES,
            settings=Settings(language="de"),
        )
        self.settings = context.settings
        self.table = Table(context)
        self.now = 0.0
        self.bag: list[bytes] = list(registry.tiles)
        self.cells: dict[Square, bytes] = {}
        self.racks: list[dict[int, bytes]] = [{} for _ in range(SEATS)]
        plays = [_parse(p) for p in PLAYS]
        self.plays = plays
        self.demand: list[list[str]] = [
            [letter for i, play in enumerate(plays) if i % SEATS == seat for _, letter in play] for seat in range(SEATS)
        ]
        self.state: TableState
        self.state, effects = self.table.new(self.now, profile.name, SEATS)
        self.carry_out(effects)

    # --- the service's part ----------------------------------------------------------

    def carry_out(self, effects: Sequence[Effect]) -> Show | None:
        """Journal the records (when there is a journal); the shared display's screen, if any."""
        shown: Show | None = None
        for effect in effects:
            if isinstance(effect, Append):
                if self.journal is not None:
                    self.append(effect)
            elif isinstance(effect, Show) and effect.seats is None:
                shown = effect
        return shown

    def append(self, effect: Append) -> None:
        assert self.journal is not None
        items = []
        for record in effect.records:
            if isinstance(record, Started):
                self.game_id = self.journal.start_game(encode_meta(record))
            else:
                kind, payload = encode_record(record)
                items.append((kind, payload, self.now))
        if items:
            assert self.game_id is not None
            self.journal.append_many(self.game_id, items)

    def feed(self, event: Input) -> None:
        self.state, effects = self.table.step(self.state, event)
        self.carry_out(effects)

    # --- the physical table --------------------------------------------------------------

    def read(self, dt: float = 0.4) -> None:
        """A settled board read of the physical board and racks."""
        self.now += dt
        tags = {Loc.cell(sq): uid for sq, uid in self.cells.items()}
        for seat, rack in enumerate(self.racks):
            tags.update({Loc.slot(seat, slot): uid for slot, uid in rack.items()})
        self.feed(BoardRead(BoardSnapshot(tags), True, self.now))

    def letter(self, uid: bytes) -> str:
        return self.registry.tiles[uid].rack_letter

    def take(self, seat: int, letter: str) -> None:
        uid = next(u for u in self.bag if self.letter(u) == letter)
        self.bag.remove(uid)
        slot = next(i for i in range(9) if i not in self.racks[seat])
        self.racks[seat][slot] = uid

    def refill(self, seat: int) -> None:
        """Seat ``seat`` fills its rack from the bag: letters it will play first, then spare ones."""
        rack = self.racks[seat]
        room = self.profile.rack_size - len(rack)
        on_rack = Counter(self.letter(u) for u in rack.values())
        want = Counter(self.demand[seat][: self.profile.rack_size]) - on_rack
        drawn = list(want.elements())[:room]
        for letter in drawn:
            self.take(seat, letter)
        for _ in range(room - len(drawn)):
            reserved: Counter[str] = Counter()
            for s in range(SEATS):
                reserved += Counter(self.demand[s]) - Counter(self.letter(u) for u in self.racks[s].values())
            in_bag = Counter(self.letter(u) for u in self.bag)
            spare = next(u for u in self.bag if in_bag[self.letter(u)] > reserved[self.letter(u)])
            self.take(seat, self.letter(spare))
        self.read()

    def start(self) -> None:
        """The draw for the first player (seat 0 draws A, seat 1 B), back to the bag, the deal."""
        for seat, letter in enumerate("AB"):
            self.take(seat, letter)
        self.read()
        phase = self.state.phase
        if not isinstance(phase, FirstDraw) or phase.draw.first != 0:
            raise BenchError(f"the draw for the first player did not choose seat 1: {phase}")
        for rack in self.racks:
            self.bag.extend(rack.values())
            rack.clear()
        self.read()
        if not isinstance(self.state.phase, Playing):
            raise BenchError(f"the game did not start: {self.state.phase}, {self.state.shown}")
        for seat in range(SEATS):
            self.refill(seat)

    def lay(self, seat: int, play: tuple[tuple[Square, str], ...]) -> None:
        rack = self.racks[seat]
        for square, letter in play:
            slot = next(s for s, u in rack.items() if self.letter(u) == letter)
            self.cells[square] = rack.pop(slot)
            self.demand[seat].remove(letter)
        self.read()

    # --- a turn --------------------------------------------------------------------------

    def turn(self, index: int) -> int:
        """Play ``PLAYS[index]``: lay it, time the Done to the frame (ns), close the window, refill."""
        seat = index % SEATS
        play = self.plays[index]
        self.lay(seat, play)
        press = ButtonEvent(seat + 1, Role.DONE, Kind.PRESS, self.now)  # the settled read is in
        clock = time.perf_counter_ns
        t0 = clock()
        state, effects = self.table.step(self.state, press)
        shown = self.carry_out(effects)
        if shown is None:
            raise BenchError(f"play {index}: the Done showed nothing")
        frame = render(shown.screen, "de", PANEL).tobytes()
        t1 = clock()
        self.state = state
        # a bench that timed an error path would be wrong: the play must have been committed
        committed = [r.command for e in effects if isinstance(e, Append) for r in e.records if isinstance(r, Committed)]
        played = committed[0] if len(committed) == 1 else None
        if not (isinstance(played, Play) and played.player == seat and len(played.placement) == len(play)):
            raise BenchError(f"play {index} was not committed: {committed}, screen {shown.screen}")
        if not isinstance(shown.screen, LastPlayScreen) or len(frame) != PANEL.width * PANEL.height // 8:
            raise BenchError(f"play {index}: not the last play's frame: {shown.screen}")
        # the window closes by the clock, the player refills the rack
        self.now += self.settings.window_s + 1.0
        self.feed(Tick(self.now))
        game = self.state.game
        if game is None or game.log[-1] != CloseWindow():
            raise BenchError(f"play {index}: the tick did not close the window: {game and game.log[-1]}")
        self.refill(seat)
        return t1 - t0


def check_words(lexicon: Lexicon, profile: RuleProfile) -> list[str]:
    """Every word the plays of :data:`PLAYS` form, each checked against ``lexicon``."""
    board = Board()
    tiles = profile.tile_set.tiles_by_letter
    words: list[str] = []
    for play in PLAYS:
        placement = Placement((sq, tiles[letter]) for sq, letter in _parse(play))
        scored = score(board, placement)
        for word in scored.words:
            if word.text not in lexicon:
                raise BenchError(f"{word.text!r} of {play!r} is not in the lexicon")
            words.append(word.text)
        for sq, tile in placement.tiles:
            board.place(sq, tile)
    return words


def _percentiles(samples: list[int]) -> tuple[float, float]:
    ms = sorted(ns / 1e6 for ns in samples)
    return statistics.median(ms), ms[min(len(ms) - 1, int(len(ms) * 0.99))]


def _journal_parent() -> str | None:
    return JOURNAL_PARENT if os.path.isdir(JOURNAL_PARENT) and os.access(JOURNAL_PARENT, os.W_OK) else None


def run(samples: int = SAMPLES, journal_parent: str | None = None) -> dict[str, float]:
    """Run the benchmark (``samples`` timed presses per variant) and return its figures."""
    profile = get_profile(PROFILE)
    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    check_words(lexicon, profile)
    registry = Registry(profile.tile_set)
    render(LastPlayScreen("Anna", (), 0), "de", PANEL)  # fonts loaded, as on a running service
    folder = Path(tempfile.mkdtemp(prefix="press-bench-", dir=journal_parent or _journal_parent()))
    timed: dict[bool, list[int]] = {False: [], True: []}
    try:
        with Journal.open(folder) as journal:
            games = 0
            while min(len(v) for v in timed.values()) < samples:
                with_journal = games % 2 == 1
                games += 1
                if len(timed[with_journal]) >= samples:
                    continue
                driver = Driver(profile, registry, lexicon, journal if with_journal else None)
                driver.start()
                for index in range(len(PLAYS)):
                    if len(timed[with_journal]) >= samples:
                        break
                    timed[with_journal].append(driver.turn(index))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    p50, p99 = _percentiles(timed[True])
    n50, n99 = _percentiles(timed[False])
    return {
        "press_to_frame_ms_p50": p50,
        "press_to_frame_ms_p99": p99,
        "press_to_frame_nojournal_ms_p50": n50,
        "press_to_frame_nojournal_ms_p99": n99,
    }
