"""A simulated game with the voice on writes each announcement as a WAV next to its frames."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_voice_espeak import loudness

from scoreboard.cli import main


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (Debian: apt-get install espeak-ng)")
def test_a_simulated_game_with_the_voice_writes_a_wav_per_announcement(tmp_path: Path) -> None:
    """The short French game (the demo's whole game is 54 announcements: too long for make test)
    played through ``run --simulate`` with ``voice.enabled``."""
    from scoreboard.demo import short_demo_script
    from scoreboard.lexicons import open_lexicon

    script = tmp_path / "game.txt"
    script.write_text(short_demo_script("fr", ["Anna", "Ben"], open_lexicon("fr"))[0], encoding="utf-8")
    out = tmp_path / "run"
    assert main([
        "run", "--simulate", "--script", str(script), "--virtual-clock", "--out", str(out),
        "--set", "game.rules=fr", "--set", 'game.players=["Anna", "Ben"]', "--set", "voice.enabled=true",
        "--set", f"paths.state_dir={tmp_path / 'state'}",
    ]) == 0
    lines = (out / "voice" / "voice.txt").read_text(encoding="utf-8").splitlines()
    wavs = sorted((out / "voice").glob("*.wav"))
    assert [line.split("\t")[0] for line in lines] == [w.name for w in wavs]
    # every announcement is kept in simulation (none superseded): the game's, in order
    assert [line.split("\t")[1] for line in lines] == [
        "À Anna de jouer.",
        "Anna, ROSE, huit points.",
        "À Ben de jouer.",
        "Ben conteste. ROSE est valable. Ben perd dix points.",
        "Ben, NOTE, quatre points.",
        "À Anna de jouer.",
        "Anna, ROSEX, 14 points.",
        "À Ben de jouer.",
        "Ben conteste. Refusé : R, O, S, E, X. Anna reprend ses lettres.",
        "Ben passe.",
        "À Anna de jouer.",
        "Anna passe.",
        "À Ben de jouer.",
        "Ben passe.",
        "Fin de la partie. Anna : moins neuf points. Ben : moins 14 points. Anna gagne.",
    ]
    assert [w.name.partition("-")[2] for w in wavs[:4]] == ["turn.wav", "play.wav", "turn.wav", "challenge.wav"]
    for wav in wavs:
        seconds, rms, peak = loudness(wav.read_bytes())
        assert seconds > 0.8 and rms > 800 and peak > 8000, (wav.name, seconds, rms, peak)
