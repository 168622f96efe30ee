"""Tests of engine.tiles and engine.board: tile sets, tiles, bag, squares, positions, premiums, board."""

from __future__ import annotations

import random

import pytest

from engine.board import (
    CENTRE,
    COLUMNS,
    PREMIUMS,
    SIZE,
    Board,
    Direction,
    PlacedTile,
    Position,
    Premium,
    Square,
)
from engine.errors import (
    BagError,
    NotationError,
    ScoreboardError,
    UnknownTileError,
    UnknownTileSetError,
)
from engine.tiles import ENGLISH, FRENCH, GERMAN, Bag, Tile, get_tile_set

ALL_SQUARE_NAMES = [f"{col}{row}" for row in range(1, 16) for col in "ABCDEFGHIJKLMNO"]


# --- tile sets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tile_set", "size"), [(GERMAN, 102), (FRENCH, 102), (ENGLISH, 100)], ids=["de", "fr", "en"]
)
def test_tile_set_size(tile_set, size):
    assert tile_set.size == size
    assert len(tile_set.all_tiles()) == size


@pytest.mark.parametrize(
    ("tile_set", "letter", "count", "value"),
    [
        # German (docs/RULES.md): ?2/0 A5/1 Ä1/6 E15/1 N9/1 Ö1/8 Q1/10 Ü1/6 Y1/10 Z1/3
        (GERMAN, "?", 2, 0),
        (GERMAN, "A", 5, 1),
        (GERMAN, "Ä", 1, 6),
        (GERMAN, "E", 15, 1),
        (GERMAN, "N", 9, 1),
        (GERMAN, "Ö", 1, 8),
        (GERMAN, "Q", 1, 10),
        (GERMAN, "Ü", 1, 6),
        (GERMAN, "Y", 1, 10),
        (GERMAN, "Z", 1, 3),
        # French: ?2/0 E15/1 K1/10 M3/2 W1/10
        (FRENCH, "?", 2, 0),
        (FRENCH, "E", 15, 1),
        (FRENCH, "K", 1, 10),
        (FRENCH, "M", 3, 2),
        (FRENCH, "W", 1, 10),
        # English: ?2/0 E12/1 K1/5 Q1/10 S4/1 Z1/10
        (ENGLISH, "?", 2, 0),
        (ENGLISH, "E", 12, 1),
        (ENGLISH, "K", 1, 5),
        (ENGLISH, "Q", 1, 10),
        (ENGLISH, "S", 4, 1),
        (ENGLISH, "Z", 1, 10),
    ],
)
def test_tile_set_letter_count_and_value(tile_set, letter, count, value):
    assert tile_set.counts[letter] == count
    assert tile_set.value(letter) == value
    assert tile_set.tile(letter).value == value
    assert sum(1 for t in tile_set.all_tiles() if t.rack_letter == letter) == count


def test_german_alphabet_puts_umlauts_after_their_vowel():
    alphabet = "".join(GERMAN.alphabet)
    assert alphabet.index("Ä") == alphabet.index("A") + 1
    assert alphabet.index("Ö") == alphabet.index("O") + 1
    assert alphabet.index("Ü") == alphabet.index("U") + 1
    assert len(GERMAN.alphabet) == 29


def test_english_and_french_sets_have_no_umlauts():
    for tile_set in (ENGLISH, FRENCH):
        for letter in "ÄÖÜ":
            assert letter not in tile_set.counts


@pytest.mark.parametrize(("name", "tile_set"), [("german", GERMAN), ("French", FRENCH), ("ENGLISH", ENGLISH)])
def test_get_tile_set_by_name_case_insensitive(name, tile_set):
    assert get_tile_set(name) is tile_set


def test_get_tile_set_unknown_name_lists_known_names():
    with pytest.raises(UnknownTileSetError) as info:
        get_tile_set("klingon")
    message = str(info.value)
    assert "'klingon'" in message
    for known in ("german", "french", "english"):
        assert known in message
    assert isinstance(info.value, ScoreboardError)
    assert isinstance(info.value, KeyError)


# --- tiles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tile", "gcg"),
    [
        (Tile("E", 1), "E"),
        (Tile("Ä", 6), "Ä"),
        (Tile("E", 0, True), "e"),
        (Tile("Ä", 0, True), "ä"),
        (Tile("?", 0, True), "?"),
    ],
    ids=["letter", "umlaut", "played-blank", "played-blank-umlaut", "rack-blank"],
)
def test_tile_gcg(tile, gcg):
    assert tile.gcg() == gcg


def test_rack_blank_from_tile_set_writes_question_mark():
    blank = GERMAN.tile("?")
    assert blank.blank and blank.value == 0
    assert blank.gcg() == "?"
    assert blank.rack_letter == "?"


def test_played_blank_rack_letter_is_question_mark():
    assert Tile("E", 0, True).rack_letter == "?"
    assert Tile("E", 1).rack_letter == "E"


def test_from_gcg_lower_case_umlaut_is_blank_worth_zero():
    tile = GERMAN.from_gcg("ä")
    assert tile == Tile("Ä", 0, True)
    assert tile.letter == "Ä"
    assert tile.value == 0
    assert tile.blank
    assert tile.gcg() == "ä"


def test_from_gcg_upper_case_umlaut_is_real_tile():
    assert GERMAN.from_gcg("Ö") == Tile("Ö", 8)


def test_from_gcg_lower_case_letter_is_blank():
    assert ENGLISH.from_gcg("q") == Tile("Q", 0, True)


@pytest.mark.parametrize(
    ("tile_set", "char"),
    [(ENGLISH, "Ä"), (ENGLISH, "ä"), (FRENCH, "Ö"), (GERMAN, "ß"), (GERMAN, "1"), (GERMAN, "É")],
)
def test_from_gcg_unknown_letter_raises_naming_it(tile_set, char):
    with pytest.raises(UnknownTileError) as info:
        tile_set.from_gcg(char)
    assert repr(char) in str(info.value)
    assert isinstance(info.value, NotationError)


def test_tile_unknown_letter_raises():
    with pytest.raises(UnknownTileError, match="'Ü'"):
        ENGLISH.tile("Ü")


def test_blank_assigned_and_unassigned():
    blank = ENGLISH.tile("?")
    played = blank.assigned("E")
    assert played == Tile("E", 0, True)
    assert played.unassigned() == Tile("?", 0, True)
    assert Tile("E", 1).unassigned() == Tile("E", 1)
    with pytest.raises(UnknownTileError):
        Tile("E", 1).assigned("A")


def test_parse_rack_and_rack_value():
    rack = GERMAN.parse_rack("ÄÖ?E")
    assert [t.rack_letter for t in rack] == ["Ä", "Ö", "?", "E"]
    # Ä 6 + Ö 8 + ? 0 + E 1 = 15
    assert GERMAN.rack_value("ÄÖ?E") == 15


# --- squares --------------------------------------------------------------------------


def test_square_name_round_trip_for_all_225_squares():
    assert len(ALL_SQUARE_NAMES) == 225
    for name in ALL_SQUARE_NAMES:
        square = Square.from_name(name)
        assert square.name() == name
        assert str(square) == name
        assert COLUMNS[square.col] + str(square.row + 1) == name


def test_all_225_squares_are_distinct():
    squares = {Square.from_name(n) for n in ALL_SQUARE_NAMES}
    assert len(squares) == 225
    assert squares == {Square(r, c) for r in range(15) for c in range(15)}


def test_square_coordinates():
    assert Square.from_name("A1") == Square(0, 0)
    assert Square.from_name("O15") == Square(14, 14)
    assert Square.from_name("H8") == Square(7, 7) == CENTRE
    assert Square.from_name("D12") == Square(11, 3)


@pytest.mark.parametrize("bad", ["P1", "A0", "A16", "", "8H", "H", "AA", "A-1"])
def test_bad_square_raises_notation_error_quoting_input(bad):
    with pytest.raises(NotationError) as info:
        Square.from_name(bad)
    assert repr(bad) in str(info.value)


def test_square_repr_evals_back():
    for name in ALL_SQUARE_NAMES:
        square = Square.from_name(name)
        assert eval(repr(square), {"Square": Square}) == square


# --- positions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "square", "direction"),
    [
        ("8D", "D8", Direction.ACROSS),
        ("D8", "D8", Direction.DOWN),
        ("10B", "B10", Direction.ACROSS),
        ("B10", "B10", Direction.DOWN),
        ("15O", "O15", Direction.ACROSS),
        ("O15", "O15", Direction.DOWN),
        ("1A", "A1", Direction.ACROSS),
        ("A1", "A1", Direction.DOWN),
    ],
)
def test_position_round_trip_and_direction(text, square, direction):
    position = Position.from_gcg(text)
    assert position.gcg() == text
    assert str(position) == text
    assert position.square == Square.from_name(square)
    assert position.direction is direction
    assert eval(repr(position), {"Position": Position}) == position


def test_direction_other():
    assert Direction.ACROSS.other is Direction.DOWN
    assert Direction.DOWN.other is Direction.ACROSS
    assert (Direction.ACROSS.drow, Direction.ACROSS.dcol) == (0, 1)
    assert (Direction.DOWN.drow, Direction.DOWN.dcol) == (1, 0)


@pytest.mark.parametrize(
    "bad", ["", "8", "D", "0A", "16A", "8P", "P8", "A0", "H16", "8DD", "DD8", "8D8", "XYZ"]
)
def test_bad_position_raises_notation_error_quoting_input(bad):
    with pytest.raises(NotationError) as info:
        Position.from_gcg(bad)
    assert repr(bad) in str(info.value)


# --- premium layout -------------------------------------------------------------------


def _premium(row: int, col: int) -> Premium:
    return Square(row, col).premium


@pytest.mark.parametrize(
    ("premium", "count"),
    [
        (Premium.TRIPLE_WORD, 8),
        (Premium.DOUBLE_WORD, 17),  # 16 + the centre star H8
        (Premium.TRIPLE_LETTER, 12),
        (Premium.DOUBLE_LETTER, 24),
        (Premium.NONE, 225 - 8 - 17 - 12 - 24),
    ],
)
def test_premium_counts(premium, count):
    assert len(PREMIUMS) == SIZE * SIZE
    assert sum(1 for p in PREMIUMS if p is premium) == count


def test_centre_star_is_double_word():
    assert CENTRE.premium is Premium.DOUBLE_WORD
    assert Square.from_name("H8").premium is Premium.DOUBLE_WORD


@pytest.mark.parametrize(
    ("name", "premium"),
    [
        ("A1", Premium.TRIPLE_WORD),
        ("H1", Premium.TRIPLE_WORD),
        ("O15", Premium.TRIPLE_WORD),
        ("A8", Premium.TRIPLE_WORD),
        ("D1", Premium.DOUBLE_LETTER),
        ("D8", Premium.DOUBLE_LETTER),
        ("G7", Premium.DOUBLE_LETTER),
        ("B2", Premium.DOUBLE_WORD),
        ("E5", Premium.DOUBLE_WORD),
        ("K11", Premium.DOUBLE_WORD),
        ("F2", Premium.TRIPLE_LETTER),
        ("F6", Premium.TRIPLE_LETTER),
        ("N10", Premium.TRIPLE_LETTER),
        ("B1", Premium.NONE),
        ("H2", Premium.NONE),
        ("F8", Premium.NONE),
    ],
)
def test_premium_spot_checks(name, premium):
    assert Square.from_name(name).premium is premium


def test_premium_multipliers():
    assert (Premium.NONE.letter_multiplier, Premium.NONE.word_multiplier) == (1, 1)
    assert (Premium.DOUBLE_LETTER.letter_multiplier, Premium.DOUBLE_LETTER.word_multiplier) == (2, 1)
    assert (Premium.TRIPLE_LETTER.letter_multiplier, Premium.TRIPLE_LETTER.word_multiplier) == (3, 1)
    assert (Premium.DOUBLE_WORD.letter_multiplier, Premium.DOUBLE_WORD.word_multiplier) == (1, 2)
    assert (Premium.TRIPLE_WORD.letter_multiplier, Premium.TRIPLE_WORD.word_multiplier) == (1, 3)


def test_premium_layout_symmetric_left_right():
    for r in range(SIZE):
        for c in range(SIZE):
            assert _premium(r, c) is _premium(r, SIZE - 1 - c), Square(r, c).name()


def test_premium_layout_symmetric_top_bottom():
    for r in range(SIZE):
        for c in range(SIZE):
            assert _premium(r, c) is _premium(SIZE - 1 - r, c), Square(r, c).name()


def test_premium_layout_symmetric_under_transpose():
    for r in range(SIZE):
        for c in range(SIZE):
            assert _premium(r, c) is _premium(c, r), Square(r, c).name()


# --- bag ------------------------------------------------------------------------------


def test_full_bag_holds_the_whole_set():
    bag = Bag.full(GERMAN, random.Random(1))
    assert len(bag) == 102
    assert dict(bag.counts()) == dict(GERMAN.counts)


def test_bag_draw_is_deterministic_for_a_seed():
    first = Bag.full(ENGLISH, random.Random(1234))
    second = Bag.full(ENGLISH, random.Random(1234))
    draws_1 = [first.draw(7) for _ in range(5)]
    draws_2 = [second.draw(7) for _ in range(5)]
    assert draws_1 == draws_2
    assert first.letters() == second.letters()
    assert len(first) == 100 - 35


def test_bag_draw_takes_tiles_out():
    bag = Bag.full(ENGLISH, random.Random(7))
    drawn = bag.draw(7)
    assert len(drawn) == 7
    assert len(bag) == 93
    total = bag.counts()
    for t in drawn:
        total[t.rack_letter] += 1
    assert dict(total) == dict(ENGLISH.counts)


def test_bag_draw_more_than_left_gives_what_is_left():
    bag = Bag([ENGLISH.tile("A"), ENGLISH.tile("B")], random.Random(0))
    drawn = bag.draw(7)
    assert sorted(t.letter for t in drawn) == ["A", "B"]
    assert len(bag) == 0
    assert bag.draw(3) == []


def test_bag_take_removes_exactly_those_tiles():
    bag = Bag([ENGLISH.tile(ch) for ch in "AAB?"], random.Random(0))
    taken = bag.take([ENGLISH.tile("A"), ENGLISH.tile("?")])
    assert sorted(t.rack_letter for t in taken) == ["?", "A"]
    assert bag.letters() == "AB"


def test_bag_take_missing_letters_raises_quoting_them():
    bag = Bag([ENGLISH.tile(ch) for ch in "AAB"], random.Random(0))
    with pytest.raises(BagError) as info:
        bag.take([ENGLISH.tile("A"), ENGLISH.tile("Z"), ENGLISH.tile("Q")])
    assert "'QZ'" in str(info.value)
    assert bag.letters() == "AAB"  # nothing taken on failure


def test_bag_take_more_copies_than_in_bag_raises():
    bag = Bag([ENGLISH.tile(ch) for ch in "AB"], random.Random(0))
    with pytest.raises(BagError, match="'A'"):
        bag.take([ENGLISH.tile("A"), ENGLISH.tile("A")])


def test_bag_put_back_played_blank_becomes_rack_blank():
    bag = Bag([ENGLISH.tile("A")], random.Random(0))
    bag.put_back([Tile("E", 0, True), ENGLISH.tile("S")])
    assert bag.letters() == "?AS"
    assert bag.counts()["?"] == 1
    assert bag.counts()["E"] == 0
    assert Tile("?", 0, True) in bag.tiles()
    assert Tile("E", 0, True) not in bag.tiles()


def test_bag_copy_is_independent():
    bag = Bag.full(ENGLISH, random.Random(3))
    other = bag.copy(random.Random(3))
    other.draw(10)
    assert len(bag) == 100
    assert len(other) == 90


# --- board ----------------------------------------------------------------------------


def test_new_board_is_empty():
    board = Board()
    assert board.is_empty()
    assert board.count == 0
    assert board[CENTRE] is None
    assert list(board.tiles()) == []
    assert board.rows() == ["." * 15] * 15


def test_board_place_and_get():
    board = Board()
    h8 = Square.from_name("H8")
    board.place(h8, Tile("Q", 10))
    assert board[h8] == Tile("Q", 10)
    assert board.count == 1
    assert not board.is_empty()
    assert board.letter_counts == {"Q": 1}
    assert list(board.tiles()) == [PlacedTile(h8, Tile("Q", 10))]


def test_board_letter_counts_count_blanks_as_question_mark():
    board = Board()
    board.place(Square.from_name("H8"), Tile("E", 0, True))
    board.place(Square.from_name("I8"), Tile("E", 1))
    board.place(Square.from_name("J8"), Tile("E", 1))
    assert board.letter_counts == {"?": 1, "E": 2}


def test_board_place_on_occupied_square_raises_naming_it():
    board = Board()
    board.place(Square.from_name("C3"), Tile("A", 1))
    with pytest.raises(NotationError, match="C3"):
        board.place(Square.from_name("C3"), Tile("B", 3))
    assert board[Square.from_name("C3")] == Tile("A", 1)
    assert board.count == 1


def test_board_remove_returns_tile_and_updates_counts():
    board = Board()
    sq = Square.from_name("H8")
    board.place(sq, Tile("A", 1))
    assert board.remove(sq) == Tile("A", 1)
    assert board[sq] is None
    assert board.count == 0
    assert board.is_empty()
    assert board.letter_counts.get("A", 0) == 0


def test_board_remove_from_empty_square_raises_naming_it():
    with pytest.raises(NotationError, match="O15"):
        Board().remove(Square.from_name("O15"))


def test_board_copy_is_independent():
    board = Board()
    board.place(Square.from_name("H8"), Tile("A", 1))
    other = board.copy()
    assert other == board
    other.place(Square.from_name("I8"), Tile("T", 1))
    other.remove(Square.from_name("H8"))
    assert board[Square.from_name("H8")] == Tile("A", 1)
    assert board[Square.from_name("I8")] is None
    assert board.count == 1
    assert board.letter_counts == {"A": 1}
    assert other != board


def test_board_from_tiles_and_rows():
    board = Board([
        PlacedTile(Square.from_name("A1"), Tile("W", 4)),
        PlacedTile(Square.from_name("B1"), Tile("E", 0, True)),
        PlacedTile(Square.from_name("O15"), Tile("Z", 10)),
    ])
    rows = board.rows()
    assert rows[0] == "We" + "." * 13
    assert rows[14] == "." * 14 + "Z"
    assert board.count == 3
    assert [p.square.name() for p in board.tiles()] == ["A1", "B1", "O15"]
