"""The systemd unit, the udev rule and install.sh: static checks, `systemd-analyze verify`, dry run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
UNIT = SYSTEMD / "scoreboard.service"
RULES = SYSTEMD / "99-scoreboard-board.rules"
INSTALL = SYSTEMD / "install.sh"
EXEC_START = "/opt/scoreboard/venv/bin/scoreboard run --config /etc/scoreboard/scoreboard.toml"


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """Sections of a unit file as (key, value) lists: keys may repeat (After=), order kept."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        assert not line.endswith("\\"), f"line {number}: keep values on one line: {raw!r}"
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, sep, value = line.partition("=")
        assert sep and current is not None, f"line {number} is not KEY=VALUE in a section: {raw!r}"
        current.append((key.strip(), value.strip()))
    return sections


def values(section: list[tuple[str, str]], key: str) -> list[str]:
    return [value for k, value in section if k == key]


def only(section: list[tuple[str, str]], key: str) -> str:
    found = values(section, key)
    assert len(found) == 1, f"{key}= should be set once, found {found}"
    return found[0]


def seconds(value: str) -> float:
    """A systemd time span such as 30s, 1min 30s or 500ms, in seconds."""
    units = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}
    parts = re.findall(r"(\d+)\s*([a-z]*)", value)
    assert parts and re.fullmatch(r"(\s*\d+\s*[a-z]*)+\s*", value), f"not a time span: {value!r}"
    return sum(int(n) * units[unit or "s"] for n, unit in parts)


@pytest.fixture(scope="module")
def unit() -> dict[str, list[tuple[str, str]]]:
    return parse_unit(UNIT.read_text(encoding="utf-8"))


# --- the unit, statically -------------------------------------------------------------------


def test_unit_sections(unit: dict[str, list[tuple[str, str]]]) -> None:
    assert set(unit) == {"Unit", "Service", "Install"}
    assert only(unit["Install"], "WantedBy") == "multi-user.target"


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("Type", "notify"),
        ("NotifyAccess", "main"),
        ("Restart", "on-failure"),
        ("User", "scoreboard"),
        ("StateDirectory", "scoreboard"),
        ("WorkingDirectory", "/var/lib/scoreboard"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("NoNewPrivileges", "yes"),
        ("ExecStart", EXEC_START),
        ("KillSignal", "SIGTERM"),
    ],
)
def test_service_key(unit: dict[str, list[tuple[str, str]]], key: str, expected: str) -> None:
    assert only(unit["Service"], key) == expected


def test_time_spans(unit: dict[str, list[tuple[str, str]]]) -> None:
    service = unit["Service"]
    assert 10 <= seconds(only(service, "WatchdogSec")) <= 120
    assert seconds(only(service, "RestartSec")) > 0
    assert seconds(only(service, "TimeoutStopSec")) > 0


def test_device_groups(unit: dict[str, list[tuple[str, str]]]) -> None:
    groups = " ".join(values(unit["Service"], "SupplementaryGroups")).split()
    assert {"gpio", "i2c", "dialout"} <= set(groups)


def test_working_directory_is_the_state_directory(unit: dict[str, list[tuple[str, str]]]) -> None:
    # lgpio writes its notification FIFOs into the working directory; under
    # ProtectSystem=strict only the state directory is writable.
    service = unit["Service"]
    assert only(service, "WorkingDirectory") == "/var/lib/" + only(service, "StateDirectory")


@pytest.mark.parametrize("key", ["PrivateDevices", "DeviceAllow", "DevicePolicy", "ProtectClock"])
def test_nothing_hides_the_devices(unit: dict[str, list[tuple[str, str]]], key: str) -> None:
    # PrivateDevices hides /dev/gpiochip*, /dev/i2c-*, /dev/ttyACM*; DeviceAllow, DevicePolicy
    # and ProtectClock (an implicit DeviceAllow) switch on a device allow-list that blocks them.
    assert values(unit["Service"], key) == []


def test_ordering(unit: dict[str, list[tuple[str, str]]]) -> None:
    after = " ".join(values(unit["Unit"], "After")).split()
    assert "local-fs.target" in after
    # time-sync.target is passive: order after it, never pull it in.
    assert "time-sync.target" not in " ".join(values(unit["Unit"], "Wants") + values(unit["Unit"], "Requires"))


# --- systemd-analyze verify -----------------------------------------------------------------


def systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd; .ci/run installs it)")
    return path


def verify(unit_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [systemd_analyze(), "verify", unit_file.name],
        check=False,
        cwd=unit_file.parent,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": ""},
    )


def existing_executable() -> str:
    """The dev venv's own `scoreboard` script, else its python: verify needs ExecStart to exist."""
    script = Path(sys.executable).parent / "scoreboard"
    return str(script if os.access(script, os.X_OK) else Path(sys.executable))


def unit_copy(tmp_path: Path, extra: str = "") -> Path:
    """The unit with only ExecStart's binary swapped for one that exists here."""
    text = UNIT.read_text(encoding="utf-8")
    binary = EXEC_START.split()[0]
    assert text.count(f"ExecStart={binary} ") == 1
    copy = tmp_path / "scoreboard.service"
    copy.write_text(text.replace(f"ExecStart={binary} ", f"ExecStart={existing_executable()} ") + extra, encoding="utf-8")
    return copy


def test_systemd_analyze_verify_is_silent(tmp_path: Path) -> None:
    # verify exits 0 on warnings (unknown keys, unparsable values): any output is a failure.
    result = verify(unit_copy(tmp_path))
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_verify_would_report_a_mistake(tmp_path: Path) -> None:
    # The check above is only worth something if verify speaks up about a bad line.
    result = verify(unit_copy(tmp_path, "[Service]\nWatchdogSecs=30s\nRestartSec=soon\n"))
    output = result.stdout + result.stderr
    assert "Unknown key" in output and "WatchdogSecs" in output
    assert "soon" in output


# --- the udev rule --------------------------------------------------------------------------


def test_udev_rule() -> None:
    rules = [
        line for line in RULES.read_text(encoding="utf-8").splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert len(rules) == 1
    pairs = dict(re.findall(r'([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*[=!+:]{1,2}\s*"([^"]*)"', rules[0]))
    assert pairs == {
        "SUBSYSTEM": "tty",
        "ATTRS{idVendor}": "2e8a",
        "ATTRS{idProduct}": "0005",
        "SYMLINK": "scoreboard-board",
        "GROUP": "dialout",
        "MODE": "0660",
        "ENV{ID_MM_DEVICE_IGNORE}": "1",
    }
    assert 'SUBSYSTEM=="tty"' in rules[0] and 'SYMLINK+="scoreboard-board"' in rules[0]


# --- install.sh -----------------------------------------------------------------------------


def run_install(*args: str, user: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(user or []), "bash", str(INSTALL), *args], check=False, capture_output=True, text=True, timeout=60, cwd="/"
    )


def test_install_script_syntax() -> None:
    result = subprocess.run(["bash", "-n", str(INSTALL)], check=False, capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")


def test_install_dry_run_changes_nothing_and_names_every_step() -> None:
    targets = [
        Path("/etc/systemd/system/scoreboard.service"),
        Path("/etc/udev/rules.d/99-scoreboard-board.rules"),
        Path("/etc/scoreboard/scoreboard.toml"),
        Path("/opt/scoreboard"),
        Path("/var/lib/scoreboard"),
    ]
    before = {path: path.exists() for path in targets}
    result = run_install("--dry-run")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    for step in [
        "venv /opt/scoreboard/venv exists" if Path("/opt/scoreboard/venv/bin/python").exists() else "-m venv /opt/scoreboard/venv",
        "pip install --upgrade 'STAGE[pi]'",
        "/etc/scoreboard/scoreboard.toml",
        "/etc/systemd/system/scoreboard.service",
        "/etc/udev/rules.d/99-scoreboard-board.rules",
        "systemctl daemon-reload",
        "udevadm control --reload",
        "systemctl enable scoreboard.service",
    ]:
        assert step in out, f"{step!r} missing from the dry run:\n{out}"
    assert "useradd --system" in out or "user scoreboard exists" in out
    assert out.rstrip().endswith("dry run finished: nothing was changed")
    assert {path: path.exists() for path in targets} == before


def test_install_rejects_an_unknown_argument() -> None:
    result = run_install("--dryrun")
    assert result.returncode == 2
    assert "unknown argument '--dryrun'" in result.stderr


def test_install_refuses_to_run_as_non_root() -> None:
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing: cannot drop to a user")
        user = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        if not os.access(INSTALL, os.R_OK) or subprocess.run([*user, "test", "-r", str(INSTALL)], check=False).returncode:
            pytest.skip(f"user 65534 cannot read {INSTALL}")
    else:
        user = []
    result = run_install(user=user)
    assert result.returncode == 1
    assert "must run as root" in result.stderr
    assert result.stdout == ""
