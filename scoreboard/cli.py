"""The ``scoreboard`` command line (the contract is in DESIGN.md, "CLI contract")."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine import gcg
from engine.errors import GcgError, ScoreboardError
from engine.replay import replay
from engine.rules import RuleProfile, profile_names

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
    except GcgError as e:
        print(f"{path}: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    except ScoreboardError as e:
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

    p = sub.add_parser("bench", help="run the benchmarks and print their figures")
    p.add_argument("--json", action="store_true", help="last line: one JSON object of all figures")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scoreboard`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "rules", None):
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
