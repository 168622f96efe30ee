"""Golden-image tests of every screen on every known panel in every UI language, the boxes
the renderer draws into (inside the margin, never overlapping), and the screen text table.

Regenerate the PNGs under tests/golden/PANEL/ (then look at them: every run writes one
contact sheet per panel and language to tests/output/contact-sheets/) with::

    SCOREBOARD_REGENERATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_screens.py
"""

from __future__ import annotations

import os
import string
from collections.abc import Iterable
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw

from drivers.display.panels import PANELS, RECOMMENDED, Panel, legible_mm
from scoreboard.drawing.canvas import HEADLINE_FACES, Mark, cap_height, layout
from scoreboard.drawing.font import ELLIPSIS, NAME_LETTERS, TILE_LETTERS, font
from scoreboard.screens import (
    LANGUAGES,
    TEXT,
    AdjustScreen,
    BlankPickerScreen,
    ChallengeResultScreen,
    ChallengeWindowScreen,
    ConfirmKind,
    ConfirmScreen,
    DrawForFirstScreen,
    EnrollIssue,
    EnrollScreen,
    EnrollStep,
    ErrorKind,
    ErrorScreen,
    LastPlayScreen,
    MenuItem,
    MenuScreen,
    PausedScreen,
    PlayerLine,
    ReadingScreen,
    ScoresScreen,
    Screen,
    StartingScreen,
    TallyLine,
    TallyScreen,
    UnseenScreen,
    WordLine,
    format_clock,
    render,
)
from scoreboard.screens.render import Rendering, render_marks, rendering
from scoreboard.screens.text import HINTS

GOLDEN = Path(__file__).parent / "golden"
SHEETS = Path(__file__).parent / "output" / "contact-sheets"
REGENERATE = os.environ.get("SCOREBOARD_REGENERATE_GOLDEN") == "1"

GERMAN = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ"

SCREENS: dict[str, Screen] = {
    "scores-4p": ScoresScreen(
        (
            PlayerLine("Anna", 312, is_turn=False),
            PlayerLine("Bernadette-Marie", 287, is_turn=True),
            PlayerLine("Cléo", 95),
            PlayerLine("Jürgen", 1024),
        ),
        bag=42,
    ),
    "scores-your-turn": ScoresScreen(
        (PlayerLine("Anna", 120), PlayerLine("Ben", 98, is_turn=True)), bag=42, yours=True
    ),
    "scores-your-turn-bag-empty": ScoresScreen(
        (PlayerLine("Anna", 120, clock_s=301, is_turn=True), PlayerLine("Ben", 98, clock_s=-5)), bag=0, yours=True
    ),
    "scores-clock": ScoresScreen(
        (
            PlayerLine("Maximilian", 401, clock_s=754, is_turn=True),
            PlayerLine("Zoë", 388, clock_s=-65),
        ),
        bag=0,
    ),
    "last-play": LastPlayScreen(
        "Jürgen",
        (WordLine("GRÜSSEn", 24), WordLine("ÖL", 4), WordLine("nÄ", 9)),
        total=87,
        bingo=True,
    ),
    "last-play-many": LastPlayScreen(
        "Anna",
        (
            WordLine("QUARTZES", 64),
            WordLine("AT", 2),
            WordLine("ZA", 11),
            WordLine("EX", 9),
            WordLine("SH", 5),
        ),
        total=91,
    ),
    "challenge-window": ChallengeWindowScreen(seconds_left=13, total_s=20, player="Anna"),
    "challenge-window-long-name": ChallengeWindowScreen(5, 20, "Bernadette-Marie"),
    "challenge-valid": ChallengeResultScreen("Ben", "Anna", valid=True, points=-10),
    "challenge-invalid": ChallengeResultScreen(
        "Ben", "Anna", valid=False, invalid_words=("QIZ", "XU")
    ),
    "challenge-lost-turn": ChallengeResultScreen("Ben", "Anna", valid=True, lost_turn=True),
    "challenge-single": ChallengeResultScreen("Ben", "Anna", valid=True),
    "challenge-ten": ChallengeResultScreen("Ben", "Anna", valid=True, points=10),
    "challenge-triple-valid": ChallengeResultScreen("Ben", "Anna", valid=True, lost_game="Ben"),
    "challenge-triple-invalid": ChallengeResultScreen(
        "Ben", "Anna", valid=False, invalid_words=("QIZ",), lost_game="Anna"
    ),
    **{
        f"error-{kind.value}": ErrorScreen(kind, detail)
        for kind, detail in (
            (ErrorKind.NOT_IN_LINE, "H8 I9"),
            (ErrorKind.GAP, "H8 _ H10"),
            (ErrorKind.NOT_TOUCHING, ""),
            (ErrorKind.NOT_CENTER, ""),
            (ErrorKind.TILE_MOVED, "E: H8 -> H9"),
            (ErrorKind.UNKNOWN_TILE, "C4 04A224B2C35E80"),
            (ErrorKind.BOARD_DISCONNECTED, ""),
            (ErrorKind.BOARD_REFUSED, "board protocol 2.0, scoreboard 1.x: update one"),
            (ErrorKind.READ_TIMEOUT, ""),
            (ErrorKind.REMOVE_TILES, "H8 H9 H10 H11"),
            (ErrorKind.PUT_BACK_TILES, "E, N, ?"),
            (ErrorKind.NOT_YOUR_TILE, "H8 H9"),
            (ErrorKind.NOT_YOUR_TURN, "Bernadette-Marie"),
            (ErrorKind.REFILL_RACK, "Anna: 3"),
            (ErrorKind.TOO_LATE, ""),
            (ErrorKind.EXCHANGE_NOT_ALLOWED, "6"),
            (ErrorKind.DUPLICATE_TILE, "H8 H9"),
            (ErrorKind.MOVE_TIME_UP, "Anna"),
            (ErrorKind.JOURNAL_FAILED, "disk full"),
            (ErrorKind.JOURNAL_DAMAGED, "20261201T222015"),
            (ErrorKind.JOURNAL_UNREADABLE, "scoreboard.service"),
            (ErrorKind.BAD_PLAY, "a blank on the board was replaced by another tile on the rack"),
            (ErrorKind.READER_FAULT, "H11-O11"),
            (ErrorKind.OPENING_TOO_SHORT, "H8"),
            (ErrorKind.NOTHING_TO_UNDO, ""),
            (ErrorKind.MOVED_SINCE, ""),
            (ErrorKind.ALREADY_WITHDRAWN, ""),
            (ErrorKind.NOT_A_WORD, "QIZ, XU"),
            (ErrorKind.NO_CHALLENGE, ""),
        )
    },
    "error-bad-play-short": ErrorScreen(ErrorKind.BAD_PLAY, "no tiles placed"),
    "error-board-refused-geometry": ErrorScreen(ErrorKind.BOARD_REFUSED, "4 racks of 9 slots, not 2 of 7"),
    "error-board-refused-cells": ErrorScreen(ErrorKind.BOARD_REFUSED, "it has 13 x 13 cells, not 15 x 15"),
    "blank-picker": BlankPickerScreen("H8", tuple(GERMAN), selected=27),
    "confirm-pass": ConfirmScreen(ConfirmKind.PASS, player="Anna"),
    "confirm-exchange": ConfirmScreen(ConfirmKind.EXCHANGE, count=3, player="Ben"),
    "confirm-undo": ConfirmScreen(ConfirmKind.UNDO, by="Anna"),
    "confirm-adjust": ConfirmScreen(ConfirmKind.ADJUST, player="Anna", points=12, by="Ben"),
    "confirm-adjust-long-name": ConfirmScreen(
        ConfirmKind.ADJUST, player="Bernadette-Marie", points=-110, by="Bernadette-Marie"
    ),
    "confirm-override": ConfirmScreen(ConfirmKind.OVERRIDE, by="Cléo"),
    "confirm-end-game": ConfirmScreen(ConfirmKind.END_GAME, by="Jürgen"),
    "confirm-new-game": ConfirmScreen(ConfirmKind.NEW_GAME, by="Anna"),
    "unseen": UnseenScreen(
        (("A", 3), ("B", 0), ("E", 7), ("N", 4), ("Ä", 1), ("Q", 1), ("R", 2), ("S", 5),
         ("T", 2), ("U", 1), ("X", 1), ("Y", 1), ("Z", 1), ("?", 2))
    ),
    "unseen-full": UnseenScreen(
        tuple(zip(GERMAN + "?", (5, 2, 2, 4, 15, 2, 3, 4, 6, 1, 2, 3, 4, 9, 3, 1, 1, 6, 7,
                                 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 2)))
    ),
    "tally-tie": TallyScreen(
        (
            TallyLine("Anna", 352, -4, 348),
            TallyLine("Ben", 340, 8, 348),
            TallyLine("Cléo", 301, -4, 297),
        ),
        winners=(0, 1),
    ),
    "tally-4p": TallyScreen(
        (
            TallyLine("Anna", 352, -4, 348),
            TallyLine("Bernadette", 340, 12, 352),
            TallyLine("Cléo", 301, -4, 297),
            TallyLine("Dietrich", 280, -4, 276),
        ),
        winners=(1,),
    ),
    "enroll-place": EnrollScreen(EnrollStep.PLACE, "Ä", placed=0, expected=1),
    "enroll-ready": EnrollScreen(EnrollStep.PLACE, "?", placed=2, expected=2),
    "enroll-issue": EnrollScreen(
        EnrollStep.PLACE, "E", placed=14, expected=15, issue=EnrollIssue.ENROLLED, detail="H8 = N"
    ),
    "enroll-clear": EnrollScreen(EnrollStep.CLEAR, "E", placed=3),
    "enroll-done": EnrollScreen(EnrollStep.DONE),
    "menu": MenuScreen(selected=5),
    "menu-players": MenuScreen(selected=1, value="3"),
    "menu-profile": MenuScreen(selected=2, value="en-tournament"),
    "reading": ReadingScreen("Jürgen"),
    "paused": PausedScreen("Anna"),
    "paused-no-player": PausedScreen(),
    "draw-first": DrawForFirstScreen(("Anna", "Ben", "Cléo"), ("E", "", "?")),
    "draw-first-tie": DrawForFirstScreen(
        ("Anna", "Bernadette-Marie", "Cléo", "Jürgen"), ("B", "A", "M", "A"), redraw=(1, 3)
    ),
    "draw-first-begins": DrawForFirstScreen(
        ("Anna", "Bernadette-Marie", "Cléo", "Jürgen"), ("B", "A", "M", "?"), first=3
    ),
    "adjust": AdjustScreen("Bernadette-Marie", points=-12, score=287),
    "starting": StartingScreen(),
}


STRESS: dict[str, Screen] = {
    "scores-4-long-names": ScoresScreen(
        (
            PlayerLine("Bernadette-Marie", -1024),
            PlayerLine("Maximilian-Œdipe", 9999, is_turn=True),
            PlayerLine("Françoise-Hélène", -5),
            PlayerLine("Jürgen-Ÿves", 1000),
        ),
        bag=100,
    ),
    "scores-4-clocks": ScoresScreen(
        tuple(
            PlayerLine(name, score, clock, turn)
            for name, score, clock, turn in (
                ("Bernadette-Marie", -1024, -3599, False),
                ("Maximilian-Œdipe", 9999, 5999, True),
                ("Françoise-Hélène", -999, -61, False),
                ("Jürgen-Ÿves", 1000, 0, False),
            )
        ),
        bag=0,
        yours=True,
    ),
    "last-play-long": LastPlayScreen(
        "Bernadette-Marie",
        (WordLine("OXYPHENBUTAZONE", 1778), WordLine("ÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉ", 9999), WordLine("qi", -10),
         WordLine("ŒUVRE", 99)),
        total=9999,
        bingo=True,
    ),
    "window-long": ChallengeWindowScreen(600, 600, "Bernadette-Marie"),
    "result-long": ChallengeResultScreen(  # the most lines a ruling has (the outcomes exclude each other)
        "Bernadette-Marie", "Françoise-Hélène", valid=False, invalid_words=("OXYPHENBUTAZONE", "ŒUVRES"),
        lost_game="Françoise-Hélène"
    ),
    "result-long-valid": ChallengeResultScreen("Bernadette-Marie", "Françoise-Hélène", valid=True, points=-1000),
    "confirm-adjust-long": ConfirmScreen(ConfirmKind.ADJUST, player="Bernadette-Marie", points=-9999,
                                         by="Françoise-Hélène"),
    "confirm-exchange-7": ConfirmScreen(ConfirmKind.EXCHANGE, count=7, player="Bernadette-Marie"),
    "tally-4-negative": TallyScreen(
        (
            TallyLine("Bernadette-Marie", 1024, -99, 925),
            TallyLine("Maximilian-Œdipe", -1024, -99, -1123),
            TallyLine("Françoise-Hélène", 9999, +99, 9999),
            TallyLine("Jürgen-Ÿves", 0, 0, 0),
        ),
        winners=(0, 2),
    ),
    "tally-2-negative": TallyScreen(
        (TallyLine("Bernadette-Marie", -1024, -99, -1123), TallyLine("Maximilian-Œdipe", 9999, 99, 9999)),
        winners=(1,),
    ),
    "adjust-long": AdjustScreen("Bernadette-Marie", points=-999, score=-9999),
    "draw-long": DrawForFirstScreen(("Bernadette-Marie", "Maximilian-Œdipe", "Françoise-Hélène", "Jürgen-Ÿves"),
                                    ("Ü", "", "?", "Ä"), redraw=(0, 3)),
    "unseen-french-full": UnseenScreen(tuple(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ?", (9, 2, 2, 3, 15, 2, 2, 2, 8, 1, 1, 5, 3,
                                                                                6, 6, 2, 1, 6, 6, 6, 6, 2, 1, 1, 1, 1, 2)))),
    "menu-long-value": MenuScreen(selected=2, value="en-tournament"),
    "paused-long": PausedScreen("Bernadette-Marie"),
    "reading-long": ReadingScreen("Bernadette-Marie"),
    "starting": StartingScreen(),
}
"""Long names (with Œ, Ÿ, accents), 4 players, 4-digit and negative numbers: within bounds, so
no number may be cut; a name may be, with an ellipsis."""


def golden_path(panel: Panel, name: str, lang: str) -> Path:
    return GOLDEN / panel.name / f"{name}-{lang}.png"


@pytest.mark.parametrize("panel", list(PANELS.values()), ids=list(PANELS))
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(SCREENS))
def test_golden(name: str, lang: str, panel: Panel) -> None:
    image = render(SCREENS[name], lang, panel)  # type: ignore[arg-type]
    assert image.mode == "1" and image.size == panel.size
    path = golden_path(panel, name, lang)
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, optimize=True)
    assert path.exists(), f"no golden image {panel.name}/{path.name}; regenerate (see tests/golden/README.md)"
    with Image.open(path) as golden:
        expected = golden.convert("1")
    diff = ImageChops.logical_xor(image, expected).getbbox()
    assert diff is None, f"{panel.name}/{path.name} differs from the rendering in {diff}"


def test_every_golden_has_a_screen() -> None:
    names = {f"{p}/{n}-{lang}.png" for p in PANELS for n in SCREENS for lang in LANGUAGES}
    assert {f"{p.parent.name}/{p.name}" for p in GOLDEN.glob("*/*.png")} == names
    assert not list(GOLDEN.glob("*.png"))


def test_every_kind_of_screen_is_covered() -> None:
    import typing

    from scoreboard.screens import models

    kinds = set(typing.get_args(models.Screen))
    assert kinds == {type(s) for s in SCREENS.values()}
    assert kinds == {type(s) for s in STRESS.values()} | {ErrorScreen, EnrollScreen, BlankPickerScreen}
    assert {s.kind for s in SCREENS.values() if isinstance(s, ErrorScreen)} == set(ErrorKind)
    assert {s.kind for s in SCREENS.values() if isinstance(s, ConfirmScreen)} == set(ConfirmKind)


# --- boxes: inside the margin, none on another ----------------------------------------------


def layout_problems(marks: tuple[Mark, ...], panel: Panel) -> list[str]:
    """What is wrong with the boxes drawn on ``panel``: outside the margin, or overlapping."""
    m = panel.margin
    problems = [
        f"{k.kind} {k.value!r} {k.box} outside the margin ({m} px)"
        for k in marks
        if k.box[0] < m or k.box[1] < m or k.box[2] > panel.width - m or k.box[3] > panel.height - m
    ]
    problems += [
        f"{a.kind} {a.value!r} {a.box} overlaps {b.kind} {b.value!r} {b.box}"
        for i, a in enumerate(marks)
        for b in marks[i + 1 :]
        if a.intersects(b)
    ]
    return problems


def _lit(image: Image.Image) -> Image.Image:
    """``image`` as 0 (dark) and 255 (lit): PIL draws fill 1 into a "1" image as 1."""
    return image.convert("L").point(lambda v: 255 if v else 0).convert("1")


def _area(size: tuple[int, int], boxes: Iterable[tuple[int, int, int, int]], *, inside: bool = True) -> Image.Image:
    """A mask of ``size``: lit inside ``boxes`` (right and bottom exclusive), or outside them."""
    mask = Image.new("1", size, 0 if inside else 255)
    draw = ImageDraw.Draw(mask)
    for x0, y0, x1, y1 in boxes:
        if x1 > x0 and y1 > y0:
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=255 if inside else 0)
    return mask


def ink_problems(r: Rendering, panel: Panel) -> list[str]:
    """Pixels that tell a glyph or a shape was drawn elsewhere than its recorded box: outside
    every box, or in the margin, a pixel that differs from the background (the bars lit,
    the rest dark)."""
    stray = ImageChops.logical_xor(_lit(r.image), _area(panel.size, r.bars))
    problems = []
    outside = ImageChops.logical_and(stray, _area(panel.size, [k.box for k in r.marks], inside=False))
    if outside.getbbox() is not None:
        problems.append(f"ink outside every recorded box in {outside.getbbox()}")
    m = panel.margin
    in_margin = ImageChops.logical_and(stray, _area(panel.size, [(m, m, panel.width - m, panel.height - m)], inside=False))
    if in_margin.getbbox() is not None:
        problems.append(f"ink in the {m} px margin in {in_margin.getbbox()}")
    return problems


def frame_problems(r: Rendering, panel: Panel) -> list[str]:
    """Everything the check finds wrong with a screen as drawn on ``panel``: boxes off the
    margin or on each other, ink outside the boxes or in the margin, text cut that is meant
    to be read whole, and lines the renderer found no room for."""
    problems = layout_problems(r.marks, panel) + ink_problems(r, panel)
    problems += [f"{k.kind} cut: {k.value!r}" for k in r.marks if k.cut and not k.cuttable]
    problems += [f"left out: {line!r}" for line in r.dropped]
    return problems


@pytest.mark.parametrize("panel", list(PANELS.values()), ids=list(PANELS))
@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_is_clipped_or_overlaps(lang: str, panel: Panel) -> None:
    found = {}
    for name, screen in {**SCREENS, **STRESS}.items():
        r = rendering(screen, lang, panel)  # type: ignore[arg-type]
        assert r.marks, name
        if problems := frame_problems(r, panel):
            found[name] = problems
    assert not found, found


def test_the_check_finds_a_box_off_the_margin_and_an_overlap() -> None:
    panel = PANELS["0.96in"]
    inside, edge = Mark("text", (2, 2, 20, 13), "Anna"), Mark("number", (100, 2, 127, 13), "1024")
    over = Mark("shape", (10, 5, 30, 9))
    assert layout_problems((inside,), panel) == []
    assert len(layout_problems((inside, edge), panel)) == 1
    assert len(layout_problems((inside, over), panel)) == 1


def test_the_check_finds_ink_off_its_box_cut_text_and_left_out_lines() -> None:
    """The pixel check, the cut check and the left-out check each fail on a frame made wrong."""
    panel = PANELS["0.96in"]
    r = rendering(SCREENS["paused"], "en", panel)
    assert frame_problems(r, panel) == []
    stray = r.image.copy()
    ImageDraw.Draw(stray).point((0, 40), fill=1)  # a glyph's pixel under the bezel, in no box
    assert any("margin" in p for p in frame_problems(Rendering(stray, r.marks, r.bars, r.dropped), panel))
    inside = r.image.copy()
    ImageDraw.Draw(inside).point((60, 60 - 2 * 11), fill=1)  # inside the margin, outside every box
    assert any("outside every recorded box" in p for p in frame_problems(
        Rendering(inside, r.marks, r.bars, r.dropped), panel))
    cut = (*r.marks[:-1], Mark(r.marks[-1].kind, r.marks[-1].box, r.marks[-1].value, cut=True))
    assert any("cut" in p for p in frame_problems(Rendering(r.image, cut, r.bars, r.dropped), panel))
    name = (*r.marks[:-1], Mark(r.marks[-1].kind, r.marks[-1].box, r.marks[-1].value, cut=True, cuttable=True))
    assert frame_problems(Rendering(r.image, name, r.bars, r.dropped), panel) == []
    assert frame_problems(Rendering(r.image, r.marks, r.bars, ("No penalty",)), panel) == ["left out: 'No penalty'"]


def _clocked_game(n: int, clocked: bool, step: int) -> ScoresScreen:
    """A realistic moment of a game of ``n`` players: 25-minute clocks running down into
    overtime, scores of 2, 3 and 4 digits, the bag emptying, the turn going round."""
    names = ("Anna", "Benedikt", "Cléo", "Jürgen")
    return ScoresScreen(
        tuple(
            PlayerLine(
                names[i],
                (step * (23 + 7 * i)) + 3 * i,
                (1500 - step * 28 - i * 41) if clocked else None,
                is_turn=step % n == i,
            )
            for i in range(n)
        ),
        bag=max(0, 100 - 4 * step),
        yours=step % 3 == 0,
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_recommended_panel_keeps_the_headline_through_a_clocked_game(lang: str) -> None:
    """On the recommended panel the player to move and their score are in the headline face
    at every moment of a game of 2 to 4 players, clocked or not (up to 4-digit scores and
    overtime), and the layout does not change as clocks run and scores grow."""
    panel = PANELS[RECOMMENDED]
    head = layout(panel).head
    assert head is not None
    for n in (2, 3, 4):
        for clocked in (False, True):
            shapes = set()
            for step in range(60):
                screen = _clocked_game(n, clocked, step)
                r = rendering(screen, lang, panel)  # type: ignore[arg-type]
                mover = next(p for p in screen.players if p.is_turn)
                big = [k.value for k in r.marks if k.box[3] - k.box[1] == head.height]
                assert str(mover.score) in big, (n, clocked, step, big)
                assert any(v.rstrip(ELLIPSIS) and mover.name.startswith(v.rstrip(ELLIPSIS)) for v in big), big
                assert frame_problems(r, panel) == [], (n, clocked, step)
                shapes.add(tuple(sorted((k.kind, k.box[1], k.box[3]) for k in r.marks if k.kind != "text")))
            assert len(shapes) == 1, (n, clocked, shapes)


def test_every_number_and_every_name_letter_is_shown_whole() -> None:
    screen = STRESS["scores-4-long-names"]
    for panel in PANELS.values():
        for lang in LANGUAGES:
            _, marks = render_marks(screen, lang, panel)
            numbers = [k.value for k in marks if k.kind == "number"]
            assert {"-1024", "9999", "-5", "1000"} <= set(numbers), (panel, numbers)


def test_the_whole_unseen_tile_set_is_shown() -> None:
    for name in ("unseen-full", "unseen"):
        screen = SCREENS[name]
        assert isinstance(screen, UnseenScreen)
        for panel in PANELS.values():
            _, marks = render_marks(screen, "de", panel)
            tiles = [k.value for k in marks if k.kind == "text" and k.box[2] - k.box[0] == 7]
            assert tiles == [letter for letter, n in screen.counts if n], (name, panel)


def test_contact_sheets() -> None:
    """One sheet per panel and language with every screen, in tests/output/contact-sheets/."""
    from PIL import ImageDraw

    SHEETS.mkdir(parents=True, exist_ok=True)
    screens = {**SCREENS, **STRESS}
    for panel in PANELS.values():
        cols, scale = (4, 2) if panel.width <= 128 else (2, 2)
        w, h = panel.width * scale + 8, panel.height * scale + 18
        rows = -(-len(screens) // cols)
        for lang in LANGUAGES:
            sheet = Image.new("RGB", (cols * w, rows * h), (60, 60, 60))
            draw = ImageDraw.Draw(sheet)
            for i, (name, screen) in enumerate(screens.items()):
                image = render(screen, lang, panel).convert("RGB")
                x, y = (i % cols) * w, (i // cols) * h
                sheet.paste(image.resize((panel.width * scale, panel.height * scale), Image.Resampling.NEAREST),
                            (x + 4, y + 14))
                draw.text((x + 4, y + 1), name, fill=(200, 200, 200))
            sheet.save(SHEETS / f"{panel.name}-{lang}.png")
    assert len(list(SHEETS.glob("*.png"))) >= len(PANELS) * len(LANGUAGES)


# --- what each panel gives ------------------------------------------------------------------


def test_the_recommended_panel_shows_the_player_to_move_and_the_score_legibly() -> None:
    panel = PANELS[RECOMMENDED]
    head = layout(panel).head
    assert head is not None and panel.mm(cap_height(head)) >= legible_mm() > 6.9
    screen = SCREENS["scores-4p"]
    _, marks = render_marks(screen, "de", panel)
    big = [k.value for k in marks if k.box[3] - k.box[1] == head.height]
    assert big == ["287", "Bernadet…"] or sorted(big) == sorted(["287", "Bernadet…"]), big


def test_small_panels_list_every_player_and_mark_the_one_to_move_with_an_arrow() -> None:
    for name in ("0.96in", "1.3in"):
        panel = PANELS[name]
        assert layout(panel).head is None
        _, marks = render_marks(SCREENS["scores-4p"], "en", panel)
        arrows = [k for k in marks if k.kind == "shape"]
        turn = [k for k in marks if k.value.startswith("Bernadette")]
        assert len(arrows) == 1 and len(turn) == 1 and arrows[0].box[1] >= turn[0].box[1] - 1


def test_headline_faces_are_known() -> None:
    for name in HEADLINE_FACES:
        assert font(name).has("A")


# --- the text table -------------------------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_every_key_in_every_language() -> None:
    for key, entry in TEXT.items():
        assert set(entry) == set(LANGUAGES), key
        assert all(entry[lang].strip() for lang in LANGUAGES), key
        assert len({frozenset(_fields(entry[lang])) for lang in LANGUAGES}) == 1, key


def test_every_menu_item_error_and_issue_has_text() -> None:
    for item in MenuItem:
        assert f"menu.{item.value}" in TEXT
    for kind in ErrorKind:
        assert f"error.{kind.value}.title" in TEXT and f"error.{kind.value}.body" in TEXT
    for confirm in ConfirmKind:
        assert f"confirm.{confirm.value}" in TEXT
    for issue in EnrollIssue:
        assert f"enroll.issue.{issue.name.lower()}" in TEXT


def test_every_character_of_the_text_is_in_the_fonts() -> None:
    every = set("".join(e[lang] for e in TEXT.values() for lang in LANGUAGES)) - {"{", "}"}
    every |= set(GERMAN + "?!+-:/")
    hints = set("".join(TEXT[k][lang] for k in HINTS for lang in LANGUAGES))  # in the body face only
    for size, characters in (("6x12", every), ("8x16", every - (hints - set(GERMAN)) | set("!?"))):
        missing = {ch for ch in characters if not font(size).has(ch)}
        assert not missing, (size, missing)


@pytest.mark.parametrize("size", ["6x12", "8x16", *HEADLINE_FACES])
def test_every_tile_letter_and_name_letter_has_a_glyph_in_every_face(size: str) -> None:
    face = font(size)
    missing = [ch for ch in TILE_LETTERS + NAME_LETTERS + "0123456789-+" if not face.has(ch)]
    assert not missing, (size, missing)
    assert {"Œ", "œ", "Ÿ", "É", "Ç", "Ä", "ß"} <= set(NAME_LETTERS)


def test_glyphs_are_not_cut_by_the_face_cells() -> None:
    """The faces' cells are cut to their glyphs' ink: each letter keeps every lit pixel."""
    from scoreboard.drawing.font import _read

    for size, full in (("8x16", "8x16"), ("16x32", "16x32")):
        face, source = font(size), _read(full)
        for ch in TILE_LETTERS + NAME_LETTERS:
            if ch == "Ð":
                continue
            lit = sum(bin(r).count("1") for r in source.rows(source.index[ch]))
            assert sum(bin(r).count("1") for r in face.rows(face.index[ch])) == lit, (size, ch)


def test_every_hint_fits_a_line_of_the_narrowest_panel() -> None:
    columns = min(layout(p).columns for p in PANELS.values())
    assert columns == 20
    for key in HINTS:
        for lang in LANGUAGES:
            assert len(TEXT[key][lang]) <= columns, (key, lang, TEXT[key][lang])


# --- rendering rules ------------------------------------------------------------------------


def test_long_names_are_cut_with_an_ellipsis() -> None:
    body = font("6x12")
    assert body.fit("Bernadette-Marie", 60) == "Bernadett" + ELLIPSIS
    assert body.fit("Anna", 60) == "Anna"
    assert body.fit("Anna", 0) == ""


def test_nothing_is_drawn_off_screen_with_absurd_data() -> None:
    long = "W" * 60
    screens: list[Screen] = [
        ScoresScreen(tuple(PlayerLine(long, -99999, -99999, True) for _ in range(6)), 999),
        LastPlayScreen(long, tuple(WordLine(long.lower(), 9999) for _ in range(9)), 99999, True),
        ChallengeWindowScreen(-5, 0, long),
        ChallengeResultScreen(long, long, False, (long,) * 5, -999, True),
        ErrorScreen(ErrorKind.REMOVE_TILES, long),
        BlankPickerScreen(long, tuple(GERMAN * 3), 80),
        ConfirmScreen(ConfirmKind.EXCHANGE, 99, long),
        UnseenScreen(tuple((ch, 99) for ch in GERMAN * 2)),
        TallyScreen(tuple(TallyLine(long, 9999, -999, 9999) for _ in range(6)), (0, 1, 5)),
        EnrollScreen(EnrollStep.PLACE, long, 99, 99, EnrollIssue.SEEN_TWICE, long),
        MenuScreen(tuple(MenuItem) * 3, 23),
        MenuScreen((), 0),
        MenuScreen(tuple(MenuItem), 2, long),
        ErrorScreen(ErrorKind.BAD_PLAY, " ".join([long] * 9)),
        *(ConfirmScreen(kind, 99, long, -99999, long) for kind in ConfirmKind),
        ReadingScreen(long),
        PausedScreen(long),
        DrawForFirstScreen((long,) * 6, (long,) * 6, None, (0, 1, 5, 9)),
        DrawForFirstScreen((long,) * 6, (), 5),
        DrawForFirstScreen((), (), 2),
        AdjustScreen(long, -99999, 99999),
    ]
    for panel in PANELS.values():
        for lang in LANGUAGES:
            for screen in screens:
                image, marks = render_marks(screen, lang, panel)
                assert image.size == panel.size and image.mode == "1"
                assert not [p for p in layout_problems(marks, panel) if "outside" in p], screen


def test_pass_and_exchange_do_not_show_the_request_fields() -> None:
    for kind in (ConfirmKind.PASS, ConfirmKind.EXCHANGE):
        plain = ConfirmScreen(kind, count=3, player="Anna")
        asked = ConfirmScreen(kind, count=3, player="Anna", points=-7, by="Ben")
        for lang in LANGUAGES:
            assert render(asked, lang).tobytes() == render(plain, lang).tobytes()


def test_every_question_fits_a_line_of_the_body_font() -> None:
    # a question too wide for the big font is drawn in the body font
    for lang in LANGUAGES:
        for kind in ConfirmKind:
            question = TEXT[f"confirm.{kind.value}"][lang].format(name="", points="+0")
            assert len(question) <= 21, (kind, lang)


def test_blanks_are_drawn_inverted() -> None:
    lay = layout(PANELS["0.96in"])

    def lit(word: str) -> int:  # lit pixels of the second letter's cell
        image = render(LastPlayScreen("A", (WordLine(word, 5),), 5), "en")
        x, y = lay.left + 6, lay.rows[0]
        return sum(1 for v in image.crop((x, y, x + 6, y + 11)).tobytes() for bit in range(8) if v >> bit & 1)

    assert lit("Ab") > 40 > lit("AB")  # a blank is a lit box with a dark letter
    assert lit("Aß") < 40  # ß is a plain letter, never a blank


def test_render_is_pure() -> None:
    screen = SCREENS["scores-4p"]
    assert render(screen, "de").tobytes() == render(screen, "de").tobytes()
    assert render(screen, "de").tobytes() != render(screen, "fr").tobytes()


def test_unknown_model() -> None:
    with pytest.raises(TypeError, match="no screen for str"):
        render("scores", "de")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seconds", "shown"), [(0, "0:00"), (754, "12:34"), (-65, "-1:05"), (1500, "25:00")]
)
def test_format_clock(seconds: int, shown: str) -> None:
    assert format_clock(seconds) == shown


def test_a_play_of_exactly_four_words_renders_every_word() -> None:
    from scoreboard.screens.models import LastPlayScreen, WordLine
    from scoreboard.screens.render import render as draw

    four = LastPlayScreen("Anna", tuple(WordLine(w, i + 2) for i, w in enumerate(["HAUS", "AB", "UM", "SO"])), 14)
    five = LastPlayScreen("Anna", four.words + (WordLine("JA", 9),), 23)
    for lang in ("de", "fr", "en"):
        image = draw(four, lang)
        assert image.size == (128, 64)
        assert image.tobytes() != draw(LastPlayScreen("Anna", four.words[:3], 14), lang).tobytes()
        assert draw(five, lang).tobytes() != image.tobytes()


def test_text_off_the_edges_is_clipped_like_a_crop_of_a_larger_canvas() -> None:
    """Glyphs are pasted through masks; what falls off the image is dropped, nothing else."""
    for size in ("6x12", "8x16"):
        f = font(size)
        small = Image.new("1", (128, 64))
        big = Image.new("1", (128 + 64, 64 + 64))
        for x, y, text in ((-5, -7, "Wxyz"), (120, 58, "Äq?"), (60, -3, "Œ…")):
            f.draw(small, (x, y), text)
            f.draw(big, (x + 32, y + 32), text)
        assert ImageChops.difference(small, big.crop((32, 32, 160, 96))).getbbox() is None
