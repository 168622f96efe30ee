"""Screens as pure functions: a screen model and a UI language in, a 128x64 1-bit image out.

The body font is Spleen 6x12 (21 columns, 5 lines), big text Spleen 8x16. Text that does
not fit is cut with ``…``; nothing is drawn off the image. Highlights (whose turn, the
selected entry, blank letters, winners) are drawn inverted, which reads best on an OLED.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from .font import BitmapFont, font
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
    ReadingScreen,
    ScoresScreen,
    Screen,
    TallyScreen,
    UnseenScreen,
)
from .text import text, tiles

__all__ = ["HEIGHT", "WIDTH", "format_clock", "render"]

WIDTH = 128
HEIGHT = 64
LINE = 12  # pitch of the body font
ROWS = (14, 26, 38, 50)  # body lines under a title


class _Canvas:
    """A blank 1-bit image with the text helpers the screens use."""

    def __init__(self) -> None:
        self.image = Image.new("1", (WIDTH, HEIGHT), 0)
        self.draw = ImageDraw.Draw(self.image)
        self.body = font("6x12")
        self.big = font("8x16")

    def text(
        self,
        y: int,
        value: str,
        *,
        x: int = 0,
        right: int | None = None,
        center: bool = False,
        big: bool = False,
        fill: int = 1,
        width: int | None = None,
    ) -> None:
        """One line of text at ``y``: from ``x``, ending at ``right`` or centred; cut to fit."""
        f: BitmapFont = self.big if big else self.body
        room = width if width is not None else (right if right is not None else WIDTH) - x
        value = f.fit(value, room)
        if center:
            x = (WIDTH - f.text_width(value)) // 2
        elif right is not None:
            x = right - f.text_width(value)
        f.draw(self.image, (x, y), value, fill)

    def bar(self, y: int, height: int = LINE) -> None:
        """A full-width inverted band (the text on it is drawn with ``fill=0``)."""
        self.draw.rectangle((0, y, WIDTH - 1, y + height - 1), fill=1)

    def title(self, value: str, inverted: bool = False) -> None:
        """The first line: a title, underlined or inverted."""
        if inverted:
            self.bar(0)
            self.text(0, value, x=1, fill=0)
        else:
            self.text(0, value)
            self.draw.line((0, LINE, WIDTH - 1, LINE), fill=1)

    def wrapped(self, y: int, value: str, lines: int) -> int:
        """``value`` word-wrapped on up to ``lines`` lines from ``y``; returns the next y."""
        columns = WIDTH // self.body.width
        parts = textwrap.wrap(value, columns) or [""]
        if len(parts) > lines:
            parts = parts[:lines]
            parts[-1] = self.body.fit(parts[-1] + " " * columns, columns * self.body.width)
        for part in parts:
            self.text(y, part)
            y += LINE
        return y


def format_clock(seconds: int) -> str:
    """Clock time ``m:ss``; negative (overtime) as ``-m:ss``."""
    sign = "-" if seconds < 0 else ""
    minutes, secs = divmod(abs(seconds), 60)
    return f"{sign}{minutes}:{secs:02d}"


def _signed(points: int) -> str:
    return f"{points:+d}"


def _named(key: str, lang: Lang, name: str, room: int, f: BitmapFont, **fields: object) -> str:
    """The text of ``key`` with ``name`` cut so that the whole fits in ``room`` pixels."""
    rest = f.text_width(text(key, lang, name="", **fields))
    return text(key, lang, name=f.fit(name, room - rest), **fields)


# --- the screens ---------------------------------------------------------------------------


def _scores(m: ScoresScreen, lang: Lang, c: _Canvas) -> None:
    cw = c.body.width
    clocks = any(p.clock_s is not None for p in m.players)
    score_right = WIDTH - 1
    clock_right = score_right - 5 * cw
    name_room = (clock_right - 6 * cw if clocks else score_right - 5 * cw) - 1
    for i, p in enumerate(m.players[:4]):
        y = i * LINE
        fill = 1
        if p.is_turn:
            c.bar(y)
            fill = 0
        c.text(y, p.name, x=1, width=name_room, fill=fill)
        if p.clock_s is not None:
            c.text(y, format_clock(p.clock_s), right=clock_right, fill=fill)
        c.text(y, str(p.score), right=score_right, fill=fill)
    c.draw.line((0, 50, WIDTH - 1, 50), fill=1)
    bag = text("scores.bag", lang, n=m.bag) if m.bag else text("scores.bag_empty", lang)
    if m.yours:  # the player's own panel: "your turn" inverted in the corner, the bag beside it
        turn = text("scores.your_turn", lang)
        left = WIDTH - c.body.text_width(turn) - 3
        c.draw.rectangle((left, 51, WIDTH - 1, HEIGHT - 1), fill=1)
        c.text(52, turn, right=WIDTH - 2, fill=0)
        c.text(52, bag, x=1, width=left - 2)
    else:
        c.text(52, bag, x=1)


def _word(c: _Canvas, y: int, word: str, room: int) -> None:
    """A played word in capitals, blanks (lower case) inverted."""
    shown = c.body.fit(word, room)
    x = 1
    for ch in shown:
        blank = ch.islower() and ch != "ß"  # ß has no capital tile: never a blank
        glyph = ch if ch == "ß" else ch.upper()
        if blank:
            c.draw.rectangle((x - 1, y, x + c.body.width - 1, y + LINE - 1), fill=1)
        c.body.draw(c.image, (x, y), glyph, 0 if blank else 1)
        x += c.body.width


def _last_play(m: LastPlayScreen, lang: Lang, c: _Canvas) -> None:
    c.text(0, m.player, width=WIDTH - 6 * c.body.width)
    c.text(0, _signed(m.total), right=WIDTH - 1)
    c.draw.line((0, LINE, WIDTH - 1, LINE), fill=1)
    rows = 3 if m.bingo else 4
    words = m.words if len(m.words) <= rows else m.words[: rows - 1]
    for y, w in zip(ROWS, words):
        _word(c, y, w.text, WIDTH - 6 * c.body.width)
        c.text(y, str(w.score), right=WIDTH - 1)
    if len(words) < len(m.words):
        c.text(ROWS[len(words)], text("last.more", lang, n=len(m.words) - len(words)), x=1)
    if m.bingo:
        c.text(ROWS[-1], text("last.bingo", lang, n=m.bingo_bonus), x=1)


def _challenge_window(m: ChallengeWindowScreen, lang: Lang, c: _Canvas) -> None:
    title = text("window.title", lang)
    c.title(title)
    if m.player:
        room = WIDTH - c.body.text_width(title) - c.body.width
        c.text(0, m.player, right=WIDTH - 1, width=min(room, WIDTH // 2))
    c.text(16, f"!? {max(0, m.seconds_left)} s", center=True, big=True)
    c.draw.rectangle((4, 36, WIDTH - 5, 43), outline=1)
    total = max(1, m.total_s)
    filled = math.ceil((WIDTH - 12) * min(max(m.seconds_left, 0), total) / total)
    if filled:
        c.draw.rectangle((6, 38, 6 + filled - 1, 41), fill=1)
    c.text(50, text("window.hint", lang), center=True)


def _challenge_result(m: ChallengeResultScreen, lang: Lang, c: _Canvas) -> None:
    c.title(text("result.title", lang), inverted=True)
    lines = [
        text("result.valid", lang)
        if m.valid
        else text("result.invalid", lang, words=", ".join(m.invalid_words) or "?"),
        text("result.right", lang, name=m.player if m.valid else m.challenger),
    ]
    if m.lost_turn:
        lines.append(text("result.lost_turn", lang, name=m.challenger))
    if m.points < 0:
        lines.append(text("result.points", lang, name=m.challenger, points=_signed(m.points)))
    elif m.points > 0:
        lines.append(text("result.points", lang, name=m.player, points=_signed(m.points)))
    if not m.valid:
        lines.append(text("result.withdraw", lang, name=m.player))
    elif not m.lost_turn and not m.points and not m.lost_game:
        lines.append(text("result.no_penalty", lang))
    if m.lost_game:
        lines.append(text("result.lost_game", lang, name=m.lost_game))
    for y, line in zip(ROWS, lines):
        c.text(y, line, x=1)


def _error(m: ErrorScreen, lang: Lang, c: _Canvas) -> None:
    key = f"error.{m.kind.value}"
    c.title(text(f"{key}.title", lang), inverted=True)
    if m.kind in (ErrorKind.BAD_PLAY, ErrorKind.BOARD_REFUSED) and m.detail:  # a reason: as long as it is
        y = c.wrapped(ROWS[0], text(f"{key}.body", lang), 2 if m.kind is ErrorKind.BAD_PLAY else 1)
        c.wrapped(y, m.detail, (HEIGHT - y) // LINE)
        return
    body_lines = 3 if m.detail else 4
    c.wrapped(ROWS[0], text(f"{key}.body", lang), body_lines)
    if m.detail:
        c.text(ROWS[-1], m.detail, x=1)


def _blank_picker(m: BlankPickerScreen, lang: Lang, c: _Canvas) -> None:
    c.title(text("blank.title", lang, square=m.square))
    pitch, per_row = 9, 14
    for i, letter in enumerate(m.letters[: per_row * 3]):
        x = 2 + (i % per_row) * pitch
        y = ROWS[i // per_row]
        fill = 1
        if i == m.selected:
            c.draw.rectangle((x - 2, y, x + c.body.width, y + LINE - 1), fill=1)
            fill = 0
        c.body.draw(c.image, (x, y), letter, fill)
    c.text(ROWS[-1] + 2, text("hold_done", lang), center=True)


def _confirm(m: ConfirmScreen, lang: Lang, c: _Canvas) -> None:
    if m.kind in (ConfirmKind.PASS, ConfirmKind.EXCHANGE):  # the player's own question
        if m.player:
            c.text(0, m.player, center=True)
        c.text(14, text(f"confirm.{m.kind.value}", lang), center=True, big=True)
        if m.kind is ConfirmKind.EXCHANGE:
            c.text(32, tiles(m.count, lang), center=True)
        c.text(50, text("hold_done", lang), center=True)
        return
    # a request of the seat ``by`` that another seat confirms
    if m.by:
        c.text(0, _named("confirm.by", lang, m.by, WIDTH, c.body), center=True)
    key = f"confirm.{m.kind.value}"
    fields: dict[str, object] = {}
    if m.kind is ConfirmKind.ADJUST:
        fields = {"points": _signed(m.points)}
    question = _named(key, lang, m.player, WIDTH, c.big, **fields)
    if c.big.text_width(question) <= WIDTH:
        c.text(14, question, center=True, big=True)
    else:  # too long for the big font
        question = _named(key, lang, m.player, WIDTH, c.body, **fields)
        c.text(16, question, center=True)
    c.text(32, text("confirm.other", lang), center=True)
    c.text(50, text("hold_done", lang), center=True)


def _unseen(m: UnseenScreen, lang: Lang, c: _Canvas) -> None:
    entries = [(letter, n) for letter, n in m.counts if n > 0]
    per_row, pitch = 6, 21
    rows: tuple[int, ...] = (0, *ROWS)
    if len(entries) <= per_row * 4:
        c.title(text("unseen.title", lang, n=sum(n for _, n in entries)))
        rows = ROWS
    for i, (letter, n) in enumerate(entries[: per_row * len(rows)]):
        x = 1 + (i % per_row) * pitch
        y = rows[i // per_row]
        c.draw.rectangle((x, y, x + c.body.width, y + LINE - 2), fill=1)
        c.body.draw(c.image, (x + 1, y), letter, 0)
        c.text(y, str(n), x=x + 8, width=2 * c.body.width)


def _tally(m: TallyScreen, lang: Lang, c: _Canvas) -> None:
    cw = c.body.width
    score_r, rack_r, final_r = 12 * cw, 17 * cw, WIDTH - 1
    header = [(text("tally.score", lang), score_r), (text("tally.rack", lang), rack_r)]
    header.append((text("tally.final", lang), final_r))
    for label, right in header:
        c.text(0, label, right=right, width=4 * cw + 3)
    c.draw.line((0, LINE, WIDTH - 1, LINE), fill=1)
    for i, row in enumerate(m.rows[:4]):
        y = ROWS[i]
        fill = 1
        if i in m.winners:
            c.bar(y)
            fill = 0
        c.text(y, row.name, x=1, width=score_r - 4 * cw - 2, fill=fill)
        c.text(y, str(row.score), right=score_r, fill=fill)
        c.text(y, _signed(row.rack_adjustment), right=rack_r, fill=fill)
        c.text(y, str(row.final), right=final_r, fill=fill)
    if len(m.rows) < 4 and m.winners:
        names = ", ".join(m.rows[i].name for i in m.winners if i < len(m.rows))
        key = "tally.tie" if len(m.winners) > 1 else "tally.winner"
        c.text(ROWS[len(m.rows)] + 1, text(key, lang, names=names), x=1)


def _enroll(m: EnrollScreen, lang: Lang, c: _Canvas) -> None:
    c.title(text("enroll.title", lang), inverted=True)
    issue = text(f"enroll.issue.{m.issue.name.lower()}", lang) if m.issue else ""
    if m.step is EnrollStep.DONE:
        c.wrapped(26, text("enroll.done", lang), 2)
        return
    if m.step is EnrollStep.CLEAR:
        c.text(16, text("enroll.clear", lang), center=True)
        c.text(28, text("enroll.left", lang, n=m.placed), center=True)
    else:
        letter = text("enroll.blank", lang) if m.letter == "?" else m.letter
        c.text(15, f"{letter} {m.placed}/{m.expected}", center=True, big=True)
        if not issue:
            done = m.placed == m.expected
            c.wrapped(ROWS[2], text("enroll.ready" if done else "enroll.place", lang), 2)
            return
    if issue:
        c.text(ROWS[2], issue, x=1)
        c.text(ROWS[3], m.detail, x=1)


def _reading(m: ReadingScreen, lang: Lang, c: _Canvas) -> None:
    if m.player:
        c.text(0, m.player, center=True)
    c.text(18, text("reading.title", lang), center=True, big=True)
    c.text(44, text("reading.hint", lang), center=True)


def _paused(m: PausedScreen, lang: Lang, c: _Canvas) -> None:
    if m.player:
        c.text(0, _named("paused.turn", lang, m.player, WIDTH, c.body), center=True)
    c.text(14, text("paused.title", lang), center=True, big=True)
    c.text(32, text("paused.clocks", lang), center=True)
    c.text(50, text("paused.resume", lang), center=True)


def _draw_for_first(m: DrawForFirstScreen, lang: Lang, c: _Canvas) -> None:
    cw = c.body.width
    first = m.first if m.first is not None and 0 <= m.first < len(m.names) else None
    if first is not None:
        c.title(_named("draw.first", lang, m.names[first], WIDTH - 2, c.body), inverted=True)
        marked: tuple[int, ...] = (first,)
    else:
        c.title(text("draw.title", lang))
        marked = m.redraw
    half = WIDTH // 2
    for i, name in enumerate(m.names[:4]):  # two seats a line
        x, y = (i % 2) * half, ROWS[i // 2]
        right = x + half - 4  # the letter's box (as on the unseen screen) ends here
        box = right - cw
        fill = 1
        if i in marked:
            c.draw.rectangle((x, y, x + half - 2, y + LINE - 1), fill=1)
            fill = 0
        c.text(y, name, x=x + 1, width=box - x - 3, fill=fill)
        letter = m.letters[i] if i < len(m.letters) else ""
        if letter:  # a tile: a lit box with a dark letter (the other way round when marked)
            c.draw.rectangle((box, y, right, y + LINE - 2), fill=fill)
            c.body.draw(c.image, (box + 1, y), letter[:1], 1 - fill)
        else:  # not drawn yet: an empty box
            c.draw.rectangle((box, y, right, y + LINE - 2), outline=fill)
    if first is not None:
        message = text("draw.back", lang)
    elif m.redraw:  # the tied seats are the marked ones
        message = text("draw.tie", lang)
    else:
        message = text("draw.place", lang)
    c.wrapped(ROWS[2], message, 2)


def _adjust(m: AdjustScreen, lang: Lang, c: _Canvas) -> None:
    score = str(m.score)
    c.text(0, m.player, width=WIDTH - c.body.text_width(score) - c.body.width)
    c.text(0, score, right=WIDTH - 1)
    c.draw.line((0, LINE, WIDTH - 1, LINE), fill=1)
    c.text(16, f"{_signed(m.points)} = {m.score + m.points}", center=True, big=True)
    c.text(ROWS[2], text("adjust.menu", lang), x=1)
    c.text(ROWS[3], text("adjust.buttons", lang), x=1)


def _menu(m: MenuScreen, lang: Lang, c: _Canvas) -> None:
    count = len(m.items)
    c.title(text("menu.title", lang))
    if count:
        c.text(0, f"{m.selected + 1}/{count}", right=WIDTH - 1)
    visible = len(ROWS)
    first = min(max(0, m.selected - visible + 1), max(0, count - visible))
    for y, (i, item) in zip(ROWS, enumerate(m.items[first:], first)):
        fill = 1
        if i == m.selected:
            c.bar(y)
            fill = 0
        label = text(f"menu.{item.value}", lang)
        if i == m.selected and m.value:  # the setting at the right, the label cut to fit
            value = c.body.fit(m.value, WIDTH - 2 - 6 * c.body.width)
            c.text(y, value, right=WIDTH - 1, fill=fill)
            room = WIDTH - 1 - c.body.text_width(value) - c.body.width - 1
            c.text(y, label, x=1, width=room, fill=fill)
        else:
            c.text(y, label, x=1, fill=fill)


_RENDERERS: dict[type[Any], Callable[[Any, Lang, _Canvas], None]] = {
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
}


def render(model: Screen, lang: Lang) -> Image.Image:
    """The screen for ``model`` in ``lang``: a new 128x64 image, mode ``"1"``."""
    try:
        draw = _RENDERERS[type(model)]
    except KeyError:
        raise TypeError(f"no screen for {type(model).__name__}") from None
    canvas = _Canvas()
    draw(model, lang, canvas)
    return canvas.image
