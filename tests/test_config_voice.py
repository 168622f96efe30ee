"""The ``[voice]`` section: its defaults, what each key allows, and the table it sets up."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.tiles import TileSet
from scoreboard.config import ConfigChoiceError, ConfigError, ConfigRangeError, ConfigTypeError, load_config
from scoreboard.config.sections import ANNOUNCEMENTS
from scoreboard.controller import TileLookup
from scoreboard.hardware import make_voice
from scoreboard.run_cli import build_table
from scoreboard.voice.models import SpeechKind


def test_off_by_default_with_every_event_and_a_voice_per_language() -> None:
    v = load_config().voice
    assert (v.enabled, v.events, v.voices(), v.speed, v.volume, v.device) == (
        False, ("play", "challenge", "turn", "time", "tally"), {"de": "de", "fr": "fr", "en": "en"}, 150, 100, "default"
    )
    assert ANNOUNCEMENTS == tuple(k.value for k in SpeechKind)


def test_keys_are_set_and_checked() -> None:
    v = load_config(
        overrides=["voice.enabled=true", 'voice.events=["play", "tally"]', "voice.en=en-us", "voice.de=de+f3",
                   "voice.speed=120", "voice.volume=180", "voice.device=plughw:CARD=Headphones,DEV=0"]
    ).voice
    assert (v.enabled, v.events, v.en, v.de, v.speed, v.volume, v.device) == (
        True, ("play", "tally"), "en-us", "de+f3", 120, 180, "plughw:CARD=Headphones,DEV=0"
    )
    assert load_config(overrides=["voice.events=[]"]).voice.events == ()


def test_bad_values_name_the_key_and_what_is_allowed() -> None:
    with pytest.raises(ConfigChoiceError, match=r'voice\.events: item 2 \("tallly"\) is not allowed \(did you mean "tally"\?\)') as e:
        load_config(overrides=['voice.events=["play", "tallly"]'])
    assert e.value.key == "voice.events" and e.value.value == "tallly" and "turn" in e.value.choices
    with pytest.raises(ConfigTypeError, match=r'voice\.events: "play" is a string, not a list of strings') as t:
        load_config(overrides=['voice.events="play"'])
    assert t.value.value == "play"
    with pytest.raises(ConfigError, match=r"voice\.events: .* gives an item twice"):
        load_config(overrides=['voice.events=["play", "play"]'])
    with pytest.raises(ConfigError, match=r'voice\.de: "de de" is not allowed; use an espeak-ng voice name') as n:
        load_config(overrides=['voice.de="de de"'])
    assert n.value.key == "voice.de"
    with pytest.raises(ConfigError, match=r'voice\.device: "hw 0" is not allowed; use an ALSA device name'):
        load_config(overrides=['voice.device="hw 0"'])
    with pytest.raises(ConfigRangeError, match=r"voice\.speed: 1000 is not allowed; use a whole number, 80 to 450") as r:
        load_config(overrides=["voice.speed=1000"])
    assert (r.value.low, r.value.high) == (80, 450)
    with pytest.raises(ConfigTypeError, match=r"voice\.enabled: 1 is a whole number, not a boolean"):
        load_config(overrides=["voice.enabled=1"])


def no_tiles(tile_set: TileSet) -> TileLookup:
    raise AssertionError("not needed")


def test_the_table_announces_the_configured_events_only_when_enabled(tmp_path: Path) -> None:
    off = build_table(load_config(overrides=['voice.events=["play"]']), no_tiles, tmp_path)
    assert off.context.settings.announce == frozenset()
    on = build_table(load_config(overrides=["voice.enabled=true", 'voice.events=["play", "time"]']), no_tiles, tmp_path)
    assert on.context.settings.announce == {SpeechKind.PLAY, SpeechKind.TIME}
    assert make_voice(load_config()) is None


def test_a_simulated_voice_keeps_every_announcement(tmp_path: Path) -> None:
    speaker = make_voice(load_config(overrides=["voice.enabled=true", "voice.speed=200"]), tmp_path / "voice")
    assert speaker is not None
    try:
        assert not speaker.supersede and speaker.capacity > 1000
    finally:
        speaker.close()
    real = make_voice(load_config(overrides=["voice.enabled=true"]))
    assert real is not None
    try:
        assert real.supersede and real.capacity == 8
    finally:
        real.close()


def test_names_are_said_as_the_table_sets() -> None:
    v = load_config(overrides=['voice.names={"Françoise" = "fr", " Siobhan " = "Shivawn", "Jürgen" = {en = "Yuergen"}}']).voice
    assert v.names == {"Françoise": "fr", "Siobhan": "Shivawn", "Jürgen": {"en": "Yuergen"}}
    assert load_config().voice.names == {}


def test_file_with_a_names_table(tmp_path: Path) -> None:
    path = tmp_path / "scoreboard.toml"
    path.write_text('[voice.names]\n"Françoise" = "fr"\n"Hélène" = {de = "[[el\'E:n]]"}\n', encoding="utf-8")
    assert load_config(path).voice.names == {"Françoise": "fr", "Hélène": {"de": "[[el'E:n]]"}}


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ('"fr"', ConfigTypeError, r'voice\.names: "fr" is a string, not a table'),
        ('{"Anna" = 3}', ConfigError, r'how "Anna" is said \(3\) is a whole number, not a string'),
        ('{"Anna" = ""}', ConfigError, r'how "Anna" is said is empty'),
        ('{"" = "fr"}', ConfigError, r"a name is empty"),
        ('{"Anna" = "fr", "anna" = "de"}', ConfigError, r'"Anna" and "anna" are the same name'),
        ('{"Anna" = {dee = "Ana"}}', ConfigChoiceError, r'"Anna": "dee" is no language \(did you mean "de"\?\)'),
        ('{"Anna" = {de = ""}}', ConfigError, r"\"Anna\"'s de respelling is empty"),
        ('{"Anna" = "A\\nna"}', ConfigError, r"contains a control character"),
    ],
)
def test_bad_names_tables_say_what_is_wrong(value: str, error: type[ConfigError], message: str) -> None:
    with pytest.raises(error, match=message) as caught:
        load_config(overrides=[f"voice.names={value}"])
    assert caught.value.key == "voice.names" and caught.value.source == "--set"
    if isinstance(caught.value, ConfigChoiceError):
        assert caught.value.value == "dee" and "de" in caught.value.choices
