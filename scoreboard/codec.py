"""Lossless JSON form of the engine's commands, as the journal stores them.

``encode_command(Draw(0, "AEINRST"))`` is ``{"type": "draw", "player": 0, "tiles": "AEINRST"}``;
``decode_command(obj, tile_set)`` gives the command back, equal to the original. A play's
placement is a list of ``{"square": "H8", "letter": "E"}``, a blank written
``{"square": "H9", "letter": "?", "assigned": "E"}``; tile values come from the tile set.

The codec is table-driven: :data:`COMMAND_TYPES` names each command class once (the name is
the stored form, so a class may be renamed without touching old journals), and each field is
encoded by its annotated type. A new command whose fields are ``int``, ``bool``, ``str``,
``str | None``, ``tuple[str, ...]`` or :class:`~engine.placement.Placement` needs one line.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
from engine.tiles import BLANK, TileSet

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


__all__ = ["COMMAND_TYPES", "TYPE_KEY", "CodecError", "decode_command", "encode_command"]
