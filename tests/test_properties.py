"""Property tests: random games conserve tiles, totals add up, GCG round-trips and replays."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import gcg
from engine.events import PlayMade
from engine.game import Game, Termination
from engine.replay import replay
from engine.rules import get_profile, profile_names
from randomgame import play_random_game

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PROFILES = st.sampled_from(
    [get_profile(n) for n in profile_names()]
    + [
        get_profile("de").with_variants(rack=9),
        get_profile("fr").with_variants(target=150),
        get_profile("en-tournament").with_variants(challenge="five"),
        *(get_profile("en-tournament").with_variants(challenge=c) for c in ("void", "single", "ten", "triple")),
        get_profile("de").with_variants(challenge="ten"),
        get_profile("en").with_variants(challenge="single"),
    ]
)


def player_counts(profile_name: str) -> st.SearchStrategy[int]:
    return st.just(2) if profile_name == "en-tournament" else st.integers(2, 4)


def check_conservation(game: Game) -> None:
    letters: Counter[str] = Counter(t.rack_letter for _, t in game.board.tiles())
    for rack in game.racks:
        letters.update(t.rack_letter for t in rack)
    letters.update(game.bag.letters())
    assert letters == Counter(game.tile_set.counts)
    assert sum(game.board.letter_counts.values()) == game.board.count


@SETTINGS
@given(profile=PROFILES, data=st.data(), seed=st.integers(0, 2**32))
def test_random_games_conserve_tiles(profile, data, seed) -> None:  # type: ignore[no-untyped-def]
    players = data.draw(player_counts(profile.name))
    game = play_random_game(profile, players, seed, check=check_conservation)
    assert game.over


def same_game(a: Game, b: Game) -> None:
    """What players and records see of two games is the same (the bag's order may differ)."""
    assert a.events == b.events and a.log == b.log and a.scores() == b.scores()
    assert [sorted(a.rack(p)) for p in range(len(a.players))] == [sorted(b.rack(p)) for p in range(len(b.players))]
    assert a.board == b.board and a.bag.letters() == b.bag.letters()
    assert (a.turn, a.termination, a.window_open, a.pending_play) == (b.turn, b.termination, b.window_open, b.pending_play)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(profile=PROFILES, data=st.data(), seed=st.integers(0, 2**32))
def test_copies_are_independent_and_corrections_agree_with_a_replay(profile, data, seed) -> None:  # type: ignore[no-untyped-def]
    """Undo and override start from copies taken before the play or ruling; the game they give
    is the one its log replays to, and a copy is never changed by what its original does."""
    players = data.draw(player_counts(profile.name))
    kept: list[tuple[Game, Game]] = []

    def check(game: Game) -> None:
        if len(kept) % 5 == 0 or game.over:
            same_game(game, Game.replay(game.profile, game.players, game.log, first=game.first))
        copy = game.copy()
        assert copy == game
        kept.append((copy, copy.copy()))

    play_random_game(profile, players, seed, check=check)
    for copy, again in kept:  # the game went on after each copy was taken
        assert copy == again


@SETTINGS
@given(profile=PROFILES, data=st.data(), seed=st.integers(0, 2**32))
def test_totals_equal_the_sum_of_events(profile, data, seed) -> None:  # type: ignore[no-untyped-def]
    players = data.draw(player_counts(profile.name))
    game = play_random_game(profile, players, seed)
    record = gcg.record_from_events(list(game.players), game.events, game.profile)
    running = {p.nick: 0 for p in record.players}
    for e in record.events:
        running[e.nick] += e.score
        assert e.total == running[e.nick]
    tally = game.tally()
    for seat, row in enumerate(tally.rows):
        assert row.final == sum(e.points for e in game.events if e.player == seat)
        assert row.final == running[record.players[seat].nick]
        assert row.final == row.score + row.rack_adjustment


@SETTINGS
@given(profile=PROFILES, data=st.data(), seed=st.integers(0, 2**32))
def test_gcg_round_trips_and_replays_clean(profile, data, seed) -> None:  # type: ignore[no-untyped-def]
    players = data.draw(player_counts(profile.name))
    game = play_random_game(profile, players, seed)
    record = gcg.record_from_events(list(game.players), game.events, game.profile, title="random")
    text = gcg.write(record)
    back = gcg.read(text.encode("utf-8"))
    assert back == record
    assert back.profile() == game.profile
    report = replay(back)
    assert report.disagreements == ()
    assert [report.totals[p.nick] for p in back.players] == game.scores()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_four_player_german_games_with_blanks_and_umlauts_round_trip(seed: int) -> None:
    game = play_random_game(get_profile("de"), 4, seed)
    record = gcg.record_from_events(list(game.players), game.events, game.profile)
    data = gcg.write(record).encode("utf-8")
    assert gcg.read(data) == record
    assert "Jürgen" in data.decode("utf-8")
    assert replay(gcg.read(data)).ok


def test_random_games_reach_every_ending_and_use_blanks_and_umlauts() -> None:
    """The generator really exercises what the properties claim (a test of the test)."""
    blanks = umlauts = 0
    endings = set()
    kinds = set()
    configs = [(get_profile("de"), 4), (get_profile("de").with_variants(target=300), 4), (get_profile("en"), 2)]
    for seed in range(60):
        profile, players = configs[seed % 3]
        game = play_random_game(profile, players, seed)
        endings.add(game.termination)
        kinds.update(type(e).__name__ for e in game.events)
        for e in game.events:
            if isinstance(e, PlayMade):
                blanks += sum(t.blank for _, t in e.placement.tiles)
                umlauts += sum(t.letter in "ÄÖÜ" for _, t in e.placement.tiles)
    assert blanks > 0 and umlauts > 0
    assert endings >= {Termination.WENT_OUT, Termination.PASSES, Termination.FINISH_LINE}
    assert kinds >= {"PlayMade", "PlayWithdrawn", "Passed", "Exchanged", "ChallengePenalty",
                     "ScoreAdjusted", "OutBonus", "RackPenalty"}
