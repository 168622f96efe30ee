"""``scoreboard demo``: a whole game through the real service on simulated hardware.

``make test`` plays the German game (``make demo``'s) through the service; the other
profiles' games are checked against the engine here and played through the service in
``make soak`` (each takes half a minute or more on the 2-core machine).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from drivers.display.panels import PANELS, RECOMMENDED
from engine import gcg
from engine.events import Challenge, Exchanged, PlayMade, PlayWithdrawn
from engine.game import Termination
from engine.replay import replay
from engine.rules import get_profile
from scoreboard.cli import main
from scoreboard.config import load_config
from scoreboard.demo import demo_script
from scoreboard.lexicons import open_lexicon
from scoreboard.table_script import ScriptTable, check

DATA = Path(__file__).parent / "data" / "demo"
PROFILES = ["de", "fr", "en", "en-tournament"]


@pytest.mark.parametrize("rules", PROFILES)
def test_each_demo_game_is_whole_and_realistic(rules: str) -> None:
    """15 to 25 plays, a bingo, both blanks, an exchange, a challenge that fails and one that
    takes a phony off, and a player going out with the bag empty (checked by the engine)."""
    lexicon = open_lexicon(get_profile(rules).tile_set.language)
    text, game = demo_script(rules, ["Anna", "Ben"], lexicon)
    config = load_config(None, [f"game.rules={rules}", 'game.players=["Anna", "Ben"]'])
    check(text, ScriptTable.of(config))  # a script the service takes
    assert game.tally().termination is Termination.WENT_OUT and not len(game.bag)
    plays = [e for e in game.events if isinstance(e, PlayMade)]
    withdrawn = sum(isinstance(e, PlayWithdrawn) for e in game.events)
    assert 15 <= len(plays) - withdrawn <= 25, (len(plays), withdrawn)
    assert any(p.bingo for p in plays)
    assert sum(t.tile.blank for p in plays for t in p.placement.tiles) == 2  # both blanks
    assert any(isinstance(e, Exchanged) for e in game.events)
    challenges = [c for c in game.log if isinstance(c, Challenge)]
    assert len(challenges) == 2 and withdrawn == 1  # a challenge each way: one fails, one takes a phony off


def test_the_demo_plays_the_whole_german_game_to_its_tally(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play_demo("de", tmp_path, capsys)


@pytest.mark.soak
@pytest.mark.parametrize("rules", ["fr", "en", "en-tournament"])
def test_the_demo_plays_each_profiles_game(rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    play_demo(rules, tmp_path, capsys)


def play_demo(rules: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--rules", rules, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{rules}: went-out" in printed and "Anna" in printed and "Ben" in printed
    text = (out / "game.gcg").read_text(encoding="utf-8")
    # the same game as the demo wrote when it was made (tests/data/demo/), move for move
    assert text == (DATA / f"{rules}.gcg").read_text(encoding="utf-8")
    record = gcg.read(text)
    report = replay(record)
    assert report.disagreements == () and report.events >= 30
    assert re.search(r" [A-ZÄÖÜ.]*[a-zäöü][A-ZÄÖÜa-zäöü.]* \+", text)  # a blank's letter, as its player named it
    assert re.search(r"^>\w+: \S+ -\S+ \+0 ", text, re.M)  # the exchange
    assert " -- " in text  # the phony taken back
    frames = sorted((out / "screens").glob("*.png"))
    assert len(frames) > 40
    with Image.open(frames[0]) as first:  # the reference build's panel
        assert first.size == PANELS[RECOMMENDED].size == (256, 64)
    assert (out / "screens.gif").stat().st_size > 1000
    shown = (out / "screens.txt").read_text(encoding="utf-8")
    assert "BlankPickerScreen" in shown and "TallyScreen" in shown
    assert "ChallengeResultScreen" in shown and "valid=False" in shown and "valid=True" in shown
