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


def test_every_choice_is_a_profile_parameter() -> None:
    """Each parameter "This project's choices" names is a field of RuleProfile, and every field
    for a choice where the rule texts are silent is named there."""
    import dataclasses
    import re

    from engine.rules import RuleProfile

    choices = DOC.read_text(encoding="utf-8").split(CHOICES, 1)[1]
    fields = {f.name for f in dataclasses.fields(RuleProfile)}
    named = {n for n in re.findall(r"`([a-z]+(?:_[a-z]+)+)`", choices)}
    assert named and named <= fields, named - fields
    silent = {
        "challenge_rule", "invalid_play_refused", "overrides_allowed", "going_out_beats_finish_line",
        "finish_line_rack_adjustment", "challenge_bonus_reaches_target", "triple_rack_adjustment", "pass_kinds",
    }
    assert silent <= named, silent - named
