"""The hub's systemd unit and the board's broadcast drop-in: `systemd-analyze verify` is
silent on both (the drop-in applied to the board's unit)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from test_systemd_unit import SYSTEMD, existing_executable, parse_unit, systemd_analyze, unit_copy, values, verify

HUB = SYSTEMD / "scoreboard-hub.service"
DROP_IN = SYSTEMD / "broadcast.conf"


def test_the_hub_unit_verifies_silently_and_runs_scoreboard_hub(tmp_path: Path) -> None:
    text = HUB.read_text(encoding="utf-8")
    service = parse_unit(text)["Service"]
    assert values(service, "ExecStart") == ["/opt/scoreboard/venv/bin/scoreboard hub --config /etc/scoreboard/hub.toml"]
    assert values(service, "Type") == ["notify"] and "AF_INET" in values(service, "RestrictAddressFamilies")[0]
    copy = tmp_path / HUB.name
    copy.write_text(text.replace("/opt/scoreboard/venv/bin/scoreboard ", existing_executable() + " "), encoding="utf-8")
    result = verify(copy)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_the_broadcast_drop_in_gives_the_board_its_network_and_verifies(tmp_path: Path) -> None:
    service = parse_unit(DROP_IN.read_text(encoding="utf-8"))["Service"]
    assert values(service, "PrivateNetwork") == ["no"] and values(service, "IPAddressDeny") == [""]
    unit = unit_copy(tmp_path)
    drop = tmp_path / "scoreboard.service.d"
    drop.mkdir()
    (drop / "broadcast.conf").write_text(DROP_IN.read_text(encoding="utf-8"), encoding="utf-8")
    assert with_drop_ins(unit) == ""
    (drop / "broadcast.conf").write_text(DROP_IN.read_text(encoding="utf-8") + "BogusKey=1\n", encoding="utf-8")
    assert "BogusKey" in with_drop_ins(unit)  # (the drop-in is read)


def with_drop_ins(unit: Path) -> str:
    """What `systemd-analyze verify` says of ``unit`` with the drop-ins of its folder."""
    result = subprocess.run(
        [systemd_analyze(), "verify", unit.name], check=False, cwd=unit.parent, capture_output=True, text=True,
        timeout=60, env={**os.environ, "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": "", "SYSTEMD_UNIT_PATH": f"{unit.parent}:"},
    )
    assert result.returncode == 0
    return result.stdout + result.stderr
