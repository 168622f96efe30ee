"""The voice never holds up the table: a hung, slow, missing or failing voice delays no Done.

The speaker's queue is short and drops stale news: a whose-turn or time warning that a newer
announcement overtook, the oldest when full, one that waited too long.
"""

from __future__ import annotations

import array
import logging
import math
import stat
import sys
import threading
import time
from pathlib import Path

import pytest
from tablehelpers import rig
from test_service import Clock, mirror_into, service_for

from drivers.voice import Espeak, FakeVoice, Speaker, Utterance, VoiceError, WavFolder
from drivers.voice.espeak import resample, wav_samples
from scoreboard.controller import Settings
from scoreboard.service import transient
from scoreboard.voice.models import SpeechKind, TimeSpeech, TurnSpeech


def u(text: str, transient: bool = False) -> Utterance:
    return Utterance(text, ((text, "de"),), "turn" if transient else "play", transient)


def test_say_returns_at_once_while_the_voice_hangs_and_the_queue_stays_short() -> None:
    fake = FakeVoice()
    fake.hang()
    speaker = Speaker(fake, capacity=3)
    speaker.say(u("first"))
    assert fake.started.wait(2.0)  # the worker is stuck in it

    def say_all() -> None:
        for i in range(50):
            speaker.say(u(f"play {i}"))

    says = threading.Thread(target=say_all, daemon=True)
    says.start()
    says.join(30.0)  # (a bound that only catches a say that waits for the hung voice)
    assert not says.is_alive()
    assert speaker.waiting == 3 and speaker.dropped == 47  # the oldest went first
    fake.release()
    assert speaker.idle(5.0)
    assert fake.texts == ["first", "play 47", "play 48", "play 49"]
    speaker.close()


def test_a_newer_announcement_supersedes_a_waiting_whose_turn() -> None:
    fake = FakeVoice()
    fake.hang()
    speaker = Speaker(fake)
    speaker.say(u("Anna, HAUS, zehn Punkte."))
    assert fake.started.wait(2.0)
    speaker.say(u("Ben ist am Zug.", transient=True))
    speaker.say(u("Ben, noch eine Minute.", transient=True))  # overtakes the turn
    speaker.say(u("Ben, BOHNE, neun Punkte."))  # overtakes the warning: Ben has played
    speaker.say(u("Anna ist am Zug.", transient=True))
    fake.release()
    assert speaker.idle(5.0)
    assert fake.texts == ["Anna, HAUS, zehn Punkte.", "Ben, BOHNE, neun Punkte.", "Anna ist am Zug."]
    assert speaker.dropped == 2
    speaker.close()


def test_without_superseding_every_announcement_is_said() -> None:
    fake = FakeVoice()
    fake.hang()
    speaker = Speaker(fake, supersede=False)
    for text, transient in (("a", False), ("b", True), ("c", True), ("d", False)):
        speaker.say(u(text, transient))
    fake.release()
    assert speaker.idle(5.0) and fake.texts == ["a", "b", "c", "d"] and speaker.dropped == 0
    speaker.close()


def test_an_announcement_that_waited_too_long_is_not_said() -> None:
    now = [0.0]
    fake = FakeVoice()
    fake.hang()
    speaker = Speaker(fake, max_age_s=30.0, clock=lambda: now[0])
    speaker.say(u("old news"))
    assert fake.started.wait(2.0)
    speaker.say(u("waited"))
    now[0] = 31.0
    speaker.say(u("fresh"))
    fake.release()
    assert speaker.idle(5.0)
    assert fake.texts == ["old news", "fresh"] and speaker.dropped == 1
    speaker.close()


def test_a_failing_voice_is_counted_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeVoice(fail=True)
    speaker = Speaker(fake)
    with caplog.at_level(logging.ERROR, logger="drivers.voice.speaker"):
        for i in range(4):
            speaker.say(u(f"news {i}"))
        assert speaker.idle(5.0)
    assert speaker.failed == 4 and speaker.spoken == 0
    assert [r.getMessage() for r in caplog.records] == ["cannot say 'news 0': fake: no audio device"]
    speaker.close()


def test_closing_cuts_off_a_hung_voice() -> None:
    fake = FakeVoice()
    fake.hang()
    speaker = Speaker(fake)
    speaker.say(u("stuck"))
    speaker.say(u("waiting"))
    assert fake.started.wait(2.0)
    began = time.monotonic()
    speaker.close(drain_s=0.2)
    assert time.monotonic() - began < 2.0 and speaker.dropped == 1
    speaker.say(u("after"))  # closed: ignored
    assert speaker.waiting == 0


def fake_program(folder: Path, body: str) -> Path:
    """An executable standing in for espeak-ng."""
    path = folder / "espeak-ng"
    path.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_hung_espeak_ng_is_stopped_after_its_time_limit(tmp_path: Path) -> None:
    program = fake_program(tmp_path, "time.sleep(60)")
    espeak = Espeak({"de": "de"}, WavFolder(tmp_path / "wav"), program=str(program), timeout_s=0.5)
    began = time.monotonic()
    with pytest.raises(VoiceError, match="longer than 0.5 s") as caught:
        espeak.speak(u("Anna ist am Zug."))
    assert caught.value.program == "espeak-ng" and time.monotonic() - began < 5.0
    assert not list((tmp_path / "wav").glob("*.wav"))


def test_a_missing_or_failing_espeak_ng_is_a_voice_error(tmp_path: Path) -> None:
    missing = Espeak({"de": "de"}, WavFolder(tmp_path), program=str(tmp_path / "no-such-espeak-ng"))
    with pytest.raises(VoiceError, match="is it installed"):
        missing.speak(u("Anna"))
    failing = Espeak({"de": "de"}, WavFolder(tmp_path), program=str(fake_program(tmp_path, "sys.exit('no voice de')")))
    with pytest.raises(VoiceError, match="exit status 1: no voice de"):
        failing.speak(u("Anna"))
    garbage = Espeak({"de": "de"}, WavFolder(tmp_path), program=str(fake_program(tmp_path, "print('hello')")))
    with pytest.raises(VoiceError, match="no usable WAV"):
        garbage.speak(u("Anna"))


def test_a_done_is_not_delayed_by_a_hung_espeak_ng(tmp_path: Path) -> None:
    """The whole path: controller, service, speaker, an espeak-ng that never answers."""
    program = fake_program(tmp_path, "time.sleep(60)")
    speaker = Speaker(Espeak({"de": "de"}, WavFolder(tmp_path / "wav"), program=str(program), timeout_s=30.0))
    clock = Clock()
    r = rig("de", 2, words=("HAUS",), settings=Settings(announce=frozenset(SpeechKind)))
    service = service_for(r, tmp_path / "state", clock)
    service.voice = speaker
    service.start("de", 2)
    mirror_into(r, service, clock)
    began = time.monotonic()
    r.draw_first("AE")
    r.deal({0: "HAUSTEN", 1: "ABENDRO"})
    r.lay(0, "H8:H H9:A H10:U H11:S")
    r.done(1)
    r.challenge(2)
    r.tick(1.0)
    took = time.monotonic() - began
    assert service.state is not None and service.state.game is not None and service.state.game.scores() == [10, -5]
    assert took < 5.0, took  # (with a voice that blocked it would be 30 s per announcement)
    assert speaker.spoken == 0 and speaker.dropped >= 1  # the turns were superseded while it hung
    began = time.monotonic()
    speaker.close()  # kills the hung espeak-ng
    assert time.monotonic() - began < 5.0
    service.close()


def test_resampling_keeps_a_sounds_length_and_pitch() -> None:
    rate, target = 16000, 22050
    tone = array.array("h", (round(8000 * math.sin(2 * math.pi * 440 * i / rate)) for i in range(rate)))
    out = array.array("h", resample(tone.tobytes(), rate, target))
    assert len(out) == target  # one second still
    crossings = sum(1 for a, b in zip(out, out[1:]) if (a < 0) != (b < 0))
    assert abs(crossings - 880) <= 2  # 440 Hz still
    assert resample(tone.tobytes(), rate, rate) == tone.tobytes()


def test_a_part_from_a_voice_of_another_rate_is_resampled(tmp_path: Path) -> None:
    """A stand-in espeak-ng that speaks "fr" at 16 kHz (as an mbrola voice does) and the rest at
    22.05 kHz: the joined WAV has the first part's rate and each part's length in seconds."""
    body = (
        "import io, wave\n"
        "rate = 16000 if sys.argv[sys.argv.index('-v') + 1] == 'fr' else 22050\n"
        "out = io.BytesIO()\n"
        "w = wave.open(out, 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)\n"
        "w.writeframes(b'\\x10\\x00' * (rate // 2)); w.close()\n"
        "sys.stdout.buffer.write(out.getvalue())\n"
    )
    espeak = Espeak({"de": "de", "fr": "fr"}, WavFolder(tmp_path), program=str(fake_program(tmp_path, body)))
    wav = espeak.synthesize(Utterance("x", (("Anna", "de"), ("Françoise", "fr")), "turn"))
    rate, samples = wav_samples(wav)
    assert rate == 22050 and len(samples) // 2 == 22050  # half a second each
    wav = espeak.synthesize(Utterance("x", (("Françoise", "fr"), ("Anna", "de")), "turn"))
    rate, samples = wav_samples(wav)
    assert rate == 16000 and len(samples) // 2 == 16000


def test_time_up_is_never_dropped_for_newer_news() -> None:
    """Whose turn and a time warning go stale when something newer comes; time being up does not."""
    assert transient(TurnSpeech("Anna")) and transient(TimeSpeech("Anna", 60)) and transient(TimeSpeech("Anna", 30, True))
    assert not transient(TimeSpeech("Anna", 0)) and not transient(TimeSpeech("Anna", 0, True))
