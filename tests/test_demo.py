"""``scoreboard demo``: a complete game through the real service on simulated hardware."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from drivers.display.panels import PANELS, RECOMMENDED
from engine import gcg
from engine.replay import replay
from scoreboard.cli import main


@pytest.mark.parametrize("rules", ["de", "fr", "en", "en-tournament"])
def test_the_demo_plays_a_whole_game_to_its_tally(rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--rules", rules, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{rules}: passes" in printed and "Anna" in printed and "Ben" in printed
    text = (out / "game.gcg").read_text(encoding="utf-8")
    # the same game as version 0.1 wrote (tests/data/demo/), move for move
    assert text == (Path(__file__).parent / "data" / "demo" / f"{rules}.gcg").read_text(encoding="utf-8")
    record = gcg.read(text)
    report = replay(record)
    assert report.disagreements == () and report.events >= 7
    frames = sorted((out / "screens").glob("*.png"))
    assert len(frames) > 20
    with Image.open(frames[0]) as first:  # the reference build's panel
        assert first.size == PANELS[RECOMMENDED].size == (256, 64)
    assert (out / "screens.gif").stat().st_size > 1000
    shown = (out / "screens.txt").read_text(encoding="utf-8")
    assert "ChallengeResultScreen" in shown and "valid=False" in shown and "TallyScreen" in shown
