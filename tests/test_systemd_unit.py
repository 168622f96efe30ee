"""The systemd unit, the udev rule and install.sh: static checks, `systemd-analyze verify` and
`security`, the service under the unit's sandbox (emulated here, by `systemd-run` where systemd
runs), the install's dry run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SYSTEMD = REPO / "systemd"
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
        ("StateDirectoryMode", "0700"),
        ("UMask", "0077"),
        ("PrivateNetwork", "yes"),
        ("RestrictAddressFamilies", "AF_UNIX"),
        ("MemoryDenyWriteExecute", "yes"),
    ],
)
def test_service_key(unit: dict[str, list[tuple[str, str]]], key: str, expected: str) -> None:
    assert only(unit["Service"], key) == expected


def test_time_spans(unit: dict[str, list[tuple[str, str]]]) -> None:
    service = unit["Service"]
    assert 10 <= seconds(only(service, "WatchdogSec")) <= 120
    assert seconds(only(service, "RestartSec")) > 0
    assert seconds(only(service, "TimeoutStopSec")) > 0


START_S = 3.0  # what a start that fails at once takes, at most


def test_restarts_are_limited_and_a_failing_start_reaches_the_limit(unit: dict[str, list[tuple[str, str]]]) -> None:
    interval = seconds(only(unit["Unit"], "StartLimitIntervalSec"))
    burst = int(only(unit["Unit"], "StartLimitBurst"))
    restart = seconds(only(unit["Service"], "RestartSec"))
    assert interval > 0 and burst >= 3
    # a start that fails every time comes round `burst` times within the interval: it stops
    assert burst * (restart + START_S) < interval


def test_cannot_start_is_not_restarted(unit: dict[str, list[tuple[str, str]]], tmp_path: Path) -> None:
    from scoreboard.cli import main

    bad = tmp_path / "scoreboard.toml"
    bad.write_text('[game]\nrules = "no-such-rules"\n', encoding="utf-8")
    code = main(["run", "--config", str(bad)])  # what a configuration error exits with
    assert code not in (0, 1)  # 0: stopped, 1: a crash (restarted)
    from scoreboard.run_cli import JOURNAL_UNREADABLE

    assert only(unit["Service"], "RestartPreventExitStatus").split() == [str(code), str(JOURNAL_UNREADABLE)]


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


# --- systemd-analyze security ---------------------------------------------------------------


def exposure(unit_file: Path) -> float:
    """The overall exposure `systemd-analyze security --offline=true` gives ``unit_file``."""
    result = subprocess.run(
        [systemd_analyze(), "security", "--offline=true", unit_file.name],
        check=False, cwd=unit_file.parent, capture_output=True, text=True, timeout=60,
        env={**os.environ, "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": ""},
    )
    output = result.stdout + result.stderr
    if "offline" in output and ("unrecognized option" in output or "Unknown option" in output):
        pytest.skip("this systemd-analyze has no security --offline (systemd 250 and later)")
    found = re.search(rf"Overall exposure level for {re.escape(unit_file.name)}: (\d+\.\d+) ", output)
    assert found, output[-2000:]
    return float(found.group(1))


def test_the_sandbox_rates_at_most_2(tmp_path: Path) -> None:
    # 5.5 MEDIUM before issue 12; systemd/README.md lists what is left open and why
    assert exposure(unit_copy(tmp_path)) <= 2.0


def test_the_rating_counts_the_sandbox(tmp_path: Path) -> None:
    hardened = exposure(unit_copy(tmp_path))
    looser = tmp_path / "looser"
    looser.mkdir()
    assert exposure(unit_copy(looser, "[Service]\nPrivateNetwork=no\nRestrictAddressFamilies=\n")) > hardened


# --- the service under the unit's sandbox --------------------------------------------------

# The [Service] keys that are not sandboxing: everything else is taken for systemd-run.
LIFECYCLE = {
    "Type", "NotifyAccess", "WatchdogSec", "Restart", "RestartSec", "RestartPreventExitStatus", "ExecStart",
    "KillSignal", "TimeoutStopSec", "User", "Group", "SupplementaryGroups", "StateDirectory", "StateDirectoryMode",
    "WorkingDirectory", "Environment",
}
SHORT_GAME = "place R1.1 A.0\nplace R2.1 E.0\nafter 1.5 tick\nend\n"

# The kernel's own MemoryDenyWriteExecute (prctl PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN; Linux
# 6.3), inherited by the simulated board; the unit's UMask; then the scoreboard command.
SANDBOXED = r"""
import ctypes, os, runpy, sys
if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0:
    sys.exit(77)
os.umask(0o077)
sys.argv = ["scoreboard", *sys.argv[1:]]
runpy.run_module("scoreboard.cli", run_name="__main__")
"""


def short_game(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A config (state in ``tmp_path/state``), and the arguments of a short simulated game."""
    config = tmp_path / "scoreboard.toml"
    config.write_text(f'[paths]\nstate_dir = "{tmp_path / "state"}"\n', encoding="utf-8")
    script = tmp_path / "script.txt"
    script.write_text(SHORT_GAME, encoding="utf-8")
    args = ["run", "--config", str(config), "--simulate", "--virtual-clock", "--script", str(script),
            "--out", str(tmp_path / "out")]
    return config, tmp_path / "state", args


def test_a_game_needs_no_network_nor_writable_code_and_keeps_its_files_private(tmp_path: Path) -> None:
    # PrivateNetwork=yes (a network namespace of its own), MemoryDenyWriteExecute=yes, UMask=0077
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare (util-linux) is missing: no network namespace to run the game in")
    probe = subprocess.run([unshare, "--net", "true"], check=False, capture_output=True, text=True)
    if probe.returncode:
        pytest.skip(f"no network namespace here (unshare --net: {probe.stderr.strip()})")
    config, state, args = short_game(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def sandboxed(*command: str) -> subprocess.CompletedProcess[str]:
        run = subprocess.run([unshare, "--net", "--", sys.executable, "-c", SANDBOXED, *command], check=False,
                             cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        if run.returncode == 77:
            pytest.skip("the kernel has no PR_SET_MDWE (Linux 6.3), MemoryDenyWriteExecute's own check")
        assert run.returncode == 0, run.stderr[-3000:]
        return run

    sandboxed(*args)
    sandboxed("lexicon", "house", "accept", "--lang", "de", "--config", str(config), "QUIXEL")
    made = [p for top in (state, tmp_path / "out") for p in [top, *top.rglob("*")]]
    assert {p.name for p in made} >= {"journal.db", "screens.gif", "screens.txt"}
    assert any("house" in p.name for p in made), sorted(p.name for p in made)
    assert [(str(p), oct(p.stat().st_mode)) for p in made if p.stat().st_mode & 0o077] == []


def test_the_service_runs_under_the_units_sandbox_with_systemd_run(
    unit: dict[str, list[tuple[str, str]]], tmp_path: Path
) -> None:
    systemd_run = shutil.which("systemd-run")
    if systemd_run is None:
        pytest.skip("systemd-run is not installed (Debian package systemd)")
    if not Path("/run/systemd/system").is_dir():
        pytest.skip("systemd is not PID 1 here (no /run/systemd/system): systemd-run has no manager to ask")
    if os.geteuid() != 0:
        pytest.skip("systemd-run of a system service needs root")
    _, state, args = short_game(tmp_path)
    properties = [f"{key}={value}" for key, value in unit["Service"] if key not in LIFECYCLE]
    if any(str(path).startswith(("/root/", "/home/")) for path in (REPO, Path(sys.executable).resolve())):
        # the tree or the interpreter lives in a home: readable, not hidden (the device's venv is in /opt)
        properties = [p if p != "ProtectHome=yes" else "ProtectHome=read-only" for p in properties]
    command = [
        systemd_run, "--wait", "--pipe", "--collect", "--quiet", f"--working-directory={REPO}",
        f"--setenv=PYTHONPATH={REPO}", f"--property=BindPaths={tmp_path}",  # (visible in the private /tmp)
        *(f"--property={p}" for p in properties), sys.executable, "-m", "scoreboard.cli", *args,
    ]
    run = subprocess.run(command, check=False, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert (state / "journal.db").stat().st_mode & 0o077 == 0  # UMask=0077


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


def test_install_keeps_the_state_and_the_configuration_private() -> None:
    out = run_install("--dry-run").stdout
    assert "would run: install -d -o scoreboard -g scoreboard -m 0700 /var/lib/scoreboard" in out
    assert "would run: chmod -R go= /var/lib/scoreboard" in out  # what an earlier version left 0644
    if Path("/etc/scoreboard/scoreboard.toml").exists():
        assert "would run: chown root:scoreboard /etc/scoreboard/scoreboard.toml" in out
        assert "would run: chmod 0640 /etc/scoreboard/scoreboard.toml" in out
    else:
        assert "would run: install -D -o root -g scoreboard -m 0640 NEW_CONFIG /etc/scoreboard/scoreboard.toml" in out


def test_install_gives_everything_it_makes_a_mode() -> None:
    lines = [line.strip() for line in INSTALL.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#")]
    modes: list[tuple[str, str]] = []
    for line in lines:
        if re.search(r"\binstall -[dD]\b", line):
            given = re.search(r"-m\s+(\S+)", line)
            assert given, f"no mode: {line}"
            if given.group(1) != '"$mode"':  # install_file's: its callers' modes are checked below
                modes.append((line, given.group(1)))
        elif line.startswith("install_file "):
            modes.append((line, line.split()[-1]))
        elif re.search(r"\bmkdir\b", line):
            assert line == 'mkdir "$stage"', f"a directory without a mode: {line}"  # inside mktemp's 0700
    assert len(modes) >= 6
    for line, mode in modes:
        assert re.fullmatch(r"0[0-7]{3}", mode) and int(mode, 8) & 0o002 == 0, f"writable by anyone: {line}"


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
