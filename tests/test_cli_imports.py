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
