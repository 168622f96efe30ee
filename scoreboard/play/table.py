"""The physical table behind the page: where the tiles lie, what a player's gesture does to them.

Pure: no sockets, no processes. :class:`PhysicalTable` knows the simulated tile set's tags
(``LETTER.COPY``, :mod:`scoreboard.sim.tags`), where each lies (from the simulated board's
``tags`` answer) and so what is in the bag (every tile not on the board or a rack).
:func:`parse_action` reads one message of the page (JSON) into a typed :data:`Action`, and
:meth:`PhysicalTable.plan` turns a tile action into the simulated board's commands
(:mod:`scoreboard.sim.commands`) with the pauses between them: a draw puts a tag from the bag
on a rack slot; a tile from a rack to a cell, from a cell to a rack or between racks is
lifted and put down; a tile from cell to cell slides through the free cells between (each
step a ``slide``, so that the stabiliser sees a real slide: the tile answers on two cells
for a moment), along its row or column, or round one corner; a tile dropped on the bag is
taken off. After a restart the service has committed tiles by their tags (:meth:`PhysicalTable.expect`):
a letter dropped from the bag on a cell it asks back takes that very tile, a draw onto a rack
takes a tile of that rack first, and :meth:`PhysicalTable.lay_back` puts them all back at once.
Every bad message is an :class:`ActionError` naming its :class:`ActionProblem`.
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from drivers.buttons.logic import ButtonId, Role
from engine.board import PREMIUMS, SIZE, Square
from engine.errors import ScoreboardError
from engine.tiles import TileSet
from scoreboard.sim.commands import Command, Fault, Location, Move, Place, Plug, Reboot, Recover, Remove, Slide, Unplug
from scoreboard.sim.tags import tile_set_uids

__all__ = [
    "BAG", "MAX_MESSAGE", "SLIDE_STEP_S", "Action", "ActionError", "ActionProblem", "ButtonAction", "DrawAction",
    "FaultAction", "FaultKind", "LayBackAction", "MoveAction", "PhysicalTable", "Plan", "TileRef", "fault_commands", "parse_action",
]

MAX_MESSAGE: Final = 4096
"""Bytes in one message of the page (the longest action has some 80)."""
SLIDE_STEP_S: Final = 0.12
"""Seconds a slid tile takes from one cell to the next (it answers on both for 0.1 s)."""
UNPLUGGED_S: Final = 3600.0
"""An unplug from the page lasts until the page plugs the cable back in (at most an hour)."""
BAG: Final = "bag"
"""Where a tile dropped off the table goes."""


class ActionProblem(enum.Enum):
    """What is wrong with a message of the page."""

    MALFORMED = "malformed"  # not JSON, not an object, a field of the wrong type
    TOO_LONG = "too long"
    UNKNOWN = "unknown"  # no such action
    LOCATION = "location"  # not a cell or rack slot of this table
    EMPTY = "empty"  # no tile there to take
    OCCUPIED = "occupied"  # a tile lies there already
    BAG = "bag"  # the bag has no such tile (or none at all)
    SEAT = "seat"  # not a seat of this table
    BUTTON = "button"  # not done, challenge or menu
    READER = "reader"  # not a reader of this board
    WATCHING = "watching"  # the table plays a script: hands off
    SERVICE = "service"  # the service is not there to press its buttons


class ActionError(ScoreboardError, ValueError):
    """A message of the page that cannot be carried out: its :class:`ActionProblem`, why, and
    the message's ``id`` when it had one (the answer carries it back)."""

    def __init__(self, problem: ActionProblem, reason: str, ident: int | None = None) -> None:
        self.problem = problem
        self.reason = reason
        self.ident = ident
        super().__init__(reason)


@dataclass(frozen=True)
class ButtonAction:
    """A seat button (or Menu) pressed (``down``) or let go."""

    button: ButtonId
    down: bool

    def request(self) -> str:
        """The service's control request (:mod:`scoreboard.play.channel`)."""
        verb = "press" if self.down else "release"
        return f"{verb} menu" if self.button.seat is None else f"{verb} {self.button.seat} {self.button.role.value.lower()}"


@dataclass(frozen=True)
class DrawAction:
    """A tile drawn from the bag onto the rack slot ``to``: ``letter`` one of that letter (a
    look into the open bag), None a blind draw."""

    to: str
    letter: str | None = None


@dataclass(frozen=True)
class LayBackAction:
    """The committed tiles laid back where the service has them, each rack's tiles back on
    its rack (after a restart on a journal, as the tiles of a real table never left it)."""


@dataclass(frozen=True)
class MoveAction:
    """The tile on ``src`` moved to ``dst`` (a cell, a rack slot, or :data:`BAG`)."""

    src: str
    dst: str


class FaultKind(enum.Enum):
    """A fault the page can cause."""

    UNPLUG = "unplug"
    PLUG = "plug"
    REBOOT = "reboot"
    KILL_READER = "kill-reader"
    REVIVE_READER = "revive-reader"
    POWER = "power"  # the service's power pulled: killed and started again


@dataclass(frozen=True)
class FaultAction:
    """A fault: ``reader`` for the reader faults."""

    kind: FaultKind
    reader: int | None = None


Action: TypeAlias = ButtonAction | DrawAction | MoveAction | FaultAction | LayBackAction
_BUTTONS: Mapping[str, Role] = {"done": Role.DONE, "challenge": Role.CHALLENGE, "menu": Role.MENU}


def _field(message: Mapping[str, Any], name: str, kind: type, what: str) -> Any:
    """``message[name]`` when it is a ``kind`` (a JSON true is no number here)."""
    value = message.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ActionError(ActionProblem.MALFORMED, f"{name!r} must be {what}, not {json.dumps(value)[:40]}")
    return value


def parse_action(text: str | bytes, seats: int, readers: int) -> tuple[Action, Any]:
    """The action of one page message and its ``id`` (echoed in the answer; None if absent)."""
    size = len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE:
        raise ActionError(ActionProblem.TOO_LONG, f"a message of {size} bytes; at most {MAX_MESSAGE}")
    try:
        message = json.loads(text)
    except (ValueError, UnicodeDecodeError) as e:
        raise ActionError(ActionProblem.MALFORMED, f"not JSON: {e}") from None
    if not isinstance(message, dict):
        raise ActionError(ActionProblem.MALFORMED, "a message is a JSON object with a 'type'")
    ident = message.get("id")
    if ident is not None and (not isinstance(ident, int) or isinstance(ident, bool)):
        raise ActionError(ActionProblem.MALFORMED, "'id' must be a whole number")
    try:
        return _action(message, seats, readers), ident
    except ActionError as e:
        e.ident = ident
        raise


def _action(message: Mapping[str, Any], seats: int, readers: int) -> Action:
    kind = message.get("type")
    if kind == "button":
        name = _field(message, "button", str, "done, challenge or menu")
        if name not in _BUTTONS:
            raise ActionError(ActionProblem.BUTTON, f"no button {name[:20]!r}: done, challenge or menu")
        down = _field(message, "down", bool, "true (pressed) or false (let go)")
        if name == "menu":
            return ButtonAction(ButtonId(None, Role.MENU), down)
        seat = _field(message, "seat", int, f"a seat, 1 to {seats}")
        if not 1 <= seat <= seats:
            raise ActionError(ActionProblem.SEAT, f"no seat {seat} at this table: seats 1-{seats}")
        return ButtonAction(ButtonId(seat, _BUTTONS[name]), down)
    if kind == "draw":
        to = _field(message, "to", str, "a rack slot such as 'R1.3'")
        letter = message.get("letter")
        if letter is not None and (not isinstance(letter, str) or not 1 <= len(letter) <= 2):
            raise ActionError(ActionProblem.MALFORMED, "'letter' must be a letter of the tile set, or null (blind)")
        return DrawAction(to, letter)
    if kind == "move":
        return MoveAction(_field(message, "from", str, "a cell or rack slot"), _field(message, "to", str, "a cell, a rack slot or 'bag'"))
    if kind == "fault":
        name = _field(message, "fault", str, "a fault")
        try:
            fault = FaultKind(name)
        except ValueError:
            known = ", ".join(k.value for k in FaultKind)
            raise ActionError(ActionProblem.UNKNOWN, f"no fault {name[:20]!r} (known: {known})") from None
        reader = None
        if fault in (FaultKind.KILL_READER, FaultKind.REVIVE_READER):
            reader = _field(message, "reader", int, f"a reader, 0 to {readers - 1}")
            if not 0 <= reader < readers:
                raise ActionError(ActionProblem.READER, f"no reader {reader} on this board: readers 0-{readers - 1}")
        return FaultAction(fault, reader)
    if kind == "lay-back":
        return LayBackAction()
    known = "button, draw, move, fault, lay-back"
    raise ActionError(ActionProblem.UNKNOWN, f"no action {json.dumps(kind)[:30]} (known: {known})")


# --- the tiles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileRef:
    """One physical tile: its tag, its name in the simulated set (``E.2``), letter and value."""

    uid: bytes
    name: str
    letter: str
    value: int


Plan: TypeAlias = list[Command | float]
"""The simulated board's commands for an action, with the seconds to wait between them."""


class PhysicalTable:
    """The simulated table: ``tile_set``'s tiles, ``racks`` racks of ``slots`` slots, where
    each tile lies (:meth:`update` with the simulated board's ``tags``)."""

    def __init__(self, tile_set: TileSet, racks: int, slots: int, rng: random.Random | None = None) -> None:
        self.tile_set = tile_set
        self.racks = racks
        self.slots = slots
        self.rng = rng or random.Random()
        self.tiles: dict[bytes, TileRef] = {}
        copies: dict[str, int] = {}
        for tile, uid in tile_set_uids(tile_set):
            copy = copies.get(tile.letter, 0)
            copies[tile.letter] = copy + 1
            self.tiles[uid] = TileRef(uid, f"{tile.letter}.{copy}", tile.letter, tile.value)
        self.where: dict[str, bytes] = {}  # location name -> tag
        self.asked: dict[str, bytes] = {}  # cell -> the committed tag the service asks back there
        self.committed: dict[str, bytes] = {}  # cell -> the committed tag the service has there
        self.rack_tags: list[frozenset[bytes]] = []  # each seat's committed rack, by tag

    def expect(self, view: Mapping[str, Any]) -> None:
        """What the service has committed, by tag (its summary, :mod:`scoreboard.play.view`)."""
        def tags(value: Any) -> dict[str, bytes]:
            return {loc: bytes.fromhex(uid) for loc, uid in value.items()} if isinstance(value, dict) else {}

        self.asked = tags(view.get("asked"))
        self.committed = tags(view.get("committed_tags"))
        racks = view.get("rack_tags")
        self.rack_tags = [frozenset(bytes.fromhex(u) for u in rack) for rack in racks] if isinstance(racks, list) else []

    # --- what lies where ---

    def update(self, tags: Mapping[str, bytes]) -> None:
        """The tags as the simulated board has them now (location name -> UID)."""
        self.where = dict(tags)

    def at(self, loc: str) -> TileRef | None:
        """The tile on ``loc`` (a tag of another set: None)."""
        uid = self.where.get(loc)
        return self.tiles.get(uid) if uid is not None else None

    def bag(self) -> list[TileRef]:
        """The tiles on neither the board nor a rack, in the set's order."""
        out = set(self.where.values())
        return [ref for uid, ref in self.tiles.items() if uid not in out]

    def bag_counts(self) -> dict[str, int]:
        """Tiles in the bag per letter (``?`` the blank), every letter of the set listed."""
        counts = {letter: 0 for letter in self.tile_set.counts}
        for ref in self.bag():
            counts[ref.letter] += 1
        return counts

    def location(self, text: str) -> str:
        """``text`` as a location of this table (``h8`` -> ``H8``, ``r1.3`` -> ``R1.3``)."""
        name = text.strip().upper()
        if name.startswith("R"):
            rack, dot, slot = name[1:].partition(".")
            if dot and rack.isdigit() and slot.isdigit() and 1 <= int(rack) <= self.racks and 1 <= int(slot) <= self.slots:
                return f"R{int(rack)}.{int(slot)}"
            raise ActionError(ActionProblem.LOCATION,
                              f"no rack slot {text[:20]!r} at this table: R1.1-R{self.racks}.{self.slots}")
        try:
            return Square.from_name(name).name()
        except ValueError:
            raise ActionError(ActionProblem.LOCATION, f"no cell or rack slot {text[:20]!r}: cells A1-O15, racks"
                              f" R1.1-R{self.racks}.{self.slots}") from None

    # --- gestures into commands ---

    def plan(self, action: DrawAction | MoveAction) -> Plan:
        """The simulated board's commands (and pauses) for a tile action; :class:`ActionError`
        when it cannot be done at this table now."""
        if isinstance(action, DrawAction):
            return self._draw(action)
        return self._move(action)

    def _draw(self, action: DrawAction) -> Plan:
        to = self.location(action.to)
        if not to.startswith("R") and to not in self.asked:
            raise ActionError(ActionProblem.LOCATION, f"a tile from the bag goes onto a rack slot first, not {to}")
        self._free(to)
        bag = self.bag()
        if not bag:
            raise ActionError(ActionProblem.BAG, "the bag is empty")
        letter = None
        if action.letter is not None:
            letter = action.letter if action.letter in self.tile_set.counts else action.letter.upper()
            if letter not in self.tile_set.counts:
                raise ActionError(ActionProblem.BAG, f"no letter {action.letter!r} in the {self.tile_set.name} tile set")
            bag = [ref for ref in bag if ref.letter == letter]
            if not bag:
                raise ActionError(ActionProblem.BAG, f"no {letter} left in the bag")
        if not to.startswith("R"):  # a cell the service asks a committed tile back on: that very tile
            wanted = self.tiles[self.asked[to]]
            if letter is not None and letter != wanted.letter or wanted.uid not in {ref.uid for ref in self.bag()}:
                raise ActionError(ActionProblem.BAG, f"{to} asks for {wanted.name} (a {wanted.letter}), "
                                  + ("not a " + letter if letter is not None and letter != wanted.letter
                                     else "which is not in the bag"))
            return [Place(Location(to), wanted.uid)]
        seat = int(to[1:].partition(".")[0]) - 1
        own = self.rack_tags[seat] if seat < len(self.rack_tags) else frozenset()
        mine = [ref for ref in bag if ref.uid in own]  # a tile of this rack as the service has it (a restart)
        return [Place(Location(to), (mine[0] if mine and letter is not None else self.rng.choice(bag)).uid)]

    def lay_back(self) -> Plan:
        """The commands that put every committed tile back on its cell and every rack's tiles
        back on free slots of that rack (from the bag, or from wherever they lie on a rack);
        :class:`ActionError` when there is nothing to put back or nothing can be."""
        where = {uid: loc for loc, uid in self.where.items()}
        taken = set(self.where)
        plan: Plan = []
        blocked: list[str] = []
        for cell, uid in sorted(self.committed.items()):
            if self.where.get(cell) == uid:
                continue
            if cell in taken:
                blocked.append(cell)
                continue
            src = where.get(uid)
            if src is not None and not src.startswith("R"):
                continue  # on another cell: the players slide it themselves
            plan.append(Place(Location(cell), uid) if src is None else Move(Location(src), Location(cell)))
            taken.add(cell)
            if src is not None:
                taken.discard(src)
        for seat, rack in enumerate(self.rack_tags):
            slots = [f"R{seat + 1}.{n}" for n in range(1, self.slots + 1)]
            for uid in sorted(rack):
                if uid in where:
                    continue
                free = next((slot for slot in slots if slot not in taken), None)
                if free is None:
                    break
                plan.append(Place(Location(free), uid))
                taken.add(free)
        if not plan:
            if blocked:
                raise ActionError(ActionProblem.OCCUPIED, f"other tiles lie on {', '.join(blocked)}: take them off first")
            raise ActionError(ActionProblem.EMPTY, "every committed tile lies where it was already")
        return plan

    def _move(self, action: MoveAction) -> Plan:
        src = self.location(action.src)
        if src not in self.where:
            raise ActionError(ActionProblem.EMPTY, f"no tile on {src} to take")
        if action.dst.strip().lower() == BAG:
            return [Remove(Location(src))]
        dst = self.location(action.dst)
        if dst == src:
            raise ActionError(ActionProblem.OCCUPIED, f"the tile is on {src} already")
        self._free(dst)
        if src.startswith("R") or dst.startswith("R"):
            return [Move(Location(src), Location(dst))]
        path = self.slide_path(src, dst)
        if path is None:  # boxed in: lifted over the tiles between and put down
            return [Move(Location(src), Location(dst))]
        plan: Plan = []
        for a, b in zip(path, path[1:]):
            if plan:
                plan.append(SLIDE_STEP_S)
            plan.append(Slide(Location(a), Location(b)))
        return plan

    def _free(self, loc: str) -> None:
        if loc in self.where:
            ref = self.at(loc)
            what = ref.name if ref is not None else "a tile"
            raise ActionError(ActionProblem.OCCUPIED, f"{loc} is taken ({what} lies there)")

    def slide_path(self, src: str, dst: str) -> list[str] | None:
        """The cells a tile slides through from ``src`` to ``dst`` (both included): along the
        row or column, else round one corner, through free cells only; None when boxed in."""
        a, b = Square.from_name(src), Square.from_name(dst)
        candidates = []
        if a.row == b.row or a.col == b.col:
            candidates.append(_line(a, b))
        else:
            corner1, corner2 = Square(a.row, b.col), Square(b.row, a.col)
            candidates.append(_line(a, corner1) + _line(corner1, b)[1:])
            candidates.append(_line(a, corner2) + _line(corner2, b)[1:])
        for path in candidates:
            names = [sq.name() for sq in path]
            if all(name not in self.where for name in names[1:]):
                return names
        return None

    # --- what the page is told ---

    def hello(self) -> dict[str, Any]:
        """The table's shape for the page: premium squares, tiles, racks."""
        return {
            "size": SIZE,
            "premiums": [p.symbol for p in PREMIUMS],
            "racks": self.racks,
            "slots": self.slots,
            "tiles": {uid.hex().upper(): {"name": r.name, "letter": r.letter, "value": r.value}
                      for uid, r in self.tiles.items()},
            "letters": {letter: {"count": count, "value": self.tile_set.tile(letter).value}
                        for letter, count in self.tile_set.counts.items()},
        }

    def tags_view(self) -> dict[str, str]:
        """Where the tags lie, location -> UID in hex."""
        return {loc: uid.hex().upper() for loc, uid in sorted(self.where.items())}


def _line(a: Square, b: Square) -> list[Square]:
    """The squares from ``a`` to ``b`` (in one row or column), both included."""
    dr = (b.row > a.row) - (b.row < a.row)
    dc = (b.col > a.col) - (b.col < a.col)
    steps = max(abs(b.row - a.row), abs(b.col - a.col))
    return [Square(a.row + dr * i, a.col + dc * i) for i in range(steps + 1)]


def fault_commands(action: FaultAction) -> Sequence[Command]:
    """The simulated board's command for a board fault (the power pull is the service's)."""
    match action.kind:
        case FaultKind.UNPLUG:
            return [Unplug(UNPLUGGED_S)]
        case FaultKind.PLUG:
            return [Plug()]
        case FaultKind.REBOOT:
            return [Reboot()]
        case FaultKind.KILL_READER:
            assert action.reader is not None
            return [Fault(action.reader)]
        case FaultKind.REVIVE_READER:
            assert action.reader is not None
            return [Recover(action.reader)]
        case FaultKind.POWER:
            return []
    raise AssertionError(action)  # pragma: no cover

