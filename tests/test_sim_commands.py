"""The simulated board's typed commands: every one parsed from its line and written back,
and a bad line a :class:`CommandError` that holds the line, its number and the problem."""

from __future__ import annotations

import re

import pytest

from scoreboard.sim.commands import (
    MAX_FRAMES, MAX_GARBAGE, MAX_SLIDE_S, MAX_UNPLUG_S, USAGE, Command, CommandError, Corrupt, Drop, Duplicate,
    Exit, Fault, Flicker, Garbage, Geometry, Junk, Move, Place, Plug, Problem, Reboot, Recover, Remove, Reorder, Slide,
    Unplug, command_from_words, location, parse_command,
)

H8, I8, R13 = location("H8"), location("I8"), location("R1.3")
UID = bytes.fromhex("04A1B2C3D4E5F6")

# every command in its canonical text, and what it parses into
CANONICAL: list[tuple[str, Command]] = [
    ("place H8 04A1B2C3D4E5F6", Place(H8, UID)),
    ("place R1.3 04A1B2C3", Place(R13, UID[:4])),
    ("remove H8", Remove(H8)),
    ("move R1.3 I8", Move(R13, I8)),
    ("slide H8 I8", Slide(H8, I8)),
    ("slide H8 I8 0.25", Slide(H8, I8, 0.25)),
    ("flicker H8 0.5", Flicker(H8, 0.5)),
    ("flicker H8 alternate", Flicker(H8, "alternate")),
    ("flicker H8 0", Flicker(H8, 0.0)),
    ("junk H8 0.2", Junk(H8, 0.2)),
    ("garbage 20", Garbage(20)),
    ("corrupt 1", Corrupt(1)),
    ("drop 0", Drop(0)),
    ("duplicate 2", Duplicate(2)),
    ("reorder 1", Reorder(1)),
    ("unplug 2", Unplug(2.0)),
    ("unplug 0.5 reboot", Unplug(0.5, reboot=True)),
    ("plug", Plug()),
    ("reboot", Reboot()),
    ("fault reader 3", Fault(3)),
    ("fault reader 3 dead", Fault(3, "dead")),
    ("fault reader 0 garbage", Fault(0, "garbage")),
    ("recover reader 3", Recover(3)),
    ("exit", Exit()),
]


def test_the_list_covers_every_command() -> None:
    assert {line.split()[0] for line, _ in CANONICAL} == set(USAGE)


@pytest.mark.parametrize(("line", "command"), CANONICAL, ids=[line for line, _ in CANONICAL])
def test_every_command_round_trips(line: str, command: Command) -> None:
    assert parse_command(line) == command
    assert str(command) == line
    assert parse_command(str(command)) == command


@pytest.mark.parametrize(("line", "canonical"), [
    ("PLACE r1.3 04a1b2c3d4e5f6   # a comment", "place R1.3 04A1B2C3D4E5F6"),
    ("Move h8   i8", "move H8 I8"),
    ("unplug 2.0", "unplug 2"),
    ("unplug 2 REBOOT", "unplug 2 reboot"),
    ("flicker H8 ALTERNATE", "flicker H8 alternate"),
    ("slide H8 I8 1e-1", "slide H8 I8 0.1"),
    ("junk H8 .30000000000000004", "junk H8 0.30000000000000004"),  # exact, not rounded
    ("fault Reader 2 Garbage", "fault reader 2 garbage"),
])
def test_other_spellings_come_back_canonical(line: str, canonical: str) -> None:
    command = parse_command(line)
    assert str(command) == canonical and parse_command(canonical) == command


def test_a_slide_without_a_time_overlaps_a_tenth_of_a_second() -> None:
    assert Slide(H8, I8).overlap_s == 0.1 and Slide(H8, I8, 0.5).overlap_s == 0.5


@pytest.mark.parametrize(("line", "problem", "reason"), [
    ("jump H8", Problem.UNKNOWN, "unknown command 'jump' (known: corrupt, drop, "),
    ("", Problem.EMPTY, "no command"),
    ("   # only a comment", Problem.EMPTY, "no command"),
    ("remove", Problem.ARITY, "remove takes 1 arguments, got 0"),
    ("place H8", Problem.ARITY, "place takes 2 arguments, got 1"),
    ("slide H8 I8 0.1 0.2", Problem.ARITY, "slide takes 2-3 arguments, got 4"),
    ("reboot now", Problem.ARITY, "reboot takes 0 arguments, got 1"),
    ("place Z9 04A1B2C3D4E5F6", Problem.LOCATION, "not a location: 'Z9'"),
    ("move H8 R5.1", Problem.LOCATION, "not a location: 'R5.1'"),
    ("junk H16 0.2", Problem.LOCATION, "not a location: 'H16'"),
    ("place H8 nothex", Problem.UID, "not a hex UID: 'nothex'"),
    ("place H8 04A1", Problem.UID, "a UID has 4, 7 or 10 bytes, '04A1' has 2"),
    ("garbage lots", Problem.NUMBER, "not a whole number: 'lots'"),
    ("drop 1.5", Problem.NUMBER, "not a whole number: '1.5'"),
    ("corrupt -1", Problem.NUMBER, "a count of 0 or more, not '-1'"),
    ("unplug soon", Problem.NUMBER, "not a number: 'soon'"),
    ("unplug -2", Problem.NUMBER, "a time of 0 or more, not '-2'"),
    ("slide H8 I8 nan", Problem.NUMBER, "a finite number, not 'nan'"),
    ("flicker H8 1.5", Problem.NUMBER, "a probability from 0 to 1, not '1.5'"),
    ("junk H8 often", Problem.NUMBER, "not a number: 'often'"),
    ("fault reader x", Problem.NUMBER, "not a whole number: 'x'"),
    ("unplug 2 forever", Problem.WORD, "unplug SECONDS [reboot], not 'forever'"),
    ("fault sensor 3", Problem.WORD, "fault reader N, not 'sensor'"),
    ("fault reader 3 broken", Problem.WORD, "fault reader N [dead|garbage], not 'broken'"),
    ("recover antenna 3", Problem.WORD, "recover reader N, not 'antenna'"),
    # every number bounded: no command stops a simulator for good
    ("unplug 1e308", Problem.NUMBER, "a time of at most 3600 s, not '1e308'"),
    ("unplug inf", Problem.NUMBER, "a finite number, not 'inf'"),
    ("slide H8 I8 10.5", Problem.NUMBER, "a time of at most 10 s, not '10.5'"),
    ("garbage 131073", Problem.NUMBER, "a count of at most 131072, not '131073'"),
    ("duplicate 10001", Problem.NUMBER, "a count of at most 10000, not '10001'"),
    ("reorder 99999999999999999999", Problem.NUMBER, "a count of at most 10000"),
    ("fault reader -1", Problem.NUMBER, "a count of 0 or more, not '-1'"),
])
def test_a_bad_line_is_one_typed_error_with_the_line_as_data(line: str, problem: Problem, reason: str) -> None:
    with pytest.raises(CommandError) as err:
        parse_command(line, 7)
    e = err.value
    assert isinstance(e, ValueError)
    assert e.problem is problem and e.reason.startswith(reason)
    assert (e.text, e.number) == (line.strip(), 7)
    assert str(e) == f"line 7: {line.strip()!r}: {e.reason}"
    with pytest.raises(CommandError) as bare:
        parse_command(line)
    assert str(bare.value) == f"{line.strip()!r}: {e.reason}"  # no number: the line only


def test_words_give_the_error_without_the_line_until_it_is_known() -> None:
    with pytest.raises(CommandError) as err:
        command_from_words(["remove"])
    assert err.value.text is None and str(err.value) == "remove takes 1 arguments, got 0"
    assert str(err.value.on("remove  # x", 3)) == "line 3: 'remove  # x': remove takes 1 arguments, got 0"


def test_the_bounds_themselves_are_accepted() -> None:
    assert parse_command(f"unplug {MAX_UNPLUG_S:g}") == Unplug(MAX_UNPLUG_S)
    assert parse_command(f"slide H8 I8 {MAX_SLIDE_S:g}") == Slide(H8, I8, MAX_SLIDE_S)
    assert parse_command(f"garbage {MAX_GARBAGE}") == Garbage(MAX_GARBAGE)
    assert parse_command(f"drop {MAX_FRAMES}") == Drop(MAX_FRAMES)


def test_a_board_refuses_the_rack_slots_and_readers_it_lacks() -> None:
    two = Geometry.of(2, 7)
    assert (two.racks, two.slots, two.readers) == (2, 7, 17)  # a reader a board row, one a rack
    for line in ["place R2.7 04A1B2C3", "move H8 R1.1", "recover reader 16", "garbage 5", "slide O15 A1"]:
        two.check(parse_command(line))
    for line, where in [("place R3.1 04A1B2C3", "R3.1"), ("slide H8 R1.8", "R1.8"), ("flicker R4.1 0.5", "R4.1"),
                        ("fault reader 17", "reader 17"), ("recover reader 99", "reader 99")]:
        with pytest.raises(CommandError, match=f"no {re.escape(where)} on this board") as err:
            two.check(parse_command(line))
        assert err.value.problem is Problem.TABLE and err.value.text is None
