"""The command line loads only what a command uses: its help loads nothing of the project."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.rules import profile_names
from engine.tiles import TILE_SETS
from engine.words import LANGUAGES
from scoreboard import cli

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import contextlib, io, json, sys
from scoreboard.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
ours = ("engine", "drivers", "scoreboard", "firmware")
heavy = ("gpiozero", "serial", "luma", "PIL", "marisa_trie", "attrs", "sqlite3")
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ours + heavy)))
"""


def loaded(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, cwd=ROOT, timeout=60, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("run", "--help"),
        ("demo", "--help"),
        ("replay", "--help"),
        ("export", "--help"),
        ("enroll", "--help"),
        ("board", "selftest", "--help"),
        ("simulate-board", "--help"),
        ("lexicon", "check", "--help"),
        ("config", "--help"),
        ("bench", "--help"),
        ("play", "--help"),
    ],
)
def test_help_loads_only_the_command_line(argv: tuple[str, ...]) -> None:
    assert loaded(*argv) == ["scoreboard", "scoreboard.cli"]


def test_a_command_loads_what_it_uses_and_not_the_others(tmp_path: Path) -> None:
    modules = loaded("config", "--defaults")
    assert "scoreboard.config_cli" in modules and "scoreboard.config" in modules
    assert not any(m.startswith(("gpiozero", "luma", "serial", "scoreboard.controller", "scoreboard.sim")) for m in modules)
    replay = loaded("replay", str(ROOT / "tests" / "data" / "gcg" / "josh2.gcg"))
    assert "engine.replay" in replay and not any(m.startswith(("gpiozero", "luma", "scoreboard.journal")) for m in replay)
    export = loaded("export", "--list", "--set", f"paths.state_dir={tmp_path}")
    assert "scoreboard.journal_format" in export and "scoreboard.controller.records" in export
    assert not any(m.startswith(("gpiozero", "luma", "PIL", "serial", "scoreboard.controller.table")) for m in export)


def test_the_command_lines_copies_of_the_registries_are_the_engines() -> None:
    assert cli.PROFILES == profile_names()
    assert cli.LANGUAGES == tuple(LANGUAGES) == tuple(ts.language for ts in TILE_SETS.values())


STARTING_PROBE = """
import json, os, sys
from scoreboard import starting
shown = starting.show_starting
def stop(*args, **kw):
    result = shown(*args, **kw)
    print(json.dumps([result is not None, sorted(sys.modules)]))
    sys.stdout.flush()
    os._exit(0)
starting.show_starting = stop
from scoreboard.cli import main
main(sys.argv[1:])
"""

HEAVY = (
    "scoreboard.config", "scoreboard.journal", "scoreboard.controller", "scoreboard.service", "scoreboard.screens",
    "scoreboard.hardware", "scoreboard.runner", "scoreboard.sim", "scoreboard.lexicons", "engine.rules",
    "engine.tiles", "engine.game", "drivers.board", "drivers.buttons", "gpiozero", "serial", "attrs", "attr",
    "sqlite3", "marisa_trie", "tomllib", "PIL.PngImagePlugin", "pygame",
)


def test_the_start_loads_nothing_heavy_before_its_first_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``scoreboard run`` shows its starting frame (:mod:`scoreboard.starting`) before it loads the
    configuration's schema, the journal, the controller, the engine's rules, the board link,
    the buttons or Pillow's image plugins."""
    monkeypatch.setenv("HOME", str(tmp_path))  # (no configuration file of the user's)
    monkeypatch.delenv("SCOREBOARD_CONFIG", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    argv = ["run", "--simulate", "--out", str(tmp_path / "out"), "--set", f"paths.state_dir={tmp_path}",
            "--set", "game.rules=de", "--set", 'game.players=["Anna", "Ben"]', "--set", "ui.language=de"]
    done = subprocess.run([sys.executable, "-c", STARTING_PROBE, *argv], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          check=True)
    showed, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert showed
    assert "scoreboard.drawing.starting" in modules and "drivers.display.capture" in modules
    assert [m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY)] == []
