"""Lexicons: normalisation, building, loading, the shipped lists, house lists, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import marisa_trie
import pytest

from engine.board import Board
from engine.lexicon import HouseLexicon, Lexicon, SetLexicon, infer_blanks
from engine.placement import Placement
from engine.tiles import GERMAN, Tile
from engine.trie import LexiconFormatError, TrieLexicon
from engine.words import Rejection, UnknownLanguageError, normalize
from scoreboard import lexicons
from scoreboard.cli import main

# --- normalisation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "language", "expected"),
    [
        ("Straße", "de", "STRASSE"),
        ("straße", "de", "STRASSE"),
        ("Äpfel", "de", "ÄPFEL"),
        ("AEPFEL", "de", "AEPFEL"),  # never turned into an umlaut
        ("Müller", "de", "MÜLLER"),
        ("Café", "de", "CAFE"),  # accents other than the umlauts are dropped
        ("A\u0308pfel", "de", "ÄPFEL"),  # decomposed Ä
        ("élève", "fr", "ELEVE"),
        ("garçon", "fr", "GARCON"),
        ("Œuvre", "fr", "OEUVRE"),
        ("ex-æquo", "fr", Rejection.HYPHEN),
        ("Äpfel", "fr", "APFEL"),
        ("hello", "en", "HELLO"),
        ("café", "en", Rejection.OTHER),
        ("don't", "en", Rejection.APOSTROPHE),
        ("X-Beine", "de", Rejection.HYPHEN),
        ("wen’ge", "de", Rejection.APOSTROPHE),
        ("B52", "en", Rejection.DIGIT),
        ("ad hoc", "en", Rejection.SPACE),
        ("", "de", Rejection.EMPTY),
        ("Øre", "de", Rejection.OTHER),
    ],
)
def test_normalize(word: str, language: str, expected: str | Rejection) -> None:
    assert normalize(word, language) == expected


def test_unknown_language() -> None:
    with pytest.raises(UnknownLanguageError, match="'es'; known: de, fr, en"):
        normalize("hola", "es")


# --- building --------------------------------------------------------------------------------


def write_list(path: Path, *entries: str) -> Path:
    path.write_text("\n".join(entries) + "\n", encoding="utf-8")
    return path


def test_build_drops_unplayable_entries_and_reports_why(tmp_path: Path) -> None:
    source = write_list(tmp_path / "de.txt", "Haus", "Straße", "X-Beine", "wen'ge", "Äpfel", "Apfel", "Haus", "4x4", "Øre")
    lexicon, report = lexicons.build(source, "de")
    assert sorted(lexicon) == ["APFEL", "HAUS", "STRASSE", "ÄPFEL"]
    assert report.read == 9 and report.kept == 4 and report.duplicates == 1
    assert report.dropped == {
        Rejection.HYPHEN: 1,
        Rejection.APOSTROPHE: 1,
        Rejection.DIGIT: 1,
        Rejection.OTHER: 1,
    }
    text = "\n".join(report.lines())
    assert "dropped 1: hyphen" in text and "kept 4 words" in text


def test_english_build_drops_proper_nouns(tmp_path: Path) -> None:
    source = write_list(tmp_path / "en.txt", "cat", "Paris", "don't", "dog's", "qi", "dog", "za")
    lexicon, report = lexicons.build(source, "en")
    assert sorted(lexicon) == ["CAT", "DOG", "QI", "ZA"]
    assert report.dropped[Rejection.PROPER_NOUN] == 1 and report.dropped[Rejection.APOSTROPHE] == 2


def test_wrong_encoding_gives_the_line_number(tmp_path: Path) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes("Haus\nBaum\nStra\xdfe\n".encode("latin-1"))
    with pytest.raises(lexicons.WordListError, match=r"line 3: not UTF-8 \(byte 0xdf\)"):
        lexicons.build(source, "de")


def test_build_save_load_round_trip(tmp_path: Path) -> None:
    source = write_list(tmp_path / "fr.txt", "élève", "garçon", "eleve")
    lexicon, _ = lexicons.build(source, "fr")
    out = tmp_path / "out" / "fr.marisa"
    lexicons.save(lexicon, out)
    loaded = lexicons.load(out, "fr")
    assert sorted(loaded) == ["ELEVE", "GARCON"]
    assert len(loaded) == 2 and loaded.language == "fr"
    assert loaded.meta["source"] == "fr.txt"
    assert "ELEVE" in loaded and "ELEV" not in loaded
    assert loaded.has_prefix("GAR") and not loaded.has_prefix("GAZ")
    assert not loaded.has_prefix("#")  # the metadata key is not a word
    assert f"#lexicon {json.dumps(loaded.meta, sort_keys=True)}" not in loaded


# --- bad files -------------------------------------------------------------------------------


def test_missing_file_says_how_to_rebuild(tmp_path: Path) -> None:
    with pytest.raises(lexicons.LexiconFileError) as err:
        lexicons.load(tmp_path / "nope.marisa", "de")
    message = str(err.value)
    assert "nope.marisa does not exist" in message
    assert "scoreboard lexicon build WORDLIST --lang de -o" in message


def test_corrupt_file_says_how_to_rebuild(tmp_path: Path) -> None:
    bad = tmp_path / "de.marisa"
    bad.write_bytes(b"not a trie at all" * 50)
    with pytest.raises(lexicons.LexiconFileError, match="corrupt or not a lexicon; rebuild it with"):
        lexicons.load(bad, "de")


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    data = lexicons.shipped_path("de").read_bytes()
    bad = tmp_path / "de.marisa"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(lexicons.LexiconFileError, match="corrupt"):
        lexicons.load(bad, "de")


def test_a_plain_trie_is_not_a_lexicon(tmp_path: Path) -> None:
    plain = tmp_path / "plain.marisa"
    marisa_trie.Trie(["HAUS"]).save(str(plain))
    with pytest.raises(lexicons.LexiconFileError, match="not usable .no lexicon metadata"):
        lexicons.load(plain)


def test_word_count_mismatch_is_refused() -> None:
    meta = '#lexicon {"format": 1, "language": "de", "words": 5}'
    with pytest.raises(LexiconFormatError, match="holds 1 words but its metadata says 5"):
        TrieLexicon(marisa_trie.Trie(["HAUS", meta]))


def test_wrong_language_is_refused() -> None:
    with pytest.raises(lexicons.LexiconFileError, match="for language 'fr', not 'de'"):
        lexicons.load(lexicons.shipped_path("fr"), "de")


# --- shipped lists ---------------------------------------------------------------------------

SOURCES = lexicons.shipped_path("de").parent / "SOURCES.md"
DOCUMENTED = {"de": 352_359, "fr": 325_232, "en": 246_425}
SAMPLES = {
    "de": (["HAUS", "STRASSE", "ÄPFEL", "MÜLLER", "BÄREN", "KÜRBIS", "ÖL", "SCHÖN"], ["AEPFEL", "HAUSX", "QXZ", "BERLIN", "ADAC"]),
    "fr": (["ELEVE", "GARCON", "MAISON", "CHATEAU", "ETE", "NOEL"], ["HOUSE", "MAISONX"]),
    "en": (["CAT", "QI", "ZYZZYVA", "HELLO", "QUIXOTIC"], ["CHICAGO", "GERMANY", "XYZZYQ", "CATZ"]),
}


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_shipped_word_count_is_the_documented_one(language: str) -> None:
    lexicon = lexicons.load(lexicons.shipped_path(language), language)
    assert len(lexicon) == DOCUMENTED[language]
    assert f"{DOCUMENTED[language]:,}" in SOURCES.read_text(encoding="utf-8")


@pytest.mark.parametrize("language", ["de", "fr", "en"])
def test_shipped_membership_samples(language: str) -> None:
    lexicon = lexicons.load(lexicons.shipped_path(language), language)
    valid, invalid = SAMPLES[language]
    assert [w for w in valid if w not in lexicon] == []
    assert [w for w in invalid if w in lexicon] == []
    assert lexicon.has_prefix(valid[0][:2])


def test_shipped_lexicon_infers_a_blank() -> None:
    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    board = Board()
    squares = Placement.from_gcg("8G", "ÖL", board, GERMAN).squares
    placement = Placement([(squares[0], Tile("?", 0, True)), (squares[1], GERMAN.tile("L"))])
    letters = {p.tiles[0].tile.letter for p in infer_blanks(board, placement, lexicon, GERMAN)}
    assert "Ö" in letters and "A" not in letters  # ÖL is a word, AL is not


# --- house lists -----------------------------------------------------------------------------


def test_house_lists_persist_across_restarts(tmp_path: Path) -> None:
    house = lexicons.HouseList.in_state_dir(tmp_path, "de")
    assert house.add(["Berliner", "Hamburger"], accept=False) == ["BERLINER", "HAMBURGER"]
    assert house.add(["Hausx"], accept=True) == ["HAUSX"]
    again = lexicons.HouseList.in_state_dir(tmp_path, "de")  # as after a restart
    assert again.reject == {"BERLINER", "HAMBURGER"} and again.accept == {"HAUSX"}
    base = lexicons.load(lexicons.shipped_path("de"), "de")
    assert "BERLINER" in base
    layered = again.over(base)
    assert "BERLINER" not in layered and "HAUSX" in layered and "HAUS" in layered
    assert layered.has_prefix("HAUSX")
    again.remove(["hamburger"])
    assert lexicons.HouseList.in_state_dir(tmp_path, "de").reject == {"BERLINER"}


def test_accepting_a_rejected_word_moves_it(tmp_path: Path) -> None:
    house = lexicons.HouseList.in_state_dir(tmp_path, "en")
    house.add(["qi"], accept=False)
    house.add(["qi"], accept=True)
    assert house.accept == {"QI"} and house.reject == set()


def test_house_list_refuses_unplayable_words(tmp_path: Path) -> None:
    house = lexicons.HouseList.in_state_dir(tmp_path, "de")
    with pytest.raises(lexicons.HouseListError, match="'X-Beine' cannot be played: hyphen"):
        house.add(["X-Beine"], accept=True)


def test_corrupt_house_list_is_reported_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "lexicon" / "house-de.json"
    path.parent.mkdir()
    path.write_text("{broken", encoding="utf-8")
    with pytest.raises(lexicons.HouseListError, match="is corrupt; move it away"):
        lexicons.HouseList.in_state_dir(tmp_path, "de")
    assert path.read_text(encoding="utf-8") == "{broken"


def test_reject_wins_over_accept() -> None:
    layered = HouseLexicon(SetLexicon(["A"]), accept=["B", "C"], reject=["C", "A"])
    assert isinstance(layered, Lexicon)
    assert ("A" in layered, "B" in layered, "C" in layered) == (False, True, False)


# --- the command line ------------------------------------------------------------------------


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.delenv("SCOREBOARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "scoreboard"


def test_cli_check(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lexicon", "check", "--lang", "de", "straße", "Äpfel"]) == 0
    assert capsys.readouterr().out.splitlines() == ["STRASSE valid", "ÄPFEL valid"]
    assert main(["lexicon", "check", "--lang", "de", "AEPFEL", "Haus"]) == 1
    assert capsys.readouterr().out.splitlines() == ["AEPFEL invalid", "HAUS valid"]
    assert main(["lexicon", "check", "--lang", "en", "don't"]) == 1
    assert capsys.readouterr().out.splitlines() == ["don't invalid (apostrophe)"]


def test_cli_house_and_no_house(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lexicon", "house", "reject", "--lang", "de", "Berliner"]) == 0
    assert main(["lexicon", "house", "accept", "--lang", "de", "Hausx"]) == 0
    capsys.readouterr()
    assert main(["lexicon", "check", "--lang", "de", "Berliner", "Hausx"]) == 1
    assert capsys.readouterr().out.splitlines() == ["BERLINER invalid", "HAUSX valid"]
    assert main(["lexicon", "check", "--lang", "de", "--no-house", "Berliner", "Hausx"]) == 1
    assert capsys.readouterr().out.splitlines() == ["BERLINER valid", "HAUSX invalid"]
    assert main(["lexicon", "house", "list", "--lang", "de"]) == 0
    assert capsys.readouterr().out.splitlines() == ["accept HAUSX", "reject BERLINER"]
    assert (state / "lexicon" / "house-de.json").exists()


def test_cli_build_and_check_a_user_list(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_list(tmp_path / "club.txt", "Quatsch", "Xylofon", "X-Beine")
    out = tmp_path / "club.marisa"
    assert main(["lexicon", "build", str(source), "--lang", "de", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "dropped 1: hyphen" in printed and f"wrote {out}: 2 de words" in printed
    assert main(["lexicon", "check", "--lang", "de", "--lexicon", str(out), "xylofon", "haus"]) == 1
    assert capsys.readouterr().out.splitlines() == ["XYLOFON valid", "HAUS invalid"]


def test_cli_configured_lexicon(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_list(tmp_path / "club.txt", "Quatsch")
    out = tmp_path / "club.marisa"
    lexicons.save(lexicons.build(source, "de")[0], out)
    config = tmp_path / "config.toml"
    config.write_text(f'[lexicon]\nde = "{out}"\n', encoding="utf-8")
    assert main(["lexicon", "check", "--lang", "de", "--config", str(config), "quatsch"]) == 0
    assert main(["lexicon", "check", "--lang", "de", "--config", str(config), "haus"]) == 1


def test_cli_corrupt_lexicon_message(tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.marisa"
    bad.write_bytes(b"\x00" * 100)
    assert main(["lexicon", "check", "--lang", "de", "--lexicon", str(bad), "haus"]) == 2
    err = capsys.readouterr().err
    assert "bad.marisa is corrupt or not a lexicon" in err and "Traceback" not in err


def test_cli_build_wrong_encoding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes("Haus\nStra\xdfe\n".encode("latin-1"))
    assert main(["lexicon", "build", str(source), "--lang", "de", "-o", str(tmp_path / "x.marisa")]) == 2
    assert "line 2: not UTF-8" in capsys.readouterr().err


def _every_pair(board, placement, lexicon, tile_set):  # type: ignore[no-untyped-def]
    """The inference's answer by brute force: every letter for every blank, all words checked."""
    import itertools

    from engine.board import PlacedTile
    from engine.lexicon import invalid_words
    from engine.scoring import score

    tiles = list(placement.tiles)
    blanks = [i for i, p in enumerate(tiles) if p.tile.letter == "?"]
    letters = [ch for ch in tile_set.letters if ch != "?"]
    out = []
    for names in itertools.product(letters, repeat=len(blanks)):
        trial = list(tiles)
        for i, ch in zip(blanks, names):
            trial[i] = PlacedTile(tiles[i].square, tiles[i].tile.assigned(ch))
        named = Placement(trial)
        if not invalid_words(score(board, named).words, lexicon):
            out.append(named)
    return out


@pytest.mark.parametrize(
    "board_words, play",
    [
        ((), "E8:? F8:? G8:E H8:N"),  # ??EN
        ((), "D8:? E8:? F8:I G8:E H8:L I8:E J8:N"),  # ??IELEN
        ((), "H8:? I8:?"),  # every two-letter word
        ((("H8", "across", "HAUS"),), "H9:? H10:? H11:E"),  # down from H: H??E, no cross words
        ((("H8", "across", "HAUS"),), "I9:? J9:? K9:E"),  # ??E under AUS: three cross words (A?, U?, SE)
        ((("H8", "across", "HAUS"),), "G9:? H9:?"),  # ?? under HA: a cross word with each blank
        ((("H8", "across", "HAUS"),), "L7:? L8:? L9:T"),  # ?? down beside HAUS: HAUS? across
    ],
)
def test_inference_names_blanks_as_trying_every_pair_does(board_words, play) -> None:  # type: ignore[no-untyped-def]
    """The pruned search (cross words first, prefixes of the main word down the trie) finds
    exactly what trying every pair of letters finds, in the same order."""
    from engine.board import Board, Direction, Square

    lexicon = lexicons.load(lexicons.shipped_path("de"), "de")
    board = Board()
    for start, way, word in board_words:
        sq = Square.from_name(start)
        d = Direction.ACROSS if way == "across" else Direction.DOWN
        for n, ch in enumerate(word):
            board.place(Square(sq.row + d.drow * n, sq.col + d.dcol * n), GERMAN.tiles_by_letter[ch])
    placement = Placement(
        (Square.from_name(a), GERMAN.tiles_by_letter[b]) for a, b in (item.split(":") for item in play.split())
    )
    expected = _every_pair(board, placement, lexicon, GERMAN)
    got = infer_blanks(board, placement, lexicon, GERMAN)
    assert [p.tiles for p in got] == [p.tiles for p in expected]


class _Counted(str):
    """A word that counts the ``startswith`` calls made on it."""

    calls = 0

    def startswith(self, *args: object, **kwargs: object) -> bool:
        _Counted.calls += 1
        return super().startswith(*args, **kwargs)  # type: ignore[arg-type]


def test_a_house_prefix_is_found_without_scanning_the_whole_accept_list() -> None:
    """has_prefix answers as a scan of the accept list would, looking at one word of it (two-blank
    inference asks it for many prefixes: review r18, finding 6)."""
    words = [_Counted(f"{a}{b}{c}ZQ") for a in "ABCDEFGH" for b in "KLMNOP" for c in "RSTUVW"]
    layered = HouseLexicon(SetLexicon(["A"]), accept=words)
    prefixes = ["", "A", "AK", "AKR", "AKRZQ", "AKRZQX", "HPW", "HPWZ", "HX", "Z", "ZQ", "I", "AKA", "B"]
    _Counted.calls = 0
    got = [layered.has_prefix(p) for p in prefixes]
    assert _Counted.calls <= len(prefixes)  # (a scan makes hundreds per prefix)
    assert got == [any(str.startswith(w, p) for w in words) or p in ("", "A") for p in prefixes]
