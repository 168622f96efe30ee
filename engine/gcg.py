"""GCG game records (Poslfit's GCG 1.2) with our extensions, read and written.

Reading: UTF-8 when the file declares ``#character-encoding UTF-8`` or starts with a UTF-8
byte order mark, ISO-8859-1 without either or when it declares ``ISO-8859-1`` (the same
thing said aloud); any other declared
encoding is a :class:`GcgEncodingError`, and so is a file whose byte order mark or NUL
bytes show UTF-16 or UTF-32 (named in the message). An empty or blank file is a
:class:`GcgEmptyError`. CRLF, blank lines,
``#note`` continuation lines, unknown pragmas (kept), empty or partial racks and events
after the end are accepted. Writing: always UTF-8 with the pragma.

Our extensions (docs/RULES.md): ``#rules PROFILE [key=value...]``, ``#player3``/``#player4``,
``(challenge) -N`` on a wrong challenger's line, ``(adjust) +-N`` corrections, the
classic end lines ``>A: (RACKS) +N`` / ``>B: RACK (RACK) -N``, and ``>B: RACK (triple) +0 T``:
under ``challenge=triple`` B lost the challenge and the game.

Bounds: a record larger than :data:`MAX_BYTES`, longer than :data:`MAX_LINES` or with more
than :data:`MAX_EVENTS` events is a :class:`GcgLimitError`, refused before it is parsed;
within them reading takes time linear in the file's size.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, replace

from .errors import GcgEmptyError, GcgEncodingError, GcgError, GcgLimitError, ScoreboardError
from .events import (
    ChallengeBonus,
    ChallengePenalty,
    Event,
    Exchanged,
    GameLost,
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

MAX_BYTES = 1 << 20
"""Largest GCG file read, in bytes (1 MiB; a game record has a few kilobytes)."""
MAX_LINES = 20_000
"""Most lines in a GCG file (a record has about a hundred, a long annotated one a few thousand)."""
MAX_EVENTS = 1_000
"""Most event (``>``) lines in a GCG file (a real game has at most a few hundred)."""


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
    GAME_LOST = "triple"  # >p: RACK (triple) +0 T   challenge=triple: p lost the challenge and the game


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


# [ \t]*, not \s*: \s would run over line ends, and from every line start of a run of blank
# lines to its end (quadratic in the run's length).
_ENCODING_RE = re.compile(rb"^[ \t]*#character-encoding[ \t]+(\S+)", re.IGNORECASE | re.MULTILINE)
_POSITION_RE = re.compile(r"^(?:[0-9]{1,2}[A-Oa-o]|[A-Oa-o][0-9]{1,2})$")
_AMOUNT_RE = re.compile(r"^[+-][0-9]{1,6}$")  # ASCII digits; few enough for int()
_TOTAL_RE = re.compile(r"^-?[0-9]{1,6}$")
_INDEX_RE = re.compile(r"[0-9]{1,6}")  # of #playerN, #rackN and an exchange written -N


def check_size(size: int) -> None:
    """Raise :class:`GcgLimitError` when a file of ``size`` bytes is past :data:`MAX_BYTES`."""
    if size > MAX_BYTES:
        raise GcgLimitError(
            f"too large: {size} bytes, more than the {MAX_BYTES} a game record may have",
            "bytes", MAX_BYTES, size,
        )


def _check_lines(lines: list[str]) -> None:
    """Raise :class:`GcgLimitError` past :data:`MAX_LINES` lines or :data:`MAX_EVENTS` events."""
    count = len(lines) - (lines[-1] == "")  # the text after the last line end, if any
    if count > MAX_LINES:
        raise GcgLimitError(
            f"too long: {count} lines, more than the {MAX_LINES} a game record may have",
            "lines", MAX_LINES, count,
        )
    events = sum(1 for line in lines if line.lstrip().startswith(">"))
    if events > MAX_EVENTS:
        raise GcgLimitError(
            f"too many events: {events}, more than the {MAX_EVENTS} a game record may have",
            "events", MAX_EVENTS, events,
        )


def _shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, ending in ``...`` when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(text: str, limit: int = 60) -> str:
    """``text`` quoted for a message, shortened to about ``limit`` characters."""
    return repr(_shorten(text, limit))


_BOMS = (  # the longer first: UTF-32-LE's mark starts with UTF-16-LE's
    (b"\xff\xfe\x00\x00", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"),
    (b"\xfe\xff", "UTF-16-BE"),
)
_LATIN1 = ("ISO-8859-1", "ISO8859-1", "LATIN-1", "LATIN1")


def _wide(data: bytes) -> str | None:
    """UTF-16 or UTF-32 as its byte order mark says, or as NUL bytes between ASCII show."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    head = data[:200]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):  # text of ASCII letters, 2 or 4 bytes each
        return "UTF-16" if head.count(0) * 3 < len(head) * 2 else "UTF-32"
    return None


def decode(data: bytes) -> tuple[str, str]:
    """Decode GCG bytes; returns (text, encoding name).

    A UTF-8 byte order mark means UTF-8 with or without the pragma (Notepad writes one and
    no pragma); declaring another encoding after it is a :class:`GcgEncodingError`.
    """
    marked = data.startswith(b"\xef\xbb\xbf")
    if marked:
        data = data[3:]
    wide = _wide(data)
    if wide is not None:
        how = "its byte order mark" if any(data.startswith(bom) for bom, _ in _BOMS) else "its NUL bytes"
        raise GcgEncodingError(
            f"the file is {wide} (found from {how}); GCG files are UTF-8 or ISO-8859-1:"
            " save it as UTF-8", 1, wide,
        )
    m = _ENCODING_RE.search(data)
    if m is not None:
        declared = m.group(1).decode("ascii", "replace")
        name = declared.upper().replace("_", "-")
        line = data[: m.start(1)].count(b"\n") + 1
        if marked and name not in ("UTF-8", "UTF8"):
            raise GcgEncodingError(
                f"the file starts with a UTF-8 byte order mark but declares {_quote(declared)}; save it"
                " as UTF-8 (declared with #character-encoding UTF-8)", line, declared,
            )
        if name in _LATIN1:
            return data.decode("iso-8859-1"), "ISO-8859-1"
        if name not in ("UTF-8", "UTF8"):
            raise GcgEncodingError(
                f"unsupported character encoding {_quote(declared)}; GCG files are UTF-8 "
                "(declared with #character-encoding UTF-8) or ISO-8859-1 (no declaration, or ISO-8859-1)",
                line, declared,
            )
    elif not marked:
        return data.decode("iso-8859-1"), "ISO-8859-1"
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        why = "declared UTF-8" if m is not None else "UTF-8 by its byte order mark"
        raise GcgEncodingError(f"{why} but byte {data[e.start]:#04x} is not UTF-8", line, "UTF-8") from None


def read(data: bytes | str) -> GcgRecord:
    """Parse a GCG file's bytes (or already decoded text) into a :class:`GcgRecord`.

    Past a bound (:data:`MAX_BYTES`, :data:`MAX_LINES`, :data:`MAX_EVENTS`) it raises
    :class:`GcgLimitError` before parsing.
    """
    if isinstance(data, bytes):
        check_size(len(data))
        if not data:
            raise GcgEmptyError("the file is empty (0 bytes): no game to read", 0)
        text, encoding = decode(data)
    else:
        check_size(len(data.encode("utf-8", "surrogatepass")))
        text, encoding = data, "UTF-8"
    # Only LF ends a line (CRLF too): str.splitlines would also split at U+2028, FF, NEL.
    lines = text.split("\n")
    _check_lines(lines)
    if not text.strip():
        raise GcgEmptyError(f"the file holds only white space ({len(text)} characters): no game to read", len(text))
    record = GcgRecord(players=[], encoding=encoding)
    seats: dict[int, GcgPlayer] = {}
    notes = _Notes()
    note_open = False  # a #note may continue on the following plain lines
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            note_open = _pragma(record, seats, notes, stripped, number)
            continue
        if stripped.startswith(">"):
            record.events.append(_event(stripped, number, seats, record))
            note_open = False
            continue
        if note_open:
            notes.add(len(record.events), stripped, continuation=True)
            continue
        raise GcgError(f"not a GCG line: {_quote(stripped)} (lines start with # or >)", number)
    notes.attach(record)
    if seats:
        missing = [n for n in range(1, max(seats) + 2) if n - 1 not in seats]
        if missing:
            raise GcgError(f"#player{missing[0]} is missing")
        record.players = [seats[i] for i in sorted(seats)]
        nicks = [p.nick for p in record.players]
        twice = sorted({n for n in nicks if nicks.count(n) > 1})
        if twice:
            raise GcgError(f"two players have the nick {_quote(twice[0])}")
        for e in record.events:  # also events written before the #player lines
            if e.nick not in nicks:
                raise GcgError(f"unknown player {_quote(e.nick)} (players: {_shorten(', '.join(nicks), 120)})", e.line)
    else:  # no #player lines: the players in the order they first move
        record.players = [GcgPlayer(n, n) for n in dict.fromkeys(e.nick for e in record.events)]
    return record


def _index(name: str, prefix: str) -> int | None:
    """N of a pragma named ``prefix`` + N (ASCII digits), else None."""
    digits = name[len(prefix):] if name.startswith(prefix) else ""
    return int(digits) if _INDEX_RE.fullmatch(digits) else None


def _pragma(
    record: GcgRecord, seats: dict[int, GcgPlayer], notes: _Notes, line: str, number: int
) -> bool:
    parts = line[1:].split(None, 1)
    name = parts[0].lower() if parts else ""
    value = parts[1].strip() if len(parts) > 1 else ""
    player, rack = _index(name, "player"), _index(name, "rack")
    if player is not None:
        seat = player - 1
        if not 0 <= seat < 4:
            raise GcgError(f"#{name}: a game has 2 to 4 players", number)
        words = value.split(None, 1)
        if not words:
            raise GcgError(f"#{name} needs a nick", number)
        nick = words[0]
        seats[seat] = GcgPlayer(nick, words[1].strip() if len(words) > 1 else nick)
        return False
    if rack is not None:
        record.final_racks[rack - 1] = value
        return False
    if name == "note":
        notes.add(len(record.events), value, continuation=False)
        return True
    if name == "rules":
        try:
            RuleProfile.from_rules_line(value)
        except ScoreboardError as e:
            raise GcgError(f"#rules: {_shorten(str(e))}", number) from None
        record.rules = value
    elif name == "tile-distribution":
        try:
            get_tile_set(value)
        except ScoreboardError as e:
            raise GcgError(f"#tile-distribution: {_shorten(str(e))}", number) from None
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


class _Notes:
    """The notes of a record being read, as lists of lines, joined once at the end (adding
    each line to a growing string or tuple made reading quadratic in a note's length)."""

    def __init__(self) -> None:
        self._notes: dict[int, list[list[str]]] = {}  # events before them -> their lines

    def add(self, events: int, text: str, *, continuation: bool) -> None:
        """A ``#note`` (or with ``continuation`` a line of the last one) after ``events`` events."""
        notes = self._notes.setdefault(events, [])
        if continuation and notes:
            notes[-1].append(text)
        else:
            notes.append([text])

    def attach(self, record: GcgRecord) -> None:
        """Give ``record`` its notes: before the first event, then each event's own."""
        for events, notes in self._notes.items():
            joined = ["\n".join(lines) for lines in notes]
            if events == 0:
                record.notes.extend(joined)
            else:
                last = record.events[events - 1]
                record.events[events - 1] = replace(last, notes=last.notes + tuple(joined))


def _event(line: str, number: int, seats: dict[int, GcgPlayer], record: GcgRecord) -> GcgEvent:
    head, sep, rest = line[1:].partition(":")
    nick = head.strip()
    if not sep or not nick or " " in nick:
        raise GcgError(f"an event line starts with >nick: , got {_quote(line, 40)}", number)
    if seats and nick not in {p.nick for p in seats.values()}:
        known = ", ".join(p.nick for p in seats.values())
        raise GcgError(f"unknown player {_quote(nick)} (players: {_shorten(known, 120)})", number)
    tokens = rest.split()
    if len(tokens) < 2:
        raise GcgError(f"incomplete event line {_quote(line)}", number)
    *body, amount_text, total_text = tokens
    if not _AMOUNT_RE.match(amount_text):
        raise GcgError(f"score {_quote(amount_text)} must be written +N or -N (up to 6 digits)", number)
    if not _TOTAL_RE.match(total_text):
        raise GcgError(f"cumulative score {_quote(total_text)} is not a number (up to 6 digits)", number)
    amount, total = int(amount_text), int(total_text)

    def rack_from(items: list[str], expect: int) -> str | None:
        if len(items) == expect:
            return None
        if len(items) == expect + 1 and _is_rack(items[0]):
            return items[0]
        raise GcgError(f"cannot read event {_quote(' '.join(tokens))}", number)

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
        if low == "triple":
            return ev(Kind.GAME_LOST, nick, rack, amount, total, line=number)
        if inner and not _is_rack(inner):
            raise GcgError(f"unknown event {_quote(body[-1])}", number)
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
        if _INDEX_RE.fullmatch(what):
            return ev(Kind.EXCHANGE, nick, rack, amount, total, count=int(what), line=number)
        if not _is_rack(what):
            raise GcgError(f"cannot read exchange {_quote(body[-1])}", number)
        return ev(Kind.EXCHANGE, nick, rack, amount, total, tiles=what, line=number)
    if len(body) >= 2 and _POSITION_RE.match(body[-2]):
        rack = rack_from(body, 2)
        return ev(Kind.PLAY, nick, rack, amount, total, position=body[-2].upper(), word=body[-1], line=number)
    raise GcgError(f"cannot read event {_quote(' '.join(tokens))}", number)


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
        elif isinstance(e, GameLost):
            kind = Kind.GAME_LOST
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
