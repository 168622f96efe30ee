"""Tests of ``scoreboard export`` (scoreboard/export_cli.py) through the CLI entry point."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from randomgame import play_random_game

from engine import gcg
from engine.board import Board
from engine.events import Command, Draw, Pass, Play, UndoLastPlay
from engine.game import Game
from engine.placement import Placement
from engine.replay import replay
from engine.rules import get_profile
from engine.tiles import GERMAN
from scoreboard.cli import main
from scoreboard.journal_format import encode_command
from scoreboard.journal import JOURNAL_NAME, Journal
from scoreboard.journal_format import COMMAND_KIND

ENV = ("SCOREBOARD_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "STATE_DIRECTORY")


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty state directory; no configuration from the outside."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    path = tmp_path / "state dir"
    path.mkdir()
    return path


def export(capsys: pytest.CaptureFixture[str], state: Path, *args: str) -> tuple[int, str, str]:
    """Run ``scoreboard export ARGS --set paths.state_dir=STATE``: (exit code, stdout, stderr)."""
    code = main(["export", *args, "--set", f"paths.state_dir={state}"])
    out, err = capsys.readouterr()
    return code, out, err


def journal_game(
    journal: Journal, meta: dict[str, object], commands: list[Command], *, clock: bool = True
) -> int:
    """A game journaled as the controller would: each command, with clock records in between."""
    game = journal.start_game(meta)
    for i, command in enumerate(commands):
        journal.append(game, COMMAND_KIND, encode_command(command), 1000.0 + i / 3)
        if clock and i % 5 == 0:
            journal.append(game, "clock", {"left": [600.5 - i, 598.25]}, 1000.0 + i / 3)
    return game


def random_game(seed: int = 7, players: int = 3) -> Game:
    return play_random_game(get_profile("de").with_variants(rack=9), players, seed)


def meta_of(game: Game, *, prefix: str = "#rules ") -> dict[str, object]:
    return {"rules": prefix + game.profile.rules_line(), "players": list(game.players), "first": game.first}


# --- GCG ------------------------------------------------------------------------------------


def test_gcg_of_a_finished_game_is_the_games_own_record(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = random_game()
    assert game.over
    with Journal.open(state) as journal:
        journal_game(journal, meta_of(game), game.log)
    code, out, err = export(capsys, state, "--format", "gcg")
    assert (code, err) == (0, "")
    assert out == gcg.write(gcg.record_from_events(list(game.players), game.events, game.profile))
    assert "#rules de rack=9" in out and "Jürgen" in out
    report = replay(gcg.read(out.encode("utf-8")))
    assert report.ok and [report.totals[n] for n in report.totals] == game.scores()


def test_gcg_of_a_game_in_progress_has_the_racks(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = random_game(seed=11)
    partial = game.log[: len(game.log) // 2]
    live = Game.replay(game.profile, game.players, partial, first=game.first)
    assert not live.over
    with Journal.open(state) as journal:
        journal_game(journal, meta_of(game, prefix=""), partial)  # "rules" without "#rules" works too
    code, out, _ = export(capsys, state, "--format", "gcg")
    assert code == 0
    record = gcg.read(out.encode("utf-8"))
    assert record.final_racks == {p: live.rack(p) for p in range(3) if live.rack(p)}
    assert record.final_racks
    assert [e.total for e in record.events] == [
        e.total for e in gcg.record_from_events(list(live.players), live.events, live.profile).events
    ]


def test_gcg_replays_journaled_corrections(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An undo is journaled as a command of its own (unlike Game.log, the journal only grows)."""
    play = Play(0, Placement.from_gcg("8E", "WIND", Board(), GERMAN))
    commands: list[Command] = [Draw(0, "WINDEXY"), Draw(1, "AEINRST"), play, UndoLastPlay(), Pass(0)]
    with Journal.open(state) as journal:
        journal_game(journal, {"rules": "de", "players": ["Anna", "Ben"], "first": 0}, commands)
    code, out, err = export(capsys, state, "--format", "gcg")
    assert (code, err) == (0, "")
    events = [line for line in out.splitlines() if line.startswith(">")]
    assert events == [">Anna: WINDEXY - +0 0"]


def test_gcg_of_bad_commands_names_the_entry(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Journal.open(state) as journal:
        game = journal_game(
            journal, {"rules": "de", "players": ["Anna", "Ben"], "first": 0}, [Draw(0, "ABC")], clock=False
        )
        journal.append(game, COMMAND_KIND, {"type": "draw", "player": 5, "tiles": "E"}, 2.0)
        journal.append(game, COMMAND_KIND, {"type": "resign"}, 3.0)
    code, out, err = export(capsys, state, "--format", "gcg")
    assert (code, out) == (2, "")
    assert err.startswith(f"scoreboard: game {game}: entry 2 {{'type': 'draw', 'player': 5, 'tiles': 'E'}}: ")
    code, _, _ = export(capsys, state, "--format", "json")
    assert code == 0  # the lossless record does not replay anything


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"players": ["A", "B"]}, "no rules ('rules': None)"),
        ({"rules": "zz", "players": ["A", "B"]}, "unknown rule profile 'zz'"),
        ({"rules": "de", "players": "A B"}, "'players' is not a list of names: 'A B'"),
        ({"rules": "de", "players": ["A", "B"], "first": "0"}, "'first' is not a seat number: '0'"),
        ({"rules": "de", "players": ["A"]}, "player"),
    ],
)
def test_gcg_needs_usable_meta_data(
    state: Path, capsys: pytest.CaptureFixture[str], meta: dict[str, object], message: str
) -> None:
    with Journal.open(state) as journal:
        journal.start_game(meta)
    code, out, err = export(capsys, state, "--format", "gcg")
    assert (code, out) == (2, "")
    assert err.startswith("scoreboard: game 1: ") and message in err, err


# --- JSON, --game, -o -----------------------------------------------------------------------


def test_json_is_the_lossless_record(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = random_game(seed=3, players=2)
    meta = {**meta_of(game), "title": "Finale ½", "extra": {"nested": [1, 2.5, None]}}
    with Journal.open(state) as journal:
        gid = journal_game(journal, meta, game.log)
        journal.finish(gid, {"scores": game.scores()})
        stored = journal.entries(gid)
        info = journal.game(gid)
    code, out, err = export(capsys, state, "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["format"] == "scoreboard-journal" and doc["version"] == 1
    assert doc["game"] == {
        "id": gid,
        "started": info.started,
        "finished": info.finished,
        "meta": meta,
        "result": {"scores": game.scores()},
    }
    assert [(e["seq"], e["kind"], e["payload"], e["at"]) for e in doc["entries"]] == [
        (e.seq, e.kind, e.payload, e.at) for e in stored
    ]
    assert {e["kind"] for e in doc["entries"]} == {COMMAND_KIND, "clock"}
    assert len(doc["entries"]) == len(stored) > len(game.log)


def test_game_picks_a_game_and_output_goes_to_a_file(
    state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal.open(state) as journal:
        first = journal.start_game({"rules": "fr", "players": ["Élodie", "Jean"], "first": 1})
        journal.append(first, COMMAND_KIND, encode_command(Draw(1, "ABC")), 1.0)
        journal.start_game({"rules": "en", "players": ["X", "Y"], "first": 0})
    target = tmp_path / "out" / "first.json"
    target.parent.mkdir()
    code, out, err = export(capsys, state, "--game", str(first), "--format", "json", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert doc["game"]["id"] == first and doc["game"]["meta"]["players"] == ["Élodie", "Jean"]
    assert [e["payload"] for e in doc["entries"]] == [{"type": "draw", "player": 1, "tiles": "ABC"}]
    code, out, _ = export(capsys, state, "--format", "json")  # the latest by default
    assert code == 0 and json.loads(out)["game"]["meta"]["rules"] == "en"
    code, _, err = export(capsys, state, "--format", "gcg", "-o", str(tmp_path / "missing" / "x.gcg"))
    assert code == 2 and "cannot write" in err and "missing" in err


# --- --list ---------------------------------------------------------------------------------


def test_list_shows_every_game(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Journal.open(state) as journal:
        a = journal.start_game({"rules": "#rules de rack=9", "players": ["Jürgen", "Zoë Ørsted"], "first": 0})
        journal.append_many(a, [("command", {}, 1.0), ("clock", {}, 2.0)])
        journal.finish(a, {"scores": [1, 2]})
        b = journal.start_game({"rules": "fr", "players": ["A", "B", "C"], "first": 2})
        games = journal.games()
    code, out, err = export(capsys, state, "--list")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{a}\t{games[0].started}\tJürgen, Zoë Ørsted\tde rack=9\tfinished {games[0].finished}\t2 entries",
        f"{b}\t{games[1].started}\tA, B, C\tfr\tin progress\t0 entries",
    ]


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--list"], ["--format", "gcg"], ["--format", "json", "--game", "1"]])
def test_no_journal_is_exit_2_and_creates_nothing(
    state: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, out, err = export(capsys, state, *args)
    assert (code, out) == (2, "")
    assert err == f"scoreboard: no game journal at {state / JOURNAL_NAME}\n"
    assert list(state.iterdir()) == []


@pytest.mark.parametrize("args", [["--list"], ["--format", "gcg"]])
def test_an_empty_journal_is_exit_2(state: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    Journal.open(state).close()
    code, out, err = export(capsys, state, *args)
    assert (code, out) == (2, "")
    assert err == f"scoreboard: no games in the journal {state / JOURNAL_NAME}\n"


def test_no_such_game_is_exit_2(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Journal.open(state) as journal:
        journal.start_game({"rules": "de", "players": ["A", "B"]})
    code, out, err = export(capsys, state, "--game", "42", "--format", "json")
    assert (code, out) == (2, "")
    assert err == f"scoreboard: no game 42 in the journal {state / JOURNAL_NAME}\n"


def test_a_corrupt_journal_is_exit_2_and_left_alone(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (state / JOURNAL_NAME).write_bytes(b"not a journal " * 50)
    code, out, err = export(capsys, state, "--list")
    assert (code, out) == (2, "")
    assert str(state / JOURNAL_NAME) in err and "not an SQLite database" in err
    assert [p.name for p in state.iterdir()] == [JOURNAL_NAME]
    assert (state / JOURNAL_NAME).read_bytes() == b"not a journal " * 50


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give --format gcg|json (or --list)"),
        (["--list", "--format", "gcg"], "--list takes no --game, --format or --output"),
        (["--list", "--game", "1"], "--list takes no"),
        (["--format", "pdf"], "invalid choice: 'pdf'"),
    ],
)
def test_usage_errors(state: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["export", *args])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_bad_config_is_exit_2(state: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["export", "--list", "--config", str(tmp_path / "nope.toml")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert "nope.toml" in err


@pytest.mark.parametrize("sides", [(), ("-wal",)], ids=["closed cleanly", "its log without an index"])
def test_a_damaged_sqlite_journal_is_refused_and_nothing_is_made_beside_it(
    state: Path, capsys: pytest.CaptureFixture[str], sides: tuple[str, ...]
) -> None:
    """The check reads through a read-only connection, which would leave a ``-wal`` and a
    ``-shm`` of its own beside a journal it refuses (they would be taken for the journal's)."""
    with Journal.open(state) as journal:
        game = journal.start_game({"rules": "de", "players": ["A", "B"], "first": 0})
        journal.append_many(game, [("k", {"n": n}, float(n)) for n in range(3)])
    conn = sqlite3.connect(state / JOURNAL_NAME)
    conn.execute("UPDATE entries SET payload = '{\"n\": 9}' WHERE seq = 2")  # (its checksum no longer matches)
    conn.commit()
    conn.close()
    for suffix in sides:  # (an empty log: a power cut right after a checkpoint)
        (state / f"{JOURNAL_NAME}{suffix}").write_bytes(b"")
    before = {p.name: p.read_bytes() for p in state.iterdir()}
    code, out, err = export(capsys, state, "--list")
    assert (code, out) == (2, "")
    assert {p.name: p.read_bytes() for p in state.iterdir()} == before


def test_archive_moves_finished_games_out_of_the_journal(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every finished game but the latest goes into the folder as its JSON record, then out
    of the journal; the unfinished and the latest stay; a second run finds nothing more."""
    with Journal.open(state) as journal:
        ids = [journal_game(journal, {"rules": "de", "players": ["A", "B"], "first": 0}, []) for _ in range(4)]
        for game_id in ids[:2] + ids[3:]:
            journal.finish(game_id, {"termination": "out", "rows": [], "winners": [0]})
        records = {g: (journal.game(g), journal.entries(g)) for g in ids}
    folder = state.parent / "archive"
    code, out, err = export(capsys, state, "--archive", str(folder))
    assert code == 0 and f"archived 2 finished games into {folder}: {ids[0]}, {ids[1]}" in out, err
    for game_id in ids[:2]:
        kept = json.loads((folder / f"game-{game_id}.json").read_text(encoding="utf-8"))
        info, entries = records[game_id]
        assert kept["game"]["id"] == game_id and kept["game"]["result"] == info.result
        assert len(kept["entries"]) == len(entries)
    with Journal.open(state) as journal:
        assert [g.id for g in journal.games()] == ids[2:]  # unfinished and latest stay
    code, out, _ = export(capsys, state, "--archive", str(folder))
    assert code == 0 and "no finished game to archive" in out


def test_archive_takes_the_archived_games_publish_cursor_with_them(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A journal that has published ([broadcast]) keeps a cursor per game that refers to the
    game: archiving removes the archived games' marks with them and keeps the others'."""
    from scoreboard.broadcast.cursor import Mark, PublishLog

    with Journal.open(state) as journal:
        ids = [journal_game(journal, {"rules": "de", "players": ["A", "B"], "first": 0}, []) for _ in range(3)]
        for game_id in ids:
            journal.finish(game_id, {"termination": "out", "rows": [], "winners": [0]})
    published = PublishLog(state / JOURNAL_NAME, "open")
    try:
        published.save({g: Mark(0, "x") for g in ids})
    finally:
        published.close()
    code, out, err = export(capsys, state, "--archive", str(state.parent / "archive"))
    assert code == 0 and "archived 2 finished games into" in out, err
    published = PublishLog(state / JOURNAL_NAME, "open")
    try:
        assert set(published.marks()) == {ids[2]}
    finally:
        published.close()


def test_archive_into_a_folder_that_cannot_be_written_removes_nothing(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Journal.open(state) as journal:
        for _ in range(2):
            game_id = journal_game(journal, {"rules": "de", "players": ["A", "B"], "first": 0}, [])
            journal.finish(game_id, {"termination": "out", "rows": [], "winners": [0]})
    blocker = state.parent / "a file"
    blocker.write_text("not a folder")
    code, _, err = export(capsys, state, "--archive", str(blocker / "archive"))
    assert code == 2 and "nothing was removed" in err
    with Journal.open(state) as journal:
        assert len(journal.games()) == 2


def test_the_journal_refuses_to_remove_an_unfinished_or_the_latest_game(state: Path) -> None:
    from scoreboard.journal import ArchiveRefusedError, NoSuchGameError

    with Journal.open(state) as journal:
        first = journal_game(journal, {"rules": "de", "players": ["A", "B"], "first": 0}, [])
        last = journal_game(journal, {"rules": "de", "players": ["A", "B"], "first": 0}, [])
        journal.finish(last, {"termination": "out", "rows": [], "winners": [0]})
        for game_id, why in ((first, "unfinished"), (last, "the latest game")):
            with pytest.raises(ArchiveRefusedError) as refused:
                journal.remove_games([game_id])
            assert (refused.value.game_id, refused.value.why) == (game_id, why)
        with pytest.raises(NoSuchGameError):
            journal.remove_games([last + 5])
        assert [g.id for g in journal.games()] == [first, last]
