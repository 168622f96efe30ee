"""The starting frame: read as the configuration is, drawn on the display the service then
takes over (or closes when the configuration says otherwise), and nothing on the way to it
that the frame does not need."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from PIL import Image, ImageChops

from drivers.display.panels import PANELS
from engine.rules import profile_names
from scoreboard.config import DisplayConfig, load_config, state_dir
from scoreboard.config.sections import profile_language
from scoreboard.config_files import set_value
from scoreboard.drawing.starting import StartingScreen
from scoreboard.screens import render
from scoreboard.starting import (
    DISPLAY_DEFAULTS,
    PROFILE_LANGUAGES,
    EarlySettingError,
    read_settings,
    show_starting,
)


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No configuration file of the user's, no state directory from the environment."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "SCOREBOARD_CONFIG", "STATE_DIRECTORY", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_the_display_keys_and_defaults_are_the_configurations() -> None:
    assert dict(DISPLAY_DEFAULTS) == {a.name: a.default for a in attrs.fields(DisplayConfig)}


def test_the_profiles_languages_are_the_configurations() -> None:
    assert set(PROFILE_LANGUAGES) == set(profile_names())
    assert all(PROFILE_LANGUAGES[p] == profile_language(p) for p in profile_names())


@pytest.mark.parametrize(
    ("text", "overrides"),
    [
        ("", []),
        ("", ["ui.language=fr", "game.rules=de"]),
        ("", ["game.rules=en-tournament"]),
        ('[display]\ndriver = "ssd1306"\nrotate = 2\n[ui]\nlanguage = "fr"\n', []),
        ('[display]\ndriver = "sh1106"\naddress = 0x3D\nport = 3\n', ["display.address=0x3C", "display.rotate=2"]),
        ('[display]\ndriver = "ssd1309"\npanel = "2.42in"\ninterface = "spi"\nspi_device = 1\nspi_hz = 4000000\n', []),
        ('[display]\ndriver = "ssd1306"\nmux_address = 0x70\nseat_channels = [0, 1, 2]\n[game]\nrules = "fr"\n', []),
        ('\ufeff[game]\nrules = "en"\nplayers = ["A", "B"]\n[paths]\nstate_dir = "STATE"\n', ["display.driver=dummy"]),
        ("", ["paths.state_dir=STATE", "display.driver=sh1106", "display.seat_channels=[3, 4]", "display.mux_address=112"]),
    ],
)
def test_the_settings_read_early_are_the_configurations(
    text: str, overrides: list[str], tmp_path: Path, clean_env: Path
) -> None:
    overrides = [o.replace("STATE", str(tmp_path / "state")) for o in overrides]
    path = None
    if text:
        path = tmp_path / "config.toml"
        path.write_text(text.replace("STATE", str(tmp_path / "state")), encoding="utf-8")
    config = load_config(path, overrides)
    early = read_settings(str(path) if path else None, overrides)
    assert early.display.same_as(config.display)
    assert early.display.chosen_panel() is config.display.chosen_panel()
    assert early.display.chosen_interface() == config.display.chosen_interface()
    assert early.language == config.language()
    assert early.state_path() == state_dir(config)


def test_the_file_is_found_as_the_configuration_finds_it(
    tmp_path: Path, clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = clean_env / ".config" / "scoreboard" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[ui]\nlanguage = "fr"\n', encoding="utf-8")
    assert read_settings(None, []).language == "fr" and read_settings(None, []).source == user
    named = tmp_path / "env.toml"
    named.write_text('[ui]\nlanguage = "en"\n', encoding="utf-8")
    monkeypatch.setenv("SCOREBOARD_CONFIG", str(named))
    assert read_settings(None, []).language == "en"


@pytest.mark.parametrize(
    "text", ["de", "fr", "en-tournament", "_x", "a-b", "true", "false", "inf", "nan", "12", "0x3D", "-1", "007",
             '"quoted"', "[1, 2]", "[", "/tmp/state", "a b", "é", "1e3", "", "2026-01-01"],
)
def test_a_set_value_is_what_the_toml_parser_makes_of_it(text: str) -> None:
    import tomllib

    try:
        document = tomllib.loads(f"value = {text}")
        expected = document["value"] if document.keys() == {"value"} else text
    except tomllib.TOMLDecodeError:
        expected = text
    got = set_value(text)
    assert type(got) is type(expected)
    assert repr(got) == repr(expected)  # (nan is not equal to nan)


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("display.rotate=two", "display.rotate"),
        ("display.driver=ssd9999", "display.driver"),
        ("display.seat_channels=[1, \"2\"]", "display.seat_channels"),
        ("display.address=true", "display.address"),
        ("ui.language=[1]", "ui.language"),
    ],
)
def test_a_value_of_the_wrong_kind_is_not_taken(override: str, key: str, clean_env: Path) -> None:
    with pytest.raises(EarlySettingError) as caught:
        read_settings(None, [override])
    assert caught.value.key == key and isinstance(caught.value, ValueError)


def test_without_a_usable_setting_there_is_no_starting_frame(tmp_path: Path, clean_env: Path) -> None:
    assert show_starting(None, ["display.rotate=two"], simulate=True, out=str(tmp_path / "out")) is None
    bad = tmp_path / "bad.toml"
    bad.write_text("[display\n", encoding="utf-8")
    assert show_starting(str(bad), [], simulate=True, out=str(tmp_path / "out")) is None
    assert not (tmp_path / "out" / "screens.txt").exists()  # (nothing shown, nothing claimed)


@pytest.mark.parametrize("seats", [0, 3])
def test_the_starting_frame_is_shown_and_handed_over(seats: int, tmp_path: Path, clean_env: Path) -> None:
    overrides = ["ui.language=fr", "display.driver=ssd1309"]
    if seats:
        overrides += ["display.interface=i2c", "display.mux_address=112", f"display.seat_channels={list(range(seats))}"]
    out = tmp_path / "out"
    starting = show_starting(None, overrides, simulate=True, out=str(out), virtual_clock=True)
    assert starting is not None
    assert (out / "screens.txt").read_text(encoding="utf-8") == "0.000\tStartingScreen()\n"
    frames = sorted((out / "screens").glob("*.png"))
    assert len(frames) == max(seats, 1)
    expected = render(StartingScreen(), "fr", PANELS["2.42in"])
    for frame in frames:
        with Image.open(frame) as shown:
            assert ImageChops.logical_xor(shown.convert("1"), expected).getbbox() is None
    config = load_config(None, overrides)
    taken = starting.take(config.display, out / "screens")
    assert taken is not None
    displays, shown_log = taken
    assert len(displays) == max(seats, 1) and shown_log is not None and not shown_log.closed
    starting.close()  # (they are the service's now: left open)
    assert not shown_log.closed
    for display in displays:
        display.close()
    shown_log.close()


def test_a_display_the_configuration_changes_is_closed_not_taken(tmp_path: Path, clean_env: Path) -> None:
    out = tmp_path / "out"
    starting = show_starting(None, ["display.rotate=2"], simulate=True, out=str(out))
    assert starting is not None
    (display,) = starting.displays
    shown_log = starting.shown
    assert starting.take(load_config(None, []).display, out / "screens") is None  # rotate 0 after all
    assert display._closed and shown_log is not None and shown_log.closed
    assert starting.take(load_config(None, ["display.rotate=2"]).display, out / "screens") is None  # (closed)
