"""What the table says: the exact words of each announcement in German, French and English.

Numbers up to twelve are words, larger ones digits (espeak-ng's own number reading; the
phoneme checks are in test_voice_espeak.py); plurals follow each language; a word of the
board is said by the game's voice, a spelled one letter by letter in the display's language.
"""

from __future__ import annotations

import string

import marisa_trie
import pytest

from scoreboard.screens.models import LANGUAGES, Lang
from scoreboard.voice.models import (
    ExchangeSpeech,
    PassSpeech,
    PlaySpeech,
    RulingSpeech,
    Speech,
    SpeechKind,
    TallySpeech,
    TimeSpeech,
    TurnSpeech,
    kind_of,
)
from scoreboard.voice.numbers import count, number, singular
from scoreboard.voice.spelling import RESPELLINGS, SOURCES, build, respelling_path, speakable
from scoreboard.voice.text import RESPELL, TEXT, Part, announcement, respell, spelled


def said(speech: Speech, lang: Lang) -> str:
    return announcement(speech, lang).text


EXPECTED: list[tuple[Speech, str, str, str]] = [
    (
        PlaySpeech("Anna", "HAUS", 10, "de"),
        "Anna, HAUS, zehn Punkte.",
        "Anna, HAUS, dix points.",
        "Anna, HAUS, ten points.",
    ),
    (
        PlaySpeech("Anna", "HuS", 1, "de"),
        "Anna, HUS, Joker als U, ein Punkt.",
        "Anna, HUS, joker en U, un point.",
        "Anna, HUS, blank as U, one point.",
    ),
    (
        PlaySpeech("Anna", "HAuSTiER", 82, "de", bingo=True),
        "Anna, HAUSTIER, Joker als U und I, 82 Punkte. Bingo!",
        "Anna, HAUSTIER, jokers en U et I, 82 points. Scrabble !",
        "Anna, HAUSTIER, blanks as U and I, 82 points. Bingo!",
    ),
    (
        PlaySpeech("Ben", "BRR", 5, "en"),  # no vowel: spelled
        "Ben, B, R, R, fünf Punkte.",
        "Ben, B, R, R, cinq points.",
        "Ben, B, R, R, five points.",
    ),
    (PassSpeech("Anna"), "Anna passt.", "Anna passe.", "Anna passes."),
    (ExchangeSpeech("Ben", 1), "Ben tauscht einen Stein.", "Ben échange une lettre.", "Ben exchanges one tile."),
    (ExchangeSpeech("Ben", 7), "Ben tauscht sieben Steine.", "Ben échange sept lettres.", "Ben exchanges seven tiles."),
    (
        RulingSpeech("Ben", "Anna", True, ("HAUS",), "de", -5),
        "Einspruch von Ben. HAUS ist gültig. Ben verliert fünf Punkte.",
        "Ben conteste. HAUS est valable. Ben perd cinq points.",
        "Ben challenges. HAUS is valid. Ben loses five points.",
    ),
    (
        RulingSpeech("Ben", "Anna", True, ("HAUS",), "de", -1),
        "Einspruch von Ben. HAUS ist gültig. Ben verliert einen Punkt.",
        "Ben conteste. HAUS est valable. Ben perd un point.",
        "Ben challenges. HAUS is valid. Ben loses one point.",
    ),
    (
        RulingSpeech("Ben", "Anna", True, ("ETE",), "fr", 10),
        "Einspruch von Ben. ETE ist gültig. Anna bekommt zehn Punkte.",
        "Ben conteste. ETE est valable. Anna gagne dix points.",
        "Ben challenges. ETE is valid. Anna gets ten points.",
    ),
    (
        RulingSpeech("Ben", "Anna", True, ("HOUSE",), "en", lost_turn=True),
        "Einspruch von Ben. HOUSE ist gültig. Ben setzt aus.",
        "Ben conteste. HOUSE est valable. Ben passe son tour.",
        "Ben challenges. HOUSE is valid. Ben loses a turn.",
    ),
    (
        RulingSpeech("Ben", "Anna", True, ("HOUSE",), "en"),
        "Einspruch von Ben. HOUSE ist gültig. Keine Strafe.",
        "Ben conteste. HOUSE est valable. Pas de pénalité.",
        "Ben challenges. HOUSE is valid. No penalty.",
    ),
    (
        RulingSpeech("Ben", "Anna", False, ("ROSEX", "XA"), "de"),
        "Einspruch von Ben. Ungültig: R, O, S, E, X. X, A. Anna nimmt den Zug zurück.",
        "Ben conteste. Refusé : R, O, S, E, X. X, A. Anna reprend ses lettres.",
        "Ben challenges. Invalid: R, O, S, E, X. X, A. Anna takes the play back.",
    ),
    (
        RulingSpeech("Ben", "Anna", True, ("HOUSE",), "en", lost_game="Ben", overridden=True),
        "Entscheidung geändert. HOUSE ist gültig. Ben verliert das Spiel.",
        "Décision inversée. HOUSE est valable. Ben perd la partie.",
        "Ruling overridden. HOUSE is valid. Ben loses the game.",
    ),
    (TurnSpeech("Anna"), "Anna ist am Zug.", "À Anna de jouer.", "Anna to play."),
    (TimeSpeech("Anna", 300), "Anna, noch fünf Minuten.", "Anna, plus que cinq minutes.", "Anna, five minutes left."),
    (TimeSpeech("Anna", 60), "Anna, noch eine Minute.", "Anna, plus qu'une minute.", "Anna, one minute left."),
    (TimeSpeech("Anna", 0), "Anna, die Zeit ist um.", "Anna, temps écoulé.", "Anna, time is up."),
    (
        TimeSpeech("Anna", 30, move=True),
        "Anna, noch 30 Sekunden für den Zug.",
        "Anna, plus que 30 secondes pour ce coup.",
        "Anna, 30 seconds left for the move.",
    ),
    (
        TimeSpeech("Anna", 0, move=True),
        "Anna, die Zeit für den Zug ist um.",
        "Anna, le temps du coup est écoulé.",
        "Anna, time for the move is up.",
    ),
    (
        TallySpeech((("Anna", 312), ("Ben", 1), ("Cleo", -1)), ("Anna",)),
        "Spielende. Anna: 312 Punkte. Ben: ein Punkt. Cleo: minus ein Punkt. Anna gewinnt.",
        "Fin de la partie. Anna : 312 points. Ben : un point. Cleo : moins un point. Anna gagne.",
        "Game over. Anna: 312 points. Ben: one point. Cleo: minus one point. Anna wins.",
    ),
    (
        TallySpeech((("Anna", 0), ("Ben", 0), ("Cleo", 0)), ("Anna", "Ben", "Cleo")),
        "Spielende. Anna: null Punkte. Ben: null Punkte. Cleo: null Punkte. Unentschieden zwischen Anna, Ben und Cleo.",
        "Fin de la partie. Anna : zéro point. Ben : zéro point. Cleo : zéro point. Égalité entre Anna, Ben et Cleo.",
        "Game over. Anna: zero points. Ben: zero points. Cleo: zero points. A tie between Anna, Ben and Cleo.",
    ),
]


@pytest.mark.parametrize(("speech", "de", "fr", "en"), EXPECTED, ids=[type(e[0]).__name__ for e in EXPECTED])
def test_each_announcement_in_each_language(speech: Speech, de: str, fr: str, en: str) -> None:
    assert (said(speech, "de"), said(speech, "fr"), said(speech, "en")) == (de, fr, en)


def test_every_kind_of_speech_is_covered_and_every_template_has_three_languages() -> None:
    assert {kind_of(e[0]) for e in EXPECTED} == set(SpeechKind)
    for key, entry in TEXT.items():
        assert set(entry) == set(LANGUAGES), key
        fields = [{f for _, f, _, _ in string.Formatter().parse(entry[lang]) if f} for lang in LANGUAGES]
        assert fields[0] == fields[2] and fields[0] <= fields[1], key  # (fr may add its elided "que")


# --- numbers and plurals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "points"),
    [
        ("de", ["minus zwei Punkte", "minus ein Punkt", "null Punkte", "ein Punkt", "zwei Punkte", "zwölf Punkte",
                "13 Punkte", "21 Punkte", "101 Punkte"]),
        ("fr", ["moins deux points", "moins un point", "zéro point", "un point", "deux points", "douze points",
                "13 points", "21 points", "101 points"]),
        ("en", ["minus two points", "minus one point", "zero points", "one point", "two points", "twelve points",
                "13 points", "21 points", "101 points"]),
    ],
)
def test_points_with_the_plural_of_each_language(lang: Lang, points: list[str]) -> None:
    assert [count(n, "point", lang) for n in (-2, -1, 0, 1, 2, 12, 13, 21, 101)] == points


def test_one_agrees_with_its_noun() -> None:
    assert [count(1, unit, "de") for unit in ("point", "minute", "second", "tile")] == [
        "ein Punkt", "eine Minute", "eine Sekunde", "ein Stein"
    ]
    assert [count(1, unit, "de", accusative=True) for unit in ("point", "minute", "tile")] == [
        "einen Punkt", "eine Minute", "einen Stein"
    ]
    assert [count(1, unit, "fr") for unit in ("point", "minute", "second", "tile")] == [
        "un point", "une minute", "une seconde", "une lettre"
    ]
    # French feminine "…et une", which digits cannot carry (espeak-ng reads 21 as "vingt et un")
    assert [count(n, "minute", "fr") for n in (21, 31, 61, 71, 81, 91, 101, 221, 1001, 2121)] == [
        "vingt et une minutes", "trente et une minutes", "soixante et une minutes", "71 minutes",
        "quatre-vingt-une minutes", "91 minutes", "cent une minutes", "deux cent vingt et une minutes",
        "1000 une minutes", "2000 cent vingt et une minutes",
    ]
    assert count(21, "point", "fr") == "21 points" and count(21, "minute", "en") == "21 minutes"


def test_numbers_up_to_twelve_are_words_larger_ones_digits() -> None:
    assert [number(n, "de") for n in (0, 1, 7, 12, 13, 2000)] == ["null", "eins", "sieben", "zwölf", "13", "2000"]
    assert [number(n, "fr") for n in (0, 1, 11, 12, 13)] == ["zéro", "un", "onze", "douze", "13"]
    assert [number(n, "en") for n in (0, 1, 11, 12, 13)] == ["zero", "one", "eleven", "twelve", "13"]
    with pytest.raises(ValueError, match="-3"):
        number(-3, "de")


def test_the_singular_is_cldrs_one() -> None:
    assert [n for n in range(-3, 4) if singular(n, "de")] == [-1, 1]
    assert [n for n in range(-3, 4) if singular(n, "en")] == [-1, 1]
    assert [n for n in range(-3, 4) if singular(n, "fr")] == [-1, 0, 1]


# --- letters, blanks and words ----------------------------------------------------------------------


def test_a_word_is_said_by_the_games_voice_the_rest_by_the_displays() -> None:
    parts = announcement(PlaySpeech("Zoë", "ÄRGER", 21, "de"), "fr").parts
    assert parts == (Part("Zoë, ", "Zoë, ", "fr"), Part("ÄRGER", "ärger", "de"), Part(", 21 points.", ", 21 points.", "fr"))
    # one language all through: one part, one espeak-ng run
    assert announcement(PlaySpeech("Zoë", "ÄRGER", 21, "de"), "de").parts == (
        Part("Zoë, ÄRGER, 21 Punkte.", "Zoë, ärger, 21 Punkte.", "de"),
    )


def test_blanks_are_named_and_the_words_that_espeak_ng_says_wrongly_are_respelled_for_it() -> None:
    (de,) = announcement(PlaySpeech("Anna", "HuS", 1, "de"), "de").parts
    assert de.text == "Anna, HUS, Joker als U, ein Punkt." and de.say == "Anna, hus, Dschoker als U, ein Punkt."
    fr = announcement(PlaySpeech("Anna", "MAISONNeE", 73, "fr", bingo=True), "fr").parts
    assert [p.say for p in fr] == ["Anna, maisonnée, jokère en E, 73 points. Scrable !"]
    # English "A" before "and" is the article to espeak-ng: the letter is given by its sound
    (en,) = announcement(PlaySpeech("Ben", "aNTs", 3, "en"), "en").parts
    assert en.text == "Ben, ANTS, blanks as A and S, three points."
    assert en.say == "Ben, ants, blanks as [['eI]] and S, three points."
    assert respell("Joker Jokers", "de") == "Dschoker Jokers" and respell("joker", "en") == "joker"
    assert set(RESPELL) == set(LANGUAGES)


def test_a_word_without_a_vowel_is_spelled_in_the_displays_language() -> None:
    assert [w for w in ("BRR", "PST", "HM", "CWM", "NTH", "ÖL", "HYMN", "XU") if spelled(w, "de")] == [
        "BRR", "PST", "HM", "CWM", "NTH"
    ]
    assert not spelled("SYZYGY", "en") and spelled("PFFT", "fr")
    (part,) = announcement(PlaySpeech("Ben", "PST", 5, "de"), "en").parts
    assert part == Part("Ben, P, S, T, five points.", "Ben, P, S, T, five points.", "en")


def test_accented_letters_and_umlauts() -> None:
    assert said(RulingSpeech("Ben", "Anna", False, ("ÄRA",), "de"), "de") == (
        "Einspruch von Ben. Ungültig: Ä, R, A. Anna nimmt den Zug zurück."
    )
    assert said(PlaySpeech("Ben", "öL", 2, "de"), "de") == "Ben, ÖL, Joker als Ö, zwei Punkte."
    assert said(TurnSpeech("Émilie"), "fr") == "À Émilie de jouer."


def test_words_get_back_the_signs_their_tiles_lost() -> None:
    assert speakable("ETE", "fr") == "été"  # read as it lies, "ete" is English "eet" to espeak-ng
    assert speakable("COTE", "fr") == "cote"  # a word without signs stays itself
    assert speakable("STRASSE", "de") == "straße" and speakable("MASSE", "de") == "masse"
    assert speakable("HAUS", "de") == "haus" and speakable("HOUSE", "en") == "house"
    assert speakable("XYZZY", "fr") == "xyzzy"  # unknown: lower case as it lies
    assert all(respelling_path(lang).is_file() for lang in ("de", "fr"))


def test_the_respelling_table_takes_the_form_with_the_fewest_signs_and_never_a_word_that_needs_none() -> None:
    assert build(["pêche", "péché", "pèche", "cote", "côte", "été", "abc-def"], "fr") == {"PECHE": "pèche", "ETE": "été"}
    assert build(["Straße", "Strasse", "Fuß", "Café", "Öl"], "de") == {"FUSS": "fuß", "CAFE": "café"}


@pytest.mark.parametrize("lang", RESPELLINGS)
def test_the_shipped_respelling_tables_are_what_their_word_lists_give(lang: Lang) -> None:
    source = SOURCES[lang]
    if not source.is_file():
        pytest.skip(f"{source} is not installed (Debian: wfrench, wngerman; .ci/run installs them)")
    table = build(source.read_text(encoding="utf-8").splitlines(), lang)
    shipped = marisa_trie.Trie()
    shipped.load(str(respelling_path(lang)))
    assert sorted(shipped.keys()) == sorted(f"{k}\t{v}" for k, v in table.items())


# --- players' names (voice.names) -------------------------------------------------------------


def test_a_name_is_said_by_its_own_languages_voice_or_as_respelled() -> None:
    names = {"Françoise": "fr", "Siobhan": "Shivawn", "Jürgen": {"en": "Yuergen"}}
    assert announcement(TurnSpeech("Françoise"), "de", names).parts == (
        Part("Françoise", "Françoise", "fr"), Part(" ist am Zug.", " ist am Zug.", "de"),
    )
    assert announcement(TurnSpeech("Siobhan"), "fr", names).parts == (
        Part("À Siobhan de jouer.", "À Shivawn de jouer.", "fr"),
    )
    # a respelling for one display language only: the others say the name as written
    assert announcement(TurnSpeech("Jürgen"), "en", names).parts == (Part("Jürgen to play.", "Yuergen to play.", "en"),)
    assert announcement(TurnSpeech("Jürgen"), "de", names).parts == (
        Part("Jürgen ist am Zug.", "Jürgen ist am Zug.", "de"),
    )
    assert announcement(TurnSpeech("françoise"), "en", names).parts[0].lang == "fr"  # case as configured or not
    assert announcement(TurnSpeech("Anna"), "de", names) == announcement(TurnSpeech("Anna"), "de")


def test_every_name_of_every_announcement_follows_the_table() -> None:
    names = {"Françoise": "fr"}
    speeches: list[Speech] = [
        PlaySpeech("Françoise", "HAUS", 10, "de"), PassSpeech("Françoise"), ExchangeSpeech("Françoise", 2),
        RulingSpeech("Françoise", "Ben", True, ("HAUS",), "de", points=-5),
        RulingSpeech("Ben", "Françoise", False, ("XQ",), "de", lost_game="Françoise"),
        TimeSpeech("Françoise", 0), TallySpeech((("Françoise", 12), ("Ben", 12)), ("Françoise", "Ben")),
    ]
    for speech in speeches:
        said = announcement(speech, "de", names)
        french = [p for p in said.parts if p.lang == "fr"]
        assert french and all(p.text == "Françoise" for p in french), (speech, said.parts)
        assert said.text == announcement(speech, "de").text  # the written text is unchanged
    tie = announcement(TallySpeech((("Françoise", 12), ("Ben", 12)), ("Ben", "Françoise")), "de", names)
    assert tie.text.endswith("Unentschieden zwischen Ben und Françoise.")
    assert tie.parts[-2:] == (Part("Françoise", "Françoise", "fr"), Part(".", ".", "de"))
