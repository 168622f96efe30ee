"""Loading the configuration: the file, ``--set`` overrides, the state directory, the defaults.

:func:`load_config` reads the TOML file (``--config``, ``$SCOREBOARD_CONFIG``, else the
user's file when there is one), checks every key with its section's declaration and
applies the overrides; :func:`state_dir` finds the state directory; :func:`default_toml`
writes the whole documented file from the declarations.
"""

from __future__ import annotations

import textwrap
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attr
import attrs
import tomli_w

from scoreboard.config_files import (
    CONFIG_MAX_BYTES,
    config_file,
    default_config_path,
    set_value,
    state_dir_path,
)

from .checks import (
    SET_SOURCE,
    ConfigError,
    ConfigPinClashError,
    closest,
    show,
    toml_value,
    value_kind,
)
from .sections import (
    KEYS,
    SECTIONS,
    Config,
    allowed,
    check_board,
    check_broadcast,
    check_buttons,
    check_display,
)

__all__ = ["config_to_dict", "default_config_path", "default_toml", "load_config", "state_dir"]

# --- loading -------------------------------------------------------------------------------


def _read_toml(file: Path, how: str) -> dict[str, Any]:
    try:
        with open(file, "rb") as f:
            raw = f.read(CONFIG_MAX_BYTES + 1)
        if len(raw) > CONFIG_MAX_BYTES:
            raise ConfigError(f"is larger than {CONFIG_MAX_BYTES // 1024} KiB: not a config file{how}", source=file)
    except FileNotFoundError:
        raise ConfigError(f"no such config file{how}", source=file) from None
    except IsADirectoryError:
        raise ConfigError(f"is a directory, not a config file{how}", source=file) from None
    except OSError as e:
        raise ConfigError(
            f"cannot read the config file{how}: {e.strerror or e}", source=file
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise ConfigError(
            f"not UTF-8 text: byte 0x{raw[e.start]:02x} on line {line}; save the file as UTF-8",
            source=file,
        ) from None
    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as e:  # the message ends "(at line L, column C)"
        raise ConfigError(f"not valid TOML: {e}", source=file) from None


def _unknown(dotted: str, source: str | Path | None) -> ConfigError:
    """The error for a section or key that is not in the schema, with a suggestion."""
    section, _, name = dotted.partition(".")
    if section not in SECTIONS:
        owners = [k for k, a in KEYS.items() if a.name == dotted]  # "rack" outside [game]
        guess = owners[0] if owners else closest(section, list(SECTIONS))
        hint = f" (did you mean {guess}?)" if guess else ""
        return ConfigError(
            f"unknown section{hint}; known sections: {', '.join(SECTIONS)}",
            key=dotted if owners else section,
            source=source,
        )
    names = [a.name for a in attrs.fields(SECTIONS[section])]
    if not name:
        return ConfigError(
            f"is a section, not a key; use {section}.KEY with KEY one of: {', '.join(names)}",
            key=section,
            source=source,
        )
    owners = [k for k, a in KEYS.items() if a.name == name]  # a key in the wrong section
    guess = owners[0] if owners else closest(name, names)
    if guess and not owners:
        guess = f"{section}.{guess}"
    hint = f" (did you mean {guess}?)" if guess else ""
    return ConfigError(
        f"unknown key{hint}; known keys in [{section}]: {', '.join(names)}",
        key=dotted,
        source=source,
    )


def _file_items(data: Mapping[str, Any], source: Path) -> Iterator[tuple[str, Any]]:
    """(dotted key, TOML value) of every setting in a parsed file; unknown keys raise."""
    for section, table in data.items():
        if section not in SECTIONS:
            raise _unknown(section, source)
        if not isinstance(table, dict):
            raise ConfigError(
                f"{show(table)} is {value_kind(table)}, not a table; write the settings"
                f" under a [{section}] line",
                key=section,
                source=source,
            )
        for name, value in table.items():
            if f"{section}.{name}" not in KEYS:
                raise _unknown(f"{section}.{name}", source)
            yield f"{section}.{name}", value


def _override_item(item: str) -> tuple[str, Any]:
    """(dotted key, value) of a ``KEY=VALUE`` override; unknown keys raise."""
    dotted, sep, text = item.partition("=")
    dotted = dotted.strip()
    if not sep or not dotted:
        raise ConfigError(
            f'{item!r} is not KEY=VALUE; e.g. game.rack=9 or game.players=["Anna", "Ben"]',
            source=SET_SOURCE,
        )
    if dotted not in KEYS:
        raise _unknown(dotted, SET_SOURCE)
    return dotted, set_value(text.strip())


def _parse(dotted: str, value: Any, source: str | Path) -> Any:
    try:
        return allowed(KEYS[dotted])(value)
    except ConfigError as e:
        raise e.at(dotted, source) from None


def _build(values: Mapping[str, Any], source: Path | None) -> Config:
    """The configuration of ``values`` (dotted key: typed value), defaults for the rest."""
    tables: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
    for dotted, value in values.items():
        section, _, name = dotted.partition(".")
        tables[section][name] = value
    return Config(
        **{name: SECTIONS[name](**table) for name, table in tables.items()}, source=source
    )


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> Config:
    """Read and check the configuration; every problem is a :class:`ConfigError`.

    ``path`` None: ``$SCOREBOARD_CONFIG`` when set, else
    ``$XDG_CONFIG_HOME/scoreboard/config.toml`` (default ``~/.config/scoreboard/``) when
    that file exists, else the defaults. A file named explicitly (argument or variable)
    must exist. ``overrides`` are ``KEY=VALUE`` strings applied after the file; VALUE is a
    TOML value, or a plain string when it does not parse as one (``game.rules=fr``).
    The rule profile and player count are checked too (see :meth:`Config.rule_profile`).
    """
    file, how = config_file(path)
    values: dict[str, Any] = {}
    origin: dict[str, str | Path] = {}
    if file is not None:
        for dotted, value in _file_items(_read_toml(file, how), file):
            values[dotted] = _parse(dotted, value, file)
            origin[dotted] = file
    for item in overrides:
        dotted, value = _override_item(item)
        values[dotted] = _parse(dotted, value, SET_SOURCE)
        origin[dotted] = SET_SOURCE
    config = _build(values, file)
    try:
        check_board(config.board)
        check_broadcast(config.broadcast)
        check_buttons(config.buttons)
        check_display(config.display, config.buttons)
        config.rule_profile()
    except ConfigPinClashError as e:  # name the key that was given, when only one of the two was
        given = [k for k in e.keys if k in origin]
        key = given[0] if len(given) == 1 else e.key
        raise e.at(key, origin.get(key or "", file)) from None
    except ConfigError as e:
        raise e.with_source(origin.get(e.key or "", file)) from None
    return config


# --- state directory -----------------------------------------------------------------------


def _state_dir_path(config: Config) -> tuple[Path, str]:
    """The state directory and where it comes from, for messages."""
    return state_dir_path(config.paths.state_dir, config.source)


def state_dir(config: Config, create: bool = True) -> Path:
    """The directory for game records and state (see ``paths.state_dir``).

    With ``create`` a missing directory is made (mode 0o700, parents as needed); one that
    cannot be made is a :class:`ConfigError` naming the path.
    """
    try:
        path, where = _state_dir_path(config)
    except RuntimeError as e:  # no home directory to expand ~ with
        raise ConfigError(f"no state directory: {e}", key="paths.state_dir") from None
    if create and not path.is_dir():
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except FileExistsError:
            raise ConfigError(
                f"{path} (from {where}) exists but is not a directory", key="paths.state_dir"
            ) from None
        except OSError as e:
            raise ConfigError(
                f"cannot create the state directory {path} (from {where}): {e.strerror or e}",
                key="paths.state_dir",
            ) from None
    return path


# --- output --------------------------------------------------------------------------------


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    """The settings as ``{section: {key: value}}`` with TOML-type values (lists, not tuples:
    the classic ``attr.asdict`` turns them into lists, ``attrs.asdict`` keeps them)."""
    return {name: attr.asdict(getattr(config, name)) for name in SECTIONS}


def _comment(text: str) -> list[str]:
    return textwrap.wrap(
        " ".join(text.split()), width=88, initial_indent="# ", subsequent_indent="# "
    )


def default_toml() -> str:
    """A complete config file (written with tomli-w): every key with its default, doc and
    allowed values."""
    lines = [
        "# Scoreboard configuration (TOML). Every key is listed with its default value;",
        "# leave a key out to keep its default. Unknown keys are errors.",
        "# Override a key on the command line with --set KEY=VALUE, e.g. --set game.rack=9.",
    ]
    for name, table in config_to_dict(Config()).items():
        lines += ["", *_comment(SECTIONS[name].__doc__), tomli_w.dumps({name: {}}).rstrip()]
        for key_name, value in table.items():
            attribute = KEYS[f"{name}.{key_name}"]
            lines += [
                "",
                *_comment(attribute.metadata["doc"]),
                *_comment(f"Allowed: {allowed(attribute).allowed}."),
                # a table value inline: as a [table] it would end the section
                f"{key_name} = {toml_value(value)}" if isinstance(value, dict) else tomli_w.dumps({key_name: value}).rstrip(),
            ]
    return "\n".join(lines) + "\n"
