"""The moment a table is at: journaled when it changes, stored as JSON, put back by a restore."""

from __future__ import annotations

import json
import random
import pytest
from tablehelpers import Rig, rig

from drivers.buttons.logic import Role
from engine.board import Square
from engine.clock import GameClock, MoveTimer
from engine.tiles import get_tile_set
from scoreboard.controller import Committed, Record
from scoreboard.controller.moments import moment_of
from scoreboard.controller.records import Moment
from scoreboard.controller.state import (
    Adjusting, Asking, BlankPick, Clocks, Confirming, Idle, Menu, Reading, Waiting, Window,
)
from scoreboard.journal_format import MOMENT_KIND, CodecError, decode_entry, encode_record
from scoreboard.screens.models import ConfirmKind

GERMAN = get_tile_set("german")

MOMENTS = [
    Moment(Idle()),
    Moment(Reading((Waiting(0, 1.0, 2.5), Waiting(1, 1.2, 2.7, long=True)))),
    Moment(Confirming(ConfirmKind.EXCHANGE, 1, (b"\x04\x01",), (b"\x04\x02",), frozenset({b"\x04\x03", b"\x04\x04"}))),
    Moment(Menu(3, BlankPick(0, ((Square.from_name("H8"), b"\x04\xaa"),), ("E",), ("A", "B"), 1))),
    Moment(Adjusting(1, 0, -7, Reading((Waiting(0, 1.0, 2.5),)))),
    Moment(Asking(ConfirmKind.ADJUST, 0, 12.5, 1, 12, Idle()), paused_since=11.0),
    Moment(
        Idle(), Window(0, 20.5, 20.0, True, frozenset({1, 2})),
        Clocks(GameClock((1.5, 2.25, 0.0), 1, 7.5, 1500.0), MoveTimer(1, 7.5, True), 7.5),
        ((3.0, 1),), 3.5, 9.0, None, "fr", 3,
    ),
]


@pytest.mark.parametrize("moment", MOMENTS, ids=lambda m: type(m.mode).__name__)
def test_every_moment_round_trips_through_json(moment: Moment) -> None:
    kind, payload = encode_record(moment)
    assert kind == MOMENT_KIND
    assert decode_entry(kind, json.loads(json.dumps(payload)), GERMAN) == moment


def test_a_damaged_or_forged_moment_is_a_codec_error_naming_where() -> None:
    _, good = encode_record(MOMENTS[-1])
    bad = [
        ({**good, "mode": {"$": "Exploit"}}, "moment.mode"),
        ({**good, "mode": {"$": "Menu", "selected": "2"}}, "moment.mode.selected"),
        ({**good, "window": {**good["window"], "deadline": "soon"}}, "moment.window.deadline"),
        ({**good, "clocks": {**good["clocks"], "game": {**good["clocks"]["game"], "used": [1, "x"]}}}, "moment.clocks.game.used[1]"),
        ({**good, "challenges": [[1.0]]}, "moment.challenges[0]"),
        ({**good, "mode": {"$": "Confirming", "kind": "nonsense", "seat": 0}}, "moment.mode.kind"),
        ({**good, "mode": {"$": "Confirming", "kind": "pass", "seat": 0, "rack": ["zz"]}}, "moment.mode.rack[]"),
        ({**good, "surprise": 1}, "moment"),
        ({k: v for k, v in good.items() if k != "mode"}, "moment"),
    ]
    for payload, where in bad:
        with pytest.raises(CodecError) as e:
            decode_entry(MOMENT_KIND, payload, GERMAN)
        assert str(e.value).startswith(where + ":"), (where, str(e.value))


def test_fuzzed_moments_are_a_value_or_a_codec_error() -> None:
    rng = random.Random(12)
    junk: list[object] = [None, 0, -1, 1.5, float("1e308"), "", "H8", "zz", [], {}, [1, 2], {"$": "Idle"}, True]
    for _ in range(500):
        _, payload = encode_record(rng.choice(MOMENTS))
        payload = json.loads(json.dumps(payload))
        node = payload
        for _ in range(rng.randint(0, 3)):  # a random place in the tree
            children = [k for k, v in node.items() if isinstance(v, dict)] if isinstance(node, dict) else []
            if not children:
                break
            node = node[rng.choice(children)]
        if isinstance(node, dict) and node:
            node[rng.choice(list(node))] = rng.choice(junk)
        try:
            decoded = decode_entry(MOMENT_KIND, payload, GERMAN)
        except CodecError:
            continue
        assert isinstance(decoded, Moment)


def played_into_menu(r: Rig) -> None:
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.menu()
    r.menu()  # the menu on its second item


def test_each_step_that_changes_the_moment_journals_it_and_no_other() -> None:
    r = rig("de", 2, words=("HAUS",))
    played_into_menu(r)
    moments = [rec for rec in r.journal if isinstance(rec, Moment)]
    assert moments and moments[-1] == moment_of(r.state)
    assert isinstance(moments[-1].mode, Menu) and moments[-1].mode.selected == 1
    count = len(moments)
    r.tick(0.05)  # time passes, the moment stays
    assert len([rec for rec in r.journal if isinstance(rec, Moment)]) == count


def test_a_restore_on_the_same_clock_is_the_state_at_the_cut() -> None:
    r = rig("de", 2, words=("HAUS",))
    played_into_menu(r)
    before = r.state
    s, _ = r.table.restore(list(r.journal), r.now, paused=False)
    assert s.mode == before.mode and isinstance(s.mode, Menu)
    assert s.phase.window == before.phase.window  # type: ignore[union-attr]
    assert moment_of(s) == moment_of(before)


def test_a_restore_on_a_new_clock_keeps_the_menu_but_no_times() -> None:
    r = rig("de", 2, words=("HAUS",))
    played_into_menu(r)
    s, _ = r.table.restore(list(r.journal), 0.0, paused=True)
    assert isinstance(s.mode, Menu) and s.mode.selected == 1
    assert s.halt is not None and s.halt.paused


def test_a_done_being_read_is_dropped_by_a_restore_on_a_new_clock_and_kept_on_the_same() -> None:
    r = rig("de", 2, words=("HAUS",))
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.press(1, Role.DONE, read=False)
    assert isinstance(r.state.mode, Reading)
    records: list[Record] = list(r.journal)
    same, _ = r.table.restore(records, r.now, paused=False)
    assert same.mode == r.state.mode
    other, _ = r.table.restore(records, 0.0, paused=True)
    assert isinstance(other.mode, Idle)
    assert not any(isinstance(rec, Committed) for rec in records[-1:])
