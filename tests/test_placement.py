"""Tests of engine.placement: validation (one test per error class), valid plays, GCG notation."""

from __future__ import annotations

import pytest

from engine.board import Board, Direction, Position, Square
from engine.errors import (
    CentreNotCoveredError,
    DuplicateSquareError,
    GapError,
    NoTilesError,
    NotationError,
    NotConnectedError,
    NotInLineError,
    NotOnRackError,
    OpeningPlayError,
    OpeningTooShortError,
    PlacementError,
    SquareOccupiedError,
    TileCountError,
    TooManyTilesError,
    UnknownTileError,
)
from engine.placement import Placement, validate
from engine.tiles import ENGLISH, GERMAN, Tile, TileSet
from boardhelpers import board_with, play


# --- helpers (built without Placement.from_gcg so validation tests do not depend on it) ---


def sq(name: str) -> Square:
    return Square.from_name(name)


def at(tile_set: TileSet, **squares: str) -> Placement:
    """Placement from keyword squares: ``at(ENGLISH, H8='A', I9='B')``."""
    return Placement((sq(name), tile_set.tile(letter)) for name, letter in squares.items())


WINDY = ("8D", "WINDY")  # D8 W, E8 I, F8 N, G8 D, H8 Y


# --- one test per error class -----------------------------------------------------------


def test_no_tiles():
    with pytest.raises(NoTilesError):
        validate(Board(), Placement([]))


def test_duplicate_square():
    placement = Placement([(sq("H8"), Tile("A", 1)), (sq("H8"), Tile("B", 3))])
    with pytest.raises(DuplicateSquareError) as info:
        validate(Board(), placement)
    assert info.value.squares == (sq("H8"),)
    assert "H8" in str(info.value)


def test_square_occupied_names_the_square():
    board = board_with(ENGLISH, WINDY)
    placement = at(ENGLISH, H7="A", H8="S")  # H8 holds the Y of WINDY
    with pytest.raises(SquareOccupiedError) as info:
        validate(board, placement)
    assert info.value.squares == (sq("H8"),)
    assert "H8" in str(info.value)
    assert "H7" not in str(info.value)


@pytest.mark.parametrize(
    "squares",
    [
        {"H8": "A", "I9": "B"},  # diagonal
        {"H7": "A", "H8": "B", "I8": "C"},  # L shape
        {"H7": "A", "I8": "B", "H9": "C"},  # first and last share a column, middle does not
        {"G8": "A", "H7": "B", "I8": "C"},  # first and last share a row, middle does not
    ],
)
def test_not_in_line(squares):
    with pytest.raises(NotInLineError):
        validate(Board(), at(ENGLISH, **squares))


def test_gap_names_the_gap_squares():
    placement = at(ENGLISH, G8="C", H8="A", K8="T")  # I8 and J8 empty
    with pytest.raises(GapError) as info:
        validate(Board(), placement)
    assert info.value.squares == (sq("I8"), sq("J8"))
    assert "I8" in str(info.value) and "J8" in str(info.value)


def test_gap_down_the_column_names_the_gap_square():
    board = board_with(ENGLISH, WINDY)
    placement = at(ENGLISH, F6="O", F7="O", F9="E", F11="S")  # F8 is N (old), F10 empty
    with pytest.raises(GapError) as info:
        validate(board, placement)
    assert info.value.squares == (sq("F10"),)


def test_centre_not_covered():
    with pytest.raises(CentreNotCoveredError) as info:
        validate(Board(), play(ENGLISH, "8A", "CAT"))
    assert isinstance(info.value, OpeningPlayError)
    assert "H8" in str(info.value)


def test_single_tile_off_centre_on_empty_board_is_centre_not_covered():
    with pytest.raises(CentreNotCoveredError):
        validate(Board(), at(ENGLISH, A1="A"))


def test_opening_too_short_single_tile_on_centre():
    with pytest.raises(OpeningTooShortError) as info:
        validate(Board(), at(ENGLISH, H8="A"))
    assert isinstance(info.value, OpeningPlayError)


def test_not_connected():
    board = board_with(ENGLISH, WINDY)
    with pytest.raises(NotConnectedError) as info:
        validate(board, play(ENGLISH, "1A", "CAT"))
    assert info.value.squares == (sq("A1"), sq("B1"), sq("C1"))


def test_diagonal_contact_is_not_connected():
    board = board_with(ENGLISH, WINDY)
    # I9 and J9 touch H8 only at a corner
    with pytest.raises(NotConnectedError):
        validate(board, play(ENGLISH, "9I", "AT"))


def test_too_many_tiles_eight_with_rack_of_seven():
    placement = play(ENGLISH, "8A", "ABSEILED")  # A8..H8, 8 tiles, covers H8
    with pytest.raises(TooManyTilesError) as info:
        validate(Board(), placement, rack_size=7)
    assert (info.value.count, info.value.rack_size) == (8, 7)


def test_nine_tiles_allowed_with_rack_of_nine():
    placement = play(ENGLISH, "8F", "RETAINERS")  # F8..N8, 9 tiles
    assert len(placement) == 9
    validate(Board(), placement, rack_size=9, rack="RETAINERS", tile_set=ENGLISH)


def test_ten_tiles_too_many_with_rack_of_nine():
    with pytest.raises(TooManyTilesError):
        validate(Board(), play(ENGLISH, "8E", "BRAINSTORM"), rack_size=9)


def test_not_on_rack_missing_letter():
    with pytest.raises(NotOnRackError) as info:
        validate(Board(), play(ENGLISH, "8G", "ZAP"), rack="AEPRST?")
    # Z is not on the rack; a blank is there but a real Z was played
    assert info.value.missing == ("Z",)
    assert "'Z'" in str(info.value)
    assert "AEPRST?" in str(info.value)


def test_not_on_rack_second_copy_missing():
    with pytest.raises(NotOnRackError) as info:
        validate(Board(), play(ENGLISH, "8G", "TEE"), rack="ETRS")
    assert info.value.missing == ("E",)


def test_blank_played_from_rack_with_blank_is_fine():
    validate(Board(), play(ENGLISH, "8G", "ZaP"), rack="PZ?", tile_set=ENGLISH)


def test_rack_given_as_tiles():
    rack = ENGLISH.parse_rack("PZ?")
    validate(Board(), play(ENGLISH, "8G", "ZaP"), rack=rack)


def test_blank_played_from_rack_without_blank_fails():
    with pytest.raises(NotOnRackError) as info:
        validate(Board(), play(ENGLISH, "8G", "ZaP"), rack="APZ")
    assert info.value.missing == ("?",)


def test_tile_count_second_z_in_english():
    board = board_with(ENGLISH, ("8G", "ZA"))  # Z on G8, A on H8
    with pytest.raises(TileCountError) as info:
        validate(board, at(ENGLISH, G9="Z"), tile_set=ENGLISH)  # a second Z under the first
    assert (info.value.letter, info.value.count, info.value.available) == ("Z", 2, 1)
    assert "'Z'" in str(info.value)


def test_tile_count_third_blank():
    board = board_with(ENGLISH, ("8G", "aXe"))  # two blanks on the board
    with pytest.raises(TileCountError) as info:
        validate(board, play(ENGLISH, "J8", "s"), tile_set=ENGLISH)
    assert (info.value.count, info.value.available) == (3, 2)


def test_tile_count_second_umlaut_in_german():
    board = board_with(GERMAN, ("8G", "ÖL"))
    with pytest.raises(TileCountError) as info:
        validate(board, play(GERMAN, "I8", "Ö"), tile_set=GERMAN)
    assert (info.value.letter, info.value.count, info.value.available) == ("Ö", 2, 1)


def test_blank_umlaut_does_not_count_as_the_umlaut_tile():
    board = board_with(GERMAN, ("8G", "ÖL"))
    validate(board, play(GERMAN, "9H", "ö"), tile_set=GERMAN, rack="?")


def test_every_placement_error_is_a_value_error():
    for cls in (
        NoTilesError,
        DuplicateSquareError,
        SquareOccupiedError,
        NotInLineError,
        GapError,
        CentreNotCoveredError,
        OpeningTooShortError,
        NotConnectedError,
        TooManyTilesError,
        NotOnRackError,
        TileCountError,
    ):
        assert issubclass(cls, PlacementError)
        assert issubclass(cls, ValueError)


# --- valid plays ------------------------------------------------------------------------


def test_valid_opening():
    validate(Board(), play(ENGLISH, "8D", "WINDY"), rack="DINNVWY", tile_set=ENGLISH)


def test_valid_opening_down():
    validate(Board(), play(ENGLISH, "H4", "WINDY"), rack="DINNVWY", tile_set=ENGLISH)


def test_extend_word_at_both_ends():
    # LAST on F8..I8; AUS before it and UNG after it: AUSLASTUNG on C8..L8
    board = board_with(GERMAN, ("8F", "LAST"))
    placement = play(GERMAN, "8C", "AUS....UNG")
    assert len(placement) == 6
    validate(board, placement, rack="AUSUNGE", tile_set=GERMAN)


def test_bridging_play_joins_two_words_in_its_line():
    # SEA on F8..H8, ELL on K8..M8; S and H on I8, J8 make SEASHELL
    board = board_with(ENGLISH, ("8F", "SEA"), ("8K", "ELL"))
    validate(board, play(ENGLISH, "8I", "SH"), rack="HS", tile_set=ENGLISH)


def test_bridging_single_tile_fills_the_gap():
    # CAR on F8..H8 and S on J8; a T on I8 joins them into CARTS
    board = board_with(ENGLISH, ("8F", "CAR"), ("8J", "S"))
    validate(board, at(ENGLISH, I8="T"), tile_set=ENGLISH)


def test_new_tiles_separated_by_an_old_tile_are_no_gap():
    board = board_with(ENGLISH, WINDY)
    validate(board, play(ENGLISH, "F7", "O.E"), rack="EO", tile_set=ENGLISH)  # ONE down column F


def test_parallel_play():
    # ON on G8..H8, NO on G9..H9 below it: cross words ON and NO
    board = board_with(ENGLISH, ("8G", "ON"))
    validate(board, play(ENGLISH, "9G", "NO"), rack="NO", tile_set=ENGLISH)


def test_parallel_play_above():
    board = board_with(ENGLISH, WINDY)
    validate(board, play(ENGLISH, "7G", "OM"), rack="MO", tile_set=ENGLISH)


def test_single_tile_forming_a_cross_word():
    board = board_with(ENGLISH, WINDY)
    validate(board, at(ENGLISH, F9="O"), rack="O", tile_set=ENGLISH)  # NO down column F


def test_hook_at_end_of_word():
    board = board_with(ENGLISH, ("8E", "WIND"))
    validate(board, at(ENGLISH, I8="S"), rack="S", tile_set=ENGLISH)


def test_validate_does_not_change_board():
    board = board_with(ENGLISH, WINDY)
    before = board.copy()
    validate(board, play(ENGLISH, "F7", "O.E"), rack="EO", tile_set=ENGLISH)
    assert board == before
    assert board.count == before.count


# --- Placement basics -------------------------------------------------------------------


def test_placement_sorts_tiles_in_reading_order():
    placement = Placement([(sq("J8"), Tile("C", 3)), (sq("H8"), Tile("A", 1)), (sq("H9"), Tile("B", 3))])
    assert [s.name() for s in placement.squares] == ["H8", "J8", "H9"]


def test_placement_rack_letters_show_blanks_as_question_mark():
    assert play(ENGLISH, "8D", "WiNDY").rack_letters() == "W?NDY"


def test_placement_direction():
    board = board_with(ENGLISH, WINDY)
    assert play(ENGLISH, "8D", "WINDY").direction(Board()) is Direction.ACROSS
    assert play(ENGLISH, "F7", "O.E").direction(board) is Direction.DOWN
    # a single tile: across when it has a neighbour in its row, otherwise down
    assert at(ENGLISH, I8="S").direction(board) is Direction.ACROSS
    assert at(ENGLISH, F9="O").direction(board) is Direction.DOWN


# --- Placement.from_gcg -----------------------------------------------------------------


def test_from_gcg_builds_the_new_tiles():
    placement = Placement.from_gcg("8D", "WiNDY", Board(), ENGLISH)
    assert placement == play(ENGLISH, "8D", "WiNDY")
    assert placement.tiles[1].tile == Tile("I", 0, True)


def test_from_gcg_skips_dots():
    board = board_with(ENGLISH, WINDY)
    placement = Placement.from_gcg("F7", "O.E", board, ENGLISH)
    assert placement.squares == (sq("F7"), sq("F9"))


def test_from_gcg_german_blank_umlaut():
    placement = Placement.from_gcg("8G", "äRA", Board(), GERMAN)
    assert placement.tiles[0].tile == Tile("Ä", 0, True)


def test_from_gcg_dot_on_empty_square():
    with pytest.raises(NotationError) as info:
        Placement.from_gcg("8D", "W.NDY", Board(), ENGLISH)
    assert "E8" in str(info.value)


def test_from_gcg_letter_on_occupied_square():
    board = board_with(ENGLISH, WINDY)
    with pytest.raises(SquareOccupiedError) as info:
        Placement.from_gcg("F7", "ONE", board, ENGLISH)  # F8 holds N
    assert info.value.squares == (sq("F8"),)


@pytest.mark.parametrize(("position", "word"), [("8L", "WINDY"), ("L12", "WINDY"), ("15O", "AT"), ("O1", "A" * 16)])
def test_from_gcg_word_off_the_board(position, word):
    with pytest.raises(NotationError) as info:
        Placement.from_gcg(position, word, Board(), ENGLISH)
    assert "off the board" in str(info.value)


@pytest.mark.parametrize(("position", "word"), [("8K", "WINDY"), ("K11", "WINDY"), ("1A", "A" * 15)])
def test_from_gcg_word_ending_on_the_edge_is_fine(position, word):
    assert len(Placement.from_gcg(position, word, Board(), ENGLISH)) == len(word)


def test_from_gcg_unknown_letter():
    with pytest.raises(UnknownTileError, match="'Ä'"):
        Placement.from_gcg("8D", "WÄNDY", Board(), ENGLISH)


def test_from_gcg_empty_word():
    with pytest.raises(NotationError):
        Placement.from_gcg("8D", "", Board(), ENGLISH)


def test_from_gcg_bad_position():
    with pytest.raises(NotationError):
        Placement.from_gcg("8P", "AT", Board(), ENGLISH)


# --- Placement.gcg round trip ------------------------------------------------------------


@pytest.mark.parametrize(
    ("tile_set", "board_plays", "position", "word"),
    [
        (ENGLISH, (), "8D", "WINDY"),
        (ENGLISH, (), "H4", "WINDY"),
        (ENGLISH, (), "8D", "WiNDY"),
        (ENGLISH, (WINDY,), "F7", "O.E"),  # dot in the middle
        (ENGLISH, (WINDY,), "D7", "A.E"),
        (ENGLISH, (WINDY,), "8D", ".....S"),  # dots at the start (hook)
        (ENGLISH, (WINDY,), "H5", "HOl."),  # dot at the end, blank
        (GERMAN, (("8F", "LAST"),), "8C", "AUS....UNG"),
        (GERMAN, (), "8G", "äRA"),
        (ENGLISH, (("8F", "SEA"), ("8K", "ELL")), "8F", "...SH..."),
        (ENGLISH, (WINDY,), "7G", "OM"),
    ],
)
def test_gcg_round_trip(tile_set, board_plays, position, word):
    board = board_with(tile_set, *board_plays)
    placement = Placement.from_gcg(position, word, board, tile_set)
    pos, text = placement.gcg(board)
    assert (pos.gcg(), text) == (position, word)
    assert pos == Position.from_gcg(position)


def test_gcg_spans_the_whole_main_word():
    board = board_with(ENGLISH, ("8E", "WIND"))
    # an S hooked on I8 is written as the whole word WINDS
    pos, text = at(ENGLISH, I8="S").gcg(board)
    assert (pos.gcg(), text) == ("8E", "....S")


def test_gcg_single_tile_down():
    board = board_with(ENGLISH, WINDY)
    pos, text = at(ENGLISH, F9="O").gcg(board)
    assert (pos.gcg(), text) == ("F8", ".O")
