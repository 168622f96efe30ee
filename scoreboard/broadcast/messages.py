"""The MQTT topics and messages between the boards and the hub, read and written here alone.

Each board has its topics under ``PREFIX/EVENT/TABLE/`` (the broker's ACL lets it publish
those only):

- ``records``: every journal record, in order, QoS 1 (:class:`RecordMessage`):
  ``{"v": 1, "journal": "9f0c...", "game": 3, "seq": 12, "kind": "command", "payload": {...},
  "at": 81.2, "committed": 1767000000.123}``. ``journal`` is the journal's identity (32 hex
  digits, random, made with the journal): a table's games are told apart by it and the game
  number (a spare board at the table, or a journal set aside, numbers its games from 1 again).
  ``seq`` 0 (kind ``$start``) is the game's start with ``{"meta": {...}, "started": "2026-..."}``;
  kind ``$result`` (seq None) is its result ``{"finished": "...", "result": {...}}``; the
  other kinds are the journal's (:mod:`scoreboard.journal_format`). ``committed`` is the
  board's wall-clock time of the journal commit when the publisher saw it happen (None: sent
  again from the journal).
- ``state``: the table as it is now, retained (:class:`StateMessage`): the journal, the game,
  the last seq journaled and the summary of :func:`scoreboard.broadcast.state.state_view`,
  racks under ``private``; and ``games``: the event's latest games the board has published
  (at most :data:`GAMES_LISTED`, newest first), each ``[game, seq, over]``: the last seq and
  whether the result the broker has acknowledged. A hub that lacks any of it (the broker lost
  what it had acknowledged, the hub's session expired) asks for the rest.
- ``status``: ``{"online": true}`` retained; the broker's last will says ``false``.
- ``resend``: the hub asks for records again from a seq (``{"journal": "9f0c...", "game": 3,
  "from": 9}``; the seq after the last asks for the result alone): the only topic a board
  reads; a board ignores a request for another journal's game.

Every message is UTF-8 JSON at most :data:`MAX_MESSAGE` bytes; anything else is a
:class:`BadMessage` carrying the topic and the bytes. ``v`` is :data:`VERSION`; a field added
later is optional and a reader ignores the fields it does not know (``journal`` and ``games``
came after the first boards: a message without ``journal`` is taken as one of the table's
anonymous journal, a state without ``games`` lists none); ``v`` changes only when a field
changes its meaning, and a reader refuses another ``v``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from engine.errors import ScoreboardError

__all__ = [
    "GAMES_LISTED",
    "MAX_MESSAGE",
    "RESULT_KIND",
    "START_KIND",
    "VERSION",
    "BadMessage",
    "Listed",
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
JOURNAL = re.compile(r"[0-9a-f]{32}")
GAMES_LISTED = 16  # games a state lists (a table plays a few a day: a hub missing more has lost the event)
LISTED_READ = 64  # a state listing more is refused


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
    journal: str | None = None  # (None: from a board that sends none: the table's anonymous journal)

    def to_json(self) -> dict[str, Any]:
        head = {"v": VERSION} if self.journal is None else {"v": VERSION, "journal": self.journal}
        return {**head, "game": self.game, "seq": self.seq, "kind": self.kind, "payload": self.payload,
                "at": self.at, "committed": self.committed}


@dataclass(frozen=True)
class Listed:
    """A game in a state's list: the last ``seq`` the broker acknowledged and whether its result (``over``)."""

    game: int
    seq: int
    over: bool


@dataclass(frozen=True)
class StateMessage:
    game: int | None
    seq: int
    view: dict[str, Any]
    sent: float
    journal: str | None = None
    games: tuple[Listed, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": VERSION}
        if self.journal is not None:
            out["journal"] = self.journal
        out |= {"game": self.game, "seq": self.seq, "view": self.view, "sent": self.sent}
        if self.journal is not None:
            out["games"] = [[g.game, g.seq, g.over] for g in self.games]
        return out


@dataclass(frozen=True)
class StatusMessage:
    online: bool

    def to_json(self) -> dict[str, Any]:
        return {"v": VERSION, "online": self.online}


@dataclass(frozen=True)
class ResendMessage:
    game: int
    start: int
    journal: str | None = None

    def to_json(self) -> dict[str, Any]:
        head = {"v": VERSION} if self.journal is None else {"v": VERSION, "journal": self.journal}
        return {**head, "game": self.game, "from": self.start}


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
    return obj.get(key)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no number")


def _int(value: Any, low: int) -> bool:
    return type(value) is int and low <= value < 1 << 53


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _journal(topic: str, payload: bytes, obj: dict[str, Any]) -> str | None:
    journal = _get(obj, "journal")
    if journal is not None and not (isinstance(journal, str) and JOURNAL.fullmatch(journal)):
        raise BadMessage(topic, payload, f"journal {journal!r} is not 32 hex digits")
    return journal


def decode_record(topic: str, payload: bytes) -> RecordMessage:
    """A ``records`` message, checked field by field."""
    obj = _object(topic, payload)
    journal = _journal(topic, payload, obj)
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
    return RecordMessage(game, seq, kind, body, float(at), None if committed is None else float(committed), journal)


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
    journal = _journal(topic, payload, obj)
    listed = _get(obj, "games")
    if listed is None:
        listed = []
    if not isinstance(listed, list) or len(listed) > LISTED_READ or not all(
        isinstance(g, list) and len(g) == 3 and _int(g[0], 1) and _int(g[1], 0) and isinstance(g[2], bool)
        for g in listed
    ):
        raise BadMessage(topic, payload, f"games is not a list of at most {LISTED_READ} [game, seq, over]")
    return StateMessage(game, seq, view, float(sent), journal, tuple(Listed(g, s, o) for g, s, o in listed))


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
    return ResendMessage(game, start, _journal(topic, payload, obj))
