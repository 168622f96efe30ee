"""Where the configuration comes from, without its schema: the file, ``--set`` values, the state directory.

Light to load (no attrs, no engine, TOML only when a value needs it): the starting frame
(:mod:`scoreboard.starting`) reads the display's keys with these functions before the
configuration is loaded, and :mod:`scoreboard.config.loading` finds the same file, reads
``--set`` values and the state directory with them, so both agree by construction.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["CONFIG_MAX_BYTES", "config_file", "default_config_path", "set_value", "state_dir_path", "xdg_dir"]

CONFIG_MAX_BYTES = 1 << 20  # a config file is a few KiB: anything past this is the wrong file


def xdg_dir(variable: str, fallback: str) -> Path:
    """``$variable`` when set to an absolute path (the XDG rule), else ``~/fallback``."""
    value = os.environ.get(variable, "")
    return Path(value) if os.path.isabs(value) else Path.home() / fallback


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/scoreboard/config.toml`` (default ``~/.config/...``)."""
    return xdg_dir("XDG_CONFIG_HOME", ".config") / "scoreboard" / "config.toml"


def config_file(path: str | Path | None) -> tuple[Path | None, str]:
    """The file to read and how it was chosen (for messages); (None, "") when there is none:
    ``path``, else ``$SCOREBOARD_CONFIG``, else the user's file when it exists."""
    if path is not None:
        return Path(path).expanduser(), ""
    env = os.environ.get("SCOREBOARD_CONFIG", "")
    if env:
        return Path(env).expanduser(), " (from $SCOREBOARD_CONFIG)"
    default = default_config_path()
    return (default, "") if default.exists() else (None, "")


_NOT_WORDS = frozenset({"true", "false", "inf", "nan"})


def _plain_word(text: str) -> bool:
    """True when ``text`` is a bare word that no TOML value is (letters, digits, ``_``, ``-``,
    a letter or ``_`` first; not true, false, inf, nan): the string itself, no parser needed."""
    return (
        bool(text)
        and text.isascii()
        and (text[0].isalpha() or text[0] == "_")
        and all(c.isalnum() or c in "_-" for c in text)
        and text not in _NOT_WORDS
    )


def set_value(text: str) -> Any:
    """A ``--set`` VALUE: the TOML value ``text`` is, or ``text`` itself when it is none
    (``game.rules=fr``)."""
    if _plain_word(text):
        return text
    import tomllib  # (only here: its regular expressions cost a start that needs none)

    try:
        document = tomllib.loads(f"value = {text}")
    except tomllib.TOMLDecodeError:
        return text
    return document["value"] if document.keys() == {"value"} else text


def state_dir_path(configured: str, source: Path | None) -> tuple[Path, str]:
    """The state directory and where it comes from, for messages: ``configured``
    (``paths.state_dir``, from the file ``source``), else ``$STATE_DIRECTORY`` (systemd),
    else ``$XDG_STATE_HOME/scoreboard``, else ``~/.local/state/scoreboard``. RuntimeError
    when ``~`` cannot be expanded."""
    if configured:
        where = f"paths.state_dir in {source}" if source else "paths.state_dir"
        return Path(configured).expanduser(), where
    systemd = [p for p in os.environ.get("STATE_DIRECTORY", "").split(":") if p]
    if systemd:
        return Path(systemd[0]), "$STATE_DIRECTORY"
    xdg = os.environ.get("XDG_STATE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "scoreboard", "$XDG_STATE_HOME"
    return Path.home() / ".local" / "state" / "scoreboard", "the default"
