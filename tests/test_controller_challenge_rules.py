"""The table under each challenge rule: void refuses an invalid play when Done is pressed (and
has nothing to challenge), single costs nothing, ten gives ten, triple ends the game."""

from __future__ import annotations

from tablehelpers import Rig, rig

from engine.events import Play
from engine.game import Termination
from scoreboard.controller import Committed
from scoreboard.screens.models import (
    ChallengeResultScreen,
    ChallengeWindowScreen,
    ErrorKind,
    ErrorScreen,
)


def commands(r: Rig) -> list[object]:
    return [rec.command for rec in r.journal if isinstance(rec, Committed)]


def started(challenge: str, profile: str = "en-tournament") -> Rig:
    """Anna (seat 1) begins with HAUSTEN, Ben holds ABENDRO; the lexicon knows HAUS."""
    r = rig(profile, 2, words=("HAUS",), challenge=challenge)
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    return r


def test_void_refuses_an_invalid_play_at_done_and_has_no_window() -> None:
    r = started("void")
    r.lay(0, "H8:H H9:U H10:A H11:S")  # HUAS
    r.done(1)
    assert r.screen == ErrorScreen(ErrorKind.NOT_A_WORD, "HUAS")
    assert not any(isinstance(c, Play) for c in commands(r)) and r.game.scores() == [0, 0]
    r.take_back(0, "H8 H9 H10 H11")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    assert isinstance(commands(r)[-1], Play) and r.game.scores() == [14, 0]
    assert not r.game.window_open and r.phase.window is None
    assert not any(isinstance(s, ChallengeWindowScreen) for s in r.screens)
    r.challenge(2)
    assert r.screen == ErrorScreen(ErrorKind.NO_CHALLENGE)


def test_single_a_wrong_challenge_shows_no_penalty() -> None:
    r = started("single")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    assert r.screen == ChallengeResultScreen("Ben", "Anna", True, (), 0, False)
    assert r.game.scores() == [14, 0] and r.game.turn == 1


def test_ten_the_player_gets_ten() -> None:
    r = started("ten", profile="de")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    assert r.screen == ChallengeResultScreen("Ben", "Anna", True, (), 10, False)
    assert r.game.scores() == [20, 0]


def test_triple_the_wrong_challenger_loses_the_game() -> None:
    r = started("triple")
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    assert ChallengeResultScreen("Ben", "Anna", True, (), 0, False, lost_game="Ben") in r.screens
    assert r.game.termination is Termination.TRIPLE_CHALLENGE
    assert [o.tally.winners for o in r.over()] == [(0,)]


def test_triple_an_invalid_play_loses_the_game() -> None:
    r = started("triple")
    r.lay(0, "H8:H H9:U H10:A H11:S")  # HUAS
    r.done(1)
    r.challenge(2)
    assert ChallengeResultScreen("Ben", "Anna", False, ("HUAS",), 0, False, lost_game="Anna") in r.screens
    assert [o.tally.winners for o in r.over()] == [(1,)]


def test_seats_without_a_configured_name_are_named_in_the_display_language() -> None:
    from engine.lexicon import SetLexicon
    from engine.rules import get_profile
    from scoreboard.controller import Context, Settings, Table

    for language, third in (("de", "Spieler 3"), ("fr", "Joueur 3"), ("en", "Player 3")):
        ctx = Context(get_profile, lambda _: SetLexicon(()), lambda _: None, ("Anna", "Ben"), Settings(language=language))  # type: ignore[arg-type,return-value]
        state, _ = Table(ctx).new(0.0, "fr", 3)
        assert state.names == ("Anna", "Ben", third)


def test_the_players_menu_offers_no_third_seat_under_triple() -> None:
    """challenge=triple is for 2 players: the menu's seats for the next game stay within it,
    also when the next game's profile is switched back to the triple one."""
    from scoreboard.screens.models import MenuItem

    r = rig("de", 2, challenge="triple")  # the rig's "de" is the configured one, with triple

    def choose(item: MenuItem) -> None:
        r.menu()
        for _ in range(list(MenuItem).index(item)):
            r.menu()
        r.done(0)
        r.challenge(0)  # closes the menu

    choose(MenuItem.PLAYERS)
    assert r.state.next_seats == 2
    choose(MenuItem.PROFILE)  # fr, 2 to 4 players
    choose(MenuItem.PLAYERS)
    assert (r.state.next_profile, r.state.next_seats) == ("fr", 3)
    for _ in range(3):  # en, en-tournament (2), de with triple
        choose(MenuItem.PROFILE)
    assert (r.state.next_profile, r.state.next_seats) == ("de", 2)


def test_a_player_count_error_carries_its_data() -> None:
    import pytest

    from engine.errors import PlayerCountError
    from engine.rules import get_profile

    with pytest.raises(PlayerCountError) as info:
        get_profile("de").with_variants(challenge="triple").check_players(3)
    assert (info.value.players, info.value.least, info.value.most, info.value.profile) == (3, 2, 2, "de")
    with pytest.raises(PlayerCountError) as info:
        get_profile("en-tournament").check_players(4)
    assert (info.value.players, info.value.least, info.value.most, info.value.profile) == (4, 2, 2, "en-tournament")
    assert get_profile("de").with_variants(challenge="triple").most_players == 2 < get_profile("de").most_players
