"""``scoreboard config [--config FILE] [--set KEY=VALUE ...] [--defaults]``."""

from __future__ import annotations

import argparse
import sys

from scoreboard.config import ConfigError, config_to_dict, default_toml, load_config, state_dir, toml_value

__all__ = ["cmd_config"]


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
    for section, values in config_to_dict(config).items():
        print(f"[{section}]")
        for key, value in values.items():
            print(f"{key} = {toml_value(value)}")
    return 0
