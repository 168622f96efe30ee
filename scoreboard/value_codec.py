"""Frozen values to JSON and back, driven by their annotated types (the journal's moments).

A dataclass is an object with its class name under ``"$"`` (so that a union of classes can
be told apart) and a key per field; a tuple or a frozenset is a list (a set sorted); bytes
are hex; a :class:`~engine.board.Square` is its name (``"H8"``); an enum is its value;
numbers, strings, booleans and None are themselves. Decoding checks every value against
its field's type and knows only the classes it is given: anything else is a
:class:`ValueCodecError` naming where it is.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

from engine.board import Square
from engine.errors import NotationError, ScoreboardError

__all__ = ["ValueCodec", "ValueCodecError"]

CLASS_KEY = "$"


class ValueCodecError(ScoreboardError, ValueError):
    """A value that cannot be stored, or stored JSON that is not a value of the type asked
    for (``where``: the path to it)."""

    def __init__(self, message: str, where: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


class ValueCodec:
    """Encodes and decodes values built of ``classes`` (frozen dataclasses)."""

    def __init__(self, classes: Iterable[type[Any]], names: Mapping[str, Any] | None = None) -> None:
        """``names``: where the classes' annotations are looked up, beside their modules."""
        self.classes = {cls.__name__: cls for cls in classes}
        self._hints = {
            name: typing.get_type_hints(cls, localns=dict(names or {})) for name, cls in self.classes.items()
        }

    def encode(self, value: object, where: str = "value") -> Any:
        """The JSON-able form of ``value``."""
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueCodecError(f"{value!r} is not a finite number", where)
            return value
        if isinstance(value, Square):
            return value.name()
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, bytes):
            return value.hex().upper()
        if isinstance(value, frozenset):
            items = [self.encode(v, f"{where}[]") for v in value]
            return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        if isinstance(value, tuple):
            return [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        name = type(value).__name__
        if dataclasses.is_dataclass(value) and self.classes.get(name) is type(value):
            out: dict[str, Any] = {CLASS_KEY: name}
            for f in dataclasses.fields(value):
                out[f.name] = self.encode(getattr(value, f.name), f"{where}.{f.name}")
            return out
        raise ValueCodecError(f"no stored form for {value!r}", where)

    def decode(self, data: object, hint: Any, where: str = "value") -> Any:
        """The value of type ``hint`` stored as ``data``."""
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            return self._union(data, args, where)
        if hint is type(None):
            if data is not None:
                raise ValueCodecError(f"{data!r} is not null", where)
            return None
        if hint is bool or hint is int or hint is str:
            if type(data) is not hint:
                raise ValueCodecError(f"{data!r} is not a {hint.__name__}", where)
            return data
        if hint is float:
            if type(data) not in (int, float) or not math.isfinite(data):  # type: ignore[arg-type]
                raise ValueCodecError(f"{data!r} is not a finite number", where)
            return float(data)  # type: ignore[arg-type]
        if hint is bytes:
            try:
                return bytes.fromhex(data) if isinstance(data, str) else _fail(data, "hex", where)
            except ValueError:
                raise ValueCodecError(f"{data!r} is not hex", where) from None
        if hint is Square:
            try:
                return Square.from_name(data) if isinstance(data, str) else _fail(data, "a square", where)
            except NotationError:
                raise ValueCodecError(f"{data!r} is not a square", where) from None
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            try:
                return hint(data)
            except ValueError:
                raise ValueCodecError(f"{data!r} is not a {hint.__name__}", where) from None
        if origin is tuple or origin is frozenset:
            if type(data) is not list:
                raise ValueCodecError(f"{data!r} is not a list", where)
            if origin is frozenset:
                return frozenset(self.decode(v, args[0], f"{where}[]") for v in data)
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(self.decode(v, args[0], f"{where}[{i}]") for i, v in enumerate(data))
            if len(data) != len(args):
                raise ValueCodecError(f"{data!r} does not have {len(args)} items", where)
            return tuple(self.decode(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(data, args)))
        if isinstance(hint, type) and hint.__name__ in self.classes:
            return self._object(data, hint, where)
        raise ValueCodecError(f"no stored form for the type {hint!r}", where)

    def _union(self, data: object, args: tuple[Any, ...], where: str) -> Any:
        if data is None and type(None) in args:
            return None
        if isinstance(data, dict) and CLASS_KEY in data:
            for arg in args:
                if isinstance(arg, type) and arg.__name__ == data[CLASS_KEY]:
                    return self._object(data, arg, where)
            raise ValueCodecError(f"{data[CLASS_KEY]!r} is not one of {[getattr(a, '__name__', a) for a in args]}", where)
        others = [a for a in args if a is not type(None)]
        if len(others) != 1:
            raise ValueCodecError(f"{data!r} names no class", where)
        return self.decode(data, others[0], where)

    def _object(self, data: object, cls: type[Any], where: str) -> Any:
        if not isinstance(data, dict) or data.get(CLASS_KEY) != cls.__name__:
            raise ValueCodecError(f"{data!r} is not a stored {cls.__name__}", where)
        hints = self._hints[cls.__name__]
        unknown = set(data) - set(hints) - {CLASS_KEY}
        if unknown:
            raise ValueCodecError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}", where)
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in data:
                values[f.name] = self.decode(data[f.name], hints[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueCodecError(f"{cls.__name__} lacks its field {f.name!r}", where)
        return cls(**values)


def _fail(data: object, what: str, where: str) -> typing.NoReturn:
    raise ValueCodecError(f"{data!r} is not {what}", where)
