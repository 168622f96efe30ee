"""``scoreboard config [--config FILE] [--set KEY=VALUE ...] [--defaults]``."""

from __future__ import annotations

import argparse
import sys

from engine.rules import ChallengeOutcome
from scoreboard.config import Config, ConfigError, config_to_dict, default_toml, load_config, state_dir, toml_value

__all__ = ["auto_values", "cmd_config"]


def cmd_config(args: argparse.Namespace) -> int:
    """``scoreboard config [--config FILE] [--set KEY=VALUE ...] [--defaults]``."""
    if args.defaults:
        print(default_toml(), end="")
        return 0
    try:
        config = load_config(args.config, args.set)
        where = state_dir(config, create=False)
    except ConfigError as e:
        print(f"scoreboard: {e}", file=sys.stderr)
        return 2
    print(f"# configuration from {config.source or 'the defaults'}; state directory {where}")
    print(f"# rules: #rules {config.rule_profile().rules_line()}")
    resolved = auto_values(config)
    for section, values in config_to_dict(config).items():
        print(f"[{section}]")
        for key, value in values.items():
            meant = resolved.get(f"{section}.{key}") if value == "auto" else None
            print(f"{key} = {toml_value(value)}" + (f"  # {meant}" if meant else ""))
    return 0


def auto_values(config: Config) -> dict[str, str]:
    """What each "auto" key of ``config`` stands for, in words, by dotted key."""
    profile = config.rule_profile()
    if profile.challenge_rule is not None:
        challenge = profile.challenge_rule.value
    elif profile.challenge_outcome is ChallengeOutcome.CHALLENGER_LOSES_POINTS:
        challenge = f"{profile.name}'s own: a wrong challenger loses {profile.challenge_penalty} points"
    else:
        challenge = f"{profile.name}'s own: a wrong challenger loses the turn"
    return {
        "game.players": toml_value(list(config.player_names())),
        "game.challenge": challenge,
        "game.overtime": str(profile.overtime_penalty),
        "ui.language": f"{toml_value(config.language())} (the language of the game's profile, also of one chosen at the table)",
    }
