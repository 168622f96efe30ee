"""Table scripts (``scoreboard run --simulate --script``): their board lines are the simulated
board's typed commands, a ``LETTER.COPY`` tile resolved once the tile set is known."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drivers.buttons.logic import Role
from scoreboard.sim.commands import Place, Problem, Remove, Unplug, location
from scoreboard.sim.tags import tile_uid
from scoreboard.config import load_config
from scoreboard.sim.commands import Geometry
from scoreboard.table_script import (
    LONG_S, MAX_HOLD_S, SHORT_S, PlaceTile, ScriptRefused, ScriptTable, TableScriptError, check, load, parse,
    press_target, resolve_tile,
)

SCRIPT = """
place R1.3 E.0          # a tile of the set
place H8 04A1B2C3D4E5F6
after 0.6 press 1 done
hold 2 challenge 0.8
at 30 remove h8
unplug 2.0
press menu long
tick
end
"""


def test_board_lines_are_typed_commands_and_the_rest_keep_their_words() -> None:
    lines = parse(SCRIPT)
    assert [(n.number, n.action, n.wait, n.at) for n in lines] == [
        (2, "place", 0.0, None), (3, "place", 0.0, None), (4, "press", 0.6, None), (5, "hold", 0.0, None),
        (6, "remove", 0.0, 30.0), (7, "unplug", 0.0, None), (8, "press", 0.0, None), (9, "tick", 0.0, None),
        (10, "end", 0.0, None),
    ]
    r13, h8 = location("R1.3"), location("H8")
    assert [n.board for n in lines] == [
        PlaceTile(r13, "E", 0), Place(h8, bytes.fromhex("04A1B2C3D4E5F6")), None, None, Remove(h8), Unplug(2.0),
        None, None, None,
    ]
    assert lines[0].text == "place R1.3 E.0          # a tile of the set" and lines[3].args == ("2", "challenge", "0.8")
    assert lines[0].board_command("german") == Place(r13, tile_uid("E", 0, "german"))
    assert str(lines[0].board_command("english")) == f"place R1.3 {tile_uid('E', 0).hex().upper()}"
    assert lines[4].board_command("german") == Remove(h8) and str(lines[0].board) == "place R1.3 E.0"


def test_a_tile_not_in_the_set_is_named_with_its_line_when_the_set_is_known() -> None:
    line = parse("remove H8\nplace H8 E.13\n")[1]  # the German set has 15 E, the English one 12
    assert line.board_command("german") == Place(location("H8"), tile_uid("E", 13, "german"))
    with pytest.raises(TableScriptError, match=r"line 2: 'place H8 E.13': no tile 'E.13' in the english set") as err:
        line.board_command("english")
    assert err.value.problem is Problem.UID
    with pytest.raises(TableScriptError, match="not a board command"):
        parse("tick")[0].board_command("german")


@pytest.mark.parametrize(("line", "message", "problem"), [
    ("jump H8", "unknown command 'jump'", Problem.UNKNOWN),
    ("exit", "unknown command 'exit'", Problem.UNKNOWN),  # a table script ends with 'end'
    ("remove", "remove takes 1 arguments", Problem.ARITY),
    ("tick 3", "tick takes 0 arguments", Problem.ARITY),
    ("hold 1", "hold SEAT done|challenge SECONDS", Problem.ARITY),
    ("place Z9 E.0", "not a location", Problem.LOCATION),
    ("move H8 Z9", "not a location", Problem.LOCATION),
    ("place H8 nothex", "not a hex UID", Problem.UID),
    ("place H8 E.x", "not a tile (LETTER.COPY) or a hex UID", Problem.UID),
    ("place H8 04A1", "4, 7 or 10 bytes", Problem.UID),
    ("garbage many", "not a whole number", Problem.NUMBER),
    ("unplug soon", "not a number", Problem.NUMBER),
    ("press 9 done", "a seat from 1 to 4", Problem.NUMBER),
    ("hold 1 done -1", "a hold of more than 0 s", Problem.NUMBER),
    ("after x tick", "not a number", Problem.NUMBER),
    ("press 1 ring", "press SEAT done|challenge", Problem.WORD),
    ("press 1 done long twice", "unexpected 'long twice'", Problem.ARITY),
    ("press 1 challenge inf", "a finite number, not 'inf'", Problem.NUMBER),
    ("hold menu 99999", "at most 60 s, not '99999'", Problem.NUMBER),
    ("hold 2 done nan", "a finite number, not 'nan'", Problem.NUMBER),
    ("after 1e308 tick", "a time of at most 21600 s", Problem.NUMBER),
    ("at 21601 tick", "a time of at most 21600 s", Problem.NUMBER),
    ("unplug 1e308", "a time of at most 3600 s", Problem.NUMBER),
    ("garbage 100000000", "a count of at most 131072", Problem.NUMBER),
])
def test_a_bad_line_is_named_with_its_problem(line: str, message: str, problem: Problem) -> None:
    with pytest.raises(TableScriptError, match=re.escape(message)) as err:
        parse("tick\n" + line)
    assert str(err.value).startswith(f"line 2: {line!r}: ")
    assert (err.value.number, err.value.text, err.value.problem) == (2, line, problem)
    assert isinstance(err.value, ValueError)


def test_press_targets_and_tiles() -> None:
    assert press_target(("1", "done")) == (1, Role.DONE, SHORT_S)
    assert press_target(("menu", "long")) == (None, Role.MENU, LONG_S)
    assert press_target(("4", "challenge", "0.8")) == (4, Role.CHALLENGE, 0.8)
    assert resolve_tile("?.1", "english") == tile_uid("?", 1) and resolve_tile("e.0", "french") == tile_uid("E", 0, "french")
    assert resolve_tile("04A1B2C3", "english") == bytes.fromhex("04A1B2C3")


def test_every_line_is_parsed_once_into_what_it_does() -> None:
    from scoreboard.table_script import End, Press, Wait

    lines = parse("press 2 challenge long\nhold menu 0.8\nafter 3 tick\nremove H8\nend\n")
    assert [line.step for line in lines[:3]] == [Press(2, Role.CHALLENGE, LONG_S), Press(None, Role.MENU, 0.8), Wait()]
    assert lines[3].board == lines[3].step and lines[2].board is None
    assert lines[4].step == End() and lines[4].board is None


# --- the whole script, checked against the table before the game ---------------------------------

TWO = ScriptTable("german", 2, Geometry.of(2, 7))  # 2 seats, 2 racks of 7 slots


def refusal(text: str | bytes, table: ScriptTable = TWO) -> list[tuple[int | None, Problem, str]]:
    with pytest.raises(ScriptRefused) as err:
        check(text, table, "game.txt")
    assert isinstance(err.value, ValueError) and str(err.value).startswith("game.txt: the script is refused")
    for e in err.value.errors:
        assert f"line {e.number}: " in str(err.value)
    return [(e.number, e.problem, e.reason) for e in err.value.errors]


def test_every_bad_line_is_named_before_the_game_with_what_is_wrong() -> None:
    script = ("place R1.1 E.0\nplace H8 Q.5\npress 1 done\nplace H8 É.0\npress 3 done\nhold menu 99999\n"
              "place R3.1 E.1\nplace R1.8 E.2\nfault reader 17\nunplug 1e308\nremove H8\nafter 1e308 tick\nend\n")
    found = refusal(script)
    assert [(n, p) for n, p, _ in found] == [
        (2, Problem.UID), (4, Problem.UID), (5, Problem.TABLE), (6, Problem.NUMBER), (7, Problem.TABLE),
        (8, Problem.TABLE), (9, Problem.TABLE), (10, Problem.NUMBER), (12, Problem.NUMBER),
    ]
    reasons = dict((n, r) for n, _, r in found)
    assert reasons[2] == "no tile 'Q.5' in the german set: it has Q.0 to Q.0"
    assert reasons[4] == "no tile 'É.0' in the german set: it has no 'É'"
    assert reasons[5] == "no seat 3 Done at this table of 2 seats"
    assert reasons[7] == "no R3.1 on this board: racks R1-R2 of slots 1-7"
    assert reasons[9] == "no reader 17 on this board: readers 0-16"


def test_a_table_of_four_seats_and_the_english_set_takes_what_two_refuse() -> None:
    four = ScriptTable("english", 4, Geometry.of(4, 7))
    script = "place R4.7 E.11\npress 4 challenge long\nfault reader 18\nhold menu 60\nend\n"
    assert [line.number for line in check(script, four)] == [1, 2, 3, 4, 5]
    assert [n for n, _, _ in refusal(script)] == [1, 2, 3]  # German has E.0-E.14, but no R4 nor seat 4


def test_the_configured_table_is_the_profile_and_the_players() -> None:
    config = load_config(None, ["game.rules=fr", 'game.players=["Ann", "Ben", "Cy"]'])
    table = ScriptTable.of(config)
    assert (table.tile_set, table.seats, table.geometry) == ("french", 3, Geometry.of(3, 7))


def test_the_whole_script_is_at_most_six_hours_of_table_time() -> None:
    at_the_bound = "at 21000 tick\nafter 599 tick\nhold 1 done 0.5\nhold 2 done 0.5\nend\n"
    assert len(check(at_the_bound, TWO)) == 5  # 21000 + 599 + 1 s of holds: 21600 s exactly
    assert refusal("at 21000 tick\nafter 599 tick\nhold 1 done 0.5\nhold 2 done 0.6\nafter 1 tick\n") == [
        (4, Problem.NUMBER, "the script goes on past 21600 s of table time (to 21600.1 s here)")]
    assert len(check("at 21600 tick\nend\nafter 100 tick\n", TWO)) == 3  # after the end: no time
    assert len(check("at 5000 tick\nat 10 tick\nat 21599 tick\n", TWO)) == 3  # an 'at' past is at once
    assert MAX_HOLD_S == 60.0 and check("hold 1 done 60", TWO)[0].step.seconds == 60.0  # type: ignore[union-attr]


def test_the_faults_of_a_whole_script_are_bounded_too() -> None:
    """Each garbage burst is at most 128 KiB, and all of them together 4 MiB; the frame faults
    10,000 frames a line and 100,000 in all: no script asks the board for hours of junk."""
    burst = "garbage 131072\n"
    assert len(check(burst * 32, TWO)) == 32  # 4 MiB exactly
    assert refusal(burst * 34) == [
        (33, Problem.NUMBER, "the script's garbage adds up to more than 4194304 bytes (4325376 here)")]  # said once
    faults = "corrupt 10000\ndrop 10000\nduplicate 10000\nreorder 10000\n"
    assert len(check(faults * 2 + "corrupt 10000\n" * 2, TWO)) == 10  # 100,000 exactly
    assert refusal(faults * 3) == [
        (11, Problem.NUMBER, "the script's frame faults add up to more than 100000 frames (110000 here)")]


def test_bytes_that_are_not_utf8_are_named_by_their_line_and_the_rest_is_checked() -> None:
    found = refusal(b"press 1 done\r\n# caf\xe9\r\npress 9 done\n\xff\xfe\n")
    assert found == [(2, Problem.ENCODING, "not UTF-8 (byte 6 of the line)"),
                     (3, Problem.NUMBER, "a seat from 1 to 4, not '9'"),
                     (4, Problem.ENCODING, "not UTF-8 (byte 1 of the line)")]
    assert [line.text for line in check(b"press 1 done\r\n# caf\xc3\xa9\r\n", TWO)] == ["press 1 done"]
    assert [line.text for line in check("\ufeffpress 1 done\n".encode(), TWO)] == ["press 1 done"]  # a BOM
    assert [line.text for line in parse("\ufeffpress 1 done\n")] == ["press 1 done"]


def test_lines_are_counted_at_newlines_only_as_an_editor_counts_them() -> None:
    assert [n for n, _, _ in refusal("tick # a form feed \x0c here\nplace H8 Q.5\n")] == [2]


def test_the_lines_and_bytes_of_a_script_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("scoreboard.table_script.MAX_LINES", 10)
    assert len(check("tick\n" * 10, TWO)) == 10
    assert refusal("tick\n" * 11 + "press 9 done\n") == [(11, Problem.TOO_LONG, "more than 10 lines")]
    monkeypatch.setattr("scoreboard.table_script.MAX_BYTES", 50)
    path = tmp_path / "long.txt"
    path.write_text("tick\n" * 10)  # exactly 50 bytes
    assert len(load(path, TWO)) == 10
    path.write_text("tick\n" * 11)
    with pytest.raises(ScriptRefused, match="more than 50 bytes") as err:
        load(path, TWO)
    assert err.value.errors[0].number == 11 and err.value.source == str(path)


def test_a_refusal_lists_twenty_bad_lines_and_counts_the_others() -> None:
    with pytest.raises(ScriptRefused) as err:
        check("press 9 done\n" * 25, TWO)
    assert len(err.value.errors) == 25 and [e.number for e in err.value.errors] == list(range(1, 26))
    message = str(err.value)
    assert "25 bad lines" in message and "line 20: " in message and "line 21: " not in message
    assert message.endswith("... and 5 more")


def test_numbers_too_long_for_int_are_refused_and_long_lines_shortened_in_the_message() -> None:
    huge = "9" * 5000  # int() refuses more than 4300 digits with a ValueError of its own
    found = refusal(f"press {huge} done\nplace H8 E.{huge}\ngarbage {huge}\nhold 1 done {huge}\n")
    assert [(n, p) for n, p, _ in found] == [(1, Problem.NUMBER), (2, Problem.UID), (3, Problem.NUMBER),
                                             (4, Problem.NUMBER)]
    assert found[2][2] == "a number of 5000 characters: too large"
    with pytest.raises(ScriptRefused) as err:
        check(f"press {huge} done\n", TWO)
    assert len(str(err.value)) < 400 and "(5011 characters)" in str(err.value)


def test_board_lines_follow_where_the_tiles_are() -> None:
    """The checker plays the script's board lines on a board of its own: a move or a slide
    from an empty location, a tile placed where another lies or placed again elsewhere while
    it lies somewhere (a tile is in one place) are refused before the game."""
    script = (
        "place H8 A.0\n"  # 1
        "place H9 A.0\n"  # 2: A.0 lies on H8
        "move J9 H10\n"  # 3: nothing on J9
        "slide K1 K2\n"  # 4: nothing on K1
        "place R1.1 E.0\n"  # 5
        "place R1.1 E.1\n"  # 6: R1.1 holds E.0
        "move R1.1 H8\n"  # 7: H8 holds A.0
        "remove H8\n"  # 8
        "move R1.1 H8\n"  # 9
        "place H8 E.0\n"  # 10: where it lies already (a restarted service repeats lines)
        "place R1.2 04A1B2C3\n"  # 11
        "place H9 04a1b2c3\n"  # 12: lies on R1.2
        "remove J1\n"  # 13: nothing there, nothing happens
        "end\n"
    )
    assert refusal(script) == [
        (2, Problem.TILES, "A.0 lies on H8 (line 1): move it there, or remove it first"),
        (3, Problem.TILES, "no tile on J9 to move"),
        (4, Problem.TILES, "no tile on K1 to slide"),
        (6, Problem.TILES, "R1.1 holds E.0 (line 5)"),
        (7, Problem.TILES, "H8 holds A.0 (line 1)"),
        (12, Problem.TILES, "04A1B2C3 lies on R1.2 (line 11): move it there, or remove it first"),
    ]
    assert [line.number for line in check("place H8 A.0\nmove H8 H9\nslide H9 H10 0.2\nplace H9 A.1\n", TWO)] == [1, 2, 3, 4]
