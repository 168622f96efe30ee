"""``scoreboard lexicon build|check|house``: build word lists, check words, edit the house lists."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import ScoreboardError
from engine.words import Rejection, normalize
from scoreboard import lexicon_eval, lexicon_sources, lexicons
from scoreboard.config import Config, load_config, state_dir

__all__ = ["cmd_lexicon_build", "cmd_lexicon_check", "cmd_lexicon_eval", "cmd_lexicon_house"]

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_ERROR = 2


def _load_config(args: argparse.Namespace) -> Config:
    return load_config(getattr(args, "config", None), getattr(args, "set", []) or [])


def cmd_lexicon_build(args: argparse.Namespace) -> int:
    """``scoreboard lexicon build (WORDLIST | --shipped) --lang LANG -o FILE``: exit 0 when
    written, 2 when the list is unreadable, empty or mostly unplayable, or a source of the
    shipped list is missing (then FILE is left as it was)."""
    if (args.wordlist is None) == (not args.shipped):
        print("scoreboard: give either WORDLIST or --shipped", file=sys.stderr)
        return EXIT_ERROR
    try:
        if args.shipped:
            lexicon, report = lexicon_sources.build_shipped(args.lang)
        else:
            lexicon, report = lexicons.build(args.wordlist, args.lang)
        lexicons.save(lexicon, args.output)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        print(f"scoreboard: nothing written to {args.output}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:
        print(f"scoreboard: cannot write {args.output}: {e.strerror}", file=sys.stderr)
        return EXIT_ERROR
    for line in report.lines():
        print(line)
    print(f"wrote {args.output}: {len(lexicon)} {args.lang} words")
    return EXIT_OK


def cmd_lexicon_check(args: argparse.Namespace) -> int:
    """``scoreboard lexicon check --lang LANG [--lexicon FILE] [--no-house] WORD...``."""
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
        return EXIT_ERROR
    all_valid = True
    for word in args.words:
        normal = normalize(word, args.lang)
        valid = not isinstance(normal, Rejection) and normal in lexicon
        all_valid &= valid
        shown = normal if isinstance(normal, str) else word
        reason = f" ({normal.value})" if isinstance(normal, Rejection) else ""
        print(f"{shown} {'valid' if valid else 'invalid'}{reason}")
    return EXIT_OK if all_valid else EXIT_INVALID


def cmd_lexicon_eval(args: argparse.Namespace) -> int:
    """``scoreboard lexicon eval LIST --lang LANG [--lexicon FILE]``: print the rates; exit 0,
    or 2 when the list or the lexicon cannot be read."""
    try:
        lexicon = lexicons.load(args.lexicon or lexicons.shipped_path(args.lang), args.lang)
        items = lexicon_eval.read_eval_list(Path(args.list), args.lang)
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:
        print(f"scoreboard: cannot read {args.list}: {e.strerror}", file=sys.stderr)
        return EXIT_ERROR
    results = lexicon_eval.measure(lexicon, items, args.lang)
    for result in results.values():
        print(result.line())
    for accept, what in ((False, "names and abbreviations falsely accepted"), (True, "words falsely rejected")):
        wrong, total = lexicon_eval.totals(results, accept=accept)
        print(f"{what}: {wrong} of {total}")
    return EXIT_OK


def cmd_lexicon_house(args: argparse.Namespace) -> int:
    """``scoreboard lexicon house list|accept|reject|remove --lang LANG [WORD...]``."""
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
            return EXIT_OK if len(removed) == len(args.words) else EXIT_INVALID
        for word in house.add(args.words, accept=args.action == "accept"):
            print(f"{args.action}ed {word}")
    except ScoreboardError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK
