"""Rule profiles: registry, parameters from docs/RULES.md, variants, the #rules line."""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import PlayerCountError, UnknownProfileError, VariantError
from engine.rules import (
    FINISH_LINE_TARGETS,
    ChallengeOutcome,
    PassScope,
    RuleProfile,
    TieRule,
    TurnKind,
    WindowCloses,
    get_profile,
    profile_names,
    standard_record_profile,
)


def test_registry_has_the_four_profiles() -> None:
    assert profile_names() == ("de", "fr", "en", "en-tournament")


def test_unknown_profile_lists_known_ones() -> None:
    with pytest.raises(UnknownProfileError) as err:
        get_profile("es")
    message = str(err.value)
    assert "'es'" in message
    for name in profile_names():
        assert name in message


def test_profiles_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_profile("de").rack_size = 9  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "tiles", "size"),
    [("de", "german", 102), ("fr", "french", 102), ("en", "english", 100), ("en-tournament", "english", 100)],
)
def test_tile_sets(name: str, tiles: str, size: int) -> None:
    profile = get_profile(name)
    assert profile.tile_set.name == tiles
    assert profile.tile_set.size == size


def test_challenge_outcomes_per_profile() -> None:
    de, fr, en, tour = (get_profile(n) for n in profile_names())
    assert (de.challenge_outcome, de.challenge_penalty) == (ChallengeOutcome.CHALLENGER_LOSES_POINTS, 5)
    assert (fr.challenge_outcome, fr.challenge_penalty) == (ChallengeOutcome.CHALLENGER_LOSES_POINTS, 10)
    assert en.challenge_outcome is ChallengeOutcome.CHALLENGER_LOSES_TURN
    assert tour.challenge_outcome is ChallengeOutcome.CHALLENGER_LOSES_TURN
    assert tour.with_variants(challenge="five").challenge_outcome is ChallengeOutcome.PLAYER_GETS_BONUS


def test_deadlines_overrides_and_phony_rule() -> None:
    de, fr, en, tour = (get_profile(n) for n in profile_names())
    assert fr.window_closes is WindowCloses.PLAYER_DRAWS
    assert {de.window_closes, en.window_closes, tour.window_closes} == {WindowCloses.NEXT_PLAYER_ACTS}
    assert (de.overrides_allowed, fr.overrides_allowed, en.overrides_allowed, tour.overrides_allowed) == (
        True, True, True, False,
    )
    assert [p.phony_extension_rule for p in (de, fr, en, tour)] == [False, True, False, False]


def test_pass_endings() -> None:
    de, fr, en, tour = (get_profile(n) for n in profile_names())
    assert de.pass_end_turns(2) == 4 and de.pass_end_turns(4) == 8
    assert fr.pass_end_turns(3) == 6
    assert (en.pass_scope, en.pass_count) == (PassScope.ONE_PLAYER, 2)
    assert tour.pass_end_turns(2) == 6
    classic = {TurnKind.PASS, TurnKind.WITHDRAWN, TurnKind.LOST_TURN}
    assert de.pass_kinds == fr.pass_kinds == en.pass_kinds == classic
    assert tour.pass_kinds == classic | {TurnKind.EXCHANGE}


def test_end_adjustment_and_ties() -> None:
    de, fr, en, tour = (get_profile(n) for n in profile_names())
    for p in (de, fr, en):
        assert (p.out_bonus_factor, p.others_subtract_on_out) == (1, True)
    assert (tour.out_bonus_factor, tour.others_subtract_on_out) == (2, False)
    assert en.tie_rule is TieRule.HIGHER_BEFORE_ADJUSTMENT
    assert de.tie_rule is fr.tie_rule is tour.tie_rule is TieRule.STANDS


def test_player_counts() -> None:
    get_profile("de").check_players(4)
    with pytest.raises(VariantError, match="2 players, not 3"):
        get_profile("en-tournament").check_players(3)
    with pytest.raises(VariantError, match="2-4 players, not 5"):
        get_profile("fr").check_players(5)


def test_nine_tile_variant() -> None:
    p = get_profile("de").with_variants(rack=9)
    assert (p.rack_size, p.bingo_tiles) == (9, 7)
    with pytest.raises(VariantError, match="7 or 9"):
        get_profile("de").with_variants(rack=8)


@pytest.mark.parametrize(
    ("name", "outcome", "bonus", "refused"),
    [
        ("void", ChallengeOutcome.NOTHING, 5, True),
        ("single", ChallengeOutcome.NOTHING, 5, False),
        ("double", ChallengeOutcome.CHALLENGER_LOSES_TURN, 5, False),
        ("five", ChallengeOutcome.PLAYER_GETS_BONUS, 5, False),
        ("5pt", ChallengeOutcome.PLAYER_GETS_BONUS, 5, False),
        ("ten", ChallengeOutcome.PLAYER_GETS_BONUS, 10, False),
        ("10pt", ChallengeOutcome.PLAYER_GETS_BONUS, 10, False),
        ("triple", ChallengeOutcome.LOSER_LOSES_GAME, 5, False),
    ],
)
def test_challenge_rules_in_every_profile(name: str, outcome: ChallengeOutcome, bonus: int, refused: bool) -> None:
    for base in ("de", "fr", "en", "en-tournament"):
        p = get_profile(base).with_variants(challenge=name)
        assert (p.challenge_outcome, p.challenge_bonus, p.invalid_play_refused) == (outcome, bonus, refused)
        assert RuleProfile.from_rules_line(p.rules_line()) == p  # written and read back
    assert get_profile("en-tournament").with_variants(challenge="five").rules_line() == "en-tournament challenge=five"
    assert get_profile("en-tournament").with_variants(challenge="double").rules_line() == "en-tournament"
    assert get_profile("de").with_variants(challenge="double").rules_line() == "de challenge=double"


def test_unknown_challenge_rule_and_triple_with_more_players_refused() -> None:
    with pytest.raises(VariantError, match="use one of void, single, double, five, ten, triple"):
        get_profile("en-tournament").with_variants(challenge="quadruple")
    triple = get_profile("de").with_variants(challenge="triple")
    triple.check_players(2)
    with pytest.raises(PlayerCountError, match="challenge=triple is for 2 players, not 3"):
        triple.check_players(3)


def test_clock_and_overtime_defaults() -> None:
    tour = get_profile("en-tournament").with_variants(clock=25)
    assert (tour.clock_minutes, tour.overtime_penalty) == (25, 10)
    de = get_profile("de").with_variants(clock=30)
    assert (de.clock_minutes, de.overtime_penalty) == (30, 0)
    assert get_profile("de").with_variants(clock=30, overtime=5).overtime_penalty == 5


def test_move_limit_variant() -> None:
    p = get_profile("fr").with_variants(move_limit=120, move_limit_action="pass")
    assert p.move_time_limit == 120 and p.move_limit_action.value == "pass"
    with pytest.raises(VariantError):
        get_profile("fr").with_variants(move_limit_action="explode")


def test_finish_line_targets_table() -> None:
    assert FINISH_LINE_TARGETS[2] == {"beginner": 70, "intermediate": 120, "expert": 200}
    assert FINISH_LINE_TARGETS[3] == {"beginner": 60, "intermediate": 100, "expert": 180}
    assert FINISH_LINE_TARGETS[4] == {"beginner": 50, "intermediate": 90, "expert": 160}


@pytest.mark.parametrize(
    "line",
    [
        "de",
        "fr",
        "en",
        "en-tournament",
        "de rack=9 target=120",
        "en-tournament challenge=five",
        "en-tournament clock=25",
        "en-tournament clock=25 overtime=5",
        "fr move-limit=90 clock=30 overtime=10",
        "de move-limit=60 move-limit-action=pass",
    ],
)
def test_rules_line_round_trips(line: str) -> None:
    profile = RuleProfile.from_rules_line(line)
    assert profile.rules_line() == line
    assert RuleProfile.from_rules_line(profile.rules_line()) == profile


def test_rules_line_errors() -> None:
    with pytest.raises(UnknownProfileError, match="known: de, fr, en, en-tournament"):
        RuleProfile.from_rules_line("xx rack=9")
    with pytest.raises(VariantError, match="unknown setting 'speed=3'"):
        RuleProfile.from_rules_line("de speed=3")
    with pytest.raises(VariantError, match="target='many'"):
        RuleProfile.from_rules_line("de target=many")
    with pytest.raises(VariantError, match="empty"):
        RuleProfile.from_rules_line("   ")


def test_has_variants() -> None:
    assert not get_profile("de").has_variants()
    assert get_profile("de").with_variants(target=120).has_variants()
    assert not get_profile("de").with_variants(target=0).has_variants()


def test_standard_record_profile_uses_tile_distribution() -> None:
    assert standard_record_profile() == get_profile("en-tournament")
    german = standard_record_profile("german")
    assert german.tile_set.name == "german"
    assert german.out_bonus_factor == 2
    assert not german.has_variants()
