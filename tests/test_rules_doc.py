"""The repository's rules reference (``docs/RULES.md``) names every rule profile, carries the
team's reference (``../shared/RULES.md``) word for word after its opening paragraph, and puts the
project's own choices after it under a heading of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.rules import profile_names

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "RULES.md"
TEAM = ROOT.parent / "shared" / "RULES.md"


CHOICES = "\n## This project's choices\n"


def _body(text: str) -> str:
    """Everything from the first section on (the opening paragraph says where it comes from)."""
    return text[text.index("\n## ") :]


def test_the_rules_reference_names_every_profile() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in profile_names():
        assert f"`{name}`" in text, name
    assert "(choice)" in text  # the choices where the rule texts are silent are marked


@pytest.mark.skipif(not TEAM.exists(), reason="the team's rules reference is not beside this clone")
def test_the_rules_reference_is_the_teams() -> None:
    doc = _body(DOC.read_text(encoding="utf-8"))
    team = _body(TEAM.read_text(encoding="utf-8"))
    assert CHOICES in doc
    ours, choices = doc.split(CHOICES, 1)
    assert ours.rstrip("\n") == team.rstrip("\n")
    assert "(choice)" in choices
