"""The challenge rules void, single, double, five, ten and triple in the engine, in GCG, and the
finish-line choices of docs/RULES.md ("This project's choices"), each a profile parameter."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import gcg
from engine.errors import ChallengeError, ChallengeRefusal, InvalidWordsError
from engine.events import (
    ChallengeBonus,
    ChallengePenalty,
    GameLost,
    OutBonus,
    Passed,
    PlayWithdrawn,
    RackPenalty,
)
from engine.game import Game, Termination
from engine.lexicon import SetLexicon
from engine.placement import Placement
from engine.replay import replay
from engine.rules import RuleProfile, get_profile

WORDS = SetLexicon(["HAUS", "HOUSE", "BAD"])


def game(profile: str = "en-tournament", **variants: object) -> Game:
    p = get_profile(profile).with_variants(**variants)  # type: ignore[arg-type]
    return Game(p, ["Anna", "Ben"], rng=random.Random(3))


def lay(g: Game, position: str, word: str) -> Placement:
    return Placement.from_gcg(position, word, g.board, g.tile_set)


def opened(profile: str = "en-tournament", word: str = "HAUS", **variants: object) -> Game:
    g = game(profile, **variants)
    g.draw(0, "HAUSTEN" if word == "HAUS" else "HUASTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", word))
    return g


def roundtrip(g: Game) -> gcg.GcgRecord:
    """The game written as GCG and read back; it replays with no disagreement."""
    record = gcg.read(gcg.write(gcg.record_from_events(list(g.players), g.events, g.profile)).encode())
    assert record.profile() == g.profile
    report = replay(record)
    assert report.ok, report.disagreements
    assert report.totals == {n: s for n, s in zip(g.players, g.scores())}
    return record


# --- void --------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", ["de", "fr", "en", "en-tournament"])
def test_void_refuses_an_invalid_play_when_laid_and_never_scores_it(profile: str) -> None:
    g = game(profile, challenge="void")
    g.draw(0, "HUASTEN")
    g.draw(1, "ABENDRO")
    with pytest.raises(InvalidWordsError) as info:
        g.play(0, lay(g, "8E", "HUAS"), WORDS)
    assert info.value.words == ("HUAS",)
    assert g.board.is_empty() and g.scores() == [0, 0] and g.turn == 0 and not g.events
    g.play(0, lay(g, "8E", "HAUS"), WORDS)  # a valid play is final at once: nothing to challenge
    assert not g.window_open and g.turn == 1
    with pytest.raises(ChallengeError) as refused:
        g.challenge(1, WORDS)
    assert refused.value.reason is ChallengeRefusal.VOID
    again = Game.replay(g.profile, g.players, g.log)  # the log replays without a lexicon
    assert (again.scores(), again.turn, again.window_open) == (g.scores(), 1, False)
    roundtrip(g)


def test_void_going_out_ends_the_game_at_once() -> None:
    g = game("en-tournament", challenge="void")
    g.draw(0, "HAUS")
    g.draw(1, "ABENDRO")
    g.bag.take(g.bag.tiles())
    g.play(0, lay(g, "8E", "HAUS"), WORDS)
    assert g.termination is Termination.WENT_OUT


# --- single, double, five, ten -------------------------------------------------------------


def test_single_a_wrong_challenge_costs_nothing() -> None:
    g = opened(challenge="single")
    result = g.challenge(1, WORDS)
    assert result.valid and (result.points, result.lost_turn) == (0, False)
    assert g.turn == 1 and g.scores() == [14, 0] and not g.window_open
    assert not any(isinstance(e, (Passed, ChallengeBonus, ChallengePenalty)) for e in g.events)
    roundtrip(g)


def test_single_in_de_replaces_the_five_point_penalty() -> None:
    g = opened("de", challenge="single")
    g.challenge(1, WORDS)
    assert g.scores() == [10, 0]


def test_double_the_wrong_challenger_loses_the_turn() -> None:
    g = opened("de", challenge="double")
    result = g.challenge(1, WORDS)
    assert result.lost_turn and g.turn == 0 and g.scores() == [10, 0]
    assert isinstance(g.events[-1], Passed)


@pytest.mark.parametrize(("rule", "bonus"), [("five", 5), ("ten", 10)])
def test_five_and_ten_the_player_gets_the_bonus(rule: str, bonus: int) -> None:
    g = opened(challenge=rule)
    result = g.challenge(1, WORDS)
    assert result.valid and result.points == bonus and not result.lost_turn
    assert g.scores() == [14 + bonus, 0] and g.turn == 1
    record = roundtrip(g)
    assert record.rules == f"en-tournament challenge={rule}"
    assert [e.score for e in record.events if e.kind is gcg.Kind.CHALLENGE] == [bonus]


def test_invalid_play_under_each_point_rule_is_withdrawn_without_penalty() -> None:
    for rule in ("single", "double", "five", "ten"):
        g = opened(word="HUAS", challenge=rule)
        result = g.challenge(1, WORDS)
        assert not result.valid and g.board.is_empty() and g.scores() == [0, 0] and g.turn == 1
        assert isinstance(g.events[-1], PlayWithdrawn)


# --- triple --------------------------------------------------------------------------------


def test_triple_a_wrong_challenger_loses_the_game() -> None:
    g = opened(challenge="triple")
    result = g.challenge(1, WORDS)
    assert result.valid and result.lost_game == 1
    assert g.termination is Termination.TRIPLE_CHALLENGE
    assert isinstance(g.events[-1], GameLost) and g.events[-1].player == 1
    tally = g.tally()
    assert tally.winners == (0,) and [r.rack_adjustment for r in tally.rows] == [0, 0]
    record = roundtrip(g)
    assert gcg.format_event(record.events[-1]) == ">Ben: ABENDRO (triple) +0 0"
    again = Game.replay(g.profile, g.players, g.log)
    assert (again.termination, again.tally()) == (g.termination, g.tally())


def test_triple_an_invalid_play_loses_the_game_whatever_the_scores() -> None:
    g = opened(word="HUAS", challenge="triple")
    g.adjust_score(0, 50)  # Anna leads, and still loses
    result = g.challenge(1, WORDS)
    assert not result.valid and result.lost_game == 0
    assert g.termination is Termination.TRIPLE_CHALLENGE and g.tally().winners == (1,)
    roundtrip(g)


def test_triple_rack_adjustment_is_a_parameter() -> None:
    g = Game(
        dataclasses.replace(get_profile("en-tournament").with_variants(challenge="triple"), triple_rack_adjustment=True),
        ["Anna", "Ben"],
        rng=random.Random(3),
    )
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    g.challenge(1, WORDS)
    assert [r.rack_adjustment for r in g.tally().rows] == [-3, -10]  # TEN, ABENDRO
    assert g.tally().winners == (0,)


# --- the finish line: choices ------------------------------------------------------------


def _going_out_past_target(profile: RuleProfile) -> Game:
    g = Game(profile, ["Anna", "Ben"], rng=random.Random(3))
    g.draw(0, "HAUS")
    g.draw(1, "ABENDRO")
    g.bag.take(g.bag.tiles())
    g.play(0, lay(g, "8E", "HAUS"))
    g.close_window()
    return g


def test_a_finish_line_play_that_also_goes_out_ends_as_going_out_by_default() -> None:
    g = _going_out_past_target(get_profile("de").with_variants(target=10))
    assert g.termination is Termination.WENT_OUT
    assert any(isinstance(e, OutBonus) for e in g.events) and any(isinstance(e, RackPenalty) for e in g.events)
    other = dataclasses.replace(get_profile("de").with_variants(target=10), going_out_beats_finish_line=False)
    g = _going_out_past_target(other)
    assert g.termination is Termination.FINISH_LINE
    assert not any(isinstance(e, (OutBonus, RackPenalty)) for e in g.events)


def test_finish_line_rack_adjustment_is_a_parameter() -> None:
    p = dataclasses.replace(get_profile("de").with_variants(target=10), finish_line_rack_adjustment=True)
    g = Game(p, ["Anna", "Ben"], rng=random.Random(3))
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    g.close_window()
    assert g.termination is Termination.FINISH_LINE
    assert [r.rack_adjustment for r in g.tally().rows] == [-3, -10]  # TEN; ABENDRO in German values


@pytest.mark.parametrize(("counts", "over"), [(True, True), (False, False)])
def test_a_target_reached_only_through_a_challenge_bonus(counts: bool, over: bool) -> None:
    p = dataclasses.replace(
        get_profile("en-tournament").with_variants(challenge="five", target=16), challenge_bonus_reaches_target=counts
    )
    g = Game(p, ["Anna", "Ben"], rng=random.Random(3))
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))  # 14 points, 2 short of the target
    g.challenge(1, WORDS)  # +5: 19
    assert g.over is over
    assert (g.termination is Termination.FINISH_LINE) is over
