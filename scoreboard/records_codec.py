"""The turn controller's records as journal entries, and back.

A game's :class:`~scoreboard.controller.records.Started` record is the journal's game meta
(``rules``, ``players``, ``first``, ``draws``); every other record is one entry:

- ``command``: an engine command (:func:`scoreboard.codec.encode_command`) with, under
  ``tags``, the tag UIDs it moved (hex): ``{"laid": [["H8", "04…"]], "drawn": [...],
  "returned": [...]}`` (empty lists left out);
- ``clock``: ``{"used": [seconds, ...]}``.

Entries of other kinds (written by a newer version) are skipped by :func:`decode_entry`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.tiles import TileSet
from scoreboard.codec import CodecError, decode_command, encode_command
from scoreboard.controller.records import ClockState, Committed, Record, Started
from scoreboard.journal import COMMAND_KIND

__all__ = ["CLOCK_KIND", "decode_entry", "decode_meta", "encode_meta", "encode_record"]

CLOCK_KIND = "clock"
TAGS_KEY = "tags"


def encode_meta(started: Started) -> dict[str, Any]:
    """A game's journal meta from its Started record."""
    return {
        "rules": started.rules,
        "players": list(started.players),
        "first": started.first,
        "draws": list(started.draws),
    }


def decode_meta(meta: Mapping[str, Any]) -> Started:
    """The Started record of a journaled game's meta."""
    try:
        rules, players, first = meta["rules"], meta["players"], meta["first"]
        draws = meta.get("draws", [])
    except KeyError as e:
        raise CodecError(f"game meta without {e.args[0]!r}: {dict(meta)!r}") from None
    if (
        not isinstance(rules, str)
        or not isinstance(players, list)
        or not all(isinstance(p, str) for p in players)
        or type(first) is not int
        or not isinstance(draws, list)
        or not all(isinstance(d, str) for d in draws)
    ):
        raise CodecError(f"game meta of the wrong shape: {dict(meta)!r}")
    return Started(rules, tuple(players), first, tuple(draws))


def encode_record(record: Record) -> tuple[str, dict[str, Any]]:
    """``(kind, payload)`` of a journal entry for ``record`` (not a Started record)."""
    if isinstance(record, Committed):
        payload = encode_command(record.command)
        tags: dict[str, Any] = {}
        if record.laid:
            tags["laid"] = [[square, uid.hex().upper()] for square, uid in record.laid]
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


def decode_entry(kind: str, payload: Mapping[str, Any], tile_set: TileSet) -> Record | None:
    """The record of a journal entry; None for kinds this version does not know."""
    if kind == COMMAND_KIND:
        body = {k: v for k, v in payload.items() if k != TAGS_KEY}
        tags = payload.get(TAGS_KEY, {})
        if not isinstance(tags, Mapping):
            raise CodecError(f"tags of the wrong shape: {dict(payload)!r}")
        laid_raw = tags.get("laid", [])
        if not isinstance(laid_raw, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in laid_raw
        ):
            raise CodecError(f"laid tags of the wrong shape: {laid_raw!r}")
        laid = tuple(zip((p[0] for p in laid_raw), _uids([p[1] for p in laid_raw], "laid")))
        return Committed(
            decode_command(body, tile_set),
            laid,
            _uids(tags.get("drawn", []), "drawn"),
            _uids(tags.get("returned", []), "returned"),
        )
    if kind == CLOCK_KIND:
        used = payload.get("used")
        if not isinstance(used, list) or not all(type(u) in (int, float) for u in used):
            raise CodecError(f"clock entry of the wrong shape: {dict(payload)!r}")
        return ClockState(tuple(float(u) for u in used))
    return None
