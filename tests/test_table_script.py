"""Table scripts (``scoreboard run --simulate --script``): their board lines are the simulated
board's typed commands, a ``LETTER.COPY`` tile resolved once the tile set is known."""

from __future__ import annotations

import re

import pytest

from drivers.buttons.logic import Role
from scoreboard.sim.commands import Place, Problem, Remove, Unplug, location
from scoreboard.sim.tags import tile_uid
from scoreboard.table_script import LONG_S, SHORT_S, PlaceTile, TableScriptError, parse, press_target, resolve_tile

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
