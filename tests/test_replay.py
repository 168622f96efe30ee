"""Tests of ``scoreboard replay`` (engine/replay.py through scoreboard/cli.py).

The real game records in tests/data/gcg/ must replay without a disagreement. Mutation tests
copy one of them into tmp_path, break one thing, and check that exactly the expected check
fires on exactly the expected line, and that the replay goes on from the recorded values
(one error counts once). Hand-written records for our extensions are in tests/data/gcg_extra/.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from scoreboard.cli import main

DATA = Path(__file__).resolve().parent / "data"
GCG_DIR = DATA / "gcg"
EXTRA = DATA / "gcg_extra"
WEIRD = "name_weird_encoding_with_header.gcg"
ALL_FILES = sorted(p.name for p in GCG_DIR.glob("*.gcg"))
GOOD_FILES = [n for n in ALL_FILES if n != WEIRD]
CLASSIC = EXTRA / "classic_en_3p.gcg"
GERMAN = EXTRA / "german_de.gcg"
PROFILES_LISTED = "de, fr, en, en-tournament"

_DISAGREEMENT = re.compile(r": line (\d+): (.*): recorded (.*), rules give (.*)$")


# --- helpers ------------------------------------------------------------------------------


def event_count(path: Path) -> int:
    """Lines starting with '>' (the N of the summary line)."""
    return sum(1 for line in path.read_bytes().splitlines() if line.startswith(b">"))


def replay_cli(capsys: pytest.CaptureFixture[str], path: Path | str, *extra: str) -> tuple[int, list[str], str]:
    """Run ``scoreboard replay``; returns (exit code, stdout lines, stderr)."""
    code = main(["replay", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def disagreements(lines: list[str]) -> list[tuple[int, str, str, str]]:
    """(line, check, recorded, computed) of every disagreement printed (all but the summary)."""
    found = []
    for text in lines[:-1]:
        m = _DISAGREEMENT.search(text)
        assert m, f"not a disagreement line: {text!r}"
        found.append((int(m.group(1)), m.group(2), m.group(3), m.group(4)))
    return found


def summary(n: int, m: int) -> str:
    return f"replayed {n} events: {m} disagreements"


class Record:
    """A copy of a record as lines, edited one line at a time (1-based line numbers)."""

    def __init__(self, source: Path) -> None:
        self.lines = source.read_bytes().decode("utf-8").split("\n")

    def edit(self, number: int, old: str, new: str) -> None:
        assert self.lines[number - 1] == old, f"line {number} is {self.lines[number - 1]!r}"
        self.lines[number - 1] = new

    def insert_after(self, number: int, new: str) -> None:
        self.lines.insert(number, new)

    def shift_totals(self, after: int, nick: str, delta: int) -> None:
        """Add ``delta`` to the cumulative score of ``nick``'s lines after line ``after``.

        A scorer who wrote one wrong figure and went on adding from it: the later lines
        are consistent with the wrong one.
        """
        for i in range(after, len(self.lines)):
            line = self.lines[i]
            if line.startswith(f">{nick}:"):
                head, total = line.rsplit(" ", 1)
                self.lines[i] = f"{head} {int(total) + delta}"

    def save(self, path: Path) -> Path:
        path.write_bytes("\n".join(self.lines).encode("utf-8"))
        return path


def write_gcg(tmp_path: Path, text: str, name: str = "game.gcg") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


# --- the real records ---------------------------------------------------------------------


def test_data_directory_is_complete() -> None:
    assert len(ALL_FILES) == 25
    assert WEIRD in ALL_FILES
    assert (GCG_DIR / "README.md").is_file()


@pytest.mark.parametrize("name", GOOD_FILES)
def test_real_record_replays_without_disagreement(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = GCG_DIR / name
    n = event_count(path)
    assert n > 0
    code, lines, err = replay_cli(capsys, path)
    assert lines == [summary(n, 0)], lines[:5]
    assert code == 0
    assert err == ""


def test_weird_encoding_is_unreadable(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = replay_cli(capsys, GCG_DIR / WEIRD)
    assert code == 2
    assert lines == []
    assert "ISO8859-6" in err
    assert "line 1" in err
    assert WEIRD in err


def _console() -> list[str]:
    script = Path(sys.executable).with_name("scoreboard")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from scoreboard.cli import main; raise SystemExit(main())"]


def test_console_script_replays_a_record() -> None:
    path = GCG_DIR / "doug_v_emely.gcg"
    proc = subprocess.run(
        [*_console(), "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == summary(event_count(path), 0)


def test_console_script_exit_codes(tmp_path: Path) -> None:
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(3, ">doug: DINNVWY 8D WINDY +32 32", ">doug: DINNVWY 8D WINDY +33 32")
    bad = rec.save(tmp_path / "bad.gcg")
    proc = subprocess.run([*_console(), "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1] == summary(28, 2)
    proc = subprocess.run(
        [*_console(), "replay", str(GCG_DIR / WEIRD)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert "ISO8859-6" in proc.stderr


# --- mutations: each check fires once, on its line ----------------------------------------


def test_wrong_play_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(5, ">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVE..N +36 68")
    rec.shift_totals(5, "doug", 2)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(5, "score of E3 JAVE..N", "+36", "+34")]
    assert lines[-1] == summary(28, 1)
    assert code == 1


def test_wrong_score_and_total_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Only the score changed: the score check and the total check (32 + 36 != 66) both fail.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(5, ">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVE..N +36 66")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [
        (5, "score of E3 JAVE..N", "+36", "+34"),
        (5, "total of doug", "66", "68"),
    ]
    assert code == 1


def test_wrong_cumulative_total_counts_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 32 + 34 written as 76, and the scorer went on adding from 76: doug's next line
    # (line 7, 76 + 82 = 158) agrees with the recorded 76 and must not be counted again.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(5, ">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVE..N +34 76")
    rec.shift_totals(5, "doug", 10)
    assert rec.lines[6] == ">doug: ADENOST 10B DONATES +82 158"
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(5, "total of doug", "76", "66")]
    assert lines[-1] == summary(28, 1)
    assert code == 1


def test_dot_over_empty_square(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # F9 is empty when doug plays EAU at G9; '.' claims a tile there.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(10, ">doug: AAEINRU 9G EAU +16 164", ">doug: AAEINRU 9F .EAU +16 164")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(10, "placement", "'.' at F9", "an empty square")]
    assert code == 1


def test_letter_over_occupied_square(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # E7 holds the L of GALE; JAVE..N written as JAVEL.N lays a new L on it.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(5, ">doug: AEJNOSV E3 JAVE..N +34 66", ">doug: AEJNOSV E3 JAVEL.N +34 66")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(5, "placement", "'L' at E7", "an occupied square")]
    assert code == 1


def test_play_not_touching_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # HIM moved from N1 to A13-C13, where nothing is near.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(28, ">doug: EGHIMOP N1 HIM +42 451", ">doug: EGHIMOP 13A HIM +42 451")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert len(found) == 1, found
    line, check, recorded, computed = found[0]
    assert (line, check, recorded) == (28, "placement", "13A HIM")
    assert "illegal" in computed and "do not touch" in computed
    assert code == 1


def test_first_play_off_centre(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "#player1 a A\n#player2 b B\n>a: DINNVWY 7D WINDY +22 22\n"
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    found = disagreements(lines)
    assert [(f[0], f[1]) for f in found] == [(3, "placement")]
    assert "H8" in found[0][3]
    assert code == 1


def test_played_tile_not_on_the_rack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(3, ">doug: DINNVWY 8D WINDY +32 32", ">doug: DINNVAY 8D WINDY +32 32")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[1], f[2]) for f in found] == [(3, "rack", "DINNVAY")]
    assert "W" in found[0][3]
    assert code == 1


def test_blank_played_needs_a_blank_on_the_rack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # RE.IgION: the g is a blank; without '?' on the rack the rack check fails.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(20, ">doug: ?EIINOR K5 RE.IgION +78 335", ">doug: GEIINOR K5 RE.IgION +78 335")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[1]) for f in found] == [(20, "rack")]
    assert "?" in found[0][3]
    assert code == 1


def test_withdrawal_not_after_own_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # emely "withdraws" right after doug's EAU: there is no play of hers to take back.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    assert rec.lines[9] == ">doug: AAEINRU 9G EAU +16 164"
    rec.insert_after(10, ">emely: DEIILTZ -- -0 55")
    path = rec.save(tmp_path / "g.gcg")
    code, lines, _ = replay_cli(capsys, path)
    found = disagreements(lines)
    assert [(f[0], f[1]) for f in found] == [(11, "withdrawal")]
    assert lines[-1] == summary(29, 1)
    assert event_count(path) == 29
    assert code == 1


def test_withdrawal_after_own_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # doug's last play (N1 HIM +42, line 28) is followed by emely's play and his own pass.
    rec = Record(GCG_DIR / "doug_v_emely_double_challenge.gcg")
    rec.edit(31, ">emely:  (OPEG) +14 345", ">doug: EGOP -- -42 409")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    # (emely went out on line 29, so the withdrawal also comes after the end)
    assert [(f[0], f[1]) for f in disagreements(lines)] == [(31, "after the end"), (31, "withdrawal")]
    assert code == 1


def test_withdrawal_with_wrong_amount(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(9, ">emely: DEIILTZ --  -24 55", ">emely: DEIILTZ --  -20 59")
    rec.shift_totals(9, "emely", 4)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(9, "withdrawal", "-20", "-24")]
    assert code == 1


def test_withdrawal_removes_the_tiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # TIL.. (B4-D4) was withdrawn on line 9, so B4 and C4 are empty again: emely's Z.. at D4
    # written as ..Z.. from B4 must be reported twice, and nothing else.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(11, ">emely: DEIILTZ 4D Z.. +38 93", ">emely: DEIILTZ 4B ..Z.. +38 93")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [
        (11, "placement", "'.' at B4", "an empty square"),
        (11, "placement", "'.' at C4", "an empty square"),
    ]
    assert code == 1


def test_pass_with_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "doug_v_emely_double_challenge.gcg")
    rec.edit(30, ">doug: EGOP - +0 451", ">doug: EGOP - +5 456")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(30, "pass score", "+5", "+0")]
    assert lines[-1] == summary(29, 1)
    assert code == 1


def test_exchange_with_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "cel_only.gcg")
    rec.edit(10, ">Bob: AAIILUZ -AILU +0 118", ">Bob: AAIILUZ -AILU +3 121")
    rec.shift_totals(10, "Bob", 3)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(10, "exchange score", "+3", "+0")]
    assert code == 1


def test_exchange_of_letters_not_on_the_rack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GCG_DIR / "cel_only.gcg")
    rec.edit(10, ">Bob: AAIILUZ -AILU +0 118", ">Bob: AAIILUZ -AILX +0 118")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[1], f[2]) for f in found] == [(10, "exchange", "AILX")]
    assert "AAIILUZ" in found[0][3]
    assert code == 1


def test_going_out_with_wrong_amount(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # OPEG = 1 + 3 + 1 + 2 = 7; a standard record gives 2 x 7 = 14, not 7.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(30, ">emely:  (OPEG) +14 345", ">emely:  (OPEG) +7 338")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[2], f[3]) for f in found] == [(30, "+7", "+14")]
    assert found[0][1].startswith("going out")
    assert "2x" in found[0][1]
    assert code == 1


def test_going_out_with_wrong_tiles_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # OPED has the same value as OPEG (G and D are both 2), but doug holds EGOP.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(30, ">emely:  (OPEG) +14 345", ">emely:  (OPED) +14 345")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(30, "tiles left", "OPED", "EGOP")]
    assert code == 1


def test_rack_penalty_with_wrong_amount(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "#player1 a A\n#player2 b B\n"
        ">a: DINNVWY 8D WINDY +32 32\n"
        ">b: ADEEGIL 7C GALE +16 16\n"
        ">a: DINV (DINV) -7 25\n"  # D2 I1 N1 V4 = 8, not 7
        ">b: ADEIL (ADEIL) -6 10\n"  # A1 D2 E1 I1 L1 = 6
    )
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    found = disagreements(lines)
    assert [(f[0], f[2], f[3]) for f in found] == [(5, "-7", "-8")]
    assert "DINV" in found[0][1]
    assert code == 1


def test_rack_penalty_rack_differs_from_penalised_rack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "#player1 a A\n#player2 b B\n"
        ">a: DINNVWY 8D WINDY +32 32\n"
        ">a: DINV (DIN) -4 28\n"
    )
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    # (and the penalty leaves out the V that a kept after WINDY)
    assert [(f[0], f[1]) for f in disagreements(lines)] == [(4, "rack"), (4, "rack penalty")]
    assert code == 1


def test_time_and_adjust_are_taken_as_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "#player1 a A\n#player2 b B\n"
        ">a: DINNVWY 8D WINDY +32 32\n"
        ">a: DINNVWY (challenge) +15 47\n"  # 5 per challenged word (tests/test_replay_rules.py)
        ">b: ADEEGIL (time) -30 -30\n"
        ">a: (adjust) +4 51\n"
        ">b: (adjust) -1 -31\n"
    )
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    assert [(f[0], f[1]) for f in disagreements(lines)] == [(4, "challenge")]  # WINDY is one word
    assert code == 1


def test_total_checked_on_every_kind_of_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        "#player1 a A\n#player2 b B\n"
        ">a: DINNVWY 8D WINDY +32 32\n"
        ">a: DINNVWY (challenge) +5 38\n"  # 37
        ">b: ADEEGIL (time) -10 -11\n"  # -10
        ">b: ADEEGIL - +0 -10\n"  # -11 recorded before: -11 + 0 = -11
        ">a: (adjust) +3 41\n"  # 38 + 3 = 41: fine
    )
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    assert disagreements(lines) == [
        (4, "total of a", "38", "37"),
        (5, "total of b", "-11", "-10"),
        (6, "total of b", "-10", "-11"),
    ]
    assert code == 1


def test_rules_option_de_on_an_english_record(capsys: pytest.CaptureFixture[str]) -> None:
    # German values: W3 on DL = 6, I1, N1, D1, Y10 -> 19, on the DW star: 38 (English: 32).
    code, lines, _ = replay_cli(capsys, GCG_DIR / "doug_v_emely.gcg", "--rules", "de")
    found = disagreements(lines)
    assert found[0] == (3, "score of 8D WINDY", "+32", "+38")
    assert len(found) > 5
    assert lines[-1] == summary(28, len(found))
    assert code == 1


def test_rules_option_en_changes_only_the_going_out_factor(capsys: pytest.CaptureFixture[str]) -> None:
    # Classic en: the same tiles, but going out gives 1x the other racks: OPEG = 7, not 14.
    code, lines, _ = replay_cli(capsys, GCG_DIR / "doug_v_emely.gcg", "--rules", "en")
    found = disagreements(lines)
    assert [(f[0], f[2], f[3]) for f in found] == [(30, "+14", "+7")]
    assert code == 1


def test_rules_option_en_tournament_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = replay_cli(capsys, GCG_DIR / "doug_v_emely.gcg", "--rules", "en-tournament")
    assert (code, lines) == (0, [summary(28, 0)])


def test_rules_option_overrides_the_rules_pragma(capsys: pytest.CaptureFixture[str]) -> None:
    # The classic game under en-tournament: 3 players are not allowed -> unreadable.
    code, lines, err = replay_cli(capsys, CLASSIC, "--rules", "en-tournament")
    assert code == 2
    assert lines == []
    assert "en-tournament" in err and "3" in err


def test_unknown_rules_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(GCG_DIR / "doug_v_emely.gcg"), "--rules", "xx"])
    assert exc.value.code == 2
    assert PROFILES_LISTED in capsys.readouterr().err


# --- tile sets of standard records ---------------------------------------------------------


def test_standard_record_with_german_tile_distribution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # BÄREN on 8D: (B3 x2 + Ä6 + R1 + E1 + N1) x2 = 30; b's rack penalty: Ö8 + L2 = 10.
    body = (
        "#player1 a A\n#player2 b B\n"
        ">a: BÄRENTU 8D BÄREN +30 30\n"
        ">b: ÖL (ÖL) -10 -10\n"
    )
    header = "#character-encoding UTF-8\n#tile-distribution german\n"
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, header + body))
    assert (code, lines) == (0, [summary(2, 0)])
    # without the pragma the tile set is English, which has no Ä or Ö
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, "#character-encoding UTF-8\n" + body, "en.gcg"))
    assert code == 1
    assert {f[0] for f in disagreements(lines)} == {4, 5}


def test_standard_record_with_french_tile_distribution(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # French K10 W10: 8E KIWI = (K10 + I1 + W10 + I1 on the DW star) x2 = 44 (English: 22).
    body = "#player1 a A\n#player2 b B\n>a: KIWIAAE 8E KIWI +44 44\n"
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, "#tile-distribution french\n" + body))
    assert (code, lines) == (0, [summary(1, 0)])
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, body, "en.gcg"))
    assert disagreements(lines) == [(3, "score of 8E KIWI", "+44", "+22")]
    assert code == 1


# --- hand-written records: classic 3 players, German ---------------------------------------


def test_classic_three_player_game(capsys: pytest.CaptureFixture[str]) -> None:
    # tests/data/gcg_extra/classic_en_3p.gcg: every score's arithmetic is in its #note.
    # The end: Anna goes out; Ben holds RAF (1 + 1 + 4 = 6), Cem holds A (1):
    # Anna +7 (1x, classic), Ben -6, Cem -1.
    code, lines, err = replay_cli(capsys, CLASSIC)
    assert err == ""
    assert lines == [summary(29, 0)]
    assert event_count(CLASSIC) == 29
    assert code == 0


def test_classic_game_going_out_is_single_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(CLASSIC)
    n = rec.lines.index(">Anna:  (RAFA) +7 372") + 1
    rec.edit(n, ">Anna:  (RAFA) +7 372", ">Anna:  (RAFA) +14 379")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[2], f[3]) for f in found] == [(n, "+14", "+7")]
    assert "2x" not in found[0][1]
    assert code == 1


def test_classic_game_going_out_names_all_other_racks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Only Ben's rack (RAF = 6) instead of Ben's and Cem's (RAFA = 7).
    rec = Record(CLASSIC)
    n = rec.lines.index(">Anna:  (RAFA) +7 372") + 1
    rec.edit(n, ">Anna:  (RAFA) +7 372", ">Anna:  (RAF) +6 371")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(n, "tiles left", "RAF", "AAFR")]
    assert code == 1


def test_classic_game_rack_penalty_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(CLASSIC)
    n = rec.lines.index(">Ben: RAF (RAF) -6 178") + 1
    rec.edit(n, ">Ben: RAF (RAF) -6 178", ">Ben: RAF (RAF) -12 172")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[2], f[3]) for f in found] == [(n, "-12", "-6")]
    assert "rack penalty" in found[0][1]
    assert code == 1


def test_classic_game_rules_pragma_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # #rules de: German values (line 8: GEZTS with Z3, not Z10). Without #rules the file is
    # a standard record, which allows 2 players only.
    rec = Record(CLASSIC)
    rec.edit(2, "#rules en", "#rules de")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert code == 1  # German values
    assert disagreements(lines)[0][0] == 8
    rec.edit(2, "#rules de", "#title no rules")
    code, lines, err = replay_cli(capsys, rec.save(tmp_path / "h.gcg"))
    assert code == 2
    assert lines == []


def test_german_game(capsys: pytest.CaptureFixture[str]) -> None:
    # tests/data/gcg_extra/german_de.gcg: umlauts, a blank ä and a (challenge) -5 line.
    code, lines, err = replay_cli(capsys, GERMAN)
    assert err == ""
    assert lines == [summary(6, 0)]
    assert code == 0


def test_german_game_blank_umlaut_is_worth_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # BÄREN laid with the other blank as ä: (B3 x2 + ä0 + R1 + E1 + N1) x2 = 18, not 30.
    rec = Record(GERMAN)
    rec.edit(7, ">Jörg: BÄRENTU 8D BÄREN +30 30", ">Jörg: B?RENTU 8D BäREN +30 30")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(7, "score of 8D BäREN", "+30", "+18")]
    assert code == 1
    # ... and a blank on the board needs a '?' on the rack
    rec.edit(7, ">Jörg: B?RENTU 8D BäREN +30 30", ">Jörg: BÄRENTU 8D BäREN +18 18")
    rec.shift_totals(7, "Jörg", -12)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "h.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[1]) for f in found] == [(7, "rack")]
    assert "?" in found[0][3]


def test_german_game_umlaut_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # KÜ.BIS scored as if Ü were worth 1: 26 - 5 = 21 recorded.
    rec = Record(GERMAN)
    rec.edit(9, ">Mareike: KÜBISLO F6 KÜ.BIS +26 26", ">Mareike: KÜBISLO F6 KÜ.BIS +21 21")
    rec.shift_totals(9, "Mareike", -5)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(9, "score of F6 KÜ.BIS", "+21", "+26")]
    assert code == 1


def test_german_game_challenge_penalty_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = Record(GERMAN)
    rec.edit(13, ">Mareike: LOHEMWA (challenge) -5 21", ">Mareike: LOHEMWA (challenge) -10 16")
    rec.shift_totals(13, "Mareike", -5)
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    assert disagreements(lines) == [(13, "challenge", "-10 for Mareike", "-5 under de")]
    assert code == 1


def test_german_game_under_english_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = replay_cli(capsys, GERMAN, "--rules", "en")
    found = disagreements(lines)
    assert found and found[0][0] == 7
    assert code == 1


# --- unreadable files: exit 2 ---------------------------------------------------------------


HEADER = "#character-encoding UTF-8\n#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n"


@pytest.mark.parametrize(
    ("line", "fragments"),
    [
        ("this is not gcg", ["line 5", "this is not gcg"]),
        (">b: ADEEGIL 7C GALE +x 16", ["line 5", "+x"]),
        (">b: ADEEGIL 7C GALE +16 1x6", ["line 5", "1x6"]),
        (">c: ADEEGIL 7C GALE +16 16", ["line 5", "'c'", "a, b"]),
        (">b ADEEGIL 7C GALE +16 16", ["line 5"]),
        (">b: ADEEGIL (foo) +16 16", ["line 5", "(foo)"]),
    ],
)
def test_unreadable_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, fragments: list[str]) -> None:
    path = write_gcg(tmp_path, HEADER + line + "\n>a: AEJNOSV - +0 32\n")
    code, lines, err = replay_cli(capsys, path)
    assert code == 2
    assert lines == []
    for fragment in fragments:
        assert fragment in err
    assert str(path) in err


def test_unknown_rules_profile_lists_the_known_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gcg(tmp_path, "#player1 a A\n#player2 b B\n#rules xx\n>a: DINNVWY 8D WINDY +32 32\n")
    code, lines, err = replay_cli(capsys, path)
    assert code == 2
    assert lines == []
    assert "'xx'" in err
    assert PROFILES_LISTED in err


def test_unknown_rules_profile_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gcg(tmp_path, "#player1 a A\n#player2 b B\n#rules xx\n>a: DINNVWY 8D WINDY +32 32\n")
    code, _, err = replay_cli(capsys, path)
    assert code == 2
    assert "line 3" in err


def test_bad_rules_variant_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gcg(tmp_path, "#player1 a A\n#player2 b B\n#rules de rack=8\n>a: DINNVWY 8D WINDY +32 32\n")
    code, lines, err = replay_cli(capsys, path)
    assert (code, lines) == (2, [])
    assert "rack=8" in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.gcg"
    code, lines, err = replay_cli(capsys, path)
    assert code == 2
    assert lines == []
    assert str(path) in err


def test_undecodable_utf8_is_unreadable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.gcg"
    path.write_bytes(b"#character-encoding UTF-8\n#player1 a A\n#player2 b B\n#note caf\xe9\n")
    code, lines, err = replay_cli(capsys, path)
    assert (code, lines) == (2, [])
    assert "line 4" in err


# --- engine bugs --------------------------------------------------------------------------


def test_withdrawal_of_an_off_board_play_counts_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # emely's TIL.. moved to 4L runs off the board (one disagreement); her '--' then
    # withdraws that play, as recorded. The engine instead removes her VOX (line 6) from
    # the board and reports more disagreements on lines 9, 11, 25 and 30.
    rec = Record(GCG_DIR / "doug_v_emely.gcg")
    rec.edit(8, ">emely: DEIILTZ 4B TIL.. +24 79", ">emely: DEIILTZ 4L TIL.. +24 79")
    code, lines, _ = replay_cli(capsys, rec.save(tmp_path / "g.gcg"))
    found = disagreements(lines)
    assert [(f[0], f[1]) for f in found] == [(8, "placement")]
    assert code == 1


def test_withdrawal_of_an_unreadable_first_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "#player1 a A\n#player2 b B\n>a: DINNVWY 8L WINDY +32 32\n>a: DINNVWY -- -32 0\n"
    code, lines, _ = replay_cli(capsys, write_gcg(tmp_path, text))
    assert [(f[0], f[1]) for f in disagreements(lines)] == [(3, "placement")]
    assert code == 1


def test_unnamed_blank_in_a_played_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.gcg"
    game.write_text("#player1 a A\n#player2 b B\n>a: ?AT 8G C?T +8 8\n", encoding="utf-8")
    code = main(["replay", str(game)])
    out = capsys.readouterr().out
    assert code == 1 and "'?' at H8" in out and "a blank must be written as its letter" in out


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty (0 bytes)"),
        (b"#title nothing here\n", "no #player lines and no events: not a game record"),
        ("\ufeff#player1 a A\n".encode("utf-16-le"), "the file is UTF-16-LE (found from its byte order mark)"),
    ],
)
def test_a_file_without_a_game_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    path = tmp_path / "g.gcg"
    path.write_bytes(data)
    code, lines, err = replay_cli(capsys, path)
    assert (code, lines) == (2, [])
    assert message in err and "players, not 0" not in err


def test_an_explicit_iso_8859_1_record_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = "#character-encoding ISO-8859-1\n#player1 c\xe9sar C\n#player2 b B\n>c\xe9sar: DINNVWY 8D WINDY +32 32\n"
    path = tmp_path / "g.gcg"
    path.write_bytes(text.encode("iso-8859-1"))
    assert replay_cli(capsys, path)[:2] == (0, [summary(1, 0)])
