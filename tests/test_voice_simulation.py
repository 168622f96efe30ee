"""A simulated game with the voice on writes each announcement as a WAV next to its frames."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_voice_espeak import loudness

from scoreboard.cli import main


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (Debian: apt-get install espeak-ng)")
def test_the_demo_with_the_voice_writes_a_wav_per_announcement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--rules", "fr", "--out", str(out), "--voice"]) == 0
    lines = (out / "voice" / "voice.txt").read_text(encoding="utf-8").splitlines()
    wavs = sorted((out / "voice").glob("*.wav"))
    assert [line.split("\t")[0] for line in lines] == [w.name for w in wavs]
    # every announcement is kept in simulation (none superseded): the game's, in order
    said = [line.split("\t")[1] for line in lines]
    assert said[:5] == [
        "À Anna de jouer.",
        "Anna, VLAN, 14 points.",
        "À Ben de jouer.",
        "Ben conteste. VLAN est valable. Ben perd dix points.",
        "Ben, EDUCABLE, 67 points. Scrabble !",
    ]
    assert "Anna échange trois lettres." in said
    assert "Anna conteste. Refusé : Q, P, A, G, I, E, Z. Ben reprend ses lettres." in said
    assert "Anna, KAWA, joker en A, 72 points." in said
    assert said[-1] == "Fin de la partie. Ben : 579 points. Anna : 406 points. Ben gagne."
    assert len(said) == 54
    assert [w.name.partition("-")[2] for w in wavs[:4]] == ["turn.wav", "play.wav", "turn.wav", "challenge.wav"]
    for wav in wavs:
        seconds, rms, peak = loudness(wav.read_bytes())
        assert seconds > 0.8 and rms > 800 and peak > 8000, (wav.name, seconds, rms, peak)
    assert f"{len(wavs)} announcements in {out / 'voice'}" in capsys.readouterr().out
