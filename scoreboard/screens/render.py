"""Screens as pure functions: a screen model, a UI language and a panel in, a 1-bit image out.

Every screen is laid out for its panel (:func:`layout`): its pixels, and a margin on every
side that a case's bezel may cover (:attr:`~drivers.display.panels.Panel.margin`). Each
screen has a title bar at the top (inverted); body lines of the 6x12 face (11 px a line)
follow, and hints naming the buttons sit on the last lines. Where the panel is large enough
for a headline face whose capitals are legible from across the table
(:func:`~drivers.display.panels.legible_mm`), the scores screen shows the player to move and
their score in it, in a layout chosen for the widest values a game shows (so that it does not
change as clocks run and scores grow); there, a ruling, the last play and a short tally are in
the big face where their lines fit. Only data of any length (a name, the words of a ruling) is
cut to fit, with ``…``; numbers never are where the data is within bounds (4 players, 4-digit
scores, negative totals).

The renderer reports what it drew (:func:`rendering`, a :class:`Rendering`): every box it
drew text or a shape into (:class:`Mark`, with whether its text was cut and whether it may
be: a player's name may), the inverted bars the text sits on, and every line it had to
leave out for want of room. The tests check that each box lies inside the margin, that no
two intersect, that no pixel outside the boxes differs from the bars, that nothing but a
name is cut and that no line is left out. Highlights (whose turn, the selection, blanks,
winners) are drawn inverted, with an arrow where it marks a player.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from drivers.display.panels import Panel
from scoreboard.drawing.canvas import (
    DEFAULT_PANEL,
    Canvas,
    Layout,
    Mark,
    layout,
)
from scoreboard.drawing.font import BitmapFont
from scoreboard.drawing.starting import StartingScreen
from scoreboard.drawing.starting import draw as _starting

from .models import (
    AdjustScreen,
    BlankPickerScreen,
    ChallengeResultScreen,
    ChallengeWindowScreen,
    ConfirmKind,
    ConfirmScreen,
    DrawForFirstScreen,
    EnrollScreen,
    EnrollStep,
    ErrorKind,
    ErrorScreen,
    Lang,
    LastPlayScreen,
    MenuScreen,
    PausedScreen,
    PlayerLine,
    ReadingScreen,
    ScoresScreen,
    Screen,
    TallyLine,
    TallyScreen,
    UnseenScreen,
)
from .text import text, tiles

__all__ = [
    "DEFAULT_PANEL",
    "Layout",
    "Mark",
    "Rendering",
    "format_clock",
    "layout",
    "render",
    "render_marks",
    "rendering",
]

def format_clock(seconds: int) -> str:
    """Clock time ``m:ss``; negative (overtime) as ``-m:ss``."""
    sign = "-" if seconds < 0 else ""
    minutes, secs = divmod(abs(seconds), 60)
    return f"{sign}{minutes}:{secs:02d}"


def _signed(points: int) -> str:
    return f"{points:+d}"


def _named(key: str, lang: Lang, name: str, room: int, f: BitmapFont, **fields: object) -> str:
    """The text of ``key`` with ``name`` cut so that the whole fits in ``room`` pixels."""
    return _fill(key, lang, room, f, "name", name=name, **fields)


def _fill(key: str, lang: Lang, room: int, f: BitmapFont, field: str, **fields: object) -> str:
    """The text of ``key`` with the data of ``field`` (a name, a list of names or words: of any
    length) cut so that the whole fits in ``room`` pixels; the rest of the text is never cut."""
    value = str(fields[field])
    rest = f.text_width(text(key, lang, **{**fields, field: ""}))
    return text(key, lang, **{**fields, field: f.fit(value, room - rest)})


def _big_rows(c: Canvas, count: int, top: int | None = None) -> tuple[int, ...] | None:
    """The tops of ``count`` lines of the big face from ``top`` (the first line under the
    title), when the panel is one to be read from across the table (it has a headline face)
    and they fit; else None."""
    lay = c.lay
    if lay.head is None:
        return None
    rows = tuple(range(lay.rows[0] if top is None else top, lay.bottom - c.big.height + 1, c.big.height))
    return rows[:count] if len(rows) >= count else None


# --- the screens ---------------------------------------------------------------------------


def _scores(m: ScoresScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    players = m.players[:4]
    bag = text("scores.bag", lang, n=m.bag) if m.bag else text("scores.bag_empty", lang)
    title = text("scores.your_turn" if m.yours else "scores.title", lang)
    mover = next((p for p in players if p.is_turn), None)
    if lay.head is not None and mover is not None:
        plan = _headline_plan(c, lang, players, mover)
        if plan is not None:
            _scores_headline(c, players, mover, title, bag, plan)
            return
    c.title(title, bag)
    cw = c.body.width
    score_w = max((len(str(p.score)) for p in players), default=1) * cw
    clocks = [format_clock(p.clock_s) for p in players if p.clock_s is not None]
    clock_w = max((len(t) for t in clocks), default=0) * cw
    for y, p in zip(lay.rows, players):
        fill = 1
        if p.is_turn:
            c.bar(y, lay.line)
            fill = 0
        if p.is_turn:
            c.arrow(lay.left, y + 1, lay.line - 2, fill=fill)
        x = lay.left + cw  # names line up, arrow or not
        right = c.number(str(p.score), y, lay.right, fill=fill) - cw
        if clock_w:
            if p.clock_s is not None:
                c.number(format_clock(p.clock_s), y, right, fill=fill)
            right -= clock_w + cw
        c.put(p.name, y, x, right, fill=fill, cuttable=True)
    c.dropped.extend(p.name for p in players[len(lay.rows) :])


SCORE_DIGITS = 4
"""Columns kept for a score whatever it is now, so that a layout does not change as scores grow."""

CLOCK_COLUMNS = 5
"""Columns kept for a clock (``25:00``, ``-1:05``) whatever it shows now."""

NAME_LETTERS_LEAST = 3
"""The fewest columns of a name beside its score (two letters and ``…``)."""


@dataclass(frozen=True)
class _HeadlinePlan:
    """How the scores screen with a headline is laid out: the title bar's right part shows the
    mover's clock (``clock_in_title``) and the bag (else the bag is an item under the
    headline), the other players (and that bag) go ``per_row`` to a line of ``rows``, with
    their clocks or not, ``score_cols`` and ``clock_cols`` columns kept for their numbers."""

    clock_in_title: bool
    bag_in_title: bool
    rows: tuple[int, ...]
    per_row: int
    clocks: bool
    score_cols: int
    clock_cols: int


def _headline_plan(c: Canvas, lang: Lang, players: Sequence[PlayerLine], mover: PlayerLine) -> _HeadlinePlan | None:
    """The first layout with a headline that fits the widest values the game can show (the
    longer title, the longest bag text, 4-digit scores, 5-column clocks), so that it does not
    change as clocks run and scores grow: the others with their clocks, then without; None
    when not even that fits (the screen is a list then)."""
    lay, head, cw = c.lay, c.lay.head, c.body.width
    assert head is not None
    frame = lay.right - lay.left
    others = [p for p in players if p is not mover]
    clocked = [p for p in players if p.clock_s is not None]
    clock_cols = max([CLOCK_COLUMNS, *(len(format_clock(p.clock_s)) for p in clocked if p.clock_s is not None)])
    score_cols = max([SCORE_DIGITS, *(len(str(p.score)) for p in players)])
    if head.text_width("0" * score_cols) + head.width * 3 + NAME_LETTERS_LEAST * head.width > frame:
        return None  # the mover's name would not show
    title = max(text("scores.your_turn", lang), text("scores.title", lang), key=len)
    bag = max(text("scores.bag", lang, n=100), text("scores.bag_empty", lang), key=len)
    clock_in_title = mover.clock_s is not None
    corner = len(bag) + (clock_cols + 2 if clock_in_title else 0)
    bag_in_title = (len(title) + 1 + corner) * cw <= frame
    first = lay.rows[0] + head.height + 1
    rows = tuple(range(first, lay.bottom - lay.line + 1, lay.line))
    items = len(others) + (0 if bag_in_title else 1)
    if not items:
        return _HeadlinePlan(clock_in_title, bag_in_title, rows, 1, False, score_cols, clock_cols)
    if not rows:
        return None
    per_row = math.ceil(items / len(rows))
    gap = 2 * cw if per_row > 1 else 0
    slot = (frame - (per_row - 1) * gap) // per_row
    if not bag_in_title and len(bag) * cw > slot:
        return None
    for clocks in (True, False) if clocked else (False,):
        need = (NAME_LETTERS_LEAST + 1 + score_cols + (1 + clock_cols if clocks else 0)) * cw
        if need <= slot:
            return _HeadlinePlan(clock_in_title, bag_in_title, rows, per_row, clocks, score_cols, clock_cols)
    return None


def _scores_headline(
    c: Canvas, players: Sequence[PlayerLine], mover: PlayerLine, title: str, bag: str, plan: _HeadlinePlan
) -> None:
    """The player to move and their score in the headline face, the others on the lines below
    in columns kept for their numbers (and the bag, when it is not in the title)."""
    lay = c.lay
    head = lay.head
    assert head is not None
    cw = c.body.width
    corner = [format_clock(mover.clock_s)] if plan.clock_in_title and mover.clock_s is not None else []
    if plan.bag_in_title:
        corner.append(bag)
    c.title(title, "  ".join(corner))
    y = lay.rows[0]
    x = lay.left + c.arrow(lay.left, y + head.height // 4, head.height // 2) + head.width // 2
    right = c.number(str(mover.score), y, lay.right, face=head) - head.width // 2
    c.put(mover.name, y, x, right, face=head, cuttable=True)
    items: list[PlayerLine | str] = [p for p in players if p is not mover]
    if not plan.bag_in_title:
        items.append(bag)
    gap = 2 * cw if plan.per_row > 1 else 0
    span = (lay.right - lay.left + gap) // plan.per_row
    for i, p in enumerate(items):
        x0 = lay.left + (i % plan.per_row) * span
        right = min(lay.right, x0 + span - gap)
        y = plan.rows[i // plan.per_row]
        if isinstance(p, str):
            c.put(p, y, x0, right)
            continue
        if plan.clocks:
            if p.clock_s is not None:
                c.number(format_clock(p.clock_s), y, right)
            right -= (plan.clock_cols + 1) * cw
        c.number(str(p.score), y, right)
        right -= (plan.score_cols + 1) * cw
        c.put(p.name, y, x0, right, cuttable=True)


def _word(c: Canvas, y: int, word: str, x0: int, x1: int, face: BitmapFont | None = None) -> None:
    """A played word in capitals, blanks (lower case) inverted."""
    f = face or c.body
    shown = f.fit(word, x1 - x0)
    x = x0
    for ch in shown:
        blank = ch.islower() and ch != "ß"  # ß has no capital tile: never a blank
        glyph = ch if ch == "ß" else ch.upper()
        if blank:
            c.draw.rectangle((x, y, x + f.width - 1, y + f.height - 1), fill=1)
        f.draw(c.image, (x, y), glyph, 0 if blank else 1)
        x += f.width
    c.marks.append(Mark("text", (x0, y, x, y + f.height), shown, shown != word))


def _last_play(m: LastPlayScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    total = _signed(m.total)
    room = lay.right - lay.left - c.body.text_width(total) - c.body.width
    c.title(_named("last.title", lang, m.player, room, c.body), total, number=True)
    bingo = text("last.bingo", lang, n=m.bingo_bonus) if m.bingo else ""
    frame = lay.right - lay.left
    big = _big_rows(c, len(m.words) + (1 if m.bingo else 0))
    if big and all(c.big.text_width(f"{w.text} {w.score}") <= frame for w in m.words) and (
        c.big.text_width(bingo) <= frame
    ):
        face, rows = c.big, big
    else:
        face, rows = c.body, lay.rows
    slots = len(rows) - (1 if m.bingo else 0)
    words = m.words if len(m.words) <= slots else m.words[: slots - 1]
    for y, w in zip(rows, words):
        right = c.number(str(w.score), y, lay.right, face=face) - face.width
        _word(c, y, w.text, lay.left, right, face)
    if len(words) < len(m.words):
        c.put(text("last.more", lang, n=len(m.words) - len(words)), rows[len(words)], face=face)
    if m.bingo:
        c.put(bingo, rows[-1], face=face)


def _challenge_window(m: ChallengeWindowScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    c.title(text("window.title", lang), m.player, right_cuttable=True)
    seconds = max(0, m.seconds_left)
    total = max(1, m.total_s)
    share = min(seconds, total) / total
    hint_y = lay.rows[-1]
    top = lay.rows[0]
    if lay.head is not None:  # the countdown in the headline face, the time bar beside it
        head = lay.head
        count = f"{seconds} s"
        x = lay.left + c.put(count, top, face=head, kind="number") + head.width
        h = 8
        by = top + (head.height - h) // 2
        _time_bar(c, x, by, lay.right, h, share)
        c.put(text("window.hint", lang), hint_y, align="center")
        return
    c.put(f"!? {seconds} s", top + 1, face=c.big, align="center", kind="number")
    by = top + c.big.height + 3
    _time_bar(c, lay.left, by, lay.right, min(8, hint_y - 1 - by), share)
    c.put(text("window.hint", lang), hint_y, align="center")


def _time_bar(c: Canvas, x0: int, y: int, x1: int, h: int, share: float) -> None:
    """An outlined bar from ``x0`` to ``x1``, filled to ``share`` (0 to 1)."""
    if x1 - x0 < 6 or h < 4:
        return
    c.shape((x0, y, x1, y + h), outline=True)
    filled = math.ceil((x1 - x0 - 4) * share)
    if filled:
        c.draw.rectangle((x0 + 2, y + 2, x0 + 2 + filled - 1, y + h - 3), fill=1)


def _challenge_result(m: ChallengeResultScreen, lang: Lang, c: Canvas) -> None:
    c.title(text("result.title", lang))
    lines: list[tuple[str, str, dict[str, object]]] = [  # key, the field of any length, fields
        ("result.valid", "", {})
        if m.valid
        else ("result.invalid", "words", {"words": ", ".join(m.invalid_words) or "?"}),
        ("result.right", "name", {"name": m.player if m.valid else m.challenger}),
    ]
    if m.lost_turn:
        lines.append(("result.lost_turn", "name", {"name": m.challenger}))
    if m.points < 0:
        lines.append(("result.points", "name", {"name": m.challenger, "points": _signed(m.points)}))
    elif m.points > 0:
        lines.append(("result.points", "name", {"name": m.player, "points": _signed(m.points)}))
    if not m.valid:
        lines.append(("result.withdraw", "name", {"name": m.player}))
    elif not m.lost_turn and not m.points and not m.lost_game:
        lines.append(("result.no_penalty", "", {}))
    if m.lost_game:
        lines.append(("result.lost_game", "name", {"name": m.lost_game}))
    _fitted_lines(c, lang, lines)


def _fitted_lines(c: Canvas, lang: Lang, lines: Sequence[tuple[str, str, dict[str, object]]]) -> None:
    """Lines of text (key, the field that may be cut, fields): in the big face on a panel read
    from across the table when every line fits it whole, else in the body face, the field of
    each cut to fit; lines past the last row are reported as dropped."""
    lay = c.lay
    room = lay.right - lay.left
    whole = [text(key, lang, **fields) for key, _, fields in lines]
    big = _big_rows(c, len(lines))
    face, rows = (c.big, big) if big and all(c.big.text_width(t) <= room for t in whole) else (c.body, lay.rows)
    for y, (key, field, fields) in zip(rows, lines):
        c.put(_fill(key, lang, room, face, field, **fields) if field else text(key, lang, **fields), y, face=face)
    c.dropped.extend(whole[len(rows) :])


def _error(m: ErrorScreen, lang: Lang, c: Canvas) -> None:
    key = f"error.{m.kind.value}"
    c.title(text(f"{key}.title", lang))
    rows = c.lay.rows
    if m.kind in (ErrorKind.BAD_PLAY, ErrorKind.BOARD_REFUSED) and m.detail:  # a reason: as long as it is
        body = text(f"{key}.body", lang)
        need = len(textwrap.wrap(body, c.lay.columns)) + len(textwrap.wrap(m.detail, c.lay.columns))
        used = c.wrapped(rows, body) if need <= len(rows) else 0  # else the title says it
        c.wrapped(rows[used:], m.detail)
        return
    used = c.wrapped(rows[:-1] if m.detail else rows, text(f"{key}.body", lang))
    if m.detail:
        c.put(m.detail, rows[used], kind="number")


def _blank_picker(m: BlankPickerScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    c.title(text("blank.title", lang, square=m.square))
    pitch = c.body.width + 2
    per_row = (lay.right - lay.left) // pitch
    letters = m.letters
    first = 0
    if len(letters) > per_row:  # a window of letters around the selected one
        first = min(max(0, m.selected - per_row // 2), len(letters) - per_row)
        letters = letters[first : first + per_row]
    y = lay.rows[0]
    for i, letter in enumerate(letters, first):
        x = lay.left + (i - first) * pitch
        c.tile(x, y, letter, fill=1 if i == m.selected else 0)
    c.lines(lay.rows[1:], [text(k, lang) for k in ("blank.keys", "blank.hold", "blank.back")])


def _confirm(m: ConfirmScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    rows = lay.rows
    if m.kind in (ConfirmKind.PASS, ConfirmKind.EXCHANGE):  # the player's own question
        question = text(f"confirm.{m.kind.value}", lang)
        c.title(m.player or question, tiles(m.count, lang) if m.kind is ConfirmKind.EXCHANGE else "", cuttable=bool(m.player))
        _question(c, question)
        c.lines(rows[2:], [text("hold_done", lang), text("challenge_cancels", lang)])
        return
    # a request of the seat ``by`` that another seat confirms
    c.title(_named("confirm.by", lang, m.by, lay.right - lay.left, c.body) if m.by else text("menu.title", lang))
    fields: dict[str, object] = {}
    if m.kind is ConfirmKind.ADJUST:
        fields = {"points": _signed(m.points)}
    question = _named(f"confirm.{m.kind.value}", lang, m.player, lay.right - lay.left, c.big, **fields)
    if c.big.text_width(question) > lay.right - lay.left:  # too long for the big face
        question = _named(f"confirm.{m.kind.value}", lang, m.player, lay.right - lay.left, c.body, **fields)
    _question(c, question)
    c.lines(rows[2:], [text("confirm.other", lang), text("confirm.withdraw", lang)])


def _question(c: Canvas, question: str) -> None:
    """A question in the big face on the two lines under the title (the body face if too long)."""
    rows = c.lay.rows
    room = rows[2] - rows[0]
    face = c.big if c.big.text_width(question) <= c.lay.right - c.lay.left else c.body
    c.put(question, rows[0] + (room - face.height) // 2, face=face, align="center")


def _unseen(m: UnseenScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    entries = [(letter, n) for letter, n in m.counts if n > 0]
    c.title(text("unseen.title", lang, n=sum(n for _, n in entries)))
    rows = iter(lay.rows)
    y = next(rows)
    x = lay.left
    cw = c.body.width
    for i, (letter, n) in enumerate(entries):  # tiles flowing like words: a lit box with the letter, then the count
        count = str(n)
        w = cw + 2 + c.body.text_width(count)  # (the last column of the count is the glyph's spacing)
        if x + w > lay.right:
            nxt = next(rows, None)
            if nxt is None:
                c.dropped.extend(f"{letter} {n}" for letter, n in entries[i:])
                break
            x, y = lay.left, nxt
        x += c.tile(x, y, letter) + 1
        c.put(count, y, x, kind="number")
        x += c.body.text_width(count) + 1


def _tally(m: TallyScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    frame = lay.right - lay.left
    legend = text("tally.legend", lang)
    title = text("tally.title", lang)
    rows = m.rows[:4]
    longest = max((len(r.name) for r in rows), default=1)
    beside = c.body.text_width(f"{title}  {legend}") <= frame
    chosen = None
    for full, equals in ((True, True), (True, False), (False, False)):
        if not full or beside:
            top = lay.rows[0]
        elif len(rows) < len(lay.rows):  # the legend on a line of its own under the title
            top = lay.rows[1]
        else:  # the legend is the title
            top = lay.rows[0]
        big = _big_rows(c, len(rows) + 1, top) if m.winners else None  # with the winner line
        big = big or _big_rows(c, len(rows), top)
        faces = [(c.big, big)] if big else []
        for face, lines in [*faces, (c.body, tuple(y for y in lay.rows if y >= top))]:
            if _tally_name_columns(c, face, rows, full, equals) >= min(longest, 4):
                chosen = (full, equals, face, lines)
                break
        if chosen:
            break
    full, equals, face, lines = chosen or (False, False, c.body, lay.rows)
    if not full:
        c.title(title)
    elif beside:
        c.title(title, legend)
    elif len(rows) < len(lay.rows):
        c.title(title)
        c.put(legend, lay.rows[0], align="right")
    else:
        c.title(legend)
    cw = face.width
    score_w = max((len(str(r.score)) for r in rows), default=1) * cw
    rack_w = max((len(_rack(r.rack_adjustment)) for r in rows), default=1) * cw
    for y, (i, row) in zip(lines, enumerate(rows)):
        fill = 1
        if i in m.winners:
            c.bar(y, face.height)
            fill = 0
            c.arrow(lay.left, y + (face.height - lay.line) // 2 + 1, lay.line - 2, fill=0)
        right = c.number(str(row.final), y, lay.right, face=face, fill=fill) - cw
        if full:
            if equals:
                c.put("=", y, right - cw, right, face=face, fill=fill)
                right -= 2 * cw
            c.number(_rack(row.rack_adjustment), y, right, face=face, fill=fill)
            right -= rack_w + cw
            c.number(str(row.score), y, right, face=face, fill=fill)
            right -= score_w + cw
        c.put(row.name, y, lay.left + c.body.width, right, face=face, fill=fill, cuttable=True)
    c.dropped.extend(r.name for r in rows[len(lines) :])
    if len(rows) < len(lines) and m.winners:
        names = ", ".join(m.rows[i].name for i in m.winners if i < len(m.rows))
        key = "tally.tie" if len(m.winners) > 1 else "tally.winner"
        c.put(_fill(key, lang, frame, face, "names", names=names), lines[len(rows)], face=face)


def _rack(points: int) -> str:
    """A rack adjustment: signed, but nothing to add as ``0``."""
    return _signed(points) if points else "0"


def _tally_name_columns(c: Canvas, face: BitmapFont, rows: Sequence[TallyLine], full: bool, equals: bool) -> int:
    """Columns of ``face`` left for the names of ``rows`` beside their numbers (the final total;
    with ``full`` also the game score and the rack, with ``equals`` an ``=`` before the total)."""
    numbers = max((len(str(r.final)) for r in rows), default=1)
    if full:
        numbers += max((len(str(r.score)) for r in rows), default=1) + 1
        numbers += max((len(_rack(r.rack_adjustment)) for r in rows), default=1) + 1
        numbers += 2 if equals else 0
    room = c.lay.right - c.lay.left - c.body.width - (numbers + 1) * face.width
    return room // face.width


def _enroll(m: EnrollScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    rows = lay.rows
    c.title(text("enroll.title", lang))
    issue = text(f"enroll.issue.{m.issue.name.lower()}", lang) if m.issue else ""
    if m.step is EnrollStep.DONE:
        c.wrapped(rows[1:3], text("enroll.done", lang))
        return
    if m.step is EnrollStep.CLEAR:
        c.put(text("enroll.clear", lang), rows[0], align="center")
        c.put(text("enroll.left", lang, n=m.placed), rows[1], align="center")
    else:
        letter = text("enroll.blank", lang) if m.letter == "?" else m.letter
        c.put(f"{letter} {m.placed}/{m.expected}", rows[0] + (rows[2] - rows[0] - c.big.height) // 2, face=c.big,
              align="center")
        if not issue:
            done = m.placed == m.expected
            c.wrapped(rows[2:], text("enroll.ready" if done else "enroll.place", lang))
            return
    if issue:
        c.put(issue, rows[2])
        c.put(m.detail, rows[3])


def _reading(m: ReadingScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    rows = lay.rows
    who = _named("reading.who", lang, m.player, lay.right - lay.left, c.body) if m.player else ""
    c.title(who or text("reading.title", lang))
    c.put(text("reading.title", lang), rows[0] + (rows[2] - rows[0] - c.big.height) // 2, face=c.big,
          align="center")
    c.put(text("reading.hint", lang), rows[-1], align="center")


def _paused(m: PausedScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    rows = lay.rows
    c.title(text("paused.title", lang))
    if m.player:
        c.put(_named("paused.turn", lang, m.player, lay.right - lay.left, c.body), rows[0], align="center")
    c.put(text("paused.clocks", lang), rows[1], align="center")
    c.put(text("paused.resume", lang), rows[-1], align="center")


def _draw_for_first(m: DrawForFirstScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    cw = c.body.width
    first = m.first if m.first is not None and 0 <= m.first < len(m.names) else None
    if first is not None:
        c.title(_named("draw.first", lang, m.names[first], lay.right - lay.left, c.body))
        marked: tuple[int, ...] = (first,)
    else:
        c.title(text("draw.title", lang))
        marked = m.redraw
    half = (lay.right - lay.left + cw) // 2
    for i, name in enumerate(m.names[:4]):  # two seats a line
        x0, y = lay.left + (i % 2) * half, lay.rows[i // 2]
        x1 = x0 + half - cw
        fill = 1
        if i in marked:
            c.bar(y, lay.line, x0 - 1, x1 + 1)
            fill = 0
        letter = m.letters[i] if i < len(m.letters) else ""
        box = x1 - cw - 1
        if letter:  # a tile: a lit box with a dark letter (the other way round when marked)
            c.tile(box, y, letter, fill=fill)
        else:  # not drawn yet: an empty box
            c.shape((box, y, x1, y + lay.line - 1), outline=True, fill=fill)
        c.put(name, y, x0, box - cw // 2, fill=fill, cuttable=True)
    if first is not None:
        message = text("draw.back", lang)
    elif m.redraw:  # the tied seats are the marked ones
        message = text("draw.tie", lang)
    else:
        message = text("draw.place", lang)
    c.wrapped(lay.rows[2:], message)


def _adjust(m: AdjustScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    rows = lay.rows
    c.title(m.player, text("adjust.next", lang), cuttable=True)
    c.put(f"{m.score} {_signed(m.points)} = {m.score + m.points}", rows[0], align="center", kind="number")
    c.lines(rows[1:], [text(k, lang) for k in ("adjust.keys", "adjust.hold", "adjust.done")])


def _menu(m: MenuScreen, lang: Lang, c: Canvas) -> None:
    lay = c.lay
    cw = c.body.width
    frame = lay.right - lay.left
    c.title(text("menu.title", lang), text("menu.select", lang))
    hints = [text("menu.next", lang), text("menu.close", lang)]
    if c.body.text_width("  ".join(hints)) <= frame:  # both on the last line
        c.put(hints[0], lay.rows[-1])
        c.put(hints[1], lay.rows[-1], align="right")
        visible = list(lay.rows[:-1])
    else:
        c.lines(lay.rows[-2:], hints)
        visible = list(lay.rows[:-2])
    labels = [text(f"menu.{item.value}", lang) for item in m.items]
    value = m.value
    two = bool(value) and 0 <= m.selected < len(labels) and (
        c.body.text_width(f"{labels[m.selected]}  {value}") > frame - cw
    )  # the setting on a line of its own under the selected item
    slots = len(visible) - (1 if two else 0)
    first = min(max(0, m.selected - slots + 1), max(0, len(labels) - slots))
    for i, label in enumerate(labels[first : first + slots], first):
        y = visible.pop(0)
        if i != m.selected:
            c.put(label, y, lay.left + cw)
            continue
        c.bar(y, lay.line * (2 if two else 1))
        c.arrow(lay.left, y + 1, lay.line - 2, fill=0)
        right = lay.right
        if value and two:
            c.put(value, y + lay.line, lay.left + cw, align="right", fill=0, cuttable=True)
            visible.pop(0)
        elif value:  # the setting at the right
            right -= c.put(value, y, lay.right - c.body.text_width(value), fill=0) + cw
        c.put(label, y, lay.left + cw, right, fill=0)


_RENDERERS: dict[type[Any], Callable[[Any, Lang, Canvas], None]] = {
    ScoresScreen: _scores,
    LastPlayScreen: _last_play,
    ChallengeWindowScreen: _challenge_window,
    ChallengeResultScreen: _challenge_result,
    ErrorScreen: _error,
    BlankPickerScreen: _blank_picker,
    ConfirmScreen: _confirm,
    UnseenScreen: _unseen,
    TallyScreen: _tally,
    EnrollScreen: _enroll,
    MenuScreen: _menu,
    ReadingScreen: _reading,
    PausedScreen: _paused,
    DrawForFirstScreen: _draw_for_first,
    AdjustScreen: _adjust,
    StartingScreen: _starting,
}


@dataclass(frozen=True)
class Rendering:
    """A screen as drawn: the ``image``, every box drawn into (``marks``), the lit bars the
    text sits on (``bars``, boxes right and bottom exclusive) and the text that found no
    room (``dropped``)."""

    image: Image.Image
    marks: tuple[Mark, ...]
    bars: tuple[tuple[int, int, int, int], ...]
    dropped: tuple[str, ...]


def rendering(model: Screen, lang: Lang, panel: Panel = DEFAULT_PANEL) -> Rendering:
    """The screen for ``model`` in ``lang`` on ``panel``, with what was drawn where."""
    try:
        draw = _RENDERERS[type(model)]
    except KeyError:
        raise TypeError(f"no screen for {type(model).__name__}") from None
    canvas = Canvas(layout(panel))
    draw(model, lang, canvas)
    return Rendering(canvas.image, tuple(canvas.marks), tuple(canvas.bars), tuple(canvas.dropped))


def render_marks(model: Screen, lang: Lang, panel: Panel = DEFAULT_PANEL) -> tuple[Image.Image, tuple[Mark, ...]]:
    """The screen for ``model`` in ``lang`` on ``panel``, and the boxes drawn into."""
    r = rendering(model, lang, panel)
    return r.image, r.marks


def render(model: Screen, lang: Lang, panel: Panel = DEFAULT_PANEL) -> Image.Image:
    """The screen for ``model`` in ``lang``: a new image of ``panel``'s size, mode ``"1"``."""
    return rendering(model, lang, panel).image
