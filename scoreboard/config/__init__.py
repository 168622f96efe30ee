"""Configuration: one TOML file with documented defaults, validated, plus the state directory.

The file has one table per section; every key is optional::

    [game]
    rules = "fr"
    players = ["Anna", "Ben", "Cleo"]

    [paths]
    state_dir = "/var/lib/scoreboard"

Each section is one attrs class: its docstring documents the section and each field, made
with :func:`key`, declares one key: name, type, default, what is allowed (a :class:`Check`)
and a one-line doc. :class:`Config` has one field per section, in file order. The rest is
derived from them: the checks and messages of :func:`load_config` (``--set KEY=VALUE``
overrides apply on top of the file), :func:`config_to_dict` and :func:`default_toml`.

``checks`` holds what a key allows and the errors, ``sections`` the declarations, ``loading``
the file, the overrides, the state directory and the generated file.
"""

from .checks import (
    SET_SOURCE,
    Check,
    ConfigChoiceError,
    ConfigError,
    ConfigPinClashError,
    ConfigRangeError,
    ConfigTypeError,
    toml_value,
)
from .loading import (
    config_to_dict,
    default_config_path,
    default_toml,
    load_config,
    state_dir,
)
from .sections import (
    KEYS,
    RESERVED_PINS,
    SECTIONS,
    BoardConfig,
    BroadcastConfig,
    HubConfig,
    ButtonsConfig,
    Config,
    DisplayConfig,
    GameConfig,
    LexiconConfig,
    PathsConfig,
    UiConfig,
    VoiceConfig,
    check_board,
    check_broadcast,
    check_buttons,
    check_display,
    key,
)

__all__ = [
    "KEYS", "RESERVED_PINS", "SECTIONS", "SET_SOURCE", "BoardConfig", "BroadcastConfig", "ButtonsConfig", "HubConfig", "Check",
    "Config", "ConfigChoiceError", "ConfigError", "ConfigPinClashError", "ConfigRangeError", "ConfigTypeError",
    "DisplayConfig", "GameConfig", "LexiconConfig", "PathsConfig", "UiConfig", "VoiceConfig", "check_board", "check_broadcast",
    "check_buttons", "check_display", "config_to_dict", "default_config_path", "default_toml",
    "key", "load_config", "state_dir", "toml_value",
]
