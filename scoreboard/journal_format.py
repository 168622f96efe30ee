"""The journal's record format: a game's meta data and its entries, to JSON and back.

One format, read and written here alone: the service journals the turn controller's
records, a restart resumes from them, and ``scoreboard export`` replays them.

- A game's meta data is its :class:`Started` record: ``{"rules": "de clock=25", "players":
  ["Anna", "Ben"], "first": 1, "draws": ["EA"]}`` (an older ``"#rules de"`` is read too).
- An engine command is an entry of kind ``command``: the command as a JSON object
  (:func:`encode_command`: ``{"type": "draw", "player": 0, "tiles": "AEINRST"}``; a play's
  placement is a list of ``{"square": "H8", "letter": "E"}``, a blank written ``{"square":
  "H9", "letter": "?", "assigned": "E"}``) with, under ``tags``, the tag UIDs it moved
  (hex): ``{"laid": [["H8", "04…"]], "drawn": [...], "returned": [...]}`` (empty lists left out).
- A clock state is an entry of kind ``clock``: ``{"used": [seconds, ...]}``.
- The moment the table is at (:class:`~scoreboard.controller.records.Moment`: its mode,
  window, clocks...) is an entry of kind ``moment``, written by :mod:`scoreboard.value_codec`:
  ``{"$": "Moment", "mode": {"$": "Menu", "selected": 2, "under": {"$": "Idle"}}, ...}``.

Entries of the kinds in :data:`OTHER_KINDS` (a scripted run's marks) are left to their
readers; any other kind in a game is damage (a newer version bumps the schema version).
The command codec is table-driven: :data:`COMMAND_TYPES` names each command class once
(the name is the stored form, so a class may be renamed without touching old journals),
and each field is encoded by its annotated type.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.board import Square
from engine.errors import NotationError, ScoreboardError
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
    UndoLastPlay,
)
from engine.placement import Placement
from engine.rules import RuleProfile
from engine.tiles import BLANK, TileSet
from engine.clock import GameClock, MoveTimer
from scoreboard.controller.records import ClockState, Committed, Moment, Record, Started
from scoreboard.value_codec import ValueCodec, ValueCodecError
from scoreboard.journal import Entry, GameInfo

__all__ = [
    "ABANDONED_KEY",
    "CLOCK_KIND",
    "COMMAND_KIND",
    "MOMENT_KIND",
    "OTHER_KINDS",
    "COMMAND_TYPES",
    "TYPE_KEY",
    "CodecError",
    "GameRecords",
    "decode_command",
    "decode_entry",
    "decode_meta",
    "encode_command",
    "encode_meta",
    "encode_record",
    "game_to_resume",
    "read_game",
    "rules_of",
]

COMMAND_KIND = "command"
CLOCK_KIND = "clock"
MOMENT_KIND = "moment"
TAGS_KEY = "tags"

#: Stored name → command class; one line per command. Never change a stored name.
COMMAND_TYPES: dict[str, type[Command]] = {
    "draw": Draw,
    "play": Play,
    "pass": Pass,
    "exchange": Exchange,
    "challenge": Challenge,
    "close_window": CloseWindow,
    "undo_last_play": UndoLastPlay,
    "override_ruling": OverrideRuling,
    "adjust_score": AdjustScore,
    "penalize_time": PenalizeTime,
    "end_game": EndGame,
}

TYPE_KEY = "type"


class CodecError(ScoreboardError, ValueError):
    """A command that cannot be encoded, or a stored object that is not a known command."""


class _BadValue(Exception):
    """A field value of the wrong shape (turned into a :class:`CodecError` with context)."""


# --- field codecs -------------------------------------------------------------------------


def _check(kind: type, value: object, what: str) -> Any:
    if type(value) is not kind:  # exact: True is not an int here, an int subclass is not stored
        raise _BadValue(f"{value!r} is not {what}")
    return value


def _int(value: object, tile_set: TileSet | None) -> Any:
    return _check(int, value, "a whole number")


def _bool(value: object, tile_set: TileSet | None) -> Any:
    return _check(bool, value, "true or false")


def _str(value: object, tile_set: TileSet | None) -> Any:
    return _check(str, value, "a string")


def _optional_str(value: object, tile_set: TileSet | None) -> Any:
    return None if value is None else _check(str, value, "a string or null")


def _encode_strings(value: object, tile_set: TileSet | None) -> Any:
    if type(value) is not tuple or not all(type(s) is str for s in value):
        raise _BadValue(f"{value!r} is not a tuple of strings")
    return list(value)


def _decode_strings(value: object, tile_set: TileSet | None) -> Any:
    if type(value) is not list or not all(type(s) is str for s in value):
        raise _BadValue(f"{value!r} is not a list of strings")
    return tuple(value)


def _encode_placement(value: object, tile_set: TileSet | None) -> Any:
    if not isinstance(value, Placement):
        raise _BadValue(f"{value!r} is not a Placement")
    out: list[dict[str, str]] = []
    for square, tile in value.tiles:
        if not tile.blank:
            out.append({"square": square.name(), "letter": tile.letter})
        elif tile.letter == BLANK:
            raise _BadValue(f"the blank at {square.name()} has no letter assigned")
        else:
            out.append({"square": square.name(), "letter": BLANK, "assigned": tile.letter})
    return out


def _decode_placement(value: object, tile_set: TileSet | None) -> Any:
    if tile_set is None:
        raise _BadValue("a placement needs a tile set to decode")
    if type(value) is not list:
        raise _BadValue(f"{value!r} is not a list of placed tiles")
    placed = []
    for item in value:
        if type(item) is not dict or not {"square", "letter"} <= item.keys() <= {
            "square",
            "letter",
            "assigned",
        }:
            raise _BadValue(f"{item!r} is not a placed tile (square, letter[, assigned])")
        square, letter, assigned = item["square"], item["letter"], item.get("assigned")
        if type(square) is not str or type(letter) is not str:
            raise _BadValue(f"{item!r}: square and letter must be strings")
        try:
            sq = Square.from_name(square)
            tile = tile_set.tile(letter)
        except NotationError as e:
            raise _BadValue(f"{item!r}: {e}") from None
        if tile.blank:
            if type(assigned) is not str or assigned not in tile_set.letters:
                raise _BadValue(f"{item!r}: a blank needs an assigned letter of the {tile_set.name} set")
            tile = tile.assigned(assigned)
        elif "assigned" in item:
            raise _BadValue(f"{item!r}: only a blank takes an assigned letter")
        placed.append((sq, tile))
    return Placement(placed)


_Convert = Callable[[object, TileSet | None], Any]

#: field type → (encode, decode)
_FIELD_CODECS: dict[object, tuple[_Convert, _Convert]] = {
    int: (_int, _int),
    bool: (_bool, _bool),
    str: (_str, _str),
    str | None: (_optional_str, _optional_str),
    tuple[str, ...]: (_encode_strings, _decode_strings),
    Placement: (_encode_placement, _decode_placement),
}


@dataclass(frozen=True)
class _Field:
    name: str
    encode: _Convert
    decode: _Convert
    required: bool


@dataclass(frozen=True)
class _Spec:
    name: str
    cls: type[Command]
    fields: tuple[_Field, ...]


def _spec(name: str, cls: type[Command]) -> _Spec:
    """The field codecs of ``cls``; a field type without a codec is a TypeError at import."""
    hints = typing.get_type_hints(cls)
    fields = []
    for f in dataclasses.fields(cls):
        codec = _FIELD_CODECS.get(hints[f.name])
        if codec is None:
            raise TypeError(f"{cls.__name__}.{f.name}: no JSON codec for the type {hints[f.name]!r}")
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        fields.append(_Field(f.name, codec[0], codec[1], required))
    return _Spec(name, cls, tuple(fields))


_BY_NAME: dict[str, _Spec] = {name: _spec(name, cls) for name, cls in COMMAND_TYPES.items()}
_BY_CLASS: dict[type[Command], _Spec] = {s.cls: s for s in _BY_NAME.values()}


# --- commands -----------------------------------------------------------------------------


def encode_command(command: Command) -> dict[str, Any]:
    """The JSON-able form of ``command``: ``{"type": NAME, FIELD: VALUE, ...}``."""
    spec = _BY_CLASS.get(type(command))
    if spec is None:
        raise CodecError(f"no stored form for the command {command!r}; known: {', '.join(_BY_NAME)}")
    out: dict[str, Any] = {TYPE_KEY: spec.name}
    for f in spec.fields:
        try:
            out[f.name] = f.encode(getattr(command, f.name), None)
        except _BadValue as e:
            raise CodecError(f"cannot encode {command!r}: {f.name}: {e}") from None
    return out


def decode_command(obj: Mapping[str, Any], tile_set: TileSet) -> Command:
    """The command stored as ``obj`` (see :func:`encode_command`); a placement's tiles come
    from ``tile_set``. A field with a default may be missing; any other difference is a
    :class:`CodecError` quoting ``obj``."""
    if not isinstance(obj, Mapping):
        raise CodecError(f"a stored command is a JSON object, not {obj!r}")
    name = obj.get(TYPE_KEY)
    spec = _BY_NAME.get(name) if isinstance(name, str) else None
    if spec is None:
        raise CodecError(f"unknown command type {name!r} in {dict(obj)!r}; known: {', '.join(_BY_NAME)}")
    known = {TYPE_KEY} | {f.name for f in spec.fields}
    extra = [k for k in obj if k not in known]
    if extra:
        raise CodecError(f"{name}: unknown field {extra[0]!r} in {dict(obj)!r}")
    kwargs: dict[str, Any] = {}
    for f in spec.fields:
        if f.name not in obj:
            if f.required:
                raise CodecError(f"{name}: missing field {f.name!r} in {dict(obj)!r}")
            continue
        try:
            kwargs[f.name] = f.decode(obj[f.name], tile_set)
        except _BadValue as e:
            raise CodecError(f"{name}: field {f.name!r}: {e}") from None
    return spec.cls(**kwargs)


# --- a game's meta data and entries -------------------------------------------------------


def encode_meta(started: Started) -> dict[str, Any]:
    """A game's journal meta from its Started record."""
    return {
        "rules": started.rules,
        "players": list(started.players),
        "first": started.first,
        "draws": list(started.draws),
    }


def decode_meta(meta: Mapping[str, Any]) -> Started:
    """The Started record of a journaled game's meta (``first`` 0 and no draws when absent)."""
    rules, players = meta.get("rules"), meta.get("players")
    first, draws = meta.get("first", 0), meta.get("draws", [])
    if not isinstance(rules, str):
        raise CodecError(f"the game's meta data has no rules ('rules': {rules!r})")
    words = rules.split()
    if words[:1] == ["#rules"]:
        rules = " ".join(words[1:])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise CodecError(f"'players' is not a list of names: {players!r}")
    if type(first) is not int:
        raise CodecError(f"'first' is not a seat number: {first!r}")
    if not isinstance(draws, list) or not all(isinstance(d, str) for d in draws):
        raise CodecError(f"'draws' is not a list of strings: {draws!r}")
    return Started(rules, tuple(players), first, tuple(draws))


@functools.cache
def _moments() -> ValueCodec:
    """The moment's codec, built when first needed (the state's modules load the screens)."""
    import scoreboard.controller.state as state

    return ValueCodec(
        (Moment, state.Idle, state.Waiting, state.Reading, state.Confirming, state.BlankPick, state.Menu,
         state.Adjusting, state.Asking, state.Window, state.Clocks, GameClock, MoveTimer),
        vars(state),
    )


def encode_record(record: Record) -> tuple[str, dict[str, Any]]:
    """``(kind, payload)`` of a journal entry for ``record`` (not a Started record)."""
    if isinstance(record, Moment):
        try:
            return MOMENT_KIND, _moments().encode(record, "moment")
        except ValueCodecError as e:
            raise CodecError(str(e)) from None
    if isinstance(record, Committed):
        payload = encode_command(record.command)
        tags: dict[str, Any] = {}
        if record.laid:
            tags["laid"] = [[square.name(), uid.hex().upper()] for square, uid in record.laid]
        if record.drawn:
            tags["drawn"] = [uid.hex().upper() for uid in record.drawn]
        if record.returned:
            tags["returned"] = [uid.hex().upper() for uid in record.returned]
        if tags:
            payload[TAGS_KEY] = tags
        return COMMAND_KIND, payload
    if isinstance(record, ClockState):
        return CLOCK_KIND, {"used": [round(u, 3) for u in record.used]}
    raise CodecError(f"not a journal entry record: {record!r}")


def _uids(value: object, what: str) -> tuple[bytes, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CodecError(f"{what} is not a list of hex UIDs: {value!r}")
    try:
        return tuple(bytes.fromhex(v) for v in value)
    except ValueError:
        raise CodecError(f"{what} holds a UID that is not hex: {value!r}") from None


def _laid(value: object) -> tuple[tuple[Square, bytes], ...]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in value):
        raise CodecError(f"laid tags of the wrong shape: {value!r}")
    try:
        squares = [Square.from_name(p[0]) for p in value]
    except NotationError as e:
        raise CodecError(f"laid tags: {e}") from None
    return tuple(zip(squares, _uids([p[1] for p in value], "laid")))


def decode_entry(kind: str, payload: Mapping[str, Any], tile_set: TileSet) -> Record | None:
    """The record of a journal entry; None for kinds this format does not hold."""
    if kind == COMMAND_KIND:
        tags = payload.get(TAGS_KEY, {})
        if not isinstance(tags, Mapping):
            raise CodecError(f"tags of the wrong shape: {dict(payload)!r}")
        return Committed(
            decode_command({k: v for k, v in payload.items() if k != TAGS_KEY}, tile_set),
            _laid(tags.get("laid", [])),
            _uids(tags.get("drawn", []), "drawn"),
            _uids(tags.get("returned", []), "returned"),
        )
    if kind == MOMENT_KIND:
        try:
            moment: Moment = _moments().decode(dict(payload), Moment, "moment")
        except ValueCodecError as e:
            raise CodecError(str(e)) from None
        return moment
    if kind == CLOCK_KIND:
        used = payload.get("used")
        if not isinstance(used, list) or not all(type(u) in (int, float) for u in used):
            raise CodecError(f"clock entry of the wrong shape: {dict(payload)!r}")
        return ClockState(tuple(float(u) for u in used))
    return None


@dataclass(frozen=True)
class GameRecords:
    """A journaled game read back: its start, its rules and its records in order."""

    started: Started
    profile: RuleProfile
    records: tuple[Record, ...]
    dropped: tuple[str, ...] = ()  # moments that could not be read, and why


OTHER_KINDS = frozenset({"script"})
"""Entry kinds other parts write into a game (a scripted run's marks), left to them."""


def read_game(meta: Mapping[str, Any], entries: Iterable[Entry]) -> GameRecords:
    """The records of a journaled game, from its meta data and entries (a resume).

    A bad command or clock entry, or one of a kind nobody writes, is a :class:`CodecError`
    naming its number (the game cannot be rebuilt without it: damage). A moment that cannot
    be read is dropped and told in :attr:`GameRecords.dropped`: it holds where the table
    was, not the game, and an earlier one (or none) does instead.
    """
    started = decode_meta(meta)
    profile = rules_of(started)
    records: list[Record] = [started]
    dropped: list[str] = []
    for entry in entries:
        if entry.kind in OTHER_KINDS:
            continue
        try:
            record = decode_entry(entry.kind, entry.payload, profile.tile_set)
        except CodecError as e:
            if entry.kind == MOMENT_KIND:
                dropped.append(f"entry {entry.seq}: {e}")
                continue
            raise CodecError(f"entry {entry.seq} {entry.payload!r}: {e}") from None
        if record is None:
            raise CodecError(f"entry {entry.seq} is of a kind no journal writes: {entry.kind!r}")
        records.append(record)
    return GameRecords(started, profile, tuple(records), tuple(dropped))


def rules_of(started: Started) -> RuleProfile:
    """The rule profile of a journaled game."""
    try:
        return RuleProfile.from_rules_line(started.rules)
    except ScoreboardError as e:
        raise CodecError(str(e)) from None


class GameLookup(Protocol):
    """What :func:`game_to_resume` reads of a journal."""

    def latest(self) -> GameInfo | None: ...

    def unfinished(self) -> GameInfo | None: ...

    def entries(self, game_id: int) -> list[Entry]: ...


ABANDONED_KEY = "abandoned"  # a result that is not a tally: the game was left or could not go on


def game_to_resume(journal: GameLookup) -> tuple[GameInfo, list[Entry], bool] | None:
    """The game a start comes back to, its entries, and whether the table had left it.

    That is the latest unfinished game, else the latest game if it finished with its tally
    (the players were looking at it, perhaps correcting it); None when there is neither.
    ``left``: the game's last moment says the table left it for a new one (the players
    chose a new game), so a start does not come back to it.
    """
    info = journal.unfinished()
    if info is None:
        info = journal.latest()
        if info is None or info.result is None or ABANDONED_KEY in info.result:
            return None
    entries = journal.entries(info.id)
    moments = [e for e in entries if e.kind == MOMENT_KIND]
    return info, entries, bool(moments) and moments[-1].payload.get("left") is True
