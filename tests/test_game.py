"""The game state machine: turns, challenges per profile, pass endings, tally, corrections."""

from __future__ import annotations

import random

import pytest

from engine.clock import GameClock, MoveTimer, overtime_penalty
from engine.errors import (
    CorrectionRefusal,
    NoSuchSeatError,
    BagError,
    CentreNotCoveredError,
    ChallengeError,
    CorrectionError,
    ExchangeNotAllowedError,
    GameOverError,
    NotOnRackError,
    NotYourTurnError,
    PlacementError,
    UnknownTileError,
    WindowOpenError,
)
from engine.events import (
    ChallengeBonus,
    ChallengePenalty,
    OutBonus,
    Passed,
    PlayMade,
    PlayWithdrawn,
    RackPenalty,
)
from engine.first_player import FirstPlayerDraw, choose_first_player, draw_for_first_player
from engine.game import Game, Termination
from engine.lexicon import SetLexicon, infer_blanks
from engine.placement import Placement
from engine.rules import TurnKind, get_profile
from engine.tiles import ENGLISH, GERMAN, Tile


def new_game(profile: str = "de", players: int = 2, *, first: int = 0, **variants: object) -> Game:
    prof = get_profile(profile)
    if variants:
        prof = prof.with_variants(**variants)  # type: ignore[arg-type]
    names = ["Anna", "Ben", "Cem", "Dora"][:players]
    return Game(prof, names, rng=random.Random(7), first=first)


def lay(game: Game, position: str, word: str) -> Placement:
    return Placement.from_gcg(position, word, game.board, game.tile_set)


def conserved(game: Game) -> bool:
    letters = [t.rack_letter for _, t in game.board.tiles()]
    letters += [t.rack_letter for rack in game.racks for t in rack]
    letters += game.bag.letters()
    return sorted(letters) == sorted(t.rack_letter for t in game.tile_set.all_tiles())


# --- turn order and plays ------------------------------------------------------------------


def test_play_scores_and_advances_turn() -> None:
    g = new_game("de")
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    scored = g.play(0, lay(g, "8E", "HAUS"))
    # H2 A1 U1 S1 = 5, H8 star doubles: 10
    assert scored.score == 10
    assert g.turn == 1 and g.window_open
    assert g.scores() == [10, 0]
    assert g.rack(0) == "TEN"
    assert isinstance(g.events[-1], PlayMade) and g.events[-1].rack == "HAUSTEN"
    assert conserved(g)


def test_not_your_turn_and_not_on_rack() -> None:
    g = new_game("de")
    g.deal()
    with pytest.raises(NotYourTurnError, match="Anna's turn, not Ben's"):
        g.pass_turn(1)
    g.racks[0] = GERMAN.parse_rack("ABCDEFG")
    with pytest.raises(NotOnRackError):
        g.play(0, lay(g, "8H", "ZU"))


def test_unnamed_blank_is_refused() -> None:
    g = new_game("en")
    g.draw(0, "?AT")
    g.draw(1, "EEE")
    placement = Placement([(p.square, Tile("?", 0, True)) if p.tile.letter == "C" else p for p in lay(g, "8G", "CAT").tiles])
    with pytest.raises(PlacementError, match="blank at G8 has no letter"):
        g.play(0, placement)


def test_four_players_turn_order_from_the_first_player() -> None:
    g = new_game("de", 4, first=2)
    g.deal()
    assert [len(r) for r in g.racks] == [7, 7, 7, 7]
    order = []
    for _ in range(5):
        order.append(g.turn)
        g.exchange(g.turn, g.rack(g.turn)[:1])
    assert order == [2, 3, 0, 1, 2]
    assert conserved(g)


def test_three_player_game_plays_in_order() -> None:
    g = new_game("fr", 3)
    g.draw(0, "MAISONT")
    g.draw(1, "LETRSAI")
    g.draw(2, "RIEUTNE")
    g.play(0, lay(g, "8D", "MAISON"))
    g.draw(0)
    g.play(1, lay(g, "E7", "L.S"))
    g.draw(1)
    g.play(2, lay(g, "9E", ".RUE"))
    assert g.turn == 0
    assert len(g.events) == 3
    assert conserved(g)


# --- draw for first player ---------------------------------------------------------------


def test_draw_for_first_player_blank_beats_a() -> None:
    ts = GERMAN
    assert draw_for_first_player([ts.tile("A"), ts.tile("?"), ts.tile("B")], ts) == 1
    assert draw_for_first_player([ts.tile("Ä"), ts.tile("B")], ts) == 0  # Ä comes before B
    assert draw_for_first_player([ts.tile("B"), ts.tile("A")], ts) == 1
    assert draw_for_first_player([ts.tile("E"), ts.tile("E")], ts) is None


def test_choose_first_player_redraws_ties() -> None:
    for seed in range(30):
        first, rounds = choose_first_player(3, ENGLISH, random.Random(seed))
        assert 0 <= first < 3
        last = rounds[-1]
        keys = [ENGLISH.order_key(t) for t in last]
        assert keys.count(min(keys)) == 1
    assert choose_first_player(4, ENGLISH, random.Random(5)) == choose_first_player(4, ENGLISH, random.Random(5))


def test_the_draw_for_first_player_round_by_round() -> None:
    ts = GERMAN
    draw = FirstPlayerDraw.start(4)
    tie = draw.draw({0: ts.tile("A"), 1: ts.tile("E"), 2: ts.tile("A"), 3: ts.tile("O")}, ts)
    assert tie.first is None and tie.contenders == (0, 2)  # Anna and Cleo tied: they draw again
    done = tie.draw({0: ts.tile("D"), 2: ts.tile("C")}, ts)
    assert done.first == 2 and done.record() == ("AEAO", "D-C-")
    assert draw.contenders == (0, 1, 2, 3) and draw.rounds == ()  # a value: the start is unchanged
    with pytest.raises(NoSuchSeatError):
        tie.draw({0: ts.tile("D"), 1: ts.tile("C")}, ts)  # seat 1 does not draw again


# --- challenges ----------------------------------------------------------------------------


def opened(profile: str, players: int = 2, **variants: object) -> Game:
    g = new_game(profile, players, **variants)
    g.draw(0, "HAUSTEN")
    for p in range(1, players):
        g.draw(p, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    return g


def test_de_valid_challenge_costs_the_challenger_five() -> None:
    g = opened("de")
    result = g.challenge(1, SetLexicon(["HAUS"]))
    assert result.valid and result.points == -5
    assert isinstance(g.events[-1], ChallengePenalty) and g.events[-1].player == 1
    assert g.scores() == [10, -5]
    assert not g.window_open and g.turn == 1


def test_fr_valid_challenge_costs_ten() -> None:
    g = opened("fr")
    g.challenge(1, SetLexicon(["HAUS"]))
    # French values: H4 A1 U1 S1 = 7, doubled on the star = 14
    assert g.scores() == [14, -10]


def test_invalid_play_is_withdrawn_with_drawn_tiles_back_in_the_bag() -> None:
    g = opened("de")
    bag_before = g.bag.letters()
    g.draw(0, "IRDE")
    assert g.window_open  # in de drawing does not close the window
    result = g.challenge(1, SetLexicon([]))
    assert not result.valid and result.invalid_words == ("HAUS",)
    assert isinstance(g.events[-1], PlayWithdrawn) and g.events[-1].points == -10
    assert g.scores() == [0, 0]
    assert sorted(g.rack(0)) == sorted("HAUSTEN")
    assert g.bag.letters() == bag_before
    assert g.board.is_empty()
    assert g.turn == 1
    assert conserved(g)


def test_withdrawn_opening_play_the_next_play_must_cover_h8() -> None:
    g = opened("de")
    g.challenge(1, SetLexicon([]))
    with pytest.raises(CentreNotCoveredError):
        g.play(1, lay(g, "8A", "ABEND"))
    g.play(1, lay(g, "8D", "ABEND"))
    assert g.board.count == 5


def test_fr_window_closes_when_the_player_draws() -> None:
    g = opened("fr")
    g.draw(0)
    assert not g.window_open
    with pytest.raises(ChallengeError, match="too late"):
        g.challenge(1, SetLexicon([]))


def test_window_closes_when_the_next_player_acts() -> None:
    g = opened("de", 3)
    g.pass_turn(1)
    with pytest.raises(ChallengeError, match="too late"):
        g.challenge(2, SetLexicon([]))


def test_cannot_challenge_own_play() -> None:
    g = opened("de")
    with pytest.raises(ChallengeError, match="own play"):
        g.challenge(0, SetLexicon([]))


def test_en_wrong_challenger_loses_the_turn_at_once_with_two_players() -> None:
    g = opened("en")
    result = g.challenge(1, SetLexicon(["HAUS"]))
    assert result.lost_turn and result.points == 0
    assert isinstance(g.events[-1], Passed) and g.events[-1].reason is TurnKind.LOST_TURN
    assert g.turn == 0
    assert g.scores()[1] == 0


def test_en_wrong_challenger_loses_the_next_turn_with_three_players() -> None:
    g = opened("en", 3)
    g.challenge(2, SetLexicon(["HAUS"]))
    assert g.turn == 1  # Ben still moves; Cem's turn is the one lost
    g.pass_turn(1)
    assert g.turn == 0
    lost = [e for e in g.events if isinstance(e, Passed) and e.reason is TurnKind.LOST_TURN]
    assert [e.player for e in lost] == [2]


def test_en_tournament_double_and_five() -> None:
    g = opened("en-tournament")
    g.challenge(1, SetLexicon(["HAUS"]))
    assert g.turn == 0
    five = opened("en-tournament", challenge="five")
    result = five.challenge(1, SetLexicon(["HAUS"]))
    assert result.points == 5
    assert isinstance(five.events[-1], ChallengeBonus) and five.events[-1].player == 0
    # English: H4 A1 U1 S1 = 7, doubled = 14, + 5 bonus
    assert five.scores() == [19, 0]
    assert five.turn == 1


def fr_phony_setup(profile: str) -> Game:
    g = new_game(profile)
    g.draw(0, "ZUAAEEI")
    g.draw(1, "XTOOIIE")
    g.play(0, lay(g, "8G", "ZU"))  # a phony nobody challenges
    return g


def test_fr_phony_extension_extender_plays_again() -> None:
    g = fr_phony_setup("fr")
    lexicon = SetLexicon(["ZUT"])
    g.play(1, lay(g, "8G", "..X"))  # ZUX: the phony extended into another phony
    result = g.challenge(0, lexicon)
    assert not result.valid and result.plays_again
    assert g.turn == 1  # Ben plays again, no turn lost
    assert "X" in g.rack(1)
    g.play(1, lay(g, "8G", "..T"))
    assert g.board.count == 3


def test_de_has_no_phony_extension_rule() -> None:
    g = fr_phony_setup("de")
    g.play(1, lay(g, "8G", "..X"))
    result = g.challenge(0, SetLexicon(["ZUT"]))
    assert not result.valid and not result.plays_again
    assert g.turn == 0  # Ben's turn is over


def test_fr_phony_rule_needs_the_challenger_to_have_laid_the_phony() -> None:
    g = new_game("fr", 3)
    g.draw(0, "ZUAAEEI")
    g.draw(1, "XTOOIIE")
    g.draw(2, "EEEAAAI")
    g.play(0, lay(g, "8G", "ZU"))
    g.play(1, lay(g, "8G", "..X"))
    result = g.challenge(2, SetLexicon(["ZUT"]))  # Cem did not lay ZU
    assert not result.plays_again
    assert g.turn == 2


def test_fr_valid_extension_costs_the_challenger() -> None:
    g = fr_phony_setup("fr")
    g.play(1, lay(g, "8G", "..T"))
    result = g.challenge(0, SetLexicon(["ZUT"]))
    assert result.valid and result.points == -10
    assert isinstance(g.events[-1], ChallengePenalty) and g.events[-1].player == 0


# --- pass endings ------------------------------------------------------------------------


def test_de_two_rounds_of_passes_end_the_game_exchange_breaks_the_run() -> None:
    g = new_game("de")
    g.deal()
    g.pass_turn(0)
    g.exchange(1, g.rack(1)[:2])
    g.pass_turn(0)
    g.pass_turn(1)
    g.pass_turn(0)
    assert not g.over  # 3 passes since the exchange
    g.pass_turn(1)
    assert g.termination is Termination.PASSES
    penalties = [e for e in g.events if isinstance(e, RackPenalty)]
    assert [e.player for e in penalties] == [0, 1]
    for e in penalties:
        assert e.points == -GERMAN.rack_value(e.rack)
    with pytest.raises(GameOverError):
        g.pass_turn(0)


def test_de_three_players_need_six_passes() -> None:
    g = new_game("de", 3)
    g.deal()
    for k in range(5):
        g.pass_turn(k % 3)
    assert not g.over
    g.pass_turn(2)
    assert g.over


def test_withdrawn_play_and_lost_turn_count_as_passes() -> None:
    g = opened("de")  # Anna plays
    g.challenge(1, SetLexicon([]))  # withdrawn: Anna's turn counts as a pass
    g.pass_turn(1)
    g.pass_turn(0)
    assert not g.over
    g.pass_turn(1)
    assert g.termination is Termination.PASSES


def test_en_one_player_passing_twice_ends_the_game() -> None:
    g = new_game("en")
    g.draw(0, "AEIOUST")
    g.draw(1, "CATSRON")
    g.pass_turn(0)
    g.play(1, lay(g, "8G", "CAT"))
    assert not g.over
    g.pass_turn(0)
    assert g.termination is Termination.PASSES


def test_once_a_turn_lost_meets_the_pass_rule_while_a_play_waits_no_further_turn_is_taken() -> None:
    """en: Ben passed; his wrong challenge costs him the turn after Anna's play. That meets the
    pass rule (two in a row) while her play waits for its window: the game ends when it is
    final, so Cem's own lost turn is not taken (it would be written after the end)."""
    from engine import gcg
    from engine.replay import replay

    g = new_game("en", 4)
    for seat, rack in enumerate(("ABCDEFG", "HIJKLMN", "OPRSTUV", "WXYZEEI")):
        g.draw(seat, rack)
    g.play(0, lay(g, "8G", "AB"))
    g.pass_turn(1)
    g.play(2, lay(g, "9H", "OP"))
    g.rule_challenge(1)  # valid: Ben loses his next turn
    g.play(3, lay(g, "10H", "WX"))
    g.rule_challenge(2)  # valid: Cem loses his next turn
    g.play(0, lay(g, "11H", "CD"))
    lost = [e.player for e in g.events if isinstance(e, Passed) and e.reason is TurnKind.LOST_TURN]
    assert lost == [1] and not g.over
    g.close_window()
    assert g.termination is Termination.PASSES
    record = gcg.record_from_events(list(g.players), g.events, g.profile)
    assert replay(gcg.read(gcg.write(record).encode("utf-8"))).disagreements == ()


def test_en_tournament_six_scoreless_turns_with_exchanges() -> None:
    g = new_game("en-tournament")
    g.deal()
    g.exchange(0, g.rack(0)[:1])
    for player in (1, 0, 1, 0):
        g.pass_turn(player)
    assert not g.over
    g.exchange(1, g.rack(1)[:3])
    assert g.termination is Termination.PASSES


def test_en_tournament_zero_point_play_breaks_the_run() -> None:
    g = new_game("en-tournament")
    g.draw(0, "??EEEEE")
    g.draw(1, "AAAAAAA")
    g.pass_turn(0)
    g.pass_turn(1)
    placement = Placement([(sq, Tile("?", 0, True).assigned(ch)) for sq, ch in zip(lay(g, "8H", "OX").squares, "OX")])
    assert g.play(0, placement).score == 0
    for player in (1, 0, 1, 0):
        g.pass_turn(player)
    assert not g.over  # 4 scoreless turns since the 0-point play
    g.pass_turn(1)
    g.pass_turn(0)
    assert g.over


# --- going out, tally, ties, finish line -------------------------------------------------


def emptied_bag(profile: str, rack0: str, rack1: str, **variants: object) -> Game:
    g = new_game(profile, **variants)
    g.draw(0, rack0)
    g.draw(1, rack1)
    g.bag.take(g.bag.tiles())  # as if the bag were played out
    return g


def test_going_out_waits_for_the_challenge_window() -> None:
    g = emptied_bag("de", "HAUS", "QENT")
    g.play(0, lay(g, "8E", "HAUS"))
    assert not g.over
    with pytest.raises(WindowOpenError, match="went out"):
        g.pass_turn(1)
    g.close_window()
    assert g.termination is Termination.WENT_OUT
    tally = g.tally()
    # Ben's rack Q10 E1 N1 T1 = 13: Anna +13, Ben -13
    assert [(r.score, r.rack_adjustment, r.final) for r in tally.rows] == [(10, 13, 23), (0, -13, -13)]
    assert tally.winners == (0,)
    assert isinstance(g.events[-2], OutBonus) and g.events[-2].tiles == "QENT"


def test_going_out_play_challenged_off_the_board_goes_on() -> None:
    g = emptied_bag("de", "HAUS", "QENT")
    g.play(0, lay(g, "8E", "HAUS"))
    g.challenge(1, SetLexicon([]))
    assert not g.over and g.rack(0) == "HAUS" and g.turn == 1


def test_en_tournament_going_out_scores_twice_the_rack() -> None:
    g = emptied_bag("en-tournament", "CAT", "QI")
    g.play(0, lay(g, "8G", "CAT"))
    g.close_window()
    tally = g.tally()
    # CAT: C3 A1 T1 = 5 x2 = 10; Ben's QI = 11, doubled = 22 for Anna; Ben subtracts nothing
    assert [(r.score, r.rack_adjustment, r.final) for r in tally.rows] == [(10, 22, 32), (0, 0, 0)]


def test_classic_going_out_with_four_players() -> None:
    g = new_game("en", 4)
    g.draw(0, "CAT")
    g.draw(1, "QI")
    g.draw(2, "ZA")
    g.draw(3, "E")
    g.bag.take(g.bag.tiles())
    g.play(0, lay(g, "8G", "CAT"))
    g.close_window()
    rows = g.tally().rows
    # others: QI 11, ZA 11, E 1 = 23 for Anna; each subtracts their own
    assert [r.rack_adjustment for r in rows] == [23, -11, -11, -1]


def test_en_tie_goes_to_the_higher_score_before_adjustment() -> None:
    g = new_game("en")
    g.draw(0, "Q")
    g.draw(1, "AEIOU")
    g.adjust_score(0, 20)
    g.adjust_score(1, 15)
    tally = g.end_game()
    # Anna 20 - 10 = 10, Ben 15 - 5 = 10: tie on finals, Anna was ahead before the racks
    assert [r.final for r in tally.rows] == [10, 10]
    assert tally.winners == (0,) and not tally.is_tie
    assert tally.termination is Termination.ENDED_AT_TABLE


def test_de_tie_stands() -> None:
    g = new_game("de")
    g.draw(0, "Q")
    g.draw(1, "AEIOU")
    g.adjust_score(0, 20)
    g.adjust_score(1, 16)
    tally = g.end_game()
    # Anna 20 - Q10 = 10; Ben 16 - (A1 E1 I1 O2 U1 = 6) = 10
    assert [r.final for r in tally.rows] == [10, 10]
    assert tally.winners == (0, 1) and tally.is_tie


def test_finish_line_ends_when_the_window_closes_without_rack_adjustment() -> None:
    g = new_game("de", target=10)
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    assert not g.over
    g.close_window()
    assert g.termination is Termination.FINISH_LINE
    assert [r.rack_adjustment for r in g.tally().rows] == [0, 0]
    assert g.tally().winners == (0,)


def test_finish_line_play_challenged_off_does_not_end() -> None:
    g = new_game("de", target=10)
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    g.challenge(1, SetLexicon([]))
    assert not g.over


# --- exchange ----------------------------------------------------------------------------


def test_exchange_refused_when_the_bag_is_low() -> None:
    g = new_game("de")
    g.deal()
    g.bag.take(g.bag.tiles()[:-6])
    with pytest.raises(ExchangeNotAllowedError, match="holds 6 tiles; exchanging needs at least 7"):
        g.exchange(0, g.rack(0)[:1])


def test_an_exchange_counts_the_bag_once_every_rack_is_refilled() -> None:
    """While the bag holds a tile every rack is full: tiles a player has not drawn yet after a
    play are that player's, not free to exchange (as the replay of a record counts them)."""
    g = new_game("de")
    g.draw(0, "AAAAAEE")
    g.draw(1, "EEEEEEE")
    g.bag.take(g.bag.tiles()[:-9])
    g.play(0, lay(g, "8G", "AAE"))  # Anna has not drawn her three tiles yet
    assert len(g.bag) == 9 and g.bag_after_refills == 6
    with pytest.raises(ExchangeNotAllowedError) as info:
        g.exchange(1, "E")
    assert info.value.bag == 6 and "6 once every rack is refilled" in str(info.value)
    g.draw(0)
    assert len(g.bag) == g.bag_after_refills == 6
    with pytest.raises(ExchangeNotAllowedError, match="holds 6 tiles; exchanging needs at least 7"):
        g.exchange(1, "E")


def test_nine_tile_exchange_needs_as_many_tiles_in_the_bag() -> None:
    g = new_game("de", rack=9)
    g.deal()
    g.bag.take(g.bag.tiles()[:-8])
    with pytest.raises(ExchangeNotAllowedError, match="holds 8 tiles; 9 cannot be exchanged"):
        g.exchange(0, g.rack(0))
    g.exchange(0, g.rack(0)[:8])


def test_exchange_of_tiles_not_on_the_rack() -> None:
    g = new_game("de")
    g.draw(0, "AAAAAEE")
    g.draw(1, "EEEEEEE")
    with pytest.raises(ExchangeNotAllowedError, match="'Q'"):
        g.exchange(0, "Q")


def test_exchange_with_seen_tiles() -> None:
    g = new_game("de")
    g.draw(0, "AAAAAEE")
    g.draw(1, "EEEEEEE")
    new = g.exchange(0, "AA", drawn="XY")
    assert "".join(t.letter for t in new) == "XY"
    assert sorted(g.rack(0)) == sorted("AAAEEXY")
    assert conserved(g)


def test_draw_of_tiles_not_in_the_bag() -> None:
    g = new_game("en")
    g.draw(0, "QZ")
    with pytest.raises(BagError, match="'Q'"):
        g.draw(1, "Q")


# --- corrections ----------------------------------------------------------------------------


def test_undo_last_play_restores_racks_bag_and_turn() -> None:
    g = new_game("de")
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    bag = g.bag.letters()
    g.play(0, lay(g, "8E", "HAUS"))
    g.draw(0, "XYZQ")
    g.undo_last_play()
    assert g.board.is_empty() and g.events == [] and g.turn == 0
    assert sorted(g.rack(0)) == sorted("HAUSTEN") and g.bag.letters() == bag
    assert conserved(g)
    g.play(0, lay(g, "8H", "HAUS"))  # the game goes on
    assert g.scores() == [10, 0]


def test_undo_keeps_the_earlier_play_final() -> None:
    g = new_game("de")
    g.draw(0, "HAUSTEN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HAUS"))
    g.play(1, lay(g, "E8", ".ABEND"))
    g.undo_last_play()
    assert g.turn == 1 and not g.window_open
    with pytest.raises(ChallengeError):
        g.challenge(1, SetLexicon([]))


def test_undo_refused_after_the_next_move() -> None:
    g = opened("de")
    g.pass_turn(1)
    with pytest.raises(CorrectionError, match="only the last play"):
        g.undo_last_play()
    with pytest.raises(CorrectionError, match="no play"):
        new_game("de").undo_last_play()


def test_adjust_score_and_time_penalty_after_the_end() -> None:
    g = opened("de")
    g.adjust_score(1, 3)
    g.end_game()
    g.penalize_time(0, 10)
    assert g.tally().rows[0].final == 10 - GERMAN.rack_value("TEN") - 10
    assert g.tally().rows[1].final == 3 - GERMAN.rack_value("ABENDRO")


def test_replaying_the_log_rebuilds_the_game() -> None:
    g = new_game("de", 3)
    g.deal()
    g.exchange(0, g.rack(0)[:3])
    g.pass_turn(1)
    g.adjust_score(2, 4)
    g.pass_turn(2)
    copy = Game.replay(g.profile, g.players, g.log, first=g.first, rng=random.Random(99))
    assert copy.events == g.events and copy.racks == g.racks
    assert copy.bag.letters() == g.bag.letters() and copy.turn == g.turn


# --- blanks ------------------------------------------------------------------------------


def test_infer_blank_letter() -> None:
    g = new_game("en")
    blank = Tile("?", 0, True)
    tiles = lay(g, "8G", "CAT").tiles
    placement = Placement([(tiles[0].square, tiles[0].tile), (tiles[1].square, blank), (tiles[2].square, tiles[2].tile)])
    one = infer_blanks(g.board, placement, SetLexicon(["CAT", "DOG"]), ENGLISH)
    assert [p.tiles[1].tile for p in one] == [Tile("A", 0, True)]
    two = infer_blanks(g.board, placement, SetLexicon(["CAT", "COT", "CUT"]), ENGLISH)
    assert [p.tiles[1].tile.letter for p in two] == ["A", "O", "U"]
    assert infer_blanks(g.board, placement, SetLexicon(["DOG"]), ENGLISH) == []


def test_infer_blank_with_umlaut() -> None:
    g = new_game("de")
    tiles = lay(g, "8G", "BÄR").tiles
    placement = Placement([(tiles[0].square, tiles[0].tile), (tiles[1].square, Tile("?", 0, True)), (tiles[2].square, tiles[2].tile)])
    found = infer_blanks(g.board, placement, SetLexicon(["BÄR"]), GERMAN)
    assert [p.tiles[1].tile for p in found] == [Tile("Ä", 0, True)]


# --- clock -------------------------------------------------------------------------------


def test_overtime_penalty_per_started_minute() -> None:
    assert overtime_penalty(0, 10) == 0
    assert overtime_penalty(1, 10) == 10
    assert overtime_penalty(60, 10) == 10
    assert overtime_penalty(61, 10) == 20
    assert overtime_penalty(300, 0) == 0


def test_game_clock_runs_one_player_at_a_time() -> None:
    start = GameClock.for_players(2, limit=60.0)
    clock = start.run(0, now=100.0).run(1, now=130.0)  # Anna used 30 s
    assert clock.used_by(1, now=150.0) == 20.0 and clock.remaining(1, now=150.0) == 40.0
    stopped = clock.run(None, now=200.0)  # Ben used 70 s
    assert start.used == (0.0, 0.0) and clock.running == 1  # values: nothing changed in place
    assert stopped.remaining(0, now=500.0) == 30.0
    assert stopped.remaining(1, now=500.0) == -10.0
    assert stopped.penalties(now=500.0, points_per_minute=10) == (0, 10)
    assert GameClock.for_players(3).remaining(0, now=9.0) is None  # counted, not limited
    assert GameClock.for_players(2).run(0, 0.0).penalties(now=999.0, points_per_minute=10) == (0, 0)


def test_move_timer_counts_from_the_move_and_skips_a_pause() -> None:
    timer = MoveTimer().begin(1, now=10.0)
    assert timer.player == 1 and timer.left(now=40.0, limit=60.0) == 30.0
    assert timer.shifted(15.0).left(now=40.0, limit=60.0) == 45.0  # 15 s paused do not count
    assert timer.left(now=80.0, limit=60.0) == -10.0 and not timer.warned


# --- every profile: pass ending and going-out tally ------------------------------------------


@pytest.mark.parametrize(
    ("profile", "players", "passes"),
    [("de", 2, 4), ("fr", 2, 4), ("fr", 4, 8), ("en", 3, 4), ("en-tournament", 2, 6)],
)
def test_pass_ending_per_profile(profile: str, players: int, passes: int) -> None:
    # en ends when one player passes two own turns in a row: with 3 players that is the
    # 4th pass (Anna, Ben, Cem, Anna).
    g = new_game(profile, players)
    g.deal()
    for k in range(passes - 1):
        g.pass_turn(k % players)
        assert not g.over
    g.pass_turn((passes - 1) % players)
    assert g.termination is Termination.PASSES
    for row in g.tally().rows:
        assert row.rack_adjustment == -g.tile_set.rack_value(g.rack(row.player))


@pytest.mark.parametrize(
    ("profile", "bonus", "ben"), [("de", 13, -13), ("fr", 11, -11), ("en", 13, -13), ("en-tournament", 26, 0)]
)
def test_going_out_tally_per_profile(profile: str, bonus: int, ben: int) -> None:
    # Ben keeps Q E N T: German and English Q10 E1 N1 T1 = 13, French Q8 = 11;
    # en-tournament doubles it for Anna and Ben subtracts nothing.
    g = emptied_bag(profile, "HAUS", "QENT")
    g.play(0, lay(g, "8E", "HAUS"))
    g.close_window()
    value = g.tile_set.rack_value("QENT")
    factor = 2 if profile == "en-tournament" else 1
    assert bonus == value * factor
    rows = g.tally().rows
    assert (rows[0].rack_adjustment, rows[1].rack_adjustment) == (bonus, ben)


# --- found in review: turns lost while a window is open, ends at odd moments ------------------


def test_lost_turn_does_not_end_the_game_before_the_pending_play_is_final() -> None:
    g = new_game("en", 3)
    g.draw(0, "CATSDOG")
    g.draw(1, "TEARING")
    g.draw(2, "OXENLIP")
    g.play(0, lay(g, "8G", "CAT"))
    g.pass_turn(1)  # Ben passes once
    g.play(2, lay(g, "G9", "OX"))
    g.rule_challenge(1)  # Ben challenges wrongly and loses his next turn
    g.play(0, lay(g, "F10", "SD"))  # Ben's turn is skipped while Anna's play is open
    assert g.window_open and not g.over  # Cem can still challenge Anna's play
    g.rule_challenge(2, ("SD",))
    assert g.termination is Termination.PASSES  # now Ben's two lost/passed turns count


def test_en_pass_rule_counts_a_withdrawal_before_a_lost_turn() -> None:
    g = new_game("en", 3)
    g.draw(0, "CATSDOG")
    g.draw(1, "TEARING")
    g.draw(2, "OXENLIP")
    g.play(0, lay(g, "8G", "CAT"))
    g.play(1, lay(g, "G7", "T.E"))
    g.play(2, lay(g, "9H", "OX"))
    g.pass_turn(0)  # Anna: pass
    g.play(1, lay(g, "F9", "AR"))
    g.play(2, lay(g, "E10", "EN"))
    g.rule_challenge(1)  # Ben wrong: he loses his next turn
    g.play(0, lay(g, "D11", "SD"))  # Ben's turn is lost right after Anna's play
    g.rule_challenge(2, ("SD",))  # Anna's play withdrawn: her second pass-kind turn in a row
    assert g.termination is Termination.PASSES


def test_two_wrong_challenges_cost_two_turns() -> None:
    g = new_game("en", 4)
    for p, rack in enumerate(["CATSDOG", "TEARING", "OXENLIP", "QUIZAAA"]):
        g.draw(p, rack)
    g.play(0, lay(g, "8G", "CAT"))
    g.rule_challenge(3)  # Dora wrong once (she is not next)
    g.play(1, lay(g, "G7", "T.E"))
    g.rule_challenge(3)  # and again before her turn came
    g.play(2, lay(g, "9H", "OX"))  # Dora's turn lost
    g.play(0, lay(g, "F9", "SO"))
    g.pass_turn(1)
    g.pass_turn(2)  # Dora's second turn lost too
    lost = [e.player for e in g.events if isinstance(e, Passed) and e.reason is TurnKind.LOST_TURN]
    assert lost == [3, 3]
    # under en two lost turns in a row are two passes in a row: the game is over
    assert g.termination is Termination.PASSES


def test_end_game_makes_the_pending_play_final_first() -> None:
    g = emptied_bag("de", "HAUS", "QENT")
    g.play(0, lay(g, "8E", "HAUS"))
    tally = g.end_game()
    assert tally.termination is Termination.WENT_OUT
    assert [r.rack_adjustment for r in tally.rows] == [13, -13]


def test_refused_exchange_leaves_the_window_open() -> None:
    g = opened("de")
    g.bag.take([GERMAN.tile("Q")])  # the only Q is elsewhere
    with pytest.raises(BagError, match="'Q' are not in the bag"):
        g.exchange(1, "A", drawn="Q")
    assert g.window_open


def test_player_who_never_drew_goes_out_when_the_bag_runs_dry() -> None:
    g = new_game("de")
    g.draw(0, "HAUS")
    g.draw(1, "ABENDRO")
    g.bag.take(g.bag.tiles()[:-3])  # three tiles left
    g.play(0, lay(g, "8E", "HAUS"))  # Anna's rack is empty, the bag is not
    g.close_window()
    assert not g.over
    g.bag.put_back(g.racks[1][4:])  # Ben has room for three ...
    del g.racks[1][4:]
    g.bag.take(g.bag.tiles()[:-3])  # ... and three tiles are left
    g.draw(1)  # Ben takes the last three tiles; Anna never drew
    assert g.termination is Termination.WENT_OUT
    assert isinstance(g.events[-2], OutBonus) and g.events[-2].player == 0


def test_tiles_must_be_the_sets_own() -> None:
    g = new_game("en")
    g.draw(0, "QIAAAAA")
    g.draw(1, "EEEEEEE")
    squares = lay(g, "8H", "QI").squares
    with pytest.raises(UnknownTileError, match="not a tile of the english set"):
        g.play(0, Placement([(squares[0], Tile("Q", 0)), (squares[1], ENGLISH.tile("I"))]))
    g.racks[0] = ENGLISH.parse_rack("?IAAAAA")
    with pytest.raises(UnknownTileError, match="cannot be 'Ä' in the english set"):
        g.play(0, Placement([(squares[0], Tile("Ä", 0, True)), (squares[1], ENGLISH.tile("I"))]))


def test_override_makes_a_withdrawn_play_stand() -> None:
    g = opened("de")
    g.draw(0, "IRDE")
    g.challenge(1, SetLexicon([]))
    assert g.board.is_empty()
    result = g.override_ruling()
    assert result.valid and result.points == -5  # the challenger was wrong after all
    assert g.scores() == [10, -5]
    assert g.board.letter_counts["H"] == 1 and not g.window_open and g.turn == 1
    assert sorted(g.rack(0)) == sorted("TENIRDE")  # the draw since the play is kept
    assert conserved(g)
    replayed = Game.replay(g.profile, g.players, [*g.log])
    assert replayed.scores() == g.scores()


def test_override_withdraws_a_play_ruled_valid_and_its_draws_go_back() -> None:
    g = opened("en")
    bag_before = g.bag.letters()
    g.challenge(1, SetLexicon(["HAUS"]))  # valid: seat 1 loses the turn
    g.draw(0, "IRDE")
    result = g.override_ruling(["HAUS"])
    assert not result.valid and result.invalid_words == ("HAUS",)
    assert g.board.is_empty() and g.scores() == [0, 0]
    assert sorted(g.rack(0)) == sorted("HAUSTEN") and g.bag.letters() == bag_before
    assert g.turn == 1 and not any(isinstance(e, Passed) for e in g.events)
    assert conserved(g)


def test_override_refused_without_ruling_after_a_move_or_without_words() -> None:
    with pytest.raises(CorrectionError, match="no ruling"):
        opened("de").override_ruling()
    g = opened("de")
    g.challenge(1, SetLexicon(["HAUS"]))
    with pytest.raises(CorrectionError, match="needs the words"):
        g.override_ruling()
    g.pass_turn(1)
    with pytest.raises(CorrectionError, match="before anyone moves"):
        g.override_ruling(["HAUS"])


def test_a_ruling_is_overridden_once_and_not_after_its_play_is_undone() -> None:
    g = opened("de")
    g.challenge(1, SetLexicon([]))  # HAUS ruled invalid
    assert g.overridable_ruling is not None
    g.override_ruling()  # it stands after all
    assert g.overridable_ruling is None
    with pytest.raises(CorrectionError) as info:
        g.override_ruling()
    assert info.value.reason is CorrectionRefusal.NO_RULING
    g = opened("de")
    g.challenge(1, SetLexicon(["HAUS"]))  # valid: Ben -5
    g.play(1, lay(g, "H7", "B.D"))
    g.undo_last_play()
    assert g.overridable_ruling is None


def test_override_command_replays_from_the_log_of_commands() -> None:
    from engine.events import Challenge, Draw, OverrideRuling, Play

    g = opened("de")
    commands = [*g.log, Challenge(1, ("HAUS",)), OverrideRuling()]
    rebuilt = Game.replay(g.profile, g.players, commands)
    assert rebuilt.scores() == [10, -5]
    assert isinstance(commands[0], Draw) and isinstance(commands[2], Play)


def test_comparing_games_compares_each_kept_copy_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The copies kept for undo and override share earlier copies: a game with many rulings
    compares with its deep copy in a number of steps that grows with the game, not 2**rulings."""
    import copy

    import engine.game
    from randomgame import random_placement

    rng = random.Random(3)
    g = new_game("de", 4)
    g.deal()
    rulings = 0
    while rulings < 14 and not g.over:
        placement = random_placement(g, g.turn, rng)
        if placement is None:
            g.pass_turn(g.turn)
            continue
        player = g.turn
        g.play(player, placement)
        g.rule_challenge((player + 1) % 4, ())  # a valid ruling: the play stands
        rulings += 1
        if len(g.bag) and not g.over:
            g.draw(player)
    assert rulings == 14
    calls = 0
    same = engine.game._same

    def counted(*args: object) -> bool:
        nonlocal calls
        calls += 1
        return same(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.game, "_same", counted)
    assert g == copy.deepcopy(g)
    assert calls < 100, calls


def test_an_override_is_refused_when_a_later_draw_took_the_tiles_the_ruling_put_back() -> None:
    """A withdrawn play's drawn tile went back to the bag and the next player drew it: the
    play cannot be reinstated (its tile is on another rack), so the override is refused and
    the game is left as it was (found by the property tests: 4 players, ``de``, seed 53)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import randomgame

    from engine.game import Game
    from engine.rules import get_profile

    refused: list[CorrectionError] = []
    override = Game.override_ruling

    def watched(self: Game, invalid: tuple[str, ...] = ()) -> object:
        before = self.copy()
        try:
            return override(self, invalid)
        except CorrectionError as e:
            assert self == before  # nothing of it was kept
            refused.append(e)
            raise

    Game.override_ruling = watched  # type: ignore[method-assign,assignment]
    try:
        randomgame.play_random_game(get_profile("de"), 4, 53)
    finally:
        Game.override_ruling = override  # type: ignore[method-assign]
    assert any(e.reason is CorrectionRefusal.MOVED_SINCE for e in refused)


def test_override_refused_where_the_profile_allows_none() -> None:
    from engine.errors import OverrideNotAllowedError

    g = new_game("en-tournament")
    g.draw(0, "HOUSEAN")
    g.draw(1, "ABENDRO")
    g.play(0, lay(g, "8E", "HOUSE"))
    g.challenge(1, SetLexicon([]))  # ruled invalid: withdrawn
    before = (g.scores(), g.board.is_empty(), len(g.log))
    with pytest.raises(OverrideNotAllowedError) as info:
        g.override_ruling()
    assert info.value.profile == "en-tournament" and info.value.reason is CorrectionRefusal.NOT_ALLOWED
    assert (g.scores(), g.board.is_empty(), len(g.log)) == before  # nothing changed
