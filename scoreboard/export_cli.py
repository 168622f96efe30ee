"""``scoreboard export --list`` and ``scoreboard export [--game ID] --format gcg|json [-o FILE]``.

Reads the journal in the state directory (never creates it or moves it aside).
JSON is the lossless record: the game's meta data and every entry as stored. GCG replays the
game's engine commands (entries of kind ``command``) under the game's ``#rules`` and writes the
scoresheet; other entries (controller records, clock states) have no GCG form and are skipped.
A game still in progress gets its players' current racks as ``#rackN`` lines.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import gcg
from engine.errors import ScoreboardError
from engine.events import Command
from engine.game import Game
from engine.rules import RuleProfile

from .codec import decode_command
from .journal import COMMAND_KIND, Entry, GameInfo, Journal

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


def rules_of(meta: dict[str, Any]) -> RuleProfile:
    """The rule profile of a game's meta data: ``rules`` is a ``#rules`` value (the leading
    ``#rules`` may be written), ``tile_distribution`` an optional other tile set."""
    text = meta.get("rules")
    if not isinstance(text, str):
        raise ExportError(f"the game's meta data has no rules ('rules': {text!r})")
    words = text.split()
    if words[:1] == ["#rules"]:
        words = words[1:]
    profile = RuleProfile.from_rules_line(" ".join(words))
    tiles = meta.get("tile_distribution")
    return profile.with_tile_set(tiles) if isinstance(tiles, str) else profile


def replay_game(game: GameInfo, entries: Sequence[Entry]) -> Game:
    """The game rebuilt from its journaled engine commands (meta ``rules``, ``players``, ``first``)."""
    meta = game.meta
    players = meta.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ExportError(f"game {game.id}: 'players' is not a list of names: {players!r}")
    first = meta.get("first", 0)
    if type(first) is not int:
        raise ExportError(f"game {game.id}: 'first' is not a seat number: {first!r}")
    try:
        profile = rules_of(meta)
    except ScoreboardError as e:
        raise ExportError(f"game {game.id}: {e}") from None
    current: list[Entry] = []

    def commands() -> Iterator[Command]:
        for entry in entries:
            if entry.kind == COMMAND_KIND:
                current[:] = [entry]
                yield decode_command({k: v for k, v in entry.payload.items() if k != "tags"}, profile.tile_set)

    try:
        return Game.replay(profile, players, commands(), first=first)
    except (ScoreboardError, TypeError) as e:
        where = f"entry {current[0].seq} {current[0].payload!r}" if current else "setting up"
        raise ExportError(f"game {game.id}: {where}: {e}") from None


def game_to_gcg(game: GameInfo, entries: Sequence[Entry]) -> str:
    """The GCG text of a journaled game (see :func:`replay_game`); meta ``lexicon`` and
    ``title`` become pragmas when present."""
    replayed = replay_game(game, entries)
    lexicon, title = game.meta.get("lexicon"), game.meta.get("title")
    record = gcg.record_from_events(
        list(replayed.players),
        replayed.events,
        replayed.profile,
        lexicon=lexicon if isinstance(lexicon, str) else None,
        title=title if isinstance(title, str) else None,
    )
    if not replayed.over:
        record.final_racks = {p: replayed.rack(p) for p in range(len(replayed.players)) if replayed.rack(p)}
    return gcg.write(record)


def list_line(game: GameInfo) -> str:
    """``ID<TAB>STARTED<TAB>PLAYERS<TAB>RULES<TAB>finished TIME|in progress<TAB>N entries``."""
    players = game.meta.get("players")
    names = ", ".join(map(str, players)) if isinstance(players, list) else "?"
    rules = game.meta.get("rules")
    rules_text = " ".join(w for w in str(rules).split() if w != "#rules") if rules is not None else "?"
    status = f"finished {game.finished}" if game.finished else "in progress"
    return "\t".join((str(game.id), game.started, names, rules_text, status, f"{game.entries} entries"))


# --- the command --------------------------------------------------------------------------


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``export`` to the ``scoreboard`` subcommands; its handler is :func:`cmd_export`."""
    p = subparsers.add_parser(
        "export",
        help="list the journaled games, or export one as GCG or JSON",
        description="List the games of the journal in the state directory (--list), or write "
        "one (default: the latest) as GCG or as JSON, the lossless record. Exit 0 when done, "
        "2 when there is no journal, no game, or the game cannot be read.",
    )
    p.add_argument(
        "--list", action="store_true", help="one line per game: id, started, players, rules, status, entries"
    )
    p.add_argument("--game", type=int, metavar="ID", help="the game to export (default: the latest)")
    p.add_argument("--format", choices=("gcg", "json"), help="gcg: the scoresheet; json: the lossless record")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], help="override a key")
    p.set_defaults(func=cmd_export, export_parser=p)
    return p


def cmd_export(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    """Run ``scoreboard export``; ``out`` (default stdout) is injectable for tests."""
    parser: argparse.ArgumentParser = args.export_parser
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


__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "ExportError",
    "add_parser",
    "cmd_export",
    "game_to_gcg",
    "game_to_json",
    "list_line",
    "replay_game",
    "rules_of",
]
