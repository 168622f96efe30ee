"""``scoreboard replay`` checks every rule a record shows (engine/replay.py), per profile and
variant: challenge amounts, exchanges against the bag, turn order, events after the end, the
rack adjustments an ending allows, triple challenges. Each breach is one disagreement naming
its line; the shared real records still replay with none (tests/test_replay.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine import gcg
from engine.replay import Disagreement, replay
from engine.rules import RuleProfile, get_profile

DATA = Path(__file__).resolve().parent / "data"
GCG_DIR = DATA / "gcg"
GERMAN = DATA / "gcg_extra" / "german_de.gcg"

# Two English plays: WINDY (one word, 32) and GALE (four words: GALE AW LI EN, 16).
HEAD = "#player1 a A\n#player2 b B\n"
WINDY = ">a: DINNVWY 8D WINDY +32 32\n"
GALE = ">b: ADEEGIL 7C GALE +16 16\n"


def found(text: str, rules: str | None = None) -> list[tuple[int, str, str]]:
    """(line, check, computed) of every disagreement of the record ``text``."""
    record = gcg.read(text.encode("utf-8"))
    profile = RuleProfile.from_rules_line(rules) if rules else None
    return [(d.line, d.check, d.computed) for d in replay(record, profile).disagreements]


def undecided(text: str) -> list[tuple[int, str, str]]:
    """(line, check, why) of every check the record ``text`` cannot settle."""
    return [(u.line, u.check, u.why) for u in replay(gcg.read(text.encode("utf-8"))).undecided]


def lines_of(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\n")


def edited(path: Path, changes: dict[int, str]) -> str:
    """The record at ``path`` with the lines ``changes`` (1-based number: new text) replaced."""
    lines = lines_of(path)
    for number, text in changes.items():
        lines[number - 1] = text
    return "\n".join(lines)


# --- challenge amounts ---------------------------------------------------------------------


def test_de_wrong_challenger_loses_five_not_ten() -> None:
    assert lines_of(GERMAN)[12] == ">Mareike: LOHEMWA (challenge) -5 21"
    text = edited(GERMAN, {13: ">Mareike: LOHEMWA (challenge) -10 16"}).replace(" +7 28", " +7 23")
    assert found(text) == [(13, "challenge", "-5 under de")]


def test_fr_wrong_challenger_loses_ten() -> None:
    fr = "#rules fr\n" + HEAD + ">a: DINNVWY 8D WINDY +68 68\n"
    assert found(fr + ">b: ADEEGIL (challenge) -10 -10\n") == []
    assert found(fr + ">b: ADEEGIL (challenge) -5 -5\n") == [(5, "challenge", "-10 under fr")]


def test_en_wrong_challenger_loses_a_turn_not_points() -> None:
    en = "#rules en\n" + HEAD + WINDY
    assert found(en + ">b: ADEEGIL (challenge) -5 -5\n") == [
        (5, "challenge", "no points lost by a wrong challenger under en")
    ]


def test_the_penalty_is_the_challengers() -> None:
    de = "#rules de\n" + HEAD + ">a: DINNVWY 8D WINDY +38 38\n"
    assert found(de + ">a: DINNVWY (challenge) -5 33\n") == [(5, "challenge", "the penalty is the challenger's, not a's own")]


@pytest.mark.parametrize(
    ("rules", "amount", "problem"),
    [
        ("en-tournament challenge=five", 5, None),
        ("en-tournament challenge=five", 20, None),  # 5 per challenged word: GALE forms 4
        ("en-tournament challenge=five", 25, "+5 per challenge or per challenged word (up to 4 words)"),
        ("en-tournament challenge=five", 7, "+5 per challenge or per challenged word (up to 4 words)"),
        ("en-tournament challenge=ten", 10, None),
        ("en-tournament challenge=ten", 5, "+10 per challenge or per challenged word (up to 4 words)"),
        ("en-tournament", 5, "no bonus under en-tournament challenge=double"),
        ("en-tournament challenge=single", 5, "no bonus under en-tournament challenge=single"),
        ("de challenge=five", 5, None),
        ("de", 5, "no bonus under de"),
    ],
)
def test_challenge_bonus_per_rule(rules: str, amount: int, problem: str | None) -> None:
    text = HEAD + WINDY + GALE + f">b: ADEEGIL (challenge) +{amount} {16 + amount}\n"
    result = found(text, rules)
    scores = [r for r in result if r[1] != "challenge"]
    assert [r for r in result if r[1] == "challenge"] == ([] if problem is None else [(5, "challenge", problem)])
    assert all(check.startswith("score of") for _, check, _ in scores)  # de's values differ; not our concern


def test_a_standard_record_shows_its_own_convention_five_or_ten_per_challenge_or_word() -> None:
    for amount in (5, 10, 15, 20, 40):
        assert found(HEAD + WINDY + GALE + f">b: ADEEGIL (challenge) +{amount} {16 + amount}\n") == []
    assert found(HEAD + WINDY + GALE + ">b: ADEEGIL (challenge) +7 23\n") == [
        (5, "challenge", "+5 or +10 per challenge or per challenged word (up to 4 words)")
    ]
    assert found(HEAD + WINDY + ">b: ADEEGIL (challenge) -5 -5\n") == [
        (4, "challenge", "no points lost by a wrong challenger under en-tournament challenge=double")
    ]


def test_a_bonus_goes_to_the_player_whose_play_was_challenged_right_after_it() -> None:
    assert found(HEAD + WINDY + ">b: ADEEGIL (challenge) +5 5\n") == [
        (4, "challenge", "the bonus goes to a, whose play on line 3 was challenged")
    ]
    assert found(HEAD + WINDY + ">b: ADEEGIL - +0 0\n>b: ADEEGIL (challenge) +5 5\n") == [
        (5, "challenge", "no play just before to challenge")
    ]


# --- exchanges -----------------------------------------------------------------------------


def test_exchange_with_too_few_tiles_in_the_bag() -> None:
    path = GCG_DIR / "guy_vs_bot.gcg"
    assert lines_of(path)[24] == ">guy: CDDEOT - +0 454"
    result = found(edited(path, {25: ">guy: CDDEOT -CD +0 454"}))
    assert result == [
        (25, "exchange", "the bag holds 0 (100 tiles - 91 on the board - 2 racks of 7); exchanging 2 needs 7")
    ]


def test_the_bag_at_an_exchange_is_the_set_less_the_board_less_full_racks() -> None:
    """While the bag holds a tile every rack is full, so the racks' letters do not matter: bot
    exchanging instead of REVE.B (line 22, the issue's example) with 80 tiles on the board
    leaves 100 - 80 - 2 x 7 = 6 tiles in the bag, though guy's last line shows him holding
    only 6 (he had drawn his 7th: the rule)."""
    path = GCG_DIR / "guy_vs_bot.gcg"
    assert lines_of(path)[21] == ">bot: BEELRVW A1 REVE.B +36 348"
    text = edited(path, {22: ">bot: BEELRVW -B +0 312", 24: ">bot: IKLNOUW O7 KINO +35 347"})
    assert found(text)[0] == (
        22, "exchange", "the bag holds 6 (100 tiles - 80 on the board - 2 racks of 7); exchanging 1 needs 7"
    )
    assert undecided(text) == []
    # every rack of 7 written, 4 tiles in the bag (the review's case): a breach as well
    emely = edited(GCG_DIR / "doug_v_emely.gcg", {26: ">doug: AEHIMOP -AEH +0 380"})
    assert found("\n".join(emely.split("\n")[:26]))[0] == (
        26, "exchange", "the bag holds 4 (100 tiles - 82 on the board - 2 racks of 7); exchanging 3 needs 7"
    )


def test_after_a_withdrawal_its_tiles_are_back_on_the_rack_and_its_draws_in_the_bag() -> None:
    """guy's Q. (line 21) withdrawn: 79 tiles on the board, the bag holds 7, bot may exchange."""
    path = GCG_DIR / "guy_vs_bot.gcg"
    text = edited(path, {
        21: ">guy: CDEOOQZ 9C Q. +21 414\n>guy: CDEOOQZ -- -21 393",
        22: ">bot: BEELRVW -B +0 312",
    })
    assert [r for r in found(text) if r[1] == "exchange"] == []
    assert undecided(text) == []


def test_cannot_be_known_is_printed_and_not_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only tiles that could not be put on the board leave the bag open: two bingos that run
    off the board leave 15 tiles unaccounted for, so the bag at guy's exchange held 0 to 9."""
    from scoreboard.cli import main

    path = tmp_path / "g.gcg"
    text = edited(
        GCG_DIR / "guy_vs_bot.gcg",
        {
            9: ">guy: BDEGINR 4J BRE.DING +78 171",  # runs off the board
            13: ">guy: ACOOPRS 1J COPROS.A +92 302",  # likewise
            25: ">guy: CDDEOT -CD +0 454",
        },
    )
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 1  # (the plays off the board disagree)
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if "line 25" in line] == [
        f"{path}: line 25: exchange: recorded -CD, cannot be known: the bag holds 0 to 9 (line 9, 13 not placed);"
        " exchanging 2 needs 7"
    ]
    assert out[-1].endswith(f"{len([line for line in out if 'rules give' in line])} disagreements")
    assert [u[:2] for u in undecided(text)] == [(25, "exchange")]


def test_exchange_early_is_fine_and_nine_tile_racks_count() -> None:
    assert found(HEAD + WINDY + ">b: ADEEGIL -ADE +0 0\n") == []
    nine = "#rules en-tournament rack=9\n" + HEAD + WINDY + ">b: ADEEGILRS -ADEEGILRS +0 0\n"
    assert found(nine) == []


# --- turn order ----------------------------------------------------------------------------


def test_the_same_player_twice_in_a_row() -> None:
    text = HEAD + WINDY + ">a: DINNVWY - +0 32\n"
    assert found(text) == [(4, "turn order", "b's turn after a on line 3")]


def test_after_a_withdrawal_the_same_player_plays_again_only_under_frs_phony_rule() -> None:
    again = WINDY + ">a: DINNVWY -- -32 0\n>a: DINNVWY 8E WIND +16 16\n"
    assert found(HEAD + again) == [(5, "turn order", "b's turn after a on line 3")]
    assert [r for r in found("#rules fr\n" + HEAD + again) if r[1] == "turn order"] == []


def test_three_players_take_turns_in_order() -> None:
    three = "#rules en\n#player1 a A\n#player2 b B\n#player3 c C\n" + WINDY
    assert found(three + ">c: ADEEGIL - +0 0\n") == [(6, "turn order", "b's turn after a on line 5")]
    assert found(three + ">b: ADEEGIL - +0 0\n>c: ADEEGIL - +0 0\n") == []


# --- the end of the game -------------------------------------------------------------------


def test_a_move_after_the_pass_rule_ended_the_game() -> None:
    passes = "".join(f">{p}: {'DEF' if p == 'a' else 'ABC'} - +0 {32 if p == 'a' else 0}\n" for p in "baba" "ba")
    text = HEAD + WINDY + passes
    assert found(text) == []  # six scoreless turns in a row end an en-tournament game
    assert found(text + ">b: ADEEGIL 7C GALE +16 16\n") == [
        (10, "after the end", "the game ended on line 9 (the pass rule)")
    ]
    assert found(text + ">b: ABC (ABC) -7 -7\n>a: DEFNV (DEFNV) -12 20\n") == []  # each subtracts own rack
    assert found(text + ">b: ABC (ABC) -7 -7\n>a: DEF (DEF) -7 25\n") == [  # a kept NV after WINDY
        (11, "rack penalty", "a holds DEFNV")
    ]
    ending = [r for r in found(text + ">b: (ABC) +14 14\n") if r[1] != "tiles left"]
    assert ending == [(10, "rack adjustment", "none after the pass rule (line 9)")]


def test_en_one_player_passing_twice_ends_the_game_a_lost_turn_counts() -> None:
    en = "#rules en\n" + HEAD + WINDY + ">b: ABC - +0 0\n>a: DEF - +0 32\n>b: ABC - +0 0\n"
    assert found(en) == []
    assert found(en + ">a: DINNVWY - +0 32\n") == [(8, "after the end", "the game ended on line 7 (the pass rule)")]


def test_under_frs_phony_extension_rule_the_withdrawn_turn_is_no_pass() -> None:
    """The extender plays again: the withdrawal is no scoreless turn (the engine deletes it)."""
    fr = "#rules fr\n" + HEAD + ">a: DINNVWY 8D WINDY +38 38\n" + "".join(
        f">{p}: {'ADEEGIL' if p == 'b' else 'DINNVWY'} - +0 {38 if p == 'a' else 0}\n" for p in "bab"
    ) + ">a: DINNVWY 7C DIN +9 47\n>a: DINNVWY -- -9 38\n>a: DINNVWY - +0 38\n"
    assert [r for r in found(fr) if r[1] == "after the end"] == []  # four passes: the end, on a's pass
    assert [r for r in found(fr + ">b: ADEEGIL - +0 0\n") if r[1] == "after the end"] == [
        (11, "after the end", "the game ended on line 10 (the pass rule)")
    ]
    other = fr.removesuffix(">a: DINNVWY - +0 38\n") + ">b: ADEEGIL -A +0 0\n"  # no extension: the 4th was the withdrawal
    assert [r for r in found(other) if r[1] == "after the end"] == [
        (10, "after the end", "the game ended on line 9 (the pass rule)")
    ]


def test_a_pass_right_after_a_withdrawal_may_be_a_turn_lost_before_it() -> None:
    """GCG writes a withdrawal right after its play, also when a turn was lost (en: a wrong
    challenge) while the play waited for its ruling: whether that pass came after the end
    cannot be known, and is not counted."""
    en = "#rules en\n" + HEAD + ">a: DINNVWY - +0 0\n>b: ADEEGIL - +0 0\n>a: DINNVWY 8D WINDY +32 32\n>a: DINNVWY -- -32 0\n"
    assert found(en + ">b: ADEEGIL - +0 0\n") == []
    assert undecided(en + ">b: ADEEGIL - +0 0\n") == [
        (8, "after the end", "the pass rule was met on line 7, unless this turn was lost before that withdrawal")
    ]
    assert found(en + ">b: ADEEGIL - +0 0\n>a: DINNVWY - +0 0\n") == [
        (9, "after the end", "the game ended on line 8 (the pass rule)")
    ]
    assert found(en + ">b: ADEEGIL -A +0 0\n") == [(8, "after the end", "the game ended on line 7 (the pass rule)")]


def test_a_play_is_judged_against_the_target_once_when_it_becomes_final() -> None:
    """A correction after it that lifts a score past the target ends nothing (as at the table)."""
    text = "#rules en target=40\n" + HEAD + WINDY + ">a: DINNVWY (adjust) +9 41\n" + GALE
    assert found(text) == []


def test_a_move_after_the_finish_line() -> None:
    text = "#rules en-tournament target=30\n" + HEAD + WINDY
    assert found(text + GALE) == [(5, "after the end", "the game ended on line 4 (the finish line)")]
    assert found(text + ">b: ADEEGIL (ADEEGIL) -9 -9\n") == [
        (5, "rack adjustment", "none after the finish line (line 4)")
    ]
    assert found(text + ">a: DINNVWY -- -32 0\n>b: ADEEGIL - +0 0\n") == []  # a withdrawn play reached nothing


def test_a_finish_line_play_that_goes_out_ends_as_going_out() -> None:
    """(A made-up ending, the bag not empty: the tiles left and b's rack disagree; what
    matters here is that b's rack may be counted: the game ended by going out.)"""
    text = (
        "#rules en target=30\n" + HEAD + ">a: DINWY 8D WINDY +32 32\n"
        ">a: (ADEEGIL) +9 41\n>b: ADEEGIL (ADEEGIL) -9 -9\n"
    )
    assert [r[1] for r in found(text)] == ["tiles left", "rack penalty"]
    keeps = text.replace("#rules en target=30", "#rules en target=30 challenge=single")
    assert [r[1] for r in found(keeps)] == ["tiles left", "rack penalty"]
    finish = replace(get_profile("en").with_variants(target=30), going_out_beats_finish_line=False)
    record = gcg.read(text.encode("utf-8"))
    assert [(d.line, d.check, d.computed) for d in replay(record, finish).disagreements] == [
        (5, "rack adjustment", "none after the finish line (line 4)"),
        (6, "rack adjustment", "none after the finish line (line 4)"),
    ]


def test_a_rack_penalty_after_going_out_where_the_profile_has_none() -> None:
    path = GCG_DIR / "doug_v_emely.gcg"
    text = "\n".join(lines_of(path)).rstrip("\n") + "\n>doug: EGOP (EGOP) -7 444\n"
    assert found(text) == [(len(lines_of(path)), "rack adjustment", "none after went out (line 29)")]


def test_a_challenge_bonus_after_going_out_is_the_going_out_plays() -> None:
    assert found((GCG_DIR / "vs_frentz.gcg").read_text(encoding="utf-8")) == []


# --- going out: who holds what -------------------------------------------------------------

OUT = GCG_DIR / "doug_v_emely.gcg"  # line 29: emely's .aFS uses her last tiles (?FS), 96 on the board, doug holds EGOP


def test_a_play_after_a_player_went_out_without_the_racks_line() -> None:
    assert lines_of(OUT)[28:30] == [">emely: ?FS 14L .aFS +21 331", ">emely:  (OPEG) +14 345"]
    text = edited(OUT, {30: ">doug: EGOP 15H ......PE +43 494\n>emely:  (GO) +6 337"})
    assert found(text) == [(30, "after the end", "the game ended on line 29 (went out)")]
    assert found(edited(OUT, {30: ">doug: EGOP 15H ......PE +43 494"})) == [
        (30, "after the end", "the game ended on line 29 (went out)")
    ]


def test_after_going_out_only_the_opponents_accepting_pass() -> None:
    """docs/RULES.md (GCG): records carry the opponent's accepting pass; nothing more."""
    accepted = edited(OUT, {30: ">doug: EGOP - +0 451\n>emely:  (OPEG) +14 345"})
    assert found(accepted) == []
    twice = edited(OUT, {30: ">doug: EGOP - +0 451\n>emely: - +0 331\n>emely:  (OPEG) +14 345"})
    assert found(twice) == [(31, "after the end", "the game ended on line 29 (went out)")]
    void = "#rules en-tournament challenge=void\n" + accepted  # no window to accept: the play was final at once
    assert [r[:2] for r in found(void) if r[1] == "after the end"] == [(31, "after the end")]


def test_the_going_out_points_go_to_the_player_who_went_out() -> None:
    wrong = edited(OUT, {30: ">doug:  (OPEG) +14 465"})
    assert found(wrong) == [(30, "going out", "the points go to emely, who went out on line 29")]
    # the bag not shown empty: a claimant the record shows holding tiles is not out
    assert found(HEAD + WINDY + ">a: (ADEEGIL) +18 50\n")[0] == (4, "going out", "a holds NV: not out")


# --- rack penalties: whose tiles ------------------------------------------------------------


def test_rack_penalties_are_each_players_own_rack() -> None:
    path = DATA / "gcg_extra" / "classic_en_3p.gcg"
    assert lines_of(path)[61:64] == [">Ben: RAF (RAF) -6 178", "#note own rack: R1 + A1 + F4 = 6", ">Cem: A (A) -1 265"]
    swapped = edited(path, {62: ">Ben: A (A) -1 183", 64: ">Cem: RAF (RAF) -6 260"})
    assert found(swapped) == [
        (62, "rack penalty", "Ben holds AFR"),
        (64, "rack penalty", "Cem's rack A (the tiles not on the board or another rack)"),
    ]
    twice = "\n".join(lines_of(path)).rstrip("\n") + "\n>Cem: A (A) -1 264\n"
    assert found(twice) == [(len(lines_of(path)), "rack penalty", "Cem's rack was counted on line 64")]
    out = "\n".join(lines_of(path)).rstrip("\n") + "\n>Anna: RAFA (RAFA) -7 365\n"
    assert found(out) == [(len(lines_of(path)), "rack penalty", "Anna went out: no rack")]


def test_a_pass_ending_rack_penalty_names_the_players_tiles() -> None:
    passes = "#rules de\n" + HEAD + ">a: DINNVWY 8D WINDY +38 38\n" + "".join(
        f">{p}: {'ADEEGIL' if p == 'b' else 'DINNVWY'} - +0 {38 if p == 'a' else 0}\n" for p in "baba"
    )
    assert found(passes + ">b: (Q) -10 -10\n") == [(9, "rack penalty", "b holds ADEEGIL")]
    twice = passes + ">b: ADEEGIL (ADEEGIL) -9 -9\n>b: ADEEGIL (ADEEGIL) -9 -18\n"
    assert found(twice) == [(10, "rack penalty", "b's rack was counted on line 9")]
    # the German set's only V: on a's rack (its rack fields say so)
    theirs = passes.replace("#rules de", "#rules de rack=9") + ">b: ADEEGILV (ADEEGILV) -15 -15\n"
    assert found(theirs) == [(9, "rack penalty", "V not b's: on the board or another rack")]


# --- challenge lines on one play -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # five, two bonuses on a one-word play
            "#rules en-tournament challenge=five\n" + HEAD + WINDY
            + ">a: DINNVWY (challenge) +5 37\n>a: DINNVWY (challenge) +5 42\n",
            [(6, "challenge", "+5 per challenge or per challenged word (up to 1 words)")],
        ),
        (  # no #rules: +10 on a one-word play shows the record's unit, 10; then +5
            HEAD + WINDY + ">a: DINNVWY (challenge) +10 42\n" + GALE + ">b: ADEEGIL (challenge) +5 21\n",
            [(6, "challenge", "+10 per challenge or per challenged word, as line 4 shows (up to 4 words)")],
        ),
        (  # no #rules: two +5 on a one-word play make neither 5 nor 10 per challenge
            HEAD + WINDY + ">a: DINNVWY (challenge) +5 37\n>a: DINNVWY (challenge) +5 42\n",
            [(5, "challenge", "+5 per challenge or per challenged word, as line 4 shows (up to 1 words)")],
        ),
        (  # de, the same challenger penalised twice for one play
            "#rules de\n" + HEAD + ">a: DINNVWY 8D WINDY +38 38\n"
            + ">b: ADEEGIL (challenge) -5 -5\n>b: ADEEGIL (challenge) -5 -10\n",
            [(6, "challenge", "b lost the challenge of line 4 on line 5")],
        ),
        (  # a penalty (the play valid), then the play withdrawn
            "#rules de\n" + HEAD + ">a: DINNVWY 8D WINDY +38 38\n"
            + ">b: ADEEGIL (challenge) -5 -5\n>a: DINNVWY -- -38 0\n",
            [(6, "withdrawal", "the play on line 4 was ruled valid on line 5")],
        ),
        (  # a bonus (the play valid), then the play withdrawn
            "#rules en-tournament challenge=five\n" + HEAD + WINDY
            + ">a: DINNVWY (challenge) +5 37\n>a: DINNVWY -- -32 5\n",
            [(6, "withdrawal", "the play on line 4 was ruled valid on line 5")],
        ),
    ],
)
def test_challenge_lines_on_one_play_agree_with_each_other(text: str, expected: list[tuple[int, str, str]]) -> None:
    assert found(text) == expected


def test_a_triple_loser_agrees_with_the_withdrawal() -> None:
    triple = "#rules en-tournament challenge=triple\n" + HEAD + WINDY
    assert found(triple + ">a: DINNVWY (triple) +0 32\n") == [
        (5, "triple challenge", "the challenger loses: a's play on line 4 stands")
    ]
    withdrawn = triple + ">a: DINNVWY -- -32 0\n"
    assert found(withdrawn + ">a: DINNVWY (triple) +0 0\n") == []
    assert found(withdrawn + ">b: ADEEGIL (triple) +0 0\n") == [
        (6, "triple challenge", "a loses: the play was withdrawn on line 5")
    ]
    assert found(withdrawn + ">b: ADEEGIL - +0 0\n") == [
        (6, "triple challenge", "a loses the game: the play was withdrawn on line 5 under en-tournament challenge=triple")
    ]


# --- triple --------------------------------------------------------------------------------


def test_triple_challenge_lines() -> None:
    triple = "#rules en-tournament challenge=triple\n" + HEAD + WINDY + ">b: ADEEGIL (triple) +0 0\n"
    assert found(triple) == []
    assert found(triple + GALE) == [(6, "after the end", "the game ended on line 5 (a triple challenge)")]
    double = HEAD + WINDY + ">b: ADEEGIL (triple) +0 0\n"
    assert found(double) == [(4, "triple challenge", "no such loss under en-tournament challenge=double")]


def test_disagreements_name_their_line() -> None:
    d = Disagreement(7, "turn order", "a moves", "b's turn after a on line 6")
    assert str(d) == "line 7: turn order: recorded a moves, rules give b's turn after a on line 6"


def test_time_penalties_are_whole_minutes_of_the_overtime_penalty() -> None:
    clock = "#rules en-tournament clock=25\n" + HEAD + WINDY
    assert found(clock + ">b: ADEEGIL (time) -20 -20\n") == []
    assert found(clock + ">b: ADEEGIL (time) -15 -15\n") == [
        (5, "time penalty", "-10 per started minute over the clock")
    ]
    assert found(HEAD + WINDY + ">b: ADEEGIL (time) -15 -15\n") == []  # a standard record does not say
