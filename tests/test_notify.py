"""scoreboard.notify: sd_notify datagrams on a real unix socket, and the watchdog interval."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import ScoreboardError
from scoreboard.notify import ServiceNotifier, WatchdogConfigError

NOTIFY_VARS = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")


class Manager:
    """The service manager's end: a datagram socket that receives what the service sends."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.settimeout(2.0)

    def receive(self) -> bytes:
        return self.sock.recv(4096)

    def nothing_received(self) -> bool:
        self.sock.setblocking(False)
        try:
            self.sock.recv(4096)
        except BlockingIOError:
            return True
        finally:
            self.sock.settimeout(2.0)
        return False


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests may themselves run under systemd: start from no notification variables."""
    for name in NOTIFY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    # A short directory: a unix socket path must fit in 108 bytes, pytest's tmp_path may not.
    path = Path(tempfile.mkdtemp(prefix="sdn-"))
    yield path
    shutil.rmtree(path)


@pytest.fixture
def manager(socket_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Manager]:
    path = socket_dir / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        yield Manager(sock)


# --- messages -------------------------------------------------------------------------------


def test_ready_sends_ready(manager: Manager) -> None:
    notifier = ServiceNotifier()
    assert notifier.enabled
    notifier.ready()
    assert manager.receive() == b"READY=1"


def test_ready_with_status_is_one_datagram(manager: Manager) -> None:
    ServiceNotifier().ready("Waiting for the board")
    assert manager.receive() == b"READY=1\nSTATUS=Waiting for the board"
    assert manager.nothing_received()


def test_status(manager: Manager) -> None:
    ServiceNotifier().status("Game 3: Anna 112, Ben 97")
    assert manager.receive() == b"STATUS=Game 3: Anna 112, Ben 97"


def test_status_is_sent_as_utf8(manager: Manager) -> None:
    # systemd reads UTF-8; "œ" has no Latin-1 encoding at all.
    notifier = ServiceNotifier()
    notifier.status("Jörg: cœur ÄPFEL")
    assert manager.receive() == "STATUS=Jörg: cœur ÄPFEL".encode()
    notifier.ready("Spieler Ä")
    assert manager.receive() == b"READY=1\nSTATUS=Spieler \xc3\x84"


def test_unencodable_status_is_sent_with_a_replacement(manager: Manager) -> None:
    ServiceNotifier().status("journal \udcff.db")  # a lone surrogate, as os.fsdecode makes them
    assert manager.receive() == b"STATUS=journal ?.db"


def test_status_cannot_inject_another_assignment(manager: Manager) -> None:
    notifier = ServiceNotifier()
    notifier.status("board lost\nSTOPPING=1")
    assert manager.receive() == b"STATUS=board lost STOPPING=1"
    notifier.status("Spieler Ä\nREADY=1\n")
    assert manager.receive() == "STATUS=Spieler Ä READY=1 ".encode()
    notifier.ready("a\r\nb\x00c")
    assert manager.receive() == b"READY=1\nSTATUS=a b c"
    assert manager.nothing_received()


def test_watchdog(manager: Manager) -> None:
    ServiceNotifier().watchdog()
    assert manager.receive() == b"WATCHDOG=1"


def test_stopping(manager: Manager) -> None:
    ServiceNotifier().stopping()
    assert manager.receive() == b"STOPPING=1"


def test_abstract_socket_address(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"scoreboard-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)  # "@name" in $NOTIFY_SOCKET, a leading NUL for the kernel
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        notifier = ServiceNotifier()
        assert notifier.enabled
        notifier.ready("cœur")
        assert Manager(sock).receive() == "READY=1\nSTATUS=cœur".encode()


def test_unreachable_abstract_socket_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", f"@scoreboard-test-nobody-{os.getpid()}")
    with caplog.at_level(logging.WARNING, logger="scoreboard.notify"):
        notifier = ServiceNotifier()
        notifier.ready()
    assert not notifier.enabled
    assert "cannot reach the service manager" in caplog.text


# --- without a service manager ----------------------------------------------------------------


def test_without_notify_socket_everything_is_a_no_op() -> None:
    notifier = ServiceNotifier()
    assert not notifier.enabled
    notifier.ready("x")
    notifier.status("x")
    notifier.watchdog()
    notifier.stopping()
    assert not notifier.due(0.0)
    assert not notifier.ping_if_due(0.0)


def test_unreachable_socket_warns_and_does_nothing(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(socket_dir / "missing"))
    with caplog.at_level(logging.WARNING, logger="scoreboard.notify"):
        notifier = ServiceNotifier()
        notifier.ready()
    assert not notifier.enabled
    assert "cannot reach the service manager" in caplog.text
    assert str(socket_dir / "missing") in caplog.text


def test_address_that_is_not_a_socket_is_ignored(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", "relative/path")
    with caplog.at_level(logging.WARNING, logger="scoreboard.notify"):
        notifier = ServiceNotifier()
    assert not notifier.enabled
    assert "'relative/path'" in caplog.text


def test_manager_gone_after_start_only_warns(
    socket_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = socket_dir / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    notifier = ServiceNotifier()
    sock.close()
    with caplog.at_level(logging.WARNING, logger="scoreboard.notify"):
        notifier.watchdog()  # must not raise
        notifier.ready("Spieler Ä\nx")
        notifier.stopping()
    assert "could not notify the service manager (WATCHDOG=1)" in caplog.text
    assert "could not notify the service manager (READY=1)" in caplog.text
    assert "could not notify the service manager (STOPPING=1)" in caplog.text
    assert notifier.enabled  # still trying: each send reports its own failure


def test_abstract_manager_gone_after_start_only_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"scoreboard-test-gone-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    notifier = ServiceNotifier()
    sock.close()
    with caplog.at_level(logging.WARNING, logger="scoreboard.notify"):
        assert notifier.ping_if_due(0.0)  # attempted; the failure is only logged
    assert "could not notify the service manager (WATCHDOG=1)" in caplog.text


# --- watchdog interval ------------------------------------------------------------------------


def test_no_watchdog_without_watchdog_usec() -> None:
    assert ServiceNotifier().watchdog_interval() is None


def test_interval_is_half_the_period(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    assert ServiceNotifier().watchdog_interval() == 15.0


def test_interval_for_our_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "5000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert ServiceNotifier().watchdog_interval() == 2.5


def test_no_interval_when_the_watchdog_is_another_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert ServiceNotifier().watchdog_interval() is None


def test_empty_watchdog_usec_means_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "")
    assert ServiceNotifier().watchdog_interval() is None


@pytest.mark.parametrize("value", ["abc", "-30000000", "0", "1.5", " 30000000", "3_000_000", "0x10"])
def test_bad_watchdog_usec_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", value)
    with pytest.raises(WatchdogConfigError) as caught:
        ServiceNotifier()
    assert isinstance(caught.value, ScoreboardError)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == f"$WATCHDOG_USEC must be a positive whole number, got {value!r}"
    assert (caught.value.name, caught.value.value) == ("WATCHDOG_USEC", value)


def test_bad_watchdog_pid_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    monkeypatch.setenv("WATCHDOG_PID", "self")
    with pytest.raises(WatchdogConfigError, match=r"\$WATCHDOG_PID .* got 'self'") as caught:
        ServiceNotifier()
    assert (caught.value.name, caught.value.value) == ("WATCHDOG_PID", "self")


def test_watchdog_config_error_carries_its_data() -> None:
    error = WatchdogConfigError("WATCHDOG_USEC", "1.5")
    assert error.name == "WATCHDOG_USEC"
    assert error.value == "1.5"
    assert str(error) == "$WATCHDOG_USEC must be a positive whole number, got '1.5'"


def test_bad_watchdog_usec_for_another_process_is_not_ours_to_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "abc")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    assert ServiceNotifier().watchdog_interval() is None


# --- pinging at half the period ---------------------------------------------------------------


def test_pings_at_half_the_period(manager: Manager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")  # WatchdogSec=30s: ping every 15 s
    notifier = ServiceNotifier()
    sent = [now for now in (100.0, 101.0, 114.9, 115.0, 120.0, 129.9, 130.0) if notifier.ping_if_due(now)]
    assert sent == [100.0, 115.0, 130.0]
    assert [manager.receive() for _ in sent] == [b"WATCHDOG=1"] * 3
    assert manager.nothing_received()


def test_due_does_not_ping(manager: Manager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    notifier = ServiceNotifier()
    assert notifier.due(0.0)
    assert notifier.due(0.0)
    assert manager.nothing_received()
    assert notifier.ping_if_due(0.0)
    assert not notifier.due(0.5)
    assert notifier.due(1.0)


def test_clock_going_backwards_pings(manager: Manager, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    notifier = ServiceNotifier()
    assert notifier.ping_if_due(500.0)
    assert notifier.ping_if_due(10.0)
    assert not notifier.ping_if_due(11.0)


def test_never_due_without_a_watchdog(manager: Manager) -> None:
    notifier = ServiceNotifier()
    assert not notifier.due(0.0)
    assert not notifier.ping_if_due(1e9)
    assert manager.nothing_received()


def test_never_due_without_a_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")
    notifier = ServiceNotifier()
    assert notifier.watchdog_interval() == 15.0
    assert not notifier.due(0.0)


def test_the_wait_until_the_next_ping_leaves_no_gap_past_the_interval(manager: Manager, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input just before a ping falls due must not put the ping off a whole interval: the
    runner sleeps until :meth:`next_ping_in`, not for :meth:`watchdog_interval` (review r18b)."""
    monkeypatch.setenv("WATCHDOG_USEC", "30000000")  # WatchdogSec=30s: a ping every 15 s
    notifier = ServiceNotifier()
    assert notifier.next_ping_in(0.0) == 0.0  # never pinged: now
    assert notifier.ping_if_due(0.0)
    assert notifier.next_ping_in(14.99) == pytest.approx(0.01)  # an input woke the runner at 14.99
    assert not notifier.ping_if_due(14.99)
    pings, now = [0.0], 14.99
    for _ in range(3):  # the runner: sleep until the next ping is due, ping
        now += notifier.next_ping_in(now) or 0.0
        if notifier.ping_if_due(now):
            pings.append(now)
    assert max(b - a for a, b in zip(pings, pings[1:])) <= 15.0 + 1e-9
    monkeypatch.delenv("WATCHDOG_USEC")
    assert ServiceNotifier().next_ping_in(5.0) is None
