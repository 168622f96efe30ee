"""Tests of engine.scoring: one test per scoring rule of docs/RULES.md, expected scores by hand.

Premium squares used below (docs/RULES.md layout):
  row 1: A1 TW, D1 DL, H1 TW, L1 DL, O1 TW
  row 5: E5 DW, K5 DW         row 6: B6 F6 J6 N6 TL
  row 7: C7 G7 I7 M7 DL       row 8: A8 TW, D8 DL, H8 DW (star), L8 DL, O8 TW
  row 9: C9 G9 I9 M9 DL       row 10: B10 F10 J10 N10 TL
  row 11: E11 DW, K11 DW
English values: A1 B3 C3 D2 E1 F4 G2 H4 I1 J8 K5 L1 M3 N1 O1 P3 Q10 R1 S1 T1 U1 V4 W4 X8 Y4 Z10
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.board import Board, Direction, Position, Square
from engine.placement import Placement, validate
from engine.scoring import score
from engine.tiles import ENGLISH, FRENCH, GERMAN, TileSet
from boardhelpers import board_with, play


# --- helpers (built without Placement.from_gcg so scoring tests do not depend on it) ---------


def points(board: Board, tile_set: TileSet, position: str, word: str, **kw) -> int:
    return score(board, play(tile_set, position, word), **kw).score


WINDY = ("8D", "WINDY")  # D8 W (DL), E8 I, F8 N, G8 D, H8 Y (star)


# --- letter and word premiums -------------------------------------------------------------


def test_plain_word_no_premium():
    board = board_with(ENGLISH, WINDY)
    # QUIPS down column E through the old I on E8; E6, E7, E9, E10 are plain
    # Q10 + U1 + I1 + P3 + S1 = 16
    assert points(board, ENGLISH, "E6", "QU.PS") == 16


def test_double_letter():
    board = board_with(ENGLISH, WINDY)
    # DZO down column G from the old D on G8: Z on G9 (DL), O on G10 (plain)
    # D2 + Z10*2 + O1 = 23
    assert points(board, ENGLISH, "G8", ".ZO") == 23


def test_triple_letter():
    board = board_with(ENGLISH, WINDY)
    # JIN down column F onto the old N on F8: J on F6 (TL), I on F7 (plain)
    # J8*3 + I1 + N1 = 26
    assert points(board, ENGLISH, "F6", "JI.") == 26


def test_double_word():
    board = board_with(ENGLISH, WINDY)
    # TAXI down column E onto the old I on E8: T on E5 (DW)
    # (T1 + A1 + X8 + I1) * 2 = 22
    assert points(board, ENGLISH, "E5", "TAX.") == 22


def test_triple_word():
    board = board_with(ENGLISH, ("8B", "LASTING"))
    # B on A8 (TW) makes BLASTING; the old S on D8 (DL) and G on H8 (DW) do not count again
    # (B3 + L1 + A1 + S1 + T1 + I1 + N1 + G2) * 3 = 11 * 3 = 33
    assert points(board, ENGLISH, "8A", "B.......") == 33


def test_centre_star_doubles_the_opening_word():
    # AXE on G8..I8, X on the star H8: (A1 + X8 + E1) * 2 = 20
    assert points(Board(), ENGLISH, "8G", "AXE") == 20


def test_centre_star_doubles_opening_word_down():
    # OX down H7..H8: (O1 + X8) * 2 = 18
    assert points(Board(), ENGLISH, "H7", "OX") == 18


def test_opening_windy_real_game_score():
    # doug_v_emely.gcg: ">doug: DINNVWY 8D WINDY +32"
    # W on D8 (DL) 4*2 = 8, I1, N1, D2, Y on H8 (star) 4: (8 + 1 + 1 + 2 + 4) * 2 = 32
    assert points(Board(), ENGLISH, "8D", "WINDY") == 32


def test_blank_on_double_letter_scores_zero():
    # blank w on D8 (DL): (0 + I1 + N1 + D2 + Y4) * 2 = 16
    assert points(Board(), ENGLISH, "8D", "wINDY") == 16


def test_blank_on_double_word_still_doubles():
    board = board_with(ENGLISH, WINDY)
    # blank t on E5 (DW): (0 + A1 + X8 + I1) * 2 = 20
    assert points(board, ENGLISH, "E5", "tAX.") == 20


def test_blank_on_centre_star_still_doubles():
    # A x E with the blank x on H8: (1 + 0 + 1) * 2 = 4
    assert points(Board(), ENGLISH, "8G", "AxE") == 4


def test_two_double_words_multiply_by_four():
    board = board_with(ENGLISH, WINDY)
    # TAXICAB down column E through the old I on E8: T on E5 (DW), B on E11 (DW)
    # (T1 + A1 + X8 + I1 + C3 + A1 + B3) * 2 * 2 = 18 * 4 = 72  (6 tiles, no bingo)
    assert points(board, ENGLISH, "E5", "TAX.CAB") == 72


def test_two_triple_words_multiply_by_nine():
    board = board_with(ENGLISH, ("1B", "HEATER"))
    # C on A1 (TW) and S on H1 (TW) make CHEATERS; the old A on D1 (DL) does not count
    # (C3 + H4 + E1 + A1 + T1 + E1 + R1 + S1) * 3 * 3 = 13 * 9 = 117
    assert points(board, ENGLISH, "1A", "C......S") == 117


def test_three_triple_words_multiply_by_twenty_seven():
    # OXYPHENBUTAZONE along row 1. Old tiles (from earlier plays hooked from below):
    # XY on B1..C1, HEN on E1..G1, UTA on I1..K1, ON on M1..N1.
    # New: O on A1 (TW), P on D1 (DL), B on H1 (TW), Z on L1 (DL), E on O1 (TW).
    board = board_with(ENGLISH, ("1B", "XY"), ("1E", "HEN"), ("1I", "UTA"), ("1M", "ON"))
    placement = play(ENGLISH, "1A", "O..P...B...Z..E")
    validate(board, placement, rack="BEOPZ", tile_set=ENGLISH)  # in line, no gap, connected
    # O1 + X8 + Y4 + P3*2 + H4 + E1 + N1 + B3 + U1 + T1 + A1 + Z10*2 + O1 + N1 + E1 = 54
    # 54 * 3 * 3 * 3 = 1458  (5 tiles, no bingo)
    assert score(board, placement).score == 1458


def test_three_triple_words_down_column_a():
    # the same word down column A: A1, A8, A15 are TW; A4 and A12 are DL
    board = board_with(ENGLISH, ("A2", "XY"), ("A5", "HEN"), ("A9", "UTA"), ("A13", "ON"))
    # same letters on the same kind of premium: 54 * 27 = 1458
    assert points(board, ENGLISH, "A1", "O..P...B...Z..E") == 1458


def test_double_word_and_triple_word_multiply_by_six():
    # RETAINED on H8..O8: R on H8 (DW), I on L8 (DL), D on O8 (TW)
    # (R1 + E1 + T1 + A1 + I1*2 + N1 + E1 + D2) * 2 * 3 = 10 * 6 = 60, + 50 bingo (8 tiles) = 110
    assert points(Board(), ENGLISH, "8H", "RETAINED") == 110


# --- premiums under old tiles -----------------------------------------------------------


@pytest.mark.parametrize(
    ("board_play", "position", "word", "expected"),
    [
        # S hooked on WIND (E8..H8, D on the star): W4 + I1 + N1 + D2 + S1 = 9 (not 18)
        (("8E", "WIND"), "8E", "....S", 9),
        # AWE down column D through the old W on D8 (DL): A1 + W4 + E1 = 6 (not 10)
        (WINDY, "D7", "A.E", 6),
    ],
    ids=["old-star", "old-double-letter"],
)
def test_premium_under_old_tile_does_not_count_again(board_play, position, word, expected):
    board = board_with(ENGLISH, board_play)
    assert points(board, ENGLISH, position, word) == expected


def test_crossing_tile_on_triple_letter_counts_for_both_words():
    # ONE down column F (O on F7, N on F8, E on F9) under WINDY's N
    board = board_with(ENGLISH, WINDY, ("F7", "O.E"))
    # ZA across row 6: Z on F6 (TL), A on G6 (plain, nothing above or below it)
    # main ZA: Z10*3 + A1 = 31; cross ZONE: Z10*3 + O1 + N1 + E1 = 33; total 64
    scored = score(board, play(ENGLISH, "6F", "ZA"))
    assert [(w.text, w.score) for w in scored.words] == [("ZA", 31), ("ZONE", 33)]
    assert scored.score == 64


def test_crossing_tile_on_double_word_counts_for_both_words():
    # ION down column E from WINDY's I (O on E9, N on E10)
    board = board_with(ENGLISH, WINDY, ("E8", ".ON"))
    # ASK across row 11: A on D11, S on E11 (DW), K on F11; S also makes IONS
    # main ASK: (A1 + S1 + K5) * 2 = 14; cross IONS: (I1 + O1 + N1 + S1) * 2 = 8; total 22
    scored = score(board, play(ENGLISH, "11D", "ASK"))
    assert [(w.text, w.score) for w in scored.words] == [("ASK", 14), ("IONS", 8)]
    assert scored.score == 22


# --- cross words --------------------------------------------------------------------------


def test_cross_words_of_two_letters_counted():
    board = board_with(ENGLISH, WINDY)
    # OM across row 7 above D (G8) and Y (H8): O on G7 (DL), M on H7 (plain)
    # main OM: O1*2 + M3 = 5; cross OD: O1*2 + D2 = 4; cross MY: M3 + Y4 (old star) = 7
    # total 5 + 4 + 7 = 16
    scored = score(board, play(ENGLISH, "7G", "OM"))
    assert [w.text for w in scored.words] == ["OM", "OD", "MY"]
    assert [w.score for w in scored.words] == [5, 4, 7]
    assert scored.score == 16


def test_parallel_play_under_a_word():
    board = board_with(ENGLISH, ("8G", "ON"))
    # NO across row 9 under ON: N on G9 (DL), O on H9 (plain)
    # main NO: N1*2 + O1 = 3; cross ON (G8, G9): O1 + N1*2 = 3; cross NO (H8, H9): N1 + O1 = 2
    # total 8
    scored = score(board, play(ENGLISH, "9G", "NO"))
    assert [(w.text, w.score) for w in scored.words] == [("NO", 3), ("ON", 3), ("NO", 2)]
    assert scored.score == 8


def test_single_letters_are_not_words():
    board = board_with(ENGLISH, WINDY)
    # TAXI down column E: no tile beside E5, E6, E7, so no cross words; (1+1+8+1)*2 = 22
    scored = score(board, play(ENGLISH, "E5", "TAX."))
    assert [w.text for w in scored.words] == ["TAXI"]
    assert scored.score == 22


def test_opening_has_only_the_main_word():
    scored = score(Board(), play(ENGLISH, "8D", "WINDY"))
    assert [w.text for w in scored.words] == ["WINDY"]


# --- bingo --------------------------------------------------------------------------------


def test_bingo_fifty_for_seven_tiles():
    # RETAINS on G8..M8: E on H8 (star), N on L8 (DL)
    # (R1 + E1 + T1 + A1 + I1 + N1*2 + S1) * 2 = 8 * 2 = 16, + 50 = 66
    scored = score(Board(), play(ENGLISH, "8G", "RETAINS"))
    assert scored.bingo
    assert scored.score == 66


def test_no_bingo_for_six_tiles():
    # RETAIN on G8..L8: (R1 + E1 + T1 + A1 + I1 + N1*2) * 2 = 7 * 2 = 14
    scored = score(Board(), play(ENGLISH, "8G", "RETAIN"))
    assert not scored.bingo
    assert scored.score == 14


def test_bingo_bonus_parameter():
    # RETAINS = 16 without bonus, 16 + 35 with a bonus of 35
    assert score(Board(), play(ENGLISH, "8G", "RETAINS"), bingo_bonus=35).score == 51


@pytest.mark.parametrize(
    ("position", "word", "expected"),
    [
        # RETAINS G8..M8: 8 * 2 = 16, + 50 = 66
        ("8G", "RETAINS", 66),
        # RETAINED G8..N8: E on H8 (star), N on L8 (DL): (1+1+1+1+1+2+1+2) * 2 = 20, + 50 = 70
        ("8G", "RETAINED", 70),
        # RETAINERS F8..N8: T on H8 (star), E on L8 (DL): (1+1+1+1+1+1+2+1+1) * 2 = 20, + 50 = 70
        ("8F", "RETAINERS", 70),
    ],
    ids=["7-tiles", "8-tiles", "9-tiles"],
)
def test_nine_tile_variant_bingo_for_seven_eight_and_nine_tiles(position, word, expected):
    scored = score(Board(), play(ENGLISH, position, word), bingo_tiles=7, bingo_bonus=50)
    assert scored.bingo
    assert scored.score == expected


def test_nine_tile_variant_no_bingo_for_six_tiles():
    scored = score(Board(), play(ENGLISH, "8G", "RETAIN"), bingo_tiles=7, bingo_bonus=50)
    assert not scored.bingo
    assert scored.score == 14


def test_bingo_counts_only_new_tiles():
    board = board_with(ENGLISH, WINDY)
    # TAXICAB: 7 letters but 6 new tiles (I is old): 72, no bonus
    scored = score(board, play(ENGLISH, "E5", "TAX.CAB"))
    assert not scored.bingo
    assert scored.score == 72


# --- joined words and single tiles -------------------------------------------------------


def test_bridging_play_scores_the_whole_joined_word():
    # SEA on F8..H8 and ELL on K8..M8; S on I8 and H on J8 make SEASHELL
    board = board_with(ENGLISH, ("8F", "SEA"), ("8K", "ELL"))
    # S1 + E1 + A1 + S1 + H4 + E1 + L1 + L1 = 11 (old star under A and old DL under L don't count)
    scored = score(board, play(ENGLISH, "8I", "SH"))
    assert [w.text for w in scored.words] == ["SEASHELL"]
    assert scored.score == 11


def test_extending_a_word_at_both_ends():
    # German: LAST on F8..I8 (S on the star); AUS on C8..E8 and UNG on J8..L8 make AUSLASTUNG
    board = board_with(GERMAN, ("8F", "LAST"))
    # German values: A1 U1 S1 L2 T1 N1 G2. U on D8 (DL), G on L8 (DL), old star not counted
    # A1 + U1*2 + S1 + L2 + A1 + S1 + T1 + U1 + N1 + G2*2 = 15
    scored = score(board, play(GERMAN, "8C", "AUS....UNG"))
    assert [w.text for w in scored.words] == ["AUSLASTUNG"]
    assert scored.score == 15


def test_single_tile_forming_words_in_both_directions_scores_both():
    # HAT across G8..I8 and HE down G8..G9 (sharing the H)
    board = board_with(ENGLISH, ("8G", "HAT"), ("G8", ".E"))
    # X on H9 (plain): across EX = E1 + X8 = 9; down AX = A1 + X8 = 9; total 18
    scored = score(board, play(ENGLISH, "9H", "X"))
    assert [w.text for w in scored.words] == ["EX", "AX"]
    assert [w.position for w in scored.words] == [Position.from_gcg("9G"), Position.from_gcg("H8")]
    assert scored.score == 18


def test_single_tile_down_only():
    board = board_with(ENGLISH, WINDY)
    # O on F9 under N: NO down = N1 + O1 = 2
    scored = score(board, play(ENGLISH, "F9", "O"))
    assert [w.text for w in scored.words] == ["NO"]
    assert scored.main_word.position == Position.from_gcg("F8")
    assert scored.score == 2


def test_single_tile_hook_on_triple_letter_counts_in_both_words():
    # old: WINDY, an O on F7 above its N (ON down F7..F8), AT across G6..H6
    board = board_with(ENGLISH, WINDY, ("F7", "O"), ("6G", "AT"))
    # Z on F6 (TL): across ZAT = Z10*3 + A1 + T1 = 32; down ZON = Z10*3 + O1 + N1 = 32; total 64
    scored = score(board, play(ENGLISH, "6F", "Z"))
    assert [(w.text, w.score) for w in scored.words] == [("ZAT", 32), ("ZON", 32)]
    assert scored.score == 64


# --- ScoredPlay -----------------------------------------------------------------------------


def test_words_list_main_word_first_with_text_and_position():
    board = board_with(ENGLISH, WINDY)
    scored = score(board, play(ENGLISH, "7G", "OM"))
    main = scored.main_word
    assert main is scored.words[0]
    assert main.text == "OM"
    assert main.position == Position.from_gcg("7G")
    assert main.position.direction is Direction.ACROSS
    assert [s.name() for s in main.squares] == ["G7", "H7"]
    assert [(w.text, w.position.gcg()) for w in scored.words[1:]] == [("OD", "G7"), ("MY", "H7")]


def test_main_word_of_a_down_play_starts_at_the_old_tile_above():
    board = board_with(ENGLISH, WINDY)
    scored = score(board, play(ENGLISH, "G8", ".ZO"))
    assert scored.main_word.text == "DZO"
    assert scored.main_word.position == Position.from_gcg("G8")
    assert [s.name() for s in scored.main_word.squares] == ["G8", "G9", "G10"]


def test_scored_play_keeps_the_placement():
    placement = play(ENGLISH, "8D", "WINDY")
    scored = score(Board(), placement)
    assert scored.placement == placement
    assert not scored.bingo


# --- tile sets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "word", "expected"),
    [
        # ÖL: Ö on G8, L on H8 (star): (Ö8 + L2) * 2 = 20
        ("8G", "ÖL", 20),
        # BÄR: Ä on H8 (star): (B3 + Ä6 + R1) * 2 = 20
        ("8G", "BÄR", 20),
        # ÜBER H8..K8: (Ü6 + B3 + E1 + R1) * 2 = 22
        ("8H", "ÜBER", 22),
        # BäR with a blank ä: (B3 + 0 + R1) * 2 = 8
        ("8G", "BäR", 8),
        # QUIZ H8..K8: (Q10 + U1 + I1 + Z3) * 2 = 30 (German Z is 3, not 10)
        ("8H", "QUIZ", 30),
    ],
)
def test_german_values(position, word, expected):
    assert points(Board(), GERMAN, position, word) == expected


def test_french_values():
    # KIWI H8..K8: (K10 + I1 + W10 + I1) * 2 = 44
    assert points(Board(), FRENCH, "8H", "KIWI") == 44


# --- the board is left alone ----------------------------------------------------------------


def test_score_leaves_the_board_unchanged():
    board = board_with(ENGLISH, WINDY, ("F7", "O.E"))
    before = board.copy()
    rows = board.rows()
    scored = score(board, play(ENGLISH, "6F", "ZA"))
    assert scored.score == 64
    assert board == before
    assert board.rows() == rows
    assert board.count == before.count
    assert board.letter_counts == before.letter_counts
    assert board[Square.from_name("F6")] is None


def test_score_twice_gives_the_same_result():
    board = board_with(ENGLISH, WINDY)
    placement = play(ENGLISH, "7G", "OM")
    assert score(board, placement) == score(board, placement)


# --- real games ------------------------------------------------------------------------------

GCG_DIR = Path(__file__).parent / "data" / "gcg"
_POSITION = re.compile(r"^(\d{1,2}[A-O]|[A-O]\d{1,2})$")


def _plays(path: Path) -> list[tuple[int, str, str, int]]:
    """(line number, position, word, recorded score) of the plays that stayed on the board.

    A deliberately small reader: play lines ``>name: [rack] POS WORD +N TOTAL``; a withdrawn
    phony (``--``) takes the previous play off again; everything else is skipped.
    """
    plays: list[tuple[int, str, str, int]] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = text.split()
        if not text.startswith(">"):
            continue
        if "--" in parts[1:3]:
            plays.pop()
        elif len(parts) >= 5 and _POSITION.match(parts[-4]) and parts[-2].startswith("+"):
            plays.append((number, parts[-4], parts[-3], int(parts[-2])))
    return plays


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("doug_v_emely.gcg", 25),  # opens with 8D WINDY +32; a withdrawn phony; RE.IgION +78
        ("josh2.gcg", 26),  # challenge bonuses, an exchange, a withdrawn phony, blanks
        ("bingo_nine_or_above.gcg", 19),  # ELECTRO........ across a whole row, OE.TrIOL +122
        ("noah_vs_peter.gcg", 36),
    ],
)
def test_real_game_scores(name, count):
    plays = _plays(GCG_DIR / name)
    assert len(plays) == count
    board = Board()
    for number, position, word, recorded in plays:
        placement = Placement.from_gcg(position, word, board, ENGLISH)
        validate(board, placement, tile_set=ENGLISH)
        assert score(board, placement).score == recorded, f"{name} line {number}: {position} {word}"
        for square, tile in placement.tiles:
            board.place(square, tile)
