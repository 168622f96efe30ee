"""The MQTT topics and messages between the boards and the hub, read and written here alone.

Each board has its topics under ``PREFIX/EVENT/TABLE/`` (the broker's ACL lets it publish
those only):

- ``records``: every journal record, in order, QoS 1 (:class:`RecordMessage`):
  ``{"v": 1, "game": 3, "seq": 12, "kind": "command", "payload": {...}, "at": 81.2,
  "committed": 1767000000.123}``. ``seq`` 0 (kind ``$start``) is the game's start with
  ``{"meta": {...}, "started": "2026-..."}``; kind ``$result`` (seq None) is its result
  ``{"finished": "...", "result": {...}}``; the other kinds are the journal's
  (:mod:`scoreboard.journal_format`). ``committed`` is the board's wall-clock time of the
  journal commit when the publisher saw it happen (None: sent again from the journal).
- ``state``: the table as it is now, retained (:class:`StateMessage`): the game, the last
  seq journaled and the summary of :func:`scoreboard.broadcast.state.state_view`, racks under
  ``private``.
- ``status``: ``{"online": true}`` retained; the broker's last will says ``false``.
- ``resend``: the hub asks for records again from a seq (``{"game": 3, "from": 9}``): the
  only topic a board reads.

Every message is UTF-8 JSON at most :data:`MAX_MESSAGE` bytes; anything else is a
:class:`BadMessage` carrying the topic and the bytes.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from engine.errors import ScoreboardError

__all__ = [
    "MAX_MESSAGE",
    "RESULT_KIND",
    "START_KIND",
    "VERSION",
    "BadMessage",
    "RecordMessage",
    "ResendMessage",
    "StateMessage",
    "StatusMessage",
    "Topics",
    "decode_record",
    "decode_resend",
    "decode_state",
    "decode_status",
    "encode",
]

VERSION = 1
MAX_MESSAGE = 1 << 20  # 1 MiB: a record or a state is a few KiB
START_KIND = "$start"
RESULT_KIND = "$result"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
KIND = re.compile(r"\$start|\$result|[a-z][a-z_]{0,31}")


class BadMessage(ScoreboardError, ValueError):
    """A message that is not what its topic carries: ``topic``, the ``payload`` bytes, ``reason``."""

    def __init__(self, topic: str, payload: bytes, reason: str) -> None:
        self.topic, self.payload, self.reason = topic, payload, reason
        shown = payload[:80] + (b"..." if len(payload) > 80 else b"")
        super().__init__(f"{topic}: {reason}: {shown!r}")


@dataclass(frozen=True)
class Topics:
    """The topics of ``event`` under ``prefix``."""

    prefix: str
    event: str

    def board(self, table: str, what: str) -> str:
        return f"{self.prefix}/{self.event}/{table}/{what}"

    def all(self, what: str) -> str:
        """The hub's subscription to ``what`` of every board."""
        return f"{self.prefix}/{self.event}/+/{what}"

    def split(self, topic: str) -> tuple[str, str] | None:
        """``(table, what)`` of a board's topic of this event, else None."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != self.prefix or parts[1] != self.event or not NAME.fullmatch(parts[2]):
            return None
        return parts[2], parts[3]


@dataclass(frozen=True)
class RecordMessage:
    game: int
    seq: int | None
    kind: str
    payload: dict[str, Any]
    at: float
    committed: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"v": VERSION, "game": self.game, "seq": self.seq, "kind": self.kind, "payload": self.payload,
                "at": self.at, "committed": self.committed}


@dataclass(frozen=True)
class StateMessage:
    game: int | None
    seq: int
    view: dict[str, Any]
    sent: float

    def to_json(self) -> dict[str, Any]:
        return {"v": VERSION, "game": self.game, "seq": self.seq, "view": self.view, "sent": self.sent}


@dataclass(frozen=True)
class StatusMessage:
    online: bool

    def to_json(self) -> dict[str, Any]:
        return {"v": VERSION, "online": self.online}


@dataclass(frozen=True)
class ResendMessage:
    game: int
    start: int

    def to_json(self) -> dict[str, Any]:
        return {"v": VERSION, "game": self.game, "from": self.start}


def encode(message: RecordMessage | StateMessage | StatusMessage | ResendMessage) -> bytes:
    """The message as compact UTF-8 JSON."""
    return json.dumps(message.to_json(), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _object(topic: str, payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_MESSAGE:
        raise BadMessage(topic, payload[:200], f"{len(payload)} bytes, more than {MAX_MESSAGE}")
    try:
        value = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise BadMessage(topic, payload, f"not UTF-8 JSON ({e})") from None
    if not isinstance(value, dict):
        raise BadMessage(topic, payload, "not a JSON object")
    if value.get("v") != VERSION:
        raise BadMessage(topic, payload, f"version {value.get('v')!r}, this hub reads {VERSION}")
    return value


def _get(obj: dict[str, Any], key: str) -> Any:
    return obj[key] if key in obj else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no number")


def _int(value: Any, low: int) -> bool:
    return type(value) is int and low <= value < 1 << 53


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def decode_record(topic: str, payload: bytes) -> RecordMessage:
    """A ``records`` message, checked field by field."""
    obj = _object(topic, payload)
    game, seq, kind, body, at = (_get(obj, k) for k in ("game", "seq", "kind", "payload", "at"))
    committed = _get(obj, "committed")
    if not _int(game, 1):
        raise BadMessage(topic, payload, f"game {game!r} is not a whole number from 1")
    if not isinstance(kind, str) or not KIND.fullmatch(kind):
        raise BadMessage(topic, payload, f"kind {kind!r} is not a record kind")
    if kind == RESULT_KIND:
        if seq is not None:
            raise BadMessage(topic, payload, "a result has no seq")
    elif not _int(seq, 0) or (seq == 0) != (kind == START_KIND):
        raise BadMessage(topic, payload, f"seq {seq!r} is not a whole number from 1 (0: the game's start)")
    if not isinstance(body, dict):
        raise BadMessage(topic, payload, "payload is not a JSON object")
    if kind == START_KIND and not (isinstance(body.get("meta"), dict) and isinstance(body.get("started"), str)):
        raise BadMessage(topic, payload, "a game's start needs meta (an object) and started (a time)")
    if kind == RESULT_KIND and not (isinstance(body.get("result"), dict) and isinstance(body.get("finished"), str)):
        raise BadMessage(topic, payload, "a result needs result (an object) and finished (a time)")
    if not _number(at):
        raise BadMessage(topic, payload, f"at {at!r} is not a number")
    if committed is not None and not _number(committed):
        raise BadMessage(topic, payload, f"committed {committed!r} is not a number")
    return RecordMessage(game, seq, kind, body, float(at), None if committed is None else float(committed))


def decode_state(topic: str, payload: bytes) -> StateMessage:
    obj = _object(topic, payload)
    game, seq, view, sent = _get(obj, "game"), _get(obj, "seq"), _get(obj, "view"), _get(obj, "sent")
    if game is not None and not _int(game, 1):
        raise BadMessage(topic, payload, f"game {game!r} is not a whole number from 1")
    if not _int(seq, 0):
        raise BadMessage(topic, payload, f"seq {seq!r} is not a whole number")
    if not isinstance(view, dict):
        raise BadMessage(topic, payload, "view is not a JSON object")
    if not _number(sent):
        raise BadMessage(topic, payload, f"sent {sent!r} is not a number")
    return StateMessage(game, seq, view, float(sent))


def decode_status(topic: str, payload: bytes) -> StatusMessage:
    obj = _object(topic, payload)
    online = _get(obj, "online")
    if not isinstance(online, bool):
        raise BadMessage(topic, payload, f"online {online!r} is not true or false")
    return StatusMessage(online)


def decode_resend(topic: str, payload: bytes) -> ResendMessage:
    obj = _object(topic, payload)
    game, start = _get(obj, "game"), _get(obj, "from")
    if not _int(game, 1) or not _int(start, 0):
        raise BadMessage(topic, payload, "a resend names a game (from 1) and a seq to start from (from 0)")
    return ResendMessage(game, start)
