"""Tests of scoreboard.config: the TOML file, --set overrides, the state directory."""

from __future__ import annotations

import dataclasses
import stat
import tomllib
from pathlib import Path
from typing import Any

import attrs
import pytest

from engine.errors import ScoreboardError
from engine.rules import ChallengeOutcome, MoveLimitAction
from scoreboard.config import (
    KEYS,
    SECTIONS,
    Check,
    Config,
    ConfigError,
    DisplayConfig,
    GameConfig,
    PathsConfig,
    config_to_dict,
    default_toml,
    load_config,
    state_dir,
    toml_value,
)

ENV = ("SCOREBOARD_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "STATE_DIRECTORY")


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No config or state variables from the outside; HOME is an empty temporary dir."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> str:
    """The message of the ConfigError that loading ``text`` raises; it names the file."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


# --- defaults and files -------------------------------------------------------------------


def test_defaults_without_a_file() -> None:
    config = load_config()
    assert config.source is None
    assert config == Config()
    assert config.game == GameConfig(
        rules="de",
        players="auto",
        rack=7,
        target=0,
        challenge="auto",
        move_limit=0,
        move_limit_action="warn",
        clock=0,
        overtime="auto",
    )
    assert config.paths == PathsConfig(state_dir="")


def plain(value: Any) -> Any:
    """A typed value as TOML has it: lists, not tuples."""
    return list(value) if isinstance(value, tuple) else value


def test_each_section_is_one_class_of_config_with_each_key_declared_once() -> None:
    fields = [f for f in dataclasses.fields(Config) if f.name != "source"]
    assert list(SECTIONS) == [f.name for f in fields]
    classes = list(SECTIONS.values())
    assert len(set(classes)) == len(classes)  # no section class serves two sections
    for name, section in SECTIONS.items():
        assert attrs.has(section), name
        assert getattr(Config(), name) == section(), name
    keys = [f"{name}.{a.name}" for name, section in SECTIONS.items() for a in attrs.fields(section)]
    assert list(KEYS) == keys and len(set(keys)) == len(keys)


def test_every_default_is_allowed_and_every_key_and_section_documented() -> None:
    for dotted, attribute in KEYS.items():
        doc, allowed = attribute.metadata["doc"], attribute.metadata["allowed"]
        assert isinstance(allowed, Check), dotted
        assert allowed(plain(attribute.default)) == attribute.default, dotted
        assert doc and "\n" not in doc and doc.endswith("."), dotted
        assert allowed.allowed and "\n" not in allowed.allowed, dotted
    for name, section in SECTIONS.items():
        assert section.__doc__ and section.__doc__.strip().endswith("."), name


def test_sections_are_frozen_and_copied_with_attrs_evolve() -> None:
    display = Config().display
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        display.driver = "dummy"  # type: ignore[misc]
    copy = attrs.evolve(display, driver="capture", seat_channels=())
    assert copy == DisplayConfig(driver="capture") and display.driver == "ssd1322"


def test_full_valid_file(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        [game]
        rules = "en-tournament"
        players = ["Anna", " Ben "]
        rack = 9
        target = 120
        challenge = "five"
        move_limit = 90
        move_limit_action = "pass"
        clock = 25
        overtime = 5

        [paths]
        state_dir = "/var/lib/scoreboard"
        """,
    )
    config = load_config(path)
    assert config.source == path
    assert config.game == GameConfig(
        rules="en-tournament",
        players=("Anna", "Ben"),
        rack=9,
        target=120,
        challenge="five",
        move_limit=90,
        move_limit_action="pass",
        clock=25,
        overtime=5,
    )
    assert config.paths.state_dir == "/var/lib/scoreboard"


def test_partial_file_keeps_other_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[game]\nrules = "fr"\n'))
    assert config.game == GameConfig(rules="fr")
    assert config.paths == PathsConfig()


def test_user_config_file_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    home_file = clean_env / ".config" / "scoreboard" / "config.toml"
    home_file.parent.mkdir(parents=True)
    home_file.write_text("[game]\nrack = 9\n", encoding="utf-8")
    assert load_config().source == home_file
    assert load_config().game.rack == 9

    xdg = tmp_path / "xdg"
    (xdg / "scoreboard").mkdir(parents=True)
    xdg_file = xdg / "scoreboard" / "config.toml"
    xdg_file.write_text("[game]\ntarget = 70\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    assert load_config().source == xdg_file
    assert load_config().game == GameConfig(target=70)

    env_file = write(tmp_path, '[game]\nrules = "en"\n', "env.toml")
    monkeypatch.setenv("SCOREBOARD_CONFIG", str(env_file))
    assert load_config().game == GameConfig(rules="en")
    assert load_config(xdg_file).game == GameConfig(target=70)  # an explicit path wins


def test_missing_scoreboard_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "nope.toml"
    monkeypatch.setenv("SCOREBOARD_CONFIG", str(missing))
    with pytest.raises(
        ConfigError, match=r"nope\.toml: no such config file \(from \$SCOREBOARD_CONFIG\)"
    ):
        load_config()


# --- errors -------------------------------------------------------------------------------


def test_config_error_is_a_scoreboard_error_and_a_value_error() -> None:
    assert issubclass(ConfigError, ScoreboardError)
    assert issubclass(ConfigError, ValueError)


def test_unknown_section(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[gmae]\nrack = 9\n")
    assert "gmae: unknown section (did you mean game?)" in message
    assert "known sections: game, paths" in message


def test_unknown_section_without_suggestion(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[zzz]\n")
    assert "zzz: unknown section; known sections: game, paths" in message
    assert "did you mean" not in message


def test_key_outside_its_section(tmp_path: Path) -> None:
    message = error_of(tmp_path, "rack = 9\n")
    assert "did you mean game.rack?" in message


def test_unknown_key_with_suggestion(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[game]\nplayer = ['A', 'B']\n")
    assert "game.player: unknown key (did you mean game.players?)" in message
    assert "known keys in [game]: rules, players, rack" in message


def test_key_in_the_wrong_section(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[game]\nstate_dir = '/tmp'\n")
    assert "game.state_dir: unknown key (did you mean paths.state_dir?)" in message


def test_section_that_is_not_a_table(tmp_path: Path) -> None:
    message = error_of(tmp_path, "game = 5\n")
    assert "game: 5 is a whole number, not a table" in message


def test_wrong_type(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[game]\nrack = "9"\n')
    assert message.endswith('game.rack: "9" is a string, not a whole number; use 7 or 9')


def test_float_is_not_an_int(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[game]\ntarget = 120.0\n")
    assert "game.target: 120.0 is a decimal number, not a whole number" in message


@pytest.mark.parametrize("key", ["rack", "target", "move_limit", "clock", "overtime"])
def test_bool_is_not_an_int(tmp_path: Path, key: str) -> None:
    message = error_of(tmp_path, f"[game]\n{key} = true\n")
    assert f"game.{key}: true is a boolean, not " in message


@pytest.mark.parametrize("dotted", list(KEYS))
def test_every_key_names_the_wrong_type_and_what_is_allowed(dotted: str) -> None:
    check = KEYS[dotted].metadata["allowed"]
    with pytest.raises(ConfigError) as info:
        load_config(overrides=[f"{dotted}=1979-05-27"])  # a TOML date: no key takes one
    assert info.value.key == dotted and info.value.source == "--set"
    assert info.value.message == (
        f"1979-05-27 is a date/time, not {check.expects}; use {check.allowed}"
    )


def test_toml_value_is_one_line_of_toml() -> None:
    value = ["Zoë", 'a"b\tc\x7f', 7, 1.5, True, [], {"x y": [1]}]
    assert toml_value(value) == '["Zoë", "a\\"b\\tc\\u007f", 7, 1.5, true, [], {"x y" = [1]}]'
    assert tomllib.loads(f"v = {toml_value(value)}")["v"] == value
    assert toml_value(tomllib.loads("v = 1979-05-27T07:32:00")["v"]) == "1979-05-27T07:32:00"


def test_value_not_allowed(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[game]\nrack = 8\n")
    assert message.endswith("game.rack: 8 is not allowed; use 7 or 9")
    assert "game.target: -1 is not allowed; use a whole number, 0 to 2000" in error_of(
        tmp_path, "[game]\ntarget = -1\n"
    )


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("rules", '"es"', '"de", "fr", "en" or "en-tournament"'),
        ("challenge", '"quadruple"', '"auto", "void", "single", "double", "five", "ten" or "triple"'),
        ("move_limit_action", '"stop"', '"warn" or "pass"'),
        ("overtime", '"manual"', '"auto" or a whole number, 0 to 100'),
    ],
)
def test_bad_enum_value(tmp_path: Path, key: str, value: str, allowed: str) -> None:
    message = error_of(tmp_path, f"[game]\n{key} = {value}\n")
    assert f"game.{key}: {value} is not allowed" in message
    assert message.endswith(f"use {allowed}")


def test_bad_enum_value_suggests_the_closest(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[game]\nrules = "en_tournament"\n')
    assert '(did you mean "en-tournament"?)' in message


@pytest.mark.parametrize(
    ("players", "count"),
    [('["Anna"]', "1 name;"), ('["A", "B", "C", "D", "E"]', "5 names;"), ("[]", "0 names;")],
)
def test_player_count(tmp_path: Path, players: str, count: str) -> None:
    message = error_of(tmp_path, f"[game]\nplayers = {players}\n")
    assert f"game.players: {players} has {count} use \"auto\" or a list of 2 to 4 distinct names" in message


def test_duplicate_player_names(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[game]\nplayers = ["Anna", "Ben", "Anna"]\n')
    assert 'game.players: "Anna" is given twice' in message
    message = error_of(tmp_path, '[game]\nplayers = ["Anna", "ANNA "]\n')
    assert 'game.players: "Anna" and "ANNA" are the same name' in message


@pytest.mark.parametrize(
    ("players", "problem"),
    [
        ('["Anna", "  "]', "name 2 is empty"),
        ('["Anna", 7]', "name 2 (7) is a whole number, not a string"),
        ('["Anna", "B\\nen"]', 'name 2 ("B\\nen") contains a control character'),
        ('"Anna"', '"Anna" is a string, not a list of names'),
    ],
)
def test_bad_player_names(tmp_path: Path, players: str, problem: str) -> None:
    assert f"game.players: {problem}" in error_of(tmp_path, f"[game]\nplayers = {players}\n")


def test_relative_state_dir(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[paths]\nstate_dir = "state"\n')
    assert 'paths.state_dir: "state" is not allowed (a relative path)' in message


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[game]\nrules = "de"\nrack = \n')
    assert "not valid TOML" in message
    assert "line 3, column" in message


def test_duplicate_key_is_a_toml_error(tmp_path: Path) -> None:
    message = error_of(tmp_path, "[game]\nrack = 7\nrack = 9\n")
    assert "not valid TOML" in message and "line 3" in message


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes('[game]\nplayers = ["Jürgen", "Ben"]\n'.encode("latin-1"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: not UTF-8 text: byte 0xfc on line 2")


def test_utf8_names_and_bom_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes('\ufeff[game]\nplayers = ["Jürgen", "Zoë"]\n'.encode("utf-8"))
    assert load_config(path).game.players == ("Jürgen", "Zoë")


def test_missing_explicit_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    with pytest.raises(ConfigError, match=f"^{missing}: no such config file$"):
        load_config(missing)
    with pytest.raises(ConfigError, match="is a directory"):
        load_config(tmp_path)


# --- --set overrides ----------------------------------------------------------------------


def test_set_toml_values() -> None:
    config = load_config(
        overrides=["game.rack=9", 'game.players=["Anna","Ben","Cleo"]', "game.overtime = 3"]
    )
    assert config.game.rack == 9
    assert config.game.players == ("Anna", "Ben", "Cleo")
    assert config.game.overtime == 3


def test_set_plain_string_fallback() -> None:
    config = load_config(
        overrides=[
            "game.rules=fr",
            "game.challenge=five",
            "paths.state_dir=/srv/score board",
            "game.overtime=auto",
        ]
    )
    assert config.game.rules == "fr"
    assert config.game.challenge == "five"
    assert config.paths.state_dir == "/srv/score board"
    assert config.game.overtime == "auto"
    assert load_config(overrides=['game.rules="en"']).game.rules == "en"


def test_set_overrides_the_file_and_last_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "[game]\nrack = 9\ntarget = 70\n")
    config = load_config(path, ["game.rack=7", "game.target=100", "game.target=120"])
    assert (config.game.rack, config.game.target, config.source) == (7, 120, path)


def test_set_unknown_key() -> None:
    with pytest.raises(
        ConfigError, match=r"^--set: game\.rak: unknown key \(did you mean game\.rack\?\)"
    ):
        load_config(overrides=["game.rak=9"])
    with pytest.raises(ConfigError, match=r"^--set: gmae: unknown section \(did you mean game\?\)"):
        load_config(overrides=["gmae.rack=9"])
    with pytest.raises(ConfigError, match=r"^--set: game: is a section, not a key"):
        load_config(overrides=["game=9"])


def test_set_bad_value_and_bad_syntax() -> None:
    with pytest.raises(ConfigError, match=r"^--set: game\.rack: 8 is not allowed; use 7 or 9$"):
        load_config(overrides=["game.rack=8"])
    with pytest.raises(ConfigError, match=r"^--set: game\.rack: true is a boolean"):
        load_config(overrides=["game.rack=true"])
    with pytest.raises(ConfigError, match=r"^--set: 'game\.rack' is not KEY=VALUE"):
        load_config(overrides=["game.rack"])


# --- rule profile -------------------------------------------------------------------------


def test_rule_profile_en_tournament_challenge_five() -> None:
    config = load_config(overrides=["game.rules=en-tournament", "game.challenge=five"])
    profile = config.rule_profile()
    assert profile.name == "en-tournament"
    assert profile.challenge_outcome is ChallengeOutcome.PLAYER_GETS_BONUS
    assert profile.challenge_kind == "five"


def test_rule_profile_de_rack_9_target_120() -> None:
    profile = load_config(overrides=["game.rack=9", "game.target=120"]).rule_profile()
    assert profile.name == "de"
    assert (profile.rack_size, profile.target) == (9, 120)
    assert profile.rules_line() == "de rack=9 target=120"


def test_rule_profile_defaults_and_timing() -> None:
    assert not load_config().rule_profile().has_variants()
    profile = load_config(
        overrides=["game.move_limit=60", "game.move_limit_action=pass"]
    ).rule_profile()
    assert (profile.move_time_limit, profile.move_limit_action) == (60, MoveLimitAction.PASS)


def test_rule_profile_challenge_auto_is_the_profiles_own_and_a_rule_applies_anywhere() -> None:
    profile = load_config(overrides=["game.rules=en"]).rule_profile()
    assert profile.challenge_outcome is ChallengeOutcome.CHALLENGER_LOSES_TURN and profile.challenge_kind is None
    assert load_config(overrides=["game.rules=en-tournament"]).rule_profile().challenge_kind == "double"
    profile = load_config(overrides=["game.rules=de", "game.challenge=ten"]).rule_profile()
    assert (profile.challenge_outcome, profile.challenge_bonus) == (ChallengeOutcome.PLAYER_GETS_BONUS, 10)
    with pytest.raises(ConfigError, match="challenge=triple is for 2 players") as info:
        load_config(overrides=["game.challenge=triple", 'game.players=["A", "B", "C"]'])
    assert info.value.key == "game.players"


@pytest.mark.parametrize(
    ("rules", "overtime", "expected"),
    [
        ("en-tournament", "auto", 10),
        ("en-tournament", "0", 0),
        ("de", "auto", 0),
        ("de", "2", 2),
    ],
)
def test_rule_profile_overtime(rules: str, overtime: str, expected: int) -> None:
    config = load_config(
        overrides=[f"game.rules={rules}", "game.clock=25", f"game.overtime={overtime}"]
    )
    profile = config.rule_profile()
    assert (profile.clock_minutes, profile.overtime_penalty) == (25, expected)


def test_en_tournament_with_three_players(tmp_path: Path) -> None:
    path = write(tmp_path, '[game]\nrules = "en-tournament"\nplayers = ["A", "B", "C"]\n')
    with pytest.raises(ConfigError, match=rf"^{path}: game\.players: .*2 players, not 3"):
        load_config(path)
    config = Config(game=GameConfig(rules="en-tournament", players=("A", "B", "C")))
    with pytest.raises(ConfigError, match=r"^game\.players: .*2 players, not 3") as info:
        config.rule_profile()
    assert info.value.key == "game.players"


def test_rule_profile_of_a_config_built_by_hand() -> None:
    with pytest.raises(ConfigError, match=r"^game\.rack: "):
        Config(game=GameConfig(rack=8)).rule_profile()
    with pytest.raises(ConfigError, match=r"^game\.rules: unknown rule profile 'xx'"):
        Config(game=GameConfig(rules="xx")).rule_profile()


# --- state directory ----------------------------------------------------------------------


def test_state_dir_from_state_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "systemd-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("STATE_DIRECTORY", str(first))
    assert state_dir(load_config()) == first
    assert first.is_dir()


def test_state_dir_from_colon_separated_state_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    monkeypatch.setenv("STATE_DIRECTORY", f"{first}:{second}")
    assert state_dir(load_config(), create=False) == first
    assert not first.exists()
    assert state_dir(load_config()) == first
    assert first.is_dir() and not second.exists()


def test_state_dir_from_xdg_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    path = state_dir(load_config())
    assert path == tmp_path / "xdg" / "scoreboard"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_state_dir_home_fallback(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "relative/dir")  # not absolute: ignored (XDG rule)
    path = state_dir(load_config())
    assert path == clean_env / ".local" / "state" / "scoreboard"
    assert path.is_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_state_dir_from_config_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "systemd"))
    config = load_config(overrides=["paths.state_dir=~/games"])
    assert state_dir(config) == clean_env / "games"


def test_state_dir_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    config = load_config(overrides=[f"paths.state_dir={blocker}/state"])
    with pytest.raises(
        ConfigError, match=rf"^paths\.state_dir: cannot create the state directory {blocker}/state"
    ):
        state_dir(config)
    with pytest.raises(ConfigError, match=rf"{blocker} .*exists but is not a directory"):
        state_dir(load_config(overrides=[f"paths.state_dir={blocker}"]))
    assert state_dir(config, create=False) == blocker / "state"


# --- output -------------------------------------------------------------------------------


def test_default_toml_round_trips_to_defaults(tmp_path: Path) -> None:
    text = default_toml()
    data = tomllib.loads(text)
    assert data == {
        name: {a.name: plain(a.default) for a in attrs.fields(section)}
        for name, section in SECTIONS.items()
    }
    assert data == config_to_dict(Config())
    config = load_config(write(tmp_path, text))
    assert dataclasses.replace(config, source=None) == Config()


def test_default_toml_documents_every_key() -> None:
    text = default_toml()
    for dotted in KEYS:
        assert f"\n{dotted.partition('.')[2]} = " in text
    assert "[game]" in text and "[paths]" in text
    assert '"de", "fr", "en" or "en-tournament"' in text
    assert "0 = off" in text
    assert all(len(line) <= 88 for line in text.splitlines())


def test_config_to_dict() -> None:
    config = load_config(overrides=['game.players=["Anna", "Ben"]', "game.rack=9"])
    result = config_to_dict(config)
    assert result["game"]["players"] == ["Anna", "Ben"]
    assert result["game"]["rack"] == 9
    assert result["paths"] == {"state_dir": ""}
    assert set(result) == {"game", "paths", "board", "lexicon", "buttons", "display", "ui", "voice", "broadcast", "hub"}
    assert result["lexicon"] == {"de": "", "fr": "", "en": ""}
    defaults = {
        name: {a.name: plain(a.default) for a in attrs.fields(section)}
        for name, section in SECTIONS.items()
    }
    assert config_to_dict(Config()) == defaults  # TOML types: lists, not tuples
    assert isinstance(config_to_dict(Config())["buttons"]["done"], list)


def test_board_section() -> None:
    config = load_config(overrides=['board.link="/dev/serial/by-id/usb-board"', "board.stable_ms=150"])
    assert config.board.link == "/dev/serial/by-id/usb-board" and config.board.stable_ms == 150
    assert config.board.stable_reports == 2 and config.board.pattern == "*"
    with pytest.raises(ConfigError, match="board.stable_reports: 0 is not allowed"):
        load_config(overrides=["board.stable_reports=0"])
    with pytest.raises(ConfigError, match="board.pattern"):
        load_config(overrides=['board.pattern=""'])
    with pytest.raises(ConfigError, match="board.link"):
        load_config(overrides=['board.link="dev/ttyACM0"'])  # relative


def test_display_settings_that_do_not_fit_together() -> None:
    i2c = "display.driver=ssd1306"  # seat displays are I2C panels
    with pytest.raises(ConfigError, match="display.seat_channels: seat displays need"):
        load_config(overrides=[i2c, "display.seat_channels=[0, 1]"])
    with pytest.raises(ConfigError, match="display.seat_channels: a channel is given twice"):
        load_config(overrides=[i2c, "display.mux_address=0x70", "display.seat_channels=[1, 1]"])
    with pytest.raises(ConfigError, match="display.mux_address: 0x3c is the display's own address"):
        load_config(overrides=[i2c, "display.mux_address=0x3c", "display.seat_channels=[0, 1]"])
    with pytest.raises(ConfigError, match="display.seat_channels: seat displays behind a multiplexer are I2C"):
        load_config(overrides=["display.mux_address=0x70", "display.seat_channels=[0, 3]"])
    config = load_config(overrides=[i2c, "display.mux_address=0x70", "display.seat_channels=[0, 3]"])
    assert config.display.seat_channels == (0, 3) or list(config.display.seat_channels) == [0, 3]


def test_the_example_file_documents_every_key_and_is_up_to_date() -> None:
    """scoreboard.example.toml is `scoreboard config --defaults`; regenerate it when keys change."""
    from pathlib import Path

    from scoreboard.config import KEYS, default_toml

    example = (Path(__file__).resolve().parent.parent / "scoreboard.example.toml").read_text(encoding="utf-8")
    assert example == default_toml(), "run: scoreboard config --defaults > scoreboard.example.toml"
    for dotted in KEYS:
        assert dotted.split(".")[1] + " =" in example


@pytest.mark.parametrize(
    ("rules", "language", "names"),
    [
        ("de", "de", ("Spieler 1", "Spieler 2")),
        ("fr", "fr", ("Joueur 1", "Joueur 2")),
        ("en", "en", ("Player 1", "Player 2")),
        ("en-tournament", "en", ("Player 1", "Player 2")),
    ],
)
def test_display_language_and_default_names_follow_the_profile(
    rules: str, language: str, names: tuple[str, str]
) -> None:
    config = load_config(overrides=[f"game.rules={rules}"])
    assert (config.ui.language, config.language(), config.player_names()) == ("auto", language, names)


def test_an_explicit_language_and_names_still_win() -> None:
    config = load_config(overrides=["game.rules=fr", "ui.language=de"])
    assert (config.language(), config.player_names()) == ("de", ("Spieler 1", "Spieler 2"))
    config = load_config(overrides=["game.rules=fr", 'game.players=["Anna", "Ben", "Cleo"]'])
    assert (config.language(), config.player_names()) == ("fr", ("Anna", "Ben", "Cleo"))


def test_the_table_is_built_in_the_profiles_language_with_its_default_names(tmp_path: Path) -> None:
    from scoreboard.hardware import simulated_tiles
    from scoreboard.run_cli import build_table

    config = load_config(overrides=["game.rules=fr", f"paths.state_dir={tmp_path}"])
    table = build_table(config, simulated_tiles(tmp_path), tmp_path)
    ctx = table.context  # "auto": per game, the language of its profile (chosen at the table too)
    assert (ctx.settings.language, ctx.names) == (None, ())
    assert [ctx.language(p) for p in ("fr", "de", "en-tournament")] == ["fr", "de", "en"]
    assert table.new(0.0, "fr", 2)[0].names == ("Joueur 1", "Joueur 2")
    assert table.new(0.0, "de", 3)[0].names == ("Spieler 1", "Spieler 2", "Spieler 3")
    config = load_config(overrides=["game.rules=fr", "ui.language=en", f"paths.state_dir={tmp_path}"])
    table = build_table(config, simulated_tiles(tmp_path), tmp_path)
    assert table.context.language("fr") == "en"
    assert table.new(0.0, "fr", 2)[0].names == ("Player 1", "Player 2")


def test_default_player_names_are_the_tables() -> None:
    from scoreboard.config.sections import DEFAULT_PLAYER
    from scoreboard.screens.text import TEXT

    assert DEFAULT_PLAYER == TEXT["player.default"]


def test_the_config_command_says_what_auto_stands_for(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scoreboard.cli import main

    assert main(["config", "--set", "game.rules=fr", "--set", f"paths.state_dir={tmp_path}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert 'players = "auto"  # ["Joueur 1", "Joueur 2"]' in out
    assert "challenge = \"auto\"  # fr's own: a wrong challenger loses 10 points" in out
    assert 'overtime = "auto"  # 0' in out
    assert 'language = "auto"  # "fr" (the language of the game\'s profile, also of one chosen at the table)' in out
    tomllib.loads("\n".join(line for line in out if not line.startswith("#")))  # still TOML
    assert main(["config", "--set", "game.rules=en-tournament", "--set", "game.clock=25", "--set", "ui.language=de",
                 "--set", f"paths.state_dir={tmp_path}"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert 'challenge = "auto"  # double' in out and 'overtime = "auto"  # 10' in out and 'language = "de"' in out
