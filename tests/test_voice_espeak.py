"""espeak-ng says every announcement, and says it as intended: audio and phoneme checks.

Nobody can listen here, so the sound is checked by measure (each announcement becomes a WAV
of speech length with a loud enough signal) and the pronunciation by espeak-ng's phoneme
output (``espeak-ng -x``): the letters, blanks, numbers and words the texts rely on.
"""

from __future__ import annotations

import array
import math
import re
import shutil
import subprocess
import wave
from pathlib import Path

import pytest
from test_voice_text import EXPECTED

from drivers.voice import AlsaSink, Espeak, Utterance, VoiceError, WavFolder
from drivers.voice.espeak import wav_samples
from scoreboard.screens.models import LANGUAGES, Lang
from scoreboard.voice.models import Speech, TurnSpeech
from scoreboard.voice.numbers import count, number
from scoreboard.voice.spelling import speakable
from scoreboard.voice.text import announcement

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (Debian: apt-get install espeak-ng)"
)

VOICES = {"de": "de", "fr": "fr", "en": "en"}


def phonemes(text: str, lang: str) -> str:
    """espeak-ng's phonemes for ``text`` (text on stdin, UTF-8), on one line."""
    done = subprocess.run(
        ["espeak-ng", "-x", "-q", "-b", "1", "-v", VOICES.get(lang, lang)],
        input=text.encode(), capture_output=True, check=True, timeout=30,
    )
    return " ".join(done.stdout.decode().split())


def loudness(wav: bytes) -> tuple[float, float, int]:
    """Seconds, RMS and peak of a 16-bit mono WAV."""
    rate, data = wav_samples(wav)
    samples = array.array("h", data)
    rms = math.sqrt(sum(s * s for s in samples) / len(samples)) if samples else 0.0
    return len(samples) / rate, rms, max((abs(s) for s in samples), default=0)


def utterance(speech: Speech, lang: Lang) -> Utterance:
    said = announcement(speech, lang)
    return Utterance(said.text, tuple((p.say, p.lang) for p in said.parts), said.kind.value)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_announcement_becomes_speech(lang: Lang, tmp_path: Path) -> None:
    espeak = Espeak(VOICES, WavFolder(tmp_path))
    for speech, *_ in EXPECTED:
        wav = espeak.synthesize(utterance(speech, lang))
        seconds, rms, peak = loudness(wav)
        text = announcement(speech, lang).text
        assert 0.8 < seconds < 2 + 0.15 * len(text), (text, seconds)  # about 13 characters a second at 150 wpm
        assert rms > 800 and peak > 8000, (text, rms, peak)


def test_the_wav_from_the_pipe_is_the_wav_espeak_ng_writes_to_a_file(tmp_path: Path) -> None:
    text = "Anna, haus, zehn Punkte."
    espeak = Espeak(VOICES, WavFolder(tmp_path), speed=150, volume=100)
    ours = espeak.synthesize(Utterance(text, ((text, "de"),)))
    target = tmp_path / "w.wav"
    subprocess.run(["espeak-ng", "-v", "de", "-s", "150", "-a", "100", "-w", str(target), text], check=True, timeout=30)
    with wave.open(str(target)) as w:
        frames, rate = w.readframes(w.getnframes()), w.getframerate()
    assert wav_samples(ours) == (rate, frames)
    with wave.open(str(target)) as w, wave.open(str(tmp_path / "ours.wav"), "wb") as out:
        out.setparams(w.getparams())
        out.writeframes(wav_samples(ours)[1])


def test_parts_in_two_voices_are_one_wav_and_a_leading_minus_is_text(tmp_path: Path) -> None:
    espeak = Espeak(VOICES, WavFolder(tmp_path))
    one = loudness(espeak.synthesize(Utterance("x", (("Anna, ", "en"),))))[0]
    two = loudness(espeak.synthesize(Utterance("x", (("Anna, ", "en"), ("haus", "de")))))[0]
    assert two > one + 0.2
    seconds, rms, _ = loudness(espeak.synthesize(Utterance("-5", (("-5 Punkte", "de"),))))
    assert seconds > 0.5 and rms > 800  # on a command line "-5" would be an option


def test_the_simulation_writes_a_wav_per_announcement_with_an_index(tmp_path: Path) -> None:
    espeak = Espeak(VOICES, WavFolder(tmp_path))
    espeak.speak(Utterance("Anna ist am Zug.", (("Anna ist am Zug.", "de"),), "turn"))
    espeak.speak(Utterance("Ben passt.", (("Ben passt.", "de"),), "play"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001-turn.wav", "0002-play.wav", "voice.txt"]
    assert (tmp_path / "voice.txt").read_text(encoding="utf-8") == "0001-turn.wav\tAnna ist am Zug.\n0002-play.wav\tBen passt.\n"
    assert WavFolder(tmp_path).count == 2  # a restarted run goes on numbering


@pytest.mark.skipif(shutil.which("aplay") is None, reason="aplay is not installed (Debian: apt-get install alsa-utils)")
def test_alsa_plays_on_its_device_and_a_dead_device_is_a_voice_error(tmp_path: Path) -> None:
    espeak = Espeak(VOICES, AlsaSink("null"))  # ALSA's null device: accepts and discards
    espeak.speak(Utterance("Anna", (("Anna", "de"),)))
    dead = Espeak(VOICES, AlsaSink("no_such_device"))
    with pytest.raises(VoiceError, match="aplay: exit status") as caught:
        dead.speak(Utterance("Anna", (("Anna", "de"),)))
    assert caught.value.program == "aplay"


# --- pronunciation, by the phonemes --------------------------------------------------------------------


def test_german_umlauts_joker_and_points() -> None:
    assert phonemes("Ä", "de") == "_!'E:" and phonemes("Ö, Ü", "de") == "_!'Y: _!'y:"
    assert phonemes("Joker", "de") == "j'o:k3"  # [j]: why the text gives espeak-ng "Dschoker"
    assert phonemes("Dschoker", "de") == "dZ'o:k3"
    assert phonemes("zehn Punkte", "de") == "ts'e:n p'UNkt@"
    assert phonemes("ein Punkt", "de") == "_|aIn p'UNkt" and phonemes("einen Punkt", "de") == "_|,aIn@n p'UNkt"
    assert phonemes("1 Punkt", "de") == "_'aIns p'UNkt"  # digits say "eins Punkt": why one is written out
    assert phonemes("straße", "de") == "Str'A:s@" and phonemes("groß", "de") == "gr'o:s"
    assert phonemes("gross", "de") == "gr'Os"  # a lost ß: a short vowel


def test_french_joker_scrabble_accents_and_feminine_one() -> None:
    assert phonemes("joker", "fr").startswith("(en)")  # English to espeak-ng: respelled
    assert phonemes("jokère", "fr") == "Zok'Er"
    assert phonemes("Scrabble", "fr").startswith("(en)") and phonemes("Scrable", "fr") == "skr'abl"
    assert phonemes("É", "fr") == ",@_|aksA~tEg'y_|"  # "e accent aigu"
    assert phonemes("ete", "fr").startswith("(en)")  # a lost accent: English "eet"
    assert phonemes(speakable("ETE", "fr"), "fr") == "et'e"
    assert phonemes("21 minutes", "fr") == "vE~te'W~ min'yt"  # masculine from digits
    assert phonemes("vingt et une minutes", "fr") == "v'E~t e yn min'yt"
    assert phonemes("100 une", "fr") == "s'A~t2 'yn"  # a liaison: why the hundreds are words
    assert [phonemes(count(n, "minute", "fr"), "fr") for n in (101, 221, 1001, 2121)] == [
        "s'A~ yn min'yt", "d'Y s'A~ v'E~t e yn min'yt", "m'il yn min'yt", "dY m'il s'A~ v'E~t e yn min'yt"
    ]
    assert phonemes("moins un point", "fr") == "mw'E~z2 W~ pw'E~"


def test_english_letter_a_blank_and_points() -> None:
    assert phonemes("blanks as A and S", "en") == "bl'aNks az a#_:_: and 'Es"  # the article
    assert phonemes("blanks as [['eI]] and S", "en") == "bl'aNks az 'eI_:_: and 'Es"
    assert phonemes("one point", "en") == "w'0n p'OInt" and phonemes("minus two points", "en") == "m'aIn@s t'u: p'OInts"


def _plain(p: str) -> str:
    """Phonemes without stress, pause and reduction marks (I2 is a reducible I)."""
    return re.sub(r"[\s'_,:!|;-]", "", p.replace("I2", "I"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_numbers_written_as_words_sound_as_espeak_ng_says_the_digits(lang: Lang) -> None:
    words = [number(n, lang) for n in range(13)]
    assert [_plain(phonemes(w, lang)) for w in words] == [_plain(phonemes(str(n), lang)) for n in range(13)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_announcement_falls_into_another_language(lang: Lang) -> None:
    """espeak-ng switches a word it takes for a loan into another voice ("(en)"): none does."""
    for speech, *_ in EXPECTED:
        for part in announcement(speech, lang).parts:
            assert "(" not in phonemes(part.say, part.lang), (part.say, phonemes(part.say, part.lang))


def test_a_name_the_displays_voice_says_wrongly_is_said_as_the_table_wants() -> None:
    """The German voice says "Françoise" as "Fran-so-ise" (fr'anso:,Is@); ``voice.names`` has
    the French voice say it in a German announcement, or gives the German voice a respelling."""
    assert phonemes("Françoise", "de") == "fr'anso:,Is@"  # the problem
    by_language = announcement(TurnSpeech("Françoise"), "de", {"Françoise": "fr"})
    (name, rest) = by_language.parts
    assert (name.lang, rest.lang) == ("fr", "de")
    assert phonemes(name.say, name.lang) == "frA~sw'az"  # [fʁɑ̃swaz]
    assert "(" not in phonemes(rest.say, rest.lang)
    respelled = announcement(TurnSpeech("Françoise"), "de", {"Françoise": {"de": "[[fran'swa:s]]"}})
    (part,) = respelled.parts
    assert part.text == "Françoise ist am Zug." and phonemes(part.say, "de").startswith("fransw'a:s ")
    # the English voice says "Jürgen" with an English J (j'u:@dZ@n); a respelling for it
    assert phonemes("Jürgen", "en") == "j'u:@dZ@n"
    (said,) = announcement(TurnSpeech("Jürgen"), "en", {"Jürgen": {"en": "Yuergen"}}).parts
    assert phonemes(said.say, "en").startswith("j'u:3dZ@n")


def test_parts_of_voices_of_different_rates_keep_their_length(tmp_path: Path) -> None:
    """An mbrola voice speaks at 16 kHz, espeak-ng's own at 22.05 kHz: the second part is
    resampled to the first's rate, so neither plays at the wrong speed."""
    espeak = Espeak({"de": "de", "fr": "fr"}, WavFolder(tmp_path))
    de = espeak.synthesize(Utterance("a", (("Anna ist am Zug.", "de"),), "turn"))
    both = espeak.synthesize(Utterance("b", (("Anna ist am Zug.", "de"), ("Françoise", "fr")), "turn"))
    fr = espeak.synthesize(Utterance("c", (("Françoise", "fr"),), "turn"))
    (rate, _), (rate_both, _) = wav_samples(de), wav_samples(both)
    assert rate == rate_both == 22050
    assert abs(loudness(both)[0] - loudness(de)[0] - loudness(fr)[0]) < 0.01
