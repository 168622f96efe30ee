"""Controller records through the journal's JSON and back."""

from __future__ import annotations

import json

import pytest
from tablehelpers import rig

from engine.rules import RuleProfile
from scoreboard.controller import ClockState, Committed, Started
from scoreboard.journal_format import (
    CLOCK_KIND,
    COMMAND_KIND,
    MOMENT_KIND,
    CodecError,
    decode_entry,
    decode_meta,
    encode_meta,
    encode_record,
)


def played() -> list[object]:
    r = rig("de", 2, words=("HAUS",))
    r.draw_first("AE")
    r.deal({0: "HAU?TEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:?")
    r.done(1)
    r.challenge(2)  # HAUS is valid: Ben loses 5
    r.draw(0, "IRDE")
    r.to_bag(1, "AB", read=False)
    r.draw(1, "EE")
    r.done(2, long=True)
    return list(r.journal)


def test_records_round_trip_through_json() -> None:
    records = played()
    started = records[0]
    assert isinstance(started, Started)
    assert decode_meta(json.loads(json.dumps(encode_meta(started)))) == started
    tile_set = RuleProfile.from_rules_line(started.rules).tile_set
    kinds = set()
    for record in records[1:]:
        kind, payload = encode_record(record)  # type: ignore[arg-type]
        kinds.add(kind)
        again = decode_entry(kind, json.loads(json.dumps(payload)), tile_set)
        assert again == record
    assert kinds == {COMMAND_KIND, MOMENT_KIND}  # no clock in this game
    assert any(isinstance(r, Committed) and r.laid for r in records)
    assert any(isinstance(r, Committed) and r.returned for r in records)


def test_unknown_kinds_are_skipped_and_bad_entries_refused() -> None:
    tile_set = RuleProfile.from_rules_line("de").tile_set
    assert decode_entry("something-newer", {}, tile_set) is None
    with pytest.raises(CodecError, match="not hex"):
        decode_entry(COMMAND_KIND, {"type": "draw", "player": 0, "tiles": "A", "tags": {"drawn": ["zz"]}}, tile_set)
    with pytest.raises(CodecError, match="clock entry"):
        decode_entry(CLOCK_KIND, {"used": ["1"]}, tile_set)
    assert decode_meta({"rules": "#rules de", "players": ["A", "B"]}) == Started("de", ("A", "B"), 0)  # older metas
    with pytest.raises(CodecError, match="'first' is not a seat number"):
        decode_meta({"rules": "de", "players": ["A", "B"], "first": True})
    assert decode_entry(CLOCK_KIND, {"used": [1, 2.5]}, tile_set) == ClockState((1.0, 2.5))
