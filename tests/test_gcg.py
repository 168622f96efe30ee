"""Tests of the GCG reader and writer (engine/gcg.py)."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engine import gcg
from engine.errors import GcgEncodingError, GcgError, ScoreboardError
from engine.events import (
    ChallengePenalty,
    Exchanged,
    OutBonus,
    Passed,
    PlayMade,
    PlayWithdrawn,
    RackPenalty,
    ScoreAdjusted,
    TimePenalty,
)
from engine.game import Game
from engine.gcg import GcgEvent, GcgPlayer, GcgRecord, Kind
from engine.placement import Placement
from engine.replay import replay
from engine.rules import PROFILES, RuleProfile, standard_record_profile

DATA = Path(__file__).resolve().parent / "data"
GCG_DIR = DATA / "gcg"
EXTRA = DATA / "gcg_extra"
WEIRD = "name_weird_encoding_with_header.gcg"
READABLE = sorted(p.name for p in GCG_DIR.glob("*.gcg") if p.name != WEIRD) + [
    "../gcg_extra/" + p.name for p in sorted(EXTRA.glob("*.gcg"))
]

TWO = b"#player1 doug Doug\n#player2 emely Emely\n"


def read_text(text: str) -> GcgRecord:
    return gcg.read(text.encode("utf-8"))


def one_event(line: str) -> GcgEvent:
    record = gcg.read(TWO + line.encode("utf-8") + b"\n")
    assert len(record.events) == 1
    return record.events[0]


# --- encodings ----------------------------------------------------------------------------


def test_iso_8859_1_without_pragma() -> None:
    record = gcg.read(b"#player1 c\xe9sar C\xe9sar Mill\xe1n\n#player2 doug Doug\n>c\xe9sar: DINNVWY 8D WINDY +32 32\n")
    assert record.encoding == "ISO-8859-1"
    assert record.players[0] == GcgPlayer("césar", "César Millán")
    assert record.events[0].nick == "césar"


def test_iso_8859_1_real_file() -> None:
    record = gcg.read((GCG_DIR / "name_iso8859-1.gcg").read_bytes())
    assert [p.nick for p in record.players] == ["césar", "hércules"]
    assert [e.nick for e in record.events] == ["césar", "hércules"]


def test_utf8_with_pragma() -> None:
    record = gcg.read("#character-encoding UTF-8\n#player1 césar César\n#player2 jörg Jörg\n".encode())
    assert record.encoding == "UTF-8"
    assert [p.nick for p in record.players] == ["césar", "jörg"]
    real = gcg.read((GCG_DIR / "name_utf8_with_header.gcg").read_bytes())
    assert real.players[0].nick == "césar"
    assert real.events[0].nick == "césar"


def test_utf8_without_pragma_is_read_as_iso_8859_1() -> None:
    record = gcg.read((GCG_DIR / "name_utf8_noheader.gcg").read_bytes())
    assert record.encoding == "ISO-8859-1"
    assert record.players[0].nick == "cÃ©sar"
    assert record.events[0].nick == "cÃ©sar"


def test_utf8_file_with_nick_in_pragma_game() -> None:
    record = gcg.read((GCG_DIR / "some_isc_game.gcg").read_bytes())
    assert record.players == [
        GcgPlayer("arcadio", "José Arcadio Buendía"),
        GcgPlayer("úrsula", "Úrsula Iguarán Buendía"),
    ]


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"#character-encoding ISO8859-6\n#player1 a A\n", 1),
        (b"\n#character-encoding windows-1252\n#player1 a A\n", 2),
    ],
)
def test_other_declared_encoding_is_an_error(data: bytes, line: int) -> None:
    with pytest.raises(GcgEncodingError) as exc:
        gcg.read(data)
    assert exc.value.line == line
    declared = data.split()[1].decode()
    assert declared in str(exc.value)
    assert isinstance(exc.value, GcgError)


@pytest.mark.parametrize("declared", ["ISO-8859-1", "iso8859-1", "latin1", "Latin-1"])
def test_declared_iso_8859_1_is_honoured(declared: str) -> None:
    record = gcg.read(f"#character-encoding {declared}\n#player1 c\xe9sar C\n#player2 b B\n".encode("iso-8859-1"))
    assert record.encoding == "ISO-8859-1" and record.players[0].nick == "césar"


@pytest.mark.parametrize(
    ("codec", "bom", "name"),
    [
        ("utf-16-le", b"\xff\xfe", "UTF-16-LE"),
        ("utf-16-be", b"\xfe\xff", "UTF-16-BE"),
        ("utf-32-le", b"\xff\xfe\x00\x00", "UTF-32-LE"),
        ("utf-32-be", b"\x00\x00\xfe\xff", "UTF-32-BE"),
    ],
)
def test_utf16_and_utf32_are_named_from_the_byte_order_mark(codec: str, bom: bytes, name: str) -> None:
    text = "#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n"
    with pytest.raises(GcgEncodingError) as info:
        gcg.read(bom + text.encode(codec))
    assert info.value.encoding == name and info.value.line == 1
    assert f"the file is {name} (found from its byte order mark)" in str(info.value)
    with pytest.raises(GcgEncodingError) as info:  # no mark: the NUL bytes tell
        gcg.read(text.encode(codec))
    assert info.value.encoding == name[:6] and "found from its NUL bytes" in str(info.value)


@pytest.mark.parametrize(("data", "size"), [(b"", 0), (b" \n\r\n\t\n", 6)])
def test_an_empty_file_says_it_is_empty(data: bytes, size: int) -> None:
    from engine.errors import GcgEmptyError

    with pytest.raises(GcgEmptyError) as info:
        gcg.read(data)
    assert info.value.size == size and ("empty" in str(info.value) or "white space" in str(info.value))


def test_weird_encoding_real_file() -> None:
    with pytest.raises(GcgEncodingError) as exc:
        gcg.read((GCG_DIR / WEIRD).read_bytes())
    assert exc.value.line == 1
    assert "ISO8859-6" in str(exc.value)


def test_declared_utf8_that_is_not_utf8() -> None:
    with pytest.raises(GcgEncodingError) as exc:
        gcg.read(b"#character-encoding UTF-8\n#player1 a A\n#player2 b B\n#note caf\xe9\n")
    assert exc.value.line == 4


def test_crlf_lines() -> None:
    text = "#character-encoding UTF-8\n#player1 césar César\n#player2 b B\n>césar: DINNVWY 8D WINDY +32 32\n#note a note\n>b:  (DINNVW) +24 24\n"
    lf = gcg.read(text.encode())
    crlf = gcg.read(text.replace("\n", "\r\n").encode())
    assert crlf == lf
    assert crlf.players[0] == GcgPlayer("césar", "César")
    assert crlf.events[0].notes == ("a note",)
    assert crlf.events[1].tiles == "DINNVW"


def test_crlf_real_file() -> None:
    data = (GCG_DIR / "utf8_dos.gcg").read_bytes()
    assert b"\r\n" in data
    record = gcg.read(data)
    assert len(record.events) == data.count(b"\n>") + data.startswith(b">")
    for e in record.events:
        assert all("\r" not in n for n in e.notes)
        assert "\r" not in (e.word or "") and "\r" not in e.nick
    assert record == gcg.read(data.replace(b"\r\n", b"\n"))


def test_byte_order_mark_with_pragma() -> None:
    record = gcg.read(b"\xef\xbb\xbf#character-encoding UTF-8\n#player1 c\xc3\xa9sar C\n#player2 b B\n")
    assert record.encoding == "UTF-8"
    assert record.players[0].nick == "césar"
    assert record.pragmas == []


def test_a_utf8_byte_order_mark_means_utf8_without_the_pragma() -> None:
    """Notepad writes UTF-8 with a byte order mark and no pragma: the mark is unambiguous."""
    data = "\ufeff#player1 jörg Jörg\n#player2 b B\n>jörg: BÄRENTU 8D BÄREN +30 30\n".encode("utf-8")
    record = gcg.read(data)
    assert record.encoding == "UTF-8" and record.players[0].nick == "jörg"
    assert record.events[0].word == "BÄREN"
    with pytest.raises(GcgEncodingError) as info:  # a mark that contradicts the declaration
        gcg.read(b"\xef\xbb\xbf#character-encoding ISO-8859-1\n#player1 a A\n")
    assert info.value.encoding == "ISO-8859-1" and info.value.line == 1
    assert "byte order mark" in str(info.value)
    with pytest.raises(GcgEncodingError) as info:  # the mark says UTF-8: bytes that are not are named
        gcg.read(b"\xef\xbb\xbf#player1 a A\n#note caf\xe9\n")
    assert info.value.encoding == "UTF-8" and info.value.line == 2
    assert "byte order mark" in str(info.value)


def test_byte_order_mark_does_not_hide_the_first_line() -> None:
    record = gcg.read(b"\xef\xbb\xbf#player1 doug Doug\n#player2 emely Emely\n")
    assert [p.nick for p in record.players] == ["doug", "emely"]
    assert record.pragmas == []


# --- notes, blank lines, pragmas --------------------------------------------------------------


def test_note_continuation_lines() -> None:
    record = read_text(
        "#player1 a A\n#player2 b B\n"
        "#note before the game\n"
        "second line of it\n"
        ">a: DINNVWY 8D WINDY +32 32\n"
        "#note first note\n"
        "   continued here\n"
        "and here\n"
        "#note another note\n"
        ">b: ADEEGIL 7C GALE +16 16\n"
        ">a: ADNNV - +0 32\n"
        "#note last\n"
    )
    assert record.notes == ["before the game\nsecond line of it"]
    assert [e.notes for e in record.events] == [
        ("first note\ncontinued here\nand here", "another note"),
        (),
        ("last",),
    ]


def test_note_continuation_real_file() -> None:
    record = gcg.read((GCG_DIR / "noah_vs_mishu.gcg").read_bytes())
    assert record.notes == []
    assert record.events[0].notes == ("12/16/19, 30 minute ISC game.",)
    assert sum(len(e.notes) for e in record.events) == 6


def test_plain_line_after_an_event_is_an_error() -> None:
    with pytest.raises(GcgError) as exc:
        read_text("#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\nnot a note\n")
    assert exc.value.line == 4


def test_plain_line_after_another_pragma_is_an_error() -> None:
    with pytest.raises(GcgError) as exc:
        read_text("#player1 a A\n#lexicon NWL23\ncontinued?\n#player2 b B\n")
    assert exc.value.line == 3


def test_blank_lines_are_ignored() -> None:
    record = read_text(
        "\n#player1 a A\n\n   \n#player2 b B\n\t\n>a: DINNVWY 8D WINDY +32 32\n\n\n>b: ADEEGIL 7C GALE +16 16\n\n"
    )
    assert [p.nick for p in record.players] == ["a", "b"]
    assert [(e.nick, e.line) for e in record.events] == [("a", 7), ("b", 10)]


def test_known_and_unknown_pragmas() -> None:
    record = read_text(
        "#character-encoding UTF-8\n"
        "#player1 a Anna Adams\n#player2 b B\n"
        "#lexicon NWL23\n#title Final\n#description Created with Macondo\n#id io.woogles abc\n"
        "#tile-distribution german\n#rules de rack=9\n"
        "#game-type classic\n#boardlayout CrosswordGame\n#foo bar  baz\n"
    )
    assert record.players[0] == GcgPlayer("a", "Anna Adams")
    assert (record.lexicon, record.title, record.description, record.game_id) == (
        "NWL23",
        "Final",
        "Created with Macondo",
        "io.woogles abc",
    )
    assert record.tile_distribution == "german"
    assert record.rules == "de rack=9"
    assert record.pragmas == [("game-type", "classic"), ("boardlayout", "CrosswordGame"), ("foo", "bar  baz")]


def test_unknown_pragma_real_file() -> None:
    record = gcg.read((GCG_DIR / "issue_476.gcg").read_bytes())
    assert ("game-type", "classic") in record.pragmas
    assert record.lexicon == "NWL23"
    assert record.game_id == "io.woogles kYmDwcfkbY"


# --- events -----------------------------------------------------------------------------------


def test_play() -> None:
    e = one_event(">doug: ?EIINOR K5 RE.IgION +78 335")
    assert e == GcgEvent(Kind.PLAY, "doug", "?EIINOR", 78, 335, position="K5", word="RE.IgION")
    assert e.line == 3


def test_play_lower_case_position_is_upper_cased() -> None:
    assert one_event(">doug: DINNVWY 8d WINDY +32 32").position == "8D"


def test_empty_rack() -> None:
    e = one_event(">doug:  8D WINDY +32 32")
    assert (e.kind, e.rack, e.position, e.word) == (Kind.PLAY, None, "8D", "WINDY")
    e = one_event(">emely:  (OPEG) +14 345")
    assert (e.kind, e.rack, e.tiles) == (Kind.END_RACKS, None, "OPEG")


def test_partial_rack() -> None:
    e = one_event(">emely: ?FS 14L .aFS +21 331")
    assert (e.rack, e.position, e.word, e.score, e.total) == ("?FS", "14L", ".aFS", 21, 331)


@pytest.mark.parametrize(
    ("line", "rack", "score"),
    [
        (">doug: DROWNUG (challenge) +5 289", "DROWNUG", 5),
        (">doug:  (challenge) +5 289", None, 5),
        (">doug: (challenge) +10 289", None, 10),
        (">emely: AEIRT (challenge) -5 -5", "AEIRT", -5),
    ],
)
def test_challenge(line: str, rack: str | None, score: int) -> None:
    e = one_event(line)
    assert (e.kind, e.rack, e.score) == (Kind.CHALLENGE, rack, score)
    assert e.tiles is None and e.position is None


def test_time_penalty() -> None:
    e = one_event(">doug: ISBALI (time) -10 409")
    assert e == GcgEvent(Kind.TIME, "doug", "ISBALI", -10, 409)


@pytest.mark.parametrize(("line", "score"), [(">doug: AB (adjust) +3 12", 3), (">doug:  (adjust) -3 6", -3)])
def test_adjust(line: str, score: int) -> None:
    e = one_event(line)
    assert (e.kind, e.score) == (Kind.ADJUST, score)


def test_exchange_letters_and_count() -> None:
    e = one_event(">doug: SEQSPO? -QO +0 268")
    assert e == GcgEvent(Kind.EXCHANGE, "doug", "SEQSPO?", 0, 268, tiles="QO")
    e = one_event(">doug: SEQSPO? -Q? +0 268")
    assert e.tiles == "Q?"
    e = one_event(">doug: SEQSPO? -2 +0 268")
    assert (e.kind, e.tiles, e.count) == (Kind.EXCHANGE, None, 2)
    e = one_event(">doug:  -7 +0 268")
    assert (e.kind, e.rack, e.count) == (Kind.EXCHANGE, None, 7)


def test_pass() -> None:
    assert one_event(">doug: U - +0 380") == GcgEvent(Kind.PASS, "doug", "U", 0, 380)
    assert one_event(">doug:  - +0 380") == GcgEvent(Kind.PASS, "doug", None, 0, 380)


def test_withdraw() -> None:
    assert one_event(">emely: DEIILTZ --  -24 55") == GcgEvent(Kind.WITHDRAW, "emely", "DEIILTZ", -24, 55)


def test_going_out_versus_rack_penalty() -> None:
    out = one_event(">emely:  (OPEG) +14 345")
    assert out == GcgEvent(Kind.END_RACKS, "emely", None, 14, 345, tiles="OPEG")
    penalty = one_event(">emely: FWLI (FWLI) -10 426")
    assert penalty == GcgEvent(Kind.RACK_PENALTY, "emely", "FWLI", -10, 426, tiles="FWLI")
    out = one_event(">emely: (EKQ) +15 100")
    assert (out.kind, out.tiles, out.score) == (Kind.END_RACKS, "EKQ", 15)


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (">emely:  (OPEG) +14 345", Kind.END_RACKS),
        (">emely: (EKQ) +15 15", Kind.END_RACKS),
        (">emely:  (?) +0 345", Kind.END_RACKS),  # the others hold only blanks
        (">emely: FWLI (FWLI) -10 426", Kind.RACK_PENALTY),
        (">emely: ? (?) -0 0", Kind.RACK_PENALTY),
        (">emely: ? (?) +0 0", Kind.RACK_PENALTY),
    ],
)
def test_end_line_kind(line: str, kind: Kind) -> None:
    assert one_event(line).kind is kind


def test_rack_penalty_without_rack() -> None:
    e = one_event(">emely:  (FWLI) -10 426")
    assert (e.kind, e.tiles, e.score) == (Kind.RACK_PENALTY, "FWLI", -10)
    assert gcg.format_event(e) == ">emely:  (FWLI) -10 426"


def test_events_after_the_end() -> None:
    record = gcg.read((GCG_DIR / "issue_476.gcg").read_bytes())
    assert [e.kind for e in record.events[-2:]] == [Kind.END_RACKS, Kind.TIME]
    record = gcg.read((GCG_DIR / "some_isc_game.gcg").read_bytes())
    assert [e.kind for e in record.events[-2:]] == [Kind.CHALLENGE, Kind.END_RACKS]
    record = gcg.read((GCG_DIR / "doug_v_emely_double_challenge.gcg").read_bytes())
    assert [e.kind for e in record.events[-2:]] == [Kind.PASS, Kind.END_RACKS]


def test_german_letters_in_racks_and_words() -> None:
    record = gcg.read((EXTRA / "german_de.gcg").read_bytes())
    assert record.players[0] == GcgPlayer("Jörg", "Jörg Müller")
    assert record.rules == "de"
    assert record.events[0].rack == "BÄRENTU"
    assert record.events[2].word == "ä.TE"
    assert record.events[3] == GcgEvent(Kind.CHALLENGE, "Mareike", "LOHEMWA", -5, 21, notes=record.events[3].notes)


# --- players ----------------------------------------------------------------------------------


def test_three_and_four_players() -> None:
    record = read_text(
        "#player1 a Anna\n#player2 b Ben\n#player3 c Cem\n#player4 d Dana Doe\n"
        ">c: DINNVWY 8D WINDY +32 32\n"
    )
    assert record.players == [GcgPlayer("a", "Anna"), GcgPlayer("b", "Ben"), GcgPlayer("c", "Cem"), GcgPlayer("d", "Dana Doe")]
    assert record.seat("d") == 3
    assert record.seat("c") == 2
    with pytest.raises(KeyError):
        record.seat("e")


def test_player_without_full_name_uses_the_nick() -> None:
    record = read_text("#player1 a\n#player2 b B\n")
    assert record.players[0] == GcgPlayer("a", "a")


def test_final_racks() -> None:
    record = read_text("#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n#rack1 INV\n#rack2 ADEEGIL\n")
    assert record.final_racks == {0: "INV", 1: "ADEEGIL"}
    assert gcg.read((GCG_DIR / "incomplete4.gcg").read_bytes()).final_racks == {1: "AEEIILZ"}
    assert gcg.read((GCG_DIR / "incomplete_3.gcg").read_bytes()).final_racks == {0: "AEEIILZ"}


def test_players_inferred_from_events() -> None:
    record = read_text(">emely: ADEEGIL 7C GALE +16 16\n>doug: DINNVWY 8D WINDY +32 32\n>emely: X - +0 16\n")
    assert record.players == [GcgPlayer("emely", "emely"), GcgPlayer("doug", "doug")]


def test_missing_player_line_is_an_error() -> None:
    with pytest.raises(GcgError):
        read_text("#player1 a A\n#player3 c C\n")


# --- unreadable lines ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("garbage", "garbage"),
        (">doug: DINNVWY 8D WINDY +x 32", "+x"),
        (">doug: DINNVWY 8D WINDY 32 32", "'32'"),
        (">doug: DINNVWY 8D WINDY +32 3x2", "3x2"),
        (">doug: DINNVWY 8D WINDY +32", ""),
        (">doug DINNVWY 8D WINDY +32 32", ""),
        (">: DINNVWY 8D WINDY +32 32", ""),
        (">bob: DINNVWY 8D WINDY +32 32", "'bob'"),
        (">doug: DINNVWY (foo) +5 37", "(foo)"),
        (">doug: DINNVWY -q +0 0", ""),
        (">doug: dinnvwy 8D WINDY +32 32", ""),
        (">doug: DINNVWY 8D WINDY extra +32 32", ""),
        ("#player5 e E", "player5"),
        ("#player2", "player2"),
    ],
)
def test_unreadable_line_has_its_number(line: str, fragment: str) -> None:
    data = b"#character-encoding UTF-8\n#player1 doug Doug\n\n#player2 emely Emely\n" + line.encode() + b"\n>emely: ADEEGIL - +0 0\n"
    with pytest.raises(GcgError) as exc:
        gcg.read(data)
    assert exc.value.line == 5
    assert str(exc.value).startswith("line 5: ")
    assert fragment in str(exc.value)
    assert isinstance(exc.value, ScoreboardError) and isinstance(exc.value, ValueError)


def test_negative_total_is_readable() -> None:
    e = one_event(">doug: AB (challenge) -5 -5")
    assert e.total == -5


# --- writing ----------------------------------------------------------------------------------


def test_write_starts_with_the_utf8_pragma() -> None:
    record = gcg.read(b"#player1 c\xe9sar C\xe9sar\n#player2 doug Doug\n>c\xe9sar: DINNVWY 8D WINDY +32 32\n")
    text = gcg.write(record)
    assert text.startswith("#character-encoding UTF-8\n")
    assert "#player1 césar César\n" in text
    assert ">césar: DINNVWY 8D WINDY +32 32\n" in text
    back = gcg.read(text.encode("utf-8"))
    assert back.encoding == "UTF-8"
    assert back.players == record.players


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (GcgEvent(Kind.PLAY, "a", "DINNVWY", 32, 32, position="8D", word="WINDY"), ">a: DINNVWY 8D WINDY +32 32"),
        (GcgEvent(Kind.WITHDRAW, "a", "DINNVWY", -32, 0), ">a: DINNVWY -- -32 0"),
        (GcgEvent(Kind.PASS, "a", None, 0, 0), ">a:  - +0 0"),
        (GcgEvent(Kind.EXCHANGE, "a", "SEQSPO?", 0, 9, tiles="QO"), ">a: SEQSPO? -QO +0 9"),
        (GcgEvent(Kind.EXCHANGE, "a", None, 0, 9, count=2), ">a:  -2 +0 9"),
        (GcgEvent(Kind.CHALLENGE, "a", "AB", 5, 14), ">a: AB (challenge) +5 14"),
        (GcgEvent(Kind.CHALLENGE, "a", "AB", -5, 4), ">a: AB (challenge) -5 4"),
        (GcgEvent(Kind.TIME, "a", "AB", -10, -1), ">a: AB (time) -10 -1"),
        (GcgEvent(Kind.ADJUST, "a", None, 3, 12), ">a:  (adjust) +3 12"),
        (GcgEvent(Kind.END_RACKS, "a", None, 14, 345, tiles="OPEG"), ">a:  (OPEG) +14 345"),
        (GcgEvent(Kind.RACK_PENALTY, "a", "FWLI", -10, 426, tiles="FWLI"), ">a: FWLI (FWLI) -10 426"),
    ],
)
def test_format_event(event: GcgEvent, line: str) -> None:
    assert gcg.format_event(event) == line
    assert one_event(line.replace(">a:", ">doug:")) == dataclasses.replace(event, nick="doug")


@pytest.mark.parametrize("name", READABLE)
def test_written_then_read_gives_the_same_record(name: str) -> None:
    original = gcg.read((GCG_DIR / name).read_bytes())
    text = gcg.write(original)
    assert text.startswith("#character-encoding UTF-8\n")
    back = gcg.read(text.encode("utf-8"))
    # the source encoding is a property of the bytes read, not of the game
    assert back == dataclasses.replace(original, encoding="UTF-8")
    assert back.events == original.events
    assert gcg.write(back) == text
    assert replay(back).ok


def test_iso_record_written_then_read_is_equal() -> None:
    original = gcg.read((GCG_DIR / "doug_v_emely.gcg").read_bytes())
    assert gcg.read(gcg.write(original).encode("utf-8")) == original


def test_roundtrip_keeps_notes_pragmas_and_final_racks() -> None:
    text = (
        "#character-encoding UTF-8\n#player1 a Anna A\n#player2 b B\n#foo bar\n#note pre\ngame\n"
        ">a: DINNVWY 8D WINDY +32 32\n#note one\ntwo\n#note three\n#rack2 ADEEGIL\n"
    )
    record = read_text(text)
    back = gcg.read(gcg.write(record).encode("utf-8"))
    assert back == record
    assert back.notes == ["pre\ngame"]
    assert back.events[0].notes == ("one\ntwo", "three")
    assert back.pragmas == [("foo", "bar")]
    assert back.final_racks == {1: "ADEEGIL"}


def test_zero_rack_penalty_survives_the_roundtrip() -> None:
    # A rack of blanks only is worth 0: `? (?) -0` must stay a rack penalty, not turn into
    # a going-out line when written back.
    record = GcgRecord(
        players=[GcgPlayer("a", "A"), GcgPlayer("b", "B"), GcgPlayer("c", "C")],
        events=[
            GcgEvent(Kind.END_RACKS, "a", None, 5, 5, tiles="EK?"),
            GcgEvent(Kind.RACK_PENALTY, "b", "EK", -5, -5, tiles="EK"),
            GcgEvent(Kind.RACK_PENALTY, "c", "?", 0, 0, tiles="?"),
        ],
        rules="en",
    )
    back = gcg.read(gcg.write(record).encode("utf-8"))
    assert [e.kind for e in back.events] == [Kind.END_RACKS, Kind.RACK_PENALTY, Kind.RACK_PENALTY]
    assert back == record


# --- record_from_events ------------------------------------------------------------------------


def _game(profile: RuleProfile, players: list[str]) -> Game:
    """A short game: WINDY, GALE (challenged, valid), a pass, an exchange, extra lines."""
    game = Game(profile, players, rng=random.Random(5))
    game.draw(0, "DINNVWY")
    game.draw(1, "ADEEGIL")
    for seat in range(2, len(players)):
        game.draw(seat, "AEIOURS")
    game.play(0, Placement.from_gcg("8D", "WINDY", game.board, game.tile_set))
    game.draw(0, "ABCDE")
    game.play(1, Placement.from_gcg("7C", "GALE", game.board, game.tile_set))
    game.rule_challenge(0)  # valid
    game.draw(1, "TTTT")
    if game.turn == 0:
        game.pass_turn(0)
    game.exchange(game.turn, game.rack(game.turn)[:2], None)
    game.adjust_score(1, 3)
    game.penalize_time(0, 10)
    return game


def _written(game: Game) -> tuple[GcgRecord, str]:
    record = gcg.record_from_events(list(game.players), game.events, game.profile, lexicon="NWL23")
    return record, gcg.write(record)


def test_record_from_events_plain_tournament_game_has_no_rules() -> None:
    profile = PROFILES["en-tournament"]
    game = _game(profile, ["Anna Adams", "Ben"])
    record, text = _written(game)
    assert record.rules is None
    assert "#rules" not in text
    assert "#tile-distribution" not in text
    assert "#player1 Anna_Adams Anna Adams\n" in text
    assert "#lexicon NWL23\n" in text
    back = gcg.read(text.encode("utf-8"))
    assert back.profile() == profile == standard_record_profile()
    report = replay(back)
    assert report.disagreements == ()
    assert [e.total for e in back.events][-1] == game.scores()[back.seat(back.events[-1].nick)]
    kinds = [e.kind for e in back.events]
    assert kinds[:2] == [Kind.PLAY, Kind.PLAY]
    assert {Kind.EXCHANGE, Kind.ADJUST, Kind.TIME} <= set(kinds)


def test_record_from_events_event_kinds() -> None:
    game = _game(PROFILES["de"], ["Anna", "Ben", "Cem"])
    record, text = _written(game)
    kinds = {type(e): k for e, k in zip(game.events, (g.kind for g in record.events))}
    assert kinds[PlayMade] is Kind.PLAY
    assert kinds[ChallengePenalty] is Kind.CHALLENGE
    assert kinds[Exchanged] is Kind.EXCHANGE
    assert kinds[ScoreAdjusted] is Kind.ADJUST
    assert kinds[TimePenalty] is Kind.TIME
    challenge = next(g for g in record.events if g.kind is Kind.CHALLENGE)
    assert (challenge.nick, challenge.score) == ("Anna", -5)
    assert ">Anna: " in text and "(challenge) -5" in text


def test_record_from_events_writes_rules_for_de() -> None:
    profile = PROFILES["de"]
    game = _game(profile, ["Anna", "Ben"])
    record, text = _written(game)
    assert record.rules == "de"
    assert "#rules de\n" in text
    assert "#tile-distribution" not in text
    back = gcg.read(text.encode("utf-8"))
    assert back.profile() == profile
    assert replay(back).disagreements == ()


def test_record_from_events_writes_rules_for_five_point_challenge() -> None:
    profile = PROFILES["en-tournament"].with_variants(challenge="five")
    game = _game(profile, ["Anna", "Ben"])
    record, text = _written(game)
    assert "#rules en-tournament challenge=five\n" in text
    bonus = next(g for g in record.events if g.kind is Kind.CHALLENGE)
    assert (bonus.nick, bonus.score) == ("Ben", 5)
    back = gcg.read(text.encode("utf-8"))
    assert back.profile() == profile
    assert replay(back).disagreements == ()


def test_record_from_events_writes_rules_for_three_players() -> None:
    profile = PROFILES["en"]
    game = _game(profile, ["Anna", "Ben", "Cem"])
    _, text = _written(game)
    assert "#rules en\n" in text
    assert "#player3 Cem Cem\n" in text
    back = gcg.read(text.encode("utf-8"))
    assert len(back.players) == 3
    assert replay(back).disagreements == ()


def test_record_from_events_other_tile_set() -> None:
    profile = PROFILES["en-tournament"].with_tile_set("german")
    game = _game(profile, ["Anna", "Ben"])
    record, text = _written(game)
    assert record.rules is None
    assert "#tile-distribution german\n" in text
    back = gcg.read(text.encode("utf-8"))
    assert back.profile() == profile
    assert replay(back).disagreements == ()


def test_record_from_events_end_lines() -> None:
    events = [
        OutBonus(0, "", 15, tiles="EKQ"),
        RackPenalty(1, "EK", -5),
        RackPenalty(2, "Q", -10),
        Passed(1, "EK", 0),
        PlayWithdrawn(2, "Q", 0),
    ]
    record = gcg.record_from_events(["Anna", "Ben", "Cem"], events, PROFILES["de"])
    assert [gcg.format_event(e) for e in record.events] == [
        ">Anna:  (EKQ) +15 15",
        ">Ben: EK (EK) -5 -5",
        ">Cem: Q (Q) -10 -10",
        ">Ben: EK - +0 -5",
        ">Cem: Q -- +0 -10",
    ]


# --- engine bugs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("note", "encoding"),
    [("a\u2028b", "utf-8"), ("a\x0cb", "utf-8"), ("a\x85b", "iso-8859-1")],
    ids=["line-separator", "form-feed", "nel"],
)
def test_line_numbers_only_count_line_feeds(note: str, encoding: str) -> None:
    pragma = "#character-encoding UTF-8\n" if encoding == "utf-8" else ""
    text = pragma + "#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n#note " + note + "\n>b: ADEEGIL 7C GALE +x 16\n"
    bad_line = text.count("\n")
    with pytest.raises(GcgError) as exc:
        gcg.read(text.encode(encoding))
    assert exc.value.line == bad_line
    record = gcg.read(text.replace("+x", "+16").encode(encoding))
    assert record.events[0].notes == (note,)


def test_pragma_separated_by_tabs() -> None:
    record = read_text("#player1\tdoug\tDoug Smith\n#player2 emely Emely\n")
    assert record.players == [GcgPlayer("doug", "Doug Smith"), GcgPlayer("emely", "Emely")]


# --- found in review ------------------------------------------------------------------------


def test_event_before_the_player_lines_with_an_unknown_nick() -> None:
    data = b">ghost: AB 8H AB +8 8\n#player1 a A\n#player2 b B\n"
    with pytest.raises(gcg.GcgError) as err:
        gcg.read(data)
    assert err.value.line == 1 and "'ghost'" in str(err.value)


def test_two_players_with_one_nick() -> None:
    with pytest.raises(gcg.GcgError, match="two players have the nick 'a'"):
        gcg.read(b"#player1 a Anna\n#player2 a Alex\n")


def test_written_names_stay_on_one_line() -> None:
    record = gcg.GcgRecord(players=[gcg.GcgPlayer("a", "Anna\nB"), gcg.GcgPlayer("b", "Ben")], title="x\ry")
    text = gcg.write(record)
    assert "#player1 a Anna B" in text and "#title x y" in text
    assert gcg.read(text.encode("utf-8")).players[0].name == "Anna B"
