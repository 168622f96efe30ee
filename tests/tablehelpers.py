"""A table rig for controller tests: a physical board, racks and bag of tagged tiles.

Actions mirror what players do (``draw``, ``lay``, ``take_back``, ``press``); each board
change is followed by a settled board read, as the stabiliser would report it. The rig
records every journal record, screen and other effect the controller asks for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from drivers.board.protocol import Loc
from drivers.board.snapshot import BoardSnapshot
from drivers.buttons.logic import ButtonEvent, Kind, Role
from engine.board import Square
from engine.game import Game
from engine.lexicon import SetLexicon
from engine.rules import RuleProfile, get_profile
from engine.tiles import Tile, TileSet
from scoreboard.controller import (
    Append,
    BoardAway,
    BoardBack,
    BoardRead,
    Context,
    Effect,
    GameOver,
    HouseWord,
    Playing,
    PowerOff,
    Record,
    Settings,
    Show,
    Table,
    Tick,
)
from scoreboard.screens.models import Screen


class Registry:
    """UID -> tile for a whole tile set: one tag per physical tile."""

    def __init__(self, tile_set: TileSet, unknown: Iterable[bytes] = ()) -> None:
        self.tiles: dict[bytes, Tile] = {}
        for i, tile in enumerate(tile_set.all_tiles()):
            self.tiles[bytes([0x04, 0, 0, 0, 0, i // 256, i % 256])] = tile

    def tile_of(self, uid: bytes) -> Tile | None:
        return self.tiles.get(uid)


def board_loc(square: Square) -> Loc:
    return Loc.cell(square)


def rack_loc(seat: int, slot: int) -> Loc:
    return Loc.slot(seat, slot)


@dataclass
class Rig:
    """One table: the controller, the physical tiles, and what came out."""

    profile: RuleProfile
    names: tuple[str, ...]
    words: Iterable[str] = ()
    settings: Settings = field(default_factory=Settings)
    now: float = 0.0

    def __post_init__(self) -> None:
        self.tile_set = self.profile.tile_set
        self.registry = Registry(self.tile_set)
        self.lexicon = SetLexicon(self.words)
        self.bag: list[bytes] = list(self.registry.tiles)
        self.cells: dict[Square, bytes] = {}
        self.racks: list[dict[int, bytes]] = [{} for _ in self.names]
        profile = self.profile
        context = Context(
            profiles=lambda name: profile if name == profile.name else get_profile(name),
            lexicons=lambda lang: self.lexicon,
            tiles=lambda ts: self.registry,
            names=self.names,
            settings=self.settings,
        )
        self.table = Table(context)
        self.journal: list[Record] = []
        self.screens: list[Screen] = []  # what the shared display showed, in order
        self.seat_screens: list[tuple[int, Screen]] = []  # what the seats' panels showed
        self.effects: list[Effect] = []
        self.state, effects = self.table.new(self.now, profile.name, len(self.names))
        self._take(effects)

    # --- plumbing ---

    def _take(self, effects: list[Effect]) -> None:
        for e in effects:
            self.effects.append(e)
            if isinstance(e, Append):
                self.journal.extend(e.records)
            elif isinstance(e, Show) and e.seats is None:
                self.screens.append(e.screen)
            elif isinstance(e, Show) and e.seats is not None:
                self.seat_screens += [(seat, e.screen) for seat in sorted(e.seats)]

    def feed(self, event: object) -> None:
        self.state, effects = self.table.step(self.state, event)  # type: ignore[arg-type]
        self._take(effects)

    @property
    def game(self) -> Game:
        game = self.state.game
        assert game is not None
        return game

    @property
    def phase(self) -> Playing:
        """The phase of a game in play."""
        assert isinstance(self.state.phase, Playing), self.state.phase
        return self.state.phase

    @property
    def screen(self) -> Screen | None:
        """What the shared display shows."""
        return self.state.shown.table

    def with_bag(self, tiles: int) -> None:
        """Test set-up: the game in play with only ``tiles`` left in its bag (a late game),
        as a new state holding a changed copy of the game."""
        game = self.game.copy()
        game.bag._tiles[:] = game.bag.tiles()[:tiles]
        self.state = replace(self.state, phase=replace(self.phase, game=game))

    def panel(self, seat: int) -> Screen | None:
        """What seat ``seat``'s (0-based) own panel shows."""
        return self.state.shown.seats[seat]

    def snapshot(self) -> BoardSnapshot:
        tags = {board_loc(sq): uid for sq, uid in self.cells.items()}
        for seat, rack in enumerate(self.racks):
            tags.update({rack_loc(seat, slot): uid for slot, uid in rack.items()})
        return BoardSnapshot(tags)

    def read(self, dt: float = 0.4, settled: bool = True) -> None:
        self.now += dt
        self.feed(BoardRead(self.snapshot(), settled, self.now))

    def tick(self, dt: float) -> None:
        self.now += dt
        self.feed(Tick(self.now))

    def house(self) -> list[HouseWord]:
        return [e for e in self.effects if isinstance(e, HouseWord)]

    def over(self) -> list[GameOver]:
        return [e for e in self.effects if isinstance(e, GameOver)]

    def powered_off(self) -> bool:
        return any(isinstance(e, PowerOff) for e in self.effects)

    # --- physical actions ---

    def uid_of(self, letter: str, among: Iterable[bytes]) -> bytes:
        for uid in among:
            if self.registry.tiles[uid].rack_letter == letter:
                return uid
        raise AssertionError(f"no {letter!r} tile among {len(list(among))} tags")

    def put_on_rack(self, seat: int, uid: bytes) -> None:
        slot = next(i for i in range(9) if i not in self.racks[seat])
        self.racks[seat][slot] = uid

    def draw(self, seat: int, letters: str, read: bool = True) -> None:
        """Seat ``seat`` takes these letters out of the bag onto its rack."""
        for letter in letters:
            uid = self.uid_of(letter, self.bag)
            self.bag.remove(uid)
            self.put_on_rack(seat, uid)
        if read:
            self.read()

    def deal(self, racks: dict[int, str]) -> None:
        for seat, letters in racks.items():
            self.draw(seat, letters)

    def to_bag(self, seat: int, letters: str, read: bool = True) -> None:
        """Seat ``seat`` puts these letters from its rack back into the bag."""
        for letter in letters:
            uid = self.uid_of(letter, self.racks[seat].values())
            slot = next(s for s, u in self.racks[seat].items() if u == uid)
            del self.racks[seat][slot]
            self.bag.append(uid)
        if read:
            self.read()

    def lay(self, seat: int, tiles: str, read: bool = True) -> None:
        """Lay rack tiles: ``"H8:H H9:A"`` (a blank is ``?``)."""
        for item in tiles.split():
            name, letter = item.split(":")
            uid = self.uid_of(letter, self.racks[seat].values())
            slot = next(s for s, u in self.racks[seat].items() if u == uid)
            del self.racks[seat][slot]
            self.cells[Square.from_name(name)] = uid
        if read:
            self.read()

    def take_back(self, seat: int, squares: str, read: bool = True) -> None:
        """Tiles on these squares go back to seat ``seat``'s rack."""
        for name in squares.split():
            uid = self.cells.pop(Square.from_name(name))
            self.put_on_rack(seat, uid)
        if read:
            self.read()

    def press(self, seat: int | None, role: Role, long: bool = False, read: bool = True) -> None:
        """A press of a seat's (1-based) button; a settled read follows, as on a real board."""
        at = self.now + 0.05
        self.now = at + (2.0 if long else 0.15)
        kind = Kind.LONG_PRESS if long else Kind.PRESS
        self.feed(ButtonEvent(seat, role, kind, at))
        if read:
            self.read(0.3)

    def done(self, seat: int, long: bool = False) -> None:
        self.press(seat, Role.DONE, long)

    def challenge(self, seat: int, long: bool = False) -> None:
        self.press(seat, Role.CHALLENGE, long)

    def menu(self, long: bool = False) -> None:
        self.press(None, Role.MENU, long)

    def unplug(self) -> None:
        self.now += 0.1
        self.feed(BoardAway("cable pulled", self.now))

    def replug(self) -> None:
        self.now += 0.1
        self.feed(BoardBack(self.now))
        self.read()

    # --- set-up ---

    def draw_first(self, letters: str) -> None:
        """Each seat draws one tile for the first player, then they go back to the bag."""
        for seat, letter in enumerate(letters):
            self.draw(seat, letter, read=False)
        self.read()
        self.return_racks()

    def return_racks(self) -> None:
        for seat, rack in enumerate(self.racks):
            self.bag.extend(rack.values())
            rack.clear()
        self.read()


def rig(profile: str = "de", players: int = 2, words: Iterable[str] = (), **kw: object) -> Rig:
    names = ("Anna", "Ben", "Cleo", "Dirk")[:players]
    settings = kw.pop("settings", Settings())
    variants = kw
    p = get_profile(profile).with_variants(**variants) if variants else get_profile(profile)  # type: ignore[arg-type]
    return Rig(p, names, words, settings)  # type: ignore[arg-type]
