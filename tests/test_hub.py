"""The hub's core without a broker: records in any order, doubles, gaps, the engine's second
opinion, the broadcast delay, hidden racks, standings; the messages' checks; the cursor; the
broker's setup files."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mqtthelpers import wait_for
from test_broadcast import Table

from scoreboard.broadcast.cursor import Mark, PublishLog
from scoreboard.broadcast.messages import (
    BadMessage,
    Listed,
    RecordMessage,
    ResendMessage,
    StateMessage,
    StatusMessage,
    Topics,
    decode_record,
    decode_resend,
    decode_state,
    encode,
)
from scoreboard.cli import main
from scoreboard.config import ConfigError, load_config
from scoreboard.hub.core import GAP_WAIT_S, Hub, Resend
from scoreboard.hub.setup import (
    HUB_USER,
    Setup,
    SetupError,
    acl_text,
    password_hash,
    table_names,
    write_setup,
)
from scoreboard.journal import Journal

TOPICS = Topics("scoreboard", "open")
REC = "scoreboard/open/t1/records"
STATE = "scoreboard/open/t1/state"


def played(folder: Path) -> tuple[list[RecordMessage], str]:
    """A whole game's records as the board publishes them, and its GCG from the journal."""
    table = Table(folder, None)
    table.opening()
    table.passes(4)
    gcg = table.gcg()
    table.close()
    log = PublishLog(folder / "journal.db", "open")
    items = log.pending({}, 10_000)
    log.close()
    return [i.message for i in items], gcg


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[RecordMessage], str]:
    return played(tmp_path_factory.mktemp("board"))


def test_records_out_of_order_wait_for_the_gap_and_doubles_are_dropped(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    records, gcg = game
    hub = Hub(TOPICS, tmp_path)
    start, first, second, *rest = records
    assert hub.receive(REC, encode(start), 1.0) == "t1"
    assert hub.receive(REC, encode(second), 2.0) == "t1"  # seq 2 before seq 1
    g = hub.tables["t1"].games["t1-1"]
    assert g.applied == 0 and g.gap_since == 2.0
    assert hub.resends(2.0 + GAP_WAIT_S - 0.1) == []
    assert hub.resends(2.0 + GAP_WAIT_S) == [Resend("t1", first.journal, 1, 1)]  # asked for from seq 1
    assert hub.resends(2.0 + GAP_WAIT_S + 1) == []  # (not again at once)
    hub.receive(REC, encode(first), 3.0)
    assert g.applied == 2 and g.gap_since is None
    assert hub.receive(REC, encode(first), 3.5) is None and hub.doubles == 1  # a double: dropped
    for r in rest:
        hub.receive(REC, encode(r), 4.0)
    assert hub.gcg("t1-1", 10.0) == gcg and not g.flags
    hub.close()
    again = Hub(TOPICS, tmp_path)  # the hub restarted: its games come back from their files
    assert again.gcg("t1-1", 10.0) == gcg
    again.close()


def test_the_engine_flags_a_record_it_refuses_and_scores_that_differ(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    records, _ = game
    hub = Hub(TOPICS, tmp_path)
    for r in records[:4]:
        hub.receive(REC, encode(r), 1.0)
    g = hub.tables["t1"].games["t1-1"]
    state = StateMessage(1, g.applied, {"scores": [999, 0]}, 1.0, records[0].journal)
    hub.receive("scoreboard/open/t1/state", encode(state), 1.5)
    assert any("the board says [999, 0]" in f.what for f in g.flags)
    forged = RecordMessage(1, g.applied + 1, "command", {"type": "pass", "player": 7}, 0.0, journal=g.journal)
    hub.receive(REC, encode(forged), 2.0)
    assert any(f.seq == forged.seq and "refuses" in f.what for f in g.flags)
    assert hub.summary("t1", 3.0)["game"]["flags"]  # shown on the pages
    hub.close()


def test_the_delay_holds_back_everything_and_racks_wait_for_the_end(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    records, gcg = game
    hub = Hub(TOPICS, tmp_path, delay=60.0)
    for i, r in enumerate(records):
        hub.receive(REC, encode(r), 100.0 + i)
    last = 100.0 + len(records) - 1
    assert hub.summary("t1", hub.cutoff(100.5))["game"] is None  # nothing yet, a minute behind
    mid = hub.summary("t1", hub.cutoff(165.0))["game"]
    assert mid is not None and mid["racks"] is None and not mid["over"]  # racks hidden in play
    partial = hub.gcg("t1-1", hub.cutoff(165.0))
    assert partial is not None and "ROSE" not in partial and "#rack" not in partial
    assert ">Anna:  8G" not in partial and "HAUSTEN" not in partial  # no rack on any line
    last_command = 100.0 + max(i for i, r in enumerate(records) if r.kind == "command")
    assert hub.gcg("t1-1", hub.cutoff(last_command + 59)) != gcg
    end = hub.summary("t1", hub.cutoff(last + 60))["game"]
    assert end["over"] and end["racks"] is not None  # the game over: racks shown
    assert hub.gcg("t1-1", hub.cutoff(last + 60)) == gcg
    standings = hub.standings(hub.cutoff(last + 60))
    assert [r["name"] for r in standings] == ["Anna", "Ben"] and standings[0]["wins"] == 1.0
    assert standings[0]["spread"] == -standings[1]["spread"] > 0
    hub.close()
    shown = Hub(TOPICS, tmp_path / "other", racks="delayed")
    for r in records[:5]:
        shown.receive(REC, encode(r), 1.0)
    assert shown.summary("t1", 2.0)["game"]["racks"] is not None
    shown.close()


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b"[1, 2]", "not a JSON object"),
        (b'{"v": 1, "game": 0, "seq": 1, "kind": "command", "payload": {}, "at": 0}', "game 0"),
        (b'{"v": 1, "game": 1, "seq": 0, "kind": "command", "payload": {}, "at": 0}', "seq 0"),
        (b'{"v": 1, "game": 1, "seq": 1, "kind": "command", "payload": [], "at": 0}', "payload is not"),
        (b'{"v": 1, "game": 1, "seq": 0, "kind": "$start", "payload": {}, "at": 0}', "needs meta"),
        (b'{"v": 1, "game": 1, "seq": 3, "kind": "$result", "payload": {}, "at": 0}', "no seq"),
        (b'{"v": 1, "game": 1, "seq": 1, "kind": "command", "payload": {}, "at": "now"}', "at 'now'"),
        (b'{"v": 1, "game": true, "seq": 1, "kind": "command", "payload": {}, "at": 0}', "game True"),
        (b"x" * (1 << 21), "more than"),
    ],
)
def test_a_bad_record_is_refused_with_its_topic_and_bytes(payload: bytes, reason: str) -> None:
    with pytest.raises(BadMessage) as refused:
        decode_record(REC, payload)
    assert reason in refused.value.reason and refused.value.topic == REC
    assert refused.value.payload == payload[: len(refused.value.payload)]


def test_messages_round_trip_and_topics_split() -> None:
    message = RecordMessage(3, 12, "command", {"type": "pass", "player": 0}, 81.5, 1767000000.25)
    assert decode_record(REC, encode(message)) == message
    assert TOPICS.split("scoreboard/open/table-07/state") == ("table-07", "state")
    assert TOPICS.split("scoreboard/other/t1/state") is None and TOPICS.split("scoreboard/open/a/b/c") is None
    with pytest.raises(BadMessage):
        decode_resend("x", b'{"v": 1, "game": 1, "from": -1}')
    assert Hub(TOPICS, Path("/nonexistent-hub")).receive("elsewhere/t", b"{}", 0.0) is None


def test_the_cursor_orders_games_entries_and_results_and_starts_at_the_current_game(tmp_path: Path) -> None:
    table = Table(tmp_path, None)
    table.opening()
    table.passes(4)
    table.close()
    log = PublishLog(tmp_path / "journal.db", "open")
    items = log.pending({}, 1000)
    kinds = [i.message.kind for i in items]
    assert kinds[0] == "$start" and kinds[-1] == "$result" and "command" in kinds
    assert [i.message.seq for i in items[1:-1]] == list(range(1, len(items) - 1))
    assert log.pending({1: Mark(5)}, 2)[0].message.seq == 6
    log.start_here()  # the journal's games that ended before publishing was on: taken as published
    marks = log.marks()
    assert marks[1].seq == len(items) - 2 and marks[1].finished is not None
    assert log.pending(marks, 10) == []
    log.close()


def test_setup_writes_users_an_acl_and_each_boards_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "setup", "--event", "open", "--count", "3", "--out", str(tmp_path / "s"),
                 "--broker-host", "10.0.0.2"]) == 0
    out = tmp_path / "s"
    users = dict(line.split(":", 1) for line in (out / "passwd").read_text().splitlines())
    assert sorted(users) == [HUB_USER, "table-01", "table-02", "table-03"]
    board = (out / "boards" / "table-02.toml").read_text()
    assert 'table = "table-02"' in board and 'host = "10.0.0.2"' in board and "enabled = true" in board
    password = next(line.split('"')[1] for line in board.splitlines() if line.startswith("password"))
    _, _, rounds, salt, digest = users["table-02"].split("$")
    assert base64.b64encode(hashlib.pbkdf2_hmac("sha512", password.encode(), base64.b64decode(salt), int(rounds))).decode() == digest
    assert (out / "boards" / "table-02.toml").stat().st_mode & 0o077 == 0
    conf = (out / "mosquitto.conf").read_text()
    assert "allow_anonymous false" in conf and f"acl_file {out.resolve() / 'acl'}" in conf
    assert conf.index("listener 1883") < conf.index("use_username_as_clientid true")  # (a listener's setting)
    assert "max_queued_messages 100000\nmax_queued_bytes 67108864\n" in conf  # (64 MiB: an hour of 200 tables' records)
    acl = (out / "acl").read_text()
    assert "user table-03\ntopic write scoreboard/open/table-03/records" in acl
    assert load_config(out / "hub.toml").hub.tables == ("table-01", "table-02", "table-03")  # (the venue lists them)
    assert main(["hub", "setup", "--event", "open", "--count", "3", "--out", str(out)]) == 2  # kept: --force
    assert "--force" in capsys.readouterr().err
    assert password_hash("x", b"s" * 12, 101).startswith("$7$101$")


@pytest.mark.parametrize(
    "kw, what",
    [
        ({"event": "a/b"}, "--event"),
        ({"tables": ("t1", "t1")}, "--tables"),
        ({"tables": ("hub",)}, "--tables"),
        ({"tables": ("t+",)}, "--tables"),
        ({"tls_cert": Path("/c.pem")}, "--tls-cert"),
    ],
)
def test_setup_refuses_what_makes_no_broker(tmp_path: Path, kw: dict[str, object], what: str) -> None:
    args: dict[str, object] = {"event": "open", "tables": ("t1",), "out": tmp_path, **kw}
    with pytest.raises(SetupError) as refused:
        write_setup(Setup(**args))  # type: ignore[arg-type]
    assert refused.value.what == what
    with pytest.raises(SetupError):
        table_names(None, 0)


@pytest.mark.parametrize(
    "value, why",
    [
        ('"t1"', "is a string, not a list of strings"),
        ('["t1", 2]', "table 2 (2) is a whole number"),
        ('["t1", "a/b"]', "table 2 (\"a/b\") is not allowed"),
        ('["t1", "t1"]', "gives a table twice"),
        ("[" + ", ".join(f'"t{n}"' for n in range(1001)) + "]", "has 1001 tables"),
    ],
)
def test_the_hubs_tables_are_checked(value: str, why: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(None, [f"hub.tables={value}"])
    assert refused.value.key == "hub.tables" and why in str(refused.value)


def test_the_venue_lists_the_events_tables_never_heard_of_and_the_others_from_their_first_message(
    tmp_path: Path
) -> None:
    hub = Hub(TOPICS, tmp_path, delay=60.0, tables=("t1", "t2"))
    hub.receive("scoreboard/open/t3/status", encode(StatusMessage(True)), 100.0)
    hub.receive("scoreboard/open/t1/status", encode(StatusMessage(False)), 100.0)
    venue = hub.venue(hub.cutoff(150.0))  # (t3 is not heard of yet at the cutoff; t1 neither)
    assert [(t["table"], t["never"], t["online"]) for t in venue["tables"]] == [("t1", True, None), ("t2", True, None)]
    venue = hub.venue(hub.cutoff(160.0))
    assert [(t["table"], t["never"], t["online"]) for t in venue["tables"]] == [
        ("t1", False, False), ("t2", True, None), ("t3", False, True)]
    hub.close()
    again = Hub(TOPICS, tmp_path, delay=60.0, tables=("t1", "t2"))  # (when a table was first heard of is kept)
    assert again.listed(again.cutoff(150.0)) == ["t1", "t2"] and again.venue(100.0) == venue
    again.close()


def test_a_tls_setup_listens_with_the_certificate(tmp_path: Path) -> None:
    setup = Setup("open", ("t1",), tmp_path, port=8883, tls_cert=Path("/etc/c.pem"), tls_key=Path("/etc/k.pem"),
                  tls_ca=Path("/etc/ca.pem"))
    write_setup(setup)
    conf = (tmp_path / "mosquitto.conf").read_text()
    assert "listener 8883" in conf and "certfile /etc/c.pem" in conf and "cafile /etc/ca.pem" in conf
    assert 'tls_ca = "/etc/ca.pem"' in (tmp_path / "boards" / "t1.toml").read_text()
    assert "topic read scoreboard/open/t1/resend" in acl_text(setup)
    json.dumps(setup.tables)


def test_records_without_their_games_start_ask_for_it(tmp_path: Path, game: tuple[list[RecordMessage], str]) -> None:
    records, gcg = game
    hub = Hub(TOPICS, tmp_path)
    for r in records[1:]:
        hub.receive(REC, encode(r), 1.0)  # the start was lost
    assert hub.resends(1.0 + GAP_WAIT_S) == [Resend("t1", records[0].journal, 1, 0)]  # asked for from the start
    hub.receive(REC, encode(records[0]), 5.0)
    assert hub.gcg("t1-1", 6.0) == gcg and hub.tables["t1"].games["t1-1"].gap_since is None
    hub.close()


def test_a_state_naming_a_game_the_hub_has_nothing_of_asks_for_all_of_it(tmp_path: Path) -> None:
    hub = Hub(TOPICS, tmp_path)  # a hub started after the board's game (its retained state arrives)
    hub.receive("scoreboard/open/t1/state", encode(StateMessage(4, 17, {"scores": [10, 0]}, 0.0)), 1.0)
    assert hub.resends(1.0) == []
    assert hub.resends(1.0 + GAP_WAIT_S) == [Resend("t1", None, 4, 0)]
    assert hub.resends(2.0 + GAP_WAIT_S) == []  # (not again at once)
    hub.close()


def test_the_pages_get_each_change_the_delay_after_it_arrived(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """The push of a change waits for the broadcast delay; what it carries is the table as it
    was then (a clock of our own: the delay is 60 s, the loop's timers are shortened to match)."""
    import asyncio

    pytest.importorskip("starlette", reason="starlette is missing: pip install 'scoreboard[play]'")
    from scoreboard.hub.web import Page, Pusher

    records, _ = game
    hub = Hub(TOPICS, tmp_path, delay=60.0)
    now = [1000.0]
    pusher = Pusher(hub, clock=lambda: now[0])
    waits: list[float] = []

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        pusher.loop = loop
        real_later = loop.call_later

        def later(wait: float, callback: object, *args: object) -> asyncio.TimerHandle:
            if getattr(callback, "__func__", None) is not Pusher._push:
                return real_later(wait, callback, *args)  # type: ignore[arg-type]
            waits.append(wait)
            now[0] += wait  # (the time the push is due)
            return real_later(0.01, callback, *args)  # type: ignore[arg-type]

        loop.call_later = later  # type: ignore[method-assign]
        page = Page("venue", None)
        pusher.pages.add(page)
        for r in records[:6]:
            hub.receive(REC, encode(r), now[0])
        pusher.changed("t1", now[0])
        await asyncio.sleep(0.2)
        return [page.queue.get_nowait() for _ in range(page.queue.qsize())]

    sent = asyncio.run(main())
    assert waits == [60.0]  # pushed the delay after it arrived
    [message] = sent
    summary = json.loads(message)["summary"]
    assert summary["game"]["seq"] == 5 and summary["game"]["racks"] is None  # as it was then; racks hidden
    hub.close()


def test_a_play_challenged_off_is_not_the_last_play() -> None:
    """The table page's last play is the latest play still on the board: HAUS challenged off
    leaves none (it was shown with its 10 points next to a score of 0); the next play is it."""
    import random

    from engine import Game, Placement, SetLexicon, get_profile
    from scoreboard.hub.game import last_standing_play

    game = Game(get_profile("de"), ["Anna", "Ben"], rng=random.Random(1))
    game.draw(0, "HAUSTEN")
    game.draw(1, "ABENDRO")
    game.play(0, Placement.from_gcg("8E", "HAUS", game.board, game.tile_set))
    game.challenge(1, SetLexicon([]))  # HAUS is not in this lexicon: taken back
    assert last_standing_play(game.events) is None
    game.play(1, Placement.from_gcg("8E", "ABEND", game.board, game.tile_set))
    stood = last_standing_play(game.events)
    assert stood is not None and stood.word == "ABEND"


# --- the cursor per event (games played with publishing off, or for another event) ---------

META = {"rules": "de", "players": ["A", "B"], "first": 0}


def _game(journal: Journal, entries: int, finished: bool) -> int:
    game = journal.start_game(META, [("k", {"n": n}, float(n)) for n in range(entries)])
    if finished:
        journal.finish(game, {"termination": "out", "rows": [], "winners": [0]})
    return game


def _marks(db: Path, event: str) -> dict[int, Mark]:
    log = PublishLog(db, event)
    try:
        return log.marks()
    finally:
        log.close()


def _pending(db: Path, event: str) -> list[tuple[int, int | None]]:
    log = PublishLog(db, event)
    try:
        log.start_here()
        return [(i.message.game, i.message.seq) for i in log.pending(log.marks(), 1000)]
    finally:
        log.close()


def test_a_new_event_takes_the_games_finished_before_and_the_same_event_loses_nothing(tmp_path: Path) -> None:
    """Event A with publishing on (game 1 not wholly taken by the broker), home games with
    publishing off (2, 3), game 4 in progress when the board is set up for event B: B gets
    game 4 from its start and nothing of the others; off and on again within B, game 4's
    result is published, not a game played meanwhile; back to A, A's own leftovers only."""
    with Journal.open(tmp_path) as journal:
        db = journal.path
        first = _game(journal, 3, finished=False)
        log = PublishLog(db, "A")
        log.start_here()
        assert [(i.message.game, i.message.seq) for i in log.pending(log.marks(), 100)] == [(1, 0), (1, 1), (1, 2), (1, 3)]
        log.save({first: Mark(2)})  # the broker took up to seq 2; then publishing is off
        log.close()
        journal.finish(first, {"termination": "out", "rows": [], "winners": [0]})
        _game(journal, 2, finished=True)
        _game(journal, 2, finished=True)
        _game(journal, 2, finished=False)
        assert _pending(db, "B") == [(4, 0), (4, 1), (4, 2)]  # (before: games 1, 2 and 3 too)
        log = PublishLog(db, "B")
        assert log.taken() == {1, 2, 3}
        log.save({4: Mark(2)})
        log.close()
        journal.finish(4, {"termination": "out", "rows": [], "winners": [0]})
        _game(journal, 1, finished=True)  # played with publishing off a while: not B's
        assert _pending(db, "B") == [(4, None)]  # (before: game 5 too)
        assert _pending(db, "A") == [(1, 3), (1, None)]  # back to A: its own leftover, not B's games
    assert _pending(db, "A") == [(1, 3), (1, None)]  # (A is the latest event now: as it was)


def test_games_played_with_publishing_off_between_two_days_of_one_event_are_not_its(tmp_path: Path) -> None:
    """Day 1: game 1 published, game 2 started and game 3 started and finished within one poll
    (claimed, none of it sent: the broker was out of reach); evening: games 4 and 5 with
    publishing off, game 6 left in progress; day 2, same event: games 2, 3 and 6 are published,
    not 4 nor 5."""
    with Journal.open(tmp_path) as journal:
        db = journal.path
        first = _game(journal, 3, finished=False)
        log = PublishLog(db, "open")
        log.start_here()
        journal.finish(first, {"termination": "out", "rows": [], "winners": [0]})
        log.save({first: log.pending({}, 100)[-1].mark})
        assert log.claim() == []
        _game(journal, 2, finished=True)
        _game(journal, 1, finished=True)
        assert log.claim() == [2, 3] and log.claim() == []
        assert set(log.marks()) == {1, 2, 3} and log.marks()[2] == Mark()
        log.close()
        _game(journal, 2, finished=True)
        _game(journal, 2, finished=True)
        _game(journal, 1, finished=False)
        assert _pending(db, "open") == [(2, 0), (2, 1), (2, 2), (2, None), (3, 0), (3, 1), (3, None), (6, 0), (6, 1)]
        log = PublishLog(db, "open")
        assert log.taken() == {4, 5}
        log.close()


def test_a_publisher_out_of_reach_of_its_broker_claims_the_games_started_meanwhile(tmp_path: Path) -> None:
    from scoreboard.broadcast.publisher import Publisher
    from scoreboard.config import BroadcastConfig
    from scoreboard.hub.broker import free_port

    with Journal.open(tmp_path) as journal:
        db = journal.path
        p = Publisher(BroadcastConfig(enabled=True, event="open", table="t1", host="127.0.0.1", port=free_port()), db)
        p.start()
        try:
            _game(journal, 2, finished=True)  # played whole while the broker is out of reach
            p.journaled(1, range(1, 3))
            wait_for(lambda: _marks(db, "open") == {1: Mark()}, why="game 1 claimed")
        finally:
            p.stop(0)
        assert not p.connected
    assert _pending(db, "open") == [(1, 0), (1, 1), (1, 2), (1, None)]


def test_a_legacy_cursor_of_no_event_leaks_nothing_into_the_first_event(tmp_path: Path) -> None:
    with Journal.open(tmp_path) as journal:
        db = journal.path
        _game(journal, 2, finished=True)
        _game(journal, 2, finished=True)
        _game(journal, 1, finished=False)
    with sqlite3.connect(db) as conn:  # what the migration made of a schema-3 cursor
        conn.execute("INSERT INTO broadcast_cursor VALUES ('', 1, 2, NULL, 1)")
    conn.close()
    assert _pending(db, "open") == [(3, 0), (3, 1)]


# --- journals told apart ------------------------------------------------------------------

J1, J2 = "1" * 32, "2" * 32


def test_games_of_two_journals_at_one_table_are_kept_apart_and_keep_their_numbers(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """A board's game 1 and a spare's game 1 at the same table (and a board that sends no
    identity): three games, the first journal's keyed by the board's number, the others by
    their journal's tag, the keys kept when the hub restarts; each GCG is its own journal's."""
    records, gcg = game
    short = records[:8]  # the spare's game 1: the same opening, cut short
    alone = Hub(TOPICS, tmp_path / "alone")
    for r in short:
        alone.receive(REC, encode(r), 1.0)
    short_gcg = alone.tables["t1"].games["t1-1"].gcg(7, racks=False)
    alone.close()
    hub = Hub(TOPICS, tmp_path / "hub")
    for r in records:
        hub.receive(REC, encode(replace(r, journal=J1)), 1.0)
    for r in short:
        assert hub.receive(REC, encode(replace(r, journal=J2)), 2.0) == "t1"  # (no double: another journal's)
    for r in short[:3]:
        hub.receive(REC, encode(replace(r, journal=None)), 3.0)  # (an old board: the anonymous journal)
    feed = hub.tables["t1"]
    keys = [("t1-1", J1, 1), ("t1.222222-1", J2, 1), ("t1.anon-1", None, 1)]
    assert [(k, g.journal, g.game) for k, g in feed.games.items()] == keys
    assert hub.gcg("t1-1", 10.0) == gcg and hub.tables["t1"].games["t1.222222-1"].gcg(7, racks=False) == short_gcg
    assert [g["key"] for g in hub.games(10.0)] == ["t1-1", "t1.222222-1", "t1.anon-1"]
    hub.close()
    again = Hub(TOPICS, tmp_path / "hub")  # restarted: the keys come back from the files
    assert sorted((k, g.journal or "", g.game) for k, g in again.tables["t1"].games.items()) == sorted(
        (k, j or "", n) for k, j, n in keys)
    again.receive(REC, encode(replace(records[8], journal=J2)), 11.0)
    assert again.tables["t1"].games["t1.222222-1"].applied == 8 and again.gcg("t1-1", 20.0) == gcg
    again.receive(REC, encode(replace(records[0], journal=J2, game=2)), 12.0)  # the spare's next game
    assert again.tables["t1"].games["t1.222222-2"].origin == (J2, 2)
    j3 = "2222220" + "3" * 25  # (a third journal sharing the spare's first 6 hex digits: a longer tag)
    again.receive(REC, encode(replace(records[0], journal=j3)), 13.0)
    assert again.keys["t1.22222203-1"].origin == (j3, 1)
    again.close()


def test_a_live_record_before_the_games_asked_again_keeps_the_boards_numbers_and_shows_the_game_in_play(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """A hub started mid-event: the board's state names game 3 in play and lists 1 and 2; a
    record of game 3 arrives before the games asked for again. Keys t1-1/2/3 are the board's
    games 1/2/3 and the table shows game 3, not the finished game the hub heard of last."""
    records, gcg = game
    g1, g2 = ([replace(r, journal=J1, game=n) for r in records] for n in (1, 2))
    g3 = [replace(r, journal=J1, game=3) for r in records[:6]]
    hub = Hub(TOPICS, tmp_path)
    listed = (Listed(3, g3[-2].seq or 0, False), Listed(2, g2[-2].seq or 0, True), Listed(1, g1[-2].seq or 0, True))
    state = StateMessage(3, g3[-1].seq or 0, {"phase": "playing", "names": ["Anna", "Ben"]}, 0.0, J1, listed)
    hub.receive("scoreboard/open/t1/state", encode(state), 10.0)
    hub.receive(REC, encode(g3[-1]), 11.0)  # (a Done just before the resend goes out)
    assert hub.resends(11.0) == []
    assert [(a.game, a.start) for a in hub.resends(11.0 + GAP_WAIT_S)] == [(1, 0), (2, 0), (3, 0)]
    for r in g1 + g2 + g3[:-1]:
        hub.receive(REC, encode(r), 15.0)
    shown = hub.summary("t1", 20.0)
    assert (shown["game"]["origin"]["game"], shown["game"]["over"], shown["state"]["game"]) == (3, False, 3)
    assert shown["game"]["key"] == "t1-3" and {k: g.game for k, g in hub.keys.items()} == {"t1-1": 1, "t1-2": 2, "t1-3": 3}
    assert hub.gcg("t1-1", 20.0) == gcg and [g["key"] for g in hub.games(20.0)] == ["t1-1", "t1-2", "t1-3"]
    hub.receive("scoreboard/open/t1/state", encode(replace(state, game=None, journal=None)), 21.0)
    assert hub.summary("t1", 22.0)["game"]["key"] == "t1-3"  # (a state naming no game: the game started last)
    hub.close()


def test_an_earlier_hubs_files_numbered_as_it_heard_of_the_games_get_the_boards_numbers(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """Files of a hub that numbered games as it heard of them (no key kept, an origin): keyed by
    the board's numbers once loaded, the journal of its game 1 taken as the table's first;
    a new game of the board after them gets a file of its own."""
    records, gcg = game
    hub = Hub(TOPICS, tmp_path)
    heard = [(J1, 3), (J1, 1), (J2, 1)]  # the earlier hub's t1-1, t1-2, t1-3
    for n, (journal, number) in enumerate(heard, 1):
        for r in records:
            hub.receive(REC, encode(replace(r, journal=journal, game=number)), 1.0)
    hub.close()
    folder = tmp_path / "open" / "t1"
    for path in folder.glob("game-*.sqlite"):
        path.rename(path.with_name(path.name + ".x"))
    for path in sorted(folder.glob("game-*.x")):
        with sqlite3.connect(path) as conn:  # (as the earlier hub wrote it: game-N by arrival, no key)
            origin = json.loads(conn.execute("SELECT value FROM game WHERE key = 'origin'").fetchone()[0])
            conn.execute("DELETE FROM game WHERE key = 'key'")
        conn.close()
        path.rename(folder / f"game-{heard.index((origin['journal'], origin['game'])) + 1}.sqlite")
    again = Hub(TOPICS, tmp_path)
    assert again.gcg("t1-1", 10.0) == again.gcg("t1-3", 10.0) == gcg  # (the board's game 1 and 3 at their numbers)
    assert again.tables["t1"].games["t1-3"].origin == (J1, 3)
    assert {k: g.origin for k, g in again.keys.items()} == {"t1-3": (J1, 3), "t1-1": (J1, 1), "t1.222222-1": (J2, 1)}
    assert again.gcg("t1-3", 10.0) == gcg
    again.receive(REC, encode(replace(records[0], journal=J1, game=2)), 11.0)  # (its file's name was the earlier t1-2's)
    assert again.keys["t1-2"].origin == (J1, 2) and again.keys["t1-1"].origin == (J1, 1)
    again.close()
    third = Hub(TOPICS, tmp_path)  # (and once more)
    assert sorted(third.keys) == ["t1-1", "t1-2", "t1-3", "t1.222222-1"]
    third.close()


def test_a_game_file_the_hub_cannot_take_is_left_aside_named_and_kept(
    tmp_path: Path, game: tuple[list[RecordMessage], str], caplog: pytest.LogCaptureFixture
) -> None:
    """A file of no game (no key, no origin, not named by a number), one not SQLite, and a copy
    of a game's file: the hub starts with the others, logs each with its path, keeps them."""
    records, gcg = game
    hub = Hub(TOPICS, tmp_path)
    for r in records:
        hub.receive(REC, encode(r), 1.0)
    hub.close()
    folder = tmp_path / "open" / "t1"
    sqlite3.connect(folder / "game-x.sqlite").close()
    (folder / "game-y.sqlite").write_bytes(b"not a database, not at all" * 100)
    (folder / "game-1~2.sqlite").write_bytes((folder / "game-1.sqlite").read_bytes())
    again = Hub(TOPICS, tmp_path)
    assert list(again.keys) == ["t1-1"] and again.gcg("t1-1", 10.0) == gcg
    logged = " ".join(r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    assert all(f"game-{n}.sqlite" in logged for n in ("x", "y", "1~2")) and logged.count("left aside") == 3
    again.close()
    assert all((folder / f"game-{n}.sqlite").exists() for n in ("x", "y", "1~2"))


def test_a_hub_folder_of_before_identities_keeps_its_games_as_the_anonymous_journals(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    records, gcg = game
    hub = Hub(TOPICS, tmp_path)
    for r in records:
        hub.receive(REC, encode(replace(r, journal=None, game=5)), 1.0)
    hub.close()
    path = tmp_path / "open" / "t1" / "game-5.sqlite"
    with sqlite3.connect(path) as conn:  # (a file of before: no origin nor key, named by the board's game)
        conn.execute("DELETE FROM game WHERE key IN ('origin', 'key')")
    conn.close()
    again = Hub(TOPICS, tmp_path)
    assert again.gcg("t1-5", 10.0) == gcg and again.tables["t1"].games["t1-5"].origin == (None, 5)
    assert again.receive(REC, encode(replace(records[3], journal=None, game=5)), 11.0) is None  # a double
    again.close()


# --- a game's lost tail, asked for from the state's list -------------------------------------


def test_a_state_listing_games_asks_for_what_the_hub_lacks_of_each_its_result_too(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    records, gcg = game
    *body, result = [replace(r, journal=J1) for r in records]
    last = body[-1].seq
    assert result.kind == "$result" and last is not None
    hub = Hub(TOPICS, tmp_path)
    for r in body[:-2]:
        hub.receive(REC, encode(r), 1.0)  # the broker lost the last two records and the result
    state = "scoreboard/open/t1/state"
    hub.receive(state, encode(StateMessage(2, 3, {}, 0.0, J1, (Listed(2, 3, False), Listed(1, last, True)))), 2.0)
    assert hub.resends(2.0) == []  # (the hub waits: they may be on their way)
    later = 2.0 + GAP_WAIT_S
    assert hub.resends(later) == [Resend("t1", J1, 1, last - 1), Resend("t1", J1, 2, 0)]  # (before: game 2 alone)
    hub.receive(REC, encode(body[-2]), 3.0)
    hub.receive(REC, encode(body[-1]), 3.0)
    hub.receive(state, encode(StateMessage(2, 3, {}, 0.0, J1, (Listed(2, 3, False), Listed(1, last, True)))), 4.0)
    assert hub.resends(later + 10) == [Resend("t1", J1, 1, last + 1), Resend("t1", J1, 2, 0)]  # the result alone
    hub.receive(REC, encode(result), 5.0)
    for r in records[:4]:
        hub.receive(REC, encode(replace(r, journal=J1, game=2)), 5.0)
    assert hub.resends(later + 20) == [] and hub.gcg("t1-1", 10.0) == gcg
    other = StateMessage(1, 0, {}, 0.0, J2, (Listed(1, 0, False),))  # another journal's state: its own games
    hub.receive(state, encode(other), 6.0)
    assert hub.resends(later + 30) == []
    assert hub.resends(later + 30 + GAP_WAIT_S) == [Resend("t1", J2, 1, 0)]
    hub.close()


def test_the_journal_and_the_list_of_games_round_trip_and_old_messages_still_decode() -> None:
    state = StateMessage(2, 3, {"x": 1}, 5.0, J1, (Listed(2, 3, False), Listed(1, 40, True)))
    assert decode_state("s", encode(state)) == state
    assert json.loads(encode(state))["games"] == [[2, 3, False], [1, 40, True]]
    record = RecordMessage(3, 12, "command", {}, 1.0, None, J1)
    assert decode_record(REC, encode(record)) == record
    assert decode_resend("r", encode(ResendMessage(3, 4, J1))) == ResendMessage(3, 4, J1)
    old = decode_state("s", b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0}')
    assert (old.journal, old.games) == (None, ())
    assert decode_resend("r", b'{"v": 1, "game": 3, "from": 4}').journal is None


@pytest.mark.parametrize(
    "payload, reason",
    [
        (b'{"v": 1, "journal": "ABC", "game": 2, "seq": 3, "view": {}, "sent": 0}', "journal 'ABC'"),
        (b'{"v": 1, "journal": 7, "game": 2, "seq": 3, "view": {}, "sent": 0}', "journal 7"),
        (b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0, "games": [[1, 2]]}', "games is not"),
        (b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0, "games": [[0, 2, true]]}', "games is not"),
        (b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0, "games": [[1, 2, 1]]}', "games is not"),
        (b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0, "games": {"1": 2}}', "games is not"),
        (b'{"v": 1, "game": 2, "seq": 3, "view": {}, "sent": 0, "games": ' + json.dumps([[1, 1, True]] * 65).encode() + b"}",
         "games is not"),
    ],
)
def test_a_bad_journal_or_list_of_games_is_refused(payload: bytes, reason: str) -> None:
    with pytest.raises(BadMessage) as refused:
        decode_state("s", payload)
    assert reason in refused.value.reason
    with pytest.raises(BadMessage):
        decode_record(REC, b'{"v": 1, "journal": "' + b"g" * 32 + b'", "game": 1, "seq": 1, "kind": "command",'
                      b' "payload": {}, "at": 0}')
    with pytest.raises(BadMessage):
        decode_resend("r", b'{"v": 1, "journal": "", "game": 1, "from": 1}')


class FakeLoop:
    """The pushes' timers, run by the test on its own clock (``now[0]``)."""

    def __init__(self, now: list[float]) -> None:
        self.now = now
        self.timers: list[tuple[float, Any, tuple[Any, ...]]] = []

    def is_closed(self) -> bool:
        return False

    def call_soon_threadsafe(self, callback: Any, *args: Any) -> None:
        callback(*args)

    def call_later(self, wait: float, callback: Any, *args: Any) -> None:
        self.timers.append((self.now[0] + wait, callback, args))

    def run_until(self, when: float) -> None:
        """Advance the clock to ``when``, running each timer due on the way at its time."""
        while due := sorted((t for t in self.timers if t[0] <= when), key=lambda t: t[0]):
            at, callback, args = due[0]
            self.timers.remove(due[0])
            self.now[0] = max(self.now[0], at)
            callback(*args)
        self.now[0] = when


def test_with_a_delay_pushes_come_when_each_record_is_shown_and_carry_nothing_later(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """Two records' batches 30 s apart, a 60 s delay: nothing is pushed before the first is
    shown; its push names only its records (``taken``) and shows neither the second batch nor a
    flag the second brought; the second batch's push comes 30 s later."""
    pytest.importorskip("starlette", reason="starlette is missing: pip install 'scoreboard[play]'")
    from scoreboard.hub.web import Page, Pusher

    records, _ = game
    now = [1000.0]
    hub = Hub(TOPICS, tmp_path, delay=60.0)
    pusher = Pusher(hub, clock=lambda: now[0])
    loop = FakeLoop(now)
    pusher.loop = loop  # type: ignore[assignment]
    page = Page("table", "t1")
    pusher.pages.add(page)
    for r in records[:3]:  # the start, seq 1 and 2
        hub.receive(REC, encode(r), 1000.0)
    pusher.changed("t1", 1000.0)
    loop.run_until(1030.0)
    for r in records[3:6]:  # seq 3 to 5, and a command the engine refuses
        hub.receive(REC, encode(r), 1030.0)
    hub.receive(REC, encode(RecordMessage(1, 6, "command", {"type": "pass", "player": 7}, 0.0, 1030.5, records[0].journal)), 1030.0)
    pusher.changed("t1", 1030.0)
    assert page.queue.empty()  # (nothing before the delay)
    loop.run_until(1059.9)
    assert page.queue.empty()
    loop.run_until(1060.0)
    first = json.loads(page.queue.get_nowait())
    assert [seq for seq, _ in first["taken"]] == [1, 2] and first["summary"]["game"]["seq"] == 2
    assert first["summary"]["game"]["flags"] == [] and page.queue.empty()
    assert hub.tables["t1"].games["t1-1"].flags
    loop.run_until(1089.9)
    assert page.queue.empty()
    loop.run_until(1090.0)
    second = json.loads(page.queue.get_nowait())
    assert [seq for seq, _ in second["taken"]] == [3, 4, 5, 6] and second["summary"]["game"]["seq"] == 6
    assert second["summary"]["game"]["flags"]
    hub.close()


def test_flags_and_refusals_are_shown_at_the_cutoff(tmp_path: Path, game: tuple[list[RecordMessage], str]) -> None:
    records, _ = game
    hub = Hub(TOPICS, tmp_path, delay=60.0)
    for r in records[:4]:
        hub.receive(REC, encode(r), 100.0)
    hub.receive(REC, encode(RecordMessage(1, 4, "command", {"type": "pass", "player": 7}, 0.0, journal=records[0].journal)), 130.0)
    hub.receive(REC, b"{not json", 130.0)
    g = hub.tables["t1"].games["t1-1"]
    hub.receive("scoreboard/open/t1/state", encode(StateMessage(1, g.applied, {"scores": [999, 0]}, 0.0, g.journal)), 140.0)
    assert len(g.flags) == 2
    for now, flags, refused in ((165.0, 0, 0), (190.0, 1, 1), (200.0, 2, 1)):
        cutoff = hub.cutoff(now)
        assert len(hub.summary("t1", cutoff)["game"]["flags"]) == flags
        assert len(hub.games(cutoff)[0]["flags"]) == flags
        assert hub.venue(cutoff)["refused"] == refused
    hub.prune(500.0)
    assert hub.venue(hub.cutoff(500.0))["refused"] == 1  # (counted still once pruned)
    hub.close()


def _feed(hub: Hub, records: list[RecordMessage], start: int = 0) -> list[float]:
    """The records from ``start`` to ``hub`` 10 s apart, seq 3 after seq 4 (a gap), each with
    the board's state after it; the board online at first, offline a while at the fourth:
    the times they arrived."""
    order = list(range(len(records)))
    order[3], order[4] = order[4], order[3]
    times = []
    for n, i in enumerate(order):
        if n < start:
            continue
        at = 100.0 + 10 * n
        if n in (0, 4, 6):
            hub.receive("scoreboard/open/t1/status", encode(StatusMessage(n != 4)), at - 1)
        hub.receive(REC, encode(records[i]), at)
        view = {"phase": "playing", "clock": {"used": [n, 2.0 * n], "running": n % 2, "limit": 1500}}
        hub.receive(STATE, encode(StateMessage(1, records[i].seq or 0, view, 0.0, records[i].journal)), at + 0.5)
        times.append(at)
    return times


def _shown(hub: Hub, cutoff: float) -> tuple[object, ...]:
    return hub.summary("t1", cutoff), hub.games(cutoff), hub.gcg("t1-1", cutoff), hub.standings(cutoff)


def test_a_restarted_hub_shows_the_delayed_games_as_it_would_have_without_the_restart(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """The games, and the table's presence and states too (online, clocks, phase)."""
    records, _ = game
    steady = Hub(TOPICS, tmp_path / "steady", delay=60.0)
    _feed(steady, records)
    restarted = Hub(TOPICS, tmp_path / "restarted", delay=60.0)
    half = len(records) // 2
    _feed(restarted, records[:half])  # (the records' order differs from _feed's only after the first five)
    restarted.close()
    back = Hub(TOPICS, tmp_path / "restarted", delay=60.0, clock=lambda: 100.0 + 10 * half)
    back.receive("scoreboard/open/t1/status", encode(StatusMessage(True)), 100.0 + 10 * half - 5)  # (retained,
    last = next(v for when, v in steady.tables["t1"].states if when == 100.0 + 10 * (half - 1) + 0.5)
    state = StateMessage(1, records[half - 1].seq or 0, {k: last[k] for k in ("phase", "clock")}, 0.0, records[0].journal)
    back.receive(STATE, encode(state), 100.0 + 10 * half - 5)  # sent again by the broker at the restart)
    _feed(back, records, half)
    end = 100.0 + 10 * len(records) + 60
    for cutoff in [90.0, 100.0, 125.0, 130.0, 135.0, 140.0, 155.0] + [95.0 + 10 * n for n in range(len(records))] + [end]:
        assert _shown(back, cutoff) == _shown(steady, cutoff), cutoff
    assert back.summary("t1", 100.0 + 10 * half - 30)["state"]["clock"]["used"][0] == half - 4  # (what was compared: the state after the record at -40 s)
    # the pages were told of the records shown before the restart: after it only of the later ones
    before = steady.tables["t1"].games["t1-1"].shown_seq(back.cutoff(100.0 + 10 * half))
    assert before is not None and 0 < before < len(records) - 2
    told = back.taken("t1", end)
    assert [seq for seq, _ in told] == list(range(before + 1, len(records) - 1))
    back.prune(end + 60)  # the table's file keeps what may still be shown, as the memory does
    back.close()
    with sqlite3.connect(tmp_path / "restarted" / "open" / "t1" / "table.sqlite") as conn:
        assert [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("online", "states")] == [1, 1]
    conn.close()
    again = Hub(TOPICS, tmp_path / "restarted", delay=60.0)
    assert again.summary("t1", end) == steady.summary("t1", end) and again.summary("t1", end)["online"] is True
    steady.close()
    again.close()


def test_racks_are_held_back_until_allowed_and_never_from_the_boards_state(
    tmp_path: Path, game: tuple[list[RecordMessage], str]
) -> None:
    """``end`` (the default): racks hidden until the game is over at the cutoff; ``delayed``:
    shown once the delay has passed, in the view and the GCG; the state's ``private`` racks
    and its board are never kept nor shown."""
    records, gcg = game
    state = {"phase": "playing", "scores": [0, 0], "board": {"H8": {"letter": "H", "blank": False}},
             "clock": {"used": [12.5, 3.0], "running": 1, "limit": 1500}, "challenge": {"by": [1]},
             "private": {"racks": ["QXYZWVK", "JJJJJJJ"]}}
    for racks in ("end", "delayed"):
        hub = Hub(TOPICS, tmp_path / racks, delay=60.0, racks=racks)
        for i, r in enumerate(records):
            hub.receive(REC, encode(r), 100.0 + i)
            hub.receive("scoreboard/open/t1/state", encode(StateMessage(1, r.seq or 0, state, 0.0, r.journal)),
                        100.5 + i)
        last = 100.0 + len(records) - 1
        for now in (150.0, 165.0, 170.0, last + 60):
            cutoff = hub.cutoff(now)
            summary = hub.summary("t1", cutoff)
            feed = json.dumps([hub.venue(cutoff), hub.games(cutoff)])
            assert "QXYZWVK" not in feed and "private" not in feed and '"H8"' not in json.dumps(summary["state"] or {})
            text = hub.gcg("t1-1", cutoff)
            if now < 160.0:
                assert summary["game"] is None and text is None  # nothing before the delay
                continue
            over = summary["game"]["over"]
            shown = racks == "delayed" or over
            assert (summary["game"]["racks"] is not None) == shown, (racks, now)
            assert text is not None and ("HAUSTEN" in text) == shown, (racks, now)
            assert summary["state"]["clock"]["used"] == [12.5, 3.0] and summary["state"]["challenge"] == {"by": [1]}
            assert summary["state"]["age"] == 0.5  # (how long before the cutoff it came: the page's clock adds it)
        assert hub.gcg("t1-1", hub.cutoff(last + 60)) == gcg
        hub.close()


def _get(app: Any, path: str) -> tuple[int, bytes]:
    """A GET of ``path`` from the ASGI ``app`` (no client library)."""
    import asyncio

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [], "http_version": "1.1", "scheme": "http", "server": ("hub", 80), "client": ("c", 1),
             "root_path": ""}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def test_the_feed_and_the_gcg_are_served_as_of_the_cutoff(tmp_path: Path, game: tuple[list[RecordMessage], str]) -> None:
    pytest.importorskip("starlette", reason="starlette is missing: pip install 'scoreboard[play]'")
    from scoreboard.hub.web import Pusher, make_app

    records, gcg = game
    now = [0.0]
    hub = Hub(TOPICS, tmp_path, delay=60.0)
    app = make_app(Pusher(hub, clock=lambda: now[0]))
    for i, r in enumerate(records):
        hub.receive(REC, encode(r), 100.0 + i)
    last = 100.0 + len(records) - 1
    now[0] = 150.0
    assert _get(app, "/games/t1-1.gcg")[0] == 404
    feed = json.loads(_get(app, "/feed.json")[1])
    assert feed["games"] == [] and feed["tables"] == [] and feed["as_of"] == 90.0  # (t1 not heard of by then)
    now[0] = 165.0
    status, body = _get(app, "/games/t1-1.gcg")
    assert status == 200 and body.decode() != gcg and "HAUSTEN" not in body.decode()
    feed = json.loads(_get(app, "/feed.json")[1])
    assert feed["games"][0]["over"] is False and feed["tables"][0]["game"]["seq"] == 5 and feed["standings"] == []
    now[0] = last + 60
    assert _get(app, "/games/t1-1.gcg") == (200, gcg.encode())
    feed = json.loads(_get(app, "/feed.json")[1])
    assert feed["games"][0]["over"] is True and feed["standings"][0]["games"] == 1
    hub.close()


def test_a_challenge_is_published_at_once_and_its_ruling_too(tmp_path: Path) -> None:
    """A challenge waits 0.4 s for its ruling: the state is published at once when a
    challenge starts or ends (or the phase changes), not a second after the last one."""
    from tablehelpers import rig

    from drivers.buttons.logic import Role
    from scoreboard.broadcast.messages import decode_state
    from scoreboard.broadcast.publisher import Publisher
    from scoreboard.config import BroadcastConfig

    r = rig("de", 2, words=("HAUS",))
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    laid = r.state
    r.press(2, Role.CHALLENGE, read=False)
    challenged = r.state
    r.tick(1)
    ruled = r.state

    class Client:
        def __init__(self) -> None:
            self.states: list[dict[str, Any]] = []

        def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> object:
            self.states.append(decode_state(topic, payload).view)
            return None

    from scoreboard.broadcast.cursor import PublishLog

    with Journal.open(tmp_path) as journal:
        db = journal.path
    wall = [0.0]
    p = Publisher(BroadcastConfig(enabled=True, event="open", table="t1"), db, wall=lambda: wall[0])
    client = Client()
    p._client, p._connected = client, True  # type: ignore[assignment]
    p._log = PublishLog(db, "open")  # (the journal's identity goes with each state)
    for at, state in ((0.0, laid), (0.3, challenged), (0.7, ruled)):
        wall[0] = at
        p.table(state, 1, 5)
        p._publish_state()
    assert [s["challenge"] for s in client.states] == [None, {"by": [1]}, None]
    wall[0] = 0.8
    p.table(ruled, 1, 5)
    p._publish_state()
    assert len(client.states) == 3  # (otherwise still at most once a second)
