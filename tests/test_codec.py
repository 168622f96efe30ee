"""Tests of scoreboard.journal_format's command codec: engine commands to JSON and back, losslessly."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from randomgame import play_random_game

import engine.events
from engine.board import Square
from engine.errors import ScoreboardError
from engine.events import (
    AdjustScore,
    Challenge,
    CloseWindow,
    Command,
    Draw,
    EndGame,
    Exchange,
    OverrideRuling,
    Pass,
    PenalizeTime,
    Play,
    UndoLastPlay,
)
from engine.game import Game
from engine.placement import Placement
from engine.rules import get_profile, profile_names
from engine.tiles import ENGLISH, FRENCH, GERMAN
from scoreboard.journal_format import COMMAND_TYPES, CodecError, decode_command, encode_command


def sq(name: str) -> Square:
    return Square.from_name(name)


BLANK_PLAY = Play(
    2,
    Placement(
        [
            (sq("H8"), GERMAN.tile("Ä")),
            (sq("H9"), GERMAN.tile("?").assigned("Ü")),
            (sq("H10"), GERMAN.tile("S")),
        ]
    ),
)

EXAMPLES: list[Command] = [
    Draw(0, "AEINRS?"),
    Draw(1),
    BLANK_PLAY,
    Pass(3),
    Exchange(0, "QX", "EE"),
    Exchange(1, "Q"),
    Challenge(1),
    Challenge(0, ("QUAXEN", "ÜB"), True),
    CloseWindow(),
    UndoLastPlay(),
    OverrideRuling(),
    OverrideRuling(("QUAXEN",)),
    AdjustScore(1, -7),
    PenalizeTime(0, 10),
    EndGame(),
]


def through_json(obj: dict[str, Any]) -> Any:
    return json.loads(json.dumps(obj, ensure_ascii=False))


@pytest.mark.parametrize("command", EXAMPLES, ids=lambda c: type(c).__name__)
def test_every_command_round_trips_through_json(command: Command) -> None:
    stored = through_json(encode_command(command))
    assert stored["type"] == next(name for name, cls in COMMAND_TYPES.items() if cls is type(command))
    back = decode_command(stored, GERMAN)
    assert back == command
    assert type(back) is type(command)


def test_the_stored_form_is_readable() -> None:
    assert encode_command(BLANK_PLAY) == {
        "type": "play",
        "player": 2,
        "placement": [
            {"square": "H8", "letter": "Ä"},
            {"square": "H9", "letter": "?", "assigned": "Ü"},
            {"square": "H10", "letter": "S"},
        ],
    }
    assert encode_command(Draw(1)) == {"type": "draw", "player": 1, "tiles": None}
    assert encode_command(Challenge(0, ("AB",))) == {
        "type": "challenge",
        "challenger": 0,
        "invalid_words": ["AB"],
        "extends_own_phony": False,
    }
    assert encode_command(CloseWindow()) == {"type": "close_window"}


def test_tile_values_come_from_the_tile_set() -> None:
    stored = {
        "type": "play",
        "player": 0,
        "placement": [{"square": "H8", "letter": "K"}, {"square": "I8", "letter": "?", "assigned": "A"}],
    }
    values = {
        ts.name: [t.value for _, t in decode_command(stored, ts).placement.tiles]  # type: ignore[attr-defined]
        for ts in (GERMAN, FRENCH, ENGLISH)
    }
    assert values == {"german": [4, 0], "french": [10, 0], "english": [5, 0]}


# Engine commands knowingly without a stored form yet (each needs its line in COMMAND_TYPES).
PENDING: set[str] = set()


def test_every_engine_command_has_a_stored_form() -> None:
    """Fails when the engine gains a command class without its line in COMMAND_TYPES."""

    def subclasses(cls: type[Command]) -> set[type[Command]]:
        found = set(cls.__subclasses__())
        return found.union(*(subclasses(c) for c in found)) if found else found

    engine_commands = {c for c in subclasses(Command) if c.__module__ == engine.events.__name__}
    missing = {c.__name__ for c in engine_commands - set(COMMAND_TYPES.values())}
    assert missing <= PENDING, f"no stored form for {sorted(missing - PENDING)}: add them to COMMAND_TYPES"
    assert len(set(COMMAND_TYPES.values())) == len(COMMAND_TYPES)


def test_an_unknown_command_class_cannot_be_encoded() -> None:
    @dataclasses.dataclass(frozen=True)
    class Resign(Command):
        player: int

    with pytest.raises(CodecError, match=r"no stored form for the command .*Resign\(player=1\)"):
        encode_command(Resign(1))

    @dataclasses.dataclass(frozen=True)
    class LoudPass(Pass):
        pass

    with pytest.raises(CodecError, match="LoudPass"):
        encode_command(LoudPass(0))


@pytest.mark.parametrize(
    "command",
    [
        Draw("0"),  # type: ignore[arg-type]
        AdjustScore(0, True),  # bool is not a number here
        Challenge(0, ["AB"]),  # type: ignore[arg-type]  # a list would come back as a tuple
        Play(0, Placement([(sq("H8"), GERMAN.tile("?"))])),  # a blank without its letter
        Play(0, "8H AB"),  # type: ignore[arg-type]
    ],
)
def test_commands_that_would_not_round_trip_are_refused(command: Command) -> None:
    with pytest.raises(CodecError, match="cannot encode"):
        encode_command(command)


@pytest.mark.parametrize(
    ("stored", "quoted"),
    [
        ({"type": "resign", "player": 0}, "'resign'"),
        ({"player": 0}, "None"),
        ({"type": 3}, "3"),
        ({"type": "pass"}, "missing field 'player'"),
        ({"type": "pass", "player": 0, "extra": 1}, "unknown field 'extra'"),
        ({"type": "pass", "player": "0"}, "'0' is not a whole number"),
        ({"type": "pass", "player": 1.0}, "1.0 is not a whole number"),
        ({"type": "challenge", "challenger": 0, "extends_own_phony": 1}, "1 is not true or false"),
        ({"type": "challenge", "challenger": 0, "invalid_words": "AB"}, "'AB' is not a list of strings"),
        ({"type": "draw", "player": 0, "tiles": 5}, "5 is not a string or null"),
        ({"type": "play", "player": 0, "placement": {"H8": "A"}}, "is not a list of placed tiles"),
        ({"type": "play", "player": 0, "placement": [{"square": "Z9", "letter": "A"}]}, "'Z9'"),
        ({"type": "play", "player": 0, "placement": [{"square": "H8", "letter": "Ñ"}]}, "'Ñ'"),
        ({"type": "play", "player": 0, "placement": [{"square": "H8"}]}, "not a placed tile"),
        (
            {"type": "play", "player": 0, "placement": [{"square": "H8", "letter": "?"}]},
            "needs an assigned letter",
        ),
        (
            {"type": "play", "player": 0, "placement": [{"square": "H8", "letter": "?", "assigned": "?"}]},
            "needs an assigned letter",
        ),
        (
            {"type": "play", "player": 0, "placement": [{"square": "H8", "letter": "A", "assigned": "B"}]},
            "only a blank",
        ),
        ({"type": "play", "player": 0, "placement": [{"square": 8, "letter": "A"}]}, "must be strings"),
    ],
)
def test_bad_stored_commands_are_codec_errors_quoting_the_input(stored: Any, quoted: str) -> None:
    with pytest.raises(CodecError) as info:
        decode_command(stored, GERMAN)
    assert quoted in str(info.value)
    assert isinstance(info.value, ScoreboardError) and isinstance(info.value, ValueError)


def test_a_stored_command_must_be_an_object() -> None:
    with pytest.raises(CodecError, match=r"not \['pass', 0\]"):
        decode_command(["pass", 0], GERMAN)  # type: ignore[arg-type]


def test_a_missing_field_with_a_default_takes_it() -> None:
    assert decode_command({"type": "draw", "player": 1}, GERMAN) == Draw(1)
    assert decode_command({"type": "challenge", "challenger": 1}, GERMAN) == Challenge(1)


# --- random games ---------------------------------------------------------------------------

PROFILES = st.sampled_from(
    [get_profile(n) for n in profile_names()]
    + [get_profile("de").with_variants(rack=9), get_profile("fr").with_variants(target=150)]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profile=PROFILES, data=st.data(), seed=st.integers(0, 2**32))
def test_random_games_round_trip_and_replay_to_the_same_game(profile, data, seed) -> None:  # type: ignore[no-untyped-def]
    players = data.draw(st.just(2) if profile.name == "en-tournament" else st.integers(2, 4))
    game = play_random_game(profile, players, seed)
    stored = [through_json(encode_command(c)) for c in game.log]
    decoded = [decode_command(obj, profile.tile_set) for obj in stored]
    assert decoded == game.log
    again = Game.replay(profile, game.players, decoded, first=game.first)
    assert again.scores() == game.scores()
    assert again.board.cells == game.board.cells
    assert again.events == game.events
    assert [again.rack(p) for p in range(players)] == [game.rack(p) for p in range(players)]
    assert again.termination == game.termination


def test_random_games_put_blanks_and_every_common_command_through_the_codec() -> None:
    """The property above sees what it claims to (a test of the test)."""
    kinds: set[str] = set()
    blanks = 0
    for seed in range(30):
        game = play_random_game(get_profile("de"), 3, seed)
        for command in game.log:
            stored = encode_command(command)
            kinds.add(stored["type"])
            if stored["type"] == "play":
                blanks += sum("assigned" in t for t in stored["placement"])
    assert blanks > 0
    assert kinds >= {"draw", "play", "pass", "exchange", "challenge", "close_window", "adjust_score"}
