"""The ``scoreboard`` command line (the contract is in DESIGN.md, "CLI contract")."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine import gcg
from engine.errors import ScoreboardError
from engine.replay import replay
from engine.rules import RuleProfile, profile_names

if TYPE_CHECKING:
    from scoreboard.config import Config

EXIT_OK = 0
EXIT_DISAGREE = 1
EXIT_UNREADABLE = 2


def cmd_replay(args: argparse.Namespace) -> int:
    """``scoreboard replay GAME.gcg [--rules PROFILE]``."""
    path = Path(args.game)
    try:
        data = path.read_bytes()
    except OSError as e:
        print(f"{path}: cannot read: {e.strerror}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        record = gcg.read(data)
        profile = record.profile(args.rules)
        profile.check_players(len(record.players))
    except ScoreboardError as e:  # GcgError with its line, or rules the record cannot have
        print(f"{path}: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    report = replay(record, profile)
    for d in report.disagreements:
        print(f"{path}: {d}")
    print(f"replayed {report.events} events: {len(report.disagreements)} disagreements")
    return EXIT_OK if report.ok else EXIT_DISAGREE


def cmd_config(args: argparse.Namespace) -> int:
    """``scoreboard config [--config FILE] [--set KEY=VALUE ...] [--defaults]``."""
    from scoreboard.config import (
        ConfigError,
        config_to_dict,
        default_toml,
        load_config,
        state_dir,
        toml_value,
    )

    if args.defaults:
        print(default_toml(), end="")
        return EXIT_OK
    try:
        config = load_config(args.config, args.set)
        where = state_dir(config, create=False)
    except ConfigError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    print(f"# configuration from {config.source or 'the defaults'}; state directory {where}")
    print(f"# rules: #rules {config.rule_profile().rules_line()}")
    for section, values in config_to_dict(config).items():
        print(f"[{section}]")
        for key, value in values.items():
            print(f"{key} = {toml_value(value)}")
    return EXIT_OK


def _load_config(args: argparse.Namespace) -> Config:
    from scoreboard.config import load_config

    return load_config(getattr(args, "config", None), getattr(args, "set", []) or [])


def cmd_lexicon_build(args: argparse.Namespace) -> int:
    """``scoreboard lexicon build WORDLIST --lang LANG -o FILE``."""
    from scoreboard import lexicons

    try:
        lexicon, report = lexicons.build(args.wordlist, args.lang)
        lexicons.save(lexicon, args.output)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    except OSError as e:
        print(f"scoreboard: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return EXIT_UNREADABLE
    for line in report.lines():
        print(line)
    print(f"wrote {args.output}: {len(lexicon)} {args.lang} words")
    return EXIT_OK


def cmd_lexicon_check(args: argparse.Namespace) -> int:
    """``scoreboard lexicon check --lang LANG [--lexicon FILE] [--no-house] WORD...``."""
    from engine.words import Rejection, normalize
    from scoreboard import lexicons
    from scoreboard.config import state_dir

    try:
        config = _load_config(args)
        lexicon = lexicons.open_lexicon(
            args.lang,
            path=args.lexicon,
            configured=getattr(config.lexicon, args.lang),
            state_dir=None if args.no_house else state_dir(config, create=False),
        )
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    all_valid = True
    for word in args.words:
        normal = normalize(word, args.lang)
        valid = not isinstance(normal, Rejection) and normal in lexicon
        all_valid &= valid
        shown = normal if isinstance(normal, str) else word
        reason = f" ({normal.value})" if isinstance(normal, Rejection) else ""
        print(f"{shown} {'valid' if valid else 'invalid'}{reason}")
    return EXIT_OK if all_valid else EXIT_DISAGREE


def cmd_lexicon_house(args: argparse.Namespace) -> int:
    """``scoreboard lexicon house list|accept|reject|remove --lang LANG [WORD...]``."""
    from scoreboard import lexicons
    from scoreboard.config import state_dir

    try:
        house = lexicons.HouseList.in_state_dir(state_dir(_load_config(args)), args.lang)
        if args.action == "list":
            for word in sorted(house.accept):
                print(f"accept {word}")
            for word in sorted(house.reject):
                print(f"reject {word}")
            return EXIT_OK
        if args.action == "remove":
            removed = house.remove(args.words)
            for word in removed:
                print(f"removed {word}")
            return EXIT_OK if len(removed) == len(args.words) else EXIT_DISAGREE
        for word in house.add(args.words, accept=args.action == "accept"):
            print(f"{args.action}ed {word}")
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    """``scoreboard bench [--json]``: every benchmark's figures."""
    from scoreboard.bench import run_all

    return run_all(json_output=args.json)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="scoreboard",
        description="Scoreboard for an instrumented Scrabble-style board.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "replay",
        help="re-score every event of a GCG game record",
        description="Re-score every event of a GCG file; print a line per disagreement and "
        "'replayed N events: M disagreements'. Exit 0 when M is 0, 1 when not, 2 when the "
        "file cannot be read.",
    )
    p.add_argument("game", metavar="GAME.gcg")
    p.add_argument(
        "--rules",
        metavar="PROFILE",
        help="rule profile with optional variants, as in #rules (e.g. 'de' or 'de rack=9'); "
        f"profiles: {', '.join(profile_names())}. Default: the file's #rules, else a standard "
        "2-player tournament record",
    )
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "config",
        help="show the effective configuration, or the documented defaults",
        description="Print the configuration in effect (file, then --set overrides) as TOML; "
        "with --defaults, a complete commented file of every key and its default.",
    )
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], help="override a key")
    p.add_argument("--defaults", action="store_true", help="print every key with its default and doc")
    p.set_defaults(func=cmd_config)

    p = sub.add_parser("lexicon", help="build and check word lists, edit the house lists")
    lsub = p.add_subparsers(dest="lexicon_command", required=True, metavar="ACTION")
    from engine.words import LANGUAGES

    b = lsub.add_parser(
        "build",
        help="build a lexicon file from a UTF-8 one-word-per-line list",
        description="Normalise every entry for the language and drop those that cannot be "
        "played (hyphen, apostrophe, digit, space, a letter outside the tile set; in English "
        "capitalised entries), reporting how many and why.",
    )
    b.add_argument("wordlist", metavar="WORDLIST")
    b.add_argument("--lang", required=True, choices=LANGUAGES)
    b.add_argument("-o", "--output", required=True, metavar="FILE")
    b.set_defaults(func=cmd_lexicon_build)

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
    c.set_defaults(func=cmd_lexicon_check)

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
        a.set_defaults(func=cmd_lexicon_house)

    from scoreboard import demo, enroll_cli, export_cli, run_cli
    from scoreboard.sim import cli as simulator

    demo.add_parser(sub)
    enroll_cli.add_parser(sub)
    export_cli.add_parser(sub)
    run_cli.add_parser(sub)
    simulator.add_parser(sub)

    p = sub.add_parser("bench", help="run the benchmarks and print their figures")
    p.add_argument("--json", action="store_true", help="last line: one JSON object of all figures")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scoreboard`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "rules", None):  # a bad --rules is a usage error, before any file is read
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
