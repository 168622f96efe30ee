"""The README's Python example runs and gives the scores its comments claim."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_engine_example() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block is not None
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    game = namespace["game"]
    assert game.scores() == [10, -5]  # type: ignore[attr-defined]
    assert "# 10" in block.group(1) and "# -5 for Ben" in block.group(1)

