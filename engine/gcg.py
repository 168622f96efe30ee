"""GCG game records (Poslfit's GCG 1.2) with our extensions, read and written.

Reading: UTF-8 when the file declares ``#character-encoding UTF-8``, ISO-8859-1 without
the pragma; any other declared encoding is a :class:`GcgEncodingError`. CRLF, blank lines,
``#note`` continuation lines, unknown pragmas (kept), empty or partial racks and events
after the end are accepted. Writing: always UTF-8 with the pragma.

Our extensions (RULES.md): ``#rules PROFILE [key=value...]``, ``#player3``/``#player4``,
``(challenge) -N`` on a wrong challenger's line, ``(adjust) +-N`` corrections, and the
classic end lines ``>A: (RACKS) +N`` / ``>B: RACK (RACK) -N``.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, replace

from .errors import GcgEncodingError, GcgError, ScoreboardError
from .events import (
    ChallengeBonus,
    ChallengePenalty,
    Event,
    Exchanged,
    OutBonus,
    Passed,
    PlayMade,
    PlayWithdrawn,
    RackPenalty,
    ScoreAdjusted,
    TimePenalty,
)
from .rules import RuleProfile, standard_record_profile
from .tiles import get_tile_set


class Kind(enum.Enum):
    """What a GCG event line records."""

    PLAY = "play"  # >p: RACK 8D WORD +S T
    WITHDRAW = "withdraw"  # >p: RACK -- -S T
    PASS = "pass"  # >p: RACK - +0 T
    EXCHANGE = "exchange"  # >p: RACK -TILES +0 T   (or -N)
    CHALLENGE = "challenge"  # >p: RACK (challenge) +5 T  /  -5 on a wrong challenger
    TIME = "time"  # >p: RACK (time) -10 T
    ADJUST = "adjust"  # >p: RACK (adjust) +3 T
    END_RACKS = "end-racks"  # >p: (RACKS) +N T   going out
    RACK_PENALTY = "rack-penalty"  # >p: RACK (RACK) -N T


@dataclass(frozen=True)
class GcgPlayer:
    """A ``#playerN nick Full Name`` line."""

    nick: str
    name: str


@dataclass(frozen=True)
class GcgEvent:
    """One ``>`` line.

    ``rack`` is None when the line has no rack. ``tiles`` holds the exchanged letters,
    the racks in an end line; ``count`` an exchange written as a number.
    """

    kind: Kind
    nick: str
    rack: str | None
    score: int
    total: int
    position: str | None = None
    word: str | None = None
    tiles: str | None = None
    count: int | None = None
    notes: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)


@dataclass
class GcgRecord:
    """A whole game record."""

    players: list[GcgPlayer]
    events: list[GcgEvent] = field(default_factory=list)
    rules: str | None = None
    tile_distribution: str | None = None
    lexicon: str | None = None
    title: str | None = None
    description: str | None = None
    game_id: str | None = None
    notes: list[str] = field(default_factory=list)  # notes before the first event
    final_racks: dict[int, str] = field(default_factory=dict)  # #rack1 ... (0-based seat)
    pragmas: list[tuple[str, str]] = field(default_factory=list)  # other pragmas, kept
    encoding: str = field(default="UTF-8", compare=False)  # of the file it was read from

    def seat(self, nick: str) -> int:
        """0-based seat of ``nick``."""
        for i, p in enumerate(self.players):
            if p.nick == nick:
                return i
        raise KeyError(nick)

    def profile(self, rules: str | None = None) -> RuleProfile:
        """The rules of this record: ``rules`` if given, else ``#rules``, else a standard record.

        A standard record (no ``#rules``) is a 2-player tournament game whose tile set
        comes from ``#tile-distribution`` (English by default).
        """
        text = rules or self.rules
        if text:
            profile = RuleProfile.from_rules_line(text)
            if self.tile_distribution and not rules:
                profile = profile.with_tile_set(self.tile_distribution)
            return profile
        return standard_record_profile(self.tile_distribution)


_ENCODING_RE = re.compile(rb"^\s*#character-encoding[ \t]+(\S+)", re.IGNORECASE | re.MULTILINE)
_POSITION_RE = re.compile(r"^(?:\d{1,2}[A-Oa-o]|[A-Oa-o]\d{1,2})$")
_AMOUNT_RE = re.compile(r"^[+-]\d+$")
_TOTAL_RE = re.compile(r"^-?\d+$")


def decode(data: bytes) -> tuple[str, str]:
    """Decode GCG bytes; returns (text, encoding name)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    m = _ENCODING_RE.search(data)
    if m is None:
        return data.decode("iso-8859-1"), "ISO-8859-1"
    declared = m.group(1).decode("ascii", "replace")
    if declared.upper().replace("_", "-") not in ("UTF-8", "UTF8"):
        line = data[: m.start(1)].count(b"\n") + 1
        raise GcgEncodingError(
            f"unsupported character encoding {declared!r}; GCG files are UTF-8 "
            "(declared with #character-encoding UTF-8) or ISO-8859-1 (no declaration)",
            line,
        )
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise GcgEncodingError(f"declared UTF-8 but byte {data[e.start]:#04x} is not UTF-8", line) from None


def read(data: bytes | str) -> GcgRecord:
    """Parse a GCG file's bytes (or already decoded text) into a :class:`GcgRecord`."""
    if isinstance(data, bytes):
        text, encoding = decode(data)
    else:
        text, encoding = data, "UTF-8"
    record = GcgRecord(players=[], encoding=encoding)
    seats: dict[int, GcgPlayer] = {}
    note_open = False  # a #note may continue on the following plain lines
    # Only LF ends a line (CRLF too): str.splitlines would also split at U+2028, FF, NEL.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            note_open = _pragma(record, seats, stripped, number)
            continue
        if stripped.startswith(">"):
            record.events.append(_event(stripped, number, seats, record))
            note_open = False
            continue
        if note_open:
            _append_note(record, stripped, continuation=True)
            continue
        raise GcgError(f"not a GCG line: {stripped[:60]!r} (lines start with # or >)", number)
    if seats:
        missing = [n for n in range(1, max(seats) + 2) if n - 1 not in seats]
        if missing:
            raise GcgError(f"#player{missing[0]} is missing")
        record.players = [seats[i] for i in sorted(seats)]
        nicks = [p.nick for p in record.players]
        twice = sorted({n for n in nicks if nicks.count(n) > 1})
        if twice:
            raise GcgError(f"two players have the nick {twice[0]!r}")
        for e in record.events:  # also events written before the #player lines
            if e.nick not in nicks:
                raise GcgError(f"unknown player {e.nick!r} (players: {', '.join(nicks)})", e.line)
    else:  # no #player lines: the players in the order they first move
        record.players = [GcgPlayer(n, n) for n in dict.fromkeys(e.nick for e in record.events)]
    return record


def _pragma(record: GcgRecord, seats: dict[int, GcgPlayer], line: str, number: int) -> bool:
    parts = line[1:].split(None, 1)
    name = parts[0].lower() if parts else ""
    value = parts[1].strip() if len(parts) > 1 else ""
    if name.startswith("player") and name[6:].isdigit():
        seat = int(name[6:]) - 1
        if not 0 <= seat < 4:
            raise GcgError(f"#{name}: a game has 2 to 4 players", number)
        words = value.split(None, 1)
        if not words:
            raise GcgError(f"#{name} needs a nick", number)
        nick = words[0]
        seats[seat] = GcgPlayer(nick, words[1].strip() if len(words) > 1 else nick)
        return False
    if name.startswith("rack") and name[4:].isdigit():
        record.final_racks[int(name[4:]) - 1] = value
        return False
    if name == "note":
        _append_note(record, value, continuation=False)
        return True
    if name == "rules":
        try:
            RuleProfile.from_rules_line(value)
        except ScoreboardError as e:
            raise GcgError(f"#rules: {e}", number) from None
        record.rules = value
    elif name == "tile-distribution":
        try:
            get_tile_set(value)
        except ScoreboardError as e:
            raise GcgError(f"#tile-distribution: {e}", number) from None
        record.tile_distribution = value
    elif name == "lexicon":
        record.lexicon = value
    elif name == "title":
        record.title = value
    elif name == "description":
        record.description = value
    elif name == "id":
        record.game_id = value
    elif name == "character-encoding":
        pass  # handled when decoding
    else:
        record.pragmas.append((name, value))
    return False


def _append_note(record: GcgRecord, text: str, *, continuation: bool) -> None:
    if record.events:
        last = record.events[-1]
        notes = list(last.notes)
        if continuation and notes:
            notes[-1] = notes[-1] + "\n" + text
        else:
            notes.append(text)
        record.events[-1] = replace(last, notes=tuple(notes))
    elif continuation and record.notes:
        record.notes[-1] += "\n" + text
    else:
        record.notes.append(text)


def _event(line: str, number: int, seats: dict[int, GcgPlayer], record: GcgRecord) -> GcgEvent:
    head, sep, rest = line[1:].partition(":")
    nick = head.strip()
    if not sep or not nick or " " in nick:
        raise GcgError(f"an event line starts with >nick: , got {line[:40]!r}", number)
    if seats and nick not in {p.nick for p in seats.values()}:
        known = ", ".join(p.nick for p in seats.values())
        raise GcgError(f"unknown player {nick!r} (players: {known})", number)
    tokens = rest.split()
    if len(tokens) < 2:
        raise GcgError(f"incomplete event line {line!r}", number)
    *body, amount_text, total_text = tokens
    if not _AMOUNT_RE.match(amount_text):
        raise GcgError(f"score {amount_text!r} must be written +N or -N", number)
    if not _TOTAL_RE.match(total_text):
        raise GcgError(f"cumulative score {total_text!r} is not a number", number)
    amount, total = int(amount_text), int(total_text)

    def rack_from(items: list[str], expect: int) -> str | None:
        if len(items) == expect:
            return None
        if len(items) == expect + 1 and _is_rack(items[0]):
            return items[0]
        raise GcgError(f"cannot read event {' '.join(tokens)!r}", number)

    ev = GcgEvent
    if body and body[-1].startswith("(") and body[-1].endswith(")"):
        inner = body[-1][1:-1]
        rack = rack_from(body, 1)
        low = inner.lower()
        if low == "challenge":
            return ev(Kind.CHALLENGE, nick, rack, amount, total, line=number)
        if low == "time":
            return ev(Kind.TIME, nick, rack, amount, total, line=number)
        if low == "adjust":
            return ev(Kind.ADJUST, nick, rack, amount, total, line=number)
        if inner and not _is_rack(inner):
            raise GcgError(f"unknown event {body[-1]!r}", number)
        # Going out: `(RACKS) +N`, no rack of one's own. A rack penalty: `RACK (RACK) -N`
        # (a rack of blanks only costs 0, sometimes written +0).
        going_out = amount > 0 or (amount == 0 and amount_text.startswith("+") and rack is None)
        kind = Kind.END_RACKS if going_out else Kind.RACK_PENALTY
        return ev(kind, nick, rack, amount, total, tiles=inner, line=number)
    if body and body[-1] == "--":
        return ev(Kind.WITHDRAW, nick, rack_from(body, 1), amount, total, line=number)
    if body and body[-1] == "-":
        return ev(Kind.PASS, nick, rack_from(body, 1), amount, total, line=number)
    if body and body[-1].startswith("-") and len(body[-1]) > 1:
        what = body[-1][1:]
        rack = rack_from(body, 1)
        if what.isdigit():
            return ev(Kind.EXCHANGE, nick, rack, amount, total, count=int(what), line=number)
        if not _is_rack(what):
            raise GcgError(f"cannot read exchange {body[-1]!r}", number)
        return ev(Kind.EXCHANGE, nick, rack, amount, total, tiles=what, line=number)
    if len(body) >= 2 and _POSITION_RE.match(body[-2]):
        rack = rack_from(body, 2)
        return ev(Kind.PLAY, nick, rack, amount, total, position=body[-2].upper(), word=body[-1], line=number)
    raise GcgError(f"cannot read event {' '.join(tokens)!r}", number)


def _is_rack(text: str) -> bool:
    return bool(text) and all(ch == "?" or (ch.isalpha() and ch.isupper()) for ch in text)


# --- writing ----------------------------------------------------------------------------


def write(record: GcgRecord) -> str:
    """The GCG text of ``record`` (UTF-8 pragma first; lines end with LF)."""
    out = ["#character-encoding UTF-8"]
    for i, p in enumerate(record.players, start=1):
        out.append(f"#player{i} {p.nick} {_one_line(p.name)}".rstrip())
    for name, value in (
        ("rules", record.rules),
        ("tile-distribution", record.tile_distribution),
        ("lexicon", record.lexicon),
        ("title", record.title),
        ("description", record.description),
        ("id", record.game_id),
    ):
        if value is not None:
            out.append(f"#{name} {_one_line(value)}".rstrip())
    for name, value in record.pragmas:
        out.append(f"#{name} {_one_line(value)}".rstrip())
    for note in record.notes:
        out.append(f"#note {note}".rstrip())
    for e in record.events:
        out.append(format_event(e))
        for note in e.notes:
            out.append(f"#note {note}".rstrip())
    for seat, rack in sorted(record.final_racks.items()):
        out.append(f"#rack{seat + 1} {rack}")
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    """``text`` with line breaks and other control characters turned into spaces."""
    return "".join(" " if ord(ch) < 32 or ch in "\x7f\x85\u2028\u2029" else ch for ch in text)


def format_event(e: GcgEvent) -> str:
    """One ``>`` line."""
    if e.kind is Kind.PLAY:
        body = f"{e.position} {e.word}"
    elif e.kind is Kind.WITHDRAW:
        body = "--"
    elif e.kind is Kind.PASS:
        body = "-"
    elif e.kind is Kind.EXCHANGE:
        body = f"-{e.tiles}" if e.tiles is not None else f"-{e.count}"
    elif e.kind in (Kind.END_RACKS, Kind.RACK_PENALTY):
        body = f"({e.tiles})"
    else:
        body = f"({e.kind.value})"
    amount = f"-{-e.score}" if e.kind is Kind.RACK_PENALTY else f"{e.score:+d}"
    return f">{e.nick}: {e.rack or ''} {body} {amount} {e.total}"


def nick_for(name: str, taken: set[str]) -> str:
    """A GCG nick for a player name: no spaces or colons, unique."""
    base = re.sub(r"[\s:]+", "_", name.strip()) or "player"
    nick, k = base, 2
    while nick in taken:
        nick, k = f"{base}_{k}", k + 1
    taken.add(nick)
    return nick


def record_from_events(
    players: list[str],
    events: list[Event],
    profile: RuleProfile,
    *,
    lexicon: str | None = None,
    title: str | None = None,
) -> GcgRecord:
    """The GCG record of a game's scoresheet.

    ``#rules`` is written for every game but a 2-player ``en-tournament`` game without
    variants; ``#tile-distribution`` when the tile set is not the profile's own.
    """
    from .rules import PROFILES

    taken: set[str] = set()
    gplayers = [GcgPlayer(nick_for(n, taken), n) for n in players]
    standard = profile.gcg_default and not profile.has_variants() and len(players) == 2
    own_tiles = PROFILES[profile.name].tile_set_name
    record = GcgRecord(
        players=gplayers,
        rules=None if standard else profile.rules_line(),
        tile_distribution=None if profile.tile_set_name == own_tiles else profile.tile_set_name,
        lexicon=lexicon,
        title=title,
    )
    totals = [0] * len(players)
    for e in events:
        totals[e.player] += e.points
        nick = gplayers[e.player].nick
        rack = e.rack or None
        kw: dict[str, object] = {}
        if isinstance(e, PlayMade):
            kind = Kind.PLAY
            kw = {"position": e.position.gcg(), "word": e.word}
        elif isinstance(e, PlayWithdrawn):
            kind = Kind.WITHDRAW
        elif isinstance(e, Passed):
            kind = Kind.PASS
        elif isinstance(e, Exchanged):
            kind = Kind.EXCHANGE
            kw = {"tiles": e.tiles}
        elif isinstance(e, (ChallengeBonus, ChallengePenalty)):
            kind = Kind.CHALLENGE
        elif isinstance(e, TimePenalty):
            kind = Kind.TIME
        elif isinstance(e, ScoreAdjusted):
            kind = Kind.ADJUST
        elif isinstance(e, OutBonus):
            kind = Kind.END_RACKS
            kw = {"tiles": e.tiles}
            rack = None
        elif isinstance(e, RackPenalty):
            kind = Kind.RACK_PENALTY
            kw = {"tiles": e.rack}
        else:  # pragma: no cover - every event type is listed above
            raise ScoreboardError(f"no GCG form for {e!r}")
        record.events.append(GcgEvent(kind, nick, rack, e.points, totals[e.player], **kw))  # type: ignore[arg-type]
    return record
