"""``scoreboard replay`` checks every rule a record shows (engine/replay.py), per profile and
variant: challenge amounts, exchanges against the bag, turn order, events after the end, the
rack adjustments an ending allows, triple challenges. Each breach is one disagreement naming
its line; the shared real records still replay with none (tests/test_replay.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import gcg
from engine.replay import Disagreement, replay
from engine.rules import RuleProfile

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
    assert len(result) == 1
    line, check, computed = result[0]
    assert (line, check) == (25, "exchange")
    assert computed == (
        "the bag holds at most 0 (100 tiles - 91 on the board - 6 on the rack - the others' racks); exchanging 2 needs 7"
    )


def test_exchange_when_the_others_racks_are_not_known() -> None:
    """guy's last line (21) shows 6 tiles left after his play; whether he drew the 7th
    before bot exchanged cannot be told from the record: the bag held 6 or 7."""
    path = GCG_DIR / "guy_vs_bot.gcg"
    assert lines_of(path)[21] == ">bot: BEELRVW A1 REVE.B +36 348"
    text = edited(path, {22: ">bot: BEELRVW -B +0 312", 24: ">bot: IKLNOUW O7 KINO +35 347"})
    assert undecided(text) == [(22, "exchange", "the bag holds 6 to 7 (racks not all known); exchanging 1 needs 7")]
    assert not [r for r in found(text) if r[0] == 22]  # not counted as a disagreement


def test_cannot_be_known_is_printed_and_not_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from scoreboard.cli import main

    path = tmp_path / "g.gcg"
    path.write_text(edited(GCG_DIR / "guy_vs_bot.gcg", {22: ">bot: BEELRVW -B +0 348"}), encoding="utf-8")
    assert main(["replay", str(path)]) == 1  # (the exchange changes the board: the end disagrees)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{path}: line 22: total of bot: recorded 348, rules give 312",
        (
            f"{path}: line 22: exchange: recorded -B, cannot be known: the bag holds 6 to 7 (racks not all known);"
            " exchanging 1 needs 7"
        ),
        f"{path}: line 29: tiles left: recorded CDDEOT, rules give BCDDEEEORTV",
        "replayed 27 events: 2 disagreements",
    ]


def test_exchange_when_the_bag_cannot_be_known() -> None:
    """Two bingos that cannot be put on the board leave 14 tiles unaccounted for: the bag
    may hold 0 to 9 tiles, so whether the exchange was allowed cannot be known."""
    path = GCG_DIR / "guy_vs_bot.gcg"
    text = edited(
        path,
        {
            9: ">guy: BDEGINR 4J BRE.DING +78 171",  # runs off the board
            13: ">guy: ACOOPRS 1J COPROS.A +92 302",  # likewise
            25: ">guy: CDDEOT -CD +0 454",
        },
    )
    assert not [r for r in found(text) if r[0] == 25]
    exchange = undecided(text)
    assert len(exchange) == 1 and exchange[0][:2] == (25, "exchange")
    assert exchange[0][2].startswith("the bag holds 0 to ")
    assert "line 9, 13 not placed" in exchange[0][2]


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
    passes = "".join(f">{p}: ABC - +0 {32 if p == 'a' else 0}\n" for p in "baba" "ba")
    text = HEAD + WINDY + passes
    assert found(text) == []  # six scoreless turns in a row end an en-tournament game
    assert found(text + ">b: ADEEGIL 7C GALE +16 16\n") == [
        (10, "after the end", "the game ended on line 9 (the pass rule)")
    ]
    assert found(text + ">b: ABC (ABC) -7 -7\n>a: DEF (DEF) -7 25\n") == []  # each subtracts own rack
    ending = [r for r in found(text + ">b: (ABC) +14 14\n") if r[1] != "tiles left"]
    assert ending == [(10, "rack adjustment", "none after the pass rule (line 9)")]


def test_en_one_player_passing_twice_ends_the_game_a_lost_turn_counts() -> None:
    en = "#rules en\n" + HEAD + WINDY + ">b: ABC - +0 0\n>a: DEF - +0 32\n>b: ABC - +0 0\n"
    assert found(en) == []
    assert found(en + ">a: DINNVWY - +0 32\n") == [(8, "after the end", "the game ended on line 7 (the pass rule)")]


def test_a_move_after_the_finish_line() -> None:
    text = "#rules en-tournament target=30\n" + HEAD + WINDY
    assert found(text + GALE) == [(5, "after the end", "the game ended on line 4 (the finish line)")]
    assert found(text + ">b: ADEEGIL (ADEEGIL) -9 -9\n") == [
        (5, "rack adjustment", "none after the finish line (line 4)")
    ]
    assert found(text + ">a: DINNVWY -- -32 0\n>b: ADEEGIL - +0 0\n") == []  # a withdrawn play reached nothing


def test_a_finish_line_play_that_goes_out_ends_as_going_out() -> None:
    text = "#rules en target=30\n" + HEAD + WINDY + ">a: (ADEEGIL) +9 41\n>b: ADEEGIL (ADEEGIL) -9 -9\n"
    assert [r[1] for r in found(text)] == ["tiles left"]  # (a made-up ending: the bag is not empty)
    keeps = text.replace("#rules en target=30", "#rules en target=30 challenge=single")
    assert [r[1] for r in found(keeps)] == ["tiles left"]


def test_a_rack_penalty_after_going_out_where_the_profile_has_none() -> None:
    path = GCG_DIR / "doug_v_emely.gcg"
    text = "\n".join(lines_of(path)).rstrip("\n") + "\n>doug: EGOP (EGOP) -7 444\n"
    assert found(text) == [(len(lines_of(path)), "rack adjustment", "none after went out (line 30)")]


def test_a_challenge_bonus_after_going_out_is_the_going_out_plays() -> None:
    assert found((GCG_DIR / "vs_frentz.gcg").read_text(encoding="utf-8")) == []


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
