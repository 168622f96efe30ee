"""``scoreboard export --list``, ``scoreboard export [--game ID] --format gcg|json [-o FILE]``
and ``scoreboard export --archive DIR``.

Reads the journal in the state directory (never creates it or moves it aside).
JSON is the lossless record: the game's meta data and every entry as stored. GCG replays the
game's engine commands (entries of kind ``command``) under the game's ``#rules`` and writes the
scoresheet; other entries (controller records, clock states) have no GCG form and are skipped.
A game still in progress gets its players' current racks as ``#rackN`` lines.
``--archive DIR`` writes every finished game but the latest as ``game-ID.json`` (the JSON
record) into ``DIR``, each synced to the disk, and only then removes them from the journal:
the journal a start opens stays as small as the players keep it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import gcg
from engine.errors import ScoreboardError
from engine.game import Game

from .controller.records import Committed
from .journal import Entry, GameInfo, Journal
from .journal_format import COMMAND_KIND, decode_entry, decode_meta, rules_of

EXIT_OK = 0
EXIT_ERROR = 2  # no journal, no games, no such game, a journal that cannot be read or replayed

EXPORT_FORMAT = "scoreboard-journal"
EXPORT_VERSION = 1
"""Version of the JSON export's layout (not of the journal's schema)."""


class ExportError(ScoreboardError, ValueError):
    """A journaled game that cannot be turned into a GCG record (bad meta data or commands)."""


# --- the formats --------------------------------------------------------------------------


def game_to_json(game: GameInfo, entries: Sequence[Entry]) -> dict[str, Any]:
    """The lossless JSON record of a journaled game: its row and every entry as stored."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "game": {
            "id": game.id,
            "started": game.started,
            "finished": game.finished,
            "meta": game.meta,
            "result": game.result,
        },
        "entries": [{"seq": e.seq, "kind": e.kind, "payload": e.payload, "at": e.at} for e in entries],
    }


def replay_game(game: GameInfo, entries: Sequence[Entry]) -> Game:
    """The game rebuilt from its journaled engine commands (the other entries have no GCG form)."""
    try:
        started = decode_meta(game.meta)
        replayed = Game(rules_of(started), started.players, rng=random.Random(0), first=started.first)
    except ScoreboardError as e:
        raise ExportError(f"game {game.id}: {e}") from None
    for entry in entries:
        if entry.kind != COMMAND_KIND:
            continue
        try:
            record = decode_entry(entry.kind, entry.payload, replayed.tile_set)
            assert isinstance(record, Committed)
            replayed.apply(record.command)
        except ScoreboardError as e:
            raise ExportError(f"game {game.id}: entry {entry.seq} {entry.payload!r}: {e}") from None
    return replayed


def game_to_gcg(game: GameInfo, entries: Sequence[Entry]) -> str:
    """The GCG text of a journaled game (see :func:`replay_game`); meta ``lexicon`` and
    ``title`` become pragmas when present."""
    return gcg_text(replay_game(game, entries), game.meta)


def gcg_text(replayed: Game, meta: Mapping[str, Any], *, racks: bool = True) -> str:
    """The GCG text of ``replayed`` (a game of the journal with ``meta``); without ``racks``
    no rack is shown (the lines' racks, exchanged tiles as their number, the final racks):
    a broadcast before the racks may be seen."""
    lexicon, title = meta.get("lexicon"), meta.get("title")
    record = gcg.record_from_events(
        list(replayed.players),
        replayed.events,
        replayed.profile,
        lexicon=lexicon if isinstance(lexicon, str) else None,
        title=title if isinstance(title, str) else None,
    )
    if not replayed.over:
        record.final_racks = {p: replayed.rack(p) for p in range(len(replayed.players)) if replayed.rack(p)}
    if not racks:
        record.final_racks = {}
        record.events = [_without_rack(e) for e in record.events]
    return gcg.write(record)


def _without_rack(event: gcg.GcgEvent) -> gcg.GcgEvent:
    if event.kind is gcg.Kind.EXCHANGE and event.tiles is not None:
        return dataclasses.replace(event, rack=None, tiles=None, count=len(event.tiles))
    if event.kind is gcg.Kind.END_RACKS:
        return event  # (the racks the game ended with: shown at the end anyway)
    return dataclasses.replace(event, rack=None)


def list_line(game: GameInfo) -> str:
    """``ID<TAB>STARTED<TAB>PLAYERS<TAB>RULES<TAB>finished TIME|in progress<TAB>N entries``."""
    players = game.meta.get("players")
    names = ", ".join(map(str, players)) if isinstance(players, list) else "?"
    rules = game.meta.get("rules")
    rules_text = " ".join(w for w in str(rules).split() if w != "#rules") if rules is not None else "?"
    status = f"finished {game.finished}" if game.finished else "in progress"
    return "\t".join((str(game.id), game.started, names, rules_text, status, f"{game.entries} entries"))


# --- the command --------------------------------------------------------------------------


def archive(journal: Journal, folder: Path) -> list[int]:
    """Move every finished game but the latest into ``folder`` as ``game-ID.json``: each file
    written and synced (temp file, rename, the folder synced) before the games are removed
    from the journal in one transaction. The games moved; an :class:`OSError` writing leaves
    the journal as it was."""
    games = journal.games()
    chosen = [g for g in games[:-1] if g.finished is not None]
    if not chosen:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    for game in chosen:
        text = json.dumps(game_to_json(game, journal.entries(game.id)), ensure_ascii=False, indent=1) + "\n"
        final = folder / f"game-{game.id}.json"
        part = final.with_name(final.name + ".part")
        with open(part, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, final)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    journal.remove_games([g.id for g in chosen])
    return [g.id for g in chosen]


def cmd_export(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run ``scoreboard export``; ``out`` (default stdout) is injectable for tests."""
    parser: argparse.ArgumentParser = args.export_parser
    if args.archive and (args.list or args.game is not None or args.format or args.output):
        parser.error("--archive takes no --list, --game, --format or --output")
    if args.archive:
        return _archive(args, out or sys.stdout)
    if args.list and (args.game is not None or args.format or args.output):
        parser.error("--list takes no --game, --format or --output")
    if not args.list and not args.format:
        parser.error("give --format gcg|json (or --list)")
    out = out or sys.stdout
    from .config import load_config, state_dir

    try:
        where = state_dir(load_config(args.config, args.set), create=False)
        with Journal.open_existing(where) as journal:
            if args.list:
                games = journal.games()
                if not games:
                    print(f"scoreboard: no games in the journal {journal.path}", file=sys.stderr)
                    return EXIT_ERROR
                for info in games:
                    print(list_line(info), file=out)
                return EXIT_OK
            game = journal.game(args.game) if args.game is not None else journal.latest()
            if game is None:
                print(f"scoreboard: no games in the journal {journal.path}", file=sys.stderr)
                return EXIT_ERROR
            entries = journal.entries(game.id)
        if args.format == "json":
            text = json.dumps(game_to_json(game, entries), ensure_ascii=False, indent=1) + "\n"
        else:
            text = game_to_gcg(game, entries)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            print(f"scoreboard: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
            return EXIT_ERROR
    else:
        out.write(text)
    return EXIT_OK


def _archive(args: argparse.Namespace, out: TextIO) -> int:
    from .config import load_config, state_dir

    folder = Path(args.archive)
    try:
        where = state_dir(load_config(args.config, args.set), create=False)
        with Journal.open_existing(where) as journal:
            moved = archive(journal, folder)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:
        print(f"scoreboard: cannot archive into {folder}: {e.strerror or e}; nothing was removed", file=sys.stderr)
        return EXIT_ERROR
    if moved:
        print(f"archived {len(moved)} finished games into {folder}: {', '.join(map(str, moved))}", file=out)
    else:
        print("no finished game to archive (the latest stays in the journal)", file=out)
    return EXIT_OK


__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "ExportError",
    "archive",
    "cmd_export",
    "game_to_gcg",
    "game_to_json",
    "gcg_text",
    "list_line",
    "replay_game",
]
