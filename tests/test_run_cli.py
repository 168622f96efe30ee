"""``scoreboard run``: its arguments, sd_notify, SIGTERM, and the simulated real-time mode."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from scoreboard.cli import main
from scoreboard.journal import Journal

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args, message",
    [
        (["--virtual-clock"], "need --simulate"),
        (["--script", "x.txt"], "need --simulate"),
        (["--simulate", "--virtual-clock"], "needs --script"),
        (["--control", "x.sock"], "need --simulate"),
        (["--simulate", "--parent-pipe", "999"], "no parent pipe at file descriptor 999"),
    ],
)
def test_bad_combinations_exit_2_with_a_reason(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_bad_script_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.txt"
    script.write_text("press 1 done\npress 9 done\n", encoding="utf-8")
    code = main(["run", "--simulate", "--script", str(script), "--set", f"paths.state_dir={tmp_path / 'state'}"])
    assert code == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "press 9 done" in err


def test_a_script_is_checked_whole_against_the_table_before_anything_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.txt"
    script.write_bytes(b"place H8 E.0\npress 1 done\nplace H8 Q.5\npress 3 done\nbad \xff\nafter 1e308 tick\n")
    state = tmp_path / "state"
    code = main(["run", "--simulate", "--virtual-clock", "--script", str(script), "--set", f"paths.state_dir={state}"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{script}: the script is refused, 4 bad lines" in err and "Traceback" not in err
    for named in ["line 3: 'place H8 Q.5'", "line 4: 'press 3 done'", "line 5: ", "line 6: 'after 1e308 tick'"]:
        assert named in err
    # nothing but the starting frame was shown (before the script was read): no game started
    shown = (state / "simulate" / "screens.txt").read_text(encoding="utf-8").splitlines()
    assert shown == ["0.000\tStartingScreen()"]
    with Journal.open(state) as journal:
        assert journal.latest() is None


def service(folder: Path, stderr: int = subprocess.PIPE) -> tuple[subprocess.Popen[bytes], socket.socket]:
    """``run --simulate`` in real time, state and screens in ``folder``; its sd_notify socket."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(folder / "notify"))
    notify.settimeout(60)
    env = dict(os.environ, NOTIFY_SOCKET=str(folder / "notify"), SDL_VIDEODRIVER="dummy")
    proc = subprocess.Popen(
        [sys.executable, "-m", "scoreboard.run_cli", "--simulate", "--out", str(folder / "out"),
         "--set", f"paths.state_dir={folder / 'state'}"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
    )
    return proc, notify


def test_the_service_says_ready_and_stops_cleanly_on_sigterm() -> None:
    with tempfile.TemporaryDirectory(prefix="run-") as tmp:
        folder = Path(tmp)
        proc, notify = service(folder)
        try:
            message = notify.recv(4096).decode()
            assert "READY=1" in message
            time.sleep(1.0)  # a few real-time ticks with the simulated board
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
            notify.settimeout(0.5)
            later = []
            try:
                while True:
                    later.append(notify.recv(4096).decode())
            except TimeoutError:
                pass
        finally:
            if proc.poll() is None:
                proc.kill()
            notify.close()
        assert proc.returncode == 0, err.decode()[-2000:]
        assert any("STOPPING=1" in m for m in later)
        with Journal.open(folder / "state") as journal:  # closed cleanly: nothing set aside
            assert journal.recovered_from is None
        assert list((folder / "out" / "screens").glob("*.png")), "the draw screen was shown"


def _children(pid: int) -> list[int]:
    return [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie nobody reaps
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds the simulator's pid in /proc")
def test_a_killed_service_takes_its_simulator_with_it() -> None:
    with tempfile.TemporaryDirectory(prefix="run-") as tmp:
        proc, notify = service(Path(tmp), stderr=subprocess.DEVNULL)
        simulator: int | None = None
        try:
            assert "READY=1" in notify.recv(4096).decode()
            [simulator] = _children(proc.pid)
            argv = Path(f"/proc/{simulator}/cmdline").read_bytes().decode().split("\0")
            control = Path(argv[argv.index("--control") + 1])
            assert control.is_socket()
            proc.kill()
            proc.wait(timeout=30)
            deadline = time.monotonic() + 10.0  # it takes milliseconds; a loaded machine may be slow
            while not _gone(simulator):
                assert time.monotonic() < deadline, "the simulator outlived the service by 10 s"
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                proc.kill()
            if simulator is not None and not _gone(simulator):
                os.kill(simulator, signal.SIGKILL)  # the test failed: leave nothing running
            notify.close()
        assert not control.exists()  # it stopped cleanly: its socket and link removed ...
        leftover = control.parent.exists()
        shutil.rmtree(control.parent, ignore_errors=True)
        assert not leftover, "... and the temporary folder the killed service could not remove"


def test_the_window_is_retired_for_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    """--window (a pygame window) is retired: the answer says what shows the displays instead."""
    assert main(["run", "--simulate", "--window"]) == 2
    assert "scoreboard play" in capsys.readouterr().err


def test_power_off_runs_the_command_and_says_when_it_cannot(caplog: pytest.LogCaptureFixture) -> None:
    from scoreboard.run_cli import power_off

    assert power_off(["true"])
    assert not power_off(["false"])
    assert not power_off(["/nonexistent/poweroff"])
    assert "cannot switch off" in caplog.text
